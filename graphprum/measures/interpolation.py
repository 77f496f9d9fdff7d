"""Ceiling interpolation of precision at recall levels (PRUM §3.1, TREC).

A precision curve known at integer recall r = 1..t becomes a value at a
recall level L in [0, 1] by taking the best precision at any recall that
reaches L: ``max(precision(r) for r >= ceil(L t))``, r >= 1.  The 11-point
mean averages that over L = 0.0, 0.1, ..., 1.0.  PRUM (eq. 5 and the
E[CL]/E[C] of §3.2), T2I-PR (T2I eq. 5) and EPRUM (INEX 2006 eq. 15, R =
ceil(L T)) turn levels into recall counts with the same rule, computed in
exact rationals so that ``0.3 * 10`` is 3, not 3.0000000000000004.

Examples
--------
>>> interpolated(np.array([1.0, 0.5, 0.6]), "0.5"), min_recall("0.5", 3)
(0.6, 2)
>>> prum_mean(np.array([1.0, 0.5, 0.6]))  # (4 x 1.0 + 7 x 0.6) / 11: levels 0-0.3 reach r = 1
0.7454545454545454
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from graphprum.errors import UsageError

__all__ = ["LEVELS", "argmax_at", "as_level", "interpolated", "min_recall", "prum_mean"]

#: Recall levels of the 11-level mean, as exact rationals.
LEVELS: tuple[Fraction, ...] = tuple(Fraction(k, 10) for k in range(11))


def as_level(level: float | str | Fraction) -> Fraction:
    """``level`` as an exact rational in [0, 1] (a float through its shortest repr).

    >>> as_level(0.3), as_level("1/4")
    (Fraction(3, 10), Fraction(1, 4))
    """
    if isinstance(level, Fraction):
        f = level
    else:
        try:
            f = Fraction(str(level).strip())
        except (ValueError, ZeroDivisionError):
            raise UsageError(f"recall level {level!r} is not a number") from None
    if not 0 <= f <= 1:
        raise UsageError(f"recall level {level} is outside [0, 1]")
    return f


def min_recall(level: float | str | Fraction, t: int) -> int:
    """Smallest integer recall r >= 1 with r >= level * t, computed exactly.

    >>> min_recall(0.3, 10), min_recall("0.25", 9), min_recall(0, 7)
    (3, 3, 1)
    """
    f = as_level(level) * t
    return max(1, -(-f.numerator // f.denominator))


def interpolated(precision: np.ndarray, level: float | str | Fraction) -> float:
    """Ceiling-interpolated precision at recall level ``level`` (§3.1).

    ``max(precision(r) for r >= ceil(level * t))``, r >= 1, with level * t
    computed in exact rationals (``0.3 * 10`` is 3, not 3.0000000000000004).
    0.0 when t = 0.

    This differs from trec_eval's ``iprec_at_recall`` only in how the level
    becomes a recall count: trec_eval uses ``(long)(level * R + 0.9)`` in
    doubles, which is our ceiling except when level * R has a fractional
    part in (0, 0.1] (e.g. level 0.205 and R = 10: trec_eval r >= 2, here
    r >= 3; for the eleven standard levels only fractional part 0.1, where
    trec_eval's result depends on the rounding of the double).

    Examples
    --------
    >>> interpolated(np.array([0.5, 1.0, 0.2]), 0.0)
    1.0
    >>> interpolated(np.array([0.5, 1.0, 0.2]), 0.7)
    0.2
    """
    t = len(precision)
    if t == 0:
        return 0.0
    r0 = min_recall(level, t)
    return float(np.max(precision[r0 - 1:]))


def prum_mean(precision: np.ndarray) -> float:
    """PRUM: mean of the interpolated precision at recall levels 0.0, 0.1, ..., 1.0.

    >>> prum_mean(np.array([1.0]))
    1.0
    """
    t = len(precision)
    if t == 0:
        return 0.0
    best = np.maximum.accumulate(np.asarray(precision)[::-1])[::-1]  # max over r' >= r
    # LEVELS are k/10: ceil(k t / 10) in integers
    return float(np.mean(best[[max(1, -(-k * t // 10)) - 1 for k in range(11)]]))


def argmax_at(precision: np.ndarray, level: float | str | Fraction) -> int:
    """0-based r index achieving the interpolated precision at ``level``.

    >>> argmax_at(np.array([0.5, 1.0, 0.2]), 0.0), argmax_at(np.array([0.5, 1.0, 0.2]), 0.7)
    (1, 2)
    """
    r0 = min_recall(level, len(precision))
    return r0 - 1 + int(np.argmax(precision[r0 - 1:]))
