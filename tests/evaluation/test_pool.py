"""The one worker pool of --jobs (graphprum.evaluation.pool)."""

from __future__ import annotations

import os

import pytest

from graphprum.errors import InputError, UsageError
from graphprum.evaluation.pool import can_fork, fork_map

pytestmark = pytest.mark.skipif(not can_fork(), reason="no fork start method here")


def test_results_in_item_order_from_several_processes() -> None:
    done: list[int] = []
    got = fork_map(lambda x: (x * x, os.getpid()), list(range(12)), jobs=3, done=done.append)
    assert [v for v, _ in got] == [x * x for x in range(12)]
    assert sorted(done) == list(range(12))  # each item once, as it arrives
    assert len({pid for _, pid in got} - {os.getpid()}) >= 1  # not all done here


def test_a_users_error_comes_back_whole() -> None:
    def bad(x: int) -> int:
        if x == 3:
            raise InputError("-", 7, "expected 6 fields")
        return x

    with pytest.raises(InputError) as err:
        fork_map(bad, [1, 2, 3, 4], jobs=2)
    assert (err.value.path, err.value.line, err.value.message) == ("<stdin>", 7,
                                                                   "expected 6 fields")
    assert err.value.__cause__ is None and err.value.__context__ is None

    def usage(x: int) -> int:
        raise UsageError(f"measure {x}: no")

    with pytest.raises(UsageError, match="measure 1: no"):
        fork_map(usage, [1, 2], jobs=2)


def test_one_job_or_one_item_runs_here() -> None:
    assert fork_map(lambda x: os.getpid(), [1, 2], jobs=1) == [os.getpid()] * 2
    assert fork_map(lambda x: os.getpid(), [1], jobs=4) == [os.getpid()]


def test_other_errors_are_not_swallowed() -> None:
    def boom(x: int) -> int:
        raise ZeroDivisionError("x")

    with pytest.raises(ZeroDivisionError):
        fork_map(boom, [1, 2], jobs=2)


def test_a_killed_worker_is_a_clear_error() -> None:
    """A worker that dies (the OOM killer, a signal) leaves its items without
    results: an error that says so, not a hang or a short list."""
    import signal

    def die(x: int) -> int:
        if x == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return x

    with pytest.raises(RuntimeError, match="ended without its results"):
        fork_map(die, [1, 2, 3, 4], jobs=2)


def test_a_slow_item_holds_up_no_other() -> None:
    """Workers take the next item when free: with one slow item, the other
    worker does all the rest (item order kept in the result)."""
    import time

    def work(x: int) -> int:
        if x == 0:
            time.sleep(1.0)
        return os.getpid()

    pids = fork_map(work, list(range(8)), jobs=2)
    slow = pids[0]
    assert all(p != slow for p in pids[1:])


def test_after_an_error_no_worker_starts_another_item(tmp_path) -> None:
    """Items after a failure are not started (each started item leaves a file)."""
    def work(x: int) -> int:
        (tmp_path / str(x)).touch()
        if x == 0:
            raise UsageError("stop")
        import time

        time.sleep(0.2)
        return x

    with pytest.raises(UsageError, match="stop"):
        fork_map(work, list(range(20)), jobs=2)
    assert len(list(tmp_path.iterdir())) < 20
