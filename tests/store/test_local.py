"""The embedded store: round trip, replace, bad input, atomicity under SIGKILL."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from graphprum.errors import InputError, StoreError, UnknownIdError
from graphprum.loading import load_xml
from graphprum.store import open_store
from graphprum.store.local import LocalStore
from graphprum.units import DOC_COLUMNS

DOC_A = "<article><title>Alpha</title><body><sec><p>one two</p><p>three</p></sec></body></article>"
DOC_B = "<article><title>Beta</title><body><p>four</p></body></article>"


def _snapshot(store: LocalStore) -> dict:
    t = store.table()
    return {"ids": t.ids(), "cols": {c: np.asarray(v).tolist() for c, v in t.columns.items()},
            "docs": {c: t.docs[c].tolist() for c in DOC_COLUMNS}}


def test_round_trip_reopen(write, tmp_path: Path) -> None:
    write("c/a.xml", DOC_A)
    write("c/b.xml", DOC_B)
    s1 = LocalStore(tmp_path / "s")
    rep = load_xml(s1, [tmp_path / "c"])
    assert (rep.documents, rep.elements) == (2, 10)  # 6 + 4 elements
    s2 = open_store(tmp_path / "s", create=False)
    assert _snapshot(s1) == _snapshot(s2)
    info = s2.info()
    assert info["documents"] == 2 and info["elements"] == 10
    assert info["format"] == "graphprum-local v4" and info["bytes_on_disk"] > 0


def test_second_load_appends_and_subtree_graph(write, tmp_path: Path) -> None:
    write("a.xml", DOC_A)
    write("b.xml", DOC_B)
    s = LocalStore(tmp_path / "s")
    load_xml(s, [tmp_path / "a.xml"])
    load_xml(s, [tmp_path / "b.xml"])
    assert s.table().docs["name"].tolist() == ["a", "b"]
    sub = s.subtree("a#/article[1]/body[1]")
    assert sub["id"].tolist() == ["a#/article[1]/body[1]", "a#/article[1]/body[1]/sec[1]",
                                  "a#/article[1]/body[1]/sec[1]/p[1]",
                                  "a#/article[1]/body[1]/sec[1]/p[2]"]
    assert s.children("b#/article[1]") == ["b#/article[1]/title[1]", "b#/article[1]/body[1]"]
    assert s.children("b") == s.children("b#/article[1]")  # a document name: its root
    assert s.unit("b#/article[1]/body[1]/p[1]")["length"] == 4
    # parents of the second load point into the second document
    p = s.row_of("b#/article[1]/body[1]/p[1]")
    assert s.table().ids([s.table().columns["parent"][p]]) == ["b#/article[1]/body[1]"]


def test_duplicate_document_needs_replace(write, tmp_path: Path) -> None:
    a = write("a.xml", DOC_A)
    s = LocalStore(tmp_path / "s")
    load_xml(s, [a])
    before = _snapshot(s)
    with pytest.raises(InputError, match="already stored; use --replace"):
        load_xml(s, [a])
    assert _snapshot(s) == before
    a.write_text(DOC_B)
    load_xml(s, [a], replace=True)
    assert s.table().ids()[0:2] == ["a#/article[1]", "a#/article[1]/title[1]"]
    assert len(s.table()) == 4  # DOC_B: article, title, body, p


def test_bad_file_writes_nothing_and_skip_bad_loads_rest(write, tmp_path: Path) -> None:
    write("c/good.xml", DOC_A)
    write("c/zbad.xml", "<a>\n<b></a>")
    s = LocalStore(tmp_path / "s")
    with pytest.raises(InputError, match=r"zbad.xml:2: not well-formed"):
        load_xml(s, [tmp_path / "c"])
    assert not (tmp_path / "s" / "manifest.json").exists()
    rep = load_xml(s, [tmp_path / "c"], skip_bad=True)
    assert rep.documents == 1 and [str(x).split(":")[1] for x in rep.skipped] == ["2"]


def test_unknown_format_version(tmp_path: Path) -> None:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "manifest.json").write_text(json.dumps(
        {"format": "graphprum-local", "version": 99, "generation": "gen-000001"}))
    with pytest.raises(StoreError, match="format version 99 is not supported"):
        LocalStore(tmp_path / "s").table()


def test_missing_store_and_unknown_id(tmp_path: Path, write) -> None:
    with pytest.raises(StoreError, match="no graphprum store here"):
        open_store(tmp_path / "nothing", create=False)
    write("a.xml", DOC_A)
    s = LocalStore(tmp_path / "s")
    load_xml(s, [tmp_path / "a.xml"])
    with pytest.raises(UnknownIdError):
        s.row_of("a#/article[2]")


_LOADER = """
import sys
from graphprum.store.local import LocalStore
from graphprum.loading import load_xml
load_xml(LocalStore(sys.argv[1]), [sys.argv[2]])
"""


@pytest.mark.parametrize("delay", [0.3, 0.8, 1.5])
def test_sigkill_during_load_leaves_previous_state(tmp_path: Path, write, delay: float) -> None:
    write("first/a.xml", DOC_A)
    big = tmp_path / "big"
    big.mkdir()
    body = "".join(f"<sec><title>s{i}</title>" + "<p>word " * 20 + "</p>" * 20 + "</sec>"
                   for i in range(30))
    for i in range(400):
        (big / f"d{i:04d}.xml").write_text(f"<article>{body}</article>")
    store_dir = tmp_path / "s"
    load_xml(LocalStore(store_dir), [tmp_path / "first"])
    before = _snapshot(LocalStore(store_dir))
    proc = subprocess.Popen([sys.executable, "-c", _LOADER, str(store_dir), str(big)])
    time.sleep(delay)
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    after = LocalStore(store_dir)
    snap = _snapshot(after)
    # all or nothing: the previous state, or (when the kill came after the
    # manifest swap, e.g. while old generations were being removed) the whole
    # new one -- never anything in between
    if snap != before:
        assert len(snap["docs"]["name"]) == 401
        assert snap["ids"][: len(before["ids"])] == before["ids"]
        assert len(snap["ids"]) == len(before["ids"]) + 400 * (1 + 30 * 22)
    # and a writer can still write afterwards, cleaning up the leftovers
    write("later/z.xml", DOC_B)
    load_xml(after, [tmp_path / "later"])
    assert len([p for p in store_dir.iterdir() if p.name.startswith("gen-")]) == 1


def test_a_store_named_from_home_is_one_directory(tmp_path, monkeypatch) -> None:
    """``--store '~/coll'`` (quoted, or from $GRAPHPRUM_STORE): the columns
    and the graph both under $HOME/coll (before: the columns in ./~/coll,
    the graph's build failing in $HOME, every query refused)."""
    from graphprum.loading import load_xml
    from graphprum.query import run_query
    from graphprum.store import open_store
    from tests.support import PLOS

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "home").mkdir()
    store = open_store("~/coll")
    load_xml(store, [PLOS / "articles"])
    assert run_query(store, "MATCH (d:Document) RETURN count(d) AS n") == [{"n": 9}]
    store.close()
    assert (tmp_path / "home" / "coll").is_dir() and not (tmp_path / "~").exists()
    from graphprum.store import store_exists

    assert store_exists("~/coll")  # as the command line asks before opening it


