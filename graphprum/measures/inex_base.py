"""INEX assessments and the recall-bases derived from them.

One assessment model serves every reader (:mod:`graphprum.assessments`):
per topic, per document, the highlighted character ranges ``[start, end)``
in the document's text content and an optional best entry point offset.
From these and the stored spans (``start``/``length`` columns of a
:class:`~graphprum.units.UnitTable`) :func:`derive` computes, for every
element of every assessed document,

* ``rsize`` -- highlighted characters inside the element,
* ``size``  -- the element's length,
* ``spec = rsize / size`` (INEX 2006 eq. 1),

with prefix sums over the merged highlight ranges (``np.cumsum`` and
``np.searchsorted``), never a loop over characters.  The *full recall-base*
holds the elements with ``rsize > 0``; the *ideal recall-base* follows
INEX 2006 §5.2 (see :func:`ideal_positions`).

Graded element assessments (INEX 2005 style: qrels ``TOPIC ITER ID REL``
giving each judged element its grade) give the XCG measures their
recall-bases too (:func:`derive_graded`): an element's gain is its grade,
``ctx.grade`` (REL over the topic's largest grade; the generalised
quantisation of ``E S`` qrels), in the place of spec; the full recall-base
is the judged elements with a positive grade and the ideal recall-base is
chosen from them by the same §5.2 rule.  This is how INEX 2005 computed
XCG (xG = the quantised assessment of the element), of which INEX 2006's
eq. 3 (xG = spec) is the highlighting case.

Examples
--------
>>> from graphprum.assessments import TopicAssessment
>>> from graphprum.units import UnitTable
>>> t = UnitTable.from_tree("d", ["a", "b", "c"], [-1, 0, 0], [20, 10, 10])
>>> ta = TopicAssessment("1", {"d": np.array([[10, 15]])})
>>> rb = derive(ta, t)
>>> rb.rsize.tolist(), rb.spec.tolist()
([5.0, 0.0, 5.0], [0.25, 0.0, 0.5])
>>> rb.rows[rb.ideal].tolist()
[2]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphprum.assessments import TopicAssessment, covered_before
from graphprum.context import CacheKind, TopicContext
from graphprum.errors import UsageError
from graphprum.units import UnitTable


@dataclass
class RecallBase:
    """Per-element statistics of the assessed documents of one topic.

    Arrays are aligned with :attr:`rows` (global rows, ascending).

    Attributes
    ----------
    rows : numpy.ndarray
        Every element of every assessed document found in the table.
    rsize, size, spec : numpy.ndarray
        INEX 2006 eq. 1 quantities (ignored tags have rsize = spec = 0).
    relevant : numpy.ndarray of bool
        Full recall-base membership (rsize > 0).
    ideal : numpy.ndarray of bool
        Ideal recall-base membership (§5.2).
    """

    rows: np.ndarray
    rsize: np.ndarray
    size: np.ndarray
    spec: np.ndarray
    relevant: np.ndarray
    ideal: np.ndarray

    def locate(self, rows: np.ndarray) -> np.ndarray:
        """Position of each global row in :attr:`rows`, -1 when not assessed.

        >>> rb = RecallBase(np.array([3, 4, 9]), *([np.zeros(3)] * 3), np.zeros(3, bool),
        ...                 np.zeros(3, bool))
        >>> rb.locate(np.array([4, 5, -1, 9])).tolist()
        [1, -1, -1, 2]
        """
        rows = np.asarray(rows, dtype=np.int64)
        pos = np.searchsorted(self.rows, rows)
        pos = np.minimum(pos, max(len(self.rows) - 1, 0))
        ok = (len(self.rows) > 0) & (rows >= 0)
        if len(self.rows):
            ok = ok & (self.rows[pos] == rows)
        return np.where(ok, pos, -1)


def derive(assessment: TopicAssessment, table: UnitTable,
           ignore_tags: Iterable[str] = ()) -> RecallBase:
    """rsize, size, spec and both recall-bases of one topic.

    Parameters
    ----------
    assessment : TopicAssessment
        Highlighted ranges per document.
    table : UnitTable
        The collection; only the assessed documents' rows are read.
    ignore_tags : iterable of str
        Tags of elements too small to count (INEX 2006 §8.1, e.g. the
        Wikipedia link tags): they get rsize = 0 and so leave both
        recall-bases.

    Notes
    -----
    Cost: linear in the assessed documents' element counts plus the number
    of highlighted ranges (times a log for ``searchsorted``).
    """
    spans = []
    for doc in assessment.docs:
        span = table.doc_rows(doc)
        if span is not None:
            spans.append((doc, span))
    spans.sort(key=lambda s: s[1].start)
    start_col, length_col = table.columns["start"], table.columns["length"]
    row_parts, rsize_parts = [], []
    for doc, span in spans:
        lo, hi = span.start, span.stop
        rows = np.arange(lo, hi, dtype=np.int64)
        ranges = assessment.ranges.get(doc, np.zeros((0, 2)))
        s = start_col[lo:hi]
        e = s + length_col[lo:hi]
        row_parts.append(rows)
        rsize_parts.append(covered_before(ranges, e) - covered_before(ranges, s))
    rows = np.concatenate(row_parts) if row_parts else np.zeros(0, dtype=np.int64)
    rsize = np.concatenate(rsize_parts) if rsize_parts else np.zeros(0)
    size = length_col[rows].astype(np.float64)
    rsize = _ignoring(table, rows, rsize, ignore_tags)
    with np.errstate(divide="ignore", invalid="ignore"):
        spec = np.where(size > 0, rsize / np.where(size > 0, size, 1.0), 0.0)
    return _bases(table, rows, rsize, size, spec)


def _ignoring(table: UnitTable, rows: np.ndarray, values: np.ndarray,
              ignore_tags: Iterable[str]) -> np.ndarray:
    """``values`` (aligned with ``rows``) with 0 where the tag is ignored (§8.1)."""
    ignore = set(ignore_tags)
    if not ignore or not len(rows):
        return values
    codes = [i for i, t in enumerate(table.tags) if t in ignore]
    return np.where(np.isin(table.columns["tag"][rows], codes), 0.0, values)


def _bases(table: UnitTable, rows: np.ndarray, rsize: np.ndarray, size: np.ndarray,
           spec: np.ndarray) -> RecallBase:
    """The :class:`RecallBase` of these statistics: relevant where spec > 0
    (rsize > 0), ideal by :func:`ideal_positions`."""
    relevant = spec > 0
    ideal = np.zeros(len(rows), dtype=bool)
    if relevant.any():
        ideal[ideal_positions(table, rows, spec, relevant)] = True
    return RecallBase(rows, rsize, size, spec, relevant, ideal)


def derive_graded(table: UnitTable, judged: np.ndarray, gains: np.ndarray,
                  ignore_tags: Iterable[str] = ()) -> RecallBase:
    """Both recall-bases of one topic from graded element assessments.

    Parameters
    ----------
    table : UnitTable
        The collection.
    judged : numpy.ndarray of int
        Rows of the judged elements (-1: not in the table, left out).
    gains : numpy.ndarray
        Their gains in [0, 1] (the grade; 0: judged not relevant).
    ignore_tags : iterable of str
        Tags whose elements leave both recall-bases (§8.1).

    Returns
    -------
    RecallBase
        Over every element of the documents holding an element with a
        positive gain: ``spec`` is the gain (0 where not judged), ``size``
        the length, ``rsize = spec * size``; relevant where the gain is
        positive, ideal by :func:`ideal_positions`.

    Examples
    --------
    a (gain .5) holds b (1) and c (not judged): b is ideal, a is not.

    >>> t = UnitTable.from_tree("d", ["a", "b", "c"], [-1, 0, 0], [20, 10, 10])
    >>> rb = derive_graded(t, np.array([0, 1]), np.array([0.5, 1.0]))
    >>> rb.spec.tolist(), rb.relevant.tolist(), rb.rows[rb.ideal].tolist()
    ([0.5, 1.0, 0.0], [True, True, False], [1])
    """
    keep = (judged >= 0) & (gains > 0)
    judged, gains = judged[keep], gains[keep]
    docs = np.unique(table.columns["doc"][judged])
    first = np.asarray(table.docs["first"], dtype=np.int64)[docs]
    count = np.asarray(table.docs["count"], dtype=np.int64)[docs]
    order = np.argsort(first)
    rows = (np.concatenate([np.arange(f, f + c) for f, c in zip(first[order], count[order],
                                                                 strict=True)])
            if len(docs) else np.zeros(0, dtype=np.int64))
    spec = np.zeros(len(rows))
    spec[np.searchsorted(rows, judged)] = gains
    spec = _ignoring(table, rows, spec, ignore_tags)
    size = table.columns["length"][rows].astype(np.float64)
    return _bases(table, rows, spec * size, size, spec)


def ideal_positions(table: UnitTable, rows: np.ndarray, spec: np.ndarray,
                    relevant: np.ndarray) -> np.ndarray:
    """Positions (in ``rows``) of the ideal recall-base, INEX 2006 §5.2.

    For every *relevant path* (root to a relevant element with no relevant
    child) the element with the highest spec is kept, ties going to the
    ancestor; then a final filter removes overlap among the kept elements,
    keeping the one higher in the tree (the shorter path from the root).

    ``rows`` must hold whole documents in preorder (as :func:`derive` builds
    them).  Vectorised level by level: the loop runs over tree depth only.

    Path a-b-c selects c, path a-d selects a (.4 > .3); a contains c, so
    the final filter keeps a.  Without d's path, c alone is ideal:

    >>> t = UnitTable.from_tree("d", list("abcd"), [-1, 0, 1, 0], [30, 10, 5, 20])
    >>> spec = np.array([.4, .5, 1., .3])
    >>> ideal_positions(t, np.arange(4), spec, spec > 0).tolist()
    [0]
    >>> ideal_positions(t, np.arange(4), spec, np.array([True, True, True, False])).tolist()
    [2]
    """
    n = len(rows)
    local_parent = np.full(n, -1, dtype=np.int64)
    parent_rows = table.columns["parent"][rows].astype(np.int64)
    has_parent = parent_rows >= 0
    local_parent[has_parent] = np.searchsorted(rows, parent_rows[has_parent])
    depth = table.columns["depth"][rows].astype(np.int64)
    # best[i]: position of the highest-spec element on the path root..i (ties: ancestor)
    score = np.where(relevant, spec, -1.0)
    best = np.arange(n)
    best_score = score.copy()
    order = np.argsort(depth, kind="stable")
    bounds = np.searchsorted(depth[order], np.arange(depth.max() + 2 if n else 1))
    for d in range(1, len(bounds) - 1):
        level = order[bounds[d]:bounds[d + 1]]
        if len(level) == 0:
            continue
        p = local_parent[level]
        take_parent = best_score[p] >= score[level]
        best[level] = np.where(take_parent, best[p], level)
        best_score[level] = np.where(take_parent, best_score[p], score[level])
    has_rel_child = np.zeros(n, dtype=bool)
    rel_child_parent = local_parent[relevant & (local_parent >= 0)]
    has_rel_child[rel_child_parent] = True
    leaves = np.flatnonzero(relevant & ~has_rel_child)
    cand: np.ndarray = np.unique(best[leaves])
    cand = cand[relevant[cand]]
    if len(cand) == 0:
        return cand
    # final filter: drop candidates inside an earlier (ancestor) candidate
    crow = rows[cand]
    cend = crow + table.columns["size"][crow].astype(np.int64)
    reach = np.maximum.accumulate(cend)
    inside = np.zeros(len(cand), dtype=bool)
    inside[1:] = crow[1:] < reach[:-1]
    return cand[~inside]


def ignore_param(spec_value: str | None) -> tuple[str, ...]:
    """Tags named by a measure's ``ignore=`` parameter (``|``-separated).

    >>> ignore_param("collectionlink|weblink")
    ('collectionlink', 'weblink')
    """
    if not spec_value:
        return ()
    return tuple(t.strip() for t in spec_value.split("|") if t.strip())


#: The recall-base of a topic, by ignored tags: the same for every run of the topic.
RECALL_BASE: CacheKind[RecallBase] = CacheKind("INEX recall-base", topic_level=True)
#: The same from graded element qrels.
GRADED_RECALL_BASE: CacheKind[RecallBase] = CacheKind("recall-base of graded elements",
                                                      topic_level=True)
#: Rows of the ranked ids in the topic's table.
RUN_ROWS: CacheKind[np.ndarray] = CacheKind("rows of the ranked ids")


def recall_base(ctx: TopicContext, ignore_tags: Iterable[str] = ()) -> RecallBase:
    """The :class:`RecallBase` of ``ctx``'s topic, cached in ``ctx.cache``
    (once per topic, shared by the runs).

    Raises UsageError when the topic has no passage assessments.
    """
    ignore = tuple(sorted(set(ignore_tags)))
    return ctx.cache.get(RECALL_BASE, ignore,
                         lambda: derive(topic_assessment(ctx, "INEX measures"), ctx.table,
                                        ignore))


def graded_recall_base(ctx: TopicContext, ignore_tags: Iterable[str] = ()) -> RecallBase:
    """The :class:`RecallBase` of ``ctx``'s topic from its qrels, read as
    graded element assessments (:func:`derive_graded`, gains ``ctx.grade``),
    cached once per topic."""
    ignore = tuple(sorted(set(ignore_tags)))

    def derive_it() -> RecallBase:
        judged = list(ctx.qrels)
        rows = ctx.rows(judged) if judged else np.zeros(0, dtype=np.int64)
        gains = np.array([ctx.grade(u) for u in judged], dtype=np.float64)
        return derive_graded(ctx.table, rows, gains, ignore)

    return ctx.cache.get(GRADED_RECALL_BASE, ignore, derive_it)


def topic_assessment(ctx: TopicContext, measures: str) -> TopicAssessment:
    """``ctx.assessments``; UsageError naming ``measures`` when the topic has none.

    The evaluator should hand an empty ``TopicAssessment(topic)`` for a topic
    that the passage file does not mention (it then scores 0).
    """
    a = ctx.assessments
    if a is None:
        raise UsageError(f"topic {ctx.topic}: {measures} need passage assessments "
                         "(--passages)")
    return a


def run_rows(ctx: TopicContext) -> np.ndarray:
    """Global rows of ``ctx.ranked`` (-1 for ids the store does not hold), cached."""
    def rows() -> np.ndarray:
        if not ctx.ranked:
            return np.zeros(0, dtype=np.int64)
        assert ctx.store is not None
        return ctx.rows(ctx.ranked)

    return ctx.cache.get(RUN_ROWS, None, rows)


def ranked_spans(ctx: TopicContext) -> tuple[np.ndarray, np.ndarray]:
    """Document (a row of ``ctx.table.docs``, -1 for a result the store does
    not hold) and ``[start, end)`` (``(n, 2)``) of every ranked result: a
    range run's ranges, or each unit's span (DESIGN §1.2)."""
    if ctx.spans is not None:
        return ctx.span_docs(), ctx.spans
    rows = run_rows(ctx)
    known = rows >= 0
    safe = np.where(known, rows, 0)
    cols = ctx.table.columns
    doc = np.where(known, cols["doc"][safe] if len(ctx.table) else 0, -1).astype(np.int64)
    start = np.where(known, cols["start"][safe] if len(ctx.table) else 0.0, 0.0)
    length = np.where(known, cols["length"][safe] if len(ctx.table) else 0.0, 0.0)
    return doc, np.column_stack([start, start + length])


def first_retrieved(doc: np.ndarray, spans: np.ndarray, highlights: Mapping[int, np.ndarray]
                    ) -> tuple[np.ndarray, np.ndarray]:
    """For every result p_i of a ranked list (in rank order): the
    characters of p_i that no earlier result retrieved, |p_i minus the
    union of p_j, j < i|, and how many of them are highlighted.

    Parameters
    ----------
    doc : numpy.ndarray of int
        Each result's document (any integer code; -1: a result with no span).
    spans : numpy.ndarray
        ``[start, end)`` of each result, ``(n, 2)``.
    highlights : mapping of int to numpy.ndarray
        Document code -> its merged highlighted ranges ``(k, 2)``
        (:func:`graphprum.assessments.merge_ranges`).

    Notes
    -----
    The results' and the highlights' bounds cut each document into
    elementary segments, each wholly highlighted or not; a segment belongs
    to the first result that covers it (``numpy.minimum.at`` over the
    results' segments).  No loop in Python: the cost is the number of
    (result, segment) pairs, the run's length when results do not overlap.
    Lengths are differences of the bounds, exact for characters.

    Examples
    --------
    Highlighted [10, 30); results [0, 20), [10, 40), [15, 18): the second
    retrieves 20 new characters, 10 highlighted; the third nothing new.

    >>> new, rel = first_retrieved(np.zeros(3, np.int64),
    ...                            np.array([[0., 20.], [10., 40.], [15., 18.]]),
    ...                            {0: np.array([[10., 30.]])})
    >>> new.tolist(), rel.tolist()
    ([20.0, 20.0, 0.0], [10.0, 10.0, 0.0])
    """
    n = len(doc)
    new, rel = np.zeros(n), np.zeros(n)
    valid = np.flatnonzero((doc >= 0) & (spans[:, 1] > spans[:, 0]))
    if not len(valid):
        return new, rel
    present = np.unique(doc[valid])
    held = [(d, r) for d in present.tolist() if len(r := highlights.get(d, np.zeros((0, 2))))]
    h_doc = np.concatenate([np.full(len(r), d) for d, r in held]) if held else np.zeros(0, int)
    h = np.concatenate([r for _, r in held]) if held else np.zeros((0, 2))
    # every bound (results' starts and ends, highlights' starts and ends) as
    # (document, position), numbered in order: equal pairs share a number
    pd = np.concatenate([doc[valid], doc[valid], h_doc, h_doc]).astype(np.int64)
    pp = np.concatenate([spans[valid, 0], spans[valid, 1], h[:, 0], h[:, 1]])
    order = np.lexsort((pp, pd))
    fresh = np.ones(len(order), bool)
    fresh[1:] = (pd[order[1:]] != pd[order[:-1]]) | (pp[order[1:]] != pp[order[:-1]])
    number = np.empty(len(order), np.int64)
    number[order] = np.cumsum(fresh) - 1
    u_doc, u_pos = pd[order][fresh], pp[order][fresh]
    seg_len = np.where(u_doc[1:] == u_doc[:-1], u_pos[1:] - u_pos[:-1], 0.0)
    m, k = len(valid), len(h)
    lit = np.zeros(len(u_pos) + 1)
    np.add.at(lit, number[2 * m:2 * m + k], 1)
    np.add.at(lit, number[2 * m + k:], -1)
    seg_rel = np.where(np.cumsum(lit)[:-2] > 0, seg_len, 0.0)
    # the segments of each result, and the first result covering each
    first_seg, stop = number[:m], number[m:2 * m]
    count = stop - first_seg
    item = np.repeat(valid, count)
    seg = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count) \
        + np.repeat(first_seg, count)
    owner = np.full(len(seg_len), n, np.int64)
    np.minimum.at(owner, seg, item)
    owned = owner < n
    return (np.bincount(owner[owned], weights=seg_len[owned], minlength=n).astype(np.float64),
            np.bincount(owner[owned], weights=seg_rel[owned], minlength=n).astype(np.float64))


def qrels_from_assessments(assessments: Mapping[str, TopicAssessment],
                           store: Any) -> dict[str, dict[str, float]]:
    """TREC-style qrels implied by passage assessments.

    With a store: every element of the full recall-base with REL = spec
    (INEX 2006 eq. 1), so fully highlighted elements are the ideal units at
    the default ``--ideal-min 1``.  Without a store: every assessed document
    (its name as id) with REL = 1 when it holds highlighted text, else 0.
    """
    out: dict[str, dict[str, float]] = {}
    table = None
    if store is not None:  # the assessed documents (the whole collection of a table store)
        table = store.view([], sorted({d for a in assessments.values() for d in a.docs})).table
    for topic, a in assessments.items():
        if table is None:
            out[topic] = {d: (1.0 if a.trel(d) > 0 else 0.0) for d in a.docs}
            continue
        rb = derive(a, table)
        keep = np.flatnonzero(rb.relevant)
        ids = table.ids(rb.rows[keep])
        out[topic] = dict(zip(ids, rb.spec[keep].tolist(), strict=True))
    return out
