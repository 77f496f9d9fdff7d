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
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from graphprum.store.base import Store
from graphprum.store.memory import MemoryStore
from tests.support.falkordb import falkordb_server
from tests.support.stores import factory, load_examples

BACKENDS = ["memory", "local", "bolt"]


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
    with falkordb_server(tmp_path_factory.mktemp("falkordb-examples")) as uri:
        yield uri


@pytest.fixture(params=BACKENDS, scope="module")
def backend(request) -> str:
    """The name of the backend under test."""
    return request.param


@pytest.fixture
def make_store(backend: str, tmp_path: Path, request) -> Iterator[Callable[[], Store]]:
    """A factory of empty stores of ``backend``."""
    make, opened = factory(backend, tmp_path, request)
    yield make
    for s in opened:
        s.close()


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
    make, opened = factory(backend, tmp_path_factory.mktemp(backend), request,
                            "examples_falkordb_uri")
    store = make()
    load_examples(store)
    yield store
    for s in opened:
        s.close()
