"""``graphprum query`` is read-only unless ``--write``: clauses that write the
graph, write or read files, or load code into the engine are refused before
anything runs, however they are spelled and whatever prefix (``PROFILE``,
``EXPLAIN``) stands before them; only statements that start as a read does
run; words inside strings, quoted names, comments, properties and parameters
are not clauses."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphprum.cli import app
from graphprum.query import writes

REFUSED = [
    ("MATCH (n) DETACH DELETE n", "DELETE"),
    ("match (n) set n.x = 1", "SET"),
    ("MATCH (n) WITH n CREATE (:X)", "CREATE"),
    ("MERGE (:X)", "MERGE"),
    ("MATCH (n) REMOVE n.x", "REMOVE"),
    ("MATCH (n) /* a comment */ DELETE n", "DELETE"),
    ("RETURN 1; CREATE (:X)", "CREATE"),
    ("MATCH (n) // comment\nDELETE n", "DELETE"),
    ("COPY (MATCH (u:Unit) RETURN u.uid) TO '/tmp/x.csv'", "COPY"),
    ("copy Unit FROM '/tmp/units.csv'", "COPY"),
    ("EXPORT DATABASE '/tmp/exported'", "EXPORT"),
    ("IMPORT DATABASE '/tmp/exported'", "IMPORT"),
    ("LOAD FROM '/etc/passwd' (header=false) RETURN *", "LOAD FROM"),
    ("load  csv FROM 'file:///etc/passwd' AS l RETURN l", "LOAD CSV"),
    ("LOAD EXTENSION '/tmp/lib.so'", "LOAD EXTENSION"),
    ("INSTALL json", "INSTALL"),
    ("ATTACH '/tmp/other.lbug' AS o (dbtype lbug)", "ATTACH"),
    ("CHECKPOINT", "CHECKPOINT"),
    ("CALL db.createLabel('X')", "CALL db.createLabel"),
    ('CALL `db.idx.fulltext.createNodeIndex`("Unit", "text")',
     "CALL `db.idx.fulltext.createNodeIndex`"),
    ("call `db`.`idx`.fulltext.drop('Unit')", "CALL `db`.`idx`.fulltext.drop"),
    ('CALL`db.idx.fulltext.createNodeIndex`("Unit","text")',
     "CALL `db.idx.fulltext.createNodeIndex`"),
    ('WITH 1 AS `//` CALL db.idx.fulltext.drop("Unit") RETURN 1 AS x',
     "CALL db.idx.fulltext.drop"),
    ("MATCH (u:Unit) WHERE u.`it's` IS NULL CALL db.idx.fulltext.createNodeIndex('Unit','text')"
     " RETURN 1", "CALL db.idx.fulltext.createNodeIndex"),
    ("RETURN 1; COPY Unit FROM 'x.csv'", "COPY"),
    ("MATCH (u) WITH u AS `'` CREATE (:X)", "CREATE"),
    ("CALL /* x */ `db.idx.fulltext.drop`('Unit')", "CALL `db.idx.fulltext.drop`"),
    ("UNWIND [1] AS x FOREACH (y IN [x] | CREATE (:X))", "FOREACH"),
    # Neo4j's: a review found each passing the old guard
    ("SHOW TRANSACTIONS YIELD transactionId AS t TERMINATE TRANSACTIONS t", "TERMINATE"),
    ("MATCH (n) INSERT (:Pwn)", "INSERT"),
    ("CALL db.labels/**/.foo()", "CALL db.labels.foo"),
    ("CALL db.labels .foo()", "CALL db.labels.foo"),
]

ALLOWED = [
    "MATCH (u:Unit) RETURN count(u) AS n",
    "MATCH (u:Unit) WHERE u.text CONTAINS 'CREATE (:X)' RETURN u.uid",
    'MATCH (u:Unit) WHERE u.text = "COPY t TO \'x\'" RETURN u.uid',
    "MATCH (u:Unit) WHERE u.copy = $set AND u.load > 0 RETURN u.export",
    "MATCH (`DELETE`:Unit) RETURN `DELETE`.uid",
    "// DELETE everything\nMATCH (u:Unit) RETURN u.uid /* SET u.x = 1 */",
    "CALL db.labels()",
    "CALL `db.labels`() YIELD label RETURN label",
    "MATCH (d:Document) RETURN d.name AS import",
    "MATCH (u:Unit) RETURN u.uid AS copy, u.tag AS export, u.depth AS checkpoint, u.pos AS attach",
    "MATCH (u:Unit) RETURN u {.uid, copy: u.tag, set: 1} AS m",
    "MATCH (u:Unit) WITH u.tag AS load MATCH (v:Unit {tag: load}) RETURN count(v)",
    "MATCH (c:Copy)-[:EXPORT]->(d: Create) RETURN c",
    "MATCH (u:Unit) RETURN u.uid AS `$id`",
]


#: Prefixes LadybugDB accepts before a statement (``PROFILE COPY … TO`` wrote
#: the file), as a user may write them.
PREFIXES = ["PROFILE ", "EXPLAIN ", "profile\n", "Explain  ", "EXPLAIN LOGICAL ",
            "explain logical ", "/* c */ PROFILE ", "PROFILE /* c */ ", "CYPHER 5 PROFILE "]

#: Statements of the embedded engine that no keyword list named before, or
#: that do not start as a read does: refused because they are not reads.
NOT_READS = [
    ("BEGIN TRANSACTION", "BEGIN"), ("COMMIT", "COMMIT"), ("ROLLBACK", "ROLLBACK"),
    ("USE other", "USE"), ("UNINSTALL json", "UNINSTALL"), ("UPDATE EXTENSION json", "UPDATE"),
    ("FORCE INSTALL json", "FORCE"), ("ANALYZE", "ANALYZE"), ("COMMENT ON TABLE Unit IS 'x'",
                                                              "COMMENT"),
    ("CALL threads=1", "CALL threads"), ("CALL file_search_path='/tmp'",
                                         "CALL file_search_path"),
    ("RETURN 1; (COPY x)", "'('"), ("CYPHER x=1 COPY t TO 'f'", "COPY"),
]


@pytest.mark.parametrize(("text", "clause"), REFUSED + NOT_READS)
def test_writing_clauses_are_found(text: str, clause: str) -> None:
    assert clause in writes(text)


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize(("text", "clause"), REFUSED + NOT_READS)
def test_a_prefix_hides_nothing(prefix: str, text: str, clause: str) -> None:
    """Every refused statement is refused behind PROFILE and EXPLAIN too,
    first in the text or after another statement."""
    assert clause in writes(prefix + text)
    assert clause in writes("MATCH (u:Unit) RETURN u.uid; " + prefix + text)


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text", ALLOWED)
def test_a_prefix_before_a_read_is_a_read(prefix: str, text: str) -> None:
    assert writes(prefix + text) == []


@pytest.mark.parametrize("text", ALLOWED)
def test_reading_queries_are_not_writes(text: str) -> None:
    assert writes(text) == []


def test_copy_to_a_file_is_refused_end_to_end(tmp_path: Path, write) -> None:
    """The file a COPY would write is not written, the store is unchanged,
    and the refusal is one line with exit status 2."""
    write("col/a.xml", "<article><sec><p>text</p></sec></article>")
    store = tmp_path / "s"
    runner = CliRunner()
    r = runner.invoke(app, ["--store", str(store), "load", "xml", str(tmp_path / "col")])
    assert r.exit_code == 0, r.output
    before = sorted((p.relative_to(store), p.stat().st_size) for p in store.rglob("*")
                    if p.is_file())
    victim = tmp_path / "victim.csv"
    victim.write_text("kept\n")
    for text in (f"COPY (MATCH (u:Unit) RETURN u.uid) TO '{victim}'",
                 f"EXPORT DATABASE '{tmp_path / 'exported'}'"):
        r = runner.invoke(app, ["--store", str(store), "query", text])
        assert r.exit_code == 2, r.output
        lines = r.output.strip().splitlines()
        assert len(lines) == 1 and "--write" in lines[0], r.output
    assert victim.read_text() == "kept\n"
    assert not (tmp_path / "exported").exists()
    after = sorted((p.relative_to(store), p.stat().st_size) for p in store.rglob("*")
                   if p.is_file())
    assert after == before
    # --write does not open the embedded graph to writes either
    r = runner.invoke(app, ["--store", str(store), "query", "--write",
                            f"COPY (MATCH (u:Unit) RETURN u.uid) TO '{victim}'"])
    assert r.exit_code == 2 and "read-only" in r.output
    assert victim.read_text() == "kept\n"


_CONSTRUCTOR = r"""
#include <stdio.h>
__attribute__((constructor)) static void ran(void) {
    FILE *f = fopen(WITNESS, "w");
    if (f) { fputs("the extension's code ran\\n", f); fclose(f); }
}
"""


def _files(path: Path) -> list[tuple[str, int, int]]:
    return sorted((str(p.relative_to(path)), p.stat().st_size, p.stat().st_mtime_ns)
                  for p in path.rglob("*"))


def test_no_prefix_lets_native_code_or_files_through(tmp_path: Path, write) -> None:
    """``PROFILE``/``EXPLAIN`` before ``COPY … TO``, ``EXPORT DATABASE``,
    ``LOAD EXTENSION`` (a real shared object whose constructor writes a
    file) and ``CHECKPOINT``: each refused in one line with exit status 2,
    no file written, the extension's code never run, the store's files (the
    generation's graph included) not touched; the same through the API's
    ``store.query``, which no guard of the command line stands before."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler to build a shared object")
    witness = tmp_path / "constructor-ran"
    source = write("ctor.c", _CONSTRUCTOR.replace("WITNESS", f'"{witness}"'))
    library = tmp_path / "ctor.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(library), str(source)], check=True,
                   capture_output=True, timeout=120)
    # the object is real: loading it runs its constructor
    probe = subprocess.run([sys.executable, "-c", "import ctypes, sys; ctypes.CDLL(sys.argv[1])",
                            str(library)], timeout=60)
    assert probe.returncode == 0 and witness.exists()
    witness.unlink()

    write("col/a.xml", "<article><sec><p>text</p></sec></article>")
    store = tmp_path / "s"
    runner = CliRunner()
    assert runner.invoke(app, ["--store", str(store), "load", "xml",
                               str(tmp_path / "col")]).exit_code == 0
    assert runner.invoke(app, ["--store", str(store), "query",
                               "PROFILE MATCH (u:Unit) RETURN count(u)"]).exit_code == 0
    before = _files(store)
    out = tmp_path / "out"
    statements = [f"COPY (MATCH (u:Unit) RETURN u.uid) TO '{out}.csv'",
                  f"EXPORT DATABASE '{out}'", f"LOAD EXTENSION '{library}'", "CHECKPOINT"]
    from graphprum.errors import UsageError
    from graphprum.store.local import LocalStore

    opened = LocalStore(store)
    for prefix in ("", "PROFILE ", "EXPLAIN ", "profile ", "EXPLAIN LOGICAL "):
        for statement in statements:
            for text in (prefix + statement, f"RETURN 1; {prefix}{statement}"):
                r = runner.invoke(app, ["--store", str(store), "query", text])
                assert r.exit_code == 2, (text, r.output)
                lines = r.output.strip().splitlines()
                assert len(lines) == 1 and "--write" in lines[0], (text, r.output)
                with pytest.raises(UsageError, match="does more than read"):
                    opened.query(text)
    # hidden where the guard and the engine read a text differently: a block
    # comment LadybugDB does not end at '**/' (so the quote after it opened
    # a string to the guard, and the engine ran the rest), characters the
    # engine reads as spaces (U+180E, U+00A0, U+2028) where Python's \s does
    # not; found by a review, each ran on the old guard
    secret = write("secret.txt", "root:x:0:0\n")
    hidden = [f"RETURN 1 AS x /* **/ ' */ ; {s} //'" for s in statements]
    hidden += [f"UNWIND [1] AS x /* a **/ ' */ LOAD FROM '{secret}' (header=false) "
               f"RETURN * //'"]
    hidden += [s.replace(" ", space, 1) for s in statements[:3] for space in
               ("\u180e", "\u00a0", "\u2028")]
    hidden += [f"UNWIND [1] AS x LOAD\u180eFROM '{secret}' (header=false) RETURN *",
               "CALL\u180eshow_tables() RETURN *"]
    for text in hidden:
        r = runner.invoke(app, ["--store", str(store), "query", "-f", "tsv", text])
        assert r.exit_code == 2 and "root" not in r.stdout, (text, r.output)
        assert len(r.output.strip().splitlines()) == 1, (text, r.output)
        with pytest.raises(UsageError):
            opened.query(text)
    opened.close()
    assert not witness.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("out")) == []
    assert _files(store) == before


