"""The embedded store never loses data (issue reproducers): it deletes only
what it can prove it wrote, every string it writes round-trips, a new
generation is read back before it replaces the old one, readers keep the
generation they opened, and a failed write leaves the store as it was."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from graphprum.errors import StoreError
from graphprum.loading import load_links, load_web, load_xml
from graphprum.store.local import LocalStore
from graphprum.store.local.layout import GENERATION_MARKER
from graphprum.summaries.stored import build_stored, stored_summary

DOC = "<article><title>Alpha</title><body><sec><p>one two</p><p>three</p></sec></body></article>"


def test_a_directory_that_is_not_a_store_is_refused_and_untouched(tmp_path: Path,
                                                                  write) -> None:
    proj = tmp_path / "proj"
    (proj / "gen-results").mkdir(parents=True)
    (proj / "gen-results" / "a.csv").write_text("x")
    (proj / "manifest.json.tmp1").write_text("mine")
    bad = write("bad.xml", "<a>")
    for attempt in (lambda: load_xml(LocalStore(proj), [bad]),
                    lambda: load_xml(LocalStore(proj), [write("ok.xml", DOC)])):
        with pytest.raises(StoreError, match="not empty and is not a graphprum store"):
            attempt()
    assert (proj / "gen-results" / "a.csv").read_text() == "x"
    assert (proj / "manifest.json.tmp1").read_text() == "mine"
    assert sorted(p.name for p in proj.iterdir()) == ["gen-results", "manifest.json.tmp1"]


def test_only_marked_generations_are_cleaned(tmp_path: Path, write) -> None:
    store = LocalStore(tmp_path / "s")
    load_xml(store, [write("a.xml", DOC)])
    foreign = tmp_path / "s" / "gen-999999"  # someone else's directory inside the store
    foreign.mkdir()
    (foreign / "keep.txt").write_text("x")
    load_xml(store, [write("b.xml", DOC)])
    assert (foreign / "keep.txt").exists()
    gens = [p for p in (tmp_path / "s").glob("gen-*") if (p / GENERATION_MARKER).exists()]
    assert len(gens) == 1


@pytest.mark.parametrize("name", ["a\rb", "a\nb", "tab\tname", "x\x1fy"])
def test_control_characters_in_names_round_trip(tmp_path: Path, write, name: str) -> None:
    store = LocalStore(tmp_path / "s")
    load_xml(store, [write(f"d/{name}.xml", DOC).parent])
    load_xml(store, [write("e/other.xml", DOC).parent])  # a second generation reads the first
    again = LocalStore(tmp_path / "s")
    assert again.documents()["name"].tolist() == [name, "other"]
    assert again.children(name) == [f"{name}#/article[1]/title[1]", f"{name}#/article[1]/body[1]"]


def test_link_targets_with_a_carriage_return(tmp_path: Path, write) -> None:
    store = LocalStore(tmp_path / "s")
    write("c/a.xml", '<a><link href="missing&#13;doc.xml"/><link href="b.xml"/></a>')
    write("c/b.xml", "<b/>")
    load_xml(store, [tmp_path / "c"], links="link@href")
    load_xml(store, [write("more/z.xml", DOC).parent])  # the next load still reads the links
    again = LocalStore(tmp_path / "s")
    (_, dst), (targets, _) = again.link_rows(), again.link_texts()
    assert targets == ["missing\rdoc", "b"] and dst.tolist()[0] == -1 and dst[1] >= 0


def test_web_page_and_link_list_names(tmp_path: Path, write) -> None:
    write("site/a\rb.html", '<html><title>T</title><a href="c.html">c</a></html>')
    write("site/c.html", "<html><title>C</title></html>")
    store = LocalStore(tmp_path / "s")
    load_web(store, tmp_path / "site")
    load_links(store, write("l.tsv", "a\rb.html\tnew\rpage\n"))
    again = LocalStore(tmp_path / "s")
    assert sorted(again.documents()["name"]) == ["a\rb.html", "c.html", "new\rpage"]
    assert sorted(again.links_of("a\rb.html")[0]) == ["c.html", "new\rpage"]
    assert again.units(["a\rb.html"])["text"].tolist() == ["T"]


def test_a_reader_keeps_its_generation(tmp_path: Path, write) -> None:
    store = LocalStore(tmp_path / "s")
    load_xml(store, [write("a.xml", DOC)])
    build_stored(store, "p*")
    reader = LocalStore(tmp_path / "s")
    first = stored_summary(reader, "p*")  # holds the generation from here on
    table = reader.table()
    for i in range(3):  # other writers commit and clean up meanwhile
        load_xml(LocalStore(tmp_path / "s"), [write(f"n{i}.xml", DOC)])
    assert stored_summary(reader, "p*").sids == first.sids
    assert reader.table() is table and len(table) == 6
    assert reader.units(["a#/article[1]/body[1]"])["text"].tolist() == ["one twothree"]
    reader.close()  # released: the next writer removes the old generation
    load_xml(LocalStore(tmp_path / "s"), [write("last.xml", DOC)])
    assert len(list((tmp_path / "s").glob("gen-*"))) == 1


_WRITER = """
import sys, pathlib
from graphprum.store.local import LocalStore
from graphprum.loading import load_xml
store_dir, doc, rounds = sys.argv[1], pathlib.Path(sys.argv[2]), int(sys.argv[3])
for i in range(rounds):
    load_xml(LocalStore(store_dir, wait=30), [doc], replace=True)
