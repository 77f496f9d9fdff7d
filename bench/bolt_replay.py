"""The writes of a load over Bolt only, sent again through FalkorDB's Redis
port and over Bolt, JSON lines: how much of a ``create-bolt`` load is the
Bolt port's own cost rather than the client's.

    python bench/bolt_replay.py URI DATA_DIR COLLECTION [--rounds 3]

``URI`` is a FalkorDB that ``graphprum server start --data-dir DATA_DIR``
started without the append-only file (as for ``bench/bolt_create_profile.py``;
its graph is emptied).  The collection is loaded once with
``GRAPHPRUM_FALKORDB_REDIS=0`` (``load``), every write query it sends
recorded with its parameters spliced in; then, alternately for
``--rounds`` rounds, the graph is emptied and the recorded queries are sent
again in order from one thread that does nothing else: ``redis``
(``GRAPH.QUERY`` on the Redis port) and ``bolt`` (the store's own Bolt
transactions).  Each row: wall seconds, the server's CPU seconds by thread
name, the client's CPU seconds, and for ``redis`` the sum of FalkorDB's own
execution times.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import time
from pathlib import Path
from typing import Any

import redis
from common import thread_ticks

from graphprum.loading import load_xml
from graphprum.store.bolt import BoltStore, connection
from graphprum.store.bolt.redis_port import BOLT_GRAPH, find_redis_port
from graphprum.store.cypher_literal import splice

TICK = os.sysconf("SC_CLK_TCK")


def threads(pid: int) -> dict[str, float]:
    """CPU seconds of ``pid`` so far, by thread name."""
    out: dict[str, float] = collections.defaultdict(float)
    for name, user, system in thread_ticks(pid).values():
        out[name] += (user + system) / TICK
    return out


def own_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("uri")
    ap.add_argument("data", type=Path)
    ap.add_argument("collection")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    os.environ["GRAPHPRUM_FALKORDB_REDIS"] = "0"  # the load over Bolt only
    pid = int((args.data / "redis.pid").read_text())
    sent: list[tuple[str, bool]] = []
    conn_class = connection.BoltConnection
    transaction = conn_class._transaction

    def recorded(self: Any, text: str, params: Any, **kw: Any) -> Any:
        if kw.get("write"):
            sent.append((splice(text, params), bool(kw.get("once"))))
        return transaction(self, text, params, **kw)

    conn_class._transaction = recorded  # type: ignore[method-assign]
    store = BoltStore(args.uri)
    store.clear()
    t0 = time.perf_counter()
    elements = load_xml(store, [args.collection]).elements
    print(json.dumps({"bench": "bolt_replay", "way": "load", "elements": elements,
                      "writes": len(sent), "seconds": round(time.perf_counter() - t0, 2)}),
          flush=True)
    conn_class._transaction = transaction  # type: ignore[method-assign]
    conn = store.conn
    del os.environ["GRAPHPRUM_FALKORDB_REDIS"]  # (it hides the port from the finder too)
    found = find_redis_port(*conn.host_port())
    if found is None:
        raise SystemExit(f"{args.uri}: no Redis port found beside the Bolt port")
    client = redis.Redis(host=found[0], port=found[1])
    for k in range(args.rounds):
        for way in ("redis", "bolt"):
            store.clear()
            time.sleep(2.0)  # the emptied graph is freed in the background
            th0, c0, t0 = threads(pid), own_cpu(), time.perf_counter()
            internal = 0.0
            for text, once in sent:
                if way == "redis":
                    reply = client.execute_command("GRAPH.QUERY", BOLT_GRAPH, text)
                    internal += next(float(s.split(b":")[1].split()[0]) for s in reply[-1]
                                     if b"internal execution" in s) / 1e3
                else:
                    conn._transaction(text, {}, write=True, timeout=None, once=once)
            wall, th1 = time.perf_counter() - t0, threads(pid)
            row = {"bench": "bolt_replay", "way": way, "round": k, "writes": len(sent),
                   "seconds": round(wall, 2),
                   "server_cpu_s": round(sum(th1.values()) - sum(th0.values()), 2),
                   "server_threads_s": {n: round(v - th0.get(n, 0.0), 2)
                                        for n, v in th1.items() if v - th0.get(n, 0.0) > 0},
                   "client_cpu_s": round(own_cpu() - c0, 2),
                   "loadavg": Path("/proc/loadavg").read_text().split()[0],
                   "date": time.strftime("%Y-%m-%d")}
            if way == "redis":
                row["falkordb_execution_s"] = round(internal, 2)
            print(json.dumps(row), flush=True)
    store.close()


if __name__ == "__main__":
    main()
