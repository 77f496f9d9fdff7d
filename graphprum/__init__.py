"""graphprum: user-model evaluation of retrieval over connected collections.

The collection is loaded as a property graph (an embedded directory store by
default, or Neo4j/FalkorDB over Bolt); navigation probabilities and AxPRE
summaries are derived from it; PRUM, EPRUM, SR/SRP, the INEX 2006 measures
and the T2I measures are computed over submitted runs.

The Python API (docs/python.md): :func:`open_store` returns a
:class:`~graphprum.collection.Collection` (load, look, query, summarise);
:func:`evaluate` returns a tidy DataFrame ``run, measure, topic, value``;
:func:`compare` tests differences between runs; :func:`intervals` gives each
run's mean with a bootstrap confidence interval; :func:`plot` draws curves
(a matplotlib Figure); :func:`report` writes one HTML page; :func:`focus_run`
removes overlapping results from a run and :func:`check_run` lists what
breaks an INEX task's rules.  Options of an
evaluation are :class:`EvalOptions` fields, given as keywords.

>>> import graphprum
>>> graphprum.__version__
'0.1.0'
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from graphprum.api import compare, evaluate, intervals, plot, report
from graphprum.version import __version__

if TYPE_CHECKING:
    from graphprum.collection import Collection
    from graphprum.evaluation.inputs import StoreLike
    from graphprum.evaluation.options import EvalOptions
    from graphprum.focus import Focused, RunArg, Violation

__all__ = ["EvalOptions", "__version__", "check_run", "compare", "evaluate", "focus_run",
           "intervals", "open_store", "plot", "report"]


def open_store(location: str | os.PathLike[str] | None = None, *,
               create: bool = True) -> Collection:
    """Open the store at ``location``: a directory (embedded) or a ``bolt://``
    URI, as a :class:`~graphprum.collection.Collection` (load, show, query,
    summarise, evaluate).

    ``None`` uses ``$GRAPHPRUM_STORE`` or ``./graphprum-store``.
    """
    from graphprum.collection import Collection

    return Collection.open(location, create=create)


def focus_run(run: RunArg, store: StoreLike, *, tag: str | None = None, order: str = "score",
              dedup: bool = False) -> Focused:
    """``run`` (a Run or its file) without overlapping results, the
    higher-ranked kept: :func:`graphprum.focus.focus_run`."""
    from graphprum import focus

    return focus.focus_run(run, store, tag=tag, order=order, dedup=dedup)


def check_run(run: RunArg, task: str, *, order: str = "score",
              dedup: bool = False) -> list[Violation]:
    """What in ``run`` breaks INEX ``task``'s rules: :func:`graphprum.focus.check_run`."""
    from graphprum import focus

    return focus.check_run(run, task, order=order, dedup=dedup)


def __getattr__(name: str) -> object:
    """``graphprum.EvalOptions``, imported on first use (``import graphprum`` stays light)."""
    if name == "EvalOptions":
        from graphprum.evaluation.options import EvalOptions

        return EvalOptions
    raise AttributeError(f"module 'graphprum' has no attribute {name!r}")
