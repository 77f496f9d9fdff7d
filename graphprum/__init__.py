"""graphprum: user-model evaluation of retrieval over connected collections.

The collection is loaded as a property graph (an embedded directory store by
default, or Neo4j/FalkorDB over Bolt); navigation probabilities and AxPRE
summaries are derived from it; PRUM, EPRUM, SR/SRP, the INEX 2006 measures
and the T2I measures are computed over submitted runs.

>>> import graphprum
>>> graphprum.__version__
'0.1.0'
"""

from __future__ import annotations

from typing import Any

from graphprum.version import __version__

__all__ = ["__version__", "evaluate", "open_store"]


def open_store(location: str | None = None, *, create: bool = True) -> Any:
    """Open the store at ``location``: a directory (embedded) or a ``bolt://``
    URI, as a :class:`~graphprum.collection.Collection` (load, show, query,
    summarise, evaluate).

    ``None`` uses ``$GRAPHPRUM_STORE`` or ``./graphprum-store``.
    """
    from graphprum.collection import Collection

    return Collection.open(location, create=create)


def evaluate(runs: Any, qrels: Any, measures: Any, **options: Any) -> Any:
    r"""Evaluate ``runs`` against ``qrels``: a DataFrame ``run, measure, topic, value``.

    Parameters
    ----------
    runs : sequence of path or Run
        TREC or INEX XML run files (or runs already read with
        :func:`graphprum.io.runs.read_run`).
    qrels : path or mapping
        Relevance judgements ``TOPIC ITER ID REL`` (DESIGN §1.3), or None
        with ``passages=``.
    measures : sequence of str
        Measure names (DESIGN §1.6), e.g. ``["PRUM", "PRUM@0.5", "AP"]``.
    **options
        ``nav`` (navigation models, default ``["classical"]``), ``store``
        (a store or its location; needed by structural models and measures),
        ``collection_size``, ``ideal_min``, ``order`` (``"score"`` or
        ``"rank"``), ``dedup``, ``trees``, ``passages``, ``per_topic``
        (default True), ``strict``, ``warn`` (a callable for notes),
        ``force`` (start a ``PRUM(exact=mc)`` simulation above
        :data:`graphprum.measures.prum.MC_WORK_LIMIT`); trec_eval's
        ``complete`` (-c, default True), ``relevance_level`` (-l),
        ``judged_only`` (-J), ``max_results`` (-M); ``task`` (INEX task
        rules checked); see :func:`graphprum.evaluation.run_evaluation`.

    Returns
    -------
    pandas.DataFrame
        Columns ``run, measure, topic, value``; topic ``all`` aggregates the
        topics as each measure declares (the mean; the sum for counts, the
        geometric mean for ``gm_map``) over the qrels' topics, a topic a run
        lacks evaluated on an empty ranking (``complete=False``: over the
        run's topics).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "qrels").write_text("1 0 a 1\n1 0 b 1\n")
    >>> _ = (d / "run").write_text("1 Q0 x 1 3 demo\n1 Q0 a 2 2 demo\n1 Q0 b 3 1 demo\n")
    >>> df = evaluate([d / "run"], d / "qrels", ["PRUM(r=1)", "PRUM(r=2)"])
    >>> df[df.topic == "all"]["value"].round(4).tolist()
    [0.5, 0.6667]
    """
    from graphprum.collection import Collection
    from graphprum.evaluation import run_evaluation

    if isinstance(options.get("store"), Collection):
        options["store"] = options["store"].store
    return run_evaluation(runs, qrels, measures, **options)
