#!/usr/bin/env python3
"""Benchmark: loading XML into the embedded store (DESIGN §3).

For each size, generates a deterministic collection with bench/gen_collection.py
(cached under bench/out/), then in fresh subprocesses measures:

- ``bare``: a bare ``lxml.etree.iterparse`` pass (start and end events) that
  reads every element's text and tail -- the reference;
- ``load``: ``graphprum.loading.load_xml`` into a new store (the columns), then
  ``build_graph`` (the LadybugDB graph for Cypher), with peak resident memory
  (the loading process's, and apart the largest of its parsing workers'):
  with the default ``jobs`` (one per CPU: files parsed in worker processes
  from 8 MB of XML) and with ``jobs=1`` (everything in one process);
- ``networkx``: the peer a user might write instead: a ``networkx.DiGraph``
  of the same elements from the same iterparse pass (a node per element with
  its ``tag`` attribute, an edge parent -> child);
- ``open``: opening the store and touching every column (resident bytes per
  element of the opened store).

Prints one JSON line per size: elements/s, ratio to bare, bytes per element,
and whether ``graphprum load`` builds the graph at that size by default
(``graph_at_load``: up to ``graphprum.cli.load.GRAPH_AT_LOAD`` units; above,
the first query builds it).

    python bench/load_xml.py --articles 100 10000
    python bench/load_xml.py --articles 256000 --repeat 1 --no-networkx --no-jobs1  # 20M
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

BARE = r"""
import sys, time, glob, resource
from lxml import etree
files = sorted(glob.glob(sys.argv[1] + "/**/*.xml", recursive=True))
t = time.perf_counter(); n = 0
for f in files:
    for ev, el in etree.iterparse(f, events=("start", "end")):
        if ev == "end":
            el.text; el.tail; n += 1
