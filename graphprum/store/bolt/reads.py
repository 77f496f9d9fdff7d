"""The Bolt store's reads: every question of the store contract answered by
Cypher (``cypher/read/``, ``cypher/nav/``), pulling only what is asked.

Nothing here reads the whole collection except :meth:`BoltReads.table`,
the explicit whole-collection read of ``summary show -f html``.  A topic's
evaluation pulls the documents that hold its units (:meth:`BoltReads.view`),
the partitions of those units (:meth:`BoltReads.partitions`) and the part of
the part of the graph a walk into its targets can use (:meth:`BoltReads.link_walk`).

The documents of a load still being written have ``complete = false``;
every query here reads complete documents only (by name, or through the
document of a unit found by its id), so they are invisible until complete.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from graphprum.errors import StoreError, UnknownIdError
from graphprum.store.base import UNIT_FIELDS, LinkWalk, UnitView
from graphprum.store.linkgraph import graph_walk
from graphprum.store.local.graph import unit_ids as table_unit_ids
from graphprum.units import (
    KIND_ELEMENT,
    KIND_NAMES,
    KIND_PAGE,
    KIND_SEGMENT,
    KIND_VIDEO,
    UNIT_COLUMNS,
    ParsedDocument,
    UnitTable,
)

#: The numbers of a unit as ``read/document_units.cypher`` returns them.
NUMBERS = ["pre", "kind", "depth", "ppre", "post", "size", "pos", "start", "length", "words"]
_DOC_FIELDS = ["name", "source", "kind", "length", "count", "seq"]


def canonical(uid: str) -> str:
    """The id a unit is stored under: segment numbers without leading zeros.

    >>> canonical("video#03"), canonical("d#/a[1]"), canonical("page.html")
    ('video#3', 'd#/a[1]', 'page.html')
    """
    name, sep, rest = uid.partition("#")
    if sep and rest.isascii() and rest.isdigit():
        return f"{name}#{int(rest)}"
    return uid


def document_of(uid: str) -> str:
    """The document name in a unit id (the part before ``#``).

    >>> document_of("d#/a[1]"), document_of("page.html")
    ('d', 'page.html')
    """
    return uid.partition("#")[0]


def build_table(docs: Sequence[dict[str, Any]], units: Sequence[tuple],
                where: str = "") -> UnitTable:
    """A :class:`UnitTable` of ``docs`` (in their order) from the rows of
    ``read/document_units.cypher`` (document, numbers, tag, label path)."""
    index = {d["name"]: i for i, d in enumerate(docs)}
    n = len(units)
    v = np.array([r[1] for r in units], dtype=np.float64).reshape(n, len(NUMBERS))
    doc_of = np.array([index[r[0]] for r in units], dtype=np.int64)
    order = np.lexsort((v[:, 0], doc_of)) if n else np.zeros(0, np.int64)
    v, doc_of = v[order], doc_of[order]
    tags = [units[i][2] for i in order.tolist()]
    paths = [units[i][3] for i in order.tolist()]
    counts = np.array([int(d["count"]) for d in docs], dtype=np.int64)
    got = np.bincount(doc_of, minlength=len(docs)) if len(docs) else np.zeros(0, np.int64)
    if not np.array_equal(got, counts):
        bad = int(np.flatnonzero(got != counts)[0])
        raise StoreError(f"{where}: document {docs[bad]['name']!r} has {got[bad]} units, "
                         f"expected {counts[bad]}; load it again with --replace")
    first = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64) if len(counts) \
        else np.zeros(0, np.int64)
    col = {name: v[:, i] for i, name in enumerate(NUMBERS)}
    tag_codes, tag_vocab = pd.factorize(pd.Series(tags, dtype=object)) if n \
        else (np.zeros(0, np.int64), [])
    path_codes, path_vocab = pd.factorize(pd.Series(paths, dtype=object)) if n \
        else (np.zeros(0, np.int64), [])
    ppre = col["ppre"].astype(np.int64)
    parent = np.where(ppre >= 0, first[doc_of] + ppre, -1) if n else np.zeros(0, np.int64)
    values = {"doc": doc_of, "kind": col["kind"], "tag": tag_codes, "path": path_codes,
              "depth": col["depth"], "parent": parent, "post": col["post"],
              "size": col["size"], "pos": col["pos"], "start": col["start"],
              "length": col["length"], "words": col["words"]}
    columns = {c: np.asarray(values[c]).astype(t) for c, t in UNIT_COLUMNS.items()}
    table_docs = pd.DataFrame({
        "name": [d["name"] for d in docs], "source": [d["source"] for d in docs],
        "kind": np.array([int(d["kind"]) for d in docs], dtype=np.int8),
        "length": np.array([float(d["length"]) for d in docs], dtype=np.float64),
        "first": first, "count": counts})
    return UnitTable(columns, [str(t) for t in tag_vocab], [str(p) for p in path_vocab],
                     table_docs)


def table_rows(table: UnitTable) -> dict[str, int]:
    """Row of every unit id of ``table``."""
    return {uid: i for i, uid in enumerate(table_unit_ids(table).tolist())}


def row_resolver(rows: dict[str, int]):
    """``fallback`` of a view: ids that are not spelled as stored (segment
    numbers with leading zeros) looked up by their stored spelling."""
    def resolve(ids: Sequence[str]) -> np.ndarray:
        return np.array([rows.get(canonical(u), -1) for u in ids], dtype=np.int64)
    return resolve


def _unit_frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    """:data:`UNIT_FIELDS` of units from ``read/units.cypher`` rows."""
    out = []
    for r in records:
        start, length = float(r["start"]), float(r["length"])
        out.append({
            "id": r["id"], "doc": r["doc"], "kind": KIND_NAMES[int(r["kind"])],
            "tag": r["tag"], "label_path": r["path"], "depth": int(r["depth"]),
            "parent": r["parent"] or "", "pre": int(r["pre"]), "post": int(r["post"]),
            "size": int(r["size"]), "pos": int(r["pos"]), "start": start,
            "end": start + length, "length": length, "words": int(r["words"]),
            "text": r["text"] or "",
            "attributes": json.loads(r["attributes"]) if r["attributes"] else {}})
    return pd.DataFrame(out, columns=UNIT_FIELDS)


_UNIT_KEYS = ["id", "doc", "kind", "tag", "path", "depth", "parent", "pre", "post", "size",
              "pos", "start", "length", "words", "text", "attributes"]


class BoltReads:
    """The reads of :class:`~graphprum.store.bolt.BoltStore` (see the module notes).

    Relies on the store's ``_q(name, **params)`` (one read query) and
    ``_qb(name, key, rows, **params)`` (one query per batch of ``rows``).
    """

    location: str

    # ---------------------------------------------------------- documents
    def _stored_documents(self) -> list[dict[str, Any]]:
        rows = self._q("read/documents")
        return [dict(zip(_DOC_FIELDS, r, strict=True)) for r in rows]

    def documents(self) -> pd.DataFrame:
        """One row per stored document in load order: ``name, source, kind, length, count``."""
        docs = self._stored_documents()
        return pd.DataFrame({
            "name": [d["name"] for d in docs], "source": [d["source"] for d in docs],
            "kind": np.array([int(d["kind"]) for d in docs], dtype=np.int8),
            "length": np.array([float(d["length"]) for d in docs], dtype=np.float64),
            "count": np.array([int(d["count"]) for d in docs], dtype=np.int64)})

    def count_units(self, kind: int | None = None) -> int:
        """Number of stored units (of one kind), from the documents' counts."""
        (n,), = self._q("read/count_units", kind=-1 if kind is None else int(kind)) or [(0,)]
        return int(n or 0)

    def _documents_named(self, names: Sequence[str]) -> list[dict[str, Any]]:
        """The stored documents among ``names``, in load order."""
        rows = self._qb("read/documents_named", "names", list(dict.fromkeys(names)))
        docs = [dict(zip(_DOC_FIELDS, r, strict=True)) for r in rows]
        return sorted(docs, key=lambda d: int(d["seq"]))

    def _table_of(self, docs: list[dict[str, Any]]) -> UnitTable:
        units = self._qb("read/document_units", "names", [d["name"] for d in docs])
        return build_table(docs, units, self.location)

    # ---------------------------------------------------------- the topic
    def view(self, ids: Iterable[str], documents: Iterable[str] = ()) -> UnitView:
        """The stored documents holding ``ids`` (and ``documents``), as a
        table of their own: rows are the view's, every unit id mapped."""
        ids = list(dict.fromkeys(ids))
        names = list(dict.fromkeys([document_of(u) for u in ids] + list(documents)))
        docs = self._documents_named(names) if names else []
        table = self._table_of(docs)
        rows = table_rows(table)
        return UnitView(table, rows, self, row_resolver(rows), self._document_statistics())

    def _document_statistics(self) -> pd.DataFrame:
        """Per document kind: stored documents and total length (kept until
        the next load)."""
        stats = self.__dict__.get("_doc_stats")
        if stats is None:
            rows = self._q("read/document_stats")
            stats = pd.DataFrame({
                "kind": np.array([int(r[0]) for r in rows], dtype=np.int64),
                "documents": np.array([int(r[1]) for r in rows], dtype=np.int64),
                "length": np.array([float(r[2]) for r in rows], dtype=np.float64)})
            self.__dict__["_doc_stats"] = stats
        return stats

    def kinds(self, ids: Sequence[str]) -> np.ndarray:
        """The kind of every id, -1 for ids the store does not hold."""
        canon = [canonical(u) for u in ids]
        found = dict(self._qb("read/kinds", "ids", list(dict.fromkeys(canon))))
        return np.array([int(found.get(u, -1)) for u in canon], dtype=np.int64)

    def _root_ids(self, names: Sequence[str]) -> dict[str, str]:
        return dict(self._qb("read/roots", "names", list(dict.fromkeys(names))))

    def _stored_id(self, uid: str) -> str:
        """The stored id of ``uid`` (a document name means its root);
        UnknownIdError when the store does not hold it."""
        canon = canonical(uid)
        if self.kinds([canon])[0] >= 0:
            return canon
        if "#" not in uid:
            root = self._root_ids([uid]).get(uid)
            if root is not None:
                return root
        raise UnknownIdError(f"{uid}: no such unit in store {self.location}")

    def _unit_records(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        rows = self._qb("read/units", "ids", list(dict.fromkeys(ids)))
        return {r[0]: dict(zip(_UNIT_KEYS, r, strict=True)) for r in rows}

    def units(self, ids: Sequence[str]) -> pd.DataFrame:
        """One row per id (UnknownIdError for an unknown one), columns
        :data:`~graphprum.store.base.UNIT_FIELDS`."""
        canon = [canonical(u) for u in ids]
        found = self._unit_records(canon)
        missing = [u for u in canon if u not in found]
        roots = self._root_ids([u for u in missing if "#" not in u]) if missing else {}
        if roots:
            found.update(self._unit_records(list(roots.values())))
        records = []
        for uid, c in zip(ids, canon, strict=True):
            rec = found.get(c) or found.get(roots.get(c, "\0"))
            if rec is None:
                raise UnknownIdError(f"{uid}: no such unit in store {self.location}")
            records.append(rec)
        return _unit_frame(records)

    def unit(self, uid: str) -> dict[str, Any]:
        """One unit's fields as a dict."""
        return self.units([uid]).iloc[0].to_dict()

    def ancestors(self, uid: str) -> list[str]:
        """Ids of the ancestors of ``uid``, root first."""
        return [r[0] for r in self._q("read/ancestors", uid=self._stored_id(uid))]

    def children(self, uid: str) -> list[str]:
        """Ids of the children of ``uid``, in document order."""
        return [r[0] for r in self._q("read/children", uid=self._stored_id(uid))]

    def subtree(self, uid: str) -> pd.DataFrame:
        """:meth:`units` of ``uid`` (a document name works too) and all its
        descendants, in document order."""
        rec = self._unit_records([self._stored_id(uid)])
        (unit,) = rec.values()
        rows = self._q("read/subtree", doc=unit["doc"], pre=int(unit["pre"]),
                       size=int(unit["size"]))
        return _unit_frame([dict(zip(_UNIT_KEYS, r, strict=True)) for r in rows])

    def links_of(self, uid: str) -> tuple[list[str], list[str]]:
        """Ids at the ends of ``uid``'s out-links (the LINK edges held in its
        subtree) and in-coming LINK edges."""
        stored = self._stored_id(uid)
        return ([r[0] for r in self._q("read/links_out", uid=stored)],
                [r[0] for r in self._q("read/links_in", uid=stored)])

    # ------------------------------------------------------------- links
    def link_walk(self, sources: Sequence[str], targets: Sequence[str],
                  hops: int | None, structure: bool = False) -> LinkWalk:
        """The neighbourhood of walks of at most ``hops`` moves into
        ``targets`` (with ``structure``, child and parent moves too), derived
        by the server: ``nav/walk_into.cypher`` hop by hop, then
        ``nav/walk_degrees.cypher`` (:func:`graphprum.store.linkgraph.graph_walk`)."""
        return graph_walk(self._qb, [canonical(u) for u in sources],
                          [canonical(u) for u in targets], hops, structure)

    # ------------------------------------------------------- partitions
    def partitions(self, axpre: str, view: UnitView, rows: np.ndarray) -> np.ndarray:
        """0-based partition of every row of ``view`` under the stored
        summary ``axpre`` (``IN_PARTITION`` of the view's units)."""
        if axpre not in self.summary_names():
            raise StoreError(f"{self.location}: no {axpre} summary stored; build it with "
                             f"'graphprum summary build {axpre}'")
        cache = view.__dict__.setdefault("_partitions", {})
        part = cache.get(axpre)
        if part is None:
            table = view.table
            docs = table.docs
            first = dict(zip(docs["name"].tolist(), docs["first"].tolist(), strict=True))
            part = np.full(len(table), -1, dtype=np.int64)
            for name, pre, sid in self._qb("read/partitions", "names", list(first),
                                           axpre=axpre):
                part[first[name] + int(pre)] = int(sid[1:]) - 1
            cache[axpre] = part
        rows = np.asarray(rows, dtype=np.int64)
        return np.where(rows >= 0, part[np.maximum(rows, 0)] if len(part) else -1, -1)

    # ------------------------------------------------------- collection
    def info(self) -> dict[str, Any]:
        """Counts per kind, documents, links, summaries, incomplete documents, backend."""
        kinds = np.zeros(4, np.int64)
        docs = video_docs = 0
        for kind, n_docs, *per_kind in self._q("read/kind_counts"):
            docs += int(n_docs)
            video_docs += int(n_docs) if int(kind) == KIND_VIDEO else 0
            kinds += np.array([int(x or 0) for x in per_kind], dtype=np.int64)
        (tags, paths), = self._q("read/vocabulary_sizes") or [(0, 0)]
        (records,), = self._q("read/link_counts") or [(0,)]
        (links,), = self._q("read/link_edges") or [(0,)]
        meta = self._meta()
        return {
            "store": self.location,
            "format": f"graphprum-bolt ({self.backend})",
            "database": self.database,
            "generation": None,
            "documents": docs - video_docs,
            "elements": int(kinds[KIND_ELEMENT]),
            "pages": int(kinds[KIND_PAGE]),
            "videos": int(kinds[KIND_VIDEO]),
            "segments": int(kinds[KIND_SEGMENT]),
            "units": int(kinds.sum()),
            "tags": int(tags or 0),
            "label_paths": int(paths or 0),
            "links": int(links or 0),
            "dangling_links": int((records or 0) - (links or 0)),
            "link_stats": meta["link_stats"],
            "summaries": self.summary_names(),
            "incomplete_documents": len(self._q("read/incomplete")),
            "loads": meta["loads"],
        }

    def _meta(self) -> dict[str, Any]:
        """The store's Meta node: load history, link statistics, load count, writer."""
        rows = self._q("read/meta")
        loads, stats, count, writer, beat = rows[0] if rows else (None,) * 5
        return {"loads": json.loads(loads or "[]"), "link_stats": json.loads(stats or "{}"),
                "load_count": int(count or 0), "writer": writer or "",
                "beat": float(beat or 0.0)}

    def iter_documents(self, chunk: int = 200) -> Iterator[ParsedDocument]:
        """Every stored document as the loader gave it (links, texts,
        attributes), in load order, ``chunk`` documents per read."""
        docs = self._stored_documents()
        for i in range(0, len(docs), chunk):
            part = docs[i:i + chunk]
            names = [d["name"] for d in part]
            table = self._table_of(part)
            texts: dict[tuple[str, int], tuple[str, Any]] = {
                (name, int(pre)): (text, attrs) for name, pre, text, attrs in
                self._qb("read/document_texts", "names", names)}
            links: dict[str, list[tuple[int, str, str]]] = {}
            for doc, pre, target, anchor, _ in self._qb("read/pending_links", "names", names):
                links.setdefault(doc, []).append((int(pre), target, anchor or ""))
            for d, rec in enumerate(part):
                first, count = int(table.docs["first"][d]), int(rec["count"])
                sl = slice(first, first + count)
                cols = {c: np.array(table.columns[c][sl], dtype=t) for c, t in
                        UNIT_COLUMNS.items() if c not in ("doc", "tag", "path")}
                parent = cols["parent"].astype(np.int64)
                cols["parent"] = np.where(parent >= 0, parent - first, -1).astype(np.int32)
                name = rec["name"]
                own = [texts.get((name, p), ("", None)) for p in range(count)]
                yield ParsedDocument(
                    name, str(rec["source"]), int(rec["kind"]),
                    [table.tags[t] for t in table.columns["tag"][sl]],
                    [table.paths[p] for p in table.columns["path"][sl]], cols,
                    links.get(name, []), [t or "" for t, _ in own],
                    [(p, json.loads(a)) for p, (_, a) in enumerate(own) if a])

    def table(self) -> UnitTable:
        """The whole collection as a :class:`UnitTable`, rows in load order.

        An explicit whole-collection read, for what needs every unit at once
        (``summary show -f html``); nothing on the evaluation path calls it.
        Kept until the next load."""
        cached = self.__dict__.get("_whole")
        if cached is None:
            docs = self._stored_documents()
            units = self._q("read/all_units")
            cached = build_table(docs, units, self.location)
            self.__dict__["_whole"] = cached
        return cached

    def resolve(self, ids: Sequence[str]) -> np.ndarray:
        """Rows of ``ids`` in :meth:`table` (-1 for ids the store does not hold)."""
        rows = self.__dict__.get("_whole_rows")
        if rows is None:
            rows = self.__dict__["_whole_rows"] = table_rows(self.table())
        return row_resolver(rows)(list(ids))
