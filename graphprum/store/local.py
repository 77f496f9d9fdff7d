"""The embedded store: a directory of columnar numpy tables.

Layout::

    STORE/
      manifest.json         format, version, generation, counts, load history
      gen-000007/           the current generation (immutable once written)
        units/<column>.npy  one file per UNIT_COLUMNS entry (memory-mapped)
        vocab.json          tag and label-path vocabularies
        docs/               names.txt, sources.txt, kind.npy, first.npy, count.npy
        links/              src.npy, dst.npy (global rows; dst -1 = dangling),
                            targets.txt (the target id of dangling links)
        summaries/<name>/   stored AxPRE summaries
      lock                  held (flock) by writers

Every write builds a complete new generation in ``gen-N.tmp``, renames it to
``gen-N``, then atomically replaces ``manifest.json`` (write to a temporary
file, fsync, ``os.replace``).  A reader that opened generation N keeps
reading it; a crash or SIGKILL at any point leaves the previous manifest and
generation untouched, and leftovers are removed by the next writer.

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "x.xml").write_text("<a><b>hi</b><b/></a>")
>>> store = LocalStore(d / "store")
>>> store.load_xml([d / "x.xml"]).elements
3
>>> store.resolve(["x#/a[1]/b[2]", "x#/a[1]/c[1]"]).tolist()
[2, -1]
>>> store.table().ids([1])
['x#/a[1]/b[1]']
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import json
import os
import shutil
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from graphprum.errors import InputError, StoreError, UnknownIdError, UsageError
from graphprum.units import (
    KIND_ELEMENT,
    KIND_NAMES,
    KIND_PAGE,
    KIND_SEGMENT,
    KIND_VIDEO,
    UNIT_COLUMNS,
    DocumentBatch,
    ParsedDocument,
    UnitTable,
)

FORMAT = "graphprum-local"
FORMAT_VERSION = 1


@dataclass
class LoadReport:
    """What a load did."""

    documents: int = 0
    elements: int = 0
    seconds: float = 0.0
    replaced: int = 0
    links: int = 0
    skipped: list = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    @property
    def rate(self) -> float:
        """Units per second."""
        return self.elements / self.seconds if self.seconds > 0 else float("inf")


class _Builder:
    """Spools parsed documents' unit columns to raw files in ``spool``
    (memory stays bounded by one batch, whatever the collection's size) and
    keeps the per-document and link records."""

    def __init__(self, tags: list[str], paths: list[str], spool: Path) -> None:
        self.tags = tags
        self.paths = paths
        self.tag_ids = {t: i for i, t in enumerate(tags)}
        self.path_ids = {p: i for i, p in enumerate(paths)}
        spool.mkdir(parents=True, exist_ok=True)
        self.spool = spool
        self.files: dict[str, Any] = {}
        try:
            for c in UNIT_COLUMNS:
                self.files[c] = open(spool / f"{c}.raw", "wb")  # noqa: SIM115
        except BaseException:
            self.close()
            raise
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
        """Append a document or a batch; its first root becomes global row
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
            "kind": cols["kind"],
            "tag": tag,
            "path": path,
            "depth": cols["depth"],
            "parent": parent,
            "post": cols["post"],
            "size": cols["size"],
            "pos": cols["pos"],
            "start": cols["start"],
            "length": cols["length"],
            "words": cols["words"],
        }
        for c, dtype in UNIT_COLUMNS.items():
            self.files[c].write(np.ascontiguousarray(values[c], dtype=dtype).data)
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

    def new_column(self, name: str, block: int = 1 << 20) -> Iterator[np.ndarray]:
        """The spooled values of column ``name``, in blocks."""
        self.files[name].flush()
        dtype = np.dtype(UNIT_COLUMNS[name])
        with open(self.spool / f"{name}.raw", "rb") as f:
            while chunk := f.read(block * dtype.itemsize):
                yield np.frombuffer(chunk, dtype=dtype)

    def close(self) -> None:
        """Close and remove the spool files."""
        for f in self.files.values():
            f.close()
        shutil.rmtree(self.spool, ignore_errors=True)


def _codes(values: list[str], ids: dict[str, int], vocab: list[str]) -> np.ndarray:
    """Vocabulary index of every value, adding new values to ``vocab``."""
    for v in values:
        if v not in ids:
            ids[v] = len(vocab)
            vocab.append(v)
    return np.fromiter((ids[v] for v in values), dtype=np.int32, count=len(values))


