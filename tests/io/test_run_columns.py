"""The TREC run reader: the vectorised pass (pyarrow's CSV reader into
columns) against a plain reader written here, and the careful pass's exact
messages where the fast pass refuses a file.

The plain reader splits lines with ``str.split``, rounds scores to C
``float`` with :mod:`struct` (not numpy) and sorts with Python's ``sorted``:
trec_eval's rule (SCORE descending as float32, ties by ID descending), or
RANK ascending first (``--order rank``), the first line of a duplicate kept
with ``dedup``.
"""

from __future__ import annotations

import random
import struct
from pathlib import Path

import numpy as np
import pytest

from graphprum.errors import InputError
from graphprum.io.runs import read_columns, read_run


def f32(x: float) -> float:
    """``x`` as a C float, by packing it (beyond the range: an infinity)."""
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return float("inf") if x > 0 else float("-inf")


def plain_read(text: str, order: str = "score", dedup: bool = False
               ) -> dict[str, list[tuple[str, float, int]]]:
    """topic -> [(id, score, rank)] in evaluation order, topics in first-appearance order."""
    topics: dict[str, list[tuple[str, float, int]]] = {}
    seen: set[tuple[str, str]] = set()
    for line in text.split("\n"):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        topic, _, unit, rank, score, _ = fields
        if (topic, unit) in seen:
            assert dedup
            continue
        seen.add((topic, unit))
        topics.setdefault(topic, []).append((unit, float(score), int(rank)))
    out = {}
    for topic, results in topics.items():
        by_score = sorted(results, key=lambda r: (f32(r[1]), r[0]), reverse=True)
        if order == "rank":
            by_score = sorted(by_score, key=lambda r: r[2])  # stable: ties keep the score rule
        out[topic] = by_score
    return out


def random_run(rng: random.Random, lines: int, sep: str = " ") -> str:
    """Interleaved topics, many equal scores (some equal only as C floats),
    ids with non-ASCII characters, a comment line now and then."""
    ids = ["a", "b", "é", "Z", "ab", "a#/x[1]", "doc-10", "doc-9", "ü/x", "日本"]
    scores = ["1", "1.0", "1.00000001", "0.5", "2", "-3e2", "inf", "1e-40", "0", "-0", "7.25"]
    out, used = [], set()
    for _ in range(lines):
        topic = rng.choice(["3", "1", "20", "x"])
        unit = str(rng.randrange(40)) + rng.choice(ids)
        if rng.random() < 0.05:
            out.append("# a comment line")
        if (topic, unit) in used and rng.random() < 0.7:
            continue
        used.add((topic, unit))
        out.append(sep.join([topic, "Q0", unit, str(rng.randrange(1, 30)), rng.choice(scores),
                             "tag"]))
    return "\n".join(out) + "\n"


def as_plain(run) -> dict[str, list[tuple[str, float, int]]]:  # type: ignore[no-untyped-def]
    return {t: list(zip(r.ids, r.scores.tolist(), r.ranks.tolist(), strict=True))
            for t, r in run.topics.items()}


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("order", ["score", "rank"])
def test_the_vectorised_reader_equals_a_plain_reader(tmp_path: Path, seed: int,
                                                     order: str) -> None:
    rng = random.Random(seed)
    sep = "\t" if seed % 3 == 0 else " "
    text = random_run(rng, rng.randrange(1, 400), sep)
    duplicated = len(plain_read(text, dedup=True)) and \
        sum(map(len, plain_read(text, dedup=True).values())) < \
        sum(1 for ln in text.splitlines() if ln and not ln.startswith("#"))
    path = tmp_path / "run"
    path.write_text(text, encoding="utf-8")
    for dedup in (False, True):
        fast = read_columns(text.encode(), order, dedup)
        if duplicated and not dedup:
            assert fast is None  # the careful pass names both lines
            with pytest.raises(InputError, match="duplicate result"):
                read_run(path, order=order)
            continue
        assert fast is not None and fast[0] == "tag"
        want = plain_read(text, order, dedup)
        got = {t: list(zip(r.ids, r.scores.tolist(), r.ranks.tolist(), strict=True))
               for t, r in fast[1].items()}
        assert got == want
        assert list(got) == list(want)  # topics in order of first appearance
        assert as_plain(read_run(path, order=order, dedup=dedup)) == want


def test_equal_scores_as_c_floats_tie_and_ids_break_them(tmp_path: Path) -> None:
    text = "1 Q0 a 1 1.00000001 t\n1 Q0 b 2 1.0 t\n1 Q0 c 3 1e39 t\n1 Q0 d 4 inf t\n"
    fast = read_columns(text.encode())
    assert fast is not None
    # 1e39 is beyond float32: an infinity, tied with inf (d > c)
    assert fast[1]["1"].ids == ["d", "c", "b", "a"]
    assert fast[1]["1"].scores.tolist() == [float("inf"), 1e39, 1.0, 1.00000001]


@pytest.mark.parametrize("text", [
    "1  Q0 a 1 2 t\n",  # two spaces
    " 1 Q0 a 1 2 t\n",  # a leading space
    "1 Q0 a 1 2 t \n",  # a trailing space
    "1\tQ0 a 1 2 t\n",  # a tab among spaces
    "1 Q0 a\x0bb 1 2 t\n",  # a vertical tab (white space to str.split)
    "1 Q0 a\u00a0b 1 2 t\n",  # a no-break space
    "1 Q0 a 1 2 t\rx\n",  # a carriage return inside a line
    "1 Q0 a +1 2 t\n",  # a sign pyarrow refuses
    "  # an indented comment\n1 Q0 a 1 2 t\n",
    "1 Q0 a 1 2 t\n   \n",  # a line of blanks
    "1 Q0 d#/article/sec 1 2 t\n",  # an id to normalise
])
def test_what_the_fast_pass_refuses_the_careful_pass_reads(tmp_path: Path, text: str) -> None:
    assert read_columns(text.encode()) is None
    path = tmp_path / "run"
    path.write_text(text, encoding="utf-8")
    try:  # the careful pass reads it, or names the line (the next test)
        read_run(path)
    except InputError as exc:
        assert exc.line is not None


