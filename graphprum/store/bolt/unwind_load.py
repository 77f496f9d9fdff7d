"""Loads into a Bolt store in ``UNWIND`` batches: merged on the units' ids,
or, into an empty store, created (see :mod:`graphprum.store.bolt.load`).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterable
from typing import Any

from graphprum.errors import InputError
from graphprum.store.bolt.bounded import WritePipe
from graphprum.store.bolt.connection import BoltConnection
from graphprum.store.bolt.load_records import (
    LinkPairs,
    LoadDocument,
    count_held,
    digest,
    documents_of,
    load_history,
    make_links,
)
from graphprum.store.bolt.pack import (
    NewBatch,
    PackedBatch,
    attribute_nid,
    pack_new_units,
    pack_units,
    separators,
)
from graphprum.store.bolt.reads import BoltReads
from graphprum.units import (
    KIND_ELEMENT,
    KIND_PAGE,
    DocumentBatch,
    LoadReport,
    ParsedDocument,
    page_units,
)

#: Units parsed before their writes are queued (merge loads).
FLUSH_UNITS = 5_000
#: Seconds between heartbeats of a running load.
BEAT_EVERY = 15.0
#: Replaced documents whose stored versions are removed and new ones renamed at a time.
REPLACE_BATCH = 200


class UnwindLoads:
    """The ``UNWIND`` loads of a store over its connection, for
    :class:`~graphprum.store.bolt.load.BoltLoads`, which has claimed the
    store (``reads``: what is stored)."""

    def __init__(self, conn: BoltConnection, reads: BoltReads) -> None:
        self.conn = conn
        self.reads = reads

    # ----------------------------------------------------------- merge loads
    def load(self, docs: Iterable[ParsedDocument | DocumentBatch], replace: bool,
                    description: dict[str, Any] | None, link_pairs: LinkPairs | None,
                    link_stats: dict[str, Any] | None, me: str, create: bool = False
                    ) -> LoadReport:
        """A load in ``UNWIND`` batches: merged, or with ``create`` (an
        empty store) created.  Each document is planned (new, replacing,
        or refused: :class:`_Plan`) and written
        incomplete in batches; then the link list's pairs, and
        :meth:`_finish` makes the load visible."""
        stored, next_seq = self._stored_versions()
        meta = self.reads.meta()
        plan = _Plan(stored, next_seq, (meta["load_count"] + 1) * 10**9, replace)
        load = me.rsplit(" ", 1)[-1]
        self._send_documents(docs, plan, load, me, create)
        pair_sources = [] if link_pairs is None else self._add_link_pairs(link_pairs, plan, load)
        if plan.report.documents == 0 and link_pairs is None:
            raise InputError(", ".join((description or {}).get("paths", [])) or "input",
                             None, "nothing to load")
        self._finish(plan, pair_sources, meta, description, link_stats, load, create)
        return plan.report

    def _stored_versions(self) -> tuple[dict[str, tuple[int, str]], int]:
        """The stored documents that are complete, as name -> (seq, digest),
        and the next free document seq."""
        stored: dict[str, tuple[int, str]] = {}
        next_seq = 1
        for name, seq, dig, complete in self.conn.read("read/document_versions"):
            next_seq = max(next_seq, int(seq) + 1)
            if complete:
                stored[name] = (int(seq), dig)
        return stored, next_seq

    def _send_documents(self, docs: Iterable[ParsedDocument | DocumentBatch], plan: _Plan,
                        load: str, me: str, create: bool) -> None:
        """Plan each document of ``docs`` and queue the writes of those to
        write, a batch at a time, through a write pipe drained at the end."""
        pipe = WritePipe(self.conn.call_timeout(), lambda: self.conn.late("a write of this load"))
        batches = _Batches(self, pipe, load, me, create)
        try:
            for doc in documents_of(docs):
                batches.add(*plan.admit(doc))
            batches.flush()
            pipe.drain()
        finally:
            pipe.close()

    def _add_link_pairs(self, link_pairs: LinkPairs, plan: _Plan, load: str) -> list[str]:
        """Write the links of the link list (and its pages not stored), counted
        in ``plan``; the pages they leave from."""
        written = plan.written
        before = len(written)
        n, sources = self._merge_link_pairs(link_pairs, plan.stored, written, plan.next_seq,
                                            plan.lseq, load)
        plan.report.links += n
        plan.report.documents += len(written) - before
        plan.report.elements += len(written) - before
        return sources

    def _finish(self, plan: _Plan, pair_sources: list[str], meta: dict[str, Any],
                description: dict[str, Any] | None, link_stats: dict[str, Any] | None,
                load: str, create: bool) -> None:
        """Make the written documents visible, then their LINK edges and
        held counts, the load's history in the meta node, and drop the
        summaries it made stale (``plan.report`` gets its extras)."""
        report, written = plan.report, plan.written
        history = load_history(meta, report, description, link_stats, len(plan.stored))
        self.conn.write("load/pending", loads=history["loads"],  # until load/meta
                        link_stats=history["link_stats"])
        self._complete(written, load)
        names = [replaces or name for name, replaces in written]
        self._link_and_count(names, pair_sources, create)
        if report.replaced:
            self.conn.write("load/orphan_attributes")
        self.conn.write("load/meta", **history)
        if report.documents:
            for axpre in self.reads.summary_names():
                self.conn.write("summary/delete", axpre=axpre)  # stale now
        if create:
            report.extra["create"] = True

    def _link_and_count(self, names: list[str], pair_sources: list[str], create: bool) -> None:
        """The LINK edges of the documents ``names`` (and ``pair_sources``,
        the pages of the link list), then the held counts of every document
        whose LINK edges changed."""
        if create:  # every link's source is in this load
            make_links(self.conn, "load/links_create", names)
            count_held(self.conn, names)
            return
        make_links(self.conn, "load/resolve_links_to", names)
        make_links(self.conn, "load/resolve_links_from",
                   list(dict.fromkeys(names + pair_sources)))
        # the documents whose LINK edges changed: this load's, the pages
        # of its link list, and those linking into what it wrote or replaced
        into = [n for (n,) in self.conn.read_batched("load/held_sources", "names", names)]
        count_held(self.conn, list(dict.fromkeys(names + pair_sources + into)))

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

    def _complete(self, written: list[tuple[str, str | None]], load: str | None) -> None:
        """Make the documents of a load visible (``written``: the name each
        is written under, and the name it replaces): remove the stored
        versions of those it replaces and give the new ones their names;
        then its link records count (``load`` None: every incomplete one).

        Run once every write of the load is in (``Meta.held_load`` -1 says
        so), and again, on what is stored, by the next load or ``load
        --resume`` if this one is killed: each step does again what is left
        to do and nothing else (a document renamed keeps no ``replaces``)."""
        step = REPLACE_BATCH
        replacing = [(tmp, name) for tmp, name in written if name is not None]
        for i in range(0, len(replacing), step):
            part = replacing[i:i + step]
            names = [name for _, name in part]
            renames = [{"name": name, "tmp": tmp} for tmp, name in part]
            self.conn.write_rows("load/replaced_units", "names", names)
            self.conn.write_rows("load/replaced_links", "names", names)
            self.conn.write_rows("load/replaced_documents", "names", names)
            self.conn.write_rows("load/rename_links", "docs", renames)
            self.conn.write_rows("load/rename", "docs", renames)
        self.conn.write_rows("load/complete", "names",
                             [replaces or name for name, replaces in written])
        if load is None:
            self.conn.write("load/complete_interrupted_links")
        else:
            self.conn.write("load/complete_links", load=load)


def _attribute_nodes(batch: list[tuple[LoadDocument, str]]) -> list[dict[str, str]]:
    """The Attribute nodes the units of ``batch`` point to, once each."""
    nodes: dict[str, dict[str, str]] = {}
    for d, _ in batch:
        for _, values in d.doc.attributes:
            for name, value in values.items():
                nid = attribute_nid(name, value)
                nodes.setdefault(nid, {"nid": nid, "name": name, "value": value})
    return list(nodes.values())


class _Plan:
    """What a merge load writes, decided one document at a time: a stored
    document is replaced (or, without ``replace``, refused, as on every
    store, even when unchanged), a new one written.  ``written`` holds the name
    each is written under and the name it replaces; ``next_seq`` and
    ``lseq`` are the next free document seq and link order."""

    def __init__(self, stored: dict[str, tuple[int, str]], next_seq: int, lseq: int,
                 replace: bool) -> None:
        self.stored, self.next_seq, self.lseq, self.replace = stored, next_seq, lseq, replace
        self.report = LoadReport()
        self.seen: set[str] = set()
        self.written: list[tuple[str, str | None]] = []

    def admit(self, doc: ParsedDocument) -> tuple[LoadDocument, str]:
        """``doc`` to write, with its digest."""
        if doc.name in self.seen:
            raise InputError(doc.source, None,
                             f"document id {doc.name!r} occurs twice in this load")
        self.seen.add(doc.name)
        dig = digest(doc)
        found = self.stored.get(doc.name)
        replaces = None
        if found is not None:
            if not self.replace:
                raise InputError(doc.source, None,
                                 f"document {doc.name!r} is already stored; "
                                 f"use --replace to replace it")
            replaces = doc.name
            self.report.replaced += 1
        d = LoadDocument(doc, self.next_seq, self.lseq, replaces)
        self.next_seq += 1
        self.lseq += len(doc.links)
        self.written.append((d.doc.name, replaces))
        self.report.documents += 1
        self.report.elements += len(doc.tags)
        self.report.links += len(doc.links)
        return d, dig


class _Batches:
    """Documents gathered into batches of about :data:`FLUSH_UNITS` units,
    each batch's writes queued on ``pipe`` by ``loads._queue_documents``,
    with a writer heartbeat after a batch when :data:`BEAT_EVERY` seconds
    have passed since the last."""

    def __init__(self, loads: UnwindLoads, pipe: WritePipe, load: str, me: str,
                 create: bool) -> None:
        self.loads, self.pipe, self.load, self.me, self.create = loads, pipe, load, me, create
        self.batch: list[tuple[LoadDocument, str]] = []
        self.units = 0
        self.beat = time.monotonic()

    def add(self, d: LoadDocument, dig: str) -> None:
        """Add a document; queue the batch once it holds enough units."""
        self.batch.append((d, dig))
        self.units += len(d.doc.tags)
        if self.units >= FLUSH_UNITS:
            self.flush()

    def flush(self) -> None:
        """Queue the batch's writes (if it holds any), then a heartbeat if due."""
        if not self.batch:
            return
        conn = self.loads.conn
        self.loads._queue_documents(self.pipe, self.batch, self.load, self.create)
        if time.monotonic() - self.beat > BEAT_EVERY:
            self.beat = time.monotonic()
            self.pipe.submit(lambda: conn.write("load/writer_beat", writer=self.me,
                                                now=time.time()))
        self.batch.clear()
        self.units = 0
