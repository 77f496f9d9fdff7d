"""Helpers shared by the summary and SR tests: tables built independently of
the code under test (lxml walks, random forests) and brute-force partitions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from lxml import etree

from graphprum.store.memory import MemoryStore
from graphprum.units import KIND_ELEMENT, KIND_PAGE, UnitTable
from tests.support import DATA

BOOK = DATA / "book.xml"


def xml_elements(path: Path) -> tuple[list[str], list[int], list[float]]:
    """Tags, parents (preorder rows) and text lengths of an XML file's elements."""
    root = etree.parse(str(path)).getroot()
    elements = [e for e in root.iter() if isinstance(e.tag, str)]
    index = {e: i for i, e in enumerate(elements)}
    tags = [e.tag for e in elements]
    parents = [index[e.getparent()] if e.getparent() is not None else -1 for e in elements]
    lengths = [float(len("".join(e.itertext()))) for e in elements]
    return tags, parents, lengths


def book_table() -> UnitTable:
    """SR Fig. 2 as a one-document UnitTable read from tests/data/book.xml."""
    tags, parents, lengths = xml_elements(BOOK)
    return UnitTable.from_tree("book", tags, parents, lengths)


def random_tree(rng: np.random.Generator, n: int, alphabet: str) -> tuple[list[str], list[int]]:
    """A random tree of n nodes in preorder: (tags, local parents)."""
    raw_parent = [-1] + [int(rng.integers(0, i)) for i in range(1, n)]
    kids: list[list[int]] = [[] for _ in range(n)]
    for i in range(1, n):
        kids[raw_parent[i]].append(i)
    order: list[int] = []
    stack = [0]
    while stack:
        x = stack.pop()
        order.append(x)
        stack.extend(reversed(kids[x]))
    new = {old: i for i, old in enumerate(order)}
    tags = [str(rng.choice(list(alphabet))) for _ in range(n)]
    parents = [-1 if raw_parent[old] < 0 else new[raw_parent[old]] for old in order]
    return [tags[old] for old in order], parents


def forest_table(docs: list[tuple[list[str], list[int]]], lengths: np.ndarray | None = None,
                 pages: int = 0) -> UnitTable:
    """A multi-document UnitTable (plus ``pages`` one-unit page documents at the end)."""
    all_tags = sorted({t for tags, _ in docs for t in tags} | ({"page"} if pages else set()))
    col = {k: [] for k in ("doc", "kind", "tag", "parent", "depth", "pos")}
    first, count, names = [], [], []
    row = 0
    for d, (tags, parents) in enumerate(docs):
        first.append(row)
        count.append(len(tags))
        names.append(f"doc{d}")
        depth: list[int] = []
        seen: dict[tuple[int, str], int] = {}
        for t, p in zip(tags, parents, strict=True):
            depth.append(0 if p < 0 else depth[p] + 1)
            seen[p, t] = seen.get((p, t), 0) + 1
            col["pos"].append(seen[p, t])
            col["doc"].append(d)
            col["kind"].append(KIND_ELEMENT)
            col["tag"].append(all_tags.index(t))
            col["parent"].append(-1 if p < 0 else first[-1] + p)
        col["depth"].extend(depth)
        row += len(tags)
    for k in range(pages):
        first.append(row)
        count.append(1)
        names.append(f"page{k}.html")
        col["doc"].append(len(docs) + k)
        col["kind"].append(KIND_PAGE)
        col["tag"].append(all_tags.index("page"))
        col["parent"].append(-1)
        col["depth"].append(0)
        col["pos"].append(1)
        row += 1
    n = row
    columns = {
        "doc": np.array(col["doc"], dtype=np.int32),
        "kind": np.array(col["kind"], dtype=np.int8),
        "tag": np.array(col["tag"], dtype=np.int32),
        "path": np.zeros(n, dtype=np.int32),
        "depth": np.array(col["depth"], dtype=np.int16),
        "parent": np.array(col["parent"], dtype=np.int32),
        "post": np.zeros(n, dtype=np.int32),
        "size": np.ones(n, dtype=np.int32),
        "pos": np.array(col["pos"], dtype=np.int32),
        "start": np.zeros(n),
        "length": np.ones(n) if lengths is None else  # pages: length 1 unless given
        np.concatenate([np.asarray(lengths, dtype=np.float64), np.ones(n - len(lengths))]),
        "words": np.zeros(n, dtype=np.int32),
    }
    frame = pd.DataFrame({"name": names, "source": [""] * len(names),
                          "kind": [KIND_ELEMENT] * len(docs) + [KIND_PAGE] * pages,
                          "length": [0.0] * len(names), "first": first, "count": count})
    return UnitTable(columns, all_tags, [""], frame)


def TableStore(table: UnitTable) -> MemoryStore:  # noqa: N802
    """The reference memory store holding ``table`` (rows keep their numbers)."""
    return MemoryStore.of_table(table)


def brute_force_classes(table: UnitTable, axpre: str) -> dict[int, object]:
    """A class key per element row, from the definitions of DESIGN §1.7, by walking."""
    kind = table.columns["kind"]
    rows = [r for r in range(len(table)) if kind[r] == KIND_ELEMENT]
    tag = {r: table.tags[table.columns["tag"][r]] for r in rows}
    parent = {r: int(table.columns["parent"][r]) for r in rows}
    kids: dict[int, list[int]] = {r: [] for r in rows}
    for r in rows:
        if parent[r] >= 0:
            kids[parent[r]].append(r)

    def label_path(r: int) -> tuple[str, ...]:
        steps = []
        while r >= 0:
            steps.append(tag[r])
            r = parent[r]
        return tuple(reversed(steps))

    def child_tags(r: int) -> frozenset[str]:
        return frozenset(tag[c] for c in kids[r])

    if axpre == "label":
        return {r: tag[r] for r in rows}
    if axpre == "p":
        return {r: (tag[r], tag[parent[r]] if parent[r] >= 0 else None) for r in rows}
    if axpre == "p*":
        return {r: label_path(r) for r in rows}
    if axpre == "c":
        return {r: (tag[r], child_tags(r)) for r in rows}
    if axpre == "p*|c":
        return {r: (label_path(r), child_tags(r)) for r in rows}
    assert axpre == "c*"
    # partition refinement from the tag partition until stable
    cls = {r: tag[r] for r in rows}
    n_classes = len(set(cls.values()))
    while True:
        keys = {r: (cls[r], frozenset(cls[c] for c in kids[r])) for r in rows}
        names = {k: i for i, k in enumerate(dict.fromkeys(keys.values()))}
        new = {r: names[keys[r]] for r in rows}
        if len(names) == n_classes:
            return new
        cls, n_classes = new, len(names)