def big_text(lines: int = 3000) -> str:
    return "".join(f"{t} Q0 d{t}-{i} {i + 1} {lines - i}.5 tag\n"
                   for t in range(3) for i in range(lines // 3))


@pytest.mark.parametrize("bad, message", [
    ("1 Q0 x one 1 tag", "expected RANK an integer, got 'one'"),
    ("1 Q0 x 0x10 1 tag", "expected RANK an integer, got '0x10'"),
    ("1 Q0 x 5 nan tag", "expected SCORE a number, got 'nan'"),
    ("1 Q0 x 5 1_0 tag", "expected SCORE a number (ASCII digits), got '1_0'"),
    ("1 Q0 x 5 1 other", "expected one TAG per file ('tag' on line 1), got 'other'"),
    ("1 Q0 x 5 1", "expected 6 fields TOPIC Q0 ID RANK SCORE TAG, got 5"),
    ("1 Q0 d1-7 5 1 tag", "duplicate result 'd1-7' for topic '1' (first on line 1008); "
                          "use --dedup to keep the first"),
    ("1 Q0 x 99999999999999999999 1 tag", "expected RANK an integer of at most 64 bits"),
])
def test_the_careful_pass_names_the_line_the_fast_pass_refused(tmp_path: Path, bad: str,
                                                                message: str) -> None:
    """A bad line at line 2,001 of a file the fast pass reads otherwise."""
    text = big_text()
    lines = text.splitlines(keepends=True)
    lines.insert(2000, bad + "\n")
    path = tmp_path / "run"
    path.write_text("".join(lines), encoding="utf-8")
    assert read_columns(path.read_bytes()) is None
    with pytest.raises(InputError) as err:
        read_run(path)
    assert err.value.line == 2001 and err.value.path == str(path)
    assert err.value.message.startswith(message), err.value.message


def test_bytes_not_utf8_in_any_field_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "run"
    path.write_bytes(big_text().encode() + b"1 Q\xff0 x 5 1 tag\n")
    with pytest.raises(InputError, match=r":3001: not UTF-8: byte 0xff at column 4"):
        read_run(path)


def test_a_gzip_run_and_standard_input_read_as_the_file(tmp_path: Path, monkeypatch) -> None:
    import gzip
    import io
    import sys

    text = big_text(300)
    plain = tmp_path / "run"
    plain.write_text(text)
    zipped = tmp_path / "run.gz"
    zipped.write_bytes(gzip.compress(text.encode()))
    want = as_plain(read_run(plain))
    assert as_plain(read_run(zipped)) == want
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert as_plain(read_run("-")) == want


def test_a_byte_order_mark_and_crlf_line_ends(tmp_path: Path) -> None:
    text = "1 Q0 a 1 2 t\r\n1 Q0 b 2 3 t\r\n"
    fast = read_columns(b"\xef\xbb\xbf" + text.encode())
    assert fast is not None and fast[1]["1"].ids == ["b", "a"]


def test_resident_columns(tmp_path: Path) -> None:
    """The columns a read run keeps: ids as one Arrow column, scores and
    ranks as numpy arrays, offsets per topic (bench/run_memory.py measures
    the bytes per line)."""
    path = tmp_path / "run"
    path.write_text(big_text())
    run = read_run(path)
    table = run.topics
    assert len(table.ids) == 3000 and table.scores.dtype == np.float64  # type: ignore[attr-defined]
    assert table.starts.tolist() == [0, 1000, 2000, 3000]  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", range(4))
def test_the_checks_of_a_batch_decide_as_the_careful_pass(seed: int) -> None:
    """The fast pass's checks of RANK, SCORE and id columns (plain checks
    first, the regular expressions for the rest) take exactly the fields
    the careful pass takes: ``str.split`` keeps an id whole, and the
    careful pass's number rules (:func:`~graphprum.io.lines.ascii_number`,
    an integer of ASCII digits) read RANK and SCORE."""
    import pyarrow as pa

    from graphprum.io.lines import INTEGER, ascii_number
    from graphprum.io.run_columns import _all_ranks, _all_scores, _no_space

    rng = random.Random(seed)
    alphabet = "0123456789" * 4 + "..+-eEinfINF_x\t\x0b\xa0é\u3000\x7f"
    tokens = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 5)))
              for _ in range(3000)]
    tokens += ["1", "12.5", ".5", "5.", ".", "..", "1.2.3", "007", "", "1e5", "inf", "-0"]
    scores = [ascii_number(t, allow_inf=True) is not None for t in tokens]
    ranks = [INTEGER.fullmatch(t) is not None for t in tokens]
    whole = [bool(t) and t.split() == [t] for t in tokens]
    for k, t in enumerate(tokens):
        column = pa.array(["0", t, "1"]).slice(1, 1)  # a column that starts inside its buffers
        assert _all_scores(column) == scores[k], t
        assert _all_ranks(column) == ranks[k], t
        assert _no_space(column) == whole[k], t
    for _ in range(300):  # columns of several fields: every one must pass
        picked = rng.sample(range(len(tokens)), rng.randrange(1, 6))
        column = pa.array([tokens[k] for k in picked])
        assert _all_scores(column) == all(scores[k] for k in picked)
        assert _all_ranks(column) == all(ranks[k] for k in picked)
        assert _no_space(column) == all(whole[k] for k in picked)
