"""Run files read in a worker while the evaluation prepares
(:mod:`graphprum.evaluation.reading`).

The runs read in a worker are compared with the same files read here by
:func:`graphprum.io.runs.read_run`; the decision of how many processes read
is checked on files of known sizes.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from graphprum.errors import InputError
from graphprum.evaluation import reading
from graphprum.evaluation.options import EvalOptions
from graphprum.evaluation.reading import (
    BACKGROUND_RUN_BYTES,
    reading_jobs,
    start_reading,
)
from graphprum.io.runs import read_run


def _write_run(path: Path, topics: int, results: int, tag: str = "sys") -> Path:
    with open(path, "w", encoding="utf-8") as f:
        for t in range(1, topics + 1):
            for i in range(results):
                f.write(f"{t} Q0 doc-{t}-{i:05d} {i + 1} {(i * 7919) % 1000 / 7:.6f} {tag}\n")
    return path


@pytest.fixture
def big_run(tmp_path: Path) -> Path:
    path = _write_run(tmp_path / "big.txt", 20, 1500)
    assert path.stat().st_size >= BACKGROUND_RUN_BYTES
    return path


def test_a_run_read_in_a_worker_is_the_run_read_here(big_run: Path, tmp_path: Path) -> None:
    small = _write_run(tmp_path / "small.txt", 3, 5, tag="other")
    items: list[tuple[str | None, object]] = [(None, big_run), ("named", small)]
    with start_reading(items, EvalOptions(), jobs=2) as started:
        assert started._forked is not None  # in workers, not here
        runs = started.result()
    expected = [read_run(big_run), read_run(small)]
    assert [r.tag for r in runs] == ["sys", "named"]
    for got, want in zip(runs, expected, strict=True):
        assert list(got.topics) == list(want.topics)
        for topic in want.topics:
            assert got.ranked(topic) == want.ranked(topic)
            assert got.topics[topic].scores.tolist() == want.topics[topic].scores.tolist()


def test_an_error_in_a_file_read_in_a_worker_names_its_line(big_run: Path,
                                                             tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(big_run.read_bytes() + b"7 Q0 x one 1.0 sys\n")
    lines = big_run.read_bytes().count(b"\n") + 1
    with start_reading([(None, bad)], EvalOptions(), jobs=2) as started:
        assert started._forked is not None
        with pytest.raises(InputError) as err:
            started.result()
    assert err.value.line == lines and str(bad) in str(err.value)


def test_leaving_without_the_result_ends_the_worker(big_run: Path) -> None:
    with start_reading([(None, big_run)], EvalOptions(), jobs=2) as started:
        pids = list(started._forked._workers.values())
    for pid in pids:
        with pytest.raises(ChildProcessError):  # reaped: no process left behind
            os.waitpid(pid, os.WNOHANG)


def test_how_many_processes_read(big_run: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(reading, "cpu_count", lambda: 4)
    small = _write_run(tmp_path / "small.txt", 2, 3)
    assert reading_jobs(1, [(None, big_run)]) == 1  # one job: read here
    assert reading_jobs("auto", [(None, big_run)]) == 4  # big: in a worker
    assert reading_jobs("auto", [(None, big_run)], overlap=False) == 1  # nothing to overlap
    assert reading_jobs("auto", [(None, small)]) == 1  # small: a fork costs more
    assert reading_jobs(2, [(None, small)]) == 1
    assert reading_jobs(2, [(None, small), (None, small)]) == 2  # several, asked for
    assert reading_jobs("auto", [(None, small), (None, small)], overlap=False) == 1
    assert reading_jobs("auto", [(None, {"1": {"a": 1.0}})]) == 1  # nothing to read


def test_eval_command_reads_a_big_run_in_slices_and_prints_the_same(
        tmp_path: Path, monkeypatch) -> None:
    """``graphprum eval --jobs 2`` starts reading before it imports the
    evaluation; with a store in the working directory (work to overlap) the
    big run is read in two slices, and the table is the one of ``--jobs 1``."""
    from typer.testing import CliRunner

    from graphprum import pool
    from graphprum.cli import app

    (tmp_path / "col").mkdir()
    with open(tmp_path / "run", "w") as r, open(tmp_path / "qrels", "w") as q:
        for t in range(1, 41):
            (tmp_path / "col" / f"d{t}.xml").write_text(
                "<article>" + "<p>x</p>" * 800 + "</article>")
            for i in range(1, 801):
                r.write(f"{t} Q0 d{t}#/article[1]/p[{i}] {i} {(i * 7919) % 1000 / 7:.6f} s\n")
            q.write(f"{t} 0 d{t}#/article[1]/p[{t + 10}] 1\n{t} 0 d{t}#/article[1]/p[3] 2\n")
    assert (tmp_path / "run").stat().st_size >= reading.BACKGROUND_RUN_BYTES
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(app, ["load", "xml", "-q", "col"]).exit_code == 0
    started: list[int] = []
    real = pool.fork_start

    def spy(func, items, jobs):
        started.append(len(items))
        return real(func, items, jobs)

    monkeypatch.setattr(reading, "fork_start", spy)
    args = ["eval", "run", "--qrels", "qrels", "-m", "AP", "-m", "PRUM", "-q", "--format", "tsv"]
    one = runner.invoke(app, [*args, "--jobs", "1"])
    assert started == []
    two = runner.invoke(app, [*args, "--jobs", "2"])
    assert started == [2]  # one file, two slices
    assert one.exit_code == two.exit_code == 0, two.stderr
    assert two.stdout == one.stdout and len(one.stdout.splitlines()) == 2 * 41


#: Runs the command line with an audit hook noting, in this process, the
#: first fork and the first import of numpy.
_ORDER_PROBE = """
import json, os, sys
seen = []
me = os.getpid()
def hook(event, args):
    if os.getpid() == me and (event == "os.fork" or (event == "import" and args[0] == "numpy")):
        seen.append(event if event == "os.fork" else "numpy")