def test_the_embedded_graph_refuses_writes_itself(tmp_path: Path, write) -> None:
    """The graph a query reads is opened read-only: a write that got past
    the guard would be refused by LadybugDB (the guard is the first line,
    not the only one)."""
    from graphprum.store.local import LocalStore

    write("col/a.xml", "<article><sec><p>text</p></sec></article>")
    store = LocalStore(tmp_path / "s")
    from graphprum.loading import load_xml

    load_xml(store, [tmp_path / "col"])
    assert store.query("MATCH (u:Unit) RETURN count(u) AS n") == [{"n": 3}]
    engine = store._graph.conn  # past the guard, on purpose
    with pytest.raises(RuntimeError, match="read-only"):
        engine.execute("CREATE (:Document {name: 'x'})")
    assert store.query("MATCH (d:Document) RETURN count(d) AS n") == [{"n": 1}]


@pytest.mark.parametrize(("text", "names"), [
    ("MATCH (u:Unit) WITH u, u.tag AS `o'clock` WHERE u.depth > $d RETURN count(*) AS n", ["d"]),
    ("MATCH (u:Unit) RETURN u.uid AS `$id`", []),
    ("RETURN '$a', \"$b\", $c // $d\n/* $e */", ["c"]),
    ("RETURN $`a b` + $x + $`a b`", ["a b", "x"]),
])
def test_parameters_are_found_where_the_engine_sees_them(text: str, names: list[str]) -> None:
    from graphprum.query import parameters

    assert parameters(text) == names


