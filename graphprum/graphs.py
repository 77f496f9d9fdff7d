"""A store's graphs as :class:`networkx.DiGraph`, for notebooks: a document's
element tree, the link graph (or the K-hop neighbourhood of some units), and
a structural summary.

Everything is read through the :class:`~graphprum.store.base.Store` contract
(``subtree``, ``units``, ``links_of``), so every backend gives the same
graph.  Nodes are unit ids (partition ids ``S1, S2, ...`` for a summary) and
carry the store's fields as attributes: ``kind``, ``tag``, ``label_path``,
``depth``, ``start``, ``end``, ``length``, ``words``, ``text`` (a snippet),
``attributes`` (the element's XML attributes), ...; numbers are Python
numbers.

===================  =======================================================
graph                edges
===================  =======================================================
:func:`document_graph`  parent -> child (``kind="child"``) for every unit of
                     the document
:func:`link_graph`   the LINK edges as stored, from the unit that holds the
                     link (an ``<a>``, a ``<link>``; a page loaded as one
                     unit) to the unit it arrives at; ``count`` = how many
                     links join the two units (a page may link another
                     several times).  Not the walk's out-links, which are
                     every link held in a unit's subtree
:func:`summary_graph`  the summary edges S -> T (an element of S is the
                     parent of one of T), ``count`` and ``length``; nodes
                     carry ``tag``, ``key``, ``extent``, ``length`` and π
                     (``pi``)
===================  =======================================================

The whole link graph reads the out-links of every unit (one ``links_of``
per unit, each holder's own links being its out-links less its
children's): seconds for a site of a few thousand pages; for a large
collection take the neighbourhood of the units at hand (``units=``,
``hops=``).

Examples
--------
>>> import pathlib, tempfile
>>> from graphprum.loading import load_web
>>> from graphprum.store.memory import MemoryStore
>>> site = pathlib.Path(tempfile.mkdtemp())
>>> for name, links in {"a": "bb", "b": "c", "c": "a", "d": "c"}.items():
...     _ = (site / f"{name}.html").write_text(
...         "<p>" + "".join(f'<a href="{t}.html">{t}</a>' for t in links) + "</p>")
>>> store = MemoryStore(); _ = load_web(store, site)
>>> g = link_graph(store)
>>> sorted(g.edges(data="count"))
[('a.html', 'b.html', 2), ('b.html', 'c.html', 1), ('c.html', 'a.html', 1), \
('d.html', 'c.html', 1)]
>>> g.nodes["a.html"]["kind"], g.nodes["a.html"]["words"]
('page', 1)
>>> sorted(link_graph(store, ["a.html"], hops=1))
['a.html', 'b.html']
>>> sorted(link_graph(store, ["a.html"], hops=1, undirected=True))
['a.html', 'b.html', 'c.html']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import networkx as nx

from graphprum.errors import UsageError
from graphprum.floats import json_value
from graphprum.store.base import Store

if TYPE_CHECKING:
    import pandas as pd

    from graphprum.summaries.axpre import Summary

__all__ = ["document_graph", "link_graph", "summary_graph"]


def _attributes(units: pd.DataFrame) -> list[tuple[str, dict[str, Any]]]:
    """(id, fields) of every unit row, numbers as Python numbers, without the
    store's own bookkeeping (``row``) and the parent (an edge instead)."""
    drop = {"id", "row", "parent"}
    columns = [c for c in units.columns if c not in drop]
    return [(str(uid), {c: json_value(v) for c, v in zip(columns, values, strict=True)})
            for uid, *values in units[["id", *columns]].itertuples(index=False, name=None)]


def document_graph(store: Store, doc: str) -> nx.DiGraph:
    """The element tree of document ``doc`` (its name, or any unit id: then
    the subtree under that unit), parent -> child edges in document order.

    >>> import pathlib, tempfile
    >>> from graphprum.loading import load_xml
    >>> from graphprum.store.memory import MemoryStore
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "x.xml").write_text("<a><s><p>one</p><p>two</p></s></a>")
    >>> store = MemoryStore(); _ = load_xml(store, [d / "x.xml"])
    >>> g = document_graph(store, "x")
    >>> list(g.successors("x#/a[1]/s[1]"))
    ['x#/a[1]/s[1]/p[1]', 'x#/a[1]/s[1]/p[2]']
    >>> g.nodes["x#/a[1]/s[1]/p[2]"]["length"], g.graph
    (3.0, {'document': 'x'})
    """
    units = store.subtree(doc)
    g = nx.DiGraph(document=doc)
    g.add_nodes_from(_attributes(units))
    inside = set(g)
    g.add_edges_from((str(p), str(c), {"kind": "child"})
                     for c, p in zip(units["id"], units["parent"], strict=True) if p in inside)
    return g


