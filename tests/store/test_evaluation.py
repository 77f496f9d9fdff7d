"""Every backend: the same navigation probabilities, summaries and
evaluations as the reference memory store (to 1e-12)."""

from __future__ import annotations

import numpy as np
import pytest

from graphprum import evaluate as run_evaluation
from graphprum.context import TopicContext
from graphprum.navigation.base import parse_model
from graphprum.store.base import Store
from graphprum.summaries.stored import build_stored, stored_summary
from tests.support import EXAMPLES

PLOS = EXAMPLES / "plos"
WEB = EXAMPLES / "web"
VIDEO = EXAMPLES / "video"

CASES = [
    # runs, qrels, measures, navigation models
    ([PLOS / "run-bm25.txt", PLOS / "run-sections.txt"], PLOS / "qrels.txt",
     ["PRUM", "PRUM@0.5", "AP", "SRP@10"], ["structural"]),
    ([PLOS / "run-bm25.txt"], PLOS / "qrels.txt", ["PRUM"], ["structural:words", "bep"]),
    ([PLOS / "run-sections.txt"], PLOS / "qrels.txt", ["PRUM", "SR@5"], ["summary:p*"]),
    ([WEB / "run-hubs.txt", WEB / "run-deep.txt"], WEB / "qrels.txt", ["PRUM", "P@10"],
     ["links:hops=2"]),
    ([VIDEO / "run.txt"], VIDEO / "qrels.txt", ["T2I-P(tau=5,T=20)", "PRUM"], ["t2i:tau=3-10"]),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_evaluation_equals_reference(examples_store: Store, reference: Store, case: int) -> None:
    runs, qrels, measures, nav = CASES[case]
    if any(m.startswith("summary:") for m in nav):
        build_stored(examples_store, "p*")
        build_stored(reference, "p*")
    got = run_evaluation(runs, qrels, measures, nav=nav, store=examples_store)
    want = run_evaluation(runs, qrels, measures, nav=nav, store=reference)
    assert got[["run", "measure", "topic"]].equals(want[["run", "measure", "topic"]])
    assert np.allclose(got["value"], want["value"], rtol=0, atol=1e-12)
    assert want["value"].abs().sum() > 0


@pytest.mark.parametrize("spec", ["structural", "structural:words", "links:hops=3,beta=0.8",
                                  "bep", "t2i:tau=3-10"])
def test_navigation_equals_reference(examples_store: Store, reference: Store, spec: str) -> None:
    ids = reference.table().ids()
    rng = np.random.default_rng(1)
    pick = [ids[i] for i in rng.choice(len(ids), size=60, replace=False)]
    pick += ["pmed-1001300#/article[1]", "pmed-1001300#/article[1]/body[1]/sec[1]",
             "library/index.html", "library/os.path.html", "bbb_trailer#2", "bbb_trailer#5"]
    model = parse_model(spec)

    def matrix(store: Store) -> np.ndarray:
        ctx = TopicContext(topic="t", ranked=pick, qrels={}, models=[model], store=store)
        return model.matrix(pick, pick, ctx).toarray()

    want = matrix(reference)
    assert np.allclose(matrix(examples_store), want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("axpre", ["label", "p", "p*", "c", "p*|c", "c*"])
def test_summaries_equal_reference(examples_store: Store, reference: Store, axpre: str) -> None:
    built = build_stored(examples_store, axpre)
    want = build_stored(reference, axpre)
    again = stored_summary(examples_store, axpre)
    for s in (built, again):
        assert s.partitions["extent"].tolist() == want.partitions["extent"].tolist()
        assert s.partitions["key"].tolist() == want.partitions["key"].tolist()
        assert s.edges[["src", "dst", "count"]].values.tolist() == \
            want.edges[["src", "dst", "count"]].values.tolist()
        assert np.allclose(s.pi, want.pi, rtol=0, atol=1e-12)
    assert axpre in examples_store.summary_names()
