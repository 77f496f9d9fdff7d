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
    docs/names.json, docs/sources.json, docs/{kind,first,count}.npy
    links/src.npy, links/dst.npy (rows; dst -1 = dangling),
    links/targets.json, links/anchors.json
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

from graphprum.store.local.layout import read_strings, write_json, write_strings
from graphprum.store.local.strings import StringColumn, StringColumnWriter
from graphprum.units import (
    KIND_NAMES,
    UNIT_COLUMNS,
    DocTable,
    DocumentBatch,
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
        self.doc_kinds: list[int] = []
        self.doc_counts: list[int] = []
        self.doc_firsts: list[int] = []
        self.link_src: list[np.ndarray] = []
        self.link_targets: list[str] = []
        self.link_anchors: list[str] = []
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
        self.doc_kinds.extend(batch.kinds)
        self.doc_counts.extend(batch.counts.tolist())
        self.doc_firsts.extend((batch.firsts + first).tolist())
        if batch.links:
            self.link_src.append(np.array([first + r for r, _, _ in batch.links], dtype=np.int64))
            self.link_targets.extend(t for _, t, _ in batch.links)
            self.link_anchors.extend(a for _, _, a in batch.links)
        self.n += count

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
    names = [n for n, k in zip(old.docs["name"], keep_docs, strict=True) if k] \
        + builder.doc_names
    sources = [s for s, k in zip(old.docs["source"], keep_docs, strict=True) if k] \
        + builder.doc_sources
    kinds = np.concatenate([np.asarray(old.docs["kind"], dtype=np.int8)[keep_docs],
                            np.array(builder.doc_kinds, dtype=np.int8)])
    counts = np.concatenate([old_count[keep_docs].astype(np.int64),
                             np.array(builder.doc_counts, dtype=np.int64)])
    firsts = np.concatenate(([0], np.cumsum(counts)[:-1])) if len(counts) \
        else np.zeros(0, np.int64)
    write_strings(tmp / "docs" / "names.json", names)
    write_strings(tmp / "docs" / "sources.json", sources)
    save_npy(tmp / "docs" / "kind.npy", kinds)
    save_npy(tmp / "docs" / "first.npy", firsts.astype(np.int64))
    save_npy(tmp / "docs" / "count.npy", counts)
    # links: old ones keep their source if it survives; all targets re-resolved
    src_old, targets_old, anchors_old = _old_links(old_dir)
    if len(src_old):
        src_old = remap(src_old)
        alive = src_old >= 0
        src_old = src_old[alive]
        targets_old = [t for t, a in zip(targets_old, alive, strict=True) if a]
        anchors_old = [t for t, a in zip(anchors_old, alive, strict=True) if a]
    src_new = np.concatenate(builder.link_src) if builder.link_src else np.zeros(0, np.int64)
    src_new = remap(src_new) if len(src_new) else src_new
    src = np.concatenate([src_old, src_new]).astype(np.int64)
    targets = list(targets_old) + builder.link_targets
    anchors = list(anchors_old) + builder.link_anchors
    root_of = dict(zip(names, firsts.tolist(), strict=True))
    dst = np.fromiter((root_of.get(t, -1) for t in targets), dtype=np.int64, count=len(targets))
    save_npy(tmp / "links" / "src.npy", src)
    save_npy(tmp / "links" / "dst.npy", dst)
    write_strings(tmp / "links" / "targets.json", targets)
    write_strings(tmp / "links" / "anchors.json", anchors)
    return {"documents": len(names), "units": n_kept + builder.n,
            **{KIND_NAMES[k]: int(per_kind[k]) for k in KIND_NAMES},
            "links": int(np.count_nonzero(dst >= 0)),
            "dangling_links": int(np.count_nonzero(dst < 0)),
            "links_added": len(builder.link_targets)}


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


def _old_links(gen: Path | None) -> tuple[np.ndarray, list[str], list[str]]:
    if gen is None or not (gen / "links" / "src.npy").exists():
        return np.zeros(0, np.int64), [], []
    return (np.load(gen / "links" / "src.npy"), read_strings(gen / "links" / "targets.json"),
            read_strings(gen / "links" / "anchors.json"))


def read_table(gen: Path) -> tuple[UnitTable, int]:
    """The unit table of generation ``gen`` (columns memory-mapped) and its
    number of links; ValueError or OSError when files are missing or
    inconsistent."""
    cols = {c: np.load(gen / "units" / f"{c}.npy", mmap_mode="r") for c in UNIT_COLUMNS}
    vocab = json.loads((gen / "vocab.json").read_text(encoding="ascii"))
    names = read_strings(gen / "docs" / "names.json")
    sources = read_strings(gen / "docs" / "sources.json")
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
    n_links = len(np.load(gen / "links" / "src.npy", mmap_mode="r"))
    if len(np.load(gen / "links" / "dst.npy", mmap_mode="r")) != n_links:
        raise ValueError("link columns of different lengths")
    length = np.asarray(cols["length"])[first] if len(first) else np.zeros(0)
    docs = DocTable({"name": names, "source": sources, "kind": kind,
                     "length": length, "first": first, "count": count})
    return UnitTable(cols, vocab["tags"], vocab["paths"], docs), n_links


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
    if len(read_strings(gen / "links" / "targets.json")) != n_links:
        raise ValueError("link targets of another length")


def link_pairs_into(builder: Builder, old: UnitTable, base: int,
                    link_pairs: Any) -> int:
    """Add link-list pairs FROM -> TO to the load; unknown pages become page
    units.  Returns the number of pages created."""
    from graphprum.units import KIND_ELEMENT, KIND_PAGE

    known: dict[str, int] = {}
    for i, (name, kind) in enumerate(zip(old.docs["name"], old.docs["kind"], strict=True)):
        if kind in (KIND_PAGE, KIND_ELEMENT):
            known[name] = int(old.docs["first"][i])
    known.update(zip(builder.doc_names, builder.doc_firsts, strict=True))
    created = 0
    for froms, tos in link_pairs:
        new: list[str] = []
        next_row = base + builder.n
        for name in (*froms, *tos):
            if name not in known:
                known[name] = next_row + len(new)
                new.append(name)
        if new:
            builder.add_pages(new, base)
            created += len(new)
        src = np.fromiter((known[f] for f in froms), dtype=np.int64, count=len(froms))
        builder.link_src.append(src)
        builder.link_targets.extend(tos)
        builder.link_anchors.extend([""] * len(tos))
    return created


def names_in(batch: ParsedDocument | DocumentBatch) -> Sequence[tuple[str, str]]:
    """(name, source) of every document of a batch or single document."""
    if isinstance(batch, DocumentBatch):
        return list(zip(batch.names, batch.sources, strict=True))
    return [(batch.name, batch.source)]
