"""The ``summary:AXPRE[,weight=W]`` navigation model: SR eq. 7 (ERRATA SR 5).

For units x != y of one document, ``P(x -> y) = 1 - π(S_y)``, where S_y is
the partition of the AxPRE summary that holds y and π its steady state
under the edge weight W (``count`` by default; ``length``, ``extent`` or a
weights file, see :mod:`graphprum.summaries.axpre`).  Units of different
documents, and units that are not XML elements, get 0; the evaluator sets
P(x -> x) = 1.

A summary stored in the store under that name (``graphprum summary
build``) is used, reweighted when needed; otherwise it is built from the
collection's unit table on first use and cached per (table, AXPRE, weight)
(a server store must have it built).

Examples
--------
>>> from graphprum.units import UnitTable
>>> t = UnitTable.from_tree("d", ["a", "b", "b"], [-1, 0, 0])
>>> m = SummaryModel("summary:label", "label", summary=build_summary(t, "label"))
>>> m.summary_for(t).pi.tolist()   # one edge a-b of count 2: π = (2, 2)/4
[0.5, 0.5]
>>> m.rows_matrix(t, np.array([0, 1]), np.array([1, 2, 0])).toarray().tolist()
[[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]]
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from graphprum.errors import UsageError
from graphprum.navigation.base import parse_options
from graphprum.store.base import TABLE, Store, UnitView
from graphprum.summaries.axpre import Summary, build_summary, normalise_axpre
from graphprum.summaries.stored import stored_summary
from graphprum.units import UnitTable

if TYPE_CHECKING:
    from graphprum.context import TopicContext

_CACHE: dict[tuple[int, str, str], tuple[weakref.ref[UnitTable], Summary]] = {}


def cached_summary(table: UnitTable, axpre: str, weight: str) -> Summary:
    """The summary of ``table`` (built once per table object, AxPRE and weight)."""
    key = (id(table), axpre, weight)
    hit = _CACHE.get(key)
    if hit is not None and hit[0]() is table:
        return hit[1]
    summary = build_summary(table, axpre, weight)
    for k in [k for k, (ref, _) in _CACHE.items() if ref() is None]:
        del _CACHE[k]
    _CACHE[key] = (weakref.ref(table), summary)
    return summary


def same_document_pairs(src_doc: np.ndarray, tgt_doc: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray]:
    """All (i, j) with ``src_doc[i] == tgt_doc[j] >= 0``, without a Python loop.

    >>> i, j = same_document_pairs(np.array([0, 1, -1]), np.array([1, 0, 0, -1]))
    >>> list(zip(i.tolist(), j.tolist()))
    [(0, 1), (0, 2), (1, 0)]
    """
    src_doc = np.asarray(src_doc, dtype=np.int64)
    tgt_doc = np.asarray(tgt_doc, dtype=np.int64)
    order = np.argsort(tgt_doc, kind="stable")
    td = tgt_doc[order]
    lo = np.searchsorted(td, src_doc, "left")
    hi = np.searchsorted(td, src_doc, "right")
    cnt = np.where(src_doc >= 0, hi - lo, 0)
    total = int(cnt.sum())
    i = np.repeat(np.arange(len(src_doc)), cnt)
    shift = np.repeat(lo - (np.cumsum(cnt) - cnt), cnt)
    j = order[np.arange(total) + shift]
    return i, j


class SummaryModel:
    """SR eq. 7 over an AxPRE summary; see the module notes.

    Parameters
    ----------
    spec : str
        The ``--nav`` spec it was built from.
    axpre : str
        AxPRE expression (``p*``, ``c``, ...).
    weight : str
        Edge weighting of the steady state.
    summary : Summary, optional
        Use this summary instead of building one from the store's table.
    """

    needs_store = True
    browses = True

    def __init__(self, spec: str, axpre: str, weight: str = "count",
                 summary: Summary | None = None) -> None:
        self.spec = spec
        self.axpre = normalise_axpre(axpre)
        self.weight = weight
        self.summary = summary

    def summary_for(self, table: UnitTable, store: Store | None = None) -> Summary:
        """The summary this model reads: given, stored in the store (reweighted
        if needed), or built from ``table`` and cached."""
        if self.summary is not None:
            return self.summary
        if store is not None and self.axpre in store.summary_names():
            return _stored(store, self.axpre, self.weight)
        if store is not None and TABLE not in store.capabilities:
            raise UsageError(f"--nav {self.spec}: build the summary in the store first "
                             f"(graphprum summary build {self.axpre})")
        summary = cached_summary(table if store is None else store.table(), self.axpre,
                                 self.weight)
        if len(summary.pi) == 0:  # no element: the model would say 0 everywhere
            where = store.location if store is not None else "the collection"
            raise UsageError(f"--nav {self.spec}: {where} holds no XML elements to summarise "
                             f"(load XML, or web pages with --elements)")
        return summary

    def unit_values(self, table: UnitTable, rows: np.ndarray, store: Store | None = None,
                    view: UnitView | None = None) -> np.ndarray:
        """q(y) = 1 - π(S_y) per row of ``table`` (0 for unknown rows and
        non-elements); ``view``: the topic's view on ``store`` that ``table`` is."""
        summary = self.summary_for(table, store)
        rows = np.asarray(rows, dtype=np.int64)
        known = rows >= 0
        if len(summary.membership) == len(table) or view is None or store is None:
            part = np.full(len(rows), -1, dtype=np.int64)
            part[known] = np.asarray(summary.membership)[rows[known]]
        else:  # a server keeps membership in its graph
            part = np.asarray(store.partitions(self.axpre, view, rows), dtype=np.int64)
        q = np.zeros(len(rows))
        el = part >= 0
        q[el] = 1.0 - np.asarray(summary.pi)[part[el]]
        return q

    def rows_matrix(self, table: UnitTable, src: np.ndarray, tgt: np.ndarray,
                    store: Store | None = None, view: UnitView | None = None) -> sp.csr_array:
        """P(src[i] -> tgt[j]) for rows of ``table`` (-1 = unknown unit)."""
        src = np.asarray(src, dtype=np.int64)
        tgt = np.asarray(tgt, dtype=np.int64)
        shape = (len(src), len(tgt))
        doc = np.asarray(table.columns["doc"])
        q = self.unit_values(table, tgt, store, view)
        src_doc = np.where(src >= 0, doc[np.maximum(src, 0)], -1)
        tgt_doc = np.where((tgt >= 0) & (q > 0), doc[np.maximum(tgt, 0)], -1)
        i, j = same_document_pairs(src_doc, tgt_doc)
        keep = src[i] != tgt[j]
        i, j = i[keep], j[keep]
        return sp.csr_array((q[j], (i, j)), shape=shape)

    def matrix(self, sources: Sequence[str], targets: Sequence[str],
               ctx: TopicContext | None) -> sp.csr_array:
        """P(sources[i] -> targets[j]) = 1 - π(S_target) within one document."""
        if ctx is None or ctx.store is None:
            raise UsageError(f"--nav {self.spec}: the summary model needs a store")
        shape = (len(sources), len(targets))
        if not sources or not targets:
            return sp.csr_array(shape)
        src = ctx.rows(list(sources))
        tgt = ctx.rows(list(targets))
        return self.rows_matrix(ctx.table, src, tgt, ctx.store, ctx.units_view())


_STORED: dict[tuple[int, str, str], tuple[Any, Summary]] = {}


def _stored(store: Store, axpre: str, weight: str) -> Summary:
    """The summary ``store`` holds under ``axpre``, reweighted if needed
    (cached per store object and stored generation)."""
    key = (id(store), axpre, weight)
    token = (store, store.summary_names(), getattr(store, "generation", None))
    hit = _STORED.get(key)
    if hit is not None and hit[0] == token:
        return hit[1]
    summary = stored_summary(store, axpre, weight)
    _STORED[key] = (token, summary)
    return summary


def build(args: str) -> SummaryModel:
    spec = f"summary:{args}" if args else "summary"
    opts = parse_options(spec, args, {"weight": str}, positional="axpre")
    if "axpre" not in opts:
        raise UsageError(f"--nav {spec!r}: name the summary, e.g. summary:p* or "
                         f"summary:p*|c,weight=length")
    return SummaryModel(spec, str(opts["axpre"]), str(opts.get("weight", "count")))
