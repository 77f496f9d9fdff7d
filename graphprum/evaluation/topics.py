"""One topic, every run: the user-model measures of :mod:`graphprum.evaluation`.

Topics are evaluated one after the other (or in forked processes,
:mod:`graphprum.pool`), all runs of a topic together: the units
the topic's measures may read are pulled from the store once and shared by
the runs, ids are resolved once per (run, topic), and what depends on the
topic only (INEX recall-bases, :class:`~graphprum.context.CacheKind` with
``topic_level``) is computed once and shared by the runs' contexts.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from graphprum.context import CacheDict, TopicCache, TopicContext, topic_ids
from graphprum.errors import UsageError
from graphprum.evaluation.rows import stderr_name

if TYPE_CHECKING:
    from graphprum.assessments import TopicAssessment
    from graphprum.io.qrels import Qrels
    from graphprum.io.runs import Run
    from graphprum.measures.registry import Family, MeasureSpec
    from graphprum.navigation.base import NavigationModel
    from graphprum.store.base import Store, UnitView

#: Prefix of the id that stands in a ranking for a result the store does not
#: hold (DESIGN §4: counted as non-relevant): no qrels line can judge it.
UNKNOWN_PREFIX = "\x00not-in-store\x00"

__all__ = ["UNKNOWN_PREFIX", "Job", "TopicOutput", "evaluate_topic", "prepare_ranking",
           "stderr_name", "topic_assessment"]


@dataclass(frozen=True)
class Job:
    """Everything the evaluation of one topic needs (inherited by forked workers).

    ``measures`` are the user-model measures with their families; classical
    measures are computed over whole runs elsewhere.
    """

    runs: Sequence[Run]
    qrels: Qrels
    topics: Sequence[str]
    models: Sequence[NavigationModel]
    measures: Sequence[tuple[MeasureSpec, Family]]
    ideal_min: float
    collection_size: float
    store: Store | None
    trees: bool
    assessments: Mapping[str, TopicAssessment] | None
    judged_only: bool = False
    max_results: int | None = None


@dataclass
class TopicOutput:
    """What one topic gave, per run (in the job's run order): measure name ->
    value, measure name -> standard error (simulated measures), the result
    ids the store does not hold; and notes for the user."""

    values: list[dict[str, float]]
    stderr: list[dict[str, float]]
    unknown: list[list[str]]
    notes: list[str] = field(default_factory=list)


def prepare_ranking(ids: Sequence[str], judged: Mapping[str, float],
                    unknown: Collection[str] = (), *, max_results: int | None = None,
                    judged_only: bool = False) -> list[str]:
    """The ranking measures see: the first ``max_results`` ids, ids in
    ``unknown`` (not in the store) replaced by ids no qrels judges, and with
    ``judged_only`` only the ids ``judged`` with REL >= 0 (trec_eval's -M, -J).

    >>> prepare_ranking(["a", "x", "b", "c"], {"a": 1, "b": -1, "c": 0}, judged_only=True)
    ['a', 'c']
    >>> prepare_ranking(["a", "x", "b"], {"a": 1}, {"a"}, max_results=2)
    ['\\x00not-in-store\\x00a', 'x']
    """
    out = list(ids[:max_results] if max_results is not None else ids)
    if unknown:
        out = [UNKNOWN_PREFIX + u if u in unknown else u for u in out]
    if judged_only:
        out = [u for u in out if judged.get(u, -1) >= 0]
    return out


def topic_assessment(assessments: Mapping[str, TopicAssessment] | None,
                     topic: str) -> TopicAssessment | None:
    """The topic's passage assessments; an empty one for a topic they do not
    mention (so its INEX measures score 0), None without assessments."""
    if assessments is None:
        return None
    found = assessments.get(topic)
    if found is None:
        from graphprum.assessments import TopicAssessment

        found = TopicAssessment(topic)
    return found


def evaluate_topic(job: Job, topic: str,
                   tick: Callable[[float], None] | None = None) -> TopicOutput:
    """All runs of one topic: every user-model measure, and the unknown result ids.

    The units the topic's measures may read are pulled from the store once
    (:meth:`~graphprum.store.base.Store.view`) and shared by every run.
    ``tick(fraction of the topic)`` is handed to simulations."""
    shared: CacheDict = {}
    assessment = topic_assessment(job.assessments, topic)
    out = TopicOutput([], [], [])
    view: UnitView | None = None
    store = job.store
    judged = job.qrels[topic]
    if store is not None:
        rankings = [run.ranked(topic) for run in job.runs]
        trees = [u for run in job.runs if job.trees
                 for t in (run.trees or {}).get(topic) or [] for u in t]
        ids = topic_ids(rankings, judged, [trees] if trees else None)
        view = store.view(ids, assessment.docs if assessment is not None else [])
    for ri, run in enumerate(job.runs):
        ranked = run.ranked(topic)
        if job.max_results is not None:
            ranked = ranked[:job.max_results]
        missing: list[str] = []
        if view is not None and ranked:
            rows = view.resolve(ranked)
            missing = [u for u, r in zip(ranked, rows, strict=True) if r < 0]
        out.unknown.append(missing)
        if missing or job.judged_only:
            ranked = prepare_ranking(ranked, judged, set(missing), judged_only=job.judged_only)
        progress = None
        if tick is not None:
            n_runs = len(job.runs)

            def progress(f: float, ri: int = ri, n: int = n_runs) -> None:
                tick((ri + f) / n)
        ctx = TopicContext(
            topic=topic, ranked=ranked, qrels=judged, models=list(job.models),
            ideal_min=job.ideal_min, collection_size=job.collection_size,
            store=store, trees=(run.trees or {}).get(topic) if job.trees else None,
            assessments=assessment, cache=TopicCache(shared),
            view=view, exh_spec=job.qrels.exh_spec.get(topic), progress=progress,
        )
        # a topic the run lacks is evaluated on an empty ranking (trec_eval -c)
        values: dict[str, float] = {}
        errors: dict[str, float] = {}
        for spec, fam in job.measures:
            name = str(spec)
            try:
                got = fam.evaluate(spec, ctx)
            except UsageError as exc:
                message = str(exc)
                raise UsageError(message if message.startswith(name)
                                 else f"{name}: {message}") from None
            values[name] = got.value
            if got.stderr is not None:
                errors[name] = float(got.stderr)
            if got.note is not None:
                out.notes.append(f"note: run {run.tag}: {got.note}")
        out.values.append(values)
        out.stderr.append(errors)
    return out
