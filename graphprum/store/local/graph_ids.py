"""The ids of a generation's units, made for the graph's build (each
Unit node holds its id, ``uid``): :func:`unit_ids` vectorised over whole
documents, :func:`document_chunks` to cut rows into whole documents.
"""

from __future__ import annotations

import numpy as np

from graphprum.units import KIND_PAGE, KIND_SEGMENT, KIND_VIDEO, UnitTable


def unit_ids(table: UnitTable, lo: int = 0, hi: int | None = None) -> np.ndarray:
    """Every row's id (rows ``lo`` to ``hi``, whole documents), as an object array.

    Vectorised: an element's XPath is its parent's plus its step
    ``/tag[pos]``, built one depth level at a time (one string concatenation
    per row, in numpy's object loops); the per-row walk in document order
    (:func:`_unit_ids_walk`) serves tables whose depths do not follow their
    parents.

    >>> t = UnitTable.from_tree("d", ["a", "b", "b"], [-1, 0, 0])
    >>> unit_ids(t).tolist()
    ['d#/a[1]', 'd#/a[1]/b[1]', 'd#/a[1]/b[2]']
    >>> unit_ids(t, 1, 3).tolist() == _unit_ids_walk(t)[1:3].tolist()
    True
    """
    n = len(table)
    hi = n if hi is None else hi
    m = hi - lo
    if m <= 0:
        return np.zeros(0, dtype=object)
    cols = table.columns
    kind = np.asarray(cols["kind"][lo:hi])
    doc = np.asarray(cols["doc"][lo:hi]).astype(np.int64)
    # the documents of the range only (they are in row order): a build calls
    # this once per piece of rows, and a collection may hold millions of them
    d_lo, d_hi = int(doc.min()), int(doc.max()) + 1
    doc = doc - d_lo
    names = np.asarray(table.docs["name"][d_lo:d_hi], dtype=object)
    out = names[doc]  # pages and videos: their name
    segment = np.flatnonzero(kind == KIND_SEGMENT)
    if len(segment):
        index = segment + lo - np.asarray(table.docs["first"][d_lo:d_hi],
                                          dtype=np.int64)[doc[segment]]
        out[segment] = out[segment] + np.asarray([f"#{i}" for i in index.tolist()], dtype=object)
    element = np.flatnonzero((kind != KIND_PAGE) & (kind != KIND_VIDEO) & (kind != KIND_SEGMENT))
    if not len(element):
        return out
    parent = np.asarray(cols["parent"][lo:hi]).astype(np.int64)[element] - lo
    depth = np.asarray(cols["depth"][lo:hi]).astype(np.int64)[element]
    # row -> index among the elements, to find a parent's XPath
    where = np.full(m, -1, dtype=np.int64)
    where[element] = np.arange(len(element))
    has_parent = parent >= 0
    parent_el = np.where(has_parent, where[np.clip(parent, 0, m - 1)], -1)
    if not (np.array_equal(has_parent, depth > 0) and
            (parent[has_parent] < element[has_parent]).all() and
            (parent_el[has_parent] >= 0).all() and
            (depth[parent_el[has_parent]] == depth[has_parent] - 1).all()):
        return _unit_ids_walk(table, lo, hi)
    # the step /tag[pos] of every element, built once per distinct (tag, pos)
    tag = np.asarray(cols["tag"][lo:hi]).astype(np.int64)[element]
    pos = np.asarray(cols["pos"][lo:hi]).astype(np.int64)[element]
    span = int(pos.max()) + 1
    keys, inverse = np.unique(tag * span + pos, return_inverse=True)
    tags = table.tags
    steps = np.asarray([f"/{tags[k // span]}[{k % span}]" for k in keys.tolist()],
                       dtype=object)[inverse.reshape(-1)]
    # ids level by level: a root's is its document's name, '#' and its step
    ids = np.empty(len(element), dtype=object)
    order = np.argsort(depth, kind="stable")
    bounds = np.searchsorted(depth[order], np.arange(int(depth.max()) + 2))
    prefix = np.asarray([f"{name}#" for name in names.tolist()], dtype=object)
    for level in range(len(bounds) - 1):
        rows = order[bounds[level]:bounds[level + 1]]
        above = prefix[doc[element[rows]]] if level == 0 else ids[parent_el[rows]]
        ids[rows] = above + steps[rows]
    out[element] = ids
    return out


def _unit_ids_walk(table: UnitTable, lo: int = 0, hi: int | None = None) -> np.ndarray:
    """The ids of rows ``lo`` to ``hi``, in one pass over them (parents come
    first); from row 0 when a parent lies before ``lo`` (not whole documents).

    >>> t = UnitTable.from_tree("d", ["a", "b", "b"], [-1, 0, 0])
    >>> _unit_ids_walk(t, 1, 3).tolist()
    ['d#/a[1]/b[1]', 'd#/a[1]/b[2]']
    """
    n = len(table)
    hi = n if hi is None else hi
    cols = table.columns
    sl = slice(lo, hi)
    parents = np.asarray(cols["parent"][sl]).astype(np.int64)
    if lo and ((parents >= 0) & (parents < lo)).any():
        return _unit_ids_walk(table, 0, hi)[lo:]
    m = hi - lo
    tag = np.asarray(table.tags, dtype=object)[np.asarray(cols["tag"][sl])] if m > 0 else []
    pos = np.asarray(cols["pos"][sl]).tolist()
    parent = np.where(parents >= 0, parents - lo, -1).tolist()
    kind = np.asarray(cols["kind"][sl]).tolist()
    first = table.docs["first"]
    names = table.docs["name"].tolist()
    out: list[str] = [""] * m
    xp: list[str] = [""] * m
    docs = np.asarray(cols["doc"][sl]).tolist()
    for r in range(m):
        k = kind[r]
        name = names[docs[r]]
        if k in (KIND_PAGE, KIND_VIDEO):
            out[r] = name
        elif k == KIND_SEGMENT:
            out[r] = f"{name}#{lo + r - int(first[docs[r]])}"
        else:
            p = parent[r]
            xp[r] = (xp[p] if p >= 0 else "") + f"/{tag[r]}[{pos[r]}]"
            out[r] = f"{name}#{xp[r]}"
    return np.asarray(out, dtype=object)


def document_chunks(first: np.ndarray, n: int, size: int) -> list[tuple[int, int]]:
    """Row ranges of at most ``size`` rows that start and end at documents
    (a longer document is a range of its own).

    >>> document_chunks(np.array([0, 3, 5, 9]), 12, 4)
    [(0, 3), (3, 5), (5, 9), (9, 12)]
    >>> document_chunks(np.array([0, 3]), 5, 100)
    [(0, 5)]
    """
    first = np.append(np.asarray(first, dtype=np.int64), n)
    out = []
    lo = 0
    while lo < n:
        k = int(np.searchsorted(first, lo + size, side="right")) - 1
        hi = int(first[k])
        if hi <= lo:  # one document longer than size
            hi = int(first[np.searchsorted(first, lo, side="right")])
        out.append((lo, hi))
        lo = hi
    return out
