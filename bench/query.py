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
    articles = max(1, elements // 125)
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--elements", type=int, default=0,
                    help="also a generated collection of about N elements (e.g. 3000000)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    collections = {"plos-starter": plos_starter()}
    if args.elements:
        collections[f"generated-{args.elements}"] = generated(args.elements)
    for name, col in collections.items():
        store = OUT / f"query-store-{name}"
        shutil.rmtree(store, ignore_errors=True)
        t = time.perf_counter()
        subprocess.run([GRAPHPRUM, "--store", str(store), "load", "xml", str(col)], check=True,
                       capture_output=True)
        load_s = time.perf_counter() - t
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
            print(json.dumps({
                "bench": "query", "collection": name, "units": units, "query": qname,
                "seconds": round(seconds, 4), "version_seconds": round(version_s, 4),
                "ratio_to_version": round(seconds / version_s, 2),
                "rows": len(json.loads(out)), "load_seconds_whole_process": round(load_s, 2),
                "bytes_per_element": round(info["bytes_on_disk"] / units, 1),
                "machine": f"{platform.machine()} {os.cpu_count()} cpu, "
                           f"python {platform.python_version()}",
                "date": time.strftime("%Y-%m-%d"),
            }), flush=True)


if __name__ == "__main__":
    main()