"""

_READER = """
import sys, time
from graphprum.store.local import LocalStore
from graphprum import evaluate as run_evaluation
store_dir, run, qrels, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
end = time.monotonic() + seconds
n = 0
while time.monotonic() < end:
    store = LocalStore(store_dir, create=False)
    df = run_evaluation([run], qrels, ["PRUM"], nav=["structural"], store=store)
    assert len(df) == 2, df
    store.units(["a#/article[1]/body[1]/sec[1]"])
    store.close()
    n += 1
print(n)
"""


def test_concurrent_readers_never_lose_their_generation(tmp_path: Path, write) -> None:
    doc = write("a.xml", DOC)
    store_dir = tmp_path / "s"
    load_xml(LocalStore(store_dir), [doc])
    run = write("run", "1 Q0 a#/article[1]/body[1]/sec[1] 1 1 r\n")
    qrels = write("qrels", "1 0 a#/article[1]/body[1]/sec[1]/p[1] 1\n")
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(store_dir), str(doc), "15"])
    readers = [subprocess.Popen([sys.executable, "-c", _READER, str(store_dir), str(run),
                                 str(qrels), "6"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [r.communicate(timeout=120) for r in readers]
    assert writer.wait(timeout=120) == 0
    for r, (out, err) in zip(readers, outs, strict=True):
        assert r.returncode == 0, err
        assert int(out) >= 1
    # generations kept for readers that have finished go with the next write
    load_xml(LocalStore(store_dir), [doc], replace=True)
    assert len(list(store_dir.glob("gen-*"))) == 1


def _limited(limit: int) -> None:
    """In the child: files may not grow past ``limit`` bytes (EFBIG, not a signal)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


_LOAD = """
import sys
from graphprum.cli import main
sys.argv = ["graphprum", "--store", sys.argv[1], "load", "xml", sys.argv[2]]
main()
"""


