"""The embedded store's link-list load: pages numbered by first appearance,
links as rows, the link graph's reverse side (issue 38's faster load keeps
what the plain computations below give)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from graphprum.store.local import LocalStore
from graphprum.store.local.links import _by_arrival, _by_row, _offsets
from graphprum.units import Names


def _stored(store: LocalStore) -> tuple[list[str], list[tuple[str, str]]]:
    table = store.table()
    names = list(table.docs["name"])
    src, dst = (np.asarray(a).tolist() for a in store.link_rows())
    first = np.asarray(table.docs["first"]).tolist()
    name_of = dict(zip(first, names, strict=True))
    return names, [(name_of[s], name_of[d]) for s, d in zip(src, dst, strict=True)]


def test_pages_in_order_of_first_appearance_from_before_to(tmp_path) -> None:
    import pyarrow as pa

    chunks = [(["c", "a"], ["d", "c"]), (["b"], ["a"]), (["e", "e"], ["b", "f"])]
    store = LocalStore(tmp_path / "s")
    # the second chunk as the CSV reader hands it over: a chunked array of slices
    given_chunks = [(chunks[0][0], chunks[0][1]),
                    (Names(pa.chunked_array([pa.array(["x", "b"])[1:]])),
                     Names(pa.chunked_array([pa.array([], pa.string()), pa.array(["a"])]))),
                    chunks[2]]
    store.load_documents([], link_pairs=given_chunks, description={"kind": "links"})
    order = list(dict.fromkeys(n for froms, tos in chunks for n in [*froms, *tos]))
    names, links = _stored(store)
    assert names == order == ["c", "a", "d", "b", "e", "f"]
    pairs = [p for froms, tos in chunks for p in zip(froms, tos, strict=True)]
    # stored by holding row, stably: in load order within a page
    assert links == sorted(pairs, key=lambda p: order.index(p[0]))


def test_a_second_list_keeps_the_stored_pages_rows(tmp_path) -> None:
    store = LocalStore(tmp_path / "s")
    store.load_documents([], link_pairs=[(["a", "b"], ["b", "c"])],
                         description={"kind": "links"})
    store.load_documents([], link_pairs=[(["d", "c"], ["a", "e"]), (["e"], ["b"])],
                         description={"kind": "links"})
    names, links = _stored(store)
    assert names == ["a", "b", "c", "d", "e"]
    assert links == [("a", "b"), ("b", "c"), ("c", "e"), ("d", "a"), ("e", "b")]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=200))
def test_the_reverse_side_is_a_stable_sort_by_arrival(pairs: list[tuple[int, int]]) -> None:
    src = np.array(sorted(s for s, _ in pairs), np.int32)
    dst = np.array([d for _, d in pairs], np.int32)
    expected = src[np.argsort(dst, kind="stable")]
    ptr, got = _by_arrival([src.copy(), dst.copy()], 45)
    assert got.dtype == np.int32 and got.tolist() == expected.tolist()
    counts = np.bincount(dst, minlength=45)
    assert ptr.dtype == np.int32 and ptr.tolist() == [0, *np.cumsum(counts).tolist()]
    out_ptr = _offsets(src, 45)
    assert out_ptr.tolist() == [0, *np.cumsum(np.bincount(src, minlength=45)).tolist()]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(-1, 40)), min_size=2, max_size=200))
def test_links_by_holding_row_keep_their_order(pairs: list[tuple[int, int]]) -> None:
    src = np.array([s for s, _ in pairs], np.int32)
    dst = np.array([d for _, d in pairs], np.int32)
    order = np.argsort(src, kind="stable")
    new_src, new_dst, rank = _by_row([src.copy(), dst.copy()], True)
    assert new_src.tolist() == src[order].tolist() and new_dst.tolist() == dst[order].tolist()
    assert rank is not None and (rank[order] == np.arange(len(src))).all()
