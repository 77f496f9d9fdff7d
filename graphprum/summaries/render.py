"""Views of a summary for ``graphprum summary show``: rows, JSON, DOT and PNG.

The PNG is an outline: one row per partition, indented under its parent in
a spanning tree of the summary graph (:func:`partition_tree`), so labels
never overlap however many partitions are drawn.

Examples
--------
>>> from graphprum.units import UnitTable
>>> from graphprum.summaries.axpre import build_summary
>>> s = build_summary(UnitTable.from_tree("d", ["a", "b", "b"], [-1, 0, 0], [4, 1, 3]), "p*")
>>> table_rows(s)
[{'sid': 'S1', 'key': '/a', 'extent': 1, 'length': 4, 'pi': 0.5}, \
{'sid': 'S2', 'key': '/a/b', 'extent': 2, 'length': 4, 'pi': 0.5}]
>>> print(to_dot(s))  # doctest: +NORMALIZE_WHITESPACE
digraph "p*" {
  rankdir=TB;
  node [shape=box, style="rounded,filled", fillcolor="#dbe9f6", fontname="Helvetica"];
  S1 [label="S1\\n/a\\nextent 1  π 0.5"];
  S2 [label="S2\\n/a/b\\nextent 2  π 0.5"];
  S1 -> S2 [label="2", penwidth=6.00];
}
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphprum.floats import readable, whole
from graphprum.summaries.axpre import Summary


def table_rows(summary: Summary) -> list[dict[str, Any]]:
    """One dict per partition: ``sid``, ``key``, ``extent``, ``length``, ``pi``."""
    p = summary.partitions
    return [{"sid": sid, "key": key, "extent": int(ext), "length": whole(length),
             "pi": float(pi)}
            for sid, key, ext, length, pi in zip(p["sid"], p["key"], p["extent"], p["length"],
                                                 summary.pi, strict=True)]


def edge_weights(summary: Summary) -> np.ndarray:
    """Weight of every summary edge for display: the weighting's value, else count."""
    e = summary.edges
    if summary.weight in ("count", "length"):
        return e[summary.weight].to_numpy(np.float64)
    return e["count"].to_numpy(np.float64)


def to_json(summary: Summary, indent: int | None = 2) -> str:
    """The summary as JSON: axpre, weight, partitions (rows) and edges (by SID)."""
    sids = summary.sids
    edges = [{"src": sids[int(s)], "dst": sids[int(d)], "count": int(c), "length": whole(x)}
             for s, d, c, x in summary.edges[["src", "dst", "count", "length"]]
             .itertuples(index=False)]
    return json.dumps({"axpre": summary.axpre, "weight": summary.weight,
                       "partitions": table_rows(summary), "edges": edges},
                      indent=indent, ensure_ascii=False)


def _dot_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def to_dot(summary: Summary) -> str:
    """Graphviz DOT text: one box per partition, edges labelled by their weight."""
    sids = summary.sids
    lines = [f'digraph "{_dot_string(summary.axpre)}" {{', "  rankdir=TB;",
             '  node [shape=box, style="rounded,filled", fillcolor="#dbe9f6", '
             'fontname="Helvetica"];']
    for row in table_rows(summary):
        label = f"{row['sid']}\\n{_dot_string(row['key'])}\\nextent {row['extent']}  " \
                f"π {readable(row['pi'])}"
        lines.append(f'  {row["sid"]} [label="{label}"];')
    w = edge_weights(summary)
    top = w.max() if len(w) else 1.0
    for (s, d), x in zip(summary.edges[["src", "dst"]].itertuples(index=False), w,
                         strict=True):
        width = 1.0 + 5.0 * x / top if top > 0 else 1.0
        lines.append(f'  {sids[int(s)]} -> {sids[int(d)]} [label="{readable(float(x))}", '
                     f"penwidth={width:.2f}];")
    lines.append("}")
    return "\n".join(lines)


def summary_roots(summary: Summary) -> list[int]:
    """Partitions taken as tree roots when the unit table is not at hand.

    Those without an edge from another partition, and S1 (it holds the first
    document's root element).

    >>> from graphprum.units import UnitTable
    >>> from graphprum.summaries.axpre import build_summary
    >>> summary_roots(build_summary(UnitTable.from_tree("d", ["a", "b"], [-1, 0]), "p*"))
    [0]
    """
    e = summary.edges
    has_parent = set(e["dst"][e["src"] != e["dst"]].astype(int).tolist())
    return sorted({0} | {i for i in range(len(summary)) if i not in has_parent}) \
        if len(summary) else []


