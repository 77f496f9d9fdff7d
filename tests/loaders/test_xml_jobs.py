"""``load xml --jobs``: files parsed in worker processes give the store the
same bytes, the same errors and the same progress as parsing them here."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from graphprum.errors import InputError, StoreError
from graphprum.loaders import xml_batches as xml_loader
from graphprum.loaders.xml_batches import file_pieces
from graphprum.loaders.xml_files import find_xml_files
from graphprum.loading import load_xml
from graphprum.store.local import LocalStore
from graphprum.workers import can_fork
from tests.support import PLOS

pytestmark = pytest.mark.skipif(not can_fork(), reason="no fork start method here")

GRAPHPRUM = str(Path(sys.executable).with_name("graphprum"))


@pytest.fixture
def in_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers for any amount of XML, with pieces of one or two files."""
    monkeypatch.setattr(xml_loader, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(xml_loader, "PIECE_BYTES", 40_000)


@pytest.fixture
def articles(tmp_path: Path) -> Path:
    """The PLOS articles, each twice (under two directories): 18 files."""
    root = tmp_path / "articles"
    for sub in ("a", "b"):
        shutil.copytree(PLOS / "articles", root / sub)
    return root


def _children() -> list[int]:
    """Live child processes of this one (Linux /proc), zombies aside."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z":
            out.append(int(stat.parent.name))
    return out


def _store_files(path: Path) -> dict[str, bytes]:
    """Every file of a store but the two that hold the time of writing."""
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*"))
            if p.is_file() and p.name not in ("manifest.json", ".graphprum-store", "lock")}


def test_pieces_are_consecutive_runs_of_files(articles: Path, in_workers: None) -> None:
    files = find_xml_files([articles])
    pieces = file_pieces(files, jobs=2)
    assert pieces is not None and len(pieces) > 2
    assert [f for piece in pieces for f in piece] == files
    assert file_pieces(files, jobs=1) is None


def test_small_collections_are_parsed_here(articles: Path) -> None:
    """1.2 MB of PLOS XML is under the 8 MB that pays for workers."""
    assert file_pieces(find_xml_files([articles]), jobs=4) is None


def test_workers_write_the_same_store(articles: Path, tmp_path: Path, in_workers: None,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    forked: list[tuple[int, int]] = []
    real = xml_loader.ordered_map

    def spy(func, shared, items, jobs, ahead=None):  # type: ignore[no-untyped-def]
        forked.append((len(items), jobs))
        return real(func, shared, items, jobs, ahead)

    monkeypatch.setattr(xml_loader, "ordered_map", spy)
    seen: dict[int, list[tuple[str, int]]] = {}
    for jobs in (1, 3):
        seen[jobs] = []
        report = load_xml(LocalStore(tmp_path / f"s{jobs}"), [articles], jobs=jobs,
                          on_file=lambda f, n, got=seen[jobs]: got.append((f.name, n)))
        assert report.documents == 18
    assert len(forked) == 1 and forked[0][0] > 3 and forked[0][1] == 3  # jobs=3 forked
    assert seen[3] == seen[1]  # every file once, in order, with its element count
    assert sum(n for _, n in seen[1]) == LocalStore(tmp_path / "s1").table().__len__()
    one, three = _store_files(tmp_path / "s1"), _store_files(tmp_path / "s3")
    assert sorted(one) == sorted(three) and len(one) > 10
    assert [k for k in one if one[k] != three[k]] == []


def test_the_first_bad_file_is_the_error(articles: Path, tmp_path: Path,
                                         in_workers: None) -> None:
    """Two bad files: the error names the first in file order, with its line,
    whichever worker finished first, and nothing is stored."""
    (articles / "b" / "zz-bad.xml").write_text("<a>\n<b>\n</a>")
    (articles / "a" / "zz-bad.xml").write_text("<a>\n</b>")
    errors = []
    for jobs in (1, 2):
        store = LocalStore(tmp_path / f"s{jobs}")
        with pytest.raises(InputError) as err:
            load_xml(store, [articles], jobs=jobs)
        errors.append((err.value.path, err.value.line, err.value.message))
        assert store.generation is None
    assert errors[0] == errors[1]
    assert errors[0][0] == str(articles / "a" / "zz-bad.xml") and errors[0][1] == 2


def test_skip_bad_skips_the_same_files(articles: Path, tmp_path: Path,
                                       in_workers: None) -> None:
    (articles / "a" / "m-bad.xml").write_text("<a>\n<b></a>")
    (articles / "b" / "m-bad.xml").write_text("<a><b>")
    reports = [load_xml(LocalStore(tmp_path / f"s{jobs}"), [articles], jobs=jobs,
                        skip_bad=True) for jobs in (1, 2)]
    assert [str(s) for s in reports[0].skipped] == [str(s) for s in reports[1].skipped]
    assert len(reports[1].skipped) == 2 and reports[1].documents == 18
    assert _store_files(tmp_path / "s1") == _store_files(tmp_path / "s2")


def test_tags_are_numbered_as_they_first_appear_in_the_units_kept(
        tmp_path: Path, in_workers: None) -> None:
    """A skipped file's tags are not in the store, and do not decide the
    order of the others: the bytes are the same whatever the workers."""
    d = tmp_path / "col"
    d.mkdir()
    (d / "a.xml").write_text("<r/>")
    (d / "b.xml").write_text("<r><z/><y/>")  # not well-formed: skipped
    (d / "c.xml").write_text("<r><y/><z/></r>")
    assert file_pieces(find_xml_files([d]), jobs=2) == [[f] for f in find_xml_files([d])]
    for jobs in (1, 2):
        store = LocalStore(tmp_path / f"s{jobs}")
        report = load_xml(store, [d], jobs=jobs, skip_bad=True)
        assert [s.path for s in report.skipped] == [str(d / "b.xml")]
        assert store.table().tags == ["r", "y", "z"]
    assert _store_files(tmp_path / "s1") == _store_files(tmp_path / "s2")


def test_a_file_bigger_than_a_piece_is_parsed_here(articles: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker sends a piece's batches back at once: a big file (here: any
    PLOS article over 100 kB) is parsed by the loading process, a batch at
    a time, between the pieces of the workers, in file order."""
    monkeypatch.setattr(xml_loader, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(xml_loader, "PIECE_BYTES", 100_000)
    files = find_xml_files([articles])
    big = [f.name for f in files if f.path.stat().st_size > 100_000]
    assert 0 < len(big) < len(files)
    here: list[str] = []
    real = xml_loader._parse_files

    def spy(files, *args, **kwargs):  # type: ignore[no-untyped-def]
        here.extend(f.name for f in files)  # the workers' calls land in their own copies
        return real(files, *args, **kwargs)

    monkeypatch.setattr(xml_loader, "_parse_files", spy)
    load_xml(LocalStore(tmp_path / "s2"), [articles], jobs=2)
    assert here == big
    monkeypatch.setattr(xml_loader, "_parse_files", real)
    load_xml(LocalStore(tmp_path / "s1"), [articles], jobs=1)
    assert _store_files(tmp_path / "s1") == _store_files(tmp_path / "s2")


def test_an_error_in_the_store_ends_the_workers(articles: Path, tmp_path: Path,
                                               in_workers: None,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The store fails after the first batch (a full disk, say) while
    workers still parse: the API's error leaves no worker behind, even
    while the caller holds the exception (and so the loader's frames)."""
    store = LocalStore(tmp_path / "s")

    def load_documents(docs, **kwargs):  # type: ignore[no-untyped-def]
        next(iter(docs))
        raise StoreError("no space left on device")

    monkeypatch.setattr(store, "load_documents", load_documents)
    before = _children()
    with pytest.raises(StoreError, match="no space") as held:
        load_xml(store, [articles], jobs=2)
    assert held.value is not None and _children() == before


def test_jobs_on_the_command_line(tmp_path: Path) -> None:
    """--jobs takes a number or auto; anything else is a usage error (exit 2)."""
    bad = subprocess.run([GRAPHPRUM, "load", "xml", "--jobs", "0", str(PLOS / "articles")],
                         cwd=tmp_path, capture_output=True, text=True)
    assert bad.returncode == 2 and "--jobs must be a positive integer or auto" in bad.stderr
    assert "Traceback" not in bad.stderr and not (tmp_path / "graphprum-store").exists()
    good = subprocess.run([GRAPHPRUM, "load", "xml", "--jobs", "2", "--no-graph", "-q",
                           str(PLOS / "articles")], cwd=tmp_path, capture_output=True,
                          text=True)
    assert good.returncode == 0, good.stderr
    assert "loaded 9 documents" in good.stdout
