
"""The explorer page of a Bolt store (FalkorDB from a fixture) holds the same data as
that of a local store with the same collection."""

from __future__ import annotations

import pytest

from graphprum.loading import load_xml
from graphprum.store.local import LocalStore
from graphprum.summaries.explore import write_explorer
from graphprum.summaries.stored import build_stored
from tests.support import REPO

pytestmark = pytest.mark.bolt
PLOS = REPO / "examples" / "plos"


def test_bolt_page_equals_local_page(tmp_path, bolt_store):
    local = LocalStore(tmp_path / "local")
    load_xml(local, [PLOS / "articles"])
    bolt = bolt_store()
    load_xml(bolt, [PLOS / "articles"])
    build_stored(bolt, "p")  # stored as graph nodes; the page builds its own in memory
    pages = [write_explorer(s, "p", tmp_path / f"{i}.html", run=PLOS / "run-sections.txt",
                            qrels=PLOS / "qrels.txt") for i, s in enumerate((local, bolt))]
    for page in pages:
        page.pop("store")
        for s in page["summaries"].values():
            s.pop("stored")
    assert pages[0] == pages[1]
    assert len(pages[0]["summaries"]) == 5 and pages[0]["overlay"]["unknown"] == 0
