"""``copy SRC DST``: copy a collection between stores (either kind).

Documents stream from the source as :class:`~graphprum.units.ParsedDocument`
records and are loaded into the destination in one ``load_documents`` call,
so the destination keeps the source's document order and links (dangling
links stay dangling, with their target names).

Examples
--------
>>> import tempfile, pathlib
>>> from graphprum.store.local import LocalStore
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "x.xml").write_text("<a><b>hi</b><b/></a>")
>>> src = LocalStore(d / "s1"); _ = src.load_xml([d / "x.xml"])
>>> dst = LocalStore(d / "s2")
>>> copy_store(src, dst).elements
3
>>> dst.table().ids() == src.table().ids()
True
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from graphprum.units import UNIT_COLUMNS, ParsedDocument


def iter_local_documents(store) -> Iterator[ParsedDocument]:
    """Stream a :class:`~graphprum.store.local.LocalStore` as parsed documents."""
    table = store.table()
    src, _, targets = store._read_links()
    anchors = store.anchors() or [""] * len(targets)
    docs = table.docs
    doc_of_src = np.asarray(table.columns["doc"])[src] if len(src) else np.zeros(0, np.int64)
    order = np.argsort(doc_of_src, kind="stable")
    bounds = np.searchsorted(doc_of_src[order], np.arange(len(docs) + 1))
    for d, rec in enumerate(docs.to_dict("records")):
        first, count = int(rec["first"]), int(rec["count"])
        sl = slice(first, first + count)
        cols = {c: np.array(table.columns[c][sl], dtype=t) for c, t in UNIT_COLUMNS.items()
                if c not in ("doc", "tag", "path")}
        parent = cols["parent"].astype(np.int64)
        cols["parent"] = np.where(parent >= 0, parent - first, -1).astype(np.int32)
        tags = [table.tags[t] for t in table.columns["tag"][sl]]
        paths = [table.paths[p] for p in table.columns["path"][sl]]
        links = [(int(src[i]) - first, targets[i], anchors[i])
                 for i in order[bounds[d]:bounds[d + 1]]]
        yield ParsedDocument(rec["name"], rec["source"], int(rec["kind"]), tags, paths, cols,
                             links)


def iter_documents(store) -> Iterator[ParsedDocument]:
    """Parsed documents of any store, in its document order."""
    if hasattr(store, "iter_documents"):
        return store.iter_documents()
    return iter_local_documents(store)


def copy_store(src, dst, *, replace: bool = False):
    """Copy every document (with links) of ``src`` into ``dst``; returns the
    destination's load report."""
    return dst.load_documents(iter_documents(src), replace=replace,
                              description={"kind": "copy", "paths": [src.location]})
