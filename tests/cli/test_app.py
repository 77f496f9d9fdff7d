"""The command line through typer's CliRunner, and the installed script."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphprum import __version__
from graphprum.cli import app
from tests.support.processes import children, running

runner = CliRunner()
DOC = "<article><title>Alpha beta</title><body><p>one</p><p>two</p></body></article>"


def invoke(store: Path, *args: str):
    return runner.invoke(app, ["--store", str(store), *args])


def test_load_info_show(tmp_path: Path, write) -> None:
    write("col/a.xml", DOC)
    store = tmp_path / "s"
    r = invoke(store, "load", "xml", str(tmp_path / "col"))
    assert r.exit_code == 0, r.output
    assert r.output.startswith("loaded 1 documents, 5 elements in ")
    r = invoke(store, "info", "-f", "table")
    assert r.exit_code == 0
    lines = dict(line.split(None, 1) for line in r.output.splitlines() if line.strip()
                 and not line.startswith(("label", "size")))
    assert lines["documents"].strip() == "1" and lines["elements"].strip() == "5"
    r = invoke(store, "info")  # not a terminal: FIELD<TAB>VALUE
    fields = dict(line.split("\t") for line in r.output.splitlines())
    assert fields["documents"] == "1" and fields["elements"] == "5"
    assert fields["label_paths"] == "4" and int(fields["bytes_on_disk"]) > 0
    r = invoke(store, "show", "a#/article[1]/body[1]", "-f", "table")
    assert r.exit_code == 0
    assert "a#/article[1]/body[1]/p[2]" in r.output and "ancestors:" in r.output
    r = invoke(store, "show", "a#/article[1]/body[1]")  # not a terminal: FIELD<TAB>VALUE...
    rows = [line.split("\t") for line in r.output.splitlines()]
    assert ["ancestor", "a#/article[1]"] in rows
    assert ["child", "a#/article[1]/body[1]/p[2]", "p", "3", "1"] in rows
    # text content "onetwo": 6 characters, one whitespace-separated token
    assert ["id", "a#/article[1]/body[1]"] in rows and ["words", "1"] in rows
    r = invoke(store, "show", "--json", "a#/article[1]/title[1]")
    assert '"length": 10,' in r.output  # "Alpha beta": 10 characters, an integer


def test_errors_are_one_line_exit_2(tmp_path: Path, write) -> None:
    store = tmp_path / "s"
    bad = write("bad.xml", "<a><b></a>")
    r = invoke(store, "load", "xml", str(bad))
    assert r.exit_code == 2
    assert r.output.strip().splitlines() == [f"graphprum: error: {bad}:1: not well-formed XML: "
                                              "Opening and ending tag mismatch: b line 1 and a"]
    assert not store.exists()  # a first load that fails leaves no directory behind
    # a bad file among several: the one line names the way past it (old: not)
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "good.xml").write_text(DOC)
    (folder / "zz.xml").write_text("<a><b></a>")
    r = invoke(store, "load", "xml", str(folder))
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1
    assert r.output.strip().endswith("(--skip-bad loads the other files and lists this one)")
    assert not store.exists()
    r = invoke(store, "load", "xml", "--skip-bad", str(folder))
    assert r.exit_code == 0 and "skipped 1 files" in r.output
    shutil.rmtree(store)
    nested = tmp_path / "new" / "deeper" / "s"
    r = invoke(nested, "load", "xml", str(bad))
    assert r.exit_code == 2 and not (tmp_path / "new").exists()
    store.mkdir()  # a directory the user made is kept
    r = invoke(store, "load", "xml", str(bad))
    assert r.exit_code == 2 and store.is_dir() and not (store / "manifest.json").exists()
    r = invoke(store, "load", "xml", str(tmp_path / "nope"))
    assert r.exit_code == 2 and "no such file or directory" in r.output
    r = invoke(store, "info")
    assert r.exit_code == 2 and "no graphprum store here" in r.output
    write("a.xml", DOC)
    invoke(store, "load", "xml", str(tmp_path / "a.xml"))
    r = invoke(store, "show", "a#/nothing[1]")
    assert r.exit_code == 2 and "no such unit" in r.output
    assert "Traceback" not in r.output


def test_version_and_help() -> None:
    r = runner.invoke(app, ["--version"])
    assert r.output.strip() == f"graphprum {__version__}"
    r = runner.invoke(app, ["load", "xml", "--help"])
    assert r.exit_code == 0 and "--replace" in r.output and "--skip-bad" in r.output


#: The installed ``graphprum`` script of this interpreter's environment: next to
#: ``sys.executable`` (``.venv/bin/python -m pytest`` does not put ``.venv/bin``
#: on PATH), wherever the environment is.
SCRIPT = shutil.which("graphprum", path=str(Path(sys.executable).parent))


@pytest.mark.skipif(SCRIPT is None, reason=f"no graphprum script next to {sys.executable} "
                    "(pip install -e . in this environment)")
def test_installed_script_subprocess(tmp_path: Path, write) -> None:
    assert SCRIPT is not None
    write("col/a.xml", DOC)
    store = tmp_path / "s"
    p = subprocess.run([SCRIPT, "--store", str(store), "load", "xml", str(tmp_path / "col")],
                       capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""  # no progress bar when not a terminal
    p = subprocess.run([SCRIPT, "--store", str(store), "show", "a#/article[9]"],
                       capture_output=True, text=True, check=False)
    assert p.returncode == 2
    assert p.stderr.strip() == f"graphprum: error: a#/article[9]: no such unit in store {store}"


def _eval_files(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "q").write_text("1 0 a 1\n2 0 b 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1.0 r\n")
    return tmp_path / "q", tmp_path / "r"


def test_topic_missing_from_run_is_an_empty_ranking(tmp_path: Path) -> None:
    """Topic 2 is in the qrels but not in the run: it is evaluated on an empty
    ranking (trec_eval -c).  AP and SRP@5 are 0.  PRUM with a finite
    collection follows eq. 5 with o = 0 (issue 21 item 3): the user draws
    from all N = 3 units, t = 1 ideal, u = N = 3: precision at r = 1 is
    r / (r (u + 1)/(t + 1)) = 2/4 = 0.5, and PRUM (11 levels, all at r = 1)
    is 0.5 too."""
    q, r = _eval_files(tmp_path)
    res = runner.invoke(app, ["eval", str(r), "--qrels", str(q), "--no-store", "-q",
                              "-m", "PRUM", "-m", "SRP@5", "-m", "AP",
                              "--collection-size", "3", "--format", "tsv"])
    assert res.exit_code == 0, res.output
    # said on stderr (before: nothing), as a run's topic the qrels lack is
    assert res.stderr == ("note: run r: 1 qrels topic(s) not in the run, evaluated on an "
                          "empty ranking (--no-c: left out): 2\n")
    rows = [line.split("\t") for line in res.stdout.strip().splitlines()]
    topic2 = {m: float(v) for _, m, t, v in rows if t == "2"}
    assert topic2 == pytest.approx({"PRUM": 0.5, "SRP@5": 0.0, "AP": 0.0}, abs=1e-12)
    topic1 = {m: float(v) for _, m, t, v in rows if t == "1"}
    assert topic1 == pytest.approx({"PRUM": 1.0, "AP": 1.0, "SRP@5": 0.2}, rel=1e-9, abs=1e-12)
    # --no-c leaves topic 2 out, as its help says, and there is nothing to note
    res = runner.invoke(app, ["eval", str(r), "--qrels", str(q), "--no-store", "-m", "AP",
                              "--no-c"])
    assert res.exit_code == 0 and res.stderr == "", res.output
    assert res.stdout.split("\t")[-1].strip() == "1.0"


def test_a_named_store_that_does_not_exist_is_an_error(tmp_path: Path, monkeypatch) -> None:
    """Without it N would silently become infinite (PRUM changes): --store or
    $GRAPHPRUM_STORE naming nothing is an error, nothing is created, and
    --no-store evaluates without one."""
    q, r = _eval_files(tmp_path)
    missing = tmp_path / "typo"
    for how in ("option", "environment"):
        if how == "environment":
            monkeypatch.setenv("GRAPHPRUM_STORE", str(missing))
            res = runner.invoke(app, ["eval", str(r), "--qrels", str(q)])
        else:
            res = runner.invoke(app, ["--store", str(missing), "eval", str(r), "--qrels", str(q)])
        assert res.exit_code == 2, res.output
        (line,) = res.output.strip().splitlines()
        assert line.startswith(f"graphprum: error: {missing}: no graphprum store here")
        assert "--no-store" in line
        assert not missing.exists()
    res = runner.invoke(app, ["eval", str(r), "--qrels", str(q), "--no-store", "-m", "AP"])
    assert res.exit_code == 0 and res.stdout.split("\t")[-1].strip() == "0.5"


def test_collection_size_below_a_ranking_is_an_error(tmp_path: Path) -> None:
    q = tmp_path / "q"
    q.write_text("1 0 a 1\n")
    r = tmp_path / "r"
    r.write_text("1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 c 3 1 r\n")
    base = ["eval", str(r), "--qrels", str(q), "--no-store", "-m", "PRUM"]
    res = runner.invoke(app, [*base, "--collection-size", "2"])
    assert res.exit_code == 2
    assert res.output.strip() == ("graphprum: error: --collection-size 2 is smaller than the 3 "
                                  "units run 'r' ranks for topic '1' (N counts every unit of "
                                  "the collection)")
    assert runner.invoke(app, [*base, "--collection-size", "3"]).exit_code == 0
    # a topic the qrels do not hold is not evaluated, and -M cuts the rankings
    r.write_text("1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n9 Q0 a 1 3 r\n9 Q0 b 2 2 r\n9 Q0 c 3 1 r\n")
    assert runner.invoke(app, [*base, "--collection-size", "2"]).exit_code == 0
    r.write_text("1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 c 3 1 r\n")
    assert runner.invoke(app, [*base, "--collection-size", "2", "-M", "2"]).exit_code == 0


@pytest.mark.parametrize(("args", "message"), [
    (["-m", "P@0"], "cutoff must be a rank >= 1"),
    (["--collection-size", "0"], "N must be a positive"),
    (["--collection-size", "-5"], "N must be a positive"),
    (["--ideal-min", "0"], "must be > 0"),
    (["-m", "NoSuchMeasure"], "unknown measure"),
    (["--nav", "nosuch"], "unknown navigation model"),
])
def test_bad_eval_options_are_one_line_errors(tmp_path: Path, args: list[str],
                                              message: str) -> None:
    q, r = _eval_files(tmp_path)
    res = runner.invoke(app, ["eval", str(r), "--qrels", str(q), "--no-store", *args])
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], res.output


def test_show_groups_repeated_links(tmp_path: Path, write) -> None:
    write("site/index.html", '<a href="a.html">1</a><a href="a.html">2</a><a href="b.html">3</a>')
    write("site/a.html", '<a href="index.html">back</a>')
    write("site/b.html", "<p>leaf</p>")
    store = tmp_path / "s"
    assert invoke(store, "load", "web", str(tmp_path / "site")).exit_code == 0
    r = invoke(store, "show", "index.html", "--format", "table")
    assert r.exit_code == 0, r.output
    lines = [line.strip() for line in r.output.splitlines()]
    out = lines.index("out-links (3 to 2 units):")
    assert lines[out + 1:out + 3] == ["a.html  x2", "b.html"]
    assert "in-links (1 from 1 unit):" in lines  # issue 41.8: from, not to
    r = invoke(store, "show", "index.html", "--format", "tsv")
    rows = [line.split("\t") for line in r.output.splitlines()]
    assert [row for row in rows if row[0].endswith("_link")] == [
        ["out_link", "a.html", "2"], ["out_link", "b.html", "1"], ["in_link", "a.html", "1"]]
    r = invoke(store, "show", "--json", "index.html")
    data = json.loads(r.output)
    assert data["out_links"] == ["a.html", "a.html", "b.html"]  # JSON keeps the multiplicity
    assert data["in_links"] == ["a.html"]


@pytest.mark.parametrize("argv", [["info", "--store", "x"], ["summary", "show", "p*", "-s", "x"]])
def test_a_global_option_after_the_command_says_where_it_goes(argv: list[str]) -> None:
    """The first-minute mistake ``graphprum info --store DIR``: the error says
    where --store goes, not only that the command has no such option."""
    import subprocess

    script = Path(sys.executable).parent / "graphprum"
    if not script.exists():
        pytest.skip("no installed graphprum script next to the interpreter")
    r = subprocess.run([str(script), *argv], capture_output=True, text=True)
    assert r.returncode == 2
    option, command = argv[-2], " ".join(argv[:-2 if argv[0] == "info" else -3])
    assert r.stderr.strip() == (f"graphprum: error: {option} is a global option: it goes before "
                                f"the command (graphprum {option} ... {command} ...)")


def test_a_load_that_drops_summaries_says_so(tmp_path: Path, write) -> None:
    store = tmp_path / "s"
    write("c/a.xml", DOC)
    assert invoke(store, "load", "xml", str(tmp_path / "c")).exit_code == 0
    assert invoke(store, "summary", "build", "p*").exit_code == 0
    r = invoke(store, "load", "xml", str(tmp_path / "c"), "--replace")
    assert r.exit_code == 0
    assert ("note: the collection changed, so its stored summaries are dropped: p* "
            "(graphprum summary build 'p*' builds one again)") in r.stderr
    r = invoke(store, "load", "xml", str(tmp_path / "c"), "--replace")
    assert "summaries are dropped" not in r.stderr  # none were left to drop


def test_judged_ids_the_store_lacks_name_the_qrels_file(tmp_path: Path, write) -> None:
    store = tmp_path / "s"
    write("c/a.xml", DOC)
    assert invoke(store, "load", "xml", str(tmp_path / "c")).exit_code == 0
    qrels = write("q.txt", "1 0 a#/article[1] 1\n1 0 nope 1\n")
    run = write("r.txt", "1 Q0 a#/article[1] 1 1 r\n")
    r = invoke(store, "eval", str(run), "--qrels", str(qrels), "--strict")
    assert r.exit_code == 2
    assert r.output.strip() == (f"graphprum: error: {qrels}:2: 1 of 2 judged ids are not in "
                                f"the store {store}: nope")
    r = invoke(store, "eval", str(run), "--qrels", str(qrels))
    assert r.exit_code == 0 and f"note: {qrels}: 1 of 2 judged ids" in r.stderr


def test_a_summary_model_on_a_store_without_elements_is_an_error(tmp_path: Path, write) -> None:
    """summary build refuses a store of pages only; --nav summary:... on it
    silently gave every unit 0 (the classical model's numbers)."""
    store = tmp_path / "s"
    write("site/a.html", "<html><body><a href='b.html'>b</a></body></html>")
    write("site/b.html", "<html><body><p>b</p></body></html>")
    assert invoke(store, "load", "web", str(tmp_path / "site")).exit_code == 0
    run = write("r.txt", "1 Q0 a.html 1 2 r\n1 Q0 b.html 2 1 r\n")
    qrels = write("q.txt", "1 0 b.html 1\n")
    r = invoke(store, "eval", str(run), "--qrels", str(qrels), "--nav", "summary:p*",
               "-m", "SRP@5")
    assert r.exit_code == 2
    assert "holds no XML elements to summarise" in r.output


def test_summary_show_options_are_used_or_refused(tmp_path: Path, write) -> None:
    """-o with dot wrote nothing (the graph went to stdout), --limit was
    ignored by json and dot, and -f png wrote PNG bytes into x.jpg."""
    store = tmp_path / "s"
    write("c/a.xml", DOC)
    assert invoke(store, "load", "xml", str(tmp_path / "c")).exit_code == 0
    assert invoke(store, "summary", "build", "p*").exit_code == 0
    dot = tmp_path / "p.dot"
    r = invoke(store, "summary", "show", "p*", "-f", "dot", "-o", str(dot))
    assert r.exit_code == 0 and dot.read_text().startswith('digraph "p*"')
    for args, message in ((["-f", "json", "--limit", "1"], "--limit goes with"),
                          (["-f", "png", "-o", str(tmp_path / "x.jpg")], "ends in .png"),
                          (["-f", "tsv", "-o", str(tmp_path / "x.tsv")], "--output goes with")):
        r = invoke(store, "summary", "show", "p*", *args)
        assert r.exit_code == 2 and message in r.output, r.output
    assert not (tmp_path / "x.jpg").exists()
    # the file's ending says the format; --limit 0 (all) goes with any
    for name in ("pi.png", "g.gv", "page.htm"):
        r = invoke(store, "summary", "show", "p*", "-o", str(tmp_path / name))
        assert r.exit_code == 0 and (tmp_path / name).stat().st_size > 0, r.output
    assert invoke(store, "summary", "show", "p*", "-f", "json", "--limit", "0").exit_code == 0
    r = invoke(store, "nav", "links:hops=2,hops=3", "--from", "a", "--to", "b")
    assert r.exit_code == 2 and "hops given twice" in r.output


@pytest.mark.parametrize("command", ["eval", "nav"])
def test_nav_help_says_structural_with_links_is_more_than_a_noisy_or(command: str) -> None:
    """--nav structural --nav links also counts the user who follows a link and
    moves down into its target (docs/measures-prum.md); the help said only
    "noisy-or", which gives 0 into a target's section."""
    r = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())
    assert "structural with links also moves down into a link's target" in text


