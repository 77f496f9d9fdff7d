"""Web site loader: link resolution case by case, anchors, units and offsets.

Expected targets are written out by hand from how a browser resolves a URL
(RFC 3986 reference resolution, then the site's files); offsets are checked
against XPath text nodes and ``''.join(root.itertext())`` computed here.
"""

from __future__ import annotations

from pathlib import Path

import lxml.html
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphprum.errors import InputError
from graphprum.loaders.web import SiteStats, load_site
from graphprum.units import KIND_ELEMENT, KIND_PAGE, ParsedDocument, UnitTable

SITE = {
    "index.html": "<title>Home</title><p>home",
    "a/x.html": "<p>the page under test",  # rewritten per test
    "a/b.html": "<p>b",
    "a/my page.html": "<p>spaced",
    "a/café.html": "<p>accent",
    "a/sub/index.html": "<p>sub index",
    "a/old/index.htm": "<p>old index",
    "a/noindex/page.html": "<p>no index here",
    "a/img.png": "not a page",
    "c.html": "<p>c",
    "other/d.HTML": "<p>d upper-case extension",
}


def make_site(root: Path, page: str) -> None:
    for name, text in {**SITE, "a/x.html": page}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def links_of(root: Path, href: str, head: str = "") -> tuple[list[str], SiteStats]:
    """Targets stored for one ``<a href>`` on a/x.html, and the stats."""
    make_site(root, f'<html><head>{head}</head><body><a href="{href}">t</a></body></html>')
    site = load_site(root)
    docs = {d.name: d for d in site}
    return [t for _, t, _ in docs["a/x.html"].links], site.stats


@pytest.mark.parametrize(("href", "expected"), [
    ("b.html", "a/b.html"),  # relative, same directory
    ("../c.html", "c.html"),  # parent
    ("./b.html", "a/b.html"),  # current directory
    ("sub/../b.html", "a/b.html"),  # .. inside the path
    ("./sub/./index.html", "a/sub/index.html"),
    ("sub/", "a/sub/index.html"),  # directory -> index.html
    ("sub", "a/sub/index.html"),  # directory named without '/': a browser is redirected
    ("old/", "a/old/index.htm"),  # index.htm when there is no index.html
    ("./", None),  # its own directory has no index: a/ has none
    ("../", "index.html"),  # the root directory
    ("/", "index.html"),  # absolute path = site root
    ("/a/b.html", "a/b.html"),
    ("b.html#section", "a/b.html"),  # fragment stripped
    ("b.html?q=1&r=2", "a/b.html"),  # query stripped
    ("b.html?q=1#frag?x", "a/b.html"),
    ("my%20page.html", "a/my page.html"),  # percent-encoding decoded
    ("caf%C3%A9.html", "a/café.html"),  # UTF-8 escapes
    ("café.html", "a/café.html"),
    ("%2E%2E/c.html", "c.html"),  # an encoded '..' is '..' in a browser
    ("  b.html\n", "a/b.html"),  # surrounding whitespace stripped
    ("sub\\index.html", "a/sub/index.html"),  # backslash read as '/'
    ("../other/d.HTML", "other/d.HTML"),  # extension case-insensitive
    ("/../c.html", "c.html"),  # from the root: '..' stays there, as in a browser
    ("/../../a/b.html", "a/b.html"),
])
def test_resolved_link(tmp_path: Path, href: str, expected: str | None) -> None:
    got, stats = links_of(tmp_path, href)
    if expected is None:
        assert got == [] and stats.missing == 1
    else:
        assert got == [expected]
        assert stats.links == 1 and stats.dropped == 0


