"""GRP, GRPng and xCG(α) as PRUM appendix C defines them (PRUM §4.2 compares them).

* GRP (app. C.1, eq. 19): Raghavan's precision with quantised relevance
  ``q`` in [0, 1]; the unranked rest of the collection is one last rank.
* GRPng (app. C.2): recall and precision weighted by the share of each
  element not seen before (unseen length).
* xCG(α) (app. C.3): cumulated relevance values ``rv`` with overlap
  handled by α and the ideal-element constraint.

The registered measures take q from the qrels (``ctx.grade``); GRPng uses it
for both exhaustivity and specificity unless the qrels give INEX 2005
(E, S) pairs (then q_exh = E/3 and q_spec = S/3, app. C.2's q) or passage
assessments give ``spec`` (then q_exh = 1 for elements with highlighted
text, q_spec = spec).

Examples
--------
PRUM §4.2 "good engine" (c, b, a with q = 1, .75, .75; recall 2.5):

>>> round(grp(np.array([1., .75, .75]), total=2.5, r=2.5, unranked=3), 4)
0.875
"""

from __future__ import annotations

import bisect
import math

import numpy as np

from graphprum.context import CacheKind, TopicContext
from graphprum.errors import UsageError
from graphprum.measures.declare import Family, Measure, Param
from graphprum.measures.inex_base import recall_base, run_rows

#: GRPng (precision, recall) after each rank.
GRPNG_ARRAYS: CacheKind[tuple[np.ndarray, np.ndarray]] = CacheKind("GRPng curve")


# --- GRP -------------------------------------------------------------------

def grp(q: np.ndarray, total: float, r: float, unranked: float) -> float:
    """Eq. 19 ``r / (r + j + i·s/(k + 1))`` for recall value ``r``.

    Parameters
    ----------
    q : numpy.ndarray
        Quantised relevance of the ranked items, in order.
    total : float
        Sum of q over the whole collection (the recall-base mass).
    r : float
        Recall value wanted (0 < r <= total).
    unranked : float
        Number of collection units not in the list (``math.inf`` allowed);
        they form one last rank holding the remaining mass ``total - f_o``.

    Notes
    -----
    I_r is the first rank with f >= r (f the running sum of q); j sums
    1 - q before it, i and k sum 1 - q and q at it, s = r - f(I_r - 1).
    Precision is 0 when r cannot be reached, and when the last rank is
    needed but the collection size is unknown (infinite).

    >>> round(grp(np.array([1.]), total=3, r=3, unranked=99), 4)   # PRUM §4.2.2: .044
    0.0443
    """
    if r <= 0 or r > total + 1e-9:
        return 0.0
    f = np.cumsum(q)
    reach = np.flatnonzero(f >= r - 1e-9)
    if len(reach):
        at = int(reach[0])
        j = float(np.sum(1 - q[:at]))
        i, k = 1 - float(q[at]), float(q[at])
        s = r - (float(f[at - 1]) if at else 0.0)
    else:
        if math.isinf(unranked):
            return 0.0
        f_o = float(f[-1]) if len(f) else 0.0
        j = float(np.sum(1 - q))
        k = total - f_o
        i = unranked - k
        s = r - f_o
    return float(r / (r + j + i * s / (k + 1)))


# --- GRPng -----------------------------------------------------------------