sys.addaudithook(hook)
sys.argv = ["graphprum", *json.loads(sys.argv[1])]
from graphprum.cli import main
try:
    main()
except SystemExit:
    pass
print(json.dumps([*dict.fromkeys(seen), os.environ.get("OPENBLAS_NUM_THREADS")]),
      file=sys.stderr)
"""


def test_eval_forks_its_readers_before_numpy_is_imported(tmp_path: Path) -> None:
    """The workers that read TREC run files are forked before the command
    imports numpy (they need none), so that reading starts about 40 ms
    sooner; the table is that of ``--jobs 1``, and every process has one
    OpenBLAS thread whatever --jobs says (OPENBLAS_NUM_THREADS, unless set)."""
    import json
    import subprocess
    import sys

    for name in ("a", "b"):
        _write_run(tmp_path / name, 12, 400, tag=name)
    (tmp_path / "qrels").write_text("".join(f"{t} 0 doc-{t}-00003 1\n" for t in range(1, 13)))
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")}

    def run(jobs: str) -> tuple[str, list[str]]:
        args = ["eval", "a", "b", "--qrels", "qrels", "-m", "PRUM", "-m", "P@5", "-q",
                "--no-store", "--format", "tsv", "--jobs", jobs]
        proc = subprocess.run([sys.executable, "-c", _ORDER_PROBE, json.dumps(args)],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout, json.loads(proc.stderr.strip().splitlines()[-1])

    one, events_one = run("1")
    two, events_two = run("2")
    assert events_one == ["numpy", "1"]  # read here: nothing forked
    assert events_two == ["os.fork", "numpy", "1"]
    assert two == one and len(one.splitlines()) == 2 * 2 * 13
    env["OPENBLAS_NUM_THREADS"] = "3"  # the user's choice is kept
    assert run("2")[1] == ["os.fork", "numpy", "3"]


def test_files_the_fast_reading_refuses_are_read_carefully_by_their_workers(
        tmp_path: Path, monkeypatch) -> None:
    """Two files, a worker each: one writes element ids without positions
    (normalised), the other a 7th field on its lines (ignored, with a note);
    the fast reading refuses both, so each worker reads its file carefully
    itself (not the parent after them, one at a time), and the runs are
    the careful reading's."""
    a = tmp_path / "a"
    a.write_text("".join(f"{t} Q0 d{t}#/article/sec[{i}] {i} {9 - i} ta\n"
                         for t in (1, 2) for i in range(1, 6)))
    b = tmp_path / "b"
    b.write_text("".join(f"{t} Q0 x{i} {i} {i / 3} tb extra\n" for t in (1, 2) for i in range(5)))
    parent_reads: list[object] = []
    real = reading.RunReading._read

    def spy(self, path):
        parent_reads.append(path)  # in a worker: its own copy of the list
        return real(self, path)

    monkeypatch.setattr(reading.RunReading, "_read", spy)
    with start_reading([(None, a), (None, b)], EvalOptions(), jobs=2) as started:
        assert [where is not None for _, _, where in started._pieces] == [True, True]
        runs = started.result()
    assert parent_reads == []
    for got, path in zip(runs, (a, b), strict=True):
        want = read_run(path)
        assert got.tag == want.tag and got.notes == want.notes
        assert {t: got.ranked(t) for t in got.topics} == {t: want.ranked(t) for t in want.topics}
    assert runs[0].ranked("1")[0] == "d1#/article[1]/sec[1]" and runs[1].notes


