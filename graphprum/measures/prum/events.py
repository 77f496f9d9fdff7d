"""The navigation events of one topic: what every PRUM computation reads.

``nav`` (P in the paper), an array (dense or ``scipy.sparse``) of shape
``(o, t)``: ``nav[i, x]`` is the probability that a user who consults the
i-th ranked unit reaches the ideal unit x.  These navigation events are
independent (Hypothesis 2.2); a unit always leads to itself, so an ideal
unit ranked at i has ``nav[i, x] = 1``.  The user has seen x after rank i
with probability ``P(x in S_i) = 1 - prod_{j<=i} (1 - P[j, x])`` (eq. 6).

:func:`events` keeps the events that can change what a user sees: those
with P > 0 up to the first rank that leads to x for sure (after it, x is
seen whatever happens).  :func:`self_events` builds them for the classical
model (no browsing, Appendix B) straight from the ranking.

Examples
--------
>>> ev = events([[0.5, 0.0], [1.0, 0.3], [0.2, 0.4]])
>>> ev.rows.tolist(), ev.cols.tolist(), ev.first_certain.tolist(), ev.certain_seen
([0, 1, 1, 2], [0, 0, 1, 1], [1, 3], 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphprum.errors import UsageError


@dataclass
class Events:
    """The navigation events of one topic that can change what a user sees.

    Attributes
    ----------
    o, t : int
        Ranked units and ideal units.
    rows, cols, probs : numpy.ndarray
        The events with P > 0, row-major: the rank (0-based), the ideal
        unit, P.  Events after ``first_certain[x]`` are dropped.
    first_certain : numpy.ndarray
        Per ideal unit x, the first rank (0-based) with P = 1 towards x, or o.
    """

    o: int
    t: int
    rows: np.ndarray
    cols: np.ndarray
    probs: np.ndarray
    first_certain: np.ndarray

    @property
    def certain_seen(self) -> int:
        """Number of ideal units seen for sure after the whole ranked list."""
        return int(np.count_nonzero(self.first_certain < self.o))

    def uncertain(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The events with 0 < P < 1 as ``(rows, cols, probs, starts)``,
        sorted by (column, row), ``starts`` where each column's group begins:
        the coins a user's outcome is made of (§3.2).

        >>> events([[0.5, 0.0], [1.0, 0.3], [0.2, 0.4]]).uncertain()[1:]
        (array([0, 1, 1]), array([0.5, 0.3, 0.4]), array([0, 1]))
        """
        unc = self.probs < 1.0
        rows, cols, probs = self.rows[unc], self.cols[unc], self.probs[unc]
        order = np.lexsort((rows, cols))
        rows, cols, probs = rows[order], cols[order], probs[order]
        starts = (np.flatnonzero(np.r_[True, cols[1:] != cols[:-1]]) if len(cols)
                  else np.zeros(0, int))
        return rows, cols, probs, starts


def column_log_products(cols: np.ndarray, probs: np.ndarray) -> tuple[np.ndarray, ...]:
    """The running sums of log(1 - p) of eq. 6 within each column, in rank order.

    Entries (row-major) are put in column order, stably (rank order within
    a column); returns ``order`` (that permutation), ``p`` and ``lg =
    log(1 - p)`` (0 where p = 1) in that order, ``cs`` the cumulative sum of
    ``lg``, ``off`` the value of ``cs`` just before each column starts (so
    ``exp(cs - off)`` is P(unit not seen) just after each event), and
    ``first`` (whether an entry starts its column).

    >>> order, p, lg, cs, off, first = column_log_products(
    ...     np.array([1, 0, 1]), np.array([0.5, 0.5, 0.5]))
    >>> order.tolist(), np.exp(cs - off).round(12).tolist(), first.tolist()
    ([1, 0, 2], [0.5, 0.5, 0.25], [True, True, False])
    """
    n = len(cols)
    order = np.lexsort((np.arange(n), cols))
    p = probs[order]
    lg = np.log1p(-np.where(p < 1.0, p, 0.0))
    cs = np.cumsum(lg)
    c = cols[order]
    first = np.r_[True, c[1:] != c[:-1]]
    base = np.maximum.accumulate(np.where(first, np.arange(n), 0))
    return order, p, lg, cs, (cs - lg)[base], first


