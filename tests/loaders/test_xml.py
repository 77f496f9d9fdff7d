"""XML loading: ids, offsets, lengths and words checked against independent
computations with lxml (tree walks written here, not the loader's code)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

from graphprum.errors import InputError
from graphprum.loaders.xml import parse_xml_file
from graphprum.loaders.xml_files import find_xml_files
from graphprum.loading import load_xml
from graphprum.store.local import LocalStore

TRICKY = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE article [ <!ENTITY co "Company"> ]>
<?top-pi before root?>
<article xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns="http://example.org/default">
  <dc:title>A  title with &amp; and &co;</dc:title>
  <!-- a comment that is not text -->
  <sec>Mixed <b>bold</b> and <i>italic</i> text<?pi inside?> tail after pi</sec>
  <sec><p>one</p><p>two <![CDATA[<cdata & stuff>]]> three</p><p/></sec>
  <dc:title>second title</dc:title>
  <sec>caf\u00e9 \u2014 na\u00efve \U0001F600 emoji</sec>
</article>
"""


def _independent_units(path: Path, name: str) -> list[tuple[str, str]]:
    """(id, text content) of every element, by a recursive walk of lxml's tree."""
    tree = etree.parse(str(path), etree.XMLParser(load_dtd=False, no_network=True))
    out = []

    def tag_of(el: etree._Element) -> str:
        q = etree.QName(el)
        return f"{el.prefix}:{q.localname}" if el.prefix else q.localname

    def walk(el: etree._Element, prefix: str) -> None:
        out.append((f"{name}#{prefix}", "".join(el.itertext())))
        seen: dict[str, int] = {}
        for child in el:
            if not isinstance(child.tag, str):
                continue
            t = tag_of(child)
            seen[t] = seen.get(t, 0) + 1
            walk(child, f"{prefix}/{t}[{seen[t]}]")

    root = tree.getroot()
    walk(root, f"/{tag_of(root)}[1]")
    return out


@pytest.fixture
def tricky(write) -> Path:
    return write("col/tricky.xml", TRICKY)


def test_ids_and_offsets_match_independent_walk(tricky: Path, tmp_path: Path) -> None:
    store = LocalStore(tmp_path / "s")
    load_xml(store, [tmp_path / "col"])
    expected = _independent_units(tricky, "tricky")
    table = store.table()
    assert table.ids() == [uid for uid, _ in expected]
    doc_text = expected[0][1]
    start = np.asarray(table.columns["start"]).astype(int)
    length = np.asarray(table.columns["length"]).astype(int)
    for row, (_, text) in enumerate(expected):
        assert doc_text[start[row]:start[row] + length[row]] == text
        assert length[row] == len(text)
        assert table.columns["words"][row] == len(text.split())


def test_tricky_ids_read_as_designed(tricky: Path, tmp_path: Path) -> None:
    store = LocalStore(tmp_path / "s")
    load_xml(store, [tricky])
    ids = store.table().ids()
    assert "tricky#/article[1]/dc:title[2]" in ids  # prefix as written, counted per tag
    assert "tricky#/article[1]/sec[2]/p[3]" in ids  # empty element is a unit
    assert not any("comment" in i or "pi" in i for i in ids)
    rows = store.resolve(["tricky#/article[1]/sec[1]/i[1]", "tricky#/article[1]/sec[4]"])
    assert rows[0] >= 0 and rows[1] == -1
    unit = store.unit("tricky#/article[1]/dc:title[1]")
    assert unit["length"] == len("A  title with & and Company")


def test_pre_post_size_give_containment(tricky: Path) -> None:
    doc = parse_xml_file(tricky, "t")
    parent = doc.columns["parent"]
    n = len(parent)
    post = doc.columns["post"]
    size = doc.columns["size"]
    anc = [[False] * n for _ in range(n)]
    for b in range(n):
        a = parent[b]
        while a >= 0:
            anc[a][b] = True
            a = parent[a]
    for a in range(n):
        for b in range(n):
            interval = a < b and post[b] < post[a]
            assert interval == anc[a][b]
            assert (a < b < a + size[a]) == anc[a][b]


def test_label_paths_and_depth(write) -> None:
    p = write("d.xml", "<a><b><c/></b><b/></a>")
    doc = parse_xml_file(p, "d")
    assert doc.paths == ["/a", "/a/b", "/a/b/c", "/a/b"]
    assert doc.columns["depth"].tolist() == [0, 1, 2, 1]
    assert doc.columns["pos"].tolist() == [1, 1, 1, 2]


def test_words_cross_element_boundaries(write) -> None:
    p = write("w.xml", "<a>al<b>pha</b> beta<c> </c>gamma</a>")
    doc = parse_xml_file(p, "w")
    assert doc.columns["words"].tolist() == [3, 1, 0]  # "alpha beta gamma", "pha", " "


