"""The few Arrow compute functions that reading a run needs, called by name.

``import pyarrow.compute`` builds a Python wrapper, with its signature and
docstring, for each of Arrow's ~300 compute functions: about 50 ms, a
tenth of a classical ``graphprum eval`` as a whole process
(``python -c 'import numpy, pyarrow.csv, pyarrow.compute'`` 0.19 s against
0.14 s without ``pyarrow.compute``, medians of 15 alternated runs).  The
functions here call the same kernels by name through ``call_function``
(the object ``pyarrow.compute`` re-exports), with the names of
``pyarrow.compute`` and the arguments the run reader and the rankings
pass (not its keyword options), so that those modules import this one as
``pc`` and read as they would with ``pyarrow.compute``; never import it
with ``*`` (``all``, ``any`` and ``filter`` are its names too).  Modules off
the evaluation path (the query graph's frames, link lists) import
``pyarrow.compute`` itself where they use it.

>>> import pyarrow as pa
>>> from graphprum import arrow_compute as pc
>>> ids = pa.array(["b", "a", "c"])
>>> pc.take(ids, pc.sort_indices(pa.table({"id": ids}), [("id", "ascending")])).to_pylist()
['a', 'b', 'c']
>>> pc.all(pc.ascii_is_decimal(pa.array(["12", "3"]))).as_py()
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa
from pyarrow._compute import (  # what pyarrow.compute re-exports, without its wrappers
    CastOptions,
    MatchSubstringOptions,
    ReplaceSubstringOptions,
    ScalarAggregateOptions,
    SortOptions,
    call_function,
)

__all__ = ["all", "any", "ascii_is_decimal", "cast", "equal", "filter",
           "match_substring_regex", "replace_substring", "sort_indices", "take"]


def take(values: Any, indices: Any) -> Any:
    """The values at ``indices``, as ``pyarrow.compute.take``."""
    return call_function("take", [values, indices])


def filter(values: Any, mask: Any) -> Any:
    """The values where ``mask`` holds, as ``pyarrow.compute.filter``."""
    return call_function("filter", [values, mask])


def cast(values: Any, target: pa.DataType) -> Any:
    """``values`` as ``target``, refusing a lossy cast, as ``pyarrow.compute.cast``."""
    return call_function("cast", [values], CastOptions.safe(target))


def sort_indices(table: pa.Table, sort_keys: Sequence[tuple[str, str]]) -> Any:
    """The rows of ``table`` in the order of ``sort_keys`` ((column,
    ``"ascending"``/``"descending"``) pairs), stable, as ``pyarrow.compute.sort_indices``."""
    return call_function("sort_indices", [table], SortOptions(sort_keys=list(sort_keys)))


def equal(left: Any, right: Any) -> Any:
    """Element-wise ``left == right``, as ``pyarrow.compute.equal``."""
    return call_function("equal", [left, right])


def all(flags: Any) -> Any:
    """Whether every flag holds (nulls skipped; null for no flag at all), as
    ``pyarrow.compute.all``."""
    return call_function("all", [flags], ScalarAggregateOptions())


def any(flags: Any) -> Any:
    """Whether some flag holds (nulls skipped; null for no flag at all), as
    ``pyarrow.compute.any``."""
    return call_function("any", [flags], ScalarAggregateOptions())


def ascii_is_decimal(texts: Any) -> Any:
    """Whether each text is not empty and all ASCII digits, as
    ``pyarrow.compute.ascii_is_decimal``."""
    return call_function("ascii_is_decimal", [texts])


def match_substring_regex(texts: Any, pattern: str) -> Any:
    """Whether each text holds a match of ``pattern`` (RE2), as
    ``pyarrow.compute.match_substring_regex``."""
    return call_function("match_substring_regex", [texts], MatchSubstringOptions(pattern))


def replace_substring(texts: Any, pattern: str, replacement: str,
                      max_replacements: int | None = None) -> Any:
    """Each text with ``pattern`` replaced (at most ``max_replacements``
    times), as ``pyarrow.compute.replace_substring``."""
    return call_function("replace_substring", [texts],
                         ReplaceSubstringOptions(pattern, replacement,
                                                 max_replacements=max_replacements))
