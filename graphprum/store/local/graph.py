"""The embedded store's property graph: a LadybugDB database per generation.

LadybugDB (the maintained fork of Kùzu, MIT) is an embedded columnar graph
database with openCypher.  Each generation holds one database file,
``graph.lbug``, derived from the generation's columns by bulk ``COPY``
after the generation is committed: ``graphprum load`` builds it at once
for collections up to a size (:meth:`~graphprum.store.local.LocalStore.build_graph`;
``graphprum load --help`` says which), the API and larger loads leave it to
the first query; it is written beside and renamed into place, so a graph
is there whole or not at all, and a generation without one (a summary was
stored since) gets it on first use.  The numpy columns stay the evaluator's
index; the graph answers Cypher.

How a build keeps its memory down (:func:`build`), and where LadybugDB 0.22
does not let it be bounded by a batch:

- the units are copied :data:`CHUNK` rows at a time, each batch followed by
  a checkpoint, in a bounded buffer pool (:func:`_buffer_pool`): the engine
  holds what a COPY wrote in memory until a checkpoint, and caches every
  page it wrote in a pool of 80% of the machine's memory by default.  A
  checkpoint costs time in proportion to the table so far (for a table of
  two columns in batches of 512k rows: 0.2 s at 0.5M rows, 1.5 s at 6M),
  so batches are large;
- each batch reads the columns through memory maps of its own, so the
  pages it read leave the process with it;
- each relationship table is one COPY: a COPY into a relationship table
  that is not empty costs memory and time in proportion to what it holds
  (1,000 edges into a table of 2M: 113 MB more at the peak; six batches
  of 1M edges: peaks of 337 MB rising to 952 MB), so relationships cannot
  come in batches.

Peak resident memory of a build, per element (busy 2-core machine, the
generated INEX-like collection, batches of 2^20 units): 3M elements 420 B
before, 210-270 B now; 6M elements 317 B before, 165-185 B now; 20M
elements (``bench/load_xml.py``, load and build in one process) 336 B
before, 113 B now; in about the same time (the machine's load made
timings vary twofold).

Graph model, the Bolt store's (same query text, same rows)::

    (:Document {name, source, kind, length, count})
    (:Document)-[:ROOT]->(:Unit)
    (:Unit {uid, doc, tag, path, kind, depth, pre, post, size, pos, start,
            length, words, text, attributes, held})  held: links in its subtree
    (:Unit)-[:CHILD]->(:Unit)                 parent -> child
    (:Unit)-[:HAS_ATTRIBUTE]->(:Attribute {name, value})
    (:Unit)-[:LINK {anchor}]->(:Unit)         to the target's root or the element
                                              its fragment names
    (:Summary {axpre, sid, key, extent, length})<-[:IN_PARTITION]-(:Unit)
    (:Summary)-[:SUMMARY_EDGE {count, length}]->(:Summary)

``kind`` is 0 element, 1 page, 2 segment, 3 video.  ``text`` is the unit's
text snippet (first 100 characters of its text content, whitespace
collapsed), ``attributes`` all its attributes as a JSON object; every
distinct attribute (name, value) pair is one ``Attribute`` node, linked from
the units that carry it, so that attributes are matched like any pattern:
``(s:Unit)-[:HAS_ATTRIBUTE]->(:Attribute {name: 'sec-type', value: 'methods'})``.
(One property per attribute name would cost a column per name for every
unit: 64 names made the PLOS graph 4x slower to write.)  ``row`` (the
unit's row in the columns) and ``aid`` (an Attribute's number) are the
embedded store's keys; an Attribute's ``nid`` is ``name=value``, as on the
Bolt store (:func:`graphprum.store.bolt.pack.attribute_nid`).
"""

from __future__ import annotations

import math
import os
import re
import shutil
from collections.abc import Iterator
from decimal import Decimal
from json.encoder import encode_basestring
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

from graphprum.errors import StoreError, UsageError
from graphprum.store.cypher_guard import refuse_writes
from graphprum.store.linkgraph import LinkGraph
from graphprum.store.local.links import LINKS, LinkColumns
from graphprum.store.local.strings import StringColumn
from graphprum.units import KIND_PAGE, KIND_SEGMENT, KIND_VIDEO, UnitTable

GRAPH = "graph.lbug"
#: Beside the graph: the version of LadybugDB that wrote it.
GRAPH_VERSION = "graph.version"
#: Units per COPY (whole documents).  LadybugDB holds what a COPY wrote in
#: memory until a checkpoint, so the units are copied a batch at a time,
#: each followed by a checkpoint, with a bounded buffer pool
#: (:func:`_buffer_pool`) from which the written pages are then evicted: the
#: memory the units take is a batch's, not the collection's.
CHUNK = 1 << 20
#: The buffer pool of a build, at least (LadybugDB's default is 80% of the
#: machine's memory, where every page written stays).
BUFFER_POOL = 512 << 20
#: ... and per relationship of the largest relationship table: a table is
#: copied in one COPY (into a table that is not empty, a COPY costs memory
#: and time in proportion to what the table holds), which needs its pages
#: in the pool (20M relationships failed in 512 MB: "the buffer pool is
#: full"; 6M went through 128 MB, three times slower than through 512 MB).
BUFFER_POOL_PER_EDGE = 48
#: A pseudo-table in a build's stream of frames: checkpoint here.
CHECKPOINT = "CHECKPOINT"
#: ``(table name, Arrow table)`` pairs, for COPY (or :data:`CHECKPOINT`, None).
Frames = Iterator[tuple[str, "pa.Table | None"]]


