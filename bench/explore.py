"""Benchmark: the summary explorer page (``summary show -f html``): time and size.

On a generated collection (``bench/summaries.py``'s markov table) or on a
directory of XML files (``--xml DIR``, loaded into a temporary store), builds
the five summaries label, p, p*, c, p*|c in memory, then times the page's
data (trees, samples and their ids, refinements) and its rendering, and
prints one JSON line: seconds per step, partitions, and the page's bytes.

Usage::

    python bench/explore.py [--elements 1000000] [--seed 1]
    python bench/explore.py --xml allofplos/starter_corpus
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from summaries import random_table

from graphprum.loading import load_xml
from graphprum.summaries.axpre import build_summary
from graphprum.summaries.explore import EXPLORE_AXPRES, explorer_data, render_html


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--elements", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--xml", type=Path, help="a directory of XML files instead")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        if args.xml:
            from graphprum.store.local import LocalStore

            store = LocalStore(Path(tmp) / "store")
            load_xml(store, [args.xml])
            table, source = store.table(), f"xml {args.xml.name}"
        else:
            table, source = random_table(args.elements, args.seed), "markov table"
        t0 = time.perf_counter()
        summaries = {a: build_summary(table, a) for a in EXPLORE_AXPRES}
        t1 = time.perf_counter()
        data = explorer_data(table, summaries, "p*", built=list(summaries))
        t2 = time.perf_counter()
        page = render_html(data)
        t3 = time.perf_counter()
    print(json.dumps({
        "bench": "explore_page", "source": source, "elements": data["elements"],
        "summaries": len(summaries), "partitions": sum(len(s) for s in summaries.values()),
        "largest": max(len(s) for s in summaries.values()),
        "sampled_units": len(data["units"]["pos"]),
        "build_s": round(t1 - t0, 3), "data_s": round(t2 - t1, 3),
        "render_s": round(t3 - t2, 3), "bytes": len(page.encode("utf-8")),
        "bytes_per_partition": round(len(page.encode("utf-8"))
                                     / sum(len(s) for s in summaries.values()), 1)}),
        flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
