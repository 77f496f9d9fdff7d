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

#: Units sent by one ``GRAPH.BULK`` call.
BULK_UNITS = 50_000

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
        """One ``GRAPH.BULK`` call: documents, units, link records and new
        Attribute nodes (node ids in that order), then ROOT, CHILD and
        HAS_ATTRIBUTE edges."""
        n_docs = len(batch)
        n_units = sum(len(d.ids) for d, _ in batch)
        n_links = sum(len(d.doc.links) for d, _ in batch)
        base_doc, base_unit = self.next_id, self.next_id + n_docs
        attr_id = base_unit + n_units + n_links
        documents = NodeToken("Document", _DOC_PROPS)
        units = NodeToken("Unit", ["uid", "doc", "tag", "path", "text", "attributes",
                                   *_INT_PROPS, *_FLOAT_PROPS])
        pending = NodeToken("PendingLink", _LINK_PROPS)
        attributes = NodeToken("Attribute", ["nid", "name", "value"])
        root = EdgeToken("ROOT", [])
        child = EdgeToken("CHILD", [])
        has = EdgeToken("HAS_ATTRIBUTE", [])
        unit_id = base_unit
        for i, (d, dig) in enumerate(batch):
            doc = d.doc
            row = d.row(dig, complete=True)
            try:
                documents.add([row[p] for p in _DOC_PROPS])
                strings = _strings(d)
                for r, values in doc.attributes:
                    for name, value in values.items():
                        nid = attribute_nid(name, value)
                        node = self.attributes.get(nid)
                        if node is None:
                            attributes.add([nid, name, value])
                            node = self.attributes[nid] = attr_id
                            attr_id += 1
                        has.add(unit_id + r, node, [])
            except ValueError as exc:
                raise InputError(doc.source, None, f"{exc}") from None
            for rec, num in zip(strings, _numbers(d), strict=True):
                units.add_encoded(rec + num)
            root.add(base_doc + i, unit_id, [])
            parent = np.asarray(doc.columns["parent"], dtype=np.int64)
            kids = np.flatnonzero(parent >= 0)
            if len(kids):
                pairs = np.stack([unit_id + parent[kids], unit_id + kids], axis=1)
                child.add_raw(pairs.astype("<u8").tobytes(), len(kids))
            self.names.append(doc.name)
            for link in d.links(self.key, complete=True):
                pending.add([link[p] for p in _LINK_PROPS])
            unit_id += len(d.ids)
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
