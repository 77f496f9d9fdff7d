"""The Bolt store: a collection in Neo4j 5 or FalkorDB, through the neo4j driver.

Graph model: the embedded store's (:mod:`graphprum.store.local.graph`), so
that the same Cypher gives the same rows on both, plus properties of the
store's own and its bookkeeping nodes (left out of the nodes and
relationships a query returns)::

    (:Document {name, source, kind, length, count,
                seq, digest, kind_counts, complete, replaces})
    (:Document)-[:ROOT]->(:Unit)
    (:Unit {uid, doc, tag, path, kind, depth, pre, post, size, pos, start, length,
            words, text, attributes, held, seq, ppre, _part, _cid})
    (:Unit)-[:CHILD]->(:Unit)                       parent -> child
    (:Unit)-[:HAS_ATTRIBUTE]->(:Attribute {name, value, nid})
    (:Unit)-[:LINK {anchor, key, lseq}]->(:Unit)    to the target document's root, or
                                                    the element its fragment names
    (:Summary {axpre, sid, key, extent, length, tag, pi, weight, samples,
               sample_places})<-[:IN_PARTITION]-(:Unit)
    (:Summary)-[:SUMMARY_EDGE {count, length}]->(:Summary)
    (:PendingLink {key, load, complete, pair, src, src_doc, src_pre, target, fragment,
                   anchor, lseq})                   every link as loaded
    (:Meta {key: 'graphprum', format, loads, link_stats, load_count, held_load, writer,
            beat})

``seq`` numbers documents in load order (a replaced document gets a new
one) and ``pre`` is the local preorder number: (seq, pre) is the order of
the embedded store's rows; ``ppre`` is the parent's ``pre``.  A document is
visible when ``complete`` (:mod:`graphprum.store.bolt.load`).  ``_part`` and
``_cid`` are scratch keys of summary derivations.  Queries live in
``graphprum.cypher`` (the top-level ``cypher/`` directory), one per file.

The store answers the whole :class:`~graphprum.store.base.Store` contract
with Cypher and never reads the whole collection to do so
(:mod:`graphprum.store.bolt.reads`); summaries are derived and kept in the
graph (:mod:`graphprum.store.bolt.summaries`); loads make documents visible
only when complete (:mod:`graphprum.store.bolt.load`).  Every call to the
server has a time limit (``$GRAPHPRUM_BOLT_TIMEOUT``, 600 s by default;
:mod:`graphprum.store.bolt.bounded`) and an error past it says what state the
server is in.

The store is put together by composition: it holds a
:class:`~graphprum.store.bolt.connection.BoltConnection` (driver, time
limits, FalkorDB's quirks, its Redis port through
:mod:`~graphprum.store.bolt.redis_port`) and hands it to the objects that do
the work: :class:`~graphprum.store.bolt.reads.BoltReads` (the contract's
reads), :class:`~graphprum.store.bolt.load.BoltLoads` (loads, with
:mod:`~graphprum.store.bolt.pack` and :mod:`~graphprum.store.bolt.bulk`) and
:class:`~graphprum.store.bolt.summaries.BoltSummaries`;
:mod:`~graphprum.store.bolt.user_query` runs ``graphprum query``;
:mod:`~graphprum.store.bolt.server` starts a local FalkorDB.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from graphprum.store.base import (
    CYPHER,
    SERVER,
    SUMMARY_NODES,
    LinkWalk,
    Resumed,
    ServerReads,
    Store,
    SummaryPage,
    UnitView,
)
from graphprum.store.bolt.connection import BoltConnection
from graphprum.store.bolt.load import BoltLoads
from graphprum.store.bolt.pieces import canonical
from graphprum.store.bolt.reads import BoltReads
from graphprum.store.bolt.summaries import BoltSummaries
from graphprum.store.bolt.user_query import run_user_query
from graphprum.store.uri import BoltURI
from graphprum.units import DocumentBatch, LoadReport, ParsedDocument, UnitTable

if TYPE_CHECKING:
    import pandas as pd


class BoltStore:
    """A collection in a Bolt server (Neo4j 5 or FalkorDB).

    Parameters
    ----------
    uri : str or BoltURI
        ``bolt://HOST:PORT`` or ``neo4j://HOST:PORT`` (``+s``/``+ssc`` too;
        see :mod:`graphprum.store.uri`).  User information in it
        (``bolt://USER:PASSWORD@HOST``) becomes the driver's credentials.
    database : str, optional
        Database; default ``$NEO4J_DATABASE`` or the server's default.
        FalkorDB 4.16's Bolt port ignores it: one graph per server.
    batch_size : int, optional
        Units per ``UNWIND`` batch when loading (default ``$GRAPHPRUM_BOLT_BATCH``
        or 1,000; over FalkorDB's Bolt port batches are also cut by bytes,
        see :mod:`graphprum.store.bolt.pack`).
    connect_timeout : float
        Seconds allowed for the Bolt handshake of one connection.

    Credentials come from the URI, else from ``NEO4J_USERNAME`` /
    ``NEO4J_PASSWORD``; without a user name the driver connects without
    authentication (FalkorDB).  The password never reaches the driver's URI,
    so no driver message can echo it.
    """

    capabilities = frozenset({CYPHER, SUMMARY_NODES, SERVER})

    def __init__(self, uri: str | BoltURI, *, database: str | None = None,
                 batch_size: int | None = None, connect_timeout: float = 2.0) -> None:
        self._opened = (uri, database, batch_size, connect_timeout)
        self.conn = BoltConnection(uri, database=database, batch_size=batch_size,
                                   connect_timeout=connect_timeout)
        self.location = self.conn.location
        self.reads = BoltReads(self.conn)
        self.loads = BoltLoads(self.conn, self.reads)
        self.summaries = BoltSummaries(self.conn, self.reads)

    @property
    def backend(self) -> str:
        """``"neo4j"`` or ``"falkordb"``."""
        return self.conn.backend

    @property
    def database(self) -> str | None:
        """The database named (None: the server's default)."""
        return self.conn.database

    @property
    def batch_size(self) -> int:
        """Units per load query at most."""
        return self.conn.batch_size

    @batch_size.setter
    def batch_size(self, value: int) -> None:
        self.conn.batch_size = value

    # ------------------------------------------------------------ collection
    def info(self) -> dict[str, Any]:
        """Counts per kind, documents, links, summaries, incomplete documents, backend."""
        return self.reads.info()

    def count_units(self, kind: int | None = None) -> int:
        """Number of stored units (of one kind)."""
        return self.reads.count_units(kind)

    def documents(self) -> pd.DataFrame:
        """One row per stored document in load order: ``name, source, kind, length, count``."""
        return self.reads.documents()

    def iter_documents(self) -> Iterator[ParsedDocument]:
        """Every stored document as the loader gave it, in load order."""
        return self.reads.iter_documents()

    def table(self) -> UnitTable:
        """The whole collection (an explicit whole-collection read)."""
        return self.reads.table()

    def resolve(self, ids: Sequence[str]) -> np.ndarray:
        """Rows of ``ids`` in :meth:`table` (-1 for ids the store does not hold)."""
        return self.reads.resolve(ids)

    # ----------------------------------------------------------------- units
    def kinds(self, ids: Sequence[str]) -> np.ndarray:
        """The kind of every id, -1 for ids the store does not hold."""
        return self.reads.kinds(ids)

    def units(self, ids: Sequence[str]) -> pd.DataFrame:
        """One row per id (UnknownIdError for an unknown one)."""
        return self.reads.units(ids)

    def unit(self, uid: str) -> dict[str, Any]:
        """One unit's fields as a dict."""
        return self.reads.unit(uid)

    def ancestors(self, uid: str) -> list[str]:
        """Ids of the ancestors of ``uid``, root first."""
        return self.reads.ancestors(uid)

    def children(self, uid: str) -> list[str]:
        """Ids of the children of ``uid``, in document order."""
        return self.reads.children(uid)

    def subtree(self, uid: str) -> pd.DataFrame:
        """``uid`` and all its descendants, in document order."""
        return self.reads.subtree(uid)

    def links_of(self, uid: str) -> tuple[list[str], list[str]]:
        """Ids at the ends of ``uid``'s out-links (held in its subtree) and in-links."""
        return self.reads.links_of(uid)

    # ----------------------------------------------------- evaluator's pulls
    def view(self, ids: Iterable[str], documents: Iterable[str] = ()) -> UnitView:
        """The stored documents holding ``ids`` (and ``documents``)."""
        return self.reads.view(ids, documents, store=self)

    def read_ahead(self, ids: Iterable[str], pull: bool = False) -> None:
        """Announce the units the coming topics will view (their documents
        then come in a few large queries); with ``pull``, pull them now."""
        self.reads.read_ahead(ids, pull)

    def link_walk(self, sources: Sequence[str], targets: Sequence[str],
                  hops: int | None, structure: bool = False) -> LinkWalk:
        """The neighbourhood of walks of at most ``hops`` moves into ``targets``
        (with ``structure``, child and parent moves too)."""
        return self.reads.link_walk(sources, targets, hops, structure)

    def partitions(self, axpre: str, view: UnitView, rows: np.ndarray) -> np.ndarray:
        """0-based partition of every row of ``view`` under the stored summary ``axpre``."""
        return self.reads.partitions(axpre, view, rows)

    # ------------------------------------------------------------- summaries
    def summary_names(self) -> list[str]:
        """AxPRE summaries stored in the graph."""
        return self.reads.summary_names()

    def load_summary(self, name: str) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
        """A stored summary's arrays (without membership) and metadata."""
        return self.summaries.load_summary(name)

    def save_summary(self, name: str, arrays: dict[str, np.ndarray],
                     meta: dict[str, Any]) -> None:
        """Store a summary (partitions are graph nodes; π goes on them)."""
        self.summaries.save_summary(name, arrays, meta)

    def reopened(self) -> BoltStore:
        """The same store on a connection of its own (a forked process's:
        the parent's connection stays the parent's), with what this one has
        pulled (:meth:`BoltReads.take_pulled`)."""
        uri, database, batch_size, connect_timeout = self._opened
        store = BoltStore(uri, database=database, batch_size=batch_size,
                          connect_timeout=connect_timeout)
        store.reads.take_pulled(self.reads)
        return store

    def summary_page(self, names: Sequence[str], samples: int) -> SummaryPage:
        """The explorer page's counts of the stored summaries ``names``, by the server."""
        return self.summaries.summary_page(names, samples)

    def summary_members(self, names: Sequence[str], ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Per stored summary of ``names``, the 0-based partition of each of ``ids``."""
        return self.summaries.summary_members(names, [canonical(u) for u in ids])

    def derive_partitions(self, axpre: str) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Derive the ``axpre`` partitions in the graph; their statistics."""
        return self.summaries.derive_partitions(axpre)

    # ---------------------------------------------------------------- Cypher
    def build_graph(self) -> bool:
        """Nothing to prepare: the server's graph is the store."""
        return False

    def query(self, text: str, params: dict[str, Any] | None = None, *,
              write: bool = False, timeout: float | None = None) -> list[dict[str, Any]]:
        """Run a user's Cypher (:mod:`graphprum.store.bolt.user_query`)."""
        return run_user_query(self.conn, text, params, write=write, timeout=timeout)

    def run(self, text: str, params: dict[str, Any] | None = None, *,
            write: bool = False) -> list[tuple[Any, ...]]:
        """Rows (tuples) of one query, no guard: for tests and tools (a
        write goes the way the store's own writes go)."""
        if write:
            return self.conn.write_text(text, **(params or {}))
        return self.conn.read_text(text, params or {})

    # --------------------------------------------------------------- writing
    def load_documents(self, docs: Iterable[ParsedDocument | DocumentBatch], *,
                       replace: bool = False, description: dict[str, Any] | None = None,
                       link_pairs: Iterable[tuple[Sequence[str], Sequence[str]]] | None = None,
                       link_stats: dict[str, int] | None = None) -> LoadReport:
        """Add documents (and raw page-to-page link pairs), all or nothing."""
        return self.loads.load_documents(docs, replace=replace, description=description,
                                         link_pairs=link_pairs, link_stats=link_stats)

    def resume_loads(self) -> Resumed:
        """Finish what interrupted loads left (:meth:`BoltLoads.resume_loads`)."""
        return self.loads.resume_loads()

    def ensure_schema(self) -> None:
        """Create the constraints and indexes the store's queries use, if absent."""
        self.conn.ensure_schema()

    def clear(self) -> None:
        """Delete everything graphprum stored in this graph; other nodes stay."""
        self.conn.clear()
        self.reads.invalidate()

    def close(self) -> None:
        """Close the connection (also done when the store is collected, or at exit)."""
        self.reads.invalidate()
        self.conn.close()

    def __enter__(self) -> BoltStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _implements_the_contract(store: BoltStore) -> Store:
    """mypy checks here that :class:`BoltStore` answers the whole :class:`Store` protocol."""
    return store


def _serves(store: BoltStore) -> ServerReads:
    """... and what its ``server`` capability promises."""
    return store
