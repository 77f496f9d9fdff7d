"""The Arrow tables the embedded graph is copied from, and its schema.

Each COPY of a build (:func:`graphprum.store.local.graph.build`) reads one
Arrow table made here from a generation's columns: the documents, the units
a batch of rows at a time (their ids, texts and attributes as JSON, and
``held``, the links in each one's subtree), the Attribute nodes, the
CHILD, ROOT, LINK and HAS_ATTRIBUTE relationships, and each stored
summary.  Strings go over as Arrow strings over the stored bytes where
they can (no Python string per row).  The graph model is in
:mod:`graphprum.store.local.graph`.
"""

from __future__ import annotations

from collections.abc import Iterator
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from graphprum.store.linkgraph import LinkGraph, small_rows
from graphprum.store.local.graph_ids import document_chunks, unit_ids
from graphprum.store.local.links import LINKS, LinkColumns
from graphprum.store.local.strings import StringColumn
from graphprum.units import UnitTable

#: ``(table name, Arrow table)`` pairs, for COPY (or
#: :data:`~graphprum.store.local.graph.CHECKPOINT`, None).
Frames = Iterator[tuple[str, "pa.Table | None"]]


def schema(conn: Any) -> None:
    for statement in (
        "CREATE NODE TABLE Document(name STRING, source STRING, kind INT8, length DOUBLE, "
        "count INT64, PRIMARY KEY(name))",
        "CREATE NODE TABLE Unit(row INT64, uid STRING, doc STRING, tag STRING, path STRING, "
        "kind INT8, depth INT16, pre INT32, post INT32, size INT32, pos INT32, start DOUBLE, "
        "length DOUBLE, words INT32, text STRING, attributes STRING, held INT64, "
        "PRIMARY KEY(row))",
        "CREATE NODE TABLE Attribute(aid INT64, nid STRING, name STRING, value STRING, "
        "PRIMARY KEY(aid))",
        "CREATE NODE TABLE Summary(nid STRING, axpre STRING, sid STRING, key STRING, "
        "extent INT64, length DOUBLE, PRIMARY KEY(nid))",
        "CREATE REL TABLE CHILD(FROM Unit TO Unit)",
        "CREATE REL TABLE HAS_ATTRIBUTE(FROM Unit TO Attribute)",
        "CREATE REL TABLE ROOT(FROM Document TO Unit)",
        "CREATE REL TABLE LINK(FROM Unit TO Unit, anchor STRING)",
        "CREATE REL TABLE IN_PARTITION(FROM Unit TO Summary)",
        "CREATE REL TABLE SUMMARY_EDGE(FROM Summary TO Summary, count INT64, length DOUBLE)",
    ):
        conn.execute(statement)


def _table(columns: dict[str, Any]) -> pa.Table:
    """An Arrow table of ``columns``: numpy numbers as they are (no copy),
    strings (object arrays, None for null) as ``large_string``.

    The graph is copied from Arrow, not from pandas: Arrow holds a string
    in its bytes and an offset (a Python string costs 49 bytes more), the
    stored string columns are handed over without a copy
    (:func:`_stored_strings`), and LadybugDB scans it without the GIL.
    With pandas 3 and pyarrow installed, a DataFrame of object columns was
    also converted to Arrow string columns on the way (1.4 s became 2.5 s
    for the units of 625k elements).

    >>> t = _table({"n": np.arange(3), "s": np.array(["a", None, "é"], dtype=object)})
    >>> t.column("s").to_pylist(), str(t.schema.field("s").type)
    (['a', None, 'é'], 'large_string')
    """
    out = {}
    for name, values in columns.items():
        if isinstance(values, pa.Array | pa.ChunkedArray):
            out[name] = values
        elif isinstance(values, np.ndarray) and values.dtype != object:
            out[name] = pa.array(np.ascontiguousarray(values))
        else:
            out[name] = _large_strings(values)
    return pa.table(out)


