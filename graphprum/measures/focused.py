"""Focused retrieval by characters: interpolated precision iP[x] and its mean
MAiP (Kamps, Pehcevski, Kazai, Lalmas, Robertson, INEX 2007, LNCS 4862).

The INEX 2007 focused task let systems return any passage (and, as
before, elements); its measures count text, not results: how much of what
a user reads is highlighted, and how much of the highlighted text has been
read.  For one topic and its ranked list ``p_1 .. p_n`` (ranges of
documents, or units read as their spans, DESIGN §1.2):

    rsize(p_i) = highlighted characters of p_i not retrieved by p_1 .. p_{i-1}
    size(p_i)  = characters of p_i not retrieved by p_1 .. p_{i-1}
    P[r] = sum_{i <= r} rsize(p_i) / sum_{i <= r} size(p_i)    (0 while that is 0)
    R[r] = sum_{i <= r} rsize(p_i) / Trel
    iP[x] = max { P[r] : R[r] >= x }                           (0 when no r reaches x)
    AiP   = (1/101) sum_{x = 0.00, 0.01, ..., 1.00} iP[x]
    MAiP  = the mean of AiP over topics

Trel is the number of highlighted characters of the topic (every assessed
document's).  Characters retrieved earlier in the list count once: a
passage that repeats text read above it adds only its new characters to
both sums, so overlapping results gain nothing from their overlap.  The
comparison ``R[r] >= x`` is made in exact rationals (``x = k/100``:
``100 rsize >= k Trel``), so a list that reaches a level exactly is
credited at it.  A topic without highlighted text scores 0.

Names: ``iP@x`` (x a recall level in [0, 1]; bare ``iP`` stands for the
levels INEX 2007 reported, ``iP@0.00``, ``@0.01``, ``@0.05``, ``@0.10``)
and ``MAiP`` (its per-topic value is AiP; the mean over topics, the
``all`` row, is MAiP, as with ``MAep``).  Both need passage assessments
(``--passages``) and the store (the ranges' documents, the units' spans).

Examples
--------
A document d of 100 characters, highlighted [20, 60), and a document e
highlighted [0, 10): Trel = 50.  The list d[10, 30), d[25, 45), e[50, 60),
e[0, 20):

====  ==========  =======  ===========  ===========
rank  new chars   of them  P[r]         R[r]
          (size)  (rsize)
====  ==========  =======  ===========  ===========
1     20          10       10/20        10/50
2     15 [30,45)  15       25/35 = 5/7  25/50
3     10           0       25/45        25/50
4     20          10       35/65 = 7/13 35/50
====  ==========  =======  ===========  ===========

iP[x] = 5/7 for x <= 0.5 (ranks 2-4 reach it, rank 2 is the most precise),
7/13 for 0.5 < x <= 0.7, 0 above: AiP = (51 · 5/7 + 20 · 7/13) / 101 =
4295/9191.

>>> spans = np.array([[10., 30.], [25., 45.], [50., 60.], [0., 20.]])
>>> doc = np.array([0, 0, 1, 1])
>>> curve = precision_recall(doc, spans, {0: np.array([[20., 60.]]), 1: np.array([[0., 10.]])},
...                          50.0)
>>> curve.rsize.tolist(), curve.size.tolist()
([10.0, 25.0, 25.0, 35.0], [20.0, 35.0, 45.0, 65.0])
>>> [round(interpolated_precision(curve, Fraction(k, 100)), 4) for k in (0, 50, 51, 70, 71)]
[0.7143, 0.7143, 0.5385, 0.5385, 0.0]
>>> average_interpolated_precision(curve) == 4295 / 9191
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from graphprum.context import CacheKind, TopicContext
from graphprum.measures.declare import Curve, Family, Measure
from graphprum.measures.inex_base import first_retrieved, ranked_spans, topic_assessment

__all__ = ["PrecisionRecall", "average_interpolated_precision", "interpolated_precision",
           "precision_recall"]

#: The recall levels AiP averages over: 0.00, 0.01, ..., 1.00.
LEVELS = 101


@dataclass(frozen=True)
class PrecisionRecall:
    """The cumulative characters of a ranked list (module notes).

    Attributes
    ----------
    rsize, size : numpy.ndarray
        ``sum_{i <= r} rsize(p_i)`` and ``sum_{i <= r} size(p_i)`` at each rank r.
    trel : float
        Highlighted characters of the topic.
    """

    rsize: np.ndarray
    size: np.ndarray
    trel: float

    def precision(self) -> np.ndarray:
        """P[r] at every rank (0 while nothing is retrieved)."""
        out: np.ndarray = np.divide(self.rsize, self.size, out=np.zeros(len(self.size)),
                                    where=self.size > 0)
        return out


def precision_recall(doc: np.ndarray, spans: np.ndarray, highlights: Mapping[int, np.ndarray],
                     trel: float) -> PrecisionRecall:
    """P and R of a ranked list: its results' documents (codes, -1 for a
    result with no span) and ``[start, end)``, the documents' merged
    highlighted ranges, and Trel."""
    new, rel = first_retrieved(doc, spans, highlights)
    return PrecisionRecall(np.cumsum(rel), np.cumsum(new), float(trel))


def _reach(curve: PrecisionRecall, level: Fraction) -> int:
    """The first rank (0-based) where R[r] >= level, exactly; len when none."""
    need = level.numerator * curve.trel  # R >= p/q  <=>  q rsize >= p Trel
    return int(np.searchsorted(curve.rsize * level.denominator, need, side="left"))


def _best_after(curve: PrecisionRecall) -> np.ndarray:
    """max P[r'] over r' >= r, for every r (and 0 after the last)."""
    p = curve.precision()
    return np.concatenate([np.maximum.accumulate(p[::-1])[::-1], [0.0]])


def interpolated_precision(curve: PrecisionRecall, level: Fraction) -> float:
    """iP[x] (module notes): R is non-decreasing, so the ranks reaching x are
    those from the first that does."""
    if curve.trel <= 0:
        return 0.0
    return float(_best_after(curve)[_reach(curve, level)])


def average_interpolated_precision(curve: PrecisionRecall) -> float:
    """AiP: iP averaged over the 101 levels 0.00, 0.01, ..., 1.00."""
    if curve.trel <= 0:
        return 0.0
    best = _best_after(curve)
    reach = np.searchsorted(curve.rsize * (LEVELS - 1), np.arange(LEVELS) * curve.trel,
                            side="left")
    return math.fsum(best[reach].tolist()) / LEVELS


#: P and R of a run's ranked list for a topic.
CURVE: CacheKind[PrecisionRecall] = CacheKind("iP precision and recall by characters")


def topic_curve(ctx: TopicContext) -> PrecisionRecall:
    """:func:`precision_recall` of ``ctx``'s ranking, cached."""
    def make() -> PrecisionRecall:
        ta = topic_assessment(ctx, "iP and MAiP")
        doc, spans = ranked_spans(ctx)
        names = ctx.table.docs["name"]
        highlights = {int(d): ta.ranges[names[d]] for d in np.unique(doc[doc >= 0]).tolist()
                      if names[d] in ta.ranges}
        trel = sum(ta.trel(d) for d in ta.ranges)
        return precision_recall(doc, spans, highlights, trel)

    return ctx.cache.get(CURVE, None, make)


def compute_ip(m: Measure, ctx: TopicContext) -> float:
    """``iP@x``: interpolated precision at recall level x by characters."""
    assert m.level is not None  # (bare iP expands to its levels)
    return interpolated_precision(topic_curve(ctx), m.level)


def compute_maip(m: Measure, ctx: TopicContext) -> float:
    """``MAiP``: AiP of one topic; its mean over topics is MAiP."""
    return average_interpolated_precision(topic_curve(ctx))


_NEEDS = ("store", "passages")
_RANGES = ("taken; a result is retrieved text: its characters not retrieved above it count "
           "(a unit is its span)")

FAMILIES = (
    Family("iP", compute_ip,
           "interpolated precision at recall level x by characters: the best precision "
           "(highlighted characters read over characters read) once recall reaches x",
           cutoff="level", expands_to=("0.00", "0.01", "0.05", "0.10"), needs=_NEEDS,
           ranges=_RANGES, curve=Curve("level", "interpolated precision iP"),
           examples=(("iP@0.01", "iP at 1% recall, INEX 2007's official focused measure"),
                     ("iP", "iP@0.00, @0.01, @0.05, @0.10"))),
    Family("MAiP", compute_maip,
           "mean average interpolated precision: iP averaged over the recall levels 0.00, "
           "0.01, ..., 1.00 (AiP), its mean over topics MAiP",
           needs=_NEEDS, ranges=_RANGES,
           examples=(("MAiP", "MAiP of the INEX 2007 focused task"),)),
)
