"""Waiting for FalkorDB's indexes to be built.

FalkorDB fills an index created on a label that already has nodes in the
background (``db.indexes()`` says ``[Indexing] 28422/200000: UNDER
CONSTRUCTION``); a query planned on such an index meanwhile crashed FalkorDB
4.16 (signal 11 in ``IndexSpec_GetField``, from ``Index_BuildQueryTree``) in
2 of 45 bulk loads of the PostgreSQL manual, whose LINK edges are made right
after the bulk graph's 11 indexes.  So after creating indexes the store
waits until every one is ``OPERATIONAL`` (``schema/falkordb_building``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from graphprum.store.bolt.queries import cypher
from graphprum.store.bolt.redis_port import compact_rows

if TYPE_CHECKING:
    from graphprum.store.bolt.connection import BoltConnection

#: Seconds between two questions while indexes are being built.
POLL = 0.02


def wait_for_indexes(conn: BoltConnection, graph: str | None = None) -> None:
    """Return once FalkorDB has built every index of ``graph`` (default: the
    Bolt port's, asked over Bolt when the Redis port is out of reach);
    ServerError (:meth:`BoltConnection.late`) after :meth:`~BoltConnection.call_timeout`."""
    text = cypher("schema/falkordb_building")
    deadline = time.monotonic() + conn.call_timeout()
    while True:
        if graph is None:
            (building,), = conn.read_text(text, {}, compact=True)
        else:
            reply = conn.redis_call("a look at the indexes", "GRAPH.RO_QUERY", graph, text,
                                    "--compact", timeout=conn.call_timeout())
            (building,), = compact_rows(reply, exact=True)
        if not int(building):
            return
        if time.monotonic() > deadline:
            raise conn.late("the building of the indexes")
        time.sleep(POLL)