def _large_strings(values: Any) -> pa.Array:
    """Python strings (None for null) as Arrow ``large_string``; a lone
    surrogate, which the store's columns keep (a file name that is not
    UTF-8, text given to the API), becomes U+FFFD: the graph cannot hold it.

    >>> _large_strings(["a\\udcff", None]).to_pylist()
    ['a\\ufffd', None]
    """
    try:
        return pa.array(values, type=pa.large_string())
    except UnicodeEncodeError:
        return pa.array([v if v is None else v.translate(_SURROGATES) for v in values],
                        type=pa.large_string())


def _coded(codes: np.ndarray, strings: pa.Array) -> pa.Array:
    """``strings[codes]`` as an Arrow dictionary array (4 bytes a row, where
    the strings themselves cost their length: 30 to 80 bytes for label
    paths), which LadybugDB copies as plain strings.

    >>> import pyarrow as pa
    >>> _coded(np.array([1, 0, 1]), pa.array(["a", "bc"])).to_pylist()
    ['bc', 'a', 'bc']
    """
    return pa.DictionaryArray.from_arrays(np.asarray(codes, dtype=np.int32), strings)


def _stored_strings(column: StringColumn, lo: int, hi: int) -> pa.Array:
    """Rows ``lo`` to ``hi`` of a stored string column as an Arrow
    ``large_string`` array over the column's own bytes (no copy, no Python
    string); bytes that are not UTF-8 (a lone surrogate kept by
    ``surrogatepass``) are decoded and replaced by U+FFFD.

    >>> import tempfile, pathlib
    >>> from graphprum.store.local.strings import StringColumnWriter
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with StringColumnWriter(d / "t") as w:
    ...     w.extend(["ab", "é", "", "x\\ud800y"])
    >>> col = StringColumn(d / "t")
    >>> _stored_strings(col, 1, 3).to_pylist()
    ['é', '']
    >>> _stored_strings(col, 3, 4).to_pylist() == ["x\\ufffdy"]
    True
    """
    ends = np.asarray(column.ends[lo:hi], dtype=np.int64)
    begin = int(column.ends[lo - 1]) if lo > 0 else 0
    offsets = np.concatenate(([0], ends - begin))
    data = np.asarray(column.blob[begin:int(ends[-1]) if len(ends) else begin])
    array = pa.LargeStringArray.from_buffers(hi - lo, pa.py_buffer(offsets),
                                             pa.py_buffer(data))
    try:
        array.validate(full=True)
    except pa.ArrowInvalid:
        array = pa.array([v.translate(_SURROGATES) for v in column.slice(lo, hi)],
                         type=pa.large_string())
    return array


#: Lone surrogates (code points U+D800 to U+DFFF) to U+FFFD.
_SURROGATES = dict.fromkeys(range(0xD800, 0xE000), 0xFFFD)


def document_frames(table: UnitTable) -> Frames:
    docs = table.docs
    yield "Document", _table({
        "name": np.asarray(docs["name"], dtype=object),
        "source": np.asarray(docs["source"], dtype=object),
        "kind": np.asarray(docs["kind"]), "length": np.asarray(docs["length"]),
        "count": np.asarray(docs["count"])})


