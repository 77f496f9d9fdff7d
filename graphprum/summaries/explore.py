"""A summary explorer: one self-contained HTML page (``summary show -f html``).

The page embeds, as one JSON document, every summary of the collection it
was asked for (those the store holds, the five of :data:`EXPLORE_AXPRES`
built in memory when the store lacks them; a graph server's stored ones,
with everything the page counts counted by the server,
:func:`server_counts`) and lets a reader

- see the summary graph as a left-to-right tree (each partition under the
  parent partition that holds most of its elements' parents), the partitions
  of smallest π folded into one "+ N more" node per parent, with zoom, pan
  and search by label path, tag or SID;
- click a partition for its extent size, length, π, parent and child
  partitions with edge counts, and a sample of its units (ids to paste into
  ``graphprum show``);
- switch summaries and see how the elements of one partition spread over
  the partitions of another (``p*`` partitions split into ``p*|c`` ones);
- overlay a run and its qrels: per partition, how many relevant units and
  how many retrieved units (top k, one topic or all) fall in it.

Nothing is fetched: the script and style are written by hand for this page
and inlined (``explore.js``, ``explore.css`` next to this module), and a
Content-Security-Policy forbids any request.

Data layout (:func:`explorer_data`; ``i`` is a 0-based partition index,
``S{i+1}`` its SID):

``summaries[name]``
    ``tag``, ``key``, ``short`` (the key without the label path above the
    partition for ``p*``/``p*|c``), ``extent``, ``length``, ``pi``: one
    entry per partition; ``parent`` (the tree parent, -1 for a root) and
    ``depth`` (its depth in that tree); ``edges`` ``src``/``dst``/``count``;
    ``samples`` (up to ``samples`` units per partition, evenly spread over
    its elements in document order, as indices into ``units``).
``units``
    The sampled element ids, compactly (:func:`encode_ids`).
``refinements``
    For each pair of summaries ``a``, ``b``: the triples ``ai``, ``bi``,
    ``n``, the number of elements in partition ``ai`` of ``a`` and ``bi``
    of ``b`` (only non-zero ones).
``overlay``
    ``units`` (ids of the run and qrels), ``member[name]`` (partition of
    each unit in every summary, -1 when the store lacks it or it is not an
    element) and ``topics`` (per topic ``ret``, unit indices in rank order,
    and ``rel``, ``[unit, REL]`` for REL > 0).

Examples
--------
>>> from graphprum.units import UnitTable
>>> from graphprum.summaries.axpre import build_summary
>>> t = UnitTable.from_tree("d", ["a", "b", "b", "c"], [-1, 0, 0, 2])
>>> data = explorer_data(t, {n: build_summary(t, n) for n in ("label", "p*|c")}, "p*|c")
>>> s = data["summaries"]["p*|c"]
>>> s["key"], s["short"]
(['/a(b)', '/a/b()', '/a/b(c)', '/a/b/c()'], ['a(b)', 'b()', 'b(c)', 'c()'])
>>> s["extent"], s["parent"], s["samples"]
([1, 1, 1, 1], [-1, 0, 0, 2], [[0], [1], [2], [3]])
>>> unit_ids(data["units"])[3]
'd#/a[1]/b[2]/c[1]'
>>> data["refinements"][0]  # label b holds the elements of p*|c S2 and S3
{'a': 'label', 'b': 'p*|c', 'ai': [0, 1, 1, 2], 'bi': [0, 1, 2, 3], 'n': [1, 1, 1, 1]}
>>> page = render_html(data)
>>> read_embedded(page) == json.loads(json.dumps(data))
True
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from graphprum.errors import InputError, StoreError, UsageError
from graphprum.io.qrels import read_qrels
from graphprum.io.runs import read_run
from graphprum.store.base import TABLE, ServerReads, SummaryPage
from graphprum.store.uri import redact
from graphprum.summaries.axpre import AXPRES, WEIGHTS, Summary, build_summary, normalise_axpre
from graphprum.summaries.render import partition_tree, short_label
from graphprum.summaries.stored import stored_summary
from graphprum.units import KIND_ELEMENT, UnitTable
from graphprum.version import __version__

#: Summaries the page always offers (built in memory when the store lacks them).
EXPLORE_AXPRES = ("label", "p", "p*", "c", "p*|c")
#: Sample units kept per partition.
SAMPLES = 5
#: Partitions shown unfolded when the page opens (largest π first).
TOP = 30
#: Version of the embedded JSON layout.
DATA_VERSION = 1
_DATA_ID = "graphprum-data"


# ------------------------------------------------------------ the summaries
def collect_summaries(store: Any, weight: str | None = None,
                      names: Sequence[str] = EXPLORE_AXPRES, weighted: str | None = None,
                      ) -> tuple[dict[str, Summary], list[str]]:
    """The summaries of ``store`` for the page, and which were built in memory.

    Every summary the store holds plus ``names``, in the order of
    :data:`~graphprum.summaries.axpre.AXPRES`.  Stored summaries are read
    with :func:`~graphprum.summaries.stored.stored_summary`; the others are built
    from ``store.table()`` (nothing is written to the store), except on a
    graph server (no capability ``table``), which offers its stored summaries
    only: the collection stays in the server.  With ``weight``, π of every
    summary is computed under that weighting; a weights file (partition ids
    of one summary) is applied to ``weighted`` alone, the summary it was
    written for.
    """
    named_weight = weight is None or weight in WEIGHTS
    if not named_weight and weighted is None:
        raise UsageError(f"weights file {weight}: name the summary it weights (weighted=)")
    stored = set(store.summary_names())
    table = store.table() if TABLE in store.capabilities else None
    wanted = stored | {normalise_axpre(n) for n in names} if table is not None else stored
    elements = (np.asarray(table.columns["kind"]) == KIND_ELEMENT).any() if table is not None \
        else store.count_units(KIND_ELEMENT) > 0
    if not elements:
        raise UsageError(f"{store.location} holds no XML elements to summarise "
                         f"(load XML, or web pages with --elements)")
    out: dict[str, Summary] = {}
    built: list[str] = []
    for name in (a for a in AXPRES if a in wanted):
        if name in stored:
            summary = stored_summary(store, name)
            if table is not None and len(summary.membership) != len(table):
                # a server keeps membership in its graph: the same partitions,
                # numbered the same way, from the table at hand
                summary.membership = build_summary(table, name).membership
        else:
            assert table is not None
            summary = build_summary(table, name, weight if named_weight and weight else "count")
            built.append(name)
        applies = named_weight or (weighted is not None and name == normalise_axpre(weighted))
        if weight is not None and applies and weight != summary.weight:
            summary = summary.reweighted(weight, table)
        out[name] = summary
    return out, built


def element_parents(table: UnitTable) -> tuple[np.ndarray, np.ndarray]:
    """Global rows of the elements and of their parent element (-1 for none)."""
    kind = np.asarray(table.columns["kind"])
    rows = np.flatnonzero(kind == KIND_ELEMENT)
    parent = np.asarray(table.columns["parent"], dtype=np.int64)[rows]
    is_element = np.zeros(len(kind) + 1, dtype=bool)
    is_element[rows] = True  # index -1 (the extra last slot) stays False
    parent = np.where(is_element[parent], parent, -1)
    return rows, parent


def sample_rows(membership: np.ndarray, rows: np.ndarray, g: int, k: int) -> list[list[int]]:
    """Up to ``k`` rows per partition, evenly spread over its elements in row order.

    ``rows`` are the element rows, ``membership`` their partition indices.

    >>> sample_rows(np.array([0, 1, 0, 0, 0]), np.arange(5) * 10, 2, 3)
    [[0, 20, 40], [10]]
    """
    order = np.argsort(membership, kind="stable")
    size = np.bincount(membership, minlength=g)
    start = np.r_[0, np.cumsum(size)[:-1]]
    out = []
    for p in range(g):
        n = int(size[p])
        m = min(k, n)
        picks = np.arange(m) if m <= 1 else (np.arange(m) * (n - 1)) // (m - 1)
        out.append(rows[order[start[p] + picks]].tolist())
    return out


def refinement(a: np.ndarray, b: np.ndarray, gb: int,
               n: np.ndarray | None = None) -> dict[str, list[int]]:
    """Element counts per pair of partitions (``a`` index, ``b`` index), non-zero only.

    ``a`` and ``b`` are the partitions of each element in two summaries
    (``b``'s of ``gb`` partitions), or of each combination of partitions,
    which holds ``n`` elements.

    >>> refinement(np.array([0, 1, 1, 2]), np.array([0, 1, 2, 3]), 4)
    {'ai': [0, 1, 1, 2], 'bi': [0, 1, 2, 3], 'n': [1, 1, 1, 1]}
    >>> refinement(np.array([0, 1, 1]), np.array([0, 1, 1]), 2, np.array([2, 1, 3]))
    {'ai': [0, 1], 'bi': [0, 1], 'n': [2, 4]}
    """
    gb = max(gb, 1)
    key, inv = np.unique(np.asarray(a, np.int64) * gb + np.asarray(b, np.int64),
                         return_inverse=True)
    count = np.bincount(inv.ravel(), weights=n, minlength=len(key)).astype(np.int64)
    return {"ai": (key // gb).tolist(), "bi": (key % gb).tolist(), "n": count.tolist()}


# ---------------------------------------------------------------- overlay
#: ``members(ids)``: per summary the partition of each id (-1 when the store
#: lacks it or it is not an element), and how many ids the store lacks.
Members = Callable[[list[str]], tuple[dict[str, list[int]], int]]


def table_members(summaries: Mapping[str, Summary],
                  resolve: Callable[[list[str]], np.ndarray]) -> Members:
    """:data:`Members` from the summaries' membership and ``resolve`` (unit
    ids to rows of the table they were built from, -1 when unknown, as
    ``store.resolve`` does)."""
    def members(units: list[str]) -> tuple[dict[str, list[int]], int]:
        rows = np.asarray(resolve(units), dtype=np.int64) if units else np.zeros(0, np.int64)
        out = {}
        for name, s in summaries.items():
            m = np.asarray(s.membership)
            out[name] = np.where(rows >= 0, m[np.maximum(rows, 0)], -1).tolist() \
                if len(m) else [-1] * len(units)
        return out, int((rows < 0).sum())
    return members


def server_members(store: ServerReads, kinds: Callable[[list[str]], np.ndarray],
                   names: Sequence[str]) -> Members:
    """:data:`Members` asked of a graph server (``kinds``: its
    :meth:`~graphprum.store.base.Store.kinds`, -1 for an id it lacks)."""
    def members(units: list[str]) -> tuple[dict[str, list[int]], int]:
        if not units:
            return {n: [] for n in names}, 0
        got = store.summary_members(names, units)
        return {n: got[n].tolist() for n in names}, int((kinds(units) < 0).sum())
    return members


def overlay_data(members: Members, run: Any = None,
                 qrels: Mapping[str, Mapping[str, float]] | None = None,
                 run_name: str = "", qrels_name: str = "") -> dict[str, Any]:
    """Units of a run (:class:`graphprum.io.runs.Run`) and qrels, per topic,
    with their partitions (``members``)."""
    units: list[str] = []
    index: dict[str, int] = {}

    def unit(uid: str) -> int:
        i = index.get(uid)
        if i is None:
            i = index[uid] = len(units)
            units.append(uid)
        return i

    topics: dict[str, dict[str, list[Any]]] = {}  # ret: unit indices, rel: [index, rel]
    for topic, judged in (qrels or {}).items():
        topics.setdefault(topic, {"ret": [], "rel": []})["rel"] = \
            [[unit(u), rel] for u, rel in judged.items() if rel > 0]
    if run is not None:
        for topic in run.topics:
            topics.setdefault(topic, {"ret": [], "rel": []})["ret"] = \
                [unit(u) for u in run.ranked(topic)]
    member, unknown = members(units)
    return {"run": run_name if run is not None else "",
            "run_tag": getattr(run, "tag", "") if run is not None else "",
            "qrels": qrels_name if qrels is not None else "",
            "units": units, "unknown": unknown, "member": member,
            "topics": [{"id": t, **v} for t, v in topics.items()]}


# ------------------------------------------------------------------ data
@dataclass
class PageCounts:
    """What the page shows of the collection beyond the summaries' own
    partitions and edges (module notes): element and document counts, per
    summary the partitions holding a root element and the samples (indices
    into ``units``, :func:`encode_ids`), and the refinements."""

    elements: int
    documents: int
    roots: dict[str, list[int]]
    samples: dict[str, list[list[int]]]
    units: dict[str, list[Any]]
    refinements: list[dict[str, Any]]


def table_counts(table: UnitTable, summaries: Mapping[str, Summary],
                 samples: int = SAMPLES) -> PageCounts:
    """:class:`PageCounts` of the summaries of ``table``, counted in memory."""
    rows, parent_rows = element_parents(table)
    sample_of: dict[str, list[list[int]]] = {}
    roots: dict[str, list[int]] = {}
    wanted: set[int] = set()
    member = {name: np.asarray(s.membership)[rows].astype(np.int64)
              for name, s in summaries.items()}
    for name, s in summaries.items():
        labels = member[name]
        roots[name] = sorted(set(labels[parent_rows < 0].tolist()))
        sample_of[name] = sample_rows(labels, rows, len(s), samples)
        for picks in sample_of[name]:
            wanted.update(picks)
    ordered = sorted(wanted)
    position = {r: k for k, r in enumerate(ordered)}
    names = list(summaries)
    return PageCounts(
        len(rows), len(table.docs), roots,
        {n: [[position[r] for r in picks] for picks in sample_of[n]] for n in names},
        encode_ids(table.ids(ordered)),
        [{"a": a, "b": b, **refinement(member[a], member[b], len(summaries[b]))}
         for i, a in enumerate(names) for b in names[i + 1:]])


def server_counts(store: Any, summaries: Mapping[str, Summary],
                  samples: int = SAMPLES) -> PageCounts:
    """:class:`PageCounts` of the stored summaries of a graph server
    (:meth:`~graphprum.store.base.ServerReads.summary_page`), counted by
    the server: what comes here is bounded by the partitions."""
    names = list(summaries)
    page: SummaryPage = store.summary_page(names, samples)
    ordered = sorted({p for per in page.samples.values() for picks in per for p in picks})
    position = {uid: k for k, (_, uid) in enumerate(ordered)}
    combos = np.array([c for c, _ in page.combinations], np.int64).reshape(-1, len(names))
    held = np.array([k for _, k in page.combinations], np.int64)
    refinements = [{"a": a, "b": b, **refinement(combos[:, i], combos[:, i + 1 + j],
                                                 len(summaries[b]), held)}
                   for i, a in enumerate(names) for j, b in enumerate(names[i + 1:])]
    return PageCounts(
        store.count_units(KIND_ELEMENT), len(store.documents()), page.roots,
        {n: [[position[uid] for _, uid in picks] for picks in page.samples[n]]
         for n in names},
        encode_ids([uid for _, uid in ordered]), refinements)


def explorer_data(counted: UnitTable | PageCounts, summaries: Mapping[str, Summary],
                  first: str, *, store: str = "", built: Sequence[str] = (),
                  overlay: dict[str, Any] | None = None, samples: int = SAMPLES,
                  top: int = TOP) -> dict[str, Any]:
    """Everything the page shows, as plain JSON-ready values (see the module
    notes), from the collection's table or what a server counted
    (:class:`PageCounts`)."""
    first = normalise_axpre(first)
    if first not in summaries:
        raise UsageError(f"no {first} summary among {', '.join(summaries)}")
    counts = table_counts(counted, summaries, samples) if isinstance(counted, UnitTable) \
        else counted
    out: dict[str, Any] = {}
    for name, s in summaries.items():
        parent, depth = partition_tree(s, counts.roots[name])
        p = s.partitions
        e = s.edges
        out[name] = {
            "axpre": s.axpre, "weight": s.weight,
            "stored": name not in built,
            "tag": p["tag"].tolist(), "key": p["key"].tolist(),
            "short": [short_label(s.axpre, k) for k in p["key"]],
            "extent": p["extent"].astype(np.int64).tolist(),
            "length": [float(x) for x in p["length"]],
            "pi": [float(x) for x in np.asarray(s.pi)],
            "parent": parent, "depth": depth,
            "edges": {"src": e["src"].astype(np.int64).tolist(),
                      "dst": e["dst"].astype(np.int64).tolist(),
                      "count": e["count"].astype(np.int64).tolist()},
            "samples": counts.samples[name],
        }
    return {"format": "graphprum-explorer", "version": DATA_VERSION,
            "generator": f"graphprum {__version__}", "store": redact(store),
            "elements": counts.elements, "documents": counts.documents, "first": first,
            "top": top, "units": counts.units, "summaries": out,
            "refinements": counts.refinements, "overlay": overlay}


def encode_ids(ids: Sequence[str]) -> dict[str, list[Any]]:
    """Element ids in few bytes: document, label path, positions.

    The id ``doc#/a[1]/b[3]`` (DESIGN §1.1) is stored as ``doc`` (index
    into ``docs``), ``path`` (index into ``paths``, here ``/a/b``) and
    ``pos`` (``"1.3"``); :func:`unit_ids` (and the page) put it back together.

    >>> u = encode_ids(["d#/a[1]/b[2]", "e#/a[1]"])
    >>> u["docs"], u["paths"], u["doc"], u["path"], u["pos"], unit_ids(u)[0]
    (['d', 'e'], ['/a/b', '/a'], [0, 1], [0, 1], ['1.2', '1'], 'd#/a[1]/b[2]')
    """
    docs: dict[str, int] = {}
    paths: dict[str, int] = {}
    doc, path, position = [], [], []
    for uid in ids:
        name, _, xpath = uid.partition("#")
        steps = [step.partition("[") for step in xpath[1:].split("/")] if xpath else []
        doc.append(docs.setdefault(name, len(docs)))
        path.append(paths.setdefault("".join("/" + t for t, _, _ in steps), len(paths)))
        position.append(".".join(rest[:-1] for _, _, rest in steps))
    return {"docs": list(docs), "paths": list(paths), "doc": doc, "path": path, "pos": position}


def unit_ids(units: Mapping[str, list[Any]]) -> list[str]:
    """Unit ids back from :func:`encode_ids`."""
    out = []
    for d, p, pos in zip(units["doc"], units["path"], units["pos"], strict=True):
        tags = units["paths"][p].split("/")[1:]
        out.append(units["docs"][d] + "#" + "".join(
            f"/{t}[{k}]" for t, k in zip(tags, pos.split("."), strict=True)))
    return out


# ------------------------------------------------------------------ page
def _asset(name: str) -> str:
    return resources.files("graphprum.summaries").joinpath(name).read_text(encoding="utf-8")


def _script_json(data: Mapping[str, Any]) -> str:
    """JSON safe inside a ``<script>`` element: every ``<`` written ``\\u003c``.

    >>> _script_json({"k": "</script><!--"})
    '{"k":"\\\\u003c/script>\\\\u003c!--"}'
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c")


