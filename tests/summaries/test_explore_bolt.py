
"""The explorer page of a Bolt store (FalkorDB from a fixture) holds the same data as
that of a local store with the same collection, counted by the server: the client
never reads the collection's units."""

from __future__ import annotations

import pytest

from graphprum.errors import StoreError
from graphprum.loading import load_xml
from graphprum.store.local import LocalStore
from graphprum.summaries.explore import EXPLORE_AXPRES, write_explorer
from graphprum.summaries.stored import build_stored
from tests.support import REPO

pytestmark = pytest.mark.bolt
PLOS = REPO / "examples" / "plos"


def test_bolt_page_equals_local_page(tmp_path, bolt_store, monkeypatch):
    local = LocalStore(tmp_path / "local")
    load_xml(local, [PLOS / "articles"])
    bolt = bolt_store()
    load_xml(bolt, [PLOS / "articles"])
    for axpre in EXPLORE_AXPRES:  # the local page builds its own in memory
        build_stored(bolt, axpre)
    asked = []
    read = bolt.conn.read
    monkeypatch.setattr(bolt.conn, "read", lambda name, **kw: asked.append(name)
                        or read(name, **kw))
    pages = [write_explorer(s, "p", tmp_path / f"{i}.html", run=PLOS / "run-sections.txt",
                            qrels=PLOS / "qrels.txt") for i, s in enumerate((local, bolt))]
    for page in pages:
        page.pop("store")
        for s in page["summaries"].values():
            s.pop("stored")
    assert pages[0] == pages[1]
    assert len(pages[0]["summaries"]) == 5 and pages[0]["overlay"]["unknown"] == 0
    assert "summary/page_combinations" in asked  # counted by the server,
    assert not {"read/document_columns", "read/units"} & set(asked)  # no unit pulled


def test_a_server_page_offers_the_stored_summaries(tmp_path, bolt_store):
    """Summaries a server lacks are not built for the page (that would read the
    whole collection); the one asked for must be stored."""
    bolt = bolt_store()
    load_xml(bolt, [PLOS / "articles"])
    with pytest.raises(StoreError, match=r"no p\* summary stored.*summary build p\*"):
        write_explorer(bolt, "p*", tmp_path / "x.html")
    build_stored(bolt, "p")
    page = write_explorer(bolt, "p", tmp_path / "p.html")
    assert list(page["summaries"]) == ["p"] and page["summaries"]["p"]["stored"]
