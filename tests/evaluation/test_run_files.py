"""Several run files read in ``jobs`` processes
(:func:`graphprum.evaluation.inputs.read_run_items`): the runs read here,
and the first file's error whatever the number of processes, as one
process reading the files in order reports it."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from graphprum.errors import InputError
from graphprum.evaluation import inputs
from graphprum.evaluation.inputs import read_run_items, run_items
from graphprum.evaluation.options import EvalOptions
from graphprum.io.runs import read_run


def _write_run(path: Path, topics: int, results: int, tag: str = "sys") -> Path:
    with open(path, "w", encoding="utf-8") as f:
        for t in range(1, topics + 1):
            for i in range(results):
                f.write(f"{t} Q0 doc-{t}-{i:05d} {i + 1} {(i * 7919) % 1000 / 7:.6f} {tag}\n")
    return path


def _read(paths: list[Path], jobs: int | str) -> list:  # type: ignore[type-arg]
    return read_run_items(run_items(paths), EvalOptions(jobs=jobs))


def _same(got, want) -> bool:  # type: ignore[no-untyped-def]
    return got.tag == want.tag and list(got.topics) == list(want.topics) and all(
        got.topics[t] == want.topics[t] for t in want.topics)


def test_runs_read_in_workers_are_the_runs_read_here(tmp_path: Path) -> None:
    big = _write_run(tmp_path / "big.txt", 20, 1500)
    small = _write_run(tmp_path / "small.txt", 3, 5, tag="other")
    zipped = tmp_path / "zipped.gz"
    zipped.write_bytes(gzip.compress(small.read_bytes()))
    ids = tmp_path / "ids.txt"  # read by the careful pass: element ids to normalise
    ids.write_text("".join(f"{t} Q0 d{t}#/article/sec[{i}] {i} {9 - i} ta\n"
                           for t in (1, 2) for i in range(1, 6)))
    paths = [big, small, zipped, ids]
    for jobs in (1, 2, 3):
        runs = _read(paths, jobs)
        assert all(_same(got, read_run(p)) for got, p in zip(runs, paths, strict=True))
    assert runs[3].ranked("1")[0] == "d1#/article[1]/sec[1]"


@pytest.mark.parametrize("second", ["bad_small", "missing"])
def test_the_first_bad_file_is_the_error_whatever_the_jobs(tmp_path: Path, second: str) -> None:
    """A big bad file (a result repeated at its end), then a small bad one
    (a second TAG) or a missing one: the error is the first file's."""
    bad_big = tmp_path / "bad_big"
    bad_big.write_bytes(_write_run(tmp_path / "big.txt", 20, 1500).read_bytes()
                        + b"1 Q0 doc-1-00003 9 0.5 sys\n")
    (tmp_path / "bad_small").write_text("1 Q0 a 1 1 t\n1 Q0 b 2 1 u\n")
    errors = []
    for jobs in (1, 2, 3):
        with pytest.raises(InputError) as err:
            _read([bad_big, tmp_path / second], jobs)
        errors.append(str(err.value))
    assert len(set(errors)) == 1, errors
    assert "bad_big:30001" in errors[0] and "duplicate result 'doc-1-00003'" in errors[0]


def test_how_many_processes_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inputs, "cpu_count", lambda: 4)
    small = _write_run(tmp_path / "small.txt", 2, 3)
    assert inputs.reading_jobs("auto", [small]) == 1  # one file: read here
    assert inputs.reading_jobs(2, [small, small]) == 2  # several, asked for
    assert inputs.reading_jobs("auto", [small, small]) == 1  # small: a fork costs more
    monkeypatch.setattr(inputs, "AUTO_RUN_BYTES", 10)
    assert inputs.reading_jobs("auto", [small, small]) == 4
