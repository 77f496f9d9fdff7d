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

- the units are copied :data:`CHUNK` rows at a time, with a checkpoint
  once :data:`CHECKPOINT_ROWS` were copied since the last, in a bounded
  buffer pool (:func:`_buffer_pool`): the engine holds what a COPY wrote in
  memory until a checkpoint (about 250 B a unit), and caches every page it
  wrote in a pool of 80% of the machine's memory by default.  A checkpoint
  rewrites the key's hash index, so it costs time in proportion to the
  table so far (about 1 s per million units copied since the last, plus
  0.5-0.7 s per million in the table; a table of ``row`` alone grows as
  fast): one after every batch of 1M made the checkpoints of a 10M-unit
  build 50 s, one every 4M 26.5 s, and would make them a quadratic 0.8-1
  ks at 50M (``bench/graph_scale.py``); one every 4M, or every half of
  the table so far if more (:data:`CHECKPOINT_GROWTH`), made them 47 s
  at 51.6M;
- each batch reads the columns through memory maps of its own, so the
  pages it read leave the process with it; so does the relationships'
  making: the attributes' names and values and the link graph are not
  mapped any more when the relationships are copied, and CHILD and
  HAS_ATTRIBUTE go over as ``int32`` rows (the engine casts them; CHILD's
  COPY of 19.7M edges 39.0 s from ``int64``, 38.3 s from ``int32``,
  medians of 3 alternated, load 1.6-1.9);
- each relationship table is one COPY: a COPY into a relationship table
  that is not empty costs memory and time in proportion to what it holds
  (1,000 edges into a table of 2M: 113 MB more at the peak; six batches
  of 1M edges: peaks of 337 MB rising to 952 MB), so relationships cannot
  come in batches.

Peak resident memory of a build, per element (busy 2-core machine, the
generated INEX-like collection, batches of 2^20 units): 3M elements 420 B
before, 210-270 B now; 6M elements 317 B before, 165-185 B now; 20M
elements (``bench/load_xml.py``, load and build in one process) 336 B
before, 113 B then; in about the same time (the machine's load made
timings vary twofold).  On a later machine the same 20M build peaked at
127 B per element with a checkpoint per batch and 131 B with
:data:`CHECKPOINT_ROWS`.  Where that peak was (20M elements, the build
alone; the load before it in the same process added 20 MB: its peak is
729 MB, and what it leaves, 306 MB of which 151 MB free in malloc's
arenas, is reused by the build): 2,474 MB in the HAS_ATTRIBUTE COPY,
of it 901 MB anonymous memory (the engine's uncheckpointed relationships
and the frames), 349 MB of the buffer pool's mapping, 307 MB of heap, and
795 MB of mapped columns still held: the attributes' names and values
(491 MB), the units' ``length`` (152 MB, every page touched by the
roots' lengths when the table is opened) and the link graph's ``out_ptr``
and ``size`` (152 MB); then 2,390 MB in CHILD's COPY (its ``int64`` rows,
480 MB).  Without those (above, and the roots' lengths read through a map
of their own): peak 1,993 MB (100 B per element), in CHILD's COPY: 932
MB anonymous, 564 MB of the pool, 314 MB of heap, 76 MB of the parent
column's map; ``bench/graph_scale.py`` 133.6-136.7 B before, 102.0-107.2
after, the build 117.8-139.6 s before and 122.2-169.5 s after in
alternated runs (load 1.9-4.3, a test suite running beside; the steps
the change does not touch varied as much); alternated again at load
0.6-1.9: the build 122.9 and 129.0 s before, 131.4 and 122.1 s after,
peak 136.5 and 135.8 B before, 98.8 and 105.6 B after; load and build in
one process (``bench/load_xml.py``, 20M): 104.6 B per element.

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

The graph's code is in four modules: this one builds the graph of a
generation (a directory of its own, batches and checkpoints, the buffer
pool, the version beside it) and adds a summary to it;
:mod:`~graphprum.store.local.graph_frames` makes the Arrow tables each
COPY reads (the schema, units, attributes, edges, summaries);
:mod:`~graphprum.store.local.graph_ids` makes the units' ids;
:mod:`~graphprum.store.local.graph_reader` opens a graph read-only and
answers Cypher.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

from graphprum.errors import StoreError
from graphprum.store.local.graph_frames import (
    Attributes,
    Frames,
    attribute_frames,
    document_frames,
    edge_frames,
    schema,
    summary_frames,
    unit_frame,
)
from graphprum.store.local.graph_ids import document_chunks
from graphprum.store.local.graph_ids import unit_ids as unit_ids  # re-exported
from graphprum.store.local.graph_reader import GraphReader as GraphReader  # re-exported
from graphprum.store.local.graph_reader import import_ladybug
from graphprum.store.local.graph_reader import plain as plain  # re-exported
from graphprum.store.local.links import LINKS, LinkColumns
from graphprum.store.local.strings import StringColumn
from graphprum.units import UnitTable

