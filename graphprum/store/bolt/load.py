"""Loading into a Bolt store: documents become visible only when complete.

A load writes its documents with ``complete = false``, which every read of
the store filters on (:mod:`graphprum.store.bolt.reads`), and sets it at its
end (``cypher/load/complete.cypher``).  A document that replaces a stored
one is written under a name of its own and renamed then, after the stored
version is removed, so the stored version stays readable while the load
runs.  A load that fails removes what it wrote; one that is killed leaves
incomplete documents that the next load, or ``graphprum load --resume``
(:meth:`BoltLoads.resume_loads`), removes, unless every write of it was in
(``Meta.held_load`` -1): then it had begun to remove stored versions, and
the next load finishes it instead.  A load claims the store first
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

A store is empty when it holds no node but graphprum's ``Meta`` node (the one keyed
``graphprum``: another program's ``:Meta`` nodes are kept)
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

The parts: :mod:`~graphprum.store.bolt.load_records` holds what a load
writes of a document (its rows and link records) and the statements that
make LINK edges and held counts; :mod:`~graphprum.store.bolt.unwind_load`
the ``UNWIND`` loads, merge and create; :mod:`~graphprum.store.bolt.bulk_load`
the ``GRAPH.BULK`` calls; this module claims the store, chooses the way,
finishes interrupted loads and keeps the load history.
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
import uuid
from collections.abc import Iterable
from typing import Any

from graphprum.errors import InputError, StoreError
from graphprum.store.base import Resumed
from graphprum.store.bolt.bulk_load import BulkLoader
from graphprum.store.bolt.connection import BoltConnection
from graphprum.store.bolt.index_status import wait_for_indexes
from graphprum.store.bolt.load_records import (
    LinkPairs,
    count_held,
    documents_of,
    load_history,
    make_links,
)
from graphprum.store.bolt.reads import BoltReads
from graphprum.store.bolt.redis_port import BOLT_GRAPH
from graphprum.store.bolt.server import process_alive
from graphprum.store.bolt.unwind_load import UnwindLoads
from graphprum.units import DocumentBatch, LoadReport, ParsedDocument

#: Seconds after which the writer of a load that stopped beating is taken over.
STALE_WRITER = 300.0
#: Prefix of the temporary graph keys of bulk loads.
BULK_PREFIX = "graphprum-bulk-"


def _alive(host: str, pid: int) -> bool:
    """Whether a writer ``pid`` on ``host`` may still run (another host's: yes)."""
    return host != socket.gethostname() or process_alive(pid)


class BoltLoads:
    """The loads of a :class:`~graphprum.store.bolt.store.BoltStore` over its
    connection (see the module notes); what is stored is read by ``reads``,
    which forgets what it kept once a load writes."""

    def __init__(self, conn: BoltConnection, reads: BoltReads) -> None:
        self.conn = conn
        self.reads = reads
        self.location = conn.location
        self.unwind = UnwindLoads(conn, reads)

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
        finish (the caller holds the store); returns how many documents.

        A load killed once every write was in (``interrupted``: it had
        begun to remove the stored versions of the documents it replaces)
        is finished instead, so that none is lost; 0 are removed then."""
        incomplete = self.conn.read("read/incomplete")
        if incomplete and self.reads.meta()["interrupted"]:
            self.unwind._complete([(name, replaces) for name, _, replaces in incomplete], None)
            return 0
        names = [name for name, _, _ in incomplete]
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

    def resume_loads(self) -> Resumed:
        """Finish what interrupted loads left: remove their incomplete
        documents (and temporary bulk graphs of dead processes), or finish
        the load killed while it made its documents visible; returns how
        many documents were removed and the history entry of the load
        finished."""
        self.conn.ensure_schema()
        me = self.claim()
        try:
            meta = self.reads.meta()
            finished = (meta["pending"] or {}) if meta["interrupted"] else None
            done = Resumed(self._remove_incomplete(), finished)
            self._store_held()
            if self.conn.redis() is not None:
                self._drop_dead_bulk_keys()
        finally:
            self.release(me)
            self.reads.invalidate()
        return done

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
                report = self.unwind.load(docs, replace, description, link_pairs, link_stats,
                                          me, create=way == "create")
        except BaseException:
            with contextlib.suppress(Exception):
                self._remove_incomplete(timeout=30.0)
            raise
        finally:
            self.release(me)
            self.reads.invalidate()
        self._compact_log()
        report.seconds = time.perf_counter() - t0
        return report

    def _compact_log(self) -> None:
        """On FalkorDB, have Redis rewrite its append-only file (in the
        background) once a load is in: a restart then reads the graph as a
        snapshot instead of running every query of the load again, which
        took 201 s for 40k elements with 11k links (a link's arrival query
        scans the units while the replay has no index).  A server without
        the file makes none; one without its Redis port, or busy rewriting,
        keeps its file as it is."""
        if self.conn.backend != "falkordb" or self.conn.redis() is None:
            return
        with contextlib.suppress(Exception):  # a server's own housekeeping: never fail a load
            reply = self.conn.redis_call("read the append-only setting", "CONFIG", "GET",
                                         "appendonly")
            if [_text(v) for v in reply][-1:] == ["yes"]:  # a server without it has none
                self.conn.redis_call("rewrite the append-only file", "BGREWRITEAOF")

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
            self.conn.write("load/held_load")
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
        loader = BulkLoader(self.conn, key)
        try:
            report = loader.load(documents_of(docs), lseq=(meta["load_count"] + 1) * 10**9)
            if report.documents == 0:
                raise InputError(", ".join((description or {}).get("paths", [])) or "input",
                                 None, "nothing to load")
            for statement in self.conn.schema_statements():
                self.conn.write_text(statement, graph=key)
            wait_for_indexes(self.conn, key)  # before the LINK edges' query uses them
            loader.finish()
            self.conn.write("load/meta", graph=key,
                        **load_history(meta, report, description, link_stats, 0))
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
        report.extra["bulk"] = True
        return report


def _text(value: Any) -> str:
    """A reply's bytes or str as str."""
    return value.decode() if isinstance(value, bytes) else str(value)