def engine_version() -> str:
    """The LadybugDB version graphprum runs (recorded in every manifest)."""
    import ladybug

    return str(ladybug.__version__)


def written_by(gen: Path) -> str | None:
    """The LadybugDB version that wrote ``gen``'s graph (None: no graph yet)."""
    if not (gen / GRAPH).exists():
        return None
    try:
        return (gen / GRAPH_VERSION).read_text(encoding="ascii").strip()
    except OSError:
        return "unknown"


def current(gen: Path) -> bool:
    """Whether ``gen`` has a graph this LadybugDB can read."""
    return written_by(gen) == engine_version()


def _import_ladybug() -> Any:
    try:
        import ladybug
    except ImportError as exc:  # pragma: no cover - a dependency
        raise StoreError(f"the embedded store needs LadybugDB (pip install ladybug): {exc}") \
            from None
    if not hasattr(ladybug, "Database"):
        raise StoreError("the module 'ladybug' found is not LadybugDB (the graph database) "
                         "but another package of that name (ladybug-core, climate data?); "
                         "pip uninstall it and pip install ladybug")
    return ladybug


def unit_ids(table: UnitTable, lo: int = 0, hi: int | None = None) -> np.ndarray:
    """Every row's id (rows ``lo`` to ``hi``, whole documents), as an object array.

    Vectorised: an element's XPath is its parent's plus its step
    ``/tag[pos]``, built one depth level at a time (one string concatenation
    per row, in numpy's object loops); the per-row walk in document order
    (:func:`_unit_ids_walk`) serves tables whose depths do not follow their
    parents.

    >>> t = UnitTable.from_tree("d", ["a", "b", "b"], [-1, 0, 0])
    >>> unit_ids(t).tolist()
    ['d#/a[1]', 'd#/a[1]/b[1]', 'd#/a[1]/b[2]']
    >>> unit_ids(t, 1, 3).tolist() == _unit_ids_walk(t)[1:3].tolist()
    True
    """
    n = len(table)
    hi = n if hi is None else hi
    m = hi - lo
    if m <= 0:
        return np.zeros(0, dtype=object)
    cols = table.columns
    kind = np.asarray(cols["kind"][lo:hi])
    doc = np.asarray(cols["doc"][lo:hi]).astype(np.int64)
    # the documents of the range only (they are in row order): a build calls
    # this once per piece of rows, and a collection may hold millions of them
    d_lo, d_hi = int(doc.min()), int(doc.max()) + 1
    doc = doc - d_lo
    names = np.asarray(table.docs["name"][d_lo:d_hi], dtype=object)
    out = names[doc]  # pages and videos: their name
    segment = np.flatnonzero(kind == KIND_SEGMENT)
    if len(segment):
        index = segment + lo - np.asarray(table.docs["first"][d_lo:d_hi],
                                          dtype=np.int64)[doc[segment]]
        out[segment] = out[segment] + np.asarray([f"#{i}" for i in index.tolist()], dtype=object)
    element = np.flatnonzero((kind != KIND_PAGE) & (kind != KIND_VIDEO) & (kind != KIND_SEGMENT))
    if not len(element):
        return out
    parent = np.asarray(cols["parent"][lo:hi]).astype(np.int64)[element] - lo
    depth = np.asarray(cols["depth"][lo:hi]).astype(np.int64)[element]
    # row -> index among the elements, to find a parent's XPath
    where = np.full(m, -1, dtype=np.int64)
    where[element] = np.arange(len(element))
    has_parent = parent >= 0
    parent_el = np.where(has_parent, where[np.clip(parent, 0, m - 1)], -1)
    if not (np.array_equal(has_parent, depth > 0) and
            (parent[has_parent] < element[has_parent]).all() and
            (parent_el[has_parent] >= 0).all() and
            (depth[parent_el[has_parent]] == depth[has_parent] - 1).all()):
        return _unit_ids_walk(table, lo, hi)
    # the step /tag[pos] of every element, built once per distinct (tag, pos)
    tag = np.asarray(cols["tag"][lo:hi]).astype(np.int64)[element]
    pos = np.asarray(cols["pos"][lo:hi]).astype(np.int64)[element]
    span = int(pos.max()) + 1
    keys, inverse = np.unique(tag * span + pos, return_inverse=True)
    tags = table.tags
    steps = np.asarray([f"/{tags[k // span]}[{k % span}]" for k in keys.tolist()],
                       dtype=object)[inverse.reshape(-1)]
    # ids level by level: a root's is its document's name, '#' and its step
    ids = np.empty(len(element), dtype=object)
    order = np.argsort(depth, kind="stable")
    bounds = np.searchsorted(depth[order], np.arange(int(depth.max()) + 2))
    prefix = np.asarray([f"{name}#" for name in names.tolist()], dtype=object)
    for level in range(len(bounds) - 1):
        rows = order[bounds[level]:bounds[level + 1]]
        above = prefix[doc[element[rows]]] if level == 0 else ids[parent_el[rows]]
        ids[rows] = above + steps[rows]
    out[element] = ids
    return out


