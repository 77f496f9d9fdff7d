#!/usr/bin/env python3
"""Benchmark: classical measures through graphprum against pytrec_eval and
ir_measures on the same files, JSON lines (issue 21).

Whole evaluations from the files (read qrels and run, compute, aggregate),
best of N, on a run of opaque ids: 100 topics x 1000 results, 50 relevant
per topic with grades 1-3 and some -1.

    python bench/trec_eval.py [--topics 100] [--results 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def write(dirpath: Path, topics: int, results: int, seed: int) -> tuple[Path, Path]:
    rng = random.Random(seed)
    run, qrels = dirpath / "run.txt", dirpath / "qrels.txt"
    with open(run, "w") as r, open(qrels, "w") as q:
        for t in range(topics):
            docs = [f"d{t}-{i}" for i in range(results * 2)]
            for i, d in enumerate(rng.sample(docs, results)):
                r.write(f"{t} Q0 {d} {i + 1} {results - i + rng.random():.6f} bench\n")
            for d in rng.sample(docs, 60):
                q.write(f"{t} 0 {d} {rng.choice([-1, 0, 1, 1, 2, 3])}\n")
    return run, qrels


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--topics", type=int, default=100)
    ap.add_argument("--results", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()

    import ir_measures
    import pytrec_eval

    import graphprum

    with tempfile.TemporaryDirectory() as tmp:
        run, qrels = write(Path(tmp), args.topics, args.results, args.seed)

        def pytrec(measures: set[str]) -> None:
            with open(qrels) as f:
                q = pytrec_eval.parse_qrel(f)
            with open(run) as f:
                r = pytrec_eval.parse_run(f)
            pytrec_eval.RelevanceEvaluator(q, measures).evaluate(r)

        def irm() -> None:
            ir_measures.calc_aggregate([ir_measures.AP], ir_measures.read_trec_qrels(str(qrels)),
                                       ir_measures.read_trec_run(str(run)))

        def ours(names: list[str]) -> None:
            graphprum.evaluate([run], qrels, names, per_topic=True)

        rows = {
            "pytrec_eval_map_s": best(lambda: pytrec({"map"}), args.repeat),
            "pytrec_eval_all_trec_s": best(lambda: pytrec({"all_trec"}), args.repeat),
            "ir_measures_AP_s": best(irm, args.repeat),
            "graphprum_map_s": best(lambda: ours(["map"]), args.repeat),
            "graphprum_AP_s": best(lambda: ours(["AP"]), args.repeat),
            "graphprum_all_trec_s": best(lambda: ours(["all_trec"]), args.repeat),
        }
    out = {"bench": "trec_eval", "topics": args.topics, "results": args.results,
           **{k: round(v, 4) for k, v in rows.items()},
           "map_ratio_to_pytrec_eval": round(rows["graphprum_map_s"]
                                             / rows["pytrec_eval_map_s"], 3),
           "all_trec_ratio_to_pytrec_eval": round(rows["graphprum_all_trec_s"]
                                                  / rows["pytrec_eval_all_trec_s"], 3)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
