"""Result writers: round trips of tsv/csv/json, LaTeX and markdown golden files."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from graphprum.errors import UsageError
from graphprum.results import FORMATS, write_results
from graphprum.tabular import latex_escape
from tests.support import GOLDEN
from tests.support.tolerance import text_mismatch

GOLDEN = GOLDEN
RUNS = ("base_line", "new & improved")
MEASURES = ("PRUM", "nxCG@10", "T2I-PR(tau=15)@0.5")
PER_TOPIC = {  # (run, measure) -> values on q1, q2
    (RUNS[0], MEASURES[0]): (0.25, 0.5), (RUNS[1], MEASURES[0]): (0.75, 2 / 3),
    (RUNS[0], MEASURES[1]): (0.1, 0.2), (RUNS[1], MEASURES[1]): (0.3, 0.1),
    (RUNS[0], MEASURES[2]): (1.0, 0.0), (RUNS[1], MEASURES[2]): (0.5, 0.5),
}


def results(per_topic: bool = True) -> pd.DataFrame:
    """Rows in the order run_evaluation writes them: per run, per measure, topics then all."""
    rows = []
    for run in RUNS:
        for m in MEASURES:
            vals = PER_TOPIC[(run, m)]
            if per_topic:
                rows += [(run, m, "q1", vals[0]), (run, m, "q2", vals[1])]
            rows.append((run, m, "all", (vals[0] + vals[1]) / 2))
    return pd.DataFrame(rows, columns=["run", "measure", "topic", "value"])


def render(df: pd.DataFrame, fmt: str, digits: int = 4) -> str:
    out = io.StringIO()
    write_results(df, fmt, out, digits=digits)
    return out.getvalue()


@pytest.mark.parametrize(("fmt", "per_topic", "golden"), [
    ("latex", True, "results.tex"), ("latex", False, "means.tex"),
    ("markdown", True, "results.md"), ("markdown", False, "means.md")])
def test_golden_tables(fmt: str, per_topic: bool, golden: str) -> None:
    """Text exactly, numbers within rel 1e-9 / abs 1e-12 (tests/support/tolerance.py)."""
    assert text_mismatch((GOLDEN / golden).read_text(), render(results(per_topic), fmt)) is None


@pytest.mark.parametrize("fmt", ["table", "latex", "markdown"])
def test_digits_in_tables_for_people(fmt: str) -> None:
    """--digits N: N decimals (the means 0.375 and 17/24 = 0.70833...), no
    exponent and no float noise even for tiny or inexact values."""
    df = results(False)
    df.loc[0, "value"] = 4.834432631412447e-05
    df.loc[1, "value"] = 0.1 + 0.2
    two = render(df, fmt, digits=2)
    assert "0.71" in two and "0.30" in two and "0.00" in two and "0.7083" not in two
    six = render(df, fmt, digits=6)
    assert "0.708333" in six and "0.300000" in six and "0.000048" in six
    for text in (two, six):
        assert "e-05" not in text and "0000000000" not in text


def test_markdown_columns_line_up_with_the_rule() -> None:
    lines = render(results(False), "markdown").splitlines()
    header = lines[0].split("|")[1:-1]
    rule = lines[1].split("|")[1:-1]
    assert [len(h) for h in header] == [len(r) for r in rule]
    assert all(r.endswith(":") for r in rule[1:]) and rule[0].startswith(":")


def test_latex_escapes_every_special_character() -> None:
    text = latex_escape(r"a_b&c%d$e#f{g}h~i^j\k<l>m|n")
    assert text == (r"a\_b\&c\%d\$e\#f\{g\}h\textasciitilde{}i\textasciicircum{}j"
                    r"\textbackslash{}k\textless{}l\textgreater{}m\textbar{}n")


@pytest.mark.parametrize("fmt", ["tsv", "csv", "json"])
def test_round_trip_full_precision(fmt: str) -> None:
    df = results()
    df.loc[0, "value"] = 0.1 + 0.2  # not representable in 4 decimals
    text = render(df, fmt)
    if fmt == "tsv":
        back = pd.read_csv(io.StringIO(text), sep="\t", header=None,
                           names=["run", "measure", "topic", "value"])
    elif fmt == "csv":
        back = pd.read_csv(io.StringIO(text))
    else:
        back = pd.DataFrame(json.loads(text))
    assert back["value"].tolist() == df["value"].tolist()  # exactly, not approximately
    assert back[["run", "measure", "topic"]].values.tolist() == \
        df[["run", "measure", "topic"]].values.tolist()


def test_table_holds_every_value() -> None:
    text = render(results(), "table")
    lines = text.splitlines()
    assert "T2I-PR(tau=15)@0.5" in lines[0]  # not cut at 80 columns in a file
    for run in RUNS:
        assert any(line.startswith("all") and run in line and "0.3750" in line
                   for line in lines) == (run == RUNS[0])
    assert "0.7083" in text and "0.6667" in text


def test_unknown_format() -> None:
    with pytest.raises(UsageError, match="latex, markdown"):
        render(results(), "xlsx")
    assert set(FORMATS) == {"table", "tsv", "csv", "json", "latex", "markdown", "trec"}


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_narrow_terminal_folds_tables_and_cuts_nothing(monkeypatch) -> None:
    """On a 50-column terminal the evaluation and comparison tables wrap
    long cells instead of cutting them with '…' (a cut number or run name
    reads as another)."""
    from graphprum.api import compare
    from graphprum.significance import write_comparison

    monkeypatch.setenv("COLUMNS", "50")
    runs = ["a-very-long-run-name-of-a-system", "another-very-long-run-name"]
    rows = [(r, m, f"t{i}", v + 0.123456789 * i)
            for r, v in zip(runs, [0.1, 0.2], strict=True)
            for m in ("PRUM", "ESL(tau=5,S=1)", "ESL(tau=5)") for i in range(4)]
    df = pd.DataFrame(rows, columns=["run", "measure", "topic", "value"])
    out = _Terminal()
    write_results(df, "table", out)
    text = out.getvalue()
    assert "…" not in text
    out = _Terminal()
    write_comparison(compare(df, ["PRUM"], permutations=64), "table", out)
    assert "…" not in out.getvalue()


def test_a_long_table_is_laid_out_as_rich_would(monkeypatch) -> None:
    """Beyond PLAIN_ROWS rows the table is laid out without rich (4.6 s for
    10,720 rows before): the same lines, text left and numbers right."""
    import graphprum.tabular as tabular

    rows = [[f"S{i}", "/article/body" * (i % 3 + 1), i * 37, i / 7, None if i % 5 else "x"]
            for i in range(60)]
    columns = ["SID", "key", "extent", "length", "note"]
    got = {}
    for limit in (10**9, 10):
        monkeypatch.setattr(tabular, "PLAIN_ROWS", limit)
        out = io.StringIO()
        tabular.write_rows(columns, rows, "table", out, footer="(60 rows)")
        got[limit] = [line.rstrip() for line in out.getvalue().splitlines()]
    assert got[10] == got[10**9]


def test_bold_marks_the_lowest_esl_and_no_count() -> None:
    """The best mean is the largest, the smallest for ESL (give-ups: lower is
    better, docs/measures-t2i.md), none for a count such as num_ret."""
    rows = [(r, m, "all", v) for r, vals in (("example", (3.75, 0.2149, 6.0)),
                                             ("rev", (3.25, 0.2024, 7.0)))
            for m, v in zip(("ESL(tau=5)", "T2I-P(tau=5)", "num_ret"), vals, strict=True)]
    df = pd.DataFrame(rows, columns=["run", "measure", "topic", "value"])
    assert render(df, "markdown").splitlines()[2:] == [
        "| example | 3.7500 | **0.2149** | 6.0000 |",
        "| rev | **3.2500** | 0.2024 | 7.0000 |"]
