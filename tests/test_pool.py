"""The one worker pool of --jobs (graphprum.pool)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from graphprum.errors import InputError, UsageError, WorkerError
from graphprum.pool import can_fork, fork_map

pytestmark = pytest.mark.skipif(not can_fork(), reason="no fork start method here")


def meeting(where: Path, n: int) -> Callable[[], None]:
    """``meet()``: wait in an item until ``n`` processes have each started
    one (a file each in ``where``), so that every one takes an item however
    slowly the workers start."""
    import time

    def meet() -> None:
        (where / str(os.getpid())).touch()
        deadline = time.monotonic() + 30
        while len(list(where.iterdir())) < n:
            if time.monotonic() > deadline:
                raise AssertionError(f"fewer than {n} processes took an item")
            time.sleep(0.005)

    return meet


def test_results_in_item_order_from_several_processes(tmp_path) -> None:
    meet = meeting(tmp_path, 3)

    def square(x: int) -> tuple[int, int]:
        meet()
        return x * x, os.getpid()

    done: list[int] = []
    got = fork_map(square, list(range(12)), jobs=3, done=done.append)
    assert [v for v, _ in got] == [x * x for x in range(12)]
    assert sorted(done) == list(range(12))  # each item once, as it arrives
    assert len({pid for _, pid in got}) == 3


def _meet_then_pid(meet: Callable[[], None], x: int) -> int:
    meet()
    return os.getpid()


def test_the_parent_takes_items_beside_jobs_minus_one_workers(tmp_path) -> None:
    """--jobs N is N processes: this one and N - 1 forked (not N beside an
    idle parent); the parent takes the last items, the workers the first."""
    for jobs in (2, 3):
        where = tmp_path / str(jobs)
        where.mkdir()

        pids = fork_map(functools.partial(_meet_then_pid, meeting(where, jobs)),
                        list(range(12)), jobs=jobs)
        assert len(set(pids)) == jobs
        assert pids[-1] == os.getpid() and pids[0] != os.getpid()


def test_no_more_workers_than_items_beside_the_parent(monkeypatch) -> None:
    from graphprum import pool

    forked: list[int] = []
    real = pool._start

    def start(func, items, jobs, *args, **kwargs):  # type: ignore[no-untyped-def]
        forked.append(jobs)
        return real(func, items, jobs, *args, **kwargs)

    monkeypatch.setattr(pool, "_start", start)
    assert fork_map(lambda x: x + 1, [1, 2], jobs=8) == [2, 3]
    assert fork_map(lambda x: x + 1, [1, 2, 3, 4], jobs=3) == [2, 3, 4, 5]
    assert forked == [1, 2]


def test_a_result_bigger_than_the_pipe_while_the_parent_works(tmp_path) -> None:
    """A worker whose frame fills its pipe waits for the parent's next look,
    not for the end: every result comes back whole, with no hang, and the
    worker goes on taking items while the parent computes its own."""
    import signal
    import time

    meet = meeting(tmp_path, 2)
    parent = os.getpid()

    def big(x: int) -> tuple[int, bytes]:
        meet()
        time.sleep(0.1 if os.getpid() == parent else 0.01)
        return os.getpid(), bytes([x]) * (3 << 20)  # 3 MB: more than a 1 MB pipe holds

    def hang(*_: object) -> None:
        raise AssertionError("fork_map hung")

    before = signal.signal(signal.SIGALRM, hang)
    signal.alarm(60)
    try:
        got = fork_map(big, list(range(12)), jobs=2)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)
    assert [(len(g), g[0], g[-1]) for _, g in got] == [(3 << 20, x, x) for x in range(12)]
    # a worker left blocked on its pipe until the end would do one item
    assert sum(pid != parent for pid, _ in got) >= 3


def test_of_several_errors_the_first_items_is_raised(tmp_path) -> None:
    """As in one process, the error raised is the first failing item's.

    The worker's item 0 fails last (it sleeps) and the parent's items at
    once: the parent goes on with the items before its own failure (one of
    them could fail first), and item 0's error is raised.  When the worker's
    item 0 fails at once, nobody starts another item."""
    import time

    for slow, runs_all in ((0, True), (19, False)):
        started = tmp_path / f"started{slow}"
        started.mkdir()
        met = tmp_path / f"met{slow}"
        met.mkdir()
        meet = meeting(met, 2)

        def fail(x: int, slow: int = slow, started: Path = started,
                 meet: Callable[[], None] = meet) -> int:
            (started / str(x)).touch()
            meet()
            time.sleep(1.0 if x == slow else 0.0)
            raise UsageError(f"item {x}")

        with pytest.raises(UsageError, match=r"^item 0$"):
            fork_map(fail, list(range(20)), jobs=2)
        done = sorted(int(p.name) for p in started.iterdir())
        assert done == (list(range(20)) if runs_all else [0, 19])


def test_a_killed_worker_is_a_clear_error(tmp_path) -> None:
    """A worker that dies (the OOM killer, a signal) leaves its items without
    results: an error that says so, not a hang or a short list."""
    import signal

    meet = meeting(tmp_path, 2)
    parent = os.getpid()

    def die(x: int) -> int:
        meet()
        if os.getpid() != parent:  # the worker, at its first item
            os.kill(os.getpid(), signal.SIGKILL)
        return x

    with pytest.raises(WorkerError, match="killed by SIGKILL"):
        fork_map(die, [1, 2, 3, 4], jobs=2)


def test_a_worker_killed_holding_the_lock_is_a_clear_error(tmp_path, monkeypatch) -> None:
    """The parent of fork_map takes items under the workers' lock: one that
    a worker holds as it dies must not stop the parent for good (it waits
    for the lock reading the pipes, and a closed one tells)."""
    import signal
    import time

    from graphprum import pool

    dead = tmp_path / "dead"
    real = pool._Shared.take_back

    def take_back(self: pool._Shared, drain: Callable[[], None]) -> int | None:
        deadline = time.monotonic() + 30  # the first take, after the worker died
        while not dead.exists() and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(0.05)
        return real(self, drain)

    made: list[pool._Shared] = []

    class Recorded(pool._Shared):
        def __init__(self, n: int) -> None:
            super().__init__(n)
            made.append(self)

    def work(x: int) -> int:  # only the worker gets here before it dies
        made[0].lock.acquire()
        dead.touch()
        os.kill(os.getpid(), signal.SIGKILL)
        return x

    def hang(*_: object) -> None:
        raise AssertionError("fork_map hung on the dead worker's lock")

    monkeypatch.setattr(pool, "_Shared", Recorded)
    monkeypatch.setattr(pool._Shared, "take_back", take_back)
    before = signal.signal(signal.SIGALRM, hang)
    signal.alarm(60)
    try:
        with pytest.raises(WorkerError, match="killed by SIGKILL"):
            fork_map(work, [1, 2, 3, 4], jobs=2)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)


def test_a_result_that_does_not_pickle_is_named(tmp_path) -> None:
    """A worker's result must cross a pipe (the parent's own need not)."""
    import threading

    meet = meeting(tmp_path, 2)
    parent = os.getpid()

    def lock(x: int) -> object:
        meet()
        return threading.Lock() if os.getpid() != parent else x

    with pytest.raises(RuntimeError, match=r"cannot be sent back.*pickle"):
        fork_map(lock, [1, 2, 3, 4], jobs=2)



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


def test_a_killed_worker_stops_imap_without_a_hang() -> None:
    """fork_imap: the other worker waits for the parent to take results;
    the parent must not wait for an item that will never come."""
    import signal

    from graphprum.pool import fork_imap

    def die(x: int) -> int:
        if x == 1:
            os.kill(os.getpid(), signal.SIGKILL)
        return x

    got: list[int] = []
    with pytest.raises(WorkerError, match="killed by SIGKILL"):
        got.extend(fork_imap(die, list(range(40)), jobs=2, window=2))
    assert got in ([], [0])  # item 1 never came: nothing after item 0 can be yielded


def test_a_slow_item_holds_up_no_other(tmp_path) -> None:
    """Workers take the next item when free: with one slow item, the other
    process does all the rest (item order kept in the result)."""
    import time

    meet = meeting(tmp_path, 2)

    def work(x: int) -> int:
        meet()
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


def test_imap_yields_in_order_as_results_come() -> None:
    import time

    from graphprum.pool import fork_imap

    def slow_first(x: int) -> tuple[int, int]:
        if x == 0:
            time.sleep(0.2)  # item 0 comes last: the others wait for it
        return x, os.getpid()

    got = list(fork_imap(slow_first, list(range(8)), jobs=2, window=3))
    assert [x for x, _ in got] == list(range(8))
    assert {pid for _, pid in got} - {os.getpid()}


def test_imap_keeps_workers_within_the_window() -> None:
    """No item starts more than ``window`` ahead of the one the consumer takes."""
    import time

    from graphprum.pool import fork_imap

    def stamp(x: int) -> float:
        return time.monotonic()

    handed: list[float] = []
    started: list[float] = []
    for i, at in enumerate(fork_imap(stamp, list(range(8)), jobs=2, window=2)):
        handed.append(time.monotonic())
        started.append(at)
        time.sleep(0.1)  # a slow consumer
        if i >= 2:  # item i starts once the consumer is handed item i - 2
            assert started[i] >= handed[i - 2] - 0.05
    assert started[7] - started[0] > 0.4  # not all at once


def test_imap_raises_a_workers_error_in_item_order() -> None:
    from graphprum.pool import fork_imap

    def bad(x: int) -> int:
        if x in (2, 5):
            raise InputError("f.xml", x, "not well-formed")
        return x

    got: list[int] = []
    with pytest.raises(InputError) as err:
        for x in fork_imap(bad, list(range(8)), jobs=2):
            got.append(x)
    assert got == [0, 1] and err.value.line == 2


def test_closing_imap_early_ends_the_workers() -> None:
    import time

    from graphprum.pool import fork_imap

    def pid(x: int) -> int:
        time.sleep(0.01)
        return os.getpid()

    gen = fork_imap(pid, list(range(50)), jobs=2)
    workers = {next(gen), next(gen)}
    gen.close()
    for p in workers - {os.getpid()}:
        with pytest.raises(ChildProcessError):
            os.waitpid(p, os.WNOHANG)  # reaped already


def test_workers_end_with_their_parent(tmp_path) -> None:
    """A parent killed while its workers wait for it to take results (the
    window of fork_imap) takes them with it: none is left holding what it
    inherited (a store's lock)."""
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "parent.py"
    script.write_text(
        "import os, sys, time\n"
        "from graphprum.pool import fork_imap\n"
        "for pid in fork_imap(lambda x: os.getpid(), list(range(50)), jobs=2, window=2):\n"
        "    print(pid, flush=True)\n"
        "    time.sleep(60)\n")
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        worker = int(parent.stdout.readline())
        assert worker != parent.pid and os.path.exists(f"/proc/{worker}")
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + 10
        while _state(worker) not in (None, "Z") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _state(worker) in (None, "Z")  # gone, or ended and not yet reaped by init
    finally:
        parent.kill()
        parent.wait()


def _state(pid: int) -> str | None:
    """A process's state letter (R, S, Z, ...), None when there is none."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def test_the_pipe_lock_and_shared_integers_of_the_workers() -> None:
    """The workers' lock is a pipe holding one byte: four processes adding 1
    to a shared integer 3,000 times each under it lose no addition (each
    reads, yields the CPU, then writes: without the lock they would); a
    held lock times out, a free one is taken."""
    import time

    from graphprum import pool

    lock = pool._PipeLock()
    ints = pool._shared_ints(1)

    def add(times: int) -> None:
        for _ in range(times):
            with lock:
                value = ints[0]
                time.sleep(0)
                ints[0] = value + 1

    children = []
    for _ in range(3):
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                add(3000)
                code = 0
            finally:
                os._exit(code)
        children.append(pid)
    add(3000)
    assert all(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0 for pid in children)
    assert ints[0] == 4 * 3000
    assert lock.acquire(timeout=0.01) is True
    started = time.monotonic()
    assert lock.acquire(timeout=0.05) is False  # held (by this process)
    assert time.monotonic() - started >= 0.05
    lock.release()
    assert lock.acquire(timeout=0) is True
    lock.release()
    lock.close()


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="no /proc here")
def test_no_descriptor_is_left_open_by_the_pools() -> None:
    """Each call makes pipes (the workers' frames, their lock) and closes
    every one of them in this process, whether it ends well or not."""
    from graphprum.errors import InputError
    from graphprum.pool import fork_imap, fork_start

    def bad(x: int) -> int:
        raise InputError("f", x, "no")

    def open_fds() -> int:
        return len(os.listdir("/proc/self/fd"))

    before = open_fds()
    for _ in range(3):
        assert fork_map(lambda x: x + 1, list(range(6)), jobs=3) == list(range(1, 7))
        assert list(fork_imap(lambda x: x * 2, list(range(5)), jobs=2)) == [0, 2, 4, 6, 8]
        with fork_start(lambda x: -x, [1, 2, 3], jobs=2) as forked:
            assert forked.wait() == [-1, -2, -3]
        with pytest.raises(InputError):
            fork_map(bad, [1, 2, 3], jobs=2)
    assert open_fds() == before
