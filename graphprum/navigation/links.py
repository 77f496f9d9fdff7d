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

A unit's out-links are the links held in its subtree: a user reading an
XML section or a page's ``<div>`` sees every link in its text, and a
document's root (a page loaded with ``--elements``) holds all the page's
links; a page loaded as one unit holds its own.  A link arrives at the
target document's root, or at the element its fragment names
(``doc#id``).  On element collections the walk thus leaves from the
paragraph, section or page that holds a link, and arrives at the root of
the target (or the named element); moving inside the target is
:mod:`structural <graphprum.navigation.structural>`'s business:
``--nav structural --nav links`` adds, to the noisy-or of the two, the
user who follows links and then moves down into the unit they arrived
at (:func:`links_then_structural`).  The ``browse`` model walks over
both kinds of move at once.

Only the part of the collection a walk of at most K steps from the
sources into the targets can use matters; the store finds it
(``store.link_walk``: a few numpy calls per topic over compressed rows in
the embedded store, graph queries on a Bolt server) with its one-step
transitions; the model scales them by B and hands them to
:func:`graphprum.navigation.hitting.hitting_probabilities`.  Links
leaving the neighbourhood still count in the out-degree (they are where
the walk's remaining probability goes).

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
from graphprum.navigation.base import (
    NavigationModel,
    parse_hops,
    parse_options,
)
from graphprum.navigation.hitting import hitting_probabilities
from graphprum.navigation.structural import StructuralModel, structural_probabilities
from graphprum.store.linkgraph import concat_ranges

if TYPE_CHECKING:
    from graphprum.context import TopicContext
    from graphprum.store.base import LinkWalk, UnitView


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
        shape = (len(sources), len(targets))
        store = getattr(ctx, "store", None)
        if store is None:
            raise UsageError(f"--nav {self.spec}: the links model needs a store (--store)")
        if not len(sources) or not len(targets):
            return sp.csr_array(shape)
        walk = store_walk(ctx, sources, targets, self.hops)
        return walk_probabilities(walk, walk.transitions * self.beta, self.hops)


def store_walk(ctx: TopicContext | None, sources: Sequence[str], targets: Sequence[str],
               hops: int | None, structure: bool = False,
               also: np.ndarray | None = None) -> LinkWalk:
    """The store's walk (:meth:`~graphprum.store.base.Store.link_walk`) from
    ``sources`` into ``targets`` and, after them, the view rows ``also``: by
    rows when the topic's view has them as the store's (its ``walker``), by
    ids otherwise."""
    view: UnitView | None = getattr(ctx, "view", None)  # tests hand in bare contexts
    extra = np.zeros(0, np.int64) if also is None else np.asarray(also, dtype=np.int64)
    if view is not None and view.walker is not None:
        return view.walker(view.resolve(list(sources)),
                           np.concatenate([view.resolve(list(targets)), extra]), hops, structure)
    assert ctx is not None and ctx.store is not None
    more = view.table.ids(extra) if view is not None and len(extra) else []
    if structure:
        return ctx.store.link_walk(list(sources), [*targets, *more], hops, structure=True)
    return ctx.store.link_walk(list(sources), [*targets, *more], hops)


def walk_probabilities(walk: LinkWalk, transitions: sp.csr_array,
                       hops: int | None) -> sp.csr_array:
    """P(sources[i] → targets[j]) of a store's :class:`LinkWalk` under
    one-step ``transitions`` among its nodes: the hitting probability
    within ``hops`` steps, 1 where a source is its target."""
    si, ti = walk.sources, walk.targets
    shape = (len(si), len(ti))
    rows_in = np.flatnonzero(si >= 0)
    cols_in = np.flatnonzero(ti >= 0)
    if len(rows_in) and len(cols_in) and transitions.count_nonzero():
        usrc, sinv = np.unique(si[rows_in], return_inverse=True)
        utgt, tinv = np.unique(ti[cols_in], return_inverse=True)
        h = sp.csr_array(hitting_probabilities(transitions, usrc, utgt, hops))
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


def links_then_structural(links: NavigationModel, structural: NavigationModel,
                          sources: Sequence[str], targets: Sequence[str],
                          ctx: TopicContext | None) -> sp.csr_array:
    """The links walk when ``--nav structural`` is given too: the user who
    follows links from x to y, or who arrives at a unit a that contains the
    target y and moves from a to y as eq. 9 says,

        P(x → y) = 1 − (1 − L(x → y)) · Π_{a ⊃ y} (1 − L(x → a) · S(a → y)),

    a ranging over the units that contain a target (its ancestors: the
    target document's root, where most links arrive, and the elements a
    fragment may name).  Hypothesis 2.2 (independent navigation events)
    as for every noisy-or here; one walk gives L for the targets and the
    units above them.

    Examples
    --------
    Page q's root q0 holds a section q1 (length 4 of 10); the paragraph p1
    of page p links to q, which is all p1 holds:

    >>> from graphprum.store.memory import MemoryStore
    >>> from graphprum.units import ParsedDocument
    >>> def doc(name, links):
    ...     cols = {"parent": np.array([-1, 0]), "kind": np.zeros(2), "depth": np.array([0, 1]),
    ...             "post": np.array([1, 0]), "size": np.array([2, 1]), "pos": np.ones(2),
    ...             "start": np.zeros(2), "length": np.array([10.0, 4.0]), "words": np.ones(2)}
    ...     return ParsedDocument(name, name, 0, ["r", "s"], ["/r", "/r/s"], cols, links)
    >>> store = MemoryStore()
    >>> _ = store.load_documents([doc("p", [(1, "q", "")]), doc("q", [])])
    >>> from graphprum.context import TopicContext
    >>> models = [StructuralModel("structural"), LinksModel("links")]
    >>> ctx = TopicContext(topic="", ranked=["p#/r[1]/s[1]"], qrels={}, models=models,
    ...                    store=store)
    >>> ctx.nav(["p#/r[1]/s[1]"], ["q#/r[1]", "q#/r[1]/s[1]"]).toarray().tolist()
    [[1.0, 0.4]]
    """
    assert isinstance(structural, StructuralModel)
    shape = (len(sources), len(targets))
    if ctx is None or not shape[0] or not shape[1]:
        return links.matrix(sources, targets, ctx)
    table = ctx.table
    tgt = ctx.rows(list(targets))
    parent = table.columns["parent"]
    above = []
    up = np.unique(tgt[tgt >= 0])
    while len(up):
        up = np.asarray(parent[up], dtype=np.int64)
        up = np.unique(up[up >= 0])
        above.append(up)
    holders = np.unique(np.concatenate(above)) if above else np.zeros(0, np.int64)
    assert isinstance(links, LinksModel)
    walk = store_walk(ctx, sources, targets, links.hops, also=holders)
    reach = walk_probabilities(walk, walk.transitions * links.beta, links.hops)
    direct = sp.csr_array(reach[:, :shape[1]])
    if not len(holders):
        return direct
    first = sp.csr_array(reach[:, shape[1]:]).tocoo()  # sources × holders
    move = sp.coo_array(structural_probabilities(table, holders, tgt, structural.column))
    other = holders[move.row] != tgt[move.col]  # a unit to itself is the direct term's
    move = sp.csr_array((move.data[other], (move.row[other], move.col[other])),
                        shape=(len(holders), shape[1]))
    count = move.indptr[first.col + 1] - move.indptr[first.col]
    at = concat_ranges(np.asarray(move.indptr[first.col], dtype=np.int64), count)
    p = np.repeat(first.data, count) * move.data[at]
    keep = p > 0
    rows = np.concatenate([np.repeat(first.row, count)[keep], direct.tocoo().row])
    cols = np.concatenate([move.indices[at][keep], direct.tocoo().col])
    p = np.concatenate([p[keep], direct.tocoo().data])
    with np.errstate(divide="ignore"):  # p = 1: log 0, a certain move
        logq = np.log1p(-np.clip(p, 0.0, 1.0))
    out = sp.csr_array((logq, (rows, cols)), shape=shape)
    out.sum_duplicates()
    out.data = -np.expm1(out.data)
    out.eliminate_zeros()
    return out


def build(args: str) -> LinksModel:
    spec = "links" + (f":{args}" if args else "")
    opts = parse_options(spec, args, {"beta": float, "hops": parse_hops})
    return LinksModel(spec, beta=float(opts.get("beta", 1.0)),  # type: ignore[arg-type]
                      hops=opts.get("hops", 1))  # type: ignore[arg-type]
