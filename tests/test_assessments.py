"""Assessment readers: passage qrels, INEX 2008+ text qrels, X-Rai XML."""

from __future__ import annotations

import numpy as np
import pytest

from graphprum.assessments import byte_to_char, read_assessments
from graphprum.errors import InputError, UsageError
from graphprum.measures.inex_base import qrels_from_assessments
from graphprum.store.memory import MemoryStore
from graphprum.units import UnitTable

# d: a(60) = own [0,10) + s1 [10,30) (p1 [10,20), p2 [20,30)) + s2 [30,60)
TABLE = UnitTable.from_tree("d", ["a", "s", "p", "p", "s"], [-1, 0, 1, 1, 0],
                            [60, 20, 10, 10, 30])


def write(tmp_path, name, text, mode="w"):
    p = tmp_path / name
    if mode == "wb":
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


def test_passage_qrels(tmp_path):
    p = write(tmp_path, "p.txt", "# c\n1 d 10 20\n1 d 15 25\n1 d BEP 10\n2 d 0 5\n")
    a = read_assessments(p)
    assert a["1"].ranges["d"].tolist() == [[10, 25]]
    assert a["1"].beps == {"d": 10.0}
    assert a["2"].trel("d") == 5


def test_2008_qrels_and_relchars_check(tmp_path):
    p = write(tmp_path, "q.txt", "544 Q0 d 15 60 10 10:10 30:5\n544 Q0 e 9 80 -1 0:8\n")
    notes = []
    a = read_assessments(p, warn=notes.append)
    assert a["544"].ranges["d"].tolist() == [[10, 20], [30, 35]]
    assert a["544"].beps == {"d": 10.0}
    # e says RELCHARS 9 but its passages cover 8 characters
    assert len(a.mismatches) == 1 and "RELCHARS 9" in a.mismatches[0]
    assert a.mismatches[0].startswith(f"{p}:2:")
    assert notes and notes[0].startswith("note: ")


@pytest.mark.parametrize("line, where, number", [
    ("544 Q0 d 15\n", "expected TOPIC Q0 DOC", 2),
    ("544 Q0 d x 60\n", "RELCHARS", 2),
    ("544 Q0 d 15 60 10 10-20\n", "OFFSET:LENGTH", 2),
    ("544 Q0 d 15 60 10\n", "no OFFSET:LENGTH", 2),
    ("544 Q0 d 0 60\n544 Q0 d 0 60\n", "second line", 3),
])
def test_2008_bad_lines(tmp_path, line, where, number):
    p = write(tmp_path, "bad.txt", "544 Q0 ok 0 10\n" + line)
    with pytest.raises(InputError) as e:
        read_assessments(p)
    assert where in str(e.value)
    assert str(e.value).startswith(f"{p}:{number}:")


XRAI = """<?xml version="1.0" encoding="UTF-8"?>
<assessments topic="289">
  <file file="d.xml">
    <best-entry-point path="/a/s[1]/p[1]"/>
    <passage start="10" end="20" size="10"/>
    <passage start="/a[1]/s[2].0" end="/a[1]/s[2].15" size="15"/>
    <element path="/a[1]" exhaustivity="2" size="60" rsize="25"/>
    <element path="/a[1]/s[1]" exhaustivity="2" size="20" rsize="10"/>
    <element path="/a[1]/s[2]" exhaustivity="1" size="30" rsize="20"/>
  </file>
</assessments>
"""


def test_xrai_with_paths_and_consistency(tmp_path):
    p = write(tmp_path, "a.xml", XRAI)
    notes = []
    a = read_assessments(p, TABLE, warn=notes.append)
    t = a["289"]
    assert t.ranges["d"].tolist() == [[10, 20], [30, 45]]
    assert t.beps == {"d": 10.0}
    # s2 holds 15 highlighted characters, the file says 20: one mismatch
    assert len(a.mismatches) == 1
    assert "d#/a[1]/s[2]" in a.mismatches[0] and "rsize 20" in a.mismatches[0]
    q = qrels_from_assessments(a, TABLE_STORE)
    assert q["289"] == pytest.approx({"d#/a[1]": 25 / 60, "d#/a[1]/s[1]": .5,
                                      "d#/a[1]/s[1]/p[1]": 1.0, "d#/a[1]/s[2]": .5})


