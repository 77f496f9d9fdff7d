"""Documents pulled from a Bolt server, kept as tables of their own and
joined into a topic's view.

A document arrives as the rows of ``read/document_columns.cypher`` (a list
per property, a row per slice of units) and becomes a :class:`Piece`: a
one-document :class:`~graphprum.units.UnitTable` with local rows, built
once per document and kept by the store until the next load.  A topic's
view joins the pieces of its documents (:func:`join_tables`: columns
concatenated, rows, parents and vocabularies renumbered) and resolves the
ids it is asked about by walking each XPath down its document's tree
(:meth:`Piece.row`), so that no id of a unit nobody asks about is made
(:func:`resolver`).

Examples
--------
>>> p = piece_of([("d", 0, [1, 0], *[[0, 0]] * 2, [0, -1], *[[1, 1]] * 6, ["b", "a"],
...                ["/a/b", "/a"])], {"name": "d", "count": 2})
>>> p.table.tags, p.table.columns["parent"].tolist()
(['a', 'b'], [-1, 0])
>>> p.row("/a[1]/b[1]"), p.row("/a[1]/c[1]"), p.row("/a[1]/b[2]")
(1, -1, -1)
>>> resolve = resolver({"d": (0, 2, 0)}, lambda: {"d": p})
>>> resolve(["d#/a[1]/b[1]", "e#/a[1]", "d"]).tolist()
[1, -1, -1]
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from graphprum.errors import StoreError
from graphprum.store.base import UNIT_FIELDS
from graphprum.units import (
    KIND_ELEMENT,
    KIND_NAMES,
    KIND_PAGE,
    KIND_VIDEO,
    UNIT_COLUMNS,
    DocTable,
    UnitTable,
    encode_vocabulary,
)

if TYPE_CHECKING:
    import pandas as pd

#: The numbers of a unit, in the order ``read/document_columns.cypher`` returns them.
NUMBERS = ["pre", "kind", "depth", "ppre", "post", "size", "pos", "start", "length", "words"]
#: One row of a query, its values in the order of its RETURN.
Row = tuple[Any, ...]


def canonical(uid: str) -> str:
    """The id a unit is stored under: segment numbers without leading zeros.

    >>> canonical("video#03"), canonical("d#/a[1]"), canonical("page.html")
    ('video#3', 'd#/a[1]', 'page.html')
    """
    name, sep, rest = uid.partition("#")
    if sep and rest.isascii() and rest.isdigit():
        return f"{name}#{int(rest)}"
    return uid


class Piece:
    """One stored document as pulled: a :class:`~graphprum.units.UnitTable`
    of its own (rows in preorder, ``parent`` local) and, made on first use,
    what :meth:`row` needs to find an element by its XPath."""

    __slots__ = ("_tree", "table")

    def __init__(self, table: UnitTable) -> None:
        self.table = table
        self._tree: tuple[np.ndarray, np.ndarray, dict[str, int], int, int,
                           bool] | None = None

    def __len__(self) -> int:
        return len(self.table)

    def _xpath(self, row: int) -> str:
        """The XPath part of the stored id of element ``row``: its steps up to
        the first unit that is not an element (as
        :func:`graphprum.store.bolt.pack.unit_ids` makes them)."""
        cols, tags = self.table.columns, self.table.tags
        steps = []
        while row >= 0 and int(cols["kind"][row]) == KIND_ELEMENT:
            steps.append(f"/{tags[cols['tag'][row]]}[{cols['pos'][row]}]")
            row = int(cols["parent"][row])
        return "".join(reversed(steps))

    def row(self, xpath: str) -> int:
        """The row of the element whose id ends in ``xpath`` (``/a[1]/b[2]``),
        -1 when the document holds none (:meth:`rows` of one)."""
        return int(self.rows([xpath])[0])

    def rows(self, xpaths: Sequence[str]) -> np.ndarray:
        """The rows of the elements whose ids end in ``xpaths``, -1 where the
        document holds none: a walk down the tree one step at a time, for
        all of them at once, each step (the element it starts from, a tag
        and a position) found by a binary search among the document's steps
        (made on first use: 16 bytes a unit), so a step written as the
        store writes none (``/a[01]``) is found by none (a tag holding
        ``/`` or ``[`` is found by a scan of the XPaths)."""
        out = np.full(len(xpaths), -1, dtype=np.int64)
        if self._tree is None:
            self._tree = self._steps()
        keys, rows, codes, ntags, npos, scan = self._tree
        if scan:
            cols = self.table.columns
            for j, xpath in enumerate(xpaths):
                out[j] = next((r for r in range(len(self.table)) if self._xpath(r) == xpath
                               and int(cols["kind"][r]) == KIND_ELEMENT), -1)
            return out
        walks: list[tuple[int, list[int]]] = []  # (which, step keys less the start's)
        for j, xpath in enumerate(xpaths):
            steps = []
            for step in xpath[1:].split("/") if xpath.startswith("/") else ["?"]:
                name, _, rest = step.partition("[")
                code = codes.get(name, -1)
                n = int(rest[:-1]) if rest[:-1].isascii() and rest[:-1].isdigit() \
                    and rest[-1:] == "]" else -1
                if code < 0 or not 0 <= n < npos or step != f"{name}[{n}]":
                    break
                steps.append(code * npos + n)
            else:
                walks.append((j, steps))
        at = np.full(len(walks), -1, dtype=np.int64)
        alive = np.ones(len(walks), dtype=bool)
        length = np.array([len(w) for _, w in walks], dtype=np.int64)
        for level in range(int(length.max(initial=0))):
            sel = np.flatnonzero(alive & (length > level))
            key = (at[sel] + 1) * (ntags * npos) + np.array([walks[i][1][level] for i in sel],
                                                           dtype=np.int64)
            i = np.minimum(keys.searchsorted(key), len(keys) - 1)
            found = keys[i] == key
            at[sel] = np.where(found, rows[i], -1)
            alive[sel] = found
        if walks:
            out[[j for j, _ in walks]] = np.where(alive, at, -1)
        return out

    def _steps(self) -> tuple[np.ndarray, np.ndarray, dict[str, int], int, int, bool]:
        """What :meth:`row` searches: the key of each element's step (the
        element it hangs from, -1 where its XPath starts: a root, or under a
        page or video; its tag; its position) sorted, the rows in that order
        (the first row of equal steps first, as a walk in row order finds
        it), the tag codes, the key's ranges, and whether only a scan finds
        an element (a tag holding ``/`` or ``[``, or keys past 64 bits)."""
        table = self.table
        cols = table.columns
        parent = np.asarray(cols["parent"], dtype=np.int64)
        element = np.asarray(cols["kind"]) == KIND_ELEMENT
        up = np.where((parent >= 0) & element[np.maximum(parent, 0)], parent, -1)
        rows = np.flatnonzero(element)
        pos = np.asarray(cols["pos"], dtype=np.int64)[rows]
        ntags, npos = len(table.tags), int(pos.max(initial=0)) + 1
        scan = any("/" in t or "[" in t for t in table.tags) \
            or (len(table) + 1) * max(ntags, 1) * npos >= 2 ** 62
        keys = ((up[rows] + 1) * ntags + np.asarray(cols["tag"], dtype=np.int64)[rows]) \
            * npos + pos
        order = np.argsort(keys, kind="stable")
        return (keys[order], rows[order], {t: i for i, t in enumerate(table.tags)}, ntags,
                npos, scan)


def piece_of(rows: Sequence[Row], doc: Mapping[str, Any], where: str = "") -> Piece:
    """The :class:`Piece` of document ``doc`` (its fields of
    ``read/documents_named.cypher``) from its rows of
    ``read/document_columns.cypher`` (name, slice, a list per number, tags,
    paths): numpy arrays made from the driver's lists, sorted by ``pre``;
    a StoreError (naming the store ``where``) when the units are not what
    the document says."""
    k = len(NUMBERS)
    numbers = np.concatenate([np.array(r[2:2 + k], dtype=np.float64).reshape(k, -1)
                              for r in rows], axis=1) if rows else np.zeros((k, 0))
    tags = [t for r in rows for t in r[2 + k]]
    paths = [p for r in rows for p in r[3 + k]]
    n = numbers.shape[1]
    if not len(tags) == len(paths) == n == int(doc["count"]):
        raise StoreError(f"{where}: document {doc['name']!r}: {n} units ({len(tags)} tags, "
                         f"{len(paths)} paths) where it has {int(doc['count'])}; load it "
                         f"again with --replace")
    return _piece(dict(zip(NUMBERS, numbers, strict=True)), tags, paths, doc)


#: What a JSON list of whole numbers below 10^15 never holds: FalkorDB's
#: ``toJSON`` writes a double with ``%.15g``, digits only when it is one.
_NOT_WHOLE = re.compile(r"[^0-9, \[\]-]")


def packed_piece(row: Row, doc: Mapping[str, Any]) -> Piece | None:
    """The :class:`Piece` of document ``doc`` from its row of
    ``read/document_columns_packed.cypher`` (name, a JSON list per number,
    tags and paths joined by newlines), or None when the row cannot give
    it exactly: a start or length that is not a whole number below 10^15
    (FalkorDB's Redis port rounds it), a tag or path holding a newline, or
    units missing (the document is then read the other way, which says
    what is wrong).  Numbers parsed by numpy from the text, no Python
    object per unit but its tag and path.

    >>> row = ("d", "[1, 0]", *["[0, 0]"] * 2, "[0, -1]", *["[1, 1]"] * 6, "b\\na", "/a/b\\n/a")
    >>> packed_piece(row, {"name": "d", "count": 2}).table.columns["parent"].tolist()
    [-1, 0]
    >>> packed_piece(row[:8] + ("[0.5, 1]",) + row[9:], {"name": "d", "count": 2}) is None
    True
    """
    n = int(doc["count"])
    lists = row[1:1 + len(NUMBERS)]
    tags, paths = (row[-2].split("\n"), row[-1].split("\n")) if n else ([], [])
    texts = dict(zip(NUMBERS, lists, strict=True))
    if not len(tags) == len(paths) == n \
            or any("-0," in texts[c] or "-0]" in texts[c] for c in ("start", "length")):
        return None  # the double -0.0 would be read as the integer 0
    numbers = {c: whole_numbers(s) for c, s in texts.items()}
    if any(a is None or len(a) != n for a in numbers.values()):
        return None
    return _piece({c: a for c, a in numbers.items() if a is not None}, tags, paths, doc)


def whole_numbers(text: str) -> np.ndarray | None:
    """The numbers of a JSON list of whole numbers (``toJSON`` of FalkorDB)
    as an int64 array, parsed by numpy; None when it holds anything else.

    >>> whole_numbers("[3, -1, 0]").tolist(), whole_numbers("[]").tolist()
    ([3, -1, 0], [])
    >>> whole_numbers("[1, 2.5]") is None, whole_numbers("[1, null]") is None
    (True, True)
    """
    if _NOT_WHOLE.search(text) or text[:1] != "[" or text[-1:] != "]":
        return None
    numbers = np.fromstring(text[1:-1], dtype=np.int64, sep=",")
    return numbers if len(numbers) == text.count(",") + (len(text) > 2) else None


def _piece(numbers: Mapping[str, np.ndarray], tags: list[str], paths: list[str],
           doc: Mapping[str, Any]) -> Piece:
    """The :class:`Piece` of document ``doc`` from its units' columns
    (:data:`NUMBERS`), tags and paths, in any order: sorted by ``pre``."""
    n = len(tags)
    pre = numbers["pre"]
    if n > 1 and not bool(np.all(pre[1:] > pre[:-1])):  # the server's order is mostly pre's
        order = np.argsort(pre, kind="stable")
        numbers = {c: numbers[c][order] for c in NUMBERS}
        ranked = order.tolist()
        tags, paths = [tags[i] for i in ranked], [paths[i] for i in ranked]
    col = dict(numbers)
    tag_codes, tag_vocab = encode_vocabulary(tags)
    path_codes, path_vocab = encode_vocabulary(paths)
    values = {**col, "doc": np.zeros(n), "tag": tag_codes, "path": path_codes,
              "parent": col["ppre"]}
    columns: dict[str, np.ndarray] = {c: np.asarray(values[c]).astype(t)
                                      for c, t in UNIT_COLUMNS.items()}
    docs = DocTable({"name": [doc["name"]], "source": [doc.get("source", "")],
                     "kind": [int(doc.get("kind", 0))], "length": [float(doc.get("length", 0))],
                     "first": [0], "count": [n]})
    return Piece(UnitTable(columns, tag_vocab, path_vocab, docs))


def join_tables(tables: Sequence[UnitTable]) -> UnitTable:
    """One :class:`~graphprum.units.UnitTable` of the documents of ``tables``
    (one document each, ``parent`` local), in their order: rows, parents and
    vocabularies renumbered.

    >>> a = UnitTable.from_tree("a", ["x", "y"], [-1, 0])
    >>> t = join_tables([a, UnitTable.from_tree("b", ["y"], [-1])])
    >>> t.ids(), t.tags, t.columns["parent"].tolist(), t.docs["first"].tolist()
    (['a#/x[1]', 'a#/x[1]/y[1]', 'b#/y[1]'], ['x', 'y'], [-1, 0, -1], [0, 2])
    """
    counts = np.array([len(t) for t in tables], dtype=np.int64)
    first = np.cumsum(counts) - counts
    tags: dict[str, int] = {}
    paths: dict[str, int] = {}
    parts: dict[str, list[np.ndarray]] = {c: [] for c in UNIT_COLUMNS}
    for i, t in enumerate(tables):
        cols = t.columns
        tag_map = np.array([tags.setdefault(x, len(tags)) for x in t.tags], dtype=np.int32)
        path_map = np.array([paths.setdefault(x, len(paths)) for x in t.paths], dtype=np.int32)
        parent = cols["parent"]
        new = {"doc": np.full(len(t), i, dtype=np.int32),
               "tag": tag_map[cols["tag"]] if len(t) else cols["tag"],
               "path": path_map[cols["path"]] if len(t) else cols["path"],
               "parent": np.where(parent >= 0, parent + first[i], -1)}
        for c in UNIT_COLUMNS:
            parts[c].append(new.get(c, cols[c]))
    columns: dict[str, np.ndarray] = {
        c: np.concatenate(parts[c]).astype(dtype, copy=False) if tables else np.zeros(0, dtype)
        for c, dtype in UNIT_COLUMNS.items()}
    docs = DocTable({**{c: [t.docs[c][0] for t in tables]
                        for c in ("name", "source", "kind", "length")},
                     "first": first, "count": counts})
    return UnitTable(columns, list(tags), list(paths), docs)


#: Where a document's rows are in a view: its first row, units and document kind.
Place = tuple[int, int, int]


def place_documents(docs: Sequence[Mapping[str, Any]]) -> dict[str, Place]:
    """The :data:`Place` of each of ``docs`` (fields ``name``, ``count``,
    ``kind``) in a view holding them in their order.

    >>> place_documents([{"name": "a", "count": 3, "kind": 0},
    ...                  {"name": "b", "count": 2, "kind": 1}])
    {'a': (0, 3, 0), 'b': (3, 2, 1)}
    """
    out: dict[str, Place] = {}
    first = 0
    for d in docs:
        out[str(d["name"])] = (first, int(d["count"]), int(d["kind"]))
        first += int(d["count"])
    return out


def resolver(places: Mapping[str, Place], pieces: Callable[[], Mapping[str, Piece]]
             ) -> Callable[[Sequence[str]], np.ndarray]:
    """Rows of unit ids in a view of the documents ``places``, -1 for an id
    the view does not hold: a page or video by its name, a segment by its
    number, an element by its XPath in its document's piece
    (:meth:`Piece.row`; ``pieces()`` is called, and so the view's documents
    pulled, only for an element id)."""
    def resolve(ids: Sequence[str]) -> np.ndarray:
        out = np.full(len(ids), -1, dtype=np.int64)
        elements: dict[str, list[tuple[int, str]]] = {}
        for i, uid in enumerate(ids):
            name, sep, rest = canonical(uid).partition("#")
            place = places.get(name)
            if place is None:
                continue
            first, count, kind = place
            if not sep:
                if kind in (KIND_PAGE, KIND_VIDEO):
                    out[i] = first
            elif kind == KIND_VIDEO:
                if rest.isdigit() and 1 <= int(rest) < count:
                    out[i] = first + int(rest)
            else:
                elements.setdefault(name, []).append((i, rest))
        have = pieces() if elements else {}
        for name, asked in elements.items():
            if name in have:
                rows = have[name].rows([x for _, x in asked])
                out[[i for i, _ in asked]] = np.where(rows >= 0, places[name][0] + rows, -1)
        return out
    return resolve


#: The columns of ``read/units.cypher``, in order.
UNIT_KEYS = ["id", "doc", "kind", "tag", "path", "depth", "parent", "pre", "post", "size",
             "pos", "start", "length", "words", "text", "attributes"]


def unit_frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    """:data:`~graphprum.store.base.UNIT_FIELDS` of units from
    ``read/units.cypher`` rows (dicts of :data:`UNIT_KEYS`)."""
    import pandas as pd  # ~0.2 s of import: only for a DataFrame

    out = []
    for r in records:
        start, length = float(r["start"]), float(r["length"])
        out.append({
            "id": r["id"], "doc": r["doc"], "kind": KIND_NAMES[int(r["kind"])],
            "tag": r["tag"], "label_path": r["path"], "depth": int(r["depth"]),
            "parent": r["parent"] or "", "pre": int(r["pre"]), "post": int(r["post"]),
            "size": int(r["size"]), "pos": int(r["pos"]), "start": start,
            "end": start + length, "length": length, "words": int(r["words"]),
            "text": r["text"] or "",
            "attributes": json.loads(r["attributes"]) if r["attributes"] else {}})
    return pd.DataFrame(out, columns=UNIT_FIELDS)
