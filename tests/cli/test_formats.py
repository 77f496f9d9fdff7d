"""Output that survives a pipe: every command that prints a table prints TSV
off a terminal, accepts --format tsv|csv|json, and never cuts a value."""

from __future__ import annotations

import csv
import io
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphprum.cli import app
from tests.support import DATA, EXAMPLES

runner = CliRunner()
#: A document name long enough that its ids do not fit in 80 columns.
LONG = "journal.pbio.0020188-with-a-rather-long-name-that-a-table-would-cut"
DOC = ("<article><front><title>Alpha beta</title></front>"
       "<body><sec><p>one two</p><p>three</p></sec></body></article>")


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("formats")
    (tmp / "col").mkdir()
    (tmp / "col" / f"{LONG}.xml").write_text(DOC)
    store = tmp / "store"
    for args in (["load", "xml", str(tmp / "col")], ["summary", "build", "p*"]):
        r = runner.invoke(app, ["--store", str(store), *args])
        assert r.exit_code == 0, r.output
    return store


@pytest.fixture(scope="module")
def eval_files(tmp_path_factory) -> dict[str, Path]:
    """AP by hand: a finds d1 at 1 and d2 at 3 on t1 ((1 + 2/3)/2 = 5/6) and d3 at 1 on
    t2 (1); b finds d1 at 2 on t1 (1/4) and d3 at 3 on t2 (1/3)."""
    tmp = tmp_path_factory.mktemp("evalfiles")
    (tmp / "q").write_text("t1 0 d1 1\nt1 0 d2 1\nt2 0 d3 1\n")
    (tmp / "a").write_text("t1 Q0 d1 1 3 a\nt1 Q0 dx 2 2 a\nt1 Q0 d2 3 1 a\nt2 Q0 d3 1 1 a\n")
    (tmp / "b").write_text("t1 Q0 dx 1 2 b\nt1 Q0 d1 2 1 b\nt2 Q0 dy 1 3 b\nt2 Q0 dz 2 2 b\n"
                           "t2 Q0 d3 3 1 b\n")
    (tmp / "walk").write_text("x\ty\t.5\nx\tz\t.3\nz\ty\t.12\ny\tz\t.8\n")
    return {"q": tmp / "q", "a": tmp / "a", "b": tmp / "b", "walk": tmp / "walk"}


def commands(store: Path, f: dict[str, Path]) -> dict[str, list[str]]:
    s = ["--store", str(store)]
    unit = f"{LONG}#/article[1]/body[1]/sec[1]"
    return {
        "eval": ["eval", str(f["a"]), str(f["b"]), "--qrels", str(f["q"]), "--no-store",
                 "-m", "AP", "-q"],
        "compare": ["compare", str(f["a"]), str(f["b"]), "--qrels", str(f["q"]), "--no-store",
                    "-m", "AP"],
        "nav": ["nav", f"walk:{f['walk']}", "--from", "x", "--to", "y", "--to", "z"],
        "query": [*s, "query", 'MATCH (u:Unit) WHERE u.tag = "p" RETURN u.uid, u.length'],
        "summary show": [*s, "summary", "show", "p*"],
        "info": [*s, "info"],
        "show": [*s, "show", unit],
        "measures": ["measures"],
    }


def _unescape(field: str) -> str:
    return (field.replace("\\\\", "\0").replace("\\t", "\t").replace("\\n", "\n")
            .replace("\\r", "\r").replace("\0", "\\"))


@pytest.mark.parametrize("name", ["eval", "compare", "nav", "query", "summary show", "info",
                                  "show", "measures"])
