"""The K-step neighbourhood of a walk derived by the graph: ``cypher/nav/
walk_into.cypher`` (one backward step over CHILD and LINK edges) and
``walk_degrees.cypher``, run on the embedded store's LadybugDB graph, give
the probabilities the numpy path gives (1e-12), for the links walk and the
browse walk; and the Bolt store answers ``link_walk`` with the same files."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest

from graphprum.loading import load_web, load_xml
from graphprum.navigation.base import parse_model
from graphprum.navigation.browse import move_transitions
from graphprum.navigation.links import walk_probabilities
from graphprum.store.linkgraph import graph_walk
from graphprum.store.local import LocalStore
from tests.navigation.test_browse import DOCS
from tests.store.test_bolt import falkordb_uri  # noqa: F401  (a server taking Bolt writes)
from tests.support import EXAMPLES


def graph_query(store: LocalStore):
    """``graph_walk``'s query function over the store's own Cypher."""
    def query(name: str, key: str, values: list[str], **params: object) -> list[tuple]:
        text = files("graphprum.cypher").joinpath(f"{name}.cypher").read_text(encoding="utf-8")
        return [tuple(r.values()) for r in store.query(text, {key: values, **params})]
    return query


@pytest.fixture(scope="module")
def collection(tmp_path_factory) -> LocalStore:
    """The three XML documents of the hand-computed browse test, and the
    bundled web site as pages (links between pages)."""
    root = tmp_path_factory.mktemp("walk")
    (root / "c").mkdir()
    for name, text in DOCS.items():
        (root / "c" / name).write_text(text, encoding="utf-8")
    store = LocalStore(root / "s")
    load_xml(store, [root / "c"], links="link@ref")
    load_web(store, EXAMPLES / "web" / "site")
    return store


@pytest.mark.parametrize("hops", [1, 2, 3, None])
@pytest.mark.parametrize("structure", [False, True])
def test_the_graph_derives_the_walk(collection: LocalStore, hops, structure) -> None:
    ids = collection.table().ids()
    rng = np.random.default_rng(3)
    units = [ids[i] for i in sorted(rng.choice(len(ids), 60, replace=False))]
    units += [u for u in ids if u.startswith(("a#", "b#", "c#"))]
    sources, targets = units, units[::2]
    fast = collection.link_walk(sources, targets, hops, structure)
    graph = graph_walk(graph_query(collection), sources, targets, hops, structure)
    for weights in ((1 / 3, 1 / 3, 1 / 3), (0.5, 0.1, 0.4)):
        if structure:
            want = walk_probabilities(fast, move_transitions(fast, *weights), hops)
            got = walk_probabilities(graph, move_transitions(graph, *weights), hops)
        else:
            want = walk_probabilities(fast, fast.transitions * weights[2], hops)
            got = walk_probabilities(graph, graph.transitions * weights[2], hops)
        assert np.abs(got.toarray() - want.toarray()).max() < 1e-12
    assert want.nnz > len(targets)  # more than the units themselves


def test_the_graphs_held_counts_are_the_links_in_the_subtree(collection: LocalStore) -> None:
    """The degrees the walk reads from the units' stored ``held`` counts
    (made with the graph from the store's link columns) equal the degrees
    counted in the graph itself, each unit's subtree matched by pre/post
    interval (``walk_degrees_scan.cypher``, what a Bolt store loaded before
    ``held`` is read with): the equality above is no circle."""
    query = graph_query(collection)
    ids = collection.table().ids()
    stored, scanned = query("nav/walk_degrees", "ids", ids), \
        query("nav/walk_degrees_scan", "ids", ids)
    assert sorted(stored) == sorted(scanned) and len(stored) == len(ids)
    assert sum(1 for row in stored if row[2] > 1) > 10


def test_the_links_query_leaves_from_the_subtree(collection: LocalStore) -> None:
    text = files("graphprum.cypher").joinpath("nav/links.cypher").read_text(encoding="utf-8")
    rows = collection.query(text, {"sources": ["a#/doc[1]", "a#/doc[1]/sec[1]/p[2]"]})
    assert rows == [{"source": "a#/doc[1]", "target": "b#/doc[1]", "p": 1.0}]


def test_the_model_spec_reaches_the_graph_path(collection: LocalStore, monkeypatch) -> None:
    """A store answering link_walk from the graph gives the browse model's
    numbers (what a Bolt store does)."""
    class Graph:
        def link_walk(self, sources, targets, hops, structure=False):
            return graph_walk(graph_query(collection), sources, targets, hops, structure)

    class Ctx:
        store = Graph()

    class Fast:
        store = collection

    units = [u for u in collection.table().ids() if u.startswith(("a#", "b#", "c#"))]
    for spec in ("browse:hops=2", "links:hops=2"):
        model = parse_model(spec)
        assert model.matrix(units, units, Ctx()).toarray() == \
            pytest.approx(model.matrix(units, units, Fast()).toarray(), abs=1e-12)


@pytest.mark.parametrize("redis", ["found", "0"])
def test_bolt_link_walk_is_the_graph_path(bolt_store, tmp_path: Path, monkeypatch,
                                          redis: str) -> None:
    """The walk on a Bolt store equals the embedded store's, the link to
    ``c.xml#t`` arriving at the section the fragment names on both; its
    reads through FalkorDB's Redis port or over Bolt only."""
    if redis == "0":
        monkeypatch.setenv("GRAPHPRUM_FALKORDB_REDIS", "0")
    for name, text in DOCS.items():
        (tmp_path / "c").mkdir(exist_ok=True)
        (tmp_path / "c" / name).write_text(text, encoding="utf-8")
    local = LocalStore(tmp_path / "s")
    bolt = bolt_store()
    for s in (local, bolt):
        load_xml(s, [tmp_path / "c"], links="link@ref")
    assert (bolt.reads.conn.redis() is None) == (redis == "0")
    units = local.table().ids()

    class Ctx:
        def __init__(self, store) -> None:
            self.store = store

    for spec in ("browse:hops=2", "browse:hops=inf", "links:hops=3"):
        model = parse_model(spec)
        assert model.matrix(units, units, Ctx(bolt)).toarray() == \
            pytest.approx(model.matrix(units, units, Ctx(local)).toarray(), abs=1e-12)


def test_a_bolt_walk_pulls_its_neighbourhood_not_its_documents(bolt_store, tmp_path: Path,
                                                             monkeypatch) -> None:
    """Issue 35: the rows a Bolt store sends for a topic's walk grow with the
    walk's K-hop neighbourhood, not with the documents it touches.  A short
    page links a real PLOS article (hundreds of elements): the links walk
    into the article's root needs the link, the units holding it and the
    degrees of those units: a few rows, whatever the article's size."""
    from tests.support import PLOS

    (tmp_path / "c").mkdir()
    article = PLOS / "articles" / "pone-0016329.xml"
    (tmp_path / "c" / "big.xml").write_bytes(article.read_bytes())
    (tmp_path / "c" / "a.xml").write_text(
        '<doc><sec><p>see <link ref="big.xml">the article</link></p><p>more</p></sec></doc>',
        encoding="utf-8")
    local, bolt = LocalStore(tmp_path / "s"), bolt_store()
    for s in (local, bolt):
        load_xml(s, [tmp_path / "c"], links="link@ref")
    big = int(local.documents().set_index("name").loc["big", "count"])
    rows: list[int] = []
    conn = bolt.reads.conn
    real = conn.read_batched

    def counted(*args, **kwargs):  # every read of the walk, over Bolt or FalkorDB's Redis port
        out = real(*args, **kwargs)
        rows.append(len(out))
        return out

    monkeypatch.setattr(conn, "read_batched", counted)
    sources, targets = ["a#/doc[1]/sec[1]/p[1]", "a#/doc[1]"], ["big#/article[1]"]
    walk = bolt.link_walk(sources, targets, hops=2)
    assert big > 500 and 0 < sum(rows) <= 12, (big, rows)
    model = parse_model("links:hops=2")

    class Ctx:
        def __init__(self, store) -> None:
            self.store = store

    assert model.matrix(sources, targets, Ctx(bolt)).toarray() == \
        pytest.approx(model.matrix(sources, targets, Ctx(local)).toarray(), abs=1e-12)
    assert walk.transitions.shape[0] <= 5  # the link, the units holding it, the root


def test_a_bolt_store_asks_each_units_backward_step_once(bolt_store, tmp_path: Path,
                                                         monkeypatch) -> None:
    """The topics of an evaluation walk into overlapping neighbourhoods: a
    unit's backward step (``nav/walk_into``) is read from the server once
    until the next write, and the walks stay the embedded store's."""
    (tmp_path / "c").mkdir()
    for name, text in DOCS.items():
        (tmp_path / "c" / name).write_text(text, encoding="utf-8")
    local, bolt = LocalStore(tmp_path / "s"), bolt_store()
    for s in (local, bolt):
        load_xml(s, [tmp_path / "c"], links="link@ref")
    asked: list[str] = []
    conn = bolt.reads.conn
    real = conn.read_batched

    def spied(name, key, rows, **kwargs):
        if name == "nav/walk_into":
            asked.extend(rows)
        return real(name, key, rows, **kwargs)

    monkeypatch.setattr(conn, "read_batched", spied)
    units = local.table().ids()
    model = parse_model("browse:hops=2")

    class Ctx:
        def __init__(self, store) -> None:
            self.store = store

    for targets in (units[:4], units[2:6], units[:6]):  # the third asks nothing new
        assert model.matrix(units, targets, Ctx(bolt)).toarray() == \
            pytest.approx(model.matrix(units, targets, Ctx(local)).toarray(), abs=1e-12)
    assert asked and len(asked) == len(set(asked))
    bolt.reads.invalidate()  # a write forgets them
    model.matrix(units, units[:4], Ctx(bolt))
    assert len(asked) > len(set(asked))
