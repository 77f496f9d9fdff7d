"""The ranx-style table of ``compare --view runs`` (graphprum.runs_table): its
layout against hand-written text for a tiny case, and the command."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from graphprum.cli import app
from graphprum.runs_table import runs_table, write_runs_table

PAIRS = pd.DataFrame(
    [("PRUM", "bm25", "sections", 0.5, 0.3, True), ("PRUM", "bm25", "lm", 0.5, 0.45, False),
     ("PRUM", "sections", "lm", 0.3, 0.45, True), ("AP", "bm25", "sections", 0.2, 0.4, True),
     ("AP", "bm25", "lm", 0.2, 0.1, False), ("AP", "sections", "lm", 0.4, 0.1, True)],
    columns=["measure", "run_a", "run_b", "mean_a", "mean_b", "significant"])
NAN = float("nan")
MEANS = pd.DataFrame(
    [("PRUM", "bm25", 0.5, 0.4, 0.6, 20, "bca", 0.95),
     ("PRUM", "sections", 0.3, 0.25, 0.35125, 20, "bca", 0.95),
     ("PRUM", "lm", 0.45, 0.3, 0.5, 20, "bca", 0.95),
     ("AP", "bm25", 0.2, NAN, NAN, 20, "none", 0.95),
     ("AP", "sections", 0.4, NAN, NAN, 20, "none", 0.95),
     ("AP", "lm", 0.1, NAN, NAN, 20, "none", 0.95)],
    columns=["measure", "run", "mean", "ci_low", "ci_high", "n_topics", "method", "confidence"])

MARKDOWN = """\
| # | run | PRUM | 95% CI | AP |
|:---|:---|:---|:---|:---|
| a | bm25 | **0.500**<sup>b</sup> | [0.400, 0.600] | 0.200 |
| b | sections | 0.300 | [0.250, 0.351] | **0.400**<sup>ac</sup> |
| c | lm | 0.450<sup>b</sup> | [0.300, 0.500] | 0.100 |

