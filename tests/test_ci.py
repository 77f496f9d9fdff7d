"""CI runs what a user runs: ``.ci/run`` holds the README's test command
exactly, after a setup that may fail; tests/fetch_testdata.py (exercised
here offline, on a package unpacked by hand) caches what is missing and
nothing twice."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests import fetch_testdata
from tests.support import REPO


def readme_test_command() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = readme.split("run the whole test suite", 1)[1].split("```sh\n", 1)[1]
    return block.split("\n```", 1)[0].strip()


def test_ci_runs_the_readme_test_command_last() -> None:
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    command = readme_test_command()
    assert command.endswith(".venv/bin/python -m pytest")
    lines = [ln.strip() for ln in script.splitlines()]
    assert command in lines
    after = lines[lines.index(command) + 1:]
    assert all(not re.search(r"-m pytest|pip install", ln) for ln in after)
    before = lines[:lines.index(command)]
    # the setup tolerates failure: every fetch or install is followed by ||
    for ln in before:
        if ("apt-get install" in ln or "fetch_testdata" in ln) and not ln.startswith("#"):
            assert "||" in ln or ln.endswith("\\"), ln
    assert subprocess.run(["bash", "-n", str(REPO / ".ci" / "run")]).returncode == 0


def test_fetch_caches_what_is_missing_once(tmp_path: Path, monkeypatch) -> None:
    calls: list[str] = []

    def unpack(source: fetch_testdata.Source, into: Path) -> Path:
        calls.append(source.package)
        root = into / "unpacked"
        (root / "pkg" / "pages").mkdir(parents=True)
        (root / "pkg" / "a.srt").write_text("1\n00:00:01,000 --> 00:00:02,000\nhi\n")
        (root / "pkg" / "pages" / "x.page").write_text("<page/>")
        return root

    monkeypatch.setattr(fetch_testdata, "CACHE", tmp_path / "cache")
    monkeypatch.setattr(fetch_testdata, "unpack", unpack)
    monkeypatch.setattr(fetch_testdata, "SOURCES", [
        fetch_testdata.Source("pip", "one==1", {"a.srt": "pkg/a.srt"}),
        fetch_testdata.Source("apt", "two", {"pages": "pkg/pages", "gone": "pkg/none"})])
    assert fetch_testdata.main() == 1  # "gone" is not in the package
    assert (tmp_path / "cache" / "a.srt").read_text().endswith("hi\n")
    assert (tmp_path / "cache" / "pages" / "x.page").read_text() == "<page/>"
    assert calls == ["one==1", "two"]
    calls.clear()
    assert fetch_testdata.main() == 1 and calls == ["two"]  # only what is still missing


def test_every_source_is_of_a_known_kind() -> None:
    assert fetch_testdata.SOURCES
    for source in fetch_testdata.SOURCES:
        assert source.kind in ("pip", "apt") and source.files
    with pytest.raises(ValueError, match="unknown kind"):
        fetch_testdata.unpack(fetch_testdata.Source("npm", "x", {"a": "b"}), Path("."))