def _underflows(cols: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Events (row-major) at which P(unit not seen), the running product of
    (1 - p) of eq. 6, first becomes 0.0 in floating point without p = 1:
    after very many events (``links:hops=10000``) the unit is seen for sure
    from there on, and must be treated as such (counted once, later events
    dropped), as eq. 5 computes the same product
    (:func:`graphprum.measures.prum.exact.unseen_before_after`).

    >>> at = _underflows(np.zeros(1100, np.int64), np.full(1100, 0.5)).nonzero()[0]
    >>> len(at), bool(0.5 ** (at[0] - 2) > 0.0)  # once, where 0.5^k passes 2^-1074
    (1, True)
    """
    n = len(cols)
    out = np.zeros(n, dtype=bool)
    if n == 0:
        return out
    order, p, _, cs, off, first = column_log_products(cols, probs)
    zero = (np.exp(cs - off) == 0.0) & (p < 1.0)
    # only the first such event of a unit (the later ones are dropped as dead)
    newly = zero & ~np.r_[False, zero[:-1] & ~first[1:]]
    out[order[newly]] = True
    return out


def events(nav: Any) -> Events:
    """Normalise ``nav`` (dense or sparse, shape (o, t)) into live events;
    events already normalised (:func:`self_events`) are returned as they are."""
    if isinstance(nav, Events):
        return nav
    import scipy.sparse as sp  # browsing models only: a classical eval imports no scipy
    dense = nav if sp.issparse(nav) else np.asarray(nav, dtype=float)
    if dense.ndim != 2:
        raise UsageError(f"PRUM: navigation matrix must be 2-d, got shape {dense.shape}")
    m = sp.csr_array(dense).astype(float)
    m.sum_duplicates()
    o, t = m.shape
    rows = np.repeat(np.arange(o), np.diff(m.indptr))
    cols = m.indices.astype(np.int64)
    probs = np.clip(m.data, 0.0, 1.0)
    keep = probs > 0.0
    return _live_events(o, t, rows[keep], cols[keep], probs[keep])


def _live_events(o: int, t: int, rows: np.ndarray, cols: np.ndarray,
                 probs: np.ndarray) -> Events:
    """The events (row-major, 0 < P <= 1) that can still change what a user sees."""
    probs[_underflows(cols, probs)] = 1.0
    first_certain = np.full(t, o, dtype=np.int64)
    sure = probs == 1.0
    if sure.any():
        # rows are sorted, so the first occurrence of a column is its smallest row
        c_sure, first = np.unique(cols[sure], return_index=True)
        first_certain[c_sure] = rows[sure][first]
    live = rows <= first_certain[cols]
    return Events(o, t, rows[live], cols[live], probs[live], first_certain)


def self_events(ranked: Sequence[str], ideal: Sequence[str]) -> Events:
    """The events of the classical model (no browsing, PRUM Appendix B):
    P = 1 where the i-th ranked unit is ideal unit x, 0 elsewhere, without
    building a navigation matrix; what :func:`events` gives for
    ``combine([ClassicalModel()], ranked, ideal)``.

    >>> ev = self_events(["c", "x", "a"], ["a", "c"])
    >>> ev.rows.tolist(), ev.cols.tolist(), ev.first_certain.tolist()
    ([0, 2], [1, 0], [2, 0])
    """
    where = {u: j for j, u in enumerate(ideal)}
    hits = [(i, where[u]) for i, u in enumerate(ranked) if u in where]
    rows = np.fromiter((i for i, _ in hits), dtype=np.int64, count=len(hits))
    cols = np.fromiter((j for _, j in hits), dtype=np.int64, count=len(hits))
    return _live_events(len(ranked), len(ideal), rows, cols, np.ones(len(hits)))
