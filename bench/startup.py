#!/usr/bin/env python3
"""Benchmark: the speed a user feels (issues 24, 37), whole processes, JSON lines.

Every time here is a whole process (``graphprum ...`` as a user types it, or
the peer's command), measured in interleaved rounds: each round runs every
command of a comparison once, so a load on the shared machine hits them
alike; a line gives the median and the minimum over ``--repeat`` rounds, the
median CPU time (user + system, the process and its children), and the ratio
of medians to the reference measured in the same rounds.

1. ``startup``: ``graphprum --version``, ``graphprum --help`` and ``eval`` of
   a one-line run with a one-line qrels (PRUM; AP), without a store and with
   an embedded store in the working directory (the default
   ``./graphprum-store``, 9 PLOS articles), against ``python -c "import
   numpy"`` (targets: the one-line eval within 0.5 s, ``--version`` and
   ``--help`` well under 1 s; ``target_s`` in the lines).
2. ``classical_vs_peer``: ``eval`` of classical PRUM over 100 topics x 1,000
   results (opaque ids, no store) against ``ir_measures QRELS RUN AP`` on the
   same files (target 1.3x); the classical measures graphprum hands to
   ir_measures (AP, P@10, nDCG@10) against ``ir_measures`` computing the
   same (target 1.1x).
3. ``jobs``: ``eval`` of one run of 114 topics x 1,500 results under
   structural navigation (PRUM, PRUM@0.5, AP; a generated collection of
   3,000 articles) with ``--jobs 1``, ``--jobs 2`` and ``--jobs auto``
   (target: 2 >= 1.2x on 2 cores, a time ratio <= 0.833); and ``--jobs
   auto`` on the small comparison of 2., where it should pick 1.

The modules are compiled first (``compileall``): this environment sets
PYTHONDONTWRITEBYTECODE, and an installed graphprum has its bytecode.
graphprum and ir_measures are the scripts next to ``sys.executable``: run
this script with another environment's Python to measure its graphprum (a
graphprum without ``--jobs auto`` gets no auto lines).

    python bench/startup.py [--repeat 7] [--quick]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PY = sys.executable
BIN = Path(sys.executable).parent
#: Working files, one directory per environment (a before/after comparison
#: runs this script with two environments' Python, each its own graphprum).
OUT = HERE / "out" / f"startup-{zlib.crc32(str(BIN).encode()):08x}"
GRAPHPRUM = str(BIN / "graphprum")
IR_MEASURES = str(BIN / "ir_measures")


def machine() -> str:
    """CPU model, cores, Python, load average."""
    model = platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            names = [ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")]
        model = names[0] if names else model
    except OSError:
        pass
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"{model}, {os.cpu_count()} cpu, python {platform.python_version()}, load avg {load}"


def run_once(argv: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds (the process and its children) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        sys.exit(f"startup: {' '.join(argv)} failed: {proc.stderr.strip()[-500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def rounds(commands: dict[str, list[str]], cwd: Path, repeat: int) -> dict[str, dict]:
    """Every command once per round, ``repeat`` rounds (after one warm-up round)."""
    walls: dict[str, list[float]] = {k: [] for k in commands}
    cpus: dict[str, list[float]] = {k: [] for k in commands}
    for r in range(repeat + 1):
        names = list(commands)
        names = names[r % len(names):] + names[:r % len(names)]  # vary who goes first
        for name in names:
            wall, cpu = run_once(commands[name], cwd)
            if r:  # the first round warms the page cache
                walls[name].append(wall)
                cpus[name].append(cpu)
    return {k: {"median_s": round(statistics.median(walls[k]), 4),
                "min_s": round(min(walls[k]), 4),
                "cpu_median_s": round(statistics.median(cpus[k]), 4)} for k in commands}


def emit(bench: str, what: str, got: dict, ref: dict, ref_name: str, **extra: object) -> None:
    print(json.dumps({
        "bench": bench, "what": what, "seconds": got["median_s"], "min_seconds": got["min_s"],
        "cpu_seconds": got["cpu_median_s"], "reference": ref_name,
        "reference_seconds": ref["median_s"], "reference_min_seconds": ref["min_s"],
        "reference_cpu_seconds": ref["cpu_median_s"],
        "ratio": round(got["median_s"] / ref["median_s"], 3),
        "cpu_ratio": round(got["cpu_median_s"] / max(ref["cpu_median_s"], 1e-9), 3),
        **extra, "machine": machine(), "date": time.strftime("%Y-%m-%d")}), flush=True)


def write_opaque(d: Path, topics: int, results: int, ideal: int, seed: int) -> tuple[Path, Path]:
    """A run of opaque ids and qrels (as bench/eval_prum.py writes them)."""
    import random

    rng = random.Random(seed)
    run, qrels = d / f"run-{topics}-{results}.txt", d / f"qrels-{topics}-{results}.txt"
    if run.exists() and qrels.exists():
        return run, qrels
    with open(run, "w") as r, open(qrels, "w") as q:
        for t in range(topics):
            docs = [f"d{t}-{i}" for i in range(results * 2)]
            ranked = rng.sample(docs, results)
            for i, doc in enumerate(ranked):
                r.write(f"{t} Q0 {doc} {i + 1} {results - i + rng.random():.6f} bench\n")
            for doc in rng.sample(docs, ideal):
                q.write(f"{t} 0 {doc} 1\n")
    return run, qrels


def structural_data(articles: int, topics: int, k: int, seed: int) -> tuple[Path, Path, Path]:
    """A generated collection loaded into ``OUT/jobs-N/graphprum-store``, and a
    run of ``topics`` x ``k`` results with its qrels (bench/gen_*.py, cached)."""
    col = HERE / "out" / f"collection-{articles}-{seed}"
    if not (col / ".complete").exists():
        shutil.rmtree(col, ignore_errors=True)
        subprocess.run([PY, str(HERE / "gen_collection.py"), str(col), "--articles",
                        str(articles), "--seed", str(seed)], check=True,
                       stdout=subprocess.DEVNULL)
        (col / ".complete").write_text("")
    runs = HERE / "out" / f"startup-runs-{articles}-{topics}-{k}-{seed}"
    if not (runs / ".complete").exists():
        shutil.rmtree(runs, ignore_errors=True)
        subprocess.run([PY, str(HERE / "gen_runs.py"), str(col), str(runs), "--topics",
                        str(topics), "--runs", "1", "--k", str(k), "--seed", str(seed)],
                       check=True, stdout=subprocess.DEVNULL)
        (runs / ".complete").write_text("")
    cwd = OUT / f"jobs-{articles}-{seed}"
    if not (cwd / "graphprum-store" / "manifest.json").exists():
        shutil.rmtree(cwd, ignore_errors=True)
        cwd.mkdir(parents=True)
        subprocess.run([GRAPHPRUM, "load", "xml", "--no-graph", "-q", str(col)], cwd=cwd,
                       check=True, capture_output=True)
    return cwd, runs / "run-01.txt", runs / "qrels.txt"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="fewer rounds, smaller jobs data")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    repeat = 3 if args.quick else args.repeat
    package = subprocess.run([PY, "-c", "import graphprum, os; "
                              "print(os.path.dirname(graphprum.__file__))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    compileall.compile_dir(package, quiet=1)
    helptext = subprocess.run([GRAPHPRUM, "eval", "--help"], capture_output=True, text=True,
                              env={**os.environ, "COLUMNS": "200"}).stdout
    has_auto = re.search(r"--jobs\s+(N\|auto|<str>)", helptext) is not None
    OUT.mkdir(parents=True, exist_ok=True)
    numpy = [PY, "-c", "import numpy"]

    # 1. fixed cost
    bare = OUT / "no-store"
    bare.mkdir(exist_ok=True)
    (bare / "run").write_text("1 Q0 d1 1 1.0 r\n")
    (bare / "qrels").write_text("1 0 d1 1\n")
    stored = OUT / "with-store"
    if not (stored / "graphprum-store" / "manifest.json").exists():
        shutil.rmtree(stored, ignore_errors=True)
        stored.mkdir()
        subprocess.run([GRAPHPRUM, "load", "xml", "-q", str(ROOT / "examples/plos/articles")],
                       cwd=stored, check=True, capture_output=True)
    first = (ROOT / "examples/plos/run-bm25.txt").read_text().splitlines()[0]
    (stored / "run").write_text(first + "\n")
    (stored / "qrels").write_text(
        (ROOT / "examples/plos/qrels.txt").read_text().splitlines()[0] + "\n")
    for cwd, where in ((bare, "no store (--no-store)"),
                       (stored, "the default store in the working directory")):
        flag = ["--no-store"] if cwd is bare else []
        cmds = {"numpy": numpy, "version": [GRAPHPRUM, "--version"],
                "help": [GRAPHPRUM, "--help"],
                "prum": [GRAPHPRUM, "eval", "run", "--qrels", "qrels", *flag],
                "ap": [GRAPHPRUM, "eval", "run", "--qrels", "qrels", "-m", "AP", *flag]}
        got = rounds(cmds, cwd, repeat)
        if cwd is bare:
            emit("startup", "graphprum --version", got["version"], got["numpy"],
                 "python -c 'import numpy'", target_s=1.0)
            emit("startup", "graphprum --help", got["help"], got["numpy"],
                 "python -c 'import numpy'", target_s=1.0)
        emit("startup", f"eval, one-line run, PRUM, {where}", got["prum"], got["numpy"],
             "python -c 'import numpy'", target_s=0.5)
        emit("startup", f"eval, one-line run, AP, {where}", got["ap"], got["numpy"],
             "python -c 'import numpy'", target_s=0.5)

    # 2. classical measures against ir_measures on the same files
    run, qrels = write_opaque(OUT, 100, 1000, 50, args.seed)
    cmds = {"ap": [IR_MEASURES, str(qrels), str(run), "AP"],
            "prum": [GRAPHPRUM, "eval", str(run), "--qrels", str(qrels), "--no-store"],
            **({"prum_auto": [GRAPHPRUM, "eval", str(run), "--qrels", str(qrels),
                              "--no-store", "--jobs", "auto"]} if has_auto else {}),
            "prum_1": [GRAPHPRUM, "eval", str(run), "--qrels", str(qrels), "--no-store",
                       "--jobs", "1"],
            "ir3": [IR_MEASURES, str(qrels), str(run), "AP", "P@10", "nDCG@10"],
            "gp3": [GRAPHPRUM, "eval", str(run), "--qrels", str(qrels), "--no-store",
                    "-m", "AP", "-m", "P@10", "-m", "nDCG@10"]}
    got = rounds(cmds, OUT, repeat)
    size = {"topics": 100, "results": 1000}
    emit("classical_vs_peer", "classical PRUM (graphprum eval)", got["prum"], got["ap"],
         "ir_measures QRELS RUN AP", target=1.3, **size)
    emit("classical_vs_peer", "AP, P@10, nDCG@10 (graphprum eval, delegated to ir_measures)",
         got["gp3"], got["ir3"], "ir_measures QRELS RUN AP P@10 nDCG@10", target=1.1, **size)
    if has_auto:
        emit("jobs", "classical PRUM, --jobs auto (small: should pick 1)", got["prum_auto"],
             got["prum_1"], "--jobs 1", **size)

    # 3. --jobs on one run under structural navigation
    articles, topics, k = (300, 40, 500) if args.quick else (3000, 114, 1500)
    cwd, run, qrels = structural_data(articles, topics, k, args.seed)
    base = [GRAPHPRUM, "eval", str(run), "--qrels", str(qrels), "--nav", "structural",
            "-m", "PRUM", "-m", "PRUM@0.5", "-m", "AP", "--ideal-min", "2"]
    cmds = {"1": [*base, "--jobs", "1"], "2": [*base, "--jobs", "2"],
            **({"auto": [*base, "--jobs", "auto"]} if has_auto else {})}
    got = rounds(cmds, cwd, repeat)
    size = {"topics": topics, "results": k, "articles": articles,
            "cpus": len(os.sched_getaffinity(0))}
    emit("jobs", "structural PRUM, PRUM@0.5, AP, --jobs 2", got["2"], got["1"], "--jobs 1",
         target=round(1 / 1.2, 3), **size)
    if has_auto:
        emit("jobs", "structural PRUM, PRUM@0.5, AP, --jobs auto", got["auto"], got["1"],
             "--jobs 1", **size)


if __name__ == "__main__":
    main()
