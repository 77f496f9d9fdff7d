"""INEX 2006 XML runs and INEX path normalisation (DESIGN §1.1, §1.3)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphprum.errors import InputError, UsageError
from graphprum.io import normalise_xpath, read_inex_run, read_run
from graphprum.units import UnitTable

HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
        '<inex-submission participant-id="12" run-id="{run}" task="Focused" query="automatic"'
        ' result-type="element">\n'
        '<topic-fields title="yes" castitle="no" description="no" narrative="no"/>\n'
        '<description>test run</description>\n'
        '<collections><collection>wikipedia</collection></collections>\n')


def inex(tmp_path, body: str, run: str = "VSM", name: str = "run.xml"):
    p = tmp_path / name
    p.write_text(HEAD.format(run=run) + body + "</inex-submission>\n", encoding="utf-8")
    return p


def result(file: str, path: str, rank: int | None = None, rsv: float | None = None) -> str:
    parts = f"<file>{file}</file><path>{path}</path>"
    if rank is not None:
        parts += f"<rank>{rank}</rank>"
    if rsv is not None:
        parts += f"<rsv>{rsv}</rsv>"
    return f"  <result>{parts}</result>\n"


def error(path, **kw) -> str:
    with pytest.raises(InputError) as info:
        read_run(path, **kw)
    return str(info.value)


def test_missing_positions_prefix_extension_and_rank_order(tmp_path):
    body = ('<topic topic-id="289">\n'
            + result("12345", "/article/body[1]/section", rank=3, rsv=0.2)
            + result("12345.xml", "/article[1]", rank=1, rsv=0.9)
            + result("777", "article/bdy/sec[2]/p[3]", rank=2, rsv=0.5)
            + "</topic>\n<topic topic-id='290'>\n"
            + result("1", "/a", rank=1)
            + "</topic>\n")
    p = inex(tmp_path, body)
    run = read_run(p, doc_prefix="wiki/")
    assert run.tag == "VSM"
    assert run.ranked("289") == ["wiki/12345#/article[1]",
                                 "wiki/777#/article[1]/bdy[1]/sec[2]/p[3]",
                                 "wiki/12345#/article[1]/body[1]/section[1]"]
    assert run.ranked("290") == ["wiki/1#/a[1]"]
    t = run.topics["289"]
    assert t.ranks.tolist() == [1, 2, 3]
    assert t.scores.tolist() == [0.9, 0.5, 0.2]
    assert read_inex_run(p).ranked("290") == ["1#/a[1]"]  # no prefix


def test_rank_ties_by_rsv_then_file_order(tmp_path):
    body = ('<topic topic-id="1">'
            + result("d", "/a[1]/b[1]", rank=1, rsv=0.1)
            + result("d", "/a[1]/b[2]", rank=1, rsv=0.7)
            + result("d", "/a[1]/b[3]", rank=0)
            + result("d", "/a[1]/b[4]", rank=1, rsv=0.1)
            + "</topic>")
    assert read_run(inex(tmp_path, body)).ranked("1") == [
        "d#/a[1]/b[3]", "d#/a[1]/b[2]", "d#/a[1]/b[1]", "d#/a[1]/b[4]"]


def test_rsv_only_and_file_order(tmp_path):
    body = ('<topic topic-id="1">' + result("d", "/a/b", rsv=0.1) + result("d", "/a/c", rsv=2.0)
            + result("d", "/a/e", rsv=0.1) + "</topic>"
            + '<topic topic-id="2">' + result("d", "/a/z") + result("d", "/a/y") + "</topic>")
    run = read_run(inex(tmp_path, body))
    assert run.ranked("1") == ["d#/a[1]/c[1]", "d#/a[1]/b[1]", "d#/a[1]/e[1]"]
    assert run.ranked("2") == ["d#/a[1]/z[1]", "d#/a[1]/y[1]"]
    assert run.topics["2"].ranks.tolist() == [1, 2]


def test_detection_by_content_with_leading_space_and_no_declaration(tmp_path):
    p = tmp_path / "run.txt"
    p.write_text('\n\n  <inex-submission run-id="r"><topic topic-id="5">'
                 '<result><file>x</file><path>/r</path></result></topic></inex-submission>')
    assert read_run(p).ranked("5") == ["x#/r[1]"]
    with pytest.raises(UsageError):
        read_run(p, trees=True)


def test_duplicate_and_dedup(tmp_path):
    body = ('<topic topic-id="1">\n'
            + result("d", "/a/b", rank=1)
            + result("d", "/a[1]/c", rank=2)
            + result("d", "/a[1]/b[1]", rank=3)
            + "</topic>\n")
    p = inex(tmp_path, body)
    # header is 5 lines; results on lines 7, 8, 9
    assert error(p) == (f"{p}:9: duplicate result 'd#/a[1]/b[1]' for topic '1' (first on line 7)"
                        "; use --dedup to keep the first")
    assert read_run(p, dedup=True).ranked("1") == ["d#/a[1]/b[1]", "d#/a[1]/c[1]"]


def test_not_well_formed_names_the_line(tmp_path):
    p = tmp_path / "bad.xml"
    p.write_text('<inex-submission run-id="r">\n<topic topic-id="1">\n<result>\n'
                 "<file>d</file><path>/a</path>\n</topic>\n</inex-submission>\n")
    message = error(p)
    assert message.startswith(f"{p}:5: not well-formed XML: ")
    assert "\n" not in message


@pytest.mark.parametrize(("body", "line", "expected"), [
    ('<topic topic-id="1">\n<result><file>d</file></result></topic>', 7,
     "expected <path> in <result> (passage results such as <fol> or <passage> are not supported)"),
    ('<topic topic-id="1">\n<result><path>/a</path></result></topic>', 7,
     "expected <file> in <result>"),
    ('<topic>\n<result><file>d</file><path>/a</path></result></topic>', 6,
     "expected a topic-id attribute on <topic>"),
    ('<topic topic-id="1">\n<result><file>d</file>\n<path>/a//b</path></result></topic>', 8,
     "expected an element path like /article[1]/body[1]: empty step in '/a//b'"),
    ('<topic topic-id="1">\n<result><file>d</file>\n<path>/a/text()</path></result></topic>', 8,
     "expected an element path like /article[1]/body[1]: step 'text()' is not an element step"
     " tag or tag[N]"),
    ('<topic topic-id="1">\n<result><file>d</file><path>/a</path>\n<rank>first</rank>'
     "</result></topic>", 8, "expected <rank> an integer, got 'first'"),
    ('<topic topic-id="1">\n<result><file>d</file><path>/a</path>\n<rank>%s</rank>'
     "</result></topic>" % ("9" * 20), 8,
     "expected <rank> an integer of at most 64 bits, got '%s'" % ("9" * 20)),
    ('<topic topic-id="1">\n<result><file>d</file><path>/a</path>\n<rsv>NaN</rsv>'
     "</result></topic>", 8, "expected <rsv> a number, got 'NaN'"),
    ('<topic topic-id="1">\n' + result("d", "/a", rank=1) + result("d", "/b"), 8,
     "expected <rank> in every result of topic '1' or in none"),
    ('<topic topic-id="1">\n' + result("d", "/a") + result("d", "/b", rsv=1.0), 8,
     "expected <rsv> in every result of topic '1' or in none (when no result has a <rank>)"),
])
def test_malformed_results(tmp_path, body, line, expected):
    if not body.rstrip().endswith("</topic>"):
        body += "</topic>"
    p = inex(tmp_path, body + "\n")
    assert error(p) == f"{p}:{line}: {expected}"


def test_wrong_root_missing_run_id_and_empty(tmp_path):
    p = tmp_path / "a.xml"
    p.write_text("<?xml version='1.0'?>\n<run/>")
    assert error(p) == f"{p}:2: expected root element <inex-submission>, got <run>"
    p.write_text("<inex-submission>\n</inex-submission>")
    assert error(p) == f"{p}:1: expected a run-id attribute on <inex-submission>"
    p.write_text('<inex-submission run-id="r">\n<topic topic-id="1"/></inex-submission>')
    assert error(p) == f"{p}: empty run: no <result> elements"


def test_declared_latin1_encoding(tmp_path):
    p = tmp_path / "l1.xml"
    p.write_bytes(b'<?xml version="1.0" encoding="ISO-8859-1"?>\n<inex-submission run-id="r">'
                  b'<topic topic-id="1"><result><file>caf\xe9</file><path>/a</path></result>'
                  b"</topic></inex-submission>")
    assert read_run(p).ranked("1") == ["café#/a[1]"]


# --- normalise_xpath ---------------------------------------------------------

tags = st.sampled_from(["article", "body", "sec", "p", "dc:title", "x-y", "a.b", "é"])


@given(st.lists(st.tuples(tags, st.one_of(st.none(), st.integers(1, 30))), min_size=1,
                max_size=6), st.booleans())
def test_normalise_xpath_adds_missing_positions(steps, leading_slash):
    written = "/".join(t if n is None else f"{t}[{n}]" for t, n in steps)
    expected = "".join(f"/{t}[{1 if n is None else n}]" for t, n in steps)
    path = ("/" if leading_slash else "") + written
    assert normalise_xpath(path) == expected
    assert normalise_xpath(expected) == expected  # idempotent


@pytest.mark.parametrize("bad", ["", "/", "/a/", "/a//b", "/a/@id", "/a/*", "/a[0]", "/a[-1]",
                                 "/a[last()]", "/a/b[1][2]", "/1a"])
def test_normalise_xpath_rejects(bad):
    with pytest.raises(ValueError, match=r"."):
        normalise_xpath(bad)


def test_normalised_paths_match_store_ids():
    t = UnitTable.from_tree(doc="wiki/1", tags=["article", "body", "p", "p"],
                            parents=[-1, 0, 1, 1], lengths=[9, 8, 4, 4])
    for unit in t.ids():
        doc, _, xpath = unit.partition("#")
        assert f"{doc}#{normalise_xpath(xpath)}" == unit
    assert "wiki/1#" + normalise_xpath("/article/body/p[2]") in t.ids()
