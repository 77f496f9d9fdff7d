"""``graphprum export neo4j-admin``: the CSV files, read back with the csv
module, rebuild the graph the store holds (the embedded store's graph, and
every property a Bolt load writes, on a FalkorDB loaded with the same
documents)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from graphprum.cli import app
from graphprum.loading import copy_store, load_xml
from graphprum.store.bolt.neo4j_admin import NODE_FILES, RELATIONSHIP_FILES, export_neo4j_admin
from graphprum.store.local import LocalStore
from tests.store.test_bolt import DUMP, write_collection
from tests.support.falkordb import falkordb_server
from tests.support.stores import load_examples


def _value(text: str, kind: str) -> Any:
    """A field as the importer reads a column of type ``kind``."""
    if kind == "string":
        return text
    if text == "":
        return None
    if kind.endswith("[]"):
        return [_value(t, kind[:-2]) for t in text.split(";")]
    return {"long": int, "double": float, "boolean": lambda t: t == "true"}[kind](text)


def read_graph(directory: Path) -> dict[str, Any]:
    """Nodes by label (id -> properties) and relationships by type
    ((start, end, properties)), parsed by the header lines."""
    graph: dict[str, Any] = {}
    for label, (name, _) in {**NODE_FILES, **RELATIONSHIP_FILES}.items():
        with (directory / name).open(encoding="utf-8", newline="") as f:
            rows = csv.reader(f)
            header = next(rows)
            items: dict[str, Any] | list[Any] = {} if label in NODE_FILES else []
            spaces = {kind: space.rstrip(")") for kind, _, space in  # of each id column
                      (c.partition(":")[2].partition("(") for c in header) if space}
            for row in rows:
                props: dict[str, Any] = {}
                ends: dict[str, str] = {}
                for column, text in zip(header, row, strict=True):
                    key, _, kind = column.partition(":")
                    kind = kind.partition("(")[0]
                    if kind in ("ID", "START_ID", "END_ID"):
                        ends[kind] = text
                        if key:
                            props[key] = text
                    elif kind in ("LABEL", "TYPE"):
                        assert text == label
                    else:
                        props[key] = _value(text, kind or "string")
                if "attributes" in props and props["attributes"] == "":
                    # csv cannot tell "" from a missing field; the importer
                    # can: units without attributes have none (JSON is never "")
                    props["attributes"] = None
                if isinstance(items, dict):
                    assert ends["ID"] not in items, f"{label} {ends['ID']} twice"
                    items[ends["ID"]] = props
                else:
                    items.append((ends["START_ID"], ends["END_ID"], props))
            graph[label] = items
            if label in NODE_FILES:
                assert spaces == {"ID": label}  # one ID space per label
            else:  # every relationship joins nodes of the files
                start, end = spaces["START_ID"], spaces["END_ID"]
                assert all(s in graph[start] and e in graph[end] for s, e, _ in items), label
    return graph


def graph_rows(graph: dict[str, Any]) -> list[list[tuple[Any, ...]]]:
    """The rows of the DUMP queries (tests/store/test_bolt.py) on the graph read back."""
    docs, units, attrs = graph["Document"], graph["Unit"], graph["Attribute"]
    unit_keys = ["uid", "doc", "tag", "path", "kind", "depth", "pre", "post", "size", "pos",
                 "start", "length", "words", "text", "attributes"]
    return [
        sorted((d["name"], d["source"], d["kind"], d["length"], d["count"])
               for d in docs.values()),
        sorted(tuple(u[k] for k in unit_keys) for u in units.values()),
        sorted((s, e) for s, e, _ in graph["ROOT"]),
        sorted(((s, e) for s, e, _ in graph["CHILD"]), key=lambda r: r[1]),
        sorted((s, e, p["anchor"]) for s, e, p in graph["LINK"]),
        sorted((a["name"], a["value"]) for a in attrs.values()),
        sorted((s, attrs[e]["name"], attrs[e]["value"]) for s, e, _ in graph["HAS_ATTRIBUTE"]),
    ]


@pytest.fixture(scope="module")
def collection(tmp_path_factory) -> tuple[LocalStore, Path]:
    """The bundled collections and the tricky one (links, unicode names,
    quotes and commas in texts) in an embedded store, and its export."""
    base = tmp_path_factory.mktemp("neo4j-admin")
    local = LocalStore(base / "store")
    load_examples(local)
    load_xml(local, [write_collection(base / "tricky")], links="ref@to")
    counts = export_neo4j_admin(local, base / "csv")
    assert counts["Unit"] == local.count_units() > 19_000
    return local, base / "csv"


def test_the_files_rebuild_the_embedded_graph(collection) -> None:
    local, out = collection
    graph = read_graph(out)
    want = [sorted(tuple(r.values()) for r in local.query(q)) for q in DUMP]
    got = [sorted(rows) for rows in graph_rows(graph)]
    for q, w, g in zip(DUMP, want, got, strict=True):
        assert g == w, q
    assert len(graph["LINK"]) > 100  # the web site's links, resolved
    assert all(d["complete"] for d in graph["Document"].values())
    meta, = graph["Meta"].values()
    assert meta["format"] == "graphprum-bolt" and meta["load_count"] == 1


def test_the_units_carry_their_held_links(collection) -> None:
    """``Unit.held`` (links held in the subtree, what the walk on a Bolt
    store reads) counted from the LINK rows of the files by the holders'
    ids; the Meta node says the counts are right."""
    from tests.store.test_bolt_held import by_prefix

    _, out = collection
    graph = read_graph(out)
    want = by_prefix([s for s, _, _ in graph["LINK"]], graph["Unit"])
    assert {u: p["held"] or 0 for u, p in graph["Unit"].items()} == want
    assert max(want.values()) > 10
    meta, = graph["Meta"].values()
    assert meta["held_load"] == meta["load_count"]


def test_the_files_hold_what_a_bolt_load_writes(collection, tmp_path) -> None:
    """Every property of every node and relationship, the store's own
    included, as a Bolt load of the same documents writes them."""
    from graphprum.store.bolt import BoltStore

    local, out = collection
    graph = read_graph(out)
    with falkordb_server(tmp_path / "falkordb") as uri:
        bolt = BoltStore(uri)
        bolt.clear()
        copy_store(local, bolt)

        def nodes(label: str, key: str, skip: tuple[str, ...] = ()) -> dict[str, Any]:
            rows = bolt.run(f"MATCH (n:{label}) RETURN properties(n)")
            return {p[key]: {k: v for k, v in p.items() if k not in skip} for (p,) in rows}

        def edges(rel: str, a: str, b: str, ka: str, kb: str) -> list[tuple[Any, ...]]:
            rows = bolt.run(f"MATCH (s:{a})-[r:{rel}]->(t:{b}) RETURN s.{ka}, t.{kb}, "
                            f"properties(r)")
            return sorted((s, t, sorted(p.items())) for s, t, p in rows)

        def stored(label: str, skip: tuple[str, ...] = ()) -> dict[str, Any]:
            """The nodes read back as a graph holds them: no null properties."""
            return {key: {k: v for k, v in p.items() if v is not None and k not in skip}
                    for key, p in graph[label].items()}

        assert stored("Unit") == nodes("Unit", "uid", ("_part", "_cid"))
        assert stored("Document") == nodes("Document", "name", ("replaces",))
        assert stored("Attribute") == nodes("Attribute", "nid")
        assert stored("PendingLink", ("load",)) == nodes("PendingLink", "key", ("load",))
        for rel, a, b, ka, kb in [("ROOT", "Document", "Unit", "name", "uid"),
                                  ("CHILD", "Unit", "Unit", "uid", "uid"),
                                  ("HAS_ATTRIBUTE", "Unit", "Attribute", "uid", "nid"),
                                  ("LINK", "Unit", "Unit", "uid", "uid")]:
            want = sorted((s, t, sorted(p.items())) for s, t, p in graph[rel])
            assert want == edges(rel, a, b, ka, kb), rel
        bolt.close()


def test_the_command_prints_the_import_and_refuses_to_overwrite(collection, tmp_path) -> None:
    local, _ = collection
    runner = CliRunner()
    out = tmp_path / "csv"
    r = runner.invoke(app, ["--quiet", "--store", str(local.location), "export", "neo4j-admin",
                            str(out)])
    assert r.exit_code == 0, r.output
    assert r.output.startswith("neo4j-admin database import full neo4j ")
    assert f"--nodes={out / 'units.csv'}" in r.output
    assert f"--relationships={out / 'link.csv'}" in r.output
    r = runner.invoke(app, ["--store", str(local.location), "export", "neo4j-admin", str(out)])
    assert r.exit_code == 2
    assert r.output.strip() == (f"graphprum: error: {out / 'documents.csv'}: exists already; "
                                f"export into a new directory")


def test_the_meta_node_keeps_the_links_not_stored(collection) -> None:
    """meta.csv's link_stats are the store's (the links that 'info' counts as
    not stored: external, within their own page); they were written as {}."""
    local, out = collection
    stats = local.info()["link_stats"]
    assert stats  # the bundled web example has links that are not stored
    (meta,) = read_graph(out)["Meta"].values()
    assert json.loads(meta["link_stats"]) == stats
