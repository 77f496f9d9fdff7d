"""The Bolt store's reads: every question of the store contract answered by
Cypher (``cypher/read/``, ``cypher/nav/``), pulling only what is asked.

Nothing here reads the whole collection except :meth:`BoltReads.table`
and :meth:`BoltReads.resolve`: explicit reads for a caller that wants every
unit (``graphprum nav`` checks ids with :meth:`BoltReads.kinds`; the explorer
page of ``summary show -f html`` is counted by the server:
:meth:`~graphprum.store.bolt.summaries.BoltSummaries.summary_page`).  A topic's
evaluation pulls the documents that hold its units (:meth:`BoltReads.view`),
the partitions of those units (:meth:`BoltReads.partitions`) and the part of
the graph a walk into its targets can use (:meth:`BoltReads.link_walk`);
on FalkorDB, through its Redis port when it is reachable (small replies
``compact``).  The documents and partitions are pulled, once per
evaluation, by :mod:`graphprum.store.bolt.pulls`.

The documents of a load still being written have ``complete = false``;
every query here reads complete documents only (by name, or through the
document of a unit found by its id), so they are invisible until complete.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from graphprum.errors import StoreError, UnknownIdError
from graphprum.store.base import LinkWalk, UnitView
from graphprum.store.bolt.connection import BoltConnection
from graphprum.store.bolt.pieces import (
    UNIT_KEYS,
    Piece,
    Row,
    canonical,
    join_tables,
    place_documents,
    resolver,
    unit_frame,
)
from graphprum.store.bolt.pulls import DOC_FIELDS, DocumentPulls, document_of
from graphprum.store.linkgraph import degree_figures, graph_walk
from graphprum.units import (
    KIND_ELEMENT,
    KIND_PAGE,
    KIND_SEGMENT,
    KIND_VIDEO,
    UNIT_COLUMNS,
    ParsedDocument,
    UnitTable,
)

if TYPE_CHECKING:
    import pandas as pd

def held_right(load_count: int | None, held_load: int | None) -> bool:
    """Whether every unit keeps its count of the links held in its subtree:
    the Meta node's ``held_load`` is its ``load_count`` (absent: a store of
    an earlier graphprum; -1: a load killed while it made its documents
    visible).

    >>> held_right(3, 3), held_right(3, -1), held_right(3, None), held_right(None, 0)
    (True, False, False, True)
    """
    return held_load is not None and int(held_load) == int(load_count or 0)


class BoltView(UnitView):
    """A topic's view of a Bolt store.  Where each of its documents lies
    is known from their sizes, so the ids of pages, videos and segments
    resolve without their units (:func:`~graphprum.store.bolt.pieces.resolver`);
    the units are pulled when something first reads :attr:`table` or
    resolves an element, and the collection's statistics when a measure
    reads them.  An evaluation of web pages whose models walk the graph
    (``links``, ``browse``) reads no table at all."""

    def __init__(self, reads: BoltReads, docs: list[dict[str, Any]], store: Any) -> None:
        self.reads = reads
        self.docs = docs
        self._table: UnitTable | None = None
        self._pieces: dict[str, Piece] | None = None
        super().__init__(None, {}, store,  # type: ignore[arg-type]  # the table comes later
                         resolver(place_documents(docs), self.pieces))

    def pieces(self) -> dict[str, Piece]:
        """The view's documents, pulled on first use."""
        if self._pieces is None:
            self._pieces = dict(zip([d["name"] for d in self.docs],
                                    self.reads.pieces(self.docs), strict=True))
        return self._pieces

    @property
    def table(self) -> UnitTable:
        """The view's documents as one table, pulled on first use."""
        if self._table is None:
            self._table = join_tables([p.table for p in self.pieces().values()])
        return self._table

    @table.setter
    def table(self, value: UnitTable | None) -> None:
        self._table = value

    def statistics(self) -> pd.DataFrame:
        if self.collection is None:
            self.collection = self.reads.document_statistics()
        return self.collection


#: Rows of the walk's backward steps a store keeps between topics (about
#: 100 bytes each).
WALK_ROWS = 1_000_000


