"""Focused runs (graphprum.focus, ``graphprum runs focus|check``).

The expected focused run is made here independently: a thorough run over the
elements of real PLOS articles, focused by comparing every result with every
kept one by their XPath prefixes (DESIGN §1.1: positional steps, so
containment is a prefix), where the code under test reads containment from
the store's parent rows.  The task check is the one ``eval --task`` makes.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphprum.cli import app
from graphprum.focus import check_run, focus_run
from graphprum.io.runs import read_run, write_run
from graphprum.loading import load_xml
from graphprum.store.local import LocalStore
from graphprum.store.memory import MemoryStore
from tests.support import PLOS

ARTICLES = sorted((PLOS / "articles").glob("*.xml"))[:2]
runner = CliRunner()


def _overlap(a: str, b: str) -> bool:
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")


def focused_by_hand(ranked: list[str]) -> list[str]:
    kept: list[str] = []
    for u in ranked:
        if not any(_overlap(u, k) for k in kept):
            kept.append(u)
    return kept


@pytest.fixture(scope="module", params=["memory", "local"])
def store(request, tmp_path_factory):
    s = MemoryStore() if request.param == "memory" \
        else LocalStore(tmp_path_factory.mktemp("focus") / "store")
    load_xml(s, ARTICLES)
    return s


@pytest.fixture(scope="module")
def thorough(store, tmp_path_factory) -> Path:
    """300 random elements per topic, scores descending: a thorough run."""
    ids = store.table().ids()
    rng = random.Random(7)
    run = {str(t): rng.sample(ids, 300) for t in (1, 2, 3)}
    path = tmp_path_factory.mktemp("runs") / "thorough.txt"
    write_run(run, path, tag="thor")
    return path


def test_focus_keeps_the_higher_ranked_of_overlapping_results(store, thorough) -> None:
    run = read_run(thorough)
    focused = focus_run(run, store)
    for topic in run.topics:
        expected = focused_by_hand(run.ranked(topic))
        assert focused.run.ranked(topic) == expected
        assert len(expected) < 300  # the sample does overlap
    assert sum(len(t) for t in focused.run.topics.values()) + len(focused.removed) == 900
    for r in focused.removed:  # each removal names a kept result above it that it overlaps
        assert r.kept_rank < r.rank and _overlap(r.unit, r.kept)
        assert r.kept in focused.run.ranked(r.topic)
    assert check_run(run, "focused") and check_run(focused.run, "focused") == []


def test_a_focused_run_reads_back_the_same_by_score_or_by_rank(store, thorough,
                                                               tmp_path) -> None:
    focused = focus_run(thorough, store, tag="focused")
    out = tmp_path / "f.txt"
    write_run(focused.run, out)
    for order in ("score", "rank"):
        back = read_run(out, order=order)
        assert back.tag == "focused"
        assert {t: back.ranked(t) for t in back.topics} == \
            {t: focused.run.ranked(t) for t in focused.run.topics}


def test_focus_follows_the_run_order(store, tmp_path) -> None:
    """With --order rank the ranking is RANK's, which here reverses SCORE's."""
    root = store.table().ids([0])[0]
    child = store.children(root)[0]
    path = tmp_path / "r.txt"
    path.write_text(f"1 Q0 {root} 1 1.0 sys\n1 Q0 {child} 2 2.0 sys\n")
    assert focus_run(path, store).run.ranked("1") == [child]
    assert focus_run(path, store, order="rank").run.ranked("1") == [root]


def test_unknown_ids_are_an_error_naming_the_run(store, tmp_path) -> None:
    from graphprum.errors import InputError

    path = tmp_path / "bad.txt"
    path.write_text("1 Q0 nosuch#/a[1] 1 1.0 sys\n")
    with pytest.raises(InputError, match=r"bad.txt: topic 1: 1 result id\(s\) of run sys are "
                                         r"not in the store"):
        focus_run(path, store)


# ---------------------------------------------------------------- command line
@pytest.fixture(scope="module")
def local_store(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "store"
    load_xml(LocalStore(path), ARTICLES)
    return path


def test_runs_focus_and_check_on_the_command_line(local_store, tmp_path) -> None:
    store = LocalStore(local_store)
    ids = store.table().ids()
    run = {"1": random.Random(3).sample(ids, 200)}
    thorough = tmp_path / "thorough.txt"
    write_run(run, thorough, tag="thor")
    r = runner.invoke(app, ["runs", "check", str(thorough), "--task", "focused", "-f", "tsv"])
    violations = r.stdout.splitlines()[1:]
    assert r.exit_code == 1 and violations
    assert all(line.split("\t")[:2] == ["thor", "1"] for line in violations)
    assert len(violations) == len(check_run(thorough, "focused"))
    r = runner.invoke(app, ["--store", str(local_store), "runs", "focus", str(thorough)])
    assert r.exit_code == 0, r.output
    expected = focused_by_hand(run["1"])
    assert [line.split()[2] for line in r.stdout.splitlines()] == expected
    assert [line.split()[3] for line in r.stdout.splitlines()] == \
        [str(i) for i in range(1, len(expected) + 1)]
    assert f"removed {200 - len(expected)} overlapping result(s) of 200" in r.stderr
    out = tmp_path / "focused.txt"
    r = runner.invoke(app, ["--store", str(local_store), "runs", "focus", str(thorough),
                            "-o", str(out), "--tag", "foc"])
    assert r.exit_code == 0 and r.stdout == ""
    assert read_run(out).tag == "foc" and read_run(out).ranked("1") == expected
    r = runner.invoke(app, ["runs", "check", str(out), "--task", "focused"])
    assert r.exit_code == 0 and "0 violation(s) of the rules of the focused task" in r.stderr


def test_runs_commands_report_mistakes_in_one_line(local_store, tmp_path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 nosuch#/a[1] 1 1.0 sys\n")
    r = runner.invoke(app, ["--store", str(local_store), "runs", "focus", str(bad)])
    assert r.exit_code == 2 and "not in the store" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.output
    r = runner.invoke(app, ["runs", "check", str(bad), "--task", "focus"])
    assert r.exit_code == 2 and "unknown INEX task 'focus'" in r.stderr


def test_a_run_in_memory_is_focused_and_checked_as_its_file(store, thorough) -> None:
    """A DataFrame or a dict, as evaluate takes them (before: "a run is a
    file path or a graphprum Run"): the same kept results, the same
    violations as the file's; a frame of two runs is refused."""
    import pandas as pd

    from graphprum.errors import UsageError

    run = read_run(thorough)
    rows = [(t, u, float(300 - i)) for t in run.topics for i, u in enumerate(run.ranked(t))]
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    scores = {t: {u: s for q, u, s in rows if q == t} for t in run.topics}
    for given in (frame, scores):
        focused = focus_run(given, store)
        assert {t: focused.run.ranked(t) for t in run.topics} == {
            t: focused_by_hand(run.ranked(t)) for t in run.topics}
        assert [str(v) for v in check_run(given, "focused")] == [
            str(v) for v in check_run(run, "focused")]
    with pytest.raises(UsageError, match="holds 2 runs"):
        check_run(frame.assign(tag=["a", "b"] * (len(frame) // 2)), "focused")
    with pytest.raises(UsageError, match="got int"):
        check_run(3, "focused")
