"""Writing one generation of the embedded store's columns.

A load streams documents into a :class:`~graphprum.store.local.spool.Builder`,
which spools their unit columns, texts and attributes to files in the new
generation's temporary directory (memory stays bounded by one batch,
whatever the collection's size).  :func:`write_generation` then writes
every column of the new generation block by block: the old generation's
rows that survive (minus replaced documents) followed by the new rows,
with parents, documents and link sources renumbered, and the links
resolved to the rows they arrive at.  :mod:`~graphprum.store.local.columns`
reads a generation's columns back.

Layout of a generation's columns::

    units/<column>.npy      one per UNIT_COLUMNS entry (memory-mapped when read)
    units/text.{bin,npy}    text snippet per row      (string column)
    attributes/rows.npy, attributes/names.{bin,npy}, attributes/values.{bin,npy}
                            every attribute as (row, name, value), rows ascending
    vocab.json              tag and label-path vocabularies
    docs/names.{bin,npy}    document names (string column), and their index
    docs/names.hash.npy, docs/names.order.npy
                            (:class:`~graphprum.store.local.strings.StringIndex`:
                            a name's document without reading the others)
    docs/sources.{bin,npy}  the file each document came from (string column)
    docs/{kind,first,count}.npy
    links/                  rows holding and receiving every link, and the
                            link graph (:mod:`graphprum.store.local.links`)
"""


from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np

from graphprum.store.linkgraph import names_fragment
from graphprum.store.local.layout import write_json
from graphprum.store.local.links import LINKS, LinkColumns, Sparse, write_links
from graphprum.store.local.spool import BLOCK, Builder
from graphprum.store.local.strings import (
    StringColumn,
    StringColumnWriter,
    StringIndex,
    string_hashes,
    write_string_index,
)
from graphprum.units import KIND_NAMES, UNIT_COLUMNS, UnitTable


class NpyWriter:
    """Write a 1-d ``.npy`` file of known length block by block."""

    def __init__(self, path: Path, dtype: type | np.dtype, length: int) -> None:
        self.dtype = np.dtype(dtype)
        self.length = length
        self.written = 0
        self.file = open(path, "wb")  # noqa: SIM115 - closed by __exit__
        np.lib.format.write_array_header_1_0(self.file, {
            "descr": np.lib.format.dtype_to_descr(self.dtype), "fortran_order": False,
            "shape": (length,)})

    def write(self, values: np.ndarray) -> None:
        """Append ``values``."""
        self.file.write(np.ascontiguousarray(values, dtype=self.dtype).data)
        self.written += len(values)

    def __enter__(self) -> NpyWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.file.close()
        if exc[0] is None and self.written != self.length:  # pragma: no cover - a bug
            raise RuntimeError(f"{self.file.name}: wrote {self.written} of {self.length}")


def save_npy(path: Path, array: np.ndarray) -> None:
    """``np.save`` without pickles."""
    with open(path, "wb") as f:
        np.save(f, np.ascontiguousarray(array), allow_pickle=False)


class RowMap:
    """Where the old generation's rows and documents go in the new one:
    the rows of replaced documents are dropped, the others keep their order
    and the load's rows follow them.

    Calling it maps rows (old ones, then new ones numbered from
    ``n_old``) to their rows in the new generation, -1 for a dropped row.
    """

    def __init__(self, old: UnitTable, replaced: set[int]) -> None:
        self.n_old = len(old)
        self.keep = np.ones(self.n_old, dtype=bool)  # which old rows survive
        first, count = old.docs["first"], old.docs["count"]
        for d in replaced:
            self.keep[first[d]:first[d] + count[d]] = False
        self.n_kept = int(self.keep.sum())
        self._kept_rank = np.cumsum(self.keep) - 1 if replaced else None
        self.keep_docs = np.array([d not in replaced for d in range(len(old.docs))], dtype=bool)
        self.n_kept_docs = int(self.keep_docs.sum())
        self.doc_rank = np.cumsum(self.keep_docs) - 1  # new number of a kept document

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        """New row of old and new rows (-1 for a dropped old row)."""
        rows = np.asarray(rows, dtype=np.int64)
        out = rows - self.n_old + self.n_kept
        old_rows = rows < self.n_old
        if self._kept_rank is None:
            out[old_rows] = rows[old_rows]
        else:
            r = rows[old_rows]
            out[old_rows] = np.where(self.keep[r], self._kept_rank[r], -1)
        return out


