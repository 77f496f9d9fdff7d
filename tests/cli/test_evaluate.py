"""compare / plot / report on the command line, and the HTML report's structure."""

from __future__ import annotations

import json
import re
from pathlib import Path

import lxml.html
import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

from graphprum import cli
from graphprum.cli.evaluate import parse_ranks
from graphprum.errors import UsageError
from graphprum.html_report import build_report

SVG = "{http://www.w3.org/2000/svg}svg"


@pytest.fixture(scope="module")
def app() -> typer.Typer:
    return cli.app


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    """AP by hand: A: t1 (1 + 2/3)/2 = 0.8333, t2 1 -> 0.9167; B: t1 1/4, t2 1/3 -> 0.2917."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("t1 0 d1 1\nt1 0 d2 1\nt1 0 d9 0\nt2 0 d3 1\n")
    a = tmp_path / "a.run"
    a.write_text("t1 Q0 d1 1 3.0 runA\nt1 Q0 dx 2 2.0 runA\nt1 Q0 d2 3 1.0 runA\n"
                 "t2 Q0 d3 1 1.0 runA\n")
    b = tmp_path / "b.run"
    b.write_text("t1 Q0 dx 1 2.0 runB\nt1 Q0 d1 2 1.0 runB\n"
                 "t2 Q0 dy 1 3.0 runB\nt2 Q0 dz 2 2.0 runB\nt2 Q0 d3 3 1.0 runB\n")
    return {"qrels": qrels, "a": a, "b": b}


def invoke(app: typer.Typer, files: dict[str, Path], *args: str):
    runner = CliRunner()
    if "--no-store" not in args:  # no store: not one a developer has in the working directory
        args = (args[0], "--no-store", *args[1:])
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_compare_command(app: typer.Typer, files: dict[str, Path]) -> None:
    r = invoke(app, files, "compare", str(files["a"]), str(files["b"]), "--qrels",
               str(files["qrels"]), "-m", "AP", "--test", "randomization", "-f", "json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert len(rows) == 1
    row = rows[0]
    assert (row["run_a"], row["run_b"]) == ("runA", "runB")
    assert row["mean_a"] == pytest.approx((5 / 6 + 1) / 2)
    assert row["mean_b"] == pytest.approx((1 / 4 + 1 / 3) / 2)
    assert row["p_value"] == 0.5 and row["exact"]  # 2 topics, both won: 2 of 4 sign vectors
    r = invoke(app, files, "compare", str(files["a"]), str(files["b"]), "--qrels",
               str(files["qrels"]), "-m", "AP", "-f", "markdown", "--baseline", "runB")
    assert r.exit_code == 0 and "| AP | runA | runB |" in r.stdout
    r = invoke(app, files, "compare", str(files["a"]), "--qrels", str(files["qrels"]),
               "-m", "AP")
    assert r.exit_code == 2 and "at least two runs" in r.output and "Traceback" not in r.output
    r = invoke(app, files, "compare", str(files["a"]), str(files["b"]), "--qrels",
               str(files["qrels"]), "-m", "AP", "--test", "sign")
    assert r.exit_code == 2 and "unknown test 'sign'" in r.output
    for name, what in (("gm_map", "gmean"), ("num_rel_ret", "sum")):
        # their `all` value is no mean: a mean printed under the name would mislead
        r = invoke(app, files, "compare", str(files["a"]), str(files["b"]), "--qrels",
                   str(files["qrels"]), "-m", name, "--view", "runs")
        assert r.exit_code == 2 and f"-m {name}: its value over topics is their {what}" \
            in r.output and "Traceback" not in r.output


def test_plot_command(app: typer.Typer, files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "pr.png"
    r = invoke(app, files, "plot", str(files["a"]), str(files["b"]), "--qrels",
               str(files["qrels"]), "-m", "P", "-k", "1-3", "-o", str(out))
    assert r.exit_code == 0, r.output
    assert out.read_bytes()[:4] == b"\x89PNG"
    out = tmp_path / "t1.svg"
    r = invoke(app, files, "plot", str(files["a"]), str(files["b"]), "--qrels",
               str(files["qrels"]), "-m", "PRUM", "--per-topic", "t1", "-o", str(out))
    assert r.exit_code == 0, r.output
    assert "<svg" in out.read_text()
    assert "topic t1; navigation: classical" in out.read_text()  # --nav's default
    r = invoke(app, files, "plot", str(files["a"]), "--qrels", str(files["qrels"]),
               "-m", "PRUM", "-o", str(tmp_path / "x.gif"))
    assert r.exit_code == 2 and "figure type '.gif' unknown" in r.output
    r = invoke(app, files, "plot", str(files["a"]), "--qrels", str(files["qrels"]),
               "-m", "PRUM", "--per-topic", "t7", "-o", str(tmp_path / "x.png"))
    assert r.exit_code == 2 and "topic 't7' is not in the results" in r.output


def test_parse_ranks() -> None:
    assert parse_ranks("1-3,10,2") == [1, 2, 3, 10]
    assert parse_ranks(None) is None
    with pytest.raises(UsageError, match="ranks like"):
        parse_ranks("a-b")
    with pytest.raises(UsageError, match=">= 1"):
        parse_ranks("0-5")


def _cell_texts(table: lxml.html.HtmlElement) -> list[list[str]]:
    return [[c.text_content().strip() for c in tr.xpath("./th|./td")]
            for tr in table.xpath(".//tr")]


def test_report_html_structure(app: typer.Typer, files: dict[str, Path], tmp_path: Path,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "report.html"
    args = ["report", "--no-store", str(files["a"]), str(files["b"]), "--qrels",
            str(files["qrels"]),
            "-m", "AP", "-m", "PRUM", "--curve", "PRUM", "--curve", "P", "-k", "1-5",
            "-o", str(out)]
    monkeypatch.setattr("sys.argv", ["/usr/bin/graphprum", *args])
    r = invoke(app, files, *args)
    assert r.exit_code == 0, r.output
    page = out.read_text(encoding="utf-8")
    doc = lxml.html.document_fromstring(page)
    # self-contained: no external resources of any kind
    for el in doc.iter():
        if not isinstance(el.tag, str):
            continue
        for attr in ("src", "href", "{http://www.w3.org/1999/xlink}href", "data", "action"):
            v = el.get(attr)
            assert v is None or not re.match(r"\s*(https?:)?//", v), (el.tag, attr, v)
    assert not doc.xpath("//link|//script|//iframe|//img|//object")
    assert "url(" not in "".join(doc.xpath("//style/text()"))
    assert doc.xpath("//head/meta[@charset='utf-8']") and doc.findtext(".//title")
    # tables: summary, significance, per-topic (one per measure), input files
    summary = doc.xpath("//section[@id='summary']//table")
    assert len(summary) == 1
    cells = _cell_texts(summary[0])
    assert cells[0] == ["run", "AP", "PRUM"]
    assert cells[1][:2] == ["runA", f"{(5 / 6 + 1) / 2:.4f}"]
    assert cells[2][:2] == ["runB", f"{(1 / 4 + 1 / 3) / 2:.4f}"]
    best = summary[0].xpath(".//td[contains(@class, 'best')]")
    assert best[0].text_content() == f"{(5 / 6 + 1) / 2:.4f}"
    sig = _cell_texts(doc.xpath("//section[@id='significance']//table")[0])
    assert [row[:3] for row in sig[1:]] == [["AP", "runA", "runB"], ["PRUM", "runA", "runB"]]
    per_topic = doc.xpath("//section[@id='per-topic']//table")
    assert [t.getprevious().text_content() for t in
            (x.getparent() for x in per_topic)] == ["AP", "PRUM"]
    ap_rows = _cell_texts(per_topic[0])
    assert ap_rows[1] == ["t1", f"{5 / 6:.4f}", "0.2500"]
    assert ap_rows[2] == ["t2", "1.0000", f"{1 / 3:.4f}"]
    assert ap_rows[3][0] == "mean"
    # figures: 2 curves + 2 per-topic figures, all inline SVG with text
    svgs = doc.xpath("//section[@id='figures']//*[local-name()='svg']")
    assert len(svgs) == 4
    assert "PRUM" in svgs[0].text_content()
    # reproduction: command, parameters, versions, input digests
    repro = doc.xpath("//section[@id='reproduce']")[0]
    command = repro.xpath(".//pre")[0].text_content()
    assert command == "graphprum " + " ".join(args)
    params = dict(zip(repro.xpath(".//dl[1]/dt/text()"), repro.xpath(".//dl[1]/dd/text()"),
                      strict=True))
    assert params["navigation models (--nav)"] == "classical"
    assert params["collection size N"].startswith("infinite")
    versions = dict(zip(repro.xpath(".//dl[2]/dt/text()"), repro.xpath(".//dl[2]/dd/text()"),
                        strict=True))
    assert {"graphprum", "numpy", "scipy", "ir_measures", "python"} <= set(versions)
    import hashlib

    inputs = _cell_texts(repro.xpath(".//table")[0])
    assert inputs[1] == ["qrels", str(files["qrels"]), "",
                         hashlib.sha256(files["qrels"].read_bytes()).hexdigest()]
    assert inputs[2][2] == "runA"


def test_report_single_run_has_no_significance_section() -> None:
    df = pd.DataFrame([("a", "AP", "q1", 0.5), ("a", "AP", "q2", 0.25),
                       ("a", "AP", "all", 0.375)], columns=["run", "measure", "topic", "value"])
    page = build_report(df, command="graphprum report a.run")
    doc = lxml.html.document_fromstring(page)
    assert not doc.xpath("//section[@id='significance']")
    assert len(doc.xpath("//*[local-name()='svg']")) == 1  # the per-topic figure
    assert "<script" not in page.lower()


def test_report_escapes_names() -> None:
    df = pd.DataFrame([("<b>x</b>", "AP", "all", 0.5)],
                      columns=["run", "measure", "topic", "value"])
    page = build_report(df, figures=False, title="a & b")
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
    assert "<title>a &amp; b</title>" in page


def _four_measures() -> pd.DataFrame:
    rows = [(run, m, t, v) for run, base in (("a", 0.2), ("b", 0.4))
            for m in ("PRUM", "AP", "nDCG", "P@10")
            for t, v in (("q1", base), ("q2", base + 0.1), ("all", base + 0.05))]
    return pd.DataFrame(rows, columns=["run", "measure", "topic", "value"])


def test_report_names_the_navigation_model_next_to_the_numbers() -> None:
    page = build_report(_four_measures(), figures=False, nav=["structural", "links:hops=2"])
    doc = lxml.html.document_fromstring(page)
    summary = doc.xpath("//section[@id='summary']")[0]
    note = summary.xpath(".//p[@class='nav-model']")
    assert len(note) == 1
    assert [c.text for c in note[0].xpath("./code")] == ["--nav", "structural", "links:hops=2"]
    # above the summary table, not only in the reproduction section at the bottom
    assert note[0].getnext().getnext().xpath(".//table")


def test_report_says_why_a_measure_has_no_per_topic_figure() -> None:
    page = build_report(_four_measures(), nav=["classical"])
    doc = lxml.html.document_fromstring(page)
    figures = doc.xpath("//section[@id='figures']")[0]
    assert len(figures.xpath(".//*[local-name()='svg']")) == 3  # PRUM, AP, nDCG
    notes = [p.text_content() for p in figures.xpath(".//p[@class='note']")]
    assert len(notes) == 1 and notes[0].startswith("No per-topic figure for P@10: ")
    assert "first 3 measures (PRUM, AP, nDCG)" in notes[0]
    # every figure's title names the navigation model
    titles = figures.xpath(".//*[local-name()='svg']")
    assert all("navigation: classical" in t.text_content() for t in titles)
    means = _four_measures().query("topic == 'all'")
    page = build_report(means)
    doc = lxml.html.document_fromstring(page)
    assert "only means over topics" in doc.xpath("//section[@id='figures']")[0].text_content()


@pytest.mark.parametrize(("command", "extra", "message"), [
    ("compare", ["-t", "ttest"], "unknown test 'ttest'"),
    ("compare", ["--correction", "nope"], "unknown correction 'nope'"),
    ("compare", ["--alpha", "2"], "alpha must be in (0, 1)"),
    ("report", ["--alpha", "0", "-o", "r.html"], "alpha must be in (0, 1)"),
    ("report", ["-o", "no/such/dir/r.html"], "no such directory no/such/dir"),
    ("plot", ["-m", "PRUM", "-o", "no/such/dir/f.png"], "no such directory no/such/dir"),
])
def test_options_are_checked_before_evaluating(app: typer.Typer, files: dict[str, Path],
                                               command: str, extra: list[str],
                                               message: str) -> None:
    """A qrels file that does not exist would be the first error of an
    evaluation: the option's error comes instead, so it came first."""
    r = invoke(app, files, command, str(files["a"]), str(files["b"]), "--qrels",
               str(files["qrels"].with_name("missing-qrels")), "-m", "AP", *extra)
    assert r.exit_code == 2
    assert message in r.output and "missing-qrels" not in r.output, r.output


