"""The moves of a store's units as compressed rows, and the part of them a
walk of at most K steps from some sources into some targets can use.

A user reading unit x sees every link in x's text: the *out-links of x* are
the LINK edges held in x's subtree (multiplicity counted), those of a page
or a document its links anywhere in it.  A link *arrives* at the row the
store resolved it to: the target document's root, or the element its
fragment names (:func:`names_fragment`).  Rows of a document are contiguous
and in preorder, so x's subtree is the row interval ``[x, x + size[x])``
and, with the links sorted by the row that holds them, x's out-links are
one range of them: ``out_dst[out_ptr[x]:out_ptr[x + size[x]]]``.

:class:`LinkGraph` keeps the resolved links by holding row (``out_ptr``,
``out_dst``) and by arrival row (``in_ptr``, ``in_src``), with the tree's
``size`` and ``parent`` columns.  A walk moves along a link, and in a
*structure* walk (the ``browse`` model) also to a child or to the parent.
:meth:`LinkGraph.walk` finds the units a walk of at most K steps from the
sources into the targets can visit: every such walk's first ``a`` units
lie within ``a`` steps forwards of a source and the others within
``K - 1 - a`` steps backwards of a target, so it expands the cheaper side
one step at a time (K - 1 expansions in all, each a few numpy calls over
the frontier), builds the one-step moves on that set and keeps the units
on a walk of at most K moves (distance from the sources plus distance to
the targets).  Links leaving the set still count in the out-degree (they
are where the walk's remaining probability goes).

The embedded store answers ``link_walk`` with a :class:`LinkGraph` (its
compressed rows are written with each generation and memory-mapped; the
reference memory store answers it with a plain breadth-first search); a
graph server answers it with the queries of ``cypher/nav/``
(:func:`graph_walk`), one backward step at a time.

Examples
--------
>>> g = LinkGraph.build(np.array([0, 0, 0, 1]), np.array([1, 1, 2, 2]))
>>> w = g.walk(np.array([0]), np.array([1, 2]), hops=1)
>>> w.sources.tolist(), w.targets.tolist()
([0], [1, 2])
>>> w.transitions.toarray().round(4).tolist()
[[0.0, 0.6667, 0.3333], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]

A document of rows 0-2 (0 holds 1 and 2; the link is in 2) and a page 3:
the root 0 holds the link of its paragraph 2.

>>> g = LinkGraph.build(np.array([2]), np.array([3]), n=4,
...                     size=np.array([3, 1, 1, 1]), parent=np.array([-1, 0, 0, -1]))
>>> g.out_degree.tolist(), g.holders(np.array([3])).tolist()
([1, 0, 1, 0], [0, 2])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from graphprum.store.base import LinkWalk

if TYPE_CHECKING:
    import scipy.sparse as sp

def names_fragment(tag: str, attribute: str) -> bool:
    """Whether ``attribute`` of a ``tag`` element is the name a link's
    fragment (``doc#NAME``) gives it: ``id`` or ``xml:id`` (XML, XHTML and
    HTML), or ``name`` of an HTML ``<a>`` (the old anchors).

    >>> names_fragment("section", "id"), names_fragment("a", "name"), names_fragment("p", "name")
    (True, True, False)
    """
    return attribute in ("id", "xml:id") or (attribute == "name" and tag == "a")


def named_rows(tags: Sequence[str],
               attributes: Iterable[tuple[int, Mapping[str, str]]]) -> dict[str, int]:
    """The row of a document that each fragment names (:func:`names_fragment`;
    the first in document order), from its units' tags and attributes
    (``ParsedDocument.attributes``: ``(row, {name: value})``).

    >>> named_rows(["doc", "sec", "a", "p"], [(3, {"id": "x"}), (1, {"id": "x"}),
    ...                                       (2, {"name": "y"}), (3, {"name": "z"})])
    {'x': 1, 'y': 2}
    """
    named: dict[str, int] = {}
    for row, values in attributes:
        for name, value in values.items():
            if names_fragment(tags[row], name) and row < named.get(value, row + 1):
                named[value] = row
    return named


def concat_ranges(lo: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(lo[i], lo[i] + counts[i])`` over i, without a loop.

    >>> concat_ranges(np.array([5, 0, 2]), np.array([2, 0, 3])).tolist()
    [5, 6, 2, 3, 4]
    """
    keep = counts > 0
    lo, counts = lo[keep].astype(np.int64), counts[keep].astype(np.int64)
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    # steps of +1 inside a run; at a run's head, the jump from the last item before it
    steps = np.ones(total, dtype=np.int64)
    heads = np.cumsum(counts)[:-1]
    steps[0] = lo[0]
    steps[heads] = lo[1:] - (lo[:-1] + counts[:-1] - 1)
    return np.cumsum(steps)


