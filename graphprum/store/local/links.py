"""The embedded store's LINK edges: integer columns, written once per
generation with the link graph they make, and memory-mapped by readers.

Layout of a generation's ``links/`` directory::

    src.npy                 row holding every link (the element or page it is
                            in), ascending; the links of one row in load order
    dst.npy                 row it arrives at: the target document's root, or
                            the element its fragment names; -1 when the target
                            document is not stored (dangling)
    target_at.npy, target.{bin,npy}
                            the target as loaded (``doc`` or ``doc#fragment``)
                            of the links whose ``dst`` does not say it: the
                            dangling ones and those with a fragment
    anchor_at.npy, anchor.{bin,npy}
                            the anchor texts that are not empty
    out_ptr.npy, out_dst.npy
                            resolved links by holding row: rows ``[a, b)`` hold
                            the links into ``out_dst[out_ptr[a]:out_ptr[b]]``
    in_ptr.npy, in_src.npy  resolved links by arrival row

Rows are int32 when they fit.  Nothing here is decoded when a store is
opened: the evaluator reads the compressed rows through memory maps (forked
workers share their pages), and strings are read only for the links a user
looks at (``show``, ``copy``).

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> write_links(d, [np.array([2, 0, 0]), np.array([0, 3, -1])], 4,
...             Sparse(np.array([2]), ["gone"]), Sparse(np.array([0]), ["see"]))
>>> links = LinkColumns(d)
>>> links.src.tolist(), links.dst.tolist(), links.graph(4).out_ptr.tolist()
([0, 0, 2], [3, -1, 0], [0, 1, 1, 2, 2])
>>> links.anchors(), links.target_texts([1, 2], ["d0", "d1"], np.array([0, 0, 0, 1]))
(['', '', 'see'], ['gone', 'd0'])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from graphprum.store.linkgraph import LinkGraph, csr_offsets
from graphprum.store.local.strings import StringColumn, StringColumnWriter

LINKS = "links"


@dataclass
class Sparse:
    """Strings of some links: ``values[k]`` belongs to link ``at[k]`` (``at`` ascending)."""

    at: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    values: list[str] = field(default_factory=list)

    def dense(self, n: int) -> list[str]:
        """One string per link, ``""`` where none is kept.

        >>> Sparse(np.array([1]), ["x"]).dense(3)
        ['', 'x', '']
        """
        out = [""] * n
        for k, v in zip(self.at.tolist(), self.values, strict=True):
            out[k] = v
        return out

    def take(self, keep: np.ndarray) -> Sparse:
        """The strings of the links ``keep`` (sorted link numbers), renumbered.

        >>> s = Sparse(np.array([0, 2]), ["a", "c"]).take(np.array([1, 2]))
        >>> s.at.tolist(), s.values
        ([1], ['c'])
        """
        where = np.searchsorted(keep, self.at)
        where[where >= len(keep)] = 0
        mine = (keep[where] == self.at) if len(keep) else np.zeros(len(self.at), bool)
        return Sparse(where[mine], [v for v, m in zip(self.values, mine.tolist(), strict=True)
                                    if m])


def write_links(directory: Path, rows: list[np.ndarray], n_rows: int,
                targets: Sparse, anchors: Sparse) -> None:
    """Write the links and the link graph of their resolved part into
    ``directory``.  ``rows`` holds the holding and the arrival rows, in load
    order; they are taken from it (the list is emptied: ten million links
    are not held twice while they are sorted by holding row, stably)."""
    src, dst = rows.pop(0), rows.pop(0)
    if len(src) > 1 and not np.all(src[1:] >= src[:-1]):
        rows += [src, dst]
        del src, dst
        src, dst, rank = _by_row(rows, bool(len(targets.at) or len(anchors.at)))
        if rank is not None:
            targets, anchors = (_renumbered(s, rank) for s in (targets, anchors))
            del rank
    directory.mkdir(parents=True, exist_ok=True)
    _save(directory / "src.npy", src)
    _save(directory / "dst.npy", dst)
    for name, strings in (("target", targets), ("anchor", anchors)):
        _save(directory / f"{name}_at.npy", np.asarray(strings.at, dtype=np.int64))
        with StringColumnWriter(directory / name) as w:
            w.extend(strings.values)
    resolved = dst >= 0
    if not resolved.all():
        src, dst = src[resolved], dst[resolved]
    del resolved
    _save(directory / "out_ptr.npy", _offsets(src, n_rows))
    _save(directory / "out_dst.npy", dst)
    rows += [src, dst]
    del src, dst
    in_ptr, in_src = _by_arrival(rows, n_rows)
    _save(directory / "in_ptr.npy", in_ptr)
    _save(directory / "in_src.npy", in_src)


#: Links handled at a time when they are reordered (bounded temporaries).
_BLOCK = 1 << 20


def _by_row(rows: list[np.ndarray], ranks: bool
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``src`` and ``dst`` (taken from ``rows``) sorted by ``src``, stably,
    and (with ``ranks``) the new place of every link.

    One int64 key per link, row and place (``row << 34 | place``), sorted
    in place: ten million links need 80 MB beside the columns, where an
    ``argsort`` and the gathers need 120 MB.

    >>> s, d, r = _by_row([np.array([2, 0, 2, 1]), np.array([5, 6, 7, 8])], True)
    >>> s.tolist(), d.tolist(), r.tolist()
    ([0, 1, 2, 2], [6, 8, 5, 7], [2, 0, 3, 1])
    """
    src, dst = rows.pop(0), rows.pop(0)
    n = len(src)
    if n >= 1 << 34 or int(src.max()) >= 1 << 29:  # pragma: no cover - beyond the key
        order = np.argsort(src, kind="stable")
        places = np.empty(n, np.int64)
        places[order] = np.arange(n)
        return src[order], dst[order], places if ranks else None
    key = src.astype(np.int64)
    dtype = src.dtype
    del src
    key <<= 34
    for a in range(0, n, _BLOCK):
        key[a:a + _BLOCK] |= np.arange(a, min(a + _BLOCK, n), dtype=np.int64)
    key.sort()  # keys are distinct: no stable sort needed
    mask = (1 << 34) - 1
    new_dst = np.empty(n, dst.dtype)
    rank = np.empty(n, np.int64) if ranks else None
    for a in range(0, n, _BLOCK):
        k = key[a:a + _BLOCK]
        place = k & mask
        new_dst[a:a + len(k)] = dst[place]
        if rank is not None:
            rank[place] = np.arange(a, a + len(k))
    del dst  # freed before the holding rows are made: two of the three columns at a time
    new_src = np.empty(n, dtype)
    for a in range(0, n, _BLOCK):
        new_src[a:a + _BLOCK] = key[a:a + _BLOCK] >> 34
    return new_src, new_dst, rank