class BoltReads:
    """The reads of a :class:`~graphprum.store.bolt.store.BoltStore` over
    its connection (see the module notes).  What does not change until the
    next load is kept (:meth:`invalidate` forgets it): the documents pulled
    for views, and their partitions (:attr:`pulls`), the stored summaries'
    names, the collection's statistics.  Safe to use from several threads."""

    def __init__(self, conn: BoltConnection) -> None:
        self.conn = conn
        self.location = conn.location
        self.pulls = DocumentPulls(conn)
        self._lock = threading.Lock()
        self._whole: UnitTable | None = None
        self._whole_rows: Callable[[Sequence[str]], np.ndarray] | None = None
        self._doc_stats: pd.DataFrame | None = None
        self._summaries: list[str] | None = None
        self._held_links: bool | None = None
        #: nav/walk_into's rows by unit, with and without structure moves
        self._walks: dict[bool, dict[str, list[Row]]] = {False: {}, True: {}}
        self._walk_kept = 0

    def invalidate(self) -> None:
        """Forget what was read of the collection (after a write)."""
        with self._lock:
            self._whole = self._whole_rows = self._doc_stats = None
            self._held_links = None
            self._walks, self._walk_kept = {False: {}, True: {}}, 0
            self.pulls.clear()
            self.forget_summaries()

    def forget_summaries(self) -> None:
        """Forget the summaries' names and partitions (after a summary is written)."""
        self.pulls.forget_partitions()
        self._summaries = None

    # ---------------------------------------------------------- documents
    def _stored_documents(self) -> list[dict[str, Any]]:
        rows = self.conn.read("read/documents")
        return [dict(zip(DOC_FIELDS, r, strict=True)) for r in rows]

    def documents(self) -> pd.DataFrame:
        """One row per stored document in load order: ``name, source, kind, length, count``."""
        import pandas as pd  # ~0.2 s of import: only for a DataFrame

        docs = self._stored_documents()
        return pd.DataFrame({
            "name": [d["name"] for d in docs], "source": [d["source"] for d in docs],
            "kind": np.array([int(d["kind"]) for d in docs], dtype=np.int8),
            "length": np.array([float(d["length"]) for d in docs], dtype=np.float64),
            "count": np.array([int(d["count"]) for d in docs], dtype=np.int64)})

    def count_units(self, kind: int | None = None) -> int:
        """Number of stored units (of one kind), from the documents' counts."""
        (n,), = self.conn.read("read/count_units", compact=True,
                               kind=-1 if kind is None else int(kind)) or [(0,)]
        return int(n or 0)

    def pieces(self, docs: Sequence[dict[str, Any]]) -> list[Piece]:
        """The pieces of ``docs``, each pulled once until the next load
        (:meth:`DocumentPulls.pieces <graphprum.store.bolt.pulls.DocumentPulls.pieces>`)."""
        return self.pulls.pieces(docs)

    def read_ahead(self, ids: Iterable[str], pull: bool = False) -> None:
        """Announce the units an evaluation's topics will view, in the order
        they will (:meth:`DocumentPulls.read_ahead
        <graphprum.store.bolt.pulls.DocumentPulls.read_ahead>`)."""
        self.pulls.read_ahead(ids, pull)

    def take_pulled(self, other: BoltReads) -> None:
        """Keep what ``other`` pulled (in a forked worker, its parent's
        reads, on a connection of its own now): documents, their pieces,
        partitions, the summaries' names."""
        self.pulls.take(other.pulls)
        self._summaries, self._doc_stats = other._summaries, other._doc_stats

    # ---------------------------------------------------------- the topic
    def view(self, ids: Iterable[str], documents: Iterable[str] = (),
             store: Any = None) -> UnitView:
        """The stored documents holding ``ids`` (and ``documents``), as a
        :class:`BoltView` (``store``: the store the view names as its own)."""
        names = list(dict.fromkeys([document_of(canonical(u)) for u in ids]
                                   + list(documents)))
        return BoltView(self, self.pulls.documents_named(names) if names else [], store)

    def document_statistics(self) -> pd.DataFrame:
        """Per document kind: stored documents and total length (kept until
        the next load)."""
        if self._doc_stats is None:
            import pandas as pd  # ~0.2 s of import: only for a DataFrame

            rows = self.conn.read("read/document_stats", compact=True)
            self._doc_stats = pd.DataFrame({
                "kind": np.array([int(r[0]) for r in rows], dtype=np.int64),
                "documents": np.array([int(r[1]) for r in rows], dtype=np.int64),
                "length": np.array([float(r[2]) for r in rows], dtype=np.float64)})
        return self._doc_stats

    def kinds(self, ids: Sequence[str]) -> np.ndarray:
        """The kind of every id, -1 for ids the store does not hold."""
        canon = [canonical(u) for u in ids]
        found: dict[str, int] = dict(self.conn.read_batched("read/kinds", "ids",
                                                            list(dict.fromkeys(canon)),
                                                            compact=True))
        return np.array([int(found.get(u, -1)) for u in canon], dtype=np.int64)

    def root_ids(self, names: Sequence[str]) -> dict[str, str]:
        return dict(self.conn.read_batched("read/roots", "names", list(dict.fromkeys(names)),
                                           compact=True))

    def _stored_id(self, uid: str) -> str:
        """The stored id of ``uid`` (a document name means its root);
        UnknownIdError when the store does not hold it."""
        canon = canonical(uid)
        if self.kinds([canon])[0] >= 0:
            return canon
        if "#" not in uid:
            root = self.root_ids([uid]).get(uid)
            if root is not None:
                return root
        raise UnknownIdError(f"{uid}: no such unit in store {self.location}")

    def _unit_records(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        rows = self.conn.read_batched("read/units", "ids", list(dict.fromkeys(ids)))
        return {r[0]: dict(zip(UNIT_KEYS, r, strict=True)) for r in rows}

    def units(self, ids: Sequence[str]) -> pd.DataFrame:
        """One row per id (UnknownIdError for an unknown one), columns
        :data:`~graphprum.store.base.UNIT_FIELDS`."""
        canon = [canonical(u) for u in ids]
        found = self._unit_records(canon)
        missing = [u for u in canon if u not in found]
        roots = self.root_ids([u for u in missing if "#" not in u]) if missing else {}
        if roots:
            found.update(self._unit_records(list(roots.values())))
        records = []
        for uid, c in zip(ids, canon, strict=True):
            rec = found.get(c) or found.get(roots.get(c, "\0"))
            if rec is None:
                raise UnknownIdError(f"{uid}: no such unit in store {self.location}")
            records.append(rec)
        return unit_frame(records)

    def unit(self, uid: str) -> dict[str, Any]:
        """One unit's fields as a dict."""
        return {str(k): v for k, v in self.units([uid]).iloc[0].to_dict().items()}

    def ancestors(self, uid: str) -> list[str]:
        """Ids of the ancestors of ``uid``, root first."""
        return [r[0] for r in self.conn.read("read/ancestors", uid=self._stored_id(uid))]

    def children(self, uid: str) -> list[str]:
        """Ids of the children of ``uid``, in document order."""
        return [r[0] for r in self.conn.read("read/children", uid=self._stored_id(uid))]

    def subtree(self, uid: str) -> pd.DataFrame:
        """:meth:`units` of ``uid`` (a document name works too) and all its
        descendants, in document order."""
        rec = self._unit_records([self._stored_id(uid)])
        (unit,) = rec.values()
        rows = self.conn.read("read/subtree", doc=unit["doc"], pre=int(unit["pre"]),
                       size=int(unit["size"]))
        return unit_frame([dict(zip(UNIT_KEYS, r, strict=True)) for r in rows])

    def links_of(self, uid: str) -> tuple[list[str], list[str]]:
        """Ids at the ends of ``uid``'s out-links (the LINK edges held in its
        subtree) and in-coming LINK edges."""
        stored = self._stored_id(uid)
        return ([r[0] for r in self.conn.read("read/links_out", uid=stored)],
                [r[0] for r in self.conn.read("read/links_in", uid=stored)])

    # ------------------------------------------------------------- links
    def link_walk(self, sources: Sequence[str], targets: Sequence[str],
                  hops: int | None, structure: bool = False) -> LinkWalk:
        """The neighbourhood of walks of at most ``hops`` moves into
        ``targets`` (with ``structure``, child and parent moves too), derived
        by the server: ``nav/walk_into.cypher`` hop by hop, then
        ``nav/walk_degrees.cypher`` (:func:`graphprum.store.linkgraph.graph_walk`),
        or on a store whose units do not keep their held links yet (loaded
        by an earlier graphprum: :meth:`meta`) ``nav/walk_degrees_scan.cypher``.
        On FalkorDB the queries go through its Redis port when it is
        reachable (:meth:`~graphprum.store.bolt.connection.BoltConnection.read_text`:
        ids, counts and flags): its Bolt port took 47 ms for a reply of 50
        rows, where the Redis port takes 3 ms."""
        degrees = "nav/walk_degrees" if self._held() else "nav/walk_degrees_scan"

        def query(name: str, key: str, rows: Sequence[Any], **fixed: Any) -> list[Row]:
            if name == "nav/walk_into":
                return self._walk_rows(rows, bool(fixed["structure"]))
            name = degrees if name == "nav/walk_degrees" else name
            return self.conn.read_batched(name, key, rows, compact=True, **fixed)

        return graph_walk(query, [canonical(u) for u in sources],
                          [canonical(u) for u in targets], hops, structure)

    def _walk_rows(self, ids: Sequence[str], structure: bool) -> list[Row]:
        """``nav/walk_into``'s rows for ``ids``, each unit's asked of the
        server once until the next write: the topics of an evaluation walk
        into overlapping neighbourhoods (40 topics x 50 results, 2 hops, on
        40k elements with 11k links: 4.2 s, against 14.2 s with every
        topic's rings read again and 0.78 s embedded).  At most :data:`WALK_ROWS` rows
        are kept; past them the rows are read each time."""
        with self._lock:
            known = self._walks[structure]
            missing = [u for u in dict.fromkeys(ids) if u not in known]
        got: dict[str, list[Row]] = {u: [] for u in missing}
        if missing:
            for row in self.conn.read_batched("nav/walk_into", "ids", missing, compact=True,
                                              structure=structure):
                got[row[1]].append(row)
        rows = [row for u in ids for row in (got[u] if u in got else known[u])]
        new = sum(map(len, got.values()))
        with self._lock:
            if self._walk_kept + new <= WALK_ROWS:
                known.update(got)
                self._walk_kept += new
        return rows

    def _held(self) -> bool:
        """Whether the units keep their held links (:meth:`meta`), asked once
        until the next write."""
        with self._lock:
            if self._held_links is None:
                (count, held), = self.conn.read("read/held", compact=True) or [(None, None)]
                self._held_links = held_right(count, held)
            return self._held_links

    # ------------------------------------------------------- partitions
    def partitions(self, axpre: str, view: UnitView, rows: np.ndarray) -> np.ndarray:
        """0-based partition of every row of ``view`` under the stored
        summary ``axpre`` (``IN_PARTITION`` of the view's units)."""
        if axpre not in self.summary_names():
            raise StoreError(f"{self.location}: no {axpre} summary stored; build it with "
                             f"'graphprum summary build {axpre}'")
        cache: dict[str, np.ndarray] = view.__dict__.setdefault("_partitions", {})
        part = cache.get(axpre)
        if part is None:
            docs = view.docs if isinstance(view, BoltView) else list(view.table.docs.records())
            part = cache[axpre] = self.pulls.partitions(axpre, docs)
        rows = np.asarray(rows, dtype=np.int64)
        return np.where(rows >= 0, part[np.maximum(rows, 0)] if len(part) else -1, -1)

    def summary_names(self) -> list[str]:
        """AxPRE summaries stored in the graph (asked once until a write)."""
        names = self._summaries
        if names is None:
            names = self._summaries = [r[0] for r in self.conn.read("summary/names",
                                                                     compact=True)]
        return list(names)

    # ------------------------------------------------------- collection
    def info(self) -> dict[str, Any]:
        """Counts per kind, documents, links, summaries, incomplete documents, backend."""
        kinds = np.zeros(4, np.int64)
        docs = video_docs = 0
        for kind, n_docs, *per_kind in self.conn.read("read/kind_counts"):
            docs += int(n_docs)
            video_docs += int(n_docs) if int(kind) == KIND_VIDEO else 0
            kinds += np.array([int(x or 0) for x in per_kind], dtype=np.int64)
        (tags, paths), = self.conn.read("read/vocabulary_sizes") or [(0, 0)]
        (records,), = self.conn.read("read/link_counts") or [(0,)]
        (links,), = self.conn.read("read/link_edges") or [(0,)]
        meta = self.meta()
        return {
            "store": self.location,
            "format": f"graphprum-bolt ({self.conn.backend})",
            "database": self._database(),
            "generation": None,
            "documents": docs - video_docs,
            "elements": int(kinds[KIND_ELEMENT]),
            "pages": int(kinds[KIND_PAGE]),
            "segments": int(kinds[KIND_SEGMENT]),
            "videos": int(kinds[KIND_VIDEO]),
            "units": int(kinds.sum()),
            "tags": int(tags or 0),
            "label_paths": int(paths or 0),
            "links": int(links or 0),
            "dangling_links": int((records or 0) - (links or 0)),
            "link_stats": meta["link_stats"],
            "degrees": self._degrees(),
            "summaries": self.summary_names(),
            "incomplete_documents": len(self.conn.read("read/incomplete")),
            "interrupted_loads": int(meta["interrupted"]),
            "loads": meta["loads"],
        }

    def _degrees(self) -> dict[str, dict[str, int | float]]:
        """The out- and in-degree distributions of ``info``, as the embedded
        store gives them, from a histogram of each (``read/degrees``)."""
        degrees = {}
        for label, end in (("out-degree", "s"), ("in-degree", "t")):
            rows = self.conn.read_text(self.conn.template("read/degrees", {"end": end}), {})
            degrees[label] = np.repeat(np.array([int(d) for d, _ in rows], dtype=np.int64),
                                       [int(n) for _, n in rows])
        return degree_figures(degrees)

    def _database(self) -> str | None:
        """The database named (``NEO4J_DATABASE``), as ``info`` tells it:
        FalkorDB's Bolt port ignores it (one graph per server)."""
        name = self.conn.database
        if name and self.conn.backend == "falkordb":
            return f"{name} (ignored: FalkorDB's Bolt port serves one graph)"
        return name

    def meta(self) -> dict[str, Any]:
        """The store's Meta node: load history, link statistics, load count,
        writer, and ``held``: whether every unit's count of the links held in
        its subtree is stored (not by a load of an earlier graphprum since),
        ``interrupted``: whether a load was killed after making its documents
        visible (``Meta.held_load`` -1: ``load/held_load.cypher``), and
        ``pending``: that load's history entry (``load/pending.cypher``; None
        if it left none)."""
        rows = self.conn.read("read/meta")
        loads, stats, count, writer, beat, held, pending = rows[0] if rows else (None,) * 7
        pending_loads = json.loads(pending or "[]")
        return {"loads": json.loads(loads or "[]"), "link_stats": json.loads(stats or "{}"),
                "load_count": int(count or 0), "writer": writer or "",
                "beat": float(beat or 0.0),
                "held": held_right(count, held),
                "interrupted": held is not None and int(held) == -1,
                "pending": pending_loads[-1] if pending_loads else None}

    def iter_documents(self, chunk: int = 200) -> Iterator[ParsedDocument]:
        """Every stored document as the loader gave it (links, texts,
        attributes), in load order, ``chunk`` documents per read."""
        docs = self._stored_documents()
        for i in range(0, len(docs), chunk):
            part = docs[i:i + chunk]
            names = [d["name"] for d in part]
            pieces = self.pulls.pull(part)
            texts: dict[tuple[str, int], tuple[str, Any]] = {
                (name, int(pre)): (text, attrs) for name, pre, text, attrs in
                self.conn.read_batched("read/document_texts", "names", names)}
            links: dict[str, list[tuple[int, str, str]]] = {}
            for doc, pre, target, anchor, _ in self.conn.read_batched("read/pending_links",
                                                                      "names", names):
                links.setdefault(doc, []).append((int(pre), target, anchor or ""))
            for rec in part:
                name = rec["name"]
                table = pieces[name].table
                cols = {c: np.array(table.columns[c]) for c in UNIT_COLUMNS
                        if c not in ("doc", "tag", "path")}
                own = [texts.get((name, p), ("", None)) for p in range(len(table))]
                yield ParsedDocument(
                    name, str(rec["source"]), int(rec["kind"]),
                    [table.tags[c] for c in table.columns["tag"].tolist()],
                    [table.paths[c] for c in table.columns["path"].tolist()], cols,
                    links.get(name, []), [t or "" for t, _ in own],
                    [(p, json.loads(a)) for p, (_, a) in enumerate(own) if a])

    def table(self) -> UnitTable:
        """The whole collection as a :class:`UnitTable`, rows in load order.

        An explicit whole-collection read, for what needs every unit at once;
        nothing on the evaluation path calls it.  Kept until the next load."""
        if self._whole is None:
            docs = self._stored_documents()
            pieces = self.pulls.pull(docs)
            self._whole = join_tables([pieces[d["name"]].table for d in docs])
            self._whole_rows = resolver(place_documents(docs), lambda: pieces)
        return self._whole

    def resolve(self, ids: Sequence[str]) -> np.ndarray:
        """Rows of ``ids`` in :meth:`table` (-1 for ids the store does not hold)."""
        self.table()
        assert self._whole_rows is not None
        return self._whole_rows(list(ids))
