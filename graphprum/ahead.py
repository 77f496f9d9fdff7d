"""Make the next items of an iterator in a thread while the caller uses this one.

:func:`ahead` serves a consumer that spends its time outside Python's GIL
(LadybugDB copying a table in C++) and a producer that needs it (making
the next table from numpy columns): the two overlap on two cores.  At most
``depth`` items are made ahead of the one the caller holds, so memory stays
bounded; an exception of the producer is raised in the caller, at the item
where it happened; a caller that stops early stops the producer.

Examples
--------
>>> list(ahead(iter(range(5))))
[0, 1, 2, 3, 4]
>>> def broken():
...     yield 1
...     raise ValueError("no second item")
>>> items = ahead(broken())
>>> next(items)
1
>>> next(items)
Traceback (most recent call last):
...
ValueError: no second item
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import TypeVar

T = TypeVar("T")

_END = object()


def ahead(items: Iterator[T], depth: int = 1) -> Iterator[T]:
    """Yield the items of ``items`` in order, made in a thread at most
    ``depth`` items ahead of the one the caller holds.

    Parameters
    ----------
    items : iterator
        Made in a thread of its own (it must not share unlocked state with
        the caller).
    depth : int
        Items made ahead; ``depth + 1`` items exist at most (the caller's
        and those made for it), counting only those not yet handed back:
        the caller lets go of an item by asking for the next one.

    Yields
    ------
    The items, in order.

    Examples
    --------
    >>> made = []
    >>> def count():
    ...     for i in range(100):
    ...         made.append(i)
    ...         yield i
    >>> items = ahead(count(), depth=2)
    >>> next(items)
    0
    >>> import time; time.sleep(0.05)
    >>> len(made)  # the caller holds 0; 1 and 2 are made ahead, no more
    3
    >>> items.close()  # stops the thread
    """
    slots = threading.Semaphore(depth + 1)
    out: queue.SimpleQueue[tuple[object, BaseException | None]] = queue.SimpleQueue()
    stop = threading.Event()

    def produce() -> None:
        try:
            while True:
                slots.acquire()
                if stop.is_set():
                    return
                try:
                    item = next(items)
                except StopIteration:
                    out.put((_END, None))
                    return
                out.put((item, None))
                del item
        except BaseException as exc:  # raised in the caller
            out.put((_END, exc))

    thread = threading.Thread(target=produce, name="graphprum-ahead", daemon=True)
    thread.start()
    try:
        while True:
            item, error = out.get()
            if item is _END:
                if error is not None:
                    raise error
                return
            yield item  # type: ignore[misc]
            del item
            slots.release()
    finally:
        stop.set()
        slots.release()
        if threading.current_thread() is not thread:  # (a cyclic GC pass may run here)
            thread.join()
            close = getattr(items, "close", None)
            if close is not None:
                close()