@pytest.mark.parametrize(("href", "counter"), [
    ("http://example.com/a/b.html", "external"),  # absolute http URL
    ("https://example.com/", "external"),
    ("HTTP://EXAMPLE.COM/", "external"),
    ("//cdn.example.com/a/b.html", "external"),  # network path: another host
    ("mailto:someone@example.com", "external"),
    ("javascript:void(0)", "external"),
    ("ftp://example.com/file", "external"),
    ("file:///etc/passwd", "external"),
    ("missing.html", "missing"),  # inside the site, no such file
    ("sub/missing.html", "missing"),
    ("noindex/", "missing"),  # directory without index
    ("my%2Fpage.html", "missing"),  # encoded '/' is part of a name
    ("../../outside.html", "outside"),  # escapes the root
    ("../../a/b.html", "outside"),  # climbs out even if it would come back
    ("img.png", "non_page"),  # an existing file that is not a page
    ("#top", "same_page"),  # fragment only
    ("", "same_page"),  # empty href: the page itself
    ("?sort=asc", "same_page"),
    ("x.html#top", "same_page"),  # its own file name
    ("../a/x.html", "same_page"),
])
def test_dropped_link(tmp_path: Path, href: str, counter: str) -> None:
    got, stats = links_of(tmp_path, href)
    assert got == []
    assert getattr(stats, counter) == 1
    assert stats.dropped == 1 and stats.links == 0


@pytest.mark.parametrize(("base", "href", "expected", "counter"), [
    ("../other/", "d.HTML", "other/d.HTML", None),  # relative base, resolved against the page
    ("/other/", "d.HTML", "other/d.HTML", None),
    ("sub/index.html", "../b.html", "a/b.html", None),  # base naming a file: its directory
    ("sub/", "", "a/sub/index.html", None),  # empty href: the base itself
    ("sub/", "#x", "a/sub/index.html", None),  # a fragment is resolved against the base too
    ("sub/", "/c.html", "c.html", None),
    ("http://example.com/", "b.html", None, "external"),  # external base
    ("http://example.com/", "/c.html", None, "external"),
    ("../../", "b.html", None, "outside"),  # base above the root
])
def test_base_href(tmp_path: Path, base: str, href: str, expected: str | None,
                   counter: str | None) -> None:
    got, stats = links_of(tmp_path, href, head=f'<base href="{base}">')
    if expected is not None:
        assert got == [expected]
    else:
        assert got == [] and getattr(stats, counter) == 1


def test_only_first_base_counts(tmp_path: Path) -> None:
    got, _ = links_of(tmp_path, "d.HTML",
                      head='<base target="_top"><base href="../other/"><base href="sub/">')
    assert got == ["other/d.HTML"]


def test_anchor_text_multiplicity_and_order(tmp_path: Path) -> None:
    page = ('<p><a href="b.html">First  link</a> text <a href="../c.html">c</a>'
            '<a href="b.html#again">second <b>bold</b>\n  words</a>'
            '<a name="target">no href</a>'
            '<map><area href="b.html" alt=" map  area "></map>'
            '<a href="b.html"></a>')
    make_site(tmp_path, page)
    site = load_site(tmp_path)
    doc = {d.name: d for d in site}["a/x.html"]
    assert doc.links == [
        (0, "a/b.html", "First link"),
        (0, "c.html", "c"),
        (0, "a/b.html", "second bold words"),
        (0, "a/b.html", "map area"),
        (0, "a/b.html", ""),
    ]
    assert site.stats.links == 5
    assert site.stats.links_by_page == {"a/x.html": 5}


def test_broken_markup(tmp_path: Path) -> None:
    # unclosed tags, unquoted attributes, stray end tags, a '<' in text, bad entity
    page = ('<html><body><div><p>one <a href=b.html>unquoted <i>open'
            '</div></span><p>two & three < four <a href=\'../c.html\'>c</a>'
            '<table><tr><td><a href="sub/">cell</a></table> &bogus; end')
    make_site(tmp_path, page)
    site = load_site(tmp_path)
    doc = {d.name: d for d in site}["a/x.html"]
    assert [t for _, t, _ in doc.links] == ["a/b.html", "c.html", "a/sub/index.html"]
    assert doc.links[1][2] == "c" and doc.links[2][2] == "cell"
    text = doc.columns["length"][0]
    assert text > 0 and site.stats.pages == len([n for n in SITE if ".htm" in n.lower()])


