"""SR / SRP (CIKM 2008): Examples 4.4 and 6.1 (ERRATA SR 1-3), classical
precision, Theorem 4.3 on singletons, brute-force eqs. 1/4/5, the summary
model (eq. 7) and the counting fast path."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from graphprum.context import TopicContext
from graphprum.loading import load_xml
from graphprum.measures.registry import MeasureSpec, family, parse_measure
from graphprum.measures.sr import topic_contributions
from graphprum.navigation.base import parse_model
from graphprum.navigation.summary import SummaryModel
from graphprum.summaries.axpre import build_summary
from tests.support.summaries import BOOK, TableStore, book_table, forest_table, random_tree


def value(name: str, ctx: TopicContext) -> float:
    """The value of measure ``name`` (SR or SRP) for the topic of ``ctx``."""
    spec = parse_measure(name)
    return family(spec.name).compute(spec, ctx)


# Example 4.4 subtrees by Fig. 2 preorder id (ERRATA SR 6)
T_L = [1, 2, 14, 3, 15, 4]
T_R = [1, 2, 14, 7, 17]


class DictModel:
    """p(e; f) = value(e) for every pair of distinct units (one document)."""

    needs_store = False
    browses = True

    def __init__(self, value):
        self.spec = "test"
        self.value = value

    def matrix(self, sources, targets, ctx):
        col = np.array([self.value(t) for t in targets], dtype=float)
        return sp.csr_array(np.tile(col, (len(sources), 1)))


class MatrixModel:
    """P(x -> y) read from a dense matrix over integer-named units."""

    needs_store = False
    browses = True
    spec = "matrix"

    def __init__(self, p):
        self.p = p

    def matrix(self, sources, targets, ctx):
        return sp.csr_array(self.p[np.ix_([int(s) for s in sources], [int(t) for t in targets])])


def ctx_for(trees=None, ranked=(), qrels=None, models=(), store=None):
    return TopicContext(topic="1", ranked=list(ranked), qrels=dict(qrels or {}),
                        models=list(models), store=store,
                        trees=None if trees is None else [list(t) for t in trees])


def ids(nodes):
    return [f"e{n}" for n in nodes]


# ------------------------------------------------------------ the examples
def test_example_4_4():
    ctx = ctx_for(trees=[ids(T_L), ids(T_R)], qrels={f"e{i}": 1 for i in range(1, 18)},
                  models=[DictModel(lambda e: 0.5)])
    c = topic_contributions(ctx, 2, fast=False)
    assert 1 - c[1] == pytest.approx(0.55)  # p(t_r; t_l), ERRATA SR 1
    assert value("SR@2", ctx) == pytest.approx(1.45)


@pytest.mark.parametrize("pi, sr", [
    # Table 1 printed π: e7 -> S3, e17 -> S7, e2 -> S2, e14 -> S6, e1 -> S1
    ({7: 0.06, 17: 0.09, 2: 0.17, 14: 0.26, 1: 0.23}, 1.1400),
    # Table 2 printed π (ERRATA SR 3)
    ({7: 0.15, 17: 0.24, 2: 0.01, 14: 0.24, 1: 0.0}, 1.1197),
])
def test_example_6_1_printed_pi(pi, sr):
    model = DictModel(lambda e: 1 - pi.get(int(e[1:]), 0.5))
    ctx = ctx_for(trees=[ids(T_L), ids(T_R)], qrels={f"e{i}": 1 for i in range(1, 18)},
                  models=[model])
    assert value("SR@2", ctx) == pytest.approx(sr, abs=5e-5)
    assert value("SRP@2", ctx) == pytest.approx(sr / 2, abs=5e-5)


def book_context(trees, models, store):
    table = store.table()
    xp = table.ids()
    return ctx_for(trees=[[xp[n - 1] for n in t] for t in trees],
                   qrels={u: 1 for u in xp}, models=models, store=store)


@pytest.mark.parametrize("fast", [True, False])
def test_example_6_1_through_the_summary_model(fast):
    """The p* summary of Fig. 2 with Table 1's printed π per SID (Example 6.1's SIDs)."""
    store = TableStore(book_table())
    s = build_summary(store.table(), "p*")
    s.pi = np.array([0.23, 0.17, 0.06, 0.20, 0.09, 0.26, 0.09])
    model = SummaryModel("summary:p*", "p*", summary=s)
    ctx = book_context([T_L, T_R], [model], store)
    assert topic_contributions(ctx, 2, fast=fast).sum() == pytest.approx(1.14)


@pytest.mark.parametrize("fast", [True, False])
def test_example_6_1_recomputed_table1(fast, tmp_path):
    """Eq. 8 with Table 1 recomputed (π = (16,12,4,14,6,18,6)/76 for bk, fm, bd, d, c,
    n, m): p(t_r; t_l) = 1 - (5π(bk) + 5π(fm) + 5π(bd) + 6π(d) + 6π(c))/30."""
    from graphprum.store.local import LocalStore

    store = LocalStore(tmp_path / "s")
    load_xml(store, [BOOK])
    model = parse_model("summary:p*,weight=extent")
    ctx = book_context([T_L, T_R], [model], store)
    redundancy = 1 - (5 * 16 + 5 * 12 + 5 * 4 + 6 * 14 + 6 * 6) / 76 / 30
    expected = 1 + (1 - redundancy)
    assert topic_contributions(ctx, 2, fast=fast).sum() == pytest.approx(expected)
    assert value("SRP@2", ctx) == pytest.approx(expected / 2)


# ------------------------------------------------------- general properties
def test_srp_is_precision_when_p_is_zero():
    rng = np.random.default_rng(3)
    ranked = [f"u{i}" for i in rng.permutation(40)]
    qrels = {f"u{i}": int(rng.integers(0, 2)) for i in range(40)}
    ctx = ctx_for(ranked=ranked, qrels=qrels)  # no model: p(e; f) = 0 for e != f
    for k in (1, 5, 10, 25, 50):
        precision = sum(qrels[u] for u in ranked[:k]) / k
        assert value(f"SRP@{k}", ctx) == pytest.approx(precision)


@pytest.mark.parametrize("seed", range(8))
def test_singletons_follow_eq3(seed):
    """Theorem 4.3 on singleton trees is eq. 2, so eq. 1 becomes eq. 3."""
    rng = np.random.default_rng(seed)
    n = 12
    p = rng.random((n, n)) * (rng.random((n, n)) < 0.6)
    np.fill_diagonal(p, 1.0)
    ranked = [str(i) for i in rng.permutation(n)[:9]]
    rel = {str(i): float(rng.integers(0, 3)) for i in range(n)}
    ctx = ctx_for(ranked=ranked, qrels=rel, models=[MatrixModel(p)])
    top = max(1.0, *rel.values())
    expected = 0.0
    for i, e in enumerate(ranked):
        seen = 1.0
        for f in ranked[:i]:
            seen *= 1 - p[int(f), int(e)]  # p(e; f) = P(f -> e)
        expected += rel[e] / top * seen
    assert value("SR@9", ctx) == pytest.approx(expected)
    # the same list as explicit singleton trees
    tctx = ctx_for(trees=[[u] for u in ranked], qrels=rel, models=[MatrixModel(p)])
    assert value("SR@9", tctx) == pytest.approx(expected)


@pytest.mark.parametrize("seed", range(8))
def test_trees_follow_eqs_1_4_5_literally(seed):
    rng = np.random.default_rng(50 + seed)
    n = 10
    p = rng.random((n, n))
    np.fill_diagonal(p, 1.0)
    trees = [[str(x) for x in rng.choice(n, size=int(rng.integers(1, 5)), replace=False)]
             for _ in range(6)]
    rel = {str(i): float(rng.random()) for i in range(n)}
    ctx = ctx_for(trees=trees, qrels=rel, models=[MatrixModel(p)])
    top = max(1.0, *rel.values())
    expected = 0.0
    for i, ti in enumerate(trees):
        not_seen = 1.0
        for tj in trees[:i]:
            total = sum(p[int(f), int(e)] for f in tj for e in ti)  # eq. 5
            not_seen *= 1 - total / (len(ti) * len(tj))  # eq. 4
        expected += sum(rel[e] / top for e in ti) / len(ti) * not_seen  # eqs. 9, 1
    assert value("SR@6", ctx) == pytest.approx(expected)
    assert value("SR@3", ctx) == pytest.approx(
        value("SR@3", ctx_for(trees=trees[:3], qrels=rel,
                                                 models=[MatrixModel(p)])))


def test_cutoffs_and_expansion():
    assert [str(s) for s in family("SRP").expand(MeasureSpec("SRP"))] == \
        ["SRP@5", "SRP@10", "SRP@25", "SRP@50"]
    assert [str(s) for s in family("SR").expand(parse_measure("SR@3"))] == ["SR@3"]
    from graphprum.evaluation import expand_measures

    assert [str(s) for s in expand_measures(["SR", "SRP@7"])] == \
        ["SR@5", "SR@10", "SR@25", "SR@50", "SRP@7"]
    ctx = ctx_for(ranked=["a", "b"], qrels={"a": 1, "b": 1})
    assert value("SRP@10", ctx) == pytest.approx(0.2)
    assert value("SR", ctx) == pytest.approx(2.0)
    assert value("SR@5", ctx_for(ranked=[], qrels={"a": 1})) == 0.0
    from graphprum.errors import UsageError

    with pytest.raises(UsageError):
        value("SR@0", ctx)


# ---------------------------------------------------- summary model, fast path
def random_store(seed):
    rng = np.random.default_rng(seed)
    docs = [random_tree(rng, int(rng.integers(3, 15)), "abc") for _ in range(4)]
    n = sum(len(t) for t, _ in docs)
    table = forest_table(docs, lengths=rng.integers(1, 30, size=n).astype(float), pages=1)
    return rng, TableStore(table)


@pytest.mark.parametrize("seed", range(6))
def test_summary_model_is_eq7(seed):
    rng, store = random_store(seed)
    table = store.table()
    model = parse_model("summary:c*,weight=length")
    uid = table.ids()
    rows = rng.choice(len(table), size=min(12, len(table)), replace=False)
    ctx = ctx_for(models=[model], store=store)
    got = ctx.nav([uid[r] for r in rows], [uid[r] for r in rows]).toarray()
    s = build_summary(table, "c*", "length")
    doc, kind = table.columns["doc"], table.columns["kind"]
    for a, x in enumerate(rows):
        for b, y in enumerate(rows):
            if x == y:
                want = 1.0
            elif doc[x] == doc[y] and kind[y] == 0:
                want = 1 - s.pi[s.membership[y]]
            else:
                want = 0.0
            assert got[a, b] == pytest.approx(want)


@pytest.mark.parametrize("seed", range(10))
def test_fast_path_agrees_with_general_path(seed):
    rng, store = random_store(20 + seed)
    table = store.table()
    uid = table.ids()
    doc = table.columns["doc"]
    trees = []
    for _ in range(int(rng.integers(1, 25))):
        d = int(rng.integers(0, len(table.docs)))
        members = np.flatnonzero(doc == d)
        tree = [uid[r] for r in rng.choice(members, size=min(len(members),
                                                             int(rng.integers(1, 5))),
                                           replace=False)]
        if rng.random() < 0.2:
            tree.append(f"unknown{int(rng.integers(0, 3))}")
        trees.append(tree)
    qrels = {u: float(rng.integers(0, 3)) for u in uid}
    for axpre in ("p*", "c"):
        models = [parse_model(f"summary:{axpre}")]
        fast = topic_contributions(ctx_for(trees=trees, qrels=qrels, models=models,
                                           store=store), None, fast=True)
        slow = topic_contributions(ctx_for(trees=trees, qrels=qrels, models=models,
                                           store=store), None, fast=False)
        np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-12)
        assert len(fast) == len(trees)


def test_summary_model_options():
    from graphprum.errors import UsageError

    m = parse_model("summary:p*|c,weight=length")
    assert (m.axpre, m.weight) == ("p*|c", "length")
    assert parse_model("summary:c*").weight == "count"
    with pytest.raises(UsageError):
        parse_model("summary")
    with pytest.raises(UsageError):
        parse_model("summary:q*")
    with pytest.raises(UsageError):
        parse_model("summary:p*,hops=2")
    with pytest.raises(UsageError, match="needs a store"):
        m.matrix(["a"], ["b"], ctx_for())


def test_evaluate_end_to_end(tmp_path, write):
    """graphprum.evaluate with a run of the Fig. 2 tree and --nav summary:p*."""
    from graphprum import evaluate
    from graphprum.store.local import LocalStore

    store = LocalStore(tmp_path / "s")
    load_xml(store, [BOOK])
    xp = store.table().ids()
    run = write("run.txt", "".join(f"1 Q0 {xp[n - 1]} {i + 1} {10 - i} sys\n"
                                   for i, n in enumerate([4, 15, 16])))
    qrels = write("qrels.txt", "".join(f"1 0 {xp[n - 1]} 1\n" for n in (4, 15, 16)))
    out = evaluate([run], qrels, ["SR@3", "SRP@3"], nav=["summary:p*"], store=store)
    pi = np.array([2, 4, 11, 6, 2, 4, 3]) / 32  # count weights, SIDs in document order
    q = {4: 1 - pi[3], 15: 1 - pi[6], 16: 1 - pi[6]}
    # Example 4.2's list (e4, e15, e16): eq. 3 with p(e; f) = q(e)
    expected = 1 + (1 - q[15]) + (1 - q[16]) ** 2
    values = dict(zip(out[out.topic == "all"].measure, out[out.topic == "all"].value,
                      strict=True))
    assert values["SR@3"] == pytest.approx(expected)
    assert values["SRP@3"] == pytest.approx(expected / 3)
    assert not math.isnan(values["SR@3"])
