"""Best in context (INEX 2006 §7): BEPD (eq. 14) and EPRUM (eqs. 15-16).

Setting: one best entry point (BEP) per relevant document, an offset in the
document's text; a list item x reaches at most its own document's BEP b,
with probability ``s(x, b)`` (eq. 14, ERRATA inex 1,
:func:`graphprum.navigation.bep.bep_similarity`), independently of the other
items (the ``bep`` navigation model).  Only the first item of each document
is used (the task returns one entry point per article; later items of an
already listed article are dropped from the list before ranks are counted).
A range run's result is an entry point at its start (INEX 2008 read a
best in context passage run so).

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

from collections.abc import Mapping, Sequence
from fractions import Fraction

import numpy as np

from graphprum.assessments import TopicAssessment
from graphprum.context import CacheKind, TopicContext
from graphprum.errors import InputError
from graphprum.measures.declare import Curve, Family, Measure, Param
from graphprum.measures.inex_base import run_rows, topic_assessment
from graphprum.measures.interpolation import min_recall
from graphprum.navigation.bep import bep_similarity, kind_lengths

#: (s of each first-per-article list item, number of BEPs), by (A, mean length).
BEP_PROBABILITIES: CacheKind[tuple[np.ndarray, int]] = CacheKind("BEP similarities")


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


def eprum_at_level(p: np.ndarray, n_beps: int, level: float | str | Fraction) -> float:
    """Eq. 15 at recall level ℓ in [0, 1]: R = ⌈ℓT⌉ (at least 1), the ceiling
    taken in exact rationals as PRUM's interpolation does
    (:func:`~graphprum.measures.interpolation.min_recall`).

    >>> p = np.array([1.0, 0.0, 0.5])
    >>> eprum_at_level(p, 2, "0.5"), eprum_at_level(p, 2, 1)
    (1.0, 0.3333333333333333)
    """
    if n_beps == 0:
        return 0.0
    return float(eprum_levels(p, n_beps)[min_recall(level, n_beps) - 1])


def eprum_at_rank(p: np.ndarray, k: int) -> float:
    """Eq. 16 at rank k: E[BEPs seen by rank k] / k.

    >>> eprum_at_rank(np.array([1.0, 0.0, 0.5]), 2)
    0.5
    """
    return float(np.sum(p[:k]) / k) if k >= 1 else 0.0


def bep_probabilities(ctx: TopicContext, a: float, mean_length: float | None = None
                      ) -> tuple[np.ndarray, int]:
    """(s of each first-per-article list item, number of BEPs) for ``ctx``."""
    key = (a, mean_length)
    cached = ctx.cache.peek(BEP_PROBABILITIES, key)
    if cached is not None:
        return cached
    ta = topic_assessment(ctx, "the best in context measures (BEPD, EPRUM)")
    first: dict[str, int] = {}  # document -> rank of its first item
    for i, u in enumerate(ctx.ranked):
        first.setdefault(u.partition("#")[0], i)
    idx = np.fromiter(first.values(), dtype=np.int64, count=len(first))
    beps = ta.beps
    bep = np.array([beps.get(d, np.nan) for d in first], dtype=np.float64)
    s = np.zeros(len(idx))
    if ctx.spans is not None:  # a range run: each range's start
        ok = ~np.isnan(bep)
    else:
        rows = run_rows(ctx)[idx] if len(idx) else np.zeros(0, dtype=np.int64)
        ok = (rows >= 0) & ~np.isnan(bep)
    if ok.any():
        start = ctx.spans[idx[ok], 0] if ctx.spans is not None else \
            ctx.table.columns["start"][rows[ok]]
        length: np.ndarray | float
        if mean_length is not None:
            length = mean_length
        else:  # of the whole collection's documents of their kind, not of the view
            docs = ctx.table.columns["doc"][rows[ok]] if ctx.spans is None else np.array(
                [ctx.table.doc_index(d) for d, keep in zip(first, ok, strict=True) if keep],
                dtype=np.int64)
            length = kind_lengths(ctx, docs)
        s[ok] = bep_similarity(start, bep[ok], a, length)
    out = (s, len(ta.beps))
    ctx.cache.put(BEP_PROBABILITIES, key, out)
    return out


def _params(m: Measure) -> tuple[float, float | None]:
    return m["A"], m["L"]


def require_beps(names: Sequence[str], assessments: Mapping[str, TopicAssessment]) -> None:
    """InputError when ``names`` (BEPD, EPRUM) are asked of assessments
    without a single best entry point: every value would be 0, which says
    nothing about the run.

    >>> from graphprum.assessments import TopicAssessment
    >>> require_beps(["BEPD(A=0.1)"], {"1": TopicAssessment("1")})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    graphprum.errors.InputError: passages: the passages have no best entry points: ...
    """
    if names and not any(ta.beps for ta in assessments.values()):
        raise InputError(getattr(assessments, "path", "") or "passages", None,
                         f"the passages have no best entry points: {', '.join(names)} need "
                         f"BEP lines (TOPIC DOC BEP OFFSET)")


def compute_bepd(m: Measure, ctx: TopicContext) -> float:
    """``BEPD(A=..)``: §7.2 with eq. 14 (ERRATA inex 1); ``L=`` overrides the mean length."""
    s, t = bep_probabilities(ctx, *_params(m))
    return bepd(s, t)


def compute_eprum(m: Measure, ctx: TopicContext) -> float:
    """``EPRUM@ℓ`` (a level with a decimal point, eq. 15), ``EPRUM@k`` (an
    integer rank, eq. 16), bare ``EPRUM``: eq. 15 averaged over R = 1..T."""
    s, t = bep_probabilities(ctx, *_params(m))
    if m.level is not None:
        return eprum_at_level(s, t, m.level)
    if m.rank is not None:
        return eprum_at_rank(s, m.rank)
    return float(eprum_levels(s, t).mean()) if t else 0.0


_BEP = {"A": Param(float, 0.1, "A of eq. 14, s = A L / (A L + d): a result at distance "
                               "A L from a best entry point leads to it with probability "
                               "1/2", above=0),
        "L": Param(float, None, "the mean document length of eq. 14; by default the "
                                "collection's, in characters", above=0)}
_NEEDS = ("store", "passages", "beps")
#: How BEPD and EPRUM read a range run (module notes).
_RANGES = "taken; a result is an entry point at its start"

FAMILIES = (
    Family("BEPD", compute_bepd,
           "best entry point distance: the mean over the best entry points of s(x, b) of "
           "the first listed element of each article (§7.2, eq. 14)",
           params=_BEP, needs=_NEEDS, ranges=_RANGES,
           examples=(("BEPD(A=0.1)", "BEPD with A = 0.1"),
                     ("BEPD(A=10)", "a user who reads far: A = 10"))),
    Family("EPRUM", compute_eprum,
           "PRUM with the bep navigation model: precision at recall level (eq. 15) or "
           "at rank (eq. 16), averaged over recall when bare",
           params=_BEP, cutoff="rank|level", needs=_NEEDS, ranges=_RANGES,
           curve=Curve("level", "EPRUM precision"),
           examples=(("EPRUM(A=0.1)", "eq. 15 averaged over R = 1..T best entry points"),
                     ("EPRUM@0.5", "eq. 15 at recall level 0.5"),
                     ("EPRUM@10", "eq. 16 at rank 10"))),
)

#: Families that read the best entry points of passage assessments.
BEP_FAMILIES = tuple(f.name for f in FAMILIES)