TABLE_STORE = MemoryStore.of_table(TABLE)


def test_xrai_paths_need_a_store(tmp_path):
    p = write(tmp_path, "a.xml", XRAI)
    with pytest.raises(UsageError):
        read_assessments(p)


def test_xrai_inclusive_ends(tmp_path):
    p = write(tmp_path, "a.xml", '<assessments topic="1"><file file="d">'
                                 '<passage start="0" end="4"/></file></assessments>')
    assert read_assessments(p, end="inclusive")["1"].ranges["d"].tolist() == [[0, 5]]
    assert read_assessments(p)["1"].ranges["d"].tolist() == [[0, 4]]


def test_xrai_errors_name_line(tmp_path):
    p = write(tmp_path, "a.xml", '<assessments topic="1">\n<file file="d">\n'
                                 '<passage start="x" end="4"/></file></assessments>')
    with pytest.raises(InputError, match=r"a\.xml:3: expected start"):
        read_assessments(p)
    p = write(tmp_path, "b.xml", '<assessments topic="1">\n<file file="d">\n</assessments>')
    with pytest.raises(InputError, match=r"b\.xml:3: not well-formed"):
        read_assessments(p)


def test_byte_offsets_on_non_ascii_text(tmp_path):
    text = "héllo wörld"  # é and ö take 2 bytes each in UTF-8
    assert text.index("wörld") == 6
    assert text.encode().index("wörld".encode()) == 7
    chars = write(tmp_path, "c.txt", "1 Q0 d 5 11 6 6:5\n")
    by = write(tmp_path, "b.txt", "1 Q0 d 5 13 7 7:6\n")
    a = read_assessments(chars)
    b = read_assessments(by, units="bytes", doc_text=lambda d: text, check=False)
    assert a["1"].ranges["d"].tolist() == b["1"].ranges["d"].tolist() == [[6, 11]]
    assert a["1"].beps == b["1"].beps == {"d": 6.0}
    with pytest.raises(UsageError):
        read_assessments(by, units="bytes")


def test_byte_to_char_matches_python_decoding():
    text = "aé€😀b"
    data = text.encode()
    for off in range(len(data) + 1):
        # characters whose whole encoding lies before the byte offset (an offset
        # inside a character maps to that character's start)
        expect = sum(1 for i in range(len(text)) if len(text[:i + 1].encode()) <= off)
        assert byte_to_char(text, np.array([off]))[0] == expect


@pytest.mark.parametrize(("name", "text", "line"), [
    ("p.txt", "1 d 0 10\n1 d 50 61\n", 2),
    ("q.txt", "1 Q0 d 12 60 -1 0:2 55:10\n", 1),
    ("x.xml", '<assessments topic="1">\n<file file="d">\n<passage start="0" end="5"/>\n'
              '<passage start="50" end="61"/></file></assessments>', 4),
])
def test_passage_past_the_end_of_its_document_is_refused(tmp_path, name, text, line):
    """Issue 18: document d is 60 characters long; a passage ending at 61 (or
    at 65) lies partly outside it: an error naming the line, not a value."""
    p = write(tmp_path, name, text)
    with pytest.raises(InputError) as e:
        read_assessments(p, TABLE, check=False)
    assert str(e.value).startswith(f"{p}:{line}: passage ")
    assert "ends past the document's end (60 characters)" in str(e.value)


def test_xrai_end_inf_and_bep_past_the_end_are_refused(tmp_path):
    p = write(tmp_path, "inf.xml", '<assessments topic="1">\n<file file="d">\n'
                                   '<passage start="0" end="inf"/></file></assessments>')
    with pytest.raises(InputError, match=r"inf\.xml:3: expected end an offset"):
        read_assessments(p, TABLE)
    p = write(tmp_path, "bep.txt", "1 d 0 10\n1 d BEP 70\n")
    with pytest.raises(InputError, match=r"best entry point 70 .* past the document's end"):
        read_assessments(p, TABLE)