def test_not_well_formed_names_file_and_line(write) -> None:
    p = write("bad.xml", "<a>\n<b>\n</a>\n")
    with pytest.raises(InputError) as err:
        parse_xml_file(p, "bad")
    assert str(err.value).startswith(f"{p}:3: not well-formed XML")


def test_find_files_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        find_xml_files([tmp_path / "missing"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match=r"no \*\.xml"):
        find_xml_files([tmp_path / "empty"])


def test_document_ids_relative_to_root(write, tmp_path: Path) -> None:
    write("root/a/b/x.xml", "<r/>")
    write("root/y.xml", "<r/>")
    files = find_xml_files([tmp_path / "root"])
    assert sorted(f.name for f in files) == ["a/b/x", "y"]


def test_links_attribute_become_link_edges(write, tmp_path: Path) -> None:
    xl = "http://www.w3.org/1999/xlink"
    write("wiki/1.xml", f'<article xmlns:xlink="{xl}"><p>see <collectionlink '
                        f'xlink:href="2.xml">two</collectionlink></p></article>')
    write("wiki/2.xml", f'<article xmlns:xlink="{xl}"><collectionlink xlink:href="../out.xml"/>'
                        f'<collectionlink xlink:href="3.xml"/></article>')
    store = LocalStore(tmp_path / "s")
    load_xml(store, [tmp_path / "wiki"], links=f"collectionlink@{{{xl}}}href")
    links = store.links()
    table = store.table()
    assert [(a, b) for a, b in zip(table.ids(links["src"]), table.ids(links["dst"]),
                                    strict=True)] == \
        [("1#/article[1]/p[1]/collectionlink[1]", "2#/article[1]")]
    assert store.info()["dangling_links"] == 1  # 3.xml is not loaded; ../out.xml leaves


NAMESPACE_CASES = {
    # one URI bound to two prefixes: the parser target sees only the URI
    "two_prefixes": '<r xmlns:a="urn:u" xmlns:b="urn:u"><a:x/><b:x>t</b:x><a:x/></r>',
    # the second prefix for the same URI comes in a nested scope
    "nested": '<r xmlns:a="urn:u"><a:x/><s xmlns:b="urn:u"><b:y>in</b:y><a:y/></s><a:x/></r>',
    # one prefix rebound to another URI, and the default namespace undeclared
    "rebound": '<r xmlns:a="urn:1" xmlns="urn:d"><a:x/><s xmlns:a="urn:2"><a:x/></s>'
               '<t xmlns=""><a:x/></t></r>',
    "default_and_prefix": '<r xmlns="urn:u" xmlns:p="urn:u"><p:x/><x/><p:x/></r>',
    # the xml prefix is bound without a declaration
    "xml_prefix": '<a><xml:b>t</xml:b><b/><xml:b xml:lang="en"/></a>',
}


@pytest.mark.parametrize("name", sorted(NAMESPACE_CASES))
def test_namespaced_tags_as_written(write, tmp_path: Path, name: str) -> None:
    path = write(f"ns/{name}.xml", NAMESPACE_CASES[name])
    store = LocalStore(tmp_path / "s")
    load_xml(store, [path])
    assert store.table().ids() == [uid for uid, _ in _independent_units(path, name)]


def test_batches_do_not_change_the_collection(write, tmp_path: Path) -> None:
    """Documents parsed into one batch, one batch each, or around a skipped
    bad file give the same units, offsets and word counts as the independent
    walk of each document."""
    from graphprum.loaders.xml_batches import iter_xml_batches

    texts = [TRICKY, "<a>end<b>word</b></a>", "<c>x<d>y</d>z</c>", "<a>  </a>",
             *NAMESPACE_CASES.values()]
    for i, text in enumerate(texts):
        write(f"many/d{i:02}.xml", text)
    write("many/d05b.xml", "<broken>")
    files = find_xml_files([tmp_path / "many"])
    tables = []
    for units in (1, 7, 10_000):
        skipped: list = []
        store = LocalStore(tmp_path / f"s{units}")
        store.load_documents(iter_xml_batches(files, skip_bad=True, skipped=skipped,
                                              batch_units=units))
        assert [s.path for s in skipped] == [str(tmp_path / "many" / "d05b.xml")]
        tables.append(store.table())
    expected = []
    for f in files:
        if f.name != "d05b":
            expected.extend(_independent_units(f.path, f.name))
    for table in tables:
        assert table.ids() == [uid for uid, _ in expected]
        words = np.asarray(table.columns["words"]).tolist()
        assert words == [len(text.split()) for _, text in expected]
        lengths = np.asarray(table.columns["length"]).astype(int).tolist()
        assert lengths == [len(text) for _, text in expected]
        xpaths = [uid.split("#", 1)[1] for uid, _ in expected]
        label_paths = [re.sub(r"\[\d+\]", "", x) for x in xpaths]
        assert [table.paths[c] for c in np.asarray(table.columns["path"])] == label_paths
        assert [table.tags[c] for c in np.asarray(table.columns["tag"])] == \
            [p.rsplit("/", 1)[1] for p in label_paths]
        assert np.asarray(table.columns["depth"]).tolist() == [x.count("/") - 1 for x in xpaths]
        for c in ("start", "post", "pos", "size", "parent"):
            assert np.array_equal(table.columns[c], tables[0].columns[c]), c


# Files the tree parser rejects although libxml2 reports them as recoverable
# errors (a parser target alone would accept them), each with its line.
NOT_WELL_FORMED = {
    "undeclared_prefix": ("<a>\n<p:b>1</p:b><b>2</b></a>", 2, "Namespace prefix p"),
    "empty_namespace": ('<a\n xmlns:p=""><b/></a>', 2, "xmlns:p: Empty XML namespace"),
    "undefined_entity": ('<!DOCTYPE a SYSTEM "no.dtd">\n<a>x&undef;y</a>', 2,
                         "Entity 'undef' not defined"),
    "ambiguous_then_undeclared": ('<r xmlns:p="u" xmlns:q="u">\n<c:x/></r>', 2,
                                  "Namespace prefix c"),
    "invalid_bytes": (b"<f>\n\n\xff</f>", 3, "Invalid bytes"),
}


@pytest.mark.parametrize("name", sorted(NOT_WELL_FORMED))
def test_recoverable_errors_are_errors(write, tmp_path: Path, name: str) -> None:
    text, line, message = NOT_WELL_FORMED[name]
    good = write(f"col_{name}/good.xml", "<a>fine</a>")
    bad = write(f"col_{name}/{name}.xml", text)
    with pytest.raises(InputError) as err:
        parse_xml_file(bad, name)
    assert str(err.value).startswith(f"{bad}:{line}: not well-formed XML: {message}")
    # --skip-bad skips it and loads the rest
    store = LocalStore(tmp_path / f"s_{name}")
    report = load_xml(store, [good.parent], skip_bad=True)
    assert [(s.path, s.line) for s in report.skipped] == [(str(bad), line)]
    assert store.table().ids() == ["good#/a[1]"]


def test_links_in_a_document_with_ambiguous_prefixes(write, tmp_path: Path) -> None:
    """``p:link`` and ``q:link`` share a URI: only the one written p:link links."""
    write("amb/a.xml", '<r xmlns:p="urn:u" xmlns:q="urn:u"><q:link href="b.xml"/>'
                       '<p:link href="c.xml"/></r>')
    write("amb/b.xml", "<r/>")
    write("amb/c.xml", "<r/>")
    store = LocalStore(tmp_path / "s")
    load_xml(store, [tmp_path / "amb"], links="p:link@href")
    links = store.links()
    table = store.table()
    assert list(zip(table.ids(links["src"]), table.ids(links["dst"]), strict=True)) == \
        [("a#/r[1]/p:link[1]", "c#/r[1]")]


def test_a_gzip_file_says_so(tmp_path: Path) -> None:
    """A gzip file (``pubmed20n0014.xml.gz``, or one named ``.xml``) is
    named as such (old code: "not well-formed XML: Start tag expected")."""
    import gzip

    for name in ("a.xml.gz", "b.xml"):
        path = tmp_path / name
        path.write_bytes(gzip.compress(b"<a><b>x</b></a>"))
        with pytest.raises(InputError) as info:
            parse_xml_file(path, name.split(".")[0])
        assert str(info.value) == f"{path}: compressed with gzip: gunzip it first"


@pytest.mark.parametrize(("encoding", "name"), [("utf-32", "UTF-32"), ("utf-16", "UTF-16")])
def test_subtitles_in_utf_16_or_32_name_their_encoding(tmp_path: Path, encoding, name) -> None:
    """The byte order mark tells the encoding the advice converts from (old
    code: UTF-32 was told to convert from UTF-16, which iconv garbles)."""
    from graphprum.io.lines import read_text

    path = tmp_path / "s.srt"
    path.write_bytes("1\n00:00:01,000 --> 00:00:02,000\nHi\n".encode(encoding))
    with pytest.raises(InputError) as info:
        read_text(path)
    assert str(info.value).endswith(f"text in {name} (its byte order mark says so): convert it "
                                    f"with iconv -f {name} -t UTF-8")
