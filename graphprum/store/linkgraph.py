"""The LINK edges of a store as compressed sparse rows, and the part of them
a walk of at most K steps into some targets can use.

Every unit a K-step walk from x to y visits lies within K hops backwards of
y, so :meth:`LinkGraph.walk` finds that neighbourhood by a breadth-first
search over the reversed graph and builds the one-step transitions on it
alone; links leaving the neighbourhood still count in the out-degree.
Stores whose collection is at hand as rows (embedded, memory) answer
``link_walk`` with it; the Bolt store asks its server for the same
neighbourhood.

Examples
--------
>>> g = LinkGraph.build(np.array([0, 0, 0, 1]), np.array([1, 1, 2, 2]))
>>> w = g.walk(np.array([0]), np.array([1, 2]), hops=1)
>>> w.sources.tolist(), w.targets.tolist()
([0], [1, 2])
>>> w.transitions.toarray().round(4).tolist()
[[0.0, 0.6667, 0.3333], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from graphprum.floats import readable
from graphprum.store.base import LinkWalk


def concat_ranges(lo: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(lo[i], lo[i] + counts[i])`` over i, without a loop.

    >>> concat_ranges(np.array([5, 0, 2]), np.array([2, 0, 3])).tolist()
    [5, 6, 2, 3, 4]
    """
    keep = counts > 0
    lo, counts = lo[keep].astype(np.int64), counts[keep].astype(np.int64)
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    # steps of +1 inside a run; at a run's head, the jump from the last item before it
    steps = np.ones(total, dtype=np.int64)
    heads = np.cumsum(counts)[:-1]
    steps[0] = lo[0]
    steps[heads] = lo[1:] - (lo[:-1] + counts[:-1] - 1)
    return np.cumsum(steps)


def _ranges(indptr: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(indptr[v], indptr[v+1])`` for every v in ``nodes``."""
    lo = indptr[nodes]
    return concat_ranges(lo, indptr[nodes + 1] - lo)


@dataclass
class LinkGraph:
    """The LINK edges of a store as forward and backward compressed rows.

    Attributes
    ----------
    n : int
        Number of rows covered (one more than the largest row in a link).
    out_degree : numpy.ndarray
        Links leaving every row (multiplicity counted).
    fwd_ptr, fwd_dst : numpy.ndarray
        Targets of row v's links are ``fwd_dst[fwd_ptr[v]:fwd_ptr[v+1]]``.
    bwd_ptr, bwd_src : numpy.ndarray
        Sources of links into row v are ``bwd_src[bwd_ptr[v]:bwd_ptr[v+1]]``.

    Examples
    --------
    >>> g = LinkGraph.build(np.array([0, 0, 2]), np.array([1, 2, 1]))
    >>> g.out_degree.tolist(), g.predecessors(np.array([1])).tolist()
    ([2, 0, 1], [0, 2])
    """

    n: int
    out_degree: np.ndarray
    fwd_ptr: np.ndarray
    fwd_dst: np.ndarray
    bwd_ptr: np.ndarray
    bwd_src: np.ndarray

    @classmethod
    def build(cls, src: np.ndarray, dst: np.ndarray) -> LinkGraph:
        """From parallel arrays of global rows (one item per link)."""
        src = np.asarray(src, dtype=np.int64)
        dst = np.asarray(dst, dtype=np.int64)
        n = int(max(src.max(initial=-1), dst.max(initial=-1))) + 1
        small = np.int32 if n < 2**31 else np.int64
        out_degree = np.bincount(src, minlength=n)
        fwd_ptr = np.concatenate(([0], np.cumsum(out_degree)))
        if len(src) > 1 and not np.all(src[1:] >= src[:-1]):
            order = np.argsort(src, kind="stable")
            fwd_dst = dst[order].astype(small)
        else:
            fwd_dst = dst.astype(small)
        in_degree = np.bincount(dst, minlength=n)
        bwd_ptr = np.concatenate(([0], np.cumsum(in_degree)))
        bwd_src = src[np.argsort(dst, kind="stable")].astype(small)
        return cls(n, out_degree, fwd_ptr, fwd_dst, bwd_ptr, bwd_src)

    def predecessors(self, nodes: np.ndarray) -> np.ndarray:
        """Sources of all links into ``nodes`` (with repeats; rows >= n have none)."""
        nodes = nodes[nodes < self.n]
        return self.bwd_src[_ranges(self.bwd_ptr, nodes)]

    def backward(self, targets: np.ndarray, hops: int | None) -> np.ndarray:
        """Sorted rows from which a target is reachable in at most ``hops`` links."""
        seen = np.unique(targets)
        frontier = seen
        k = 0
        while len(frontier) and (hops is None or k < hops):
            pred = np.unique(self.predecessors(frontier))
            frontier = np.setdiff1d(pred, seen, assume_unique=True)
            seen = np.union1d(seen, frontier)
            k += 1
        return seen

    def transitions(self, nodes: np.ndarray, beta: float) -> sp.csr_array:
        """T restricted to sorted ``nodes``: B · links(x→z) / out-links(x), summed."""
        m = len(nodes)
        inside = nodes[nodes < self.n]
        pos = _ranges(self.fwd_ptr, inside)
        if len(pos) == 0:
            return sp.csr_array((m, m))
        src = np.repeat(inside, self.fwd_ptr[inside + 1] - self.fwd_ptr[inside])
        dst = self.fwd_dst[pos].astype(np.int64)
        j = np.searchsorted(nodes, dst)
        j[j == m] = 0
        keep = nodes[j] == dst
        i = np.searchsorted(nodes, src[keep])
        w = beta / self.out_degree[src[keep]]
        return sp.csr_array(sp.coo_array((w, (i, j[keep])), shape=(m, m)).tocsr())


    def walk(self, src: np.ndarray, tgt: np.ndarray, hops: int | None) -> LinkWalk:
        """The neighbourhood of walks of at most ``hops`` steps from rows
        ``src`` into rows ``tgt`` (rows < 0 are unknown units)."""
        src = np.asarray(src, dtype=np.int64)
        tgt = np.asarray(tgt, dtype=np.int64)
        known = tgt[tgt >= 0]
        nodes = self.backward(known, hops) if len(known) else known
        return LinkWalk(index_in(nodes, src), index_in(nodes, tgt), self.transitions(nodes, 1.0))


def index_in(nodes: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Index of every row in sorted ``nodes``, -1 where absent (or row < 0).

    >>> index_in(np.array([2, 5]), np.array([5, 3, -1])).tolist()
    [1, -1, -1]
    """
    rows = np.asarray(rows, dtype=np.int64)
    if len(nodes) == 0:
        return np.full(len(rows), -1, dtype=np.int64)
    j = np.searchsorted(nodes, rows)
    j[j >= len(nodes)] = 0
    return np.where((nodes[j] == rows) & (rows >= 0), j, -1)


def degree_summary(src: np.ndarray, dst: np.ndarray, n: int) -> dict[str, str]:
    """Out- and in-degree distribution of the units that have links."""
    if len(src) == 0:
        return {}
    out = {}
    for label, ends in (("out-degree", src), ("in-degree", dst)):
        deg = np.bincount(ends, minlength=n)
        has = deg[deg > 0]
        q = np.percentile(has, [50, 90, 99]).round(1)
        out[label] = (f"{len(has):,} units; mean {has.mean():.2f}, median {readable(q[0])}, "
                      f"p90 {readable(q[1])}, p99 {readable(q[2])}, max {int(has.max()):,}")
    return out