def test_off_a_terminal_tsv_by_default_and_csv_json_agree(store, eval_files, name) -> None:
    argv = commands(store, eval_files)[name]
    default = runner.invoke(app, argv)
    assert default.exit_code == 0, default.output
    tsv = runner.invoke(app, [*argv, "--format", "tsv"])
    assert default.stdout == tsv.stdout  # tsv is what a pipe gets
    assert "…" not in tsv.stdout and "┃" not in tsv.stdout
    rows = [[_unescape(x) for x in line.split("\t")] for line in tsv.stdout.splitlines()]
    assert rows and all(len(r) >= 2 for r in rows)
    r = runner.invoke(app, [*argv, "-f", "csv"])
    assert r.exit_code == 0, r.output
    back = list(csv.reader(io.StringIO(r.stdout)))
    if name in ("eval", "nav"):
        back = back[1:]  # csv has a header, their tsv (trec_eval's layout) has none
    assert back == rows
    r = runner.invoke(app, [*argv, "-f", "json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    if isinstance(data, list) and data and isinstance(data[0], dict) and name != "show":
        body = rows if name in ("eval", "nav") else rows[1:]
        assert len(data) == len(body)
        for record, row in zip(data, body, strict=True):
            for value, text in zip(record.values(), row, strict=False):
                if isinstance(value, float):
                    assert float(text) == value  # tsv round-trips the float exactly
                elif value is not None and not isinstance(value, bool | list | dict):
                    assert str(value) == text


def test_values_are_never_cut(store, eval_files) -> None:
    argv = commands(store, eval_files)["query"]
    r = runner.invoke(app, argv)
    ids = [line.split("\t")[0] for line in r.stdout.splitlines()[1:]]
    assert sorted(ids) == [f"{LONG}#/article[1]/body[1]/sec[1]/p[1]",
                   f"{LONG}#/article[1]/body[1]/sec[1]/p[2]"]
    r = runner.invoke(app, [*argv, "-f", "table"])  # a file is not a terminal: full width
    assert all(i in r.stdout for i in ids) and "(2 rows)" in r.stdout


def test_tsv_values(store, eval_files) -> None:
    c = commands(store, eval_files)
    rows = [line.split("\t") for line in runner.invoke(app, c["eval"]).stdout.splitlines()]
    ap = {(run, topic): float(v) for run, _, topic, v in rows}
    assert ap[("a", "t1")] == pytest.approx(5 / 6) and ap[("b", "t2")] == pytest.approx(1 / 3)
    assert ap[("a", "all")] == pytest.approx(11 / 12)
    # ERRATA PRUM 7: P(x -> y) = .5 + .3 x .12 = .536, P(x -> z) = .3 + .5 x .8 = .7
    rows = [line.split("\t") for line in runner.invoke(app, c["nav"]).stdout.splitlines()]
    assert [(a, b) for a, b, _ in rows] == [("x", "y"), ("x", "z")]
    assert [float(p) for *_, p in rows] == pytest.approx([0.536, 0.7], rel=1e-12)
    # the p* summary: one partition per label path (8 of them), all listed, with a header
    out = runner.invoke(app, c["summary show"]).stdout.splitlines()
    assert out[0].split("\t") == ["sid", "key", "extent", "length", "pi"]
    keys = [line.split("\t")[1] for line in out[1:]]
    assert keys == ["/article", "/article/front", "/article/front/title", "/article/body",
                    "/article/body/sec", "/article/body/sec/p"]
    assert sum(float(line.split("\t")[4]) for line in out[1:]) == pytest.approx(1.0)


def test_tables_for_people_round(store, eval_files) -> None:
    c = commands(store, eval_files)
    r = runner.invoke(app, [*c["nav"], "-f", "table"])
    assert r.stdout.split() == ["from", "to", "p", "x", "y", "0.536", "x", "z", "0.7"]
    r = runner.invoke(app, [*c["nav"], "-f", "table", "--digits", "1"])
    assert r.stdout.split()[-4:] == ["0.5", "x", "z", "0.7"]
    r = runner.invoke(app, [*c["eval"], "-f", "table", "--digits", "2"])
    assert "0.83" in r.stdout and "0.92" in r.stdout and "0.8333" not in r.stdout
    r = runner.invoke(app, [*c["compare"], "-f", "table", "--digits", "3"])
    assert "0.917" in r.stdout and "0.292" in r.stdout and "+0.625" in r.stdout


def test_a_terminal_gets_the_table(monkeypatch) -> None:
    from graphprum.cli.shared import choose_format

    monkeypatch.setattr(sys.stdout, "isatty", lambda: False, raising=False)
    assert choose_format(None, ["table", "tsv"]) == "tsv"
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    assert choose_format(None, ["table", "tsv"]) == "table"
    assert choose_format("json", ["table", "tsv", "json"]) == "json"


def test_unknown_format_is_a_usage_error(store, eval_files) -> None:
    for name, argv in commands(store, eval_files).items():
        r = runner.invoke(app, [*argv, "-f", "xlsx"])
        assert r.exit_code == 2, name
        assert "xlsx" in r.output and "Traceback" not in r.output


def test_undecodable_file_name_bytes_print_as_escapes() -> None:
    """A value holding a file name's undecodable byte (a lone surrogate) is
    written as \\xNN in every format instead of failing to encode."""
    from graphprum.tabular import write_rows

    name = "a" + bytes([0xFF]).decode("utf-8", "surrogateescape") + "b"
    shown = {}
    for fmt in ("tsv", "csv", "json", "table"):
        out = io.StringIO()
        write_rows(["name"], [[name]], fmt, out)
        out.getvalue().encode("utf-8")  # writable to a UTF-8 stream
        shown[fmt] = out.getvalue()
    assert _unescape(shown["tsv"].splitlines()[1]) == "a\\xffb"
    assert list(csv.reader(io.StringIO(shown["csv"])))[1] == ["a\\xffb"]
    assert json.loads(shown["json"]) == [{"name": "a\\xffb"}]
    assert "a\\xffb" in shown["table"]


@pytest.mark.parametrize("command, rounded, more", [
    (["eval"], ["table", "latex", "markdown"], "trec prints trec_eval's own"),
    (["compare"], ["table", "latex", "markdown"], ""),
    (["query"], ["table"], ""),
    (["summary", "show"], ["table"], ""),
])
def test_digits_help_names_the_commands_own_formats(command: list[str], rounded: list[str],
                                                   more: str) -> None:
    """``--digits`` rounds the formats for people a command prints, and its
    help names those (query prints no latex)."""
    text = " ".join(runner.invoke(app, [*command, "--help"], terminal_width=400).stdout.split())
    start = text.index("--digits")
    help_ = text[start:text.index("[default: 4", start)]
    assert f"({', '.join(rounded)}; default 4" in help_
    assert ("latex" in help_) == ("latex" in rounded)
    assert (more in help_) if more else ("trec" not in help_.replace("trec_eval", ""))


def test_a_progress_bar_is_drawn_only_for_work_that_takes_a_while(monkeypatch) -> None:
    """Work done within PROGRESS_DELAY leaves the terminal as it was (before,
    a bar flashed by for every two-topic eval); longer work gets the bar,
    with the count done so far."""
    from graphprum.cli import shared

    monkeypatch.setattr(shared, "show_progress", lambda quiet=False: True)
    with shared.Progress(3, "topics") as bar:
        bar(1)
        bar.update(2, 3)
        assert bar._progress is None
        monkeypatch.setattr(shared, "PROGRESS_DELAY", 0.0)
        bar(1)
        assert bar._progress is not None
        (task,) = bar._progress.tasks
        assert (task.completed, task.total) == (3, 3)


def test_character_counts_are_integers_and_seconds_stay_fractional(tmp_path: Path) -> None:
    """``show`` and ``summary show`` write an XML unit's offsets and lengths
    as integers in tsv, csv and json (``int()`` reads them; before: ``start
    240.0``); the lengths are the characters of the element's text content
    (ElementTree's ``itertext``).  A video segment's seconds stay fractional
    (segment 3 of the trailer runs 00:00:10,500 --> 00:00:16,000)."""
    book = DATA / "book.xml"
    root = ET.parse(book).getroot()
    body = root.find("body")
    assert body is not None
    text = "".join(root.itertext())
    chapters = ["".join(c.itertext()) for c in body]
    body_text = "".join(body.itertext())
    store = tmp_path / "book"
    for args in (["load", "xml", str(book)], ["summary", "build", "p*"]):
        assert runner.invoke(app, ["--store", str(store), *args]).exit_code == 0
    show = ["--store", str(store), "show", "book#/book[1]/body[1]"]
    tsv = [line.split("\t") for line in runner.invoke(app, [*show, "-f", "tsv"]).stdout
           .splitlines()]
    fields = {r[0]: r[1] for r in tsv if len(r) == 2}
    assert int(fields["length"]) == len(body_text)
    assert int(fields["start"]) == text.index(chapters[0]) - body_text.index(chapters[0])
    assert int(fields["end"]) == int(fields["start"]) + len(body_text)
    assert [int(r[3]) for r in tsv if r[0] == "child"] == [len(c) for c in chapters]
    rows = list(csv.reader(io.StringIO(runner.invoke(app, [*show, "-f", "csv"]).stdout)))
    assert {r[0]: r[1] for r in rows if len(r) == 2}["length"] == str(len(body_text))
    data = json.loads(runner.invoke(app, [*show, "-f", "json"]).stdout)
    assert data["unit"]["length"] == len(body_text)
    assert isinstance(data["unit"]["length"], int)
    assert [c["length"] for c in data["children"]] == [len(c) for c in chapters]
    summary = runner.invoke(app, ["--store", str(store), "summary", "show", "p*", "-f", "tsv"])
    first = summary.stdout.splitlines()[1].split("\t")
    assert first[1] == "/book" and first[3] == str(len(text))
    parts = json.loads(runner.invoke(app, ["--store", str(store), "summary", "show", "p*",
                                           "-f", "json"]).stdout)["partitions"]
    assert parts[0]["length"] == len(text) and isinstance(parts[0]["length"], int)

    video = tmp_path / "video"
    assert runner.invoke(app, ["--store", str(video), "load", "video",
                               str(EXAMPLES / "video" / "bbb_trailer.srt")]).exit_code == 0
    seg = runner.invoke(app, ["--store", str(video), "show", "bbb_trailer#3", "-f", "tsv"])
    fields = dict(line.split("\t", 1) for line in seg.stdout.splitlines())
    assert (float(fields["start"]), float(fields["length"])) == (10.5, 5.5)
