"""trec_eval's habits on graphprum's command line (issue 21 items 7, 9, 10):
its output layout, its options, its measure names, inputs from stdin,
pipes and gzip files."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphprum.cli import app

runner = CliRunner()

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n3 0 e 1\n"
RUN = "1 Q0 a 1 3 run1\n1 Q0 x 2 2 run1\n1 Q0 c 3 1 run1\n2 Q0 d 1 1 run1\n9 Q0 z 1 1 run1\n"


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    return tmp_path / "q", tmp_path / "r"


def graphprum(*args: str, stdin: str | None = None, shell: bool = False
              ) -> subprocess.CompletedProcess:
    """The command line in a fresh process (the installed entry point's code)."""
    cmd = [sys.executable, "-c", "from graphprum.cli import main; main()", *args]
    if shell:  # bash, for process substitution; ``args`` are shell words
        cmd = ["bash", "-c", f"'{sys.executable}' -c 'from graphprum.cli import main; main()' "
               + " ".join(args)]
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, check=False)


def test_format_trec_is_trec_evals_layout(files) -> None:
    """Topic 1 ranks a (REL 1), x (unjudged), c (REL 2): AP = (1/1 + 2/3)/2 =
    0.8333, num_ret 3, num_rel_ret 2.  Topic 2 ranks d: AP 1.  Topic 3 is
    missing (-c: AP 0, num_rel 1).  Summary: map = 1.8333/3 = 0.6111, counts
    summed (num_ret 4, num_rel_ret 3), gm_map =
    (0.8333 * 1 * 1e-5)^(1/3) = 0.0203, not shown per topic; runid the TAG.
    trec_eval prints '%-22s\\t%s\\t%6.4f' (counts '%ld')."""
    q, r = files
    res = runner.invoke(app, ["eval", str(r), "--qrels", str(q), "--no-store", "-q",
                              "-m", "map", "-m", "gm_map", "-m", "num_ret", "-m", "num_rel_ret",
                              "--format", "trec"])
    assert res.exit_code == 0, res.output
    lines = [ln for ln in res.stdout.splitlines() if not ln.startswith("note:")]
    expected = [("map", "1", "0.8333"), ("num_ret", "1", "3"), ("num_rel_ret", "1", "2"),
                ("map", "2", "1.0000"), ("num_ret", "2", "1"), ("num_rel_ret", "2", "1"),
                ("map", "3", "0.0000"), ("num_ret", "3", "0"), ("num_rel_ret", "3", "0"),
                ("runid", "all", "run1"), ("map", "all", "0.6111"), ("gm_map", "all", "0.0203"),
                ("num_ret", "all", "4"), ("num_rel_ret", "all", "3")]
    assert lines == [f"{m:<22}\t{t}\t{v}" for m, t, v in expected]
    # -n: no summary, as trec_eval -n
    res = runner.invoke(app, ["eval", str(r), "--qrels", str(q), "--no-store", "-q", "-n",
                              "-m", "map", "--format", "trec"])
    assert [ln.split("\t")[1] for ln in res.stdout.splitlines()
            if not ln.startswith("note:")] == ["1", "2", "3"]
    two = runner.invoke(app, ["eval", str(r), str(r), "--qrels", str(q), "--format", "trec"])
    assert two.exit_code == 2 and "writes one run" in two.output


def test_trec_eval_options(files) -> None:
    """--no-c averages over the run's topics (1 and 2): map (0.8333 + 1)/2 =
    0.9167, num_q 2.  -l 2: only c is relevant (topic 1, rank 3): map over
    the qrels' 3 topics = (1/3)/3; topic 2 and 3 have no relevant document.
    -M 1 keeps a and d: map = (1/2 + 1 + 0)/3 = 0.5.  -J drops x: topic 1
    is a, c: AP 1, map (1 + 1 + 0)/3."""
    q, r = files

    def value(*opts: str, measure: str = "map") -> float:
        res = runner.invoke(app, ["eval", str(r), "--qrels", str(q), "--no-store", "-m", measure,
                                  "--format", "tsv", *opts])
        assert res.exit_code == 0, res.output
        rows = [ln.split("\t") for ln in res.stdout.splitlines() if not ln.startswith("note:")]
        return float(rows[-1][3])

    assert value("--no-c") == pytest.approx(11 / 12, abs=1e-12)
    assert value("--no-c", measure="num_q") == 2
    assert value("-c") == value() == pytest.approx(1.8333333333333333 / 3, abs=1e-12)
    assert value("-l", "2") == value("-l2") == pytest.approx(1 / 9, abs=1e-12)
    # -l applies to ir_measures names without rel= (NumRelRet is NumRet(rel=1) inside)
    assert value("-l", "2", measure="NumRelRet") == value("-l", "2", measure="num_rel_ret") == 1
    assert value("-l", "2", measure="NumRelRet(rel=1)") == 3
    assert value("-M", "1") == pytest.approx(0.5, abs=1e-12)
    assert value("-J") == pytest.approx(2 / 3, abs=1e-12)


def test_trec_eval_measure_names_and_typos(files) -> None:
    q, r = files
    res = runner.invoke(app, ["eval", str(r), "--qrels", str(q), "--no-store", "-m", "P.1,2",
                              "-m", "NDCG_CUT_10", "-m", "Recip_Rank", "--format", "tsv"])
    assert res.exit_code == 0, res.output
    names = [ln.split("\t")[1] for ln in res.stdout.splitlines() if not ln.startswith("note:")]
    assert names == ["P_1", "P_2", "ndcg_cut_10", "recip_rank"]
    bad = graphprum("eval", str(r), "--qrels", str(q), "--no-store", "-m", "ndgc_cut_10")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip().startswith("graphprum: error: unknown measure 'ndgc_cut_10'; did "
                                         "you mean ndcg_cut")
    assert "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_inputs_from_stdin_pipes_and_gzip(files, tmp_path) -> None:
    """Issue 21 item 7: '-' reads standard input; <(zcat run.gz) is a pipe whose
    first bytes the format sniff must not lose; .gz files are read as they
    are.  All give the -c map of the other tests, 1.8333/3."""
    q, _ = files
    (tmp_path / "r.gz").write_bytes(gzip.compress(RUN.encode()))
    (tmp_path / "q.gz").write_bytes(gzip.compress(QRELS.encode()))
    expected = f"run1\tmap\tall\t{1.8333333333333333 / 3!r}"
    runs = [graphprum("eval", "-", "--qrels", str(q), "--no-store", "-m", "map", stdin=RUN),
            graphprum("eval", str(tmp_path / "r.gz"), "--qrels", str(tmp_path / "q.gz"),
                      "--no-store", "-m", "map"),
            graphprum("eval", f"<(gzip -dc '{tmp_path / 'r.gz'}')", "--qrels",
                      f"<(cat '{q}')", "--no-store", "-m", "map", shell=True)]
    for p in runs:
        assert p.returncode == 0, p.stderr
        assert p.stdout.strip() == expected
    both = graphprum("eval", "-", "--qrels", "-", "--no-store", "-m", "map", stdin=RUN)
    assert both.returncode == 2 and "only one input can be read from standard input" in \
        both.stderr
    bad = graphprum("eval", "-", "--qrels", str(q), "--no-store", "-m", "map",
                    stdin="1 Q0 a 1 x run1\n")
    assert bad.returncode == 2
    assert bad.stderr.strip() == ("graphprum: error: <stdin>:1: expected SCORE a number, "
                                  "got 'x'")
