"""Issue 39: a FalkorDB store reads an evaluation's documents and ids through
the server's Redis port (documents packed into a few strings a document,
small replies in ``--compact`` form) and gives what the reference memory
store holds, exactly; a value the port would round is read over Bolt, and
without the port (``GRAPHPRUM_FALKORDB_REDIS=0``, or a Neo4j server) every
read goes over Bolt, as before.  An evaluation the port serves entirely
never imports the neo4j driver."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest

from graphprum.units import KIND_ELEMENT, KIND_VIDEO, UnitTable
from tests.support import EXAMPLES, REPO
from tests.support.stores import load_examples

pytestmark = [pytest.mark.bolt,
              pytest.mark.skipif(bool(os.environ.get("GRAPHPRUM_TEST_BOLT_URI")),
                                 reason="FalkorDB's Redis port")]

#: The queries that pull documents: packed through the Redis port, over Bolt.
PACKED, COLUMNS = "read/document_columns_packed", "read/document_columns"


@pytest.fixture(scope="module")
def examples_uri(examples_falkordb_uri):
    """A server of its own (``bolt_store`` empties the other), holding the
    bundled collections (PLOS, web pages, video)."""
    from graphprum.store.bolt import BoltStore

    with BoltStore(examples_falkordb_uri) as store:
        store.clear()
        load_examples(store)
    return examples_falkordb_uri


def document_rows(table: UnitTable, name: str) -> dict[str, list]:
    """Document ``name`` of ``table`` as plain lists: its columns (``parent``
    local), tags and paths by row."""
    d = list(table.docs["name"]).index(name)
    first, count = int(table.docs["first"][d]), int(table.docs["count"][d])
    rows = slice(first, first + count)
    cols = {c: table.columns[c][rows] for c in table.columns if c != "doc"}
    cols["parent"] = np.where(cols["parent"] >= 0, cols["parent"] - first, -1)
    out = {c: [repr(x) for x in a.tolist()] for c, a in cols.items()}  # -0.0 kept
    out["tags"] = [table.tags[t] for t in cols["tag"].tolist()]
    out["paths"] = [table.paths[p] for p in cols["path"].tolist()]
    del out["tag"], out["path"]
    out["dtypes"] = [str(a.dtype) for a in cols.values()]
    return out


@pytest.mark.parametrize("way", ["redis", "bolt"])
def test_every_document_pulled_is_the_reference_table(examples_uri, reference, monkeypatch,
                                                      way):
    from graphprum.store.bolt import BoltStore

    if way == "bolt":
        monkeypatch.setenv("GRAPHPRUM_FALKORDB_REDIS", "0")
    store = BoltStore(examples_uri)
    asked: list[tuple[str, tuple[str, ...]]] = []
    read_batched = store.conn.read_batched

    def spy(name, key, rows, **fixed):
        asked.append((name, tuple(rows)))
        return read_batched(name, key, rows, **fixed)

    monkeypatch.setattr(store.conn, "read_batched", spy)
    want = reference.table()
    names = list(want.docs["name"])
    kinds = dict(zip(names, want.docs["kind"].tolist(), strict=True))
    for name in names:
        got = store.view([], [name]).table
        assert document_rows(got, name) == document_rows(want, name), name
    packed = {n for q, rows in asked if q == PACKED for n in rows}
    bolt = {n for q, rows in asked if q == COLUMNS for n in rows}
    # the video's segments start at times that are not whole seconds: the
    # Redis port would round them, so it comes over Bolt
    videos = {n for n in names if kinds[n] == KIND_VIDEO}
    assert videos and len(videos) < len(names)
    if way == "redis":
        assert packed == set(names) and bolt == videos
    else:
        assert not packed and bolt == set(names)
    store.close()


@pytest.mark.parametrize("way", ["redis", "bolt"])
def test_partitions_pulled_are_the_reference_partitions(examples_uri, monkeypatch, way):
    """The p* partition of every unit of every document, through the Redis
    port (packed) or over Bolt, is the memory store's, built in numpy."""
    from graphprum.store.bolt import BoltStore
    from graphprum.store.memory import MemoryStore
    from graphprum.summaries.stored import build_stored

    memory = MemoryStore()
    load_examples(memory)
    build_stored(memory, "p*")
    if way == "bolt":
        monkeypatch.setenv("GRAPHPRUM_FALKORDB_REDIS", "0")
    store = BoltStore(examples_uri)
    if "p*" not in store.summary_names():
        build_stored(store, "p*")
    asked: list[str] = []
    read_batched = store.conn.read_batched

    def spy(name, key, rows, **fixed):
        asked.append(name)
        return read_batched(name, key, rows, **fixed)

    monkeypatch.setattr(store.conn, "read_batched", spy)
    table = memory.table()
    whole = memory.partitions("p*", memory.view([], []), np.arange(len(table)))
    for d, name in enumerate(table.docs["name"]):
        first, count = int(table.docs["first"][d]), int(table.docs["count"][d])
        view = store.view([], [name])
        got = store.partitions("p*", view, np.arange(count))
        assert got.tolist() == whole[first:first + count].tolist(), name
    assert ("read/document_partitions_packed" in asked) == (way == "redis")
    assert ("read/document_partitions" in asked) == (way == "bolt")
    store.close()


