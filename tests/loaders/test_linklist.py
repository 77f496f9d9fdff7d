"""Link lists ``FROM<TAB>TO``: streamed chunks, comments, errors with line numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphprum.errors import InputError
from graphprum.loaders import linklist
from graphprum.loaders.linklist import read_link_list


def pairs(path: Path, chunk: int = 100_000) -> list[tuple[str, str]]:
    out = []
    for src, dst in read_link_list(path, chunk=chunk):
        assert len(src) == len(dst) and len(src) <= chunk
        out.extend(zip(src.tolist(), dst.tolist(), strict=True))
    return out


def test_comments_blanks_spaces_repeats(write) -> None:
    f = write("l.tsv", "\ufeff# header\na.html\tb.html\n\n   \n  # indented comment\n"
                       "b.html \t a.html\r\na.html\tb.html\nmy page.html\tc/d.html")
    assert pairs(f) == [("a.html", "b.html"), ("b.html", "a.html"),
                        ("a.html", "b.html"), ("my page.html", "c/d.html")]


def test_chunks_in_order(write) -> None:
    lines = [f"p{i}\tp{(i * 7) % 1000}" for i in range(2500)]
    f = write("l.tsv", "\n".join(lines) + "\n")
    chunks = list(read_link_list(f, chunk=1000))
    assert [len(s) for s, _ in chunks] == [1000, 1000, 500]
    assert pairs(f, chunk=1000) == [tuple(x.split("\t")) for x in lines]


def test_block_boundaries(write, monkeypatch: pytest.MonkeyPatch) -> None:
    # tiny read blocks: lines are cut across blocks and must come back whole
    monkeypatch.setattr(linklist, "_BLOCK", 7)
    lines = [f"page-{i}.html\ttarget-{i}.html" for i in range(50)]
    f = write("l.tsv", "\n".join(lines))  # no final newline
    assert pairs(f, chunk=9) == [tuple(x.split("\t")) for x in lines]


@pytest.mark.parametrize(("text", "line", "message"), [
    ("a\tb\nc d\n", 2, "expected 2 tab-separated fields FROM TO, got 1"),
    ("a\tb\n# c\n\na\tb\tc\n", 4, "expected 2 tab-separated fields FROM TO, got 3"),
    ("\tb\n", 1, "empty FROM id"),
    ("a\t \n", 1, "empty TO id"),
    (b"a\tb\nx\t\xff\n", 2, "not UTF-8"),
])
def test_errors_name_file_and_line(write, text: str | bytes, line: int, message: str) -> None:
    f = write("bad.tsv", text)
    with pytest.raises(InputError) as err:
        list(read_link_list(f))
    assert err.value.line == line
    assert message in err.value.message
    assert str(err.value).startswith(f"{f}:{line}: ")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        list(read_link_list(tmp_path / "none.tsv"))


def test_empty_file(write) -> None:
    assert list(read_link_list(write("e.tsv", "# nothing\n"))) == []


def test_the_fast_and_the_careful_reader_agree(write) -> None:
    lines = [f"p{i}.html\t p{(i * 31) % 500}.html " for i in range(3000)]
    lines[5:5] = ["# a comment\twith a tab", "", "   ", "\t"]
    f = write("l.tsv", "\n".join(lines) + "\n")
    fast = pairs(f, chunk=700)
    careful = [p for a, b in linklist.read_link_list_by_line(f, chunk=700)
               for p in zip(a.tolist(), b.tolist(), strict=True)]
    assert fast == careful and len(fast) == 3000


def test_an_error_after_many_good_lines_names_its_line(write) -> None:
    lines = [f"p{i}\tq{i}" for i in range(250_000)] + ["bad line"]
    f = write("l.tsv", "\n".join(lines) + "\n")
    with pytest.raises(InputError) as err:
        list(read_link_list(f))
    assert err.value.line == 250_001


def test_a_carriage_return_inside_an_id_is_kept(write) -> None:
    # the CSV reader would end a line at a lone \r: the careful reader reads it
    f = write("l.tsv", "a.html\tc\rd.html\nb.html\ta.html\n")
    assert pairs(f) == [("a.html", "c\rd.html"), ("b.html", "a.html")]


def test_a_hash_inside_an_id_is_the_careful_readers_error(write) -> None:
    f = write("l.tsv", "a.html\tb.html\nc.html\td#x.html\n")
    with pytest.raises(InputError, match="holds '#'") as err:
        list(read_link_list(f))
    assert err.value.line == 2


@pytest.mark.parametrize("block", [1, 2, 3, 5, 64])
def test_a_lone_carriage_return_is_found_across_read_blocks(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            block: int) -> None:
    monkeypatch.setattr(linklist, "_BLOCK", block)
    for data in (b"a\tb\r\nc\td\r\n", b"a\tb\rc\n", b"a\tb\r", b"\r\n\r\n", b"\r\r\n", b"x\n\r",
                 b"ab\r\ncd", b""):
        f = tmp_path / "l.tsv"
        f.write_bytes(data)
        assert linklist._lone_carriage_return(f) == (b"\r" in data.replace(b"\r\n", b""))


def test_batches_with_and_without_spaces_read_as_the_careful_reader_reads(
        write, monkeypatch: pytest.MonkeyPatch) -> None:
    # small CSV blocks: some batches need trimming (and hold comments), the others not
    monkeypatch.setattr(linklist, "_CSV_BLOCK", 64)
    lines = [f"p{i}.html\tq!{i}\"x" if i % 7 else f" p{i}.html\t q{i} " for i in range(400)]
    lines[100:100] = ["# c\td", "  # e"]
    f = write("l.tsv", "\n".join(lines) + "\n")
    careful = [p for a, b in linklist.read_link_list_by_line(f, chunk=150)
               for p in zip(a.tolist(), b.tolist(), strict=True)]
    assert pairs(f, chunk=150) == careful and len(careful) == 400
    assert careful[1] == ("p1.html", 'q!1"x') and careful[7] == ("p7.html", "q7")
