"""Evaluation: runs and qrels in, one tidy table of values out.

- :mod:`~graphprum.evaluation.options`: :class:`EvalOptions`, how to
  evaluate, every option declared once (API and command line);
- :mod:`~graphprum.evaluation.inputs`: what the API accepts (paths,
  DataFrames, dicts, ir_measures tuples and measures) turned into typed
  :class:`~graphprum.io.runs.Run` and :class:`~graphprum.io.qrels.Qrels`;
- :mod:`~graphprum.evaluation.job`: preparing an evaluation, every input
  read and checked (:func:`prepare_job`, the
  :class:`~graphprum.evaluation.job.Job`);
- :mod:`~graphprum.evaluation.core`: running it, chunks of topics in one
  process or several (:func:`run_evaluation`);
- :mod:`~graphprum.evaluation.topics`: a chunk of topics, every run, with the
  :class:`~graphprum.context.TopicContext` measures read;
- :mod:`~graphprum.evaluation.unknown`: the runs' result ids the store
  does not hold, refused or noted, once the topics are evaluated;
- :mod:`~graphprum.evaluation.rows`: the result as rows
  (:func:`~graphprum.evaluation.rows.result_rows`, :class:`ResultRows`), a
  DataFrame on request.

:func:`graphprum.evaluate` is the front door.
"""

from graphprum.evaluation.core import run_evaluation
from graphprum.evaluation.job import collection_size, expand_measures, needs_store, prepare_job
from graphprum.evaluation.options import EvalOptions
from graphprum.evaluation.rows import COLUMNS, ResultRows, stderr_name
from graphprum.evaluation.topics import UNKNOWN_PREFIX, prepare_ranking

__all__ = ["COLUMNS", "UNKNOWN_PREFIX", "EvalOptions", "ResultRows", "collection_size",
           "expand_measures", "needs_store", "prepare_job", "prepare_ranking", "run_evaluation",
           "stderr_name"]
