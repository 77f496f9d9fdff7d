"""Where a load over Bolt only into an empty FalkorDB spends its time, JSON lines.

    python bench/bolt_create_profile.py URI DATA_DIR COLLECTION [--rounds 3]
        [--variant DIR ...]

``URI`` is a FalkorDB that ``graphprum server start --data-dir DATA_DIR``
started (without the append-only file: FalkorDB 4.16 aborts on Bolt writes
with it on); the load runs with ``GRAPHPRUM_FALKORDB_REDIS=0`` (the
``create-bolt`` way of ``bench/bolt.py``).  Each row (``bolt_create_profile``)
is one load: elements/s, the server's CPU per element (``/proc/PID/stat``),
the client's, the server's CPU per element by thread name (its query
workers, ``thread-pool-thr``; Redis's main thread; the Bolt port's), and for
each packaged write query sent: how many, the server's CPU per element
during them and the rest of their wall time per element (round trips,
transfer, the server waiting).  A ``--variant`` directory holds ``.cypher``
files that replace packaged queries of the same name (``load__units_create.cypher``
for ``load/units_create``), to compare shapes of a query, alternated with
the packaged ones (``base``) over ``--rounds`` rounds.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import time
from pathlib import Path

from common import thread_ticks

from graphprum.loading import load_xml
from graphprum.store.bolt import BoltStore, connection, load_records, queries

TICK = os.sysconf("SC_CLK_TCK")


def cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("uri")
    ap.add_argument("data", type=Path)
    ap.add_argument("collection")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--variant", action="append", default=[])
    args = ap.parse_args()
    os.environ["GRAPHPRUM_FALKORDB_REDIS"] = "0"  # over Bolt only
    pid = int((args.data / "redis.pid").read_text())
    packaged = queries.cypher
    current: list[Path | None] = [None]

    def cypher(name: str) -> str:
        if current[0] is not None:
            path = current[0] / (name.replace("/", "__") + ".cypher")
            if path.exists():
                return "\n".join(ln for ln in path.read_text().splitlines()
                                 if not ln.lstrip().startswith("//"))
        return packaged(name)

    connection.cypher = load_records.cypher = queries.cypher = cypher
    stats: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0, 0.0])
    write = connection.BoltConnection.write

    def timed_write(self, name, **kw):  # type: ignore[no-untyped-def]
        t0, c0 = time.perf_counter(), cpu(pid)
        try:
            return write(self, name, **kw)
        finally:
            s = stats[name]
            s[0] += 1
            s[1] += time.perf_counter() - t0
            s[2] += cpu(pid) - c0

    connection.BoltConnection.write = timed_write  # type: ignore[method-assign]
    for k in range(args.rounds):
        for variant in ["base", *args.variant]:
            current[0] = None if variant == "base" else Path(variant)
            store = BoltStore(args.uri)
            store.clear()
            stats.clear()
            r0, c0, th0 = resource.getrusage(resource.RUSAGE_SELF), cpu(pid), thread_ticks(pid)
            t0 = time.perf_counter()
            rep = load_xml(store, [args.collection])
            wall = time.perf_counter() - t0
            r1, th1, n = resource.getrusage(resource.RUSAGE_SELF), thread_ticks(pid), rep.elements
            by_thread: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0])
            for tid, (comm, user, system) in th1.items():
                _, u0, s0 = th0.get(tid, (comm, 0, 0))
                by_thread[comm][0] += 1e6 * (user - u0) / TICK / n
                by_thread[comm][1] += 1e6 * (system - s0) / TICK / n
            print(json.dumps({
                "bench": "bolt_create_profile", "variant": Path(variant).name, "round": k,
                "elements": n, "seconds": round(wall, 3), "elements_per_s": round(n / wall),
                "server_us_per_element": round(1e6 * (cpu(pid) - c0) / n, 1),
                "client_us_per_element": round(1e6 * (r1.ru_utime + r1.ru_stime - r0.ru_utime
                                                      - r0.ru_stime) / n, 1),
                "server_threads_us_user_system": {
                    c: [round(u, 1), round(s, 1)] for c, (u, s) in by_thread.items() if u + s},
                "queries": {q.split("/")[-1]: {"sent": int(c), "server_us": round(1e6 * s / n, 2),
                                               "other_wall_us": round(1e6 * (w - s) / n, 2)}
                            for q, (c, w, s) in stats.items()},
                "loadavg": Path("/proc/loadavg").read_text().split()[0],
                "date": time.strftime("%Y-%m-%d")}), flush=True)
            store.close()


if __name__ == "__main__":
    main()