def write_generation(tmp: Path, old: UnitTable, old_dir: Path | None, replaced: set[int],
                     builder: Builder) -> dict[str, Any]:
    """Write old units (minus replaced documents) + new units into ``tmp``;
    the new generation's counts."""
    (tmp / "units").mkdir(parents=True)
    (tmp / "docs").mkdir()
    (tmp / "links").mkdir()
    remap = RowMap(old, replaced)
    per_kind = _write_unit_columns(tmp, old, old_dir, remap, builder)
    _write_attribute_triples(tmp, old_dir if remap.n_old else None, remap, builder)
    write_json(tmp / "vocab.json", {"tags": builder.tags, "paths": builder.paths})
    firsts, counts = _write_doc_columns(tmp, old, old_dir, remap, builder)
    resolved, dangling = _write_links(tmp, old, old_dir, remap if replaced else None, builder,
                                      firsts, counts)
    return {"documents": len(counts), "units": remap.n_kept + builder.n,
            **{KIND_NAMES[k]: int(per_kind[k]) for k in KIND_NAMES},
            "links": resolved, "dangling_links": dangling, "links_added": builder.n_links}


def _write_unit_columns(tmp: Path, old: UnitTable, old_dir: Path | None, remap: RowMap,
                        builder: Builder) -> np.ndarray:
    """Every unit column and the texts: the kept old rows, then the new
    ones, with documents and parents renumbered; the number of units of
    each kind."""
    n_old, keep = remap.n_old, remap.keep
    per_kind = np.zeros(4, dtype=np.int64)
    for c, dtype in UNIT_COLUMNS.items():
        with NpyWriter(tmp / "units" / f"{c}.npy", dtype, remap.n_kept + builder.n) as out:
            old_blocks = ((True, np.asarray(old.columns[c][i:i + BLOCK])[keep[i:i + BLOCK]])
                          for i in range(0, n_old, BLOCK))
            new_blocks = ((False, v) for v in builder.new_column(c))
            for is_old, values in itertools.chain(old_blocks, new_blocks):
                if c == "doc":  # old: rank among kept documents; new: after them
                    values = remap.doc_rank[values] if is_old else values + remap.n_kept_docs
                elif c == "parent":
                    values = np.where(values >= 0, remap(np.maximum(values, 0)), -1)
                elif c == "kind":
                    per_kind += np.bincount(values.astype(np.int64), minlength=4)[:4]
                out.write(values)
    new_texts = builder.finish_strings()
    with StringColumnWriter(tmp / "units" / "text") as w:
        if n_old and old_dir is not None:
            w.extend_from(StringColumn(old_dir / "units" / "text"), np.flatnonzero(keep))
        w.extend_from(new_texts, slice(0, len(new_texts)))
    return per_kind


def _write_doc_columns(tmp: Path, old: UnitTable, old_dir: Path | None, remap: RowMap,
                       builder: Builder) -> tuple[np.ndarray, np.ndarray]:
    """The document columns: names (with their index), sources, kinds,
    first rows and unit counts of the kept old documents, then the new
    ones; returns the first rows and the counts (``builder`` lets go of
    the names and sources)."""
    kept_docs = np.flatnonzero(remap.keep_docs)
    old_docs = old_dir / "docs" if old_dir is not None and len(old.docs) else None
    for column, new in (("names", builder.doc_names), ("sources", builder.doc_sources)):
        with StringColumnWriter(tmp / "docs" / column) as w:
            if old_docs is not None:
                w.extend_from(StringColumn(old_docs / column), kept_docs)
            w.extend(new)
    # the kept documents' hashes carried over: a load hashes the names it adds
    old_hashes = StringIndex(StringColumn(old_docs / "names")).row_hashes()[kept_docs] \
        if old_docs is not None else np.zeros(0, np.uint64)
    write_string_index(tmp / "docs" / "names",
                       np.concatenate([old_hashes, string_hashes(builder.doc_names)]))
    kinds = np.concatenate([np.asarray(old.docs["kind"], dtype=np.int8)[remap.keep_docs],
                            *builder.doc_kinds])
    counts = np.concatenate([old.docs["count"][remap.keep_docs].astype(np.int64),
                             *builder.doc_counts])
    firsts = np.concatenate(([0], np.cumsum(counts)[:-1])) if len(counts) \
        else np.zeros(0, np.int64)
    save_npy(tmp / "docs" / "kind.npy", kinds)
    save_npy(tmp / "docs" / "first.npy", firsts.astype(np.int64))
    save_npy(tmp / "docs" / "count.npy", counts)
    builder.doc_names, builder.doc_sources = [], []
    return firsts, counts


