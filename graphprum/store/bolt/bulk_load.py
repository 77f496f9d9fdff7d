"""A bulk load's documents as ``GRAPH.BULK`` calls (the wire format is
:mod:`graphprum.store.bolt.bulk`'s; how a bulk load runs,
:mod:`graphprum.store.bolt.load`'s).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from graphprum.errors import InputError, StoreError
from graphprum.store.bolt.bulk import EdgeToken, NodeToken, bulk_command, encode_value
from graphprum.store.bolt.connection import BoltConnection
from graphprum.store.bolt.load_records import LoadDocument, digest, make_links
from graphprum.store.bolt.pack import attribute_nid
from graphprum.store.bolt.redis_port import ReplyError
from graphprum.units import LoadReport, ParsedDocument

#: Units after which a load sends its documents read (in one or more calls).
BULK_UNITS = 50_000
#: Bytes of unit records (and about those of link records) in one
#: ``GRAPH.BULK`` call.  Redis drops the connection of a client whose
#: argument passes ``proto-max-bulk-len`` (512 MiB by default) or whose
#: command passes ``client-query-buffer-limit`` (1 GiB), without a word in its
#: log: one call per batch sent PubMed's baseline file pubmed20n0014.xml, one
#: document of 3.2M elements, as an argument of 1.09 GB.
BULK_BYTES = 64 * 2**20

_DOC_PROPS = ["name", "source", "kind", "length", "count", "seq", "digest", "kind_counts",
              "complete"]
_LINK_PROPS = ["key", "load", "complete", "pair", "src", "src_doc", "src_pre", "target",
               "anchor", "lseq", "fragment"]
_INT_PROPS = ["seq", "kind", "depth", "pre", "ppre", "post", "size", "pos", "words"]
_FLOAT_PROPS = ["start", "length"]


class BulkLoader:
    """The documents of a bulk load as ``GRAPH.BULK`` calls on graph ``key``
    (node ids counted as FalkorDB gives them: in the order they are sent).
    What it keeps between calls: the names of the documents and the node id
    of every distinct Attribute (shared by the units of many batches)."""

    def __init__(self, conn: BoltConnection, key: str) -> None:
        self.conn, self.key = conn, key
        self.next_id = 0
        self.begun = False
        self.names: list[str] = []
        self.attributes: dict[str, int] = {}  # Attribute nid -> node id

    def load(self, docs: Iterator[ParsedDocument], lseq: int) -> LoadReport:
        report = LoadReport()
        seen: set[str] = set()
        batch: list[tuple[LoadDocument, str]] = []
        units = 0
        seq = 1
        for doc in docs:
            if doc.name in seen:
                raise InputError(doc.source, None,
                                 f"document id {doc.name!r} occurs twice in this load")
            seen.add(doc.name)
            d = LoadDocument(doc, seq, lseq)
            seq += 1
            lseq += len(doc.links)
            batch.append((d, digest(doc)))
            units += len(doc.tags)
            report.documents += 1
            report.elements += len(doc.tags)
            report.links += len(doc.links)
            if units >= BULK_UNITS:
                self._send(batch)
                batch, units = [], 0
        if batch:
            self._send(batch)
        return report

    def _call(self, args: list[str | bytes | int]) -> None:
        try:
            self.conn.redis_call("a bulk write of this load", *args)
        except ReplyError as exc:
            raise StoreError(f"{self.conn.where()}: GRAPH.BULK refused: {exc}") from None

    def _send(self, batch: list[tuple[LoadDocument, str]]) -> None:
        """The ``GRAPH.BULK`` calls of a batch of documents: as many as keep
        each call's unit records within :data:`BULK_BYTES` (a document may
        span calls: a call's nodes may be the ends of a later call's edges)."""
        records = [[s + n for s, n in zip(_strings(d), _numbers(d), strict=True)]
                   for d, _ in batch]
        nodes: dict[int, np.ndarray] = {}  # a document's node id per unit row
        for piece in _pieces(batch, records):
            self._send_piece(batch, records, piece, nodes)

    def _send_piece(self, batch: list[tuple[LoadDocument, str]], records: list[list[bytes]],
                    piece: list[tuple[int, int, int]], nodes: dict[int, np.ndarray]) -> None:
        """One ``GRAPH.BULK`` call: the units of rows ``[a, b)`` of the
        ``i``-th document of ``batch`` for each ``(i, a, b)`` of ``piece``,
        the document nodes of those that begin here, link records and new
        Attribute nodes (node ids in that order), then ROOT, CHILD and
        HAS_ATTRIBUTE edges."""
        starting = [i for i, a, _ in piece if a == 0]
        base_doc, unit_id = self.next_id, self.next_id + len(starting)
        links = {i: [link for link in batch[i][0].links(self.key, complete=True)
                     if a <= link["src_pre"] < b] for i, a, b in piece}
        attr_id = unit_id + sum(b - a for _, a, b in piece) + sum(map(len, links.values()))
        documents = NodeToken("Document", _DOC_PROPS)
        units = NodeToken("Unit", ["uid", "doc", "tag", "path", "text", "attributes",
                                   *_INT_PROPS, *_FLOAT_PROPS])
        pending = NodeToken("PendingLink", _LINK_PROPS)
        attributes = NodeToken("Attribute", ["nid", "name", "value"])
        root = EdgeToken("ROOT", [])
        child = EdgeToken("CHILD", [])
        has = EdgeToken("HAS_ATTRIBUTE", [])
        for i, a, b in piece:
            d, dig = batch[i]
            doc = d.doc
            if a == 0:
                nodes[i] = np.zeros(len(d.ids), dtype=np.int64)
            node = nodes[i]
            node[a:b] = np.arange(unit_id, unit_id + b - a)
            try:
                if a == 0:
                    row = d.row(dig, complete=True)
                    documents.add([row[p] for p in _DOC_PROPS])
                for r, values in doc.attributes:
                    if not a <= r < b:
                        continue
                    for name, value in values.items():
                        nid = attribute_nid(name, value)
                        target = self.attributes.get(nid)
                        if target is None:
                            attributes.add([nid, name, value])
                            target = self.attributes[nid] = attr_id
                            attr_id += 1
                        has.add(int(node[r]), target, [])
            except ValueError as exc:
                raise InputError(doc.source, None, f"{exc}") from None
            for rec in records[i][a:b]:
                units.add_encoded(rec)
            if a == 0:
                self.names.append(doc.name)
                if len(d.ids):
                    root.add(base_doc + starting.index(i), int(node[0]), [])
            parent = np.asarray(doc.columns["parent"], dtype=np.int64)[a:b]
            kids = np.flatnonzero(parent >= 0)
            if len(kids):
                pairs = np.stack([node[parent[kids]], node[a + kids]], axis=1)
                child.add_raw(pairs.astype("<u8").tobytes(), len(kids))
            for link in links[i]:
                pending.add([link[p] for p in _LINK_PROPS])
            unit_id += b - a
            if b == len(d.ids):
                nodes.pop(i)
        self._call(bulk_command(self.key, not self.begun,
                                [documents, units, pending, attributes], [root, child, has]))
        self.begun = True
        self.next_id = attr_id

    def finish(self) -> None:
        """The LINK edges whose target document was loaded, made in the
        graph from the link records (its indexes created first), and the
        units' held link counts."""
        make_links(self.conn, "load/links_create", self.names, graph=self.key)
        self.conn.write("load/held_all", graph=self.key)


