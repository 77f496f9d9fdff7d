"""Range runs (issue 40): the text layout (INEX 2008 FOL, OFFSET LENGTH) and
the time layout (START END), read, ordered, checked against documents and
written back; a plain reader written here is the reference."""

from __future__ import annotations

import random
import struct

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphprum.errors import InputError, UsageError
from graphprum.io.objects import run_from_object
from graphprum.io.range_runs import Documents, resolve_ranges, spans
from graphprum.io.run_columns import _first_is_range, _read_fast
from graphprum.io.runs import read_run, write_run

TEXT = Documents(["d1", "d2", "wiki/7"], np.array([False, False, False]),
                 np.array([400.0, 50.0, 1000.0]))
VIDEOS = Documents(["v", "w"], np.array([True, True]), np.array([60.0, 30.5]))


def write(tmp_path, text: str, name: str = "run"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def error(path, docs: Documents | None = None, **kw) -> str:
    with pytest.raises(InputError) as info:
        run = read_run(path, **kw)
        if docs is not None:
            resolve_ranges(run, docs)
    return str(info.value)


def f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def plain_ranges(text: str, order: str = "score") -> dict[str, list[tuple[str, float, float]]]:
    """topic -> [(doc, first, second)] in evaluation order, by str.split and sorted:
    SCORE descending as a C float, DOC descending, then the fields ascending."""
    topics: dict[str, list[tuple[str, float, int, float, float]]] = {}
    for line in text.split("\n"):
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        topics.setdefault(f[0], []).append((f[2], float(f[4]), int(f[3]), float(f[6]),
                                            float(f[7])))
    out = {}
    for topic, rows in topics.items():
        rows = sorted(rows, key=lambda r: (r[3], r[4]))
        rows = sorted(rows, key=lambda r: (f32(r[1]), r[0]), reverse=True)
        if order == "rank":
            rows = sorted(rows, key=lambda r: r[2])
        out[topic] = [(d, a, b) for d, _, _, a, b in rows]
    return out


def as_plain(run) -> dict[str, list[tuple[str, float, float]]]:  # type: ignore[no-untyped-def]
    return {t: [(d, a, b) for d, (a, b) in zip(r.ids, r.bounds.tolist(), strict=True)]
            for t, r in run.topics.items()}


# --- reading ------------------------------------------------------------------

def test_text_and_time_layouts_are_told_by_the_documents(tmp_path):
    p = write(tmp_path, "1 Q0 d1 1 0.9 fol 120 50\n1 Q0 d2 2 0.5 fol 0 10\n")
    run = read_run(p)
    assert (run.ranges, run.ranked("1")) == ("text|time", ["d1", "d2"])
    text = resolve_ranges(run, TEXT)
    assert text.ranges == "text"
    assert spans(text.topics["1"], "text").tolist() == [[120, 170], [0, 10]]
    timed = write(tmp_path, "1 Q0 v 1 0.9 t 17 26.5\n1 Q0 w 2 0.5 t 00:00:01.5 00:30\n", "t")
    run = read_run(timed)
    assert run.ranges == "time"
    assert spans(resolve_ranges(run, VIDEOS).topics["1"], "time").tolist() == [[17, 26.5],
                                                                                [1.5, 30]]
    # integers could be either: the documents say time
    both = write(tmp_path, "1 Q0 v 1 0.9 t 17 26\n", "i")
    assert resolve_ranges(read_run(both), VIDEOS).ranges == "time"


def test_six_field_runs_are_read_as_before(tmp_path):
    p = write(tmp_path, "1 Q0 a 1 0.5 sys\n1 Q0 b 2 0.75 sys\n")
    run = read_run(p)
    assert (run.ranges, run.ranked("1"), run.topics["1"].bounds) == (None, ["b", "a"], None)
    assert not _first_is_range(p.read_bytes())
    assert resolve_ranges(run, TEXT) is run


def test_order_ties_by_doc_then_offset(tmp_path):
    p = write(tmp_path, "1 Q0 d1 1 1 r 50 5\n1 Q0 d1 2 1 r 10 50\n1 Q0 d1 3 1 r 10 5\n"
                        "1 Q0 d2 4 1 r 0 1\n1 Q0 d1 5 2 r 99 1\n")
    assert as_plain(read_run(p))["1"] == [("d1", 99, 1), ("d2", 0, 1), ("d1", 10, 5),
                                          ("d1", 10, 50), ("d1", 50, 5)]
    assert [a for _, a, _ in as_plain(read_run(p, order="rank"))["1"]] == [50, 10, 10, 0, 99]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(["score", "rank"]), st.booleans(),
       st.booleans())
