"""Reads shared by the stores that hold their collection as rows: the
embedded store (memory-mapped numpy columns) and the memory store.

The rows of one document are contiguous and in preorder, so containment is
an interval test and every read here is array arithmetic on
:class:`~graphprum.units.UnitTable` columns.  A subclass provides the table,
the LINK edges, and the texts and attributes of rows; :class:`TableStore`
answers the rest of :class:`~graphprum.store.base.Store`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from graphprum.errors import StoreError, UnknownIdError
from graphprum.store.base import FORK_SAFE, TABLE, LinkWalk, Resumed, UnitView
from graphprum.units import (
    KIND_ELEMENT,
    KIND_NAMES,
    KIND_PAGE,
    KIND_VIDEO,
    UNIT_COLUMNS,
    ParsedDocument,
    UnitTable,
)

if TYPE_CHECKING:
    import pandas as pd

    from graphprum.store.linkgraph import LinkGraph

#: Element ids whose rows :meth:`TableStore.resolve` keeps (then starts again).
ROW_MEMO = 200_000
#: Document kinds whose id is the document name alone.
_NAMED_KINDS = (KIND_PAGE, KIND_VIDEO)


class TableStore:
    """The reads of a store whose whole collection is a :class:`UnitTable`.

    Subclasses implement :meth:`table`, :meth:`link_rows`,
    :meth:`link_texts`, :meth:`texts`, :meth:`attributes`,
    :meth:`summary_membership`, the summaries and :meth:`load_documents`.
    """

    location: str = ""
    capabilities: frozenset[str] = frozenset({TABLE, FORK_SAFE})

    def __init__(self) -> None:
        self._reset_caches()

    def _reset_caches(self) -> None:
        self._links_frame: pd.DataFrame | None = None
        self._link_graph: LinkGraph | None = None
        self._xpath_cache: dict[int, dict[str, int]] = {}
        self._row_memo: dict[str, int] = {}
        self._lookup: tuple[UnitTable, tuple[Callable[[str], int | None], list[int], list[int],
                                             list[int]]] | None = None

    # ------------------------------------------------------ to be provided
    def table(self) -> UnitTable:
        """The whole collection."""
        raise NotImplementedError

    def link_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Every LINK edge: the row holding it (ascending; one row's links in
        load order) and the row it arrives at (-1: dangling)."""
        raise NotImplementedError

    def link_texts(self) -> tuple[list[str], list[str]]:
        """The target (``doc`` or ``doc#fragment``) and anchor text of every
        LINK edge, in :meth:`link_rows` order (decoded: for copies and tests)."""
        raise NotImplementedError

    def link_graph(self) -> LinkGraph:
        """The resolved LINK edges as compressed rows, with the tree
        (built or opened once per collection)."""
        raise NotImplementedError

    def texts(self, rows: np.ndarray) -> list[str]:
        """The text snippet of every row."""
        raise NotImplementedError

    def attributes(self, rows: np.ndarray) -> list[dict[str, str]]:
        """The attributes of every row."""
        raise NotImplementedError

    def summary_membership(self, name: str) -> np.ndarray | None:
        """Partition of every row under the stored summary ``name`` (or None)."""
        raise NotImplementedError

    # ---------------------------------------------------------- collection
    def links(self) -> pd.DataFrame:
        """Resolved LINK edges as rows: columns ``src``, ``dst`` (int64)."""
        import pandas as pd  # ~0.2 s of import: only for a DataFrame

        if self._links_frame is None:
            src, dst = (np.asarray(a, dtype=np.int64) for a in self.link_rows())
            keep = dst >= 0
            self._links_frame = pd.DataFrame({"src": src[keep], "dst": dst[keep]})
        return self._links_frame

    def counts(self) -> dict[str, int]:
        """What ``info`` counts: documents (videos apart), units per kind,
        tags, label paths, resolved and dangling links."""
        table = self.table()
        kinds = np.bincount(np.asarray(table.columns["kind"], dtype=np.int64), minlength=4)
        doc_kinds = np.bincount(np.asarray(table.docs["kind"], dtype=np.int64), minlength=4) \
            if len(table.docs) else np.zeros(4, np.int64)
        dst = np.asarray(self.link_rows()[1])
        return {"documents": int(len(table.docs) - doc_kinds[KIND_VIDEO]),
                **{KIND_NAMES[k] + "s": int(kinds[k]) for k in KIND_NAMES},
                "units": len(table), "tags": len(table.tags), "label_paths": len(table.paths),
                "links": int(np.count_nonzero(dst >= 0)),
                "dangling_links": int(np.count_nonzero(dst < 0))}

    def count_units(self, kind: int | None = None) -> int:
        """Number of units (of one kind)."""
        table = self.table()
        if kind is None:
            return len(table)
        return int(np.count_nonzero(np.asarray(table.columns["kind"]) == kind))

    def documents(self) -> pd.DataFrame:
        """One row per document: ``name, source, kind, length, count``."""
        docs = self.table().docs
        return docs.to_frame()[["name", "source", "kind", "length", "count"]]

    def iter_documents(self) -> Iterator[ParsedDocument]:
        """Every document as parsed (links, texts, attributes), in load order."""
        src, _ = self.link_rows()
        targets, anchors = self.link_texts()
        return table_documents(self.table(), np.asarray(src, dtype=np.int64), targets, anchors,
                               self.texts, self.attributes)

    # --------------------------------------------------------------- units
    def resolve(self, ids: Sequence[str]) -> np.ndarray:
        """Rows of ``ids`` (-1 for ids the store does not hold).

        Element ids are matched exactly against the positional INEX path
        (``doc#/a[1]/b[2]``); page and video ids are document names; segment
        ids ``VIDEO#N`` name the N-th segment.

        Cost: a dictionary look-up per id plus, once per document touched
        (kept in a bounded cache), a pass over that document's rows; ids
        resolved before (an evaluation asks for a topic's ids several
        times) are one look-up in a bounded memo.
        """
        table = self.table()
        n = len(ids)
        if len(table) == 0 or n == 0:
            return np.full(n, -1, dtype=np.int64)
        doc_get, first, count, kinds = self._doc_lookup(table)
        cache_get = self._xpath_cache.get
        xpaths = self._xpaths
        memo = self._row_memo
        if len(memo) > ROW_MEMO:
            memo.clear()
        out = [-1] * n
        for i, uid in enumerate(ids):
            known = memo.get(uid)
            if known is not None:
                out[i] = known
                continue
            name, sep, rest = uid.partition("#")
            d = doc_get(name)
            if d is None:
                continue
            kind = kinds[d]
            if not sep:
                if kind in _NAMED_KINDS:
                    out[i] = first[d]
                continue
            if kind == KIND_VIDEO:
                if rest.isascii() and rest.isdigit() and 1 <= int(rest) < count[d]:
                    out[i] = first[d] + int(rest)
                continue
            paths = cache_get(d)
            if paths is None:
                paths = xpaths(d)
            local = paths.get(rest)
            if local is not None:
                out[i] = memo[uid] = first[d] + local
        return np.array(out, dtype=np.int64)

    def _doc_lookup(self, table: UnitTable) -> tuple[Callable[[str], int | None], list[int],
                                                     list[int], list[int]]:
        """Name -> index look-up and the docs' first/count/kind as lists (cached per table)."""
        if self._lookup is not None and self._lookup[0] is table:
            return self._lookup[1]
        if table._doc_index is None:
            table._doc_index = {nm: i for i, nm in enumerate(table.docs["name"])}
        docs = table.docs
        value = (table._doc_index.get, docs["first"].tolist(),
                 docs["count"].tolist(), docs["kind"].tolist())
        # plain views of the mapped columns: slicing a memmap costs more than its rows
        self._xpath_columns = tuple(np.asarray(table.columns[c])
                                    for c in ("tag", "pos", "parent", "kind"))
        self._xpath_cache = {}
        self._row_memo = {}
        self._lookup = (table, value)
        return value

    def _xpaths(self, d: int) -> dict[str, int]:
        """XPATH -> row within document ``d`` (its first row is 0; cached; the oldest half of the
        cache is dropped when it passes 4096 documents)."""
        cached = self._xpath_cache.get(d)
        if cached is not None:
            return cached
        table = self.table()
        _, firsts, counts, _ = self._doc_lookup(table)
        first, count = firsts[d], counts[d]
        tags = table.tags
        sl = slice(first, first + count)
        tag_c, pos_c, parent_c, kind_c = self._xpath_columns
        steps = [f"/{tags[t]}[{p}]" for t, p in zip(tag_c[sl].tolist(), pos_c[sl].tolist(),
                                                     strict=True)]
        local_parent = (parent_c[sl] - first).tolist()  # negative: no parent
        kind = kind_c[sl].tolist()
        xp = [""] * count
        out: dict[str, int] = {}
        for i in range(count):
            if kind[i] != KIND_ELEMENT:
                continue
            p = local_parent[i]
            path = xp[p] + steps[i] if p >= 0 else steps[i]
            xp[i] = path
            out[path] = i  # a small int for most documents: no object made
        cache = self._xpath_cache
        if len(cache) > 4096:
            for key in list(cache)[: len(cache) // 2]:
                del cache[key]
        cache[d] = out
        return out

    def kinds(self, ids: Sequence[str]) -> np.ndarray:
        """The kind of every id, -1 for ids the store does not hold."""
        rows = self.resolve(list(ids))
        kind = np.asarray(self.table().columns["kind"])
        return np.where(rows >= 0, kind[np.maximum(rows, 0)] if len(kind) else -1,
                        -1).astype(np.int64)

    def row_of(self, uid: str) -> int:
        """Row of one id; UnknownIdError naming it when absent.  A document
        name means its root."""
        row = int(self.resolve([uid])[0])
        if row < 0 and "#" not in uid:
            table = self.table()
            get = self._doc_lookup(table)[0]
            d = get(uid)
            if d is not None:
                return int(table.docs["first"][d])
        if row < 0:
            raise UnknownIdError(f"{uid}: no such unit in store {self.location}")
        return row

    def unit(self, uid: str) -> dict[str, Any]:
        """One unit's fields as a dict."""
        return {str(k): v for k, v in self.units([uid]).iloc[0].to_dict().items()}

    def units(self, ids: Sequence[str]) -> pd.DataFrame:
        """One row per id (UnknownIdError for an unknown one), columns
        :data:`~graphprum.store.base.UNIT_FIELDS`."""
        return self.rows_frame(np.array([self.row_of(u) for u in ids], dtype=np.int64))

    def rows_frame(self, rows: np.ndarray) -> pd.DataFrame:
        """:meth:`units` of table rows (plus their ``row``)."""
        import pandas as pd  # ~0.2 s of import: only for a DataFrame

        table = self.table()
        rows = np.asarray(rows, dtype=np.int64)
        cols = table.columns
        docs = table.docs
        doc = np.asarray(cols["doc"][rows])
        first = docs["first"][doc] if len(rows) else np.zeros(0, np.int64)
        parent = np.asarray(cols["parent"][rows])
        start = np.asarray(cols["start"][rows])
        length = np.asarray(cols["length"][rows])
        kind = np.asarray(cols["kind"][rows])
        return pd.DataFrame({
            "id": table.ids(rows),
            "doc": docs["name"][doc] if len(rows) else [],
            "kind": [KIND_NAMES[int(k)] for k in kind],
            "tag": [table.tags[t] for t in cols["tag"][rows]],
            "label_path": [table.paths[p] for p in cols["path"][rows]],
            "depth": np.asarray(cols["depth"][rows]),
            "parent": [table.ids([p])[0] if p >= 0 else "" for p in parent],
            "pre": rows - first,
            "post": np.asarray(cols["post"][rows]),
            "size": np.asarray(cols["size"][rows]),
            "pos": np.asarray(cols["pos"][rows]),
            "start": start,
            "end": start + length,
            "length": length,
            "words": np.asarray(cols["words"][rows]),
            "text": self.texts(rows),
            "attributes": self.attributes(rows),
            "row": rows,
        })

    def ancestors(self, uid: str) -> list[str]:
        """Ids of the ancestors of ``uid``, root first."""
        parent = self.table().columns["parent"]
        out = []
        p = int(parent[self.row_of(uid)])
        while p >= 0:
            out.append(p)
            p = int(parent[p])
        return self.table().ids(out[::-1])

    def children(self, uid: str) -> list[str]:
        """Ids of the children of ``uid`` in document order."""
        table = self.table()
        row = self.row_of(uid)
        size = int(table.columns["size"][row])
        span = np.arange(row + 1, row + size)
        return table.ids(span[np.asarray(table.columns["parent"][row + 1:row + size]) == row])

    def subtree(self, uid: str) -> pd.DataFrame:
        """The unit ``uid`` (a document name works too) and all its descendants."""
        row = self.row_of(uid)
        size = int(self.table().columns["size"][row])
        return self.rows_frame(np.arange(row, row + size))

    def links_of(self, uid: str) -> tuple[list[str], list[str]]:
        """Ids at the ends of ``uid``'s out-links (the links held in its
        subtree) and in-links (arriving at it), with their multiplicity."""
        row = self.row_of(uid)
        graph = self.link_graph()
        table = self.table()
        lo, hi = graph.held(np.array([row]))
        out = np.asarray(graph.out_dst[int(lo[0]):int(hi[0])]).tolist()
        into = graph.predecessors(np.array([row])).tolist()
        return table.ids(out), table.ids(into)

    # ------------------------------------------------- evaluator's pulls
    def view(self, ids: Iterable[str], documents: Iterable[str] = ()) -> UnitView:
        """The whole collection, with the rows of ``ids``."""
        ids = list(dict.fromkeys(ids))
        return UnitView(self.table(), dict(zip(ids, self.resolve(ids).tolist(), strict=True)),
                        self, self.resolve, walker=self.walk_rows)

    def walk_rows(self, src: np.ndarray, tgt: np.ndarray, hops: int | None,
                  structure: bool = False) -> LinkWalk:
        """:meth:`link_walk` of rows (a view's ``walker``)."""
        return self.link_graph().walk(src, tgt, hops, structure)

    def link_walk(self, sources: Sequence[str], targets: Sequence[str],
                  hops: int | None, structure: bool = False) -> LinkWalk:
        """The neighbourhood of walks from ``sources`` into ``targets``
        (:meth:`LinkGraph.walk <graphprum.store.linkgraph.LinkGraph.walk>`)."""
        return self.walk_rows(self.resolve(list(sources)), self.resolve(list(targets)), hops,
                              structure)

    def partitions(self, axpre: str, view: UnitView, rows: np.ndarray) -> np.ndarray:
        """Partition of every row under the stored summary ``axpre`` (view rows
        are the store's rows here)."""
        membership = self.summary_membership(axpre)
        if membership is None:
            raise StoreError(f"{self.location}: no {axpre} summary stored; build it with "
                             f"'graphprum summary build {axpre}'")
        rows = np.asarray(rows, dtype=np.int64)
        return np.where(rows >= 0, np.asarray(membership)[np.maximum(rows, 0)], -1)

    def build_graph(self) -> bool:
        """Nothing to prepare."""
        return False

    def derive_partitions(self, axpre: str) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Not needed here: summaries are built in numpy from :meth:`table`."""
        raise StoreError(f"{self.location}: partitions are computed from the unit table")

    def resume_loads(self) -> Resumed:
        """Nothing to finish: loads here are all or nothing (a generation is
        committed whole, or the memory state replaced whole)."""
        return Resumed()

    def close(self) -> None:
        """Release cached tables."""
        self._reset_caches()



def table_documents(table: UnitTable, src: np.ndarray | None = None,
                    targets: Sequence[str] = (), anchors: Sequence[str] = (),
                    texts: Callable[[np.ndarray], list[str]] | None = None,
                    attributes: Callable[[np.ndarray], list[dict[str, str]]] | None = None,
                    ) -> Iterator[ParsedDocument]:
    """The documents of a unit table as a loader would hand them over, with
    the LINK edges leaving them (source rows ``src``, target names, anchors)
    and the texts and attributes of their rows."""
    src = np.zeros(0, np.int64) if src is None else np.asarray(src, dtype=np.int64)
    docs = table.docs
    doc_of_src = np.asarray(table.columns["doc"])[src] if len(src) else np.zeros(0, np.int64)
    order = np.argsort(doc_of_src, kind="stable")
    bounds = np.searchsorted(doc_of_src[order], np.arange(len(docs) + 1))
    for d, rec in enumerate(docs.records()):
        first, count = int(rec["first"]), int(rec["count"])
        rows = np.arange(first, first + count)
        sl = slice(first, first + count)
        cols: dict[str, np.ndarray] = {c: np.array(table.columns[c][sl], dtype=t)
                                       for c, t in UNIT_COLUMNS.items()
                                       if c not in ("doc", "tag", "path")}
        parent = cols["parent"].astype(np.int64)
        cols["parent"] = np.where(parent >= 0, parent - first, -1).astype(np.int32)
        tags = [table.tags[t] for t in table.columns["tag"][sl]]
        paths = [table.paths[p] for p in table.columns["path"][sl]]
        links = [(int(src[i]) - first, targets[i], anchors[i] if len(anchors) else "")
                 for i in order[bounds[d]:bounds[d + 1]]]
        attrs = [(i, a) for i, a in enumerate(attributes(rows)) if a] if attributes else []
        yield ParsedDocument(rec["name"], rec["source"], int(rec["kind"]), tags, paths,
                             cols, links, texts(rows) if texts else None, attrs)