def test_evaluating_without_the_default_store_is_noted(tmp_path: Path, monkeypatch) -> None:
    """No --store and no ./graphprum-store: PRUM is evaluated with N unbounded,
    which changes it, so a note says so (not for classical measures alone,
    not with --no-store or --collection-size); commands that need the store
    say how to make or name one."""
    q, r = _eval_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GRAPHPRUM_STORE", raising=False)
    res = runner.invoke(app, ["eval", str(r), "--qrels", str(q), "-m", "PRUM"])
    assert res.exit_code == 0, res.output
    # the run lacks qrels topic 2: that note is there whatever the store
    lacking = ("note: run r: 1 qrels topic(s) not in the run, evaluated on an empty ranking "
               "(--no-c: left out): 2")
    line, other = res.stderr.strip().splitlines()
    assert line.startswith("note: no store (graphprum-store is not there)")
    assert "--store DIR" in line and "--no-store" in line and other == lacking
    assert res.stdout.split("\t")[1] == "PRUM"
    for quiet in (["-m", "AP"], ["-m", "PRUM", "--no-store"],
                  ["-m", "PRUM", "--collection-size", "100"]):
        res = runner.invoke(app, ["eval", str(r), "--qrels", str(q), *quiet])
        assert res.exit_code == 0 and res.stderr == lacking + "\n", (quiet, res.stderr)
    res = runner.invoke(app, ["info"])
    assert res.exit_code == 2
    assert res.stderr.strip() == (
        "graphprum: error: graphprum-store: no graphprum store here (no manifest.json): load a "
        "collection into it first (graphprum load xml DIR), or name the store: --store DIR or "
        "$GRAPHPRUM_STORE")
    assert not (tmp_path / "graphprum-store").exists()


