"""The same Cypher gives the same rows on every store that runs Cypher: the
queries of docs/query.md, run through the API on the backend under test and
on the embedded store."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from graphprum.errors import UsageError
from graphprum.loading import load_web, load_xml
from graphprum.query import parse_param, run_query
from graphprum.store.base import CYPHER, Store
from graphprum.store.cypher_guard import refuse_ungrouped_after_limit
from graphprum.store.local import LocalStore
from graphprum.summaries.stored import build_stored
from tests.support import EXAMPLES, REPO
from tests.support.stores import factory

QUERY_DOC = REPO / "docs" / "query.md"


def cookbook() -> list[tuple[str, str, dict]]:
    """(store name, query, parameters) of every ``graphprum ... query`` line of docs/query.md."""
    out = []
    for line in QUERY_DOC.read_text(encoding="utf-8").splitlines():
        if not line.startswith("graphprum --store ") or " query " not in line:
            continue
        line = line.split(" || ")[0]
        line = re.sub(r'"ids=\$\(awk .*\)"', "ids=QRELS_TOPIC_1", line)
        words = shlex.split(line)
        store, text = words[2], words[4 if words[4] != "-f" else 6]
        params = {}
        for i, w in enumerate(words):
            if w == "--param":
                params.update([parse_param(words[i + 1])])
        out.append((store, text, params))
    return out


def relevant_ids() -> list[str]:
    lines = (EXAMPLES / "plos" / "qrels.txt").read_text().splitlines()
    return [f[2] for f in (ln.split() for ln in lines) if f and f[0] == "1" and float(f[3]) > 0]


QUERIES = [q for q in cookbook() if "DELETE" not in q[1]]


def _stores(make, make_other=None) -> dict[str, Store]:
    plos, web = make(), (make_other or make)()
    load_xml(plos, [EXAMPLES / "plos" / "articles"])
    build_stored(plos, "p*")
    load_web(web, EXAMPLES / "web" / "site")
    return {"plos": plos, "web": web}


@pytest.fixture(scope="module")
def local_stores(tmp_path_factory) -> dict[str, Store]:
    base: Path = tmp_path_factory.mktemp("cypher-local")
    n = iter(range(10))
    return _stores(lambda: LocalStore(base / f"s{next(n)}"))


@pytest.fixture(scope="module")
def stores(backend, tmp_path_factory, request) -> dict[str, Store]:
    if backend == "memory":
        pytest.skip("the memory store runs no Cypher")
    base = tmp_path_factory.mktemp(f"cypher-{backend}")
    # two servers for bolt: FalkorDB's Bolt port serves one graph
    make, _ = factory(backend, base / "plos", request, "falkordb_uri")
    make_web, _ = factory(backend, base / "web", request, "examples_falkordb_uri")
    return _stores(make, make_web)


def integral(rows: list[dict], like: list[dict]) -> list[dict]:
    """``rows`` with a whole float made an integer where ``like`` has an
    integer: FalkorDB's ``sum()`` of integers is a float (LadybugDB's and
    Neo4j's an integer)."""
    def fix(v, w):
        return int(v) if isinstance(v, float) and v.is_integer() and type(w) is int else v
    return [{k: fix(v, w.get(k)) for k, v in r.items()} for r, w in zip(rows, like, strict=False)]


def test_the_cookbook_has_its_queries() -> None:
    assert len(QUERIES) >= 15


@pytest.mark.parametrize("i", range(len(QUERIES)))
def test_same_rows_as_the_embedded_store(stores, local_stores, i: int) -> None:
    name, text, params = QUERIES[i]
    if params.get("ids") == "QRELS_TOPIC_1":
        params = {**params, "ids": relevant_ids()}
    got = run_query(stores[name], text, params)
    want = run_query(local_stores[name], text, params)
    assert CYPHER in stores[name].capabilities
    assert json.dumps(integral(got, want), sort_keys=True) == json.dumps(want, sort_keys=True)
    assert want, f"query {i + 1} of docs/query.md returns no row"


PLAIN_VALUES = [
    # a path: its nodes in order, as plain data (FalkorDB gave the driver's repr text)
    ("plos", "MATCH p = (d:Document {name: $doc})-[:ROOT]->(u:Unit)-[:CHILD]->(c:Unit) "
             "RETURN p ORDER BY c.pre LIMIT 2", {"doc": "pmed-1001300"}),
    # nodes inside maps and lists: plain, without the store's own properties
    ("plos", "MATCH (d:Document {name: $doc}) RETURN {doc: d, n: d.count} AS m, [d] AS l",
     {"doc": "pmed-1001300"}),
]