def test_compare_of_one_run_is_refused_before_evaluating(app: typer.Typer,
                                                         files: dict[str, Path]) -> None:
    r = invoke(app, files, "compare", str(files["a"]), "--qrels", str(files["qrels"]) + "x",
               "-m", "AP")
    assert r.exit_code == 2 and "compare needs at least two runs" in r.output


def test_equal_means_are_both_the_best(app: typer.Typer, tmp_path: Path) -> None:
    """P@5 of 0, 0, 3/5 and of 0, 1/5, 2/5: the same mean, 1/5, which float
    sums make 0.19999999999999998 and 0.20000000000000004.  Both runs are
    the best, in eval's bold, compare's table of runs and the report's
    summary (before: one bold, by float noise); the worse third run is not."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"t{t} 0 r{i} 1\n" for t in (1, 2, 3) for i in range(5)))

    def run(tag: str, relevant: tuple[int, int, int]) -> Path:
        path = tmp_path / f"{tag}.run"
        path.write_text("".join(
            f"t{t} Q0 {'r' if i < k else 'n'}{i} {i + 1} {5 - i} {tag}\n"
            for t, k in zip((1, 2, 3), relevant, strict=True) for i in range(5)))
        return path

    runs = [str(run("even", (0, 1, 2))), str(run("late", (0, 0, 3))), str(run("worse", (0, 0, 1)))]
    r = invoke(app, {}, "eval", *runs, "--qrels", str(qrels), "-m", "P@5", "-f", "markdown")
    assert r.exit_code == 0, r.output
    assert [line.split("|")[2].strip() for line in r.stdout.splitlines()[2:]] == [
        "**0.2000**", "**0.2000**", "0.0667"]
    r = invoke(app, {}, "compare", *runs, "--qrels", str(qrels), "-m", "P@5", "--view", "runs",
               "-f", "json")
    assert r.exit_code == 0, r.output
    assert [row["best"] for row in json.loads(r.stdout)] == [True, True, False]
    out = tmp_path / "report.html"
    r = invoke(app, {}, "report", *runs, "--qrels", str(qrels), "-m", "P@5", "-o", str(out))
    assert r.exit_code == 0, r.output
    page = lxml.html.fromstring(out.read_text())
    summary = page.xpath("//table")[0]
    assert ["best" in td.get("class").split() for td in summary.xpath(".//tbody//td[2]")] == [
        True, True, False]


def test_the_reports_topic_tables_mark_the_best_in_the_measures_direction() -> None:
    """ESL is lower-is-better: in the per-topic tables its best is the
    smallest value (before: the largest, as for every measure), AP's the
    largest."""
    from graphprum.html_report import per_topic_tables

    rows = [(run, m, t, v) for m, vals in {"ESL": ((1.0, 4.0), (2.0, 2.0)),
                                           "AP": ((0.5, 0.25), (0.1, 0.3))}.items()
            for t, pair in zip(("t1", "t2"), vals, strict=True)
            for run, v in zip(("A", "B"), pair, strict=True)]
    page = lxml.html.fromstring(per_topic_tables(pd.DataFrame(
        rows, columns=["run", "measure", "topic", "value"])))
    marked = [[("best" in (td.get("class") or "").split()) for td in tr.xpath("td")[1:]]
              for tr in page.xpath("//table//tbody/tr")]
    assert marked == [[True, False], [True, True], [True, False], [False, True]]


@pytest.mark.parametrize("test", ["bootstrap", "t"])
def test_compare_on_one_topic_finds_nothing_significant(app: typer.Typer, tmp_path: Path,
                                                        test: str) -> None:
    """One topic, AP 1 against 1/2: before, the bootstrap's p fell to its floor 1/(B+1)
    and called the difference significant; a test of one difference has no p-value."""
    qrels = tmp_path / "q1.txt"
    qrels.write_text("1 0 a 1\n1 0 b 1\n")
    (tmp_path / "A.txt").write_text("1 Q0 a 1 2 A\n1 Q0 b 2 1 A\n")
    (tmp_path / "B.txt").write_text("1 Q0 b 1 2 B\n1 Q0 c 2 1 B\n")
    r = invoke(app, {}, "compare", str(tmp_path / "A.txt"), str(tmp_path / "B.txt"),
               "--qrels", str(qrels), "-m", "AP", "-t", test, "-f", "json")
    assert r.exit_code == 0, r.output
    (row,) = json.loads(r.stdout)
    assert (row["mean_a"], row["mean_b"], row["n_topics"]) == (1.0, 0.5, 1)
    assert row["p_value"] is None and row["significant"] is False
    assert r.stderr.strip() == (f"note: A vs B on AP: the {test} test is undefined on 1 topic: "
                                "no p-value, not significant; use the randomization test, "
                                "exact there")


@pytest.mark.parametrize(("measure", "use"), [("PRUM(r=1)", "PRUM"),
                                              ("PRUM(exact=enum,r=1)", "PRUM(exact=enum)")])
def test_a_measure_of_one_point_is_reported_without_a_curve(
        app: typer.Typer, files: dict[str, Path], tmp_path: Path, measure: str, use: str) -> None:
    """PRUM(r=K) is precision at integer recall K, one number: report tabulates it and
    draws no curve, plot says so (before: both failed on 'PRUM(r=1)@0.0', a measure the
    user never typed).  By hand, recall 1 at the first relevant unit: runA ranks it first
    in both topics (1, 1); runB second (t1) and third (t2): (1/2 + 1/3) / 2."""
    out = tmp_path / "report.html"
    r = invoke(app, files, "report", str(files["a"]), str(files["b"]), "--qrels",
               str(files["qrels"]), "-m", measure, "-o", str(out))
    assert r.exit_code == 0, r.output
    doc = lxml.html.document_fromstring(out.read_text(encoding="utf-8"))
    cells = _cell_texts(doc.xpath("//section[@id='summary']//table")[0])
    assert cells[0] == ["run", measure]
    assert cells[1][:2] == ["runA", "1.0000"] and cells[2][:2] == ["runB", f"{5 / 12:.4f}"]
    assert "recall level" not in out.read_text(encoding="utf-8")  # no precision-recall curve
    r = invoke(app, files, "plot", str(files["a"]), "--qrels", str(files["qrels"]),
               "-m", measure, "-o", str(tmp_path / "p.png"))
    assert r.exit_code == 2 and not (tmp_path / "p.png").exists()
    assert r.stderr.strip() == (f"graphprum: error: {measure} has no curve (r=1 names one "
                                f"point of it); use -m {use}")


def test_the_report_says_over_which_topics_each_mean_is(app: typer.Typer, files: dict[str, Path],
                                                        tmp_path: Path) -> None:
    """--no-c averages each run over its own topics: runA holds t1 and t2, runC t1 alone,
    so 'Mean over 2 topics' was false for runC (before: said whatever the counts); with
    -c both means are over the qrels' 2 topics."""
    c = tmp_path / "c.run"
    c.write_text("t1 Q0 d1 1 3.0 runC\n")
    for flag, said in (("--no-c", "each run's topics (runA: 2, runC: 1)"), ("-c", "2 topics")):
        out = tmp_path / f"report{flag}.html"
        r = invoke(app, files, "report", str(files["a"]), str(c), "--qrels",
                   str(files["qrels"]), "-m", "AP", "-m", "PRUM", flag, "-o", str(out))
        assert r.exit_code == 0, r.output
        doc = lxml.html.document_fromstring(out.read_text(encoding="utf-8"))
        summary = doc.xpath("//section[@id='summary']//p[@class='note']")[-1].text_content()
        assert summary == f"Mean over {said}; the best mean of each measure is in bold."
        caption = doc.xpath("//section[@id='figures']//figcaption")[0].text_content()
        assert caption == f"PRUM curve, mean over {said}."
        cells = _cell_texts(doc.xpath("//section[@id='summary']//table")[0])
        # AP of runC: t1 finds 1 of its 2 relevant at rank 1 (1/2), t2 is empty (0)
        assert cells[2][:2] == ["runC", "0.2500" if flag == "-c" else "0.5000"]
