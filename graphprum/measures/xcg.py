"""The XCG measures of INEX 2006 §4-5: xCG, nxCG, effort-precision, MAep.

Pure functions over numpy arrays for one topic, the gain vectors of a topic,
and the families' functions (``compute_xcg``, ...).

Two settings (the ``task`` parameter of every measure):

* ``thorough`` -- gains are the elements' spec (eq. 3) and the ideal gain
  vector is the full recall-base sorted by decreasing spec (eq. 4); overlap
  is ignored (§4).
* ``focused`` -- gains are normalised by eq. 8 against the ideal recall-base
  (§5.2): the gains credited to the elements overlapping one ideal element
  add up to at most that element's spec; the ideal gain vector is the ideal
  recall-base sorted by decreasing spec.

Defaults: ``xCG``/``nxCG`` focused, ``ep``/``MAep`` thorough (as INEX 2006
reported them).

The assessments are passages (``--passages``: spec from the highlighted
text, eq. 1) or, without passages, the qrels read as graded element
assessments as INEX 2005 had them: an element's gain is its grade
(``ctx.grade``) in the place of spec, the recall-bases built from the judged
elements by the same rules (:func:`graphprum.measures.inex_base.derive_graded`).

Examples
--------
>>> xcg = np.cumsum([0.5, 0.0, 1.0])
>>> xci = np.cumsum([1.0, 0.5])
>>> nxcg_at(xcg, xci, 1), nxcg_at(xcg, xci, 3)
(0.5, 1.0)
"""

from __future__ import annotations

import numpy as np

from graphprum.context import CacheKind, TopicContext
from graphprum.errors import UsageError
from graphprum.measures.declare import Curve, Family, Measure, Param
from graphprum.measures.grp import topic_xcg_alpha
from graphprum.measures.inex_base import (
    RecallBase,
    graded_recall_base,
    ignore_param,
    recall_base,
    run_rows,
)

_EPS = 1e-12
#: (run gains, cumulated ideal gains xCI, recall-base size), by (task, ignored tags).
GAIN_VECTORS: CacheKind[tuple[np.ndarray, np.ndarray, int]] = CacheKind("xCG gain vectors")


def focused_gains(spec: np.ndarray, owner: np.ndarray, budget: np.ndarray) -> np.ndarray:
    """Eq. 8 normalised gains of a ranked list.

    Parameters
    ----------
    spec : numpy.ndarray
        xG of every list item (eq. 3; 0 for non-relevant items).
    owner : numpy.ndarray of int
        Index of the ideal element each item overlaps (-1: none, gain 0).
    budget : numpy.ndarray
        xG of every ideal element.

    Notes
    -----
    ``xG_norm[j] = min(xG[j], xG[j_ideal]) - sum_S`` where the sum runs over
    the gains already credited to earlier items overlapping the same ideal
    element, clipped at 0: the credited gains of one ideal element's group
    never exceed its xG.  Vectorised: a stable sort by owner and a grouped
    cumulative sum.

    >>> focused_gains(np.array([.5, .5, .6, .3]), np.array([0, 0, 0, -1]),
    ...               np.array([.6])).round(3).tolist()
    [0.5, 0.1, 0.0, 0.0]
    """
    n = len(spec)
    gains = np.zeros(n)
    has = owner >= 0
    if not has.any():
        return gains
    idx = np.flatnonzero(has)
    own = owner[idx]
    g = np.minimum(spec[idx], budget[own])
    order = np.argsort(own, kind="stable")
    g_sorted, own_sorted = g[order], own[order]
    csum = np.cumsum(g_sorted)
    first = np.ones(len(order), dtype=bool)
    first[1:] = own_sorted[1:] != own_sorted[:-1]
    group_start = np.maximum.accumulate(np.where(first, np.arange(len(order)), 0))
    base = np.where(group_start > 0, csum[group_start - 1], 0.0)
    within = csum - base  # running sum inside the group, item included
    b = budget[own_sorted]
    credited = np.minimum(within, b) - np.minimum(within - g_sorted, b)
    out = np.empty(len(order))
    out[order] = np.maximum(credited, 0.0)
    gains[idx] = out
    return gains


def nxcg_at(xcg: np.ndarray, xci: np.ndarray, k: int) -> float:
    """nxCG[k] = xCG[k] / xCI[k] (eq. 7); vectors shorter than k stay flat.

    0 when the ideal vector is empty (no relevant element).
    """
    if len(xci) == 0 or k < 1:
        return 0.0
    got = xcg[min(k, len(xcg)) - 1] if len(xcg) else 0.0
    ideal = xci[min(k, len(xci)) - 1]
    return float(got / ideal) if ideal > 0 else 0.0


