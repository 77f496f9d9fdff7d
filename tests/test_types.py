"""The type checker: mypy, strict over the whole package (``[tool.mypy]`` in
pyproject.toml, no module exempted), finds nothing.  CI runs only the test
suite, so the check lives here."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tests.support import REPO


def test_mypy_strict_on_the_whole_package() -> None:
    mypy = Path(sys.executable).parent / "mypy"
    assert mypy.exists(), "mypy is not installed next to python: pip install -e '.[test]'"
    start = time.monotonic()
    res = subprocess.run([str(mypy), "--no-error-summary"], cwd=REPO, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    assert res.returncode == 0 and not res.stdout.strip(), res.stdout
    assert time.monotonic() - start < 120  # a slow checker would be dropped from the suite


def test_mypy_sees_a_wrong_type(tmp_path: Path) -> None:
    """The check can fail: a caller that takes evaluate's result for a string is refused."""
    mypy = Path(sys.executable).parent / "mypy"
    probe = tmp_path / "probe.py"
    probe.write_text("import graphprum\n"
                     "text: str = graphprum.evaluate('run.txt', 'qrels.txt', 'AP')\n")
    res = subprocess.run([str(mypy), "--strict", "--no-error-summary",
                          "--config-file", str(REPO / "pyproject.toml"), str(probe)],
                         cwd=REPO, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         timeout=300)
    assert res.returncode == 1 and 'has type "DataFrame"' in res.stdout, res.stdout
