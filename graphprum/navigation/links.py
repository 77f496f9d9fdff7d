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
backwards of y.  The store finds that neighbourhood (``store.link_walk``:
a breadth-first search over compressed rows in the embedded store, a graph
query on a Bolt server) with its one-step transitions; the model scales
them by B and hands them to
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
>>> from graphprum.store.linkgraph import LinkGraph
>>> class Store:  # pages 0..2: 0 → 1 twice, 0 → 2 once, 1 → 2
...     graph = LinkGraph.build(np.array([0, 0, 0, 1]), np.array([1, 1, 2, 2]))
...     def link_walk(self, sources, targets, hops):
...         rows = lambda ids: np.array([int(i) for i in ids])
...         return self.graph.walk(rows(sources), rows(targets), hops)
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
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphprum.errors import UsageError
from graphprum.navigation.base import parse_hops, parse_options, register_model
from graphprum.store.linkgraph import concat_ranges

if TYPE_CHECKING:
    from graphprum.context import TopicContext


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
    browses = True

    def __init__(self, spec: str, beta: float = 1.0, hops: int | None = 1) -> None:
        if not (0.0 <= beta <= 1.0) or math.isnan(beta):
            raise UsageError(f"--nav {spec!r}: beta must be in [0, 1], got {beta}")
        if hops is not None and hops < 1:
            raise UsageError(f"--nav {spec!r}: hops must be >= 1 or inf, got {hops}")
        self.spec = spec
        self.beta = float(beta)
        self.hops = hops

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
        walk = store.link_walk(list(sources), list(targets), self.hops)
        si, ti = walk.sources, walk.targets
        rows_in = np.flatnonzero(si >= 0)
        cols_in = np.flatnonzero(ti >= 0)
        if len(rows_in) and len(cols_in) and self.beta > 0:
            usrc, sinv = np.unique(si[rows_in], return_inverse=True)
            utgt, tinv = np.unique(ti[cols_in], return_inverse=True)
            t_sub = walk.transitions * self.beta
            h = sp.csr_array(hitting_probabilities(t_sub, usrc, utgt, self.hops))
            pick_r = sp.csr_array((np.ones(len(rows_in)), (rows_in, sinv)),
                                  shape=(shape[0], len(usrc)))
            pick_c = sp.csr_array((np.ones(len(cols_in)), (tinv, cols_in)),
                                  shape=(len(utgt), shape[1]))
            out = sp.csr_array(pick_r @ h @ pick_c)
        else:
            out = sp.csr_array(shape)
        same = _same_rows(si, ti)
        if same.nnz:
            out = sp.csr_array(out.maximum(same))
        out.eliminate_zeros()
        return out


def _same_rows(src: np.ndarray, tgt: np.ndarray) -> sp.csr_array:
    """Indicator of pairs (i, j) with src[i] == tgt[j] >= 0."""
    order = np.argsort(tgt, kind="stable")
    st = tgt[order]
    lo = np.searchsorted(st, src, side="left")
    counts = np.where(src >= 0, np.searchsorted(st, src, side="right") - lo, 0)
    rows = np.repeat(np.arange(len(src)), counts)
    cols = order[concat_ranges(lo, counts)]
    return sp.csr_array((np.ones(len(rows)), (rows, cols)), shape=(len(src), len(tgt)))


def _factory(args: str) -> LinksModel:
    spec = "links" + (f":{args}" if args else "")
    opts = parse_options(spec, args, {"beta": float, "hops": parse_hops})
    return LinksModel(spec, beta=float(opts.get("beta", 1.0)),  # type: ignore[arg-type]
                      hops=opts.get("hops", 1))  # type: ignore[arg-type]


register_model("links", _factory)
