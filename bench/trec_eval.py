#!/usr/bin/env python3
"""Benchmark: classical measures through graphprum against pytrec_eval,
ir_measures and ranx on the same files, JSON lines (issues 21, 24).

Whole evaluations from the files (read qrels and run, compute, aggregate),
best of N, on a run of opaque ids: 100 topics x 1000 results, 60 judged per
topic with grades -1 to 3.

``trec_eval`` (one line): in one Python process, ``graphprum.evaluate``
against the libraries called directly.

``trec_eval_c`` (one line): whole processes, ``graphprum eval RUN --qrels
QRELS --no-store -m official -f trec`` against trec_eval's C binary
(``trec_eval QRELS RUN``, built from its source by
:func:`common.trec_eval_binary`: the git directory ``fetch
github:usnistgov/trec_eval`` makes, at tag v9.0.8), time and peak memory,
and whether the outputs are the same bytes (targets at 1,000 topics x
1,000: 1.5x the time, 2x the peak).  Without the source the line says so.

``peer_eval`` (one line per peer and measure set): whole processes, as a
user runs them: the ``graphprum eval`` command (``--no-store``) against a
``python -c`` script calling the peer (import, read both files, compute,
aggregate): AP, P@10 and nDCG@10 together against ir_measures, pytrec_eval
and ranx; classical PRUM against ir_measures' AP (issue 24's comparison).
ranx is not a dependency: without it its line says ``"peer_s": null``,
``"note": "ranx not installed"``.

    python bench/trec_eval.py [--topics 100] [--results 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import best, trec_eval_binary, write_trec_files

GRAPHPRUM = str(Path(sys.executable).with_name("graphprum"))

#: Peer scripts: argv[1] the qrels, argv[2] the run; each prints the mean AP.
PEER_SCRIPTS = {
    "ir_measures": r"""
import sys, ir_measures
from ir_measures import AP, P, nDCG
r = ir_measures.calc_aggregate([AP, P@10, nDCG@10], ir_measures.read_trec_qrels(sys.argv[1]),
                               ir_measures.read_trec_run(sys.argv[2]))
print(r[AP])
""",
    "ir_measures_AP": r"""
import sys, ir_measures
r = ir_measures.calc_aggregate([ir_measures.AP], ir_measures.read_trec_qrels(sys.argv[1]),
                               ir_measures.read_trec_run(sys.argv[2]))
print(r[ir_measures.AP])
""",
    "pytrec_eval": r"""
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    q = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    r = pytrec_eval.parse_run(f)
res = pytrec_eval.RelevanceEvaluator(q, {"map", "P_10", "ndcg_cut_10"}).evaluate(r)
print(sum(v["map"] for v in res.values()) / len(res))
""",
    "ranx": r"""
import sys
from ranx import Qrels, Run, evaluate
r = evaluate(Qrels.from_file(sys.argv[1], kind="trec"), Run.from_file(sys.argv[2], kind="trec"),
             ["map", "precision@10", "ndcg@10"])
print(r["map"])
""",
}


def best_process(argv: list[str], repeat: int) -> tuple[float, str]:
    """Shortest wall time of ``repeat`` runs of a command, and its stdout."""
    times, out = [], ""
    for _ in range(repeat):
        t = time.perf_counter()
        out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
        times.append(time.perf_counter() - t)
    return min(times), out


def timed(argv: list[str]) -> tuple[float, float, bytes]:
    """Wall seconds, peak resident MiB (GNU time) and stdout of one process."""
    t = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], capture_output=True, check=True)
    return (time.perf_counter() - t, int(proc.stderr.split()[-1]) / 1024, proc.stdout)


def c_binary_line(run: Path, qrels: Path, topics: int, results: int, repeat: int) -> dict:
    """graphprum eval -m official -f trec against trec_eval's C binary, interleaved."""
    line = {"bench": "trec_eval_c", "topics": topics, "results": results,
            "timing": f"whole processes, interleaved, min of {repeat} (median_ratio: of medians)",
            "date": time.strftime("%Y-%m-%d")}
    binary = trec_eval_binary()
    if binary is None:
        return {**line, "note": "trec_eval's source not found (fetch github:usnistgov/"
                                "trec_eval, or set TREC_EVAL or TREC_EVAL_SRC)"}
    ours = [GRAPHPRUM, "eval", str(run), "--qrels", str(qrels), "--no-store", "-m",
            "official", "-f", "trec"]
    theirs = [str(binary), str(qrels), str(run)]
    got: dict[str, list[tuple[float, float, bytes]]] = {"ours": [], "theirs": []}
    for _ in range(repeat):
        got["ours"].append(timed(ours))
        got["theirs"].append(timed(theirs))
    g = min(t for t, _, _ in got["ours"])
    c = min(t for t, _, _ in got["theirs"])
    gmed = statistics.median(t for t, _, _ in got["ours"])
    cmed = statistics.median(t for t, _, _ in got["theirs"])
    gm = max(m for _, m, _ in got["ours"])
    cm = max(m for _, m, _ in got["theirs"])
    return {**line, "graphprum_s": round(g, 3), "trec_eval_s": round(c, 3),
            "ratio": round(g / c, 3), "median_ratio": round(gmed / cmed, 3),
            "load": [round(x, 1) for x in os.getloadavg()],
            "target": 1.5, "graphprum_peak_mib": round(gm, 1),
            "trec_eval_peak_mib": round(cm, 1), "peak_ratio": round(gm / cm, 3),
            "peak_target": 2.0, "same_output": got["ours"][0][2] == got["theirs"][0][2],
            "trec_eval": str(binary)}


