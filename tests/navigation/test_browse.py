"""The ``browse`` walk over child, parent and link moves, and links that
leave from the text holding them, against values worked out by hand and
against the ``walk:FILE`` model given the same one-step moves.

The collection (three XML documents; ``link@ref`` elements are links)::

    a.xml  A0 <doc>                       b.xml  B0 <doc>
             A1 <sec>                              B1 <sec id="s1">
               A2 <p>see                             B2 <p>x
                 A3 <link ref="b.xml">B               B3 <sec>
               A4 <p>more                              B4 <p>y
                                                         B5 <link ref="c.xml#t">C
    c.xml  C0 <doc>
             C1 <sec id="t">
               C2 <p>z

A3's link arrives at B's root B0; B5's at C1, the section its fragment
names.  A unit's out-links are the links in its subtree: A0, A1, A2 and A3
each hold one (A3's), A4 none; B0, B3, B4, B5 hold B5's; B1, B2 and C none.

With child = parent = link = 1/3 a user at x moves to each child with 1/3
divided by the number of children, to the parent with 1/3, along each link
x holds with 1/3 divided by their number; what is left is the probability
of stopping.

K = 1: P(A2 → B0) = P(A1 → B0) = 1/3 (the one link each holds);
P(· → B1) = 0.

K = 2: P(A2 → B0) = 1/3 + A2→A3→B0 (1/3 · 1/3) + A2→A1→B0 (1/3 · 1/3) = 5/9;
P(A1 → B0) = 1/3 + A1→A2→B0 (1/6 · 1/3) + A1→A0→B0 (1/3 · 1/3) = 1/2
(A1→A4 leads nowhere: A4 holds no link);
P(A2 → B1) = P(A1 → B1) = A→B0 (1/3) then B0→B1 (1/3 / 2 children) = 1/18.

K = ∞, target B0 (absorbing; nothing leads back into A), h_i = P(A_i → B0):
h3 = (h2 + 1)/3, h4 = h1/3, h2 = h3/3 + h1/3 + 1/3, h0 = h1/3 + 1/3,
h1 = h2/6 + h4/6 + h0/3 + 1/3.  Then h2 = 1/2 + 3 h1/8, and
h1 (1 - 1/16 - 1/18 - 1/9) = 1/12 + 1/9 + 1/3, i.e. h1 · 37/48 = 19/36:
P(A1 → B0) = 76/111, P(A2 → B0) = 28/37.

K = ∞, target B1: a walk from A enters B at B0 only, so P(A_i → B1) =
P(A_i → B0) · g0 with g_j = P(B_j → B1) (C leads nowhere back):
g5 = g4/3, g4 = g5/3 + g3/3, g3 = g4/3 + g0/3, g0 = 1/6 + g3/6 (B0's link
goes to C: 0).  g4 = 3 g3/8, g3 = 8 g0/21, g0 (1 - 4/63) = 1/6: g0 = 21/118;
P(A2 → B1) = 28/37 · 21/118 = 294/2183, P(A1 → B1) = 76/111 · 21/118 = 266/2183.

The link held in B5 arrives at C1 (its fragment): P(B5 → C1) = 1/3 at K = 1,
and its root C0 is not reached in one move.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphprum.context import TopicContext
from graphprum.errors import InputError, UsageError
from graphprum.loading import load_xml
from graphprum.navigation.base import combine, parse_model
from graphprum.navigation.browse import BrowseModel, estimate_moves
from graphprum.store.local import LocalStore
from graphprum.store.memory import MemoryStore
from graphprum.store.tables import TableStore
from graphprum.units import ParsedDocument

DOCS = {
    "a.xml": '<doc><sec><p>see <link ref="b.xml">B</link></p><p>more</p></sec></doc>',
    "b.xml": '<doc><sec id="s1"><p>x</p></sec><sec><p>y <link ref="c.xml#t">C</link></p>'
             '</sec></doc>',
    "c.xml": '<doc><sec id="t"><p>z</p></sec></doc>',
}
A0, A1, A2, A3, A4 = ("a#/doc[1]", "a#/doc[1]/sec[1]", "a#/doc[1]/sec[1]/p[1]",
                      "a#/doc[1]/sec[1]/p[1]/link[1]", "a#/doc[1]/sec[1]/p[2]")
B0, B1, B2, B3, B4, B5 = ("b#/doc[1]", "b#/doc[1]/sec[1]", "b#/doc[1]/sec[1]/p[1]",
                          "b#/doc[1]/sec[2]", "b#/doc[1]/sec[2]/p[1]",
                          "b#/doc[1]/sec[2]/p[1]/link[1]")
C0, C1, C2 = "c#/doc[1]", "c#/doc[1]/sec[1]", "c#/doc[1]/sec[1]/p[1]"

#: (K, sources A2 A1, targets B0 B1): the docstring's values
BY_HAND = {
    1: [[Fraction(1, 3), 0], [Fraction(1, 3), 0]],
    2: [[Fraction(5, 9), Fraction(1, 18)], [Fraction(1, 2), Fraction(1, 18)]],
    None: [[Fraction(28, 37), Fraction(294, 2183)], [Fraction(76, 111), Fraction(266, 2183)]],
}

#: The one-step moves of the docstring, written out for walk:FILE (c = p = l = 1/3)
MOVES_BY_HAND = [
    (A0, A1, 1 / 3), (A0, B0, 1 / 3),
    (A1, A2, 1 / 6), (A1, A4, 1 / 6), (A1, A0, 1 / 3), (A1, B0, 1 / 3),
    (A2, A3, 1 / 3), (A2, A1, 1 / 3), (A2, B0, 1 / 3),
    (A3, A2, 1 / 3), (A3, B0, 1 / 3),
    (A4, A1, 1 / 3),
    (B0, B1, 1 / 6), (B0, B3, 1 / 6), (B0, C1, 1 / 3),
    (B1, B2, 1 / 3), (B1, B0, 1 / 3),
    (B2, B1, 1 / 3),
    (B3, B4, 1 / 3), (B3, B0, 1 / 3), (B3, C1, 1 / 3),
    (B4, B5, 1 / 3), (B4, B3, 1 / 3), (B4, C1, 1 / 3),
    (B5, B4, 1 / 3), (B5, C1, 1 / 3),
    (C0, C1, 1 / 3), (C1, C2, 1 / 3), (C1, C0, 1 / 3), (C2, C1, 1 / 3),
]


@pytest.fixture(params=["memory", "local"])
def store(request, tmp_path: Path):
    """The collection in the reference store (plain breadth-first search)
    and in the embedded one (compressed rows)."""
    for name, text in DOCS.items():
        (tmp_path / "c").mkdir(exist_ok=True)
        (tmp_path / "c" / name).write_text(text, encoding="utf-8")
    s = MemoryStore() if request.param == "memory" else LocalStore(tmp_path / "s")
    load_xml(s, [tmp_path / "c"], links="link@ref")
    return s


def nav(store, spec: str, sources: list[str], targets: list[str]) -> np.ndarray:
    models = [parse_model(m) for m in spec.split()]
    ctx = TopicContext(topic="", ranked=list(sources), qrels={}, models=models, store=store)
    return combine(models, sources, targets, ctx).toarray()


@pytest.mark.parametrize("hops", [1, 2, None])
def test_browse_by_hand(store, hops) -> None:
    k = "inf" if hops is None else hops
    got = nav(store, f"browse:hops={k}", [A2, A1], [B0, B1])
    assert got == pytest.approx(np.array(BY_HAND[hops], dtype=float), abs=1e-12)


@pytest.mark.parametrize("hops", [1, 2, None])
def test_browse_equals_the_walk_model_given_its_moves(store, tmp_path: Path, hops) -> None:
    nav_file = tmp_path / "moves.tsv"
    nav_file.write_text("".join(f"{a}\t{b}\t{p!r}\n" for a, b, p in MOVES_BY_HAND))
    k = "inf" if hops is None else hops
    units = [A0, A1, A2, A3, A4, B0, B1, B2, B3, B4, B5, C0, C1, C2]
    walk = nav(store, f"walk:{nav_file},hops={k}", units, units)
    browse = nav(store, f"browse:hops={k}", units, units)
    assert browse == pytest.approx(walk, abs=1e-12)
    assert walk[units.index(A2)][units.index(B1)] == pytest.approx(float(BY_HAND[hops][0][1]))


def test_a_link_arrives_where_its_fragment_points(store) -> None:
    assert nav(store, "browse:hops=1", [B5, B4], [C1, C0]) == \
        pytest.approx(np.array([[1 / 3, 0.0], [1 / 3, 0.0]]))
    assert nav(store, "links", [B5, B0, B1], [C1, C0]).tolist() == \
        [[1.0, 0.0], [1.0, 0.0], [0.0, 0.0]]


def test_links_leave_from_the_units_holding_them(store) -> None:
    # classical would give 0 everywhere here: every unit of A holds A3's link but A4
    got = nav(store, "links", [A0, A1, A2, A3, A4], [B0, B1])
    assert got.tolist() == [[1.0, 0.0]] * 4 + [[0.0, 0.0]]
    # structural + links: follow the link to B0, then eq. 9 down into B1 (1 of 4 characters)
    got = nav(store, "structural links", [A2], [B0, B1, B2])
    assert got == pytest.approx(np.array([[1.0, 1 / 4, 1 / 4]]))
    # two hops: B0 holds B5's link, so A2 reaches C1 (1 · 1), and C2 below it by eq. 9
    got = nav(store, "structural links:hops=2", [A2], [C1, C2])
    assert got == pytest.approx(np.array([[1.0, 1.0]]))


def test_the_numpy_walk_equals_the_reference_walk(store) -> None:
    """The embedded store's compressed rows (meeting halfway between the
    sources and the targets) and the reference breadth-first search give
    the same probabilities."""
    units = [A0, A1, A2, A3, A4, B0, B1, B2, B3, B4, B5, C0, C1, C2]
    ref = MemoryStore()
    ref.load_documents(store.iter_documents())
    for spec in ("browse:hops=2", "browse:hops=3,child=0.5,parent=0.1,link=0.4", "links:hops=3"):
        model = parse_model(spec)
        plain = model.matrix(units, units, Ctx(ref)).toarray()
        rows = model.matrix(units, units, Ctx(CompressedRows(ref))).toarray()
        assert rows == pytest.approx(plain, abs=1e-12), spec


class Ctx:
    def __init__(self, store) -> None:
        self.store = store


class CompressedRows:
    """A memory store answering ``link_walk`` the embedded store's way."""

    def __init__(self, store: MemoryStore) -> None:
        self.inner = store

    def link_walk(self, sources, targets, hops, structure=False):
        rows = self.inner.resolve
        return TableStore.walk_rows(self.inner, rows(sources), rows(targets), hops, structure)


