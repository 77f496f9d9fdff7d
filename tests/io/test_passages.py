"""Passage qrels: highlighted ranges and best entry points (DESIGN §1.2, §1.3)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphprum.errors import InputError
from graphprum.io import DocAssessment, merge_ranges, read_passages


def write(tmp_path, text: str):
    p = tmp_path / "passages"
    p.write_text(text, encoding="utf-8")
    return p


def error(path) -> str:
    with pytest.raises(InputError) as info:
        read_passages(path)
    return str(info.value)


def test_good_file(tmp_path):
    p = write(tmp_path, "# INEX 2006 style\n289 wiki/1 100 200\n289 wiki/1 BEP 120\n"
                        "289 wiki/2 0 10\n\n289 wiki/1 150 250\n289 wiki/1 250 260\n"
                        "290 wiki/1 5 6\n291 wiki/9 BEP 0\n")
    a = read_passages(p)
    assert list(a) == ["289", "290", "291"]
    assert a["289"]["wiki/1"] == DocAssessment(ranges=[(100, 260)], bep=120)
    assert a["289"]["wiki/2"] == DocAssessment(ranges=[(0, 10)], bep=None)
    assert a["290"]["wiki/1"].relevant_length == 1
    assert a["291"]["wiki/9"] == DocAssessment(ranges=[], bep=0)


@pytest.mark.parametrize(("line", "expected"), [
    ("1 d 5", "expected 4 fields TOPIC DOC START END or TOPIC DOC BEP OFFSET, got 3"),
    ("1 d 5 7 9", "expected 4 fields TOPIC DOC START END or TOPIC DOC BEP OFFSET, got 5"),
    ("1 d 7 5", "expected START < END (END exclusive), got 7 5"),
    ("1 d 5 5", "expected START < END (END exclusive), got 5 5"),
    ("1 d -3 5", "expected START an integer >= 0, got '-3'"),
    ("1 d 1.5 5", "expected START an integer >= 0 (or BEP), got '1.5'"),
    ("1 d 1 e", "expected END an integer, got 'e'"),
    ("1 d BEP -1", "expected OFFSET an integer >= 0, got '-1'"),
    ("1 d BEP x", "expected OFFSET an integer >= 0, got 'x'"),
    ("1 d BEP 3", "second BEP for document 'd' of topic '1' (first on line 2)"),
])
def test_malformed_lines(tmp_path, line, expected):
    p = write(tmp_path, "1 d 0 4\n1 d BEP 2\n1 e BEP 2\n" + line + "\n")
    assert error(p) == f"{p}:4: {expected}"


def test_empty(tmp_path):
    p = write(tmp_path, "# nothing\n")
    assert error(p) == (f"{p}: empty passage qrels: no TOPIC DOC START END or "
                        "TOPIC DOC BEP OFFSET lines")


@given(st.lists(st.tuples(st.integers(0, 60), st.integers(1, 15)), max_size=12))
def test_merge_is_the_union_of_characters(pairs):
    ranges = [(s, s + n) for s, n in pairs]
    merged = merge_ranges(ranges)
    covered = {c for s, e in ranges for c in range(s, e)}
    assert {c for s, e in merged for c in range(s, e)} == covered
    # sorted, disjoint and not touching: exactly one range per maximal run
    for (_, e1), (s2, _) in itertools.pairwise(merged):
        assert e1 < s2
    runs = sum(1 for c in covered if c - 1 not in covered)
    assert len(merged) == runs