def unit_frame(table: UnitTable, texts: StringColumn, attributes: Attributes, lo: int,
                hi: int, links: LinkGraph) -> pa.Table:
    """The Unit rows ``lo`` to ``hi`` (whole documents), ``held`` the links
    held in each one's subtree as a Bolt store keeps it (the walk's Cypher,
    ``cypher/nav/walk_degrees.cypher``, reads it).  (``row`` is the key, not a
    SERIAL: a COPY does not keep its frame's order.)"""
    cols = table.columns
    sl = slice(lo, hi)
    doc = np.asarray(cols["doc"][sl], dtype=np.int64)
    d_lo, d_hi = (int(doc.min()), int(doc.max()) + 1) if len(doc) else (0, 0)
    first = np.asarray(table.docs["first"][d_lo:d_hi], dtype=np.int64)
    return _table({
        "row": np.arange(lo, hi, dtype=np.int64), "uid": _unit_id_column(table, lo, hi),
        "doc": _coded(doc - d_lo, _large_strings(list(table.docs["name"][d_lo:d_hi]))),
        "tag": _coded(cols["tag"][sl], _large_strings(list(table.tags))),
        "path": _coded(cols["path"][sl], _large_strings(list(table.paths))),
        "kind": np.asarray(cols["kind"][sl], np.int8),
        "depth": np.asarray(cols["depth"][sl], np.int16),
        "pre": (np.arange(lo, hi) - first[doc - d_lo]).astype(np.int32),
        "post": np.asarray(cols["post"][sl], np.int32),
        "size": np.asarray(cols["size"][sl], np.int32),
        "pos": np.asarray(cols["pos"][sl], np.int32),
        "start": np.asarray(cols["start"][sl], np.float64),
        "length": np.asarray(cols["length"][sl], np.float64),
        "words": np.asarray(cols["words"][sl], np.int32),
        "text": _stored_strings(texts, lo, hi),
        "attributes": attributes.json(lo, hi),  # None: null
        "held": _held(links, lo, hi),
    })


def _held(links: LinkGraph, lo: int, hi: int) -> pa.Array:
    """The number of links held in the subtree of rows ``lo`` to ``hi``,
    null for none (as a Bolt store keeps it: only on units that hold links).

    >>> g = LinkGraph.build(np.array([1, 1]), np.array([0, 0]), 3, size=np.array([2, 1, 1]))
    >>> _held(g, 0, 3).to_pylist()
    [2, 2, None]
    """
    first, last = links.held(np.arange(lo, hi))
    held = np.asarray(last - first, dtype=np.int64)
    return pa.array(held, mask=held == 0)


#: Rows whose ids are made as Python strings at a time (:func:`_unit_id_column`).
ID_PIECE = 1 << 18


def _unit_id_column(table: UnitTable, lo: int, hi: int) -> pa.ChunkedArray:
    """The ids of rows ``lo`` to ``hi`` as Arrow strings, made
    :data:`ID_PIECE` rows at a time: the Python strings of one piece are let
    go as soon as Arrow holds its bytes (a Python string costs 49 bytes
    more; 2M of them at once were a third of the build's peak).

    >>> t = UnitTable.from_tree("d", ["a", "b", "b"], [-1, 0, 0])
    >>> _unit_id_column(t, 0, 3).to_pylist() == unit_ids(t).tolist()
    True
    """
    first = np.asarray(table.docs["first"], dtype=np.int64)
    inside = first[(first >= lo) & (first < hi)] - lo  # lo starts a document
    pieces = [(lo + a, lo + b) for a, b in document_chunks(inside, hi - lo, ID_PIECE)]
    return pa.chunked_array([_table({"uid": unit_ids(table, a, b)}).column("uid").combine_chunks()
                             for a, b in pieces], pa.large_string())