def _offsets(keys: np.ndarray, n: int, shift: int = 0) -> np.ndarray:
    """:func:`~graphprum.store.linkgraph.csr_offsets` of ascending ``keys``
    (row ``r`` of a key ``k`` is ``k >> shift``): where each row's keys
    begin, by binary search, without the 64-bit copy of the keys that
    counting them makes (80 MB at 10M links; the load's peak 15-24 MB lower,
    the same time).

    >>> _offsets(np.array([0, 0, 2], np.int32), 4).tolist()
    [0, 2, 2, 3, 3]
    """
    probes = np.arange(n + 1, dtype=keys.dtype) << shift  # keys' type: no copy of them
    dtype = np.int32 if len(keys) < 2**31 else np.int64
    return np.searchsorted(keys, probes).astype(dtype)


def _by_arrival(rows: list[np.ndarray], n: int) -> tuple[np.ndarray, np.ndarray]:
    """The link graph's reverse side: ``in_ptr`` (the offsets of each of the
    ``n`` rows) and ``in_src``, the holding rows ``src`` of the links sorted
    by their arrival row ``dst``, stably (``src[argsort(dst, kind="stable")]``),
    both taken from ``rows``.

    ``src`` ascends (the links are in holding order), so the stable order is
    that of the pairs (dst, src): one int64 key per link, ``dst << 32 | src``,
    sorted in place, whose low halves are ``in_src``; 0.5 s for ten million
    links where the stable argsort takes 1.1 s, and 40 MB less beside them.

    >>> ptr, src = _by_arrival([np.array([0, 0, 1, 2], np.int32),
    ...                         np.array([3, 1, 1, 0], np.int32)], 4)
    >>> ptr.tolist(), src.tolist()
    ([0, 1, 3, 3, 4], [2, 0, 1, 0])
    """
    src, dst = rows.pop(0), rows.pop(0)
    if src.dtype != np.int32 or dst.dtype != np.int32:  # pragma: no cover - beyond the key
        return csr_offsets(dst, n), np.asarray(src[np.argsort(dst, kind="stable")])
    key = dst.astype(np.int64)
    del dst
    key <<= 32
    key |= src  # src >= 0: resolved links only
    del src
    key.sort()
    low = 0 if np.little_endian else 1  # the int32 half of each key that holds src
    return _offsets(key, n, 32), np.ascontiguousarray(key.view(np.int32)[low::2])


