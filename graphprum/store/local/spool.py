"""What one load adds to the embedded store, spooled to files.

A :class:`Builder` takes the load's documents and batches, and
:func:`link_pairs_into` the pages and links of link lists, into files in
the new generation's temporary directory, from which
:func:`graphprum.store.local.writer.write_generation` writes the new
generation.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import chain
from operator import itemgetter
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pyarrow as pa

from graphprum.io.columns import from_numpy, to_numpy
from graphprum.store.local.strings import StringColumn, StringColumnWriter
from graphprum.units import (
    KIND_ELEMENT,
    KIND_PAGE,
    UNIT_COLUMNS,
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
            while len(chunk := np.fromfile(fs, np.int64, block)):  # numpy's memory: huge pages
                yield chunk, np.fromfile(fd, np.int64, len(chunk))

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



def link_pairs_into(builder: Builder, old: UnitTable, base: int,
                    link_pairs: Any) -> int:
    """Add link-list pairs FROM -> TO to the load; unknown pages become page
    units, in order of first appearance (chunk by chunk, FROM ids before TO
    ids).  Returns the number of pages created.

    The ids are dictionary-encoded by pyarrow chunk by chunk (the FROM and
    the TO ids in one hash table, in C) and the chunk's codes spooled; the
    chunks' dictionaries are unified at the end, at once, which numbers
    every id by its first appearance, and the codes are read back as rows.
    10M links between 1M pages make 1M Python strings, not 20M, and hold
    the chunks' dictionaries (6.3M ids) rather than 20M codes; unifying them
    at once rather than 16 at a time, then the groups', is 0.3 s faster."""
    spool = builder.spool / "link_codes.raw"
    with open(spool, "w+b") as spooled:
        dictionaries, sizes = _encoded(link_pairs, spooled)
        names: list[str] = []
        maps: list[np.ndarray] = []  # a chunk's codes -> the load's
        if dictionaries:
            # (from_numpy: pa.array() of numpy imports pandas, 0.2 s, to check for a Series)
            identity = from_numpy(np.arange(max(map(len, dictionaries)), dtype=np.int32))
            whole = pa.chunked_array([pa.DictionaryArray.from_arrays(identity[:len(d)], d)
                                      for d in dictionaries]).unify_dictionaries()
            del dictionaries, identity
            maps = [to_numpy(c.indices) for c in whole.chunks]
            names = _strings(whole.chunk(0).dictionary)
            del whole
            pa.default_memory_pool().release_unused()
        rows = _rows_of(names, builder, old)
        new = np.flatnonzero(rows < 0)
        if len(new):
            rows[new] = base + builder.n + np.arange(len(new))
            builder.add_pages([names[i] for i in new.tolist()], base)
        del names
        spooled.seek(0)
        for into, n in zip(maps, sizes, strict=True):
            ends = rows[into][np.fromfile(spooled, np.int32, 2 * n)]
            builder.add_links(ends[:n], ends[n:])
        del rows
    spool.unlink()
    pa.default_memory_pool().release_unused()  # the system allocator's: numpy's frees too
    return len(new)


def _encoded(link_pairs: Any, spooled: BinaryIO) -> tuple[list[Any], list[int]]:
    """The dictionary and the number of pairs of every chunk of
    ``link_pairs``, its codes (FROM ids, then TO ids) written to ``spooled``
    as int32."""
    dictionaries: list[Any] = []
    sizes: list[int] = []
    for k, (froms, tos) in enumerate(link_pairs):
        if not len(froms):
            continue
        # one hash table over the FROM and the TO ids, in that order (the ids not copied)
        encoded = pa.chunked_array([*_chunks(_ids(froms)), *_chunks(_ids(tos))],
                                   pa.string()).dictionary_encode()
        dictionaries.append(encoded.chunk(0).dictionary)
        sizes.append(len(froms))
        for c in encoded.chunks:
            spooled.write(to_numpy(c.indices).data)
        del encoded
        if k % 32 == 31:  # the allocator keeps what the chunks held (linklist._RELEASE)
            pa.default_memory_pool().release_unused()
    return dictionaries, sizes


def _rows_of(names: list[str], builder: Builder, old: UnitTable) -> np.ndarray:
    """The row of every page or element named, stored or added by this
    load (-1 for a name not known)."""
    known: dict[str, int] = {}
    for i, (name, kind) in enumerate(zip(old.docs["name"], old.docs["kind"], strict=True)):
        if kind in (KIND_PAGE, KIND_ELEMENT):
            known[name] = int(old.docs["first"][i])
    if builder.doc_names:
        known.update(zip(builder.doc_names, np.concatenate(builder.doc_firsts).tolist(),
                         strict=True))
    if not known:
        return np.full(len(names), -1, dtype=np.int64)
    get = known.get
    return np.fromiter((get(n, -1) for n in names), dtype=np.int64, count=len(names))


def _ids(ids: Any) -> Any:
    """A column of ids as a pyarrow string array (from the API, a lone
    surrogate is kept as ``surrogatepass`` bytes, as the string columns do)."""
    if isinstance(ids, Names):
        return ids.arrow
    return pa.array([str(i).encode("utf-8", "surrogatepass") for i in ids],
                    pa.binary()).view(pa.string())


def _chunks(ids: Any) -> list[Any]:
    """The arrays of an array or a chunked array."""
    return list(ids.chunks) if isinstance(ids, pa.ChunkedArray) else [ids]


def _strings(ids: Any) -> list[str]:
    """A pyarrow string array as Python strings (a lone surrogate from the
    API, kept as ``surrogatepass`` bytes, decoded back as the string columns do)."""
    try:
        return list(ids.to_pylist())
    except UnicodeDecodeError:
        return [v.decode("utf-8", "surrogatepass") for v in ids.view(pa.binary()).to_pylist()]


def names_in(batch: ParsedDocument | DocumentBatch) -> Sequence[tuple[str, str]]:
    """(name, source) of every document of a batch or single document."""
    if isinstance(batch, DocumentBatch):
        return list(zip(batch.names, batch.sources, strict=True))
    return [(batch.name, batch.source)]
