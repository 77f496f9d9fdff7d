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

from graphprum.api import compare, evaluate, intervals, plot, report
from graphprum.collection import Collection
from graphprum.evaluation.options import EvalOptions
from graphprum.focus import check_run, focus_run
from graphprum.version import __version__

__all__ = ["Collection", "EvalOptions", "__version__", "check_run", "compare", "evaluate",
           "focus_run", "intervals", "open_store", "plot", "report"]


def open_store(location: str | os.PathLike[str] | None = None, *,
               create: bool = True) -> Collection:
    """Open the store at ``location``: a directory (embedded) or a ``bolt://``
    URI, as a :class:`~graphprum.collection.Collection` (load, show, query,
    summarise, evaluate).

    ``None`` uses ``$GRAPHPRUM_STORE`` or ``./graphprum-store``.
    """
    return Collection.open(location, create=create)
