
"""The explorer page of a Bolt store (FalkorDB from a fixture) holds the same data as
that of a local store with the same collection, counted by the server: the client
never reads the collection's units."""

from __future__ import annotations

import pytest

from graphprum.errors import StoreError
from graphprum.loading import load_xml
from graphprum.store.local import LocalStore
from graphprum.summaries.axpre import build_summary
from graphprum.summaries.explore import EXPLORE_AXPRES, server_counts, table_counts, write_explorer
from graphprum.summaries.stored import build_stored, stored_summary
from tests.support import REPO
from tests.support.explore_recount import recount

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
    assert "summary/page_determined" in asked  # counted by the server, per p*|c partition
    assert not {"read/document_columns", "read/units"} & set(asked)  # no unit pulled
    # every summary kept its samples when built; p*|c determines the others: no scan
    assert not {"summary/page_samples", "summary/page_combinations"} & set(asked)


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


def test_what_determines_what_holds_on_plos(tmp_path):
    """DETERMINES, recounted with lxml (and for c*, built in memory): the
    elements of one partition of a summary lie in one partition of each
    summary it names."""
    from graphprum.store.bolt.summaries import DETERMINES

    keys = recount(PLOS / "articles").keys
    local = LocalStore(tmp_path / "local")
    load_xml(local, [PLOS / "articles"])
    built = {name: build_summary(local.table(), name).membership.tolist()
             for name in ("c*", "c", "label")}  # in table order, not the recount's
    checked = 0
    for finer, coarser in DETERMINES.items():
        of = built if finer == "c*" else keys
        for other in coarser:
            one: dict[object, set[object]] = {}
            for k, o in zip(of[finer], of[other], strict=True):
                one.setdefault(k, set()).add(o)
            assert max(map(len, one.values())) == 1, (finer, other)
            checked += 1
    assert checked == 10


@pytest.mark.parametrize("axpres, scans", [(("p", "c"), True), (("label", "p*|c"), False)])
def test_server_counts_equal_table_counts(tmp_path, bolt_store, monkeypatch, axpres, scans):
    """With summaries none of which determines all others (p, c), the server
    counts the combinations element by element; either way, and with the
    samples kept at build time (read with the partitions), picked anew
    (another number of samples) or missing (a summary built before
    partitions kept them), the counts are those of the local table."""
    local = LocalStore(tmp_path / "local")
    load_xml(local, [PLOS / "articles"])
    bolt = bolt_store()
    load_xml(bolt, [PLOS / "articles"])
    for axpre in axpres:
        build_stored(bolt, axpre)
    mine = {a: build_summary(local.table(), a) for a in axpres}
    theirs = {a: stored_summary(bolt, a) for a in axpres}
    asked = []
    read = bolt.conn.read
    monkeypatch.setattr(bolt.conn, "read", lambda name, **kw: asked.append(name)
                        or read(name, **kw))
    assert server_counts(bolt, theirs) == table_counts(local.table(), mine)
    assert ("summary/page_combinations" in asked) == scans
    assert "summary/page_samples" not in asked
    assert server_counts(bolt, theirs, samples=2) == table_counts(local.table(), mine, samples=2)
    assert "summary/page_samples" in asked
    bolt.conn.write_text("MATCH (s:Summary {axpre: $axpre}) SET s.samples = null",
                         axpre=axpres[0])
    asked.clear()
    theirs = {a: stored_summary(bolt, a) for a in axpres}
    assert server_counts(bolt, theirs) == table_counts(local.table(), mine)
    assert "summary/page_samples" in asked
