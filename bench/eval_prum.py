#!/usr/bin/env python3
"""Benchmark: PRUM evaluation speed (DESIGN §3), JSON lines.

1. classical-mode PRUM against ir_measures AP on the same 100-topic x
   1000-result run, both end to end from the files (read qrels and run,
   compute, mean over topics), best of N: in this process (after one
   untimed call of each: the first call of ``graphprum.evaluate`` imports
   pandas, which a best of 1 would time), and as whole
   processes (``graphprum eval RUN --qrels QRELS --no-store`` against
   ``ir_measures QRELS RUN AP``, interleaved): ratio target <= 1.3.
2. structural PRUM (``--nav structural``) on 100 topics x 1500 results over
   a generated collection, against classical PRUM on the same run: ratio
   target <= 20.
3. growth: classical and structural time against run length (100 -> 10,000)
   and number of ideal units (10 -> 1,000).

    python bench/eval_prum.py            # all
    python bench/eval_prum.py --quick    # smaller sizes
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from common import best

from graphprum.loading import load_xml

HERE = Path(__file__).resolve().parent


def write_opaque(dirpath: Path, topics: int, results: int, ideal: int,
                 seed: int) -> tuple[Path, Path]:
    """A run of opaque ids and qrels where `ideal` of each topic's ids are relevant."""
    rng = random.Random(seed)
    run = dirpath / f"run-{topics}-{results}-{ideal}.txt"
    qrels = dirpath / f"qrels-{topics}-{results}-{ideal}.txt"
    with open(run, "w") as r, open(qrels, "w") as q:
        for t in range(topics):
            docs = [f"d{t}-{i}" for i in range(results * 2)]
            ranked = rng.sample(docs, results)
            for i, d in enumerate(ranked):
                r.write(f"{t} Q0 {d} {i + 1} {results - i + rng.random():.6f} bench\n")
            for d in rng.sample(docs, ideal):
                q.write(f"{t} 0 {d} 1\n")
    return run, qrels


def classical_vs_ap(run: Path, qrels: Path, repeat: int) -> dict:
    import ir_measures

    import graphprum

    def ap() -> float:
        qr = list(ir_measures.read_trec_qrels(str(qrels)))
        rn = list(ir_measures.read_trec_run(str(run)))
        return ir_measures.calc_aggregate([ir_measures.AP], qr, rn)[ir_measures.AP]

    def prum() -> float:
        df = graphprum.evaluate([run], qrels, ["PRUM"], nav=["classical"], per_topic=False)
        return float(df["value"].iloc[0])

    # once each, untimed: what a process pays once (graphprum.evaluate's first
    # call imports pandas for its DataFrame, 0.3-0.5 s) is not per evaluation
    ap()
    prum()
    t_ap = best(ap, repeat)
    t_prum = best(prum, repeat)
    return {"ir_measures_AP_s": round(t_ap, 4), "graphprum_PRUM_classical_s": round(t_prum, 4),
            "ratio": round(t_prum / t_ap, 3), "timing": f"in one process, after one call "
                                                          f"of each, best of {repeat}"}


def classical_vs_ap_processes(run: Path, qrels: Path, repeat: int) -> dict:
    """The same comparison as whole processes, as a user runs them, interleaved."""
    import time

    bin_dir = Path(sys.executable).parent
    commands = {"prum": [str(bin_dir / "graphprum"), "eval", str(run), "--qrels", str(qrels),
                         "--no-store"],
                "ap": [str(bin_dir / "ir_measures"), str(qrels), str(run), "AP"]}
    times: dict[str, list[float]] = {k: [] for k in commands}
    for _ in range(repeat):
        for name, argv in commands.items():
            t = time.perf_counter()
            subprocess.run(argv, check=True, capture_output=True)
            times[name].append(time.perf_counter() - t)
    t_prum, t_ap = min(times["prum"]), min(times["ap"])
    return {"ir_measures_AP_s": round(t_ap, 4), "graphprum_PRUM_classical_s": round(t_prum, 4),
            "ratio": round(t_prum / t_ap, 3), "target": 1.3,
            "timing": f"whole processes, interleaved, min of {repeat}"}


