"""The tables for people of eval, compare (both views) and the listings,
byte for byte against golden files: off a terminal and on one (rich's bold
and header styles as ANSI codes), and compare's markdown and LaTeX.

The golden files were written by these writers before they shared one grid
writer (graphprum.tabular.write_grid); a change of layout shows here.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest
from rich.cells import cell_len

from graphprum.results import write_results
from graphprum.runs_table import runs_table, write_runs_table
from graphprum.significance import compare, compare_measures, intervals, write_comparison
from graphprum.tabular import write_rows
from tests.support import GOLDEN

TABLES = GOLDEN / "tables"


class Terminal(io.StringIO):
    """A stream rich takes for a terminal."""

    def isatty(self) -> bool:
        return True


def evaluation(per_topic: bool) -> pd.DataFrame:
    """Three runs, one whose name needs escaping in every format; a tie for the best P_5."""
    values = {"bm25": [0.5, 0.25, 0.125], "rm3_[x]": [0.75, 0.5, 0.0], "lm & co": [0.5, 0.5, 0.5]}
    rows = []
    for run, vals in values.items():
        for m, scale in (("AP", 1.0), ("P_5", 0.8), ("nxCG@10", 0.3)):
            v = [min(1.0, x * scale) if m != "P_5" else 0.4 for x in vals]
            if per_topic:
                rows += [(run, m, f"q{i}", x) for i, x in enumerate(v)]
            rows.append((run, m, "all", float(np.mean(v))))
    return pd.DataFrame(rows, columns=["run", "measure", "topic", "value"])


def topics() -> pd.DataFrame:
    """Twelve topics: A beats B everywhere, C ties B on half the topics."""
    a = np.linspace(0.2, 0.8, 12)
    runs = {"A": a + 0.2, "B_1": a, "C": a + np.tile([0.01, 0.0], 6)}
    rows = [(r, "AP", f"q{i}", float(x)) for r, v in runs.items() for i, x in enumerate(v)]
    rows += [(r, "AP", "all", float(np.mean(v))) for r, v in runs.items()]
    return pd.DataFrame(rows, columns=["run", "measure", "topic", "value"])


def eval_table(fmt: str, out: io.StringIO) -> None:
    write_results(evaluation(per_topic=False), fmt, out)


def eval_topics(fmt: str, out: io.StringIO) -> None:
    write_results(evaluation(per_topic=True), fmt, out, digits=3)


def pairs(fmt: str, out: io.StringIO) -> None:
    write_comparison(compare(topics(), "AP", test="randomization", baseline="B_1"), fmt, out)


def by_run(fmt: str, out: io.StringIO) -> None:
    df = topics()
    res = compare(df, "AP", correction="none")
    means = intervals(df, "AP", method="percentile", samples=200)
    write_runs_table(runs_table(res, means), fmt, out, note="Letters [a]: as said.")


def listing(fmt: str, out: io.StringIO) -> None:
    write_rows(["name", "n", "share"], [["a_[b]", 1_234, 0.5], ["c", 5, None]], fmt, out,
               title="Title [x]", footer="(2 rows)", group_thousands=True)


CASES: dict[str, Callable[[str, io.StringIO], None]] = {
    "eval": eval_table, "eval-topics": eval_topics, "compare": pairs, "compare-runs": by_run,
    "listing": listing}


@pytest.mark.parametrize(("case", "fmt", "terminal"), [
    *((c, "table", t) for c in CASES for t in (False, True)),
    ("compare", "markdown", False), ("compare", "latex", False)])
def test_table_layouts_are_unchanged(case: str, fmt: str, terminal: bool,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NO_COLOR", "FORCE_COLOR", "COLORTERM", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("COLUMNS", "100")
    out = Terminal() if terminal else io.StringIO()
    CASES[case](fmt, out)
    golden = TABLES / f"{case}.{fmt}{'.ansi' if terminal else ''}"
    assert out.getvalue() == golden.read_text(encoding="utf-8")


# ------------------------------------------- a grid wider than the terminal
_RULES = re.compile(r"[\s│┃━╇─┼]+")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def at_80_columns(write: Callable[[str, io.StringIO], None],
                  monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], set[str]]:
    """The lines ``write`` draws on an 80-column terminal (ANSI codes taken
    out), and the words of what it draws off a terminal (as wide as it likes)."""
    for name in ("NO_COLOR", "FORCE_COLOR", "COLORTERM", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("COLUMNS", "80")
    narrow, wide = Terminal(), io.StringIO()
    write("table", narrow)
    write("table", wide)
    lines = _ANSI.sub("", narrow.getvalue()).splitlines()
    assert max(cell_len(line) for line in lines) <= 80
    return lines, set(words_of(wide.getvalue()))


def words_of(text: str) -> list[str]:
    """The words of a drawn table: what is between spaces and rules."""
    return [w for w in _RULES.split(text) if w]


MEASURES = [f"iprec_at_recall_{x / 10:.2f}" for x in range(11)] + \
    [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)] + \
    [f"recall_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]


def wide(topics: int) -> pd.DataFrame:
    """Two runs, 29 measures (trec_eval's ``official``-like), ``topics`` topics."""
    rng = np.random.default_rng(7)
    rows = []
    for run in ("plos-bm25-elements", "plos-sections"):
        for m in MEASURES:
            v = rng.uniform(0.1, 0.9, topics)
            rows += [(run, m, f"q{i}", float(x)) for i, x in enumerate(v) if topics > 1]
            rows.append((run, m, "all", float(np.mean(v))))
    return pd.DataFrame(rows, columns=["run", "measure", "topic", "value"])


def test_a_grid_too_wide_for_the_terminal_has_its_measures_as_rows(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """29 measures of two runs at 80 columns: trec_eval's layout, a measure
    per line, then the runs' values whole (rich folded them to 0-2 characters)."""
    df = wide(topics=1)
    lines, words = at_80_columns(lambda f, o: write_results(df, f, o), monkeypatch)
    rows = [r for r in (words_of(line) for line in lines) if r]
    assert rows[0] == ["run", "plos-bm25-elements", "plos-sections"]
    means = df.set_index(["measure", "run"])["value"]
    for m in MEASURES:
        assert [m, f"{means[m, 'plos-bm25-elements']:.4f}",
                f"{means[m, 'plos-sections']:.4f}"] in rows
    assert words <= {w for r in rows for w in r}


def test_per_topic_rows_too_wide_even_transposed_are_long(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Per topic, transposed is as wide as topics x runs: one row per run,
    topic and measure, as the TSV lays them out."""
    df = wide(topics=6)
    lines, words = at_80_columns(lambda f, o: write_results(df, f, o, digits=3), monkeypatch)
    rows = [r for r in (words_of(line) for line in lines) if r]
    assert rows[0] == ["topic", "run", "measure", "value"]
    expected = [[t, r, m, f"{v:.3f}"] for r, m, t, v in df.itertuples(index=False)]
    assert sorted(rows[1:]) == sorted(expected)
    assert words <= {w for r in rows for w in r}


@pytest.mark.parametrize("case", ["compare", "compare-runs"])
def test_compare_at_80_columns_keeps_every_number_whole(
        case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pairs of ``compare --test randomization`` and its runs view, with
    long run names: every word drawn off a terminal is drawn whole at 80
    columns (rich split ``0.1789`` into ``0.178`` / ``9``)."""
    df = topics().replace({"run": {"A": "plos-bm25-elements", "B_1": "plos-sections",
                                   "C": "plos-sections-rm3"}})
    two = pd.concat([df, df.assign(measure="PRUM", value=df["value"] * 0.9),
                     df.assign(measure="nDCG@10", value=df["value"] * 0.8)])
    names = ["AP", "PRUM", "nDCG@10"]

    def write(fmt: str, out: io.StringIO) -> None:
        if case == "compare":
            write_comparison(compare_measures(two, names, test="randomization"), fmt, out)
        else:
            res = compare_measures(two, names, correction="none")
            means = intervals(two, names, method="percentile", samples=200)
            write_runs_table(runs_table(res, means), fmt, out)

    lines, words = at_80_columns(write, monkeypatch)
    assert words <= {w for line in lines for w in words_of(line)}


# ------------------------------------- ids and prose wider than the terminal
P1 = "pone-0052690#/article[1]/body[1]/sec[1]/p[1]"
TARGETS = ["pone-0052690#/article[1]/body[1]/sec[1]", "pone-0052690#/article[1]",
           "pone-0052690#/article[1]/body[1]/sec[1]/p[2]"]


def test_ids_too_wide_for_a_table_are_drawn_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """``nav``'s three columns of 44-character ids are 98 wide: at 80 columns
    every id is whole on a line beside its column's name (rich folded the
    from id into ``…/article[1]/b`` / ``ody[1]/…`` and put to and p on
    alternate rows)."""
    ps = [0.28211128445137806, 0.0283341602903925, 0.0]
    lines, words = at_80_columns(
        lambda f, o: write_rows(["from", "to", "p"], [[P1, t, p] for t, p in zip(
            TARGETS, ps, strict=True)], f, o), monkeypatch)
    rows = [words_of(line) for line in lines]
    for t, p in zip(TARGETS, ps, strict=True):
        i = rows.index(["to", t])
        assert rows[i - 1:i + 2] == [["from", P1], ["to", t], ["p", f"{p:.4g}"]]
    assert words <= {w for r in rows for w in r}


def test_an_id_wider_than_the_terminal_stays_on_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """An id of 120 characters at 80 columns: on one line, whole, for the
    terminal to wrap and a reader to copy (never cut into lines by us)."""
    long_id = "doc#" + "/sec[1]" * 16 + "/p[1]"
    monkeypatch.setenv("COLUMNS", "80")
    out = Terminal()
    write_rows(["from", "to", "p"], [[long_id, P1, 0.5]], "table", out)
    assert any(long_id in line.split() for line in _ANSI.sub("", out.getvalue()).splitlines())


@pytest.mark.parametrize("columns", [80, 120])
def test_measures_on_a_terminal_is_a_row_per_measure(
        columns: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """``graphprum measures`` on a terminal: each vocabulary under its heading,
    then its columns' names, then per measure its name, cutoff, aggregate,
    needs and curve on one line and its summary after them, wrapped at spaces:
    the words read in the catalog's order (before, at 80 to 200 columns, a
    line per field: 539 and 465 lines of name, column, value).  No line is
    wider than the terminal; at 120 it is one table, the summary beside."""
    from graphprum.cli.measures import SECTIONS, print_catalog
    from graphprum.measures.names import catalog

    for name in ("NO_COLOR", "FORCE_COLOR", "COLORTERM", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("COLUMNS", str(columns))
    out = Terminal()
    monkeypatch.setattr("sys.stdout", out)
    print_catalog("table")
    lines = _ANSI.sub("", out.getvalue()).splitlines()
    assert max(cell_len(line.rstrip()) for line in lines) <= columns
    expected: list[str] = []
    rows = catalog()
    for source, heading in SECTIONS.items():
        section = [r for r in rows if r["source"] == source]
        shown = [c for c in section[0] if c != "source" and any(r[c] != "-" for r in section)]
        expected += heading.split() + shown
        for r in section:
            expected += [w for c in shown for w in r[c].split()]
    assert [w for line in lines for w in line.split()] == expected
    if columns == 120:
        assert lines[1].split() == ["name", "cutoff", "aggregate", "needs", "curve", "summary"]
