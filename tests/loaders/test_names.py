"""Document ids from file names: a ``#`` in one is refused (a run naming the
document's units would be split at it and silently miss them), and a
directory that cannot be listed is an error, not a silent gap; in both cases
one line naming the file, exit status 2, and no store written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphprum.cli import app
from graphprum.errors import InputError
from graphprum.loaders.xml_files import find_xml_files

runner = CliRunner()

ARTICLE = "<article><sec><p>one</p></sec></article>"
PAGE = "<html><head><title>t</title></head><body><p>x</p></body></html>"


def _refused(store: Path, *args: str) -> str:
    r = runner.invoke(app, ["--store", str(store), *args])
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.output, r.output
    assert not (store / "manifest.json").exists()
    return lines[0]


@pytest.mark.parametrize("kind", ["xml", "web"])
def test_a_hash_in_a_file_name_is_refused(tmp_path: Path, write, kind: str) -> None:
    name, text = ("C#/notes.xml", ARTICLE) if kind == "xml" else ("sub/F#.html", PAGE)
    write(f"c/{name}", text)
    write(f"c/ok.{'xml' if kind == 'xml' else 'html'}", text if kind == "xml" else PAGE)
    line = _refused(tmp_path / "s", "load", kind, str(tmp_path / "c"))
    assert str(tmp_path / "c" / name) in line and "holds '#'" in line


def test_a_hash_in_a_link_list_is_refused_with_its_line(tmp_path: Path, write) -> None:
    links = write("links.tsv", "a.html\tb.html\n# a comment\nb.html\tc.html#top\n")
    line = _refused(tmp_path / "s", "load", "links", str(links))
    assert line.startswith(f"graphprum: error: {links}:3: page id 'c.html#top' holds '#'")


def test_names_without_a_hash_load(tmp_path: Path, write) -> None:
    write("c/C-sharp/notes.xml", ARTICLE)
    files = find_xml_files([tmp_path / "c"])
    assert [f.name for f in files] == ["C-sharp/notes"]


def test_an_unreadable_directory_is_an_error(tmp_path: Path, write, monkeypatch) -> None:
    """Simulated (a test run as root reads every directory): listing ``c/sub``
    fails as it does without the permission."""
    write("c/a.xml", ARTICLE)
    write("c/sub/b.xml", ARTICLE)
    sub = str(tmp_path / "c" / "sub")
    scandir = os.scandir

    def refusing(path: str | os.PathLike[str] = ".") -> object:
        if os.fspath(path) == sub:
            raise PermissionError(13, "Permission denied", sub)
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refusing)
    with pytest.raises(InputError, match="cannot read the directory: Permission denied") as err:
        find_xml_files([tmp_path / "c"])
    assert err.value.path == sub
    write("w/index.html", PAGE)
    write("w/sub/p.html", PAGE)
    sub = str(tmp_path / "w" / "sub")
    line = _refused(tmp_path / "s", "load", "web", str(tmp_path / "w"))
    assert line == f"graphprum: error: {sub}: cannot read the directory: Permission denied"