def test_the_fast_and_careful_passes_agree_with_a_plain_reader(seed, order, comments, timed):
    rng = random.Random(seed)
    out, seen = [], set()
    for _ in range(rng.randrange(1, 40)):
        key = (rng.choice("123"), rng.choice(["d1", "d2", "é"]), rng.randrange(8),
               rng.randrange(8))
        if key in seen:
            continue
        seen.add(key)
        first = f"{key[2]}.5" if timed and rng.random() < 0.3 else str(key[2])
        second = str(key[3] + 9)
        if comments and rng.random() < 0.2:
            out.append("# note")
        out.append(f"{key[0]} Q0 {key[1]} {rng.randrange(1, 9)} "
                   f"{rng.choice(['1', '0.5', '2', '1.00000001'])} r {first} {second}")
    text = "\n".join(out) + "\n"
    expected = plain_ranges(text, order)
    fast = _read_fast(text.encode(), order, False, True)
    assert fast is not None
    assert {t: [(d, a, b) for d, (a, b) in zip(r.ids, r.bounds.tolist(), strict=True)]
            for t, r in fast[1].items()} == expected
    from graphprum.io.run_careful import finish_run, parse_careful  # the line-by-line pass
    tag, topics = parse_careful("run", text, dedup=False, trees=False, extra=[])
    careful = finish_run("run", tag, topics, order, False, trees=False)
    assert as_plain(careful) == expected
    timed_lines = any("." in f[6] for f in (x.split() for x in out) if f[0] != "#")
    assert careful.ranges == fast[2] == ("time" if timed_lines else "text|time")


def test_clock_times_take_the_careful_pass(tmp_path):
    p = write(tmp_path, "1 Q0 v 1 1 t 01:00 01:30.5\n")
    assert _read_fast(p.read_bytes(), "score", False, True) is None
    assert read_run(p).topics["1"].bounds.tolist() == [[60, 90.5]]


def test_write_and_read_back(tmp_path):
    p = write(tmp_path, "7 Q0 d1 1 2.5 fol 120 50\n7 Q0 d1 2 1 fol 0 10\n8 Q0 d2 1 1 fol 3 4\n")
    run = read_run(p)
    out = tmp_path / "back"
    write_run(run, out)
    assert out.read_text() == ("7 Q0 d1 1 2.5 fol 120 50\n7 Q0 d1 2 1.0 fol 0 10\n"
                               "8 Q0 d2 1 1.0 fol 3 4\n")
    assert read_run(out).topics["7"] == run.topics["7"]
    timed = write(tmp_path, "1 Q0 v 1 1 t 17.25 20\n", "t")
    write_run(read_run(timed), out)
    assert out.read_text() == "1 Q0 v 1 1.0 t 17.25 20\n"


def test_dedup_keeps_the_first_of_the_same_range(tmp_path):
    p = write(tmp_path, "1 Q0 d1 1 1 r 1 2\n1 Q0 d1 2 2 r 1 3\n1 Q0 d1 3 3 r 1 2\n")
    assert error(p) == (f"{p}:3: duplicate range 1 2 of 'd1' for topic '1' (first on line 1); "
                        f"use --dedup to keep the first")
    assert as_plain(read_run(p, dedup=True))["1"] == [("d1", 1, 3), ("d1", 1, 2)]


# --- errors: one line naming the file and the line -----------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("1 Q0 d1 1 1 r 5 -2\n", "1: negative LENGTH (or END) -2"),
    ("1 Q0 d1 1 1 r -5 2\n", "1: negative OFFSET (or START) -5"),
    ("1 Q0 v 1 1 r 5.5 2\n", "1: END 2 is before START 5.5"),
    ("1 Q0 d1 1 1 r 5 7\n1 Q0 d1 2 1 r\n",
     "2: expected 8 fields TOPIC Q0 DOC RANK SCORE TAG OFFSET LENGTH (or START END for a "
     "video) as on line 1 (a run holds one layout), got 6"),
    ("1 Q0 d1 1 1 r\n1 Q0 d1 2 1 r 5 7\n",
     "2: a range line (TOPIC Q0 DOC RANK SCORE TAG OFFSET LENGTH (or START END for a video)) "
     "in a run of TREC lines TOPIC Q0 ID RANK SCORE TAG (line 1): a run holds one layout"),
    ("1 Q0 d1 1 1 r 5 7\n1 Q0 d1 2 1 r 5 x\n",
     "2: expected LENGTH (or END) a number of characters or seconds (or [HH:]MM:SS[.fff]), "
     "got 'x'"),
])
def test_bad_lines(tmp_path, text, expected):
    p = write(tmp_path, text)
    assert error(p) == f"{p}:{expected}"