def partition_tree(summary: Summary, roots: Iterable[int]) -> tuple[list[int], list[int]]:
    """Tree parent and depth of every partition, for drawing.

    Depth is the breadth-first distance in the summary graph from the
    ``roots`` (the partitions holding document roots); the tree parent of a
    partition at depth d > 0 is, among its parent partitions at depth d - 1,
    the one with the largest edge count (the smallest index on a tie).  A
    partition that cannot be reached gets depth 0 and parent -1.

    >>> from graphprum.units import UnitTable
    >>> from graphprum.summaries.axpre import build_summary
    >>> t = UnitTable.from_tree("d", ["a", "b", "c", "b", "c"], [-1, 0, 1, 0, 3])
    >>> partition_tree(build_summary(t, "label"), [0])
    ([-1, 0, 1], [0, 1, 2])
    """
    g = len(summary)
    e = summary.edges
    out: list[list[tuple[int, int]]] = [[] for _ in range(g)]
    for s, d, c in zip(e["src"].astype(int).tolist(), e["dst"].astype(int).tolist(),
                       e["count"].astype(int).tolist(), strict=True):
        if s != d:
            out[s].append((d, c))
    depth = [-1] * g
    parent = [-1] * g
    frontier = sorted({int(r) for r in roots})
    for r in frontier:
        depth[r] = 0
    level = 0
    while frontier:
        found: dict[int, tuple[int, int]] = {}  # partition -> (edge count, parent)
        for s in frontier:  # in index order; only a larger count replaces
            for d, c in out[s]:
                if depth[d] == -1 and (d not in found or c > found[d][0]):
                    found[d] = (c, s)
        level += 1
        for d, (_, s) in found.items():
            depth[d], parent[d] = level, s
        frontier = sorted(found)
    return parent, [max(x, 0) for x in depth]


def short_label(axpre: str, key: str) -> str:
    """A key without the label path above the partition (``p*``, ``p*|c``).

    In a drawn tree the parent partition already shows that path.

    >>> short_label("p*", "/a/b"), short_label("p*|c", "/a/b(c,d)"), short_label("c", "b(c)")
    ('b', 'b(c,d)', 'b(c)')
    """
    if axpre == "p*":
        return key.rsplit("/", 1)[-1]
    if axpre == "p*|c":
        path, paren, rest = key.partition("(")
        return path.rsplit("/", 1)[-1] + paren + rest
    return key


@dataclass
class Outline:
    """The rows of a drawn summary outline (see :func:`outline`)."""

    rows: list[int]  # partitions, in drawing order (depth first, children in SID order)
    depth: list[int]  # tree depth of each row
    parent: list[int]  # tree parent of each row's partition (-1 for none)
    top: set[int]  # the partitions of largest π (the others are their ancestors)
    hidden_edges: int  # summary edges between drawn partitions that are not tree edges


def outline(summary: Summary, max_nodes: int, roots: Iterable[int] | None = None) -> Outline:
    """The ``max_nodes`` partitions of largest π with their tree ancestors, as rows.

    >>> from graphprum.units import UnitTable
    >>> from graphprum.summaries.axpre import build_summary
    >>> s = build_summary(UnitTable.from_tree("d", ["a", "b", "c", "b"], [-1, 0, 1, 0]), "p*")
    >>> o = outline(s, 1)
    >>> o.rows, o.depth, sorted(o.top)
    ([0, 1], [0, 1], [1])
    """
    g = len(summary)
    parent, depth = partition_tree(summary, summary_roots(summary) if roots is None else roots)
    top = set(np.argsort(-np.asarray(summary.pi), kind="stable")[:max_nodes].tolist())
    drawn = set()
    for n in top:
        while n >= 0 and n not in drawn:
            drawn.add(n)
            n = parent[n]
    kids: dict[int, list[int]] = {n: [] for n in drawn}
    starts: list[int] = []
    for n in sorted(drawn):
        (kids[parent[n]] if parent[n] >= 0 else starts).append(n)
    rows: list[int] = []
    stack = list(reversed(starts))
    while stack:
        n = stack.pop()
        rows.append(n)
        stack.extend(reversed(kids[n]))
    e = summary.edges
    hidden = sum(1 for s, d in zip(e["src"].astype(int), e["dst"].astype(int), strict=True)
                 if s in drawn and d in drawn and parent[d] != s)
    del g
    return Outline(rows, [depth[n] for n in rows], [parent[n] for n in rows], top, hidden)


