"""Best in context (INEX 2006 §7): BEPD (eq. 14) and EPRUM (eqs. 15-16).

Setting: one best entry point (BEP) per relevant document, an offset in the
document's text; a list item x reaches at most its own document's BEP b,
with probability ``s(x, b)`` (eq. 14, ERRATA inex 1,
:func:`graphprum.navigation.bep.bep_similarity`), independently of the other
items (the ``bep`` navigation model).  Only the first item of each document
is used (the task returns one entry point per article; later items of an
already listed article are dropped from the list before ranks are counted).

EPRUM exactly: with T BEPs, a recall level ℓ means R = ⌈ℓT⌉ BEPs.  Over all
lists the minimum number of items that reach R BEPs is R (a list of BEPs).
Each BEP is reached by one item only, so the number of BEPs seen after rank
i is a sum of independent Bernoulli(p_j), j <= i, and the user stops at the
first rank m where it reaches R:
``P(m = i) = P(count_{i-1} = R-1) · p_i``.  Eq. 15 is then
``Σ_i P(m = i) · R / i`` -- computed for every R at once by dynamic
programming over (rank, BEPs seen), O(T) per relevant item.  Eq. 16 at rank
k is ``E[count_k] / k = Σ_{i<=k} p_i / k``.

Examples
--------
>>> p = np.array([1.0, 0.0, 0.5])
>>> eprum_levels(p, 2).round(4).tolist()
[1.0, 0.3333]
>>> bepd(p, 2)
0.75
"""

from __future__ import annotations

import math
import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from graphprum.measures.inex_base import run_rows, topic_assessment
from graphprum.navigation.bep import bep_similarity, mean_document_length

if TYPE_CHECKING:
    from graphprum.context import TopicContext
    from graphprum.measures.registry import MeasureSpec


def bepd(s: np.ndarray, n_beps: int) -> float:
    """BEPD: sum of s over the listed articles divided by the number of BEPs (§7.2)."""
    return float(np.sum(s) / n_beps) if n_beps else 0.0


def eprum_levels(p: np.ndarray, n_beps: int) -> np.ndarray:
    """Eq. 15 precision for R = 1..T BEPs (index R-1), exact.

    ``p[i]`` is the probability that item i reaches its (own, not yet
    reachable by any other item) BEP.

    Checked against enumeration in the tests.
    """
    t = n_beps
    prec = np.zeros(t)
    if t == 0:
        return prec
    dist = np.zeros(t + 1)
    dist[0] = 1.0
    big_r = np.arange(1, t + 1)
    for i in np.flatnonzero(p > 0):
        pi = float(p[i])
        prec += dist[:t] * pi * big_r / (i + 1)
        new = dist * (1 - pi)
        new[1:] += dist[:-1] * pi
        dist = new
    return prec


def eprum_at_level(p: np.ndarray, n_beps: int, level: float) -> float:
    """Eq. 15 at recall level ℓ in (0, 1]: R = ⌈ℓT⌉ (at least 1)."""
    if n_beps == 0:
        return 0.0
    r = max(1, math.ceil(level * n_beps - 1e-9))
    r = min(r, n_beps)
    return float(eprum_levels(p, n_beps)[r - 1])


def eprum_at_rank(p: np.ndarray, k: int) -> float:
    """Eq. 16 at rank k: E[BEPs seen by rank k] / k.

    >>> eprum_at_rank(np.array([1.0, 0.0, 0.5]), 2)
    0.5
    """
    return float(np.sum(p[:k]) / k) if k >= 1 else 0.0


def bep_probabilities(ctx: TopicContext, a: float, mean_length: float | None = None
                      ) -> tuple[np.ndarray, int]:
    """(s of each first-per-article list item, number of BEPs) for ``ctx``."""
    key = ("inex_bep", a, mean_length)
    if key in ctx.extra:
        return ctx.extra[key]
    ta = topic_assessment(ctx)
    first: dict[str, int] = {}  # document -> rank of its first item
    for i, u in enumerate(ctx.ranked):
        first.setdefault(u.partition("#")[0], i)
    idx = np.fromiter(first.values(), dtype=np.int64, count=len(first))
    rows = run_rows(ctx)[idx] if len(idx) else np.zeros(0, dtype=np.int64)
    beps = ta.beps
    bep = np.array([beps.get(d, np.nan) for d in first], dtype=np.float64)
    s = np.zeros(len(idx))
    ok = (rows >= 0) & ~np.isnan(bep)
    if ok.any():
        table = ctx.table
        if mean_length is None:
            mean_length = _mean_length(table)
        s[ok] = bep_similarity(table.columns["start"][rows[ok]], bep[ok], a, mean_length)
    out = (s, len(ta.beps))
    ctx.extra[key] = out
    return out


_MEAN_LENGTH: list = []  # [(weak reference to the last table asked for, its L)]


def _mean_length(table: Any) -> float:
    """:func:`mean_document_length`, computed once per table (an O(documents) pass)."""
    if not _MEAN_LENGTH or _MEAN_LENGTH[0][0]() is not table:
        _MEAN_LENGTH[:] = [(weakref.ref(table), mean_document_length(table))]
    return _MEAN_LENGTH[0][1]


def _params(spec: MeasureSpec) -> tuple[float, float | None]:
    from graphprum.errors import UsageError

    a = spec.param("A", float, 0.1)
    if not a > 0:
        raise UsageError(f"measure {spec}: A must be > 0")
    return a, spec.param("L", float, None)


#: Families that read the best entry points of passage assessments.
BEP_FAMILIES = ("BEPD", "EPRUM")


def require_beps(names: list[str], assessments: Any) -> None:
    """InputError when ``names`` (BEPD, EPRUM) are asked of assessments
    without a single best entry point: every value would be 0, which says
    nothing about the run.

    >>> from graphprum.assessments import TopicAssessment
    >>> require_beps(["BEPD(A=0.1)"], {"1": TopicAssessment("1")})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    graphprum.errors.InputError: passages: the passages have no best entry points: ...
    """
    from graphprum.errors import InputError

    if names and not any(ta.beps for ta in assessments.values()):
        raise InputError(getattr(assessments, "path", "") or "passages", None,
                         f"the passages have no best entry points: {', '.join(names)} need "
                         f"BEP lines (TOPIC DOC BEP OFFSET)")


def compute_bepd(spec: MeasureSpec, ctx: TopicContext) -> float:
    """``BEPD(A=..)``: §7.2 with eq. 14 (ERRATA inex 1); ``L=`` overrides the mean length."""
    s, t = bep_probabilities(ctx, *_params(spec))
    return bepd(s, t)


def compute_eprum(spec: MeasureSpec, ctx: TopicContext) -> float:
    """``EPRUM@ℓ`` (a level with a decimal point, eq. 15), ``EPRUM@k`` (an
    integer rank, eq. 16), bare ``EPRUM``: eq. 15 averaged over R = 1..T."""
    s, t = bep_probabilities(ctx, *_params(spec))
    cut = spec.cutoff
    if cut is None:
        return float(eprum_levels(s, t).mean()) if t else 0.0
    if any(c in cut for c in ".eE"):
        return eprum_at_level(s, t, spec.cutoff_as(float))
    return eprum_at_rank(s, spec.cutoff_as(int))
