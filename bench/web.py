#!/usr/bin/env python3
"""Benchmark: loading a web site and the ``links`` navigation model (DESIGN §3).

1. ``site``: the Python 3.11 documentation (Debian package python3.11-doc,
   fetched with ``apt-get download`` and unpacked with ``dpkg -x`` into a
   cache directory, once) is read with :func:`graphprum.loaders.web.load_site`,
   as pages and with ``--elements``: pages/s, links/s, units/s.
2. ``links``: a random link graph of ``--pages`` pages (out-degrees
   1 + Poisson(``--degree`` − 1), targets drawn with a heavy-tailed
   popularity so some pages have many in-links); ``--topics`` topics of
   ``--ideal`` ideal pages and ``--ranked``-result runs (half of each run
   drawn from pages that link to an ideal page, half at random); the
   ``links`` model's matrix (ranked × ideal) for each topic, for several K.
   Reports the one-off graph build, seconds per topic, and memory (peak
   traced bytes during the topics, and the process's peak resident size).

Prints one JSON line per measurement.

    python bench/web.py                      # both parts, default sizes
    python bench/web.py --skip-site --pages 100000
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
DEFAULT_CACHE = Path(os.environ.get("GRAPHPRUM_BENCH_CACHE", HERE / "out" / "cache"))
DOC_PACKAGE = "python3.11-doc"
DOC_HTML = "usr/share/doc/python3.11/html"


def emit(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


def peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def python_docs(cache: Path) -> Path:
    """Unpack python3.11-doc under ``cache`` (once) and return its HTML root."""
    root = cache / DOC_PACKAGE
    html = root / DOC_HTML
    if html.is_dir():
        return html
    cache.mkdir(parents=True, exist_ok=True)
    debs = sorted(cache.glob(f"{DOC_PACKAGE}_*.deb"))
    if not debs:
        cmd = ["apt-get", "download", DOC_PACKAGE]
        done = subprocess.run(cmd, cwd=cache, capture_output=True, text=True)
        if done.returncode != 0:  # the package lists may be missing: update once
            subprocess.run(["apt-get", "update", "-qq"], capture_output=True, check=False)
            done = subprocess.run(cmd, cwd=cache, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"bench/web.py: apt-get download {DOC_PACKAGE} failed: "
                     f"{done.stderr.strip()}")
        debs = sorted(cache.glob(f"{DOC_PACKAGE}_*.deb"))
    tmp = cache / (DOC_PACKAGE + ".tmp")
    subprocess.run(["rm", "-rf", str(tmp)], check=True)
    subprocess.run(["dpkg", "-x", str(debs[-1]), str(tmp)], check=True)
    tmp.rename(root)
    return html


def bench_site(html: Path) -> None:
    from graphprum.loaders.web import load_site

    for elements in (False, True):
        t = time.perf_counter()
        site = load_site(html, elements=elements)
        units = 0
        for doc in site:
            units += len(doc.tags)
        dt = time.perf_counter() - t
        s = site.stats
        emit(bench="site", site=str(html), elements=elements, pages=s.pages, units=units,
             links=s.links, external=s.external, outside=s.outside, missing=s.missing,
             non_page=s.non_page, same_page=s.same_page, seconds=round(dt, 3),
             pages_per_s=round(s.pages / dt, 1),
             links_per_s=round((s.links + s.dropped) / dt, 1),
             units_per_s=round(units / dt, 1), peak_rss=peak_rss())


class RandomWebStore:
    """A store-like object over a random link graph; page ids are decimal rows."""

    def __init__(self, pages: int, degree: float, seed: int) -> None:
        rng = np.random.default_rng(seed)
        out = 1 + rng.poisson(degree - 1, pages)
        src = np.repeat(np.arange(pages, dtype=np.int64), out)
        # heavy-tailed popularity: page rank r is chosen with weight ~ 1/(r+10)
        u = rng.random(len(src))
        ranks = (np.exp(u * np.log(pages + 10.0)) - 10.0).clip(0, pages - 1).astype(np.int64)
        perm = rng.permutation(pages)
        dst = perm[ranks]
        self._links = pd.DataFrame({"src": src, "dst": dst})
        self.pages = pages
        self._link_graph = None

    def resolve(self, ids: list[str]) -> np.ndarray:
        rows = np.array(ids, dtype=np.int64)
        rows[(rows < 0) | (rows >= self.pages)] = -1
        return rows

    def links(self) -> pd.DataFrame:
        return self._links

    def link_graph(self):
        """The LINK edges as compressed rows, built once (as a table store does)."""
        from graphprum.store.linkgraph import LinkGraph

        if self._link_graph is None:
            self._link_graph = LinkGraph.build(self._links["src"].to_numpy(),
                                               self._links["dst"].to_numpy())
        return self._link_graph

    def link_walk(self, sources, targets, hops):
        """The neighbourhood of walks from ``sources`` into ``targets`` (the
        links model's one read of a store)."""
        return self.link_graph().walk(self.resolve(list(sources)), self.resolve(list(targets)),
                                      hops)

    def table(self):  # pragma: no cover - the links model does not ask for it
        raise NotImplementedError


class Ctx:
    def __init__(self, store: RandomWebStore) -> None:
        self.store = store


def bench_links(args: argparse.Namespace) -> None:
    from graphprum.navigation.base import parse_model

    t = time.perf_counter()
    store = RandomWebStore(args.pages, args.degree, args.seed)
    gen = time.perf_counter() - t
    links = store.links()
    src, dst = links["src"].to_numpy(), links["dst"].to_numpy()
    rng = np.random.default_rng(args.seed + 1)
    topics = []
    for _ in range(args.topics):
        ideal = rng.choice(args.pages, args.ideal, replace=False)
        into = np.flatnonzero(np.isin(dst, ideal))
        near = src[rng.choice(into, min(len(into), args.ranked // 2), replace=False)] \
            if len(into) else np.zeros(0, dtype=np.int64)
        ranked = np.unique(np.concatenate([near, rng.choice(args.pages, args.ranked)]))
        ranked = rng.permutation(ranked)[:args.ranked]
        topics.append(([str(v) for v in ranked], [str(v) for v in ideal]))
    emit(bench="links-graph", pages=args.pages, links=len(links), generate_s=round(gen, 3))
    for hops in args.hops:
        model = parse_model(f"links:hops={hops}")
        t = time.perf_counter()
        store.link_graph()  # once per store (the links model walks it)
        build = time.perf_counter() - t
        tracemalloc.start()
        t = time.perf_counter()
        nonzero = 0
        for ranked, ideal in topics:
            nonzero += model.matrix(ranked, ideal, Ctx(store)).nnz
        dt = time.perf_counter() - t
        _, traced_peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        emit(bench="links-model", pages=args.pages, links=len(links), hops=hops,
             topics=args.topics, ideal=args.ideal, ranked=args.ranked,
             graph_build_s=round(build, 3), seconds=round(dt, 3),
             s_per_topic=round(dt / args.topics, 5), nonzero_pairs=nonzero,
             traced_peak_bytes=traced_peak, peak_rss=peak_rss())
        store._link_graph = None  # the next K builds (and times) the graph again


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--site", type=Path, help="an HTML directory instead of the Python docs")
    ap.add_argument("--skip-site", action="store_true")
    ap.add_argument("--skip-links", action="store_true")
    ap.add_argument("--pages", type=int, default=1_000_000)
    ap.add_argument("--degree", type=float, default=10.0, help="mean out-degree")
    ap.add_argument("--topics", type=int, default=100)
    ap.add_argument("--ideal", type=int, default=10)
    ap.add_argument("--ranked", type=int, default=1000)
    ap.add_argument("--hops", type=str, nargs="+", default=["1", "2", "3"])
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args()
    emit(bench="machine", python=platform.python_version(), machine=platform.machine(),
         cpus=os.cpu_count())
    if not args.skip_site:
        bench_site(args.site if args.site else python_docs(args.cache))
    if not args.skip_links:
        bench_links(args)


if __name__ == "__main__":
    main()