print(n, time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""

NETWORKX = r"""
import sys, time, glob, resource
from lxml import etree
import networkx
files = sorted(glob.glob(sys.argv[1] + "/**/*.xml", recursive=True))
t = time.perf_counter(); g = networkx.DiGraph(); n = 0
for f in files:
    stack = []
    for ev, el in etree.iterparse(f, events=("start", "end")):
        if ev == "start":
            g.add_node(n, tag=el.tag)
            if stack:
                g.add_edge(stack[-1], n)
            stack.append(n); n += 1
        else:
            stack.pop()
print(g.number_of_nodes(), time.perf_counter() - t, g.number_of_edges())
"""

LOAD = r"""
import sys, time, resource
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
from graphprum.store.local import LocalStore
from graphprum.loading import load_xml
import numpy, pandas, lxml.etree
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
t = time.perf_counter()
s = LocalStore(sys.argv[2])
r = load_xml(s, [sys.argv[1]], jobs=int(sys.argv[3]) if sys.argv[3] != "auto" else None)
dt = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - base
workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
# the engine's share of the graph's build: its COPY statements, and all but
# making the Arrow frames it copies (checkpoints, schema, the final write)
import graphprum.store.local.graph as G
spent = {"copy": 0.0, "frames": 0.0}
copy, frames = G._copy, G._frames
def timed_copy(*a, **k):
    t = time.perf_counter()
    try:
        return copy(*a, **k)
    finally:
        spent["copy"] += time.perf_counter() - t
def timed_frames(*a, **k):
    made = frames(*a, **k)
    while True:
        t = time.perf_counter()
        item = next(made, None)
        spent["frames"] += time.perf_counter() - t
        if item is None:
            return
        yield item
G._copy, G._frames = timed_copy, timed_frames
t = time.perf_counter()
s.build_graph()
dg = time.perf_counter() - t
print(r.elements, dt, peak, dg, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - base,
      workers, spent["copy"], dg - spent["frames"])
"""

OPEN = r"""
import sys, time, resource
from graphprum.store.local import LocalStore
import numpy, pandas
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
t = time.perf_counter()
s = LocalStore(sys.argv[1]); tab = s.table()
opened = time.perf_counter() - t
total = sum(float(numpy.asarray(c).sum()) for c in tab.columns.values())
print(len(tab), opened, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - base)
"""


def run(code: str, *args: str) -> list[float]:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         check=True)
    return [float(x) for x in out.stdout.split()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--articles", type=int, nargs="+", default=[80, 8000],
                    help="collection sizes in articles (default: ~10k and ~1M elements)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="best of N timings")
    ap.add_argument("--no-networkx", action="store_true",
                    help="skip the networkx peer (about 700 bytes per element: 14 GB at 20M)")
    ap.add_argument("--no-jobs1", action="store_true", help="skip the jobs=1 loads")
    args = ap.parse_args()
    from graphprum.cli.load import GRAPH_AT_LOAD

    cache = HERE / "out"
    cache.mkdir(exist_ok=True)
    for n in args.articles:
        col = cache / f"collection-{n}-{args.seed}"
        if not col.exists():
            subprocess.run([sys.executable, str(HERE / "gen_collection.py"), str(col),
                            "--articles", str(n), "--seed", str(args.seed)], check=True,
                           stdout=subprocess.DEVNULL)
        bare = min((run(BARE, str(col)) for _ in range(args.repeat)), key=lambda r: r[1])
        nx = [float("nan")] * 3 if args.no_networkx else \
            min((run(NETWORKX, str(col)) for _ in range(args.repeat)), key=lambda r: r[1])
        loads: dict[str, list[list[float]]] = {"auto": []} if args.no_jobs1 else \
            {"auto": [], "1": []}
        for _ in range(args.repeat):
            for jobs in loads:
                tmp = Path(tempfile.mkdtemp(prefix="gp-bench-"))
                try:
                    loads[jobs].append(run(LOAD, str(col), str(tmp / "store"), jobs))
                    if jobs == "auto":
                        opened = run(OPEN, str(tmp / "store"))
                finally:
                    shutil.rmtree(tmp, ignore_errors=True)
        load = min(loads["auto"], key=lambda r: r[1])
        one = [float("nan")] * 6 if args.no_jobs1 else min(loads["1"], key=lambda r: r[1])
        elements = int(load[0])
        print(json.dumps({k: None if isinstance(v, float) and math.isnan(v) else v for k, v in {
            "bench": "load_xml", "articles": n, "elements": elements,
            "bare_iterparse_s": round(bare[1], 4), "load_s": round(load[1], 4),
            "elements_per_s": round(elements / load[1]),
            "ratio_to_bare_iterparse": round(load[1] / bare[1], 3),
            "load_peak_rss_bytes_per_element": round(load[2] / elements, 1),
            "load_worker_peak_rss_mb": round(load[5] / 2**20, 1),
            "jobs": "auto", "cpus": len(os.sched_getaffinity(0)),
            "load_jobs1_s": round(one[1], 4),
            "load_jobs1_elements_per_s": None if args.no_jobs1 else round(elements / one[1]),
            "load_jobs1_ratio_to_bare_iterparse": round(one[1] / bare[1], 3),
            "load_jobs1_peak_rss_bytes_per_element": round(one[2] / elements, 1),
            "graph_s": round(load[3], 4),
            "load_with_graph_s": round(load[1] + load[3], 4),
            "load_with_graph_elements_per_s": round(elements / (load[1] + load[3])),
            "load_with_graph_ratio_to_bare_iterparse": round((load[1] + load[3]) / bare[1], 3),
            "graph_peak_rss_bytes_per_element": round(load[4] / elements, 1),
            "graph_copy_s": round(load[6], 4), "graph_engine_s": round(load[7], 4),
            "load_with_graph_outside_engine_s": round(load[1] + load[3] - load[7], 4),
            "load_with_graph_outside_engine_ratio_to_bare_iterparse":
                round((load[1] + load[3] - load[7]) / bare[1], 3),
            "graph_at_load": elements <= GRAPH_AT_LOAD,
            "networkx_digraph_s": round(nx[1], 4),
            "networkx_nodes": None if args.no_networkx else int(nx[0]),
            "ratio_to_networkx": round(load[1] / nx[1], 3),
            "load_with_graph_ratio_to_networkx": round((load[1] + load[3]) / nx[1], 3),
            "open_s": round(opened[1], 4),
            "open_rss_bytes_per_element": round(opened[2] / elements, 1),
            "machine": f"{platform.machine()} {os.cpu_count()} cpu, "
                       f"python {platform.python_version()}",
            "date": time.strftime("%Y-%m-%d"),
        }.items()}), flush=True)


if __name__ == "__main__":
    main()