class Attributes:
    """A generation's attributes: the rows that carry them, and their names
    and values, memory-mapped (read a piece at a time)."""

    def __init__(self, gen: Path) -> None:
        self.rows = np.load(gen / "attributes" / "rows.npy", mmap_mode="r")
        self.names = StringColumn(gen / "attributes" / "names")
        self.values = StringColumn(gen / "attributes" / "values")

    def json(self, lo: int, hi: int) -> pa.Array:
        """The attributes of rows ``lo`` to ``hi``, each row's as one JSON
        object (null for none): the text of ``json.dumps`` of the row's dict
        (attribute names are unique in an element), made by Arrow over the
        stored bytes: names and values escaped and quoted
        (:func:`_json_strings`), joined ``"name":value``, then a row's pairs
        joined by commas inside braces.  Five times faster than joining
        Python strings (1.0 s for the 1.16M attributes of 2M rows before),
        and no Python string per attribute."""
        import pyarrow.compute as pc  # 50 ms of import (arrow_compute.py): graph only
        m = hi - lo
        a, b = (int(x) for x in np.searchsorted(self.rows, [lo, hi]))
        if a == b:
            return pa.nulls(m, pa.large_string())
        colon = pa.scalar(":", pa.large_string())
        pairs = pc.binary_join_element_wise(
            _json_strings(_stored_strings(self.names, a, b)),
            _json_strings(_stored_strings(self.values, a, b)), colon)
        counts = np.bincount(np.asarray(self.rows[a:b], dtype=np.int64) - lo, minlength=m)
        offsets = np.concatenate(([0], np.cumsum(counts)))
        inside = pc.binary_join(pa.LargeListArray.from_arrays(offsets, pairs),
                                pa.scalar(",", pa.large_string()))
        objects = pc.binary_join_element_wise(pa.scalar("{", pa.large_string()), inside,
                                              pa.scalar("}", pa.large_string()),
                                              pa.scalar("", pa.large_string()))
        return pc.if_else(pa.array(counts > 0), objects, pa.scalar(None, pa.large_string()))


#: What ``json.dumps`` writes for the characters it escapes with a short form.
_JSON_SHORT = (("\\", "\\\\"), ('"', '\\"'), ("\n", "\\n"), ("\r", "\\r"),
               ("\t", "\\t"), ("\b", "\\b"), ("\f", "\\f"))


#: Control characters ``json.dumps`` writes as ``\\u00XX`` (bytes of UTF-8 text).
_JSON_LONG_FORM = np.zeros(256, dtype=bool)
_JSON_LONG_FORM[[*range(0x08), 0x0B, *range(0x0E, 0x20)]] = True


def _json_strings(values: pa.Array) -> pa.Array:
    """Each string as a JSON string literal, as ``json.dumps`` (with
    ``ensure_ascii=False``) writes it: quoted, with backslash, quote and
    control characters escaped (the rare control characters without a
    short form by Python's own encoder).

    >>> import json, pyarrow as pa
    >>> texts = ["plain", 'say "hi"', "back\\\\slash", "tab\\tnl\\n", "bell\\x07", "café"]
    >>> _json_strings(pa.array(texts, pa.large_string())).to_pylist() == \\
    ...     [json.dumps(t, ensure_ascii=False) for t in texts]
    True
    """
    import pyarrow.compute as pc  # 50 ms of import (arrow_compute.py): graph only
    data = values.buffers()[2]  # every byte of the strings (more when sliced: no harm)
    raw = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    if (raw < 32).any() or (raw == 34).any() or (raw == 92).any():
        if _JSON_LONG_FORM[raw].any():
            return pa.array([encode_basestring(v) for v in values.to_pylist()],
                            pa.large_string())
        for char, escaped in _JSON_SHORT:
            values = pc.replace_substring(values, char, escaped)
    quote = pa.scalar('"', pa.large_string())
    return pc.binary_join_element_wise(quote, values, quote, pa.scalar("", pa.large_string()))


#: Attributes joined and hashed at a time (:func:`attribute_frames`).
ATTRIBUTE_PIECE = 1 << 20


