"""AxPRE partitions of XML elements and their summary graph (DESIGN §1.7).

Two XML elements (``kind == KIND_ELEMENT``) fall in the same partition when
they have the same tag and the same

========  ==============================================================
AXPRE     also the same
========  ==============================================================
``label``  nothing more
``p``      parent's tag (none for a root)
``p*``     incoming label path, root to element
``c``      set of child tags
``p*|c``   incoming label path and set of child tags
``c*``     set of child partitions, recursively (downward bisimulation)
========  ==============================================================

Partitions are numbered ``S1, S2, ...`` in document order of their first
element (global row order).  The summary graph has an edge S -> T when an
element of S is the parent of an element of T, with ``count`` (number of such
element pairs) and ``length`` (total length of those child elements).

Everything is vectorised.  ``p*`` gives every element a code, level by level
from the roots down: the code of an element names the pair (code of its
parent, tag) exactly.  Sets (child tags, child partitions) are hashed as sums
of a 64-bit mixing function over their distinct members; ``c*`` hashes from
the leaves up, level by level of depth, so the hash of an element is a
function of its tag and of the set of its children's hashes.  Every hashed
grouping is then verified exactly (members of a partition have the same set
as its first element), so a hash collision can never merge two partitions
silently.

Weights for the steady state π (SR eq. 8, edge weights used both ways):

``count``   number of parent-child element pairs S -> T;
``length``  total length of the child elements of those pairs;
``extent``  number of ancestor-descendant element pairs (a in S an ancestor
            of d in T).  For ``p*`` this is the extent of T for every
            ancestor partition S of T: the weighting of SR Table 1
            ("weighted by the extent size"), which it reproduces exactly
            (π = (16, 12, 4, 14, 6, 18, 6)/76, ERRATA SR 4);
a file      lines ``SRC DST W`` (partition ids, W >= 0): directed weights;
            π is the stationary distribution of the random walk that moves
            S -> T with probability W(S,T) / sum_U W(S,U)
            (:func:`graphprum.summaries.steady.walk_pi`).

Examples
--------
The tree of SR Fig. 2 (tags abbreviated as in the paper):

>>> from graphprum.units import UnitTable
>>> tags = ["bk", "fm", "d", "n", "m", "m", "d", "n", "n", "d", "n", "n", "n",
...         "bd", "c", "c", "c"]
>>> parents = [-1, 0, 1, 2, 2, 2, 1, 6, 6, 1, 9, 9, 9, 0, 13, 13, 13]
>>> s = build_summary(UnitTable.from_tree("book", tags, parents), "p*")
>>> s.partitions[["sid", "key", "extent"]].values.tolist()  # doctest: +NORMALIZE_WHITESPACE
[['S1', '/bk', 1], ['S2', '/bk/fm', 1], ['S3', '/bk/fm/d', 3], ['S4', '/bk/fm/d/n', 6],
 ['S5', '/bk/fm/d/m', 2], ['S6', '/bk/bd', 1], ['S7', '/bk/bd/c', 3]]
>>> s.partition_of(6)
'S3'
>>> (s.pi * 32).round(6).tolist()   # count weights: edge counts 1, 3, 6, 2, 1, 3
[2.0, 4.0, 11.0, 6.0, 2.0, 4.0, 3.0]
>>> s
<Summary p* (weight count): 7 partitions, 6 edges, 17 elements>
>>> len(build_summary(UnitTable.from_tree("book", tags, parents), "p*|c").partitions)
8
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp

from graphprum.errors import UsageError
from graphprum.summaries.steady import read_weights, symmetric_pi, walk_pi
from graphprum.units import KIND_ELEMENT, UnitTable

#: AxPRE expressions understood by :func:`build_summary`.
AXPRES = ("label", "p", "p*", "c", "p*|c", "c*")
#: Built-in edge weightings (anything else is read as a weights file).
WEIGHTS = ("count", "length", "extent")
#: Version of the layout of :meth:`Summary.to_arrays` (its ``meta``), checked on reading.
FORMAT_VERSION = 1

_U64 = np.uint64


def normalise_axpre(text: str) -> str:
    """The canonical spelling of an AxPRE expression (UsageError if unknown).

    >>> normalise_axpre(" P* | c ")
    'p*|c'
    """
    canon = "".join(text.split()).lower()
    if canon not in AXPRES:
        shell = (" (a file of this directory: did the shell expand a '*'? quote the "
                 "summary: 'p*')" if os.path.exists(text) else "")
        raise UsageError(f"unknown AxPRE summary {text!r}{shell}; known: {', '.join(AXPRES)}")
    return canon


@dataclass(repr=False)
class Summary:
    """An AxPRE partition of the XML elements and its summary graph.

    Attributes
    ----------
    axpre : str
        The AxPRE expression (one of :data:`AXPRES`).
    weight : str
        The weighting used for ``pi``: ``count``, ``length``, ``extent`` or
        the path of a weights file.
    membership : numpy.ndarray
        int32 per global row: 0-based partition index (S1 is 0), -1 for
        units that are not XML elements.
    partitions : pandas.DataFrame
        One row per partition, in SID order: ``sid`` (``S1``...), ``tag``,
        ``key`` (label path or readable defining key), ``extent`` (number of
        elements), ``length`` (total length of its elements).
    edges : pandas.DataFrame
        Summary edges ``src``, ``dst`` (0-based partition indices, S -> T when
        an element of S is the parent of one of T), ``count``, ``length``.
    weights : pandas.DataFrame
        The weights ``src``, ``dst``, ``w`` the steady state was computed
        from (undirected for the built-in weightings, directed for a file).
    pi : numpy.ndarray
        Steady-state probability of every partition (float64, sums to 1
        unless the summary has no edge at all, then all 0).
    """

    axpre: str
    weight: str
    membership: np.ndarray
    partitions: pd.DataFrame
    edges: pd.DataFrame
    weights: pd.DataFrame
    pi: np.ndarray

    def __len__(self) -> int:
        return len(self.partitions)

    def __repr__(self) -> str:
        """One line: the AxPRE, the weighting, and the sizes (the arrays are
        attributes: ``partitions``, ``edges``, ``pi``)."""
        return (f"<Summary {self.axpre} (weight {self.weight}): {len(self):,} partitions, "
                f"{len(self.edges):,} edges, {int((self.membership >= 0).sum()):,} elements>")

    def to_networkx(self) -> Any:
        """The summary graph as a :class:`networkx.DiGraph`: partitions with
        ``tag``, ``key``, ``extent``, ``length`` and ``pi``, edges with
        ``count`` and ``length`` (:func:`graphprum.graphs.summary_graph`)."""
        from graphprum.graphs import summary_graph  # networkx: only notebooks' graphs need it

        return summary_graph(self)

    @property
    def sids(self) -> list[str]:
        """Partition ids in order (``S1``, ``S2``, ...)."""
        return self.partitions["sid"].tolist()

    def partition_of(self, row: int) -> str | None:
        """The SID of the partition holding global ``row`` (None for non-elements)."""
        p = int(self.membership[int(row)])
        return None if p < 0 else f"S{p + 1}"

    def reweighted(self, weight: str, table: UnitTable | None = None) -> Summary:
        """The same partition with ``pi`` computed under another weighting.

        ``count`` and ``length`` come from the stored edges; ``extent`` needs
        the ``table`` the summary was built from; anything else is a weights file.
        """
        weights, pi = _steady(self, weight, table)
        return Summary(self.axpre, weight, self.membership, self.partitions, self.edges,
                       weights, pi)

    # ------------------------------------------------------------- storage
    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, object]]:
        """The summary as the arrays and metadata a store keeps
        (``store.save_summary``)."""
        arrays: dict[str, np.ndarray] = {
            "membership": np.asarray(self.membership, dtype=np.int32),
            "pi": np.asarray(self.pi, dtype=np.float64),
            "partition_extent": self.partitions["extent"].to_numpy(dtype=np.int64),
            "partition_length": self.partitions["length"].to_numpy(dtype=np.float64),
            **{f"edge_{c}": self.edges[c].to_numpy(dtype=t) for c, t in
               (("src", np.int32), ("dst", np.int32), ("count", np.int64),
                ("length", np.float64))},
            **{f"weight_{c}": self.weights[c].to_numpy(dtype=t) for c, t in
               (("src", np.int32), ("dst", np.int32), ("w", np.float64))},
        }
        meta = {"format": "graphprum-summary", "version": FORMAT_VERSION,
                "axpre": self.axpre, "weight": self.weight,
                "tags": self.partitions["tag"].tolist(), "keys": self.partitions["key"].tolist()}
        return arrays, meta

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict[str, object]) -> Summary:
        """A summary from what :meth:`to_arrays` gave a store (``membership``
        may be absent: a server keeps it in its graph).

        Raises ValueError for another format.
        """
        if meta.get("format") != "graphprum-summary" or meta.get("version") != FORMAT_VERSION:
            raise ValueError(f"not a graphprum summary of version {FORMAT_VERSION}")
        keys = list(meta["keys"])  # type: ignore[call-overload]
        n = len(keys)
        partitions = pd.DataFrame({
            "sid": [f"S{i + 1}" for i in range(n)], "tag": meta["tags"], "key": keys,
            "extent": np.asarray(arrays["partition_extent"]),
            "length": np.asarray(arrays["partition_length"])})
        edges = pd.DataFrame({c: np.asarray(arrays[f"edge_{c}"])
                              for c in ("src", "dst", "count", "length")})
        weights = pd.DataFrame({c: np.asarray(arrays[f"weight_{c}"]) for c in ("src", "dst", "w")})
        membership = arrays.get("membership")
        return cls(str(meta["axpre"]), str(meta["weight"]),
                   membership if membership is not None else np.zeros(0, np.int32),
                   partitions, edges, weights, np.asarray(arrays["pi"]))


# ------------------------------------------------------------------ hashing
def _mix(x: np.ndarray, salt: int = 0) -> np.ndarray:
    """splitmix64 finaliser of ``x + salt`` (uint64, wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        z = np.asarray(x).astype(_U64) + _U64((0x9E3779B97F4A7C15 + salt) % 2**64)
        z = (z ^ (z >> _U64(30))) * _U64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> _U64(27))) * _U64(0x94D049BB133111EB)
        return z ^ (z >> _U64(31))


