"""The neo4j driver against FalkorDB: closing it without Bolt's GOODBYE,
which FalkorDB 4.16 mishandles (:func:`close_driver`, :func:`without_goodbye`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import neo4j


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
