"""The neo4j driver against FalkorDB: closing it without Bolt's GOODBYE,
which FalkorDB 4.16 mishandles (:func:`close_driver`, :func:`without_goodbye`),
and the first question of a connection, asked again on a new connection
when the server leaves it unanswered (:func:`ask_backend`)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from graphprum.errors import ServerError
from graphprum.store.bolt.bounded import bounded

if TYPE_CHECKING:
    import neo4j

#: Seconds a server has to answer the first question of a connection.
ANSWER_SECONDS = 20.0
#: Seconds one connection has to answer it before it is asked on another
#: (answered in 0.05 s, 0.22 s at most in 450 opens on a loaded machine).
ASK_SECONDS = 5.0


class _UnansweredError(Exception):
    """A question the server did not answer in time."""


def ask_backend(driver: neo4j.Driver, database: str | None, where: str) -> str:
    """"neo4j" or "falkordb", asked of the server within
    :data:`ANSWER_SECONDS` (a server still running an earlier query,
    which FalkorDB finishes even after the client's --timeout, would
    otherwise hold every later command; ``where`` names it in the error).
    A question not answered within :data:`ASK_SECONDS` is asked again on a
    new connection, the silent one closed without GOODBYE: FalkorDB leaves
    the connection after a GOODBYE unanswered (:func:`close_driver`), and
    the driver says GOODBYE to its idle connections whenever one connection
    fails (``deactivate``)."""
    import neo4j.exceptions as ne  # the driver itself is imported by the store's opener

    def ask() -> list[list[Any]]:
        with driver.session(database=database) as s:
            return [r.values() for r in s.run("CALL dbms.components() YIELD name RETURN name")]

    deadline = time.monotonic() + ANSWER_SECONDS
    while True:
        left = deadline - time.monotonic()
        try:
            rows = bounded(ask, min(ASK_SECONDS, max(left, 0.0)), _UnansweredError)
        except _UnansweredError:
            if time.monotonic() < deadline:
                kill_connections(driver, in_use=True)
                continue
            raise ServerError(
                f"{where}: the server did not answer within {ANSWER_SECONDS:g} s; is it still "
                f"running an earlier query? (FalkorDB runs a query to its end after "
                f"graphprum's --timeout: wait, or restart it: graphprum server stop, then "
                f"start)") from None
        except (ne.Neo4jError, ne.DriverError):
            return "falkordb"
        return "neo4j" if rows and "Neo4j" in str(rows[0][0]) else "falkordb"


def close_driver(driver: neo4j.Driver, backend: str) -> None:
    """Close ``driver``; on FalkorDB, its pooled connections without GOODBYE.

    FalkorDB 4.16 frees a client on Bolt's GOODBYE without taking its socket
    out of the event loop (``src/bolt/bolt_api.c``), so the next connection
    that gets the same file descriptor, Bolt or Redis, is never read: a
    handshake with no answer, a Redis command with no reply.  A socket closed
    without GOODBYE is cleaned up properly.  This reaches into the driver's
    pool (``_pool.connections``, ``Bolt.kill``); when those are not there the
    driver closes as usual.
    """
    if backend == "falkordb":
        kill_connections(driver)
    driver.close()


def kill_connections(driver: neo4j.Driver, in_use: bool = False) -> None:
    """Close the pooled connections of ``driver`` without GOODBYE: the idle
    ones, and with ``in_use`` those in use too (one a thread waits on for an
    answer that does not come).  The driver stays open: its next session
    opens a new connection."""
    pool = getattr(driver, "_pool", None)
    connections = getattr(pool, "connections", None)
    lock = getattr(pool, "lock", None)
    if connections is None or lock is None:
        return
    with lock:
        for queue in list(connections.values()):
            for connection in list(queue):
                kill = getattr(connection, "kill", None)
                if kill is not None and (in_use or not getattr(connection, "in_use", True)):
                    kill()


def without_goodbye(driver: neo4j.Driver) -> None:
    """Make the connections ``driver`` opens from now on close without
    GOODBYE (see :func:`close_driver`).  The driver's pool closes its idle
    connections with GOODBYE whenever one connection fails (its
    ``deactivate``), and on FalkorDB each GOODBYE leaves the next connection
    unanswered: a dropped handshake would drop more.  This wraps the pool's
    ``opener``; when that is not there nothing changes."""
    pool = getattr(driver, "_pool", None)
    opener = getattr(pool, "opener", None)
    if pool is None or opener is None:
        return

    def open_quiet(*args: Any, **kwargs: Any) -> Any:
        connection = opener(*args, **kwargs)
        connection.goodbye = lambda *_, **__: None
        return connection

    pool.opener = open_quiet