def test_a_parameter_without_a_value_is_refused(tmp_path: Path, write) -> None:
    """LadybugDB binds a parameter missing from an empty map to null, which
    gave rows (count 0) instead of an error; every store now refuses first."""
    write("col/a.xml", "<article><sec><p>text</p></sec></article>")
    store = tmp_path / "s"
    runner = CliRunner()
    assert runner.invoke(app, ["--store", str(store), "load", "xml",
                               str(tmp_path / "col")]).exit_code == 0
    text = "MATCH (u:Unit {tag: $t}) WHERE u.depth >= $`min depth` RETURN count(u) AS n"
    r = runner.invoke(app, ["--store", str(store), "query", text, "-f", "tsv"])
    assert r.exit_code == 2
    assert r.output.strip() == ("graphprum: error: the query uses $t, $min depth; give "
                                "--param t=VALUE, --param min depth=VALUE")
    r = runner.invoke(app, ["--store", str(store), "query", "-f", "tsv",
                            "MATCH (u:Unit {tag: $t}) RETURN count(u) AS n", "--param", "t=p"])
    assert r.exit_code == 0 and r.output.splitlines() == ["n", "1"]
    r = runner.invoke(app, ["--store", str(store), "query", "-f", "tsv",
                            "MATCH (u:Unit) WHERE u.text <> '$t' RETURN count(u) AS n"])
    assert r.exit_code == 0 and r.output.splitlines() == ["n", "3"]


