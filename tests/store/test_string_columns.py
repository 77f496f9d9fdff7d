"""The embedded store's string columns: rows copied between columns in
blocks, and slices read back, equal the Python lists they were written from."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphprum.store.local.strings as strings
from graphprum.store.local.strings import StringColumn, StringColumnWriter

TEXTS = st.lists(st.text(alphabet="ab \n\u00e9\u20ac\U0001F600\udcff", max_size=12), max_size=40)


@settings(max_examples=60, deadline=None)
@given(values=TEXTS, picks=st.lists(st.integers(0, 39), max_size=30),
       lo=st.integers(0, 40), hi=st.integers(0, 40), block=st.sampled_from([1, 3, 1 << 16]))
def test_copy_and_slice(tmp_path_factory: pytest.TempPathFactory, values: list[str],
                        picks: list[int], lo: int, hi: int, block: int) -> None:
    d: Path = tmp_path_factory.mktemp("s")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(strings, "COPY_BLOCK", block)
        mp.setattr(strings, "READ_BLOCK", max(block, 2))
        with StringColumnWriter(d / "src") as w:
            w.extend(values[:5])
            w.extend(values[5:])
        src = StringColumn(d / "src")
        rows = np.array([p for p in picks if p < len(values)], dtype=np.int64)
        with StringColumnWriter(d / "dst") as w:
            w.extend(["first"])
            w.extend_from(src, rows)
            w.extend_from(src, slice(lo, hi))
        expected = ["first", *[values[r] for r in rows], *values[lo:hi]]
        dst = StringColumn(d / "dst")
        assert dst.all() == expected
        assert dst.slice(lo, hi) == expected[lo:hi]
        assert dst[list(range(len(expected)))] == expected
    assert not list(d.glob("*.off"))  # the offsets' spool is gone once closed
