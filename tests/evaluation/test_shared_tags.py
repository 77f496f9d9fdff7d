"""Runs that share a TAG (a run file copied with one setting changed) keep
one row each, named after their files: each has the values it has alone,
and ``compare`` sees two runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphprum.api import compare, evaluate
from graphprum.errors import UsageError
from graphprum.evaluation.job import distinct_names
from graphprum.io.ranking import Run

QRELS = "1 0 a 1\n1 0 c 1\n2 0 b 1\n3 0 d 1\n"
RUN_A = "1 Q0 a 1 3 sys\n1 Q0 b 2 2 sys\n2 Q0 b 1 1 sys\n3 Q0 x 1 1 sys\n3 Q0 d 2 0.5 sys\n"
RUN_B = "1 Q0 b 1 3 sys\n1 Q0 c 2 2 sys\n2 Q0 x 1 1 sys\n3 Q0 d 1 1 sys\n"


def _means(results) -> dict[str, float]:
    rows = results[(results["topic"] == "all") & (results["measure"] == "AP")]
    return dict(zip(rows["run"], rows["value"], strict=True))


def test_two_files_with_one_tag_are_two_rows(tmp_path: Path, write) -> None:
    qrels, a, b = write("qrels", QRELS), write("a.txt", RUN_A), write("b.txt", RUN_B)
    notes: list[str] = []
    both = _means(evaluate([str(a), str(b)], qrels, ["AP"], warn=notes.append))
    alone_a = _means(evaluate([str(a)], qrels, ["AP"]))["sys"]
    alone_b = _means(evaluate([str(b)], qrels, ["AP"]))["sys"]
    assert alone_a != pytest.approx(alone_b)
    assert both == pytest.approx({f"sys ({a})": alone_a, f"sys ({b})": alone_b})
    assert any("share a TAG" in n for n in notes)
    results = evaluate([str(a), str(b)], qrels, ["AP"], warn=lambda _: None)
    pairs = compare(results, ["AP"])
    assert (pairs["run_a"].tolist(), pairs["run_b"].tolist()) == ([f"sys ({a})"], [f"sys ({b})"])


def test_one_file_twice_is_numbered(tmp_path: Path, write) -> None:
    qrels, a = write("qrels", QRELS), write("a.txt", RUN_A)
    got = _means(evaluate([str(a), str(a)], qrels, ["AP"], warn=lambda _: None))
    assert list(got) == ["sys (1)", "sys (2)"]
    assert got["sys (1)"] == pytest.approx(got["sys (2)"])


def test_a_new_name_taken_by_another_run_is_an_error() -> None:
    runs = [Run("s (2)"), Run("s"), Run("s")]
    with pytest.raises(UsageError, match="give them distinct TAGs"):
        distinct_names(runs, lambda _: None)
    distinct = [Run("s", path="x"), Run("t", path="x")]
    assert distinct_names(distinct, lambda _: None) is distinct


def test_a_file_and_a_run_in_memory_with_one_tag_are_numbered(tmp_path: Path, write) -> None:
    """A run in memory has no file to be named after: 'sys ()' was its name."""
    from graphprum.io.objects import run_from_object

    qrels, a = write("qrels", QRELS), write("a.txt", RUN_A)
    (memory,) = run_from_object({"1": {"a": 1.0}}, "runs[1]", "sys")
    got = _means(evaluate([str(a), memory], qrels, ["AP"], warn=lambda _: None))
    assert list(got) == ["sys (1)", "sys (2)"]
