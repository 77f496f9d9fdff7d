"""What the tests share: paths, and helpers imported as ``tests.support.*``."""

from __future__ import annotations

from pathlib import Path

#: The repository, the tests, and what they read.
REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
EXAMPLES = REPO / "examples"
PLOS = EXAMPLES / "plos"
BENCH = REPO / "bench"
DATA = TESTS / "data"
GOLDEN = TESTS / "golden"