def _ranges(indptr: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(indptr[v], indptr[v+1])`` for every v in ``nodes``."""
    lo = np.asarray(indptr[nodes], dtype=np.int64)
    return concat_ranges(lo, np.asarray(indptr[nodes + 1], dtype=np.int64) - lo)


def index_in(nodes: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Index of every row in sorted ``nodes``, -1 where absent (or row < 0).

    >>> index_in(np.array([2, 5]), np.array([5, 3, -1])).tolist()
    [1, -1, -1]
    """
    rows = np.asarray(rows, dtype=np.int64)
    if len(nodes) == 0:
        return np.full(len(rows), -1, dtype=np.int64)
    j = np.searchsorted(nodes, rows)
    j[j >= len(nodes)] = 0
    return np.where((nodes[j] == rows) & (rows >= 0), j, -1)


def csr_offsets(keys: np.ndarray, n: int) -> np.ndarray:
    """Offsets of compressed rows over ``n`` rows from the row of every item
    (the items themselves in row order; int32 offsets when they fit).

    >>> csr_offsets(np.array([0, 0, 2]), 4).tolist()
    [0, 2, 2, 3, 3]
    """
    counts = np.bincount(np.asarray(keys, dtype=np.int64), minlength=n)[:n]
    dtype = np.int32 if len(keys) < 2**31 else np.int64
    out = np.zeros(n + 1, dtype=dtype)
    np.cumsum(counts, out=out[1:])
    return out


def small_rows(rows: np.ndarray) -> np.ndarray:
    """Rows as int32 when they fit, else int64 (half the memory of a large
    link list).

    >>> small_rows(np.array([3, -1])).dtype, small_rows(np.array([2**40])).dtype
    (dtype('int32'), dtype('int64'))
    """
    rows = np.asarray(rows)
    if not len(rows) or (int(rows.max()) < 2**31 and int(rows.min()) >= -(2**31)):
        return rows.astype(np.int32, copy=False)
    return rows.astype(np.int64, copy=False)


@dataclass
class LinkGraph:
    """Resolved LINK edges by the row holding them and by the row they
    arrive at, with the tree they live in (see the module notes).

    Attributes
    ----------
    n : int
        Number of rows covered.
    out_ptr, out_dst : numpy.ndarray
        Arrival rows of the links held by rows ``[a, b)`` are
        ``out_dst[out_ptr[a]:out_ptr[b]]``.
    in_ptr, in_src : numpy.ndarray
        Rows holding the links that arrive at row v are
        ``in_src[in_ptr[v]:in_ptr[v+1]]``.
    size : numpy.ndarray or None
        Units in every row's subtree (None: every row is a page of its own).
    parent : numpy.ndarray or None
        Parent row of every row, -1 for a root (None: no row has one).

    Examples
    --------
    >>> g = LinkGraph.build(np.array([0, 0, 2]), np.array([1, 2, 1]))
    >>> g.out_degree.tolist(), g.predecessors(np.array([1])).tolist()
    ([2, 0, 1], [0, 2])
    """

    n: int
    out_ptr: np.ndarray
    out_dst: np.ndarray
    in_ptr: np.ndarray
    in_src: np.ndarray
    size: np.ndarray | None = None
    parent: np.ndarray | None = None

    @classmethod
    def build(cls, src: np.ndarray, dst: np.ndarray, n: int | None = None,
              size: np.ndarray | None = None, parent: np.ndarray | None = None) -> LinkGraph:
        """From parallel arrays of rows, one item per link (links with
        ``dst < 0`` are dropped); ``n`` defaults to one more than the largest row."""
        src = np.asarray(src, dtype=np.int64)
        dst = np.asarray(dst, dtype=np.int64)
        keep = dst >= 0
        if not keep.all():
            src, dst = src[keep], dst[keep]
        if n is None:
            n = int(max(src.max(initial=-1), dst.max(initial=-1))) + 1
        if len(src) > 1 and not np.all(src[1:] >= src[:-1]):
            order = np.argsort(src, kind="stable")
            src, dst = src[order], dst[order]
        by_dst = np.argsort(dst, kind="stable")
        return cls(n, csr_offsets(src, n), small_rows(dst), csr_offsets(dst[by_dst], n),
                   small_rows(src[by_dst]), size, parent)

    # ------------------------------------------------------------ one step
    def _ends(self, rows: np.ndarray) -> np.ndarray:
        """One past the last row of every row's subtree (clipped to ``n``)."""
        if self.size is None:
            return rows + 1
        return np.asarray(np.minimum(rows + np.asarray(self.size[rows], dtype=np.int64), self.n),
                          dtype=np.int64)

    def held(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(lo, hi)``: the links held in each row's subtree are
        ``out_dst[lo:hi]`` (rows >= n hold none)."""
        rows = np.asarray(rows, dtype=np.int64)
        inside = rows < self.n
        lo = np.asarray(self.out_ptr[np.minimum(rows, self.n)], dtype=np.int64)
        hi = lo.copy()
        if inside.any():
            hi[inside] = self.out_ptr[self._ends(rows[inside])]
        return lo, hi

    @property
    def out_degree(self) -> np.ndarray:
        """Out-links of every row: the links held in its subtree."""
        lo, hi = self.held(np.arange(self.n))
        return np.asarray(hi - lo, dtype=np.int64)

    def arrivals(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(holder, arrival)`` of every link held in each row's subtree."""
        lo, hi = self.held(rows)
        return np.repeat(np.asarray(rows, dtype=np.int64), hi - lo), \
            np.asarray(self.out_dst[concat_ranges(lo, hi - lo)], dtype=np.int64)

    def predecessors(self, nodes: np.ndarray) -> np.ndarray:
        """Rows holding the links into ``nodes`` themselves (with repeats;
        rows >= n have none)."""
        nodes = np.asarray(nodes, dtype=np.int64)
        nodes = nodes[nodes < self.n]
        return np.asarray(self.in_src[_ranges(self.in_ptr, nodes)], dtype=np.int64)

    def holders(self, nodes: np.ndarray) -> np.ndarray:
        """Sorted rows whose subtree holds a link into ``nodes``: the rows
        holding those links and all their ancestors."""
        rows = np.unique(self.predecessors(nodes))
        return np.unique(np.concatenate([rows, self.ancestors(rows)]))

    def ancestors(self, rows: np.ndarray) -> np.ndarray:
        """Every proper ancestor of ``rows`` (with repeats)."""
        if self.parent is None:
            return np.zeros(0, dtype=np.int64)
        out = []
        up = np.asarray(rows, dtype=np.int64)
        while len(up):
            up = np.asarray(self.parent[up], dtype=np.int64)
            up = np.unique(up[up >= 0])
            out.append(up)
        return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)

    def children(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(parent, child)`` of every child of ``rows`` (a scan of their subtrees)."""
        rows = np.asarray(rows, dtype=np.int64)
        if self.size is None or self.parent is None or not len(rows):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        rows = rows[rows < self.n]
        inner = np.asarray(self.size[rows], dtype=np.int64) - 1
        below = concat_ranges(rows + 1, inner)
        owner = np.repeat(rows, np.maximum(inner, 0))
        mine = np.asarray(self.parent[below], dtype=np.int64) == owner
        return owner[mine], below[mine]

    def step(self, nodes: np.ndarray, forward: bool, structure: bool) -> np.ndarray:
        """Rows one move away from ``nodes`` (forwards: where a user at them
        may go; backwards: where a user may come from)."""
        parts = [self.arrivals(nodes)[1] if forward else self.holders(nodes)]
        if structure:
            parts.append(self.children(nodes)[1])
            if self.parent is not None:
                up = np.asarray(self.parent[nodes[nodes < self.n]], dtype=np.int64)
                parts.append(up[up >= 0])
        return np.unique(np.concatenate(parts))

    def step_cost(self, nodes: np.ndarray, forward: bool, structure: bool) -> int:
        """Items :meth:`step` would enumerate (to pick the cheaper side)."""
        nodes = nodes[nodes < self.n]
        if forward:
            lo, hi = self.held(nodes)
            cost = int((hi - lo).sum())
        else:
            cost = int((np.asarray(self.in_ptr[nodes + 1], dtype=np.int64)
                        - np.asarray(self.in_ptr[nodes], dtype=np.int64)).sum())
        if structure and self.size is not None:
            cost += int(np.asarray(self.size[nodes], dtype=np.int64).sum())
        return cost

    # --------------------------------------------------------------- walks
    def backward(self, targets: np.ndarray, hops: int | None,
                 structure: bool = False) -> np.ndarray:
        """Sorted rows from which a target is reachable in at most ``hops`` moves."""
        seen = np.unique(np.asarray(targets, dtype=np.int64))
        frontier = seen
        k = 0
        while len(frontier) and (hops is None or k < hops):
            frontier = np.setdiff1d(self.step(frontier, False, structure), seen,
                                    assume_unique=True)
            seen = np.union1d(seen, frontier)
            k += 1
        return seen

    def meeting(self, sources: np.ndarray, targets: np.ndarray, hops: int,
                structure: bool = False) -> np.ndarray:
        """Sorted rows that a walk of at most ``hops`` moves from a source
        into a target can visit (module notes): ``hops - 1`` expansions,
        each of the side whose frontier is cheaper to step from."""
        sides = [np.unique(sources), np.unique(targets)]
        fronts = list(sides)
        for _ in range(hops - 1):
            costs = [self.step_cost(fronts[k], k == 0, structure) if len(fronts[k]) else -1
                     for k in (0, 1)]
            if max(costs) < 0:
                break
            k = 0 if costs[0] >= 0 and (costs[1] < 0 or costs[0] <= costs[1]) else 1
            new = np.setdiff1d(self.step(fronts[k], k == 0, structure), sides[k],
                               assume_unique=True)
            sides[k] = np.union1d(sides[k], new)
            fronts[k] = new
        return np.union1d(sides[0], sides[1])

    def transitions(self, nodes: np.ndarray, beta: float) -> sp.csr_array:
        """Link moves restricted to sorted ``nodes``: B · (links held in x's
        subtree arriving at z) / (links held in x's subtree)."""
        import scipy.sparse as sp  # walks only: stores are opened without scipy

        m = len(nodes)
        lo, hi = self.held(nodes)
        count = hi - lo
        i = np.repeat(np.arange(m), count)
        j = index_in(nodes, np.asarray(self.out_dst[concat_ranges(lo, count)], dtype=np.int64))
        keep = j >= 0
        if not keep.any():
            return sp.csr_array((m, m))
        w = beta / count[i[keep]]
        return sp.csr_array(sp.coo_array((w, (i[keep], j[keep])), shape=(m, m)).tocsr())

    def walk(self, src: np.ndarray, tgt: np.ndarray, hops: int | None,
             structure: bool = False) -> LinkWalk:
        """The neighbourhood of walks of at most ``hops`` moves (None: any)
        from rows ``src`` into rows ``tgt`` (rows < 0 are unknown units);
        with ``structure`` a move may also go to a child or to the parent."""
        import scipy.sparse as sp  # walks only: stores are opened without scipy

        src = np.asarray(src, dtype=np.int64)
        tgt = np.asarray(tgt, dtype=np.int64)
        known = np.unique(tgt[tgt >= 0])
        if not len(known):
            nodes = known
        elif hops is None:
            nodes = self.backward(known, None, structure)
        else:
            nodes = self.meeting(np.unique(src[src >= 0]), known, hops, structure)
        transitions = self.transitions(nodes, 1.0)
        parents, children = self._tree_among(nodes) if structure else (None, None)
        if hops is not None and len(nodes):  # only the units on a short enough walk
            keep = _on_walks(_moves_among(transitions, parents), index_in(nodes, src),
                             index_in(nodes, tgt), hops)
            if not keep.all():
                nodes = nodes[keep]
                transitions = sp.csr_array(transitions[keep][:, keep])
                if parents is not None and children is not None:
                    parents, children = _kept_parents(parents, keep), children[keep]
        lo, hi = self.held(nodes)
        return LinkWalk(index_in(nodes, src), index_in(nodes, tgt), transitions,
                        out_links=hi - lo, parents=parents, children=children)

    def _tree_among(self, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Index of every node's parent among ``nodes`` (-1: a root, -2: a
        parent outside them) and its number of children."""
        if self.parent is None:
            return np.full(len(nodes), -1, dtype=np.int64), np.zeros(len(nodes), dtype=np.int64)
        inside = nodes < self.n
        up = np.full(len(nodes), -1, dtype=np.int64)
        up[inside] = np.asarray(self.parent[nodes[inside]], dtype=np.int64)
        parents = np.where(up >= 0, index_in(nodes, up), -1)
        parents[(up >= 0) & (parents < 0)] = -2
        owner, _ = self.children(nodes)
        children = np.bincount(np.searchsorted(nodes, owner), minlength=len(nodes))
        return parents, children.astype(np.int64)


def _moves_among(transitions: sp.csr_array, parents: np.ndarray | None) -> sp.csr_array:
    """Which nodes a move leads from and to: links, and to parents and children."""
    import scipy.sparse as sp  # walks only: stores are opened without scipy

    moves = sp.csr_array(transitions != 0, dtype=np.int8)
    if parents is not None:
        child = np.flatnonzero(parents >= 0)
        m = moves.shape[0]
        up = sp.csr_array((np.ones(len(child), np.int8), (child, parents[child])), shape=(m, m))
        moves = sp.csr_array(moves + up + up.T)
    return moves


def _on_walks(moves: sp.csr_array, sources: np.ndarray, targets: np.ndarray,
              hops: int) -> np.ndarray:
    """Nodes on some walk of at most ``hops`` moves from a source to a target
    (distance from the sources plus distance to the targets at most ``hops``)."""
    import scipy.sparse as sp  # walks only: stores are opened without scipy

    m = moves.shape[0]

    def distances(seeds: np.ndarray, step: sp.csr_array) -> np.ndarray:
        dist = np.full(m, hops + 1, dtype=np.int64)
        front = np.zeros(m, dtype=bool)
        front[seeds[seeds >= 0]] = True
        dist[front] = 0
        for k in range(1, hops + 1):
            front = ((step @ front.astype(np.int8)) > 0) & (dist > hops)
            if not front.any():
                break
            dist[front] = k
        return dist

    return np.asarray(distances(sources, sp.csr_array(moves.T)) + distances(targets, moves)
                      <= hops, dtype=bool)


def _kept_parents(parents: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """``parents`` (indexes among the nodes) for the nodes ``keep`` leaves:
    a parent left out becomes -2 (outside)."""
    new = np.cumsum(keep) - 1
    out: np.ndarray = parents[keep]
    inside = out >= 0
    out[inside] = np.where(keep[out[inside]], new[out[inside]], -2)
    return out


def graph_walk(query: Callable[..., Sequence[Sequence[Any]]], sources: Sequence[str],
               targets: Sequence[str], hops: int | None, structure: bool = False) -> LinkWalk:
    """:meth:`LinkGraph.walk` answered by a graph database: the backward
    neighbourhood of ``targets`` one ring at a time with
    ``cypher/nav/walk_into.cypher``, then the out-links and children of its
    units with ``cypher/nav/walk_degrees.cypher``.

    ``query(name, "ids", values, structure=...)`` runs the file ``name``
    (under ``cypher/``) with ``$ids`` set to ``values`` (a backend may split
    them into batches) and returns its rows as sequences, in the order the
    file returns them.  Units are ids (nodes in id order): ``hops + 2``
    queries per call, whatever the number of targets.
    """
    import scipy.sparse as sp  # walks only: stores are opened without scipy

    nodes: set[str] = set(targets)
    moves: Counter[tuple[str, str, str]] = Counter()
    frontier = sorted(nodes)
    k = 0
    while frontier:
        expand = hops is None or k < hops
        new: set[str] = set()
        for source, target, move, n in query("nav/walk_into", "ids", frontier,
                                             structure=structure):
            if expand or source in nodes:  # the last ring: only moves among the nodes
                moves[(source, target, move)] += int(n)
                if source not in nodes:
                    new.add(source)
        if not expand:
            break
        nodes |= new
        frontier = sorted(new)
        k += 1
    degrees = {row[0]: row[1:] for row in query("nav/walk_degrees", "ids", sorted(nodes))} \
        if nodes else {}
    order = sorted(degrees)  # ids the store does not hold are no nodes
    index = {u: i for i, u in enumerate(order)}
    m = len(order)
    out_links = np.array([int(degrees[u][1]) for u in order], dtype=np.int64)
    links = [(index[s], index[t], n) for (s, t, move), n in moves.items() if move == "link"]
    transitions = sp.csr_array((m, m))
    if links:
        i = np.array([a for a, _, _ in links], dtype=np.int64)
        j = np.array([b for _, b, _ in links], dtype=np.int64)
        w = np.array([n for _, _, n in links], dtype=np.float64) / out_links[i]
        transitions = sp.csr_array(sp.coo_array((w, (i, j)), shape=(m, m)).tocsr())
    walk = LinkWalk(np.array([index.get(u, -1) for u in sources], dtype=np.int64),
                    np.array([index.get(u, -1) for u in targets], dtype=np.int64),
                    transitions, out_links=out_links)
    if structure:
        parents = np.array([-1 if degrees[u][2] else -2 for u in order], dtype=np.int64)
        for (s, t, move) in moves:
            if move == "child":  # s is t's parent
                parents[index[t]] = index[s]
            elif move == "parent":  # t is s's parent
                parents[index[s]] = index[t]
        walk.parents = parents
        walk.children = np.array([int(degrees[u][0]) for u in order], dtype=np.int64)
    return walk


def degree_summary(src: np.ndarray, dst: np.ndarray, n: int) -> dict[str, dict[str, int | float]]:
    """Out- and in-degree distribution of the units that hold or receive
    links (a unit's own links, not its subtree's): :func:`degree_figures`."""
    degrees = {}
    for label, ends in (("out-degree", src), ("in-degree", dst)):
        deg = np.bincount(np.asarray(ends, dtype=np.int64), minlength=n)
        degrees[label] = deg[deg > 0]
    return degree_figures(degrees)


def degree_figures(degrees: dict[str, np.ndarray]) -> dict[str, dict[str, int | float]]:
    """``info``'s figures of each degree distribution of ``degrees`` (label
    -> the positive degree of every unit that has one), at full precision:
    ``units``, ``mean``, ``median``, ``p90``, ``p99`` (numpy's linear
    percentiles; an integral one as an int) and ``max``; {} without links.
    ``info`` rounds them in its table only.

    >>> degree_figures({"in-degree": np.array([1, 3])})["in-degree"]
    {'units': 2, 'mean': 2.0, 'median': 2, 'p90': 2.8, 'p99': 2.98, 'max': 3}
    """
    if not all(len(has) for has in degrees.values()):
        return {}
    out: dict[str, dict[str, int | float]] = {}
    for label, has in degrees.items():
        q = [float(x) for x in np.percentile(has, [50, 90, 99])]
        out[label] = {"units": len(has), "mean": float(has.mean()),
                      **{k: int(x) if x.is_integer() else x
                         for k, x in zip(("median", "p90", "p99"), q, strict=True)},
                      "max": int(has.max())}
    return out
