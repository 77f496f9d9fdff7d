"""FalkorDB's bulk insert protocol (``GRAPH.BULK``), written for the Bolt store.

``GRAPH.BULK GRAPH [BEGIN] NODES EDGES NODE_TOKENS EDGE_TOKENS TOKEN...``
creates nodes and edges from binary tokens (FalkorDB's
``src/bulk_insert/bulk_insert.c``; ``falkordb-bulk-loader`` builds the same
tokens from CSV files).  ``BEGIN`` creates the graph and fails if its key
exists; later calls without it add to the graph.  A token is one label or
relationship type:

* a header: the label (NUL-terminated; ``A:B`` for several labels), the
  number of properties (uint32, little-endian) and their names
  (NUL-terminated each);
* records until the token ends: for a node, one value per property; for an
  edge, source and destination node ids (uint64 each), then its values.

A value is a type byte and its payload: 0 null (no payload: the property is
left out), 1 bool (1 byte), 2 double (8 bytes), 3 string (NUL-terminated),
4 integer (int64), 5 array (int64 length, then values).  Nodes get ids
0, 1, 2, ... in the order they are sent, in a new graph that nothing else
writes to, so edges name their ends by counting.

Examples
--------
>>> t = NodeToken("Unit", ["uid", "n"])
>>> t.add(["a", 1])
>>> t.bytes()[:18]
b'Unit\\x00\\x02\\x00\\x00\\x00uid\\x00n\\x00\\x03a\\x00'
>>> e = EdgeToken("CHILD", [])
>>> e.add(0, 1, [])
>>> len(e.bytes())  # header 10 + two uint64
26
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from typing import Any

_PACK_INT = struct.Struct("<q").pack
_PACK_DOUBLE = struct.Struct("<d").pack
_PACK_EDGE = struct.Struct("<QQ").pack


def encode_value(value: Any) -> bytes:
    """One property value in the bulk format (see the module notes).

    >>> encode_value(None), encode_value(True), encode_value("é")
    (b'\\x00', b'\\x01\\x01', b'\\x03\\xc3\\xa9\\x00')
    >>> encode_value([1, 2.5])[:9]
    b'\\x05\\x02\\x00\\x00\\x00\\x00\\x00\\x00\\x00'
    """
    if value is None:
        return b"\x00"
    if isinstance(value, bool):
        return b"\x01\x01" if value else b"\x01\x00"
    if isinstance(value, int):
        return b"\x04" + _PACK_INT(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value} cannot be stored")
        return b"\x02" + _PACK_DOUBLE(value)
    if isinstance(value, str):
        data = value.encode("utf-8")
        if b"\x00" in data:
            raise ValueError("a string holding NUL cannot be stored in FalkorDB")
        return b"\x03" + data + b"\x00"
    if isinstance(value, list | tuple):
        return b"\x05" + _PACK_INT(len(value)) + b"".join(encode_value(v) for v in value)
    raise ValueError(f"a {type(value).__name__} cannot be stored")


def header(label: str, properties: Sequence[str]) -> bytes:
    """A token's header: label, property count, property names."""
    parts = [label.encode("utf-8"), b"\x00", struct.pack("<I", len(properties))]
    for p in properties:
        data = p.encode("utf-8")
        if b"\x00" in data:
            raise ValueError(f"property name {p!r} holds NUL")
        parts += [data, b"\x00"]
    return b"".join(parts)


class NodeToken:
    """The nodes of one label sent in one ``GRAPH.BULK`` call."""

    def __init__(self, label: str, properties: Sequence[str]) -> None:
        self.label = label
        self.properties = list(properties)
        self.parts: list[bytes] = []
        self.count = 0

    def add(self, values: Sequence[Any]) -> None:
        """One node: a value per property (None: not set)."""
        self.parts.append(b"".join(encode_value(v) for v in values))
        self.count += 1

    def add_encoded(self, record: bytes) -> None:
        """One node whose values are already encoded."""
        self.parts.append(record)
        self.count += 1

    def bytes(self) -> bytes:
        """The token."""
        return header(self.label, self.properties) + b"".join(self.parts)


class EdgeToken:
    """The relationships of one type sent in one ``GRAPH.BULK`` call."""

    def __init__(self, rel_type: str, properties: Sequence[str]) -> None:
        self.rel_type = rel_type
        self.properties = list(properties)
        self.parts: list[bytes] = []
        self.count = 0

    def add(self, src: int, dst: int, values: Sequence[Any]) -> None:
        """One relationship from node id ``src`` to node id ``dst``."""
        self.parts.append(_PACK_EDGE(src, dst) + b"".join(encode_value(v) for v in values))
        self.count += 1

    def add_raw(self, data: bytes, count: int) -> None:
        """``count`` relationships without properties, encoded (source and
        destination ids as little-endian uint64 pairs)."""
        self.parts.append(data)
        self.count += count

    def bytes(self) -> bytes:
        """The token."""
        return header(self.rel_type, self.properties) + b"".join(self.parts)


def bulk_command(graph: str, begin: bool, nodes: Sequence[NodeToken],
                 edges: Sequence[EdgeToken]) -> list[str | bytes | int]:
    """The arguments of one ``GRAPH.BULK`` call (empty tokens left out)."""
    nodes = [t for t in nodes if t.count]
    edges = [t for t in edges if t.count]
    return ["GRAPH.BULK", graph, *(["BEGIN"] if begin else []),
            sum(t.count for t in nodes), sum(t.count for t in edges), len(nodes), len(edges),
            *(t.bytes() for t in nodes), *(t.bytes() for t in edges)]
