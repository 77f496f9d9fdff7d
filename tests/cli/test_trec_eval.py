"""trec_eval's habits on graphprum's command line (issue 21 items 7, 9, 10):
its output layout, its options, its measure names, inputs from stdin,
pipes and gzip files."""

from __future__ import annotations

import gzip
import re
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
    missing (-c: AP 0 in the summary; as trec_eval, no rows of its own).
    Summary: map = 1.8333/3 = 0.6111, counts summed (num_ret 4, num_rel_ret 3), gm_map =
    (0.8333 * 1 * 1e-5)^(1/3) = 0.0203, not shown per topic.  trec_eval
    prints '%-22s\\t%s\\t%6.4f' (counts '%ld'), its measures in the order of
    its measure table whatever the order of -m, and runid (the TAG) for its
    sets only: the lines below are trec_eval 9.0.8's for `trec_eval -c -q -m
    map -m gm_map -m num_ret -m num_rel_ret` (old code: -m's order, runid)."""
    q, r = files
    res = runner.invoke(app, ["eval", str(r), "--qrels", str(q), "--no-store", "-q",
                              "-m", "map", "-m", "gm_map", "-m", "num_ret", "-m", "num_rel_ret",
                              "--format", "trec"])
    assert res.exit_code == 0, res.output
    lines = [ln for ln in res.stdout.splitlines() if not ln.startswith("note:")]
    expected = [("num_ret", "1", "3"), ("num_rel_ret", "1", "2"), ("map", "1", "0.8333"),
                ("num_ret", "2", "1"), ("num_rel_ret", "2", "1"), ("map", "2", "1.0000"),
                ("num_ret", "all", "4"), ("num_rel_ret", "all", "3"), ("map", "all", "0.6111"),
                ("gm_map", "all", "0.0203")]
    assert lines == [f"{m:<22}\t{t}\t{v}" for m, t, v in expected]
    # -n: no summary, as trec_eval -n
    res = runner.invoke(app, ["eval", str(r), "--qrels", str(q), "--no-store", "-q", "-n",
                              "-m", "map", "--format", "trec"])
    assert [ln.split("\t")[1] for ln in res.stdout.splitlines()
            if not ln.startswith("note:")] == ["1", "2"]
    two = runner.invoke(app, ["eval", str(r), str(r), "--qrels", str(q), "--format", "trec"])
    assert two.exit_code == 2 and "writes one run" in two.output


#: The measures of ``trec_eval -c -q -m all_trec`` (9.0.8) in the order it
#: prints them per topic, parameters dropped and repeats joined (its
#: relstring aside, which graphprum does not print); its summary adds num_q
#: first and the geometric means after map and infAP.
TREC_EVAL_ORDER = [
    "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall", "P", "recall", "infAP", "Rprec_mult", "utility", "11pt_avg", "binG", "G",
    "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P",
    "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret"]


def test_all_trec_rows_come_in_trec_evals_order(files) -> None:
    """`-m all_trec -q --format trec` prints trec_eval's rows in its order
    (old code: ndcg before binG and G, map_cut after success, set_recall
    before set_relative_P, and a num_q row per topic, which trec_eval never
    prints)."""
    q, r = files
    res = runner.invoke(app, ["eval", str(r), "--qrels", str(q), "--no-store", "-q",
                              "-m", "all_trec", "--format", "trec"])
    assert res.exit_code == 0, res.output
    rows = [ln.split("\t") for ln in res.stdout.splitlines() if not ln.startswith("note:")]

    def roots(topic: str) -> list[str]:
        names = [re.sub(r"_[0-9.]+$", "", m.strip()) for m, t, _ in rows if t == topic]
        return list(dict.fromkeys(names))

    assert roots("1") == roots("2") == TREC_EVAL_ORDER
    summary = TREC_EVAL_ORDER[:]
    summary[summary.index("map") + 1:summary.index("map") + 1] = ["gm_map"]
    summary[summary.index("infAP") + 1:summary.index("infAP") + 1] = ["gm_bpref"]
    assert roots("all") == ["runid", "num_q", *summary]
    # a measure's cutoffs in increasing order (trec_eval -m P.10,5: P_5, P_10)
    res = runner.invoke(app, ["eval", str(r), "--qrels", str(q), "--no-store", "-m", "P.10,5",
                              "-m", "map", "--format", "trec"])
    assert [ln.split()[0] for ln in res.stdout.splitlines()] == ["map", "P_5", "P_10"]


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


# --- parity found by an audit against pytrec_eval and trec_eval's source -------

def _eval(tmp_path: Path, run: str, qrels: str, *args: str) -> subprocess.CompletedProcess:
    """graphprum in a process of its own: a crash (pytrec_eval segfaulted) is
    a return code, not the end of the test session."""
    (tmp_path / "run").write_text(run)
    (tmp_path / "qrels").write_text(qrels)
    code = ("import sys; sys.argv = ['graphprum', *sys.argv[1:]]; "
            "from graphprum.cli import main; main()")
    return subprocess.run([sys.executable, "-c", code, "eval", str(tmp_path / "run"),
                           "--qrels", str(tmp_path / "qrels"), "--no-store", "--format",
                           "trec", *args], capture_output=True, text=True, timeout=120)


def _values(out: str) -> dict[tuple[str, str], str]:
    return {(f[0].strip(), f[1]): f[2] for f in (line.split("\t") for line in out.splitlines())}


def test_all_trec_with_the_first_topic_missing_from_the_run(tmp_path) -> None:
    """pytrec_eval crashed (SIGSEGV) when the first topic it read had an
    empty ranking: the documented default (-c) with a topic the run lacks."""
    r = _eval(tmp_path, "2 Q0 c 1 1.0 t\n", "1 0 a 1\n1 0 b 0\n2 0 c 1\n", "-m", "all_trec",
              "-q")
    assert r.returncode == 0, r.stderr
    got = _values(r.stdout)
    assert (got["map", "all"], got["num_q", "all"], got["map", "2"]) == ("0.5000", "2", "1.0000")
    assert not any(topic == "1" for _, topic in got)  # trec_eval prints no rows for it


def test_means_add_as_trec_eval_adds(tmp_path) -> None:
    """16 topics with 4, 1, 4, 8, ... relevant documents in their first 30:
    added one after another in topic order, the mean P_30 is 0.13125 and
    prints 0.1313, as trec_eval's; numpy's pairwise sum gives
    0.13124999999999998, printed 0.1312."""
    counts = [4, 1, 4, 8, 3, 9, 6, 0, 3, 0, 6, 2, 0, 2, 7, 8]
    run = "".join(f"t{i:02d} Q0 d{j} {j + 1} {30 - j} r\n" for i in range(16) for j in range(30))
    qrels = "".join("".join(f"t{i:02d} 0 d{j} 1\n" for j in range(k)) or f"t{i:02d} 0 x 1\n"
                    for i, k in enumerate(counts))
    total = 0.0
    for k in counts:
        total += k / 30
    assert f"{total / 16:.4f}" == "0.1313"
    r = _eval(tmp_path, run, qrels, "-m", "P_30")
    assert r.returncode == 0, r.stderr
    assert _values(r.stdout)["P_30", "all"] == "0.1313"


def test_num_rel_of_all_under_c_counts_every_relevant_judgement(tmp_path) -> None:
    """trec_eval -c (m_num_rel.c): the summary num_rel is every judgement with
    REL > 0 in the qrels, whatever -l; per topic it follows -l."""
    qrels = "1 0 a 1\n1 0 b 2\n2 0 c 1\n3 0 d 2\n"
    r = _eval(tmp_path, "1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n", qrels, "-m", "num_rel", "-l", "2", "-q")
    assert r.returncode == 0, r.stderr
    got = _values(r.stdout)
    assert (got["num_rel", "1"], got["num_rel", "all"]) == ("1", "4")
    r = _eval(tmp_path, "1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n", qrels, "-m", "num_rel", "-l", "2",
              "--no-c")
    assert _values(r.stdout)["num_rel", "all"] == "1"
