"""Writing one generation of the embedded store's columns.

A load streams documents into a :class:`Builder`, which spools their unit
columns, texts and attributes to files in the new generation's temporary
directory (memory stays bounded by one batch, whatever the collection's
size).  :func:`write_generation` then writes every column of the new
generation block by block: the old generation's rows that survive (minus
replaced documents) followed by the new rows, with parents, documents and
link sources renumbered.

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
import json
from collections.abc import Iterator, Sequence
from itertools import chain
from operator import itemgetter
from pathlib import Path
from typing import Any

import numpy as np

from graphprum.store.linkgraph import names_fragment
from graphprum.store.local.layout import write_json
from graphprum.store.local.links import LINKS, LinkColumns, Sparse, write_links
from graphprum.store.local.strings import (
    StringColumn,
    StringColumnWriter,
    StringIndex,
    string_hashes,
    write_string_index,
)
from graphprum.units import (
    DOC_COLUMNS,
    KIND_NAMES,
    UNIT_COLUMNS,
    DocTable,
    DocumentBatch,
    Names,
    ParsedDocument,
    UnitTable,
    page_units,
)

BLOCK = 1 << 16


class Builder:
    """Spools the documents of one load (see the module notes)."""

    def __init__(self, tags: list[str], paths: list[str], spool: Path) -> None:
        self.tags = tags
        self.paths = paths
        self.tag_ids = {t: i for i, t in enumerate(tags)}
        self.path_ids = {p: i for i, p in enumerate(paths)}
        spool.mkdir(parents=True, exist_ok=True)
        self.spool = spool
        self.files: dict[str, Any] = {}
        self.texts = StringColumnWriter(spool / "text")
        self.attr_names = StringColumnWriter(spool / "attr_names")
        self.attr_values = StringColumnWriter(spool / "attr_values")
        self.attr_rows: list[np.ndarray] = []
        for c in UNIT_COLUMNS:
            self.files[c] = open(spool / f"{c}.raw", "wb")  # noqa: SIM115 - closed in close
        self.doc_names: list[str] = []
        self.doc_sources: list[str] = []
        # per batch (a million pages from a link list are three arrays, not
        # three million Python ints)
        self.doc_kinds: list[np.ndarray] = []
        self.doc_counts: list[np.ndarray] = []
        self.doc_firsts: list[np.ndarray] = []
        # links of the load, spooled: holding rows and, for link lists,
        # arrival rows (-2: resolved from the target when the generation is written)
        for name in ("link_src", "link_dst"):
            self.files[name] = open(spool / f"{name}.raw", "wb")  # noqa: SIM115 - closed in close
        self.target_at: list[np.ndarray] = []
        self.targets: list[str] = []
        self.anchor_at: list[int] = []
        self.anchors: list[str] = []
        self.n_links = 0
        self.n = 0

    def add(self, doc: ParsedDocument | DocumentBatch, base_row: int) -> None:
        """Append a document or a batch; its first root becomes row
        ``base_row + self.n``."""
        batch = doc if isinstance(doc, DocumentBatch) else DocumentBatch.of([doc])
        first = base_row + self.n
        count = len(batch)
        tag = _codes(batch.tag_vocab, self.tag_ids, self.tags)[batch.tag_codes]
        path = _codes(batch.path_vocab, self.path_ids, self.paths)[batch.path_codes]
        cols = batch.columns
        parent = cols["parent"].astype(np.int32)
        parent = np.where(parent >= 0, parent + first, -1).astype(np.int32)
        doc_index = len(self.doc_names)
        values = {
            "doc": np.repeat(np.arange(doc_index, doc_index + len(batch.names), dtype=np.int32),
                             batch.counts),  # shifted at write
            "kind": cols["kind"], "tag": tag, "path": path, "depth": cols["depth"],
            "parent": parent, "post": cols["post"], "size": cols["size"], "pos": cols["pos"],
            "start": cols["start"], "length": cols["length"], "words": cols["words"],
        }
        for c, dtype in UNIT_COLUMNS.items():
            self.files[c].write(np.ascontiguousarray(values[c], dtype=dtype).data)
        self.texts.extend(batch.texts if batch.texts is not None else [""] * count)
        if batch.attributes:
            attrs = batch.attributes
            dicts = list(map(itemgetter(1), attrs))
            self.attr_rows.append(np.repeat(
                np.fromiter(map(itemgetter(0), attrs), np.int64, count=len(attrs)) + first,
                np.fromiter(map(len, dicts), np.int64, count=len(attrs))))
            self.attr_names.extend(list(chain.from_iterable(dicts)))
            self.attr_values.extend(list(chain.from_iterable(map(dict.values, dicts))))
        self.doc_names.extend(batch.names)
        self.doc_sources.extend(batch.sources)
        self.doc_kinds.append(np.asarray(batch.kinds, dtype=np.int8))
        self.doc_counts.append(np.asarray(batch.counts, dtype=np.int64))
        self.doc_firsts.append(batch.firsts + first)
        if batch.links:
            k = len(batch.links)
            rows = np.fromiter(map(itemgetter(0), batch.links), np.int64, count=k) + first
            self.target_at.append(np.arange(self.n_links, self.n_links + k, dtype=np.int64))
            self.targets.extend(map(itemgetter(1), batch.links))
            for i, (_, _, anchor) in enumerate(batch.links):
                if anchor:
                    self.anchor_at.append(self.n_links + i)
                    self.anchors.append(anchor)
            self.add_links(rows, np.full(k, -2, dtype=np.int32))
        self.n += count

    def add_links(self, src: np.ndarray, dst: np.ndarray) -> None:
        """Links from rows ``src`` to rows ``dst`` (-2: to the target
        recorded for them), in the numbering of the load."""
        self.files["link_src"].write(np.ascontiguousarray(src, dtype=np.int64).data)
        self.files["link_dst"].write(np.ascontiguousarray(dst, dtype=np.int64).data)
        self.n_links += len(src)

    def spooled_links(self, block: int = 1 << 20) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The load's links (holding rows, arrival rows), in blocks."""
        for name in ("link_src", "link_dst"):
            self.files[name].flush()
        with open(self.spool / "link_src.raw", "rb") as fs, \
                open(self.spool / "link_dst.raw", "rb") as fd:
            while chunk := fs.read(8 * block):
                yield np.frombuffer(chunk, np.int64), np.frombuffer(fd.read(len(chunk)), np.int64)

    def add_pages(self, names: list[str], base_row: int) -> None:
        """Pages known only from a link list (one unit of length 0 each)."""
        self.add(page_units(names), base_row)

    def new_column(self, name: str, block: int = BLOCK) -> Iterator[np.ndarray]:
        """The spooled values of column ``name``, in blocks."""
        self.files[name].flush()
        dtype = np.dtype(UNIT_COLUMNS[name])
        with open(self.spool / f"{name}.raw", "rb") as f:
            while chunk := f.read(block * dtype.itemsize):
                yield np.frombuffer(chunk, dtype=dtype)

    def finish_strings(self) -> StringColumn:
        """The spooled texts as a readable column (attributes closed too)."""
        self.texts.close()
        self.attr_names.close()
        self.attr_values.close()
        return StringColumn(self.spool / "text")

    def close(self) -> None:
        """Close the spool files (the caller removes the spool)."""
        for f in self.files.values():
            f.close()
        for w in (self.texts, self.attr_names, self.attr_values):
            w.abandon()