def _distinct_pairs(owner: np.ndarray, value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct (owner, value) pairs sorted by owner then value."""
    if len(owner) == 0:
        return owner.astype(np.int64), value
    order = np.lexsort((value, owner))
    o, v = owner[order], value[order]
    keep = np.ones(len(o), dtype=bool)
    keep[1:] = (o[1:] != o[:-1]) | (v[1:] != v[:-1])
    return o[keep].astype(np.int64), v[keep]


def _set_hash(owner: np.ndarray, value: np.ndarray, m: int,
              salt: int) -> tuple[np.ndarray, np.ndarray]:
    """Per owner (0..m-1): size of its distinct value set and a 64-bit set hash.

    ``owner``/``value`` must be distinct pairs sorted by owner (see
    :func:`_distinct_pairs`).
    """
    size = np.bincount(owner, minlength=m).astype(np.int64)
    h = np.zeros(m, dtype=_U64)
    if len(owner):
        starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
        with np.errstate(over="ignore"):
            h[owner[starts]] = np.add.reduceat(_mix(value, salt), starts)
    return size, h


def _group(*keys: np.ndarray) -> np.ndarray:
    """Group ids of rows equal on every key, numbered by first row (0-based)."""
    m = len(keys[0])
    if m == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort(keys[::-1])  # stable: ties keep row order
    new = np.zeros(m, dtype=bool)
    new[0] = True
    for k in keys:
        ks = k[order]
        new[1:] |= ks[1:] != ks[:-1]
    gid = np.cumsum(new) - 1
    first = order[new]  # the smallest row of each group
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    labels = np.empty(m, dtype=np.int64)
    labels[order] = rank[gid]
    return labels


def _verify_sets(labels: np.ndarray, owner: np.ndarray, value: np.ndarray, what: str) -> None:
    """Check that every member of a group has the same value set as its first member.

    ``owner``/``value``: distinct pairs sorted by owner then value.
    """
    m = len(labels)
    if m == 0:
        return
    g = int(labels.max()) + 1
    first = np.full(g, m, dtype=np.int64)
    np.minimum.at(first, labels, np.arange(m))
    rep = first[labels]
    size = np.bincount(owner, minlength=m)
    offset = np.r_[0, np.cumsum(size)[:-1]]
    ok = bool(np.all(size == size[rep]))
    if ok and len(owner):
        k = np.arange(len(owner)) - offset[owner]
        ok = bool(np.all(value == value[offset[rep[owner]] + k]))
    if not ok:  # pragma: no cover - needs a 64-bit hash collision
        raise RuntimeError(f"AxPRE {what}: hash collision detected; please report this")


# --------------------------------------------------------------- partitions
@dataclass
class _Elements:
    """The XML elements of a table in local numbering (0..m-1, row order)."""

    rows: np.ndarray  # global row of every element
    tag: np.ndarray  # int64 tag index
    parent: np.ndarray  # local index of the parent element, -1 for none
    levels: list[np.ndarray]  # local indices by depth, shallowest first

    @classmethod
    def of(cls, table: UnitTable) -> _Elements:
        kind = np.asarray(table.columns["kind"])
        rows = np.flatnonzero(kind == KIND_ELEMENT)
        local = np.full(len(kind), -1, dtype=np.int64)
        local[rows] = np.arange(len(rows))
        gparent = np.asarray(table.columns["parent"], dtype=np.int64)[rows]
        parent = np.where(gparent >= 0, local[np.maximum(gparent, 0)], -1)
        tag = np.asarray(table.columns["tag"], dtype=np.int64)[rows]
        depth = np.asarray(table.columns["depth"], dtype=np.int64)[rows]
        order = np.argsort(depth, kind="stable")
        bounds = np.flatnonzero(np.diff(depth[order])) + 1
        levels = np.split(order, bounds) if len(order) else []
        return cls(rows, tag, parent, levels)


def _pstar_codes(el: _Elements) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact label-path codes, top-down; returns (code, code_parent, code_tag)."""
    m = len(el.rows)
    code = np.full(m, -1, dtype=np.int64)
    ntags = int(el.tag.max()) + 1 if m else 1
    code_parent: list[np.ndarray] = []
    code_tag: list[np.ndarray] = []
    done = 0
    for rows in el.levels:
        p = el.parent[rows]
        pc = np.where(p >= 0, code[np.maximum(p, 0)], -1)
        key = (pc + 1) * ntags + el.tag[rows]
        uniq, inv = np.unique(key, return_inverse=True)
        code[rows] = inv + done
        code_parent.append(uniq // ntags - 1)
        code_tag.append(uniq % ntags)
        done += len(uniq)
    empty = np.zeros(0, dtype=np.int64)
    return (code, np.concatenate(code_parent) if code_parent else empty,
            np.concatenate(code_tag) if code_tag else empty)


def _child_tag_sets(el: _Elements) -> tuple[np.ndarray, np.ndarray]:
    """Distinct (parent, child tag) pairs sorted by parent then tag."""
    has = el.parent >= 0
    return _distinct_pairs(el.parent[has], el.tag[has])


def _cstar(el: _Elements) -> np.ndarray:
    """Downward-bisimulation hash of every element, bottom-up by depth."""
    m = len(el.rows)
    h = np.zeros(m, dtype=_U64)
    for d in range(len(el.levels) - 1, -1, -1):
        rows = el.levels[d]
        if d + 1 < len(el.levels):
            kids = el.levels[d + 1]
            kids = kids[el.parent[kids] >= 0]
            o, v = _distinct_pairs(el.parent[kids], h[kids])
        else:
            o, v = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=_U64)
        size, sh = _set_hash(o, v, m, salt=7)
        with np.errstate(over="ignore"):
            h[rows] = _mix(_mix(el.tag[rows], 11) + sh[rows] + _mix(size[rows], 13), 17)
    return h


class _KeyInfo(NamedTuple):
    """What :func:`_key_strings` needs to spell the partitions' keys."""

    axpre: str
    first: np.ndarray  # first element of every partition
    code: np.ndarray | None  # p* codes (label paths) of the elements
    code_parent: np.ndarray | None  # code of each p* code's parent path
    code_tag: np.ndarray | None  # last tag of each p* code's path
    sets: tuple[np.ndarray, np.ndarray] | None  # (owner, member) pairs of the sets compared
    ptag: np.ndarray  # parent's tag of every element (-1 for a root)


def _partition(el: _Elements, axpre: str) -> tuple[np.ndarray, np.ndarray, _KeyInfo]:
    """Partition labels (local, numbered by first element), first element of
    each partition, and what spells the keys."""
    m = len(el.rows)
    ptag = np.where(el.parent >= 0, el.tag[np.maximum(el.parent, 0)], -1)
    code = code_parent = code_tag = None
    if axpre in ("p*", "p*|c"):
        code, code_parent, code_tag = _pstar_codes(el)
    sets: tuple[np.ndarray, np.ndarray] | None = None
    if axpre == "label":
        labels = _group(el.tag)
    elif axpre == "p":
        labels = _group(el.tag, ptag)
    elif axpre == "p*":
        assert code is not None
        labels = _group(code)
    elif axpre in ("c", "p*|c"):
        sets = _child_tag_sets(el)
        size, sh = _set_hash(sets[0], sets[1], m, salt=3)
        labels = _group(el.tag if code is None else code, size, sh.view(np.int64))
        _verify_sets(labels, *sets, what=axpre)
    else:  # c*
        labels = _group(el.tag, _cstar(el).view(np.int64))
        has = el.parent >= 0
        sets = _distinct_pairs(el.parent[has], labels[has])
        _verify_sets(labels, *sets, what=axpre)
    g = int(labels.max()) + 1 if m else 0
    first = np.full(g, m, dtype=np.int64)
    np.minimum.at(first, labels, np.arange(m))
    return labels, first, _KeyInfo(axpre, first, code, code_parent, code_tag, sets, ptag)


def _key_strings(info: _KeyInfo, el: _Elements, tags: list[str]) -> list[str]:
    """Readable defining key of every partition, taken from its first element."""
    axpre, first, code, code_parent, code_tag, sets, ptag = info
    rep_tag = el.tag[first]
    if axpre == "label":
        return [tags[t] for t in rep_tag]
    if axpre == "p":
        return [("/" if p < 0 else tags[p] + "/") + tags[t]
                for p, t in zip(ptag[first], rep_tag, strict=True)]
    paths: list[str] = []
    if code is not None and code_parent is not None and code_tag is not None:
        names: list[str] = []
        for cp, ct in zip(code_parent.tolist(), code_tag.tolist(), strict=True):
            names.append((names[cp] if cp >= 0 else "") + "/" + tags[ct])
        paths = [names[c] for c in code[first]]
    if axpre == "p*" or sets is None:
        return paths
    owner, value = sets
    m = len(el.rows)
    size = np.bincount(owner, minlength=m)
    offset = np.r_[0, np.cumsum(size)[:-1]]
    value_list = value.tolist()

    def members(r: int) -> list[int]:
        return list(value_list[offset[r]:offset[r] + size[r]])

    if axpre == "c*":
        return [f"{tags[t]}({','.join(f'S{x + 1}' for x in members(r))})"
                for t, r in zip(rep_tag.tolist(), first.tolist(), strict=True)]
    # child tag sets repeat a lot: spell each distinct set once
    set_of = _group(size[first], _set_hash(owner, value, m, salt=3)[1][first].view(np.int64))
    set_first = np.full(int(set_of.max()) + 1 if len(set_of) else 0, -1, dtype=np.int64)
    set_first[set_of[::-1]] = first[::-1]
    spelled = [",".join(sorted(tags[x] for x in members(r))) for r in set_first.tolist()]
    heads = paths if axpre == "p*|c" else [tags[t] for t in rep_tag.tolist()]
    return [f"{h}({spelled[k]})" for h, k in zip(heads, set_of.tolist(), strict=True)]


# ------------------------------------------------------------------ summary
def build_summary(table: UnitTable, axpre: str, weight: str = "count") -> Summary:
    """Partition the XML elements of ``table`` by ``axpre``; summary graph and π.

    Parameters
    ----------
    table : UnitTable
        The collection (only rows of kind KIND_ELEMENT are partitioned).
    axpre : str
        One of :data:`AXPRES` (``label``, ``p``, ``p*``, ``c``, ``p*|c``, ``c*``).
    weight : str
        ``count``, ``length``, ``extent`` or the path of a ``SRC DST W``
        weights file (see the module notes).

    Returns
    -------
    Summary

    Raises
    ------
    UsageError
        Unknown AxPRE or weighting; a weights file whose walk has no unique
        stationary distribution.
    InputError
        A malformed weights file.
    """
    axpre = normalise_axpre(axpre)
    el = _Elements.of(table)
    labels, first, info = _partition(el, axpre)
    n_rows = len(table)
    g = len(first)
    membership = np.full(n_rows, -1, dtype=np.int32)
    membership[el.rows] = labels
    length = np.asarray(table.columns["length"], dtype=np.float64)[el.rows]
    tags = list(table.tags)
    partitions = pd.DataFrame({
        "sid": [f"S{i + 1}" for i in range(g)],
        "tag": [tags[t] for t in el.tag[first]],
        "key": _key_strings(info, el, tags),
        "extent": np.bincount(labels, minlength=g).astype(np.int64),
        "length": np.bincount(labels, weights=length, minlength=g),
    })
    has = el.parent >= 0
    src = labels[el.parent[has]]
    dst = labels[has]
    key, inv, count = np.unique(src * max(g, 1) + dst, return_inverse=True, return_counts=True)
    edges = pd.DataFrame({
        "src": (key // max(g, 1)).astype(np.int32), "dst": (key % max(g, 1)).astype(np.int32),
        "count": count.astype(np.int64),
        "length": np.bincount(inv.ravel(), weights=length[has], minlength=len(key)),
    })
    summary = Summary(axpre, weight, membership, partitions, edges,
                      pd.DataFrame({"src": [], "dst": [], "w": []}), np.zeros(g))
    summary.weights, summary.pi = _steady(summary, weight, table, (el, labels))
    return summary


def ancestor_pairs(parent: np.ndarray, labels: np.ndarray, g: int) -> pd.DataFrame:
    """Number of (ancestor, descendant) element pairs between partitions.

    ``parent`` holds the local parent index of every element (-1 for none)
    and ``labels`` its partition.  One vectorised step per tree level.

    >>> ancestor_pairs(np.array([-1, 0, 1, 1]), np.array([0, 1, 2, 2]), 3).to_dict("list")
    {'src': [0, 0, 1], 'dst': [1, 2, 2], 'w': [1.0, 2.0, 2.0]}
    """
    rows = np.flatnonzero(parent >= 0)
    anc = parent[rows]
    acc = sp.csr_array((g, g), dtype=np.float64)
    while len(rows):  # pairs at distance 1, 2, ...: summed level by level (sparse)
        acc = acc + sp.csr_array((np.ones(len(rows)), (labels[anc], labels[rows])),
                                 shape=(g, g))
        up = parent[anc]
        keep = up >= 0
        rows, anc = rows[keep], up[keep]
    coo = sp.coo_array(acc)
    coo.sum_duplicates()
    return pd.DataFrame({"src": coo.row.astype(np.int32), "dst": coo.col.astype(np.int32),
                         "w": coo.data.astype(np.float64)})


def _steady(summary: Summary, weight: str, table: UnitTable | None,
            local: tuple[_Elements, np.ndarray] | None = None
            ) -> tuple[pd.DataFrame, np.ndarray]:
    """Weights and steady state of ``summary`` under ``weight``.

    ``local``: the elements and their labels when already at hand.
    """
    g = len(summary)
    e = summary.edges
    if weight in ("count", "length"):
        weights = pd.DataFrame({"src": e["src"].to_numpy(np.int32),
                                "dst": e["dst"].to_numpy(np.int32),
                                "w": e[weight].to_numpy(np.float64)})
    elif weight == "extent":
        if local is not None:
            el, labels = local
        else:
            if table is None:
                raise UsageError("the extent weighting needs the collection's unit table")
            el = _Elements.of(table)
            labels = np.asarray(summary.membership)[el.rows].astype(np.int64)
        weights = ancestor_pairs(el.parent, labels, g)
    else:
        path = Path(weight)
        if not path.is_file():
            raise UsageError(f"unknown summary weight {weight!r}; expected "
                             f"{', '.join(WEIGHTS)} or a weights file SRC DST W")
        src, dst, w = read_weights(path, g)
        weights = pd.DataFrame({"src": src.astype(np.int32), "dst": dst.astype(np.int32), "w": w})
        return weights, walk_pi(src, dst, w, g, source=str(path))
    pi = symmetric_pi(weights["src"].to_numpy(), weights["dst"].to_numpy(),
                      weights["w"].to_numpy(), g)
    return weights, pi
