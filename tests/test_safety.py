"""Data safety and security (issue 18), without a server: every command fed
bad input (exit 2, one line on stderr naming the file, no traceback), and
the reproducers of the issue that need no Bolt server (deep web pages, file
names that are not UTF-8, links:hops=10000, passwords in URIs, URI schemes,
the Cypher literal encoder, the PRUM(exact=mc) cost guard, OSError).

The Bolt half (a real FalkorDB) is in ``test_safety_bolt.py``.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from graphprum.cli import app
from graphprum.errors import UsageError
from graphprum.store.cypher_literal import cypher_literal, literal_size, splice
from graphprum.store.uri import parse_store_uri, redact
from tests.support import REPO

SCRIPT = Path(sys.executable).with_name("graphprum")
runner = CliRunner()
PASSWORD = "Sup3rS3cretPW"
NOT_UTF8 = os.fsdecode(b"caf\xe9")  # a file name with a byte that is not UTF-8


def cli(*args: str):
    """Run graphprum in process; (exit code, stdout, stderr, exception)."""
    r = runner.invoke(app, list(args))
    return r.exit_code, r.stdout, r.stderr, r.exception


def assert_one_line_error(code: int, out: str, err: str, exc, *names: str) -> str:
    """The contract for a user's mistake: exit 2, exactly one line on stderr
    that names ``names``, no traceback anywhere."""
    assert exc is None or isinstance(exc, SystemExit), repr(exc)
    assert code == 2, (code, out, err)
    assert "Traceback" not in out + err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("graphprum: error: "), lines[0]
    for name in names:
        assert name in lines[0], (name, lines[0])
    return lines[0]


# --------------------------------------------------------------------------
# every command, bad inputs


@pytest.fixture(scope="module")
def bad(tmp_path_factory):
    """A store with one small document, a good run and qrels, and bad files."""
    d = tmp_path_factory.mktemp("bad")
    (d / "col").mkdir()
    (d / "col" / "a.xml").write_text("<a><b>one two</b><b>three</b></a>", encoding="utf-8")
    store = d / "store"
    code, _, err, exc = cli("--store", str(store), "load", "xml", str(d / "col"))
    assert code == 0 and exc is None, err
    (d / "adir").mkdir()
    (d / "binary.bin").write_bytes(bytes(range(256)) * 4)
    (d / "empty.txt").write_bytes(b"")
    (d / f"{NOT_UTF8}.xml").write_bytes(b"<a/>")
    (d / f"{NOT_UTF8}.srt").write_bytes(b"1\n00:00:01,000 --> 00:00:02,000\nhi\n")
    (d / "site" / "pages").mkdir(parents=True)
    (d / "site" / "index.html").write_bytes(b"<p>hi</p>")
    (d / "site" / "pages" / f"{NOT_UTF8}.html").write_bytes(b"<p>x</p>")
    (d / "latin1.txt").write_bytes(b"1 Q0 caf\xe9#/a[1] 1 1.0 r\n")
    (d / "run.txt").write_text("1 Q0 a#/a[1] 1 2.0 r\n1 Q0 a#/a[1]/b[1] 2 1.0 r\n",
                               encoding="utf-8")
    (d / "qrels.txt").write_text("1 0 a#/a[1]/b[1] 1\n", encoding="utf-8")
    (d / "hugeq.txt").write_text("1 0 a#/a[1]/b[1] 1e400\n", encoding="utf-8")
    (d / "hugev.tsv").write_text("v 1 0 1e400\n", encoding="utf-8")
    (d / "links.tsv").write_bytes(b"a\xff\tb\n")
    (d / "nul.xml").write_bytes(b"<a>\x00</a>")
    return d


#: (case, arguments after ``--store STORE``, text the error must name).
#: ``{d}`` is the fixture's directory; ``{store}`` the store.
BAD_INPUTS = [
    ("xml missing", ["load", "xml", "{d}/missing.xml"], "{d}/missing.xml"),
    ("xml directory without xml", ["load", "xml", "{d}/adir"], "{d}/adir"),
    ("xml binary", ["load", "xml", "{d}/binary.bin"], "{d}/binary.bin:1"),
    ("xml empty", ["load", "xml", "{d}/empty.txt"], "{d}/empty.txt:1"),
    ("xml NUL", ["load", "xml", "{d}/nul.xml"], "{d}/nul.xml:1"),
    ("xml name not UTF-8", ["load", "xml", f"{{d}}/{NOT_UTF8}.xml"], "caf\\xe9.xml"),
    ("web missing", ["load", "web", "{d}/missing"], "{d}/missing"),
    ("web a file", ["load", "web", "{d}/binary.bin"], "{d}/binary.bin"),
    ("web no page", ["load", "web", "{d}/adir"], "{d}/adir"),
    ("web page name not UTF-8", ["load", "web", "{d}/site"], "caf\\xe9.html"),
    ("links missing", ["load", "links", "{d}/missing"], "{d}/missing"),
    ("links directory", ["load", "links", "{d}/adir"], "{d}/adir"),
    ("links binary", ["load", "links", "{d}/binary.bin"], "{d}/binary.bin:"),
    ("links not UTF-8", ["load", "links", "{d}/links.tsv"], "{d}/links.tsv:1"),
    ("video missing", ["load", "video", "{d}/missing"], "{d}/missing"),
    ("video directory", ["load", "video", "{d}/adir"], "{d}/adir"),
    ("video binary", ["load", "video", "{d}/binary.bin"], "{d}/binary.bin:"),
    ("video empty", ["load", "video", "{d}/empty.txt"], "{d}/empty.txt"),
    ("video huge number", ["load", "video", "{d}/hugev.tsv"], "{d}/hugev.tsv:1"),
    ("video name not UTF-8", ["load", "video", f"{{d}}/{NOT_UTF8}.srt"], "caf\\xe9.srt"),
    ("show unknown id", ["show", "nope#/x[1]"], "nope#/x[1]"),
    ("nav bad model", ["nav", "bogus", "--from", "a#/a[1]", "--to", "a#/a[1]"], "bogus"),
    ("nav bad hops", ["nav", "links:hops=x", "--from", "a#/a[1]", "--to", "a#/a[1]"],
     "hops"),
    ("summary bad axpre", ["summary", "build", "zzz"], "zzz"),
    ("summary not built", ["summary", "show", "p"], "{store}"),
    ("eval run missing", ["eval", "{d}/missing", "--qrels", "{d}/qrels.txt"], "{d}/missing"),
    ("eval run directory", ["eval", "{d}/adir", "--qrels", "{d}/qrels.txt"], "{d}/adir"),
    ("eval run binary", ["eval", "{d}/binary.bin", "--qrels", "{d}/qrels.txt"],
     "{d}/binary.bin:"),
    ("eval run empty", ["eval", "{d}/empty.txt", "--qrels", "{d}/qrels.txt"],
     "{d}/empty.txt"),
    ("eval run not UTF-8", ["eval", "{d}/latin1.txt", "--qrels", "{d}/qrels.txt"],
     "{d}/latin1.txt:1"),
    ("eval qrels missing", ["eval", "{d}/run.txt", "--qrels", "{d}/missing"], "{d}/missing"),
    ("eval qrels binary", ["eval", "{d}/run.txt", "--qrels", "{d}/binary.bin"],
     "{d}/binary.bin:"),
    ("eval qrels huge REL", ["eval", "{d}/run.txt", "--qrels", "{d}/hugeq.txt"],
     "{d}/hugeq.txt:1"),
    ("eval qrels empty", ["eval", "{d}/run.txt", "--qrels", "{d}/empty.txt"],
     "{d}/empty.txt"),
    ("eval jobs a word", ["eval", "{d}/run.txt", "--qrels", "{d}/qrels.txt", "-j", "many"],
     "--jobs"),
    ("eval unknown measure", ["eval", "{d}/run.txt", "--qrels", "{d}/qrels.txt", "-m", "NOPE"],
     "NOPE"),
    ("eval walk file missing", ["eval", "{d}/run.txt", "--qrels", "{d}/qrels.txt",
                                "--nav", "walk:{d}/missing"], "{d}/missing"),
    ("eval mc too large", ["eval", "{d}/run.txt", "--qrels", "{d}/qrels.txt",
                           "-m", "PRUM(exact=mc,samples=10000000000000)"], "--force"),
    ("compare one run", ["compare", "{d}/run.txt", "--qrels", "{d}/qrels.txt", "-m", "AP"],
     "at least two runs"),
    ("compare run missing", ["compare", "{d}/run.txt", "{d}/missing", "--qrels",
                             "{d}/qrels.txt", "-m", "AP"],
     "{d}/missing"),
    ("plot unknown figure type", ["plot", "{d}/run.txt", "--qrels", "{d}/qrels.txt",
                                  "-m", "PRUM", "-o", "{d}/x.bmp"], "{d}/x.bmp"),
    ("plot into a file", ["plot", "{d}/run.txt", "--qrels", "{d}/qrels.txt", "-m", "PRUM",
                          "-o", "{d}/empty.txt/x.png"], "{d}/empty.txt/x.png"),
    ("report into a file", ["report", "{d}/run.txt", "--qrels", "{d}/qrels.txt",
                            "-o", "{d}/empty.txt/r.html"], "{d}/empty.txt/r.html"),
    ("report onto a directory", ["report", "{d}/run.txt", "--qrels", "{d}/qrels.txt",
                                 "-o", "{d}/adir"], "{d}/adir"),
    ("query int beyond 64 bits", ["query", "RETURN 1", "--param", f"n={2**70}"], str(2**70)),
    ("query bad parameter name", ["query", "RETURN 1", "--param", "a b=1"], "a b=1"),
    ("query writes", ["query", "MATCH (n) DELETE n"], "--write"),
    ("query negative timeout", ["query", "RETURN 1", "--timeout", "-1"], "--timeout"),
    ("copy missing source", ["copy", "{d}/missing", "{d}/dst"], "{d}/missing"),
    ("copy unknown scheme", ["copy", "{store}", f"xxx://u:{PASSWORD}@h"], "xxx://u@h"),
    ("server data dir is a file", ["server", "stop", "--data-dir", "{d}/binary.bin"],
     "{d}/binary.bin"),
    ("server public bind", ["server", "start", "--bind", "0.0.0.0"], "0.0.0.0"),
    ("server port too high", ["server", "start", "--port", "99999", "--data-dir", "{d}/srv"],
     "99999"),
]


@pytest.mark.parametrize(("case", "args", "named"), BAD_INPUTS, ids=[c[0] for c in BAD_INPUTS])
def test_bad_input_is_one_line_exit_2(bad, case, args, named, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(bad / "xdg"))
    fill = {"d": str(bad), "store": str(bad / "store")}
    argv = ["--store", str(bad / "store"), *(a.format(**fill) for a in args)]
    before = sorted(p.name for p in (bad / "store").iterdir())
    assert_one_line_error(*cli(*argv), named.format(**fill))
    assert sorted(p.name for p in (bad / "store").iterdir()) == before


#: Store locations that are refused, and what the message must show.
BAD_STORES = [
    (f"xxx://u:{PASSWORD}@h", "unknown store scheme 'xxx://'"),
    (f"BOLT+x://u:{PASSWORD}@h", "unknown store scheme 'bolt+x://'"),
    (f"bolt://u:{PASSWORD}@h:port", "the port must be a number"),
    (f"bolt://u:{PASSWORD}@h:99999", "the port must be a number"),
    (f"bolt://u:{PASSWORD}@[::1", "closing ']'"),
    ("bolt://", "no host"),
    (f"BOLT://u:{PASSWORD}@127.0.0.1:1", "server unavailable"),
    (f"neo4j://u:{PASSWORD}@127.0.0.1:1/db?x=1", "has no path ('/db')"),
    (f"neo4j://u:{PASSWORD}@127.0.0.1:1?x=1", "server unavailable"),
    (f"bolt://u:{PASSWORD}@127.0.0.1:1/?y=1", "not a Bolt URI"),
    (f"bolt:///neo4j:{PASSWORD}@127.0.0.1:7687", "no host"),
    (f"bolt:neo4j:{PASSWORD}@127.0.0.1:7687", "a Bolt URI needs '//'"),
    (f"Neo4j+s:/u:{PASSWORD}@127.0.0.1:7687", "a Bolt URI needs '//'"),
    (f"bolt:///neo4j:{PASSWORD[:4]}/{PASSWORD[4:]}@127.0.0.1:7687", "no host"),
    (f"bolt:neo4j:{PASSWORD[:4]}'{PASSWORD[4:]}@h", "a Bolt URI needs '//'"),
    (f"bolt:neo4j:{PASSWORD[:4]} {PASSWORD[4:]}@h", "a Bolt URI needs '//'"),
]


@pytest.mark.parametrize(("location", "reason"), BAD_STORES, ids=[b[0] for b in BAD_STORES])
def test_bad_store_uri_is_one_line_without_password(tmp_path, monkeypatch, location, reason):
    monkeypatch.chdir(tmp_path)
    for command in (["info"], ["load", "xml", str(REPO / "tests" / "data" / "book.xml")],
                    ["query", "RETURN 1"]):
        line = assert_one_line_error(*cli("--store", location, *command), reason)
        assert PASSWORD[:4] not in line and PASSWORD[4:] not in line
    assert list(tmp_path.iterdir()) == []  # no directory named after the URI


def test_bad_options_are_one_line_from_the_script(tmp_path):
    """click's own usage errors, through the installed script (the script's
    main() formats them)."""
    if not SCRIPT.exists():
        pytest.skip("graphprum script not installed next to the interpreter")
    for argv, named in ([["eval", "x", "--qrels", "y", "--jobs", "0"], "--jobs"],
                        [["--bogus"], "--bogus"], [["eval"], "runs"],
                        [["query", "RETURN 1", "--timeout", "soon"], "--timeout"]):
        p = subprocess.run([str(SCRIPT), *argv], capture_output=True, text=True, timeout=60,
                           check=False, cwd=tmp_path)
        assert_one_line_error(p.returncode, p.stdout, p.stderr, None, named)


# --------------------------------------------------------------------------
# reproducers


def test_deep_web_page_keeps_its_content(tmp_path):
    """A 300-deep page (libxml2's HTML parser stopped at 256 levels and kept
    nothing: length 0, links lost, exit 0)."""
    site = tmp_path / "site"
    site.mkdir()
    text = "deep words here "
    (site / "deep.html").write_text("<html><body>" + "<div>" * 300 + text
                                    + '<a href="q.html">link</a>' + "</div>" * 300
                                    + "<p>after</p></body></html>", encoding="utf-8")
    (site / "q.html").write_text("<p>q</p>", encoding="utf-8")
    store = tmp_path / "s"
    code, out, err, exc = cli("--store", str(store), "load", "web", str(site))
    assert code == 0 and exc is None, err
    assert out.startswith("loaded 2 pages, 2 units, 1 links")
    from graphprum.store import open_store

    s = open_store(store, create=False)
    row = s.resolve(["deep.html"])[0]
    assert s.table().columns["length"][row] == len(text + "link" + "after")
    assert len(s.links()) == 1
    code, _, err, exc = cli("--store", str(store), "load", "web", str(site), "--elements",
                            "--replace")
    assert code == 0 and exc is None, err
    table = open_store(store, create=False).table()
    assert int(np.max(table.columns["depth"])) == 302  # html, body, 300 div, a


def test_too_deep_web_page_is_refused(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "ok.html").write_text("<p>fine</p>", encoding="utf-8")
    (site / "deep.html").write_text("<div>" * 3000 + "lost text", encoding="utf-8")
    store = tmp_path / "s"
    assert_one_line_error(*cli("--store", str(store), "load", "web", str(site)),
                          f"{site / 'deep.html'}:1", "nesting deeper than 2048")
    assert not (store / "manifest.json").exists()


def test_readers_and_writers_take_file_names_that_are_not_utf8(bad, tmp_path):
    """Inputs read and outputs written under names with a byte that is not
    UTF-8 work (no UnicodeEncodeError); where a name is printed it shows as
    \\xNN."""
    d = tmp_path
    (d / f"{NOT_UTF8}.xml").write_text(
        '<inex-submission participant-id="1" run-id="x" task="CO.Thorough"><topic topic-id="1">'
        "<result><file>a</file><path>/a[1]</path><rank>1</rank></result></topic>"
        "</inex-submission>", encoding="utf-8")
    (d / f"{NOT_UTF8}.txt").write_text("1 Q0 a#/a[1]/b[1] 1 2.0 r\n", encoding="utf-8")
    (d / f"{NOT_UTF8}.qrels").write_text("1 0 a#/a[1]/b[1] 1\n", encoding="utf-8")
    store = str(bad / "store")
    runs = [str(d / f"{NOT_UTF8}.xml"), str(d / f"{NOT_UTF8}.txt")]
    qrels = str(d / f"{NOT_UTF8}.qrels")
    for argv in (["eval", *runs, "--qrels", qrels, "-f", "tsv"],
                 ["report", *runs, "--qrels", qrels, "-m", "PRUM", "-o",
                  str(d / f"{NOT_UTF8}.html")]):
        code, _, err, exc = cli("--store", store, *argv)
        assert code == 0 and exc is None, (argv, err, exc)
    html = (d / f"{NOT_UTF8}.html").read_text(encoding="utf-8")
    assert "caf\\xe9.txt" in html
    # the embedded store's graph engine takes its path as text: refused
    assert_one_line_error(*cli("copy", store, str(d / f"{NOT_UTF8}-copy")),
                          "caf\\xe9-copy", "not valid UTF-8")
    assert_one_line_error(*cli("--store", str(d / f"{NOT_UTF8}-s"), "load", "xml",
                               str(bad / "col")), "caf\\xe9-s")
    assert not (d / f"{NOT_UTF8}-copy").exists() and not (d / f"{NOT_UTF8}-s").exists()


def test_links_hops_10000_evaluates(tmp_path):
    """--nav links:hops=10000 raised 'could not broadcast' in _accumulate."""
    web = REPO / "examples" / "web"
    store = tmp_path / "s"
    assert cli("--store", str(store), "load", "web", str(web / "site"))[0] == 0
    values = {}
    for hops in (2000, 10000):
        code, out, err, exc = cli("--store", str(store), "eval", str(web / "run-deep.txt"),
                                  "--qrels", str(web / "qrels.txt"), "--nav",
                                  f"links:hops={hops}", "-f", "tsv")
        assert code == 0 and exc is None, err
        values[hops] = float(out.split()[-1])
    assert 0.0 <= values[2000] <= values[10000] <= 1.0  # more hops, more seen


def test_mc_cost_guard_and_force(tmp_path, monkeypatch):
    import graphprum.measures.prum.simulation as simulation

    plos = REPO / "examples" / "plos"
    args = ["eval", str(plos / "run-bm25.txt"), "--qrels", str(plos / "qrels.txt"),
            "--no-store", "-f", "tsv"]
    monkeypatch.setattr(simulation, "MC_WORK_LIMIT", 1000)
    line = assert_one_line_error(*cli(*args, "-m", "PRUM(exact=mc,samples=50)"), "--force")
    n_ranked = sum(1 for ln in (plos / "run-bm25.txt").read_text().splitlines() if ln.strip())
    assert f"{50 * n_ranked:.2g} simulation steps" in line  # samples x ranked results
    code, out, err, exc = cli(*args, "-m", "PRUM(exact=mc,samples=50)", "--force")
    assert code == 0 and exc is None, err
    assert "PRUM(exact=mc,samples=50)\tall" in out


def test_os_errors_are_one_line_naming_the_file(tmp_path):
    """The last net of user_errors: an OSError from anywhere below."""
    from graphprum.cli.shared import user_errors

    @user_errors
    def full() -> None:
        raise OSError(28, "No space left on device", str(tmp_path / "store" / "gen-2"))

    import typer

    app_ = typer.Typer()
    app_.command()(full)
    r = runner.invoke(app_, [])
    assert_one_line_error(r.exit_code, r.stdout, r.stderr, r.exception,
                          f"{tmp_path / 'store' / 'gen-2'}: No space left on device")


# --------------------------------------------------------------------------
# URIs and passwords


def test_user_info_goes_to_the_driver_auth_not_its_uri():
    uri = parse_store_uri("Neo4j+S://al%40ice:p%3Ass%40w@[::1]:7688?policy=eu")
    assert uri.scheme == "neo4j+s"
    assert uri.auth == ("al@ice", "p:ss@w")
    assert uri.driver_uri == "neo4j+s://[::1]:7688?policy=eu"
    assert "p:ss" not in uri.safe and "p%3Ass" not in uri.safe


@pytest.mark.parametrize("text", [
    f"Given URI: 'bolt://neo4j:{PASSWORD}@db:7687'",
    f"bolt+s://neo4j:{PASSWORD}@db",
    f"x neo4j://u:{PASSWORD[:4]}@{PASSWORD[4:]}@db:1/a b",
    f"(BOLT://u:{PASSWORD}@h)",
    f"bolt:///neo4j:{PASSWORD}@h:7687",
    f"bolt:neo4j:{PASSWORD}@h",
    f"error at neo4j+ssc:/u:{PASSWORD}@h: refused",
    f"bolt:///neo4j:{PASSWORD[:4]}/{PASSWORD[4:]}@h",
    f"store bolt://{PASSWORD}@127.0.0.1:7687",  # a user part alone: a token
    f"Neo4j+S://{PASSWORD}@h and https://{PASSWORD}@github.com/x",
])
def test_redact_takes_passwords_out(text):
    out = redact(text)
    assert PASSWORD not in out and PASSWORD[:4] + "@" not in out and PASSWORD[4:] not in out
    assert "@" in out  # the user name stays: u@host
    assert redact(out) == out  # printed text is redacted again on its way out


def test_a_user_part_alone_is_shown_only_when_it_is_a_user_name(monkeypatch):
    """``bolt://TOKEN@h`` printed ``TOKEN``: a user part without a password
    is shown only when $NEO4J_USERNAME names it."""
    monkeypatch.delenv("NEO4J_USERNAME", raising=False)
    assert parse_store_uri(f"bolt://{PASSWORD}@h:7687").safe == "bolt://***@h:7687"
    assert redact(f"at bolt://{PASSWORD}@h:7687/") == "at bolt://***@h:7687/"
    assert parse_store_uri(f"bolt://neo4j:{PASSWORD}@h").safe == "bolt://neo4j@h"
    monkeypatch.setenv("NEO4J_USERNAME", "alice")
    assert parse_store_uri("bolt://alice@h:7687").safe == "bolt://alice@h:7687"
    assert redact("bolt://alice@h and bolt://bob@h") == "bolt://alice@h and bolt://***@h"


def test_report_command_line_has_no_password():
    from graphprum.html_report import command_line

    line = command_line(["graphprum", "--store", f"bolt://neo4j:{PASSWORD}@db:7687", "report"])
    assert PASSWORD not in line and "bolt://neo4j@db:7687" in line


# --------------------------------------------------------------------------
# the Cypher literal encoder (the server round trip is in test_safety_bolt.py)


HOSTILE_KEYS = ["a: 1} CREATE (:Pwn {via: 2}) RETURN 1 AS v //", "it's", "a\\b", "}{", "",
                "1a", "é", "with space", "new\nline", "RETURN"]


def test_hostile_map_keys_stay_inside_the_literal():
    from graphprum.query import writes

    value = {k: 1 for k in HOSTILE_KEYS}
    text = splice("RETURN $v AS v", {"v": value})
    assert writes(text) == []  # nothing outside quotes can write
    for k in ("a`b", "nul\0"):
        with pytest.raises(UsageError, match="backquote or NUL"):
            cypher_literal({k: 1})


@pytest.mark.parametrize(("value", "literal"), [
    (None, "null"), (True, "true"), (False, "false"), (0, "0"), (-(2**63), str(-(2**63))),
    (2**63 - 1, str(2**63 - 1)), (1e-7, "1e-07"), (1e300, "1e300"), (-0.0, "-0.0"),
    (0.1, "0.1"), ("it's \\", "'it\\'s \\\\'"), ("é\n\t\x1e", "'é\n\t\x1e'"),
    ([1, [2.5, "x"]], "[1, [2.5, 'x']]"), ({"k": 1, "k k": [None]}, "{k: 1, `k k`: [null]}"),
])
def test_literals(value, literal):
    assert cypher_literal(value) == literal
    assert literal_size(value) == len(literal.encode("utf-8"))


@pytest.mark.parametrize("value", [2**63, -(2**63) - 1, math.nan, math.inf, -math.inf,
                                   "a\0b", "\ud800", b"bytes", {1: 2}, {"a": {1, 2}}])
def test_values_without_a_literal_are_refused(value):
    with pytest.raises(UsageError, match=r"parameter \$v"):
        cypher_literal(value)


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_literals_read_back_exactly(x):
    """Python reads a Cypher float literal (digits, '.', 'e', '-') the same
    way: the text round-trips to the same double."""
    text = cypher_literal(x)
    assert "+" not in text
    assert float(text) == x and math.copysign(1, float(text)) == math.copysign(1, x)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_PRELOAD of ELF libraries")
def test_preload_library_redefines_in6addr_any(tmp_path):
    """The library server start preloads into redis-server: in a process
    that loads it, glibc's in6addr_any (the address FalkorDB binds Bolt to)
    reads ::ffff:127.0.0.1."""
    from graphprum.store.bolt.loopback import preload_supported, write_preload_library

    if preload_supported() is not None:
        pytest.skip(preload_supported())
    lib = write_preload_library(tmp_path)
    code = ("import ctypes, ipaddress; b = bytes((ctypes.c_ubyte * 16).in_dll("
            "ctypes.CDLL(None), 'in6addr_any')); print(ipaddress.IPv6Address(b).ipv4_mapped)")
    env = {**os.environ, "LD_PRELOAD": str(lib)}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       check=True, timeout=60)
    assert p.stdout.strip() == "127.0.0.1"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       check=True, timeout=60)
    assert p.stdout.strip() == "None"  # without it: ::, the any address
