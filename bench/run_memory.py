#!/usr/bin/env python3
"""Benchmark: memory and time of reading a TREC run (issue 38 item 4), JSON lines.

A run of ``--topics`` x ``--results`` lines (ids ``d{topic}-{i}`` like
bench/common.py's, and INEX-like element ids ``doc/N#/article[1]/...``) is
read by ``graphprum.io.runs.read_run`` in a fresh process, which reports
its resident memory (``VmRSS``) after its imports, its peak (``VmHWM``)
while reading and its resident memory once the file's bytes are gone and
the run is held: per line, ``resident_bytes_per_line`` (target <= 100) and
``peak_bytes_per_line``.  ``trec_eval`` reads the same file (when
``bench/trec_eval.py`` built it) for the peak of a C reader.

    python bench/run_memory.py [--topics 1000] [--results 1000] [--quick]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import trec_eval_binary

PROBE = r"""
import gc, json, sys, time

def status(key):
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith(key + ":"))

from graphprum.io.runs import read_run
gc.collect()
before = status("VmRSS")
t = time.perf_counter()
run = read_run(sys.argv[1])
seconds = time.perf_counter() - t
gc.collect()
print(json.dumps({"before": before, "peak": status("VmHWM"), "held": status("VmRSS"),
                  "seconds": seconds, "topics": len(run.topics)}))
"""


def write_run(path: Path, topics: int, results: int, elements: bool, seed: int) -> None:
    rng = random.Random(seed)
    with open(path, "w") as f:
        for t in range(topics):
            for i in range(results):
                doc = (t * results + i) // 12 * 7919 % 660_000  # 12 elements a document
                unit = (f"doc/{doc}#/article[1]/body[1]/sec[{i % 3 + 1}]/p[{i % 12 // 3 + 1}]"
                        if elements else f"d{t}-{i}")
                f.write(f"{t} Q0 {unit} {i + 1} {results - i + rng.random():.6f} bench\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--topics", type=int, default=1000)
    ap.add_argument("--results", type=int, default=1000)
    ap.add_argument("--quick", action="store_true", help="200 topics")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    topics = 200 if args.quick else args.topics
    lines = topics * args.results
    trec_eval = trec_eval_binary()
    with tempfile.TemporaryDirectory() as tmp:
        for elements in (False, True):
            path = Path(tmp) / f"run-{elements}.txt"
            write_run(path, topics, args.results, elements, args.seed)
            got = json.loads(subprocess.run([sys.executable, "-c", PROBE, str(path)],
                                            capture_output=True, text=True,
                                            check=True).stdout)
            line = {"bench": "run_memory", "ids": "INEX-like element ids" if elements
                    else "d{topic}-{i}", "lines": lines, "file_bytes": path.stat().st_size,
                    "read_s": round(got["seconds"], 3),
                    "resident_bytes_per_line": round((got["held"] - got["before"]) / lines, 1),
                    "peak_bytes_per_line": round((got["peak"] - got["before"]) / lines, 1),
                    "process_peak_mib": round(got["peak"] / 2**20, 1), "target": 100,
                    "machine": f"{platform.machine()}, python {platform.python_version()}",
                    "date": time.strftime("%Y-%m-%d")}
            if trec_eval is not None:
                qrels = Path(tmp) / "qrels"
                qrels.write_text("0 0 none 1\n")
                res = subprocess.run(["/usr/bin/time", "-f", "%M", str(trec_eval), str(qrels),
                                      str(path)], capture_output=True, text=True)
                line["trec_eval_peak_mib"] = round(int(res.stderr.split()[-1]) / 1024, 1)
            print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
