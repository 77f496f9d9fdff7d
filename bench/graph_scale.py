#!/usr/bin/env python3
"""Benchmark: where the embedded graph's build goes as the collection grows
(issue 38), JSON lines.

Builds the LadybugDB graph of an existing store (``graphprum load xml ...
--no-graph``) in this process, as :meth:`~graphprum.store.local.LocalStore.build_graph`
does (summaries aside, written to a temporary directory), and logs every step
of it: each COPY (table, rows, seconds, resident memory after it, the
process's peak so far) and each CHECKPOINT, one JSON line each (``step``),
then the whole build (``total``: seconds, peak resident bytes per element,
seconds in unit COPYs, in checkpoints and in relationship COPYs).

    python bench/graph_scale.py STORE              # the build as it is
    python bench/graph_scale.py STORE --every 1      # a checkpoint after every batch
    python bench/graph_scale.py STORE --steps      # also a line per COPY/CHECKPOINT

Alternate it with itself (several rounds, base and new) on a shared machine:
its seconds vary with the machine's load (``loadavg`` in every line).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def rss() -> int:
    """Resident bytes of this process now."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def peak() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", type=Path)
    ap.add_argument("--chunk", type=int, default=None, help="units per COPY (graph.CHUNK)")
    ap.add_argument("--every", type=int, default=None,
                    help="units between checkpoints (graph.CHECKPOINT_ROWS)")
    ap.add_argument("--growth", type=int, default=None,
                    help="checkpoint intervals of at least the table / this "
                         "(graph.CHECKPOINT_GROWTH; 0: fixed intervals)")
    ap.add_argument("--pool", type=int, default=None,
                    help="buffer pool bytes at least (graph.BUFFER_POOL)")
    ap.add_argument("--per-edge", type=int, default=None,
                    help="buffer pool bytes per edge (graph.BUFFER_POOL_PER_EDGE)")
    ap.add_argument("--steps", action="store_true", help="a line per COPY and CHECKPOINT")
    ap.add_argument("--label", default="")
    args = ap.parse_args(argv)

    from graphprum.store.local import LocalStore, graph

    if args.chunk:
        graph.CHUNK = args.chunk
    if args.every:
        graph.CHECKPOINT_ROWS = args.every
    if args.growth is not None:
        graph.CHECKPOINT_GROWTH = args.growth
    if args.pool:
        graph.BUFFER_POOL = args.pool
    if args.per_edge is not None:
        graph.BUFFER_POOL_PER_EDGE = args.per_edge
    steps: list[dict[str, Any]] = []
    copy, copy_all = graph._copy, graph._copy_all

    def timed_copy(conn: Any, table: str, frame: Any) -> None:
        t = time.perf_counter()
        copy(conn, table, frame)
        steps.append({"op": "COPY", "table": table, "rows": len(frame),
                      "seconds": round(time.perf_counter() - t, 3)})

    def timed_copy_all(conn: Any, frames: Any, *rest: Any) -> None:
        def traced() -> Any:
            made = time.perf_counter()
            for name, frame in frames:
                if name == graph.CHECKPOINT:
                    t = time.perf_counter()
                    conn.execute(graph.CHECKPOINT)
                    steps.append({"op": "CHECKPOINT",
                                  "seconds": round(time.perf_counter() - t, 3)})
                    report()
                else:
                    steps.append({"op": "FRAME", "table": name,
                                  "seconds": round(time.perf_counter() - made, 3)})
                    yield name, frame
                    report()
                made = time.perf_counter()
        copy_all(conn, traced(), *rest)
        t = time.perf_counter()
        conn.execute(graph.CHECKPOINT)
        steps.append({"op": "CHECKPOINT", "final": True,
                      "seconds": round(time.perf_counter() - t, 3)})
        report()

    def report() -> None:
        s = steps[-1]
        s["rss_gb"], s["peak_gb"] = round(rss() / 2**30, 3), round(peak() / 2**30, 3)
        if args.steps:
            print(json.dumps({"bench": "graph_scale_step", "label": args.label, **s}),
                  flush=True)

    graph._copy = timed_copy
    graph._copy_all = timed_copy_all
    store = LocalStore(args.store)
    table = store.table()
    n = len(table)
    base = peak()
    tmp = Path(tempfile.mkdtemp(prefix="gp-graph-scale-", dir=args.store.parent))
    try:
        t, cpu = time.perf_counter(), time.process_time()
        graph.build(store.generation, table, {}, target=tmp / "graph.lbug")
        seconds, cpu = time.perf_counter() - t, time.process_time() - cpu
        size = sum(p.stat().st_size for p in tmp.rglob("*") if p.is_file())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    def total(op: str, units: bool | None = None) -> float:
        return round(sum(s["seconds"] for s in steps if s["op"] == op and (
            units is None or (s.get("table") == "Unit") == units)), 2)

    print(json.dumps({
        "bench": "graph_scale", "label": args.label, "elements": n, "chunk": graph.CHUNK,
        "every": graph.CHECKPOINT_ROWS, "growth": graph.CHECKPOINT_GROWTH,
        "pool_gb": round(graph._buffer_pool(store.generation, table) / 2**30, 2),
        "seconds": round(seconds, 2), "us_per_element": round(seconds / n * 1e6, 2),
        "cpu_seconds": round(cpu, 2),
        "unit_copy_s": total("COPY", True), "checkpoint_s": total("CHECKPOINT"),
        "other_copy_s": total("COPY", False), "frames_s": total("FRAME"),
        "checkpoints": sum(s["op"] == "CHECKPOINT" for s in steps),
        "peak_gb": round(peak() / 2**30, 3), "peak_before_gb": round(base / 2**30, 3),
        "peak_bytes_per_element": round(peak() / n, 1),
        "bytes_on_disk_per_element": round(size / n, 1), "loadavg": loadavg()}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
