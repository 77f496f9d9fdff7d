"""``graphprum query`` on a Bolt store: Cypher a user wrote, read-only unless
``write``, stopped after ``timeout`` seconds.

* **FalkorDB, Redis port reachable** (a local server): a read goes as
  ``GRAPH.RO_QUERY ... TIMEOUT ms``, a write as ``GRAPH.QUERY`` (a write
  over FalkorDB's Bolt port aborts a server whose append-only file is on:
  :data:`graphprum.store.bolt.server.APPENDFSYNC`).  The server's own parser refuses a
  query that writes, behind ``PROFILE`` and ``EXPLAIN`` too (which
  FalkorDB's Bolt port would run: it ignores the session's access mode),
  and the server stops the query at its timeout; the client waits
  :data:`GRACE` seconds longer for queries the server cannot interrupt
  (building one huge list).  Doubles come back with 15 significant digits.
* **Neo4j**: a read-access session, which Neo4j enforces, with the timeout
  as the transaction's, which Neo4j enforces too.
* **FalkorDB over Bolt only** (a server on another machine): only
  :mod:`graphprum.query`'s keyword guard refuses writes, and the timeout is
  the client's (the server runs the query to its end).  Give the Redis
  port (``$GRAPHPRUM_FALKORDB_REDIS``, through an SSH tunnel) for the
  server's guard.

Other writes (``write=True``) go over Bolt in a write session.  Nodes,
relationships and paths come back as plain data, the way the embedded store
gives them (:func:`plain`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from graphprum.errors import ServerError, UsageError
from graphprum.store.base import QueryRows
from graphprum.store.bolt.connection import BoltConnection
from graphprum.store.bolt.redis_port import BOLT_GRAPH, Edge, Node, RedisPort, ReplyError
from graphprum.store.cypher_guard import what_runs
from graphprum.store.cypher_literal import splice
from graphprum.store.deadline import call_with_timeout

#: Seconds the client waits past a query's timeout for the server to stop it.
GRACE = 5.0

#: Properties the store keeps for itself, left out of nodes and relationships
#: that a query returns (as the embedded store leaves out its own), by label or type.
_INTERNAL = {"Document": {"seq", "digest", "kind_counts", "complete", "replaces"},
             "Unit": {"seq", "ppre", "_part", "_cid"}, "Attribute": {"nid"},
             "Summary": {"tag", "pi", "weight"}, "LINK": {"key", "lseq"}}


def plain(value: Any) -> Any:
    """Nodes, relationships and paths (the driver's, or of a compact Redis
    reply) as plain data, the way the embedded store gives them
    (:func:`graphprum.store.local.graph_reader.plain`).

    >>> plain(Node(["Unit"], {"uid": "d#/a[1]", "seq": 3}))
    {'labels': ['Unit'], 'uid': 'd#/a[1]'}
    >>> plain([Edge("LINK", {"anchor": "x", "key": "k"})])
    [{'type': 'LINK', 'anchor': 'x'}]
    """
    if isinstance(value, Node):
        return _node(value.labels, value.properties)
    if isinstance(value, Edge):
        return _edge(value.type, value.properties)
    if hasattr(value, "labels") and hasattr(value, "items"):
        return _node(value.labels, dict(value.items()))
    if hasattr(value, "type") and hasattr(value, "items") and hasattr(value, "nodes"):
        return _edge(value.type, dict(value.items()))
    if hasattr(value, "relationships") and hasattr(value, "start_node"):
        return [plain(n) for n in value.nodes]  # a path: its nodes, as the embedded store
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def _node(labels: Any, properties: dict[str, Any]) -> dict[str, Any]:
    hidden = set().union(*(_INTERNAL.get(label, set()) for label in labels))
    return {"labels": sorted(labels),
            **{k: plain(v) for k, v in properties.items() if k not in hidden}}


def _edge(rel_type: str, properties: dict[str, Any]) -> dict[str, Any]:
    hidden = _INTERNAL.get(rel_type, set())
    return {"type": rel_type, **{k: plain(v) for k, v in properties.items() if k not in hidden}}


def run_user_query(conn: BoltConnection, text: str, params: Mapping[str, Any] | None, *,
                   write: bool, timeout: float | None) -> list[dict[str, Any]]:
    """Rows of a user's Cypher as dicts of plain values (see the module notes)."""
    if timeout is not None and not math.isinf(timeout) and not timeout > 0:
        raise UsageError(f"timeout {timeout:g}: must be a positive number of seconds")
    limit = None if timeout is None or math.isinf(timeout) else timeout
    text = what_runs(text)  # the server runs what the guard read (run_query checked it)
    if write and conn.backend == "falkordb" and re.search(r"\bDELETE\b", text, re.IGNORECASE):
        conn.read("load/settle_labels", compact=True)  # as the store's own deletions (connection)
    redis = conn.redis() if conn.backend == "falkordb" else None
    if redis is not None:
        return _through_redis(conn, redis, text, params or {}, write, limit)
    try:
        rows = call_with_timeout(lambda: conn.records(text, params, write=write,
                                                      timeout=limit), limit, conn.location)
    except UsageError as exc:
        if conn.backend != "falkordb" or "past its timeout" not in str(exc):
            raise
        raise UsageError(f"{exc}; FalkorDB goes on running it until it ends") from None
    except ServerError as exc:
        reason = _falkor_reason(conn, text, params) if "unknown error" in str(exc) else None
        if reason is None:
            raise
        raise UsageError(f"Cypher error: {reason}") from None
    return QueryRows(({k: plain(v) for k, v in r.items()} for r in rows),
                     getattr(rows, "columns", ()))