def unseen_lengths(docs: list[str], starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Length of each item's span not covered by earlier items of its document.

    Amortised O(log n) per item (covered spans kept merged per document).

    >>> unseen_lengths(["d", "d", "d"], np.array([0., 0., 0.]), np.array([10., 40., 60.])).tolist()
    [10.0, 30.0, 20.0]
    """
    cover: dict[str, tuple[list[float], list[float]]] = {}
    out = np.zeros(len(docs))
    for n, (d, s, e) in enumerate(zip(docs, starts.tolist(), ends.tolist(), strict=True)):
        lo_list, hi_list = cover.setdefault(d, ([], []))
        a = bisect.bisect_right(hi_list, s)  # first span ending after s
        b = bisect.bisect_left(lo_list, e)  # first span starting at/after e
        seen = sum(min(e, hi_list[t]) - max(s, lo_list[t]) for t in range(a, b))
        out[n] = max(e - s - seen, 0.0)
        new_lo = min(s, lo_list[a]) if a < b else s
        new_hi = max(e, hi_list[b - 1]) if a < b else e
        lo_list[a:b] = [new_lo]
        hi_list[a:b] = [new_hi]
    return out


def grpng_curve(q_exh: np.ndarray, q_spec: np.ndarray, length: np.ndarray,
                unseen: np.ndarray, total_exh: float) -> tuple[np.ndarray, np.ndarray]:
    """(precision, recall) after each rank, app. C.2.

    ``recall_k = Σ_{i<=k} q_exh_i · unseen_i/length_i / Σ q_exh``;
    ``precision_k = Σ_{i<=k} q_spec_i · unseen_i / Σ_{i<=k} unseen_i``.

    >>> p, r = grpng_curve(np.ones(3), np.array([2/3, 2/3, 1]), np.array([60., 40, 10]),
    ...                    np.array([60., 0, 0]), 3.0)
    >>> round(float(p[-1]), 4), round(float(r[-1]), 4)
    (0.6667, 0.3333)
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = np.where(length > 0, unseen / np.where(length > 0, length, 1), 0.0)
        recall = np.cumsum(q_exh * frac) / total_exh if total_exh > 0 else np.zeros(len(q_exh))
        seen = np.cumsum(unseen)
        precision = np.where(seen > 0, np.cumsum(q_spec * unseen) / np.where(seen > 0, seen, 1),
                             0.0)
    return precision, recall


# --- xCG(alpha) ------------------------------------------------------------

def xcg_alpha(rows: np.ndarray, q: np.ndarray, size: np.ndarray, parent: np.ndarray,
              subtree: np.ndarray, alpha: float, ideal: np.ndarray) -> np.ndarray:
    """Relevance values rv of a ranked list (app. C.3); cumulate for xCG(n).

    Parameters
    ----------
    rows : numpy.ndarray
        Global rows of the list items (-1: unknown, rv 0).
    q : numpy.ndarray
        Quantisation of every row of the table.
    size : numpy.ndarray
        Size (length) of every row.
    parent, subtree : numpy.ndarray
        Table columns ``parent`` and ``size`` (units in the subtree).
    alpha : float
        α in [0, 1].
    ideal : numpy.ndarray of bool
        Ideal rows; the retrieved descendants of an ideal element get at
        most q(ideal) in total.

    Notes
    -----
    ``rv(x) = (1-α) q(x)`` when x or an ancestor was seen;
    ``α Σ_children v(y) size(y)/size(x) + (1-α) q(x)`` when only descendants
    were seen, with v the same rule applied to the children recursively
    (a seen child counts ``(1-α) q``, an untouched child ``q``);
    ``q(x)`` otherwise.  Cost: the subtree of x when x has a seen descendant.

    PRUM §4.2 bad engine (a, b, c), α = 0.5: (.75, .375, .5).

    >>> par = np.array([-1, 0, 1, 1, 1, 0]); sub = np.array([6, 4, 1, 1, 1, 1])
    >>> q = np.array([.75, .75, 1, 0, 0, 0]); ln = np.array([60., 40, 10, 10, 10, 10])
    >>> xcg_alpha(np.array([0, 1, 2]), q, ln, par, sub, 0.5, q == 1).tolist()
    [0.75, 0.375, 0.5]
    """
    seen: set[int] = set()
    budget: dict[int, float] = {}
    out = np.zeros(len(rows))
    for n, x in enumerate(rows.tolist()):
        if x < 0:
            continue
        ancestors = []
        y = int(parent[x])
        while y >= 0:
            ancestors.append(y)
            y = int(parent[y])
        if x in seen or any(a in seen for a in ancestors):
            rv = (1 - alpha) * q[x]
        elif any(z in seen for z in range(x + 1, x + int(subtree[x]))):
            rv = _value(x, q, size, parent, subtree, alpha, seen)
        else:
            rv = float(q[x])
        for a in ancestors:
            if ideal[a]:
                left = budget.setdefault(a, float(q[a]))
                rv = min(rv, left)
        for a in ancestors:
            if ideal[a]:
                budget[a] -= rv
        out[n] = rv
        seen.add(x)
    return out


def _value(x: int, q: np.ndarray, size: np.ndarray, parent: np.ndarray,
           subtree: np.ndarray, alpha: float, seen: set[int]) -> float:
    """v(x) for a node with seen descendants, bottom-up over its subtree."""
    end = x + int(subtree[x])
    child_sum: dict[int, float] = {}
    below: set[int] = set()  # nodes with a seen strict descendant
    v = 0.0
    for y in range(end - 1, x - 1, -1):
        if y in seen:
            v = (1 - alpha) * float(q[y])
        elif y in below:
            v = (alpha * child_sum.get(y, 0.0) / size[y] if size[y] > 0 else 0.0) \
                + (1 - alpha) * float(q[y])
        else:
            v = float(q[y])
        if y == x:
            return float(v)
        p = int(parent[y])
        child_sum[p] = child_sum.get(p, 0.0) + v * float(size[y])
        if y in seen or y in below:
            below.add(p)
    return float(v)


# --- the families ------------------------------------------------------------

def _grades(ctx: TopicContext) -> tuple[np.ndarray, float]:
    q = np.array([ctx.grade(u) for u in ctx.ranked], dtype=np.float64)
    total = float(sum(ctx.grade(u) for u in ctx.qrels))
    return q, total


def compute_grp(m: Measure, ctx: TopicContext) -> float:
    """``GRP`` (recall level 1), ``GRP@L`` (level L), ``GRP(r=K)`` (recall value K)."""
    q, total = _grades(ctx)
    # a unit listed twice counts once
    seen: set[str] = set()
    for n, u in enumerate(ctx.ranked):
        if u in seen:
            q[n] = 0.0
        seen.add(u)
    r = m["r"]
    if r is None:
        r = (float(m.level) if m.level is not None else 1.0) * total
    unranked = ctx.collection_size - len(seen)
    return grp(q, total, r, unranked)


def grpng_arrays(ctx: TopicContext) -> tuple[np.ndarray, np.ndarray]:
    """GRPng (precision, recall) after each rank of ``ctx.ranked``."""
    cached = ctx.cache.peek(GRPNG_ARRAYS, None)
    if cached is not None:
        return cached
    table = ctx.table
    rows = run_rows(ctx)
    known = rows >= 0
    r0 = np.maximum(rows, 0)
    starts = np.where(known, table.columns["start"][r0], 0.0)
    length = np.where(known, table.columns["length"][r0], 0.0)
    docs = [u.partition("#")[0] for u in ctx.ranked]
    unseen = unseen_lengths(docs, starts, starts + length)
    if ctx.assessments is not None:
        rb = recall_base(ctx)
        pos = rb.locate(rows)
        q_spec = np.where(pos >= 0, rb.spec[np.maximum(pos, 0)], 0.0) if len(rb.rows) else \
            np.zeros(len(rows))
        q_exh = (q_spec > 0).astype(np.float64)
        total = float(rb.relevant.sum())
    elif ctx.exh_spec is not None:  # app. C.2: q maps 0..3 to 0, 1/3, 2/3, 1
        pairs = [ctx.exh_spec.get(u, (0, 0)) for u in ctx.ranked]
        q_exh = np.array([e / 3 for e, _ in pairs], dtype=np.float64)
        q_spec = np.array([s / 3 for _, s in pairs], dtype=np.float64)
        total = sum(e / 3 for e, _ in ctx.exh_spec.values())
    else:
        q_exh, total = _grades(ctx)
        q_spec = q_exh
    out = grpng_curve(q_exh, q_spec, length, unseen, total)
    ctx.cache.put(GRPNG_ARRAYS, None, out)
    return out


def compute_grpng(m: Measure, ctx: TopicContext) -> float:
    """``GRPng``: precision after the whole list; ``GRPng(value=recall)``: its
    recall; ``GRPng@L``: precision at the first rank reaching recall L (0 if none)."""
    precision, recall = grpng_arrays(ctx)
    if len(precision) == 0:
        return 0.0
    what = m["value"]
    if m.level is None:
        return float((precision if what == "precision" else recall)[-1])
    level = float(m.level)
    at = np.flatnonzero(recall >= level - 1e-9)
    if len(at) == 0:
        return 0.0
    return float((precision if what == "precision" else recall)[at[0]])


def topic_xcg_alpha(m: Measure, ctx: TopicContext) -> float:
    """``xCG(alpha=..)@n``: app. C.3 cumulated gain at rank n (q from the qrels;
    ``size=words`` uses word counts as sizes); the ``xCG`` family's function
    hands its names with ``alpha=`` here."""
    alpha = m["alpha"] if m["alpha"] is not None else 1.0
    table = ctx.table
    n_rows = len(table)
    q = np.zeros(n_rows)
    ideal = np.zeros(n_rows, dtype=bool)
    judged = list(ctx.qrels)
    if judged:
        jr = ctx.rows(judged)
        ok = jr >= 0
        q[jr[ok]] = [ctx.grade(u) for u, k in zip(judged, ok, strict=True) if k]
        ideal_ids = set(ctx.ideal)
        ideal[jr[ok]] = [u in ideal_ids for u, k in zip(judged, ok, strict=True) if k]
    which = m["size"] or "length"
    size = table.columns[which].astype(np.float64)
    rv = xcg_alpha(run_rows(ctx), q, size, table.columns["parent"], table.columns["size"],
                   alpha, ideal)
    n = m.rank if m.rank is not None else len(rv)
    return float(rv[:n].sum())


def _r_or_level(m: Measure) -> None:
    if m["r"] is not None and m.level is not None:
        raise UsageError(f"measure {m}: give either r=K or @L, not both")


FAMILIES = (
    Family("GRP", compute_grp,
           "Raghavan's precision with quantised relevance q in [0, 1], the unranked rest "
           "of the collection one last rank (app. C.1, eq. 19)",
           params={"r": Param(float, None, "the recall value (sum of q) to reach, instead of "
                                           "a level")},
           cutoff="level", validate=_r_or_level,
           examples=(("GRP", "precision at recall level 1"),
                     ("GRP@0.5", "precision at recall level 0.5"),
                     ("GRP(r=2.5)", "precision at recall value 2.5"))),
    Family("GRPng", compute_grpng,
           "GRP with each element weighted by its share not seen before (app. C.2)",
           params={"value": Param(str, "precision", "which of the pair to report",
                                  choices=("precision", "recall"))},
           cutoff="level", needs=("store",),
           examples=(("GRPng", "precision after the whole list"),
                     ("GRPng(value=recall)", "recall after the whole list"),
                     ("GRPng@0.5", "precision at the first rank reaching recall 0.5"))),
)
