"""PRUM: precision-recall with user modelling (Piwowarski, Gallinari, Dupret,
TOIS 2007), for one topic.

Inputs
------
``nav`` (P in the paper), an array (dense or ``scipy.sparse``) of shape
``(o, t)``: ``nav[i, x]`` is the probability that a user who consults the i-th
ranked unit reaches the ideal unit x (these navigation events are independent,
Hypothesis 2.2; a unit always leads to itself, so an ideal unit ranked at i
has ``nav[i, x] = 1``).
``u``, the size of the unranked part of the list, N - o; ``math.inf`` when
the collection size is unknown.

Precision at recall r (eq. 5, with the Cooper factor inside term (d) as in
eq. 16, ERRATA item 1)::

    (a) + (b)      (a) = sum_{s<r} sum_{i=1..o} P(F_{i-1}=s) P(F_i>s | F_{i-1}=s)
    ---------      (b) = sum_{s<r} P(F_o=s) (r-s)
    (c) + (d)      (c) = sum_{s<r} sum_{i=1..o} P(F_{i-1}=s)
                   (d) = sum_{s<r} P(F_o=s) (r-s) (1 + (u-(t-s))/(t-s+1))

where F_i counts the distinct ideal units seen after the first i ranks.
``P(x in S_i) = 1 - prod_{j<=i} (1 - P[j, x])`` (eq. 6), the law of F_i is
the Poisson-binomial of those probabilities (eqs. 7, 11) and
``P(F_i > s | F_{i-1} = s)`` is eq. 8/12, which needs the law of F_{i-1}
without x (leave-one-out).  The Cooper factor simplifies to (u+1)/(t-s+1).

``u = inf`` is the limit u -> infinity of eq. 5: precision 0 at every r that
the ranked part does not reach with certainty (P(F_o < r) > 0), and (a)/(c)
otherwise.  With the classical model this is exactly trec_eval: precision at
recall K is K / (rank of the K-th relevant result), and 0 when fewer than K
ideal units are retrieved (Appendix B with u -> infinity).

Functions
---------
:func:`precision_at_recall` — eq. 5 at every r = 1..t in one pass.
:func:`~graphprum.measures.interpolation.interpolated`,
:func:`~graphprum.measures.interpolation.prum_mean` — ceiling interpolation
(§3.1), in :mod:`graphprum.measures.interpolation` (T2I and EPRUM share it).
:func:`enumerate_precision` — E[CL]/E[C] of §3.2 over all navigation
outcomes, without Hypothesis 2.3 (``PRUM(exact=enum)``).
:func:`simulate_precision` — the same by simulating users
(``PRUM(exact=mc,samples=N,seed=S)``) with delta-method standard errors.

Examples
--------
Fig. 7 of the paper: a leads to b and c with probability 1, 100 units:

>>> precision_at_recall([[1.0, 1.0]], u=99).tolist()
[1.0, 1.0]

Classical run (c, x, a) for ideal {a, c}; u infinite (trec_eval):

>>> precision_at_recall([[0, 1], [0, 0], [1, 0]]).round(4).tolist()
[1.0, 0.6667]
>>> round(prum_mean(precision_at_recall([[0, 1], [0, 0], [1, 0]])), 4)
0.8485
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from graphprum.context import CacheKind
from graphprum.errors import UsageError
from graphprum.measures.interpolation import (
    LEVELS,
    argmax_at,
    interpolated,
    min_recall,
    prum_mean,
)
from graphprum.measures.poisson_binomial import normal_grid
from graphprum.measures.registry import Curve, Family, Measure, MeasureSpec, Param, Value

if TYPE_CHECKING:
    import scipy.sparse as sp

    from graphprum.context import TopicContext

__all__ = [
    "LEVELS",
    "MAX_ENUM_EVENTS",
    "MC_WORK_LIMIT",
    "NORMAL_THRESHOLD",
    "SimulatedPrecision",
    "check_mc_cost",
    "compute",
    "enumerate_precision",
    "interpolated",
    "navigation_matrix",
    "precision_at_recall",
    "prum_mean",
    "simulate_precision",
]

#: Number m of ideal units with 0 < P(x in S_i) < 1 above which the law of
#: F_i is replaced by its normal approximation (appendix A.1, ERRATA item 2).
#: Measured with bench/prum_threshold.py (synthetic topics, 1-3 uncertain
#: navigation events per rank, q uniform in (0.05, 0.95)): the exact law costs
#: O(m) per event and the whole topic 5 ms at m = 100, 23 ms at 200, 86 ms at
#: 400, 360 ms at 800, 1.3 s at 1600 (quadratic), the normal one 2, 7, 12, 33,
#: 113 ms; the approximation's largest error on precision(r) is 0.009 at
#: m = 100, 0.004 at 200-400, 0.002-0.009 beyond (errors of the 11-level mean
#: 1e-5..8e-4).  Exactness is worth its cost up to a few hundred units; past
#: 500 the exact cost passes ~0.1 s per topic and grows quadratically, so the
#: approximation takes over there (the paper switched at 10).
NORMAL_THRESHOLD = 500

#: Largest number of uncertain navigation events ``exact=enum`` enumerates.
MAX_ENUM_EVENTS = 20

#: Largest simulation ``exact=mc`` starts without ``force``: simulated users
#: times ranked results, summed over runs and topics (:func:`mc_work`).  One
#: such step costs 30-70 ns on one core (synthetic topics of 100-1,500
#: ranked results, 10-50 ideal units, 10^3-10^4 samples), so the bound is
#: about 5-12 minutes of simulation.
MC_WORK_LIMIT = 10**10
#: Seconds per step of :data:`MC_WORK_LIMIT`, for the estimate shown.
MC_SECONDS_PER_STEP = 50e-9

_SIGMAS = 9.0  # half-width, in standard deviations, of the normal law's support


# --------------------------------------------------------------------------
# input normalisation


@dataclass
class _Events:
    """The navigation events of one topic that can change what a user sees.

    ``first_certain[x]``: first rank (0-based) with P = 1 towards x, or o.
    Entries after that rank are dropped (x is already seen for sure).
    ``rows, cols, probs``: the remaining entries with P > 0, row-major.
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