#: Partitions of largest π drawn in the PNG (their tree ancestors are added).
PNG_PARTITIONS = 40

_FONT = 9.0  # points
_CHAR = 0.6 * _FONT / 72  # inches: advance of DejaVu Sans Mono
_ROW = 0.25  # inches
_INDENT = 2  # characters per tree level
_BAR = 1.6  # inches for the largest π


def outline_figure(summary: Summary, max_nodes: int = PNG_PARTITIONS, title: str | None = None,
                   roots: Iterable[int] | None = None) -> tuple[Any, list[Any], Outline]:
    """The PNG's figure: one row per partition, indented under its tree parent.

    Columns: SID, the partition (its key without the path the rows above
    show), extent, parent-child element pairs from the row's tree parent,
    and π with a bar.  Sizes are computed from a monospace font, so no text
    can overlap.  Returns the figure, its text artists and the outline.
    """
    layout = _layout(summary, max_nodes, title, roots)
    fig, texts = _draw(layout)
    return fig, texts, layout.outline


_MARGIN = 0.3  # inches, left and right
_HEADS = ["SID", "partition", "extent", "pairs", "π"]
_RIGHT = [False, False, True, True, True]  # the columns aligned right


@dataclass
class _Layout:
    """Where :func:`outline_figure` puts everything, in inches from the
    figure's top left (y grows downwards); computed without matplotlib."""

    outline: Outline
    width: float  # before a title or note longer than the table widens it
    height: float
    title: str
    cells: list[list[str]]  # per row: SID, partition, extent, pairs, π (as _HEADS)
    text_x: list[float]  # per column: x of its texts' left end (right end if _RIGHT)
    head_y: float  # y of the column heads; the rule under them ends at x = rule_end
    rule_end: float
    row_y: list[float]
    bars: list[tuple[float, float, float, float]]  # per row: x, y, width, height of π's bar
    elbows: list[tuple[list[float], list[float]] | None]  # per row: xs, ys from its parent's row
    notes: list[tuple[float, str]]  # y and text of each note under the table


def _layout(summary: Summary, max_nodes: int, title: str | None,
            roots: Iterable[int] | None) -> _Layout:
    """The rows of the outline of ``summary``, their texts and where they go."""
    o = outline(summary, max_nodes, roots)
    cells = _cells(summary, o)
    widths = [max(len(h), *(len(row[k]) for row in cells)) if cells else len(h)
              for k, h in enumerate(_HEADS)]  # characters
    gap = 3
    x_col = [_MARGIN]
    for w in widths[:-1]:
        x_col.append(x_col[-1] + (w + gap) * _CHAR)
    text_x = [x + (w * _CHAR if right else 0) for x, w, right in zip(x_col, widths, _RIGHT,
                                                                      strict=True)]
    bar_x = x_col[-1] + (widths[-1] + 1) * _CHAR
    head, notes = _captions(summary, o, title)
    y0 = 0.75  # below the title
    height = y0 + _ROW * (len(o.rows) + 1) + 0.25 + 0.2 * len(notes)
    pi = np.asarray(summary.pi)
    top_pi = max((float(pi[n]) for n in o.rows), default=0.0) or 1.0
    row_y, bars, elbows = [], [], []
    y_of: dict[int, float] = {}
    for r, n in enumerate(o.rows):
        y = y0 + _ROW * (r + 1)
        y_of[n] = y
        row_y.append(y)
        bars.append((bar_x, y - _ROW * 0.3, _BAR * float(pi[n]) / top_pi, _ROW * 0.6))
        p = o.parent[r]
        x = x_col[1] + (_INDENT * o.depth[r] - 1.5) * _CHAR
        elbows.append(([x, x, x + 1.2 * _CHAR], [y_of[p] + _ROW * 0.35, y, y])
                      if p >= 0 and p in y_of else None)
    return _Layout(o, max(bar_x + _BAR + _MARGIN, 7.0), height, head, cells, text_x, y0,
                   bar_x + _BAR, row_y, bars, elbows,
                   [(height - 0.2 * (len(notes) - k) - 0.05, note)
                    for k, note in enumerate(notes)])


