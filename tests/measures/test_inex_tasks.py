"""INEX 2006 tasks through the evaluation: best entry points must exist for
BEPD/EPRUM (issue 21 item 5), and a run must keep its task's rules (item 6)."""

from __future__ import annotations

from pathlib import Path

import pytest

import graphprum
from graphprum.errors import InputError
from graphprum.loading import load_xml
from graphprum.store.local import LocalStore

# d: <a> 10 chars, <b> 20, <c> 30 -> a [0, 60), b [10, 30), c [30, 60); e the same
DOC = "<a>xxxxxxxxxx<b>{}</b><c>{}</c></a>".format("y" * 20, "z" * 30)


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> tuple[Path, LocalStore]:
    base = tmp_path_factory.mktemp("tasks")
    (base / "col").mkdir()
    for name in ("d", "e"):
        (base / "col" / f"{name}.xml").write_text(DOC)
    s = LocalStore(base / "store")
    load_xml(s, [base / "col"])
    return base, s


def test_bepd_and_eprum_without_beps_are_an_error(store) -> None:
    """The passages mark d's b [10, 30) but give no BEP: BEPD and EPRUM would
    be 0.0 for every run; that is an error naming the file.  With a BEP at
    10 (b's start), the run (d#/a[1]/b[1]) is at distance 0: BEPD = 1 and
    EPRUM = 1 (one BEP, found at rank 1)."""
    base, s = store
    (base / "nobep.txt").write_text("1 d 10 30\n")
    (base / "run").write_text("1 Q0 d#/a[1]/b[1] 1 1 r\n")
    with pytest.raises(InputError, match=r"nobep\.txt: the passages have no best entry "
                                         r"points: BEPD\(A=0\.1\), EPRUM need BEP lines"):
        graphprum.evaluate([base / "run"], None, ["BEPD(A=0.1)", "EPRUM"], store=s,
                           passages=base / "nobep.txt")
    (base / "bep.txt").write_text("1 d 10 30\n1 d BEP 10\n")
    df = graphprum.evaluate([base / "run"], None, ["BEPD(A=0.1)", "EPRUM"], store=s,
                            passages=base / "bep.txt", per_topic=False)
    assert df["value"].tolist() == pytest.approx([1.0, 1.0], abs=1e-12)


@pytest.mark.parametrize(("task", "lines", "expected"), [
    ("focused", ["d#/a[1]/b[1]", "e#/a[1]", "d#/a[1]"],
     ["d#/a[1] (rank 3) contains d#/a[1]/b[1] (rank 1)"]),
    ("ric", ["d#/a[1]/b[1]", "e#/a[1]", "d#/a[1]/c[1]"],
     ["d#/a[1]/c[1] (rank 3): document d comes back after e#/a[1] (rank 2)"]),
    ("ric", ["d#/a[1]/b[1]", "d#/a[1]"], ["d#/a[1] (rank 2) contains d#/a[1]/b[1] (rank 1)"]),
    ("bic", ["d#/a[1]/b[1]", "e#/a[1]", "d#/a[1]/c[1]"],
     ["d#/a[1]/c[1] (rank 3): a second element of document d (first: d#/a[1]/b[1], rank 1)"]),
    ("focused", ["d#/a[1]/b[1]", "d#/a[1]/c[1]", "e#/a[1]"], []),
    ("thorough", ["d#/a[1]/b[1]", "d#/a[1]"], []),
])
def test_a_run_must_keep_its_tasks_rules(store, task, lines, expected) -> None:
    """INEX 2006 §2, §5-7: focused results do not overlap; relevant in
    context results of an article come together and do not overlap; best in
    context returns one element per article.  Violations are listed on
    stderr, and are an error with --strict."""
    base, s = store
    run = base / f"run-{task}"
    run.write_text("".join(f"1 Q0 {u} {i} {10 - i} r\n" for i, u in enumerate(lines, 1)))
    (base / "q").write_text("1 0 d#/a[1]/b[1] 1\n")
    notes: list[str] = []
    graphprum.evaluate([run], base / "q", ["AP"], store=s, task=task, warn=notes.append)
    found = [n for n in notes if "violation(s) of the rules" in n]
    if not expected:
        assert found == []
        return
    assert found == [f"note: run r: {len(expected)} violation(s) of the rules of the "
                     f"{task} task: " + "; ".join(f"topic 1: {e}" for e in expected)]
    with pytest.raises(InputError, match=r"violation\(s\) of the rules"):
        graphprum.evaluate([run], base / "q", ["AP"], store=s, task=task, strict=True)


def test_task_rules_through_the_command_line(store) -> None:
    from typer.testing import CliRunner

    from graphprum.cli import app

    base, _ = store
    run = base / "run-cli"
    run.write_text("1 Q0 d#/a[1]/b[1] 1 2 r\n1 Q0 d#/a[1] 2 1 r\n")
    (base / "p").write_text("1 d 10 30\n")
    args = ["--store", str(base / "store"), "eval", str(run), "--passages", str(base / "p"),
            "--task", "focused", "--format", "tsv"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0
    assert "d#/a[1] (rank 2) contains d#/a[1]/b[1] (rank 1)" in res.stderr
    res = CliRunner().invoke(app, [*args, "--strict"])
    assert res.exit_code == 2 and "violation(s) of the rules of the focused task" in res.stderr


def test_focused_task_with_element_qrels(store) -> None:
    """``--task focused`` with graded element qrels and no passages (issue 41
    item 2): the gains are the grades.  REL 2 for d's b, 1 for d's a and
    e's c: grades 1, .5, .5.  Ideal recall-base (§5.2): d's b (1 > .5 on
    the path a-b) and e's c, so xCI = 1, 1.5.  The run d's a, e's c: d's a
    holds the ideal b and is credited min(.5, 1) = .5, e's c .5: xCG = .5,
    1, then flat; nxCG@5 = nxCG@10 = ... = 1 / 1.5."""
    from typer.testing import CliRunner

    from graphprum.cli import app

    base, _ = store
    (base / "graded").write_text("1 0 d#/a[1]/b[1] 2\n1 0 d#/a[1] 1\n1 0 e#/a[1]/c[1] 1\n")
    (base / "run-graded").write_text("1 Q0 d#/a[1] 1 2 r\n1 Q0 e#/a[1]/c[1] 2 1 r\n")
    res = CliRunner().invoke(app, ["--store", str(base / "store"), "eval",
                                   str(base / "run-graded"), "--qrels", str(base / "graded"),
                                   "--task", "focused", "-m", "nxCG@1", "--format", "tsv"])
    assert res.exit_code == 0, res.output
    rows = [line.split("\t") for line in res.stdout.splitlines()]
    assert [r[1] for r in rows] == ["nxCG@1", "nxCG@5", "nxCG@10", "nxCG@25", "nxCG@50"]
    assert [float(r[3]) for r in rows] == pytest.approx([0.5] + [1 / 1.5] * 4)
