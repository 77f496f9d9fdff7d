"""The Bolt store: a collection in Neo4j 5 or FalkorDB
(:mod:`graphprum.store.bolt.store`), and a local FalkorDB server
(:mod:`graphprum.store.bolt.server`)."""

from __future__ import annotations

from graphprum.store.bolt.connection import cypher
from graphprum.store.bolt.store import BoltStore

__all__ = ["BoltStore", "cypher"]