def render_html(data: Mapping[str, Any]) -> str:
    """The page: a static skeleton, the data as JSON, the inlined style and script."""
    first = data["first"]
    title = f"{first} summary of {data['store'] or 'a collection'} — graphprum explorer"
    return _PAGE.format(
        title=html.escape(title), css=_asset("explore.css"), js=_asset("explore.js"),
        data_id=_DATA_ID, data=_script_json(data))


def read_embedded(page: str) -> dict[str, Any]:
    """The JSON document a page written by :func:`render_html` embeds."""
    m = re.search(rf'<script type="application/json" id="{_DATA_ID}">(.*?)</script>', page,
                  re.S)
    if m is None:
        raise ValueError("not a graphprum explorer page")
    data: dict[str, Any] = json.loads(m.group(1))
    return data


def refuse_another_collection(store: Any, overlay: Mapping[str, Any],
                              source: str | os.PathLike[str] | None) -> None:
    """InputError when most ids of the overlaid run and qrels are not in
    ``store`` (made for another collection or id convention: the page would
    show nothing retrieved or relevant), as ``eval`` refuses such a run."""
    units, unknown = overlay["units"], int(overlay["unknown"])
    if not units or 2 * unknown <= len(units):
        return
    missing = [u for u, k in zip(units, store.kinds(units), strict=True) if k < 0]
    raise InputError(source or "input", None,
                     f"{unknown} of {len(units)} ids of the run and qrels are not in the "
                     f"store {store.location} (e.g. {', '.join(map(repr, missing[:3]))}): "
                     f"overlay the run and qrels of the collection the store holds")