@pytest.mark.parametrize("limit", [2_000, 60_000, 150_000])
def test_a_full_disk_is_one_line_and_changes_nothing(tmp_path: Path, write, limit: int) -> None:
    store_dir = tmp_path / "s"
    load_xml(LocalStore(store_dir), [write("first/a.xml", DOC)])
    before = LocalStore(store_dir).documents()["name"].tolist()
    big = tmp_path / "big"
    for i in range(40):
        write(f"big/d{i}.xml", "<article>" + "<p>some words here</p>" * 300 + "</article>")
    proc = subprocess.run([sys.executable, "-c", _LOAD, str(store_dir), str(big)],
                          preexec_fn=lambda: _limited(limit), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert "the store is unchanged" in proc.stderr
    assert LocalStore(store_dir).documents()["name"].tolist() == before
    load_xml(LocalStore(store_dir), [write("later/b.xml", DOC)])  # and it still works
    assert len(list(store_dir.glob("gen-*"))) == 1


def test_a_read_only_store_reads_and_refuses_writes_in_one_line(tmp_path: Path,
                                                                write) -> None:
    store_dir = tmp_path / "s"
    load_xml(LocalStore(store_dir), [write("a.xml", DOC)])
    LocalStore(store_dir).query("MATCH (u:Unit) RETURN count(u) AS n")  # graph built
    paths = [store_dir, *store_dir.rglob("*")]
    modes = {p: p.stat().st_mode for p in paths}
    try:
        for p in paths:
            os.chmod(p, 0o555 if p.is_dir() else 0o444)
        if os.access(store_dir, os.W_OK):
            pytest.skip("running as a user who can write anyway (root)")
        store = LocalStore(store_dir, create=False)
        assert store.count_units() == 6
        assert store.query("MATCH (u:Unit) RETURN count(u) AS n") == [{"n": 6}]
        with pytest.raises(StoreError, match="cannot write"):
            load_xml(store, [write("b.xml", DOC)])
    finally:
        for p, mode in modes.items():
            os.chmod(p, mode)


def test_manifest_records_the_engine(tmp_path: Path, write) -> None:
    load_xml(LocalStore(tmp_path / "s"), [write("a.xml", DOC)])
    manifest = json.loads((tmp_path / "s" / "manifest.json").read_text())
    import ladybug

    assert manifest["engine"] == {"ladybug": ladybug.__version__}
    assert manifest["version"] == 4


def test_a_second_writer_waits_or_says_who_holds_the_store(tmp_path: Path, write) -> None:
    import fcntl

    store_dir = tmp_path / "s"
    load_xml(LocalStore(store_dir), [write("a.xml", DOC)])
    with open(store_dir / "lock", "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        with pytest.raises(StoreError, match="another graphprum process is writing"):
            load_xml(LocalStore(store_dir), [write("b.xml", DOC)])
        t = time.monotonic()
        with pytest.raises(StoreError, match=r"waited 0\.3 s"):
            load_xml(LocalStore(store_dir, wait=0.3), [write("b.xml", DOC)])
        assert time.monotonic() - t >= 0.3


def test_a_read_only_file_system_is_one_line(tmp_path: Path, write, monkeypatch) -> None:
    import errno

    from graphprum.store.local import layout

    store_dir = tmp_path / "s"
    load_xml(LocalStore(store_dir), [write("a.xml", DOC)])
    real_open = open

    def read_only(path, mode="r", *args, **kwargs):
        if any(c in mode for c in "wax+"):
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr(layout, "open", read_only, raising=False)
    with pytest.raises(StoreError, match="cannot write to the store: Read-only file system"):
        load_xml(LocalStore(store_dir), [write("b.xml", DOC)])
    assert LocalStore(store_dir).documents()["name"].tolist() == ["a"]


def test_a_graph_of_another_engine_version_names_the_rebuild(tmp_path: Path, write) -> None:
    from graphprum.loading import copy_store

    first = LocalStore(tmp_path / "s")
    load_xml(first, [write("a.xml", DOC)])
    assert first.build_graph() and not first.build_graph()
    (first.generation / "graph.version").write_text("0.0.1")  # as another version left it
    old = LocalStore(tmp_path / "s")
    with pytest.raises(StoreError, match=r"written by LadybugDB 0\.0\.1.*graphprum copy"):
        old.query("MATCH (u:Unit) RETURN count(u) AS n")
    assert old.count_units() == 6  # the columns do not depend on the engine
    new = LocalStore(tmp_path / "new")
    copy_store(old, new)
    assert new.query("MATCH (u:Unit) RETURN count(u) AS n") == [{"n": 6}]
    assert new.units(["a#/article[1]/body[1]"])["text"].tolist() == ["one twothree"]


def test_a_graph_that_cannot_be_written_leaves_the_load(tmp_path: Path, write) -> None:
    store_dir = tmp_path / "s"
    for i in range(20):
        write(f"docs/d{i}.xml", "<article>" + "<p>some words here</p>" * 200 + "</article>")
    loaded = LocalStore(store_dir)
    load_xml(loaded, [tmp_path / "docs"])  # columns only: the graph comes later
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from graphprum.cli import main; "
         "sys.argv = ['graphprum', '--store', sys.argv[1], 'query', "
         "'MATCH (u:Unit) RETURN count(u) AS n']; main()", str(store_dir)],
        preexec_fn=lambda: _limited(200_000), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "cannot write the graph for queries" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert LocalStore(store_dir).query("MATCH (u:Unit) RETURN count(u) AS n") == [{"n": 4020}]


@pytest.mark.parametrize(("key", "value", "message"), [
    ("generation", "../other/gen-000001", "generation '../other/gen-000001' is not a generation"),
    ("generation", "/etc", "generation '/etc' is not a generation"),
    ("generation", 7, "generation 7 is not a generation"),
    ("version", "4", "store format version '4' is not supported (this graphprum reads version 4)"),
    ("version", 2, "store format version 2 is not supported"),
    ("version", 3, "store format version 3 is not supported"),
    ("version", 5, "store format version 5 is not supported"),
])
def test_a_damaged_manifest_is_one_error_and_nothing_outside_is_read(
        tmp_path: Path, write, key: str, value: object, message: str) -> None:
    """A hand-edited manifest: every reader and writer refuses it with one
    line; a generation path leading out of the store is never followed (it
    read another store's elements) and nothing there is touched."""
    other = LocalStore(tmp_path / "other")
    load_xml(other, [write("o.xml", DOC)])
    before = sorted((p, p.stat().st_mtime_ns) for p in (tmp_path / "other").rglob("*"))
    store = LocalStore(tmp_path / "s")
    load_xml(store, [write("a.xml", DOC)])
    store.release()
    manifest = tmp_path / "s" / "manifest.json"
    data = json.loads(manifest.read_text())
    data[key] = value
    manifest.write_text(json.dumps(data))
    for action in (lambda s: s.info(), lambda s: load_xml(s, [write("b.xml", DOC)])):
        with pytest.raises(StoreError, match=message.replace("(", r"\(").replace(")", r"\)")):
            action(LocalStore(tmp_path / "s"))
    assert sorted((p, p.stat().st_mtime_ns) for p in (tmp_path / "other").rglob("*")) == before


def test_a_writer_waiting_on_a_first_load_that_fails_still_loads(tmp_path: Path, write) -> None:
    """A first load that fails removes the store directory it made (lock file
    included) while it holds the lock; a second writer waiting on that lock
    then makes the store again instead of writing into a removed directory
    (review: it failed with 'gen-000001.tmp: No such file or directory' and
    the store was gone)."""
    import threading

    from graphprum.errors import InputError

    path = tmp_path / "new" / "s"
    holding, fail = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def failing_documents():
        holding.set()
        fail.wait(30)
        raise InputError("bad.xml", 3, "not well-formed")
        yield  # a generator

    def first() -> None:
        try:
            LocalStore(path).load_documents(failing_documents(), description={"paths": []})
        except InputError as exc:
            errors.append(exc)

    a = threading.Thread(target=first)
    a.start()
    assert holding.wait(30)
    done: list[object] = []
    b = threading.Thread(target=lambda: done.append(
        load_xml(LocalStore(path, wait=30), [write("ok.xml", DOC)])))
    b.start()
    time.sleep(0.5)  # the second writer now waits on the first one's lock
    fail.set()
    a.join(30)
    b.join(60)
    assert len(errors) == 1 and len(done) == 1
    store = LocalStore(path)
    assert store.documents()["name"].tolist() == ["ok"]
    assert (path / "lock").exists()


@pytest.fixture
def small_disk(tmp_path: Path):
    """A tmpfs of 64 MB mounted on ``tmp_path / "disk"`` (skipped where
    mounting is not permitted), unmounted after the test."""
    mount = tmp_path / "disk"
    mount.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount)],
                          capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a small file system here: {proc.stderr.strip()[:100]}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True, timeout=60)


