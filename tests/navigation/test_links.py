"""The ``links[:beta=B,hops=K]`` model against independent computations.

Hitting probabilities are recomputed here by enumerating every walk of at
most K steps (exact fractions) or, for walks of any length, by a dense
linear solve over the units that can reach the target; a tiny web site's
values are derived by hand.
"""

from __future__ import annotations

import importlib.util
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from graphprum.errors import UsageError
from graphprum.loaders.web import load_site
from graphprum.navigation import links as links_mod
from graphprum.navigation.base import combine, parse_model
from graphprum.navigation.links import LinksModel
from graphprum.store import linkgraph
from graphprum.store.linkgraph import LinkGraph
from graphprum.store.memory import MemoryStore
from graphprum.units import page_units

needs_hitting = pytest.mark.skipif(
    importlib.util.find_spec("graphprum.navigation.hitting") is None,
    reason="graphprum.navigation.hitting not written yet")


def FakeStore(names: list[str], edges: list[tuple[str, str]]) -> MemoryStore:  # noqa: N802
    """Pages named by strings with LINK edges as (src, dst) name pairs, in the
    reference memory store."""
    store = MemoryStore()
    store.load_documents([page_units(names)])
    store.load_documents([], link_pairs=[([a for a, _ in edges], [b for _, b in edges])])
    return store


class Ctx:
    def __init__(self, store: MemoryStore) -> None:
        self.store = store


def transitions(edges: list[tuple[str, str]], beta: Fraction) -> dict[str, dict[str, Fraction]]:
    """T[x][z] = beta * count(x->z) / outdeg(x), exact."""
    count = Counter(edges)
    out = Counter(a for a, _ in edges)
    t: dict[str, dict[str, Fraction]] = {}
    for (a, b), c in count.items():
        t.setdefault(a, {})[b] = beta * Fraction(c, out[a])
    return t


def enumerate_walks(t: dict[str, dict[str, Fraction]], x: str, y: str, hops: int) -> Fraction:
    """Sum over walks x=v0..vk=y, k <= hops, vi != y before the end, of the step products."""
    if x == y:
        return Fraction(1)
    total = Fraction(0)
    stack = [(x, Fraction(1), 0)]
    while stack:
        v, p, k = stack.pop()
        if k == hops:
            continue
        for z, q in t.get(v, {}).items():
            if z == y:
                total += p * q
            else:
                stack.append((z, p * q, k + 1))
    return total


def dense_hitting(names: list[str], t: dict[str, dict[str, Fraction]], x: str, y: str) -> float:
    """P(ever reach y from x): solve h = Q h + r over the units that can reach y."""
    if x == y:
        return 1.0
    reach = {y}
    changed = True
    while changed:
        changed = False
        for a, outs in t.items():
            if a not in reach and any(b in reach and q > 0 for b, q in outs.items()):
                reach.add(a)
                changed = True
    if x not in reach:
        return 0.0
    live = [v for v in names if v in reach and v != y]
    idx = {v: i for i, v in enumerate(live)}
    q = np.zeros((len(live), len(live)))
    r = np.zeros(len(live))
    for a in live:
        for b, p in t.get(a, {}).items():
            if b == y:
                r[idx[a]] += float(p)
            elif b in idx:
                q[idx[a], idx[b]] += float(p)
    h = np.linalg.solve(np.eye(len(live)) - q, r)
    return float(h[idx[x]])


def model_matrix(names: list[str], edges: list[tuple[str, str]], sources: list[str],
                 targets: list[str], spec: str = "links") -> np.ndarray:
    model = parse_model(spec)
    return model.matrix(sources, targets, Ctx(FakeStore(names, edges))).toarray()


# ------------------------------------------------------------ options

def test_options_and_registration() -> None:
    m = parse_model("links")
    assert isinstance(m, LinksModel) and (m.beta, m.hops) == (1.0, 1)
    m = parse_model("links:beta=0.25,hops=3")
    assert (m.beta, m.hops) == (0.25, 3)
    assert parse_model("links:hops=inf").hops is None
    assert m.needs_store


@pytest.mark.parametrize("spec", ["links:beta=1.5", "links:beta=-0.1", "links:hops=0",
                                  "links:hops=two", "links:alpha=1", "links:3"])