class LocalStore:
    """The embedded store in a directory (see module docstring).

    Parameters
    ----------
    path : path-like
        The store directory; created on first write when ``create``.
    create : bool
        Whether a missing directory is acceptable (it is created lazily).
    """

    def __init__(self, path: str | os.PathLike[str], create: bool = True) -> None:
        self.path = Path(path)
        self.location = str(self.path)
        if self.path.exists() and not self.path.is_dir():
            raise StoreError(f"{self.path}: store path exists and is not a directory")
        if not create and not (self.path / "manifest.json").exists():
            raise StoreError(f"{self.path}: no graphprum store here (no manifest.json)")
        self._table: UnitTable | None = None
        self._links: pd.DataFrame | None = None
        self._manifest: dict | None = None
        self._xpath_cache: dict[int, dict[str, int]] = {}
        self._page_index: dict[str, int] | None = None

    # ------------------------------------------------------------------ reading
    @property
    def manifest(self) -> dict:
        """The current manifest (an empty store's when nothing was written)."""
        if self._manifest is None:
            self._manifest = self._read_manifest()
        return self._manifest

    def _read_manifest(self) -> dict:
        mpath = self.path / "manifest.json"
        if not mpath.exists():
            return {"format": FORMAT, "version": FORMAT_VERSION, "generation": None,
                    "loads": [], "counts": {}}
        try:
            manifest = json.loads(mpath.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise StoreError(f"{mpath}: unreadable store manifest ({exc})") from None
        if manifest.get("format") != FORMAT:
            raise StoreError(f"{mpath}: not a graphprum store (format {manifest.get('format')!r})")
        if manifest.get("version") != FORMAT_VERSION:
            raise StoreError(
                f"{mpath}: store format version {manifest.get('version')} is not supported "
                f"(this graphprum reads version {FORMAT_VERSION}); reload the collection "
                f"into a new store")
        return manifest

    @property
    def _gen_dir(self) -> Path | None:
        gen = self.manifest.get("generation")
        return None if gen is None else self.path / gen

    def table(self) -> UnitTable:
        """The whole collection as a memory-mapped :class:`UnitTable`."""
        if self._table is None:
            self._table = self._read_table()
        return self._table

    def _read_table(self) -> UnitTable:
        gen = self._gen_dir
        if gen is None:
            cols = {c: np.zeros(0, dtype=t) for c, t in UNIT_COLUMNS.items()}
            docs = pd.DataFrame({"name": [], "source": [], "kind": [], "length": [],
                                 "first": [], "count": []})
            return UnitTable(cols, [], [], docs)
        try:
            cols = {c: np.load(gen / "units" / f"{c}.npy", mmap_mode="r") for c in UNIT_COLUMNS}
            vocab = json.loads((gen / "vocab.json").read_text(encoding="utf-8"))
            names = _read_lines(gen / "docs" / "names.txt")
            sources = _read_lines(gen / "docs" / "sources.txt")
            kind = np.load(gen / "docs" / "kind.npy")
            first = np.load(gen / "docs" / "first.npy")
            count = np.load(gen / "docs" / "count.npy")
        except (OSError, ValueError) as exc:
            raise StoreError(f"{gen}: store generation is damaged ({exc})") from None
        length = np.asarray(cols["length"])[first] if len(first) else np.zeros(0)
        docs = pd.DataFrame({"name": names, "source": sources, "kind": kind,
                             "length": length, "first": first, "count": count})
        return UnitTable(cols, vocab["tags"], vocab["paths"], docs)

    def links(self) -> pd.DataFrame:
        """LINK edges as global rows: columns ``src``, ``dst`` (int64), resolved only."""
        if self._links is None:
            src, dst, _ = self._read_links()
            keep = dst >= 0
            self._links = pd.DataFrame({"src": src[keep], "dst": dst[keep]})
        return self._links

    def _read_links(self) -> tuple[np.ndarray, np.ndarray, list[str]]:
        gen = self._gen_dir
        if gen is None or not (gen / "links" / "src.npy").exists():
            return np.zeros(0, np.int64), np.zeros(0, np.int64), []
        src = np.load(gen / "links" / "src.npy")
        dst = np.load(gen / "links" / "dst.npy")
        targets = _read_lines(gen / "links" / "targets.txt")
        return src, dst, targets

    def anchors(self) -> list[str]:
        """Anchor text of every LINK edge, in the order of the raw link table."""
        gen = self._gen_dir
        if gen is None or not (gen / "links" / "anchors.txt").exists():
            return []
        return _read_lines(gen / "links" / "anchors.txt")

    def resolve(self, ids: Sequence[str]) -> np.ndarray:
        """Global rows of ``ids`` (-1 for ids the store does not hold).

        Element ids are matched exactly against the positional INEX path
        (``doc#/a[1]/b[2]``); page and video ids are document names; segment
        ids ``VIDEO#N`` name the N-th segment.

        Cost: a dictionary look-up per id plus, once per document touched
        (kept in a bounded cache), a pass over that document's rows.
        """
        table = self.table()
        n = len(ids)
        if len(table) == 0 or n == 0:
            return np.full(n, -1, dtype=np.int64)
        doc_get, first, count, kinds = self._doc_lookup(table)
        cache_get = self._xpath_cache.get
        xpaths = self._xpaths
        out = [-1] * n
        for i, uid in enumerate(ids):
            name, sep, rest = uid.partition("#")
            d = doc_get(name)
            if d is None:
                continue
            kind = kinds[d]
            if not sep:
                if kind in (KIND_PAGE, KIND_VIDEO):
                    out[i] = first[d]
                continue
            if kind == KIND_VIDEO:
                if rest.isdigit() and 1 <= int(rest) < count[d]:
                    out[i] = first[d] + int(rest)
                continue
            paths = cache_get(d)
            if paths is None:
                paths = xpaths(d)
            row = paths.get(rest)
            if row is not None:
                out[i] = row
        return np.array(out, dtype=np.int64)

    def _doc_lookup(self, table: UnitTable) -> tuple[Callable[[str], int | None], list[int],
                                                     list[int], list[int]]:
        """Name -> index look-up and the docs' first/count/kind as lists (cached per table)."""
        cached = getattr(self, "_doc_lookup_cache", None)
        if cached is not None and cached[0] is table:
            return cached[1]
        if table._doc_index is None:
            table._doc_index = {nm: i for i, nm in enumerate(table.docs["name"])}
        docs = table.docs
        value = (table._doc_index.get, docs["first"].to_numpy().tolist(),
                 docs["count"].to_numpy().tolist(), docs["kind"].to_numpy().tolist())
        # plain views of the mapped columns: slicing a memmap costs more than its rows
        self._xpath_columns = tuple(np.asarray(table.columns[c])
                                    for c in ("tag", "pos", "parent", "kind"))
        self._doc_lookup_cache = (table, value)
        return value

    def _xpaths(self, d: int) -> dict[str, int]:
        """XPATH -> global row for document ``d`` (cached; the oldest half of
        the cache is dropped when it passes 4096 documents)."""
        cached = self._xpath_cache.get(d)
        if cached is not None:
            return cached
        table = self.table()
        _, firsts, counts, _ = self._doc_lookup(table)
        first, count = firsts[d], counts[d]
        tags = table.tags
        sl = slice(first, first + count)
        tag_c, pos_c, parent_c, kind_c = self._xpath_columns
        steps = [f"/{tags[t]}[{p}]" for t, p in zip(tag_c[sl].tolist(), pos_c[sl].tolist(),
                                                     strict=True)]
        local_parent = (parent_c[sl] - first).tolist()  # negative: no parent
        kind = kind_c[sl].tolist()
        xp = [""] * count
        out: dict[str, int] = {}
        for i in range(count):
            if kind[i] != KIND_ELEMENT:
                continue
            p = local_parent[i]
            path = xp[p] + steps[i] if p >= 0 else steps[i]
            xp[i] = path
            out[path] = first + i
        cache = self._xpath_cache
        if len(cache) > 4096:
            for key in list(cache)[: len(cache) // 2]:
                del cache[key]
        cache[d] = out
        return out

    def row_of(self, uid: str) -> int:
        """Row of one id; UnknownIdError naming it when absent."""
        row = int(self.resolve([uid])[0])
        if row < 0:
            raise UnknownIdError(f"{uid}: no such unit in store {self.location}")
        return row

    def unit(self, uid: str) -> dict:
        """One unit's fields as a dict."""
        return self.units([self.row_of(uid)]).iloc[0].to_dict()

    def units(self, rows: Sequence[int] | np.ndarray) -> pd.DataFrame:
        """A table of units: id, doc, kind, tag, label path, depth, parent, pre,
        post, size, pos, start, end, length, words."""
        table = self.table()
        rows = np.asarray(rows, dtype=np.int64)
        cols = table.columns
        docs = table.docs
        doc = np.asarray(cols["doc"][rows])
        first = docs["first"].to_numpy()[doc] if len(rows) else np.zeros(0, np.int64)
        parent = np.asarray(cols["parent"][rows])
        start = np.asarray(cols["start"][rows])
        length = np.asarray(cols["length"][rows])
        kind = np.asarray(cols["kind"][rows])
        return pd.DataFrame({
            "id": table.ids(rows),
            "doc": docs["name"].to_numpy()[doc] if len(rows) else [],
            "kind": [KIND_NAMES[int(k)] for k in kind],
            "tag": [table.tags[t] for t in cols["tag"][rows]],
            "label_path": [table.paths[p] for p in cols["path"][rows]],
            "depth": np.asarray(cols["depth"][rows]),
            "parent": [table.ids([p])[0] if p >= 0 else "" for p in parent],
            "pre": rows - first,
            "post": np.asarray(cols["post"][rows]),
            "size": np.asarray(cols["size"][rows]),
            "pos": np.asarray(cols["pos"][rows]),
            "start": start,
            "end": start + length,
            "length": length,
            "words": np.asarray(cols["words"][rows]),
            "row": rows,
        })

    def ancestors(self, row: int) -> list[int]:
        """Rows of the ancestors of ``row``, root first."""
        parent = self.table().columns["parent"]
        out = []
        p = int(parent[row])
        while p >= 0:
            out.append(p)
            p = int(parent[p])
        return out[::-1]

    def children(self, row: int) -> np.ndarray:
        """Rows of the children of ``row`` in document order."""
        table = self.table()
        size = int(table.columns["size"][row])
        span = np.arange(row + 1, row + size)
        return span[np.asarray(table.columns["parent"][row + 1:row + size]) == row]

    def document_rows(self, name: str) -> tuple[int, int]:
        """(first row, count) of the document ``name``; UnknownIdError if absent."""
        table = self.table()
        try:
            d = table.doc_index(name)
        except KeyError:
            raise UnknownIdError(f"{name}: no such document in store {self.location}") from None
        return int(table.docs["first"].iat[d]), int(table.docs["count"].iat[d])

    def subtree(self, uid: str) -> pd.DataFrame:
        """The unit ``uid`` (a document id works too) and all its descendants."""
        table = self.table()
        name = uid.partition("#")[0]
        if "#" not in uid and name in set(table.docs["name"]):
            first, _ = self.document_rows(name)
            row = first
        else:
            row = self.row_of(uid)
        size = int(table.columns["size"][row])
        return self.units(np.arange(row, row + size))

    def document_graph(self, name: str) -> nx.DiGraph:
        """A networkx view of one document: nodes are unit ids with their
        fields as attributes, CHILD edges parent -> child."""
        first, count = self.document_rows(name)
        df = self.units(np.arange(first, first + count))
        g = nx.DiGraph(document=name)
        for rec in df.to_dict("records"):
            g.add_node(rec["id"], **{k: v for k, v in rec.items() if k != "id"})
            if rec["parent"]:
                g.add_edge(rec["parent"], rec["id"], type="CHILD")
        return g

    def count_units(self, kind: int | None = None) -> int:
        """Number of units (of one kind)."""
        table = self.table()
        if kind is None:
            return len(table)
        return int(np.count_nonzero(np.asarray(table.columns["kind"]) == kind))

    def info(self) -> dict:
        """Counts per kind, documents, links, summaries, format, size on disk."""
        table = self.table()
        kinds = np.bincount(np.asarray(table.columns["kind"], dtype=np.int64), minlength=4)
        src, dst, _ = self._read_links()
        summaries = self.summary_names()
        size = sum(f.stat().st_size for f in self.path.rglob("*") if f.is_file()) \
            if self.path.exists() else 0
        doc_kinds = np.bincount(table.docs["kind"].to_numpy(dtype=np.int64), minlength=4) \
            if len(table.docs) else np.zeros(4, np.int64)
        return {
            "store": self.location,
            "format": f"{FORMAT} v{FORMAT_VERSION}",
            "generation": self.manifest.get("generation"),
            "documents": int(len(table.docs) - doc_kinds[KIND_VIDEO]),
            "elements": int(kinds[KIND_ELEMENT]),
            "pages": int(kinds[KIND_PAGE]),
            "videos": int(kinds[KIND_VIDEO]),
            "segments": int(kinds[KIND_SEGMENT]),
            "units": len(table),
            "tags": len(table.tags),
            "label_paths": len(table.paths),
            "links": int(np.count_nonzero(dst >= 0)),
            "dangling_links": int(np.count_nonzero(dst < 0)),
            "link_stats": dict(self.manifest.get("link_stats", {})),
            "degrees": _degree_summary(src[dst >= 0], dst[dst >= 0], len(table)),
            "summaries": summaries,
            "bytes_on_disk": int(size),
            "loads": self.manifest.get("loads", []),
        }

    # --------------------------------------------------------------- summaries
    def summary_names(self) -> list[str]:
        """Names of the summaries stored with the current generation."""
        return list(self.manifest.get("summaries", []))

    def summary_dir(self, name: str) -> Path | None:
        """Directory of a stored summary, or None when not built."""
        gen = self._gen_dir
        if gen is None or name not in self.summary_names():
            return None
        return gen / "summaries" / _safe_name(name)

    def build_summary(self, axpre: str, weight: str = "count") -> Any:
        """Build the AxPRE summary ``axpre`` (π under ``weight``) and store it
        with the collection; returns the :class:`~graphprum.summaries.axpre.Summary`."""
        from graphprum.summaries.axpre import build_summary, normalise_axpre

        name = normalise_axpre(axpre)
        summary = build_summary(self.table(), name, weight)
        self.save_summary(name, summary.save)
        return summary

    def summary(self, axpre: str) -> Any:
        """The stored summary ``axpre``; StoreError naming the build command if absent."""
        from graphprum.summaries.axpre import Summary, normalise_axpre

        name = normalise_axpre(axpre)
        where = self.summary_dir(name)
        if where is None:
            raise StoreError(f"{self.location}: no {name} summary stored; build it with "
                             f"'graphprum summary build {name}'")
        return Summary.load(where)

    def save_summary(self, name: str, write: Callable[[Path], None]) -> None:
        """Store a summary: ``write(dir)`` fills a fresh directory, which then
        replaces any summary of that name in a new generation (atomic)."""
        with self._lock():
            self._manifest = self._read_manifest()
            gen = self._gen_dir
            if gen is None:
                raise StoreError(f"{self.location}: the store is empty; load a collection first")
            new_name, tmp = self._new_generation_dir()
            # hard-link the unchanged generation into the new one (cheap, atomic swap)
            _link_tree(gen, tmp, skip=Path("summaries") / _safe_name(name))
            sdir = tmp / "summaries" / _safe_name(name)
            sdir.mkdir(parents=True, exist_ok=True)
            write(sdir)
            names = [n for n in self.summary_names() if n != name] + [name]
            self._commit(tmp, new_name, {**self.manifest, "summaries": names})

    # ----------------------------------------------------------------- writing
    def load_xml(self, paths: Iterable[str | os.PathLike[str]], *, links: str | None = None,
                 replace: bool = False, skip_bad: bool = False,
                 on_file: Callable | None = None) -> LoadReport:
        """Load XML files and directories (recursively ``*.xml``).

        Parameters
        ----------
        paths : iterable of path-like
            Files or directories.
        links : str, optional
            ``TAG@ATTR``: those elements become LINK edges to the target document.
        replace : bool
            Replace documents whose id is already stored (else an error).
        skip_bad : bool
            Skip files that are not well-formed and list them in the report.
        on_file : callable, optional
            Called as ``on_file(xml_file, n_elements)`` after each file.
        """
        from graphprum.loaders.xml import xml_documents

        paths = list(paths)
        docs, skipped = xml_documents(paths, links, skip_bad, on_file, batches=True)
        report = self.load_documents(docs, replace=replace,
                                     description={"kind": "xml", "paths": [str(p) for p in paths],
                                                  "links": links})
        report.skipped = skipped
        return report

    def load_web(self, root: str | os.PathLike[str], *, elements: bool = False,
                 replace: bool = False, on_file: Callable | None = None) -> LoadReport:
        """Load an HTML site: one page unit per ``.html``/``.htm`` file (or its
        element tree with ``elements``) and LINK edges between pages.

        Links leaving the site or pointing to missing files are counted (see
        :meth:`info`) but not stored.
        """
        from graphprum.loaders.web import load_site

        site = load_site(root, elements=elements,
                         progress=(lambda page, n: on_file(page, n)) if on_file else None)
        stats_holder: dict = {}

        def pages() -> Iterable[ParsedDocument]:
            yield from site
            stats_holder.update(external_links=site.stats.external,
                                links_leaving_root=site.stats.outside,
                                links_to_missing_files=site.stats.missing,
                                links_to_non_pages=site.stats.non_page,
                                links_within_page=site.stats.same_page)

        report = self.load_documents(pages(), replace=replace,
                                     description={"kind": "web", "paths": [str(root)],
                                                  "elements": elements},
                                     link_stats=stats_holder)
        report.extra = dict(stats_holder)
        return report

    def load_links(self, path: str | os.PathLike[str]) -> LoadReport:
        """Load a link list ``FROM<TAB>TO``; pages not yet stored become page units."""
        from graphprum.loaders.linklist import read_link_list

        return self.load_documents([], link_pairs=read_link_list(path),
                                   description={"kind": "links", "paths": [str(path)]})

    def load_video(self, paths: Iterable[str | os.PathLike[str]], *, replace: bool = False,
                   ) -> LoadReport:
        """Load segment tables (``VIDEO N START END``) and ``.srt``/``.vtt`` files."""
        from graphprum.loaders.video import read_videos

        paths = list(paths)
        return self.load_documents(read_videos(paths), replace=replace,
                                   description={"kind": "video",
                                                "paths": [str(p) for p in paths]})

    def load_documents(self, docs: Iterable[ParsedDocument | DocumentBatch], *,
                       replace: bool = False,
                       description: dict | None = None,
                       link_pairs: Iterable[tuple[Sequence[str], Sequence[str]]] | None = None,
                       link_stats: dict | None = None) -> LoadReport:
        """Add parsed documents (and optionally raw page-to-page links) in one
        atomic write: all or nothing.

        ``link_pairs`` yields chunks of (FROM ids, TO ids); ids not held become
        page units (kind page, length 0).
        """
        t0 = time.perf_counter()
        with self._lock():
            self._manifest = self._read_manifest()
            self._table = None
            self._links = None
            old = self.table()
            new_name, tmp = self._new_generation_dir()
            builder = None
            try:
                builder = _Builder(list(old.tags), list(old.paths), tmp / "spool")
                report = self._build(docs, old, builder, replace, link_pairs, description,
                                     link_stats, new_name, tmp)
            except BaseException:
                if builder is not None:
                    builder.close()
                shutil.rmtree(tmp, ignore_errors=True)
                raise
        report.seconds = time.perf_counter() - t0
        return report

    def _build(self, docs: Iterable[ParsedDocument | DocumentBatch], old: UnitTable,
               builder: _Builder, replace: bool,
               link_pairs: Iterable[tuple[Sequence[str], Sequence[str]]] | None,
               description: dict | None, link_stats: dict | None, new_name: str,
               tmp: Path) -> LoadReport:
        """The body of :meth:`load_documents`, under the write lock."""
        old_names = {n: i for i, n in enumerate(old.docs["name"])}
        new_names: set[str] = set()
        replaced: set[int] = set()
        report = LoadReport()
        base = len(old)
        for doc in docs:
            names = doc.names if isinstance(doc, DocumentBatch) else [doc.name]
            sources = doc.sources if isinstance(doc, DocumentBatch) else [doc.source]
            for name, source in zip(names, sources, strict=True):
                if name in new_names:
                    raise InputError(source, None,
                                     f"document id {name!r} occurs twice in this load")
                if name in old_names:
                    if not replace:
                        raise InputError(source, None,
                                         f"document {name!r} is already stored; "
                                         f"use --replace to replace it")
                    replaced.add(old_names[name])
                new_names.add(name)
            builder.add(doc, base)
            report.documents += len(names)
            report.elements += len(doc) if isinstance(doc, DocumentBatch) else len(doc.tags)
        if link_pairs is not None:
            before = len(builder.doc_names)
            self._add_link_pairs(builder, old, base, link_pairs)
            report.documents += len(builder.doc_names) - before
        if report.documents == 0 and link_pairs is None:
            raise InputError(", ".join((description or {}).get("paths", [])) or "input",
                             None, "nothing to load")
        counts = self._write_generation(tmp, old, replaced, builder, base)
        builder.close()  # the spool is not part of the generation
        report.replaced = len(replaced)
        report.links = counts.pop("_links_added", 0)
        manifest = dict(self.manifest)
        manifest["counts"] = counts
        manifest["summaries"] = []  # the collection changed: summaries are stale
        if link_stats:  # may have been filled while the documents were read
            merged = dict(manifest.get("link_stats", {}))
            for k, v in link_stats.items():
                merged[k] = merged.get(k, 0) + v if isinstance(v, int) else v
            manifest["link_stats"] = merged
        manifest["loads"] = [*manifest.get("loads", []), {
            **(description or {}), "documents": report.documents,
            "units": report.elements, "replaced": len(replaced),
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z")}]
        self._commit(tmp, new_name, manifest)
        return report

    def _add_link_pairs(self, builder: _Builder, old: UnitTable, base: int,
                        link_pairs: Iterable[tuple[Sequence[str], Sequence[str]]]) -> None:
        """Links FROM -> TO between pages; unknown pages become page units."""
        known: dict[str, int] = {}
        for i, (name, kind) in enumerate(zip(old.docs["name"], old.docs["kind"], strict=True)):
            if kind in (KIND_PAGE, KIND_ELEMENT):
                known[name] = int(old.docs["first"].iat[i])
        known.update(zip(builder.doc_names, builder.doc_firsts, strict=True))
        for froms, tos in link_pairs:
            new: list[str] = []
            next_row = base + builder.n
            for name in (*froms, *tos):
                if name not in known:
                    known[name] = next_row + len(new)
                    new.append(name)
            if new:
                builder.add(_page_units(new), base)
            src = np.fromiter((known[f] for f in froms), dtype=np.int64, count=len(froms))
            builder.link_src.append(src)
            builder.link_targets.extend(tos)
            builder.link_anchors.extend([""] * len(tos))

    def _write_generation(self, tmp: Path, old: UnitTable, replaced: set[int],
                          builder: _Builder, base: int) -> dict:
        """Write old units (minus replaced documents) + new units into ``tmp``."""
        (tmp / "units").mkdir(parents=True)
        (tmp / "docs").mkdir()
        (tmp / "links").mkdir()
        n_old = len(old)
        keep = np.ones(n_old, dtype=bool)
        old_first = old.docs["first"].to_numpy()
        old_count = old.docs["count"].to_numpy()
        for d in replaced:
            keep[old_first[d]:old_first[d] + old_count[d]] = False
        n_kept = int(keep.sum())
        kept_rank = np.cumsum(keep) - 1 if replaced else None
        keep_docs = np.array([d not in replaced for d in range(len(old.docs))], dtype=bool)
        n_old_docs = int(keep_docs.sum())
        doc_rank = np.cumsum(keep_docs) - 1

        def remap(rows: np.ndarray) -> np.ndarray:
            """New global row of old and new rows (-1 for a dropped old row)."""
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
        block = 1 << 20
        for c, dtype in UNIT_COLUMNS.items():
            with _NpyWriter(tmp / "units" / f"{c}.npy", dtype, n_kept + builder.n) as out:
                old_blocks = ((True, np.asarray(old.columns[c][i:i + block])[keep[i:i + block]])
                              for i in range(0, n_old, block))
                new_blocks = ((False, v) for v in builder.new_column(c, block))
                for is_old, values in itertools.chain(old_blocks, new_blocks):
                    if c == "doc":  # old: rank among kept documents; new: after them
                        values = doc_rank[values] if is_old else values + n_old_docs
                    elif c == "parent":
                        values = np.where(values >= 0, remap(np.maximum(values, 0)), -1)
                    elif c == "kind":
                        per_kind += np.bincount(values.astype(np.int64), minlength=4)[:4]
                    out.write(values)
        with open(tmp / "vocab.json", "w", encoding="utf-8") as f:
            json.dump({"tags": builder.tags, "paths": builder.paths}, f)
        names = [n for n, k in zip(old.docs["name"], keep_docs, strict=True) if k] \
            + builder.doc_names
        sources = [s for s, k in zip(old.docs["source"], keep_docs, strict=True) if k] \
            + builder.doc_sources
        kinds = np.concatenate([old.docs["kind"].to_numpy(dtype=np.int8)[keep_docs],
                                np.array(builder.doc_kinds, dtype=np.int8)])
        counts = np.concatenate([old_count[keep_docs].astype(np.int64),
                                 np.array(builder.doc_counts, dtype=np.int64)])
        firsts = np.concatenate(([0], np.cumsum(counts)[:-1])) if len(counts) \
            else np.zeros(0, np.int64)
        _write_lines(tmp / "docs" / "names.txt", names)
        _write_lines(tmp / "docs" / "sources.txt", sources)
        _save_npy(tmp / "docs" / "kind.npy", kinds)
        _save_npy(tmp / "docs" / "first.npy", firsts.astype(np.int64))
        _save_npy(tmp / "docs" / "count.npy", counts)
        # links: old ones keep their source if it survives; all targets re-resolved
        src_old, _, targets_old = self._read_links()
        anchors_old = self.anchors() if len(src_old) else []
        if len(src_old):
            src_old = remap(src_old)
            alive = src_old >= 0
            src_old = src_old[alive]
            targets_old = [t for t, a in zip(targets_old, alive, strict=True) if a]
            anchors_old = [t for t, a in zip(anchors_old, alive, strict=True) if a] \
                if anchors_old else [""] * len(targets_old)
        src_new = np.concatenate(builder.link_src) if builder.link_src \
            else np.zeros(0, np.int64)
        src_new = remap(src_new) if len(src_new) else src_new
        src = np.concatenate([src_old, src_new]).astype(np.int64)
        targets = list(targets_old) + builder.link_targets
        anchors = list(anchors_old) + builder.link_anchors
        root_of = dict(zip(names, firsts.tolist(), strict=True))
        dst = np.fromiter((root_of.get(t, -1) for t in targets), dtype=np.int64,
                          count=len(targets))
        _save_npy(tmp / "links" / "src.npy", src)
        _save_npy(tmp / "links" / "dst.npy", dst)
        _write_lines(tmp / "links" / "targets.txt", targets)
        _write_lines(tmp / "links" / "anchors.txt", anchors)
        return {"documents": len(names), "units": n_kept + builder.n,
                **{KIND_NAMES[k]: int(per_kind[k]) for k in KIND_NAMES},
                "links": int(np.count_nonzero(dst >= 0)),
                "dangling_links": int(np.count_nonzero(dst < 0)),
                "_links_added": len(builder.link_targets)}

    # ----------------------------------------------------------- generations
    @contextlib.contextmanager
    def _lock(self):
        self.path.mkdir(parents=True, exist_ok=True)
        with open(self.path / "lock", "a+") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise StoreError(f"{self.location}: another graphprum process is writing "
                                 f"to this store") from None
            try:
                self._cleanup()
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def _cleanup(self) -> None:
        """Remove leftovers of interrupted writes and superseded generations."""
        current = self._read_manifest().get("generation")
        for p in self.path.glob("gen-*"):
            if p.name != current and p.is_dir():
                shutil.rmtree(p, ignore_errors=True)
        for p in self.path.glob("manifest.json.tmp*"):
            p.unlink(missing_ok=True)

    def _new_generation_dir(self) -> tuple[str, Path]:
        current = self.manifest.get("generation")
        number = int(current.split("-")[1]) + 1 if current else 1
        name = f"gen-{number:06d}"
        tmp = self.path / f"{name}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        return name, tmp

    def _commit(self, tmp: Path, name: str, manifest: dict) -> None:
        """Make ``tmp`` the current generation: fsync, rename, swap the manifest."""
        _fsync_tree(tmp)
        final = self.path / name
        os.replace(tmp, final)
        manifest = {**manifest, "format": FORMAT, "version": FORMAT_VERSION, "generation": name}
        mtmp = self.path / f"manifest.json.tmp{os.getpid()}"
        with open(mtmp, "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(mtmp, self.path / "manifest.json")
        _fsync_dir(self.path)
        self._manifest = manifest
        self._table = None
        self._links = None
        self._xpath_cache.clear()
        self._cleanup()

    def close(self) -> None:
        """Release cached tables (memory maps close with them)."""
        self._table = None
        self._links = None
        self._xpath_cache.clear()


def _degree_summary(src: np.ndarray, dst: np.ndarray, n: int) -> dict[str, str]:
    """Out- and in-degree distribution of the units that have links."""
    if len(src) == 0:
        return {}
    out = {}
    for label, ends in (("out-degree", src), ("in-degree", dst)):
        deg = np.bincount(ends, minlength=n)
        has = deg[deg > 0]
        q = np.percentile(has, [50, 90, 99]).round(1)
        out[label] = (f"{len(has):,} units; mean {has.mean():.2f}, median {q[0]:g}, "
                      f"p90 {q[1]:g}, p99 {q[2]:g}, max {int(has.max()):,}")
    return out


def _page_unit(name: str) -> ParsedDocument:
    """A page known only from a link list: one unit of length 0."""
    return next(iter(_page_units([name]).documents()))


def _page_units(names: list[str]) -> DocumentBatch:
    """Pages known only from a link list: one unit of length 0 each."""
    n = len(names)
    ones = np.ones(n, np.int32)
    cols = {"kind": np.full(n, KIND_PAGE, np.int8), "parent": np.full(n, -1, np.int32),
            "depth": np.zeros(n, np.int16), "post": np.zeros(n, np.int32),
            "size": ones, "pos": ones, "start": np.zeros(n), "length": np.zeros(n),
            "words": np.zeros(n, np.int32)}
    zeros = np.zeros(n, np.int32)
    return DocumentBatch(list(names), [""] * n, [KIND_PAGE] * n, np.ones(n, np.int64),
                         zeros, ["page"], zeros, ["/page"], cols)


def _safe_name(name: str) -> str:
    """A summary name as a directory name (``p*|c`` -> ``p%2A%7Cc``)."""
    from urllib.parse import quote

    return quote(name, safe="-_.=,")


class _NpyWriter:
    """Write a 1-d ``.npy`` file of known length block by block."""

    def __init__(self, path: Path, dtype: type, length: int) -> None:
        self.dtype = np.dtype(dtype)
        self.length = length
        self.written = 0
        self.file = open(path, "wb")  # noqa: SIM115 - closed by __exit__
        np.lib.format.write_array_header_1_0(self.file, {
            "descr": np.lib.format.dtype_to_descr(self.dtype), "fortran_order": False,
            "shape": (length,)})

    def __len__(self) -> int:
        return self.written

    def write(self, values: np.ndarray) -> None:
        self.file.write(np.ascontiguousarray(values, dtype=self.dtype).data)
        self.written += len(values)

    def __enter__(self) -> _NpyWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.file.close()
        if exc[0] is None and self.written != self.length:  # pragma: no cover - a bug
            raise RuntimeError(f"{self.file.name}: wrote {self.written} of {self.length}")


def _save_npy(path: Path, array: np.ndarray) -> None:
    with open(path, "wb") as f:
        np.save(f, np.ascontiguousarray(array), allow_pickle=False)


def _write_lines(path: Path, lines: Iterable[str]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for line in lines:
            if "\n" in line:
                raise UsageError(f"a name contains a newline: {line!r}")
            f.write(line)
            f.write("\n")


def _read_lines(path: Path) -> list[str]:
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    return text.split("\n")[:-1] if text else []


def _fsync_tree(root: Path) -> None:
    for dirpath, _, files in os.walk(root):
        for f in files:
            fd = os.open(os.path.join(dirpath, f), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        _fsync_dir(Path(dirpath))


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _link_tree(src: Path, dst: Path, skip: Path) -> None:
    """Hard-link every file of ``src`` into ``dst`` except the subtree ``skip``."""
    for dirpath, _, files in os.walk(src):
        rel = Path(dirpath).relative_to(src)
        if rel == skip or skip in rel.parents:
            continue
        (dst / rel).mkdir(parents=True, exist_ok=True)
        for f in files:
            try:
                os.link(Path(dirpath) / f, dst / rel / f)
            except OSError:
                shutil.copy2(Path(dirpath) / f, dst / rel / f)