def test_page_unit(tmp_path: Path) -> None:
    page = ('<!DOCTYPE html><html><head><title>T</title><style>p{}</style></head>'
            '<body><p>Hello <b>world</b></p><!-- a comment -->\ttail &amp; more</body></html>')
    make_site(tmp_path, page)
    doc = {d.name: d for d in load_site(tmp_path)}["a/x.html"]
    # text content, by hand: title, style text, body text; comment text excluded
    text = "T" + "p{}" + "Hello " + "world" + "\ttail & more"
    assert doc.kind == KIND_PAGE and doc.tags == ["page"] and doc.paths == ["/page"]
    assert doc.columns["length"].tolist() == [len(text)]
    assert doc.columns["words"].tolist() == [5]  # "Tp{}Hello" "world" "tail" "&" "more"
    assert doc.columns["parent"].tolist() == [-1]
    assert doc.columns["kind"].tolist() == [KIND_PAGE]
    assert doc.columns["size"].tolist() == [1] and doc.columns["start"].tolist() == [0.0]
    for col in ("parent", "depth", "post", "size", "pos", "start", "length", "words", "kind"):
        assert len(doc.columns[col]) == 1


def test_page_ids_and_stats(tmp_path: Path) -> None:
    make_site(tmp_path, '<a href="b.html">1</a><a href="http://x.org">2</a>'
                        '<a href="nope.html">3</a><a href="#">4</a>')
    seen: list[tuple[str, int]] = []
    site = load_site(tmp_path, progress=lambda p, n: seen.append((p, n)))
    names = [d.name for d in site]
    expected = sorted(n for n in SITE if n.lower().endswith((".html", ".htm")))
    assert names == expected  # every page, POSIX relative path, extension kept
    assert seen == [(n, 1) for n in expected]
    s = site.stats
    assert (s.pages, s.units, s.links, s.external, s.missing, s.same_page) == \
        (len(expected), len(expected), 1, 1, 1, 1)


