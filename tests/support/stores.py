"""Stores for the conformance suite (``tests/store/``): empty stores of each
backend, and the bundled collections loaded into one."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from pathlib import Path

from graphprum.loading import load_video, load_web, load_xml
from graphprum.store.base import Store
from graphprum.store.local import LocalStore
from graphprum.store.memory import MemoryStore
from tests.support import EXAMPLES


def factory(backend: str, base: Path, request, server: str = "falkordb_uri"
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



def load_examples(store: Store) -> None:
    """The bundled collections: PLOS articles, the Python docs site, the trailer."""
    load_xml(store, [EXAMPLES / "plos" / "articles"])
    load_web(store, EXAMPLES / "web" / "site")
    load_video(store, [EXAMPLES / "video" / "bbb_trailer.srt"])
