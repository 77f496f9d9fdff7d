"""Loading into a Bolt store: documents become visible only when complete.

A load writes its documents with ``complete = false``, which every read of
the store filters on (:mod:`graphprum.store.bolt.reads`), and sets it at its
end (``cypher/load/complete.cypher``).  A document that replaces a stored
one is written under a name of its own and renamed then, after the stored
version is removed, so the stored version stays readable while the load
runs.  A load that fails removes what it wrote; one that is killed leaves
incomplete documents that the next load, or ``graphprum load --resume``
(:meth:`BoltLoads.resume_loads`), removes.  A load claims the store first
(``Meta.writer``, with a heartbeat): a second load refuses to start while
the first is alive, and takes over from one that died.  (A label per state
would hide incomplete documents from any query, but relabelling costs
FalkorDB 4.16 about 0.4 ms per node.)

Three ways to write:

* **bulk**, into an empty FalkorDB whose Redis port this machine reaches:
  the documents go with ``GRAPH.BULK`` (:mod:`graphprum.store.bolt.bulk`)
  into a new graph under a temporary key, which is finished there (indexes,
  LINK edges, meta) and then renamed onto the graph the Bolt port
  serves, atomically: readers see nothing, then the whole collection;
* **create**, into any other empty store (Neo4j, or a FalkorDB reached over
  Bolt only): ``UNWIND`` batches that create units with their CHILD and
  HAS_ATTRIBUTE edges (:func:`~graphprum.store.bolt.pack.pack_new_units`),
  no MERGE but for the shared Attribute nodes, and the LINK edges created
  in the database when the documents are complete.  Every write is sent
  once (never retried: a write lost with its connection fails the load,
  which removes what it wrote);
* **merge**, for every other load: ``UNWIND`` batches of packed units
  (:mod:`graphprum.store.bolt.pack`) merged on their ids, written in order by
  one background writer (:class:`~graphprum.store.bolt.bounded.WritePipe`) while
  the load parses the next documents.  On FalkorDB the writes go through the
  Redis port when it is reachable (see :mod:`graphprum.store.bolt.redis_port`
  for why), else over Bolt, one at a time.

A store is empty when it holds no node but graphprum's ``Meta`` node
(``read/node_count``), asked after the load claimed the store; what the
load writes is removed, as for any load, only by the names of its own
incomplete documents.  In every way the client holds one batch of
documents and the names of the documents loaded, not the collection.

Held links: every unit that holds links in its subtree keeps how many
(``held``, multiplicity counted: the out-degree of a walk's link move,
``cypher/nav/walk_degrees.cypher``).  Every way of loading counts them
again, after its LINK edges are made, for the documents whose LINK edges
changed (its own, and those linking into them: ``load/held.cypher``; a
bulk load its whole new graph).  ``Meta.held_load`` says the load after
which they are right: a load sets it behind (-1) while it makes its
documents visible, so one killed then leaves its LINK edges and the counts
to the next load (or ``--resume``), which makes them (``_store_held``), as it
counts them in a store written by a graphprum older than them; reads of such
a store count per query meanwhile.

Attributes: every unit keeps its attributes as JSON (``attributes``), and
every distinct attribute (name, value) of the store is one ``Attribute``
node that the units carrying it point to (``HAS_ATTRIBUTE``), as in the
embedded store's graph; loads that remove documents remove the Attribute
nodes left without units.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import os
import socket
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from graphprum.errors import InputError, StoreError
from graphprum.store.bolt.bounded import WritePipe
from graphprum.store.bolt.bulk import EdgeToken, NodeToken, bulk_command, encode_value
from graphprum.store.bolt.connection import BoltConnection, cypher
from graphprum.store.bolt.pack import (
    NewBatch,
    PackedBatch,
    attribute_json,
    attribute_nid,
    pack_new_units,
    pack_units,
    separators,
    unit_ids,
)
from graphprum.store.bolt.reads import BoltReads
from graphprum.store.bolt.redis_port import BOLT_GRAPH, ReplyError
from graphprum.store.bolt.server import process_alive
from graphprum.units import (
    KIND_ELEMENT,
    KIND_PAGE,
    DocumentBatch,
    LoadReport,
    ParsedDocument,
    page_units,
)

FORMAT = "graphprum-bolt"
#: Raw page-to-page links of a load: pairs of equally long lists (from, to).
LinkPairs = Iterable[tuple[Sequence[str], Sequence[str]]]
#: Units sent by one ``GRAPH.BULK`` call.
BULK_UNITS = 50_000
#: Units parsed before their writes are queued (merge loads).
FLUSH_UNITS = 5_000
#: Seconds after which the writer of a load that stopped beating is taken over.
STALE_WRITER = 300.0
#: Seconds between heartbeats of a running load.
BEAT_EVERY = 15.0
#: Prefix of the temporary graph keys of bulk loads.
BULK_PREFIX = "graphprum-bulk-"

_DOC_PROPS = ["name", "source", "kind", "length", "count", "seq", "digest", "kind_counts",
              "complete"]
_LINK_PROPS = ["key", "load", "complete", "pair", "src", "src_doc", "src_pre", "target",
               "anchor", "lseq", "fragment"]
_INT_PROPS = ["seq", "kind", "depth", "pre", "ppre", "post", "size", "pos", "words"]
_FLOAT_PROPS = ["start", "length"]


def documents_of(items: Iterable[ParsedDocument | DocumentBatch]) -> Iterator[ParsedDocument]:
    """Single documents of a stream of documents and batches."""
    for item in items:
        if isinstance(item, DocumentBatch):
            yield from item.documents()
        else:
            yield item


def digest(doc: ParsedDocument) -> str:
    """A fingerprint of everything a document stores (a re-run of a load
    leaves a document with the same fingerprint as it is)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(json.dumps([doc.name, doc.source, int(doc.kind), doc.tags, doc.paths,
                         [list(x) for x in doc.links], doc.texts,
                         [[r, a] for r, a in doc.attributes]]).encode())
    for c in sorted(doc.columns):
        h.update(c.encode())
        h.update(np.ascontiguousarray(doc.columns[c]).tobytes())
    return h.hexdigest()


