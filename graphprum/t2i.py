"""The tolerance-to-irrelevance (T2I) user of de Vries, Kazai and Lalmas (RIAO 2004, §4).

One operational definition shared by the ``t2i`` navigation model
(:mod:`graphprum.navigation.t2i`) and the T2I measures
(:mod:`graphprum.measures.t2i`).

The medium
----------
Each document (a video, or an XML document's text) is a line of positions
``[start of root, end of root)`` -- seconds for video, characters for text
(the ``start``/``length`` columns of the unit table).  The *relevant
fragments* of a topic are half-open ranges ``[a, b)`` with ``a < b`` inside
one document; they may touch, overlap or nest (each one is a reference item
and counts once).  Zero-length relevant units hold nothing to view and are
not fragments.

One inspection (a user shown a result that starts at x)
------------------------------------------------------
The user spends ``init`` effort adjusting (wasted, but not counted against
the tolerance), then views forward from x.  Only *unseen* fragments are
relevant: a fragment hit during an earlier inspection is non-relevant
material now (paper §4, last paragraphs).  Let the candidates be the unseen
fragments not wholly behind x (``b > x``), each entered at
``e = max(a, x)``, taken in order of e.  With ``reach`` = x at first:

* keepsviewing (default): for each candidate in turn, the gap of
  non-relevant material before it is ``g = e - reach``.  If ``g < tau`` the
  fragment is **hit** and ``reach = max(reach, b)``; otherwise the user has
  passed ``tau`` of non-relevant material and gives up at ``reach + tau``.
  After the last hit the user still views ``tau`` of non-relevant material
  (or up to the end of the document, whichever comes first) and stops.
  So a fragment whose start lies *exactly* ``tau`` after the end of the
  relevant material seen before it (or after x) is **not** reached: the
  tolerance ran out at that instant.  Equivalently, the viewing ends at
  ``stop = reach + tau`` and every candidate with ``a < stop`` is hit.
* not keepsviewing: the first candidate(s), those with the smallest e, are
  hit if ``e - x < tau``; the user watches until ``S``, the largest b among
  them, hitting every other candidate that starts before S (a fragment
  nested or overlapping inside), and stops at S.  With no such candidate the
  user gives up at ``x + tau`` (or the document end).

The viewing never continues into another document.  The *wasted effort* of
the inspection is ``init`` plus the non-relevant material viewed: the
positive gaps before hits, plus the tail after the last relevant material
(``min(tau, end - reach)`` with keepsviewing; nothing after S without).  A
result id the collection does not hold costs ``init + tau`` and hits
nothing.  Each fragment is hit at most once over a ranked list, at the
cumulative wasted effort reached when the user enters it.

Reaching a unit (navigation)
----------------------------
A fresh user (no fragment seen) starting at x *reaches* a unit y of the same
document with span ``[s, t)`` when the viewed interval ``[x, stop)`` meets
it: y is not wholly behind x (``t > x``, or a zero-length y with
``s >= x``) and ``max(s, x) < stop``.  Reaching is monotone in tau, so it
happens exactly when ``tau > tau*(x, y)``, the threshold computed by
:func:`reach_thresholds`; with tau uniform over ``[A, B]`` the fraction of
users reaching y is ``(B - max(A, tau*)) / (B - A)`` clipped to [0, 1].

Examples
--------
A video of 100 s with relevant fragments [10, 20) and [30, 40); tau = 15.
A user starting at 0 walks 10 s of non-relevant material into the first
fragment, 10 s more into the second, then gives up 15 s after it ends:

>>> frags = Fragments.from_arrays([0, 0], [10.0, 30.0], [20.0, 40.0])
>>> tr = simulate(T2IUser(tau=15), frags, np.array([100.0]), [0], [0.0])
>>> tr.hit_fragment.tolist(), tr.hit_waste.tolist(), tr.waste
([0, 1], [10.0, 20.0], 35.0)
>>> reach_thresholds(frags, [0], [0.0], [0], [30.0], [40.0], True)[2].tolist()
[10.0]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphprum.context import CacheKind, TopicContext
from graphprum.errors import UsageError

__all__ = ["Fragments", "T2IUser", "Trace", "doc_ends", "inspect", "ranked_positions",
           "reach_thresholds", "result_positions", "simulate", "topic_fragments"]


@dataclass(frozen=True)
class T2IUser:
    """The user model's parameters (paper §4).

    Attributes
    ----------
    tau : float
        tau_NR, the non-relevant material (seconds or characters) the user
        tolerates before giving up; > 0.
    init : float
        tau_init, effort wasted adjusting to each inspected result; >= 0.
    keepsviewing : bool
        kappa_keepsviewing: whether the user goes on after the first relevant
        fragment ends.
    """

    tau: float = 15.0
    init: float = 0.0
    keepsviewing: bool = True

    def __post_init__(self) -> None:
        if not (math.isfinite(self.tau) and self.tau > 0):
            raise UsageError(f"T2I: tau must be a finite number > 0, got {self.tau}")
        if not (math.isfinite(self.init) and self.init >= 0):
            raise UsageError(f"T2I: init must be a finite number >= 0, got {self.init}")


@dataclass
class Fragments:
    """Relevant fragments of one topic, sorted by (document, start, end).

    Attributes
    ----------
    doc : numpy.ndarray of int64
        Document index (row of the unit table's ``docs``) of every fragment.
    start, end : numpy.ndarray of float64
        ``[start, end)`` of every fragment, ``start < end``.
    unplaced : int
        Relevant items with no span in the collection (ids the store does not
        hold): counted in R, never reachable.
    """

    doc: np.ndarray
    start: np.ndarray
    end: np.ndarray
    unplaced: int = 0
    _bounds: dict[int, tuple[int, int]] = field(default_factory=dict, repr=False)

    @classmethod
    def from_arrays(cls, doc: Sequence[int] | np.ndarray, start: Sequence[float] | np.ndarray,
                    end: Sequence[float] | np.ndarray, unplaced: int = 0) -> Fragments:
        """Sort, and drop zero-length ranges (see the module notes).

        >>> Fragments.from_arrays([1, 0, 0], [5, 9, 2], [6, 9, 4]).start.tolist()
        [2.0, 5.0]
        """
        d = np.asarray(doc, dtype=np.int64)
        s = np.asarray(start, dtype=np.float64)
        e = np.asarray(end, dtype=np.float64)
        keep = e > s
        d, s, e = d[keep], s[keep], e[keep]
        order = np.lexsort((e, s, d))
        return cls(d[order], s[order], e[order], int(unplaced))

    @property
    def R(self) -> int:  # noqa: N802 - the paper's name
        """Number of relevant fragments (placed and unplaced)."""
        return len(self.doc) + self.unplaced

    def bounds(self, d: int) -> tuple[int, int]:
        """Index range ``[lo, hi)`` of document ``d``'s fragments."""
        got = self._bounds.get(d)
        if got is None:
            got = (int(np.searchsorted(self.doc, d, "left")),
                   int(np.searchsorted(self.doc, d, "right")))
            self._bounds[d] = got
        return got

    def relevant_length(self) -> float:
        """D_R: length of the union of the fragments (effort to view them all).

        >>> Fragments.from_arrays([0, 0, 1], [0, 5, 0], [10, 12, 3]).relevant_length()
        15.0
        """
        if len(self.doc) == 0:
            return 0.0
        # running maximum of ends within a document; fragments sorted by (doc, start)
        total = 0.0
        for d in np.unique(self.doc):
            lo, hi = self.bounds(int(d))
            s, e = self.start[lo:hi], self.end[lo:hi]
            prev = np.concatenate([[-np.inf], np.maximum.accumulate(e)[:-1]])
            total += float(np.sum(np.maximum(e - np.maximum(s, prev), 0.0)))
        return total


@dataclass
class Trace:
    """What a simulated user met over one ranked list.

    Attributes
    ----------
    hit_fragment : numpy.ndarray of int64
        Fragments hit (indices into :class:`Fragments`), in the order hit.
    hit_waste : numpy.ndarray of float64
        Cumulative wasted effort at each hit (non-decreasing).
    result_waste : numpy.ndarray of float64
        Wasted effort of each result's inspection (``init`` included).
    """

    hit_fragment: np.ndarray
    hit_waste: np.ndarray
    result_waste: np.ndarray

    @property
    def waste(self) -> float:
        """Wasted effort over the whole list."""
        return float(self.result_waste.sum())

    def found(self, effort: float | np.ndarray) -> np.ndarray:
        """Fragments hit by the time ``effort`` has been wasted (hits at exactly
        that effort included)."""
        tol = 1e-9 * max(1.0, float(np.max(np.abs(effort))) if np.size(effort) else 1.0)
        return np.searchsorted(self.hit_waste, np.asarray(effort) + tol, side="right")


def inspect(user: T2IUser, x: float, a: np.ndarray, b: np.ndarray, end: float
            ) -> tuple[np.ndarray, np.ndarray, float]:
    """One inspection from x over *unseen* fragments ``[a, b)`` of one document.

    Returns the local indices of the fragments hit (in the order hit), the
    wasted effort (``init`` excluded) before each hit, and the wasted effort
    of the whole inspection (``init`` excluded).

    >>> inspect(T2IUser(tau=15), 0.0, np.array([10., 50.]), np.array([20., 60.]), 100.0)
    (array([0]), array([10.]), 25.0)
    >>> inspect(T2IUser(tau=15, keepsviewing=False), 12.0, np.array([10., 25.]),
    ...         np.array([20., 30.]), 100.0)
    (array([0]), array([0.]), 0.0)
    """
    tau = user.tau
    cand = np.flatnonzero(b > x)
    if len(cand) == 0:
        return cand, np.zeros(0), max(0.0, min(tau, end - x))
    e = np.maximum(a[cand], x)
    order = np.argsort(e, kind="stable")
    cand, e = cand[order], e[order]
    if user.keepsviewing:
        reach_after = np.maximum.accumulate(np.maximum(b[cand], x))
        reach_before = np.concatenate([[x], reach_after[:-1]])
        gaps = e - reach_before
        over = np.flatnonzero(gaps >= tau)
        k = int(over[0]) if len(over) else len(cand)
        pos = np.cumsum(np.maximum(gaps[:k], 0.0))
        reach = float(reach_before[k]) if k < len(cand) else float(reach_after[-1])
        tail = max(0.0, min(tau, end - reach))
        return cand[:k], pos, (float(pos[-1]) if k else 0.0) + tail
    first = float(e[0])
    if first - x >= tau:
        return cand[:0], np.zeros(0), max(0.0, min(tau, end - x))
    stop = float(b[cand[e == first]].max())
    hit = cand[(e == first) | (a[cand] < stop)]
    gap = first - x
    return hit, np.full(len(hit), gap), gap


def simulate(user: T2IUser, frags: Fragments, doc_end: np.ndarray,
             result_doc: Sequence[int] | np.ndarray, result_start: Sequence[float] | np.ndarray
             ) -> Trace:
    """Walk a user through a ranked list (module notes); a fragment counts once.

    Parameters
    ----------
    user : T2IUser
    frags : Fragments
        The topic's relevant fragments.
    doc_end : numpy.ndarray
        End of every document's medium, indexed by document.
    result_doc, result_start : array-like
        Document (-1 for ids the collection does not hold) and start of each
        result, in rank order.

    Notes
    -----
    Results in documents without fragments cost ``init + min(tau, end - x)``
    and are handled in one vectorised step; only results in documents that
    hold fragments are walked one by one (each walk is vectorised over the
    document's fragments).
    """
    rd = np.asarray(result_doc, dtype=np.int64)
    rx = np.asarray(result_start, dtype=np.float64)
    n = len(rd)
    waste = np.full(n, float(user.tau))
    known = rd >= 0
    ends = np.where(known, np.asarray(doc_end, dtype=np.float64)[np.maximum(rd, 0)], 0.0)
    waste[known] = np.clip(ends[known] - rx[known], 0.0, user.tau)
    holds = np.zeros(n, dtype=bool)
    if len(frags.doc):
        lo = np.searchsorted(frags.doc, rd, "left")
        hi = np.searchsorted(frags.doc, rd, "right")
        holds = known & (hi > lo)
    seen = np.zeros(len(frags.doc), dtype=bool)
    hit_rank: list[np.ndarray] = []
    hit_frag: list[np.ndarray] = []
    hit_pos: list[np.ndarray] = []
    for i in np.flatnonzero(holds):
        lo_i, hi_i = frags.bounds(int(rd[i]))
        unseen = lo_i + np.flatnonzero(~seen[lo_i:hi_i])
        got, pos, w = inspect(user, float(rx[i]), frags.start[unseen], frags.end[unseen],
                              float(ends[i]))
        waste[i] = w
        if len(got):
            idx = unseen[got]
            seen[idx] = True
            hit_rank.append(np.full(len(idx), i))
            hit_frag.append(idx)
            hit_pos.append(pos)
    waste += user.init
    if hit_rank:
        ranks = np.concatenate(hit_rank)
        before = np.cumsum(waste) - waste
        hit_waste = before[ranks] + user.init + np.concatenate(hit_pos)
        frag = np.concatenate(hit_frag)
    else:
        hit_waste, frag = np.zeros(0), np.zeros(0, dtype=np.int64)
    return Trace(frag, hit_waste, waste)


def reach_thresholds(frags: Fragments, src_doc: Sequence[int] | np.ndarray,
                     src_x: Sequence[float] | np.ndarray, tgt_doc: Sequence[int] | np.ndarray,
                     tgt_start: Sequence[float] | np.ndarray,
                     tgt_end: Sequence[float] | np.ndarray, keepsviewing: bool
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """tau*(x, y) for every same-document pair where y is not wholly behind x.

    A fresh user starting at ``src_x[i]`` reaches target j exactly when
    ``tau > tau*``.  Returns ``(i, j, tau*)`` arrays (pairs with tau* = inf
    left out).

    With keepsviewing, if the user has hit the first K candidates (all gaps
    so far < tau, prefix maximum ``G_K``, ``G_0 = 0``) the viewing reaches
    ``reach_K + tau``, so ``tau* = min_K max(G_K, p - reach_K)`` with
    ``p = max(s, x)``.  Without keepsviewing, ``tau* = p - x`` before the
    first candidate, its gap ``e_1 - x`` for ``p`` before S, infinite beyond.

    >>> f = Fragments.from_arrays([0], [20.0], [30.0])
    >>> reach_thresholds(f, [0, 0], [0.0, 25.0], [0, 0], [20.0, 40.0], [30.0, 50.0], True)
    (array([0, 0, 1, 1]), array([0, 1, 0, 1]), array([20., 20.,  0., 10.]))
    >>> reach_thresholds(f, [0], [0.0], [0], [40.0], [50.0], False)
    (array([], dtype=int64), array([], dtype=int64), array([], dtype=float64))
    """
    sd = np.asarray(src_doc, dtype=np.int64)
    sx = np.asarray(src_x, dtype=np.float64)
    td = np.asarray(tgt_doc, dtype=np.int64)
    ts = np.asarray(tgt_start, dtype=np.float64)
    te = np.asarray(tgt_end, dtype=np.float64)
    tj = np.flatnonzero(td >= 0)
    tj = tj[np.argsort(td[tj], kind="stable")]
    tdoc = td[tj]
    si = np.flatnonzero(sd >= 0)
    lo = np.searchsorted(tdoc, sd[si], "left")
    hi = np.searchsorted(tdoc, sd[si], "right")
    counts = hi - lo
    rows = np.repeat(si, counts)
    offs = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    cols = tj[np.repeat(lo, counts) + offs]
    x = sx[rows]
    s, t = ts[cols], te[cols]
    ahead = (t > x) | ((t == s) & (s >= x))
    rows, cols, x, s = rows[ahead], cols[ahead], x[ahead], s[ahead]
    p = np.maximum(s, x)
    thr = p - x  # no relevant material: the tolerance runs from x
    if len(frags.doc) and len(rows):
        d = sd[rows]
        has = np.searchsorted(frags.doc, d, "right") > np.searchsorted(frags.doc, d, "left")
        # one walk per distinct (source, document) holding fragments
        for i in np.unique(rows[has]):
            sel = np.flatnonzero(has & (rows == i))
            lo_i, hi_i = frags.bounds(int(sd[i]))
            thr[sel] = _thresholds_from(float(sx[i]), frags.start[lo_i:hi_i],
                                        frags.end[lo_i:hi_i], p[sel], keepsviewing)
    ok = np.isfinite(thr)
    return rows[ok], cols[ok], thr[ok]


def _thresholds_from(x: float, a: np.ndarray, b: np.ndarray, p: np.ndarray,
                     keepsviewing: bool) -> np.ndarray:
    """tau* for targets entered at ``p`` by a fresh user at x (one document)."""
    cand = np.flatnonzero(b > x)
    if len(cand) == 0:
        return p - x
    e = np.maximum(a[cand], x)
    order = np.argsort(e, kind="stable")
    cand, e = cand[order], e[order]
    if keepsviewing:
        reach_after = np.maximum.accumulate(np.maximum(b[cand], x))
        reach = np.concatenate([[x], reach_after])  # reach_K, K = 0..n
        gaps = e - reach[:-1]
        g = np.concatenate([[0.0], np.maximum.accumulate(np.maximum(gaps, 0.0))])  # G_K
        out: np.ndarray = np.min(np.maximum(g[:, None], p[None, :] - reach[:, None]), axis=0)
        return out
    first = float(e[0])
    stop = float(b[cand[e == first]].max())
    return np.where(p < first, p - x, np.where(p < stop, first - x, np.inf))


# --------------------------------------------------------------------------
# reading a topic from the evaluator


def doc_ends(table: Any) -> np.ndarray:
    """End of every document's medium: its root's ``start + length``."""
    first = np.asarray(table.docs["first"], dtype=np.int64)
    if len(first) == 0:
        return np.zeros(0)
    ends: np.ndarray = table.columns["start"][first] + table.columns["length"][first]
    return ends


#: The relevant fragments of a topic (:func:`topic_fragments`).
FRAGMENTS: CacheKind[Fragments] = CacheKind("T2I relevant fragments")


def topic_fragments(ctx: TopicContext) -> Fragments:
    """The relevant fragments of ``ctx``'s topic (cached in ``ctx.cache``).

    With passage assessments (``ctx.assessments``, a
    :class:`~graphprum.measures.inex_base.TopicAssessment`) each highlighted
    range is a fragment (seconds for a video, characters for a document; the
    readers merge touching ranges).  Otherwise every relevant unit of the
    qrels (REL > 0) is a fragment spanning the unit: a relevant segment for
    video, a relevant element for XML.  Relevant items the store does not
    hold are counted in R but cannot be reached.
    """
    cached = ctx.cache.peek(FRAGMENTS, None)
    if cached is not None:
        return cached
    table = ctx.table
    ranges = getattr(ctx.assessments, "ranges", None)
    if ranges:
        docs, starts, ends = [], [], []
        unplaced = 0
        for name, r in ranges.items():
            r = np.asarray(r, dtype=np.float64).reshape(-1, 2)
            try:
                d = table.doc_index(name)
            except KeyError:
                unplaced += int(np.count_nonzero(r[:, 1] > r[:, 0]))
                continue
            docs.append(np.full(len(r), d))
            starts.append(r[:, 0])
            ends.append(r[:, 1])
        frags = Fragments.from_arrays(np.concatenate(docs) if docs else [],
                                      np.concatenate(starts) if starts else [],
                                      np.concatenate(ends) if ends else [], unplaced)
    else:
        rel = ctx.relevant
        rows = ctx.rows(rel) if rel else \
            np.zeros(0, np.int64)
        known = rows[rows >= 0]
        start = table.columns["start"][known]
        frags = Fragments.from_arrays(table.columns["doc"][known], start,
                                      start + table.columns["length"][known],
                                      int(np.count_nonzero(rows < 0)))
    ctx.cache.put(FRAGMENTS, None, frags)
    return frags


def ranked_positions(ctx: TopicContext) -> tuple[np.ndarray, np.ndarray]:
    """Document (-1 when unknown) and start of each ranked result: where the
    user starts viewing it, its unit's start, or a range's (``ctx.spans``)."""
    if ctx.spans is not None:
        return ctx.span_docs(), ctx.spans[:, 0]
    doc, start, _ = result_positions(ctx, ctx.ranked)
    return doc, start


def result_positions(ctx: TopicContext, ids: Sequence[str]) -> tuple[np.ndarray, np.ndarray,
                                                                     np.ndarray]:
    """Document (-1 when unknown), start and end of each id, from the store."""
    table = ctx.table
    rows = ctx.rows(list(ids)) if len(ids) else \
        np.zeros(0, np.int64)
    ok = rows >= 0
    safe = np.where(ok, rows, 0)
    doc = np.where(ok, table.columns["doc"][safe] if len(table) else 0, -1).astype(np.int64)
    start = np.where(ok, table.columns["start"][safe] if len(table) else 0.0, 0.0)
    length = np.where(ok, table.columns["length"][safe] if len(table) else 0.0, 0.0)
    return doc, start, start + length