def peer_lines(run: Path, qrels: Path, topics: int, results: int, repeat: int) -> list[dict]:
    """Whole-process timings of graphprum eval against each peer script."""
    base = {"bench": "peer_eval", "topics": topics, "results": results,
            "timing": f"whole processes, best of {repeat}",
            "machine": f"{platform.machine()} {os.cpu_count()} cpu, "
                       f"python {platform.python_version()}",
            "date": time.strftime("%Y-%m-%d")}
    ours = [GRAPHPRUM, "eval", str(run), "--qrels", str(qrels), "--no-store", "-f", "tsv"]
    g3, out = best_process([*ours, "-m", "AP", "-m", "P@10", "-m", "nDCG@10"], repeat)
    our_map = next(float(f[3]) for f in (x.split("\t") for x in out.splitlines())
                   if f[1:3] == ["AP", "all"])
    gp, _ = best_process([*ours, "-m", "PRUM"], repeat)
    lines = []
    for peer, script, measures, g in [
            ("ir_measures", "ir_measures", "AP, P@10, nDCG@10", g3),
            ("pytrec_eval", "pytrec_eval", "AP, P@10, nDCG@10", g3),
            ("ranx", "ranx", "AP, P@10, nDCG@10", g3),
            ("ir_measures", "ir_measures_AP", "classical PRUM vs AP", gp)]:
        line = {**base, "peer": peer, "measures": measures, "graphprum_s": round(g, 4),
                "graphprum_map": our_map}
        if peer == "ranx" and importlib.util.find_spec("ranx") is None:
            lines.append({**line, "peer_s": None, "ratio": None, "note": "ranx not installed"})
            continue
        try:
            p, out = best_process([sys.executable, "-c", PEER_SCRIPTS[script], str(qrels),
                                   str(run)], repeat)
        except subprocess.CalledProcessError as e:
            err = (e.stderr or "").strip().splitlines()[-1:]
            lines.append({**line, "peer_s": None, "ratio": None,
                          "note": f"{peer} failed: {' '.join(err)}"})
            continue
        lines.append({**line, "peer_s": round(p, 4), "ratio": round(g / p, 3),
                      "peer_map": float(out.split()[-1])})
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--topics", type=int, default=100)
    ap.add_argument("--results", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--no-processes", action="store_true",
                    help="leave out the whole-process peer_eval and trec_eval_c lines")
    ap.add_argument("--c-only", action="store_true",
                    help="only the trec_eval_c line (at --topics 1000: the scale target)")
    args = ap.parse_args()

    import ir_measures
    import pytrec_eval

    import graphprum

    with tempfile.TemporaryDirectory() as tmp:
        run, qrels = write_trec_files(Path(tmp), args.topics, args.results, args.seed,
                                      grades=(-1, 0, 1, 1, 2, 3))
        if not args.no_processes:
            print(json.dumps(c_binary_line(run, qrels, args.topics, args.results,
                                           args.repeat)), flush=True)
        if args.c_only:
            return

        def pytrec(measures: set[str]) -> None:
            with open(qrels) as f:
                q = pytrec_eval.parse_qrel(f)
            with open(run) as f:
                r = pytrec_eval.parse_run(f)
            pytrec_eval.RelevanceEvaluator(q, measures).evaluate(r)

        def irm() -> None:
            ir_measures.calc_aggregate([ir_measures.AP], ir_measures.read_trec_qrels(str(qrels)),
                                       ir_measures.read_trec_run(str(run)))

        def ranx_eval() -> None:
            from ranx import Qrels, Run, evaluate
            evaluate(Qrels.from_file(str(qrels), kind="trec"),
                     Run.from_file(str(run), kind="trec"), ["map", "precision@10", "ndcg@10"])

        def ours(names: list[str]) -> None:
            graphprum.evaluate([run], qrels, names, per_topic=True)

        ours(["AP"])  # graphprum imports its evaluation modules on the first call
        rows = {
            "pytrec_eval_map_s": best(lambda: pytrec({"map"}), args.repeat),
            "pytrec_eval_all_trec_s": best(lambda: pytrec({"all_trec"}), args.repeat),
            "ir_measures_AP_s": best(irm, args.repeat),
            "graphprum_map_s": best(lambda: ours(["map"]), args.repeat),
            "graphprum_AP_s": best(lambda: ours(["AP"]), args.repeat),
            "graphprum_all_trec_s": best(lambda: ours(["all_trec"]), args.repeat),
        }
        if importlib.util.find_spec("ranx") is not None:
            ranx_eval()  # numba compiles on the first call: time the calls after it
            rows["ranx_AP_P10_nDCG10_warm_s"] = best(ranx_eval, args.repeat)
            rows["graphprum_AP_P10_nDCG10_s"] = best(lambda: ours(["AP", "P@10", "nDCG@10"]),
                                                     args.repeat)
        peers = [] if args.no_processes else peer_lines(run, qrels, args.topics, args.results,
                                                         args.repeat)
    out = {"bench": "trec_eval", "topics": args.topics, "results": args.results,
           **{k: round(v, 4) for k, v in rows.items()},
           "map_ratio_to_pytrec_eval": round(rows["graphprum_map_s"]
                                             / rows["pytrec_eval_map_s"], 3),
           "all_trec_ratio_to_pytrec_eval": round(rows["graphprum_all_trec_s"]
                                                  / rows["pytrec_eval_all_trec_s"], 3)}
    print(json.dumps(out), flush=True)
    for line in peers:
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