def structural(collection: Path, topics: int, results: int, ideal: int, repeat: int,
               store_dir: Path, seed: int) -> dict:
    """Structural vs classical PRUM on runs of real element ids of a generated collection."""
    import numpy as np

    import graphprum
    from graphprum.store.local import LocalStore

    store = LocalStore(store_dir)
    if not (store_dir / "manifest.json").exists():
        load_xml(store, [collection])
    table = store.table()
    rng = np.random.default_rng(seed)
    n = len(table)
    tmp = store_dir.parent
    run = tmp / f"srun-{topics}-{results}-{ideal}.txt"
    qrels = tmp / f"sqrels-{topics}-{results}-{ideal}.txt"
    docs = table.docs
    with open(run, "w") as r, open(qrels, "w") as q:
        for t in range(topics):
            # a topic is about a few documents: ideal units and results concentrate there
            topic_docs = rng.choice(len(docs), size=max(1, results // 40), replace=False)
            rows = np.concatenate([np.arange(docs["first"][d], docs["first"][d]
                                             + docs["count"][d]) for d in topic_docs])
            ranked = rng.choice(rows, size=min(results, len(rows)), replace=False)
            if len(ranked) < results:
                extra = rng.choice(n, size=results - len(ranked), replace=False)
                ranked = np.concatenate([ranked, extra])
            ranked = list(dict.fromkeys(ranked.tolist()))
            ids = table.ids(ranked)
            for i, u in enumerate(ids):
                r.write(f"{t} Q0 {u} {i + 1} {len(ids) - i} bench\n")
            for u in table.ids(rng.choice(rows, size=min(ideal, len(rows)), replace=False)):
                q.write(f"{t} 0 {u} 1\n")

    def ev(nav: str) -> float:
        df = graphprum.evaluate([run], qrels, ["PRUM"], nav=[nav], store=store, per_topic=False)
        return float(df["value"].iloc[0])

    t_c = best(lambda: ev("classical"), repeat)
    t_s = best(lambda: ev("structural"), repeat)
    return {"classical_s": round(t_c, 4), "structural_s": round(t_s, 4),
            "ratio": round(t_s / t_c, 3), "elements": n}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="gp-eval-bench-"))
    topics = 20 if args.quick else 100
    run, qrels = write_opaque(tmp, topics, 1000, 50, args.seed)
    print(json.dumps({"bench": "classical_prum_vs_ap", "topics": topics, "results": 1000,
                      **classical_vs_ap(run, qrels, args.repeat)}), flush=True)
    print(json.dumps({"bench": "classical_prum_vs_ap_processes", "topics": topics,
                      "results": 1000, **classical_vs_ap_processes(run, qrels, args.repeat)}),
          flush=True)
    articles = 300 if args.quick else 3000
    col = HERE / "out" / f"collection-{articles}-{args.seed}"
    if not col.exists():
        subprocess.run([sys.executable, str(HERE / "gen_collection.py"), str(col),
                        "--articles", str(articles), "--seed", str(args.seed)], check=True,
                       stdout=subprocess.DEVNULL)
    store_dir = tmp / "store"
    print(json.dumps({"bench": "structural_vs_classical_prum", "topics": topics,
                      "results": 1500, "ideal": 100,
                      **structural(col, topics, 1500, 100, args.repeat, store_dir, args.seed)}),
          flush=True)
    for results in ([100, 1000] if args.quick else [100, 1000, 10000]):
        r, q = write_opaque(tmp, 20, results, 50, args.seed)
        t = best(lambda r=r, q=q: __import__("graphprum").evaluate(
            [r], q, ["PRUM"], per_topic=False), args.repeat)
        print(json.dumps({"bench": "growth_run_length", "topics": 20, "results": results,
                          "ideal": 50, "classical_s": round(t, 4)}), flush=True)
    for ideal in ([10, 100] if args.quick else [10, 100, 1000]):
        r, q = write_opaque(tmp, 20, 2000, ideal, args.seed)
        t = best(lambda r=r, q=q: __import__("graphprum").evaluate(
            [r], q, ["PRUM"], per_topic=False), args.repeat)
        print(json.dumps({"bench": "growth_ideal_units", "topics": 20, "results": 2000,
                          "ideal": ideal, "classical_s": round(t, 4)}), flush=True)


if __name__ == "__main__":
    main()
