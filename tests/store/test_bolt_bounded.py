"""The Bolt store's time limits and its ordered writer, without a server."""

from __future__ import annotations

import threading
import time

import pytest

from graphprum.store.bolt.bounded import WritePipe, bounded


class LateError(Exception):
    pass


def test_bounded_returns_raises_and_gives_up_in_time():
    assert bounded(lambda: 7, 1.0, LateError) == 7
    with pytest.raises(ZeroDivisionError):
        bounded(lambda: 1 / 0, 1.0, LateError)
    release = threading.Event()
    t0 = time.monotonic()
    with pytest.raises(LateError):
        bounded(release.wait, 0.2, LateError)  # a call that would never return
    assert time.monotonic() - t0 < 2.0
    release.set()


def test_pipe_runs_jobs_in_order_and_stops_at_the_first_error():
    pipe = WritePipe(5.0, LateError, depth=2)
    done: list[int] = []
    for i in range(20):
        pipe.submit(lambda i=i: done.append(i))
    pipe.drain()
    assert done == list(range(20))

    def fail():
        raise ValueError("refused batch")

    pipe.submit(fail)
    pipe.submit(lambda: done.append(99))  # after a failure nothing more is written
    with pytest.raises(ValueError, match="refused batch"):
        pipe.drain()
    assert 99 not in done
    with pytest.raises(ValueError):
        pipe.submit(lambda: None)
    pipe.close()


def test_pipe_notices_a_job_past_its_time_limit():
    release = threading.Event()
    pipe = WritePipe(0.3, LateError, depth=1)
    pipe.submit(release.wait)
    t0 = time.monotonic()
    with pytest.raises(LateError):
        for _ in range(10):  # fills the queue, then waits on a stuck job
            pipe.submit(lambda: None)
        pipe.drain()
    assert time.monotonic() - t0 < 3.0
    release.set()
    pipe.close()
