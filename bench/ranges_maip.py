#!/usr/bin/env python3
"""Benchmark: MAiP against AgP on one range run (issue 40's target), JSON lines.

The target: a range run of 114 topics x 1,500 passages on the INEX tenth
(``bench/inex_scale.py``'s collection of 66,000 articles, about 5.2 million
elements) evaluates MAiP in at most twice the time of AgP on the same run.
The range run is ``bench/gen_runs.py``'s first run (elements) made ranges
by :func:`graphprum.ranges.to_ranges` (``graphprum runs to-ranges``) and
written to a file; each evaluation reads it from that file with the
passage qrels, on a freshly opened store, best of ``--repeat``,
alternating the two measures (the same machine load for both):

- ``ranges_convert``: ``to_ranges`` of the element run (seconds, results);
- ``ranges_maip``: MAiP and AgP on the range run, seconds and the ratio
  MAiP / AgP (the target: <= 2); AgP on the element run for reference.

The collection, its runs and its store are cached under ``bench/out/``
(the collection and runs as ``bench/inex_scale.py`` makes them; the store is
loaded by :func:`graphprum.loading.load_xml`, without the query graph).

    python bench/ranges_maip.py             # the INEX tenth
    python bench/ranges_maip.py --quick     # 2,000 articles, 20 topics
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from inex_scale import OUT, collection, machine, runs_for  # noqa: E402

import graphprum  # noqa: E402
from graphprum.io.runs import write_run  # noqa: E402
from graphprum.loading import load_xml  # noqa: E402
from graphprum.ranges import to_ranges  # noqa: E402
from graphprum.store.local import LocalStore  # noqa: E402


def emit(fields: dict[str, object]) -> None:
    print(json.dumps(fields), flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--articles", type=int, default=66000)
    ap.add_argument("--topics", type=int, default=114)
    ap.add_argument("--k", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="2,000 articles, 20 topics")
    args = ap.parse_args(argv)
    if args.quick:
        args.articles, args.topics = 2000, 20
    OUT.mkdir(exist_ok=True)
    emit({"bench": "machine", "machine": machine()})
    col, _ = collection(args.articles, args.seed)
    data, _ = runs_for(col, args.topics, 20 if not args.quick else 5, args.k, args.seed)
    store_dir = OUT / f"ranges-inex-{args.articles}-{args.seed}-store"
    if not (store_dir / "manifest.json").exists():
        t = time.perf_counter()
        report = load_xml(LocalStore(store_dir), [col])
        emit({"bench": "ranges_load", "elements": report.elements,
              "seconds": round(time.perf_counter() - t, 1)})
    units = data / "run-01.txt"
    ranges = data / "ranges-01.txt"
    store = LocalStore(store_dir, create=False)
    t = time.perf_counter()
    run = to_ranges(units, store)
    convert = time.perf_counter() - t
    write_run(run, ranges)
    emit({"bench": "ranges_convert", "seconds": round(convert, 2),
          "results": sum(len(r) for r in run.topics.values()), "notes": len(run.notes)})
    passages = str(data / "passages.txt")

    def timed(path: Path, measure: str) -> tuple[float, float]:
        st = LocalStore(store_dir, create=False)  # cold id caches, as a new eval process
        t = time.perf_counter()
        df = graphprum.evaluate(str(path), None, [measure], store=st, passages=passages,
                                per_topic=False, jobs=1, order="rank")
        return time.perf_counter() - t, float(df["value"].iloc[0])

    best: dict[str, float] = {}
    value: dict[str, float] = {}
    for _ in range(args.repeat):
        for key, path, measure in (("maip", ranges, "MAiP"), ("agp", ranges, "AgP"),
                                   ("agp_units", units, "AgP")):
            seconds, value[key] = timed(path, measure)
            best[key] = min(best.get(key, float("inf")), seconds)
    emit({"bench": "ranges_maip", "articles": args.articles, "topics": args.topics,
          "results_per_topic": args.k, "maip_s": round(best["maip"], 3),
          "agp_s": round(best["agp"], 3), "agp_units_s": round(best["agp_units"], 3),
          "ratio_maip_to_agp": round(best["maip"] / best["agp"], 2), "target": "<= 2",
          "MAiP": value["maip"], "AgP": value["agp"], "AgP_units": value["agp_units"]})
    emit({"bench": "machine_after", "machine": machine()})


if __name__ == "__main__":
    main()