def _through_redis(conn: BoltConnection, redis: RedisPort, text: str,
                   params: Mapping[str, Any], write: bool,
                   limit: float | None) -> list[dict[str, Any]]:
    """A query through FalkorDB's Redis port: a read as ``GRAPH.RO_QUERY``,
    stopped by the server after ``limit`` s; a write as ``GRAPH.QUERY``."""
    def ask() -> tuple[list[str], list[list[Any]]]:
        return redis.user_query(text, params, read_only=not write, server_timeout=limit,
                                timeout=limit + GRACE if limit is not None
                                else conn.call_timeout())

    try:
        try:
            columns, rows = ask()
        except ReplyError as exc:
            if "empty key" not in str(exc):
                raise
            # an empty store has no graph (GRAPH.RO_QUERY does not make one)
            redis.query("RETURN 0", timeout=conn.call_timeout())
            columns, rows = ask()
    except ReplyError as exc:
        message = str(exc)
        if "timed out" in message.lower():
            raise UsageError(f"{conn.location}: the query ran past its timeout ({limit:g} s) "
                             f"and the server stopped it; give --timeout SECONDS, or narrow "
                             f"the query (WHERE, LIMIT)") from None
        if "RO_QUERY" in message:
            raise UsageError(f"{conn.location}: the server refused the query: it writes "
                             f"(FalkorDB's parser says so; add --write to allow it)") from None
        raise UsageError(f"Cypher error: {message[:400]}") from None
    except TimeoutError:
        if limit is None:
            raise conn.late("a query") from None
        raise UsageError(f"{conn.location}: the query ran past its timeout ({limit:g} s) and "
                         f"the server did not stop it within {GRACE:g} s more; FalkorDB goes "
                         f"on running it until it ends (give --timeout SECONDS, or narrow "
                         f"the query: WHERE, LIMIT)") from None
    except ConnectionError:
        raise conn.lost("a query") from None
    return QueryRows(({c: plain(v) for c, v in zip(columns, row, strict=True)} for row in rows),
                     columns)


def _falkor_reason(conn: BoltConnection, text: str,
                   params: Mapping[str, Any] | None) -> str | None:
    """Why FalkorDB refused ``text``: its Bolt port says only "an unknown
    error occurred", its Redis port's GRAPH.EXPLAIN (which plans the
    query without running it) gives the reason; None when unreachable."""
    redis = conn.redis() if conn.backend == "falkordb" else None
    if redis is None:
        return None
    try:
        redis.command("GRAPH.EXPLAIN", BOLT_GRAPH, splice(text, params or {}), timeout=5.0)
    except ReplyError as exc:
        return str(exc)[:400]
    except (OSError, UsageError):
        return None
    return None