def _column_log_products(cols: np.ndarray, probs: np.ndarray) -> tuple[np.ndarray, ...]:
    """The running sums of log(1 - p) of eq. 6 within each column, in rank order.

    Entries (row-major) are put in column order, stably (rank order within
    a column); returns ``order`` (that permutation), ``p`` and ``lg =
    log(1 - p)`` (0 where p = 1) in that order, ``cs`` the cumulative sum of
    ``lg``, ``off`` the value of ``cs`` just before each column starts (so
    ``exp(cs - off)`` is P(unit not seen) just after each event), and
    ``first`` (whether an entry starts its column).

    >>> order, p, lg, cs, off, first = _column_log_products(
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
    dropped), as :func:`_unseen_before_after` computes the same product.

    >>> at = _underflows(np.zeros(1100, np.int64), np.full(1100, 0.5)).nonzero()[0]
    >>> len(at), bool(0.5 ** (at[0] - 2) > 0.0)  # once, where 0.5^k passes 2^-1074
    (1, True)
    """
    n = len(cols)
    out = np.zeros(n, dtype=bool)
    if n == 0:
        return out
    order, p, _, cs, off, first = _column_log_products(cols, probs)
    zero = (np.exp(cs - off) == 0.0) & (p < 1.0)
    # only the first such event of a unit (the later ones are dropped as dead)
    newly = zero & ~np.r_[False, zero[:-1] & ~first[1:]]
    out[order[newly]] = True
    return out


def _events(nav: Any) -> _Events:
    """Normalise ``nav`` (dense or sparse, shape (o, t)) into live events;
    events already normalised (:func:`self_events`) are returned as they are."""
    if isinstance(nav, _Events):
        return nav
    import scipy.sparse as sp

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
                 probs: np.ndarray) -> _Events:
    """The events (row-major, 0 < P <= 1) that can still change what a user sees."""
    probs[_underflows(cols, probs)] = 1.0
    first_certain = np.full(t, o, dtype=np.int64)
    sure = probs == 1.0
    if sure.any():
        # rows are sorted, so the first occurrence of a column is its smallest row
        c_sure, first = np.unique(cols[sure], return_index=True)
        first_certain[c_sure] = rows[sure][first]
    live = rows <= first_certain[cols]
    return _Events(o, t, rows[live], cols[live], probs[live], first_certain)


def self_events(ranked: Sequence[str], ideal: Sequence[str]) -> _Events:
    """The events of the classical model (no browsing, PRUM Appendix B):
    P = 1 where the i-th ranked unit is ideal unit x, 0 elsewhere, without
    building a navigation matrix; what :func:`_events` gives for
    ``combine([ClassicalModel()], ranked, ideal)``.

    >>> ev = self_events(["c", "x", "a"], ["a", "c"])
    >>> ev.rows.tolist(), ev.cols.tolist(), ev.first_certain.tolist()
    ([0, 2], [1, 0], [2, 0])
    >>> precision_at_recall(ev).round(4).tolist()
    [1.0, 0.6667]
    """
    where = {u: j for j, u in enumerate(ideal)}
    hits = [(i, where[u]) for i, u in enumerate(ranked) if u in where]
    rows = np.fromiter((i for i, _ in hits), dtype=np.int64, count=len(hits))
    cols = np.fromiter((j for _, j in hits), dtype=np.int64, count=len(hits))
    return _live_events(len(ranked), len(ideal), rows, cols, np.ones(len(hits)))


# --------------------------------------------------------------------------
# eq. 5


def precision_at_recall(nav: Any, u: float = math.inf, *,
                        normal_threshold: int = NORMAL_THRESHOLD) -> np.ndarray:
    """PRUM precision at every integer recall r = 1..t (eq. 5), in one pass.

    Parameters
    ----------
    nav : array_like or scipy.sparse array, shape (o, t)
        ``nav[i, x]``: probability that a user consulting the i-th ranked unit
        reaches ideal unit x.
    u : float
        Size of the unranked part (N - o); ``math.inf`` for no unranked part
        (precision 0 where the ranked part may fall short of r, as trec_eval).
    normal_threshold : int
        Use the normal approximation of the law of F_i (appendix A.1, ERRATA
        item 2) while more than this many ideal units have 0 < P(x in S_i) < 1.

    Returns
    -------
    ndarray of shape (t,)
        ``out[r-1]`` = precision at recall r.

    Notes
    -----
    The law of F_i is kept as a Poisson-binomial over the m ideal units seen
    with probability strictly between 0 and 1, shifted by the number of units
    seen for sure, through the logarithm of its characteristic function; every
    navigation event with 0 < P costs O(m log m) and all ranks are processed
    at once with numpy (leave-one-out laws by taking one factor out of the
    logarithm, no deconvolution).  Ranks that change nothing cost nothing,
    and a run whose probabilities are all 0/1 (classical model) takes a
    vectorised path, O(nnz + o + t).

    Examples
    --------
    Table III (Fig. 5, list c, d, a, b; ERRATA item 3):

    >>> nav = [[.4, .4], [.6, .4], [1, 0], [0, 1]]
    >>> precision_at_recall(nav).round(5).tolist()
    [0.69137, 0.63561]
    """
    ev = _events(nav)
    if ev.t == 0:
        return np.zeros(0)
    u = float(u)
    if u < 0:
        raise UsageError(f"PRUM: unranked part size u must be >= 0, got {u}")
    if np.all(ev.probs == 1.0):
        return _deterministic(ev, u)
    a_s, c_s, dist_o = _accumulate(ev, normal_threshold)
    return _assemble(a_s, c_s, dist_o, u, ev.t, ev.certain_seen)