def _codes(values: list[str], ids: dict[str, int], vocab: list[str]) -> np.ndarray:
    """Vocabulary index of every value, adding new values to ``vocab``."""
    for v in values:
        if v not in ids:
            ids[v] = len(vocab)
            vocab.append(v)
    return np.fromiter((ids[v] for v in values), dtype=np.int32, count=len(values))


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


def write_generation(tmp: Path, old: UnitTable, old_dir: Path | None, replaced: set[int],
                     builder: Builder, base: int) -> dict[str, Any]:
    """Write old units (minus replaced documents) + new units into ``tmp``;
    the new generation's counts."""
    (tmp / "units").mkdir(parents=True)
    (tmp / "docs").mkdir()
    (tmp / "links").mkdir()
    n_old = len(old)
    keep = np.ones(n_old, dtype=bool)
    old_first = old.docs["first"]
    old_count = old.docs["count"]
    for d in replaced:
        keep[old_first[d]:old_first[d] + old_count[d]] = False
    n_kept = int(keep.sum())
    kept_rank = np.cumsum(keep) - 1 if replaced else None
    keep_docs = np.array([d not in replaced for d in range(len(old.docs))], dtype=bool)
    n_old_docs = int(keep_docs.sum())
    doc_rank = np.cumsum(keep_docs) - 1

    def remap(rows: np.ndarray) -> np.ndarray:
        """New row of old and new rows (-1 for a dropped old row)."""
        rows = np.asarray(rows, dtype=np.int64)
        out = rows - n_old + n_kept
        old_rows = rows < n_old
        if kept_rank is None:
            out[old_rows] = rows[old_rows]
        else:
            r = rows[old_rows]
            out[old_rows] = np.where(keep[r], kept_rank[r], -1)
        return out

    per_kind = np.zeros(4, dtype=np.int64)
    for c, dtype in UNIT_COLUMNS.items():
        with NpyWriter(tmp / "units" / f"{c}.npy", dtype, n_kept + builder.n) as out:
            old_blocks = ((True, np.asarray(old.columns[c][i:i + BLOCK])[keep[i:i + BLOCK]])
                          for i in range(0, n_old, BLOCK))
            new_blocks = ((False, v) for v in builder.new_column(c))
            for is_old, values in itertools.chain(old_blocks, new_blocks):
                if c == "doc":  # old: rank among kept documents; new: after them
                    values = doc_rank[values] if is_old else values + n_old_docs
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
    _write_attribute_triples(tmp, old_dir if n_old else None, remap, builder)
    write_json(tmp / "vocab.json", {"tags": builder.tags, "paths": builder.paths})
    kept_docs = np.flatnonzero(keep_docs)
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
    kinds = np.concatenate([np.asarray(old.docs["kind"], dtype=np.int8)[keep_docs],
                            *builder.doc_kinds])
    counts = np.concatenate([old_count[keep_docs].astype(np.int64),
                             *builder.doc_counts])
    firsts = np.concatenate(([0], np.cumsum(counts)[:-1])) if len(counts) \
        else np.zeros(0, np.int64)
    save_npy(tmp / "docs" / "kind.npy", kinds)
    save_npy(tmp / "docs" / "first.npy", firsts.astype(np.int64))
    save_npy(tmp / "docs" / "count.npy", counts)
    n_docs = len(kinds)
    builder.doc_names, builder.doc_sources = [], []
    resolved, dangling = _write_links(tmp, old, old_dir, remap if replaced else None, builder,
                                      firsts, counts)
    return {"documents": n_docs, "units": n_kept + builder.n,
            **{KIND_NAMES[k]: int(per_kind[k]) for k in KIND_NAMES},
            "links": resolved, "dangling_links": dangling, "links_added": builder.n_links}