def test_a_links_walk_on_a_store_without_links_is_noted(tmp_path: Path, write) -> None:
    """``--nav links`` over a store with no LINK edges moves nobody (PRUM is the
    classical one): a note says so; none once the store holds links."""
    write("col/a.xml", DOC)
    write("col/b.xml", DOC)
    store = tmp_path / "s"
    assert invoke(store, "load", "xml", str(tmp_path / "col")).exit_code == 0
    q = write("q", "1 0 b#/article[1] 1\n")
    r = write("r", "1 Q0 a#/article[1] 1 1.0 r\n")
    args = ["eval", str(r), "--qrels", str(q), "-m", "PRUM"]
    walked = invoke(store, *args, "--nav", "links:hops=2")
    assert walked.exit_code == 0, walked.output
    assert walked.stderr.strip() == (
        "note: --nav links:hops=2: the store holds no links, so the model follows none (load "
        "xml --links TAG@ATTR, load web, or load links FILE add them)")
    assert walked.stdout == invoke(store, *args).stdout  # the classical value
    assert invoke(store, *args, "--nav", "structural").stderr == ""
    assert invoke(store, "load", "links", str(write("links.tsv", "a\tb\n"))).exit_code == 0
    walked = invoke(store, *args, "--nav", "links")
    assert walked.stderr == "" and walked.stdout.split("\t")[-1].strip() == "1.0"


