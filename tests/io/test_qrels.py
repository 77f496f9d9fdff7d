"""Qrels reader/writer and the shared line reader (DESIGN §1.3)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphprum.errors import InputError
from graphprum.io import Qrels, read_lines, read_qrels, write_qrels


def write(tmp_path, text: str | bytes, name: str = "qrels"):
    p = tmp_path / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


def error(path, read=read_qrels) -> str:
    with pytest.raises(InputError) as info:
        read(path)
    return str(info.value)


def test_good_file_with_comments_blanks_tabs_and_crlf(tmp_path):
    p = write(tmp_path, "# judged by A\r\n\r\n401 0 FT1 1\r\n401\t0\tFT2\t0\r\n   \n"
                        "  # indented comment\n402 0 FT1 2\n401 0 Zé 0.5\n")
    q = read_qrels(p)
    assert isinstance(q, Qrels)
    assert q == {"401": {"FT1": 1.0, "FT2": 0.0, "Zé": 0.5}, "402": {"FT1": 2.0}}
    assert list(q) == ["401", "402"]
    assert list(q["401"]) == ["FT1", "FT2", "Zé"]  # file order kept
    assert q.relevant("401") == ["FT1", "Zé"]
    assert q.relevant("999") == []
    assert q.path == str(p)


def test_byte_order_mark_is_dropped(tmp_path):
    p = write(tmp_path, b"\xef\xbb\xbf1 0 d 1\n")
    assert read_qrels(p) == {"1": {"d": 1.0}}


@pytest.mark.parametrize(("line", "expected"), [
    ("1 0 d", "expected 4 fields TOPIC ITER ID REL, got 3"),
    ("1 0 d 1 extra", "expected 4 fields TOPIC ITER ID REL, got 5"),
    ("1 0 d -0.5", "expected REL an integer (negative: not relevant) or a graded value in "
                   "[0, 1], got '-0.5'"),
    ("1 0 d 2.5", "got '2.5'"),
    ("1 0 d 1_0", "(ASCII digits), got '1_0'"),
    ("1 0 d ١", "(ASCII digits), got '١'"),
    ("1 0 d 0x1", "got '0x1'"),
    ("1 0 d x", "got 'x'"),
    ("1 0 d nan", "got 'nan'"),
    ("1 0 d inf", "got 'inf'"),
])
def test_malformed_line_names_file_and_line(tmp_path, line, expected):
    p = write(tmp_path, f"# header\n1 0 a 1\n\n{line}\n1 0 z 0\n")
    message = error(p)
    assert message.startswith(f"{p}:4: ")
    assert expected in message
    assert "\n" not in message


def test_negative_grades_are_read_as_not_relevant(tmp_path):
    """TREC Web track qrels judge spam -2 and junk -1 (issue 21 item 8):
    read, not relevant."""
    p = write(tmp_path, "1 0 spam -2\n1 0 junk -1\n1 0 good 1\n")
    q = read_qrels(p)
    assert q == {"1": {"spam": -2.0, "junk": -1.0, "good": 1.0}}
    assert q.relevant("1") == ["good"]


def test_duplicate_names_both_lines(tmp_path):
    p = write(tmp_path, "1 0 a 1\n2 0 b 1\n#\n1 0 b 0\n2 0 b 0\n")
    assert error(p) == f"{p}:5: duplicate judgement of 'b' for topic '2' (first on line 2)"


def test_same_id_in_two_topics_is_fine(tmp_path):
    p = write(tmp_path, "1 0 a 1\n2 0 a 0\n")
    assert read_qrels(p) == {"1": {"a": 1.0}, "2": {"a": 0.0}}


def test_empty_and_comment_only_files(tmp_path):
    for text in ("", "# nothing\n\n"):
        p = write(tmp_path, text)
        assert error(p) == f"{p}: empty qrels: no TOPIC ITER ID REL lines"


def test_missing_file(tmp_path):
    p = tmp_path / "absent"
    assert error(p).startswith(f"{p}: cannot read")


def test_non_utf8_byte_names_its_line(tmp_path):
    p = write(tmp_path, b"1 0 a 1\n# ok\n1 0 caf\xe9 1\n")
    assert error(p) == f"{p}:3: not UTF-8: byte 0xe9 at column 8"


def test_read_lines_counts_skipped_lines(tmp_path):
    p = write(tmp_path, "\n# c\n a  b \n\n\tc\n")
    assert list(read_lines(p)) == [(3, ["a", "b"]), (5, ["c"])]


ids = st.text(alphabet="abcXYZ019-_.é/#", min_size=1, max_size=6).filter(
    lambda s: not s.startswith("#"))
rels = st.one_of(st.integers(0, 4).map(float), st.floats(0, 1, allow_nan=False))


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(["1", "2", "t3"]),
                       st.dictionaries(ids, rels, min_size=1, max_size=5), min_size=1))
def test_write_then_read_gives_the_same_qrels(tmp_path_factory, qrels):
    p = tmp_path_factory.mktemp("q") / "qrels"
    write_qrels(qrels, p)
    back = read_qrels(p)
    assert back == qrels
    assert [list(v) for v in back.values()] == [list(v) for v in qrels.values()]


def test_inex_2005_exhaustivity_and_specificity(tmp_path):
    """TOPIC ITER ID E S: REL is PRUM app. C.1's generalized quantization."""
    p = write(tmp_path, "1 0 a 3 3\n1 0 b 3 2\n1 0 c 1 2\n1 0 d 0 0\n2 0 a 2 2\n")
    q = read_qrels(p)
    assert q == {"1": {"a": 1.0, "b": 0.75, "c": 0.25, "d": 0.0}, "2": {"a": 0.5}}
    assert q.exh_spec == {"1": {"a": (3, 3), "b": (3, 2), "c": (1, 2), "d": (0, 0)},
                          "2": {"a": (2, 2)}}
    assert read_qrels(write(tmp_path, "1 0 a 1\n", "plain")).exh_spec == {}
    for text, message in [("1 0 a 3 0\n", "E 0 only with S 0"), ("1 0 a 4 1\n", "got '4 1'"),
                          ("1 0 a 3 3\n1 0 b 1\n", "expected 5 fields TOPIC ITER ID E S")]:
        assert message in error(write(tmp_path, text, "bad"))