def write_explorer(store: Any, axpre: str, path: str | os.PathLike[str], *,
                   weight: str | None = None, run: str | os.PathLike[str] | None = None,
                   qrels: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Write the explorer page of ``store`` opened on summary ``axpre`` to ``path``.

    ``run`` and ``qrels`` are files (TREC or INEX XML run, TREC qrels) to
    overlay.  Returns the embedded data.
    """
    name = normalise_axpre(axpre)
    server = TABLE not in store.capabilities
    if server and name not in store.summary_names():
        raise StoreError(f"{store.location}: no {name} summary stored; build it with "
                         f"'graphprum summary build {name}'")
    summaries, built = collect_summaries(store, weight, (*EXPLORE_AXPRES, axpre), axpre)
    counted = server_counts(store, summaries) if server else store.table()
    members = server_members(store, store.kinds, list(summaries)) if server \
        else table_members(summaries, store.resolve)
    overlay = None
    if run is not None or qrels is not None:
        overlay = overlay_data(members, read_run(run) if run is not None else None,
                               read_qrels(qrels) if qrels is not None else None,
                               os.fspath(run) if run is not None else "",
                               os.fspath(qrels) if qrels is not None else "")
        refuse_another_collection(store, overlay, run if run is not None else qrels)
    data = explorer_data(counted, summaries, axpre, store=str(store.location),
                         built=built, overlay=overlay)
    Path(path).write_text(render_html(data), encoding="utf-8")
    return data


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
{css}
</style>
</head>
<body>
<header id="bar">
  <div class="brand"><b>graphprum</b> summary explorer <span id="where"></span></div>
  <label>Summary <select id="summary"></select></label>
  <label>Show <input id="top" type="number" min="1" step="5"> largest by
    <select id="rank"><option value="pi">π</option><option value="extent">extent</option>\
</select></label>
  <label>Colour <select id="colour"></select></label>
  <span id="srbar" hidden>
    <label>Topic <select id="topic"></select></label>
    <label>Top <input id="depth" type="number" min="0" step="10" title="0 = all"> retrieved\
</label>
  </span>
  <label><input id="cross" type="checkbox" checked> cross edges</label>
  <input id="search" type="search" placeholder="Search label path, tag or SID" size="28">
  <span class="zoom"><button id="zoomin" title="Zoom in">+</button>\
<button id="zoomout" title="Zoom out">−</button><button id="fit" title="Fit to window">Fit\
</button></span>
</header>
<main>
  <div id="view"><svg id="graph" xmlns="http://www.w3.org/2000/svg" role="img" \
aria-label="summary graph"><g id="scene"></g></svg><div id="legend"></div>
  <div id="status"></div></div>
  <aside id="panel" aria-live="polite"><p class="hint">Click a partition for its details. \
Drag to pan, wheel to zoom.</p></aside>
</main>
<noscript>This page needs JavaScript (no network access: everything is in the file).</noscript>
<script type="application/json" id="{data_id}">{data}</script>
<script>
{js}
</script>
</body>
</html>
"""
