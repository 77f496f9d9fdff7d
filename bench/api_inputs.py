#!/usr/bin/env python3
"""Benchmark: graphprum.evaluate on what a notebook holds, JSON lines (issue 22).

The same run and qrels (opaque ids, 100 topics x 1000 results, 60 judged per
topic) evaluated on AP from the files, from ir_measures-style DataFrames,
from pytrec_eval-style dicts and from ir_measures namedtuples, best of N;
ir_measures on the same DataFrames for scale.  The in-memory forms should
cost about what reading the file costs.

    python bench/api_inputs.py [--topics 100] [--results 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from common import best, write_trec_files


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--topics", type=int, default=100)
    ap.add_argument("--results", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()

    import ir_measures
    import pandas as pd

    import graphprum

    with tempfile.TemporaryDirectory() as tmp:
        run, qrels = write_trec_files(Path(tmp), args.topics, args.results, args.seed)
        cols = ["query_id", "q0", "doc_id", "rank", "score", "tag"]
        run_df = pd.read_csv(run, sep=" ", names=cols, dtype={"query_id": str})
        run_df = run_df[["query_id", "doc_id", "score"]]
        qrels_df = pd.read_csv(qrels, sep=" ", names=["query_id", "iteration", "doc_id",
                                                      "relevance"], dtype={"query_id": str})
        run_dict: dict[str, dict[str, float]] = {}
        for t, d, s in run_df.itertuples(index=False):
            run_dict.setdefault(t, {})[d] = s
        qrels_dict: dict[str, dict[str, int]] = {}
        for t, _, d, r in qrels_df.itertuples(index=False):
            qrels_dict.setdefault(t, {})[d] = r
        scored = list(ir_measures.read_trec_run(str(run)))
        judged = list(ir_measures.read_trec_qrels(str(qrels)))

        def ours(r: object, q: object) -> None:
            graphprum.evaluate({"bench": r}, q, ["AP"], per_topic=True)  # type: ignore[arg-type]

        rows = {
            "files_s": best(lambda: ours(run, qrels), args.repeat),
            "dataframes_s": best(lambda: ours(run_df, qrels_df), args.repeat),
            "dicts_s": best(lambda: ours(run_dict, qrels_dict), args.repeat),
            "namedtuples_s": best(lambda: ours(scored, judged), args.repeat),
            "ir_measures_dataframes_s": best(
                lambda: ir_measures.calc_aggregate([ir_measures.AP], qrels_df, run_df),
                args.repeat),
        }
        same = graphprum.evaluate({"bench": run_df}, qrels_df, "AP").equals(
            graphprum.evaluate({"bench": run}, qrels, "AP"))
    out = {"bench": "api_inputs", "topics": args.topics, "results": args.results,
           **{k: round(v, 4) for k, v in rows.items()},
           "dataframe_ratio_to_files": round(rows["dataframes_s"] / rows["files_s"], 3),
           "same_values": same}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