def test_resume_removes_what_killed_writes_left(tmp_path: Path, write) -> None:
    """What a load killed before its commit left (its unfinished generation)
    and what a query killed while it built the graph left (its build
    directory) are removed by `load --resume`, which says how much (old
    code: "nothing removed", and both stayed; the build directory was even
    carried into every later generation)."""
    from typer.testing import CliRunner

    from graphprum.cli import app

    write("col/a.xml", DOC_A)
    store_dir = tmp_path / "s"
    load_xml(LocalStore(store_dir), [tmp_path / "col"])
    gen = next(p for p in store_dir.iterdir() if p.name.startswith("gen-"))
    unfinished = store_dir / "gen-000099.tmp"  # as a killed load leaves it
    shutil.copytree(gen, unfinished)
    (unfinished / "units.bin").write_bytes(b"x" * 2**20)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    build = gen / f"graph.lbug.tmp{gone}"  # as a query killed mid-build leaves it
    build.mkdir()
    (build / "graph.lbug").write_bytes(b"y" * 2**20)
    before = {p.relative_to(store_dir) for p in store_dir.rglob("*")
              if unfinished not in p.parents and p != unfinished and build not in p.parents
              and p != build}
    r = CliRunner().invoke(app, ["--store", str(store_dir), "load", "--resume"])
    assert r.exit_code == 0, r.output
    assert r.output.startswith("removed ") and r.output.strip().endswith(
        " MiB of files that killed writes left")
    freed = float(r.output.split("removed ")[1].split(" MiB")[0])
    assert freed >= 2.0  # the two MiB written above at least
    assert not unfinished.exists() and not build.exists()
    assert {p.relative_to(store_dir) for p in store_dir.rglob("*")} == before
    r = CliRunner().invoke(app, ["--store", str(store_dir), "load", "--resume"])
    assert r.output.strip() == "nothing to do: no interrupted load left"