def test_embedded_parameter_and_timeout_limits_are_one_line(tmp_path: Path, write) -> None:
    """A list of mixed values or an empty list (which LadybugDB cannot type):
    one line, exit status 2, no traceback; a timeout under a millisecond
    reaches the engine as one millisecond (0 would mean no limit)."""
    write("col/a.xml", "<article><sec><p>text</p></sec></article>")
    store = tmp_path / "s"
    runner = CliRunner()
    assert runner.invoke(app, ["--store", str(store), "load", "xml",
                               str(tmp_path / "col")]).exit_code == 0
    for args, message in (
            (["RETURN $l AS l", "--param", 'l=[1,"x"]'], "lists hold values of one type"),
            (["RETURN $l AS l", "--param", "l=[]"], "an empty list")):
        r = runner.invoke(app, ["--store", str(store), "query", *args])
        assert r.exit_code == 2, r.output
        assert message in r.output and len(r.output.strip().splitlines()) == 1, r.output
    from graphprum.store.local import LocalStore

    opened = LocalStore(store)
    opened.query("RETURN 1 AS x")
    reader = opened._graph
    limits: list[int] = []
    real = reader.conn

    class Recording:
        def set_query_timeout(self, ms: int) -> None:
            limits.append(ms)  # recorded; the query itself runs without a tight limit
            real.set_query_timeout(60_000)

        def execute(self, *a: object) -> object:
            return real.execute(*a)

    reader.conn = Recording()
    for seconds in (1e-7, 0.0004, 2.5):
        reader.query("RETURN 1 AS x", timeout=seconds)
    reader.conn = real
    assert limits == [1, 1, 2500]


