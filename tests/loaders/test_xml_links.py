"""Links as XML collections hold them: several ``--links`` specs, tags in
Clark notation, targets naming a document of the load by its id, fragments
naming an element, and the links not stored counted by kind."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphprum.cli import app
from graphprum.errors import UsageError
from graphprum.loaders.xml_links import LinkSpec
from graphprum.loading import load_xml
from graphprum.store.memory import MemoryStore

MAL = "http://projectmallard.org/1.0/"


def mallard(write, tmp_path: Path) -> Path:
    """Mallard-like pages in two directories: links by page id (not path),
    a fragment naming a section, a fragment-only link, a missing page."""
    write("help/index.page", f'<page xmlns="{MAL}" id="index"><p>See <link xref="net-wifi"/>,'
                             f' <gui xref="display#bright">Brightness</gui>, '
                             f'<link xref="#top"/> and <link xref="gone"/>.</p></page>')
    write("help/sub/net-wifi.page", f'<page xmlns="{MAL}" id="net-wifi"><p>Wi-Fi</p></page>')
    write("help/display.page", f'<page xmlns="{MAL}" id="display"><section id="dim"><p>d</p>'
                               f'</section><section id="bright"><p>b</p></section></page>')
    return tmp_path / "help"


def pages(root: Path) -> list[Path]:
    return sorted(root.rglob("*.page"))


def test_several_specs_ids_fragments_and_what_is_not_stored(write, tmp_path: Path) -> None:
    store = MemoryStore()
    report = load_xml(store, pages(mallard(write, tmp_path)), links=["link@xref", "gui@xref"])
    # index holds 4 links found, 3 kept: net-wifi (by id, in another directory),
    # display#bright (the section), gone (dangling); #top is within the page
    out = store.links_of("index#/page[1]")[0]
    assert out == ["net-wifi#/page[1]", "display#/page[1]/section[2]"]
    info = store.info()
    assert (info["links"], info["dangling_links"]) == (2, 1)
    assert info["link_stats"] == {"links_within_document": 1, "links_leaving_root": 0}
    assert report.links == 3
    assert report.links_matched == {"link@xref": 3, "gui@xref": 1}


def test_the_last_spec_no_longer_wins(write, tmp_path: Path) -> None:
    root = mallard(write, tmp_path)
    one, two = MemoryStore(), MemoryStore()
    load_xml(one, pages(root), links="gui@xref")
    load_xml(two, pages(root), links=["link@xref", "gui@xref"])
    assert (one.info()["links"], two.info()["links"]) == (1, 2)


def test_a_tag_in_clark_notation_matches_by_namespace(write, tmp_path: Path) -> None:
    root = mallard(write, tmp_path)
    write("help/other.page", '<page xmlns:m="http://example.org/m" id="other">'
                             '<m:link xref="display"/></page>')  # another namespace
    store = MemoryStore()
    report = load_xml(store, pages(root), links=[f"{{{MAL}}}link@xref"])
    assert report.links_matched == {f"{{{MAL}}}link@xref": 3}
    assert store.links_of("other#/page[1]")[0] == []
    store = MemoryStore()
    load_xml(store, pages(root), links=["m:link@xref"])  # as written, with its prefix
    assert store.links_of("other#/page[1]")[0] == ["display#/page[1]"]


def test_a_spec_matching_nothing_is_a_warning(write, tmp_path: Path) -> None:
    root = mallard(write, tmp_path)
    res = CliRunner().invoke(app, ["--store", str(tmp_path / "s"), "load", "xml",
                                   *map(str, pages(root)), "--links", "link@xref",
                                   "--links", "nope@xref", "--no-graph"])
    assert res.exit_code == 0, res.output
    assert "graphprum: warning: --links nope@xref matched no element" in res.output
    assert ("2 links (the store holds 1 that arrive at a unit and 1 dangling); 1 link not "
            "stored: 1 to a place in their own document only") in res.output


def test_a_path_target_still_wins(write, tmp_path: Path) -> None:
    """A target that is a path to a document of the load is that document,
    even when another one has the same last name."""
    write("c/a/x.xml", '<r><ref to="y.xml"/></r>')
    write("c/a/y.xml", "<r/>")
    write("c/b/y.xml", "<r/>")
    store = MemoryStore()
    load_xml(store, [tmp_path / "c"], links="ref@to")
    assert store.links_of("a/x#/r[1]")[0] == ["a/y#/r[1]"]


@pytest.mark.parametrize("text", ["link", "@href", "link@", "{urn:x}@href"])
def test_bad_specs(text: str) -> None:
    with pytest.raises(UsageError, match="expected TAG@ATTR"):
        LinkSpec.parse(text)


def test_show_and_info_say_where_links_come_from(write, tmp_path: Path) -> None:
    root = mallard(write, tmp_path)
    store = str(tmp_path / "s")
    runner = CliRunner()
    assert runner.invoke(app, ["--store", store, "load", "xml", *map(str, pages(root)),
                               "--links", "link@xref", "--links", "gui@xref",
                               "--no-graph"]).exit_code == 0
    shown = runner.invoke(app, ["--store", store, "show", "index#/page[1]", "-f", "table"])
    lines = [line.strip() for line in shown.output.splitlines()]
    assert "out-links, the links in its subtree (2 to 2 units):" in lines, shown.output
    shown = runner.invoke(app, ["--store", store, "show", "display#/page[1]/section[2]",
                                "-f", "table"])
    assert "in-links (1 from 1 unit):" in [line.strip() for line in shown.output.splitlines()]
    info = runner.invoke(app, ["--store", store, "info", "-f", "table"]).output
    assert "links not stored  1 to a place in their own document only" in info
    assert "dangling links    1 (target not stored)" in info