def test_bad_options(spec: str) -> None:
    with pytest.raises(UsageError, match="links"):
        parse_model(spec)


def test_needs_store() -> None:
    class NoStore:
        store = None

    with pytest.raises(UsageError, match="needs a store"):
        parse_model("links").matrix(["a"], ["b"], NoStore())


# ------------------------------------------------------------ graph helpers

def test_backward_neighbourhood_matches_bfs() -> None:
    rng = np.random.default_rng(5)
    n, m = 300, 900
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    g = LinkGraph.build(src, dst)
    preds: dict[int, set[int]] = {}
    for a, b in zip(src.tolist(), dst.tolist(), strict=True):
        preds.setdefault(b, set()).add(a)
    targets = np.array([3, 17, 250, 17])
    for hops in (1, 2, 3, None):
        seen = set(targets.tolist())
        frontier = set(seen)
        k = 0
        while frontier and (hops is None or k < hops):
            frontier = {p for v in frontier for p in preds.get(v, ())} - seen
            seen |= frontier
            k += 1
        assert g.backward(targets, hops).tolist() == sorted(seen)


def test_transitions_restricted_keep_full_out_degree() -> None:
    # 0 -> 1 (twice), 0 -> 2, 0 -> 3; restricted to {0, 1}: T[0,1] = B * 2/4
    g = LinkGraph.build(np.array([0, 0, 0, 0]), np.array([1, 2, 1, 3]))
    t = g.transitions(np.array([0, 1]), 0.5).toarray()
    assert t.tolist() == [[0.0, 0.25], [0.0, 0.0]]


# ------------------------------------------------------------ hitting probabilities

@needs_hitting
def test_prum_fig2_with_link_multiplicities() -> None:
    # PRUM Fig. 2 / ERRATA 7 as link counts: x->y .5, x->z .3 (x->w .2),
    # z->y .12 (z->d .88), y->z .8 (y->d .2); P(x->y) = .536, P(x->z) = .7
    edges = ([("x", "y")] * 5 + [("x", "z")] * 3 + [("x", "w")] * 2
             + [("z", "y")] * 12 + [("z", "d")] * 88 + [("y", "z")] * 4 + [("y", "d")])
    names = ["x", "y", "z", "w", "d"]
    for spec in ("links:hops=2", "links:hops=5", "links:hops=inf"):
        p = model_matrix(names, edges, ["x"], ["y", "z"], spec)
        assert p[0] == pytest.approx([0.536, 0.7])
    p = model_matrix(names, edges, ["x"], ["y", "z"], "links")  # one step only
    assert p[0] == pytest.approx([0.5, 0.3])


@needs_hitting
def test_hops_truncation_on_a_chain() -> None:
    names = ["a", "b", "c", "d"]
    edges = [("a", "b"), ("b", "c"), ("c", "d")]
    for hops, expected in [(1, 0.0), (2, 0.0), (3, 1.0), (4, 1.0)]:
        assert model_matrix(names, edges, ["a"], ["d"], f"links:hops={hops}")[0, 0] == expected
    # beta applies at every step
    assert model_matrix(names, edges, ["a"], ["d"], "links:hops=3,beta=0.5")[0, 0] == \
        pytest.approx(0.125)


@needs_hitting
def test_cycle_by_hand() -> None:
    # a -> b, a -> c, b -> a.  Walks of any length: h_a = B/2 + B/2 * h_b, h_b = B * h_a
    names = ["a", "b", "c"]
    edges = [("a", "b"), ("a", "c"), ("b", "a")]
    assert model_matrix(names, edges, ["a", "b"], ["c"], "links:hops=inf")[:, 0] == \
        pytest.approx([1.0, 1.0])
    # B = 1/2: h_a = 1/4 + 1/4 * (1/2 h_a)  =>  h_a = 2/7, h_b = 1/7
    assert model_matrix(names, edges, ["a", "b"], ["c"], "links:hops=inf,beta=0.5")[:, 0] == \
        pytest.approx([2 / 7, 1 / 7])
    # K = 3: a->c, a->b->a->c: 1/2 + 1/4; b->a->c, b->a->b->a... : 1/2 + 1/4 (b->a->b->a->c is 4)
    assert model_matrix(names, edges, ["a", "b"], ["c"], "links:hops=3")[:, 0] == \
        pytest.approx([0.75, 0.5])
    assert model_matrix(names, edges, ["b"], ["c"], "links:hops=4")[0, 0] == \
        pytest.approx(0.75)


