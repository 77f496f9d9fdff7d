"""Replacing documents in a Bolt store on FalkorDB: FalkorDB 4.16 deletes a
node found through an index wrongly once the graph grew past its matrices'
size (every 16,384 nodes) since the node's label matrix was last scanned:
the node stays under its label without properties, and reads of the label
fail ("Attempted to access undefined attribute") or crash the server.  The
store scans the labels before every deletion (``load/settle_labels``)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from graphprum.loading import load_xml
from graphprum.store.bolt.redis_port import compact_rows
from graphprum.store.local import LocalStore
from tests.store.test_bolt import assert_same_graph, write_collection
from tests.support import REPO

pytestmark = pytest.mark.bolt
PLOS = REPO / "examples" / "plos" / "articles"
FALKORDB = not os.environ.get("GRAPHPRUM_TEST_BOLT_URI")
#: Nodes FalkorDB 4.16 allocates its matrices for at a time (NODE_CREATION_BUFFER).
MATRIX_STEP = 16_384


@pytest.mark.skipif(not FALKORDB, reason="a FalkorDB specific")
def test_a_deletion_after_the_graph_grew_leaves_the_other_nodes_whole(bolt_store):
    """Three documents, then a graph grown past the matrices' size, then one
    document deleted by the store's packaged deletion: the two others keep
    their names (old code: "Attempted to access undefined attribute")."""
    store = bolt_store()
    conn = store.conn
    conn.ensure_schema()  # the index on Document.name, through which the deletion finds d1
    conn.write_text("UNWIND ['d1', 'd2', 'd3'] AS n CREATE (:Document {name: n})")
    conn.write_text("UNWIND range(1, $n) AS i CREATE (:Unit)", n=MATRIX_STEP)
    conn.write_rows("load/replaced_documents", "names", ["d1"])
    rows = store.query("MATCH (d:Document) RETURN d.name AS name ORDER BY name")
    assert rows == [{"name": "d2"}, {"name": "d3"}]
    assert store.query("MATCH (u:Unit) RETURN count(u) AS n") == [{"n": MATRIX_STEP}]


@pytest.mark.skipif(not FALKORDB, reason="a FalkorDB specific")
def test_a_users_deletion_after_the_graph_grew_leaves_the_other_nodes_whole(bolt_store):
    """The same through ``graphprum query --write`` (run_query): a user's
    DELETE gets the scan too (before: only the store's own deletions did,
    so the user's left the other documents without their names)."""
    from graphprum.query import run_query

    store = bolt_store()
    conn = store.conn
    conn.ensure_schema()
    conn.write_text("UNWIND ['d1', 'd2', 'd3'] AS n CREATE (:Document {name: n})")
    conn.write_text("UNWIND range(1, $n) AS i CREATE (:Unit)", n=MATRIX_STEP)
    run_query(store, "MATCH (d:Document {name: $n}) DELETE d", {"n": "d1"}, write=True)
    rows = store.query("MATCH (d:Document) RETURN d.name AS name ORDER BY name")
    assert rows == [{"name": "d2"}, {"name": "d3"}]


def _evaluation(store):
    from graphprum import evaluate

    examples = REPO / "examples" / "plos"
    return evaluate([examples / "run-bm25.txt"], examples / "qrels.txt", ["AP"], store=store)


INFO = ("documents", "elements", "units", "tags", "label_paths", "links", "dangling_links",
        "link_stats")


@pytest.mark.parametrize("ways", [{}, {"GRAPHPRUM_BOLT_BULK": "0"}], ids=["bulk", "merge"])
def test_replace_of_the_plos_examples_equals_a_fresh_load_and_the_embedded_store(
        tmp_path, bolt_store, monkeypatch, ways):
    """The 9 PLOS articles (19,393 units: more than the matrices' first
    size) loaded, then loaded again with --replace: info and the AP of the
    example run equal those of the fresh load and of the embedded store
    (old code: the replace left the store unreadable)."""
    for k, v in ways.items():
        monkeypatch.setenv(k, v)
    assert sum(1 for _ in PLOS.glob("*.xml")) == 9
    local, bolt = LocalStore(tmp_path / "l"), bolt_store()
    load_xml(local, [PLOS])
    load_xml(bolt, [PLOS])
    fresh_info = {k: bolt.info().get(k) for k in INFO}
    fresh_ap = _evaluation(bolt)
    report = load_xml(bolt, [PLOS], replace=True)
    assert report.replaced == 9
    got = {k: bolt.info().get(k) for k in INFO}
    assert got == fresh_info == {k: local.info().get(k) for k in INFO}
    assert got["units"] == 19_393 > MATRIX_STEP
    got_ap, want_ap = _evaluation(bolt), _evaluation(local)
    for table in (fresh_ap, want_ap):
        assert got_ap[["run", "measure", "topic"]].equals(table[["run", "measure", "topic"]])
        assert np.allclose(got_ap["value"], table["value"], rtol=0, atol=1e-12)
    assert want_ap["value"].abs().sum() > 0
    # nothing left of the replaced versions: every node of a label has its key
    for label, key in [("Document", "name"), ("Unit", "uid"), ("PendingLink", "key"),
                       ("Attribute", "nid")]:
        (row,) = bolt.query(f"MATCH (n:{label}) RETURN count(n) AS n, count(n.{key}) AS k")
        assert row["n"] == row["k"], label
    assert bolt.query("MATCH (d:Document) RETURN count(d) AS n") == [{"n": 9}]


@pytest.mark.skipif(not FALKORDB, reason="a FalkorDB specific")
def test_a_bulk_load_makes_its_links_once_every_index_is_built(bolt_store, monkeypatch):
    """FalkorDB builds an index created on a label with nodes in the
    background, and a query planned on it meanwhile crashed FalkorDB 4.16 (2
    of 45 bulk loads of the PostgreSQL manual): when the bulk load's LINK
    query is sent, ``db.indexes()`` says every index of the bulk graph is
    OPERATIONAL (old code: the 9 PLOS articles' indexes still
    "[Indexing] ...: UNDER CONSTRUCTION")."""
    from graphprum.store.bolt import bulk_load

    store = bolt_store()
    seen: list[list[str]] = []
    make_links = bulk_load.make_links

    def spy(conn, name, names, graph=None):
        reply = conn.redis_call("a look", "GRAPH.RO_QUERY", graph,
                                "CALL db.indexes() YIELD status RETURN status", "--compact")
        seen.append([str(s) for (s,) in compact_rows(reply)])
        return make_links(conn, name, names, graph=graph)

    monkeypatch.setattr(bulk_load, "make_links", spy)
    report = load_xml(store, [PLOS])
    assert report.extra.get("bulk") is True
    assert len(seen) == 1 and len(seen[0]) >= 5  # one per label with an index
    assert seen[0] == ["OPERATIONAL"] * len(seen[0])


def test_a_bulk_load_bounds_each_call_by_bytes(tmp_path, bolt_store, monkeypatch):
    """Each GRAPH.BULK call holds at most about ``BULK_BYTES`` of records, a
    document split over calls when it is larger, and the graph is the
    embedded store's (old code: one call per batch, whatever its size: the
    one document of PubMed's pubmed20n0014.xml, 3.2M elements, went as an
    argument of 1.09 GB, past Redis's 512 MiB, and the server dropped the
    connection)."""
    from graphprum.store.bolt import bulk_load

    limit = 20_000
    monkeypatch.setattr(bulk_load, "BULK_BYTES", limit, raising=False)
    sizes: list[int] = []
    call = bulk_load.BulkLoader._call

    def spy(self, args):
        sizes.append(max(len(a) for a in args if isinstance(a, bytes)))
        return call(self, args)

    monkeypatch.setattr(bulk_load.BulkLoader, "_call", spy)
    store, local = bolt_store(), LocalStore(tmp_path / "l")
    for s in (store, local):
        load_xml(s, [PLOS], links="xref@rid")
    assert store.info()["documents"] == 9
    assert len(sizes) > 2 * 9 and max(sizes) <= limit + 2_000, (len(sizes), max(sizes))
    assert_same_graph(local, store)
    for key in ("elements", "links", "dangling_links"):
        assert store.info()[key] == local.info()[key], key


#: A collection, the load that replaces four of its documents (and adds f),
#: and a load after it.
FIRST = {f"{n}.xml": f'<a n="{n}"><b>old {n}</b><ref to="{m}.xml"/></a>'
         for n, m in zip("abcde", "bcdea", strict=True)}
SECOND = {**{f"{n}.xml": f'<a n="{n}2"><c>new {n}</c><c/><ref to="{m}.xml"/></a>'
             for n, m in zip("abcd", "eabf", strict=True)},
          "f.xml": '<f><ref to="a.xml"/></f>'}
THIRD = {"g.xml": '<g><ref to="c.xml"/></g>'}


@pytest.mark.parametrize("then", ["resume", "next load"])
@pytest.mark.parametrize("dies_at", [("load/replaced_documents", 2), ("load/rename_links", 2),
                                     ("load/rename", 2), ("load/complete", 1)],
                         ids=["after-units-deleted", "after-deletes", "before-rename",
                              "before-complete"])
def test_a_replace_killed_while_it_swaps_versions_loses_no_document(
        tmp_path, bolt_store, falkordb_uri, monkeypatch, then, dies_at):
    """A --replace load of four documents, two a batch, whose connection dies
    while it removes the stored versions and renames the new ones (at the
    ``n``-th run of the query named): reopened, the store finishes the load
    (``load --resume`` or the next load) and holds the graph of the embedded
    store after the same loads (old code: the documents whose stored
    versions were gone were removed as leftovers, 2 to 4 of them lost)."""
    from graphprum.store.bolt import unwind_load

    monkeypatch.setenv("GRAPHPRUM_BOLT_BULK", "0")
    monkeypatch.setattr(unwind_load, "REPLACE_BATCH", 2)
    roots = [write_collection(tmp_path / k, files) for k, files in
             [("first", FIRST), ("second", SECOND), ("third", THIRD)]]
    bolt, local = bolt_store(), LocalStore(tmp_path / "l")
    load_xml(bolt, [roots[0]], links="ref@to")
    query, nth = dies_at
    conn, real = bolt.conn, bolt.conn.write_rows
    runs = {"n": 0}

    def dying(name, *args, **kwargs):  # the client is gone from this query on
        if name == query and runs["n"] < nth:
            runs["n"] += 1
        if runs["n"] == nth:
            raise ConnectionError("killed")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(conn, "write_rows", dying)
    with pytest.raises(ConnectionError):
        load_xml(bolt, [roots[1]], links="ref@to", replace=True)
    assert runs["n"] == nth
    reopened = type(bolt)(falkordb_uri)
    try:
        if then == "resume":
            reopened.resume_loads()
        else:
            load_xml(reopened, [roots[2]], links="ref@to")
        for root in roots[:2] + ([roots[2]] if then == "next load" else []):
            load_xml(local, [root], links="ref@to", replace=True)
        assert reopened.info()["incomplete_documents"] == 0
        assert reopened.documents()["name"].tolist() == local.documents()["name"].tolist()
        assert_same_graph(local, reopened)
        meta = reopened.reads.meta()
        assert meta["held"] and not meta["interrupted"]
        # the killed load is in the history, with its counts, as the embedded
        # store's (old code: its entry and link statistics were lost)
        fields = ("documents", "units", "replaced")
        history = [[{k: entry[k] for k in fields} for entry in s.info()["loads"]]
                   for s in (reopened, local)]
        assert history[0] == history[1] and len(history[0]) == len(roots) - (then == "resume")
        assert reopened.info()["link_stats"] == local.info()["link_stats"]
    finally:
        reopened.close()
