"""Evaluation: runs and qrels in, one tidy table of values out.

- :mod:`~graphprum.evaluation.options`: :class:`EvalOptions`, how to
  evaluate, every option declared once (API and command line);
- :mod:`~graphprum.evaluation.inputs`: what the API accepts (paths,
  DataFrames, dicts, ir_measures tuples and measures) turned into typed
  :class:`~graphprum.io.runs.Run` and :class:`~graphprum.io.qrels.Qrels`;
- :mod:`~graphprum.evaluation.core`: the loop over runs, topics and
  measures (:func:`run_evaluation`);
- :mod:`~graphprum.evaluation.topics`: one topic, every run, with the
  :class:`~graphprum.context.TopicContext` measures read;
- :mod:`~graphprum.evaluation.rows`: the result as rows
  (:class:`ResultRows`), a DataFrame on request;
- :mod:`~graphprum.pool`: the worker pool of ``--jobs``.

:func:`graphprum.evaluate` is the front door.  The names below are imported
on first use, so that ``graphprum.evaluation.options`` (which the command
line reads to declare its options) costs no numeric library.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphprum.evaluation.core import (
        collection_size,
        expand_measures,
        needs_store,
        run_evaluation,
        stderr_rows,
    )
    from graphprum.evaluation.options import EvalOptions
    from graphprum.evaluation.rows import COLUMNS, ResultRows, stderr_name
    from graphprum.evaluation.topics import UNKNOWN_PREFIX, prepare_ranking

__all__ = ["COLUMNS", "UNKNOWN_PREFIX", "EvalOptions", "ResultRows", "collection_size",
           "expand_measures", "needs_store", "prepare_ranking", "run_evaluation", "stderr_name",
           "stderr_rows"]

_WHERE = {"COLUMNS": "rows", "collection_size": "core", "expand_measures": "core",
          "needs_store": "core", "run_evaluation": "core", "stderr_rows": "core",
          "EvalOptions": "options", "ResultRows": "rows", "UNKNOWN_PREFIX": "topics",
          "prepare_ranking": "topics", "stderr_name": "rows"}


def __getattr__(name: str) -> object:
    if name not in _WHERE:
        raise AttributeError(f"module 'graphprum.evaluation' has no attribute {name!r}")
    return getattr(importlib.import_module(f"graphprum.evaluation.{_WHERE[name]}"), name)
