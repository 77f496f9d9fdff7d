"""The Bolt store: a collection in Neo4j 5 or FalkorDB (see
:mod:`graphprum.store.bolt.store`), and a local FalkorDB server
(:mod:`graphprum.store.bolt.server`).

``BoltStore`` and ``cypher`` are imported on first use, so that the server
commands start without the driver and numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphprum.store.bolt.connection import cypher
    from graphprum.store.bolt.store import BoltStore

__all__ = ["BoltStore", "cypher"]


def __getattr__(name: str) -> Any:
    if name == "BoltStore":
        from graphprum.store.bolt.store import BoltStore

        return BoltStore
    if name == "cypher":
        from graphprum.store.bolt.connection import cypher

        return cypher
    raise AttributeError(name)