def _kind_counts(doc: ParsedDocument) -> list[int]:
    kind = np.asarray(doc.columns["kind"], dtype=np.int64)
    return np.bincount(kind, minlength=4)[:4].tolist() if len(kind) else [0, 0, 0, 0]


def _alive(host: str, pid: int) -> bool:
    """Whether a writer ``pid`` on ``host`` may still run (another host's: yes)."""
    return host != socket.gethostname() or process_alive(pid)


class LoadDocument:
    """A document of a load, with what its writes need.  ``name`` is the
    name it is written under (its own, or a name of its own when it
    replaces a stored document: ``replaces``)."""

    __slots__ = ("attrs", "doc", "ids", "lseq", "replaces", "seq")

    def __init__(self, doc: ParsedDocument, seq: int, lseq: int,
                 replaces: str | None = None) -> None:
        if replaces is not None:
            doc = dataclasses.replace(doc, name=f"\x1dreplacing\x1d{seq}\x1d{doc.name}")
        self.doc, self.seq, self.lseq, self.replaces = doc, seq, lseq, replaces
        self.ids = unit_ids(doc)
        self.attrs = attribute_json(doc)

    def row(self, digest_: str, complete: bool = False) -> dict[str, Any]:
        doc = self.doc
        return {"name": doc.name, "source": doc.source, "kind": int(doc.kind),
                "length": float(doc.length), "count": len(self.ids), "seq": self.seq,
                "digest": digest_, "kind_counts": _kind_counts(doc),
                "complete": complete, "replaces": self.replaces}

    def links(self, load: str, complete: bool = False) -> list[dict[str, Any]]:
        doc = self.doc
        # target: the document's name; fragment: the element's name in it ('' for its root)
        return [{"key": f"{doc.name}\x1f{k}", "load": load, "complete": complete,
                 "pair": False, "src": self.ids[row], "src_doc": doc.name,
                 "src_pre": int(row), "target": target.partition("#")[0],
                 "fragment": target.partition("#")[2], "anchor": anchor or "",
                 "lseq": self.lseq + k}
                for k, (row, target, anchor) in enumerate(doc.links)]


