"""``graphprum.workers.ordered_map``: the one way graphprum works in forked processes."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from graphprum.errors import InputError, UsageError, WorkerError
from graphprum.workers import can_fork, ordered_map
from tests.support.processes import children, running

pytestmark = pytest.mark.skipif(not can_fork(), reason="no fork start method here")


def test_results_in_item_order_from_other_processes() -> None:
    parent = os.getpid()

    def where(base: int, x: int) -> tuple[int, bool]:
        time.sleep(0.02 * (x % 3))  # later items finish first now and then
        return base + x, os.getpid() != parent

    got = list(ordered_map(where, 100, range(12), jobs=3))
    assert [v for v, _ in got] == [100 + x for x in range(12)]
    assert all(forked for _, forked in got)


def test_shared_is_inherited_not_pickled() -> None:
    class Unpicklable:
        def __reduce__(self):  # type: ignore[no-untyped-def]
            raise TypeError("not pickled")

        value = 7

    assert list(ordered_map(lambda s, x: s.value * x, Unpicklable(), [1, 2], jobs=2)) == [7, 14]


def test_a_users_error_comes_back_as_itself_the_first_items() -> None:
    def bad(_: None, x: int) -> int:
        if x == 5:
            time.sleep(0.2)  # the later failure comes first
            raise InputError("run.txt", x, "bad RANK")
        if x == 7:
            raise UsageError("unknown measure 'APP'")
        return x

    with pytest.raises(InputError) as err:
        list(ordered_map(bad, None, range(10), jobs=2))
    assert (str(err.value), err.value.path, err.value.line) == \
        ("run.txt:5: bad RANK", "run.txt", 5)
    with pytest.raises(UsageError, match=r"^unknown measure 'APP'$"):
        list(ordered_map(bad, None, [7, 8], jobs=2))


def test_a_killed_worker_is_a_clear_error() -> None:
    def die(_: None, x: int) -> int:
        if x == 1:
            os.kill(os.getpid(), signal.SIGKILL)
        return x

    with pytest.raises(WorkerError, match="died without its results"):
        list(ordered_map(die, None, range(4), jobs=2))


def test_one_job_runs_here() -> None:
    parent = os.getpid()
    assert list(ordered_map(lambda _, x: os.getpid() == parent, None, [1, 2], jobs=1)) == \
        [True, True]


def test_no_more_items_ahead_than_asked() -> None:
    """A slow consumer: the workers stay within ``ahead`` items of it."""
    results = ordered_map(lambda _, x: (x, time.monotonic()), None, range(8), jobs=2, ahead=2)
    first = next(results)
    time.sleep(0.5)
    rest = list(results)
    started = [t for _, t in [first, *rest]]
    # items 0 and 1 start at once, 2 when 0 is taken, 3 only when the
    # consumer comes back from its half-second pause for 1
    assert started[3] - started[0] >= 0.4
    assert [x for x, _ in [first, *rest]] == list(range(8))


def test_closing_early_leaves_no_worker() -> None:
    results = ordered_map(lambda _, x: x, None, range(100), jobs=2)
    assert next(results) == 0
    results.close()
    time.sleep(0.1)
    assert children(os.getpid()) == []


_ORPHANING = """
import os, sys, time
from graphprum.workers import ordered_map
def work(_, x):
    os.write(1, f"{os.getpid()}\\n".encode())  # one write: the two workers' lines never mix
    time.sleep(60)
for _ in ordered_map(work, None, range(4), jobs=2):
    pass
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads /proc")
def test_workers_end_when_their_parent_is_killed() -> None:
    """SIGKILL of the parent runs no ``finally``: the workers, which inherit
    the store's lock, must end by themselves, not wait forever."""
    import subprocess
    import sys

    parent = subprocess.Popen([sys.executable, "-c", _ORPHANING], stdout=subprocess.PIPE,
                              text=True)
    assert parent.stdout is not None
    ready = threading.Timer(30, parent.kill)  # a worker that never starts fails, not hangs
    ready.start()
    try:
        workers = [int(parent.stdout.readline()) for _ in range(2)]
    finally:
        ready.cancel()
    assert all(running(w) for w in workers)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while any(running(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [w for w in workers if running(w)]
    for w in left:  # the old behaviour: clean up before failing
        os.kill(w, signal.SIGKILL)
    assert not left