def _write_links(tmp: Path, old: UnitTable, old_dir: Path | None, remap: RowMap | None,
                 builder: Builder, firsts: np.ndarray, counts: np.ndarray) -> tuple[int, int]:
    """The links of the new generation: the old ones whose holding row
    survives (renumbered; re-resolved from their target when it was
    dangling or its document was replaced), then the load's; returns how
    many arrive somewhere and how many dangle.  ``remap`` is None when no
    document was replaced (rows keep their numbers)."""
    texts, anchors = Sparse(), Sparse()
    old_src = old_dst = np.zeros(0, np.int64)
    if old_dir is not None and (old_dir / LINKS / "src.npy").exists():
        cols = LinkColumns(old_dir / LINKS)
        old_src, old_dst = cols.src, np.asarray(cols.dst, dtype=np.int64)
        texts, anchors = cols.strings("target"), cols.strings("anchor")
        if remap is not None:
            old_src = remap(old_src)
            alive = np.flatnonzero(old_src >= 0)
            old_src, old_dst = old_src[alive], old_dst[alive]
            moved = np.where(old_dst >= 0, remap(np.maximum(old_dst, 0)), -1)
            lost = np.flatnonzero((old_dst >= 0) & (moved < 0))  # the target was replaced
            texts, anchors = texts.take(alive), anchors.take(alive)
            if len(lost):  # named again: by its kept text, else its old document's name
                have = set(texts.at.tolist())
                add = [k for k in lost.tolist() if k not in have]
                doc_of = np.asarray(old.columns["doc"])
                texts = _merged(texts, Sparse(np.array(add, dtype=np.int64),
                                              [old.docs["name"][doc_of[old_dst[k]]]
                                               for k in add]))
            old_dst = moved
        old_dst = np.where(old_dst >= 0, old_dst, -2)
        del cols
    n_old, n_rows = len(old_src), int(counts.sum())
    dtype = np.int32 if n_rows < 2**31 - 1 else np.int64
    src: np.ndarray = np.empty(n_old + builder.n_links, dtype=dtype)
    dst: np.ndarray = np.empty(n_old + builder.n_links, dtype=dtype)
    src[:n_old], dst[:n_old] = old_src, old_dst
    del old_src, old_dst
    at = n_old
    for s_block, d_block in builder.spooled_links():
        if remap is not None:
            s_block = remap(s_block)
            d_block = np.where(d_block >= 0, remap(np.maximum(d_block, 0)), d_block)
        src[at:at + len(s_block)], dst[at:at + len(d_block)] = s_block, d_block
        at += len(s_block)
    if builder.n_links:
        new_at = np.concatenate(builder.target_at) if builder.target_at else np.zeros(0, int)
        texts = _merged(texts, Sparse(new_at + n_old, builder.targets))
        anchors = _merged(anchors, Sparse(np.array(builder.anchor_at, dtype=np.int64) + n_old,
                                          builder.anchors))
    if (dst == -2).any():
        texts = _resolve(tmp, dst, texts, builder.tags, firsts, counts)
    resolved, total = int(np.count_nonzero(dst >= 0)), len(dst)
    rows = [src, dst]
    del src, dst  # write_links takes them over
    write_links(tmp / LINKS, rows, n_rows, texts, anchors)
    return resolved, total - resolved


def _merged(a: Sparse, b: Sparse) -> Sparse:
    """Strings of two sets of links (numbers not shared), in link order."""
    if not len(a.at):
        return b
    if not len(b.at):
        return a
    at = np.concatenate([a.at, b.at])
    order = np.argsort(at, kind="stable")
    values = a.values + b.values
    return Sparse(at[order], [values[i] for i in order.tolist()])


