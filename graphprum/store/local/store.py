"""The embedded store: numpy columns for the evaluator and a LadybugDB graph
for Cypher, in one directory, written one atomic generation at a time.

See :mod:`graphprum.store.local.layout` for the directory, who deletes what
and how readers keep their generation, :mod:`graphprum.store.local.spool`
and :mod:`graphprum.store.local.writer` for how a load writes the columns,
:mod:`graphprum.store.local.columns` for how they are read, and
:mod:`graphprum.store.local.graph` for the graph.

Examples
--------
>>> import tempfile, pathlib
>>> from graphprum.loading import load_xml
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "x.xml").write_text("<a><b>hi</b><b/></a>")
>>> store = LocalStore(d / "store")
>>> load_xml(store, [d / "x.xml"]).elements
3
>>> store.resolve(["x#/a[1]/b[2]", "x#/a[1]/c[1]"]).tolist()
[2, -1]
>>> store.query("MATCH (u:Unit {tag: $t}) RETURN count(u) AS n", {"t": "b"})
[{'n': 2}]
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np

import graphprum.store.local.graph as graphdb
import graphprum.store.local.layout as layout
from graphprum.errors import InputError, StoreError, UsageError
from graphprum.store.base import (
    CYPHER,
    FORK_SAFE,
    SUMMARY_NODES,
    TABLE,
    Resumed,
    merged_link_stats,
)
from graphprum.store.linkgraph import LinkGraph, degree_summary
from graphprum.store.local.columns import attributes_of, read_attributes, read_table, validate
from graphprum.store.local.graph_reader import GraphReader
from graphprum.store.local.links import LINKS, LinkColumns
from graphprum.store.local.spool import Builder, link_pairs_into, names_in
from graphprum.store.local.strings import StringColumn
from graphprum.store.local.writer import save_npy, write_generation
from graphprum.store.tables import TableStore
from graphprum.units import (
    KIND_NAMES,
    UNIT_COLUMNS,
    DocTable,
    DocumentBatch,
    LoadReport,
    ParsedDocument,
    UnitTable,
)

FORMAT = "graphprum-local"
FORMAT_VERSION = 4


class LocalStore(TableStore):
    """The embedded store in a directory (see the module notes).

    Parameters
    ----------
    path : path-like
        The store directory; created on first write when ``create``.
    create : bool
        Whether a missing directory is acceptable (it is created on first write).
    wait : float
        Seconds a write waits for another writer to finish.
    """

    capabilities = frozenset({TABLE, CYPHER, FORK_SAFE, SUMMARY_NODES})

    def __init__(self, path: str | os.PathLike[str], create: bool = True,
                 wait: float = 0.0) -> None:
        super().__init__()
        self.path = Path(path)
        self.location = str(self.path)
        self.wait = wait
        if self.path.exists() and not self.path.is_dir():
            raise StoreError(f"{self.path}: store path exists and is not a directory")
        if not create and not (self.path / layout.MANIFEST).exists():
            raise StoreError(f"{self.path}: no graphprum store here (no manifest.json)")
        if self.path.exists() and not layout.is_store(self.path) and any(self.path.iterdir()):
            if (self.path / layout.MANIFEST).exists():
                self._read_manifest()  # says which format version it is
            layout.claim(self.path)  # raises: not a store and not empty
        self._manifest: dict[str, Any] | None = None
        self._gen: Path | None = None
        self._reader: layout.ReaderLock | None = None
        self._table: UnitTable | None = None
        self._strings: dict[str, StringColumn] = {}
        self._attributes: Any = None
        self._graph: GraphReader | None = None
        self._link_columns: LinkColumns | None = None

    # ---------------------------------------------------------- generation
    @property
    def manifest(self) -> dict[str, Any]:
        """The manifest of the generation this store reads (opened on first use)."""
        if self._manifest is None:
            self._open_generation()
        assert self._manifest is not None
        return self._manifest

    def _read_manifest(self) -> dict[str, Any]:
        mpath = self.path / layout.MANIFEST
        if not mpath.exists():
            return {"format": FORMAT, "version": FORMAT_VERSION, "generation": None,
                    "loads": [], "counts": {}, "summaries": []}
        try:
            manifest: dict[str, Any] = json.loads(mpath.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise StoreError(f"{mpath}: unreadable store manifest ({exc})") from None
        if manifest.get("format") != FORMAT:
            raise StoreError(f"{mpath}: not a graphprum store (format {manifest.get('format')!r})")
        version = manifest.get("version")
        if version != FORMAT_VERSION or type(version) is not type(FORMAT_VERSION):
            raise StoreError(
                f"{mpath}: store format version {version!r} is not supported "
                f"(this graphprum reads version {FORMAT_VERSION!r}); load the collection again "
                f"into a new store (graphprum --store NEW load ...)")
        gen = manifest.get("generation")
        if gen is not None and not (isinstance(gen, str) and layout.GENERATION.fullmatch(gen)):
            raise StoreError(f"{mpath}: damaged store manifest: generation {gen!r} is not a "
                             f"generation name (gen-NNNNNN); load the collection again into a "
                             f"new store (graphprum --store NEW load ...)")
        return manifest

    def _open_generation(self) -> None:
        """Read the manifest and hold its generation (a shared reader lock),
        retrying when a writer removed it in between."""
        for _ in range(100):
            manifest = self._read_manifest()
            gen = manifest.get("generation")
            if gen is None:
                self._manifest, self._gen = manifest, None
                return
            lock = layout.ReaderLock(self.path / gen)
            if lock.acquire():
                self.release()
                self._manifest, self._gen, self._reader = manifest, self.path / gen, lock
                return
            time.sleep(0.01)
        raise StoreError(f"{self.location}: the store keeps changing under this reader; "
                         f"try again")

    def release(self) -> None:
        """Let go of the generation read so far (caches and reader lock)."""
        if self._graph is not None:
            self._graph.close()
            self._graph = None
        if self._reader is not None:
            self._reader.release()
            self._reader = None
        self._manifest = None
        self._gen = None
        self._table = None
        self._strings = {}
        self._attributes = None
        self._link_columns = None
        self._reset_caches()

    def close(self) -> None:
        """Release the generation (memory maps close with the tables)."""
        self.release()

    @property
    def generation(self) -> Path | None:
        """Directory of the generation this store reads (None when empty)."""
        self.manifest  # noqa: B018 - opens it
        return self._gen

    def _damaged(self, exc: Exception) -> StoreError:
        return StoreError(f"{self._gen}: store generation is damaged ({exc}); load the "
                          f"collection again into a new store")

    # ----------------------------------------------------------------- reads
    def table(self) -> UnitTable:
        """The whole collection as a memory-mapped :class:`UnitTable`."""
        if self._table is None:
            gen = self.generation
            if gen is None:
                cols: dict[str, np.ndarray] = {c: np.zeros(0, dtype=t)
                                               for c, t in UNIT_COLUMNS.items()}
                self._table = UnitTable(cols, [], [], DocTable({"name": []}))
            else:
                try:
                    self._table = read_table(gen)[0]
                except (OSError, ValueError, KeyError) as exc:
                    raise self._damaged(exc) from None
        return self._table

    def _links(self) -> LinkColumns | None:
        """The generation's link columns (memory-mapped; None when empty)."""
        gen = self.generation
        if gen is None:
            return None
        if self._link_columns is None:
            try:
                self._link_columns = LinkColumns(gen / LINKS)
            except (OSError, ValueError) as exc:
                raise self._damaged(exc) from None
        return self._link_columns

    def link_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Holding rows (ascending) and arrival rows (-1: dangling), memory-mapped."""
        links = self._links()
        if links is None:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        return links.src, links.dst

    def link_texts(self) -> tuple[list[str], list[str]]:
        """Targets and anchors of every link (decoded)."""
        links = self._links()
        if links is None:
            return [], []
        table = self.table()
        try:
            return (links.target_texts(np.arange(len(links)), table.docs["name"],
                                       table.columns["doc"]), links.anchors())
        except (OSError, ValueError) as exc:
            raise self._damaged(exc) from None

    def link_graph(self) -> LinkGraph:
        """The link graph written with the generation (memory-mapped), with
        the tree's ``size`` and ``parent`` columns."""
        if self._link_graph is None:
            links = self._links()
            table = self.table()
            if links is None:
                self._link_graph = LinkGraph.build(np.zeros(0), np.zeros(0), n=0)
            else:
                try:
                    self._link_graph = links.graph(len(table), table.columns["size"],
                                                   table.columns["parent"])
                except (OSError, ValueError) as exc:
                    raise self._damaged(exc) from None
        return self._link_graph

    def _string_column(self, name: str) -> StringColumn:
        if name not in self._strings:
            gen = self.generation
            if gen is None:
                raise StoreError(f"{self.location}: the store is empty")
            try:
                self._strings[name] = StringColumn(gen / "units" / name)
            except (OSError, ValueError) as exc:
                raise self._damaged(exc) from None
        return self._strings[name]

    def texts(self, rows: np.ndarray) -> list[str]:
        """The text snippet of every row."""
        return self._string_column("text")[rows] if len(rows) else []

    def attributes(self, rows: np.ndarray) -> list[dict[str, str]]:
        """The attributes of every row."""
        if not len(rows):
            return []
        if self._attributes is None:
            gen = self.generation
            if gen is None:
                return [{} for _ in rows]
            try:
                self._attributes = read_attributes(gen)
            except (OSError, ValueError) as exc:
                raise self._damaged(exc) from None
        return attributes_of(self._attributes, rows)

    def info(self) -> dict[str, Any]:
        """Counts per kind, documents, links, summaries, format, size on disk."""
        src, dst = (np.asarray(a, dtype=np.int64) for a in self.link_rows())
        size = layout.bytes_on_disk(self.path)
        manifest = self.manifest
        return {
            "store": self.location,
            "format": f"{FORMAT} v{FORMAT_VERSION}",
            "engine": manifest.get("engine", {}),
            "generation": manifest.get("generation"),
            **self.counts(),
            "link_stats": dict(manifest.get("link_stats", {})),
            "degrees": degree_summary(src[dst >= 0], dst[dst >= 0], len(self.table())),
            "summaries": self.summary_names(),
            "incomplete_documents": 0,
            "interrupted_loads": 0,
            "bytes_on_disk": int(size),
            "loads": manifest.get("loads", []),
        }

    # ------------------------------------------------------------- summaries
    def summary_names(self) -> list[str]:
        """Names of the summaries stored with the current generation, sorted
        (as every store lists them)."""
        return sorted(self.manifest.get("summaries", []))

    def _summary_dir(self, name: str) -> Path | None:
        gen = self.generation
        if gen is None or name not in self.summary_names():
            return None
        return gen / "summaries" / _safe_name(name)

    def load_summary(self, name: str) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
        """A stored summary's arrays (membership memory-mapped) and metadata."""
        where = self._summary_dir(name)
        if where is None:
            return None
        try:
            meta = layout.read_json(where / "summary.json")
            arrays = {p.stem: np.load(p, mmap_mode="r" if p.stem == "membership" else None)
                      for p in where.glob("*.npy")}
        except (OSError, ValueError) as exc:
            raise self._damaged(exc) from None
        return arrays, meta

    def summary_membership(self, name: str) -> np.ndarray | None:
        """Partition of every row under the stored summary ``name``."""
        found = self.load_summary(name)
        return None if found is None else found[0].get("membership")

    def save_summary(self, name: str, arrays: dict[str, np.ndarray],
                     meta: dict[str, Any]) -> None:
        """Store a summary in a new generation that shares every other file
        with the current one (hard links), atomically."""
        with self._writing() as (manifest, gen):
            if gen is None:
                raise StoreError(f"{self.location}: the store is empty; load a collection first")
            new_name, tmp = layout.new_generation(self.path, manifest.get("generation"))
            try:
                sub = Path("summaries") / _safe_name(name)
                layout.link_tree(gen, tmp, skip=[sub, Path(graphdb.GRAPH)])
                sdir = tmp / sub
                sdir.mkdir(parents=True, exist_ok=True)
                for key, value in arrays.items():
                    save_npy(sdir / f"{key}.npy", np.asarray(value))
                layout.write_json(sdir / "summary.json", meta)
                if graphdb.current(gen):  # the graph gains the summary (else: built later)
                    shutil.copyfile(gen / graphdb.GRAPH, tmp / graphdb.GRAPH)
                    graphdb.add_summary(tmp / graphdb.GRAPH, name, arrays, meta)
                names = [n for n in manifest.get("summaries", []) if n != name] + [name]
                self._commit(tmp, new_name, {**manifest, "summaries": names})
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise

    # ----------------------------------------------------------------- Cypher
    def graph_path(self) -> Path:
        """The generation's graph database, built now if the generation has
        none yet (into a temporary directory when the store is read-only)."""
        gen = self.generation
        if gen is None:
            raise StoreError(f"{self.location}: the store is empty; load a collection first")
        path = gen / graphdb.GRAPH
        written = graphdb.written_by(gen)
        if written is not None and written != graphdb.engine_version():
            raise StoreError(
                f"{self.location}: its graph was written by LadybugDB {written}, this "
                f"graphprum runs {graphdb.engine_version()}; copy the collection into a new "
                f"store to rebuild it: graphprum copy {self.location} NEW-STORE")
        if written is None:
            summaries = {n: s for n in self.summary_names() if (s := self.load_summary(n))}
            target = None
            if not os.access(gen, os.W_OK):
                target = Path(tempfile.mkdtemp(prefix="graphprum-graph-")) / graphdb.GRAPH
            try:
                path = graphdb.build(gen, self.table(), summaries, target)
            except OSError as exc:
                raise layout.disk_error(exc, gen) from None
        return path

    def graph_ready(self) -> bool:
        """Whether a query runs on a graph already built (else it builds it)."""
        gen = self.generation
        return gen is None or graphdb.current(gen)

    def build_graph(self) -> bool:
        """Build the current generation's graph now if it has none (a load
        leaves that to the first query, or to the command line's ``load``);
        whether it was built."""
        if self.graph_ready():
            return False
        self.graph_path()
        return True

    def query(self, text: str, params: dict[str, Any] | None = None, *,
              write: bool = False, timeout: float | None = None) -> list[dict[str, Any]]:
        """Run Cypher on the generation's graph, read-only."""
        if write:
            raise UsageError("the embedded store's graph is derived from its collection and "
                             "is read-only; change the collection with 'graphprum load' (or "
                             "write through a Bolt store)")
        if self._graph is None:
            self._graph = GraphReader(self.graph_path())
        return self._graph.query(text, params, timeout)

    # ---------------------------------------------------------------- writing
    def _writing(self) -> Any:
        """Context: the writer lock, with the current manifest and generation."""
        @contextlib.contextmanager
        def hold() -> Any:
            created = layout.first_missing(self.path)
            layout.claim(self.path)
            with layout.writer_lock(self.path, self.wait):
                try:
                    self.release()
                    manifest = self._read_manifest()
                    gen = manifest.get("generation")
                    layout.remove_superseded(self.path, gen)
                    if gen:  # else carried into the next generation
                        graphdb.remove_stale_builds(self.path / gen / graphdb.GRAPH)
                    self._open_generation()
                    yield dict(self.manifest), self._gen
                except BaseException:
                    # a first write that failed leaves no empty store; undone
                    # under the lock, so a writer waiting on it notices
                    # (layout.writer_lock) and makes the store again
                    if created is not None:
                        self.release()
                        layout.unclaim(self.path, created)
                    raise

        return hold()

    def _commit(self, tmp: Path, name: str, manifest: dict[str, Any]) -> None:
        manifest = {**manifest, "format": FORMAT, "version": FORMAT_VERSION,
                    "generation": name, "engine": {"ladybug": graphdb.engine_version()}}
        try:
            layout.commit(self.path, tmp, name, manifest)
        except OSError as exc:
            raise layout.disk_error(exc, self.path) from None
        self.release()
        layout.remove_superseded(self.path, name)

    def resume_loads(self) -> Resumed:
        """Loads here are all or nothing: no document to remove, but what
        killed writes left (an unfinished generation, a graph a killed query
        was building) is removed, as the next write would."""
        before = layout.bytes_on_disk(self.path)
        with self._writing():
            return Resumed(freed=max(before - layout.bytes_on_disk(self.path), 0))

    def load_documents(self, docs: Iterable[ParsedDocument | DocumentBatch], *,
                       replace: bool = False, description: dict[str, Any] | None = None,
                       link_pairs: Iterable[tuple[Sequence[str], Sequence[str]]] | None = None,
                       link_stats: dict[str, int] | None = None) -> LoadReport:
        """Add documents (and link pairs) in one atomic write: all or nothing."""
        t0 = time.perf_counter()
        with self._writing() as (manifest, gen):
            old = self.table()
            new_name, tmp = layout.new_generation(self.path, manifest.get("generation"))
            builder = None
            try:
                builder = Builder(list(old.tags), list(old.paths), tmp / "spool")
                report, counts = self._build(docs, old, gen, builder, replace, link_pairs,
                                             description, tmp)
                builder.close()
                shutil.rmtree(tmp / "spool")
                validate(tmp, counts)
                manifest["counts"] = {k: v for k, v in counts.items() if k != "links_added"}
                manifest["summaries"] = []  # the collection changed: summaries are stale
                # link_stats: filled while the documents were read
                manifest["link_stats"] = merged_link_stats(
                    manifest.get("link_stats", {}), link_stats, report.replaced, len(old.docs))
                manifest["loads"] = [*manifest.get("loads", []), {
                    **(description or {}), "documents": report.documents,
                    "units": report.elements, "replaced": report.replaced,
                    "time": time.strftime("%Y-%m-%dT%H:%M:%S%z")}]
                self._commit(tmp, new_name, manifest)
            except OSError as exc:
                if builder is not None:
                    builder.close()
                shutil.rmtree(tmp, ignore_errors=True)
                raise layout.disk_error(exc, self.path) from None
            except ValueError as exc:
                if builder is not None:
                    builder.close()
                shutil.rmtree(tmp, ignore_errors=True)
                raise StoreError(f"{self.location}: the new generation did not read back "
                                 f"right ({exc}); the store is unchanged") from None
            except BaseException:
                if builder is not None:
                    builder.close()
                shutil.rmtree(tmp, ignore_errors=True)
                raise
        report.seconds = time.perf_counter() - t0
        return report

    def _build(self, docs: Iterable[ParsedDocument | DocumentBatch], old: UnitTable,
               gen: Path | None, builder: Builder, replace: bool,
               link_pairs: Iterable[tuple[Sequence[str], Sequence[str]]] | None,
               description: dict[str, Any] | None, tmp: Path
               ) -> tuple[LoadReport, dict[str, Any]]:
        """The body of :meth:`load_documents`, under the write lock."""
        new_names: set[str] = set()
        replaced: set[int] = set()
        report = LoadReport()
        base = len(old)
        for doc in docs:
            for name, source in names_in(doc):
                if name in new_names:
                    raise InputError(source, None,
                                     f"document id {name!r} occurs twice in this load")
                stored = _doc_index(old, name)
                if stored is not None:
                    if not replace:
                        raise InputError(source, None,
                                         f"document {name!r} is already stored; "
                                         f"use --replace to replace it")
                    replaced.add(stored)
                new_names.add(name)
            builder.add(doc, base)
            report.documents += len(doc.names) if isinstance(doc, DocumentBatch) else 1
            report.elements += len(doc) if isinstance(doc, DocumentBatch) else len(doc.tags)
        if link_pairs is not None:
            pages = link_pairs_into(builder, old, base, link_pairs)
            report.documents += pages
            report.elements += pages  # a page of a link list is one unit
        if report.documents == 0 and link_pairs is None:
            raise InputError(", ".join((description or {}).get("paths", [])) or "input",
                             None, "nothing to load")
        counts = write_generation(tmp, old, gen, replaced, builder)
        report.replaced = len(replaced)
        report.links = counts["links_added"]
        return report, counts

    def __repr__(self) -> str:
        return f"LocalStore({self.location!r})"


def _doc_index(table: UnitTable, name: str) -> int | None:
    """Index of the document ``name`` in ``table`` (None: not there)."""
    try:
        return table.doc_index(name)
    except KeyError:
        return None


def _safe_name(name: str) -> str:
    """A summary name as a directory name (``p*|c`` -> ``p%2A%7Cc``)."""
    return quote(name, safe="-_.=,")


__all__ = ["FORMAT", "FORMAT_VERSION", "KIND_NAMES", "LocalStore"]
