"""The version of graphprum (below every layer, so any module may name it
without importing the package's public API).

The number is written here once; ``pyproject.toml`` reads it from this file
(``[tool.setuptools.dynamic]``), so asking for it costs no package metadata
look-up (``importlib.metadata`` costs ~15 ms of every command's start).

>>> isinstance(__version__, str)
True
"""

__version__ = "0.1.0"