class BoltLoads:
    """The loads of a :class:`~graphprum.store.bolt.store.BoltStore` over its
    connection (see the module notes); what is stored is read by ``reads``,
    which forgets what it kept once a load writes."""

    def __init__(self, conn: BoltConnection, reads: BoltReads) -> None:
        self.conn = conn
        self.reads = reads
        self.location = conn.location

    # ------------------------------------------------------------ claiming
    def claim(self) -> str:
        """Claim the store for a load; StoreError while another load runs."""
        me = f"{socket.gethostname()} {os.getpid()} {uuid.uuid4().hex[:8]}"
        for _ in range(5):
            meta = self.reads.meta()
            current = meta["writer"]
            if current and not self._stale(current, meta["beat"]):
                host, pid, _ = ([*current.split(" "), "", "", ""])[:3]
                since = time.strftime("%H:%M:%S", time.localtime(meta["beat"]))
                raise StoreError(
                    f"{self.location}: another load is writing to this store (process {pid} "
                    f"on {host}, alive at {since}); wait for it to finish (a load that was "
                    f"killed is taken over after {STALE_WRITER:.0f} s without news)")
            rows = self.conn.write("load/writer", expected=current, writer=me, now=time.time())
            if rows and rows[0][0] == me:
                return me
        raise StoreError(f"{self.location}: could not claim the store for a load")

    @staticmethod
    def _stale(writer: str, beat: float) -> bool:
        host, _, rest = writer.partition(" ")
        pid = rest.split(" ")[0]
        if pid.isdigit() and not _alive(host, int(pid)):
            return True
        return time.time() - beat > STALE_WRITER

    def release(self, me: str) -> None:
        with contextlib.suppress(Exception):
            self.conn.write("load/writer_release", writer=me, timeout=10.0)

    # ------------------------------------------------------- interrupted loads
    def _remove_incomplete(self, timeout: float | None = None) -> int:
        """Remove the documents (and link records) of loads that did not
        finish (the caller holds the store); returns how many documents."""
        names = [name for name, _ in self.conn.read("read/incomplete")]
        for i in range(0, len(names), 200):
            part = names[i:i + 200]
            while any(n for (n,) in self.conn.write_rows("load/remove_incomplete_units", "names",
                                                     part, timeout=timeout)):
                pass
        self.conn.write_rows("load/remove_incomplete_documents", "names", names, timeout=timeout)
        while self.conn.write("load/remove_incomplete_links", timeout=timeout)[0][0]:
            pass
        if names:
            self.conn.write("load/orphan_attributes", timeout=timeout)
        return len(names)

    def resume_loads(self) -> int:
        """Finish what interrupted loads left: remove their incomplete
        documents (and temporary bulk graphs of dead processes); returns how
        many documents were removed."""
        self.conn.ensure_schema()
        me = self.claim()
        try:
            removed = self._remove_incomplete()
            self._store_held()
            if self.conn.redis() is not None:
                self._drop_dead_bulk_keys()
        finally:
            self.release(me)
            self.reads.invalidate()
        return removed

    def _drop_dead_bulk_keys(self) -> None:
        cursor: int | str = 0
        while True:
            cursor, keys = self.conn.redis_call("a scan for bulk graphs", "SCAN", cursor,
                                                "MATCH", BULK_PREFIX + "*", "COUNT", 1000)
            for key in keys:
                host, _, rest = key[len(BULK_PREFIX):].rpartition("-")[0].rpartition("-")
                pid = rest
                if pid.isdigit() and not _alive(host, int(pid)):
                    self.conn.redis_call("a removal", "DEL", key)
            if int(cursor) == 0:
                return

    # --------------------------------------------------------------- loading
    def load_documents(self, docs: Iterable[ParsedDocument | DocumentBatch], *,
                       replace: bool = False, description: dict[str, Any] | None = None,
                       link_pairs: LinkPairs | None = None,
                       link_stats: dict[str, Any] | None = None) -> LoadReport:
        """Add documents (and raw page-to-page link pairs), all or nothing
        (see the module notes for what a killed load leaves)."""
        t0 = time.perf_counter()
        self.conn.schema_done = False
        self.conn.ensure_schema()
        me = self.claim()
        try:
            self._remove_incomplete()
            self._store_held()
            self.reads.invalidate()
            way = self._empty_way(link_pairs)
            if way == "bulk":
                report = self._bulk_load(docs, description, link_stats)
            else:
                report = self._merge_load(docs, replace, description, link_pairs, link_stats,
                                          me, create=way == "create")
        except BaseException:
            with contextlib.suppress(Exception):
                self._remove_incomplete(timeout=30.0)
            raise
        finally:
            self.release(me)
            self.reads.invalidate()
        report.seconds = time.perf_counter() - t0
        return report

    def _history(self, meta: dict[str, Any], report: LoadReport,
                 description: dict[str, Any] | None, link_stats: dict[str, Any] | None,
                 unchanged: int) -> dict[str, Any]:
        """Parameters of ``load/meta`` after this load."""
        loads, stats = list(meta["loads"]), dict(meta["link_stats"])
        for k, v in (link_stats or {}).items():
            stats[k] = stats.get(k, 0) + v if isinstance(v, int) else v
        desc = {k: v for k, v in (description or {}).items() if k != "paths"}
        paths = [str(p) for p in (description or {}).get("paths", [])]
        desc["paths"] = paths[:5] + ([f"... {len(paths) - 5} more"] if len(paths) > 5 else [])
        loads.append({**desc, "documents": report.documents, "units": report.elements,
                      "replaced": report.replaced, "unchanged": unchanged,
                      "time": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
        while len(loads) > 1 and len(json.dumps(loads)) > 2500:
            loads.pop(0)  # the recent history (a query under FalkorDB's Bolt limit)
        return {"format": FORMAT, "loads": json.dumps(loads), "link_stats": json.dumps(stats),
                "load_count": meta["load_count"] + 1}

    # ----------------------------------------------------------- merge loads
    def _merge_load(self, docs: Iterable[ParsedDocument | DocumentBatch], replace: bool,
                    description: dict[str, Any] | None, link_pairs: LinkPairs | None,
                    link_stats: dict[str, Any] | None, me: str, create: bool = False
                    ) -> LoadReport:
        """A load in ``UNWIND`` batches: merged, or with ``create`` (an
        empty store) created."""
        stored: dict[str, tuple[int, str]] = {}
        next_seq = 1
        for name, seq, dig, complete in self.conn.read("read/document_versions"):
            next_seq = max(next_seq, int(seq) + 1)
            if complete:
                stored[name] = (int(seq), dig)
        meta = self.reads.meta()
        report = LoadReport()
        unchanged = 0
        seen: set[str] = set()
        written: list[tuple[str, str | None]] = []  # (name written under, replaces)
        batch: list[tuple[LoadDocument, str]] = []
        units = 0
        load = me.rsplit(" ", 1)[-1]
        lseq = (meta["load_count"] + 1) * 10**9
        pipe = WritePipe(self.conn.call_timeout(), lambda: self.conn.late("a write of this load"))
        beat = [time.monotonic()]

        def flush() -> None:
            self._queue_documents(pipe, batch, load, create)
            if time.monotonic() - beat[0] > BEAT_EVERY:
                beat[0] = time.monotonic()
                pipe.submit(lambda: self.conn.write("load/writer_beat", writer=me, now=time.time()))
            batch.clear()

        try:
            for doc in documents_of(docs):
                if doc.name in seen:
                    raise InputError(doc.source, None,
                                     f"document id {doc.name!r} occurs twice in this load")
                seen.add(doc.name)
                dig = digest(doc)
                found = stored.get(doc.name)
                replaces = None
                if found is not None:
                    if found[1] == dig and not replace:
                        unchanged += 1  # stored as it is: a re-run converges
                        continue
                    if not replace:
                        raise InputError(doc.source, None,
                                         f"document {doc.name!r} is already stored; "
                                         f"use --replace to replace it")
                    replaces = doc.name
                    report.replaced += 1
                d = LoadDocument(doc, next_seq, lseq, replaces)
                next_seq += 1
                lseq += len(doc.links)
                batch.append((d, dig))
                written.append((d.doc.name, replaces))
                units += len(doc.tags)
                report.documents += 1
                report.elements += len(doc.tags)
                report.links += len(doc.links)
                if units >= FLUSH_UNITS:
                    flush()
                    units = 0
            if batch:
                flush()
            pipe.drain()
        finally:
            pipe.close()
        pair_sources: list[str] = []
        if link_pairs is not None:
            before = len(written)
            n, pair_sources = self._merge_link_pairs(link_pairs, stored, written, next_seq,
                                                     lseq, load)
            report.links += n
            report.documents += len(written) - before
            report.elements += len(written) - before
        if report.documents == 0 and unchanged == 0 and link_pairs is None:
            raise InputError(", ".join((description or {}).get("paths", [])) or "input",
                             None, "nothing to load")
        self.conn.write("load/held_load", right=False)  # until load/meta
        self._complete(written, load)
        names = [replaces or name for name, replaces in written]
        if create:  # every link's source is in this load
            make_links(self.conn, "load/links_create", names)
            count_held(self.conn, names)
        else:
            make_links(self.conn, "load/resolve_links_to", names)
            make_links(self.conn, "load/resolve_links_from",
                       list(dict.fromkeys(names + pair_sources)))
            # the documents whose LINK edges changed: this load's, the pages
            # of its link list, and those linking into what it wrote or replaced
            into = [n for (n,) in self.conn.read_batched("load/held_sources", "names", names)]
            count_held(self.conn, list(dict.fromkeys(names + pair_sources + into)))
        if report.replaced:
            self.conn.write("load/orphan_attributes")
        self.conn.write("load/meta", **self._history(meta, report, description, link_stats,
                                                 unchanged))
        if report.documents:
            for axpre in self.reads.summary_names():
                self.conn.write("summary/delete", axpre=axpre)  # stale now
        report.extra["unchanged"] = unchanged
        if create:
            report.extra["create"] = True
        return report

    def _queue_documents(self, pipe: WritePipe, batch: list[tuple[LoadDocument, str]],
                         load: str, create: bool = False) -> None:
        """Queue the writes of a batch of documents: document nodes, the
        batch's Attribute nodes (merged: other batches share them), units
        with their CHILD and HAS_ATTRIBUTE edges, ROOT edges, link records;
        merged, or with ``create`` (into an empty store) created, each write
        sent once."""
        packed: Iterable[PackedBatch | NewBatch]
        if create:  # the units come with their HAS_ATTRIBUTE edges
            rs, fs, ns = separators((d.doc for d, _ in batch), 3)
            units, carried = "load/units_create", []
            budget = self.conn.write_budget(units, data="", rs=rs, fs=fs, ns=ns, docs=[],
                                            seqs=[], parents=[], paths=[])
            packed = pack_new_units(((d.doc, d.seq, d.ids, d.attrs) for d, _ in batch),
                                    max_units=self.conn.batch_size, max_bytes=budget, rs=rs,
                                    fs=fs, ns=ns)
        else:
            rs, fs = separators(d.doc for d, _ in batch)
            # over FalkorDB's Bolt port a write may run twice (see units_merge.cypher)
            units = "load/units_merge" if self.conn.bolt_writes_falkordb() else "load/units"
            budget = self.conn.write_budget(units, data="", rs=rs, fs=fs, docs=[], seqs=[])
            packed = pack_units(((d.doc, d.seq, d.ids, d.attrs) for d, _ in batch),
                                max_units=self.conn.batch_size, max_bytes=budget, rs=rs, fs=fs)
            carried = [d.ids[row] + fs + attribute_nid(name, value) for d, _ in batch
                       for row, values in d.doc.attributes for name, value in values.items()]
        rows = [d.row(dig) for d, dig in batch]
        nodes = _attribute_nodes(batch)
        roots = [{"name": d.doc.name, "root": d.ids[0]} for d, _ in batch if d.ids]
        links = [link for d, _ in batch for link in d.links(load)]
        made = "_create" if create else ""  # load/documents_create.cypher ...
        write_rows = functools.partial(self.conn.write_rows, once=create)
        pipe.submit(lambda: write_rows(f"load/documents{made}", "docs", rows))
        if nodes:
            pipe.submit(lambda: self.conn.write_rows("load/attributes", "attrs", nodes))
        for p in packed:
            pipe.submit(functools.partial(self.conn.write, units, once=create, **p.params()))
        if carried:
            pipe.submit(lambda: self._write_packed("load/has_attribute", carried, rs, fs))
        pipe.submit(lambda: write_rows(f"load/root{made}", "docs", roots))
        if links:
            pipe.submit(lambda: write_rows(f"load/pending_links{made}", "links", links))

    def _write_packed(self, name: str, records: list[str], rs: str, fs: str,
                      graph: str | None = None, **template: str) -> None:
        """Run ``name`` on ``records`` joined with ``rs`` (as ``$data``), in
        as many queries as the server's limit on query size needs."""
        budget = self.conn.write_budget(name, graph=graph, template=template, data="", rs=rs, fs=fs)
        chunk: list[str] = []
        used = 0
        for rec in records:
            size = len(rec.encode("utf-8")) + rec.count("'") + rec.count("\\") + 1
            if chunk and ((budget is not None and used + size > budget)
                          or len(chunk) >= 10 * self.conn.batch_size):
                self.conn.write(name, graph=graph, template=template, data=rs.join(chunk), rs=rs,
                            fs=fs)
                chunk, used = [], 0
            chunk.append(rec)
            used += size
        if chunk:
            self.conn.write(name, graph=graph, template=template, data=rs.join(chunk), rs=rs, fs=fs)

    def _merge_link_pairs(self, link_pairs: LinkPairs, stored: dict[str, tuple[int, str]],
                          written: list[tuple[str, str | None]], next_seq: int, lseq: int,
                          load: str) -> tuple[int, list[str]]:
        """Links FROM -> TO between pages; pages not stored become page units
        (written incomplete, made visible with the load)."""
        listed = self.reads.documents()
        kinds = dict(zip(listed["name"].tolist(), listed["kind"].tolist(), strict=True))
        pages = {n: r for n, r in self.reads.root_ids(list(stored)).items()
                 if int(kinds.get(n, -1)) in (KIND_ELEMENT, KIND_PAGE)}
        n = 0
        sources: list[str] = []
        pipe = WritePipe(self.conn.call_timeout(), lambda: self.conn.late("a write of this load"))
        try:
            for froms, tos in link_pairs:
                fresh = [name for name in dict.fromkeys([*froms, *tos]) if name not in pages]
                if fresh:
                    batch = []
                    for doc in page_units(fresh).documents():
                        d = LoadDocument(doc, next_seq, 0)
                        next_seq += 1
                        batch.append((d, digest(doc)))
                        written.append((d.doc.name, None))
                        pages[doc.name] = doc.name
                    self._queue_documents(pipe, batch, load)
                links = []
                for f, t in zip(froms, tos, strict=True):
                    links.append({"key": f"\x1epairs\x1f{load}\x1f{lseq}", "load": load,
                                  "complete": False, "pair": True, "src": pages[f],
                                  "src_doc": f, "src_pre": 0, "target": t, "fragment": "",
                                  "anchor": "", "lseq": lseq})
                    lseq += 1
                    n += 1
                    sources.append(f)
                pipe.submit(functools.partial(self.conn.write_rows, "load/pending_links",
                                              "links", links))
            pipe.drain()
        finally:
            pipe.close()
        return n, list(dict.fromkeys(sources))

    def _complete(self, written: list[tuple[str, str | None]], load: str) -> None:
        """Make the documents of a load visible (``written``: the name each
        is written under, and the name it replaces): remove the stored
        versions of those it replaces and give the new ones their names;
        then its link records count."""
        step = 200
        replacing = [(tmp, name) for tmp, name in written if name is not None]
        for i in range(0, len(replacing), step):
            part = replacing[i:i + step]
            names = [name for _, name in part]
            renames = [{"name": name, "tmp": tmp} for tmp, name in part]
            self.conn.write_rows("load/replaced_units", "names", names)
            self.conn.write_rows("load/replaced_links", "names", names)
            self.conn.write_rows("load/replaced_documents", "names", names)
            self.conn.write_rows("load/rename", "docs", renames)
            self.conn.write_rows("load/rename_links", "docs", renames)
        self.conn.write_rows("load/complete", "names",
                             [replaces or name for name, replaces in written])
        self.conn.write("load/complete_links", load=load)

    # ------------------------------------------------------ held link counts
    def _store_held(self) -> None:
        """Make the held link counts right where the last load left them
        wrong, once, when a load or ``--resume`` holds the store.

        Two cases (``Meta.held_load`` behind its ``load_count``): a store
        loaded by an earlier graphprum, whose units do not keep the counts
        (0.4 s on FalkorDB for the 300k units of the PLOS starter corpus;
        its reads count them per query meanwhile:
        ``nav/walk_degrees_scan.cypher``); or a load killed after it made its
        documents visible (``interrupted``), before it made their LINK edges
        and wrote ``load/meta``.  Then the LINK edges of every stored
        document's link records are made (``MERGE``: those there already stay
        as they are), Attribute nodes left without units removed, stored
        summaries dropped (documents changed under them), and that load
        counted as a load."""
        meta = self.reads.meta()
        if meta["held"]:
            return
        names = self.reads.documents()["name"].tolist()
        if meta["interrupted"] and names:
            make_links(self.conn, "load/resolve_links_from", names)
            self.conn.write("load/orphan_attributes")
            for axpre in self.reads.summary_names():
                self.conn.write("summary/delete", axpre=axpre)
        if names:
            count_held(self.conn, names)
        if meta["interrupted"]:
            self.conn.write("load/interrupted_counted")
        elif names:
            self.conn.write("load/held_load", right=True)
        self.reads.invalidate()

    # ------------------------------------------------------------ bulk loads
    def _empty_way(self, link_pairs: LinkPairs | None) -> str | None:
        """How a load into an empty store (nothing stored but the Meta
        node) goes: ``"bulk"`` when FalkorDB's Redis port is reachable, else
        ``"create"``; None (merge) for any other store, a link list, or
        ``GRAPHPRUM_BOLT_BULK=0``."""
        if link_pairs is not None or os.environ.get("GRAPHPRUM_BOLT_BULK", "1") == "0":
            return None
        (n,), = self.conn.read("read/node_count")
        if int(n):
            return None
        return "bulk" if self.conn.redis() is not None else "create"

    def _bulk_load(self, docs: Iterable[ParsedDocument | DocumentBatch],
                   description: dict[str, Any] | None, link_stats: dict[str, Any] | None
                   ) -> LoadReport:
        key = f"{BULK_PREFIX}{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        meta = self.reads.meta()
        loader = _BulkLoader(self.conn, key)
        try:
            report = loader.load(documents_of(docs), lseq=(meta["load_count"] + 1) * 10**9)
            if report.documents == 0:
                raise InputError(", ".join((description or {}).get("paths", [])) or "input",
                                 None, "nothing to load")
            for statement in self.conn.schema_statements():
                self.conn.write_text(statement, graph=key)
            loader.finish()
            self.conn.write("load/meta", graph=key,
                        **self._history(meta, report, description, link_stats, 0))
            (n,), = self.conn.read("read/node_count")
            if int(n):
                raise StoreError(f"{self.location}: another load wrote to the store during "
                                 f"this bulk load; nothing of this load was kept")
            self.conn.redis_call("the renaming of the bulk graph", "RENAME", key, BOLT_GRAPH)
        except BaseException:
            with contextlib.suppress(Exception):
                self.conn.redis_call("a removal", "DEL", key, timeout=30.0)
            raise
        self.conn.schema_done = False
        report.extra["unchanged"] = 0
        report.extra["bulk"] = True
        return report


class _BulkLoader:
    """The documents of a bulk load as ``GRAPH.BULK`` calls on graph ``key``
    (node ids counted as FalkorDB gives them: in the order they are sent).
    What it keeps between calls: the names of the documents and the node id
    of every distinct Attribute (shared by the units of many batches)."""

    def __init__(self, conn: BoltConnection, key: str) -> None:
        self.conn, self.key = conn, key
        self.next_id = 0
        self.begun = False
        self.names: list[str] = []
        self.attributes: dict[str, int] = {}  # Attribute nid -> node id

    def load(self, docs: Iterator[ParsedDocument], lseq: int) -> LoadReport:
        report = LoadReport()
        seen: set[str] = set()
        batch: list[tuple[LoadDocument, str]] = []
        units = 0
        seq = 1
        for doc in docs:
            if doc.name in seen:
                raise InputError(doc.source, None,
                                 f"document id {doc.name!r} occurs twice in this load")
            seen.add(doc.name)
            d = LoadDocument(doc, seq, lseq)
            seq += 1
            lseq += len(doc.links)
            batch.append((d, digest(doc)))
            units += len(doc.tags)
            report.documents += 1
            report.elements += len(doc.tags)
            report.links += len(doc.links)
            if units >= BULK_UNITS:
                self._send(batch)
                batch, units = [], 0
        if batch:
            self._send(batch)
        return report

    def _call(self, args: list[str | bytes | int]) -> None:
        try:
            self.conn.redis_call("a bulk write of this load", *args)
        except ReplyError as exc:
            raise StoreError(f"{self.conn.where()}: GRAPH.BULK refused: {exc}") from None

    def _send(self, batch: list[tuple[LoadDocument, str]]) -> None:
        """One ``GRAPH.BULK`` call: documents, units, link records and new
        Attribute nodes (node ids in that order), then ROOT, CHILD and
        HAS_ATTRIBUTE edges."""
        n_docs = len(batch)
        n_units = sum(len(d.ids) for d, _ in batch)
        n_links = sum(len(d.doc.links) for d, _ in batch)
        base_doc, base_unit = self.next_id, self.next_id + n_docs
        attr_id = base_unit + n_units + n_links
        documents = NodeToken("Document", _DOC_PROPS)
        units = NodeToken("Unit", ["uid", "doc", "tag", "path", "text", "attributes",
                                   *_INT_PROPS, *_FLOAT_PROPS])
        pending = NodeToken("PendingLink", _LINK_PROPS)
        attributes = NodeToken("Attribute", ["nid", "name", "value"])
        root = EdgeToken("ROOT", [])
        child = EdgeToken("CHILD", [])
        has = EdgeToken("HAS_ATTRIBUTE", [])
        unit_id = base_unit
        for i, (d, dig) in enumerate(batch):
            doc = d.doc
            row = d.row(dig, complete=True)
            try:
                documents.add([row[p] for p in _DOC_PROPS])
                strings = _strings(d)
                for r, values in doc.attributes:
                    for name, value in values.items():
                        nid = attribute_nid(name, value)
                        node = self.attributes.get(nid)
                        if node is None:
                            attributes.add([nid, name, value])
                            node = self.attributes[nid] = attr_id
                            attr_id += 1
                        has.add(unit_id + r, node, [])
            except ValueError as exc:
                raise InputError(doc.source, None, f"{exc}") from None
            for rec, num in zip(strings, _numbers(d), strict=True):
                units.add_encoded(rec + num)
            root.add(base_doc + i, unit_id, [])
            parent = np.asarray(doc.columns["parent"], dtype=np.int64)
            kids = np.flatnonzero(parent >= 0)
            if len(kids):
                pairs = np.stack([unit_id + parent[kids], unit_id + kids], axis=1)
                child.add_raw(pairs.astype("<u8").tobytes(), len(kids))
            self.names.append(doc.name)
            for link in d.links(self.key, complete=True):
                pending.add([link[p] for p in _LINK_PROPS])
            unit_id += len(d.ids)
        self._call(bulk_command(self.key, not self.begun,
                                [documents, units, pending, attributes], [root, child, has]))
        self.begun = True
        self.next_id = attr_id

    def finish(self) -> None:
        """The LINK edges whose target document was loaded, made in the
        graph from the link records (its indexes created first), and the
        units' held link counts."""
        make_links(self.conn, "load/links_create", self.names, graph=self.key)
        self.conn.write("load/held_all", graph=self.key)


def make_links(conn: BoltConnection, name: str, names: Sequence[str],
               graph: str | None = None) -> None:
    """Run ``name``, a statement making the LINK edges of link records of
    documents ``names`` that ends where each link arrives
    (``load/link_arrival.cypher``, put in for its ``{arrival}``)."""
    conn.write_rows(name, "names", names, graph=graph,
                    template={"arrival": cypher("load/link_arrival")})


def count_held(conn: BoltConnection, names: Sequence[str]) -> None:
    """Count again the links held in the subtree of every unit of documents
    ``names`` (``Unit.held``, ``load/held.cypher``), after their LINK edges
    changed: a few statements per load (a bulk load counts its new graph
    whole: ``load/held_all.cypher``)."""
    conn.write_rows("load/held_clear", "names", names)
    conn.write_rows("load/held", "names", names)


def _attribute_nodes(batch: list[tuple[LoadDocument, str]]) -> list[dict[str, str]]:
    """The Attribute nodes the units of ``batch`` point to, once each."""
    nodes: dict[str, dict[str, str]] = {}
    for d, _ in batch:
        for _, values in d.doc.attributes:
            for name, value in values.items():
                nid = attribute_nid(name, value)
                nodes.setdefault(nid, {"nid": nid, "name": name, "value": value})
    return list(nodes.values())


def _strings(d: LoadDocument) -> list[bytes]:
    """The string values of every unit of ``d`` (uid, doc, tag, path, text,
    attributes), encoded, one bytes object per unit."""
    doc = d.doc
    name = encode_value(doc.name)
    texts = doc.texts if doc.texts is not None else [""] * len(d.ids)
    return [b"".join((encode_value(uid), name, encode_value(tag), encode_value(path),
                      encode_value(text), encode_value(attrs) if attrs else b"\x00"))
            for uid, tag, path, text, attrs in zip(d.ids, doc.tags, doc.paths, texts, d.attrs,
                                                   strict=True)]


def _numbers(d: LoadDocument) -> list[bytes]:
    """The number values of every unit of ``d`` (:data:`_INT_PROPS`, then
    :data:`_FLOAT_PROPS`), encoded, one bytes object per unit."""
    doc = d.doc
    n = len(d.ids)
    cols = doc.columns
    fields = []
    for p in _INT_PROPS + _FLOAT_PROPS:
        fields += [(f"t_{p}", "u1"), (f"v_{p}", "<f8" if p in _FLOAT_PROPS else "<i8")]
    rec = np.zeros(n, dtype=np.dtype(fields))
    values = {"seq": np.full(n, d.seq), "pre": np.arange(n), "ppre": cols["parent"]}
    for p in _INT_PROPS:
        rec[f"t_{p}"] = 4
        rec[f"v_{p}"] = np.asarray(values[p] if p in values else cols[p], dtype=np.int64)
    for p in _FLOAT_PROPS:
        rec[f"t_{p}"] = 2
        rec[f"v_{p}"] = np.asarray(cols[p], dtype=np.float64)
    data = rec.tobytes()
    size = rec.dtype.itemsize
    return [data[i * size:(i + 1) * size] for i in range(n)]
