"""AxPRE summaries: SR Fig. 2 (ERRATA SR 4, 6), brute-force partitions on random
forests, edge statistics, steady states, weights files, storage."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from graphprum.errors import InputError, UsageError
from graphprum.loading import load_xml
from graphprum.summaries.axpre import AXPRES, Summary, build_summary
from graphprum.summaries.steady import symmetric_pi, walk_pi
from graphprum.units import UnitTable
from tests.support.summaries import (
    BOOK,
    book_table,
    brute_force_classes,
    forest_table,
    random_tree,
    xml_elements,
)

# SR Fig. 2, preorder ids 1..17 (ERRATA SR 6); rows are ids - 1.
PSTAR_EXTENTS = [{1}, {2}, {3, 7, 10}, {4, 8, 9, 11, 12, 13}, {5, 6}, {14}, {15, 16, 17}]

# SR Table 1 as printed, rows/columns in the paper's order of partitions. The
# matrix is the number of ancestor-descendant element pairs between p*
# partitions; the paper numbers partitions breadth-first: bk, fm, bd, d, c, n, m.
TABLE1 = np.array([
    [0, 1, 1, 3, 3, 6, 2],
    [1, 0, 0, 3, 0, 6, 2],
    [1, 0, 0, 0, 3, 0, 0],
    [3, 3, 0, 0, 0, 6, 2],
    [3, 0, 3, 0, 0, 0, 0],
    [6, 6, 0, 6, 0, 0, 0],
    [2, 2, 0, 2, 0, 0, 0],
])
TABLE1_PATHS = ["/book", "/book/fm", "/book/body", "/book/fm/description", "/book/body/chapter",
                "/book/fm/description/name", "/book/fm/description/meta"]


def extents(summary: Summary) -> list[set[int]]:
    """Extent of S1, S2, ... as sets of preorder ids (row + 1)."""
    m = np.asarray(summary.membership)
    return [set((np.flatnonzero(m == i) + 1).tolist()) for i in range(len(summary))]


def symmetric_matrix(summary: Summary) -> np.ndarray:
    g = len(summary)
    w = np.zeros((g, g))
    for s, d, x in summary.weights[["src", "dst", "w"]].itertuples(index=False):
        w[int(s), int(d)] += x
        w[int(d), int(s)] += x
    return w


# ------------------------------------------------------------------ Fig. 2
def test_book_xml_is_fig2_tree():
    tags, parents, _ = xml_elements(BOOK)
    assert len(tags) == 17
    # ERRATA SR 6: parents of ids 2..17
    expected = [1, 2, 3, 3, 3, 2, 7, 7, 2, 10, 10, 10, 1, 14, 14, 14]
    assert [p + 1 for p in parents[1:]] == expected


def test_pstar_partitions_of_fig2():
    s = build_summary(book_table(), "p*")
    assert s.sids == ["S1", "S2", "S3", "S4", "S5", "S6", "S7"]
    assert extents(s) == PSTAR_EXTENTS
    assert s.partitions["key"].tolist()[:3] == ["/book", "/book/fm", "/book/fm/description"]
    assert s.partitions["extent"].tolist() == [len(e) for e in PSTAR_EXTENTS]
    assert s.partition_of(6) == "S3"  # e_7 is in S3 (ERRATA SR 2)


def test_other_axpres_on_fig2():
    t = book_table()
    # the tags of Fig. 2 determine their parent tags: label and p equal p* here
    assert extents(build_summary(t, "label")) == PSTAR_EXTENTS
    assert extents(build_summary(t, "p")) == PSTAR_EXTENTS
    # description 3 has children {name, meta}, 7 and 10 only {name}
    split = [{1}, {2}, {3}, {4, 8, 9, 11, 12, 13}, {5, 6}, {7, 10}, {14}, {15, 16, 17}]
    for axpre in ("c", "p*|c", "c*"):
        assert extents(build_summary(t, axpre)) == split, axpre
    assert build_summary(t, "p*|c").partitions["key"][2] == "/book/fm/description(meta,name)"


def test_table1_is_the_extent_weighting():
    """SR Table 1 = ancestor-descendant pair counts of the p* summary; π = rows/76."""
    s = build_summary(book_table(), "p*", weight="extent")
    keys = s.partitions["key"].tolist()
    perm = [keys.index(p) for p in TABLE1_PATHS]
    w = symmetric_matrix(s)
    np.testing.assert_array_equal(w[np.ix_(perm, perm)], TABLE1)
    np.testing.assert_allclose(s.pi[perm], np.array([16, 12, 4, 14, 6, 18, 6]) / 76)
    assert TABLE1.sum() == 76


def test_count_and_length_weightings_of_fig2():
    t = book_table()
    s = build_summary(t, "p*", weight="count")
    # parent-child edges bk-fm 1, fm-d 3, d-n 6, d-m 2, bk-bd 1, bd-c 3 (total 16)
    np.testing.assert_allclose(s.pi, np.array([2, 4, 11, 6, 2, 4, 3]) / 32)
    # length: every parent-child pair weighs the child's text length (lxml walk)
    root = etree.parse(str(BOOK)).getroot()
    total: dict[str, float] = {}

    def path(e):
        return "/" + "/".join([a.tag for a in reversed(list(e.iterancestors()))] + [e.tag])

    for e in root.iter():
        if not isinstance(e.tag, str) or e.getparent() is None:
            continue
        w = len("".join(e.itertext()))
        for p in (path(e), path(e.getparent())):
            total[p] = total.get(p, 0.0) + w
    s = build_summary(t, "p*", weight="length")
    expected = np.array([total[k] for k in s.partitions["key"]])
    np.testing.assert_allclose(s.pi, expected / expected.sum())
    assert s.partitions["length"].tolist()[0] == len("".join(root.itertext()))


def test_table2_printed_matrix_normalisation():
    """ERRATA SR 4: Table 2 is consistent with eq. 8, total 904 (p*|c, lengths).

    The matrix itself cannot be recomputed from the paper: Fig. 2's lengths
    are not in its text, and its 9 partitions (S1 without any edge) are not
    the 8 that DESIGN's p*|c gives for this tree (test_other_axpres_on_fig2).
    """
    edges = [(1, 2, 4), (1, 4, 7), (2, 3, 133), (4, 5, 14), (4, 6, 73), (7, 8, 221)]
    src, dst, w = zip(*edges, strict=True)
    pi = symmetric_pi(src, dst, w, 9)
    assert 2 * sum(w) == 904
    np.testing.assert_allclose(pi * 904, [0, 11, 137, 133, 94, 14, 73, 221, 221])
    printed = [0.00, 0.01, 0.15, 0.15, 0.10, 0.02, 0.08, 0.24, 0.24]
    np.testing.assert_allclose(pi, printed, atol=0.006)


# ------------------------------------------------------- random forests
@pytest.mark.parametrize("seed", range(25))
def test_partitions_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    docs = [random_tree(rng, int(rng.integers(1, 14)), "abc"[: 1 + seed % 3])
            for _ in range(int(rng.integers(1, 5)))]
    table = forest_table(docs, pages=seed % 2)
    for axpre in AXPRES:
        s = build_summary(table, axpre)
        m = np.asarray(s.membership)
        brute = brute_force_classes(table, axpre)
        rows = sorted(brute)
        assert (m[[r for r in range(len(table)) if r not in brute]] == -1).all()
        for a, b in itertools.combinations(rows, 2):
            assert (m[a] == m[b]) == (brute[a] == brute[b]), (axpre, a, b)
        firsts = [int(np.flatnonzero(m == i)[0]) for i in range(len(s))]
        assert firsts == sorted(firsts)  # S1, S2, ... in document order
        assert set(m[rows].tolist()) == set(range(len(s)))


@pytest.mark.parametrize("seed", range(10))
def test_edges_and_weights_match_brute_force(seed):
    rng = np.random.default_rng(100 + seed)
    docs = [random_tree(rng, int(rng.integers(2, 12)), "ab") for _ in range(3)]
    n = sum(len(t) for t, _ in docs)
    lengths = rng.integers(0, 50, size=n).astype(float)
    table = forest_table(docs, lengths=lengths)
    parent = table.columns["parent"]
    for axpre in ("p*", "c*", "label"):
        s = build_summary(table, axpre, weight="extent")
        m = np.asarray(s.membership)
        count: dict[tuple[int, int], int] = {}
        length: dict[tuple[int, int], float] = {}
        pairs: dict[tuple[int, int], int] = {}
        for r in range(n):
            p = int(parent[r])
            if p >= 0:
                key = (int(m[p]), int(m[r]))
                count[key] = count.get(key, 0) + 1
                length[key] = length.get(key, 0.0) + lengths[r]
            while p >= 0:
                key = (int(m[p]), int(m[r]))
                pairs[key] = pairs.get(key, 0) + 1
                p = int(parent[p])
        got = {(int(a), int(b)): (int(c), float(x)) for a, b, c, x in
               s.edges[["src", "dst", "count", "length"]].itertuples(index=False)}
        assert got == {k: (count[k], length[k]) for k in count}
        got_w = {(int(a), int(b)): float(w) for a, b, w in
                 s.weights[["src", "dst", "w"]].itertuples(index=False)}
        assert got_w == {k: float(v) for k, v in pairs.items()}
        np.testing.assert_allclose(s.partitions["length"],
                                   np.bincount(m, weights=lengths, minlength=len(s)))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), weight=st.sampled_from(["count", "length", "extent"]),
       axpre=st.sampled_from(AXPRES))
def test_pi_is_a_distribution(seed, weight, axpre):
    rng = np.random.default_rng(seed)
    docs = [random_tree(rng, int(rng.integers(2, 20)), "abcd") for _ in range(2)]
    n = sum(len(t) for t, _ in docs)
    table = forest_table(docs, lengths=rng.integers(1, 9, size=n).astype(float))
    pi = build_summary(table, axpre, weight).pi
    assert (pi >= 0).all()
    assert pi.sum() == pytest.approx(1.0)


def test_single_element_documents_have_zero_pi():
    table = forest_table([(["a"], [-1]), (["a"], [-1])])
    s = build_summary(table, "p*")
    assert extents(s) == [{1, 2}]
    assert s.pi.tolist() == [0.0]


def test_deep_chain():
    # a chain of 300 'a' elements: c* separates every height, label does not
    table = UnitTable.from_tree("d", ["a"] * 300, [-1, *range(299)])
    assert len(build_summary(table, "c*")) == 300
    assert len(build_summary(table, "label")) == 1
    assert len(build_summary(table, "p*")) == 300


# ------------------------------------------------------------ weights files
def test_symmetric_weights_file_equals_eq8(write):
    s = build_summary(book_table(), "p*", weight="count")
    lines = [f"S{a + 1}\tS{b + 1}\t{c}\nS{b + 1} S{a + 1} {c}\n"
             for a, b, c in s.edges[["src", "dst", "count"]].itertuples(index=False)]
    path = write("w.txt", "# both ways\n" + "".join(lines))
    f = build_summary(book_table(), "p*", weight=str(path))
    np.testing.assert_allclose(f.pi, s.pi)
    assert f.weight == str(path)


def test_directed_walk_by_hand(write):
    # S1 -> S2 (1), S2 -> S1 (3), S2 -> S3 (1), S3 -> S2 (1): solve π P = π by hand:
    # P = [[0,1,0],[3/4,0,1/4],[0,1,0]]: π1 = 3/4 π2, π3 = 1/4 π2 -> π = (3, 4, 1)/8
    path = write("w.txt", "S1 S2 1\nS2 S1 3\nS2 S3 1\nS3 S2 1\n")
    table = UnitTable.from_tree("d", ["a", "b", "c"], [-1, 0, 1])
    np.testing.assert_allclose(build_summary(table, "p*", str(path)).pi, [3 / 8, 4 / 8, 1 / 8])
    # a transient partition gets 0: S1 -> S2 only
    path = write("t.txt", "S1 S2 5\nS2 S3 1\nS3 S2 1\n")
    np.testing.assert_allclose(build_summary(table, "p*", str(path)).pi, [0, 0.5, 0.5])


def test_walk_errors(write):
    table = UnitTable.from_tree("d", ["a", "b", "c", "d"], [-1, 0, 1, 0])
    with pytest.raises(UsageError, match="absorbing"):
        build_summary(table, "p*", str(write("a.txt", "S1 S2 1\n")))
    with pytest.raises(UsageError, match="2 closed classes"):
        build_summary(table, "p*", str(write("b.txt", "S1 S2 1\nS2 S1 1\nS3 S4 1\nS4 S3 1\n")))
    with pytest.raises(InputError, match=r"c\.txt:2: unknown partition 'S9'"):
        build_summary(table, "p*", str(write("c.txt", "S1 S2 1\nS9 S1 1\n")))
    with pytest.raises(InputError, match=r"d\.txt:1: expected 3 fields"):
        build_summary(table, "p*", str(write("d.txt", "S1 S2\n")))
    with pytest.raises(InputError, match=r"e\.txt:1: weight '-1'"):
        build_summary(table, "p*", str(write("e.txt", "S1 S2 -1\n")))
    with pytest.raises(UsageError, match="unknown summary weight"):
        build_summary(table, "p*", "no-such-weight")
    with pytest.raises(UsageError, match="unknown AxPRE"):
        build_summary(table, "p+")


def test_walk_pi_reversible_equals_eq8():
    iu = np.nonzero(np.triu(TABLE1))
    src, dst = np.nonzero(TABLE1)
    np.testing.assert_allclose(walk_pi(src, dst, TABLE1[src, dst], 7),
                               symmetric_pi(iu[0], iu[1], TABLE1[iu], 7))


# ------------------------------------------------------------------ storage
def test_save_load_round_trip(tmp_path):
    s = build_summary(book_table(), "p*|c", weight="extent")
    back = Summary.from_arrays(*s.to_arrays())
    assert back.axpre == "p*|c" and back.weight == "extent"
    np.testing.assert_array_equal(back.membership, s.membership)
    np.testing.assert_array_equal(back.pi, s.pi)
    assert back.partitions.equals(s.partitions)
    assert back.edges.equals(s.edges)
    assert back.weights.equals(s.weights)
    assert back.partition_of(16) == "S8"
    assert back.reweighted("count").pi.sum() == pytest.approx(1.0)


def test_local_store_book_matches_fig2(tmp_path):
    from graphprum.store.local import LocalStore

    store = LocalStore(tmp_path / "store")
    load_xml(store, [BOOK])
    s = build_summary(store.table(), "p*")
    assert extents(s) == PSTAR_EXTENTS
    store.save_summary("p*", *s.to_arrays())
    from graphprum.describe import describe_unit

    uid = store.table().ids([6])[0]
    assert describe_unit(store, uid)["partitions"] == {"p*": "S3"}


def test_a_summary_the_shell_expanded_says_to_quote_it(tmp_path, monkeypatch):
    """``summary build p*`` unquoted becomes a file's name: the error says so."""
    from graphprum.summaries.axpre import normalise_axpre

    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("")
    with pytest.raises(UsageError, match=r"'pyproject.toml' \(a file of this directory: did "
                                         r"the shell expand a '\*'\? quote the summary: 'p\*'\)"):
        normalise_axpre("pyproject.toml")
    with pytest.raises(UsageError) as err:
        normalise_axpre("p+")
    assert "shell" not in str(err.value)
