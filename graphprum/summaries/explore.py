"""A summary explorer: one self-contained HTML page (``summary show -f html``).

The page embeds, as one JSON document, every summary of the collection it
was asked for (those the store holds, the five of :data:`EXPLORE_AXPRES`
built in memory when the store lacks them) and lets a reader

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
    The sampled element ids, compactly (:func:`encode_units`).
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
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from graphprum.errors import UsageError
from graphprum.summaries.axpre import AXPRES, Summary, build_summary, normalise_axpre
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
    from ``store.table()`` (nothing is written to the store).  With
    ``weight``, π of every summary is computed under that weighting; a
    weights file (partition ids of one summary) is applied to ``weighted``
    alone, the summary it was written for.
    """
    from graphprum.summaries.axpre import WEIGHTS

    named_weight = weight is None or weight in WEIGHTS
    if not named_weight and weighted is None:
        raise UsageError(f"weights file {weight}: name the summary it weights (weighted=)")
    stored = set(store.summary_names())
    wanted = stored | {normalise_axpre(n) for n in names}
    table = store.table()
    if not (np.asarray(table.columns["kind"]) == KIND_ELEMENT).any():
        raise UsageError(f"{store.location} holds no XML elements to summarise "
                         f"(load XML, or web pages with --elements)")
    out: dict[str, Summary] = {}
    built: list[str] = []
    for name in (a for a in AXPRES if a in wanted):
        if name in stored:
            summary = stored_summary(store, name)
            if len(summary.membership) != len(table):
                # a server keeps membership in its graph: the same partitions,
                # numbered the same way, from the table at hand
                summary.membership = build_summary(table, name).membership
        else:
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