def _deterministic(ev: _Events, u: float) -> np.ndarray:
    """Eq. 5 when every probability is 0 or 1 (Appendix B, generalised to
    ranks that lead to several ideal units)."""
    o, t = ev.o, ev.t
    new = np.bincount(ev.rows, minlength=o)  # ideal units first seen at each rank
    e = np.cumsum(new)  # e_i, i = 1..o
    e_o = int(e[-1]) if o else 0
    lucky = np.cumsum(new > 0)  # ranks leading to an unseen ideal unit, up to i
    r = np.arange(1, t + 1)
    out = np.zeros(t)
    hit = r <= e_o
    if hit.any():
        l_r = np.searchsorted(e, r[hit], side="left")  # 0-based rank where F reaches r
        out[hit] = lucky[l_r] / (l_r + 1.0)
    miss = ~hit
    if miss.any() and math.isfinite(u):
        rm = r[miss]
        found = int(lucky[-1]) if o else 0
        need = rm - e_o
        out[miss] = (found + need) / (o + need * (u + 1.0) / (t - e_o + 1.0))
    return out


def _accumulate(ev: _Events, normal_threshold: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Terms of eq. 5 summed over ranks, per s = 0..t.

    Returns ``A[s] = sum_i P(F_{i-1}=s) P(F_i>s|F_{i-1}=s)``,
    ``C[s] = sum_i P(F_{i-1}=s)`` and the law of F_o.

    F_i = (units seen for sure) + (a Poisson-binomial over the m_i units seen
    with 0 < P < 1).  The Poisson-binomial is carried by the logarithm of
    its characteristic function at the N-th roots of unity (N > m_i, odd):
    each navigation event adds log(1-q'+q'w) - log(1-q+qw), a cumulative sum
    over ranks gives every rank's law at once (inverse FFT), and the
    leave-one-out law of eq. 12 is the same with one factor taken out of the
    logarithm.  Unlike repeated deconvolution this never amplifies rounding
    errors (absolute error ~ ranks x eps).  Ranks whose m exceeds
    ``normal_threshold`` use the normal approximation instead.
    """
    o, t = ev.o, ev.t
    rows, cols, probs = ev.rows, ev.cols, ev.probs
    n_ev = len(rows)
    nq_old, nq_new = _unseen_before_after(cols, probs)
    q_old, q_new = 1.0 - nq_old, 1.0 - nq_new
    old_unc = (nq_old > 0.0) & (nq_old < 1.0)
    new_unc = (nq_new > 0.0) & (nq_new < 1.0)
    starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
    act = rows[starts]  # active ranks (0-based)
    row_of = np.cumsum(np.r_[False, rows[1:] != rows[:-1]])  # entry -> active-row index

    def before(per_entry: np.ndarray) -> tuple[np.ndarray, float]:
        per_row = np.add.reduceat(per_entry, starts)
        tot = np.cumsum(per_row)
        return tot - per_row, float(tot[-1])

    m_prev, m_end = before(new_unc.astype(float) - old_unc)
    c_prev, c_end = before((nq_new == 0.0).astype(float))
    mean_prev, mean_end = before(np.where(new_unc, q_new, 0) - np.where(old_unc, q_old, 0))
    var_prev, var_end = before(np.where(new_unc, q_new * nq_new, 0)
                               - np.where(old_unc, q_old * nq_old, 0))
    m_prev, c_prev = m_prev.round().astype(np.int64), c_prev.round().astype(np.int64)
    m_end, c_end = round(m_end), round(c_end)
    gaps = np.diff(np.r_[-1, act]).astype(float)  # ranks that see each row's F_{i-1}

    size = t + 1 + max(int(max(m_prev.max(), m_end)), 0) + 2
    a_s = np.zeros(size)
    c_s = np.zeros(size)
    n_grid = min(int(max(m_prev.max(), m_end)), normal_threshold) + 1
    n_grid += 1 - n_grid % 2  # odd: w = -1 is never a root of unity used
    theta = 2.0 * np.pi * np.arange(n_grid // 2 + 1) / n_grid
    w = np.exp(-1j * theta)
    one_minus_cos, sin = (1.0 - np.cos(theta))[None, :], np.sin(theta)[None, :]

    def logf(q: np.ndarray) -> np.ndarray:
        # log(1 - q + q w), w = exp(-i theta): real part 0.5 log|.|^2 with
        # |.|^2 = 1 - 2 q (1-q) (1 - cos theta); imaginary part its argument
        qc = q[:, None]
        out = np.empty((len(q), len(theta)), dtype=complex)
        out.real = 0.5 * np.log1p(-2.0 * qc * (1.0 - qc) * one_minus_cos)
        out.imag = np.arctan2(-qc * sin, 1.0 - qc * one_minus_cos)
        return out

    carry = np.zeros(len(w), dtype=complex)
    per_chunk = max(1, (1 << 21) // len(w))
    lo_row = 0
    while lo_row < len(act):
        hi_row = min(len(act), lo_row + max(1, per_chunk // 4))
        e0 = starts[lo_row]
        e1 = starts[hi_row] if hi_row < len(act) else n_ev
        while hi_row - lo_row > 1 and (e1 - e0) > per_chunk:
            hi_row = lo_row + (hi_row - lo_row) // 2
            e1 = starts[hi_row]
        sl = slice(e0, e1)
        dlog = np.zeros((e1 - e0, len(w)), dtype=complex)
        nu, ou = new_unc[sl], old_unc[sl]
        if nu.any():
            dlog[nu] += logf(q_new[sl][nu])
        lf_old = np.zeros_like(dlog)
        if ou.any():
            lf_old[ou] = logf(q_old[sl][ou])
            dlog -= lf_old
        local = starts[lo_row:hi_row] - e0
        row_sum = np.add.reduceat(dlog, local, axis=0)
        prev = carry + np.cumsum(row_sum, axis=0) - row_sum  # log char. before each row
        carry = prev[-1] + row_sum[-1]
        rr = np.arange(lo_row, hi_row)
        ent_row = row_of[sl] - lo_row
        delta = nq_old[sl] - nq_new[sl]
        exact = m_prev[rr] <= normal_threshold
        # exact rows
        if exact.any():
            ri = np.flatnonzero(exact)
            dist = _irfft_law(prev[ri], n_grid, m_prev[rr][ri])
            pick = exact[ent_row]
            ents = np.flatnonzero(pick)
            pos = np.searchsorted(ri, ent_row[ents])  # row of each entry within ri
            loo = dist[pos].copy()
            unc = ou[ents]
            if unc.any():
                k = ents[unc]
                loo[unc] = _irfft_law(prev[ent_row[k]] - lf_old[k], n_grid,
                                      m_prev[rr][ent_row[k]] - 1)
            _add_rank_terms(a_s, c_s, dist, c_prev[rr][ri], gaps[rr][ri], loo, pos,
                            delta[ents])
        if (~exact).any():
            ri = np.flatnonzero(~exact)
            mu, var, m = mean_prev[rr][ri], var_prev[rr][ri], m_prev[rr][ri]
            lo, width = _normal_window(mu, var, m)
            dist = normal_grid(mu, var, lo, width, m)
            ents = np.flatnonzero(~exact[ent_row])
            pos = np.searchsorted(ri, ent_row[ents])
            loo = dist[pos].copy()
            unc = ou[ents]
            if unc.any():
                k = ents[unc]
                qk = q_old[sl][k]
                loo[unc] = normal_grid(mu[pos[unc]] - qk, var[pos[unc]] - qk * (1 - qk),
                                       lo[pos[unc]], width, m[pos[unc]] - 1)
            _add_rank_terms(a_s, c_s, dist, c_prev[rr][ri] + lo, gaps[rr][ri], loo, pos,
                            delta[ents])
        lo_row = hi_row
    # the law of F_o, seen by the ranks after the last active one
    if m_end <= normal_threshold:
        d_end = _irfft_law(carry[None, :], n_grid, np.array([m_end]))[0]
        off = c_end
    else:
        lo, width = _normal_window(np.array([mean_end]), np.array([var_end]), np.array([m_end]))
        d_end = normal_grid(np.array([mean_end]), np.array([var_end]), lo, width,
                            np.array([m_end]))[0]
        off = c_end + int(lo[0])
    dist_o = np.zeros(size)
    dist_o[off:off + len(d_end)] = d_end
    c_s += (o - 1 - act[-1]) * dist_o
    return a_s[:t + 1], c_s[:t + 1], dist_o[:t + 1]


def _unseen_before_after(cols: np.ndarray, probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P(x not in S) just before and just after each entry (entries row-major).

    Per column, a running product of (1 - p) in rank order (eq. 6), by
    cumulative sums of log(1 - p) within column groups; p = 1 gives 0.
    """
    n = len(cols)
    order, p, lg, cs, off, _ = _column_log_products(cols, probs)
    after = np.exp(cs - off)
    before = np.exp(cs - lg - off)
    after[p >= 1.0] = 0.0
    nq_old = np.empty(n)
    nq_new = np.empty(n)
    nq_old[order] = before
    nq_new[order] = after
    return nq_old, nq_new


def _irfft_law(logchar: np.ndarray, n_grid: int, m: np.ndarray) -> np.ndarray:
    """Laws from log characteristic functions (rows), zero beyond each support m."""
    out = np.fft.irfft(np.exp(logchar), n=n_grid, axis=-1)
    out[np.arange(n_grid)[None, :] > np.asarray(m)[:, None]] = 0.0
    return np.maximum(out, 0.0)


def _normal_window(mean: np.ndarray, var: np.ndarray,
                   m: np.ndarray) -> tuple[np.ndarray, int]:
    """Start of each row's window of +-_SIGMAS sd, and the common width."""
    sd = np.sqrt(np.maximum(var, 0.0))
    lo = np.maximum(0, np.floor(mean - _SIGMAS * sd - 1)).astype(np.int64)
    hi = np.minimum(m, np.ceil(mean + _SIGMAS * sd + 1)).astype(np.int64)
    return lo, int(max(1, (hi - lo + 1).max()))


def _add_rank_terms(a_s: np.ndarray, c_s: np.ndarray, dist: np.ndarray, offset: np.ndarray,
                    gaps: np.ndarray, loo: np.ndarray, pos: np.ndarray,
                    delta: np.ndarray) -> None:
    """Add rows' P(F_{i-1}=s) x gap to C and eq. 12's P(F_{i-1}=s) P(F_i>s|F_{i-1}=s) to A.

    ``dist[j]``: law on the grid ``offset[j] + k``; ``loo[e]``: leave-one-out
    law of entry e (row ``pos[e]``) on the same grid; ``delta[e]``: its
    increase of P(x in S).  The ratio delta L/D lies in [0, 1]; it is clipped
    where D is so small that rounding shows.
    """
    width = dist.shape[1]
    inv = np.divide(1.0, dist, out=np.zeros_like(dist), where=dist > 1e-280)
    ratio = np.minimum(delta[:, None] * loo * inv[pos], 1.0)
    order = np.argsort(pos, kind="stable")
    seg = np.flatnonzero(np.r_[True, pos[order][1:] != pos[order][:-1]])
    keep = np.multiply.reduceat(1.0 - ratio[order], seg, axis=0)
    idx = (offset[:, None] + np.arange(width)[None, :]).ravel()
    c_s += np.bincount(idx, (dist * gaps[:, None]).ravel(), minlength=len(c_s))[:len(c_s)]
    a_s += np.bincount(idx, (dist * (1.0 - keep)).ravel(), minlength=len(a_s))[:len(a_s)]


def _assemble(a_s: np.ndarray, c_s: np.ndarray, dist_o: np.ndarray, u: float,
              t: int, certain_seen: int) -> np.ndarray:
    """Eq. 5 for r = 1..t from the per-s sums.

    With ``u = inf`` the precision at r is 0 unless the ranked list surely
    reaches recall r, i.e. unless at least r ideal units are reached with
    probability 1 (``certain_seen``): decided from the probabilities
    themselves, since P(F_o < r) may be far below rounding (0.999^k).
    """
    a = np.cumsum(a_s)[:t]
    c = np.cumsum(c_s)[:t]
    short = np.cumsum(dist_o)[:t]  # P(F_o < r)
    # sum_{s<r} (r-s) D(s) = sum_{j=1..r} P(F_o < j): no cancellation
    b = np.cumsum(short)
    if math.isinf(u):
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(np.arange(1, t + 1) > certain_seen, 0.0, a / c)
        return np.nan_to_num(out)
    s = np.arange(t + 1)
    w = (u + 1.0) / (t - s + 1.0)  # Cooper: 1 + (u-(t-s))/(t-s+1)
    d = np.cumsum(np.cumsum(dist_o * w)[:t])
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (a + b) / (c + d)
    return np.nan_to_num(out)


# --------------------------------------------------------------------------
# E[CL] / E[C] without Hypothesis 2.3 (§3.2): enumeration and simulation


def _outcome_counts(fs: np.ndarray, o: int, t: int, u: float) -> tuple[np.ndarray, np.ndarray]:
    """CL(r) and C(r) of §3.2 for each outcome, r = 1..t.

    ``fs[k, x]``: 0-based rank at which ideal unit x is first seen in outcome
    k (o: never).  C(r) is the number of ranks consulted until r ideal units
    are seen; CL(r) the number of those ranks that lead to a previously
    unseen ideal unit.  When the ranked part falls short (F_o < r) the user
    goes on in the unranked part with the classical model: C gains the
    expected (r - F_o)(u+1)/(t - F_o + 1) (Cooper, eq. 16) and CL gains
    r - F_o (eq. 18).
    """
    srt = np.sort(fs, axis=1)
    seen = srt < o
    fresh = seen.copy()
    fresh[:, 1:] &= srt[:, 1:] != srt[:, :-1]
    cl = np.cumsum(fresh, axis=1).astype(float)
    f_o = seen.sum(axis=1)[:, None]
    r = np.arange(1, t + 1)[None, :]
    need = np.maximum(r - f_o, 0)
    cl += need
    uu = 0.0 if math.isinf(u) else u  # u = inf is handled by the caller
    with np.errstate(divide="ignore", invalid="ignore"):
        rest = o + need * (uu + 1.0) / (t - f_o + 1.0)
    c = np.where(seen, srt + 1.0, rest)
    return cl, c


def _first_seen(bits: np.ndarray, ev_rows: np.ndarray, starts: np.ndarray,
                ev_cols: np.ndarray, ev: _Events) -> np.ndarray:
    """First-seen ranks of all ideal units for each outcome row of ``bits``."""
    n = bits.shape[0]
    fs = np.broadcast_to(ev.first_certain, (n, ev.t)).copy()
    if len(ev_rows):
        vals = np.where(bits, ev_rows[None, :], ev.o)
        mins = np.minimum.reduceat(vals, starts, axis=1)
        ucols = ev_cols[starts]
        fs[:, ucols] = np.minimum(fs[:, ucols], mins)
    return fs


def _uncertain_events(ev: _Events) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Events with 0 < p < 1, sorted by (column, row); group starts per column."""
    unc = ev.probs < 1.0
    rows, cols, probs = ev.rows[unc], ev.cols[unc], ev.probs[unc]
    order = np.lexsort((rows, cols))
    rows, cols, probs = rows[order], cols[order], probs[order]
    starts = np.flatnonzero(np.r_[True, cols[1:] != cols[:-1]]) if len(cols) else np.zeros(0, int)
    return rows, cols, probs, starts


def enumerate_precision(nav: Any, u: float = math.inf, *,
                        max_events: int = MAX_ENUM_EVENTS) -> np.ndarray:
    """E[CL(r)] / E[C(r)] for r = 1..t by enumerating every navigation outcome.

    The exact precision of §3.2 (Table III) under Hypotheses 2.1 and 2.2
    only: each uncertain navigation event (0 < P < 1, and able to matter:
    before its target is surely seen) is an independent coin, and all 2^k
    outcomes are weighed by their probabilities.  The unranked part follows
    the classical model as in eq. 5; ``u = inf`` gives 0 where the ranked part
    may fall short of r.

    Raises
    ------
    UsageError
        When more than ``max_events`` uncertain events would be enumerated.

    Examples
    --------
    Table III (ERRATA item 3):

    >>> enumerate_precision([[.4, .4], [.6, .4], [1, 0], [0, 1]]).round(5).tolist()
    [0.69137, 0.64623]
    """
    ev = _events(nav)
    t = ev.t
    if t == 0:
        return np.zeros(0)
    rows, cols, probs, starts = _uncertain_events(ev)
    k = len(rows)
    if k > max_events:
        raise UsageError(f"PRUM(exact=enum): {k} uncertain navigation events, more than "
                         f"{max_events} (2^{k} outcomes); use exact=mc,samples=N")
    total = 1 << k
    chunk = max(1, min(total, (1 << 22) // max(t, k, 1)))
    e_cl = np.zeros(t)
    e_c = np.zeros(t)
    shifts = np.arange(k)
    for start in range(0, total, chunk):
        idx = np.arange(start, min(total, start + chunk))
        bits = ((idx[:, None] >> shifts[None, :]) & 1).astype(bool)
        w = np.where(bits, probs[None, :], 1.0 - probs[None, :]).prod(axis=1)
        cl, c = _outcome_counts(_first_seen(bits, rows, starts, cols, ev), ev.o, t, u)
        e_cl += w @ cl
        e_c += w @ c
    out = e_cl / e_c
    if math.isinf(u):
        out[ev.certain_seen:] = 0.0
    return out


@dataclass
class SimulatedPrecision:
    """Monte Carlo estimate of E[CL(r)]/E[C(r)] (r = 1..t) with standard errors.

    Attributes
    ----------
    precision, stderr : ndarray of shape (t,)
        Ratio estimates and their delta-method standard errors.
    samples, seed : int
        Simulation size and the seed that reproduces it.
    low, high : ndarray of shape (t,)
        Where E[CL]/E[C] can lie when the outcomes no simulated user met
        are mixed back in at their worst (:func:`simulate_precision`);
        equal to ``precision`` when every outcome was met.
    unseen : float
        Probability that a user meets an outcome no simulated user met
        (known exactly from the navigation probabilities).
    rarest_unseen : float
        Probability of the least likely such outcome (0.0 when none).
    """

    precision: np.ndarray
    stderr: np.ndarray
    samples: int
    seed: int
    _replay: Callable[[], Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]] = \
        field(repr=False)
    _mean_c: np.ndarray = field(repr=False)
    _zero: int = field(repr=False)
    low: np.ndarray = field(default_factory=lambda: np.zeros(0))
    high: np.ndarray = field(default_factory=lambda: np.zeros(0))
    unseen: float = 0.0
    rarest_unseen: float = 0.0

    def combination_stderr(self, weights: np.ndarray) -> float:
        """Standard error of ``sum_r weights[r-1] * precision[r-1]``.

        Delta method on the ratio estimators: the influence of a simulated
        user is ``sum_r w_r (CL_r - R_r C_r) / mean(C_r)``; its sample
        standard deviation / sqrt(n).  Replays the same simulated users.
        """
        w = np.asarray(weights, dtype=float).copy()
        w[self._zero:] = 0.0
        nz = np.flatnonzero(w)
        if len(nz) == 0 or self.samples < 2:
            return 0.0
        s1 = 0.0
        s2 = 0.0
        for cl, c, _ in self._replay():
            psi = ((cl[:, nz] - self.precision[nz] * c[:, nz]) / self._mean_c[nz]) @ w[nz]
            s1 += float(psi.sum())
            s2 += float((psi * psi).sum())
        n = self.samples
        var = max(s2 - s1 * s1 / n, 0.0) / (n - 1)
        return math.sqrt(var / n)

    def interpolated(self, level: float | str | Fraction) -> tuple[float, float]:
        """Interpolated precision at ``level`` and its standard error."""
        if len(self.precision) == 0:
            return 0.0, 0.0
        j = argmax_at(self.precision, level)
        return float(self.precision[j]), float(self.stderr[j])

    def mean(self) -> tuple[float, float]:
        """11-level mean (PRUM) and its standard error."""
        t = len(self.precision)
        if t == 0:
            return 0.0, 0.0
        w = np.zeros(t)
        for lv in LEVELS:
            w[argmax_at(self.precision, lv)] += 1.0 / len(LEVELS)
        return float(w @ self.precision), self.combination_stderr(w)

    def bounds(self, r: int | None = None, level: float | str | Fraction | None = None
               ) -> tuple[float, float]:
        """Where the value at recall ``r``, at ``level`` (interpolated), or the
        11-level mean can lie given the outcomes no simulated user met.

        Interpolation takes a maximum over r >= ceil(level t), so the bounds
        of an interpolated value are the maxima of the bounds.
        """
        t = len(self.precision)
        if t == 0 or (r is not None and r > t):
            return 0.0, 0.0
        if r is not None:
            return float(self.low[r - 1]), float(self.high[r - 1])
        levels = [level] if level is not None else list(LEVELS)
        lo = hi = 0.0
        for lv in levels:
            r0 = min_recall(lv, t)
            lo += float(np.max(self.low[r0 - 1:]))
            hi += float(np.max(self.high[r0 - 1:]))
        return lo / len(levels), hi / len(levels)


def mc_samples(spec: MeasureSpec) -> int | None:
    """Simulated users of a ``PRUM(exact=mc,...)`` measure, None for others.

    >>> from graphprum.measures.registry import parse_measure
    >>> mc_samples(parse_measure("PRUM(exact=mc,samples=500)")), mc_samples(parse_measure("AP"))
    (500, None)
    """
    if spec.name.upper() != "PRUM" or spec.params.get("exact") != "mc":
        return None
    return spec.param("samples", int, 1000)


def mc_work(samples: int, ranked_lengths: Sequence[int]) -> int:
    """Steps of simulation (users times ranked results, at least one result
    per (run, topic)) of ``samples`` users over rankings of these lengths.

    >>> mc_work(1000, [10, 0, 5])
    16000
    """
    return samples * sum(max(int(n), 1) for n in ranked_lengths)


def check_mc_cost(specs: Sequence[MeasureSpec], ranked_lengths: Sequence[int],
                  force: bool = False) -> None:
    """UsageError when an ``exact=mc`` measure would simulate more than
    :data:`MC_WORK_LIMIT` steps (unless ``force``); the message gives the
    estimate.

    >>> from graphprum.measures.registry import parse_measure
    >>> try:
    ...     check_mc_cost([parse_measure("PRUM(exact=mc,samples=1000000000)")], [1500])
    ... except UsageError as exc:
    ...     print(str(exc)[35:98])
    1.5e+12 simulation steps (samples x ranked results), about 21 h
    """
    seen: set[int] = set()
    for spec in specs:
        samples = mc_samples(spec)
        if samples is None or samples in seen:
            continue
        seen.add(samples)  # measures with the same samples share one simulation
        work = mc_work(samples, ranked_lengths)
        if work > MC_WORK_LIMIT and not force:
            raise UsageError(f"{spec}: {work:.2g} simulation steps (samples x ranked results), "
                             f"about {_duration(work * MC_SECONDS_PER_STEP)}; more than the "
                             f"{MC_WORK_LIMIT:.0e} graphprum starts without --force: lower "
                             f"samples, or add --force")


def _duration(seconds: float) -> str:
    """``seconds`` in the largest fitting unit.

    >>> _duration(40), _duration(4000), _duration(4e5), _duration(4e8)
    ('40 s', '67 min', '4.6 days', '13 years')
    """
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.0f} h"
    if seconds < 2 * 365 * 86400:
        return f"{seconds / 86400:.2g} days"
    return f"{seconds / (365 * 86400):.2g} years"


def simulate_precision(nav: Any, u: float = math.inf, *, samples: int = 1000,
                       seed: int | None = 0,
                       progress: Callable[[float], None] | None = None) -> SimulatedPrecision:
    """E[CL(r)]/E[C(r)] (§3.2, no Hypothesis 2.3) by simulating ``samples`` users.

    Each simulated user draws every uncertain navigation event as an
    independent Bernoulli (vectorised over users); the ranked part gives
    CL(r), C(r) exactly as in :func:`enumerate_precision`.  The ratio of
    means is reported with its delta-method standard error
    ``sd(CL - R C) / (mean(C) sqrt(n))``.  ``progress(fraction)`` is
    called as chunks of users are simulated.

    The delta method only sees outcomes that occurred: when an event's
    rarer outcome (probability m = min(p, 1 - p)) never occurred among the
    n users -- likely when n m < 3 -- the standard error may be 0 while the
    estimate is off (an event of probability .9995 followed by all of 1000
    users).  The probabilities are known, so the probability q that a user
    meets at least one outcome no simulated user met is exact:
    q = 1 - prod(1 - m) over those events.  Mixing such users back in at
    their worst -- CL in [0, r], C up to o + r (u + 1)/(t + 1), the largest
    number of consultations eq. 5 allows for recall r (o when u is
    infinite) -- bounds the true value:
    ``low = (1-q) a / ((1-q) c + q C_max)`` and
    ``high = ((1-q) a + q r) / ((1-q) c + q r)``, with a, c the simulated
    means of CL and C.  These are :attr:`SimulatedPrecision.low` and
    :attr:`SimulatedPrecision.high`.

    Examples
    --------
    >>> res = simulate_precision([[.4, .4], [.6, .4], [1, 0], [0, 1]], samples=20000, seed=1)
    >>> bool(abs(res.precision[1] - 0.64623) < 4 * res.stderr[1])
    True
    """
    if samples < 1:
        raise UsageError(f"PRUM(exact=mc): samples must be >= 1, got {samples}")
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    ev = _events(nav)
    t = ev.t
    zero = ev.certain_seen if math.isinf(u) else t
    if t == 0:
        empty = np.zeros(0)
        return SimulatedPrecision(empty, empty, samples, seed, lambda: iter(()), empty, 0)
    rows, cols, probs, starts = _uncertain_events(ev)
    k = len(rows)
    chunk = max(1, min(samples, (1 << 22) // max(t, k, 1)))

    def replay() -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        rng = np.random.default_rng(seed)
        for start in range(0, samples, chunk):
            n = min(chunk, samples - start)
            bits = rng.random((n, k)) < probs[None, :]
            yield (*_outcome_counts(_first_seen(bits, rows, starts, cols, ev), ev.o, t, u),
                   bits)

    rare = probs < 0.5  # the rarer outcome of each event: happening (p < .5) or not
    met = np.zeros(k, dtype=bool)
    s_cl = np.zeros(t)
    s_c = np.zeros(t)
    s_cl2 = np.zeros(t)
    s_c2 = np.zeros(t)
    s_clc = np.zeros(t)
    done = 0
    for cl, c, bits in replay():
        met |= (bits == rare[None, :]).any(axis=0)
        done += len(cl)
        if progress is not None:
            progress(done / samples)
        s_cl += cl.sum(axis=0)
        s_c += c.sum(axis=0)
        s_cl2 += (cl * cl).sum(axis=0)
        s_c2 += (c * c).sum(axis=0)
        s_clc += (cl * c).sum(axis=0)
    n = samples
    m_cl, m_c = s_cl / n, s_c / n
    ratio = m_cl / m_c
    if n > 1:
        # sample variance of psi = CL - R C, from the accumulated moments
        ss = (s_cl2 - 2 * ratio * s_clc + ratio**2 * s_c2) - n * (m_cl - ratio * m_c) ** 2
        stderr = np.sqrt(np.maximum(ss, 0.0) / (n - 1) / n) / m_c
    else:
        stderr = np.zeros(t)
    ratio[zero:] = 0.0
    stderr[zero:] = 0.0
    m = np.minimum(probs, 1.0 - probs)[~met]
    q = float(-np.expm1(np.sum(np.log1p(-m)))) if len(m) else 0.0
    r = np.arange(1, t + 1, dtype=float)
    c_max = np.full(t, float(ev.o)) if math.isinf(u) else ev.o + r * (u + 1.0) / (t + 1.0)
    low = (1 - q) * m_cl / ((1 - q) * m_c + q * c_max)
    high = ((1 - q) * m_cl + q * r) / ((1 - q) * m_c + q * r)
    if q == 0.0:
        low = high = ratio.copy()
    low[zero:] = 0.0
    high[zero:] = 0.0
    return SimulatedPrecision(ratio, stderr, samples, seed, replay, m_c, zero, low, high, q,
                              float(m.min()) if len(m) else 0.0)


# --------------------------------------------------------------------------
# the family (DESIGN §1.6)


#: P(ranked[i] -> ideal[x]) under the ``--nav`` models (:func:`navigation_matrix`).
NAVIGATION: CacheKind[sp.csr_array] = CacheKind("navigation from ranked to ideal units")
#: The same as the navigation events of eq. 5 (:func:`navigation_events`).
EVENTS: CacheKind[_Events] = CacheKind("navigation events from ranked to ideal units")
#: Precision at each recall (eq. 5, or E[CL]/E[C] with exact=enum), by ``exact``.
PRECISION: CacheKind[np.ndarray] = CacheKind("PRUM precision at each recall")
#: The simulated users of ``exact=mc``, by (samples, seed).
SIMULATED: CacheKind[SimulatedPrecision] = CacheKind("PRUM simulation")


def navigation_matrix(ctx: TopicContext) -> sp.csr_array:
    """P of eq. 5 for the topic of ``ctx``: ``P[i, x]``, the probability that
    a user consulting the i-th ranked unit reaches ideal unit x under the
    ``--nav`` models, computed once per topic and shared by every measure
    that reads it (PRUM, PRUM-success).

    Returns a ``scipy.sparse`` array of shape (ranked, ideal).
    """
    return ctx.cache.get(NAVIGATION, None, lambda: ctx.nav(ctx.ranked, ctx.ideal))


def navigation_events(ctx: TopicContext) -> _Events:
    """The events of :func:`navigation_matrix` that eq. 5 reads, once per
    topic; when no ``--nav`` model browses (the classical model) they are
    read off the ranking directly (:func:`self_events`), without a matrix."""
    if not any(model.browses for model in ctx.models):
        return ctx.cache.get(EVENTS, None, lambda: self_events(ctx.ranked, ctx.ideal))
    return ctx.cache.get(EVENTS, None, lambda: _events(navigation_matrix(ctx)))


def compute(m: Measure, ctx: TopicContext) -> float | Value:
    """Value of a PRUM measure for the topic of ``ctx``.

    Names: ``PRUM`` (mean over 11 levels), ``PRUM@L`` (interpolated at
    level L in [0, 1]), ``PRUM(r=K)`` (precision at integer recall K, eq. 5,
    not interpolated; 0.0 when K > |I| since that recall cannot be reached);
    with ``exact=enum`` or ``exact=mc,samples=N[,seed=S]`` (default
    samples=1000, seed=0) the E[CL]/E[C] of §3.2 replaces eq. 5 and, for mc,
    the value comes with its standard error.
    A topic without ideal units scores 0.0.  u = N - |ranked| (at least 0).
    """
    r, level, exact = m["r"], m.level, m["exact"]
    samples, seed = m["samples"], m["seed"]
    ideal = ctx.ideal
    if not ideal:
        return Value(0.0, 0.0) if exact == "mc" else 0.0
    nav = navigation_events(ctx)
    u = max(float(ctx.collection_size) - len(ctx.ranked), 0.0)

    if exact == "mc":
        res = ctx.cache.get(SIMULATED, (samples, seed), lambda: simulate_precision(
            nav, u, samples=samples, seed=seed, progress=ctx.progress))
        if r is not None:
            value, err = (float(res.precision[r - 1]), float(res.stderr[r - 1])) \
                if r <= len(res.precision) else (0.0, 0.0)
        elif level is not None:
            value, err = res.interpolated(level)
        else:
            value, err = res.mean()
        low, high = res.bounds(r, level)
        half = max(value - low, high - value) / 2.0
        if res.unseen > 0 and half > err:
            note = (
                f"{m}: topic {ctx.topic}: some navigation outcomes never occurred among the "
                f"{samples:,} simulated users (probability {res.unseen:.3g} that a user meets "
                f"one); the value may lie anywhere in [{low:.6g}, {high:.6g}], so the stderr "
                f"row reports half that spread, {half:.3g}. Raise samples to at least "
                f"{math.ceil(10 / res.rarest_unseen - 1e-6):,} (10 / {res.rarest_unseen:.3g}, the "
                f"rarest such outcome) or use exact=enum")
            return Value(value, half, note)
        return Value(value, err)

    prec = ctx.cache.peek(PRECISION, exact)
    if prec is None:
        try:
            prec = (enumerate_precision(nav, u) if exact == "enum"
                    else precision_at_recall(nav, u))
        except UsageError as exc:
            raise UsageError(f"measure {m}, topic {ctx.topic}: {exc}") from None
        ctx.cache.put(PRECISION, exact, prec)
    if r is not None:
        return float(prec[r - 1]) if r <= len(prec) else 0.0
    if level is not None:
        return interpolated(prec, level)
    return prum_mean(prec)


def _one_of_r_and_level(m: Measure) -> None:
    if m["r"] is not None and m.level is not None:
        raise UsageError(f"measure {m}: give either r=K or @L, not both")


FAMILIES = (
    Family(
        "PRUM", compute,
        "precision of a user who navigates from the ranked units (eq. 5), "
        "interpolated over recall levels (§3.1)",
        params={
            "r": Param(int, None, "precision at integer recall K (eq. 5), not interpolated; "
                                  "0 when K exceeds the ideal units", minimum=1),
            "exact": Param(str, None, "E[CL]/E[C] of §3.2 without Hypothesis 2.3: enum "
                                      "enumerates every navigation outcome (at most "
                                      f"{MAX_ENUM_EVENTS} uncertain events), mc simulates "
                                      "users and adds a stderr row",
                           choices=("enum", "mc")),
            "samples": Param(int, 1000, "simulated users", minimum=1,
                             requires=("exact", "mc")),
            "seed": Param(int, 0, "seed of the simulation", requires=("exact", "mc")),
        },
        cutoff="level",
        curve=Curve("level", "interpolated precision (PRUM)"),
        examples=(
            ("PRUM", "mean of PRUM@L over L = 0.0, 0.1, ..., 1.0"),
            ("PRUM@0.5", "interpolated precision at recall level 0.5"),
            ("PRUM(r=2)", "precision at integer recall 2, eq. 5"),
            ("PRUM(exact=enum)", "the mean with E[CL]/E[C] by enumeration"),
            ("PRUM(exact=mc,samples=1000,seed=0)@0.5", "E[CL]/E[C] at level 0.5 by "
             "simulating 1000 users, with a stderr row"),
        ),
        validate=_one_of_r_and_level,
    ),
)