def link_graph(store: Store, units: Iterable[str] | None = None, *, hops: int = 1,
               undirected: bool = False) -> nx.DiGraph:
    """The LINK graph of the store, or the neighbourhood of ``units``.

    Parameters
    ----------
    store : Store
    units : iterable of str, optional
        Unit ids; by default the whole graph (every unit that holds a link
        or that a link reaches).
    hops : int
        With ``units``: the units within ``hops`` LINK edges of them (0: the
        units alone), and every link among them, as :func:`networkx.ego_graph`.
    undirected : bool
        With ``units``: follow links both ways (in-links too) to find the
        neighbourhood; the edges keep their direction.
    """
    if units is None:
        g = nx.DiGraph()
        for doc in store.documents()["name"].tolist():
            tree = store.subtree(str(doc))
            reach = {str(u): Counter(store.links_of(str(u))[0]) for u in tree["id"].tolist()}
            below: dict[str, Counter[str]] = {}
            for uid, parent in zip(tree["id"].tolist(), tree["parent"].tolist(), strict=True):
                if str(parent) in reach:
                    below.setdefault(str(parent), Counter()).update(reach[str(uid)])
            for uid, out in reach.items():
                _add_out_links(g, uid, out - below.get(uid, Counter()))
        _describe(store, g)
        return g
    if isinstance(hops, bool) or not isinstance(hops, int) or hops < 0:
        raise UsageError(f"hops must be an integer >= 0, got {hops!r}")
    seen = dict.fromkeys(store.units(list(dict.fromkeys(units)))["id"].tolist())
    frontier = list(seen)
    links: dict[str, tuple[Counter[str], list[str]]] = {}
    for _ in range(hops):
        reached: list[str] = []
        for uid in frontier:
            out, into = links.setdefault(uid, _held_links(store, uid))
            reached += [v for v in (list(out) + into if undirected else list(out))
                        if v not in seen]
        frontier = list(dict.fromkeys(reached))
        seen.update(dict.fromkeys(frontier))
    g = nx.DiGraph()
    g.add_nodes_from(seen)
    for uid in seen:
        out = links[uid][0] if uid in links else _held_links(store, uid)[0]
        _add_out_links(g, uid, Counter({v: n for v, n in out.items() if v in seen}))
    _describe(store, g)
    return g


def _held_links(store: Store, uid: str) -> tuple[Counter[str], list[str]]:
    """Arrivals of the links ``uid`` itself holds (a store's out-links are
    those held in the whole subtree: take away the children's), and the
    units whose links arrive at ``uid``."""
    out, into = store.links_of(uid)
    held = Counter(out)
    for child in store.children(uid):
        held -= Counter(store.links_of(child)[0])
    return held, into


def _add_out_links(g: nx.DiGraph, uid: str, targets: Counter[str]) -> None:
    for target, n in targets.items():
        g.add_edge(uid, target, kind="link", count=n)


def _describe(store: Store, g: nx.DiGraph) -> None:
    """Give every node of ``g`` its unit's fields."""
    if len(g):
        g.add_nodes_from(_attributes(store.units(list(g))))


def summary_graph(summary: Summary) -> nx.DiGraph:
    """The summary graph: one node per partition (``S1``, ...), with ``tag``,
    ``key``, ``extent``, ``length`` and ``pi``; an edge S -> T when an
    element of S is the parent of one of T, with ``count`` and ``length``.
    The graph's attributes name the AxPRE and the weighting of π.

    >>> from graphprum.units import UnitTable
    >>> from graphprum.summaries.axpre import build_summary
    >>> s = build_summary(UnitTable.from_tree("d", ["a", "b", "b"], [-1, 0, 0], [4, 1, 3]), "p*")
    >>> g = summary_graph(s)
    >>> g.graph, dict(g.nodes["S2"]), g.edges["S1", "S2"]
    ({'axpre': 'p*', 'weight': 'count'}, \
{'tag': 'b', 'key': '/a/b', 'extent': 2, 'length': 4.0, 'pi': 0.5}, {'count': 2, 'length': 4.0})
    """
    g = nx.DiGraph(axpre=summary.axpre, weight=summary.weight)
    p = summary.partitions
    g.add_nodes_from(
        (str(sid), {"tag": str(tag), "key": str(key), "extent": int(extent),
                    "length": float(length), "pi": float(pi)})
        for sid, tag, key, extent, length, pi in zip(p["sid"], p["tag"], p["key"], p["extent"],
                                                     p["length"], summary.pi, strict=True))
    sids = summary.sids
    e = summary.edges
    g.add_edges_from((sids[int(s)], sids[int(d)], {"count": int(c), "length": float(x)})
                     for s, d, c, x in zip(e["src"], e["dst"], e["count"], e["length"],
                                           strict=True))
    return g
