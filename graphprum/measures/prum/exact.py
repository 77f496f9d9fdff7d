"""PRUM precision at recall under Hypothesis 2.3 (eq. 5), for one topic.

Precision at recall r (eq. 5, with the Cooper factor inside term (d) as in
eq. 16, ERRATA item 1)::

    (a) + (b)      (a) = sum_{s<r} sum_{i=1..o} P(F_{i-1}=s) P(F_i>s | F_{i-1}=s)
    ---------      (b) = sum_{s<r} P(F_o=s) (r-s)
    (c) + (d)      (c) = sum_{s<r} sum_{i=1..o} P(F_{i-1}=s)
                   (d) = sum_{s<r} P(F_o=s) (r-s) (1 + (u-(t-s))/(t-s+1))

where F_i counts the distinct ideal units seen after the first i ranks and
u is the size of the unranked part of the list, N - o (``math.inf`` when the
collection size is unknown).  ``P(x in S_i) = 1 - prod_{j<=i} (1 - P[j, x])``
(eq. 6), the law of F_i is the Poisson-binomial of those probabilities
(eqs. 7, 11) and ``P(F_i > s | F_{i-1} = s)`` is eq. 8/12, which needs the
law of F_{i-1} without x (leave-one-out).  The Cooper factor simplifies to
(u+1)/(t-s+1).

``u = inf`` is the limit u -> infinity of eq. 5: precision 0 at every r that
the ranked part does not reach with certainty (P(F_o < r) > 0), and (a)/(c)
otherwise.  With the classical model this is exactly trec_eval: precision at
recall K is K / (rank of the K-th relevant result), and 0 when fewer than K
ideal units are retrieved (Appendix B with u -> infinity).

Examples
--------
Fig. 7 of the paper: a leads to b and c with probability 1, 100 units:

>>> precision_at_recall([[1.0, 1.0]], u=99).tolist()
[1.0, 1.0]

Classical run (c, x, a) for ideal {a, c}; u infinite (trec_eval):

>>> precision_at_recall([[0, 1], [0, 0], [1, 0]]).round(4).tolist()
[1.0, 0.6667]
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphprum.errors import UsageError
from graphprum.measures.prum.events import Events, column_log_products, events

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

_SIGMAS = 9.0  # half-width, in standard deviations, of the normal law's support


def precision_at_recall(nav: Any, u: float = math.inf, *,
                        normal_threshold: int = NORMAL_THRESHOLD) -> np.ndarray:
    """PRUM precision at every integer recall r = 1..t (eq. 5), in one pass.

    Parameters
    ----------
    nav : array_like or scipy.sparse array, shape (o, t), or Events
        ``nav[i, x]``: probability that a user consulting the i-th ranked unit
        reaches ideal unit x (:mod:`graphprum.measures.prum.events`).
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
    ev = events(nav)
    if ev.t == 0:
        return np.zeros(0)
    u = float(u)
    if u < 0:
        raise UsageError(f"PRUM: unranked part size u must be >= 0, got {u}")
    if np.all(ev.probs == 1.0):
        return _deterministic(ev, u)
    a_s, c_s, dist_o = _accumulate(ev, normal_threshold)
    return _assemble(a_s, c_s, dist_o, u, ev.t, ev.certain_seen)


def _deterministic(ev: Events, u: float) -> np.ndarray:
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