def _renumbered(strings: Sparse, rank: np.ndarray) -> Sparse:
    """``strings`` after the links were reordered (link k is now ``rank[k]``)."""
    at = rank[strings.at]
    order = np.argsort(at, kind="stable")
    return Sparse(at[order], [strings.values[i] for i in order.tolist()])


def _save(path: Path, array: np.ndarray) -> None:
    with open(path, "wb") as f:
        np.save(f, np.ascontiguousarray(array), allow_pickle=False)


class LinkColumns:
    """The link columns of one generation, memory-mapped (module notes)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.src = np.load(directory / "src.npy", mmap_mode="r")
        self.dst = np.load(directory / "dst.npy", mmap_mode="r")
        if len(self.src) != len(self.dst):
            raise ValueError(f"{directory}: link columns of different lengths")

    def __len__(self) -> int:
        return len(self.src)

    def strings(self, name: str) -> Sparse:
        """The kept strings ``"target"`` (targets as loaded, of the dangling
        links and of those with a fragment) or ``"anchor"`` (anchor texts)."""
        at = np.load(self.directory / f"{name}_at.npy")
        values = StringColumn(self.directory / name).all()
        if len(values) != len(at):
            raise ValueError(f"{self.directory}: {name} strings of another length")
        return Sparse(at, values)

    def anchors(self) -> list[str]:
        """Every link's anchor text (``""`` for none)."""
        return self.strings("anchor").dense(len(self))

    def target_texts(self, links: Sequence[int] | np.ndarray, names: Sequence[str] | np.ndarray,
                     doc_of_row: np.ndarray) -> list[str]:
        """The target of each of ``links`` as loaded: its text when kept,
        else the name of the document it arrives in."""
        kept = self.strings("target")
        text = dict(zip(kept.at.tolist(), kept.values, strict=True))
        dst = np.asarray(self.dst)
        return [text[k] if k in text else names[int(doc_of_row[dst[k]])]
                for k in np.asarray(links, dtype=np.int64).tolist()]

    def graph(self, n_rows: int, size: np.ndarray | None = None,
              parent: np.ndarray | None = None) -> LinkGraph:
        """The link graph written beside the columns (memory-mapped)."""
        d = self.directory
        arrays = [np.load(d / f"{name}.npy", mmap_mode="r")
                  for name in ("out_ptr", "out_dst", "in_ptr", "in_src")]
        if len(arrays[0]) != n_rows + 1 or len(arrays[2]) != n_rows + 1:
            raise ValueError(f"{d}: link graph of {len(arrays[0]) - 1} rows, table of {n_rows}")
        out_ptr, out_dst, in_ptr, in_src = arrays
        return LinkGraph(n_rows, out_ptr, out_dst, in_ptr, in_src, size, parent)
