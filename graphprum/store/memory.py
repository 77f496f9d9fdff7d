"""The memory store: the reference backend, and the tests' fixture.

It keeps the documents exactly as loaders hand them over and derives its
:class:`~graphprum.units.UnitTable` from them with plain Python, written
apart from the embedded store's incremental, spooled writer: the
conformance suite (``tests/store/``) checks that every backend answers what
this one answers.  A load builds the new state completely before it
replaces the old one, so a failed load changes nothing.

Examples
--------
>>> import numpy as np
>>> from graphprum.units import ParsedDocument
>>> doc = ParsedDocument("d", "d.xml", 0, ["a", "b"], ["/a", "/a/b"],
...     {"parent": np.array([-1, 0]), "kind": np.zeros(2), "depth": np.array([0, 1]),
...      "post": np.array([1, 0]), "size": np.array([2, 1]), "pos": np.array([1, 1]),
...      "start": np.zeros(2), "length": np.array([3.0, 3.0]), "words": np.array([1, 1])},
...     texts=["hey", "hey"])
>>> store = MemoryStore()
>>> store.load_documents([doc]).elements
2
>>> store.unit("d#/a[1]/b[1]")["text"], store.children("d#/a[1]")
('hey', ['d#/a[1]/b[1]'])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from graphprum.errors import InputError, StoreError
from graphprum.store.base import FORK_SAFE, TABLE, LinkWalk, merged_link_stats
from graphprum.store.linkgraph import LinkGraph, degree_summary, named_rows
from graphprum.store.tables import TableStore, table_documents
from graphprum.units import (
    KIND_ELEMENT,
    KIND_PAGE,
    UNIT_COLUMNS,
    DocTable,
    DocumentBatch,
    LoadReport,
    ParsedDocument,
    UnitTable,
    page_units,
)


class MemoryStore(TableStore):
    """A collection held in memory (see the module notes)."""

    capabilities = frozenset({TABLE, FORK_SAFE})

    def __init__(self, location: str = "memory") -> None:
        super().__init__()
        self.location = location
        self._docs: list[ParsedDocument] = []
        self._pairs: list[tuple[str, str]] = []  # link-list links FROM page -> TO name
        self._summaries: dict[str, tuple[dict[str, np.ndarray], dict[str, Any]]] = {}
        self._loads: list[dict[str, Any]] = []
        self._link_stats: dict[str, int] = {}
        self._held: tuple[dict[int, dict[int, int]], list[int], dict[int, int]] | None = None
        self._build()

    @classmethod
    def of_table(cls, table: UnitTable, location: str = "memory") -> MemoryStore:
        """A store holding the documents of ``table`` (rows keep their numbers)."""
        store = cls(location)
        if len(table.docs):
            store.load_documents(table_documents(table))
        return store

    # ----------------------------------------------------------- derived
    def _build(self) -> None:
        """Derive the unit table, link arrays, texts and attributes from the documents."""
        self._reset_caches()
        self._held = None
        tags: dict[str, int] = {}
        paths: dict[str, int] = {}
        columns: dict[str, list[Any]] = {c: [] for c in UNIT_COLUMNS}
        names, sources, kinds, lengths, firsts, counts = [], [], [], [], [], []
        self._texts: list[str] = []
        self._attrs: list[dict[str, str]] = []
        links: list[tuple[int, str, str]] = []  # (holding row, target, anchor), load order
        first_of: dict[str, int] = {}
        named: dict[str, dict[str, int]] = {}  # document -> fragment -> row
        for d, doc in enumerate(self._docs):
            first = len(columns["doc"])
            n = len(doc.tags)
            names.append(doc.name)
            sources.append(doc.source)
            kinds.append(doc.kind)
            lengths.append(doc.length)
            firsts.append(first)
            counts.append(n)
            first_of[doc.name] = first
            attrs: dict[int, dict[str, str]] = dict(doc.attributes)
            for i in range(n):
                parent = int(doc.columns["parent"][i])
                columns["doc"].append(d)
                columns["tag"].append(tags.setdefault(doc.tags[i], len(tags)))
                columns["path"].append(paths.setdefault(doc.paths[i], len(paths)))
                columns["parent"].append(first + parent if parent >= 0 else -1)
                for c in ("kind", "depth", "post", "size", "pos", "start", "length", "words"):
                    columns[c].append(doc.columns[c][i])
                self._texts.append(doc.texts[i] if doc.texts is not None else "")
                self._attrs.append(dict(attrs.get(i, {})))
            named[doc.name] = {v: first + r for v, r in
                               named_rows(doc.tags, doc.attributes).items()}
            for row, target, anchor in doc.links:
                links.append((first + row, target, anchor))
        for a, b in self._pairs:
            links.append((first_of[a], b, ""))
        links.sort(key=lambda link: link[0])  # stable: one row's links stay in load order
        cols: dict[str, np.ndarray] = {c: np.array(v, dtype=t) for (c, t), v in
                zip(UNIT_COLUMNS.items(), (columns[c] for c in UNIT_COLUMNS), strict=True)}
        docs = DocTable({"name": names, "source": sources,
                         "kind": kinds, "length": lengths, "first": firsts, "count": counts})
        self._table = UnitTable(cols, list(tags), list(paths), docs)
        self._src = np.array([s for s, _, _ in links], dtype=np.int64)
        self._targets = [t for _, t, _ in links]
        self._anchors = [a for _, _, a in links]
        dst = []
        for target in self._targets:  # the document's root, or the element the fragment names
            doc_name, _, fragment = target.partition("#")
            row = first_of.get(doc_name, -1)
            dst.append(named[doc_name].get(fragment, row) if row >= 0 and fragment else row)
        self._dst = np.array(dst, dtype=np.int64)

    def table(self) -> UnitTable:
        """The whole collection."""
        return self._table

    def link_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Holding rows (ascending) and arrival rows (-1 dangling)."""
        return self._src, self._dst

    def link_texts(self) -> tuple[list[str], list[str]]:
        """Targets and anchors of every link."""
        return list(self._targets), list(self._anchors)

    def link_graph(self) -> LinkGraph:
        """The resolved links as compressed rows, with the tree."""
        if self._link_graph is None:
            t = self._table
            self._link_graph = LinkGraph.build(self._src, self._dst, len(t), t.columns["size"],
                                               t.columns["parent"])
        return self._link_graph

    def walk_rows(self, src_rows: np.ndarray, tgt_rows: np.ndarray, hops: int | None,
                  structure: bool = False) -> LinkWalk:
        """The neighbourhood of walks from rows ``src_rows`` into rows
        ``tgt_rows`` (what ``link_walk`` answers), the reference way: every
        unit from which a target is reachable in at most ``hops`` moves, by
        a plain breadth-first search over the moves (a unit's links are
        those held in its subtree)."""
        import scipy.sparse as sp  # walks only: stores are opened without scipy

        held, parent, kids = self._moves()
        into: dict[int, set[int]] = {}
        for x, arrivals in held.items():
            for z in arrivals:
                into.setdefault(z, set()).add(x)
        if structure:
            for z, p in enumerate(parent):
                if p >= 0:
                    into.setdefault(z, set()).add(p)  # a move to a child
                    into.setdefault(p, set()).add(z)  # a move to the parent
        src = np.asarray(src_rows, dtype=np.int64).tolist()
        tgt = np.asarray(tgt_rows, dtype=np.int64).tolist()
        seen = {t for t in tgt if t >= 0}
        frontier, k = set(seen), 0
        while frontier and (hops is None or k < hops):
            frontier = {x for z in frontier for x in into.get(z, ())} - seen
            seen |= frontier
            k += 1
        nodes = sorted(seen)
        index = {r: i for i, r in enumerate(nodes)}
        m = len(nodes)
        t = np.zeros((m, m))
        out_links = np.zeros(m, dtype=np.int64)
        for x in nodes:
            out_links[index[x]] = sum(held.get(x, {}).values())
            for z, count in held.get(x, {}).items():
                if z in index:
                    t[index[x], index[z]] = count / out_links[index[x]]
        walk = LinkWalk(np.array([index.get(r, -1) for r in src], dtype=np.int64),
                        np.array([index.get(r, -1) for r in tgt], dtype=np.int64),
                        sp.csr_array(t), out_links=out_links)
        if structure:
            walk.parents = np.array([index.get(parent[x], -2) if parent[x] >= 0 else -1
                                     for x in nodes], dtype=np.int64)
            walk.children = np.array([kids.get(x, 0) for x in nodes], dtype=np.int64)
        return walk

    def _moves(self) -> tuple[dict[int, dict[int, int]], list[int], dict[int, int]]:
        """Links held in each row's subtree (arrival -> count), every row's
        parent, and every row's number of children."""
        if self._held is None:
            parent = [int(p) for p in self._table.columns["parent"]]
            held: dict[int, dict[int, int]] = {}
            for s, d in zip(self._src.tolist(), self._dst.tolist(), strict=True):
                h = s
                while d >= 0 and h >= 0:  # the row holding it and each of its ancestors
                    held.setdefault(h, {})
                    held[h][d] = held[h].get(d, 0) + 1
                    h = parent[h]
            kids: dict[int, int] = {}
            for p in parent:
                if p >= 0:
                    kids[p] = kids.get(p, 0) + 1
            self._held = (held, parent, kids)
        return self._held

    def texts(self, rows: np.ndarray) -> list[str]:
        """Text snippet of every row."""
        return [self._texts[int(r)] for r in rows]

    def attributes(self, rows: np.ndarray) -> list[dict[str, str]]:
        """Attributes of every row."""
        return [dict(self._attrs[int(r)]) for r in rows]

    def info(self) -> dict[str, Any]:
        """Counts per kind, documents, links, degrees, summaries."""
        src, dst = (np.asarray(a, dtype=np.int64) for a in self.link_rows())
        return {
            "store": self.location, "format": "graphprum-memory", **self.counts(),
            "link_stats": dict(self._link_stats),
            "degrees": degree_summary(src[dst >= 0], dst[dst >= 0], len(self.table())),
            "summaries": self.summary_names(),
            "incomplete_documents": 0, "interrupted_loads": 0, "loads": list(self._loads),
        }

    # ------------------------------------------------------------ summaries
    def summary_names(self) -> list[str]:
        """Names of the stored summaries, sorted (as every store lists them)."""
        return sorted(self._summaries)

    def load_summary(self, name: str) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
        """A stored summary's arrays and metadata."""
        return self._summaries.get(name)

    def save_summary(self, name: str, arrays: dict[str, np.ndarray],
                     meta: dict[str, Any]) -> None:
        """Store a summary (replacing one of the same name)."""
        if not len(self._table):
            raise StoreError(f"{self.location}: the store is empty; load a collection first")
        self._summaries.pop(name, None)
        self._summaries[name] = ({k: np.array(v) for k, v in arrays.items()}, dict(meta))

    def summary_membership(self, name: str) -> np.ndarray | None:
        """Partition of every row under a stored summary."""
        found = self._summaries.get(name)
        return None if found is None else found[0].get("membership")

    def query(self, text: str, params: dict[str, Any] | None = None, *,
              write: bool = False, timeout: float | None = None) -> list[dict[str, Any]]:
        """The memory store runs no Cypher."""
        raise StoreError(f"{self.location}: the memory store runs no Cypher")

    # -------------------------------------------------------------- writing
    def load_documents(self, docs: Iterable[ParsedDocument | DocumentBatch], *,
                       replace: bool = False, description: dict[str, Any] | None = None,
                       link_pairs: Iterable[tuple[Sequence[str], Sequence[str]]] | None = None,
                       link_stats: dict[str, int] | None = None) -> LoadReport:
        """Add documents (and link pairs) all or nothing."""
        report = LoadReport()
        old = {d.name: i for i, d in enumerate(self._docs)}
        replaced: set[int] = set()
        new: list[ParsedDocument] = []
        seen: set[str] = set()
        for item in docs:
            parts = item.documents() if isinstance(item, DocumentBatch) else [item]
            for doc in parts:
                if doc.name in seen:
                    raise InputError(doc.source, None,
                                     f"document id {doc.name!r} occurs twice in this load")
                if doc.name in old:
                    if not replace:
                        raise InputError(doc.source, None,
                                         f"document {doc.name!r} is already stored; "
                                         f"use --replace to replace it")
                    replaced.add(old[doc.name])
                seen.add(doc.name)
                new.append(doc)
                report.documents += 1
                report.elements += len(doc.tags)
                report.links += len(doc.links)
        kept = [d for i, d in enumerate(self._docs) if i not in replaced]
        docs_after = kept + new
        pairs = list(self._pairs)
        if link_pairs is not None:
            pages = {d.name for d in docs_after if d.kind in (KIND_PAGE, KIND_ELEMENT)}
            for froms, tos in link_pairs:
                unknown = [n for n in dict.fromkeys([*froms, *tos]) if n not in pages]
                added = list(page_units(unknown).documents()) if unknown else []
                docs_after.extend(added)
                pages.update(unknown)
                report.documents += len(added)
                report.elements += len(added)
                pairs.extend(zip(froms, tos, strict=True))
                report.links += len(froms)
        if report.documents == 0 and link_pairs is None:
            raise InputError(", ".join((description or {}).get("paths", [])) or "input",
                             None, "nothing to load")
        report.replaced = len(replaced)
        self._docs = docs_after
        self._pairs = [(a, b) for a, b in pairs if a in {d.name for d in docs_after}]
        self._link_stats = merged_link_stats(self._link_stats, link_stats, len(replaced), len(old))
        self._loads.append({**(description or {}), "documents": report.documents,
                            "units": report.elements, "replaced": report.replaced})
        self._summaries = {}  # the collection changed: summaries are stale
        self._build()
        return report