def test_passage_numbers_are_ascii_decimal(tmp_path):
    """Issue 18: '1_0' and Arabic-Indic digits are not numbers in input files."""
    for bad in ("1_0", "١٠"):
        p = write(tmp_path, "p.txt", f"1 d 0 {bad}\n")
        with pytest.raises(InputError, match=r"p\.txt:1: expected END an integer \(ASCII"):
            read_assessments(p)


def test_documents_the_store_lacks_are_reported(tmp_path, write) -> None:
    """Passages of a document the store does not hold (a typo, an element id
    where a DOC is expected) count for no unit: a note naming the file, the
    line and the documents; an error with --strict."""
    from typer.testing import CliRunner

    from graphprum.cli import app

    write("c/d1.xml", "<a><p>first text here</p><p>second</p></a>")
    runner = CliRunner()
    store = str(tmp_path / "s")
    assert runner.invoke(app, ["--store", store, "load", "xml", str(tmp_path / "c")]).exit_code == 0
    run = write("run.txt", "1 Q0 d1#/a[1]/p[1] 1 2 r\n1 Q0 d1#/a[1] 2 1 r\n")
    passages = write("passages.txt", "1 d1 0 10\n1 nosuch 0 10\n1 d1#/a[1] 0 4\n")
    base = ["--store", store, "eval", str(run), "--passages", str(passages), "-m", "nxCG@1"]
    r = runner.invoke(app, [*base, "--strict"])
    assert r.exit_code == 2
    assert r.output.strip() == (f"graphprum: error: {passages}:2: 2 document(s) the passages "
                                f"name are not in the store {store}: 'nosuch', 'd1#/a[1]' "
                                f"(their passages count for no unit)")
    r = runner.invoke(app, base)
    assert r.exit_code == 0
    assert (f"note: {passages}:2: 2 document(s) the passages name are not in the store"
            in r.stderr)
    clean = write("clean.txt", "1 d1 0 10\n")
    r = runner.invoke(app, ["--store", store, "eval", str(run), "--passages", str(clean),
                            "-m", "nxCG@1", "--strict"])
    assert r.exit_code == 0 and "not in the store" not in r.output


def test_byte_offsets_on_a_store_loaded_from_xml(tmp_path, write, monkeypatch) -> None:
    """--offsets bytes read UTF-8 byte offsets against the documents' text,
    read again from the files they were loaded from (it was refused: "byte
    offsets need the documents' text" on every store)."""
    from typer.testing import CliRunner

    from graphprum.cli import app

    monkeypatch.chdir(tmp_path)
    write("c/e3.xml", "<art>ab<p>éé</p>cd<p>ff</p></art>")  # é: 2 bytes
    runner = CliRunner()
    assert runner.invoke(app, ["--store", "s", "load", "xml", "c"]).exit_code == 0
    run = write("run.txt", "3 Q0 e3#/art[1]/p[1] 1 2 r\n3 Q0 e3#/art[1] 2 1 r\n")
    chars = write("chars.txt", "3 e3 3 7\n3 e3 BEP 5\n")  # 'é' 2, 'é' 3, 'cd' 4-5
    in_bytes = write("bytes.txt", "3 e3 4 9\n3 e3 BEP 7\n")
    base = ["--store", "s", "eval", str(run), "-m", "AgP", "-m", "BEPD", "-q"]
    want = runner.invoke(app, [*base, "--passages", str(chars)])
    got = runner.invoke(app, [*base, "--passages", str(in_bytes), "--offsets", "bytes"])
    assert want.exit_code == 0 and got.exit_code == 0, got.output
    assert got.stdout == want.stdout
    (tmp_path / "c" / "e3.xml").write_text("<art>changed</art>")
    r = runner.invoke(app, [*base, "--passages", str(in_bytes), "--offsets", "bytes"])
    assert r.exit_code == 2 and "changed since it was loaded" in r.output