def attribute_frames(attributes: Attributes) -> Frames:
    """One Attribute node per distinct (name, value), numbered in order of
    first appearance (``aid``, the key HAS_ATTRIBUTE from each unit points
    at), its ``nid`` ``name=value`` as on the Bolt store.

    Each attribute's ``name NUL value`` is made and dictionary-encoded by
    Arrow over the stored bytes a piece at a time (no Python string), and
    the pieces' dictionaries unified (in order of first appearance): what
    stays is a code per attribute and the distinct pairs."""
    import pyarrow.compute as pc  # 50 ms of import (arrow_compute.py): graph only
    n = len(attributes.rows)
    if not n:
        return
    nul = pa.scalar("\0", pa.large_string())  # in no name or value (XML has no NUL)
    pieces = pa.chunked_array([
        pc.binary_join_element_wise(_stored_strings(attributes.names, a, b),
                                    _stored_strings(attributes.values, a, b),
                                    nul).dictionary_encode()
        for a, b in ((a, min(n, a + ATTRIBUTE_PIECE)) for a in range(0, n, ATTRIBUTE_PIECE))
    ]).unify_dictionaries()
    name_value = pc.split_pattern(pieces.chunk(0).dictionary, "\0", max_splits=1)
    to = pa.chunked_array([c.indices for c in pieces.chunks])
    del pieces
    name, value = pc.list_element(name_value, 0), pc.list_element(name_value, 1)
    del name_value
    yield "Attribute", pa.table({
        "aid": pa.array(np.arange(len(name), dtype=np.int64)),
        "nid": pc.binary_join_element_wise(name, value, pa.scalar("=", pa.large_string())),
        "name": name, "value": value})
    rows = pa.array(small_rows(attributes.rows))
    del name, value, attributes  # the maps of names and values, not held through the COPY
    yield "HAS_ATTRIBUTE", pa.table({"from": rows, "to": to})


def edge_frames(table: UnitTable, gen: Path) -> Frames:
    """The CHILD, ROOT and LINK relationships.  CHILD's rows are the
    stored ``int32`` of the parent column (LadybugDB casts them to the
    ``INT64`` key), made without an ``int64`` copy: at 20M elements the
    ``int64`` parents and children held through the COPY were 320 MB more
    at the build's peak."""
    n = len(table)
    parent = table.columns["parent"]
    child = parent >= 0
    yield "CHILD", _table({"from": np.asarray(parent[child]),
                           "to": np.arange(n, dtype=parent.dtype)[child]})
    del parent, child  # not held through ROOT and LINK
    docs = table.docs
    yield "ROOT", _table({"from": np.asarray(docs["name"], dtype=object),
                          "to": np.asarray(docs["first"], dtype=np.int64)})
    links = LinkColumns(gen / LINKS)
    src, dst = np.asarray(links.src, dtype=np.int64), np.asarray(links.dst, dtype=np.int64)
    anchors = np.asarray(links.anchors(), dtype=object)
    keep = (dst >= 0) & (src < n)
    if keep.any():
        yield "LINK", _table({
            "from": src[keep], "to": dst[keep],
            "anchor": anchors[keep] if len(anchors) else np.full(int(keep.sum()), None, object)})


def summary_frames(axpre: str, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> Frames:
    keys = meta.get("keys", [])
    g = len(keys)
    nid = np.asarray([f"{axpre}|S{i + 1}" for i in range(g)], dtype=object)
    yield "Summary", _table({
        "nid": nid, "axpre": np.full(g, axpre, dtype=object),
        "sid": np.asarray([f"S{i + 1}" for i in range(g)], dtype=object),
        "key": np.asarray(keys, dtype=object),
        "extent": np.asarray(arrays["partition_extent"], np.int64),
        "length": np.asarray(arrays["partition_length"], np.float64)})
    membership = np.asarray(arrays["membership"], dtype=np.int64)
    rows = np.flatnonzero(membership >= 0)
    yield "IN_PARTITION", _table({"from": rows, "to": nid[membership[rows]]})
    src = np.asarray(arrays["edge_src"], np.int64)
    dst = np.asarray(arrays["edge_dst"], np.int64)
    yield "SUMMARY_EDGE", _table({
        "from": nid[src] if len(src) else np.zeros(0, dtype=object),
        "to": nid[dst] if len(dst) else np.zeros(0, dtype=object),
        "count": np.asarray(arrays["edge_count"], np.int64),
        "length": np.asarray(arrays["edge_length"], np.float64)})