def test_a_run_file_that_cannot_be_read_is_an_error_of_the_result(tmp_path: Path) -> None:
    """Nothing is read before the fork but the first bytes of plain files:
    a missing file is the error of :meth:`RunReading.result`, raised where
    the caller asks for the runs (after its own checks), as with one job;
    a gzip run is read whole by a worker."""
    import gzip

    good = _write_run(tmp_path / "good", 3, 5)
    zipped = tmp_path / "zipped.gz"
    zipped.write_bytes(gzip.compress(good.read_bytes()))
    with start_reading([(None, tmp_path / "missing"), (None, zipped)], EvalOptions(),
                       jobs=2) as started:
        assert [where for _, _, where in started._pieces] == [None, None]
        with pytest.raises(InputError) as err:
            started.result()
    assert "missing" in str(err.value)
    with start_reading([(None, zipped), (None, good)], EvalOptions(), jobs=2) as started:
        runs = started.result()
    assert runs[0].ranked("2") == runs[1].ranked("2") == read_run(good).ranked("2")


def test_the_first_bad_file_is_the_error_whatever_the_jobs(big_run: Path,
                                                           tmp_path: Path) -> None:
    """Two bad files: a big one whose fault (a result repeated at its end)
    only the parent's careful reading of the joined slices finds, then a
    small one (a second TAG) or a missing one, each a worker's whole piece:
    the error is the first file's with any number of jobs, as one process
    reading them in order reports it."""
    bad_big = tmp_path / "bad_big"
    bad_big.write_bytes(big_run.read_bytes() + b"1 Q0 doc-1-00003 9 0.5 sys\n")
    bad_small = tmp_path / "bad_small"
    bad_small.write_text("1 Q0 a 1 1 t\n1 Q0 b 2 1 u\n")
    for second in (bad_small, tmp_path / "missing"):
        errors = []
        for jobs in (1, 2, 3, 4):
            with start_reading([(None, bad_big), (None, second)], EvalOptions(),
                               jobs=jobs) as started, pytest.raises(InputError) as err:
                started.result()
            errors.append(str(err.value))
        assert len(set(errors)) == 1, errors
        assert "bad_big" in errors[0] and "duplicate result 'doc-1-00003'" in errors[0]
