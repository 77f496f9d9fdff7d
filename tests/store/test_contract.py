"""Every backend: the same units, trees, links, texts and attributes as the
reference memory store, the same refusals, and loads that are all or nothing."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from graphprum.errors import InputError, UnknownIdError
from graphprum.loading import copy_store, load_links, load_xml
from graphprum.store.base import UNIT_FIELDS, Store
from graphprum.store.memory import MemoryStore
from graphprum.units import KIND_ELEMENT, KIND_PAGE, KIND_SEGMENT, KIND_VIDEO


def sample_ids(store: Store, n: int = 40, seed: int = 0) -> list[str]:
    """Ids spread over every kind of unit of the bundled collections."""
    ids = store.table().ids()
    rng = np.random.default_rng(seed)
    picks = sorted(set(rng.choice(len(ids), size=min(n, len(ids)), replace=False).tolist()))
    return [ids[i] for i in picks] + ["bbb_trailer", "bbb_trailer#3", "library/os.path.html"]


def test_is_a_store(make_store) -> None:
    store = make_store()
    assert isinstance(store, Store)
    assert store.count_units() == 0


def test_documents_and_counts(examples_store: Store, reference: Store) -> None:
    got, want = examples_store.documents(), reference.documents()
    assert got["name"].tolist() == want["name"].tolist()
    assert got["count"].tolist() == want["count"].tolist()
    assert np.allclose(got["length"].to_numpy(float), want["length"].to_numpy(float))
    for kind in (None, KIND_ELEMENT, KIND_PAGE, KIND_SEGMENT, KIND_VIDEO):
        assert examples_store.count_units(kind) == reference.count_units(kind)
    for key in ("documents", "elements", "pages", "videos", "segments", "links",
                "dangling_links"):
        assert examples_store.info()[key] == reference.info()[key], key


def test_info_is_the_same_on_every_store(examples_store: Store, tmp_path) -> None:
    """``info``'s fields, in one order, with the same values on every store
    but those that name the store itself; the degree distributions (what
    the embedded store counts from its link rows) to 1e-12 (before: a Bolt
    store had no ``degrees`` and listed videos before segments)."""
    from graphprum.cli.browse import info_records
    from graphprum.store.local import LocalStore
    from tests.support.stores import load_examples

    own = ("store", "format", "engine", "generation", "database", "bytes_on_disk", "loads")
    local = LocalStore(tmp_path / "s")
    load_examples(local)

    def records(store: Store) -> list[list[object]]:
        return info_records({k: v for k, v in store.info().items() if k not in own})

    got, want = records(examples_store), records(local)
    assert [r[0] for r in got] == [r[0] for r in want]
    assert sum(r[0].startswith("degrees.") for r in want) == 12
    for (key, g), (_, w) in zip(got, want, strict=True):
        if key.startswith("degrees."):
            assert g == pytest.approx(w, rel=1e-12, abs=1e-12), key
        else:
            assert g == w, key


def test_units_fields_texts_attributes(examples_store: Store, reference: Store) -> None:
    ids = sample_ids(reference)
    got = examples_store.units(ids)[UNIT_FIELDS]
    want = reference.units(ids)[UNIT_FIELDS]
    pd.testing.assert_frame_equal(got.reset_index(drop=True), want.reset_index(drop=True),
                                  check_dtype=False)
    assert any(want["attributes"].map(bool)) and any(want["text"].map(bool))


def test_kinds_of_known_and_unknown_ids(examples_store: Store, reference: Store) -> None:
    ids = [*sample_ids(reference), "nowhere", "nowhere#/a[1]", "bbb_trailer#999",
           "pmed-1001300#/article[9]", ""]
    assert examples_store.kinds(ids).tolist() == reference.kinds(ids).tolist()
    assert reference.kinds(ids[-5:]).tolist() == [-1] * 5


def test_tree_reads(examples_store: Store, reference: Store) -> None:
    for uid in ["pmed-1001300#/article[1]/body[1]/sec[1]", "bbb_trailer", "library/os.path.html",
                "pone-0052690"]:
        assert examples_store.children(uid) == reference.children(uid)
        assert examples_store.ancestors(uid) == reference.ancestors(uid)
        pd.testing.assert_frame_equal(examples_store.subtree(uid)[UNIT_FIELDS],
                                      reference.subtree(uid)[UNIT_FIELDS], check_dtype=False)
    with pytest.raises(UnknownIdError):
        examples_store.units(["nowhere#/a[1]"])


def test_links_of(examples_store: Store, reference: Store) -> None:
    for uid in ["library/index.html", "library/os.path.html", "library/tempfile.html"]:
        out, into = examples_store.links_of(uid)
        want_out, want_in = reference.links_of(uid)
        assert sorted(out) == sorted(want_out) and sorted(into) == sorted(want_in)
    assert reference.links_of("library/index.html")[0]


def test_iter_documents_round_trip(examples_store: Store, reference: Store) -> None:
    from graphprum.store.memory import MemoryStore

    copy = MemoryStore()
    copy_store(examples_store, copy)
    ids = sample_ids(reference)
    pd.testing.assert_frame_equal(copy.units(ids)[UNIT_FIELDS],
                                  reference.units(ids)[UNIT_FIELDS], check_dtype=False)
    assert copy.info()["links"] == reference.info()["links"]


def test_duplicate_without_replace_changes_nothing(make_store, write) -> None:
    store = make_store()
    a = write("a.xml", "<a><b>one</b></a>")
    load_xml(store, [a])
    before = store.units(["a#/a[1]", "a#/a[1]/b[1]"])
    write("a.xml", "<a><c>two</c><c/></a>")
    with pytest.raises(InputError, match="already stored"):
        load_xml(store, [a])
    pd.testing.assert_frame_equal(store.units(["a#/a[1]", "a#/a[1]/b[1]"]), before)
    assert load_xml(store, [a], replace=True).replaced == 1
    assert store.children("a") == ["a#/a[1]/c[1]", "a#/a[1]/c[2]"]
    assert store.count_units() == 3


def test_an_unchanged_document_loaded_again_is_refused_and_counted_once(make_store,
                                                                        write) -> None:
    """Loading the same pages again without ``replace`` is refused on every
    store, as a changed one is, and leaves the load history and the link
    statistics as they were (before: a Bolt store loaded 0 documents and
    added the pages' 2 external links again each time)."""
    from graphprum.loading import load_web

    page = '<html><body><a href="https://example.org/x">x</a></body></html>'
    site = write("site/a.html", page).parent
    write("site/b.html", page)
    store = make_store()
    load_web(store, site)
    before = store.info()
    assert before["link_stats"]["external_links"] == 2 and len(before["loads"]) == 1
    for _ in range(2):
        with pytest.raises(InputError, match="already stored; use --replace"):
            load_web(store, site)
    after = store.info()
    assert (after["link_stats"], after["loads"]) == (before["link_stats"], before["loads"])
    assert after["documents"] == before["documents"] == 2


def test_failed_load_is_all_or_nothing(make_store, write) -> None:
    store = make_store()
    load_xml(store, [write("ok/x.xml", "<x>fine</x>")])
    write("more/y.xml", "<y>fine</y>")
    write("more/z.xml", "<z>not closed")
    with pytest.raises(InputError, match=r"z\.xml"):
        load_xml(store, [store_dir := write("more/y.xml", "<y>fine</y>").parent])
    assert store_dir.exists()
    assert store.documents()["name"].tolist() == ["x"]
    assert store.kinds(["y#/y[1]"]).tolist() == [-1]


def test_names_with_control_characters_round_trip(make_store, write) -> None:
    store = make_store()
    name = "odd\rname\x1fwith\u00e9"
    load_xml(store, [write(f"d/{name}.xml", "<a><b>x</b></a>").parent])
    assert store.documents()["name"].tolist() == [name]
    assert store.children(name) == [f"{name}#/a[1]/b[1]"]


def test_link_list_creates_pages(make_store, write) -> None:
    store = make_store()
    report = load_links(store, write("links.tsv",
                                     "a.html\tb.html\nb.html\tc\rd.html\na.html\tb.html\n"))
    assert sorted(store.documents()["name"]) == ["a.html", "b.html", "c\rd.html"]
    assert (report.documents, report.elements) == (3, 3)  # a page is one unit
    assert {k: store.info()["loads"][-1][k] for k in ("documents", "units")} == \
        {"documents": 3, "units": 3}
    out, _ = store.links_of("a.html")
    assert out == ["b.html", "b.html"]
    assert store.links_of("c\rd.html") == ([], ["b.html"])


def test_a_link_list_loaded_again_is_refused(make_store, write) -> None:
    """Its links would count twice (the links model's probabilities change);
    another list, or the same pairs in another file, still load."""
    store = make_store()
    first = write("links.tsv", "a.html\tb.html\na.html\tc.html\n")
    load_links(store, first)
    copy = write("copy/links.tsv", first.read_text())
    for again in (first, copy):
        with pytest.raises(InputError, match=r"loaded into the store already .*nothing to do"):
            load_links(store, again)
    assert store.links_of("a.html")[0] == ["b.html", "c.html"]
    load_links(store, write("more.tsv", "a.html\tb.html\n"))
    assert sorted(store.links_of("a.html")[0]) == ["b.html", "b.html", "c.html"]


def test_a_link_list_loads_again_after_its_pages_were_replaced(make_store, write) -> None:
    """A load that replaced pages may have dropped the links leaving them:
    the list may then be loaded again."""
    from graphprum.loading import load_web

    store = make_store()
    site = write("site/a.html", "<html><body><p>a</p></body></html>").parent
    write("site/b.html", "<html><body><p>b</p></body></html>")
    load_web(store, site)
    links = write("links.tsv", "a.html\tb.html\n")
    load_links(store, links)
    assert store.links_of("a.html")[0] == ["b.html"]
    load_web(store, site, replace=True)
    # the embedded store drops the replaced pages' links; the others keep
    # link-list links
    kept = store.links_of("a.html")[0]
    load_links(store, links)
    assert sorted(store.links_of("a.html")[0]) == sorted([*kept, "b.html"])


def test_a_page_replaced_alone_keeps_its_links_to_stored_pages(make_store, write) -> None:
    """`load web DIR --replace` where DIR holds the changed page only: its
    links to pages the store holds are links (old code: counted as "to
    missing files", the page left without its out-links), as a load of the
    whole changed site gives them."""
    from graphprum.loading import load_web

    def site(name: str, a_page: str) -> Path:
        root = write(f"{name}/a.html", a_page).parent
        write(f"{name}/sub/b.html", '<html><body><a href="../a.html">a</a></body></html>')
        write(f"{name}/c.html", "<html><body><p>c</p></body></html>")
        return root

    old = '<html><body><a href="sub/b.html">b</a></body></html>'
    new = ('<html><body><a href="sub/b.html">b</a><a href="c.html">c</a>'
           '<a href="/sub/b.html">b</a><a href="gone.html">x</a></body></html>')
    store, whole = make_store(), MemoryStore()  # a server's stores share one graph
    load_web(store, site("first", old))
    changed = write("changed/a.html", new).parent
    report = load_web(store, changed, replace=True)
    load_web(whole, site("second", new))
    assert sorted(store.links_of("a.html")[0]) == sorted(whole.links_of("a.html")[0]) \
        == ["c.html", "sub/b.html", "sub/b.html"]
    assert store.links_of("sub/b.html")[0] == ["a.html"]
    assert report.extra["links_to_missing_files"] == 1  # gone.html only


def test_the_links_not_stored_are_counted_once_per_document(make_store, write) -> None:
    """``info``'s counts of the links a load found and did not store (here
    per page: 1 external, 1 within the page) are sums over loads: a load
    that names every stored page again (replaced, or stored unchanged) gives
    its own counts, not double them (before: 4 external after a replace of 2
    pages); one naming only some keeps the sums and says how many pages its
    counts may hold twice; a copy keeps them."""
    from graphprum.loading import load_web

    page = ('<html><body><a href="https://example.org/x">x</a>'
            '<a href="#top">top</a></body></html>')
    site = write("site/a.html", page).parent
    write("site/b.html", page)
    write("more/c.html", page)
    store = make_store()
    load_web(store, site)
    once = {"external_links": 2, "links_within_page": 2}
    assert {k: store.info()["link_stats"].get(k) for k in once} == once
    load_web(store, site, replace=True)
    assert store.info()["link_stats"] == {**store.info()["link_stats"], **once}
    assert "documents_recounted" not in store.info()["link_stats"]
    load_web(store, write("more/c.html", page).parent)
    stats = store.info()["link_stats"]
    assert (stats["external_links"], stats.get("documents_recounted")) == (3, None)
    load_web(store, site, replace=True)  # 2 of 3 pages again
    stats = store.info()["link_stats"]
    assert (stats["external_links"], stats["documents_recounted"]) == (5, 2)
    other = MemoryStore()  # (a second store of the server would clear this one's graph)
    copy_store(store, other)
    assert other.info()["link_stats"]["external_links"] == 5


def test_links_and_summaries_are_listed_in_one_order_on_every_store(make_store, write,
                                                                     reference) -> None:
    """``show``'s lists: in-links by the holding unit's place in the
    collection (document order), out-links by the holding unit's place in
    the subtree, then load order; summaries by name.  A link list's link,
    loaded last, from the first page: before, the server listed it last,
    the embedded store first."""
    from graphprum.loading import load_web
    from graphprum.summaries.stored import build_stored

    site = write("site/a.html", '<html><body><a href="c.html">c</a></body></html>').parent
    write("site/b.html", '<html><body><a href="c.html">c</a><a href="a.html">a</a></body>'
                         '</html>')
    write("site/c.html", "<html><body><p>c</p></body></html>")
    store = make_store()
    load_web(store, site)
    load_links(store, write("more.tsv", "b.html\tc.html\na.html\tc.html\n"))
    assert store.links_of("c.html")[1] == ["a.html", "a.html", "b.html", "b.html"]
    assert store.links_of("b.html")[0] == ["c.html", "a.html", "c.html"]
    load_xml(store, [write("xml/d.xml", "<a><b/><b><c/></b></a>").parent])
    for name in ("p*", "c"):
        build_stored(store, name)
    assert store.summary_names() == ["c", "p*"]