def test_bad_root(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such directory"):
        load_site(tmp_path / "nope")
    (tmp_path / "only.txt").write_text("x")
    with pytest.raises(InputError, match=r"no \.html/\.htm file"):
        load_site(tmp_path)


def test_empty_and_latin1_pages(tmp_path: Path) -> None:
    (tmp_path / "empty.html").write_bytes(b"")
    (tmp_path / "latin.html").write_bytes(
        b'<meta charset="iso-8859-1"><p>caf\xe9</p>')
    (tmp_path / "utf8.html").write_bytes("<p>café</p>".encode())
    docs = {d.name: d for d in load_site(tmp_path)}
    assert docs["empty.html"].columns["length"].tolist() == [0.0]
    assert docs["latin.html"].columns["length"].tolist() == [4.0]  # 'café'
    assert docs["utf8.html"].columns["length"].tolist() == [4.0]


# ---------------------------------------------------------------- --elements

def expected_units(path: Path) -> list[tuple[str, int, int, int]]:
    """(xpath, start, length, words) of every element, computed with XPath here."""
    root = lxml.html.parse(str(path)).getroot()
    out = []
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        steps = []
        node = el
        while node is not None:
            n = int(node.xpath(f"count(preceding-sibling::{node.tag})")) + 1
            steps.append(f"{node.tag}[{n}]")
            node = node.getparent()
        start = sum(len(t) for t in el.xpath("preceding::text()"))
        inner = "".join(el.xpath(".//text()"))
        out.append(("/" + "/".join(reversed(steps)), start, len(inner), len(inner.split())))
    return out


def table_of(doc: ParsedDocument) -> UnitTable:
    """A one-document UnitTable from a ParsedDocument (to read its ids)."""
    cols = dict(doc.columns)
    tag_vocab = sorted(set(doc.tags))
    path_vocab = sorted(set(doc.paths))
    cols["doc"] = np.zeros(len(doc.tags), dtype=np.int32)
    cols["tag"] = np.array([tag_vocab.index(t) for t in doc.tags], dtype=np.int32)
    cols["path"] = np.array([path_vocab.index(p) for p in doc.paths], dtype=np.int32)
    docs = pd.DataFrame({"name": [doc.name], "source": [doc.source], "kind": [doc.kind],
                         "length": [doc.length], "first": [0], "count": [len(doc.tags)]})
    return UnitTable(cols, tag_vocab, path_vocab, docs)


ELEMENT_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>os — Miscellaneous</title></head>
<body>
<div class="nav"><a href="../index.html">Home</a> | <a href="b.html">B</a></div>
<!-- a comment with <b>markup</b> -->
<div id="main"><h1>os<a class="headerlink" href="#os">¶</a></h1>
<p>The <code>os</code> module — see <a href="sub/">the <em>sub</em> pages</a>.</p>
<?php echo 1 ?>
<p>Second paragraph with a <br> break &amp; entity, and <a href="b.html">B again</a>.</p>
<ul><li>one</li><li>two<li>three (unclosed)</ul>
</div>
<script>var x = "<p>not an element</p>";</script>
</body></html>
"""


def test_elements_ids_offsets_and_links(tmp_path: Path) -> None:
    make_site(tmp_path, ELEMENT_PAGE)
    doc = {d.name: d for d in load_site(tmp_path, elements=True)}["a/x.html"]
    path = tmp_path / "a" / "x.html"
    expected = expected_units(path)
    table = table_of(doc)
    ids = table.ids()
    assert doc.kind == KIND_ELEMENT and set(doc.columns["kind"].tolist()) == {KIND_ELEMENT}
    assert ids[0] == "a/x.html#/html[1]"
    assert ids == [f"a/x.html#{xp}" for xp, _, _, _ in expected]
    assert doc.columns["start"].astype(int).tolist() == [s for _, s, _, _ in expected]
    assert doc.columns["length"].astype(int).tolist() == [n for _, _, n, _ in expected]
    assert doc.columns["words"].tolist() == [w for _, _, _, w in expected]
    # offsets index the page's text content, ''.join(root.itertext())
    root = lxml.html.parse(str(path)).getroot()
    text = "".join(root.itertext())
    assert doc.length == len(text)
    for el, s, n in zip((e for e in root.iter() if isinstance(e.tag, str)),
                        doc.columns["start"].astype(int), doc.columns["length"].astype(int),
                        strict=True):
        assert text[s:s + n] == "".join(el.itertext())
    # the links leave from their <a> elements; in-page '#os' is not stored
    got = [(ids[row], target, anchor) for row, target, anchor in doc.links]
    assert got == [
        ("a/x.html#/html[1]/body[1]/div[1]/a[1]", "index.html", "Home"),
        ("a/x.html#/html[1]/body[1]/div[1]/a[2]", "a/b.html", "B"),
        ("a/x.html#/html[1]/body[1]/div[2]/p[1]/a[1]", "a/sub/index.html", "the sub pages"),
        ("a/x.html#/html[1]/body[1]/div[2]/p[2]/a[1]", "a/b.html", "B again"),
    ]
    # structure columns agree with the ids' tree
    parent = doc.columns["parent"]
    for row in range(1, len(ids)):
        assert ids[row].rsplit("/", 1)[0] == ids[parent[row]]
        assert doc.columns["depth"][row] == doc.columns["depth"][parent[row]] + 1
    size = doc.columns["size"]
    for row in range(len(ids)):
        inside = [r for r in range(len(ids)) if ids[r] == ids[row] or
                  ids[r].startswith(ids[row] + "/")]
        assert inside == list(range(row, row + size[row]))
    post = doc.columns["post"]
    assert sorted(post.tolist()) == list(range(len(ids)))
    for row in range(1, len(ids)):
        assert post[row] < post[parent[row]]


tags = st.sampled_from(["div", "p", "span", "b", "i", "section"])
words = st.text(alphabet="ab \n\té&", min_size=0, max_size=6)


@st.composite
def fragments(draw: st.DrawFn, depth: int = 0) -> str:
    parts = []
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.integers(0, 3 if depth < 3 else 1))
        text = draw(words).replace("&", "&amp;")
        if kind == 0:
            parts.append(text)
        elif kind == 1:
            parts.append(f"<!--{text}-->")
        else:
            tag = draw(tags)
            parts.append(f"<{tag}>{draw(fragments(depth + 1))}</{tag}>{text}")
    return "".join(parts)


@settings(max_examples=60, deadline=None)
@given(body=fragments())
def test_elements_offsets_property(tmp_path_factory: pytest.TempPathFactory, body: str) -> None:
    root = tmp_path_factory.mktemp("site")
    path = root / "p.html"
    path.write_text(f'<html><head><meta charset="utf-8"></head><body>{body}</body></html>',
                    encoding="utf-8")
    doc = next(iter(load_site(root, elements=True)))
    expected = expected_units(path)
    assert table_of(doc).ids() == [f"p.html#{xp}" for xp, _, _, _ in expected]
    assert [(int(s), int(n), int(w)) for s, n, w in zip(
        doc.columns["start"], doc.columns["length"], doc.columns["words"], strict=True)] == \
        [(s, n, w) for _, s, n, w in expected]


def test_element_pages_hold_their_links_and_fragments_name_elements(tmp_path: Path) -> None:
    """With --elements a page's root holds every link of the page (the page
    stands for itself), and a link's #fragment arrives at the element it
    names; loaded as pages, the fragment is dropped."""
    from graphprum.loading import load_web
    from graphprum.navigation.base import parse_model
    from graphprum.store.memory import MemoryStore

    (tmp_path / "a.html").write_text('<html><body><div><p>See <a href="b.html#s">b</a>'
                                     '</p></div></body></html>')
    (tmp_path / "b.html").write_text('<html><body><p>top</p><div id="s">here</div>'
                                     '<a name="old">x</a></body></html>')
    (tmp_path / "c.html").write_text('<html><body><a href="b.html#old">o</a>'
                                     '<a href="b.html#none">n</a></body></html>')
    from graphprum.store.local import LocalStore

    for other in (MemoryStore(), LocalStore(tmp_path.parent / f"{tmp_path.name}-store")):
        load_web(other, tmp_path, elements=True)
        assert other.links_of("a.html#/html[1]")[0] == ["b.html#/html[1]/body[1]/div[1]"]
        assert other.links_of("c.html#/html[1]")[0] == [
            "b.html#/html[1]/body[1]/a[1]", "b.html#/html[1]"]  # no such id: the root
        store = other

    class Ctx:
        pass

    Ctx.store = store
    p = parse_model("links").matrix(["a.html#/html[1]", "a.html#/html[1]/body[1]/div[1]/p[1]"],
                                    ["b.html#/html[1]/body[1]/div[1]"], Ctx()).toarray()
    assert p.tolist() == [[1.0], [1.0]]
    pages = MemoryStore()
    load_web(pages, tmp_path)
    assert pages.links_of("a.html")[0] == ["b.html"]


def test_an_attribute_name_with_a_control_character_loads(tmp_path: Path) -> None:
    """HTML's parser takes ``<p a\\x01b="1">``; with ``--elements`` the page
    loads with the attribute as written (old code: lxml refused to read it
    back by name, and the load failed without naming the file)."""
    from graphprum.loading import load_web
    from graphprum.store.local import LocalStore

    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "x.html").write_text('<html><body><p a\x01b="1">t</p></body></html>')
    store = LocalStore(tmp_path / "s")
    load_web(store, tmp_path / "site", elements=True)
    got = [a for d in store.iter_documents() for _, a in d.attributes]
    assert got == [{"a\x01b": "1"}]