def _resolve(tmp: Path, dst: np.ndarray, texts: Sparse, tags: list[str],
             firsts: np.ndarray, counts: np.ndarray) -> Sparse:
    """Give the links with ``dst == -2`` their arrival row (in place) from
    their kept target text: the named document's root, or the element of it
    that the fragment names (the root when none does), -1 when the document
    is not stored; returns the texts still needed (dangling links and links
    with a fragment)."""
    names = StringIndex(StringColumn(tmp / "docs" / "names"))
    where = dict(zip(texts.at.tolist(), range(len(texts.at)), strict=True))
    todo = np.flatnonzero(dst == -2)
    wanted = [texts.values[where[k]] for k in todo.tolist()]
    split = [t.partition("#") for t in wanted]
    doc = names.rows([d for d, _, _ in split])
    rows = np.where(doc >= 0, firsts[np.maximum(doc, 0)] if len(firsts) else -1, -1)
    named = [i for i, (_, sep, frag) in enumerate(split) if sep and frag and doc[i] >= 0]
    if named:
        found = _fragment_rows(tmp, tags, firsts, counts, doc[named],
                               [split[i][2] for i in named])
        rows[named] = np.where(found >= 0, found, rows[named])
    dst[todo] = rows
    keep = [k for k, (t, a) in enumerate(zip(texts.values, texts.at.tolist(), strict=True))
            if dst[a] < 0 or "#" in t]
    return Sparse(texts.at[keep], [texts.values[k] for k in keep])


def _fragment_rows(gen: Path, tags: list[str], firsts: np.ndarray, counts: np.ndarray,
                   docs: np.ndarray, fragments: list[str]) -> np.ndarray:
    """Row of the element of document ``docs[i]`` that ``fragments[i]``
    names (:func:`~graphprum.store.linkgraph.names_fragment`; the first in
    document order), -1 where none does.  Reads the attributes of those
    documents only."""
    attr_rows = np.load(gen / "attributes" / "rows.npy", mmap_mode="r")
    attr_names = StringColumn(gen / "attributes" / "names")
    attr_values = StringColumn(gen / "attributes" / "values")
    tag = np.load(gen / "units" / "tag.npy", mmap_mode="r")
    named_in: dict[int, dict[str, int]] = {}
    for d in np.unique(docs).tolist():
        a, b = np.searchsorted(attr_rows, [firsts[d], firsts[d] + counts[d]]).tolist()
        rows = np.asarray(attr_rows[a:b]).tolist()
        pick = [k for k, name in enumerate(attr_names.slice(a, b))
                if names_fragment(tags[int(tag[rows[k]])] if name == "name" else "", name)]
        named: dict[str, int] = {}
        for k, value in zip(pick, attr_values[[a + k for k in pick]] if pick else [],
                            strict=True):
            named.setdefault(value, rows[k])
        named_in[d] = named
    return np.array([named_in[d].get(f, -1) for d, f in zip(docs.tolist(), fragments,
                                                            strict=True)], dtype=np.int64)


def _write_attribute_triples(tmp: Path, old_dir: Path | None, remap: RowMap,
                             builder: Builder) -> None:
    """(row, name, value) of every attribute: the old ones whose row survives
    (renumbered), then the new ones."""
    (tmp / "attributes").mkdir()
    old_rows = np.load(old_dir / "attributes" / "rows.npy") if old_dir is not None \
        else np.zeros(0, np.int64)
    old_rows = remap(old_rows) if len(old_rows) else old_rows
    alive = np.flatnonzero(old_rows >= 0)
    new_rows = np.concatenate(builder.attr_rows) if builder.attr_rows \
        else np.zeros(0, np.int64)
    new_rows = remap(new_rows) if len(new_rows) else new_rows
    save_npy(tmp / "attributes" / "rows.npy",
             np.concatenate([old_rows[alive], new_rows]).astype(np.int64))
    for name in ("names", "values"):
        with StringColumnWriter(tmp / "attributes" / name) as w:
            if old_dir is not None and len(alive):
                w.extend_from(StringColumn(old_dir / "attributes" / name), alive)
            new = StringColumn(builder.spool / f"attr_{name}")
            w.extend_from(new, slice(0, len(new)))