@pytest.mark.parametrize(("text", "docs", "expected"), [
    ("1 Q0 d1 1 1 r 0 5\n2 Q0 nosuch 1 1 r 0 5\n", TEXT,
     "2: document 'nosuch' is not in the collection"),
    ("1 Q0 d1 1 1 r 0 5\n1 Q0 d1#/a[1] 2 1 r 0 5\n", TEXT,
     "2: document 'd1#/a[1]' is not in the collection (a range names a document, not a unit)"),
    ("1 Q0 d1 1 2 r 0 5\n1 Q0 d2 2 1 r 40 11\n", TEXT,
     "2: range 40-51 of document 'd2' ends past its end (50 characters)"),
    ("1 Q0 w 1 1 r 30 31\n", VIDEOS, "1: range 30-31 of video 'w' ends past its end (30.5 s)"),
    ("1 Q0 v 1 1 r 30 20\n", VIDEOS, "1: END 20 is before START 30"),
    ("1 Q0 d1 1 2 r 0 5\n1 Q0 d2 2 1 r 1.5 3\n", TEXT,
     "2: expected integers OFFSET LENGTH: document 'd1' is a text: its ranges are OFFSET LENGTH "
     "in characters, integers (TOPIC Q0 DOC RANK SCORE TAG OFFSET LENGTH), not times"),
    ("1 Q0 d1 1 2 r 0 5\n1 Q0 v 2 1 r 1 3\n",
     Documents(["d1", "v"], np.array([False, True]), np.array([10.0, 10.0])),
     "2: document 'v' is a video, unlike the documents above it: a run holds one layout, "
     "text ranges (TOPIC Q0 DOC RANK SCORE TAG OFFSET LENGTH) or time ranges "
     "(TOPIC Q0 VIDEO RANK SCORE TAG START END)"),
])
def test_ranges_checked_against_the_documents(tmp_path, text, docs, expected):
    p = write(tmp_path, text)
    assert error(p, docs) == f"{p}:{expected}"


def test_tree_runs_are_of_units(tmp_path):
    p = write(tmp_path, "1 Q0 d1 1 1 r 0 5\n")
    with pytest.raises(UsageError, match="tree runs"):
        read_run(p, trees=True)


def test_byte_offsets_become_characters():
    run = run_from_object(pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["d", "d"],
                                        "score": [2, 1], "offset": [0, 3], "length": [3, 4]}),
                          "frame", "r")[0]
    docs = Documents(["d"], np.array([False]), np.array([5.0]))
    got = resolve_ranges(run, docs, doc_text=lambda doc: "aéb€c")  # bytes: a é é b € € € c
    assert got.topics["1"].bounds.tolist() == [[0, 2], [2, 2]]  # [0, 3) bytes: 'aé'; [3, 7): 'b€'


def test_data_frames_with_range_columns():
    frame = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["v", "v"], "score": [1, 2],
                          "start": [1.5, 0.0], "end": [3.0, 1.0]})
    [run] = run_from_object(frame, "frame", "r")
    assert (run.ranges, as_plain(run)) == ("time", {"1": [("v", 0, 1), ("v", 1.5, 3)]})
    with pytest.raises(InputError, match="index 1: END before START, got 3 1"):
        run_from_object(frame.assign(start=[1.0, 3.0]), "frame", "r")
    with pytest.raises(InputError, match="index 0: a range needs finite numbers >= 0, got -1 3"):
        run_from_object(frame.assign(start=[-1.0, 0.0]), "frame", "r")
    with pytest.raises(UsageError, match=r"offset and length .* or start and end"):
        run_from_object(frame.rename(columns={"start": "offset"}), "frame", "r")
    with pytest.raises(InputError, match=r"duplicate range 1\.5 3 of 'v'"):
        run_from_object(pd.concat([frame, frame]), "frame", "r")
