"""Stop waiting for a call after a time limit (client-side query timeouts).

FalkorDB's Bolt port ignores the transaction timeout a driver sends (its
``BEGIN`` handler reads no metadata), so a Bolt query is bounded on the
client: the call runs in a daemon thread and the caller stops waiting.

Examples
--------
>>> call_with_timeout(lambda: 42, 1.0, "demo")
42
>>> import time
>>> try:
...     call_with_timeout(lambda: time.sleep(5), 0.05, "bolt://h:1")
... except UsageError as exc:
...     print(str(exc)[:46])
bolt://h:1: the query ran past its timeout (0.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from typing import TypeVar

from graphprum.errors import UsageError

T = TypeVar("T")


def bounded(work: Callable[[], T], timeout: float | None,
            late: Callable[[], BaseException]) -> T:
    """``work()``, or the exception ``late()`` builds when it has not
    returned after ``timeout`` seconds (None: no limit).  The thread is then
    left behind: it ends with the process.

    >>> bounded(lambda: 42, 1.0, lambda: RuntimeError("late"))
    42
    """
    if timeout is None:
        return work()
    out: dict[str, object] = {}

    def target() -> None:
        try:
            out["value"] = work()
        except BaseException as exc:  # handed to the caller
            out["error"] = exc

    thread = threading.Thread(target=target, name="graphprum-bounded-call", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise late()
    if "error" in out:
        raise out["error"]  # type: ignore[misc]
    return out["value"]  # type: ignore[return-value]


def call_with_timeout(work: Callable[[], T], timeout: float | None, what: str) -> T:
    """``work()``, or UsageError naming ``what`` when it has not returned
    after ``timeout`` seconds (None or infinite: no limit); a server may
    finish the query on its own."""
    if timeout is None or math.isinf(timeout):
        return work()
    if not timeout > 0:
        raise UsageError(f"timeout {timeout:g}: must be a positive number of seconds")
    return bounded(work, timeout, lambda: UsageError(
        f"{what}: the query ran past its timeout ({timeout:g} s); "
        f"give --timeout SECONDS, or narrow the query (WHERE, LIMIT)"))
