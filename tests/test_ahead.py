"""graphprum.ahead: items made in a thread, in order, bounded, stopped with the caller."""

from __future__ import annotations

import threading
import time

import pytest

from graphprum.ahead import ahead


def _threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name == "graphprum-ahead"]


def test_items_in_order_and_made_in_another_thread() -> None:
    where: list[int] = []

    def make():
        for i in range(50):
            where.append(threading.get_ident())
            yield i

    assert list(ahead(make(), depth=3)) == list(range(50))
    assert set(where) == {where[0]} and where[0] != threading.get_ident()
    assert _threads() == []


def test_no_more_than_depth_items_made_ahead_of_the_caller() -> None:
    made = []

    def make():
        for i in range(20):
            made.append(i)
            yield i

    seen = []
    for item in ahead(make(), depth=2):
        time.sleep(0.01)  # the thread has time to run ahead
        seen.append(item)
        assert len(made) <= item + 1 + 2
    assert seen == list(range(20))


def test_an_error_of_the_caller_stops_the_thread() -> None:
    closed = []

    def make():
        try:
            yield from range(10**6)
        finally:
            closed.append(True)

    with pytest.raises(RuntimeError, match="consumer"):
        for item in ahead(make()):
            if item == 3:
                raise RuntimeError("consumer failed")
    assert _threads() == [] and closed == [True]


def test_an_error_of_the_producer_is_raised_after_the_items_before_it() -> None:
    def make():
        yield "a"
        yield "b"
        raise KeyError("third")

    got = []
    with pytest.raises(KeyError, match="third") as info:
        for item in ahead(make()):
            got.append(item)
    assert got == ["a", "b"]
    assert any(frame.name == "make" for frame in info.traceback)
    assert _threads() == []