def _assemble(a_s: np.ndarray, c_s: np.ndarray, dist_o: np.ndarray, u: float,
              t: int, certain_seen: int) -> np.ndarray:
    """Eq. 5 for r = 1..t from the per-s sums of :func:`_accumulate`.

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
        ratio = (a + b) / (c + d)
    precision: np.ndarray = np.nan_to_num(ratio)
    return precision


# --------------------------------------------------------------------------
# the terms of eq. 5, rank by rank


def _accumulate(ev: Events, normal_threshold: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
    ``normal_threshold`` use the normal approximation instead.  Ranks are
    taken in chunks that keep the complex arrays near 2^21 entries.
    """
    ent = _Entries.of(ev)
    rows = _Rows.of(ev.rows, ent)
    m_max = int(max(rows.m_prev.max(), rows.m_end))
    size = ev.t + 1 + max(m_max, 0) + 2
    a_s = np.zeros(size)
    c_s = np.zeros(size)
    grid = _Grid.of(min(m_max, normal_threshold) + 1)
    carry = np.zeros(grid.width, dtype=complex)  # log char. of F after the rows so far
    for lo, hi, e0, e1 in _chunks(rows.starts, len(ev.rows), max(1, (1 << 21) // grid.width)):
        carry = _add_rows(a_s, c_s, ent, rows, grid, carry, lo, hi, e0, e1, normal_threshold)
    dist_o = np.zeros(size)  # the law of F_o, seen by the ranks after the last active one
    if rows.m_end <= normal_threshold:
        d_end = grid.law(carry[None, :], np.array([rows.m_end]))[0]
        off = rows.c_end
    else:
        mean, var = np.array([rows.mean_end]), np.array([rows.var_end])
        lo_end, width = _normal_window(mean, var, np.array([rows.m_end]))
        d_end = normal_grid(mean, var, lo_end, width, np.array([rows.m_end]))[0]
        off = rows.c_end + int(lo_end[0])
    dist_o[off:off + len(d_end)] = d_end
    c_s += (ev.o - 1 - rows.act[-1]) * dist_o
    t = ev.t
    return a_s[:t + 1], c_s[:t + 1], dist_o[:t + 1]


@dataclass
class _Entries:
    """What each event (row-major) does to the law of F (eq. 6): P(x not
    seen) just before (``nq_old``) and just after it (``nq_new``), their
    complements ``q_old``, ``q_new``, and whether x is uncertain (0 < P < 1)
    before and after."""

    nq_old: np.ndarray
    nq_new: np.ndarray
    q_old: np.ndarray
    q_new: np.ndarray
    old_unc: np.ndarray
    new_unc: np.ndarray

    @classmethod
    def of(cls, ev: Events) -> _Entries:
        nq_old, nq_new = unseen_before_after(ev.cols, ev.probs)
        return cls(nq_old, nq_new, 1.0 - nq_old, 1.0 - nq_new,
                   (nq_old > 0.0) & (nq_old < 1.0), (nq_new > 0.0) & (nq_new < 1.0))


def unseen_before_after(cols: np.ndarray, probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P(x not in S) just before and just after each entry (entries row-major).

    Per column, a running product of (1 - p) in rank order (eq. 6), by
    cumulative sums of log(1 - p) within column groups; p = 1 gives 0.

    >>> unseen_before_after(np.array([0, 0, 1]), np.array([0.5, 0.5, 1.0]))
    (array([1. , 0.5, 1. ]), array([0.5 , 0.25, 0.  ]))
    """
    n = len(cols)
    order, p, lg, cs, off, _ = column_log_products(cols, probs)
    after = np.exp(cs - off)
    before = np.exp(cs - lg - off)
    after[p >= 1.0] = 0.0
    nq_old = np.empty(n)
    nq_new = np.empty(n)
    nq_old[order] = before
    nq_new[order] = after
    return nq_old, nq_new


@dataclass
class _Rows:
    """The active ranks (those with events) and the law of F_{i-1} each sees.

    ``starts[j]``: the first entry of active row j, ``act[j]`` its rank,
    ``row_of[e]`` the active row of entry e.  Before row j: ``m_prev`` units
    uncertain, ``c_prev`` seen for sure, the mean and variance of the
    uncertain part (for the normal law); ``gaps[j]``: the ranks that see
    that law (row j's rank and the inactive ones before it).  ``*_end``:
    the same after the last row (the law of F_o).
    """

    starts: np.ndarray
    act: np.ndarray
    row_of: np.ndarray
    m_prev: np.ndarray
    c_prev: np.ndarray
    mean_prev: np.ndarray
    var_prev: np.ndarray
    gaps: np.ndarray
    m_end: int
    c_end: int
    mean_end: float
    var_end: float

    @classmethod
    def of(cls, ranks: np.ndarray, e: _Entries) -> _Rows:
        new_row = ranks[1:] != ranks[:-1]
        starts = np.flatnonzero(np.r_[True, new_row])
        act = ranks[starts]
        m_prev, m_end = _before(e.new_unc.astype(float) - e.old_unc, starts)
        c_prev, c_end = _before((e.nq_new == 0.0).astype(float), starts)
        mean_prev, mean_end = _before(np.where(e.new_unc, e.q_new, 0)
                                      - np.where(e.old_unc, e.q_old, 0), starts)
        var_prev, var_end = _before(np.where(e.new_unc, e.q_new * e.nq_new, 0)
                                    - np.where(e.old_unc, e.q_old * e.nq_old, 0), starts)
        return cls(starts, act, np.cumsum(np.r_[False, new_row]),
                   m_prev.round().astype(np.int64), c_prev.round().astype(np.int64),
                   mean_prev, var_prev, np.diff(np.r_[-1, act]).astype(float),
                   round(m_end), round(c_end), mean_end, var_end)


def _before(per_entry: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, float]:
    """Per row, the sum of ``per_entry`` over the rows before it; and the total."""
    per_row = np.add.reduceat(per_entry, starts)
    tot = np.cumsum(per_row)
    return tot - per_row, float(tot[-1])


@dataclass
class _Grid:
    """The N-th roots of unity w = exp(-i theta) (N odd, so w = -1 is never
    one) where the characteristic functions of the laws are kept; by
    symmetry only theta in [0, pi] (``width`` points)."""

    n: int
    one_minus_cos: np.ndarray
    sin: np.ndarray

    @classmethod
    def of(cls, n: int) -> _Grid:
        n += 1 - n % 2
        theta = 2.0 * np.pi * np.arange(n // 2 + 1) / n
        return cls(n, (1.0 - np.cos(theta))[None, :], np.sin(theta)[None, :])

    @property
    def width(self) -> int:
        return self.n // 2 + 1

    def log_factor(self, q: np.ndarray) -> np.ndarray:
        """log(1 - q + q w) per q (rows): real part 0.5 log|.|^2 with
        |.|^2 = 1 - 2 q (1-q) (1 - cos theta), imaginary part its argument."""
        qc = q[:, None]
        out = np.empty((len(q), self.width), dtype=complex)
        out.real = 0.5 * np.log1p(-2.0 * qc * (1.0 - qc) * self.one_minus_cos)
        out.imag = np.arctan2(-qc * self.sin, 1.0 - qc * self.one_minus_cos)
        return out

    def law(self, logchar: np.ndarray, m: np.ndarray) -> np.ndarray:
        """Laws from log characteristic functions (rows), zero beyond each support m."""
        out = np.fft.irfft(np.exp(logchar), n=self.n, axis=-1)
        out[np.arange(self.n)[None, :] > np.asarray(m)[:, None]] = 0.0
        return np.maximum(out, 0.0)


def _chunks(starts: np.ndarray, n_entries: int, per_chunk: int
            ) -> Iterator[tuple[int, int, int, int]]:
    """Runs of active rows ``lo..hi-1`` (entries ``e0..e1-1``) of at most
    ``per_chunk`` entries (one row alone may hold more), about a quarter of
    ``per_chunk`` rows each."""
    lo = 0
    while lo < len(starts):
        hi = min(len(starts), lo + max(1, per_chunk // 4))
        e0 = starts[lo]
        e1 = starts[hi] if hi < len(starts) else n_entries
        while hi - lo > 1 and (e1 - e0) > per_chunk:
            hi = lo + (hi - lo) // 2
            e1 = starts[hi]
        yield lo, hi, e0, e1
        lo = hi


def _add_rows(a_s: np.ndarray, c_s: np.ndarray, e: _Entries, rows: _Rows, grid: _Grid,
              carry: np.ndarray, lo: int, hi: int, e0: int, e1: int,
              normal_threshold: int) -> np.ndarray:
    """Add the terms of active rows ``lo..hi-1`` (entries ``e0..e1-1``) to A
    and C; ``carry`` is the log characteristic function before them, and
    the one after them is returned."""
    sl = slice(e0, e1)
    nu, ou = e.new_unc[sl], e.old_unc[sl]
    dlog = np.zeros((e1 - e0, grid.width), dtype=complex)
    if nu.any():
        dlog[nu] += grid.log_factor(e.q_new[sl][nu])
    lf_old = np.zeros_like(dlog)
    if ou.any():
        lf_old[ou] = grid.log_factor(e.q_old[sl][ou])
        dlog -= lf_old
    row_sum = np.add.reduceat(dlog, rows.starts[lo:hi] - e0, axis=0)
    prev = carry + np.cumsum(row_sum, axis=0) - row_sum  # log char. before each row
    rr = np.arange(lo, hi)
    m = rows.m_prev[rr]
    ent_row = rows.row_of[sl] - lo
    delta = e.nq_old[sl] - e.nq_new[sl]
    exact = m <= normal_threshold
    for is_exact, pick in ((True, exact), (False, ~exact)):
        if not pick.any():
            continue
        ri = np.flatnonzero(pick)
        ents = np.flatnonzero(pick[ent_row])
        pos = np.searchsorted(ri, ent_row[ents])  # row of each entry within ri
        unc = ou[ents]
        offset = rows.c_prev[rr][ri]  # the laws' support starts there (+ a window's start)
        if is_exact:
            dist, loo = _exact_laws(grid, prev, lf_old, m, ri, ent_row, ents, pos, unc)
        else:
            dist, loo, shift = _normal_laws(rows.mean_prev[rr][ri], rows.var_prev[rr][ri],
                                            m[ri], e.q_old[sl][ents], pos, unc)
            offset = offset + shift
        _add_rank_terms(a_s, c_s, dist, offset, rows.gaps[rr][ri], loo, pos, delta[ents])
    out: np.ndarray = prev[-1] + row_sum[-1]
    return out


def _exact_laws(grid: _Grid, prev: np.ndarray, lf_old: np.ndarray, m: np.ndarray,
                ri: np.ndarray, ent_row: np.ndarray, ents: np.ndarray, pos: np.ndarray,
                unc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 11 exactly: the laws of F_{i-1} (uncertain part) of rows ``ri``,
    and for each entry the law without its unit (eq. 12's leave-one-out)."""
    dist = grid.law(prev[ri], m[ri])
    loo = dist[pos].copy()
    if unc.any():
        k = ents[unc]
        loo[unc] = grid.law(prev[ent_row[k]] - lf_old[k], m[ent_row[k]] - 1)
    return dist, loo


def _normal_laws(mean: np.ndarray, var: np.ndarray, m: np.ndarray, q_old: np.ndarray,
                 pos: np.ndarray, unc: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The same by the normal approximation (appendix A.1, ERRATA item 2), on
    windows of values starting at ``shift`` (returned); ``q_old`` per entry."""
    shift, width = _normal_window(mean, var, m)
    dist = normal_grid(mean, var, shift, width, m)
    loo = dist[pos].copy()
    if unc.any():
        p, qk = pos[unc], q_old[unc]
        loo[unc] = normal_grid(mean[p] - qk, var[p] - qk * (1 - qk), shift[p], width, m[p] - 1)
    return dist, loo, shift


def _normal_window(mean: np.ndarray, var: np.ndarray,
                   m: np.ndarray) -> tuple[np.ndarray, int]:
    """Start of each row's window of +-_SIGMAS sd, and the common width."""
    sd = np.sqrt(np.maximum(var, 0.0))
    lo = np.maximum(0, np.floor(mean - _SIGMAS * sd - 1)).astype(np.int64)
    hi = np.minimum(m, np.ceil(mean + _SIGMAS * sd + 1)).astype(np.int64)
    return lo, int(max(1, (hi - lo + 1).max()))


def normal_grid(mean: np.ndarray, var: np.ndarray, lo: np.ndarray, width: int,
                m: np.ndarray) -> np.ndarray:
    """Normal approximations of Poisson-binomial laws on windows of values.

    Row j is ``P(F = lo[j] + k)``, k = 0 .. width-1, for a law with mean
    ``mean[j]``, variance ``var[j]`` and m[j] terms:
    ``Phi((s + 1/2 - mean)/sd) - Phi((s - 1/2 - mean)/sd)``, the bins at 0
    and m[j] taking the tails, 0 beyond m[j] (PRUM appendix A.1, with the
    mean sum(q) and variance sum(q(1-q)) of ERRATA item 2).  A variance of
    0 gives a point mass at the rounded mean.

    Examples
    --------
    >>> normal_grid(np.array([1.0]), np.array([0.0]), np.array([0]), 3, np.array([2])).tolist()
    [[0.0, 1.0, 0.0]]
    >>> p = normal_grid(np.array([50.0]), np.array([25.0]), np.array([0]), 101, np.array([100]))
    >>> round(float(p.sum()), 12), int(p.argmax())
    (1.0, 50)
    """
    from scipy.special import ndtr  # many uncertain ideal units only (about 40 ms)

    mean = np.asarray(mean, dtype=float)[:, None]
    sd = np.sqrt(np.maximum(np.asarray(var, dtype=float), 0.0))[:, None]
    m = np.asarray(m)[:, None]
    edges = np.asarray(lo)[:, None] + np.arange(width + 1)[None, :] - 0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(sd > 0, (edges - mean) / np.where(sd > 0, sd, 1.0),
                     np.where(edges > mean, np.inf, -np.inf))
    cdf = ndtr(z)
    cdf[edges < 0] = 0.0
    cdf[edges > m] = 1.0
    out: np.ndarray = np.diff(cdf, axis=1)
    return out


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
