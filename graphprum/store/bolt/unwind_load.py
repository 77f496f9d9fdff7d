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
        self.conn.write("load/meta", **load_history(meta, report, description, link_stats,
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


def _attribute_nodes(batch: list[tuple[LoadDocument, str]]) -> list[dict[str, str]]:
    """The Attribute nodes the units of ``batch`` point to, once each."""
    nodes: dict[str, dict[str, str]] = {}
    for d, _ in batch:
        for _, values in d.doc.attributes:
            for name, value in values.items():
                nid = attribute_nid(name, value)
                nodes.setdefault(nid, {"nid": nid, "name": name, "value": value})
    return list(nodes.values())