@pytest.mark.skipif(SCRIPT is None or not os.path.exists("/proc/self/stat"),
                    reason="needs the installed script and /proc")
@pytest.mark.parametrize("how", ["SIGTERM to the process", "Ctrl-C to the process group"])
def test_a_stopped_eval_with_jobs_ends_now_and_leaves_no_worker(tmp_path: Path, write,
                                                                 how: str) -> None:
    """``kill PID`` or Ctrl-C during a long ``--jobs 2`` evaluation: the
    workers are stopped at once (not after the items under way), the command
    says how it ended and exits 143 or 130."""
    assert SCRIPT is not None
    write("col/a.xml", DOC)
    store = tmp_path / "s"
    assert invoke(store, "load", "xml", str(tmp_path / "col")).exit_code == 0
    q = write("q", "".join(f"{t} 0 a#/article[1]/body[1]/p[2] 1\n" for t in range(1, 5)))
    r = write("r", "".join(f"{t} Q0 a#/article[1]/body[1]/p[1] 1 1.0 r\n{t} Q0 "
                           f"a#/article[1]/title[1] 2 0.5 r\n" for t in range(1, 5)))
    p = subprocess.Popen([SCRIPT, "--store", str(store), "eval", str(r), "--qrels", str(q),
                          "-m", "PRUM(exact=mc,samples=200000000)", "--nav", "structural",
                          "--jobs", "2", "--force"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 30
    while len(children(p.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    workers = children(p.pid)
    assert len(workers) >= 2, workers
    time.sleep(1.0)  # into the simulations
    if how.startswith("SIGTERM"):
        p.send_signal(signal.SIGTERM)
    else:
        os.killpg(p.pid, signal.SIGINT)
    try:
        _, err = p.communicate(timeout=15)
    finally:  # the whole group, workers too: a failing run must leave nothing behind
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
    assert (p.returncode, err.strip().splitlines()[-1]) == (
        (143, "graphprum: terminated") if how.startswith("SIGTERM")
        else (130, "graphprum: interrupted"))
    assert not [w for w in workers if running(w)]


def test_show_prints_long_child_ids_whole_at_80_columns(tmp_path: Path, write) -> None:
    """Children whose ids are wider than the terminal's table column: each id
    whole on a line (rich's table cut all four to ``...ref[21]/eleme…``)."""
    write("col/pone-0016329.xml", "<article><back><ref-list><ref><element-citation>"
          "<person-group><name>Clark</name><name>Inwood</name><name>Cloutier</name>"
          "</person-group></element-citation></ref></ref-list></back></article>")
    store = tmp_path / "s"
    assert invoke(store, "load", "xml", str(tmp_path / "col")).exit_code == 0
    group = ("pone-0016329#/article[1]/back[1]/ref-list[1]/ref[1]/element-citation[1]"
             "/person-group[1]")
    r = runner.invoke(app, ["--store", str(store), "show", group, "-f", "table"],
                      env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    children = lines[lines.index("children (3):") + 1:]
    assert [line.split() for line in children] == [
        [f"{group}/name[{i}]", "<name>", "length", f"{n},", "words", "1"]
        for i, n in ((1, 5), (2, 6), (3, 8))]


def test_loading_the_parent_directory_again_is_refused(tmp_path: Path, write) -> None:
    """The collection's directory, then its parent: the same files would be
    stored again under ids prefixed by the directory's name (the collection
    twice, PRUM's N doubled); refused, naming the file and both ids, with
    the store unchanged."""
    write("top/col/a.xml", DOC)
    write("top/col/b.xml", DOC)
    store = tmp_path / "s"
    assert invoke(store, "load", "xml", str(tmp_path / "top" / "col")).exit_code == 0
    before = invoke(store, "info").stdout
    r = invoke(store, "load", "xml", str(tmp_path / "top"))
    assert r.exit_code == 2
    assert r.stderr.strip() == (
        f"graphprum: error: {tmp_path / 'top' / 'col' / 'a.xml'}: this file is stored already, "
        f"as document 'a'; loaded as 'col/a' it would be stored twice: load the directory it "
        f"was loaded from (ids are paths relative to the directory given)")
    assert invoke(store, "info").stdout == before
    assert invoke(store, "load", "xml", str(tmp_path / "top" / "col"),
                  "--replace").exit_code == 0
    write("top/other/c.xml", DOC)  # files never loaded are loaded, whatever their directory
    assert invoke(store, "load", "xml", str(tmp_path / "top" / "other")).exit_code == 0


def test_the_parent_directory_typed_from_elsewhere_is_refused(tmp_path: Path, write,
                                                              monkeypatch) -> None:
    """``cd col; load xml .`` then ``cd ..; load xml .``: relative paths typed
    in two working directories name the same files, which are refused as
    above (the sources are stored absolute; before, the collection was
    stored twice: 2 documents became 4)."""
    write("top/col/a.xml", DOC)
    write("top/col/b.xml", DOC)
    store = tmp_path / "s"
    monkeypatch.chdir(tmp_path / "top" / "col")
    assert invoke(store, "load", "xml", ".").exit_code == 0
    before = invoke(store, "info").stdout
    monkeypatch.chdir(tmp_path / "top")
    r = invoke(store, "load", "xml", ".")
    assert r.exit_code == 2
    assert "this file is stored already, as document 'a'; loaded as 'col/a'" in r.stderr
    assert invoke(store, "info").stdout == before


def test_ids_are_read_alike_by_show_nav_and_runs(tmp_path: Path, write) -> None:
    """Steps without a position mean [1] in show and nav as in runs; a run of
    document names is told how an element is named."""
    write("col/a.xml", DOC)
    store = tmp_path / "s"
    assert invoke(store, "load", "xml", str(tmp_path / "col")).exit_code == 0
    short, full = "a#/article/body", "a#/article[1]/body[1]"
    assert invoke(store, "show", short).stdout == invoke(store, "show", full).stdout
    assert invoke(store, "show", full).stdout.startswith(f"id\t{full}\n")
    nav = invoke(store, "nav", "structural", "--from", short, "--to", "a#/article/body/p[2]")
    assert nav.exit_code == 0 and nav.stdout.startswith(f"{full}\t{full}/p[2]\t")
    r = invoke(store, "eval", str(write("r", "1 Q0 a 1 1.0 docs\n")), "--qrels",
               str(write("q", "1 0 a#/article[1] 1\n")), "-m", "PRUM")
    assert r.exit_code == 2
    assert "The run names documents, and a result is a unit: the root of 'a' is " \
           "'a#/article[1]'." in r.stderr


@pytest.mark.parametrize("where", ["embedded", "bolt"])
def test_spinners_say_what_runs(tmp_path: Path, write, monkeypatch, request, where) -> None:
    """The spinners of load and query name the graph build only where one
    runs: an embedded store's first query builds its graph, later ones do
    not, and a Bolt store's graph is the store (old code: every query said
    it built the graph, and a load into a Bolt store said it built one)."""
    from graphprum.cli import load as cli_load
    from graphprum.cli import query as cli_query

    shown: list[str] = []

    def status(message: str):
        shown.append(message)
        return contextlib.nullcontext()

    monkeypatch.setattr(cli_load, "status", status)
    monkeypatch.setattr(cli_query, "status", status)
    if where == "bolt":
        store = request.getfixturevalue("bolt_store")().location
    else:
        store = str(tmp_path / "s")
    write("col/a.xml", DOC)
    args = ["load", "xml", "--graph", str(tmp_path / "col")] if where == "bolt" else \
        ["load", "xml", "--no-graph", str(tmp_path / "col")]
    r = runner.invoke(app, ["--store", store, *args])
    assert r.exit_code == 0, r.output
    assert shown == []  # the embedded store was told not to; a server has none to build
    for _ in range(2):
        r = runner.invoke(app, ["--store", store, "query", "MATCH (u:Unit) RETURN count(u) AS n"])
        assert r.exit_code == 0 and r.output.split() == ["n", "5"], r.output
    first = "building the graph for queries (this store's first query), then querying ..."
    assert shown == ([first] if where == "embedded" else []) + ["querying ..."] * (
        2 if where == "bolt" else 1)


def test_no_store_names_what_needs_one(write) -> None:
    """One model 'needs' the structure, several 'need' it (old: 'need(s)')."""
    qrels, run = write("q.txt", "1 0 a 1\n"), write("r.txt", "1 Q0 a 1 1 r\n")
    base = ["eval", str(run), "--qrels", str(qrels), "--no-store", "--nav", "structural"]
    one, two = (runner.invoke(app, base + more) for more in ([], ["-m", "XCG@5"]))
    assert one.exit_code == two.exit_code == 2
    assert "error: structural needs the collection's structure" in one.output
    assert "error: structural, xCG@5 need the collection's structure" in two.output


def test_a_reader_that_goes_away_is_not_a_success(tmp_path: Path) -> None:
    """`graphprum runs check RUN | head -1` under `set -o pipefail`: the
    output was cut, so the status is 141 (128 + SIGPIPE, as a shell reports
    for `yes | head`), never 0 (old code: 0, although the check found 2,216
    violations and exits 1 when read whole), and no traceback."""
    run = Path(__file__).parents[2] / "examples" / "plos" / "run-bm25.txt"
    cmd = [sys.executable, "-c", "from graphprum.cli import main; main()", "runs", "check",
           str(run), "--task", "focused"]
    whole = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert whole.returncode == 1 and len(whole.stdout) > 2 * 65536  # more than a pipe holds
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline() == "run\ttopic\tviolation\n"
    proc.stdout.close()  # the reader goes away, as head does
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 141 and "Traceback" not in err, err