def test_small_reads_through_the_redis_port_are_exact(examples_uri, reference):
    """A double the port writes with 15 digits is read again over Bolt:
    every value as Python computes it."""
    from graphprum.store.bolt import BoltStore

    store = BoltStore(examples_uri)
    text = ("RETURN 0.1 + 0.2 AS x, 6665.0 AS y, 1e15 AS z, -0.0 AS w, 7 AS i, "
            "'a\"b' AS s, [2.0, 1.0 / 3] AS l")
    for compact in (True, False):
        (row,) = store.conn.read_text(text, {}, compact=compact)
        assert row[:6] == (0.1 + 0.2, 6665.0, 1e15, 0.0, 7, 'a"b') and row[6] == [2.0, 1 / 3]
        assert [type(v) for v in row] == [float, float, float, float, int, str, list]
        assert math.copysign(1.0, row[3]) == -1.0
    (whole,) = store.conn.read_text("RETURN 6665.0 AS y, -0.0 AS w", {}, compact=True)
    assert whole == (6665.0, -0.0) and math.copysign(1.0, whole[1]) == -1.0
    assert store.count_units() == reference.count_units()
    store.close()


def test_a_read_through_the_redis_port_of_an_emptied_server(bolt_store):
    """``clear`` deletes the graph (GRAPH.DELETE); a read-only query through
    the port would fail on the missing graph: it is read over Bolt."""
    store = bolt_store()
    assert store.conn.redis() is not None
    assert store.count_units() == 0 and store.kinds(["d#/a[1]"]).tolist() == [-1]
    assert store.conn.read_text("MATCH (n) RETURN count(n) AS n", {}, compact=True) == [(0,)]


def test_element_ids_resolve_to_the_reference_rows(examples_uri, reference):
    """Every element id of every document (the reference store's ids)
    resolves to its own row in a view of the document; ids the store does
    not write (a leading zero, a step too many, no leading ``/``, a step
    under the wrong parent) resolve to none."""
    from graphprum.store.bolt import BoltStore

    store = BoltStore(examples_uri)
    table = reference.table()
    checked = 0
    for d, name in enumerate(table.docs["name"]):
        first, count = int(table.docs["first"][d]), int(table.docs["count"][d])
        ids = table.ids(range(first, first + count))
        element = table.columns["kind"][first:first + count] == KIND_ELEMENT
        if not element.any():
            continue
        view = store.view([], [name])
        want = np.where(element, np.arange(count), -1)
        asked = [u for u, e in zip(ids, element, strict=True) if e]
        assert np.array_equal(view.resolve(asked), want[element]), name
        known = set(ids)
        wrong = [u.replace("[1]", "[01]", 1) for u in asked[:20]] + \
            [u + "/p[1]" for u in asked[:20]] + [u.replace("#/", "#", 1) for u in asked[:5]] + \
            [f"{name}#/{u.rsplit('/', 1)[1]}" for u in asked[1:20]]
        assert all(w not in known for w in wrong) and len(wrong) > 40
        assert view.resolve(wrong).tolist() == [-1] * len(wrong), name
        checked += len(asked)
    assert checked > 19_000
    store.close()


EVAL = """
import sys
from graphprum.cli import main
sys.argv = ["graphprum", "--store", sys.argv[1], "eval", sys.argv[2], "--qrels", sys.argv[3],
            "-m", "PRUM", "--nav", "structural", "--nav", "links:hops=2", "-q", "-f", "tsv"]
try:
    main()
finally:
    print("neo4j imported:", "neo4j" in sys.modules, file=sys.stderr)
"""


def test_an_evaluation_the_redis_port_serves_imports_no_driver(examples_uri):
    """The neo4j driver (and pandas, which it imports) costs 0.4 s of
    start-up; through the Redis port an evaluation needs neither, and its
    table is the one read over Bolt, value for value."""
    plos = EXAMPLES / "plos"
    out = {}
    for way, redis in (("redis", None), ("bolt", "0")):
        env = {k: v for k, v in os.environ.items() if k != "GRAPHPRUM_FALKORDB_REDIS"}
        if redis is not None:
            env["GRAPHPRUM_FALKORDB_REDIS"] = redis
        proc = subprocess.run([sys.executable, "-c", EVAL, examples_uri,
                               str(plos / "run-sections.txt"), str(plos / "qrels.txt")],
                              capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert f"neo4j imported: {way == 'bolt'}" in proc.stderr
        out[way] = proc.stdout
    assert out["redis"] == out["bolt"] and len(out["redis"].splitlines()) == 6  # 5 topics, all


@pytest.mark.parametrize(("start", "exact"), [("[0, 1]", True), ("[-0, 1]", False),
                                              ("[0, 1.5]", False), ("[0, 1e+15]", False),
                                              ("[0, null]", False)])
def test_a_packed_document_is_taken_only_when_exact(start, exact):
    """Doubles the Redis port writes with digits only are whole numbers and
    exact; any other (a fraction, an exponent, ``-0``, which an integer would
    make 0) sends the document over Bolt (None)."""
    from graphprum.store.bolt.pieces import packed_piece

    row = ("d", "[0, 1]", "[0, 0]", "[0, 1]", "[-1, 0]", "[1, 0]", "[2, 1]", "[1, 1]",
           start, "[3, 2]", "[1, 1]", "a\nb", "/a\n/a/b")
    piece = packed_piece(row, {"name": "d", "count": 2})
    assert (piece is not None) == exact
    if piece is not None:
        assert piece.table.columns["start"].tolist() == [0.0, 1.0]
        assert piece.table.columns["parent"].tolist() == [-1, 0]
        assert piece.table.ids() == ["d#/a[1]", "d#/a[1]/b[1]"]
