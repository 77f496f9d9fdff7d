"""Relevant in context (INEX 2006 §6): P(a), R(a), F(a), gP@k, gR@k, AgP.

A run's elements are grouped by article (document), articles ranked by the
first appearance of one of their elements.  Per article the retrieved text is
the union of its retrieved elements (an element inside another retrieved
element of the same article adds nothing; for the non-overlapping sets the
task asks for this is exactly eqs. 9-10's sums).  A range run's results are
passages of articles, read the same way: an article's retrieved text is the
union of its passages, whose highlighted characters are rsize and whose
length is size (:func:`~graphprum.measures.inex_base.first_retrieved`).

Examples
--------
>>> f = article_f(np.array([30., 0.]), np.array([60., 10.]), np.array([40., 0.]))
>>> f.round(4).tolist()
[0.6, 0.0]
>>> gp = generalized_precision(np.array([.5, 0., 1.]))
>>> gp.tolist()
[0.5, 0.25, 0.5]
>>> average_gp(gp, np.array([True, False, True]), 3)
0.3333333333333333
"""

from __future__ import annotations

import numpy as np

from graphprum.context import CacheKind, TopicContext
from graphprum.measures.declare import Curve, Family, Measure
from graphprum.measures.inex_base import (
    first_retrieved,
    ranked_spans,
    recall_base,
    run_rows,
    topic_assessment,
)

#: (F per ranked article, relevance per ranked article, Numrel) of a run and topic.
ARTICLE_SCORES: CacheKind[tuple[np.ndarray, np.ndarray, int]] = CacheKind("RiC article scores")


