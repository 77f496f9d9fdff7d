"""The installed version of graphprum (below every layer, so any module may
name it without importing the package's public API).

>>> isinstance(__version__, str)
True
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("graphprum")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.1.0"
