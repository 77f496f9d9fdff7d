"""The layer order of the package (pyproject.toml's import-linter contracts):
a module imports only its own layer or lower ones; io and loaders know no
store; loaders feed stores only through graphprum.loading."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import REPO


def test_import_contracts_are_kept() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    if not lint.exists():
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    proc = subprocess.run([str(lint), "--no-cache"], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "BROKEN" not in proc.stdout and proc.stdout.count("KEPT") >= 3


def test_every_package_is_installed() -> None:
    """A non-editable install (the README's first command) ships only the
    packages pyproject.toml lists: a new subpackage left out of the list
    works in every editable checkout and breaks every real install."""
    import tomllib

    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    found = {".".join(p.parent.relative_to(REPO).parts)
             for p in (REPO / "graphprum").rglob("__init__.py")}
    assert found - listed == set()
