"""FalkorDB leaves the connection after a GOODBYE unanswered.  Such a
connection costs the first question a few seconds, not the whole bound and an
error: the question is asked again on a new connection (a minimal Bolt 5.4
listener on 127.0.0.1 here); and the store's driver says no GOODBYE when one
of its connections fails (a real FalkorDB)."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import struct
import threading
import time
from collections.abc import Iterator

import pytest

from graphprum.errors import ServerError
from graphprum.store.bolt import connection as bc
from graphprum.store.bolt import driver as bd

HELLO, LOGON, RUN, PULL, RESET, GOODBYE = 0x01, 0x6A, 0x10, 0x3F, 0x0F, 0x02


def packed(value: object) -> bytes:
    """PackStream of the few values the listener sends."""
    if isinstance(value, str):
        data = value.encode()
        return (bytes([0x80 + len(data)]) if len(data) < 16 else bytes([0xD0, len(data)])) + data
    if isinstance(value, list):
        return bytes([0x90 + len(value)]) + b"".join(packed(v) for v in value)
    if isinstance(value, dict):
        return bytes([0xA0 + len(value)]) + b"".join(packed(k) + packed(v)
                                                     for k, v in value.items())
    raise TypeError(value)


def message(signature: int, *fields: object) -> bytes:
    body = bytes([0xB0 + len(fields), signature]) + b"".join(packed(f) for f in fields)
    return struct.pack(">H", len(body)) + body + b"\x00\x00"


def read_message(conn: socket.socket) -> int | None:
    """The signature of the next client message, None at end of stream."""
    body = b""
    while True:
        head = conn.recv(2, socket.MSG_WAITALL)
        if len(head) < 2:
            return None
        size = struct.unpack(">H", head)[0]
        if size == 0:
            return body[1] if len(body) > 1 else None
        body += conn.recv(size, socket.MSG_WAITALL)


class Listener:
    """Answers Bolt like a Neo4j server, except that the first connection
    to send a query never hears back after that (``silent`` of them)."""

    def __init__(self, silent: int) -> None:
        self.silent = silent
        self.queries = 0  # queries answered
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.open.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn, contextlib.suppress(OSError):  # closed at the end of the test
            if len(conn.recv(20, socket.MSG_WAITALL)) < 20:
                return
            conn.sendall(b"\x00\x00\x04\x05")
            mute = False
            while (sig := read_message(conn)) not in (None, GOODBYE):
                if sig == RUN and self.silent > 0 and not mute:
                    self.silent -= 1
                    mute = True
                if mute:
                    continue
                if sig == HELLO:
                    conn.sendall(message(0x70, {"server": "Neo4j/5.13.0",
                                                "connection_id": "bolt-1"}))
                elif sig == RUN:
                    conn.sendall(message(0x70, {"fields": ["name"]}))
                elif sig == PULL:
                    self.queries += 1
                    conn.sendall(message(0x71, ["Neo4j Kernel"]) + message(0x70, {}))
                else:  # LOGON, RESET, BEGIN, COMMIT
                    conn.sendall(message(0x70, {}))

    def close(self) -> None:
        self.sock.close()
        for conn in self.open:
            conn.close()


@pytest.fixture
def listener(request, monkeypatch) -> Iterator[Listener]:
    monkeypatch.setenv("GRAPHPRUM_FALKORDB_REDIS", "off")
    for var in ("NEO4J_USERNAME", "NEO4J_PASSWORD", "NEO4J_DATABASE"):
        monkeypatch.delenv(var, raising=False)
    server = Listener(silent=request.param)
    yield server
    server.close()


@pytest.mark.parametrize("listener", [1], indirect=True)
def test_an_unanswered_connection_is_asked_again(listener, monkeypatch) -> None:
    """The question is answered on the second connection, after
    ASK_SECONDS (it waited the whole ANSWER_SECONDS and failed before)."""
    monkeypatch.setattr(bd, "ANSWER_SECONDS", 6.0)
    monkeypatch.setattr(bd, "ASK_SECONDS", 1.0)
    start = time.monotonic()
    conn = bc.BoltConnection(f"bolt://127.0.0.1:{listener.port}")
    took = time.monotonic() - start
    try:
        assert conn.backend == "neo4j"  # the server's answer, not the fallback
        assert listener.queries == 1 and listener.silent == 0
        assert 1.0 <= took < 4.0
    finally:
        conn.close()


@pytest.mark.parametrize("listener", [100], indirect=True)
def test_a_server_that_never_answers_is_still_reported(listener, monkeypatch) -> None:
    """Every connection silent (a server busy with an earlier query): the
    error after ANSWER_SECONDS says so, as before."""
    monkeypatch.setattr(bd, "ANSWER_SECONDS", 2.5)
    monkeypatch.setattr(bd, "ASK_SECONDS", 1.0)
    start = time.monotonic()
    with pytest.raises(ServerError, match=r"did not answer within 2\.5 s; is it still running "
                                          r"an earlier query\?"):
        bc.BoltConnection(f"bolt://127.0.0.1:{listener.port}")
    assert 2.5 <= time.monotonic() - start < 5.0
    assert listener.queries == 0 and 2 <= 100 - listener.silent <= 3  # the last ask is short


def test_a_dropped_connection_drops_no_more(bolt_store, falkordb_uri, caplog) -> None:
    """One GOODBYE (another client's) drops the next connection; the driver
    then closed its idle connections with GOODBYE (its pool's
    ``deactivate``: 2 here), each dropping a later connection of whichever
    client came next.  The store's connections close without it."""
    if os.environ.get("GRAPHPRUM_TEST_BOLT_URI"):
        pytest.skip("FalkorDB's Bolt port only")
    import neo4j

    from graphprum.store.bolt.driver import close_driver

    store = bolt_store()
    driver = store.conn._bolt()

    def ask(drv: neo4j.Driver) -> str:
        try:
            with drv.session() as s:
                s.run("RETURN 1").consume()
            return "ok"
        except neo4j.exceptions.ServiceUnavailable:
            return "dropped"

    with driver.session() as a, driver.session() as b, driver.session() as c:
        for s in (a, b, c):  # three connections, idle after
            s.run("RETURN 1").consume()
    other = neo4j.GraphDatabase.driver(falkordb_uri, connection_acquisition_timeout=2.0)
    ask(other)
    other.close()  # GOODBYE: the next connection is not answered
    caplog.set_level(logging.DEBUG, logger="neo4j")
    answers: list[str] = []
    threads = [threading.Thread(target=lambda: answers.append(ask(driver))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # the fourth needed a new connection: dropped (unless another took the GOODBYE's place)
    assert answers.count("ok") >= 3
    assert "C: GOODBYE" not in caplog.text
    fresh = []
    for _ in range(3):
        probe = neo4j.GraphDatabase.driver(falkordb_uri, connection_acquisition_timeout=2.0)
        fresh.append(ask(probe))
        close_driver(probe, "falkordb")
    assert fresh == ["ok"] * 3