def _unit_ids_walk(table: UnitTable, lo: int = 0, hi: int | None = None) -> np.ndarray:
    """The ids of rows ``lo`` to ``hi``, in one pass over them (parents come
    first); from row 0 when a parent lies before ``lo`` (not whole documents).

    >>> t = UnitTable.from_tree("d", ["a", "b", "b"], [-1, 0, 0])
    >>> _unit_ids_walk(t, 1, 3).tolist()
    ['d#/a[1]/b[1]', 'd#/a[1]/b[2]']
    """
    n = len(table)
    hi = n if hi is None else hi
    cols = table.columns
    sl = slice(lo, hi)
    parents = np.asarray(cols["parent"][sl]).astype(np.int64)
    if lo and ((parents >= 0) & (parents < lo)).any():
        return _unit_ids_walk(table, 0, hi)[lo:]
    m = hi - lo
    tag = np.asarray(table.tags, dtype=object)[np.asarray(cols["tag"][sl])] if m > 0 else []
    pos = np.asarray(cols["pos"][sl]).tolist()
    parent = np.where(parents >= 0, parents - lo, -1).tolist()
    kind = np.asarray(cols["kind"][sl]).tolist()
    first = table.docs["first"]
    names = table.docs["name"].tolist()
    out: list[str] = [""] * m
    xp: list[str] = [""] * m
    docs = np.asarray(cols["doc"][sl]).tolist()
    for r in range(m):
        k = kind[r]
        name = names[docs[r]]
        if k in (KIND_PAGE, KIND_VIDEO):
            out[r] = name
        elif k == KIND_SEGMENT:
            out[r] = f"{name}#{lo + r - int(first[docs[r]])}"
        else:
            p = parent[r]
            xp[r] = (xp[p] if p >= 0 else "") + f"/{tag[r]}[{pos[r]}]"
            out[r] = f"{name}#{xp[r]}"
    return np.asarray(out, dtype=object)


def document_chunks(first: np.ndarray, n: int, size: int) -> list[tuple[int, int]]:
    """Row ranges of at most ``size`` rows that start and end at documents
    (a longer document is a range of its own).

    >>> document_chunks(np.array([0, 3, 5, 9]), 12, 4)
    [(0, 3), (3, 5), (5, 9), (9, 12)]
    >>> document_chunks(np.array([0, 3]), 5, 100)
    [(0, 5)]
    """
    first = np.append(np.asarray(first, dtype=np.int64), n)
    out = []
    lo = 0
    while lo < n:
        k = int(np.searchsorted(first, lo + size, side="right")) - 1
        hi = int(first[k])
        if hi <= lo:  # one document longer than size
            hi = int(first[np.searchsorted(first, lo, side="right")])
        out.append((lo, hi))
        lo = hi
    return out


def build(gen: Path, table: UnitTable, summaries: dict[str, tuple[dict[str, np.ndarray],
                                                                   dict[str, Any]]],
          target: Path | None = None) -> Path:
    """Write the graph of generation ``gen`` to ``target`` (default
    ``gen/graph.lbug``), whole or not at all.

    The database is written in a directory of this build's own beside the
    target (``graph.lbug.tmpPID/``), which also takes the files LadybugDB
    writes next to a database (``.wal``, ``.shadow``, ``.wal.checkpoint``),
    and renamed into place when complete; a build that fails (a full disk)
    removes its directory at once, and leftovers of builds whose process is
    gone (SIGKILL) are removed by the next one.
    """
    lb = _import_ladybug()
    target = target or gen / GRAPH
    _remove_stale_builds(target)
    work = target.with_name(f"{target.name}.tmp{os.getpid()}")
    shutil.rmtree(work, ignore_errors=True)
    try:
        work.mkdir()
        # checkpoints where the frames say (after each batch of units), not
        # after every COPY: an automatic one after each COPY doubled the cost
        # of small loads
        db = lb.Database(str(work / GRAPH), auto_checkpoint=False,
                         buffer_pool_size=_buffer_pool(gen, table))
        try:
            conn = lb.Connection(db)
            _schema(conn)
            _copy_all(conn, _frames(gen, table, summaries))
            conn.execute("CHECKPOINT")
            conn.close()
        finally:
            db.close()
        version = target.with_name(GRAPH_VERSION)
        (work / GRAPH_VERSION).write_text(engine_version(), encoding="ascii")
        os.replace(work / GRAPH_VERSION, version)  # first: a graph is never seen without it
        os.replace(work / GRAPH, target)
    except BaseException as exc:
        shutil.rmtree(work, ignore_errors=True)  # whatever failed
        if type(exc) is not RuntimeError:  # not LadybugDB's (it reports I/O failures so)
            raise
        reason = " ".join(str(exc).split())
        reason = reason.split("Error: ")[-1] if "Cannot write" in reason else reason[:200]
        raise StoreError(f"{gen}: cannot write the graph for queries ({reason})") from None
    shutil.rmtree(work, ignore_errors=True)
    return target


