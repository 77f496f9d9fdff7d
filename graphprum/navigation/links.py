"""The ``links[:beta=B,hops=K]`` navigation model (DESIGN §1.5).

A user at unit x follows one of x's out-links uniformly, multiplicity
counted, with total probability B (and stops with probability 1 − B, or
always at a unit without out-links): the one-step transitions are

    T[x, z] = B · (links x → z) / (out-links of x).

P(x → y) is the probability that this walk, started at x, reaches y within
K steps (the hitting probability, PRUM §2.3 and Fig. 2: the walk may pass
through other units, y ends it).  This is the a-priori web model PRUM §1
describes ("follow a hyperlink with a probability inversely proportional to
the total number of hyperlinks in the document").  Defaults: B = 1, K = 1,
so P(x → y) = (links x → y) / (out-links of x).  ``hops=inf`` lets walks be
of any length.

Only the part of the link graph that can reach a target in at most K steps
matters: every unit a K-step walk from x to y visits lies within K hops
backwards of y.  The model finds that neighbourhood by a breadth-first search
over the reversed graph (compressed sparse rows built once per store), builds
T on it alone and hands it to
:func:`graphprum.navigation.hitting.hitting_probabilities`.  Links leaving the
neighbourhood still count in the out-degree (they are where the walk's
remaining probability goes).

With pages loaded with ``--elements`` a link leaves from its ``<a>`` element
and ends at the target page's root element; the out-links of an element x
are the links whose source row is x (links held by x's descendants are not
x's).  Moving inside a page is the business of the structural model, which
``--nav`` combines with this one by noisy-or.

Examples
--------
>>> import pandas as pd
>>> class Store:  # pages 0..2: 0 → 1 twice, 0 → 2 once, 1 → 2
...     def resolve(self, ids): return np.array([int(i) for i in ids])
...     def links(self): return pd.DataFrame({"src": [0, 0, 0, 1], "dst": [1, 1, 2, 2]})
>>> class Ctx: store = Store()
>>> LinksModel("links").matrix(["0"], ["1", "2"], Ctx()).toarray().round(4).tolist()
[[0.6667, 0.3333]]
>>> m = LinksModel("links:hops=2,beta=0.5", beta=0.5, hops=2)
>>> m.matrix(["0"], ["2"], Ctx()).toarray().round(4).tolist()  # .5·1/3 + .5·2/3 · .5
[[0.3333]]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from graphprum.errors import UsageError
from graphprum.navigation.base import parse_hops, parse_options, register_model

if TYPE_CHECKING:
    from graphprum.context import TopicContext


def _concat_ranges(lo: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(lo[i], lo[i] + counts[i])`` over i, without a loop.

    >>> _concat_ranges(np.array([5, 0, 2]), np.array([2, 0, 3])).tolist()
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
    return _concat_ranges(lo, indptr[nodes + 1] - lo)


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




class LinksModel:
    """P(x → y): hitting probability of y from x within K link steps (module notes).

    Parameters
    ----------
    spec : str
        The ``--nav`` spec it was built from.
    beta : float
        B in [0, 1], the probability of following some link at each step.
    hops : int or None
        K ≥ 1, the longest walk; None for any length.
    """

    needs_store = True

    def __init__(self, spec: str, beta: float = 1.0, hops: int | None = 1) -> None:
        if not (0.0 <= beta <= 1.0) or math.isnan(beta):
            raise UsageError(f"--nav {spec!r}: beta must be in [0, 1], got {beta}")
        if hops is not None and hops < 1:
            raise UsageError(f"--nav {spec!r}: hops must be >= 1 or inf, got {hops}")
        self.spec = spec
        self.beta = float(beta)
        self.hops = hops
        self._cache: tuple[Any, Any, LinkGraph] | None = None

    def graph(self, store: Any) -> LinkGraph:
        """The store's link graph, built once per store (and per links table)."""
        links = store.links()
        if self._cache is not None and self._cache[0] is store and self._cache[1] is links:
            return self._cache[2]
        graph = LinkGraph.build(links["src"].to_numpy(), links["dst"].to_numpy())
        self._cache = (store, links, graph)
        return graph

    def matrix(self, sources: Sequence[str], targets: Sequence[str],
               ctx: TopicContext | None) -> sp.csr_array:
        """P(sources[i] → targets[j]) as a sparse array; 1 where they are one unit."""
        from graphprum.navigation.hitting import hitting_probabilities

        shape = (len(sources), len(targets))
        store = getattr(ctx, "store", None)
        if store is None:
            raise UsageError(f"--nav {self.spec}: the links model needs a store (--store)")
        if not len(sources) or not len(targets):
            return sp.csr_array(shape)
        src = np.asarray(store.resolve(list(sources)), dtype=np.int64)
        tgt = np.asarray(store.resolve(list(targets)), dtype=np.int64)
        graph = self.graph(store)
        known_t = tgt[tgt >= 0]
        nodes = graph.backward(known_t, self.hops) if len(known_t) else known_t
        # sources and targets as indices into the neighbourhood (-1 outside it)
        si = _index_in(nodes, src)
        ti = _index_in(nodes, tgt)
        rows_in = np.flatnonzero(si >= 0)
        cols_in = np.flatnonzero(ti >= 0)
        if len(rows_in) and len(cols_in) and self.beta > 0:
            usrc, sinv = np.unique(si[rows_in], return_inverse=True)
            utgt, tinv = np.unique(ti[cols_in], return_inverse=True)
            t_sub = graph.transitions(nodes, self.beta)
            h = sp.csr_array(hitting_probabilities(t_sub, usrc, utgt, self.hops))
            pick_r = sp.csr_array((np.ones(len(rows_in)), (rows_in, sinv)),
                                  shape=(shape[0], len(usrc)))
            pick_c = sp.csr_array((np.ones(len(cols_in)), (tinv, cols_in)),
                                  shape=(len(utgt), shape[1]))
            out = sp.csr_array(pick_r @ h @ pick_c)
        else:
            out = sp.csr_array(shape)
        same = _same_rows(src, tgt)
        if same.nnz:
            out = sp.csr_array(out.maximum(same))
        out.eliminate_zeros()
        return out


def _index_in(nodes: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Index of every row in sorted ``nodes``, -1 where absent (or row < 0)."""
    if len(nodes) == 0:
        return np.full(len(rows), -1, dtype=np.int64)
    j = np.searchsorted(nodes, rows)
    j[j >= len(nodes)] = 0
    return np.where((nodes[j] == rows) & (rows >= 0), j, -1)


def _same_rows(src: np.ndarray, tgt: np.ndarray) -> sp.csr_array:
    """Indicator of pairs (i, j) with src[i] == tgt[j] >= 0."""
    order = np.argsort(tgt, kind="stable")
    st = tgt[order]
    lo = np.searchsorted(st, src, side="left")
    counts = np.where(src >= 0, np.searchsorted(st, src, side="right") - lo, 0)
    rows = np.repeat(np.arange(len(src)), counts)
    cols = order[_concat_ranges(lo, counts)]
    return sp.csr_array((np.ones(len(rows)), (rows, cols)), shape=(len(src), len(tgt)))


def _factory(args: str) -> LinksModel:
    spec = "links" + (f":{args}" if args else "")
    opts = parse_options(spec, args, {"beta": float, "hops": parse_hops})
    return LinksModel(spec, beta=float(opts.get("beta", 1.0)),  # type: ignore[arg-type]
                      hops=opts.get("hops", 1))  # type: ignore[arg-type]


register_model("links", _factory)
