"""The one worker pool of ``--jobs``: a function over items in forked processes.

:func:`fork_map` calls ``func(item)`` for every item, in ``jobs`` processes
made by ``fork`` (they inherit the parent's memory: a store's memory-mapped
columns, the evaluation job; nothing is pickled but the index of the item
and the result), and returns the results in item order.  A
:class:`~graphprum.errors.GraphprumError` raised in a worker is raised again
in the parent as the same error (same class, same message; an
:class:`~graphprum.errors.InputError` keeps its file and line), without a
worker's traceback around it.

Examples
--------
>>> fork_map(lambda x: x * x, [1, 2, 3], jobs=2)
[1, 4, 9]
>>> from graphprum.errors import InputError
>>> def bad(x: int) -> int:
...     raise InputError("run.txt", x, "no")
>>> fork_map(bad, [7, 8], jobs=2)
Traceback (most recent call last):
...
graphprum.errors.InputError: run.txt:7: no
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from graphprum.errors import GraphprumError

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class _Task(Generic[T, R]):
    func: Callable[[T], R]
    items: Sequence[T]


@dataclass(frozen=True)
class _Raised:
    """A user's error raised in a worker (pickled as itself)."""

    error: GraphprumError


#: The task of the forked workers (set by the parent just before forking).
_TASK: _Task[object, object] | None = None


def _call(i: int) -> object:
    """Item ``i`` of the inherited task; a user's error comes back as a value."""
    task = _TASK
    assert task is not None
    try:
        return task.func(task.items[i])
    except GraphprumError as exc:
        return _Raised(exc)


def can_fork() -> bool:
    """Whether this platform has the ``fork`` start method."""
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def fork_map(func: Callable[[T], R], items: Sequence[T], jobs: int,
             done: Callable[[int], None] | None = None) -> list[R]:
    """``[func(x) for x in items]`` in ``jobs`` forked processes (see the module notes).

    ``done(n)`` is called in the parent after each of the first n results
    arrived (in item order).  One job, fewer than two items, or no ``fork``
    on this platform: everything runs here, in order.
    """
    global _TASK

    if jobs <= 1 or len(items) < 2 or not can_fork():
        out: list[R] = []
        for x in items:
            out.append(func(x))
            if done is not None:
                done(len(out))
        return out
    if _TASK is not None:
        raise RuntimeError("fork_map is not re-entrant")
    import multiprocessing

    _TASK = _Task(func, items)  # type: ignore[arg-type]
    results: list[object] = []
    try:
        with multiprocessing.get_context("fork").Pool(min(jobs, len(items))) as pool:
            for result in pool.imap(_call, range(len(items)), chunksize=1):
                results.append(result)
                if done is not None:
                    done(len(results))
    finally:
        _TASK = None
    for result in results:
        if isinstance(result, _Raised):
            raise result.error from None
    return results  # type: ignore[return-value]