GRAPH = "graph.lbug"
#: Beside the graph: the version of LadybugDB that wrote it.
GRAPH_VERSION = "graph.version"
#: Units per COPY (whole documents).  LadybugDB holds what a COPY wrote in
#: memory until a checkpoint, so the units are copied a batch at a time,
#: with a checkpoint once :data:`CHECKPOINT_ROWS` were copied since the last,
#: in a bounded buffer pool (:func:`_buffer_pool`) from which the written
#: pages are then evicted: the memory the units take is that of the batches
#: since the last checkpoint, not the collection's.
CHUNK = 1 << 20
#: Units copied between two checkpoints, at least (whole batches of
#: :data:`CHUNK`): a checkpoint costs time in proportion to the table so far
#: (module notes), so one after every batch made a build quadratic in the
#: collection; what the engine holds until a checkpoint (about 250 B a
#: unit) bounds it.  At 20M elements (``bench/load_xml.py``, one after the
#: other on a quiet machine): the graph 206 s with a checkpoint per batch,
#: 145 s with this; peak 127 and 131 B per element.
CHECKPOINT_ROWS = 1 << 22
#: ... and at least the units in the table at the last checkpoint divided by
#: this (0: never more than :data:`CHECKPOINT_ROWS`): as each checkpoint
#: costs time in proportion to the table, intervals that grow with it keep
#: the checkpoints' total linear in the collection, not quadratic (module
#: notes).  The INEX 2006 shape (51.6M units, ``bench/graph_scale.py``,
#: quiet, one after the other): 7 checkpoints instead of 11, 47 s instead of
#: 74 (the build 328 s instead of 357), peak 4.52 GB instead of 4.50 (the
#: peak is the relationships' COPY, after the units).
CHECKPOINT_GROWTH = 2
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


def engine_version() -> str:
    """The LadybugDB version graphprum runs (recorded in every manifest)."""
    import ladybug  # ~12 ms: the embedded graph only

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
    lb = import_ladybug()
    target = target or gen / GRAPH
    remove_stale_builds(target)
    work = target.with_name(f"{target.name}.tmp{os.getpid()}")
    shutil.rmtree(work, ignore_errors=True)
    try:
        work.mkdir()
        # checkpoints where the frames say (once CHECKPOINT_ROWS units were
        # copied since the last), not after every COPY: an automatic one
        # after each COPY doubled the cost of small loads
        db = lb.Database(str(work / GRAPH), auto_checkpoint=False,
                         buffer_pool_size=_buffer_pool(gen, table))
        try:
            conn = lb.Connection(db)
            schema(conn)
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


def remove_stale_builds(target: Path) -> None:
    """Remove what builds of ``target`` left whose process is gone (a query
    killed while it built the graph)."""
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
    lb = import_ladybug()
    try:
        db = lb.Database(str(path), auto_checkpoint=False)
        try:
            conn = lb.Connection(db)
            conn.execute("MATCH (s:Summary {axpre: $a}) DETACH DELETE s", {"a": axpre})
            _copy_all(conn, summary_frames(axpre, arrays, meta))
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
    relationships: the units :data:`CHUNK` rows at a time, a checkpoint
    once :data:`CHECKPOINT_ROWS` were copied since the last, or half the
    table at the last checkpoint if more (:data:`CHECKPOINT_GROWTH`), and
    after the last batch; each batch read from memory maps of its own (so the pages
    of the columns read do not stay in the process's memory), then each
    relationship table in one COPY."""
    yield from document_frames(table)
    n = len(table)
    held = 0  # units copied since the last checkpoint
    every = CHECKPOINT_ROWS  # units between this checkpoint and the next, at least
    for lo, hi in document_chunks(np.asarray(table.docs["first"], dtype=np.int64), n, CHUNK):
        mapped = _mapped(gen, table)
        links = LinkColumns(gen / LINKS).graph(n, size=mapped.columns["size"])
        yield "Unit", unit_frame(mapped, StringColumn(gen / "units" / "text"),
                                  Attributes(gen), lo, hi, links)
        del mapped, links
        held += hi - lo
        if held >= every or hi == n:
            yield CHECKPOINT, None
            held = 0
            every = max(CHECKPOINT_ROWS, hi // CHECKPOINT_GROWTH if CHECKPOINT_GROWTH else 0)
    yield from attribute_frames(Attributes(gen))
    yield from edge_frames(_mapped(gen, table), gen)
    for axpre, (arrays, meta) in summaries.items():
        yield from summary_frames(axpre, arrays, meta)


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



def _copy(conn: Any, table: str, frame: pa.Table) -> None:
    """``COPY table FROM frame`` (LadybugDB reads the Arrow table named in
    the query from the caller's local variables), on a connection of its
    own to ``conn``'s database: a LadybugDB connection keeps what it
    scanned until it closes, which held the units' ids, texts and
    attributes (about 330 B per element) through the rest of the build and
    the checkpoint."""
    if len(frame):
        import ladybug  # ~12 ms: the embedded graph only

        own = ladybug.Connection(conn.database)
        try:
            own.execute(f"COPY {table} FROM frame")
        finally:
            own.close()
