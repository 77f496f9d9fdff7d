"""Poisson-binomial distributions: the law of F_i in PRUM (eq. 7 / 11).

F_i, the number of distinct ideal units a user has seen after consulting the
first i ranks, is a sum of independent Bernoulli variables ``x in S_i`` with
success probabilities ``q_x = P(x in S_i)`` (Hypotheses 2.1 and 2.2).  Its
probability mass function is the convolution of those Bernoulli laws.  PRUM
needs it rank after rank, and eq. 12 needs the leave-one-out laws
``P(F_i = s | x not in S_i)`` (the law without the term of x); this module
provides the pieces to keep them up to date in O(m) per change instead of
recomputing O(m^2) from scratch:

- :func:`add_bernoulli` — convolution with one Bernoulli law;
- :func:`remove_bernoulli` — the inverse (deconvolution), run forwards when
  q <= 1/2 and backwards otherwise so that rounding errors are damped by a
  factor min(q, 1-q)/max(q, 1-q) <= 1 per step instead of amplified;
- :func:`pmf` — the law from scratch (the fallback and the test oracle);
- :func:`normal_pmf` — the normal approximation of PRUM appendix A.1 with the
  mean sum(q) and variance sum(q(1-q)) of ERRATA item 2, discretised with
  P(s - 1/2 < F <= s + 1/2) (the end bins take the tails).

Examples
--------
>>> p = pmf([0.5, 0.5])
>>> p.tolist()
[0.25, 0.5, 0.25]
>>> remove_bernoulli(p, 0.5).tolist()
[0.5, 0.5]
>>> add_bernoulli(remove_bernoulli(p, 0.5), 0.5).tolist()
[0.25, 0.5, 0.25]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.signal import lfilter
from scipy.special import ndtr

__all__ = ["add_bernoulli", "normal_pmf", "pmf", "remove_bernoulli"]


def add_bernoulli(dist: np.ndarray, q: float) -> np.ndarray:
    """Law of X + B where X ~ ``dist`` and B ~ Bernoulli(q) independent.

    Parameters
    ----------
    dist : ndarray of shape (n,)
        P(X = s) for s = 0 .. n-1.
    q : float
        P(B = 1).

    Returns
    -------
    ndarray of shape (n + 1,)

    Examples
    --------
    >>> add_bernoulli(np.array([1.0]), 0.25).tolist()
    [0.75, 0.25]
    """
    out = np.empty(len(dist) + 1)
    out[:-1] = dist * (1.0 - q)
    out[-1] = 0.0
    out[1:] += dist * q
    return out


def remove_bernoulli(dist: np.ndarray, q: float) -> np.ndarray:
    """Law of X given the law of X + B, B ~ Bernoulli(q) independent of X.

    Solves ``dist[s] = (1-q) L[s] + q L[s-1]`` for L.  The recurrence runs
    upwards from s = 0 when q <= 1/2 and downwards from the top when q > 1/2,
    the direction in which it is contractive.  Results are clipped at 0
    (rounding can leave values like -1e-18).

    Parameters
    ----------
    dist : ndarray of shape (n,), n >= 2
        P(X + B = s) for s = 0 .. n-1.
    q : float
        P(B = 1), in [0, 1].

    Returns
    -------
    ndarray of shape (n - 1,)

    Examples
    --------
    >>> remove_bernoulli(np.array([0.75, 0.25]), 0.25).tolist()
    [1.0]
    >>> remove_bernoulli(pmf([0.9, 0.2, 0.7]), 0.9).round(12).tolist()
    [0.24, 0.62, 0.14]
    """
    n = len(dist) - 1
    if q <= 0.5:
        out = lfilter([1.0], [1.0 - q, q], dist[:n])
    else:
        out = lfilter([1.0], [q, 1.0 - q], dist[:0:-1])[::-1]
    return np.maximum(out, 0.0)


def pmf(q: Sequence[float] | np.ndarray) -> np.ndarray:
    """Poisson-binomial law of a sum of independent Bernoulli(q_j), from scratch.

    O(m^2) for m probabilities (eq. 11 computed by convolution).

    Examples
    --------
    >>> pmf([]).tolist()
    [1.0]
    >>> pmf([1.0, 0.5]).tolist()
    [0.0, 0.5, 0.5]
    """
    out = np.ones(1)
    for qj in np.asarray(q, dtype=float):
        out = add_bernoulli(out, float(qj))
    return out


def normal_pmf(mean: float, var: float, lo: int, hi: int, m: int) -> np.ndarray:
    """Normal approximation of a Poisson-binomial law on the values lo .. hi.

    ``P(F = s) ~ Phi((s + 1/2 - mean)/sd) - Phi((s - 1/2 - mean)/sd)`` (PRUM
    appendix A.1, with the mean and variance of ERRATA item 2); the bins at
    0 and at m, the smallest and largest possible values, take the tails.

    Parameters
    ----------
    mean, var : float
        sum(q) and sum(q (1 - q)).
    lo, hi : int
        The values to return, 0 <= lo <= hi <= m.
    m : int
        Number of Bernoulli terms (largest possible value).

    Examples
    --------
    >>> p = normal_pmf(50.0, 25.0, 0, 100, 100)
    >>> round(float(p.sum()), 12), int(p.argmax())
    (1.0, 50)
    """
    s = np.arange(lo, hi + 2, dtype=float) - 0.5
    # var 0: a point mass at round(mean)
    cdf = (s > mean).astype(float) if var <= 0.0 else ndtr((s - mean) / np.sqrt(var))
    if lo == 0:
        cdf[0] = 0.0
    if hi == m:
        cdf[-1] = 1.0
    return np.diff(cdf)
