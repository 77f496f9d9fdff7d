"""INEX 2006 measures on small hand-built collections.

Expected values are derived by hand in the comments (from the INEX 2006
paper's equations, with ERRATA inex 1-2), by brute force inside the tests, or
taken from PRUM §4.2 (see docs/errata-inex.md for the numbers that cannot be
reproduced as printed).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphprum.assessments import TopicAssessment, merge_ranges
from graphprum.context import TopicContext
from graphprum.measures.bic import eprum_levels
from graphprum.measures.grp import grpng_curve, unseen_lengths
from graphprum.measures.inex_base import derive, qrels_from_assessments
from graphprum.measures.registry import family, parse_measure
from graphprum.navigation.base import parse_model
from graphprum.store.memory import MemoryStore
from graphprum.units import KIND_VIDEO, UnitTable

# --- fixtures --------------------------------------------------------------

def concat(tables: list[UnitTable]) -> UnitTable:
    """Several one-document tables as one collection (rows shifted)."""
    tags = sorted({t for tb in tables for t in tb.tags})
    paths = sorted({p for tb in tables for p in tb.paths})
    cols: dict[str, list[np.ndarray]] = {k: [] for k in tables[0].columns}
    docs = []
    offset = 0
    for d, tb in enumerate(tables):
        for k, v in tb.columns.items():
            v = v.copy()
            if k == "parent":
                v = np.where(v >= 0, v + offset, -1).astype(v.dtype)
            elif k == "doc":
                v[:] = d
            elif k == "tag":
                v = np.array([tags.index(tb.tags[i]) for i in v], dtype=np.int32)
            elif k == "path":
                v = np.array([paths.index(tb.paths[i]) for i in v], dtype=np.int32)
            cols[k].append(v)
        row = next(tb.docs.records())
        row["first"] = offset
        docs.append(row)
        offset += len(tb)
    columns = {k: np.concatenate(v) for k, v in cols.items()}
    return UnitTable(columns, tags, paths, pd.DataFrame(docs))


def FakeStore(table: UnitTable) -> MemoryStore:  # noqa: N802
    """The reference memory store holding ``table`` (rows keep their numbers)."""
    return MemoryStore.of_table(table)


# d1: a(60) = own [0,10) + s1 [10,30) (p1 [10,20), p2 [20,30)) + s2 [30,60)
D1 = UnitTable.from_tree("d1", ["a", "s", "p", "p", "s"], [-1, 0, 1, 1, 0],
                         [60, 20, 10, 10, 30])
# d2: r(40) = own [0,10) + x [10,30) + y [30,40)
D2 = UnitTable.from_tree("d2", ["r", "x", "y"], [-1, 0, 0], [40, 20, 10])
# d3: z(50), assessed, nothing highlighted
D3 = UnitTable.from_tree("d3", ["z"], [-1], [50])
TABLE = concat([D1, D2, D3])
STORE = FakeStore(TABLE)
A = "d1#/a[1]"
S1, P1, P2, S2 = "d1#/a[1]/s[1]", "d1#/a[1]/s[1]/p[1]", "d1#/a[1]/s[1]/p[2]", "d1#/a[1]/s[2]"
R, X, Y = "d2#/r[1]", "d2#/r[1]/x[1]", "d2#/r[1]/y[1]"
Z = "d3#/z[1]"
# highlighted: d1 [10,20) (p1) and [30,45) (half of s2); d2 all of [0,40)
# rsize: a 25, s1 10, p1 10, p2 0, s2 15; r 40, x 20, y 10
# spec:  a 25/60, s1 .5, p1 1, p2 0, s2 .5; r 1, x 1, y 1
# ideal (§5.2): path a-s1-p1 -> p1; path a-s2 -> s2 (.5 > .4167);
#               paths r-x, r-y -> r (ties go to the ancestor)
ASSESS = TopicAssessment(
    "1",
    ranges={"d1": merge_ranges([(10, 20), (30, 45)]), "d2": merge_ranges([(0, 40)]),
            "d3": merge_ranges([])},
    beps={"d1": 10.0, "d2": 0.0},
)


def ctx(ranked: list[str], assessment: TopicAssessment = ASSESS, store=STORE,
        qrels=None, **kw) -> TopicContext:
    return TopicContext("1", ranked, qrels or {}, store=store, assessments=assessment, **kw)


def value(name: str, c: TopicContext) -> float:
    spec = parse_measure(name)
    fam = family(spec.name)
    assert fam is not None
    return fam.compute(spec, c)


# --- recall-bases ----------------------------------------------------------

def test_derive_rsize_spec_and_recall_bases():
    rb = derive(ASSESS, TABLE)
    ids = TABLE.ids(rb.rows)
    got = dict(zip(ids, rb.rsize.tolist(), strict=True))
    assert got == {A: 25, S1: 10, P1: 10, P2: 0, S2: 15, R: 40, X: 20, Y: 10, Z: 0}
    assert [ids[i] for i in np.flatnonzero(rb.relevant)] == [A, S1, P1, S2, R, X, Y]
    assert [ids[i] for i in np.flatnonzero(rb.ideal)] == [P1, S2, R]
    assert rb.spec[ids.index(A)] == pytest.approx(25 / 60)


def test_ignore_tags_drop_small_elements():
    rb = derive(ASSESS, TABLE, ignore_tags=["p"])
    ids = TABLE.ids(rb.rows)
    assert P1 not in [ids[i] for i in np.flatnonzero(rb.relevant)]
    # s1 (.5) is now the leaf of its relevant path and beats a (.4167)
    assert [ids[i] for i in np.flatnonzero(rb.ideal)] == [S1, S2, R]


def _random_tree(draw_parents, own):
    n = len(own)
    parents = [-1]
    for i in range(1, n):  # preorder: the parent is i-1 or one of its ancestors
        chain = [i - 1]
        while parents[chain[-1]] >= 0:
            chain.append(parents[chain[-1]])
        parents.append(chain[draw_parents[i - 1] % len(chain)])
    length = list(map(float, own))
    for i in range(n - 1, 0, -1):
        length[parents[i]] += length[i]
    return parents, length


@st.composite
def trees_with_highlight(draw):
    n = draw(st.integers(1, 12))
    own = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
    raw_parents = draw(st.lists(st.integers(0, 100), min_size=n - 1, max_size=n - 1))
    parents, length = _random_tree(raw_parents, own)
    total = int(length[0])
    ranges = draw(st.lists(st.tuples(st.integers(0, max(total, 1)), st.integers(0, 8)),
                           max_size=4))
    return parents, length, [(s, s + k) for s, k in ranges]


@settings(max_examples=150, deadline=None)
@given(trees_with_highlight())
def test_derive_matches_character_count_and_path_rule(case):
    parents, length, ranges = case
    t = UnitTable.from_tree("d", ["e"] * len(parents), parents, length)
    ta = TopicAssessment("1", {"d": merge_ranges(ranges)})
    rb = derive(ta, t)
    # independent: count highlighted characters one by one
    marked = set()
    for s, e in ranges:
        marked.update(range(s, e))
    start, end = t.start, t.end
    brute = [sum(1 for c in range(int(start[i]), int(end[i])) if c in marked)
             for i in range(len(t))]
    assert rb.rsize.tolist() == brute
    # independent ideal selection: walk every relevant path explicitly
    spec = [b / length[i] if length[i] else 0.0 for i, b in enumerate(brute)]
    rel = [b > 0 for b in brute]
    leaves = [i for i in range(len(t)) if rel[i] and not any(
        rel[j] and parents[j] == i for j in range(len(t)))]
    chosen = set()
    for leaf in leaves:
        path = [leaf]
        while parents[path[-1]] >= 0:
            path.append(parents[path[-1]])
        best = None
        for node in reversed(path):  # root first: ties keep the ancestor
            if rel[node] and (best is None or spec[node] > spec[best]):
                best = node
        chosen.add(best)

    def ancestors(i):
        while parents[i] >= 0:
            i = parents[i]
            yield i

    kept = {c for c in chosen if not any(a in chosen for a in ancestors(c))}
    assert set(np.flatnonzero(rb.ideal).tolist()) == kept


# --- XCG -------------------------------------------------------------------

def test_nxcg_focused_hand_computed():
    # run s1, p1, r, z, s2 (focused, eq. 8):
    #   s1 holds ideal p1 (xG 1): gain min(.5, 1) = .5
    #   p1: min(1, 1) - .5 already credited to p1's group = .5
    #   r: 1 (ideal);  z: 0;  s2: .5 (ideal)
    # xCG = .5, 1, 2, 2, 2.5 ; xCI (ideal base p1 1, r 1, s2 .5) = 1, 2, 2.5
    c = ctx([S1, P1, R, Z, S2])
    expect = {1: .5, 2: .5, 3: .8, 4: .8, 5: 1.0, 10: 1.0}
    for k, v in expect.items():
        assert value(f"nxCG@{k}", c) == pytest.approx(v)
    assert value("xCG@3", c) == pytest.approx(2.0)


def test_ep_and_maep_thorough_hand_computed():
    # thorough gains = spec: .5, 1, 1, 0, .5 ; cumulated .5 1.5 2.5 2.5 3
    # ideal vector = full base sorted: 1 1 1 1 .5 .5 .4167, cumulated 1 2 3 4 4.5 5 5.4167
    # natural points: rank 1 (ideal reaches .5 at 1) ep 1; rank 2 ep 2/2; rank 3 ep 3/3;
    # rank 5 (ideal reaches 3 at rank 3) ep 3/5.  MAep = (1+1+1+.6)/7 relevant elements
    c = ctx([S1, P1, R, Z, S2])
    assert value("MAep", c) == pytest.approx(3.6 / 7)
    total = 5 + 25 / 60
    assert 3 / total == pytest.approx(0.5538, abs=1e-4)
    assert value("ep@0.5", c) == pytest.approx(0.6)  # only rank 5 has gr >= .5
    assert value("ep@0.3", c) == pytest.approx(1.0)
    assert value("ep@0.6", c) == 0.0


def test_ideal_run_gets_one():
    ideal_order = [P1, R, S2]  # ideal recall-base by decreasing spec
    c = ctx(ideal_order)
    for k in range(1, 4):
        assert value(f"nxCG@{k}", c) == pytest.approx(1.0)
    assert value("MAep(task=focused)", c) == pytest.approx(1.0)
    full_order = [P1, R, X, Y, S1, S2, A]  # full base by decreasing spec
    assert value("MAep", ctx(full_order)) == pytest.approx(1.0)


@settings(max_examples=100, deadline=None)
@given(trees_with_highlight())
def test_ideal_run_property_random(case):
    parents, length, ranges = case
    t = UnitTable.from_tree("d", ["e"] * len(parents), parents, length)
    ta = TopicAssessment("1", {"d": merge_ranges(ranges)})
    rb = derive(ta, t)
    ids = t.ids(rb.rows)
    ideal = np.flatnonzero(rb.ideal)
    order = ideal[np.argsort(-rb.spec[ideal], kind="stable")]
    c = ctx([ids[i] for i in order], assessment=ta, store=FakeStore(t))
    for k in range(1, len(order) + 1):
        assert value(f"nxCG@{k}", c) == pytest.approx(1.0)
    if len(order):
        assert value("MAep(task=focused)", c) == pytest.approx(1.0)


# --- XCG from graded element qrels (INEX 2005 style) --------------------------

# e1, e2: a (20 characters) holding p[1] and p[2] (10 each)
E1 = UnitTable.from_tree("e1", ["a", "p", "p"], [-1, 0, 0], [20, 10, 10])
E2 = UnitTable.from_tree("e2", ["a", "p", "p"], [-1, 0, 0], [20, 10, 10])
GRADED = FakeStore(concat([E1, E2]))
E1A, E1P1, E2P1, E2P2 = "e1#/a[1]", "e1#/a[1]/p[1]", "e2#/a[1]/p[1]", "e2#/a[1]/p[2]"


def test_xcg_from_graded_element_qrels_hand_computed():
    """Element qrels, no passages: the gain of an element is its grade.

    Qrels: e1's a REL 1, e1's p[1] REL 2, e2's p[2] REL 1, e2's p[1] REL 0.
    Grades (REL over the topic's largest, 2): e1/a .5, e1/p1 1, e2/p2 .5,
    e2/p1 0; e2's a is not judged (gain 0).  Run: e1/a, e2/p2, e1/p1, e2/p1.

    Thorough (eqs. 2-6; overlap ignored): full recall-base {e1/a, e1/p1,
    e2/p2}, n = 3; ideal vector 1, .5, .5, so xCI = 1, 1.5, 2.  Run gains
    .5, .5, 1, 0: xCG = .5, 1, 2, 2; nxCG@1 = .5/1, @2 = 1/1.5, @3 = 2/2,
    @4 = 2/2.  Gain at ranks 1-3: cumulated .5, 1, 2 reached by the ideal
    vector at ranks 1, 1, 3: ep = 1/1, 1/2, 3/3; MAep = (1 + .5 + 1) / 3.

    Focused (§5.2, eq. 8): relevant paths e1: a-p1 (p1, 1 > .5, is kept),
    e2: a-p2 (p2, a is not relevant): ideal {e1/p1 1, e2/p2 .5}, xCI = 1,
    1.5.  e1/a holds the ideal e1/p1: credited min(.5, 1) = .5; e2/p2: .5;
    e1/p1: min(1, 1) - .5 already credited to its group = .5; e2/p1: 0.
    xCG = .5, 1, 1.5, 1.5; nxCG@1 = .5, @2 = 1/1.5, @3 = 1.5/1.5 = 1.
    ep at ranks 1-3: ideal reaches .5, 1, 1.5 at ranks 1, 1, 2: 1, 1/2,
    2/3; MAep = (1 + 1/2 + 2/3) / max(2 ideal, 3 ranks) = 13/18.
    """
    qrels = {E1A: 1.0, E1P1: 2.0, E2P2: 1.0, E2P1: 0.0}
    c = ctx([E1A, E2P2, E1P1, E2P1], assessment=None, store=GRADED, qrels=qrels)
    thorough = [value(f"nxCG(task=thorough)@{k}", c) for k in (1, 2, 3, 4)]
    assert thorough == pytest.approx([0.5, 1 / 1.5, 1.0, 1.0])
    assert value("xCG(task=thorough)@4", c) == pytest.approx(2.0)
    assert value("MAep", c) == pytest.approx(2.5 / 3)
    assert value("ep@0.5", c) == pytest.approx(1.0)
    focused = [value(f"nxCG@{k}", c) for k in (1, 2, 3, 4)]
    assert focused == pytest.approx([0.5, 1 / 1.5, 1.0, 1.0])
    assert value("xCG@3", c) == pytest.approx(1.5)
    assert value("MAep(task=focused)", c) == pytest.approx(13 / 18)
    # ignore=p: only e1's a is left, and is ideal: the run finds it at rank 1
    assert value("nxCG(ignore=p)@1", c) == pytest.approx(1.0)


@settings(max_examples=80, deadline=None)
@given(trees_with_highlight(), st.lists(st.integers(0, 11), max_size=8))
def test_xcg_from_qrels_of_passages_is_xcg_from_passages(case, picks):
    """Passages turned into element qrels (REL = spec, qrels_from_assessments)
    give every XCG measure the value the passages give: the grade of an
    element is its spec, and the recall-bases are chosen by the same rules."""
    parents, length, ranges = case
    t = UnitTable.from_tree("d", ["e"] * len(parents), parents, length)
    store = FakeStore(t)
    ta = TopicAssessment("1", {"d": merge_ranges(ranges)})
    qrels = qrels_from_assessments({"1": ta}, store)["1"]
    ids = t.ids()
    ranked = list(dict.fromkeys(ids[i % len(ids)] for i in picks))
    by_passages = ctx(ranked, assessment=ta, store=store, qrels=qrels)
    by_qrels = ctx(ranked, assessment=None, store=store, qrels=qrels)
    for name in ("nxCG@1", "nxCG@3", "xCG@5", "nxCG(task=thorough)@2", "MAep",
                 "MAep(task=focused)", "ep@0.5", "ep(task=focused)@0.2"):
        assert value(name, by_qrels) == value(name, by_passages), name


# --- relevant in context ---------------------------------------------------

def test_relevant_in_context_hand_computed():
    # d1: p1 + s2 retrieved: rsize 10+15, size 10+30, Trel 25 -> P .625 R 1 F 10/13
    # d2: x: rsize 20 size 20 Trel 40 -> P 1 R .5 F 2/3 ; d3: F 0, not relevant
    c = ctx([P1, X, S2, Z])
    f1, f2 = 10 / 13, 2 / 3
    assert value("gP@1", c) == pytest.approx(f1)
    assert value("gP@2", c) == pytest.approx((f1 + f2) / 2)
    assert value("gP@3", c) == pytest.approx((f1 + f2) / 3)
    assert value("gR@1", c) == pytest.approx(0.5)
    assert value("gR@3", c) == pytest.approx(1.0)
    assert value("AgP", c) == pytest.approx((f1 + (f1 + f2) / 2) / 2)


def test_relevant_in_context_union_of_overlapping_elements():
    # a and p1 retrieved: their union is a: P 25/60, R 1, F = 2PR/(P+R) = 50/85
    c = ctx([A, P1])
    assert value("gP@1", c) == pytest.approx(50 / 85)
    assert value("AgP", c) == pytest.approx(50 / 85 / 2)  # d2 never retrieved


# --- best in context -------------------------------------------------------

def test_bepd_and_eprum_hand_computed():
    # L = (60 + 40 + 50)/3 = 50, A = .1 -> A·L = 5
    # s1 starts at d1's BEP (10): s = 1 ; y starts 30 from d2's BEP 0: s = 5/35
    c = ctx([S1, Y, Z])
    s2 = 5 / 35
    assert value("BEPD(A=0.1)", c) == pytest.approx((1 + s2) / 2)
    # R = 1: reached at rank 1 surely -> 1 ; R = 2: rank 2 w.p. s2 -> 2/2 · s2
    assert value("EPRUM@0.5", c) == pytest.approx(1.0)
    assert value("EPRUM@1.0", c) == pytest.approx(s2)
    assert value("EPRUM", c) == pytest.approx((1 + s2) / 2)
    assert value("EPRUM@3", c) == pytest.approx((1 + s2) / 3)
    # reversed: R = 1 at rank 1 w.p. s2 (1/1) else at rank 2 (1/2)
    d = ctx([Y, S1])
    assert value("EPRUM@0.5", d) == pytest.approx(s2 + (1 - s2) / 2)
    # A = 10: A·L = 500 -> s = 500/530
    assert value("BEPD(A=10)", c) == pytest.approx((1 + 500 / 530) / 2)


def test_documents_of_another_kind_leave_l_as_it_is():
    """L is the mean length of the documents of the results' kind: a video
    of 1,000 seconds stored beside d1-d3 leaves the articles' L = 50, so
    BEPD, EPRUM and the bep model keep the hand values above (old code: L =
    (60 + 40 + 50 + 1000)/4, s2 = 28.75/58.75)."""
    video = UnitTable.from_tree("v", ["video"], [-1], [1000.0])
    video.columns["kind"][:] = KIND_VIDEO
    video.docs["kind"][:] = KIND_VIDEO
    mixed = FakeStore(concat([D1, D2, D3, video]))
    c = ctx([S1, Y, Z], store=mixed)
    s2 = 5 / 35
    assert value("BEPD(A=0.1)", c) == pytest.approx((1 + s2) / 2)
    assert value("EPRUM", c) == pytest.approx((1 + s2) / 2)
    m = parse_model("bep:A=0.1").matrix([S1, Y], [P1, R, X], ctx([], store=mixed)).toarray()
    np.testing.assert_allclose(m, [[1.0, 0, 0], [0, 5 / 35, 5 / 25]])


def test_run_of_beps_scores_one():
    c = ctx([P1, R])  # p1 starts at 10 (d1's BEP), r at 0 (d2's BEP)
    assert value("BEPD", c) == pytest.approx(1.0)
    for level in ("0.1", "0.5", "1.0"):
        assert value(f"EPRUM@{level}", c) == pytest.approx(1.0)
    assert value("EPRUM", c) == pytest.approx(1.0)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, 0.1]), min_size=1, max_size=7),
       st.integers(0, 3))
def test_eprum_dp_matches_enumeration(p, extra):
    p = np.array(p)
    t = int((p > 0).sum()) + extra
    if t == 0:
        return
    got = eprum_levels(p, t)
    expect = np.zeros(t)
    for outcome in itertools.product([0, 1], repeat=len(p)):
        prob = math.prod(pi if o else 1 - pi for pi, o in zip(p, outcome, strict=True))
        if prob == 0:
            continue
        counts = np.cumsum(outcome)
        for r in range(1, t + 1):
            hit = np.flatnonzero(counts >= r)
            if len(hit):
                expect[r - 1] += prob * r / (hit[0] + 1)
    assert got == pytest.approx(expect)


def test_bep_navigation_model():
    model = parse_model("bep:A=0.1")
    c = ctx([])
    m = model.matrix([S1, Y, Z], [P1, R, X], c).toarray()
    # same document only; d(s1, p1) = 0; d(y, r) = 30, d(y, x) = 20
    np.testing.assert_allclose(m, [[1.0, 0, 0], [0, 5 / 35, 5 / 25], [0, 0, 0]])


# --- PRUM appendix C (PRUM §4.2 examples) ------------------------------------

# Fig. 6: a(60) has children b(40) and f(10); b has c, d, e (10 each); c ideal
FIG6 = UnitTable.from_tree("v", list("abcdef"), [-1, 0, 1, 1, 1, 0], [60, 40, 10, 10, 10, 10])
FA, FB, FC = "v#/a[1]", "v#/a[1]/b[1]", "v#/a[1]/b[1]/c[1]"
GRADES = {FA: 0.75, FB: 0.75, FC: 1.0}  # generalised quantisation (E3S3 = 1, .75 for a, b)


def _prum_ctx(ranked, qrels, n, store=None):
    return TopicContext("1", ranked, qrels, store=store, collection_size=n)


def test_grp_prum_examples():
    # good engine c, b, a: 2.5 / (2.5 + .25 + .25·.75/1.75) = .875 (paper .88)
    assert value("GRP", _prum_ctx([FC, FB, FA], GRADES, 6)) == pytest.approx(0.875)
    # bad engine a, b, c: 2.5 / (2.5 + .5 + 0) = .8333 (paper .83)
    assert value("GRP", _prum_ctx([FA, FB, FC], GRADES, 6)) == pytest.approx(2.5 / 3)
    # Fig. 7: list (a), 100 units, a, b, c quantised 1: 3 / (3 + 97·2/3) (paper .044)
    bep = _prum_ctx(["a"], {"a": 1, "b": 1, "c": 1}, 100)
    assert value("GRP", bep) == pytest.approx(3 / (3 + 97 * 2 / 3))
    assert round(value("GRP", bep), 3) == 0.044
    assert value("GRP", _prum_ctx(["a"], {"a": 1, "b": 1, "c": 1}, math.inf)) == 0.0


def test_grpng_prum_examples():
    # unseen lengths of c, b, a: 10, 30, 20 (paper)
    assert unseen_lengths(["v"] * 3, np.array([30.0, 10, 0]),
                          np.array([40.0, 50, 60])).tolist() == [10, 30, 20]
    store = FakeStore(FIG6)
    good = _prum_ctx([FC, FB, FA], {FA: 1, FB: 1, FC: 1}, 6, store)
    assert value("GRPng(value=recall)", good) == pytest.approx((1 + 3 / 4 + 1 / 3) / 3)
    assert round(value("GRPng(value=recall)", good), 2) == 0.69
    # the paper's .65 weights b by 3/4 and a by 1/3 (docs/errata-inex.md)
    p, r = grpng_curve(np.ones(3), np.array([1, 3 / 4, 1 / 3]), np.array([10.0, 40, 60]),
                       np.array([10.0, 30, 20]), 3.0)
    assert round(float(p[-1]), 2) == 0.65 and round(float(r[-1]), 2) == 0.69
    # bad engine a, b, c with q_spec(a) = 2/3: precision 2/3 at recall 1/3
    p, r = grpng_curve(np.ones(3), np.array([2 / 3, 2 / 3, 1]), np.array([60.0, 40, 10]),
                       np.array([60.0, 0, 0]), 3.0)
    assert float(p[-1]) == pytest.approx(2 / 3) and float(r[-1]) == pytest.approx(1 / 3)
    # Fig. 7: a contains the ideal b and c; list (a): precision 1 at recall 1/3
    fig7 = UnitTable.from_tree("w", list("abc"), [-1, 0, 0], [20, 10, 10])
    ids = fig7.ids()
    c7 = _prum_ctx([ids[0]], dict.fromkeys(ids, 1.0), 100, FakeStore(fig7))
    assert value("GRPng", c7) == pytest.approx(1.0)
    assert value("GRPng(value=recall)", c7) == pytest.approx(1 / 3)
    assert value("GRPng@1.0", c7) == 0.0  # recall 1 never reached


def test_xcg_alpha_prum_examples():
    store = FakeStore(FIG6)
    good = _prum_ctx([FC, FB, FA], GRADES, 6, store)
    assert [value(f"xCG(alpha=1)@{k}", good) for k in (1, 2, 3)] == pytest.approx([1, 1, 1])
    for alpha in (0.5, 0.25, 1.0):
        bad = _prum_ctx([FA, FB, FC], GRADES, 6, store)
        expect = [.75, .75 + (1 - alpha) * .75, .75 + (1 - alpha) * 1.75]
        got = [value(f"xCG(alpha={alpha})@{k}", bad) for k in (1, 2, 3)]
        assert got == pytest.approx(expect)


def test_missing_assessments_is_a_usage_error_and_empty_scores_zero():
    from graphprum.errors import UsageError

    with pytest.raises(UsageError, match=r"topic 1: the relevant in context measures "
                                         r"\(gP, gR, AgP\) need passage assessments "
                                         r"\(--passages\)"):
        value("AgP", ctx([P1], assessment=None))
    with pytest.raises(UsageError, match=r"best in context measures \(BEPD, EPRUM\) need "
                                         r"passage assessments"):
        value("BEPD", ctx([P1], assessment=None))
    # XCG reads the qrels when there are no passages: none judged, 0
    assert value("nxCG@5", ctx([P1], assessment=None)) == 0.0
    empty = TopicAssessment("1")
    for name in ("nxCG@5", "MAep", "AgP", "BEPD", "EPRUM", "ep@0.5"):
        assert value(name, ctx([P1, R], assessment=empty)) == 0.0
