"""Bounded calls for the Bolt store: a time limit on every call to the
server, and one background writer that a load feeds in order.

The neo4j driver has no read timeout of its own (FalkorDB sends none of the
hints Neo4j uses to set one), so a call that the server never answers would
block forever.  :func:`bounded` runs a call on a daemon thread and stops
waiting after its time limit; :class:`WritePipe` runs a load's writes one
after the other on a single daemon thread, so the load parses and packs the
next documents while the server writes the previous ones, and it notices a
write that runs past its time limit.  In both cases the caller gets an
error naming what did not answer (the store adds what state the server is
in) instead of waiting; the abandoned thread ends with the process.

Examples
--------
>>> bounded(lambda: 42, 1.0, lambda: RuntimeError("late"))
42
>>> pipe = WritePipe(1.0, lambda: RuntimeError("late"))
>>> out = []
>>> for i in range(3):
...     pipe.submit(lambda i=i: out.append(i))
>>> pipe.drain(); out
[0, 1, 2]
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable

from graphprum.store.deadline import bounded

__all__ = ["WritePipe", "bounded"]



class WritePipe:
    """Write jobs run in submission order on one daemon thread.

    Parameters
    ----------
    timeout : float
        Seconds one job may run; past it, :meth:`submit` and :meth:`drain`
        raise ``late()`` (the job is abandoned).
    late : callable
        Builds the exception for a job that ran past its time limit.
    depth : int
        Jobs queued at most before :meth:`submit` waits.
    """

    def __init__(self, timeout: float, late: Callable[[], BaseException],
                 depth: int = 8) -> None:
        self.timeout = timeout
        self.late = late
        self._jobs: queue.Queue[Callable[[], object] | None] = queue.Queue(maxsize=depth)
        self._lock = threading.Condition()
        self._pending = 0
        self._started: float | None = None  # when the running job started
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="graphprum-bolt-writer",
                                        daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            with self._lock:
                self._started = time.monotonic()
            try:
                if self._error is None:
                    job()
            except BaseException as exc:  # handed to the producer
                with self._lock:
                    if self._error is None:
                        self._error = exc
            finally:
                with self._lock:
                    self._pending -= 1
                    self._started = None
                    self._lock.notify_all()

    def _check(self) -> None:
        """Raise the first job error, or ``late()`` for a job past its limit."""
        if self._error is not None:
            raise self._error  # and later jobs are skipped
        if self._started is not None and time.monotonic() - self._started > self.timeout:
            self._error = self.late()
            raise self._error

    def submit(self, job: Callable[[], object]) -> None:
        """Queue ``job`` (waits while the queue is full)."""
        with self._lock:
            self._check()
            self._pending += 1
        while True:
            try:
                self._jobs.put(job, timeout=0.2)
                return
            except queue.Full:
                with self._lock:
                    try:
                        self._check()
                    except BaseException:
                        self._pending -= 1
                        raise

    def drain(self) -> None:
        """Wait until every queued job has run; raise the first error."""
        with self._lock:
            while self._pending:
                self._check()
                self._lock.wait(0.2)
            self._check()

    def close(self) -> None:
        """Let the thread end after the queued jobs (it is a daemon anyway)."""
        with contextlib.suppress(queue.Full):
            self._jobs.put_nowait(None)
