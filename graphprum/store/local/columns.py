"""A generation's columns read back (the layout is in
:mod:`graphprum.store.local.writer`): the unit table, memory-mapped, a
document's name looked up through the stored index
(:func:`read_table`, :class:`StoredDocs`); the attributes of rows
(:func:`read_attributes`, :func:`attributes_of`); and the check of a
freshly written generation against what was written (:func:`validate`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from graphprum.store.local.links import LINKS, LinkColumns
from graphprum.store.local.strings import StringColumn, StringIndex
from graphprum.units import DOC_COLUMNS, UNIT_COLUMNS, DocTable, UnitTable


def read_attributes(gen: Path) -> tuple[np.ndarray, StringColumn, StringColumn]:
    """Rows (ascending), names and values of every attribute of a generation."""
    return (np.load(gen / "attributes" / "rows.npy", mmap_mode="r"),
            StringColumn(gen / "attributes" / "names"),
            StringColumn(gen / "attributes" / "values"))


def attributes_of(attributes: tuple[np.ndarray, StringColumn, StringColumn],
                  rows: np.ndarray) -> list[dict[str, str]]:
    """The attributes of each of ``rows``, as dicts."""
    attr_rows, names, values = attributes
    rows = np.asarray(rows, dtype=np.int64)
    lo = np.searchsorted(attr_rows, rows, side="left")
    hi = np.searchsorted(attr_rows, rows, side="right")
    picks = np.concatenate([np.arange(a, b) for a, b in zip(lo, hi, strict=True)]) \
        if len(rows) else np.zeros(0, np.int64)
    keys, vals = (names[picks], values[picks]) if len(picks) else ([], [])
    out, k = [], 0
    for a, b in zip(lo.tolist(), hi.tolist(), strict=True):
        out.append(dict(zip(keys[k:k + b - a], vals[k:k + b - a], strict=True)))
        k += b - a
    return out


class StoredDocs(DocTable):
    """A generation's :class:`~graphprum.units.DocTable`, whose names and
    sources stay in their string columns until a column is asked for
    (decoded whole then, once): an evaluation looks names up through the
    index and never decodes them all.
    """

    __slots__ = ("_loaded", "_stored")

    def __init__(self, columns: dict[str, np.ndarray], stored: dict[str, StringColumn]) -> None:
        self._loaded = dict(columns)
        self._stored = stored

    def __len__(self) -> int:
        return len(self._loaded["first"])

    def __getitem__(self, column: str) -> np.ndarray:
        if column not in self._loaded and column in self._stored:
            values = np.empty(len(self), dtype=object)
            values[:] = self._stored[column].all()
            self._loaded[column] = values
        return self._loaded[column]

    def __contains__(self, column: object) -> bool:
        return column in self._loaded or column in self._stored

    def __reduce__(self) -> tuple[type[DocTable], tuple[dict[str, np.ndarray]]]:
        """Pickled (and copied) as the plain DocTable of its columns."""
        return DocTable, (self._columns,)

    # DocTable's slot, as its other methods (records, to_frame, copies) read it: every column
    @property
    def _columns(self) -> dict[str, np.ndarray]:  # type: ignore[override]  # a slot made a property
        return {c: self[c] for c in DOC_COLUMNS}


def read_table(gen: Path) -> tuple[UnitTable, int]:
    """The unit table of generation ``gen`` (columns memory-mapped, document
    names and sources read when asked for, a name's document looked up by
    the stored index) and its number of links; ValueError or OSError when
    files are missing or inconsistent."""
    cols = {c: np.load(gen / "units" / f"{c}.npy", mmap_mode="r") for c in UNIT_COLUMNS}
    vocab = json.loads((gen / "vocab.json").read_text(encoding="ascii"))
    names = StringColumn(gen / "docs" / "names")
    sources = StringColumn(gen / "docs" / "sources")
    index = StringIndex(names)
    kind = np.load(gen / "docs" / "kind.npy")
    first = np.load(gen / "docs" / "first.npy")
    count = np.load(gen / "docs" / "count.npy")
    n = len(cols["doc"])
    if any(len(v) != n for v in cols.values()):
        raise ValueError("unit columns of different lengths")
    if not (len(names) == len(sources) == len(kind) == len(first) == len(count)):
        raise ValueError("document columns of different lengths")
    if int(count.sum()) != n:
        raise ValueError(f"documents hold {int(count.sum())} units, columns {n}")
    n_links = len(LinkColumns(gen / LINKS))
    # through a map of its own: the roots' lengths touch every page of the
    # column (152 MB at 20M elements), which would stay in the table's map
    length = np.load(gen / "units" / "length.npy", mmap_mode="r")[first] if len(first) \
        else np.zeros(0)
    docs = StoredDocs({"kind": np.asarray(kind, np.int8), "length": np.asarray(length, np.float64),
                       "first": np.asarray(first, np.int64), "count": np.asarray(count, np.int64)},
                      {"name": names, "source": sources})
    return UnitTable(cols, vocab["tags"], vocab["paths"], docs, _doc_index=index), n_links


def validate(gen: Path, expected: dict[str, Any]) -> None:
    """Read a freshly written generation back and check it against what was
    written (ValueError when it does not match)."""
    table, n_links = read_table(gen)
    if len(table) != expected["units"] or len(table.docs) != expected["documents"]:
        raise ValueError(f"{len(table)} units in {len(table.docs)} documents read back, "
                         f"{expected['units']} in {expected['documents']} written")
    if n_links != expected["links"] + expected["dangling_links"]:
        raise ValueError("link count read back differs")
    if len(StringColumn(gen / "units" / "text")) != len(table):
        raise ValueError("text column of another length")
    n_attrs = len(np.load(gen / "attributes" / "rows.npy", mmap_mode="r"))
    for name in ("names", "values"):
        if len(StringColumn(gen / "attributes" / name)) != n_attrs:
            raise ValueError(f"attribute {name} of another length")
    links = LinkColumns(gen / LINKS)
    for name in ("target", "anchor"):
        links.strings(name)  # lengths checked
    graph = links.graph(len(table))
    if len(graph.out_dst) != expected["links"] or len(graph.in_src) != expected["links"]:
        raise ValueError("link graph of another size")