def _fill(disk: Path, leave: int) -> Path:
    """A file that takes all of ``disk``'s free space but ``leave`` bytes."""
    st = os.statvfs(disk)
    filler = disk / "filler"
    with open(filler, "wb") as f:
        f.truncate(0)
        left = st.f_bavail * st.f_frsize - leave
        chunk = b"\0" * (1 << 20)
        while left > 0:
            left -= f.write(chunk[:min(len(chunk), left)])
    return filler


def test_a_full_disk_leaves_no_part_of_a_graph(tmp_path: Path, small_disk: Path) -> None:
    """Disk full while the graph for queries is built: the build removes
    what it wrote at once (no ``graph.lbug.tmp*.shadow`` of several MB is
    left in the generation, which made the next load fail), the query is
    one line with exit status 2, and once there is room the graph is built
    and the store reads as before."""
    for i in range(100):
        (tmp_path / "big").mkdir(exist_ok=True)
        (tmp_path / "big" / f"d{i}.xml").write_text(
            "<article>" + "".join(f'<p n="{j}">some words here {j}</p>' for j in range(300))
            + "</article>")
    store_dir = small_disk / "s"
    load_xml(LocalStore(store_dir), [tmp_path / "big"])  # columns only
    gen = LocalStore(store_dir).generation
    before = sorted(p.name for p in gen.iterdir())
    filler = _fill(small_disk, 1 << 20)
    query = [sys.executable, "-c", "import sys; from graphprum.cli import main; "
             "sys.argv = ['graphprum', '--store', sys.argv[1], 'query', "
             "'MATCH (u:Unit) RETURN count(u) AS n']; main()", str(store_dir)]
    proc = subprocess.run(query, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "cannot write the graph for queries" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert sorted(p.name for p in gen.iterdir()) == before  # nothing left behind
    filler.unlink()
    assert LocalStore(store_dir).query("MATCH (u:Unit) RETURN count(u) AS n") == [{"n": 30100}]
    assert sorted(p.name for p in gen.iterdir()) == sorted([*before, "graph.lbug",
                                                            "graph.version"])


def test_a_build_killed_before_leaves_nothing_after_the_next(tmp_path: Path, write) -> None:
    """What a build killed with SIGKILL left (its directory, or the files
    of an older graphprum) is removed by the next build; a build of a
    process still running is left alone."""
    store_dir = tmp_path / "s"
    load_xml(LocalStore(store_dir), [write("a.xml", DOC)])
    gen = LocalStore(store_dir).generation
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (gen / f"graph.lbug.tmp{dead}").mkdir()
    (gen / f"graph.lbug.tmp{dead}" / "graph.lbug").write_bytes(b"\0" * 4096)
    (gen / f"graph.lbug.tmp{dead}.shadow").write_bytes(b"\0" * 4096)
    running = gen / f"graph.lbug.tmp{os.getppid()}"
    running.mkdir()
    assert LocalStore(store_dir).query("MATCH (u:Unit) RETURN count(u) AS n") == [{"n": 6}]
    assert sorted(p.name for p in gen.iterdir() if p.name.startswith("graph")) == [
        "graph.lbug", running.name, "graph.version"]