@pytest.mark.parametrize("i", range(len(PLAIN_VALUES)))
def test_paths_and_nodes_in_maps_are_the_same_plain_data(stores, local_stores, i: int) -> None:
    name, text, params = PLAIN_VALUES[i]
    got = run_query(stores[name], text, params)
    want = run_query(local_stores[name], text, params)
    assert want and isinstance(next(iter(want[0].values())), list | dict)
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)


def test_an_undirected_variable_length_pattern_differs_as_docs_query_md_says(
        backend, make_store, tmp_path) -> None:
    """docs/query.md's dialect table: from ``b`` of ``<a><b><c/><c/></b><d/></a>``,
    ``-[:CHILD*1..2]-`` walks on the embedded store (a path may go back along the
    relationship it came by) and takes each relationship at most once on a Bolt
    server.  Expected rows enumerated by hand: one step reaches a, c, c; two
    steps reach d (b-a-d) and, going back, b three times (b-a-b, b-c-b, b-c-b)."""
    if backend == "memory":
        pytest.skip("the memory store runs no Cypher")
    (tmp_path / "x.xml").write_text("<a><b><c/><c/></b><d/></a>")
    store = make_store()
    load_xml(store, [tmp_path / "x.xml"])
    rows = run_query(store, "MATCH (s:Unit {tag: 'b'})-[:CHILD*1..2]-(u:Unit) "
                            "RETURN u.tag AS tag ORDER BY tag")
    walks = ["a", "b", "b", "b", "c", "c", "d"]
    trails = ["a", "c", "c", "d"]
    assert [r["tag"] for r in rows] == (walks if backend == "local" else trails)


@pytest.mark.parametrize("text, rows_of", [
    ("MATCH (d:Document) RETURN count(d) AS n;", "one statement and a final ';'"),
    ("MATCH (d:Document) WHERE d.name <> 'a;b' RETURN count(d) AS n // c;", "';' quoted"),
])
def test_one_statement_with_semicolons_that_separate_nothing_runs(stores, text, rows_of) -> None:
    # (another test of this module may have put its own documents in the Bolt
    # store: the rows are compared with the same query's without the ';')
    plain = "MATCH (d:Document) WHERE d.name <> 'a;b' RETURN count(d) AS n"
    rows = run_query(stores["plos"], plain)
    assert rows and rows[0]["n"] >= 1
    assert run_query(stores["plos"], text) == rows, rows_of


def test_two_statements_are_refused_before_anything_runs(stores) -> None:
    # a store would answer with the last statement's rows only, silently
    # dropping the first's; the count names what the user wrote
    with pytest.raises(UsageError, match="holds 2 statements"):
        run_query(stores["plos"], "MATCH (u:Unit) RETURN count(u) AS n; "
                                  "MATCH (d:Document) RETURN count(d) AS n")