Letters: as said.
"""

LATEX = r"""% Letters: as said.
\begin{tabular}{lllll}
\toprule
\# & run & PRUM & 95\% CI & AP \\
\midrule
a & bm25 & \textbf{0.500}$^{b}$ & [0.400, 0.600] & 0.200 \\
b & sections & 0.300 & [0.250, 0.351] & \textbf{0.400}$^{ac}$ \\
c & lm & 0.450$^{b}$ & [0.300, 0.500] & 0.100 \\
\bottomrule
\end{tabular}
"""

TABLE = """\
#  run       PRUM    95% CI          AP
a  bm25      0.500ᵇ  [0.400, 0.600]  0.200
b  sections  0.300   [0.250, 0.351]  0.400ᵃᶜ
c  lm        0.450ᵇ  [0.300, 0.500]  0.100
Letters: as said.
"""


def written(fmt: str) -> str:
    out = io.StringIO()
    write_runs_table(runs_table(PAIRS, MEANS), fmt, out, digits=3, note="Letters: as said.")
    return out.getvalue()


def test_rows_name_the_runs_each_one_beats() -> None:
    table = runs_table(PAIRS, MEANS)
    assert table[["measure", "run", "letter", "best", "better_than"]].values.tolist() == [
        ["PRUM", "bm25", "a", True, ["sections"]], ["PRUM", "sections", "b", False, []],
        ["PRUM", "lm", "c", False, ["sections"]], ["AP", "bm25", "a", False, []],
        ["AP", "sections", "b", True, ["bm25", "lm"]], ["AP", "lm", "c", False, []]]


@pytest.mark.parametrize(("fmt", "expected"), [("markdown", MARKDOWN), ("latex", LATEX),
                                               ("table", TABLE)])
def test_layout(fmt: str, expected: str) -> None:
    got = written(fmt)
    assert [line.rstrip() for line in got.splitlines()] == expected.splitlines()


def test_machine_formats_carry_every_column_at_full_precision() -> None:
    rows = json.loads(written("json"))
    assert rows[1] == {"measure": "PRUM", "run": "sections", "letter": "b", "mean": 0.3,
                       "ci_low": 0.25, "ci_high": 0.35125, "confidence": 0.95,
                       "n_topics": 20, "best": False, "better_than": []}
    assert rows[4]["ci_low"] is None and rows[4]["better_than"] == ["bm25", "lm"]
    tsv = written("tsv").splitlines()
    assert tsv[0].split("\t")[:4] == ["measure", "run", "letter", "mean"]
    assert tsv[5].split("\t")[-1] == '["bm25", "lm"]'


def test_compare_view_runs_on_the_command_line(tmp_path: Path) -> None:
    """Two runs, AP by hand: A 0.9167 (t1 (1 + 2/3)/2, t2 1), B 0.2917 (1/4, 1/3)."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("t1 0 d1 1\nt1 0 d2 1\nt2 0 d3 1\n")
    (tmp_path / "a").write_text("t1 Q0 d1 1 3 A\nt1 Q0 dx 2 2 A\nt1 Q0 d2 3 1 A\n"
                                "t2 Q0 d3 1 1 A\n")
    (tmp_path / "b").write_text("t1 Q0 dx 1 2 B\nt1 Q0 d1 2 1 B\n"
                                "t2 Q0 dy 1 3 B\nt2 Q0 dz 2 2 B\nt2 Q0 d3 3 1 B\n")
    args = ["compare", "--no-store", str(tmp_path / "a"), str(tmp_path / "b"), "--qrels",
            str(qrels), "-m", "AP", "--view", "runs"]
    r = CliRunner().invoke(app, [*args, "-f", "json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert [(x["run"], x["letter"], x["best"]) for x in rows] == [("A", "a", True),
                                                                ("B", "b", False)]
    assert rows[0]["mean"] == pytest.approx((5 / 6 + 1) / 2)
    assert rows[1]["mean"] == pytest.approx((1 / 4 + 1 / 3) / 2)
    # two topics: the resampled means lie between the topics' values
    assert 5 / 6 - 1e-12 <= rows[0]["ci_low"] <= rows[0]["ci_high"] <= 1.0 + 1e-12
    r = CliRunner().invoke(app, [*args, "-f", "markdown", "--ci", "none"])
    assert r.stdout.splitlines()[:2] == ["| # | run | AP |", "|:---|:---|:---|"]
    assert r.stdout.splitlines()[2] == "| a | A | **0.9167** |"  # 2 topics: nothing significant
    r = CliRunner().invoke(app, [*args, "--ci", "basic"])
    assert r.exit_code == 2 and "--ci 'basic'" in r.output


def test_for_esl_the_lower_mean_is_best_and_beats() -> None:
    """ESL counts give-ups (lower is better, docs/measures-t2i.md): the bold
    and the letter go to the smaller mean; a count (num_ret) gets neither."""
    pairs = pd.DataFrame([("ESL(tau=5)", "example", "rev", 3.75, 3.25, True),
                          ("PRUM", "example", "rev", 0.5, 0.25, True),
                          ("num_ret", "example", "rev", 6.0, 5.0, True)],
                         columns=["measure", "run_a", "run_b", "mean_a", "mean_b", "significant"])
    means = pd.DataFrame([(m, r, v, NAN, NAN, 2, "none", 0.95) for m, r, v in (
        ("ESL(tau=5)", "example", 3.75), ("ESL(tau=5)", "rev", 3.25), ("PRUM", "example", 0.5),
        ("PRUM", "rev", 0.25), ("num_ret", "example", 6.0), ("num_ret", "rev", 5.0))],
        columns=MEANS.columns)
    table = runs_table(pairs, means)
    assert table[["measure", "run", "best", "better_than"]].values.tolist() == [
        ["ESL(tau=5)", "example", False, []], ["ESL(tau=5)", "rev", True, ["example"]],
        ["PRUM", "example", True, ["rev"]], ["PRUM", "rev", False, []],
        ["num_ret", "example", False, []], ["num_ret", "rev", False, []]]
    out = io.StringIO()
    write_runs_table(table, "markdown", out, digits=2)
    assert out.getvalue().splitlines()[2:] == [
        "| a | example | 3.75 | **0.50**<sup>b</sup> | 6.00 |",
        "| b | rev | **3.25**<sup>a</sup> | 0.25 | 5.00 |"]
