"""The graph queries of ``cypher/nav/`` give, on every Cypher store, what the
evaluator's numpy fast path computes (the reference memory store's)."""

from __future__ import annotations

import numpy as np
import pytest

from graphprum.context import TopicContext
from graphprum.navigation.base import parse_model
from graphprum.store.base import CYPHER, Store
from graphprum.store.bolt import cypher


def _pairs(rows: list[dict], sources: list[str], targets: list[str]) -> np.ndarray:
    out = np.zeros((len(sources), len(targets)))
    si = {u: i for i, u in enumerate(sources)}
    ti = {u: j for j, u in enumerate(targets)}
    for r in rows:
        out[si[r["source"]], ti[r["target"]]] = r["p"]
    return out


@pytest.mark.parametrize("measure", ["length", "words"])
def test_structural_query_is_eq9(examples_store: Store, reference: Store, measure: str) -> None:
    if CYPHER not in examples_store.capabilities:
        pytest.skip("no Cypher")
    ids = reference.table().ids()
    rng = np.random.default_rng(7)
    plos = reference.count_units(0)  # the PLOS articles come first
    nested = reference.subtree("pmed-1001300#/article[1]/body[1]/sec[2]")["id"].tolist()
    nested = ["pmed-1001300#/article[1]", "pmed-1001300#/article[1]/body[1]", *nested]
    rand = [ids[i] for i in sorted(rng.choice(plos, size=200, replace=False))]
    sources = nested[:20] + rand[:20]
    targets = list(dict.fromkeys(nested + rand))
    rows = examples_store.query(cypher("nav/structural"),
                                {"sources": sources, "targets": targets, "measure": measure})
    got = _pairs(rows, sources, targets)
    model = parse_model("structural" if measure == "length" else "structural:words")
    ctx = TopicContext(topic="t", ranked=sources, qrels={}, models=[model], store=reference)
    want = model.matrix(sources, targets, ctx).toarray()
    for i, u in enumerate(sources):  # a unit to itself is the caller's business
        want[i, targets.index(u)] = 0.0
    assert np.count_nonzero(want) > 20
    assert np.allclose(got, want, rtol=0, atol=1e-12)


def test_links_query_is_one_step(examples_store: Store, reference: Store) -> None:
    if CYPHER not in examples_store.capabilities:
        pytest.skip("no Cypher")
    pages = [n for n in reference.documents()["name"] if n.endswith(".html")][:40]
    targets = sorted({t for p in pages for t in reference.links_of(p)[0]})
    rows = examples_store.query(cypher("nav/links"), {"sources": pages})
    got = _pairs([r for r in rows if r["target"] in targets], pages, targets)
    model = parse_model("links")
    ctx = TopicContext(topic="t", ranked=pages, qrels={}, models=[model], store=reference)
    want = model.matrix(pages, targets, ctx).toarray()
    for i, p in enumerate(pages):  # the model gives 1 from a unit to itself
        if p in targets:
            want[i, targets.index(p)] = got[i, targets.index(p)]
    assert np.count_nonzero(want) > 20
    assert np.allclose(got, want, rtol=0, atol=1e-12)
