"""What a load writes of each document into a Bolt store, the
statements that turn its link records into LINK edges and held counts
(the module notes of :mod:`graphprum.store.bolt.load` say when), and the
load history it leaves on the ``Meta`` node.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from graphprum.store.base import merged_link_stats
from graphprum.store.bolt.connection import FORMAT, BoltConnection, cypher
from graphprum.store.bolt.pack import attribute_json, unit_ids
from graphprum.units import DocumentBatch, LoadReport, ParsedDocument

#: Raw page-to-page links of a load: pairs of equally long lists (from, to).
LinkPairs = Iterable[tuple[Sequence[str], Sequence[str]]]


def documents_of(items: Iterable[ParsedDocument | DocumentBatch]) -> Iterator[ParsedDocument]:
    """Single documents of a stream of documents and batches."""
    for item in items:
        if isinstance(item, DocumentBatch):
            yield from item.documents()
        else:
            yield item


def digest(doc: ParsedDocument) -> str:
    """A fingerprint of everything a document stores (a re-run of a load
    leaves a document with the same fingerprint as it is)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(json.dumps([doc.name, doc.source, int(doc.kind), doc.tags, doc.paths,
                         [list(x) for x in doc.links], doc.texts,
                         [[r, a] for r, a in doc.attributes]]).encode())
    for c in sorted(doc.columns):
        h.update(c.encode())
        h.update(np.ascontiguousarray(doc.columns[c]).tobytes())
    return h.hexdigest()


def _kind_counts(doc: ParsedDocument) -> list[int]:
    kind = np.asarray(doc.columns["kind"], dtype=np.int64)
    return np.bincount(kind, minlength=4)[:4].tolist() if len(kind) else [0, 0, 0, 0]


class LoadDocument:
    """A document of a load, with what its writes need.  ``name`` is the
    name it is written under (its own, or a name of its own when it
    replaces a stored document: ``replaces``)."""

    __slots__ = ("attrs", "doc", "ids", "lseq", "replaces", "seq")

    def __init__(self, doc: ParsedDocument, seq: int, lseq: int,
                 replaces: str | None = None) -> None:
        if replaces is not None:
            doc = dataclasses.replace(doc, name=f"\x1dreplacing\x1d{seq}\x1d{doc.name}")
        self.doc, self.seq, self.lseq, self.replaces = doc, seq, lseq, replaces
        self.ids = unit_ids(doc)
        self.attrs = attribute_json(doc)

    def row(self, digest_: str, complete: bool = False) -> dict[str, Any]:
        doc = self.doc
        return {"name": doc.name, "source": doc.source, "kind": int(doc.kind),
                "length": float(doc.length), "count": len(self.ids), "seq": self.seq,
                "digest": digest_, "kind_counts": _kind_counts(doc),
                "complete": complete, "replaces": self.replaces}

    def links(self, load: str, complete: bool = False) -> list[dict[str, Any]]:
        doc = self.doc
        # target: the document's name; fragment: the element's name in it ('' for its root)
        return [{"key": f"{doc.name}\x1f{k}", "load": load, "complete": complete,
                 "pair": False, "src": self.ids[row], "src_doc": doc.name,
                 "src_pre": int(row), "target": target.partition("#")[0],
                 "fragment": target.partition("#")[2], "anchor": anchor or "",
                 "lseq": self.lseq + k}
                for k, (row, target, anchor) in enumerate(doc.links)]


def make_links(conn: BoltConnection, name: str, names: Sequence[str],
               graph: str | None = None) -> None:
    """Run ``name``, a statement making the LINK edges of link records of
    documents ``names`` that ends where each link arrives
    (``load/link_arrival.cypher``, put in for its ``{arrival}``)."""
    conn.write_rows(name, "names", names, graph=graph,
                    template={"arrival": cypher("load/link_arrival")})


def count_held(conn: BoltConnection, names: Sequence[str]) -> None:
    """Count again the links held in the subtree of every unit of documents
    ``names`` (``Unit.held``, ``load/held.cypher``), after their LINK edges
    changed: a few statements per load (a bulk load counts its new graph
    whole: ``load/held_all.cypher``)."""
    conn.write_rows("load/held_clear", "names", names)
    conn.write_rows("load/held", "names", names)


def load_history(meta: dict[str, Any], report: LoadReport,
                 description: dict[str, Any] | None, link_stats: dict[str, Any] | None,
                 stored: int) -> dict[str, Any]:
    """Parameters of ``load/meta`` after this load, which found ``stored``
    documents in the store."""
    loads = list(meta["loads"])
    stats = merged_link_stats(meta["link_stats"], link_stats, report.replaced, stored)
    desc = {k: v for k, v in (description or {}).items() if k != "paths"}
    paths = [str(p) for p in (description or {}).get("paths", [])]
    desc["paths"] = paths[:5] + ([f"... {len(paths) - 5} more"] if len(paths) > 5 else [])
    loads.append({**desc, "documents": report.documents, "units": report.elements,
                  "replaced": report.replaced,
                  "time": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
    while len(loads) > 1 and len(json.dumps(loads)) > 2500:
        loads.pop(0)  # the recent history (a query under FalkorDB's Bolt limit)
    return {"format": FORMAT, "loads": json.dumps(loads), "link_stats": json.dumps(stats),
            "load_count": meta["load_count"] + 1}
