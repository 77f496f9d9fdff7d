"""A load reads only the collection it was given (issue 36 items 3-5, issue 35
item 4): regular files inside the loaded directory; symbolic links that
leave it, FIFOs and devices are skipped with a note; a tree thousands of
levels deep, a file larger than memory and a link to ``/dev/zero`` are one
line (exit status 2, store untouched) or a note, never a traceback or a
hang; symlinked files inside the root keep their links; ``--glob`` takes
other file names than ``*.xml`` and a directory without any says what it
holds.  Each case runs the installed command line in a subprocess where a
mistake could hang or exhaust memory."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree
from typer.testing import CliRunner

from graphprum.cli import app
from graphprum.store.local import LocalStore

runner = CliRunner()

#: The command line in a fresh process: ``python -c CLI STORE ARGS...``.
CLI = ("import sys; from graphprum.cli import main; "
       "sys.argv = ['graphprum', '--store', *sys.argv[1:]]; main()")


def graphprum(store: Path, *args: str, timeout: float = 120,
              limit_memory: int | None = None) -> subprocess.CompletedProcess[str]:
    """The command line in a subprocess (a hang is a failure, not a stuck suite)."""
    def limits() -> None:
        if limit_memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit_memory, limit_memory))

    return subprocess.run([sys.executable, "-c", CLI, str(store), *args], capture_output=True,
                          text=True, timeout=timeout, preexec_fn=limits)


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def stored(store: Path) -> list[str]:
    return sorted(LocalStore(store, create=False).documents()["name"].tolist())


def files_of(path: Path) -> list[tuple[str, int]]:
    return sorted((str(p.relative_to(path)), p.stat().st_size) for p in path.rglob("*")
                  if p.is_file())


# ---------------------------------------------------------------- symlinks
def test_a_symlinked_page_leaving_the_site_is_not_loaded(tmp_path: Path, write) -> None:
    """``ln -s ../private.txt site/secret.html`` stored the private file's
    text, readable with ``query``; now it is skipped with a note naming it,
    while a symlink to a page inside the site loads under its own name."""
    write("private.txt", "<p>the password is hunter2")
    write("site/index.html", "<p>home <a href='alias.html'>alias</a>")
    write("site/real.html", "<p>a real page")
    os.symlink("../private.txt", tmp_path / "site" / "secret.html")
    os.symlink("real.html", tmp_path / "site" / "alias.html")
    store = tmp_path / "s"
    r = runner.invoke(app, ["--store", str(store), "load", "web", str(tmp_path / "site"),
                            "--elements"])
    assert r.exit_code == 0, r.output
    assert f"skipped {tmp_path / 'site' / 'secret.html'}: a symbolic link to a file outside" \
        in r.output
    assert stored(store) == ["alias.html", "index.html", "real.html"]
    r = runner.invoke(app, ["--store", str(store), "query", "-f", "tsv",
                            "MATCH (u:Unit) WHERE u.text CONTAINS 'hunter2' RETURN count(u) AS n"])
    assert r.output.splitlines() == ["n", "0"]
    r = runner.invoke(app, ["--store", str(store), "query", "-f", "tsv",
                            "MATCH (u:Unit)-[:LINK]->(v:Unit) RETURN v.doc AS d"])
    assert r.output.splitlines() == ["d", "alias.html"]
    # asked for, the link is followed
    r = runner.invoke(app, ["--store", str(tmp_path / "s2"), "load", "web",
                            str(tmp_path / "site"), "--follow-symlinks"])
    assert r.exit_code == 0, r.output
    assert "secret.html" in stored(tmp_path / "s2")


def _linked_collection(root: Path) -> int:
    """Three documents linking each other through ``link@href``; the number
    of links between them, counted here with lxml."""
    root.mkdir(parents=True)
    texts = {"a": ["b", "c", "c"], "b": ["a"], "c": ["a", "missing"]}
    for name, targets in texts.items():
        links = "".join(f"<p>see <link href='{t}.xml'>{t}</link></p>" for t in targets)
        (root / f"{name}.xml").write_text(f"<doc><title>{name}</title>{links}</doc>")
    return sum(1 for f in root.iterdir()
               for el in etree.parse(str(f)).iter("link")
               if (root / el.get("href")).exists())


def test_symlinked_files_keep_their_links(tmp_path: Path) -> None:
    """A directory of symbolic links to files elsewhere stored their
    elements but 0 links (the links were resolved from the files' real
    place, outside the loaded root); with --follow-symlinks it now stores
    what a copy of the files stores, as lxml counts them."""
    expected = _linked_collection(tmp_path / "src")
    assert expected == 5
    farm = tmp_path / "farm"
    farm.mkdir()
    for f in sorted((tmp_path / "src").iterdir()):
        os.symlink(f, farm / f.name)
    shutil.copytree(tmp_path / "src", tmp_path / "copy")
    counts = {}
    for name, extra in (("farm", ["--follow-symlinks"]), ("copy", [])):
        r = runner.invoke(app, ["--store", str(tmp_path / f"s-{name}"), "load", "xml",
                                str(tmp_path / name), "--links", "link@href", *extra])
        assert r.exit_code == 0, r.output
        counts[name] = LocalStore(tmp_path / f"s-{name}").info()["links"]
    assert counts == {"farm": expected, "copy": expected}
    # without it, the links leaving the directory are not followed, and say how
    r = runner.invoke(app, ["--store", str(tmp_path / "s-none"), "load", "xml", str(farm)])
    assert r.exit_code == 2
    assert "holds no *.xml file" in r.output and "--follow-symlinks" in r.output
    assert not (tmp_path / "s-none").exists()


def test_symlinks_inside_the_root_load_and_keep_their_links(tmp_path: Path) -> None:
    """A symlink to a file inside the loaded directory is a document under
    its own path, its links resolved from where the symlink stands."""
    _linked_collection(tmp_path / "col" / "real")
    os.symlink("real/a.xml", tmp_path / "col" / "a.xml")
    os.symlink("real/b.xml", tmp_path / "col" / "b.xml")
    store = LocalStore(tmp_path / "s")
    from graphprum.loading import load_xml

    report = load_xml(store, [tmp_path / "col"], links="link@href")
    assert report.skipped == []
    assert sorted(store.documents()["name"].tolist()) == ["a", "b", "real/a", "real/b",
                                                          "real/c"]
    src, dst = store.link_rows()
    names = store.documents()["name"].tolist()
    doc = store.table().columns["doc"]
    pairs = sorted((names[doc[s]], names[doc[d]]) for s, d in zip(src.tolist(), dst.tolist(),
                                                                  strict=True) if d >= 0)
    # a -> b (both at the top): resolved from where the symlinks stand, not
    # from real/ (where they would arrive at real/b and real/a)
    assert ("a", "b") in pairs and ("b", "a") in pairs
    assert ("a", "real/b") not in pairs and ("b", "real/a") not in pairs
    # a -> c.xml: no c.xml at the top, so the value names a document of the
    # load by its id, and real/c is the only one named c (loaders/xml_links.py,
    # link_targets); from real/a it is the path real/c.xml itself
    assert pairs.count(("a", "real/c")) == pairs.count(("real/a", "real/c")) >= 1


def test_a_symlink_to_dev_zero_is_one_line_or_a_note(tmp_path: Path, write) -> None:
    os.makedirs(tmp_path / "col")
    os.symlink("/dev/zero", tmp_path / "col" / "z.xml")
    store = tmp_path / "s"
    line = one_line_error(graphprum(store, "load", "xml", str(tmp_path / "col"), timeout=60))
    assert "holds no *.xml file" in line and "z.xml" in line
    for args in (["load", "xml", str(tmp_path / "col" / "z.xml")],
                 ["load", "xml", str(tmp_path / "col"), "--follow-symlinks"]):
        line = one_line_error(graphprum(store, *args, timeout=60))
        assert "z.xml" in line and "not a regular file" in line, line
    write("col/a.xml", "<a>x</a>")
    proc = graphprum(store, "load", "xml", str(tmp_path / "col"), "--follow-symlinks",
                     timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "z.xml: not a regular file (a character device)" in proc.stderr
    assert stored(store) == ["a"]


# ---------------------------------------------------------------- FIFOs
def test_a_fifo_named_like_a_document_is_skipped_not_waited_on(tmp_path: Path,
                                                               write) -> None:
    """``mkfifo d/f.xml; load xml d`` waited forever holding the writer lock."""
    write("d/a.xml", "<a>x</a>")
    write("site/index.html", "<p>home")
    os.mkfifo(tmp_path / "d" / "f.xml")
    os.mkfifo(tmp_path / "site" / "f.html")
    store = tmp_path / "s"
    proc = graphprum(store, "load", "xml", str(tmp_path / "d"), timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert f"skipped {tmp_path / 'd' / 'f.xml'}: not a regular file (a FIFO)" in proc.stderr
    proc = graphprum(store, "load", "web", str(tmp_path / "site"), timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "f.html: not a regular file (a FIFO)" in proc.stderr
    assert stored(store) == ["a", "index.html"]
    line = one_line_error(graphprum(store, "load", "xml", str(tmp_path / "d" / "f.xml"),
                                    timeout=60))
    assert "f.xml: not a regular file or directory" in line


def test_a_fifo_swapped_in_after_the_scan_is_refused(tmp_path: Path, write) -> None:
    """The file is checked on the open file: a FIFO put in place of a listed
    file is refused without blocking."""
    from graphprum.errors import InputError
    from graphprum.loaders.xml_batches import iter_xml_batches
    from graphprum.loaders.xml_files import find_xml_files

    write("d/a.xml", "<a>x</a>")
    files = find_xml_files([tmp_path / "d"])
    (tmp_path / "d" / "a.xml").unlink()
    os.mkfifo(tmp_path / "d" / "a.xml")
    with pytest.raises(InputError, match="not a regular file"):
        list(iter_xml_batches(files))


# ---------------------------------------------------------------- deep trees
def test_a_tree_1100_levels_deep_loads(tmp_path: Path) -> None:
    """``os.walk`` and ``Path.rglob`` raised RecursionError (both loaders)."""
    deep = tmp_path / "col"
    levels = ["d"] * 1100
    bottom = str(deep)
    os.mkdir(bottom)
    for name in levels:  # one level at a time: os.makedirs recurses too
        bottom = os.path.join(bottom, name)
        os.mkdir(bottom)
    bottom = Path(bottom)
    (bottom / "a.xml").write_text("<a>deep</a>")
    (bottom / "a.html").write_text("<p>deep")
    store = tmp_path / "s"
    proc = graphprum(store, "load", "xml", str(deep), "--no-graph")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert stored(store) == ["/".join([*levels, "a"])]
    proc = graphprum(tmp_path / "s2", "load", "web", str(deep), "--no-graph")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert stored(tmp_path / "s2") == ["/".join([*levels, "a.html"])]
    for name in ("a.xml", "a.html"):  # shutil.rmtree recurses: pytest could not clean up
        (bottom / name).unlink()
    for _ in levels:
        bottom.rmdir()
        bottom = bottom.parent


# ---------------------------------------------------------------- memory
def test_a_file_larger_than_memory_is_one_line(tmp_path: Path, write) -> None:
    """A file that does not fit in memory (here: under a limit on the
    process's address space) was a MemoryError traceback; now one line
    naming the file, exit status 2, the store as it was."""
    store = tmp_path / "s"
    r = runner.invoke(app, ["--store", str(store), "load", "xml", "--no-graph",
                            str(write("first.xml", "<a>x</a>"))])
    assert r.exit_code == 0, r.output
    before = files_of(store)
    big = tmp_path / "big" / "huge.xml"
    big.parent.mkdir()
    with open(big, "w") as f:
        f.write("<article>")
        paragraph = "<p>" + "some words of a paragraph " * 4 + "</p>\n"
        for _ in range(400_000):  # 45 MB, ~10x that parsed
            f.write(paragraph)
        f.write("</article>")
    # what the command needs before it parses anything, and some room
    probe = graphprum(store, "info", timeout=120)
    assert probe.returncode == 0, probe.stderr
    proc = graphprum(store, "load", "xml", "--no-graph", str(big.parent),
                     limit_memory=_address_space_of_a_command() + (160 << 20), timeout=300)
    line = one_line_error(proc)
    assert str(big) in line and "too large to load" in line, line
    assert files_of(store) == before


def _address_space_of_a_command() -> int:
    """The virtual memory a ``graphprum`` process has mapped once it has
    imported what a load imports (numpy, lxml, LadybugDB, pyarrow)."""
    code = ("import graphprum.cli, graphprum.loading, graphprum.loaders.xml, "
            "graphprum.store.local, ladybug, numpy, lxml.etree, pyarrow;"
            "print(open('/proc/self/statm').read().split()[0])")
    pages = int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               check=True, timeout=120).stdout)
    return pages * os.sysconf("SC_PAGE_SIZE")


# ---------------------------------------------------------------- file names
def test_glob_takes_other_documents_and_nothing_matched_says_what_is_there(
        tmp_path: Path, write) -> None:
    """Mallard help pages are ``*.page``: a directory of them gave no word
    (only ``*.xml`` was taken); now the error says what the directory holds
    and how to take it, and ``--glob '*.page'`` loads them (ids without the
    extension)."""
    write("help/net.page", "<page id='net'><title>Networking</title></page>")
    write("help/sub/wifi.page", "<page id='wifi'><title>Wi-Fi</title></page>")
    write("help/figures/a.png", "not xml")
    store = tmp_path / "s"
    r = runner.invoke(app, ["--store", str(store), "load", "xml", str(tmp_path / "help")])
    assert r.exit_code == 2
    assert r.output.strip() == (
        f"graphprum: error: {tmp_path / 'help'}: directory holds no *.xml file; it holds "
        f"2 *.page, 1 *.png: give --glob '*.page' to load those")
    r = runner.invoke(app, ["--store", str(store), "load", "xml", str(tmp_path / "help"),
                            "--glob", "*.page", "--no-graph"])
    assert r.exit_code == 0, r.output
    assert stored(store) == ["net", "sub/wifi"]
    write("more/a.xml", "<a/>")
    write("more/b.page", "<page/>")
    r = runner.invoke(app, ["--store", str(tmp_path / "s2"), "load", "xml", "--no-graph",
                            str(tmp_path / "more"), "--glob", "*.xml", "--glob", "*.page"])
    assert r.exit_code == 0, r.output
    assert stored(tmp_path / "s2") == ["a", "b"]



def test_the_default_glob_says_which_documents_of_the_directory_it_left(
        tmp_path: Path, write) -> None:
    """A GNOME help directory holds ``legal.xml`` beside its ``*.page``
    files: the default ``*.xml`` loaded the one file and said nothing of the
    others.  Now a note names them and the option that loads them; with
    ``--glob`` given, the user chose and no note is printed."""
    write("help/legal.xml", "<legal><p>CC-BY-SA</p></legal>")
    write("help/net.page", "<page id='net'><title>Networking</title></page>")
    write("help/sub/wifi.page", "<page id='wifi'><title>Wi-Fi</title></page>")
    write("help/figures/a.png", "not xml")
    r = runner.invoke(app, ["--store", str(tmp_path / "s"), "load", "xml", "--no-graph",
                            str(tmp_path / "help")])
    assert r.exit_code == 0, r.output
    assert stored(tmp_path / "s") == ["legal"]
    notes = [line for line in r.output.splitlines() if line.startswith(("graphprum: ", "note: "))]
    assert notes == [f"note: {tmp_path / 'help'}: 2 *.page files not loaded "
                     f"(not *.xml): give --glob '*.page' to load them"], r.output
    r = runner.invoke(app, ["--store", str(tmp_path / "s2"), "load", "xml", "--no-graph",
                            str(tmp_path / "help"), "--glob", "*.xml"])
    assert r.exit_code == 0 and "note: " not in r.output and "graphprum: " not in r.output, \
        r.output


# ---------------------------------------------------------------- Ctrl-C
_INTERRUPTED = """
import sys
from graphprum.cli import main
from graphprum.store.local import LocalStore

def interrupted(self):
    raise KeyboardInterrupt  # Ctrl-C while the graph is built, after the load committed

LocalStore.build_graph = interrupted
sys.argv = ["graphprum", "--store", sys.argv[1], "load", "xml", sys.argv[2]]
main()
"""


def test_ctrl_c_after_the_load_committed_says_what_was_kept(tmp_path: Path, write) -> None:
    write("col/a.xml", "<a><b>x</b></a>")
    store = tmp_path / "s"
    proc = subprocess.run([sys.executable, "-c", _INTERRUPTED, str(store), str(tmp_path / "col")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 130, proc.stderr
    assert proc.stdout.startswith("loaded 1 documents, 2 elements"), proc.stdout
    assert "interrupted while building the graph" in proc.stderr
    assert "the load above is kept" in proc.stderr and "Traceback" not in proc.stderr
    assert stored(store) == ["a"]
    assert LocalStore(store).query("MATCH (u:Unit) RETURN count(u) AS n") == [{"n": 2}]


_INTERRUPTED_LOADING = """
import sys
from graphprum.cli import main
from graphprum.store.local import LocalStore

def interrupted(self, *args, **kwargs):
    raise KeyboardInterrupt  # Ctrl-C while the documents are read, before anything committed

LocalStore.load_documents = interrupted
sys.argv = ["graphprum", "--store", sys.argv[1], "load", "xml", sys.argv[2]]
main()
"""


def test_ctrl_c_before_the_load_committed_says_it_was_interrupted(tmp_path: Path,
                                                                   write) -> None:
    """typer turns Ctrl-C into exit status 130 without a word; the command
    line says it was interrupted (and stores nothing)."""
    write("col/a.xml", "<a><b>x</b></a>")
    store = tmp_path / "s"
    proc = subprocess.run([sys.executable, "-c", _INTERRUPTED_LOADING, str(store),
                           str(tmp_path / "col")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "graphprum: interrupted", proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    assert not (store / "manifest.json").exists()
