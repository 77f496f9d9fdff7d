"""PRUM through the measure registry: names of DESIGN §1.6 on a TopicContext."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
import scipy.sparse as sp

from graphprum.context import TopicContext
from graphprum.errors import UsageError
from graphprum.measures.prum import precision_at_recall
from graphprum.measures.registry import family, parse_measure


class Pairs:
    """A navigation model given as explicit pairs (besides x -> x)."""

    spec = "pairs"
    needs_store = False
    browses = True

    def __init__(self, pairs):
        self.pairs = pairs

    def matrix(self, sources, targets, ctx):
        out = np.zeros((len(sources), len(targets)))
        for i, s in enumerate(sources):
            for j, t in enumerate(targets):
                out[i, j] = self.pairs.get((s, t), 0.0)
        return sp.csr_array(out)


def value(name, ctx):
    spec = parse_measure(name)
    fam = family(spec.name)
    assert fam is not None
    return fam.compute(spec, ctx)


def table3_ctx(**kw):
    nav = Pairs({("c", "a"): 0.4, ("c", "b"): 0.4, ("d", "a"): 0.6, ("d", "b"): 0.4})
    return TopicContext(topic="5", ranked=["c", "d", "a", "b"], qrels={"a": 1, "b": 1, "c": 0},
                        models=[nav], **kw)


def test_registered_names_table3():
    ctx = table3_ctx()
    assert value("PRUM(r=1)", ctx) == pytest.approx(0.69137, abs=5e-6)
    assert value("PRUM(r=2)", ctx) == pytest.approx(0.63561, abs=5e-6)
    assert value("PRUM(exact=enum,r=2)", ctx) == pytest.approx(0.64623, abs=5e-6)
    # interpolation: levels 0..0.5 -> r >= 1, 0.6..1.0 -> r >= 2
    assert value("PRUM@0.5", ctx) == pytest.approx(0.69137, abs=5e-6)
    assert value("PRUM@0.51", ctx) == pytest.approx(0.63561, abs=5e-6)
    assert value("PRUM", ctx) == pytest.approx((6 * 0.691369 + 5 * 0.635607) / 11, abs=1e-5)
    assert value("PRUM(r=3)", ctx) == 0.0  # K > |I|: recall not reachable


def with_stderr(name, ctx):
    spec = parse_measure(name)
    got = family(spec.name).evaluate(spec, ctx)
    return got.value, got.stderr


def test_mc_names_and_stderr():
    ctx = table3_ctx()
    v, err = with_stderr("PRUM(exact=mc,samples=20000,seed=4,r=2)", ctx)
    assert err > 0 and abs(v - 0.64623) < 4 * err
    v, err = with_stderr("PRUM(exact=mc,samples=20000,seed=4)", ctx)
    enum = value("PRUM(exact=enum)", ctx)
    assert abs(v - enum) < 4 * err
    v, err = with_stderr("PRUM(exact=mc,samples=20000,seed=4)@0.8", ctx)
    assert abs(v - value("PRUM(exact=enum)@0.8", ctx)) < 4 * err


def test_fig7_collection_size():
    nav = Pairs({("a", "b"): 1.0, ("a", "c"): 1.0})
    ctx = TopicContext(topic="1", ranked=["a"], qrels={"b": 1, "c": 1}, models=[nav],
                       collection_size=100)
    assert value("PRUM(r=2)", ctx) == pytest.approx(1.0)


def test_classical_default_and_unranked_part():
    # no model given: classical (every unit leads only to itself)
    qrels = {"d1": 1, "d2": 1, "d3": 1, "d9": 0}
    ctx = TopicContext(topic="1", ranked=["d9", "d1", "x", "d3"], qrels=qrels)
    assert value("PRUM(r=1)", ctx) == pytest.approx(1 / 2)
    assert value("PRUM(r=2)", ctx) == pytest.approx(2 / 4)
    assert value("PRUM(r=3)", ctx) == 0.0  # u infinite: like trec_eval
    ctx = TopicContext(topic="1", ranked=["d9", "d1", "x", "d3"], qrels=qrels,
                       collection_size=10)
    # Raghavan: r / (r + j + (r - e_o) * (u - (t - e_o)) / (t - e_o + 1)); o=4, e_o=2, u=6
    assert value("PRUM(r=3)", ctx) == pytest.approx(3 / (3 + 2 + 1 * 5 / 2))


def test_an_empty_list_follows_eq5_with_a_finite_collection():
    """Issue 21 item 3.  N = 10 units, t = 2 ideal.  An empty list (o = 0,
    u = N = 10): eq. 5 keeps only terms (b) and (d), P(F_0 = 0) = 1, so
    P(r) = r / (r (u + 1)/(t + 1)) = (t + 1)/(u + 1) = 3/11 at every r.
    One non-relevant result (o = 1, u = 9): P(1) = 1 / (1 + 10/3) = 3/13,
    P(2) = 2 / (1 + 2 * 10/3) = 6/23 -- both below the empty list, as
    retrieving nothing must not score lower than retrieving a miss.  The
    exact expectation (exact=enum, no uncertain event) is the same; with
    N infinite an empty list scores 0."""
    qrels = {"i1": 1, "i2": 1, "n": 0}
    empty = TopicContext(topic="1", ranked=[], qrels=qrels, collection_size=10)
    miss = TopicContext(topic="1", ranked=["n"], qrels=qrels, collection_size=10)
    assert value("PRUM(r=1)", empty) == pytest.approx(3 / 11, abs=1e-12)
    assert value("PRUM(r=2)", empty) == pytest.approx(3 / 11, abs=1e-12)
    assert value("PRUM(exact=enum,r=2)", empty) == pytest.approx(3 / 11, abs=1e-12)
    assert value("PRUM", empty) == pytest.approx(3 / 11, abs=1e-12)
    assert value("PRUM(r=1)", miss) == pytest.approx(3 / 13, abs=1e-12)
    assert value("PRUM(r=2)", miss) == pytest.approx(6 / 23, abs=1e-12)
    assert precision_at_recall(np.zeros((0, 2)), u=math.inf).tolist() == [0.0, 0.0]


def test_no_ideal_units_scores_zero():
    ctx = TopicContext(topic="1", ranked=["a"], qrels={"a": 0})
    assert value("PRUM", ctx) == 0.0
    assert value("PRUM(exact=mc,samples=10)", ctx) == 0.0


@pytest.mark.parametrize("name", ["PRUM(r=0)", "PRUM(r=x)", "PRUM(r=1)@0.5", "PRUM@1.5",
                                  "PRUM@abc", "PRUM(exact=foo)", "PRUM(samples=5)",
                                  "PRUM(k=1)", "PRUM(exact=mc,samples=0)"])
def test_bad_names(name):
    with pytest.raises(UsageError):
        value(name, table3_ctx())


def test_enum_limit_names_topic():
    pairs = {(f"r{i}", f"i{j}"): 0.5 for i in range(5) for j in range(5)}
    ctx = TopicContext(topic="T7", ranked=[f"r{i}" for i in range(5)],
                       qrels={f"i{j}": 1 for j in range(5)}, models=[Pairs(pairs)])
    with pytest.raises(UsageError, match="T7"):
        value("PRUM(exact=enum)", ctx)


def test_speed_classical_and_sparse():
    """Rough guard only (bench/ measures): classical 1000 results x 100 ideal."""
    rng = np.random.default_rng(0)
    o, t = 1000, 100
    rows = rng.choice(o, size=60, replace=False)
    cls = sp.csr_array((np.ones(60), (rows, rng.choice(t, 60, replace=False))), shape=(o, t))
    precision_at_recall(cls)
    t0 = time.perf_counter()
    for _ in range(20):
        precision_at_recall(cls)
    assert (time.perf_counter() - t0) / 20 < 0.02
    assert math.isfinite(precision_at_recall(cls, 10**6).sum())


def test_mc_reports_an_honest_error_when_a_rare_outcome_was_never_sampled(tmp_path):
    """Issue 21 item 4.  List (c, a), ideal a, P(c -> a) = .9995, N infinite.
    Exactly: C = 1 if the user navigates from c, else 2, CL = 1, so
    E[CL]/E[C] = 1/(.9995 + .0005 * 2) = 0.99950025.  With 1000 users and
    seed 1 nobody misses the navigation, so the estimate is 1.0 with a
    delta-method error of 0.  The missed outcome has probability q = .0005;
    mixed back in at its worst (CL = 0..1, C up to o = 2) the value lies in
    [(1-q)/((1-q) + 2q), 1] = [0.9990005, 1]: the stderr row reports half the
    spread, 0.00049975, so 1.0 - 2 stderr reaches the exact value, and a
    note says the sample is too small (10/.0005 = 20,000 samples)."""
    import graphprum

    (tmp_path / "nav").write_text("c\ta\t0.9995\n")
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 c 1 2 r\n1 Q0 a 2 1 r\n")
    notes: list[str] = []
    name = "PRUM(exact=mc,samples=1000,seed=1,r=1)"
    df = graphprum.evaluate([tmp_path / "r"], tmp_path / "q", [name, "PRUM(exact=enum,r=1)"],
                            nav=[f"direct:{tmp_path / 'nav'}"], per_topic=False,
                            warn=notes.append)
    got = dict(zip(df["measure"], df["value"], strict=True))
    stderr = dict(zip(df["measure"], df["stderr"], strict=True))
    assert got["PRUM(exact=enum,r=1)"] == pytest.approx(1 / 1.0005, abs=1e-12)
    assert got[name] == 1.0
    assert stderr[name] == pytest.approx((1 - 0.9995 / 1.0005) / 2, rel=1e-9)
    assert got[name] - 2 * stderr[name] <= got["PRUM(exact=enum,r=1)"]
    assert any("never occurred among the 1,000 simulated users" in n and "20,000" in n
               for n in notes)
    # seed 0 meets the rare outcome once: the delta method speaks, no note
    notes.clear()
    df = graphprum.evaluate([tmp_path / "r"], tmp_path / "q",
                            ["PRUM(exact=mc,samples=1000,seed=0,r=1)"],
                            nav=[f"direct:{tmp_path / 'nav'}"], per_topic=False,
                            warn=notes.append)
    [(value, err)] = df[["value", "stderr"]].to_numpy().tolist()
    assert err > 0 and abs(value - 1 / 1.0005) < 2 * err and not notes
    # every outcome met: interpolated values and the 11-level mean keep the delta method
    df = graphprum.evaluate([tmp_path / "r"], tmp_path / "q",
                            ["PRUM(exact=mc,samples=1000,seed=0)",
                             "PRUM(exact=mc,samples=1000,seed=0)@0.5"],
                            nav=[f"direct:{tmp_path / 'nav'}"], per_topic=False,
                            warn=notes.append)
    assert not notes and (df["value"] > 0).all()