# ------------------------------------------------------------ random trees

def random_collection(draw) -> MemoryStore:
    """Up to four documents of up to six units (random trees), random links
    between any units (fragments naming elements by id)."""
    docs = []
    n_docs = draw(st.integers(1, 4))
    sizes = [draw(st.integers(1, 6)) for _ in range(n_docs)]
    for d, n in enumerate(sizes):
        parents = [-1]
        for i in range(1, n):  # preorder: the parent is i - 1 or one of its ancestors
            chain = [i - 1]
            while parents[chain[-1]] >= 0:
                chain.append(parents[chain[-1]])
            parents.append(draw(st.sampled_from(chain)))
        size = [1] * n
        for i in range(n - 1, 0, -1):
            size[parents[i]] += size[i]
        depth = [0] * n
        for i in range(1, n):
            depth[i] = depth[parents[i]] + 1
        cols = {"parent": np.array(parents), "kind": np.zeros(n), "depth": np.array(depth),
                "post": np.zeros(n), "size": np.array(size), "pos": np.arange(1, n + 1),
                "start": np.zeros(n), "length": np.ones(n), "words": np.ones(n)}
        docs.append((f"d{d}", n, cols))
    links = draw(st.lists(st.tuples(st.integers(0, n_docs - 1), st.integers(0, 5),
                                    st.integers(0, n_docs - 1), st.integers(0, 5)), max_size=8))
    store = MemoryStore()
    parsed = []
    for d, (name, n, cols) in enumerate(docs):
        mine = [(r % n, f"d{t}#e{tr % sizes[t]}" if tr % 2 else f"d{t}", "")
                for s, r, t, tr in links if s == d]
        parsed.append(ParsedDocument(name, name, 0, [f"t{i}" for i in range(n)],
                                     [f"/t{i}" for i in range(n)], cols, mine,
                                     attributes=[(i, {"id": f"e{i}"}) for i in range(n)]))
    store.load_documents(parsed)
    return store


