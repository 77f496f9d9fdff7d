"""Views of a summary for ``graphprum summary show``: rows, JSON, DOT and PNG.

Examples
--------
>>> from graphprum.units import UnitTable
>>> from graphprum.summaries.axpre import build_summary
>>> s = build_summary(UnitTable.from_tree("d", ["a", "b", "b"], [-1, 0, 0], [4, 1, 3]), "p*")
>>> table_rows(s)
[{'sid': 'S1', 'key': '/a', 'extent': 1, 'length': 4.0, 'pi': 0.5}, \
{'sid': 'S2', 'key': '/a/b', 'extent': 2, 'length': 4.0, 'pi': 0.5}]
>>> print(to_dot(s))  # doctest: +NORMALIZE_WHITESPACE
digraph "p*" {
  rankdir=TB;
  node [shape=box, style="rounded,filled", fillcolor="#dbe9f6", fontname="Helvetica"];
  S1 [label="S1\\n/a\\nextent 1  π 0.5000"];
  S2 [label="S2\\n/a/b\\nextent 2  π 0.5000"];
  S1 -> S2 [label="2", penwidth=6.00];
}
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from graphprum.summaries.axpre import Summary


def table_rows(summary: Summary) -> list[dict[str, Any]]:
    """One dict per partition: ``sid``, ``key``, ``extent``, ``length``, ``pi``."""
    p = summary.partitions
    return [{"sid": sid, "key": key, "extent": int(ext), "length": float(length),
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
    edges = [{"src": sids[int(s)], "dst": sids[int(d)], "count": int(c), "length": float(x)}
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
                f"π {row['pi']:.4f}"
        lines.append(f'  {row["sid"]} [label="{label}"];')
    w = edge_weights(summary)
    top = w.max() if len(w) else 1.0
    for (s, d), x in zip(summary.edges[["src", "dst"]].itertuples(index=False), w,
                         strict=True):
        width = 1.0 + 5.0 * x / top if top > 0 else 1.0
        lines.append(f'  {sids[int(s)]} -> {sids[int(d)]} [label="{x:g}", '
                     f"penwidth={width:.2f}];")
    lines.append("}")
    return "\n".join(lines)


def _layout(summary: Summary, nodes: list[int]) -> dict[int, tuple[float, float]]:
    """Layered tree layout: BFS spanning tree from the root partitions, leaves in SID order."""
    keep = set(nodes)
    e = summary.edges
    kids: dict[int, list[int]] = {n: [] for n in nodes}
    has_parent: set[int] = set()
    for s, d in e[["src", "dst"]].itertuples(index=False):
        s, d = int(s), int(d)
        if s in keep and d in keep and s != d:
            kids[s].append(d)
            has_parent.add(d)
    roots = [n for n in nodes if n not in has_parent] or nodes[:1]
    parent: dict[int, int] = {}
    depth: dict[int, int] = {}
    order: list[int] = []
    for r in sorted(roots):
        if r in depth:
            continue
        depth[r] = 0
        queue = [r]
        while queue:
            x = queue.pop(0)
            order.append(x)
            for c in sorted(kids[x]):
                if c not in depth:
                    depth[c] = depth[x] + 1
                    parent[c] = x
                    queue.append(c)
    for n in nodes:  # partitions only reachable through cycles
        if n not in depth:
            depth[n] = 0
            order.append(n)
    tree_kids: dict[int, list[int]] = {n: [] for n in nodes}
    for c, p in parent.items():
        tree_kids[p].append(c)
    x_of: dict[int, float] = {}
    cursor = [0.0]

    def place(n: int) -> None:
        stack = [(n, False)]
        while stack:
            v, done = stack.pop()
            ch = sorted(tree_kids[v])
            if done or not ch:
                if ch:
                    x_of[v] = sum(x_of[c] for c in ch) / len(ch)
                else:
                    x_of[v] = cursor[0]
                    cursor[0] += 1.0
                continue
            stack.append((v, True))
            stack.extend((c, False) for c in reversed(ch))

    for n in order:
        if n not in parent and n not in x_of:
            place(n)
    return {n: (x_of[n], -float(depth[n])) for n in nodes}


def to_png(summary: Summary, path: str | os.PathLike[str], max_nodes: int = 60,
           title: str | None = None) -> list[str]:
    """Draw the summary graph to a PNG file (networkx + matplotlib, Agg backend).

    Node area grows with the extent, edge width with the edge weight, labels
    show SID, key and π.  Only the ``max_nodes`` partitions of largest π are
    drawn when the summary is larger.  Returns the SIDs drawn.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    import networkx as nx

    g = len(summary)
    pi = np.asarray(summary.pi)
    nodes = sorted(np.argsort(-pi, kind="stable")[:max_nodes].tolist()) if g > max_nodes \
        else list(range(g))
    keep = set(nodes)
    graph = nx.DiGraph()
    sids = summary.sids
    keys = summary.partitions["key"].tolist()
    extent = summary.partitions["extent"].to_numpy()
    for n in nodes:
        key = keys[n] if len(keys[n]) <= 28 else "…" + keys[n][-27:]
        graph.add_node(n, label=f"{sids[n]}\n{key}\n|{int(extent[n])}|  π={pi[n]:.3f}")
    weights = edge_weights(summary)
    for (s, d), w in zip(summary.edges[["src", "dst"]].itertuples(index=False), weights,
                         strict=True):
        if int(s) in keep and int(d) in keep:
            graph.add_edge(int(s), int(d), weight=float(w))
    pos = _layout(summary, nodes)
    xs = [p[0] for p in pos.values()] or [0.0]
    ys = [p[1] for p in pos.values()] or [0.0]
    width = max(6.0, 2.6 * (max(xs) - min(xs) + 1))
    height = max(4.0, 2.0 * (max(ys) - min(ys) + 1))
    fig, ax = plt.subplots(figsize=(min(width, 40.0), min(height, 30.0)), dpi=100)
    sizes = 250 + 1400 * np.sqrt(extent[nodes] / max(extent[nodes].max(), 1))
    ew = [graph.edges[e]["weight"] for e in graph.edges]
    top = max(ew) if ew else 1.0
    nx.draw_networkx_edges(graph, pos, ax=ax, width=[0.8 + 5 * w / top for w in ew],
                           edge_color="#8fa3b8", arrows=True, arrowsize=14,
                           node_size=sizes.tolist(), nodelist=nodes)
    nx.draw_networkx_edge_labels(graph, pos, ax=ax, font_size=8, label_pos=0.72,
                                 edge_labels={e: f"{graph.edges[e]['weight']:g}"
                                              for e in graph.edges})
    nx.draw_networkx_nodes(graph, pos, ax=ax, nodelist=nodes, node_size=sizes.tolist(),
                           node_color=pi[nodes].tolist(), cmap="Blues", vmin=0,
                           vmax=max(float(pi.max()) if g else 1.0, 1e-9) * 1.2,
                           edgecolors="#34495e")
    below = {n: (x, y - 0.36) for n, (x, y) in pos.items()}
    nx.draw_networkx_labels(graph, below, ax=ax, font_size=8,
                            labels={n: graph.nodes[n]["label"] for n in nodes},
                            bbox={"boxstyle": "round,pad=0.25", "fc": "white", "ec": "#bbbbbb",
                                  "alpha": 0.9})
    shown = f" ({len(nodes)} of {g} partitions, largest π)" if g > len(nodes) else ""
    what = summary.weight if summary.weight in ("count", "length") else "count"
    ax.set_title(title or f"{summary.axpre} summary: node size = extent, colour = π "
                 f"(weight {summary.weight}), edges = {what}{shown}", fontsize=10)
    ax.margins(0.15)
    ax.axis("off")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return [sids[n] for n in nodes]