def test_the_text_a_store_runs_is_the_text_the_guard_read() -> None:
    """Comments are taken out of what a store runs, so an engine that ends
    one elsewhere (LadybugDB does not end ``/* a **/`` at ``**/``) finds
    nothing there to run; ``//`` ends at a carriage return as the engines
    end it (a review: ``RETURN ... // c\r LIMIT 2`` lost its LIMIT)."""
    from graphprum.store.cypher_guard import what_runs

    text = "RETURN 1 AS x //\rCREATE (:P)"  # the comment ends at \r, as LadybugDB's does
    assert writes(text) == ["CREATE"] and what_runs(text) == "RETURN 1 AS x  \rCREATE (:P)"
    text = "RETURN 1 AS x /* a **/ CREATE (:P) */"  # the guard ends it first: refused
    assert writes(text) == ["CREATE"]
    assert what_runs("RETURN '/* kept */' AS `//`") == "RETURN '/* kept */' AS `//`"


def test_queries_the_encoders_or_engine_cannot_take_are_one_line(tmp_path: Path,
                                                                 write) -> None:
    """A review's tracebacks and one silent change, each now exit 2 and one
    line: a parameter nested 500 deep (RecursionError in the encoder),
    ``--timeout inf`` and ``1e300`` (OverflowError: now no limit), bytes that
    are not UTF-8 (UnicodeEncodeError), and a list mixing a map with a
    number inside a map, which the embedded engine returned as a string."""
    write("col/a.xml", "<article><sec><p>text</p></sec></article>")
    store = tmp_path / "s"
    runner = CliRunner()
    assert runner.invoke(app, ["--store", str(store), "load", "xml",
                               str(tmp_path / "col")]).exit_code == 0
    query = ["--store", str(store), "query", "-f", "tsv"]
    deep = "[" * 500 + "]" * 500
    for args, message in ((["RETURN size($x) AS n", "--param", f"x={deep}"], "more than 64"),
                          (["RETURN $v AS v", "--param", 'v={"k":[1,{"z":"q"}]}'],
                           "lists or maps beside other values"),
                          (["RETURN '\udc85' AS v"], "not UTF-8")):
        r = runner.invoke(app, [*query, *args])
        assert r.exit_code == 2 and message in r.output, (args, r.output)
        assert len(r.output.strip().splitlines()) == 1 and "Traceback" not in r.output
    for timeout in ("inf", "1e300"):
        r = runner.invoke(app, [*query, "--timeout", timeout, "RETURN 1 AS one"])
        assert (r.exit_code, r.stdout) == (0, "one\n1\n"), r.output
    r = runner.invoke(app, [*query, "RETURN $v AS v", "--param", 'v={"k":[[1],[2,3]]}'])
    assert r.exit_code == 0 and r.stdout.splitlines()[1] == '{"k": [[1], [2, 3]]}', r.output


def test_a_line_comment_ends_at_a_carriage_return_as_the_engine_ends_it(tmp_path: Path,
                                                                        write) -> None:
    write("col/a.xml", "<article><sec><p>a</p><p>b</p><p>c</p></sec></article>")
    store = tmp_path / "s"
    runner = CliRunner()
    assert runner.invoke(app, ["--store", str(store), "load", "xml",
                               str(tmp_path / "col")]).exit_code == 0
    for end in ("\r", "\n", "\r\n"):
        r = runner.invoke(app, ["--store", str(store), "query", "-f", "tsv",
                                f"MATCH (u:Unit) RETURN u.tag AS t // c{end} LIMIT 2"])
        assert r.exit_code == 0 and len(r.stdout.splitlines()) == 3, (end, r.output)