def test_an_aggregate_the_embedded_engine_gets_wrong_is_refused(local_stores) -> None:
    """docs/query.md's dialect table: LadybugDB 0.22 ignores the ORDER BY of
    ``WITH … ORDER BY … LIMIT`` before an aggregate without a grouping key
    (it summed three arbitrary lengths, 29, where the three longest units
    add up to over 300,000).  The store refuses that shape, and answers the
    ones it gets right (a constant key, a count) as the rows themselves add
    up, computed here in Python from the ordered rows."""
    plos = local_stores["plos"]
    lengths = sorted((r["l"] for r in run_query(plos, "MATCH (u:Unit) RETURN u.length AS l")),
                     reverse=True)
    top = "MATCH (u:Unit) WITH u ORDER BY u.length DESC"
    for tail in ("LIMIT 3 RETURN sum(u.length) AS s", "SKIP 1 RETURN max(u.length) AS s",
                 "LIMIT 3 WITH u WHERE u.length > 0 RETURN collect(u.length) AS s",
                 "LIMIT 3 MATCH (u) RETURN avg(u.length) + 0 AS s"):
        with pytest.raises(UsageError, match=r"LadybugDB 0.22.*RETURN 1 AS g"):
            run_query(plos, f"{top} {tail}")
    assert run_query(plos, f"{top} LIMIT 3 RETURN 1 AS g, sum(u.length) AS s") == \
        [{"g": 1, "s": pytest.approx(sum(lengths[:3]))}]
    assert run_query(plos, f"{top} SKIP 1 RETURN 1 AS g, max(u.length) AS s") == \
        [{"g": 1, "s": lengths[1]}]
    for tail in ("LIMIT 5 RETURN count(DISTINCT u.doc) AS s",  # the engine: 1 for 3
                 "LIMIT 3 WHERE u.length > 70000 RETURN count(*) AS s",  # the engine: 0 for 3
                 "LIMIT 5 RETURN histogram(u.length) AS s",
                 "LIMIT 3 RETURN u.uid AS x; MATCH (u:Unit) WITH u ORDER BY u.length DESC "
                 "LIMIT 3 RETURN sum(u.length) AS s"):
        with pytest.raises(UsageError, match=r"LadybugDB 0.22"):
            run_query(plos, f"{top} {tail}") if ";" not in tail else \
                plos.query(f"{top} {tail}")
    with pytest.raises(UsageError, match=r"LadybugDB 0.22"):  # STARTS WITH is no clause
        run_query(plos, "MATCH (u:Unit) WITH u ORDER BY u.uid STARTS WITH 'pmed' DESC, "
                        "u.length DESC LIMIT 3 RETURN sum(u.length) AS s")
    assert run_query(plos, f"{top} LIMIT 3 WITH 1 AS g, count(*) AS n RETURN n") == [{"n": 3}]
    # an aggregation with a key makes rows of its own, which the engine sums right
    assert run_query(plos, f"{top} LIMIT 3 WITH u.uid AS k, sum(u.length) AS s "
                           "RETURN sum(s) AS t") == [{"t": pytest.approx(sum(lengths[:3]))}]
    # statements apart: the first one's LIMIT does not reach the second (the
    # store runs one statement a query: two are refused before anything runs)
    two = ("MATCH (u:Unit) WITH u ORDER BY u.length DESC LIMIT 3 RETURN u.uid; "
           "MATCH (u:Unit) RETURN max(u.length) AS s")
    refuse_ungrouped_after_limit(two)
    with pytest.raises(UsageError, match="several statements"):
        plos.query(two)
    assert run_query(plos, f"{top} LIMIT 3 RETURN u.length AS l") == \
        [{"l": v} for v in lengths[:3]]
    # a string or a name holding the words is no clause
    assert run_query(plos, "MATCH (u:Unit) WHERE u.tag <> 'WITH x ORDER BY y LIMIT 1' "
                           "RETURN max(u.length) AS s") == [{"s": lengths[0]}]
    assert run_query(plos, "MATCH (u:Unit) WITH u AS limit, {skip: 1} AS m "
                           "RETURN max(limit.length) AS s") == [{"s": lengths[0]}]
    # a LIMIT without an ORDER BY asks for no order: any three rows' sum is right
    assert len(run_query(plos, "MATCH (u:Unit) WITH u LIMIT 3 RETURN sum(u.length) AS s")) == 1


def test_a_query_without_rows_keeps_its_columns(stores) -> None:
    """The header of a query that matches nothing: before, ``query -f tsv``
    printed an empty line (no columns are known from no rows)."""
    from typer.testing import CliRunner

    from graphprum.cli import app

    text = "MATCH (u:Unit) WHERE u.words > 100000000 RETURN u.uid, u.words AS n"
    rows = run_query(stores["plos"], text)
    assert rows == [] and rows.columns == ["u.uid", "n"]
    assert run_query(stores["plos"], "MATCH (u:Unit) RETURN u.uid LIMIT 1").columns == ["u.uid"]
    r = CliRunner().invoke(app, ["--store", str(stores["plos"].location), "query", "-f", "csv",
                                 text])
    assert r.exit_code == 0 and r.stdout == "u.uid,n\n", r.output


def test_a_query_without_rows_over_bolt_alone_keeps_its_columns(stores, backend,
                                                                monkeypatch) -> None:
    """As above, through the driver (the way to Neo4j): FalkorDB's Redis
    port turned off."""
    if backend != "bolt":
        pytest.skip("a Bolt store's driver path")
    from graphprum.store import open_store

    monkeypatch.setenv("GRAPHPRUM_FALKORDB_REDIS", "off")
    store = open_store(stores["plos"].location)
    try:
        rows = run_query(store, "MATCH (u:Unit) WHERE u.words > 100000000 "
                                "RETURN u.uid, u.words AS n")
        assert store.conn.redis() is None and rows == [] and rows.columns == ["u.uid", "n"]
    finally:
        store.close()
