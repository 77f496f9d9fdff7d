"""``load`` builds the graph for queries at once only up to a size
(``GRAPH_AT_LOAD`` units): LadybugDB's build cannot be bounded by a batch
and costs as much as the load (issue 38 item 3); above it the load says
the first query builds it, ``--graph`` builds it anyway, ``--no-graph``
never, and the first query builds what was left."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

import graphprum.cli.load as cli_load
from graphprum.cli import app
from graphprum.store.local import LocalStore

runner = CliRunner()
DOC = "<article><sec><p>one</p><p>two</p></sec></article>"  # 4 units


def _graph_built(store: Path) -> bool:
    return (LocalStore(store).generation / "graph.lbug").exists()


def test_a_large_load_leaves_the_graph_to_the_first_query(tmp_path: Path, write,
                                                          monkeypatch) -> None:
    monkeypatch.setattr(cli_load, "GRAPH_AT_LOAD", 5)
    write("col/a.xml", DOC)
    write("col2/b.xml", DOC)
    store = tmp_path / "s"
    r = runner.invoke(app, ["--store", str(store), "load", "xml", str(tmp_path / "col")])
    assert r.exit_code == 0 and "graph for queries in" in r.output, r.output
    assert _graph_built(store)  # 4 units: at once
    r = runner.invoke(app, ["--store", str(store), "load", "xml", str(tmp_path / "col2")])
    assert r.exit_code == 0, r.output
    assert "left to the first query (the store holds 8 units, more than 5)" in r.output
    assert not _graph_built(store)
    r = runner.invoke(app, ["--store", str(store), "query", "-f", "tsv",
                            "MATCH (u:Unit) RETURN count(u) AS n"])
    assert r.output.splitlines() == ["n", "8"] and _graph_built(store)


def test_graph_and_no_graph_say_what_they_mean_at_any_size(tmp_path: Path, write,
                                                            monkeypatch) -> None:
    monkeypatch.setattr(cli_load, "GRAPH_AT_LOAD", 1)
    write("col/a.xml", DOC)
    r = runner.invoke(app, ["--store", str(tmp_path / "s"), "load", "xml", "--graph",
                            str(tmp_path / "col")])
    assert r.exit_code == 0 and "left to the first query" not in r.output
    assert _graph_built(tmp_path / "s")
    monkeypatch.setattr(cli_load, "GRAPH_AT_LOAD", 10**9)
    r = runner.invoke(app, ["--store", str(tmp_path / "s2"), "load", "xml", "--no-graph",
                            str(tmp_path / "col")])
    assert r.exit_code == 0 and "graph" not in r.output
    assert not _graph_built(tmp_path / "s2")
