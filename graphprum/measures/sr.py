"""Structural relevance SR and its precision SRP (Ali, Kazai, Consens, Lalmas,
CIKM 2008), for one topic.

SR is the expected relevance of a ranked list of trees R = (t_1, ..., t_k)
for a user who does not tolerate redundancy (eq. 1)::

    SR(R) = Σ_i rel_tree(t_i) · (1 − p(t_i; R[t_{i−1}]))

with the redundancy of a tree given the trees ranked above it (eq. 4)::

    p(t_i; R[t_{i−1}]) = 1 − Π_{j<i} (1 − p(t_i; t_j))

the navigation between two trees (Theorem 4.3, eq. 5)::

    p(t_i; t_j) = Σ_{f∈t_j} Σ_{e∈t_i} p(e; f) / (|t_i| · |t_j|)

and the relevance of a tree as the mean relevance of its nodes (eq. 9),
rel(e) = the graded qrels value scaled by the topic's largest grade.  A
ranked list of units is a list of singleton trees, for which eq. 5 is
p(e; f) (eq. 2) and eq. 4 is eq. 3.  ``SRP@k = SR@k / k`` (§6): when p = 0
it is classical precision at k.

p(e; f) is the probability that a user visiting f sees e: the navigation
models of ``--nav`` give ``P(f -> e)`` (``ctx.nav(sources=f, targets=e)``,
1 when e = f).  With ``--nav summary:AXPRE`` (SR eq. 7, ERRATA SR 5)
p(e; f) = q(e) = 1 − π(S_e) for e ≠ f of one document, so the double sum of
eq. 5 reduces to counts and no pair of nodes is materialised::

    Σ_{e∈t_i} Σ_{f∈t_j} p(e; f) = Σ_d a_i(d)·c_j(d) + Σ_{e∈t_i∩t_j} (1 − q(e))

where a_i(d) sums q(e) over the nodes of t_i in document d and c_j(d)
counts the nodes of t_j in d.

Names: ``SR@k``, ``SRP@k``; a bare ``SR`` or ``SRP`` stands for the INEX
2006 cut-offs @5, @10, @25, @50.

Examples
--------
Example 4.4 (ERRATA SR 1): p(e; f) = 0.5 for e ≠ f, all rel = 1.

>>> tl, tr = [1, 2, 14, 3, 15, 4], [1, 2, 14, 7, 17]
>>> def half(src, tgt):
...     return np.where(np.equal.outer(src, tgt), 1.0, 0.5)
>>> contributions([tl, tr], half, [1.0, 1.0]).round(4).tolist()
[1.0, 0.45]
>>> round(float(contributions([tl, tr], half, [1.0, 1.0]).sum()), 4)
1.45
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from graphprum.context import CacheKind, TopicContext
from graphprum.errors import UsageError
from graphprum.measures.declare import Curve, Family, Measure

if TYPE_CHECKING:
    import scipy.sparse as sp

    from graphprum.navigation.summary import SummaryModel

#: Terms of eq. 1 for the first trees (or units) of a run, by ``fast``.
CONTRIBUTIONS: CacheKind[np.ndarray] = CacheKind("SR contributions")

#: Cut-offs a bare ``SR``/``SRP`` stands for (INEX 2006 Focused task, SR §7.2).
DEFAULT_CUTOFFS = ("5", "10", "25", "50")

#: ``nav(sources, targets)``: P(sources[i] -> targets[j]) (dense or sparse).
NavFunc = Callable[[Sequence[Any], Sequence[Any]], Any]


def _membership(trees: Sequence[Sequence[Any]]) -> tuple[list[Any], sp.csr_array]:
    """Distinct units (first-seen order) and the (trees x units) 0/1 matrix."""
    import scipy.sparse as sp  # SR only: a classical eval imports no scipy

    index: dict[Any, int] = {}
    rows: list[int] = []
    cols: list[int] = []
    for i, tree in enumerate(trees):
        for u in tree:
            rows.append(i)
            cols.append(index.setdefault(u, len(index)))
    b = sp.csr_array((np.ones(len(rows)), (rows, cols)), shape=(len(trees), len(index)))
    b.sum_duplicates()
    b.data[:] = 1.0  # a unit repeated inside one tree counts once
    return list(index), b


def _survival(pair_sums: sp.coo_array, sizes: np.ndarray) -> np.ndarray:
    """Π_{j<i} (1 − p(t_i; t_j)) per tree i, from S[i, j] = Σ_{e∈t_i, f∈t_j} p(e; f)."""
    import scipy.sparse as sp  # SR only: a classical eval imports no scipy

    s = sp.coo_array(pair_sums)
    s.sum_duplicates()
    lower = s.col < s.row
    i, j, v = s.row[lower], s.col[lower], s.data[lower]
    p = np.clip(v / (sizes[i] * sizes[j]), 0.0, 1.0)  # eq. 5
    with np.errstate(divide="ignore"):
        logs = np.log1p(-p)
    return np.exp(np.bincount(i, weights=logs, minlength=len(sizes)))  # eq. 4


def contributions(trees: Sequence[Sequence[Any]], nav: NavFunc,
                  rel: Sequence[float] | np.ndarray) -> np.ndarray:
    """rel_tree(t_i) · (1 − p(t_i; R[t_{i−1}])) for every tree (the terms of eq. 1).

    The general path: ``nav(units, units)`` is asked once for every distinct
    unit of the list; ``nav(src, tgt)[a, b]`` is P(src[a] -> tgt[b]) =
    p(tgt[b]; src[a]), and must be 1 when the two are the same unit.

    Parameters
    ----------
    trees : sequence of sequences
        The ranked trees (sets of unit ids).
    nav : callable
        ``nav(sources, targets)`` -> array (dense or scipy.sparse).
    rel : sequence of float
        rel_tree of each tree (eq. 9).
    """
    import scipy.sparse as sp  # SR only: a classical eval imports no scipy

    if len(trees) == 0:
        return np.zeros(0)
    units, b = _membership(trees)
    sizes = np.asarray(b.sum(axis=1)).ravel()
    m = sp.csr_array(nav(units, units))
    s = b @ m.T @ b.T  # S[i, j] = Σ_{e∈t_i} Σ_{f∈t_j} P(f -> e)
    out: np.ndarray = np.asarray(rel, dtype=np.float64) * _survival(sp.coo_array(s), sizes)
    return out


def contributions_by_document(trees: Sequence[Sequence[Any]], q: dict[Any, float],
                              doc: dict[Any, int], rel: Sequence[float] | np.ndarray
                              ) -> np.ndarray:
    """The terms of eq. 1 when p(e; f) = q(e) for e ≠ f of one document (fast path).

    ``q`` and ``doc`` map every unit to q(e) = 1 − π(S_e) and to its document
    (negative: unknown, sharing no document).  Agrees with
    :func:`contributions` under that navigation; costs O(units), not O(pairs).
    """
    import scipy.sparse as sp  # SR only: a classical eval imports no scipy

    if len(trees) == 0:
        return np.zeros(0)
    units, b = _membership(trees)
    sizes = np.asarray(b.sum(axis=1)).ravel()
    qv = np.array([q.get(u, 0.0) for u in units], dtype=np.float64)
    dv = np.array([doc.get(u, -1) for u in units], dtype=np.int64)
    in_doc = np.flatnonzero(dv >= 0)
    docs, d_idx = np.unique(dv[in_doc], return_inverse=True)
    to_doc = sp.csr_array((np.ones(len(in_doc)), (in_doc, d_idx.ravel())),
                          shape=(len(units), len(docs)))
    a = b @ sp.diags_array(qv) @ to_doc  # a_i(d) = Σ_{e∈t_i, doc d} q(e)
    c = b @ to_doc  # c_j(d) = |{f ∈ t_j in doc d}|
    s = a @ c.T + b @ sp.diags_array(1.0 - qv) @ b.T
    out: np.ndarray = np.asarray(rel, dtype=np.float64) * _survival(sp.coo_array(s), sizes)
    return out


def tree_relevance(trees: Sequence[Sequence[str]], grade: Callable[[str], float]) -> np.ndarray:
    """rel_tree(t) = Σ_{e∈t} rel(e) / |t| (eq. 9).

    >>> grades = {"a": 1.0, "c": 0.5}
    >>> tree_relevance([["a", "b"], ["c"]], lambda u: grades.get(u, 0.0)).tolist()
    [0.5, 0.5]
    """
    return np.array([sum(grade(u) for u in dict.fromkeys(t)) / len(dict.fromkeys(t))
                     if len(t) else 0.0 for t in trees], dtype=np.float64)


def _summary_fast_path(ctx: TopicContext) -> SummaryModel | None:
    """The summary model when it is the only non-classical ``--nav`` model, else None."""
    # imported here: the summaries import pandas (about 0.3 s), which only
    # --nav summary: needs, and then the model's module is imported already
    from graphprum.navigation.summary import SummaryModel

    models = [m for m in ctx.models if getattr(m, "spec", None) != "classical"]
    if len(models) == 1 and isinstance(models[0], SummaryModel) and ctx.store is not None:
        return models[0]
    return None


def topic_contributions(ctx: TopicContext, k: int | None, fast: bool | None = None
                        ) -> np.ndarray:
    """Terms of eq. 1 for the first ``k`` trees (or units) of the topic's run.

    ``fast``: None picks the counting path when the navigation is a summary
    model alone, True forces it (UsageError when not applicable), False
    forces the general path.  Results are cached in ``ctx.cache``.
    """
    total = len(ctx.trees) if ctx.trees is not None else len(ctx.ranked)
    n = total if k is None else min(k, total)
    cached = ctx.cache.peek(CONTRIBUTIONS, fast)
    if cached is not None and len(cached) >= n:
        return cached[:n]
    # compute a little ahead so that SR@5, @10, @25, @50 share one pass
    n_compute = total if k is None else min(max(k, 50), total)
    head: list[list[str]] = (ctx.trees[:n_compute] if ctx.trees is not None
                             else [[u] for u in ctx.ranked[:n_compute]])
    rel = tree_relevance(head, ctx.grade)
    model = _summary_fast_path(ctx) if fast is not False else None
    if fast and model is None:
        raise UsageError("SR fast path needs --nav summary:AXPRE as the only model")
    if model is not None:
        units = list(dict.fromkeys(u for t in head for u in t))
        table = ctx.table
        rows = ctx.rows(units)
        q = model.unit_values(table, rows, ctx.store, ctx.units_view())
        docs = np.asarray(table.columns["doc"])
        d = np.where(rows >= 0, docs[np.maximum(rows, 0)], -1)
        out = contributions_by_document(head, dict(zip(units, q.tolist(), strict=True)),
                                        dict(zip(units, d.tolist(), strict=True)), rel)
    else:
        out = contributions(head, ctx.nav, rel)
    ctx.cache.put(CONTRIBUTIONS, fast, out)
    return out[:n]


def compute_sr(m: Measure, ctx: TopicContext) -> float:
    """SR@k: structural relevance of the first k results (SR eqs. 1, 4, 5, 9)."""
    return float(topic_contributions(ctx, m.rank).sum())


def compute_srp(m: Measure, ctx: TopicContext) -> float:
    """SRP@k = SR@k / k (SR §6); without a cutoff, SR over the list / its length."""
    k = m.rank
    sr = float(topic_contributions(ctx, k).sum())
    if k is None:
        n = len(ctx.trees) if ctx.trees is not None else len(ctx.ranked)
        return sr / n if n else 0.0
    return sr / k


SR = Family("SR", compute_sr,
            "structural relevance of the first k results: expected relevance for a user "
            "who does not tolerate redundancy (eqs. 1, 4, 5, 9)",
            cutoff="rank", expands_to=DEFAULT_CUTOFFS,
            curve=Curve("rank", "structural relevance SR", bounded=False),
            examples=(("SR@10", "SR of the first 10 results (or trees, with --trees)"),
                      ("SR", "SR@5, SR@10, SR@25, SR@50")))
SRP = Family("SRP", compute_srp,
             "structural relevance precision SR@k / k (§6); classical precision at k "
             "when no navigation is possible",
             cutoff="rank", expands_to=DEFAULT_CUTOFFS, curve=Curve("rank", "SRP"),
             examples=(("SRP@10", "SR@10 / 10"), ("SRP", "SRP@5, SRP@10, SRP@25, SRP@50")))
FAMILIES = (SR, SRP)
