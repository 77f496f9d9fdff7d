"""Poisson-binomial distributions: the law of F_i in PRUM (eqs. 7, 11).

F_i, the number of distinct ideal units a user has seen after consulting the
first i ranks, is a sum of independent Bernoulli variables ``x in S_i`` with
success probabilities ``q_x = P(x in S_i)`` (Hypotheses 2.1 and 2.2).  Its
probability mass function is the convolution of those Bernoulli laws.

- :func:`pmf` — the law from scratch: convolution for few terms, otherwise
  the characteristic function at the roots of unity inverted by FFT;
- :func:`normal_grid` — the normal approximation of PRUM appendix A.1 with
  the mean sum(q) and variance sum(q(1-q)) of ERRATA item 2, discretised as
  P(s - 1/2 < F <= s + 1/2) (the bins at 0 and m take the tails), on a
  window of values for many laws at once.

PRUM's rank-by-rank update (each rank changes a few q) lives in
:mod:`graphprum.measures.prum`; it uses the same characteristic-function
representation, in the log domain.

Examples
--------
>>> pmf([0.5, 0.5]).tolist()
[0.25, 0.5, 0.25]
>>> p = normal_grid(np.array([50.0]), np.array([25.0]), np.array([0]), 101, np.array([100]))
>>> round(float(p.sum()), 12), int(p.argmax())
(1.0, 50)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["add_bernoulli", "normal_grid", "pmf"]

_DFT_MIN = 24  # below this many terms, plain convolution is faster


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


def pmf(q: Sequence[float] | np.ndarray) -> np.ndarray:
    """Poisson-binomial law of a sum of independent Bernoulli(q_j), from scratch.

    O(m^2) for m probabilities (eq. 11): convolution for small m, else the
    characteristic function at the (m+1)-th roots of unity inverted by FFT
    (one vectorised product instead of m calls; absolute error ~ m eps).

    Examples
    --------
    >>> pmf([]).tolist()
    [1.0]
    >>> pmf([1.0, 0.5]).tolist()
    [0.0, 0.5, 0.5]
    >>> q = np.linspace(0.01, 0.99, 40)
    >>> bool(np.abs(pmf(q) - np.convolve(pmf(q[:20]), pmf(q[20:]))).max() < 1e-14)
    True
    """
    q = np.asarray(q, dtype=float)
    m = len(q)
    if m <= _DFT_MIN:
        out = np.ones(1)
        for qj in q:
            out = add_bernoulli(out, float(qj))
        return out
    w = np.exp(-2j * np.pi * np.arange(m // 2 + 1) / (m + 1))
    char = np.ones(len(w), dtype=complex)
    for lo in range(0, m, 256):
        qs = q[lo:lo + 256, None]
        char *= np.prod(1.0 - qs + qs * w[None, :], axis=0)
    return np.maximum(np.fft.irfft(char, n=m + 1), 0.0)


def normal_grid(mean: np.ndarray, var: np.ndarray, lo: np.ndarray, width: int,
                m: np.ndarray) -> np.ndarray:
    """Normal approximations of Poisson-binomial laws on windows of values.

    Row j is ``P(F = lo[j] + k)``, k = 0 .. width-1, for a law with mean
    ``mean[j]``, variance ``var[j]`` and m[j] terms:
    ``Phi((s + 1/2 - mean)/sd) - Phi((s - 1/2 - mean)/sd)``, the bins at 0
    and m[j] taking the tails, 0 beyond m[j] (PRUM appendix A.1, ERRATA
    item 2).  A variance of 0 gives a point mass at the rounded mean.

    Examples
    --------
    >>> normal_grid(np.array([1.0]), np.array([0.0]), np.array([0]), 3, np.array([2])).tolist()
    [[0.0, 1.0, 0.0]]
    """
    from scipy.special import ndtr

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
    return np.diff(cdf, axis=1)
