"""networkx views of a store (graphprum.graphs, Collection.document_graph /
link_graph, Summary.to_networkx) against independent readings: the element
tree parsed again with lxml, the Python docs' links read with lxml.html,
neighbourhoods by networkx's own ``ego_graph`` over the whole graph."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from posixpath import normpath
from urllib.parse import urldefrag, urljoin

import networkx as nx
import pytest
from lxml import etree, html

import graphprum
from graphprum.graphs import document_graph, link_graph, summary_graph
from graphprum.loading import load_web, load_xml
from graphprum.store.local import LocalStore
from graphprum.store.memory import MemoryStore
from graphprum.summaries.stored import build_stored
from tests.support import EXAMPLES, PLOS

ARTICLE = PLOS / "articles" / "pone-0016329.xml"
SITE = EXAMPLES / "web" / "site"


@pytest.fixture(scope="module", params=["memory", "local"])
def store(request, tmp_path_factory):
    s = MemoryStore() if request.param == "memory" \
        else LocalStore(tmp_path_factory.mktemp("graphs") / "store")
    load_xml(s, [ARTICLE])
    load_web(s, SITE)
    return s


def lxml_tree(path: Path) -> tuple[dict[str, str], list[tuple[str, str]], dict[str, int]]:
    """Ids (DESIGN §1.1: every step positional among same-tag siblings) to
    tags, parent -> child id pairs, and text lengths, read with lxml."""
    root = etree.parse(str(path)).getroot()
    doc = path.stem
    tags: dict[str, str] = {}
    edges: list[tuple[str, str]] = []
    length: dict[str, int] = {}

    def name(el: etree._Element) -> str:
        local = etree.QName(el).localname
        return f"{el.prefix}:{local}" if el.prefix else local

    def visit(el: etree._Element, path_: str) -> None:
        tags[doc + "#" + path_] = name(el)
        length[doc + "#" + path_] = len("".join(el.itertext()))
        seen: Counter[str] = Counter()
        for child in el:
            if not isinstance(child.tag, str):  # comments, processing instructions
                continue
            seen[name(child)] += 1
            child_path = f"{path_}/{name(child)}[{seen[name(child)]}]"
            edges.append((doc + "#" + path_, doc + "#" + child_path))
            visit(child, child_path)

    visit(root, f"/{name(root)}[1]")
    return tags, edges, length


def site_links() -> Counter[tuple[str, str]]:
    """Every <a href> between two pages of the site, by lxml.html: relative
    targets resolved against the page, fragments and queries dropped, links
    to the page itself and outside the site left out."""
    pages = {p.relative_to(SITE).as_posix() for p in SITE.rglob("*.html")}
    links: Counter[tuple[str, str]] = Counter()
    for page in sorted(pages):
        for href in html.parse(str(SITE / page)).getroot().xpath("//a/@href"):
            target, _ = urldefrag(urljoin("http://site/" + page, href.strip()))
            if not target.startswith("http://site/"):
                continue
            target = normpath(target.removeprefix("http://site/").split("?")[0])
            if target in pages and target != page:
                links[page, target] += 1
    return links


def test_document_graph_is_the_element_tree(store) -> None:
    tags, edges, length = lxml_tree(ARTICLE)
    g = document_graph(store, ARTICLE.stem)
    assert isinstance(g, nx.DiGraph) and nx.is_arborescence(g)
    assert {u: d["tag"] for u, d in g.nodes(data=True)} == tags
    children: dict[str, list[str]] = {}
    for a, b in edges:
        children.setdefault(a, []).append(b)
    assert {u: list(g.successors(u)) for u in children} == children  # in document order
    assert g.number_of_edges() == len(edges)
    assert {u: d["length"] for u, d in g.nodes(data=True)} == pytest.approx(length)
    root = next(iter(g))
    assert g.graph == {"document": ARTICLE.stem} and g.in_degree(root) == 0
    assert all(type(d["depth"]) is int and type(d["length"]) is float  # Python numbers
               for _, d in g.nodes(data=True))


def test_link_graph_is_the_sites_links(store) -> None:
    g = link_graph(store)
    expected = site_links()
    assert {(u, v): d["count"] for u, v, d in g.edges(data=True)} == dict(expected)
    assert sum(d["count"] for *_, d in g.edges(data=True)) == store.info()["links"]
    assert all(d["kind"] == "page" for _, d in g.nodes(data=True))


@pytest.mark.parametrize("undirected", [False, True])
@pytest.mark.parametrize("hops", [0, 1, 2])
def test_a_neighbourhood_is_networkx_ego_graph(store, hops: int, undirected: bool) -> None:
    whole = link_graph(store)
    for start in (["library/os.path.html"], ["tutorial/venv.html", "library/pty.html"]):
        g = link_graph(store, start, hops=hops, undirected=undirected)
        ego = nx.compose_all([nx.ego_graph(whole, u, radius=hops, undirected=undirected)
                              for u in start])
        expected = whole.subgraph(set(ego) | set(start))
        assert set(g) == set(expected)
        assert {(u, v): d["count"] for u, v, d in g.edges(data=True)} == \
            {(u, v): d["count"] for u, v, d in expected.edges(data=True)}


def test_summary_graph_has_the_summary_edges_and_pi(store) -> None:
    summary = build_stored(store, "p*")
    g = summary.to_networkx()
    assert nx.utils.graphs_equal(g, summary_graph(summary))
    assert list(g) == summary.sids and g.number_of_edges() == len(summary.edges)
    assert sum(d["pi"] for _, d in g.nodes(data=True)) == pytest.approx(1.0)
    assert {d["key"] for _, d in g.nodes(data=True)} == \
        {"/" + "/".join(_path_tags(u)) for u in lxml_tree(ARTICLE)[0]}
    # an edge S -> T counts the parent-child pairs of elements between them
    _, edges, _ = lxml_tree(ARTICLE)
    key = {u: "/" + "/".join(_path_tags(u)) for u in lxml_tree(ARTICLE)[0]}
    pairs = Counter((key[a], key[b]) for a, b in edges)
    sid = {d["key"]: s for s, d in g.nodes(data=True)}
    assert {(sid[a], sid[b]): n for (a, b), n in pairs.items()} == \
        {(u, v): d["count"] for u, v, d in g.edges(data=True)}


def _path_tags(uid: str) -> list[str]:
    return [step.rsplit("[", 1)[0] for step in uid.split("#", 1)[1].split("/")[1:]]


def test_collection_objects_print_short(tmp_path: Path) -> None:
    c = graphprum.open_store(tmp_path / "store")
    c.load_web(SITE)
    c.load_xml(ARTICLE)
    summary = c.build_summary("p*")
    assert repr(summary) == (f"<Summary p* (weight count): {len(summary):,} partitions, "
                             f"{len(summary.edges):,} edges, {len(lxml_tree(ARTICLE)[0]):,} "
                             f"elements>")
    unit = c.show("library/os.path.html")
    out = Counter({v: n for (u, v), n in site_links().items() if u == "library/os.path.html"})
    assert repr(unit) == (f"<library/os.path.html: page <page>, length {unit['length']:.0f}, "
                          f"0 children, {out.total()} out-links, {len(unit['in_links'])} "
                          f"in-links>")
    assert unit["kind"] == "page" and Counter(unit["out_links"]) == out
    assert set(c.link_graph("library/os.path.html").successors("library/os.path.html")) == \
        set(out)
    assert c.document_graph(ARTICLE.stem).number_of_nodes() == len(lxml_tree(ARTICLE)[0])


@pytest.mark.parametrize("kind", ["memory", "local"])
def test_link_graph_of_elements_joins_the_holders_to_the_arrivals(kind: str, tmp_path: Path
                                                                   ) -> None:
    """On an element collection the LINK edges leave the element that holds
    the link (the ``<link>``), not every ancestor whose subtree holds it (the
    walk's out-links), and a fragment arrives at the element it names: read
    off the three documents of the hand-computed browse test."""
    from tests.navigation.test_browse import A2, A3, B0, B5, C1, DOCS

    (tmp_path / "c").mkdir()
    for name, text in DOCS.items():
        (tmp_path / "c" / name).write_text(text, encoding="utf-8")
    s = MemoryStore() if kind == "memory" else LocalStore(tmp_path / "s")
    load_xml(s, [tmp_path / "c"], links="link@ref")
    g = link_graph(s)
    assert {(u, v): d["count"] for u, v, d in g.edges(data=True)} == {(A3, B0): 1, (B5, C1): 1}
    assert set(link_graph(s, [A3], hops=1)) == {A3, B0}
    assert set(link_graph(s, [A2], hops=1)) == {A2}  # its link is its child's
    assert set(link_graph(s, [C1], hops=1, undirected=True)) == {C1, B5}


@pytest.mark.parametrize("hops", [-1, 1.5, "2", True])
def test_a_bad_hop_count_is_a_usage_error(store, hops) -> None:
    from graphprum.errors import UsageError

    with pytest.raises(UsageError, match=r"hops must be an integer >= 0, got "):
        link_graph(store, [next(iter(store.documents()["name"]))], hops=hops)


def test_a_unit_id_that_is_not_a_string_is_a_usage_error(store) -> None:
    from graphprum.describe import describe_unit
    from graphprum.errors import UsageError

    with pytest.raises(UsageError, match=r"a unit id is a string .*, got int 5"):
        describe_unit(store, 5)  # type: ignore[arg-type]