def _write_links(tmp: Path, old: UnitTable, old_dir: Path | None, remap: Any,
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


def _write_attribute_triples(tmp: Path, old_dir: Path | None, remap: Any,
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
    length = np.asarray(cols["length"])[first] if len(first) else np.zeros(0)
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


def link_pairs_into(builder: Builder, old: UnitTable, base: int,
                    link_pairs: Any) -> int:
    """Add link-list pairs FROM -> TO to the load; unknown pages become page
    units, in order of first appearance (chunk by chunk, FROM ids before TO
    ids).  Returns the number of pages created.

    The ids are dictionary-encoded by pyarrow, chunk by chunk; the
    dictionaries of every 16 chunks are unified, and those of the groups at
    the end (in C: 10M links between 1M pages make 1M Python strings, not
    20M, and each dictionary is hashed once)."""
    # pyarrow: loads of link lists only; the evaluation never needs it
    import pyarrow as pa

    from graphprum.units import KIND_ELEMENT, KIND_PAGE

    groups: list[tuple[Any, list[tuple[np.ndarray, int]]]] = []  # dictionary, chunks' codes
    pending: list[tuple[Any, int]] = []

    def close_group() -> None:
        unified = pa.chunked_array([c for c, _ in pending]).unify_dictionaries()
        groups.append((unified.chunk(0).dictionary,
                       [(c.indices.to_numpy(), n) for c, (_, n) in
                        zip(unified.chunks, pending, strict=True)]))
        pending.clear()
        pa.default_memory_pool().release_unused()  # mimalloc keeps what the chunks held

    for froms, tos in link_pairs:
        pending.append((pa.concat_arrays([_ids(froms), _ids(tos)]).dictionary_encode(),
                        len(froms)))
        if len(pending) >= 16:
            close_group()
    if pending:
        close_group()
    if not groups:
        return 0
    whole = pa.chunked_array([pa.DictionaryArray.from_arrays(
        pa.array(np.arange(len(d), dtype=np.int32)), d) for d, _ in groups]).unify_dictionaries()
    maps = [c.indices.to_numpy() for c in whole.chunks]  # a group's codes -> the load's
    ids = whole.chunk(0).dictionary
    try:
        names = ids.to_pylist()
    except UnicodeDecodeError:  # a lone surrogate from the API, kept as the string columns do
        names = [v.decode("utf-8", "surrogatepass") for v in ids.view(pa.binary()).to_pylist()]
    del ids
    codes_of = [chunks for _, chunks in groups]
    groups.clear()
    del whole
    pa.default_memory_pool().release_unused()
    known: dict[str, int] = {}
    for i, (name, kind) in enumerate(zip(old.docs["name"], old.docs["kind"], strict=True)):
        if kind in (KIND_PAGE, KIND_ELEMENT):
            known[name] = int(old.docs["first"][i])
    if builder.doc_names:
        known.update(zip(builder.doc_names, np.concatenate(builder.doc_firsts).tolist(),
                         strict=True))
    get = known.get
    rows = np.fromiter((get(n, -1) for n in names), dtype=np.int64, count=len(names)) \
        if known else np.full(len(names), -1, dtype=np.int64)
    new = np.flatnonzero(rows < 0)
    if len(new):
        rows[new] = base + builder.n + np.arange(len(new))
        builder.add_pages([names[i] for i in new.tolist()], base)
    del names
    for chunks, into in zip(codes_of, maps, strict=True):
        rows_of = rows[into]
        while chunks:
            codes, n = chunks.pop(0)
            ends = rows_of[codes]
            builder.add_links(ends[:n], ends[n:])
    del codes_of, maps
    pa.default_memory_pool().release_unused()
    return len(new)


def _ids(ids: Any) -> Any:
    """A column of ids as a pyarrow string array (from the API, a lone
    surrogate is kept as ``surrogatepass`` bytes, as the string columns do)."""
    import pyarrow as pa  # as in link_pairs_into

    if isinstance(ids, Names):
        return ids.arrow
    return pa.array([str(i).encode("utf-8", "surrogatepass") for i in ids],
                    pa.binary()).view(pa.string())


def names_in(batch: ParsedDocument | DocumentBatch) -> Sequence[tuple[str, str]]:
    """(name, source) of every document of a batch or single document."""
    if isinstance(batch, DocumentBatch):
        return list(zip(batch.names, batch.sources, strict=True))
    return [(batch.name, batch.source)]