def article_f(rsize: np.ndarray, size: np.ndarray, trel: np.ndarray) -> np.ndarray:
    """F(a) (eq. 11) from per-article sums of rsize, size and Trel(a).

    P(a) = rsize/size (eq. 9), R(a) = rsize/Trel (eq. 10); F = 0 when
    either is 0 (non-relevant article or nothing relevant retrieved).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(size > 0, rsize / np.where(size > 0, size, 1), 0.0)
        r = np.where(trel > 0, rsize / np.where(trel > 0, trel, 1), 0.0)
        f = np.where(p + r > 0, 2 * p * r / np.where(p + r > 0, p + r, 1), 0.0)
    return f


def generalized_precision(f: np.ndarray) -> np.ndarray:
    """gP[r] = sum of F(a_i) for i <= r, divided by r (eq. 12)."""
    return np.cumsum(f) / np.arange(1, len(f) + 1) if len(f) else np.zeros(0)


def average_gp(gp: np.ndarray, rel: np.ndarray, numrel: int) -> float:
    """AgP: gP averaged over the ranks of relevant articles, 0 for the unretrieved."""
    return float(gp[rel].sum() / numrel) if numrel else 0.0


def article_scores(ctx: TopicContext) -> tuple[np.ndarray, np.ndarray, int]:
    """(F per ranked article, relevance per ranked article, Numrel), cached."""
    cached = ctx.cache.peek(ARTICLE_SCORES, None)
    if cached is not None:
        return cached
    ta = topic_assessment(ctx, "the relevant in context measures (gP, gR, AgP)")
    # articles numbered by first appearance in the ranking (= their rank)
    index: dict[str, int] = {}
    article = np.fromiter((index.setdefault(u.partition("#")[0], len(index))
                           for u in ctx.ranked), dtype=np.int64, count=len(ctx.ranked))
    n_art = len(index)
    ranked_names = list(index)
    trel = np.array([ta.trel(d) for d in ranked_names], dtype=np.float64)
    if ctx.spans is not None:  # a range run: ranges of articles
        doc, spans = ranked_spans(ctx)
        highlights = {int(d): ta.ranges[name] for d, name in zip(doc.tolist(), ctx.ranked,
                                                                  strict=True)
                      if name in ta.ranges}
        new, rel = first_retrieved(doc, spans, highlights)
        out = (article_f(np.bincount(article, weights=rel, minlength=n_art),
                         np.bincount(article, weights=new, minlength=n_art), trel),
               trel > 0, len(ta.relevant_docs()))
        ctx.cache.put(ARTICLE_SCORES, None, out)
        return out
    rows = run_rows(ctx)
    rb = recall_base(ctx)
    pos = rb.locate(rows)
    known = rows >= 0
    # union per article: drop elements inside another retrieved element
    r = np.unique(rows[known])
    keep_rows = r
    if len(r):
        end = r + ctx.table.columns["size"][r]
        reach = np.maximum.accumulate(end)
        inside = np.zeros(len(r), dtype=bool)
        inside[1:] = r[1:] < reach[:-1]
        keep_rows = r[~inside]
    keep = known & np.isin(rows, keep_rows)
    # first occurrence only, in case of repeats
    _, first_idx = np.unique(rows, return_index=True)
    once = np.zeros(len(rows), dtype=bool)
    once[first_idx] = True
    keep &= once
    rs = np.where(pos >= 0, rb.rsize[np.maximum(pos, 0)], 0.0) if len(rb.rows) else \
        np.zeros(len(rows))
    sz = np.where(known, ctx.table.columns["length"][np.maximum(rows, 0)], 0.0)
    art_r = np.bincount(article[keep], weights=rs[keep], minlength=n_art)
    art_s = np.bincount(article[keep], weights=sz[keep], minlength=n_art)
    f = article_f(art_r, art_s, trel)
    out = (f, trel > 0, len(ta.relevant_docs()))
    ctx.cache.put(ARTICLE_SCORES, None, out)
    return out


def compute_gp(m: Measure, ctx: TopicContext) -> float:
    """``gP@k``: generalized precision at article rank k (eq. 12)."""
    k = m.rank
    f, _, _ = article_scores(ctx)
    if k is None:
        k = len(f)
    if k < 1:
        return 0.0
    return float(f[:k].sum() / k)


def compute_gr(m: Measure, ctx: TopicContext) -> float:
    """``gR@k``: generalized recall at article rank k (eq. 13)."""
    k = m.rank
    _, rel, numrel = article_scores(ctx)
    if numrel == 0:
        return 0.0
    return float(rel[: k if k is not None else len(rel)].sum() / numrel)


def compute_agp(m: Measure, ctx: TopicContext) -> float:
    """``AgP``: average generalized precision (§6.2); its mean over topics is MAgP."""
    f, rel, numrel = article_scores(ctx)
    return average_gp(generalized_precision(f), rel, numrel)


_RANKS = ("5", "10", "25", "50")
_NEEDS = ("store", "passages")
#: How gP, gR and AgP read a range run (module notes).
_RANGES = ("taken; a result is retrieved text: an article's is the union of its ranges, F(a) from "
           "its highlighted characters (eqs. 9-11)")

FAMILIES = (
    Family("gP", compute_gp,
           "generalized precision at article rank k: the mean F(a) of the first k "
           "articles (eqs. 9-12)",
           cutoff="rank", expands_to=_RANKS, needs=_NEEDS, ranges=_RANGES,
           curve=Curve("rank", "generalised precision gP"),
           examples=(("gP@10", "gP of the first 10 articles"),
                     ("gP", "gP@5, @10, @25, @50"))),
    Family("gR", compute_gr,
           "generalized recall at article rank k: relevant articles among the first k "
           "over all relevant articles (eq. 13)",
           cutoff="rank", expands_to=_RANKS, needs=_NEEDS, ranges=_RANGES,
           curve=Curve("rank", "generalised recall gR"),
           examples=(("gR@10", "gR of the first 10 articles"),
                     ("gR", "gR@5, @10, @25, @50"))),
    Family("AgP", compute_agp,
           "average generalized precision over the ranks of relevant articles (§6.2); "
           "its mean over topics is MAgP",
           needs=_NEEDS, ranges=_RANGES,
           examples=(("AgP", "AgP of the relevant in context task"),)),
)