def refinement(a: Summary, b: Summary, rows: np.ndarray) -> dict[str, list[int]]:
    """Element counts per pair of partitions (``a`` index, ``b`` index), non-zero only.

    >>> from graphprum.units import UnitTable
    >>> t = UnitTable.from_tree("d", ["a", "b", "b", "c"], [-1, 0, 0, 2])
    >>> refinement(build_summary(t, "label"), build_summary(t, "c"), np.arange(4))
    {'ai': [0, 1, 1, 2], 'bi': [0, 1, 2, 3], 'n': [1, 1, 1, 1]}
    """
    ma = np.asarray(a.membership)[rows].astype(np.int64)
    mb = np.asarray(b.membership)[rows].astype(np.int64)
    gb = max(len(b), 1)
    key, n = np.unique(ma * gb + mb, return_counts=True)
    return {"ai": (key // gb).tolist(), "bi": (key % gb).tolist(), "n": n.tolist()}


# ---------------------------------------------------------------- overlay
def overlay_data(summaries: Mapping[str, Summary], resolve: Callable[[list[str]], np.ndarray],
                 run: Any = None, qrels: Mapping[str, Mapping[str, float]] | None = None,
                 run_name: str = "", qrels_name: str = "") -> dict[str, Any]:
    """Units of a run (:class:`graphprum.io.runs.Run`) and qrels, per topic.

    ``resolve`` maps unit ids to global rows (-1 when unknown), as
    ``store.resolve`` does.
    """
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
    rows = np.asarray(resolve(units), dtype=np.int64) if units else np.zeros(0, np.int64)
    member = {}
    for name, s in summaries.items():
        m = np.asarray(s.membership)
        member[name] = np.where(rows >= 0, m[np.maximum(rows, 0)], -1).tolist() \
            if len(m) else [-1] * len(units)
    return {"run": run_name if run is not None else "",
            "run_tag": getattr(run, "tag", "") if run is not None else "",
            "qrels": qrels_name if qrels is not None else "",
            "units": units, "unknown": int((rows < 0).sum()), "member": member,
            "topics": [{"id": t, **v} for t, v in topics.items()]}


# ------------------------------------------------------------------ data
def explorer_data(table: UnitTable, summaries: Mapping[str, Summary], first: str, *,
                  store: str = "", built: Sequence[str] = (),
                  overlay: dict[str, Any] | None = None, samples: int = SAMPLES,
                  top: int = TOP) -> dict[str, Any]:
    """Everything the page shows, as plain JSON-ready values (see the module notes)."""
    first = normalise_axpre(first)
    if first not in summaries:
        raise UsageError(f"no {first} summary among {', '.join(summaries)}")
    rows, parent_rows = element_parents(table)
    sample_of: dict[str, list[list[int]]] = {}
    wanted: set[int] = set()
    out: dict[str, Any] = {}
    for name, s in summaries.items():
        membership = np.asarray(s.membership)
        labels = membership[rows].astype(np.int64)
        roots = labels[parent_rows < 0]
        parent, depth = partition_tree(s, roots)
        sample_of[name] = sample_rows(labels, rows, len(s), samples)
        for picks in sample_of[name]:
            wanted.update(picks)
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
        }
    ordered = sorted(wanted)
    position = {r: k for k, r in enumerate(ordered)}
    for name in summaries:
        out[name]["samples"] = [[position[r] for r in picks] for picks in sample_of[name]]
    names = list(summaries)
    refinements = [{"a": a, "b": b, **refinement(summaries[a], summaries[b], rows)}
                   for i, a in enumerate(names) for b in names[i + 1:]]
    return {"format": "graphprum-explorer", "version": DATA_VERSION,
            "generator": f"graphprum {__version__}", "store": _safe_location(store),
            "elements": len(rows), "documents": len(table.docs), "first": first,
            "top": top, "units": encode_units(table, ordered), "summaries": out,
            "refinements": refinements, "overlay": overlay}


def encode_units(table: UnitTable, rows: Sequence[int]) -> dict[str, list[Any]]:
    """The ids of element ``rows`` in few bytes: document, label path, positions.

    The id ``doc#/a[1]/b[3]`` (DESIGN §1.1, as ``UnitTable.ids`` spells it)
    is stored as ``doc`` (index into ``docs``), ``path`` (index into
    ``paths``, here ``/a/b``) and ``pos`` (``"1.3"``); :func:`unit_ids` (and
    the page) put it back together.  Ancestors are walked one level at a
    time for all rows at once.

    >>> from graphprum.units import UnitTable
    >>> t = UnitTable.from_tree("d", ["a", "b", "b"], [-1, 0, 0])
    >>> u = encode_units(t, [2])
    >>> u["paths"], u["pos"], unit_ids(u)
    (['/a/b'], ['1.2'], ['d#/a[1]/b[2]'])
    """
    at = np.asarray(rows, dtype=np.int64)
    parent = np.asarray(table.columns["parent"], dtype=np.int64)
    tag = np.asarray(table.columns["tag"], dtype=np.int64)
    pos = np.asarray(table.columns["pos"], dtype=np.int64)
    up_tags, up_pos = [], []  # level k: the k-th ancestor of every row (-1 above its root)
    cur = at
    while len(cur) and (cur >= 0).any():
        ok = cur >= 0
        safe = np.maximum(cur, 0)
        up_tags.append(np.where(ok, tag[safe], -1))
        up_pos.append(np.where(ok, pos[safe], -1))
        cur = np.where(ok, parent[safe], -1)
    names = table.docs["name"][np.asarray(table.columns["doc"])[at]].tolist()
    tags = list(table.tags)
    docs: dict[str, int] = {}
    paths: dict[str, int] = {}
    doc, path, position = [], [], []
    for name, ts, ps in zip(names, np.array(up_tags).T.tolist() if up_tags else [[]] * len(at),
                            np.array(up_pos).T.tolist() if up_pos else [[]] * len(at),
                            strict=True):
        depth = ts.index(-1) if -1 in ts else len(ts)
        doc.append(docs.setdefault(name, len(docs)))
        label = "".join("/" + tags[t] for t in reversed(ts[:depth]))
        path.append(paths.setdefault(label, len(paths)))
        position.append(".".join(str(p) for p in reversed(ps[:depth])))
    return {"docs": list(docs), "paths": list(paths), "doc": doc, "path": path, "pos": position}


def unit_ids(units: Mapping[str, list[Any]]) -> list[str]:
    """Unit ids back from :func:`encode_units`."""
    out = []
    for d, p, pos in zip(units["doc"], units["path"], units["pos"], strict=True):
        tags = units["paths"][p].split("/")[1:]
        out.append(units["docs"][d] + "#" + "".join(
            f"/{t}[{k}]" for t, k in zip(tags, pos.split("."), strict=True)))
    return out


def _safe_location(location: str) -> str:
    """A store location without any user:password part of a URI.

    >>> _safe_location("bolt://neo4j:secret@db:7687"), _safe_location("/data/store")
    ('bolt://db:7687', '/data/store')
    """
    return re.sub(r"^([a-z+]+://)[^/@]*@", r"\1", location)


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


def write_explorer(store: Any, axpre: str, path: str | os.PathLike[str], *,
                   weight: str | None = None, run: str | os.PathLike[str] | None = None,
                   qrels: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Write the explorer page of ``store`` opened on summary ``axpre`` to ``path``.

    ``run`` and ``qrels`` are files (TREC or INEX XML run, TREC qrels) to
    overlay.  Returns the embedded data.
    """
    from graphprum.io.qrels import read_qrels
    from graphprum.io.runs import read_run

    summaries, built = collect_summaries(store, weight, (*EXPLORE_AXPRES, axpre), axpre)
    overlay = None
    if run is not None or qrels is not None:
        overlay = overlay_data(summaries, store.resolve,
                               read_run(run) if run is not None else None,
                               read_qrels(qrels) if qrels is not None else None,
                               os.fspath(run) if run is not None else "",
                               os.fspath(qrels) if qrels is not None else "")
    data = explorer_data(store.table(), summaries, axpre, store=str(store.location),
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