@needs_hitting
def test_dangling_unknown_and_same_unit() -> None:
    names = ["a", "b", "c", "lonely"]
    edges = [("a", "b"), ("a", "c")]
    p = model_matrix(names, edges, ["b", "lonely", "nope", "a", "c"],
                     ["c", "a", "nope", "lonely"], "links:hops=inf")
    expected = np.zeros((5, 4))
    expected[3, 0] = 0.5  # a -> c
    expected[4, 0] = 1.0  # c is c
    expected[3, 1] = 1.0  # a is a
    expected[1, 3] = 1.0  # lonely is lonely
    assert p.tolist() == expected.tolist()


@needs_hitting
def test_self_links_and_multiplicity() -> None:
    # a links to itself twice and to b once: one step a->b = 1/3; any length: 1
    names = ["a", "b"]
    edges = [("a", "a"), ("a", "b"), ("a", "a")]
    assert model_matrix(names, edges, ["a"], ["b"])[0, 0] == pytest.approx(1 / 3)
    assert model_matrix(names, edges, ["a"], ["b"], "links:hops=2")[0, 0] == \
        pytest.approx(1 / 3 + 2 / 3 * 1 / 3)
    assert model_matrix(names, edges, ["a"], ["b"], "links:hops=inf")[0, 0] == \
        pytest.approx(1.0)


graphs = st.integers(2, 7).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=18),
    st.sampled_from([Fraction(1), Fraction(1, 2), Fraction(9, 10)]),
    st.sampled_from([1, 2, 3, 4, None]),
    st.lists(st.integers(0, n - 1), min_size=1, max_size=4),
    st.lists(st.integers(0, n - 1), min_size=1, max_size=3, unique=True),
))


@needs_hitting
@settings(max_examples=150, deadline=None)
@given(case=graphs)
def test_random_graphs_against_enumeration_and_solve(case) -> None:
    n, pairs, beta, hops, srcs, tgts = case
    names = [f"p{i}" for i in range(n)]
    edges = [(names[a], names[b]) for a, b in pairs]
    sources = [names[i] for i in srcs]
    targets = [names[j] for j in tgts]
    spec = f"links:beta={float(beta)!r},hops={'inf' if hops is None else hops}"
    got = model_matrix(names, edges, sources, targets, spec)
    t = transitions(edges, beta)
    for i, x in enumerate(sources):
        for j, y in enumerate(targets):
            want = (dense_hitting(names, t, x, y) if hops is None
                    else float(enumerate_walks(t, x, y, hops)))
            assert got[i, j] == pytest.approx(want, abs=1e-9), (x, y)


@needs_hitting
def test_only_the_neighbourhood_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    # a 200,000-page random graph; with K = 1 the walk matrix holds the targets
    # and their direct predecessors only
    rng = np.random.default_rng(1)
    n, m = 200_000, 1_000_000
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)

    class BigStore:
        graph = LinkGraph.build(src, dst)

        def link_walk(self, sources, targets, hops):
            rows = lambda ids: np.array([int(i) for i in ids], dtype=np.int64)  # noqa: E731
            return self.graph.walk(rows(sources), rows(targets), hops)

    shapes = []
    real = links_mod.hitting_probabilities

    def spy(t, sources, targets, hops):
        shapes.append(t.shape)
        return real(t, sources, targets, hops)

    monkeypatch.setattr(links_mod, "hitting_probabilities", spy)
    targets = [str(v) for v in dst[:10]]
    sources = [str(v) for v in rng.integers(0, n, 990)] + [str(v) for v in src[:10]]
    p = LinksModel("links").matrix(sources, targets, Ctx(BigStore()))
    assert shapes and shapes[0][0] < 200  # ~10 targets + ~50 predecessors
    # one-step values: count(x->y) / outdeg(x), counted here from the edges into targets
    outdeg = np.bincount(src, minlength=n)
    into = np.isin(dst, [int(t) for t in targets])
    count = Counter(zip(src[into].tolist(), dst[into].tolist(), strict=True))
    dense = p.toarray()
    want = np.zeros_like(dense)
    for i, x in enumerate(int(s) for s in sources):
        for j, y in enumerate(int(t) for t in targets):
            want[i, j] = 1.0 if x == y else count[x, y] / max(outdeg[x], 1)
    assert np.count_nonzero(want[-10:]) >= 10
    assert dense == pytest.approx(want)


