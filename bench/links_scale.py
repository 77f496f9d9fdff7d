#!/usr/bin/env python3
"""Benchmark: link graphs at web scale, and the walk on a real XML collection
(DESIGN §3: ``load links`` ≥ 1M links/s and ≤ 50 B/link; a 2-hop links walk
≤ 3× classical PRUM on 1M pages / 10M links; the links walk added to
``structural`` ≤ 1.5× ``structural`` alone).

1. ``links-load``: a power-law link graph (``--pages`` pages, ``--links``
   links; out-degrees Zipf-distributed, targets drawn with a heavy-tailed
   popularity; numpy's PCG64 seeded by ``--seed``, so the same sizes give the
   same file) written as a link list and loaded by ``graphprum load links
   --no-graph`` in a process of its own: links/s and peak resident bytes
   per link.
2. ``links-eval``: ``--topics`` topics of ``--ideal`` ideal pages, runs of
   ``--ranked`` pages (half of them linking to an ideal page, half at
   random); ``graphprum eval -m PRUM`` classical and with ``--nav
   links:hops=2``, each a whole process, min of ``--repeat``; their ratio.
3. ``walk-xml`` (``--gnome``: a directory of Mallard ``.page`` files, e.g.
   the ``gnome-help`` of ``apt-get download gnome-user-docs``): loaded with
   ``--links link@xref``; 50 topics of runs of 1000 random elements;
   ``eval -m PRUM`` with ``--nav structural`` and with ``--nav structural
   --nav links`` (and ``--nav browse``); their ratios.

One JSON line per measurement; the ratios are measured side by side in one
run.  The full size needs a few GB of memory and about ten minutes::

    python bench/links_scale.py                           # 1M pages, 10M links
    python bench/links_scale.py --pages 100000 --links 1000000
    python bench/links_scale.py --pages 20000 --links 200000 --gnome DIR
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
GRAPHPRUM = [str(Path(sys.executable).with_name("graphprum"))]


def emit(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


#: Runs a command and prints the peak resident bytes of its process: a tiny
#: parent, since a child's peak counts the parent's pages it shares before exec.
_PEAK = ("import resource, subprocess, sys; code = subprocess.call(sys.argv[1:]); "
         "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, file=sys.stderr); "
         "sys.exit(code)")


def run(cmd: list[str]) -> tuple[float, int]:
    """Seconds and peak resident bytes of one command (its own process)."""
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _PEAK, *cmd], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - t
    lines = proc.stderr.strip().splitlines()
    if proc.returncode != 0 or not lines:
        sys.exit(f"bench/links_scale.py: {' '.join(cmd[1:])} failed: {proc.stderr[-500:]}")
    return seconds, int(lines[-1])


def best(cmd: list[str], repeat: int) -> float:
    return min(run(cmd)[0] for _ in range(repeat))


def power_law_graph(pages: int, links: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Holding and target page of every link: Zipf(2.5) out-degrees (at most
    ``pages / 50``) scaled to ``links`` in all, targets by heavy-tailed
    popularity (rank r with weight ~ 1/(r + 100)), sources in page order."""
    rng = np.random.default_rng(seed)
    raw = np.minimum(rng.zipf(2.5, pages), max(pages // 50, 1)).astype(np.float64)
    out = np.floor(raw * links / raw.sum()).astype(np.int64)
    out[np.argsort(-raw, kind="stable")[:links - int(out.sum())]] += 1
    src = np.repeat(np.arange(pages, dtype=np.int64), out)
    u = rng.random(len(src))
    ranks = (100.0 * (np.exp(u * np.log(pages / 100.0 + 1.0)) - 1.0)).clip(0, pages - 1) \
        .astype(np.int64)
    dst = rng.permutation(pages)[ranks]
    return src, dst


def write_link_list(path: Path, src: np.ndarray, dst: np.ndarray, pages: int) -> None:
    import pyarrow as pa
    import pyarrow.csv as csv

    names = pa.array([f"p{i}.html" for i in range(pages)])
    table = pa.table({"from": names.take(pa.array(src)), "to": names.take(pa.array(dst))})
    csv.write_csv(table, str(path), csv.WriteOptions(include_header=False, delimiter="\t",
                                                     quoting_style="none"))


def write_topics(root: Path, src: np.ndarray, dst: np.ndarray, pages: int, topics: int,
                 ideal: int, ranked: int, seed: int, name=lambda i: f"p{i}.html") -> None:
    """``run.txt`` and ``qrels.txt`` (module notes)."""
    rng = np.random.default_rng(seed + 1)
    order = np.argsort(dst, kind="stable")
    sorted_dst = dst[order]
    with open(root / "run.txt", "w") as r, open(root / "qrels.txt", "w") as q:
        for t in range(topics):
            good = rng.choice(pages, ideal, replace=False)
            lo = np.searchsorted(sorted_dst, good)
            hi = np.searchsorted(sorted_dst, good, side="right")
            into = np.concatenate([order[a:b] for a, b in zip(lo, hi, strict=True)])
            near = src[rng.choice(into, min(len(into), ranked // 2), replace=False)] \
                if len(into) else np.zeros(0, np.int64)
            units = np.unique(np.concatenate([near, rng.choice(pages, ranked)]))
            units = rng.permutation(units)[:ranked]
            for i, u in enumerate(units.tolist()):
                r.write(f"{t} Q0 {name(u)} {i + 1} {ranked - i} bench\n")
            for g in good.tolist():
                q.write(f"{t} 0 {name(g)} 1\n")


def bench_links(args: argparse.Namespace, work: Path) -> None:
    t = time.perf_counter()
    src, dst = power_law_graph(args.pages, args.links, args.seed)
    listed = work / "links.tsv"
    write_link_list(listed, src, dst, args.pages)
    emit(bench="links-graph", pages=args.pages, links=len(src),
         max_out_degree=int(np.bincount(src).max()), max_in_degree=int(np.bincount(dst).max()),
         bytes=listed.stat().st_size, generate_s=round(time.perf_counter() - t, 2))
    store = work / "store"
    shutil.rmtree(store, ignore_errors=True)
    seconds, peak = run([*GRAPHPRUM, "--store", str(store), "load", "links", str(listed),
                         "--no-graph"])
    emit(bench="links-load", links=len(src), seconds=round(seconds, 2),
         links_per_s=round(len(src) / seconds), peak_rss=peak,
         bytes_per_link=round(peak / len(src), 1))
    write_topics(work, src, dst, args.pages, args.topics, args.ideal, args.ranked, args.seed)
    del src, dst
    base = [*GRAPHPRUM, "--store", str(store), "eval", str(work / "run.txt"), "--qrels",
            str(work / "qrels.txt"), "-m", "PRUM"]
    classical = best(base, args.repeat)
    hops2 = best([*base, "--nav", "links:hops=2"], args.repeat)
    emit(bench="links-eval", pages=args.pages, links=args.links, topics=args.topics,
         ranked=args.ranked, ideal=args.ideal, classical_s=round(classical, 3),
         links_hops2_s=round(hops2, 3), ratio=round(hops2 / classical, 3), target=3.0)


def bench_xml(args: argparse.Namespace, work: Path) -> None:
    pages = sorted(args.gnome.glob("*.page"))
    store = work / "gnome"
    shutil.rmtree(store, ignore_errors=True)
    run([*GRAPHPRUM, "--store", str(store), "load", "xml", *map(str, pages),
         "--links", "link@xref", "--no-graph"])
    sys.path.insert(0, str(HERE.parent))
    from graphprum.store.local import LocalStore

    local = LocalStore(store)
    table = local.table()
    ids = np.array(table.ids(), dtype=object)
    src, dst = (np.asarray(a, dtype=np.int64) for a in local.link_rows())
    keep = dst >= 0
    local.close()
    write_topics(work, src[keep], dst[keep], len(ids), 50, args.ideal, min(args.ranked, len(ids)),
                 args.seed, name=lambda i: ids[i])
    base = [*GRAPHPRUM, "--store", str(store), "eval", str(work / "run.txt"), "--qrels",
            str(work / "qrels.txt"), "-m", "PRUM"]
    structural = best([*base, "--nav", "structural"], args.repeat)
    both = best([*base, "--nav", "structural", "--nav", "links"], args.repeat)
    browse = best([*base, "--nav", "browse"], args.repeat)
    emit(bench="walk-xml", collection=str(args.gnome), elements=len(ids), links=int(keep.sum()),
         topics=50, ranked=min(args.ranked, len(ids)), structural_s=round(structural, 3),
         structural_links_s=round(both, 3), ratio=round(both / structural, 3), target=1.5,
         browse_s=round(browse, 3), browse_ratio=round(browse / structural, 3))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=1_000_000)
    ap.add_argument("--links", type=int, default=10_000_000)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--ideal", type=int, default=10)
    ap.add_argument("--ranked", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--gnome", type=Path, help="a directory of Mallard .page files")
    ap.add_argument("--skip-links", action="store_true")
    ap.add_argument("--work", type=Path, default=HERE / "out" / "links_scale")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    emit(bench="machine", python=platform.python_version(), machine=platform.machine(),
         cpus=os.cpu_count(), load=os.getloadavg()[0])
    if not args.skip_links:
        bench_links(args, args.work)
    if args.gnome:
        bench_xml(args, args.work)


if __name__ == "__main__":
    main()