def _buffer_pool(gen: Path, table: UnitTable) -> int:
    """Bytes of buffer pool for a build of ``gen`` (:data:`BUFFER_POOL`)."""
    edges = max(len(table),  # CHILD: one per unit but the roots
                len(np.load(gen / "attributes" / "rows.npy", mmap_mode="r")),
                len(np.load(gen / "links" / "src.npy", mmap_mode="r")))
    return max(BUFFER_POOL, BUFFER_POOL_PER_EDGE * edges)


#: A build's own directory (or, before, its files) beside the graph.
_BUILD = re.compile(re.escape(GRAPH) + r"\.tmp([0-9]+)(?:\..*)?")


def _remove_stale_builds(target: Path) -> None:
    """Remove what builds of ``target`` left whose process is gone."""
    for p in target.parent.glob(f"{target.name}.tmp*"):
        m = _BUILD.fullmatch(p.name)
        if m is None or _alive(int(m.group(1))):
            continue
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` runs (this one included).

    >>> _alive(os.getpid())
    True
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's, or not a pid: left alone
    return True


def add_summary(path: Path, axpre: str, arrays: dict[str, np.ndarray],
                meta: dict[str, Any]) -> None:
    """Write a summary into an existing graph (replacing one of that name)."""
    lb = _import_ladybug()
    try:
        db = lb.Database(str(path), auto_checkpoint=False)
        try:
            conn = lb.Connection(db)
            conn.execute("MATCH (s:Summary {axpre: $a}) DETACH DELETE s", {"a": axpre})
            _copy_all(conn, _summary_frames(axpre, arrays, meta))
            conn.execute("CHECKPOINT")
            conn.close()
        finally:
            db.close()
    except RuntimeError as exc:
        raise StoreError(f"{path}: cannot write the summary into the store's graph "
                         f"({' '.join(str(exc).split())[:200]})") from None
    path.with_name(path.name + ".wal").unlink(missing_ok=True)


def _frames(gen: Path, table: UnitTable,
            summaries: dict[str, tuple[dict[str, np.ndarray], dict[str, Any]]]) -> Frames:
    """Every table of the graph, in an order that has nodes before their
    relationships: the units :data:`CHUNK` rows at a time, each batch
    followed by a checkpoint and read from memory maps of its own (so the
    pages of the columns read do not stay in the process's memory), then
    each relationship table in one COPY."""
    yield from _document_frames(table)
    n = len(table)
    links = LinkColumns(gen / LINKS).graph(n, size=np.asarray(table.columns["size"]))
    for lo, hi in document_chunks(np.asarray(table.docs["first"], dtype=np.int64), n, CHUNK):
        yield "Unit", _unit_frame(_mapped(gen, table), StringColumn(gen / "units" / "text"),
                                  _Attributes(gen), lo, hi, links)
        yield CHECKPOINT, None
    yield from _attribute_frames(_Attributes(gen))
    yield from _edge_frames(_mapped(gen, table), gen)
    for axpre, (arrays, meta) in summaries.items():
        yield from _summary_frames(axpre, arrays, meta)


def _mapped(gen: Path, table: UnitTable) -> UnitTable:
    """``table`` with its unit columns mapped anew from ``gen``'s files:
    what is read through them leaves memory with them."""
    columns = {c: np.load(gen / "units" / f"{c}.npy", mmap_mode="r") for c in table.columns}
    return UnitTable(columns, table.tags, table.paths, table.docs)


def _copy_all(conn: Any, frames: Frames) -> None:
    """COPY each ``(table, frame)`` of ``frames``, in order, and checkpoint
    at :data:`CHECKPOINT`.  (Making the next frame in a thread while the
    engine copied one, which releases the GIL, saved nothing measurable
    once the units came in batches, and held one more frame in memory.)"""
    for name, frame in frames:
        if frame is None:
            conn.execute(CHECKPOINT)
        else:
            _copy(conn, name, frame)
        del frame


def _schema(conn: Any) -> None:
    for statement in (
        "CREATE NODE TABLE Document(name STRING, source STRING, kind INT8, length DOUBLE, "
        "count INT64, PRIMARY KEY(name))",
        "CREATE NODE TABLE Unit(row INT64, uid STRING, doc STRING, tag STRING, path STRING, "
        "kind INT8, depth INT16, pre INT32, post INT32, size INT32, pos INT32, start DOUBLE, "
        "length DOUBLE, words INT32, text STRING, attributes STRING, held INT64, "
        "PRIMARY KEY(row))",
        "CREATE NODE TABLE Attribute(aid INT64, nid STRING, name STRING, value STRING, "
        "PRIMARY KEY(aid))",
        "CREATE NODE TABLE Summary(nid STRING, axpre STRING, sid STRING, key STRING, "
        "extent INT64, length DOUBLE, PRIMARY KEY(nid))",
        "CREATE REL TABLE CHILD(FROM Unit TO Unit)",
        "CREATE REL TABLE HAS_ATTRIBUTE(FROM Unit TO Attribute)",
        "CREATE REL TABLE ROOT(FROM Document TO Unit)",
        "CREATE REL TABLE LINK(FROM Unit TO Unit, anchor STRING)",
        "CREATE REL TABLE IN_PARTITION(FROM Unit TO Summary)",
        "CREATE REL TABLE SUMMARY_EDGE(FROM Summary TO Summary, count INT64, length DOUBLE)",
    ):
        conn.execute(statement)


def _table(columns: dict[str, Any]) -> pa.Table:
    """An Arrow table of ``columns``: numpy numbers as they are (no copy),
    strings (object arrays, None for null) as ``large_string``.

    The graph is copied from Arrow, not from pandas: Arrow holds a string
    in its bytes and an offset (a Python string costs 49 bytes more), the
    stored string columns are handed over without a copy
    (:func:`_stored_strings`), and LadybugDB scans it without the GIL.
    With pandas 3 and pyarrow installed, a DataFrame of object columns was
    also converted to Arrow string columns on the way (1.4 s became 2.5 s
    for the units of 625k elements).

    >>> t = _table({"n": np.arange(3), "s": np.array(["a", None, "é"], dtype=object)})
    >>> t.column("s").to_pylist(), str(t.schema.field("s").type)
    (['a', None, 'é'], 'large_string')
    """
    import pyarrow as pa

    out = {}
    for name, values in columns.items():
        if isinstance(values, pa.Array | pa.ChunkedArray):
            out[name] = values
        elif isinstance(values, np.ndarray) and values.dtype != object:
            out[name] = pa.array(np.ascontiguousarray(values))
        else:
            out[name] = _large_strings(values)
    return pa.table(out)


def _large_strings(values: Any) -> pa.Array:
    """Python strings (None for null) as Arrow ``large_string``; a lone
    surrogate, which the store's columns keep (a file name that is not
    UTF-8, text given to the API), becomes U+FFFD: the graph cannot hold it.

    >>> _large_strings(["a\\udcff", None]).to_pylist()
    ['a\\ufffd', None]
    """
    import pyarrow as pa

    try:
        return pa.array(values, type=pa.large_string())
    except UnicodeEncodeError:
        return pa.array([v if v is None else v.translate(_SURROGATES) for v in values],
                        type=pa.large_string())


def _coded(codes: np.ndarray, strings: pa.Array) -> pa.Array:
    """``strings[codes]`` as an Arrow dictionary array (4 bytes a row, where
    the strings themselves cost their length: 30 to 80 bytes for label
    paths), which LadybugDB copies as plain strings.

    >>> import pyarrow as pa
    >>> _coded(np.array([1, 0, 1]), pa.array(["a", "bc"])).to_pylist()
    ['bc', 'a', 'bc']
    """
    import pyarrow as pa

    return pa.DictionaryArray.from_arrays(np.asarray(codes, dtype=np.int32), strings)


def _stored_strings(column: StringColumn, lo: int, hi: int) -> pa.Array:
    """Rows ``lo`` to ``hi`` of a stored string column as an Arrow
    ``large_string`` array over the column's own bytes (no copy, no Python
    string); bytes that are not UTF-8 (a lone surrogate kept by
    ``surrogatepass``) are decoded and replaced by U+FFFD.

    >>> import tempfile, pathlib
    >>> from graphprum.store.local.strings import StringColumnWriter
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with StringColumnWriter(d / "t") as w:
    ...     w.extend(["ab", "é", "", "x\\ud800y"])
    >>> col = StringColumn(d / "t")
    >>> _stored_strings(col, 1, 3).to_pylist()
    ['é', '']
    >>> _stored_strings(col, 3, 4).to_pylist() == ["x\\ufffdy"]
    True
    """
    import pyarrow as pa

    ends = np.asarray(column.ends[lo:hi], dtype=np.int64)
    begin = int(column.ends[lo - 1]) if lo > 0 else 0
    offsets = np.concatenate(([0], ends - begin))
    data = np.asarray(column.blob[begin:int(ends[-1]) if len(ends) else begin])
    array = pa.LargeStringArray.from_buffers(hi - lo, pa.py_buffer(offsets),
                                             pa.py_buffer(data))
    try:
        array.validate(full=True)
    except pa.ArrowInvalid:
        array = pa.array([v.translate(_SURROGATES) for v in column.slice(lo, hi)],
                         type=pa.large_string())
    return array


#: Lone surrogates (code points U+D800 to U+DFFF) to U+FFFD.
_SURROGATES = dict.fromkeys(range(0xD800, 0xE000), 0xFFFD)


def _copy(conn: Any, table: str, frame: pa.Table) -> None:
    """``COPY table FROM frame`` (LadybugDB reads the Arrow table named in
    the query from the caller's local variables), on a connection of its
    own to ``conn``'s database: a LadybugDB connection keeps what it
    scanned until it closes, which held the units' ids, texts and
    attributes (about 330 B per element) through the rest of the build and
    the checkpoint."""
    if len(frame):
        import ladybug

        own = ladybug.Connection(conn.database)
        try:
            own.execute(f"COPY {table} FROM frame")
        finally:
            own.close()


def _document_frames(table: UnitTable) -> Frames:
    docs = table.docs
    yield "Document", _table({
        "name": np.asarray(docs["name"], dtype=object),
        "source": np.asarray(docs["source"], dtype=object),
        "kind": np.asarray(docs["kind"]), "length": np.asarray(docs["length"]),
        "count": np.asarray(docs["count"])})


def _unit_frame(table: UnitTable, texts: StringColumn, attributes: _Attributes, lo: int,
                hi: int, links: LinkGraph) -> pa.Table:
    """The Unit rows ``lo`` to ``hi`` (whole documents), ``held`` the links
    held in each one's subtree as a Bolt store keeps it (the walk's Cypher,
    ``cypher/nav/walk_degrees.cypher``, reads it).  (``row`` is the key, not a
    SERIAL: a COPY does not keep its frame's order.)"""
    cols = table.columns
    sl = slice(lo, hi)
    doc = np.asarray(cols["doc"][sl], dtype=np.int64)
    d_lo, d_hi = (int(doc.min()), int(doc.max()) + 1) if len(doc) else (0, 0)
    first = np.asarray(table.docs["first"][d_lo:d_hi], dtype=np.int64)
    return _table({
        "row": np.arange(lo, hi, dtype=np.int64), "uid": _unit_id_column(table, lo, hi),
        "doc": _coded(doc - d_lo, _large_strings(list(table.docs["name"][d_lo:d_hi]))),
        "tag": _coded(cols["tag"][sl], _large_strings(list(table.tags))),
        "path": _coded(cols["path"][sl], _large_strings(list(table.paths))),
        "kind": np.asarray(cols["kind"][sl], np.int8),
        "depth": np.asarray(cols["depth"][sl], np.int16),
        "pre": (np.arange(lo, hi) - first[doc - d_lo]).astype(np.int32),
        "post": np.asarray(cols["post"][sl], np.int32),
        "size": np.asarray(cols["size"][sl], np.int32),
        "pos": np.asarray(cols["pos"][sl], np.int32),
        "start": np.asarray(cols["start"][sl], np.float64),
        "length": np.asarray(cols["length"][sl], np.float64),
        "words": np.asarray(cols["words"][sl], np.int32),
        "text": _stored_strings(texts, lo, hi),
        "attributes": attributes.json(lo, hi),  # None: null
        "held": _held(links, lo, hi),
    })


def _held(links: LinkGraph, lo: int, hi: int) -> pa.Array:
    """The number of links held in the subtree of rows ``lo`` to ``hi``,
    null for none (as a Bolt store keeps it: only on units that hold links).

    >>> g = LinkGraph.build(np.array([1, 1]), np.array([0, 0]), 3, size=np.array([2, 1, 1]))
    >>> _held(g, 0, 3).to_pylist()
    [2, 2, None]
    """
    import pyarrow as pa

    first, last = links.held(np.arange(lo, hi))
    held = np.asarray(last - first, dtype=np.int64)
    return pa.array(held, mask=held == 0)


#: Rows whose ids are made as Python strings at a time (:func:`_unit_id_column`).
ID_PIECE = 1 << 18


def _unit_id_column(table: UnitTable, lo: int, hi: int) -> pa.ChunkedArray:
    """The ids of rows ``lo`` to ``hi`` as Arrow strings, made
    :data:`ID_PIECE` rows at a time: the Python strings of one piece are let
    go as soon as Arrow holds its bytes (a Python string costs 49 bytes
    more; 2M of them at once were a third of the build's peak).

    >>> t = UnitTable.from_tree("d", ["a", "b", "b"], [-1, 0, 0])
    >>> _unit_id_column(t, 0, 3).to_pylist() == unit_ids(t).tolist()
    True
    """
    import pyarrow as pa

    first = np.asarray(table.docs["first"], dtype=np.int64)
    inside = first[(first >= lo) & (first < hi)] - lo  # lo starts a document
    pieces = [(lo + a, lo + b) for a, b in document_chunks(inside, hi - lo, ID_PIECE)]
    return pa.chunked_array([_table({"uid": unit_ids(table, a, b)}).column("uid").combine_chunks()
                             for a, b in pieces], pa.large_string())


class _Attributes:
    """A generation's attributes: the rows that carry them, and their names
    and values, memory-mapped (read a piece at a time)."""

    def __init__(self, gen: Path) -> None:
        self.rows = np.load(gen / "attributes" / "rows.npy", mmap_mode="r")
        self.names = StringColumn(gen / "attributes" / "names")
        self.values = StringColumn(gen / "attributes" / "values")

    def json(self, lo: int, hi: int) -> pa.Array:
        """The attributes of rows ``lo`` to ``hi``, each row's as one JSON
        object (null for none): the text of ``json.dumps`` of the row's dict
        (attribute names are unique in an element), made by Arrow over the
        stored bytes: names and values escaped and quoted
        (:func:`_json_strings`), joined ``"name":value``, then a row's pairs
        joined by commas inside braces.  Five times faster than joining
        Python strings (1.0 s for the 1.16M attributes of 2M rows before),
        and no Python string per attribute."""
        import pyarrow as pa
        import pyarrow.compute as pc

        m = hi - lo
        a, b = (int(x) for x in np.searchsorted(self.rows, [lo, hi]))
        if a == b:
            return pa.nulls(m, pa.large_string())
        colon = pa.scalar(":", pa.large_string())
        pairs = pc.binary_join_element_wise(
            _json_strings(_stored_strings(self.names, a, b)),
            _json_strings(_stored_strings(self.values, a, b)), colon)
        counts = np.bincount(np.asarray(self.rows[a:b], dtype=np.int64) - lo, minlength=m)
        offsets = np.concatenate(([0], np.cumsum(counts)))
        inside = pc.binary_join(pa.LargeListArray.from_arrays(offsets, pairs),
                                pa.scalar(",", pa.large_string()))
        objects = pc.binary_join_element_wise(pa.scalar("{", pa.large_string()), inside,
                                              pa.scalar("}", pa.large_string()),
                                              pa.scalar("", pa.large_string()))
        return pc.if_else(pa.array(counts > 0), objects, pa.scalar(None, pa.large_string()))


#: What ``json.dumps`` writes for the characters it escapes with a short form.
_JSON_SHORT = (("\\", "\\\\"), ('"', '\\"'), ("\n", "\\n"), ("\r", "\\r"),
               ("\t", "\\t"), ("\b", "\\b"), ("\f", "\\f"))


#: Control characters ``json.dumps`` writes as ``\\u00XX`` (bytes of UTF-8 text).
_JSON_LONG_FORM = np.zeros(256, dtype=bool)
_JSON_LONG_FORM[[*range(0x08), 0x0B, *range(0x0E, 0x20)]] = True


def _json_strings(values: pa.Array) -> pa.Array:
    """Each string as a JSON string literal, as ``json.dumps`` (with
    ``ensure_ascii=False``) writes it: quoted, with backslash, quote and
    control characters escaped (the rare control characters without a
    short form by Python's own encoder).

    >>> import json, pyarrow as pa
    >>> texts = ["plain", 'say "hi"', "back\\\\slash", "tab\\tnl\\n", "bell\\x07", "café"]
    >>> _json_strings(pa.array(texts, pa.large_string())).to_pylist() == \\
    ...     [json.dumps(t, ensure_ascii=False) for t in texts]
    True
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    data = values.buffers()[2]  # every byte of the strings (more when sliced: no harm)
    raw = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    if (raw < 32).any() or (raw == 34).any() or (raw == 92).any():
        if _JSON_LONG_FORM[raw].any():
            return pa.array([encode_basestring(v) for v in values.to_pylist()],
                            pa.large_string())
        for char, escaped in _JSON_SHORT:
            values = pc.replace_substring(values, char, escaped)
    quote = pa.scalar('"', pa.large_string())
    return pc.binary_join_element_wise(quote, values, quote, pa.scalar("", pa.large_string()))


#: Attributes joined and hashed at a time (:func:`_attribute_frames`).
ATTRIBUTE_PIECE = 1 << 20


def _attribute_frames(attributes: _Attributes) -> Frames:
    """One Attribute node per distinct (name, value), numbered in order of
    first appearance (``aid``, the key HAS_ATTRIBUTE from each unit points
    at), its ``nid`` ``name=value`` as on the Bolt store.

    Each attribute's ``name NUL value`` is made and dictionary-encoded by
    Arrow over the stored bytes a piece at a time (no Python string), and
    the pieces' dictionaries unified (in order of first appearance): what
    stays is a code per attribute and the distinct pairs."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(attributes.rows)
    if not n:
        return
    nul = pa.scalar("\0", pa.large_string())  # in no name or value (XML has no NUL)
    pieces = pa.chunked_array([
        pc.binary_join_element_wise(_stored_strings(attributes.names, a, b),
                                    _stored_strings(attributes.values, a, b),
                                    nul).dictionary_encode()
        for a, b in ((a, min(n, a + ATTRIBUTE_PIECE)) for a in range(0, n, ATTRIBUTE_PIECE))
    ]).unify_dictionaries()
    name_value = pc.split_pattern(pieces.chunk(0).dictionary, "\0", max_splits=1)
    to = pa.chunked_array([c.indices for c in pieces.chunks])
    del pieces
    name, value = pc.list_element(name_value, 0), pc.list_element(name_value, 1)
    del name_value
    yield "Attribute", pa.table({
        "aid": pa.array(np.arange(len(name), dtype=np.int64)),
        "nid": pc.binary_join_element_wise(name, value, pa.scalar("=", pa.large_string())),
        "name": name, "value": value})
    del name, value
    yield "HAS_ATTRIBUTE", pa.table({"from": pa.array(np.asarray(attributes.rows)),
                                     "to": to})


def _edge_frames(table: UnitTable, gen: Path) -> Frames:
    n = len(table)
    parent = np.asarray(table.columns["parent"], dtype=np.int64)
    child = np.flatnonzero(parent >= 0)
    yield "CHILD", _table({"from": parent[child], "to": child})
    del parent, child  # not held through ROOT and LINK
    docs = table.docs
    yield "ROOT", _table({"from": np.asarray(docs["name"], dtype=object),
                          "to": np.asarray(docs["first"], dtype=np.int64)})
    links = LinkColumns(gen / LINKS)
    src, dst = np.asarray(links.src, dtype=np.int64), np.asarray(links.dst, dtype=np.int64)
    anchors = np.asarray(links.anchors(), dtype=object)
    keep = (dst >= 0) & (src < n)
    if keep.any():
        yield "LINK", _table({
            "from": src[keep], "to": dst[keep],
            "anchor": anchors[keep] if len(anchors) else np.full(int(keep.sum()), None, object)})


def _summary_frames(axpre: str, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> Frames:
    keys = meta.get("keys", [])
    g = len(keys)
    nid = np.asarray([f"{axpre}|S{i + 1}" for i in range(g)], dtype=object)
    yield "Summary", _table({
        "nid": nid, "axpre": np.full(g, axpre, dtype=object),
        "sid": np.asarray([f"S{i + 1}" for i in range(g)], dtype=object),
        "key": np.asarray(keys, dtype=object),
        "extent": np.asarray(arrays["partition_extent"], np.int64),
        "length": np.asarray(arrays["partition_length"], np.float64)})
    membership = np.asarray(arrays["membership"], dtype=np.int64)
    rows = np.flatnonzero(membership >= 0)
    yield "IN_PARTITION", _table({"from": rows, "to": nid[membership[rows]]})
    src = np.asarray(arrays["edge_src"], np.int64)
    dst = np.asarray(arrays["edge_dst"], np.int64)
    yield "SUMMARY_EDGE", _table({
        "from": nid[src] if len(src) else np.zeros(0, dtype=object),
        "to": nid[dst] if len(dst) else np.zeros(0, dtype=object),
        "count": np.asarray(arrays["edge_count"], np.int64),
        "length": np.asarray(arrays["edge_length"], np.float64)})


class GraphReader:
    """A generation's graph opened read-only, for queries that only read.

    LadybugDB's read-only mode refuses writes to the database but lets
    ``COPY … TO``, ``EXPORT DATABASE``, ``LOAD FROM``, ``LOAD EXTENSION``,
    ``INSTALL`` and ``CHECKPOINT`` run (the last writes files beside the
    graph), and has no setting that turns them off; so every text is
    checked first (:func:`~graphprum.store.cypher_guard.refuse_writes`),
    however the store is reached (``graphprum query``, the API's
    ``store.query``).
    """

    def __init__(self, path: Path) -> None:
        lb = _import_ladybug()
        try:
            self.db = lb.Database(str(path), read_only=True)
            self.conn = lb.Connection(self.db)
        except RuntimeError as exc:
            raise StoreError(f"{path}: cannot open the store's graph: {exc}") from None

    def query(self, text: str, params: dict[str, Any] | None = None,
              timeout: float | None = None) -> list[dict[str, Any]]:
        """Rows of ``text`` as dicts; UsageError for a text that does more
        than read, and for Cypher the engine refuses."""
        refuse_writes(text)
        if timeout is not None:  # in whole milliseconds, at least one (0 is no limit)
            self.conn.set_query_timeout(max(1, math.ceil(timeout * 1000)))
        try:
            result = self.conn.execute(text, params or {})
        except (ValueError, TypeError) as exc:  # a parameter the engine cannot take
            raise UsageError(f"a parameter the embedded store cannot take ({exc}): its "
                             f"lists hold values of one type (numbers, strings, ...)") from None
        except RuntimeError as exc:
            message = " ".join(str(exc).split())
            if "interrupted" in message.lower() or "timeout" in message.lower():
                raise UsageError(f"the query ran past its timeout ({timeout:g} s); "
                                 f"give --timeout SECONDS") from None
            if "vector with ANY type" in message:
                raise UsageError("a parameter is an empty list (or a list of nulls), whose "
                                 "type the embedded store cannot tell") from None
            raise UsageError(f"Cypher error: {message[:400]}") from None
        if isinstance(result, list):  # several statements: the last one's rows
            result = result[-1]
        columns = result.get_column_names()
        rows = []
        while result.has_next():
            rows.append({c: plain(v) for c, v in zip(columns, result.get_next(), strict=True)})
        return rows

    def close(self) -> None:
        """Close the database."""
        self.conn.close()
        self.db.close()


#: Keys of LadybugDB values that are the engine's or the embedded store's.
_INTERNAL = {"_ID", "_LABEL", "_SRC", "_DST", "row", "nid", "aid"}


def plain(value: Any) -> Any:
    """A LadybugDB value (node, relationship, path) as plain data, the way
    the Bolt store gives it: nodes ``{"labels": [...], **properties}``,
    relationships ``{"type": ..., **properties}``; absent properties dropped."""
    if isinstance(value, dict):
        if "_LABEL" in value and "_SRC" in value:
            return {"type": value["_LABEL"],
                    **{k: plain(v) for k, v in value.items()
                       if k not in _INTERNAL and v is not None}}
        if "_LABEL" in value:
            return {"labels": [value["_LABEL"]],
                    **{k: plain(v) for k, v in value.items()
                       if k not in _INTERNAL and v is not None}}
        if "_NODES" in value:
            return [plain(n) for n in value["_NODES"]]
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, Decimal):  # sums of integers come back as INT128
        return int(value) if value == value.to_integral_value() else float(value)
    return value