def _pieces(batch: list[tuple[LoadDocument, str]], records: list[list[bytes]]
            ) -> Iterator[list[tuple[int, int, int]]]:
    """The calls of a batch: lists of ``(i, a, b)``, rows ``[a, b)`` of the
    ``i``-th document, each list's unit records (and estimated link records)
    within :data:`BULK_BYTES` (a unit alone may pass it)."""
    piece: list[tuple[int, int, int]] = []
    used = 0
    for i, (d, _) in enumerate(batch):
        sizes = np.fromiter(map(len, records[i]), dtype=np.int64, count=len(records[i]))
        for row, target, anchor in d.doc.links:  # a link record: ~100 bytes and its strings
            sizes[row] += 100 + len(target) + len(anchor or "")
        a = 0
        for r, size in enumerate(sizes.tolist()):
            if used + size > BULK_BYTES and (r > a or piece):
                if r > a:
                    piece.append((i, a, r))
                yield piece
                piece, used, a = [], 0, r
            used += size
        piece.append((i, a, len(sizes)))
    if piece:
        yield piece


def _strings(d: LoadDocument) -> list[bytes]:
    """The string values of every unit of ``d`` (uid, doc, tag, path, text,
    attributes), encoded, one bytes object per unit."""
    doc = d.doc
    name = encode_value(doc.name)
    texts = doc.texts if doc.texts is not None else [""] * len(d.ids)
    return [b"".join((encode_value(uid), name, encode_value(tag), encode_value(path),
                      encode_value(text), encode_value(attrs) if attrs else b"\x00"))
            for uid, tag, path, text, attrs in zip(d.ids, doc.tags, doc.paths, texts, d.attrs,
                                                   strict=True)]


def _numbers(d: LoadDocument) -> list[bytes]:
    """The number values of every unit of ``d`` (:data:`_INT_PROPS`, then
    :data:`_FLOAT_PROPS`), encoded, one bytes object per unit."""
    doc = d.doc
    n = len(d.ids)
    cols = doc.columns
    fields = []
    for p in _INT_PROPS + _FLOAT_PROPS:
        fields += [(f"t_{p}", "u1"), (f"v_{p}", "<f8" if p in _FLOAT_PROPS else "<i8")]
    rec = np.zeros(n, dtype=np.dtype(fields))
    values = {"seq": np.full(n, d.seq), "pre": np.arange(n), "ppre": cols["parent"]}
    for p in _INT_PROPS:
        rec[f"t_{p}"] = 4
        rec[f"v_{p}"] = np.asarray(values[p] if p in values else cols[p], dtype=np.int64)
    for p in _FLOAT_PROPS:
        rec[f"t_{p}"] = 2
        rec[f"v_{p}"] = np.asarray(cols[p], dtype=np.float64)
    data = rec.tobytes()
    size = rec.dtype.itemsize
    return [data[i * size:(i + 1) * size] for i in range(n)]
