"""PRUM-success@k against trec_eval (pytrec_eval's success_k, classical
model), against an enumeration of navigation outcomes, and on the PRUM
paper's Fig. 5."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

import graphprum
from graphprum.errors import UsageError
from graphprum.measures.names import resolve
from graphprum.measures.success import success_at


def write_trec(tmp_path: Path, qrels: dict, run: dict) -> tuple[Path, Path]:
    q = tmp_path / "qrels.txt"
    r = tmp_path / "run.txt"
    q.write_text("".join(f"{t} 0 {d} {rel}\n" for t, judged in qrels.items()
                         for d, rel in judged.items()))
    r.write_text("".join(f"{t} Q0 {d} {i + 1} {s} sys\n" for t, scored in run.items()
                         for i, (d, s) in enumerate(sorted(scored.items(), key=lambda x: -x[1]))))
    return q, r


@pytest.mark.parametrize("seed", range(5))
def test_classical_model_is_trec_eval_success(tmp_path, seed):
    """With no navigation, PRUM-success@k is trec_eval's success_k (relevant:
    REL >= 1, the default --ideal-min and -l); values from pytrec_eval."""
    import pytrec_eval

    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for t in range(12):
        docs = [f"d{i}" for i in range(30)]
        judged = rng.choice(docs, size=int(rng.integers(1, 15)), replace=False)
        qrels[str(t)] = {str(d): int(rng.choice([-1, 0, 0, 1, 2])) for d in judged}
        ranked = rng.choice(docs, size=int(rng.integers(1, 20)), replace=False)
        scores = rng.permutation(len(ranked)) + rng.random()  # no ties
        run[str(t)] = {str(d): float(s) for d, s in zip(ranked, scores, strict=True)}
    q, r = write_trec(tmp_path, qrels, run)
    ks = [1, 2, 3, 5, 10, 25]
    want = pytrec_eval.RelevanceEvaluator(qrels, {f"success.{','.join(map(str, ks))}"}) \
        .evaluate(run)
    df = graphprum.evaluate([r], q, [f"PRUM-success@{k}" for k in ks])
    got = {(m, t): v for m, t, v in df[["measure", "topic", "value"]].itertuples(index=False)}
    for t in qrels:
        for k in ks:
            assert got[(f"PRUM-success@{k}", t)] == want[t][f"success_{k}"], (t, k)
    for k in ks:
        mean = np.mean([want[t][f"success_{k}"] for t in qrels])
        assert got[(f"PRUM-success@{k}", "all")] == pytest.approx(mean, rel=1e-12)


def enumerated_success(nav: np.ndarray, k: int) -> float:
    """P(some navigation event of the first k ranks happens), by weighing
    every outcome of the independent events (Hypothesis 2.2)."""
    events = [float(p) for p in np.asarray(nav)[:k].ravel() if p > 0]
    total = 0.0
    for outcome in itertools.product([False, True], repeat=len(events)):
        weight = np.prod([p if hit else 1 - p for p, hit in zip(events, outcome, strict=True)])
        if any(outcome):
            total += weight
    return total


@pytest.mark.parametrize("seed", range(20))
def test_navigation_matches_an_enumeration_of_outcomes(seed):
    rng = np.random.default_rng(seed)
    o, t = int(rng.integers(1, 5)), int(rng.integers(1, 4))
    nav = np.where(rng.random((o, t)) < 0.6, rng.choice([0.1, 0.25, 0.5, 0.9, 1.0], (o, t)), 0)
    for k in range(1, o + 2):
        assert success_at(nav, k) == pytest.approx(enumerated_success(nav, k), abs=1e-12)
    assert success_at(nav) == pytest.approx(enumerated_success(nav, o), abs=1e-12)


def test_fig5_through_the_command_line_model(tmp_path):
    """PRUM Fig. 5: c -> a, b with .4 each, d -> a with .6, d -> b with .4;
    after c: 1 - .6 * .6 = .64; after d too: 1 - .36 * .4 * .6 = .9136; a at
    rank 3 is ideal: 1.  trec_eval's success_1 is 0 (c is not relevant)."""
    (tmp_path / "nav").write_text("c\ta\t0.4\nc\tb\t0.4\nd\ta\t0.6\nd\tb\t0.4\n")
    q, r = write_trec(tmp_path, {"1": {"a": 1, "b": 1}},
                      {"1": {"c": 4.0, "d": 3.0, "a": 2.0, "b": 1.0}})
    df = graphprum.evaluate([r], q, ["PRUM-success", "PRUM-success@2", "PRUM-success@3",
                                     "success_1"],
                            nav=[f"direct:{tmp_path / 'nav'}"], per_topic=False)
    got = dict(zip(df["measure"], df["value"], strict=True))
    assert got["PRUM-success@1"] == pytest.approx(0.64, abs=1e-12)
    assert got["PRUM-success@2"] == pytest.approx(0.9136, abs=1e-12)
    assert got["PRUM-success@3"] == got["PRUM-success@5"] == got["PRUM-success@10"] == 1.0
    assert got["success_1"] == 0.0


def test_names():
    assert [str(s) for s in resolve("PRUM-success")] == ["PRUM-success@1", "PRUM-success@5",
                                                         "PRUM-success@10"]
    assert [str(s) for s in resolve("prum-success@3")] == ["PRUM-success@3"]
    for bad in ("PRUM-success@0.5", "PRUM-success(r=1)@2", "PRUM-success@0"):
        with pytest.raises(UsageError):
            resolve(bad)
    from graphprum.plots import curve_measures

    assert curve_measures("PRUM-success", ks=[1, 2]) == ["PRUM-success@1", "PRUM-success@2"]
