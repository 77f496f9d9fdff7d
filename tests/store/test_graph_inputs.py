"""What the embedded store's graph is built from, computed in bulk
(unit ids level by level, attributes as JSON objects, document-aligned
chunks), against per-row definitions written independently:
``UnitTable.ids`` and ``json.dumps`` of each row's attributes."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np

from graphprum.loading import load_links, load_video, load_xml
from graphprum.store.local import LocalStore
from graphprum.store.local.graph_frames import Attributes
from graphprum.store.local.graph_ids import _unit_ids_walk, document_chunks, unit_ids
from graphprum.units import DocTable, UnitTable
from tests.support import PLOS

VTT = "WEBVTT\n\n00:01.000 --> 00:04.000\nHello\n\n00:05.000 --> 00:07.250\nWorld\n"


def mixed_store(write, tmp_path: Path) -> LocalStore:
    """Elements (same-tag siblings, namespaces, attributes with characters
    JSON escapes), video segments and pages, over several loads and a
    replacement, so rows are renumbered between generations."""
    write("x/a.xml", '<r xmlns:q="urn:q"><s q:k="1"><s/><p a="x"/><s/></s></r>')
    write("x/b.xml", '<r xmlns:q="urn:q"><t q:k="1" a="x" b="y" c="z">one</t><t><u>two</u></t>'
                     '<t t="quote &quot; back \\ tab &#9; nl &#10; caf\u00e9"/></r>')
    write("v/clip.vtt", VTT)
    write("l.tsv", "a\tpage1\npage2\tb\n")
    store = LocalStore(tmp_path / "s")
    load_xml(store, [tmp_path / "x"])
    load_video(store, [tmp_path / "v" / "clip.vtt"])
    load_links(store, tmp_path / "l.tsv")
    write("x/a.xml", '<r><s k="2" j="3"/><s/><s><s k="4"/></s></r>')
    load_xml(store, [tmp_path / "x" / "a.xml"], replace=True)
    return store


def test_unit_ids_equal_the_tables_ids(write, tmp_path: Path) -> None:
    store = mixed_store(write, tmp_path)
    table = store.table()
    expected = table.ids()
    assert {"clip", "clip#1", "clip#2", "page1", "page2", "b#/r[1]/t[2]/u[1]",
            "a#/r[1]/s[3]/s[1]"} <= set(expected)
    assert unit_ids(table).tolist() == expected
    for size in (1, 3, 7):
        chunks = document_chunks(table.docs["first"], len(table), size)
        assert chunks[0][0] == 0 and chunks[-1][1] == len(table)
        assert all(hi == lo2 for (_, hi), (lo2, _) in itertools.pairwise(chunks))
        assert set(lo for lo, _ in chunks) <= set(np.asarray(table.docs["first"]).tolist())
        assert [i for lo, hi in chunks for i in unit_ids(table, lo, hi).tolist()] == expected
        assert [i for lo, hi in chunks
                for i in _unit_ids_walk(table, lo, hi).tolist()] == expected
    # a range that cuts a document walks from its start
    n = len(table)
    for lo, hi in itertools.combinations(range(0, n + 1, 2), 2):
        assert _unit_ids_walk(table, lo, hi).tolist() == expected[lo:hi]


def test_the_graph_holds_every_id_however_the_ids_are_pieced(write, tmp_path: Path,
                                                              monkeypatch) -> None:
    """Ids are made a piece of rows at a time inside each chunk of the
    build: with pieces and chunks of a few rows, which do not line up with
    each other, the graph's ids are still the table's, row for row."""
    from graphprum.store.local import graph, graph_frames

    store = mixed_store(write, tmp_path)
    expected = store.table().ids()
    for chunk, piece in ((5, 2), (4, 3), (1 << 21, 1)):
        monkeypatch.setattr(graph, "CHUNK", chunk)
        monkeypatch.setattr(graph_frames, "ID_PIECE", piece)
        path = graph.build(store.generation, store.table(), {},
                           target=tmp_path / f"g-{chunk}-{piece}.lbug")
        reader = graph.GraphReader(path)
        try:
            got = reader.query("MATCH (u:Unit) RETURN u.row AS r, u.uid AS id ORDER BY u.row")
        finally:
            reader.close()
        assert [g["id"] for g in got] == expected


def test_unit_ids_when_depths_do_not_follow_parents() -> None:
    """A table whose depth column is not parent depth + 1 (written by hand):
    the ids come from the parents, as ``UnitTable.ids`` says."""
    cols = {"doc": np.zeros(4, np.int32), "kind": np.zeros(4, np.int8),
            "tag": np.array([0, 1, 1, 0], np.int32), "path": np.zeros(4, np.int32),
            "parent": np.array([-1, 0, 1, 0], np.int32),
            "depth": np.array([0, 1, 1, 1], np.int16), "pos": np.array([1, 1, 1, 1], np.int32),
            "post": np.zeros(4, np.int32), "size": np.ones(4, np.int32),
            "start": np.zeros(4), "length": np.zeros(4), "words": np.zeros(4, np.int32)}
    table = UnitTable(cols, ["a", "b"], ["/a"], DocTable({
        "name": ["d"], "source": [""], "kind": np.zeros(1, np.int8), "length": np.zeros(1),
        "first": np.zeros(1, np.int64), "count": np.array([4])}))
    assert unit_ids(table).tolist() == table.ids() == \
        ["d#/a[1]", "d#/a[1]/b[1]", "d#/a[1]/b[1]/b[1]", "d#/a[1]/a[1]"]


def test_attribute_json_is_json_dumps_of_each_row(write, tmp_path: Path) -> None:
    store = mixed_store(write, tmp_path)
    n = len(store.table())
    rows = np.arange(n)
    expected = [json.dumps(d, ensure_ascii=False, separators=(",", ":")) if d else None
                for d in store.attributes(rows)]
    assert sum(e is not None for e in expected) == 4
    assert any(e and '\\"' in e and "\\\\" in e and "\\t" in e and "\\n" in e
               for e in expected)
    attributes = Attributes(store.generation)
    assert attributes.json(0, n).to_pylist() == expected
    assert [j for lo in range(n) for j in attributes.json(lo, lo + 1).to_pylist()] == expected
    # and what the graph holds
    got = store.query("MATCH (u:Unit) RETURN u.row AS r, u.attributes AS a ORDER BY u.row")
    assert [g["a"] for g in got] == expected


def test_the_build_lets_go_of_each_frame_once_copied(tmp_path: Path, monkeypatch) -> None:
    """A LadybugDB connection keeps what it scanned until it closes: each
    COPY of the build runs on a connection of its own, so the units' Arrow
    table (ids, texts, attributes) is freed once copied, not held through
    the other tables and the checkpoint (about 330 B per element)."""
    import gc
    import weakref

    import pyarrow as pa

    from graphprum.store.local import graph

    store = LocalStore(tmp_path / "plos")
    load_xml(store, [PLOS / "articles"])  # 19,393 elements
    copied: list[tuple[str, weakref.ref]] = []
    alive_later: list[tuple[str, str]] = []  # (table copied, table still alive)
    arrow_bytes: dict[str, int] = {}
    real = graph._copy

    def copy(conn, table, frame) -> None:
        gc.collect()
        alive_later.extend((table, name) for name, ref in copied if ref() is not None)
        arrow_bytes[table] = pa.total_allocated_bytes()
        copied.append((table, weakref.ref(frame)))
        real(conn, table, frame)

    monkeypatch.setattr(graph, "_copy", copy)
    assert store.build_graph()
    names = [name for name, _ in copied]
    assert names.index("Unit") < names.index("CHILD")
    assert alive_later == []
    # the units' strings were Arrow's own (ids, attributes): freed before the edges
    assert arrow_bytes["CHILD"] < 0.1 * arrow_bytes["Unit"]
    assert store.query("MATCH (u:Unit) RETURN count(u) AS n")[0]["n"] == len(store.table())


def test_relationships_are_copied_from_int32_rows_without_the_columns_maps(
        write, tmp_path: Path, monkeypatch) -> None:
    """CHILD and HAS_ATTRIBUTE are copied from ``int32`` rows, with no
    attribute names or values mapped any more (at 20M elements those maps
    and the ``int64`` copies were 700 MB of the build's peak); the graph
    still holds every parent's child and every row's attributes, as the
    columns give them."""
    import gc
    import weakref

    from graphprum.store.local import graph

    store = mixed_store(write, tmp_path)
    made: weakref.WeakSet[Attributes] = weakref.WeakSet()

    class Tracked(Attributes):
        def __init__(self, gen: Path) -> None:
            super().__init__(gen)
            made.add(self)

    seen: dict[str, tuple[list[str], int]] = {}
    real = graph._copy

    def copy(conn, table, frame) -> None:
        gc.collect()
        seen[table] = ([str(t) for t in frame.schema.types], len(made))
        real(conn, table, frame)

    monkeypatch.setattr(graph, "Attributes", Tracked)
    monkeypatch.setattr(graph, "_copy", copy)
    assert store.build_graph()
    assert seen["CHILD"] == (["int32", "int32"], 0)
    assert seen["HAS_ATTRIBUTE"] == (["int32", "int32"], 0)
    assert seen["Attribute"][1] == 1  # the maps the Attribute nodes are read through
    table = store.table()
    parent = np.asarray(table.columns["parent"]).tolist()
    got = store.query("MATCH (a:Unit)-[:CHILD]->(b:Unit) RETURN a.row AS a, b.row AS b")
    assert sorted((g["a"], g["b"]) for g in got) == sorted(
        (p, c) for c, p in enumerate(parent) if p >= 0)
    got = store.query("MATCH (u:Unit)-[:HAS_ATTRIBUTE]->(a:Attribute) "
                      "RETURN u.row AS r, a.name AS k, a.value AS v")
    rows = np.arange(len(table))
    expected = sorted((int(r), k, v) for r, d in zip(rows, store.attributes(rows), strict=True)
                      for k, v in d.items())
    assert len(expected) == 8  # b.xml: 4 + 1, a.xml as replaced: 3
    assert sorted((g["r"], g["k"], g["v"]) for g in got) == expected


def test_checkpoints_every_checkpoint_rows_give_the_graph_of_one_per_batch(
        write, tmp_path: Path, monkeypatch) -> None:
    """Units copied in batches of 5,000 with a checkpoint only once 12,000
    were copied since the last (and after the last batch) make the same
    graph, row for row and edge for edge, as a checkpoint after every batch;
    the checkpoints come where the rows say.  With intervals that grow with
    the table (batches of 2,000, at least 3,000 units or half the table at
    the last checkpoint) too."""
    from graphprum.store.local import graph
    from graphprum.store.local.graph_reader import GraphReader

    plos = LocalStore(tmp_path / "plos")
    load_xml(plos, [PLOS / "articles"])  # 19,393 elements
    for store in (plos, mixed_store(write, tmp_path)):
        gen, table = store.generation, store.table()
        rows = {}
        for every, chunk, growth in ((1, 5000, 0), (12_000, 5000, 0), (3000, 2000, 2)):
            monkeypatch.setattr(graph, "CHECKPOINT_ROWS", every)
            monkeypatch.setattr(graph, "CHUNK", chunk)
            monkeypatch.setattr(graph, "CHECKPOINT_GROWTH", growth)
            held, total, expected, at_least, places = 0, 0, [], every, []
            for name, frame in graph._frames(gen, table, {}):
                if name == "Unit":
                    held, total = held + len(frame), total + len(frame)
                    expected.append(held >= at_least or total == len(table))
                elif name == graph.CHECKPOINT:
                    assert expected.pop() and not any(expected)  # here, not before
                    held, expected = 0, []
                    places.append(total)
                    at_least = max(every, total // growth) if growth else every
            assert total == len(table) and held == 0 and not expected  # one after the last
            if growth and store is plos:  # the third at half the table, not at 3,000 more
                assert places[2] - places[1] >= places[1] // 2 > every
            (tmp_path / f"{gen.name}-{every}").mkdir()
            out = graph.build(gen, table, {}, target=tmp_path / f"{gen.name}-{every}" / "g")
            reader = GraphReader(out)
            rows[every] = [reader.query(q) for q in (
                "MATCH (u:Unit) RETURN u.row, u.uid, u.doc, u.tag, u.path, u.kind, "
                "u.depth, u.pre, u.post, u.size, u.pos, u.start, u.length, u.words, "
                "u.text, u.attributes, u.held ORDER BY u.row",
                "MATCH (a:Unit)-[:CHILD]->(b:Unit) RETURN a.row, b.row ORDER BY b.row",
                "MATCH (a:Unit)-[r:LINK]->(b:Unit) RETURN a.row, b.row, r.anchor "
                "ORDER BY a.row, b.row, r.anchor",
                "MATCH (u:Unit)-[:HAS_ATTRIBUTE]->(a:Attribute) RETURN u.row, a.nid "
                "ORDER BY u.row, a.nid",
                "MATCH (d:Document)-[:ROOT]->(u:Unit) RETURN d.name, u.row ORDER BY d.name")]
            reader.close()
        parent = np.asarray(table.columns["parent"])
        assert [r["u.row"] for r in rows[1][0]] == list(range(len(table)))
        assert [(r["a.row"], r["b.row"]) for r in rows[1][1]] == [
            (int(parent[c]), c) for c in np.flatnonzero(parent >= 0).tolist()]
        assert rows[1][3]  # attributes there to compare
        assert rows[12_000] == rows[1] and rows[3000] == rows[1]
    assert rows[1][2]  # the mixed store's links


def test_attribute_keys_are_name_equals_value_as_on_the_bolt_store(write, tmp_path) -> None:
    """The embedded graph numbers its Attribute nodes (``aid``), but an
    Attribute's ``nid`` is ``name=value`` as the Bolt store writes it, so a
    query naming it gives the same rows on both."""
    from graphprum.store.bolt.pack import attribute_nid

    store = mixed_store(write, tmp_path)
    got = store.query("MATCH (u:Unit)-[:HAS_ATTRIBUTE]->(a:Attribute) "
                      "RETURN u.row AS r, a.nid AS nid, a.name AS n, a.value AS v "
                      "ORDER BY r, n")
    rows = np.arange(len(store.table()))
    expected = sorted((r, attribute_nid(k, v), k, v)
                      for r, d in zip(rows.tolist(), store.attributes(rows), strict=True)
                      for k, v in d.items())
    assert [(g["r"], g["nid"], g["n"], g["v"]) for g in got] == expected
    assert len({g["nid"] for g in got}) == store.query(
        "MATCH (a:Attribute) RETURN count(a) AS n")[0]["n"]  # one node per (name, value)
    one = expected[0]
    assert store.query("MATCH (a:Attribute {nid: $k}) RETURN a.name AS n, a.value AS v",
                       {"k": one[1]}) == [{"n": one[2], "v": one[3]}]
    assert "aid" not in store.query("MATCH (a:Attribute) RETURN a LIMIT 1")[0]["a"]


def _parsed(name: str, texts: list[str], attributes: list, links: tuple = ()):
    from graphprum.units import KIND_ELEMENT, ParsedDocument

    n = len(texts)
    columns = {"parent": np.array([-1] + [0] * (n - 1), np.int32),
               "depth": np.array([0] + [1] * (n - 1), np.int16),
               "post": np.arange(n, dtype=np.int32)[::-1].copy(),
               "size": np.array([n] + [1] * (n - 1), np.int32),
               "pos": np.array([1, *range(1, n)], np.int32), "start": np.zeros(n),
               "length": np.ones(n), "words": np.ones(n, np.int32),
               "kind": np.zeros(n, np.int8)}
    return ParsedDocument(name, f"{name}.xml", KIND_ELEMENT, ["r"] + ["s"] * (n - 1),
                          ["/r"] + ["/r/s"] * (n - 1), columns, list(links), texts, attributes)


def test_lone_surrogates_reach_the_graph_as_replacement_characters(tmp_path) -> None:
    """The store keeps a lone surrogate that came through the API (its
    string columns are written with ``surrogatepass``); the graph cannot
    hold one, so texts, attribute values, link anchors and document names
    (in ids too) get U+FFFD."""
    store = LocalStore(tmp_path / "s")
    store.load_documents([_parsed("d1", ["ok", "x\ud800y"], [(1, {"k": "v\udcff"})],
                                  [(1, "d2", "an\udcffchor")]),
                          _parsed("d2", ["t"], []),
                          _parsed("d\udcff3", ["t", "u"], [])],  # a file name not UTF-8
                         description={"kind": "t"})
    assert store.build_graph()
    assert store.query("MATCH (d:Document)-[:ROOT]->(u:Unit)-[:CHILD]->(c:Unit) "
                       "WHERE d.name = $n RETURN u.uid AS r, c.uid AS c, c.doc AS d",
                       {"n": "d\ufffd3"}) == [{"r": "d\ufffd3#/r[1]", "c": "d\ufffd3#/r[1]/s[1]",
                                              "d": "d\ufffd3"}]
    assert store.query("MATCH (u:Unit {row: 1}) RETURN u.text AS t")[0]["t"] == "x\ufffdy"
    assert store.query("MATCH (:Unit)-[:HAS_ATTRIBUTE]->(a:Attribute) RETURN a.value AS v") \
        == [{"v": "v\ufffd"}]
    assert store.query("MATCH ()-[l:LINK]->() RETURN l.anchor AS a") == [{"a": "an\ufffdchor"}]


def test_a_build_that_fails_in_python_leaves_no_temporary_graph(tmp_path, monkeypatch) -> None:
    """Only LadybugDB's own errors become 'cannot write the graph'; any other
    is raised as itself, and the half-written graph is removed either way."""
    import pytest

    from graphprum.store.local import graph

    store = LocalStore(tmp_path / "plos")
    load_xml(store, [PLOS / "articles"])

    def broken(attributes):
        raise KeyError("made up")
        yield  # a generator, as the real one

    monkeypatch.setattr(graph, "attribute_frames", broken)
    with pytest.raises(KeyError, match="made up"):
        store.build_graph()
    assert sorted(p.name for p in store.generation.iterdir() if "lbug" in p.name) == []


def test_json_strings_are_json_dumps_for_any_text() -> None:
    """Arrow's escaping of names and values against ``json.dumps``, on
    random text (control characters, quotes, backslashes, any plane)."""
    import pyarrow as pa
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from graphprum.store.local.graph_frames import _json_strings

    text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)

    @settings(max_examples=200, deadline=None)
    @given(st.lists(text | st.sampled_from(['"', "\\", "\n\t", "\x1f", "\x7f", "\u2028"]),
                    min_size=1, max_size=8))
    def check(values: list[str]) -> None:
        got = _json_strings(pa.array(values, pa.large_string())).to_pylist()
        assert got == [json.dumps(v, ensure_ascii=False) for v in values]

    check()
