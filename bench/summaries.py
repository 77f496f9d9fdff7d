"""Benchmark: AxPRE summaries on a generated collection.

Builds a random UnitTable directly with numpy (documents of random preorder
trees) and times ``build_summary`` for each AxPRE and weighting, each in a
forked child process, printing one JSON line per run: seconds, partitions,
edges, and the child's peak resident memory above the table it inherited.

Shapes: ``markov`` (default; a child's tag depends on its parent's tag, depth
up to 20, so label paths repeat as in real collections) and ``random``
(tags drawn by depth only, depth up to 40: nearly every label path is new,
the worst case for p* and p*|c).

Usage::

    python bench/summaries.py [--elements 1000000] [--seed 1] [--shape markov|random]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time

import numpy as np
import pandas as pd

from graphprum.summaries.axpre import build_summary
from graphprum.units import KIND_ELEMENT, UNIT_COLUMNS, UnitTable


def random_table(n: int, seed: int = 1, n_tags: int = 40, shape: str = "markov") -> UnitTable:
    """``n`` elements in documents of 200..2000 elements, preorder, random shapes."""
    rng = np.random.default_rng(seed)
    sizes = []
    total = 0
    while total < n:
        s = int(min(rng.integers(200, 2001), n - total))
        sizes.append(s)
        total += s
    first = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.int64)
    # depth sequence: 0 at each root, else 1 <= d[i] <= d[i-1] + 1 (a preorder tree)
    markov = shape == "markov"
    max_depth = 20 if markov else 40
    steps = rng.choice([1, 0, -1, -2], size=n,
                       p=[0.3, 0.35, 0.2, 0.15] if markov else [0.42, 0.3, 0.18, 0.1])
    choice = rng.choice(4, size=n, p=[0.55, 0.25, 0.15, 0.05])
    tag = np.zeros(n, dtype=np.int64)
    depth = np.empty(n, dtype=np.int64)
    parent = np.empty(n, dtype=np.int64)
    is_root = np.zeros(n, dtype=bool)
    is_root[first] = True
    last_at = np.zeros(64, dtype=np.int64)  # last row seen at each depth
    d_prev = 0
    for i in range(n):  # generation only; not timed
        if is_root[i]:
            d = 0
            parent[i] = -1
        else:
            d = min(max(d_prev + int(steps[i]), 1), d_prev + 1, max_depth)
            parent[i] = last_at[d - 1]
            tag[i] = (tag[parent[i]] * 5 + 1 + choice[i]) % n_tags
        depth[i] = d
        last_at[d] = i
        d_prev = d
    if not markov:
        tag = (depth * 3 + rng.integers(0, 4, size=n)) % n_tags
    cols = {c: np.zeros(n, dtype=t) for c, t in UNIT_COLUMNS.items()}
    cols["doc"] = np.repeat(np.arange(len(sizes)), sizes).astype(np.int32)
    cols["kind"][:] = KIND_ELEMENT
    cols["tag"] = tag.astype(np.int32)
    cols["depth"] = depth.astype(np.int16)
    cols["parent"] = parent.astype(np.int32)
    cols["length"] = rng.integers(0, 200, size=n).astype(np.float64)
    docs = pd.DataFrame({"name": [f"d{i}" for i in range(len(sizes))],
                         "source": [""] * len(sizes), "kind": [KIND_ELEMENT] * len(sizes),
                         "length": np.zeros(len(sizes)), "first": first,
                         "count": np.asarray(sizes)})
    return UnitTable(cols, [f"t{i}" for i in range(n_tags)], [""], docs)


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _run(table: UnitTable, axpre: str, weight: str) -> dict:
    base = _rss_mb()
    t0 = time.perf_counter()
    s = build_summary(table, axpre, weight)
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    return {"bench": "build_summary", "axpre": axpre, "weight": weight,
            "elements": len(table), "seconds": round(seconds, 3),
            "elements_per_s": round(len(table) / seconds),
            "partitions": len(s), "edges": len(s.edges), "weights": len(s.weights),
            "peak_rss_above_table_mb": round(peak - base, 1),
            "bytes_per_element": round((peak - base) * 2**20 / len(table), 1)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--elements", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--shape", choices=["markov", "random"], default="markov")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    table = random_table(args.elements, args.seed, shape=args.shape)
    print(json.dumps({"bench": "generate", "shape": args.shape, "elements": len(table),
                      "documents": len(table.docs), "max_depth": int(table.depth.max()),
                      "seconds": round(time.perf_counter() - t0, 3)}), flush=True)
    runs = [("p*", "count"), ("c", "count"), ("p*|c", "count"), ("c*", "count"),
            ("label", "count"), ("p", "count"), ("p*", "length"), ("p*", "extent")]
    for axpre, weight in runs:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # child: build once, report, exit
            os.close(read)
            os.write(write, json.dumps({"shape": args.shape, **_run(table, axpre, weight)})
                     .encode())
            os._exit(0)
        os.close(write)
        with os.fdopen(read) as f:
            line = f.read()
        os.waitpid(pid, 0)
        print(line, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