@needs_hitting
def test_elements_links_leave_from_the_anchor_element() -> None:
    # page p: root p0 with child a-element p1 linking to page q's root q0;
    # q0 has a child q1.  Out-links of p0 are the links whose source is p0: none.
    names = ["p0", "p1", "q0", "q1"]
    edges = [("p1", "q0")]
    p = model_matrix(names, edges, ["p0", "p1"], ["q0", "q1"], "links:hops=inf")
    assert p.tolist() == [[0.0, 0.0], [1.0, 0.0]]


# ------------------------------------------------------------ end to end

def site_store(root: Path) -> FakeStore:
    """A fake store of a site's pages (rows in load order) and its stored links."""
    docs = list(load_site(root))
    names = [d.name for d in docs]
    edges = [(d.name, target) for d in docs for _, target, _ in d.links]
    return FakeStore(names, edges)


@needs_hitting
def test_tiny_site_end_to_end(tmp_path: Path) -> None:
    # index -> a (twice), b; external and missing links are not stored.
    # a -> b, c.   b -> index (via ./), '#top' is in-page.   c has no links.
    (tmp_path / "docs").mkdir()
    (tmp_path / "index.html").write_text(
        '<a href="docs/a.html">A</a> <a href="docs/a.html#s">A again</a> '
        '<a href="docs/b.html">B</a> <a href="http://example.com/">ext</a> '
        '<a href="docs/gone.html">gone</a>')
    (tmp_path / "docs" / "a.html").write_text('<a href="b.html">b</a><a href="./c.html">c</a>')
    (tmp_path / "docs" / "b.html").write_text('<a href="#top">top</a><a href="../">home</a>')
    (tmp_path / "docs" / "c.html").write_text("<p>the end</p>")
    ctx = Ctx(site_store(tmp_path))
    ranked = ["index.html", "docs/a.html", "docs/c.html"]
    ideal = ["docs/b.html", "docs/c.html"]
    # By hand: T(index->a) = 2/3, T(index->b) = 1/3, T(a->b) = T(a->c) = 1/2, T(b->index) = 1
    one_step = [[1 / 3, 0.0], [1 / 2, 1 / 2], [0.0, 1.0]]
    two_steps = [[1 / 3 + 2 / 3 * 1 / 2, 2 / 3 * 1 / 2], [1 / 2, 1 / 2], [0.0, 1.0]]
    # any length, target b: h_a = 1/2, h_index = 2/3 h_a + 1/3 = 2/3;
    # target c: h_b = h_index, h_a = 1/2 + 1/2 h_b, h_index = 2/3 h_a + 1/3 h_b => 1
    forever = [[2 / 3, 1.0], [1 / 2, 1.0], [0.0, 1.0]]
    # B = 1/2, target c: h_a = 1/4 + 1/4 h_b, h_b = 1/2 h_i,
    # h_i = 1/3 h_a + 1/6 h_b  =>  h_i = 2/21, h_a = 1/4 + 1/84 = 22/84;
    # target b: h_a = 1/4, h_i = 1/3 * 1/4 + 1/6 = 1/4
    half = [[1 / 4, 2 / 21], [1 / 4, 22 / 84], [0.0, 1.0]]
    for spec, want in [("links", one_step), ("links:hops=2", two_steps),
                       ("links:hops=inf", forever), ("links:beta=0.5,hops=inf", half)]:
        got = combine([parse_model(spec)], ranked, ideal, ctx).toarray()
        assert got == pytest.approx(np.array(want)), spec


def test_ranges_helper() -> None:
    ptr = np.array([0, 2, 2, 5, 6])
    assert linkgraph._ranges(ptr, np.array([2, 0, 1, 3])).tolist() == [2, 3, 4, 0, 1, 5]
    assert sp.issparse(links_mod._same_rows(np.array([1, -1]), np.array([1, 1, 2])))
    assert links_mod._same_rows(np.array([1, -1, 2]), np.array([1, -1, 1])).toarray().tolist() \
        == [[1, 0, 1], [0, 0, 0], [0, 0, 0]]
