"""Work in forked processes, through the standard library: :func:`ordered_map`.

``--jobs N`` calls ``func(shared, item)`` for every item in N processes
made by ``fork`` (:class:`concurrent.futures.ProcessPoolExecutor`).
``shared`` (an evaluation job with its runs and its store's memory-mapped
columns, the options of a load) is inherited by the workers, never
pickled; the items and the results are.  The results come in item order;
an exception raised for an item (a
:class:`~graphprum.errors.GraphprumError` among them: the same class, the
same message, a file and line kept) is raised again here when that item's
result is due, so the error is the first failing item's, as in one
process.  A worker that dies (killed, out of memory) is a
:class:`~graphprum.errors.WorkerError`.

Examples
--------
>>> list(ordered_map(lambda base, x: base + x * x, 10, [1, 2, 3], jobs=2))
[11, 14, 19]
>>> from graphprum.errors import InputError
>>> def bad(path: str, line: int) -> int:
...     raise InputError(path, line, "no")
>>> list(ordered_map(bad, "run.txt", [7, 8], jobs=2))
Traceback (most recent call last):
...
graphprum.errors.InputError: run.txt:7: no
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from graphprum.errors import WorkerError

S = TypeVar("S")
T = TypeVar("T")
R = TypeVar("R")

__all__ = ["can_fork", "cpu_count", "ordered_map"]


def cpu_count() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def can_fork() -> bool:
    """Whether processes can be made by ``fork`` here (not on Windows)."""
    return "fork" in multiprocessing.get_all_start_methods()


#: What a worker calls: ``func`` and ``shared``, inherited when it is forked.
_work: tuple[Callable[[Any, Any], Any], Any] | None = None


def _inherit(func: Callable[[Any, Any], Any], shared: object, parent: int) -> None:
    """A worker's start: keep what it calls; Ctrl-C is the parent's to handle
    (the parent stops the pool), not a traceback in every worker, and
    SIGTERM ends a worker at once.  A worker whose parent is gone (killed:
    no ``finally`` of it stopped the pool) ends within a second
    (:func:`_end_with`): it would hold the store's lock, inherited, forever."""
    global _work
    _work = (func, shared)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    threading.Thread(target=_end_with, args=(parent,), daemon=True).start()


def _end_with(parent: int) -> None:
    """Watch the parent; when this worker is orphaned, end it (``os._exit``:
    there is nobody left to take its results, and nothing of it to save)."""
    while os.getppid() == parent:
        time.sleep(ORPHAN_CHECK_SECONDS)
    os._exit(1)


#: How often a worker looks whether its parent is still there.
ORPHAN_CHECK_SECONDS = 0.5


def _call(item: object) -> object:
    assert _work is not None
    func, shared = _work
    return func(shared, item)


def ordered_map(func: Callable[[S, T], R], shared: S, items: Iterable[T], jobs: int,
                ahead: int | None = None) -> Generator[R]:
    """``func(shared, item)`` for each item, in item order, computed in
    ``jobs`` forked processes (module notes).

    No item is started more than ``ahead`` items (default ``2 * jobs``)
    beyond the one the caller takes next, so that results wait in memory
    only that far ahead of a slower consumer.  Ending early (the generator
    closed, an item's error, Ctrl-C) cancels the items not started and stops
    the workers on those under way: nobody will take their results.  One
    job or no ``fork`` here: every item is computed in this process, as
    asked.
    """
    if jobs <= 1 or not can_fork():
        for item in items:
            yield func(shared, item)
        return
    window = max(1, ahead if ahead is not None else 2 * jobs)
    pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"),
                               initializer=_inherit, initargs=(func, shared, os.getpid()))
    pending: deque[Future[Any]] = deque()
    todo = iter(items)
    try:
        for item in todo:
            pending.append(pool.submit(_call, item))
            if len(pending) >= window:
                break
        while pending:
            result = pending.popleft().result()
            for item in todo:
                pending.append(pool.submit(_call, item))
                break
            yield result
    except BrokenProcessPool:
        raise WorkerError("a worker process of --jobs died without its results: killed, "
                          "or out of memory? (--jobs 1 works in one process)") from None
    finally:
        if pending:  # ended early: the items under way are not waited for
            _stop_workers(pool)
        pool.shutdown(wait=True, cancel_futures=True)


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """End the pool's workers now (SIGTERM), whatever they are computing:
    ``shutdown`` alone waits for the items under way, minutes of a
    simulation after a Ctrl-C.  The standard library has no public call for
    it before Python 3.14 (``terminate_workers``)."""
    stop = getattr(pool, "terminate_workers", None)
    if stop is not None:  # pragma: no cover - Python 3.14
        stop()
        return
    for process in list(getattr(pool, "_processes", {}).values()):
        process.terminate()