@settings(max_examples=150, deadline=None)
@given(data=st.data(), hops=st.sampled_from([1, 2, 3, None]))
def test_random_collections_compressed_rows_equal_the_reference(data, hops) -> None:
    store = random_collection(data.draw)
    units = store.table().ids()
    srcs = data.draw(st.lists(st.sampled_from(units), min_size=1, max_size=4))
    tgts = data.draw(st.lists(st.sampled_from(units), min_size=1, max_size=4, unique=True))
    k = "inf" if hops is None else hops
    for spec in (f"browse:hops={k}", f"links:hops={k}"):
        model = parse_model(spec)
        plain = model.matrix(srcs, tgts, Ctx(store)).toarray()
        rows = model.matrix(srcs, tgts, Ctx(CompressedRows(store))).toarray()
        assert rows == pytest.approx(plain, abs=1e-9), spec


# ------------------------------------------------------------ estimated from a log

def test_move_probabilities_estimated_from_a_log(store, tmp_path: Path) -> None:
    """Positions (8): A2 B0 B1 B0 (session s1), A1 A2 A1 B3 (s2).  Steps:
    A2→B0 a link, B0→B1 a child, B1→B0 the parent; A1→A2 a child, A2→A1 the
    parent, A1→B3 none (a jump).  Every position has a child: C = 2/8; all
    but the two at B0 have a parent: P = 2/6; all but B1 hold a link: L = 1/7."""
    log = tmp_path / "log.txt"
    log.write_text(f"s1 1 {A2}\ns1 2 {B0}\ns1 3 {B1}\ns1 4 {B0}\n"
                   f"s2 1 {A1}\ns2 2 {A2}\ns2 3 {A1}\ns2 4 {B3}\n")
    m = parse_model(f"browse:log={log},hops=1")
    assert isinstance(m, BrowseModel)
    assert m.weights(store) == pytest.approx((2 / 8, 2 / 6, 1 / 7))
    assert m.estimate == {"child": (2, 8), "parent": (2, 6), "link": (1, 7), "other": (1, 8)}
    # the walk with those weights: from A1 along its one link 1/7, to each child (1/4)/2
    assert nav(store, f"browse:log={log},hops=1", [A1], [B0, A2]) == \
        pytest.approx(np.array([[1 / 7, 1 / 8]]))
    sessions = [type("S", (), {"name": "s", "ids": ("nope", A1)})()]
    with pytest.raises(InputError, match="not in the store"):
        estimate_moves(sessions, store)


@pytest.mark.parametrize(("spec", "message"), [
    ("browse:child=0.6,parent=0.3,link=0.2", "at most 1"),
    ("browse:child=-0.1", "child must be in"),
    ("browse:hops=0", "bad value"),
    ("browse:log=x.txt,link=0.5", "not both"),
    ("browse:walk=2", "unknown argument"),
])
def test_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_model(spec)


def test_needs_a_store() -> None:
    with pytest.raises(UsageError, match="needs a store"):
        parse_model("browse").matrix(["a"], ["b"], Ctx(None))
