"""The Bolt store: a collection in Neo4j 5 or FalkorDB, through the neo4j driver.

Graph model: the embedded store's (:mod:`graphprum.store.local.graph`), so
that the same Cypher gives the same rows on both, plus properties of the
store's own and its bookkeeping nodes (left out of the nodes and
relationships a query returns)::

    (:Document {name, source, kind, length, count,
                seq, digest, kind_counts, complete, replaces})
    (:Document)-[:ROOT]->(:Unit)
    (:Unit {uid, doc, tag, path, kind, depth, pre, post, size, pos, start, length,
            words, text, attributes, seq, ppre, _part, _cid})
    (:Unit)-[:CHILD]->(:Unit)                       parent -> child
    (:Unit)-[:HAS_ATTRIBUTE]->(:Attribute {name, value, nid})
    (:Unit)-[:LINK {anchor, key, lseq}]->(:Unit)    to the target document's root
    (:Summary {axpre, sid, key, extent, length, tag, pi, weight})<-[:IN_PARTITION]-(:Unit)
    (:Summary)-[:SUMMARY_EDGE {count, length}]->(:Summary)
    (:PendingLink {key, load, complete, pair, src, src_doc, src_pre, target, anchor,
                   lseq})                           every link as loaded
    (:Meta {key: 'graphprum', format, loads, link_stats, load_count, writer, beat})

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

The store is put together from the modules of this package:
:mod:`~graphprum.store.bolt.connection` (driver, time limits, FalkorDB's
quirks), :mod:`~graphprum.store.bolt.reads` (the contract's reads),
:mod:`~graphprum.store.bolt.load` (loads, with :mod:`~graphprum.store.bolt.pack`
and :mod:`~graphprum.store.bolt.bulk`), :mod:`~graphprum.store.bolt.summaries`;
:mod:`~graphprum.store.bolt.server` starts a local FalkorDB.
"""

from __future__ import annotations

from graphprum.store.base import CYPHER, SUMMARY_NODES
from graphprum.store.bolt.connection import BoltConnection
from graphprum.store.bolt.load import BoltLoads
from graphprum.store.bolt.reads import BoltReads
from graphprum.store.bolt.summaries import BoltSummaries


class BoltStore(BoltReads, BoltLoads, BoltSummaries, BoltConnection):
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
        or 1,000; over FalkorDB's Bolt port batches are also cut at about
        4 KB, see :mod:`graphprum.store.bolt.pack`).
    workers : int, optional
        Kept for compatibility: loads write through one connection, in order.
    connect_timeout : float
        Seconds allowed for the Bolt handshake of one connection.

    Credentials come from the URI, else from ``NEO4J_USERNAME`` /
    ``NEO4J_PASSWORD``; without a user name the driver connects without
    authentication (FalkorDB).  The password never reaches the driver's URI,
    so no driver message can echo it.
    """

    capabilities = frozenset({CYPHER, SUMMARY_NODES})
