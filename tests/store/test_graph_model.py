"""The stores that answer Cypher hold one graph model: the same query gives
the same rows on the embedded store (LadybugDB) and on a Bolt server."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphprum.store.base import CYPHER, Store
from graphprum.store.local import LocalStore
from graphprum.summaries.stored import build_stored
from tests.support.stores import load_examples

QUERIES = [
    # units per tag
    ("MATCH (u:Unit) RETURN u.tag AS tag, count(*) AS n ORDER BY n DESC, tag LIMIT 25", {}),
    # sections whose title text is Methods
    ("MATCH (s:Unit {tag: 'sec'})-[:CHILD]->(t:Unit {tag: 'title'}) WHERE t.text = $title "
     "RETURN s.uid AS uid, s.depth AS depth ORDER BY uid", {"title": "Methods"}),
    # attributes as nodes and as JSON
    ("MATCH (u:Unit)-[:HAS_ATTRIBUTE]->(a:Attribute {name: 'sec-type'}) "
     "RETURN a.value AS type, count(*) AS n ORDER BY type", {}),
    ("MATCH (a:Attribute) RETURN count(a) AS attributes, count(DISTINCT a.name) AS names", {}),
    ("MATCH (:Unit)-[h:HAS_ATTRIBUTE]->(:Attribute) RETURN count(h) AS n", {}),
    ("MATCH (u:Unit) WHERE u.attributes IS NULL RETURN count(*) AS n", {}),
    ("MATCH (u:Unit {uid: $uid}) RETURN u.attributes AS a, u.text AS text, "
     "u.start AS start, u.length AS length, u.words AS words, u.post AS post",
     {"uid": "pmed-1001300#/article[1]/body[1]/sec[1]"}),
    # nodes and relationships as returned values
    ("MATCH (d:Document {name: $name})-[r:ROOT]->(u:Unit) RETURN d, r, u",
     {"name": "bbb_trailer"}),
    ("MATCH (u:Unit {uid: $uid})-[:HAS_ATTRIBUTE]->(a:Attribute) RETURN a ORDER BY a.name",
     {"uid": "pmed-1001300#/article[1]/body[1]/sec[1]"}),
    ("MATCH (:Unit {uid: $page})-[l:LINK]->(t:Unit) RETURN l, t.uid AS target, l.anchor AS anchor "
     "ORDER BY target, anchor LIMIT 3", {"page": "library/index.html"}),
    # links into a page, with multiplicity
    ("MATCH (s:Unit)-[l:LINK]->(t:Unit {uid: $page}) RETURN s.uid AS src, count(l) AS n "
     "ORDER BY src", {"page": "library/os.path.html"}),
    ("MATCH (:Unit)-[l:LINK]->(:Unit) RETURN count(l) AS links", {}),
    # documents, roots, videos and segments
    ("MATCH (d:Document) RETURN d.name AS name, d.source AS source, d.kind AS kind, "
     "d.length AS length, d.count AS count ORDER BY name", {}),
    ("MATCH (d:Document {name: $name})-[:ROOT]->(u:Unit) RETURN u.uid AS root, u.tag AS tag",
     {"name": "pone-0052690"}),
    ("MATCH (v:Unit {kind: 3})-[:CHILD]->(s:Unit {kind: 2}) RETURN v.uid AS video, "
     "count(s) AS segments, sum(s.length) AS seconds", {}),
    # units in a summary partition, and the summary graph
    ("MATCH (u:Unit)-[:IN_PARTITION]->(s:Summary {axpre: 'p*'}) WHERE s.key = $key "
     "RETURN s.sid AS sid, count(u) AS n, min(u.uid) AS first", {"key": "/article/body/sec"}),
    ("MATCH (s:Summary {axpre: 'p*'})-[e:SUMMARY_EDGE]->(t:Summary) "
     "RETURN s.sid AS source, t.sid AS target, e.count AS n, e.length AS length "
     "ORDER BY n DESC, source, target LIMIT 10", {}),
]


@pytest.fixture(scope="module")
def embedded(tmp_path_factory) -> LocalStore:
    """The embedded store holding the bundled collections and their p* summary."""
    store = LocalStore(Path(tmp_path_factory.mktemp("embedded")) / "s")
    load_examples(store)
    build_stored(store, "p*")
    return store


@pytest.mark.parametrize("query", range(len(QUERIES)))
def test_same_rows_as_the_embedded_graph(examples_store: Store, embedded: LocalStore,
                                         query: int) -> None:
    if CYPHER not in examples_store.capabilities:
        pytest.skip("this store runs no Cypher")
    if "p*" not in examples_store.summary_names():
        build_stored(examples_store, "p*")
    text, params = QUERIES[query]
    want = embedded.query(text, params)
    assert want and any(any(v not in (None, 0) for v in row.values()) for row in want)
    assert examples_store.query(text, params) == want


def test_limit_applies_after_aggregation(examples_store: Store, reference: Store) -> None:
    """``RETURN count(u) AS n LIMIT 5`` counts every unit (issue 18: the old
    embedded engine cut the rows to 5 before counting)."""
    if CYPHER not in examples_store.capabilities:
        pytest.skip("this store runs no Cypher")
    rows = examples_store.query("MATCH (u:Unit) RETURN count(u) AS n LIMIT 5", {})
    assert rows == [{"n": len(reference.table())}]
    assert len(reference.table()) > 5
