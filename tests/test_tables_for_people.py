"""The tables for people of eval, compare (both views) and the listings,
byte for byte against golden files: off a terminal and on one (rich's bold
and header styles as ANSI codes), and compare's markdown and LaTeX.

The golden files were written by these writers before they shared one grid
writer (graphprum.tabular.write_grid); a change of layout shows here.
"""

from __future__ import annotations

import io
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest

from graphprum.results import write_results
from graphprum.runs_table import runs_table, write_runs_table
from graphprum.significance import compare, intervals, write_comparison
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