def effort_points(gains: np.ndarray, xci: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gain-recall and effort-precision at the ranks where gain is obtained.

    ``gr[i] = xCG[i] / xCI[n]`` (eq. 6) and ``ep[i] = i_ideal / i`` (eq. 5),
    where ``i_ideal`` is the first rank at which the ideal vector reaches
    ``xCG[i]``.  Only ranks with a positive gain are natural points.

    >>> gr, ep = effort_points(np.array([0., 1., .5]), np.cumsum([1., .5]))
    >>> gr.tolist(), ep.tolist()
    ([0.6666666666666666, 1.0], [0.5, 0.6666666666666666])
    """
    if len(xci) == 0 or xci[-1] <= 0:
        return np.zeros(0), np.zeros(0)
    xcg = np.cumsum(gains)
    ranks = np.flatnonzero(gains > 0)
    reached = xcg[ranks]
    i_ideal = np.searchsorted(xci, reached * (1 - 1e-9) - _EPS, side="left") + 1
    i_ideal = np.minimum(i_ideal, len(xci))
    return reached / xci[-1], i_ideal / (ranks + 1.0)


def ep_at(level: float, gr: np.ndarray, ep: np.ndarray) -> float:
    """Interpolated effort-precision at gain-recall ``level``: max ep at gr >= level.

    >>> ep_at(0.7, np.array([.5, .8, 1.]), np.array([1., .5, .75]))
    0.75
    >>> ep_at(0.7, np.array([.5]), np.array([1.]))
    0.0
    """
    ok = gr >= level - 1e-12
    return float(ep[ok].max()) if ok.any() else 0.0


def average_ep(ep: np.ndarray, n_relevant: int) -> float:
    """MAep for one topic (§4.2 with ERRATA inex 2): the sum of ep at the ranks
    where relevant elements are retrieved, divided by the number of relevant
    elements (0 for those never retrieved).

    >>> average_ep(np.array([1., .5]), 4)
    0.375
    """
    denom = max(n_relevant, len(ep))
    return float(ep.sum() / denom) if denom else 0.0


# --- per-topic preparation -------------------------------------------------

def gain_vectors(ctx: TopicContext, task: str, ignore: tuple[str, ...] = ()
                 ) -> tuple[np.ndarray, np.ndarray, int]:
    """(run gains, cumulated ideal gains xCI, recall-base size) for ``ctx``:
    from its passage assessments, or from its qrels when it has none."""
    key = (task, ignore)
    cached = ctx.cache.peek(GAIN_VECTORS, key)
    if cached is not None:
        return cached
    rb = recall_base(ctx, ignore) if ctx.assessments is not None else \
        graded_recall_base(ctx, ignore)
    rows = run_rows(ctx)
    pos = rb.locate(rows)
    spec = np.where(pos >= 0, rb.spec[np.maximum(pos, 0)], 0.0) if len(rb.rows) else \
        np.zeros(len(rows))
    if task == "thorough":
        gains = spec
        ideal_spec = rb.spec[rb.relevant]
    else:
        owner, budget = _owners(ctx, rb, rows, pos)
        gains = focused_gains(spec, owner, budget)
        ideal_spec = rb.spec[rb.ideal]
    xci = np.cumsum(np.sort(ideal_spec)[::-1])
    out = (gains, xci, len(ideal_spec))
    ctx.cache.put(GAIN_VECTORS, key, out)
    return out


def _owners(ctx: TopicContext, rb: RecallBase, rows: np.ndarray, pos: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray]:
    """Ideal element each retrieved relevant element is charged to (eq. 8's j_ideal).

    An element inside (or equal to) an ideal element is charged to it; an
    ancestor of ideal elements to the first of them in document order.
    """
    size = ctx.table.columns["size"]
    ideal_rows = rb.rows[rb.ideal]
    budget = rb.spec[rb.ideal]
    owner = np.full(len(rows), -1, dtype=np.int64)
    if len(ideal_rows) == 0:
        return owner, budget
    rel = (pos >= 0) & np.where(pos >= 0, rb.relevant[np.maximum(pos, 0)], False)
    r = rows[rel]
    ideal_end = ideal_rows + size[ideal_rows]
    k = np.searchsorted(ideal_rows, r, side="right") - 1
    inside = (k >= 0) & (r < ideal_end[np.maximum(k, 0)])
    k2 = np.searchsorted(ideal_rows, r, side="left")
    k2c = np.minimum(k2, len(ideal_rows) - 1)
    holds = (k2 < len(ideal_rows)) & (ideal_rows[k2c] < r + size[r])
    owner[rel] = np.where(inside, k, np.where(holds, k2c, -1))
    return owner, budget


# --- the families ------------------------------------------------------------

def compute_xcg(m: Measure, ctx: TopicContext) -> float:
    """``xCG@k``: cumulated gain at rank k (eq. 2; eq. 8 gains when focused);
    with ``alpha=``, PRUM app. C.3 (:func:`graphprum.measures.grp.topic_xcg_alpha`)."""
    if m.given("alpha"):
        return topic_xcg_alpha(m, ctx)
    k = m.rank
    gains, _, _ = gain_vectors(ctx, m["task"], ignore_param(m["ignore"]))
    return float(gains[: k if k is not None else len(gains)].sum())


def compute_nxcg(m: Measure, ctx: TopicContext) -> float:
    """``nxCG@k``: eq. 7, the run's xCG over the ideal xCI at rank k."""
    k = m.rank
    gains, xci, _ = gain_vectors(ctx, m["task"], ignore_param(m["ignore"]))
    if k is None:
        k = len(gains)
    return nxcg_at(np.cumsum(gains), xci, k)


def compute_ep(m: Measure, ctx: TopicContext) -> float:
    """``ep@L``: interpolated effort-precision at gain-recall L (eqs. 5-6)."""
    level = float(m.level) if m.level is not None else 1.0
    gains, xci, _ = gain_vectors(ctx, m["task"], ignore_param(m["ignore"]))
    gr, ep = effort_points(gains, xci)
    return ep_at(level, gr, ep)


def compute_maep(m: Measure, ctx: TopicContext) -> float:
    """``MAep``: non-interpolated average effort-precision (§4.2, ERRATA inex 2)."""
    gains, xci, n = gain_vectors(ctx, m["task"], ignore_param(m["ignore"]))
    _, ep = effort_points(gains, xci)
    return average_ep(ep, n)


def _task(default: str) -> Param:
    return Param(str, default, "thorough: gains are the elements' spec (eq. 3), overlap "
                               "ignored; focused: eq. 8 gains against the ideal recall-base",
                 choices=("thorough", "focused"))


def _size_with_alpha(m: Measure) -> None:
    if m.given("size") and not m.given("alpha"):
        raise UsageError(f"measure {m}: size only goes with alpha (PRUM app. C.3)")


#: ``ignore=``: tags too small to count (§8.1).
IGNORE = Param(str, None, "tags whose elements are left out of the recall-base, "
                          "|-separated (§8.1: collectionlink|weblink)")
_RANKS = ("5", "10", "25", "50")
_NEEDS = ("store", "assessments")

FAMILIES = (
    Family("xCG", compute_xcg,
           "cumulated gain at rank k (eq. 2; focused: eq. 8 gains); with alpha=, PRUM "
           "app. C.3's xCG(alpha)",
           params={"task": _task("focused"), "ignore": IGNORE,
                   "alpha": Param(float, None, "PRUM app. C.3: how much a user minds seeing "
                                               "an element again (1: not rewarded at all); "
                                               "q from the qrels", minimum=0, maximum=1),
                   "size": Param(str, None, "sizes of app. C.3 (default length)",
                                 choices=("length", "words"))},
           cutoff="rank", needs=_NEEDS, validate=_size_with_alpha,
           curve=Curve("rank", "xCG", bounded=False),
           examples=(("xCG@10", "focused cumulated gain of the first 10 results"),
                     ("xCG(alpha=1)@10", "PRUM app. C.3's xCG(1) at rank 10"))),
    Family("nxCG", compute_nxcg,
           "normalised cumulated gain: xCG@k over the ideal xCI@k (eq. 7)",
           params={"task": _task("focused"), "ignore": IGNORE},
           cutoff="rank", expands_to=_RANKS, needs=_NEEDS, curve=Curve("rank", "nxCG"),
           examples=(("nxCG@10", "nxCG at rank 10, focused gains"),
                     ("nxCG", "nxCG@5, @10, @25, @50 (INEX 2006 focused task)"))),
    Family("ep", compute_ep,
           "interpolated effort-precision at gain-recall L (eqs. 5-6)",
           params={"task": _task("thorough"), "ignore": IGNORE},
           cutoff="level", expands_to=tuple(f"{i / 10:.1f}" for i in range(11)),
           needs=_NEEDS, curve=Curve("level", "effort-precision"),
           examples=(("ep@0.5", "effort-precision at gain-recall 0.5"),
                     ("ep", "ep@0.0, ep@0.1, ..., ep@1.0"))),
    Family("MAep", compute_maep,
           "non-interpolated mean average effort-precision (§4.2, ERRATA inex 2)",
           params={"task": _task("thorough"), "ignore": IGNORE}, needs=_NEEDS,
           examples=(("MAep", "MAep of the INEX 2006 thorough task"),)),
)