def _cells(summary: Summary, o: Outline) -> list[list[str]]:
    """The texts of each row of ``o``: SID, partition (indented under its
    tree parent, at most 48 characters), extent, element pairs from its
    tree parent, π."""
    keys = summary.partitions["key"].tolist()
    extent = summary.partitions["extent"].to_numpy()
    pi = np.asarray(summary.pi)
    pairs = {(int(s), int(d)): int(c) for s, d, c in
             summary.edges[["src", "dst", "count"]].itertuples(index=False)}
    cells = []
    for n, dep, p in zip(o.rows, o.depth, o.parent, strict=True):
        text = short_label(summary.axpre, keys[n])
        label = " " * (_INDENT * dep) + (text if len(text) <= 48 else text[:47] + "…")
        cells.append([summary.sids[n], label, f"{int(extent[n]):,}",
                      f"{pairs[(p, n)]:,}" if p >= 0 else "", f"{pi[n]:.4f}"])
    return cells


def _captions(summary: Summary, o: Outline, title: str | None) -> tuple[str, list[str]]:
    """The title (``title``, else what the rows show) and the notes."""
    g = len(summary)
    shown = len(o.top)
    head = title or (f"{summary.axpre} summary: the {shown} partitions of largest π"
                     + (f" of {g:,}" if g > shown else "")
                     + (", with their ancestors in grey" if len(o.rows) > shown else ""))
    notes = [f"π: steady state under weight {summary.weight}; pairs: parent–child element "
             f"pairs from the partition it is indented under."]
    if o.hidden_edges:
        notes.append(f"{o.hidden_edges} other summary edges between these partitions are not "
                     f"drawn; every partition and edge: summary show {summary.axpre} -f html.")
    return head, notes


def _draw(layout: _Layout) -> tuple[Any, list[Any]]:
    """The figure of ``layout`` and its text artists (matplotlib, Agg),
    widened when the title or a note (proportional font) is longer than
    the table."""
    import matplotlib  # ~0.3 s of import: the PNG only; Agg before pyplot

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt  # after the backend is chosen

    top = layout.outline.top
    width_in, height_in = layout.width, layout.height
    fig = plt.figure(figsize=(width_in, height_in), dpi=100)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width_in)
    ax.set_ylim(height_in, 0)
    ax.axis("off")
    texts = [ax.text(_MARGIN, 0.35, layout.title, fontsize=11, va="center", ha="left",
                     weight="bold")]
    mono: dict[str, Any] = {"family": "DejaVu Sans Mono", "size": _FONT, "va": "center"}
    for x, head, right in zip(layout.text_x, _HEADS, _RIGHT, strict=True):
        texts.append(ax.text(x, layout.head_y, head, ha="right" if right else "left",
                             color="#5b6475", **mono))
    ax.plot([_MARGIN, layout.rule_end], [layout.head_y + _ROW / 2] * 2, color="#d5dae3", lw=0.8)
    for r, n in enumerate(layout.outline.rows):
        ink = "#1d2330" if n in top else "#8a93a3"
        for x, cell, right in zip(layout.text_x, layout.cells[r], _RIGHT, strict=True):
            texts.append(ax.text(x, layout.row_y[r], cell, ha="right" if right else "left",
                                 color=ink, **mono))
        x, y, w, h = layout.bars[r]
        ax.add_patch(matplotlib.patches.Rectangle(
            (x, y), w, h, color="#2166ac" if n in top else "#b9c3d0", lw=0))
        elbow = layout.elbows[r]
        if elbow is not None:  # from the parent's row
            ax.plot(*elbow, color="#9aa8ba", lw=0.8)
    for y, note in layout.notes:
        texts.append(ax.text(_MARGIN, y, note, fontsize=8, color="#5b6475", va="center"))
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]  # the Agg canvas's
    right_in = max(t.get_window_extent(renderer).x1 for t in texts) / fig.dpi
    if right_in > width_in - _MARGIN:
        width_in = right_in + _MARGIN
        fig.set_size_inches(width_in, height_in)
        ax.set_xlim(0, width_in)
    return fig, texts


def to_png(summary: Summary, path: str | os.PathLike[str], max_nodes: int = PNG_PARTITIONS,
           title: str | None = None, roots: Iterable[int] | None = None) -> list[str]:
    """Draw the summary as an indented outline to a PNG file (matplotlib, Agg).

    The ``max_nodes`` partitions of largest π are drawn with their tree
    ancestors (in grey), one row each (see :func:`outline_figure`).  Returns
    the SIDs drawn, in drawing order.
    """
    import matplotlib.pyplot as plt  # as in outline_figure

    fig, _, o = outline_figure(summary, max_nodes, title, roots)
    fig.savefig(path)
    plt.close(fig)
    return [summary.sids[n] for n in o.rows]
