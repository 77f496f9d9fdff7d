"""Topics, every run: what one piece of work of :mod:`graphprum.evaluation` computes.

The work is cut into chunks of consecutive topics
(:func:`~graphprum.evaluation.core.topic_chunks`), each evaluated by
:func:`evaluate_chunk`, one after the other or in forked processes
(:func:`graphprum.workers.ordered_map`); a chunk's values do not depend on
the other chunks, so the table is the same whatever ``jobs`` says.  For a
topic, all runs together (:func:`evaluate_topic`): the units the topic's
measures may read are pulled from the store once and shared by the runs,
ids are resolved once per (run, topic), and what depends on the topic only
(INEX recall-bases, :class:`~graphprum.context.CacheKind` with
``topic_level``) is computed once and shared by the runs' contexts.  The
classical measures of a chunk are computed for all its runs by one call
into trec_eval's code (:func:`classical_values`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from graphprum.assessments import TopicAssessment
from graphprum.context import CacheDict, TopicCache, TopicContext, topic_ids
from graphprum.errors import UsageError
from graphprum.evaluation.job import Job
from graphprum.io.range_runs import spans as range_spans
from graphprum.io.runs import Run
from graphprum.measures.classical import compute_classical
from graphprum.store.base import UnitView

#: Prefix of the id that stands in a ranking for a result the store does not
#: hold (DESIGN §4: counted as non-relevant): no qrels line can judge it.
#: Neither a NUL (trec_eval's C code would read every such id as the empty
#: string, and refuse the topic as holding duplicates) nor white space
#: (gdeval, ERR@k's reader, splits lines at it).
UNKNOWN_PREFIX = "\x01not-in-store\x01"

__all__ = ["UNKNOWN_PREFIX", "ChunkOutput", "ClassicalValues", "TopicOutput",
           "classical_values", "evaluate_chunk", "evaluate_topic", "prepare_ranking",
           "topic_assessment"]

#: Per run, measure name -> topic -> value of the classical measures.
ClassicalValues = list[dict[str, dict[str, float]]]


@dataclass
class TopicOutput:
    """What one topic gave, per run (in the job's run order): measure name ->
    value, measure name -> standard error (simulated measures), the result
    ids the store does not hold; and notes for the user."""

    values: list[dict[str, float]]
    stderr: list[dict[str, float]]
    unknown: list[list[str]]
    notes: list[str] = field(default_factory=list)


@dataclass
class ChunkOutput:
    """What a chunk of topics gave: one :class:`TopicOutput` per topic (none
    when nothing but classical measures is asked for and there is no store)
    and the classical values of every run over its topics."""

    topics: list[TopicOutput]
    classical: ClassicalValues


def prepare_ranking(ids: Sequence[str], judged: Mapping[str, float],
                    unknown: Collection[str] = (), *, max_results: int | None = None,
                    judged_only: bool = False) -> list[str]:
    """The ranking measures see: the first ``max_results`` ids, ids in
    ``unknown`` (not in the store) replaced by ids no qrels judges, and with
    ``judged_only`` only the ids ``judged`` with REL >= 0 (trec_eval's -M, -J).

    >>> prepare_ranking(["a", "x", "b", "c"], {"a": 1, "b": -1, "c": 0}, judged_only=True)
    ['a', 'c']
    >>> prepare_ranking(["a", "x", "b"], {"a": 1}, {"a"}, max_results=2)
    ['\\x01not-in-store\\x01a', 'x']
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
    return assessments.get(topic) or TopicAssessment(topic)


def evaluate_chunk(job: Job, topics: Sequence[str],
                   progress: Callable[[float], None] | None = None) -> ChunkOutput:
    """The user-model measures of every run on each of ``topics``, and the
    classical measures of every run over them; ``progress(n)`` as ``n`` of
    the topics are done (fractions of a topic during simulations)."""
    outs: list[TopicOutput] = []
    if job.measures or job.store is not None:
        for k, topic in enumerate(topics):
            tick = None if progress is None else _shifted(progress, k)
            outs.append(evaluate_topic(job, topic, tick))
            if progress is not None:
                progress(k + 1)
    return ChunkOutput(outs, classical_values(job, topics) if job.classical else [])


def _shifted(progress: Callable[[float], None], by: float) -> Callable[[float], None]:
    return lambda f: progress(by + f)


def evaluate_topic(job: Job, topic: str,
                   tick: Callable[[float], None] | None = None) -> TopicOutput:
    """All runs of one topic: every user-model measure, and the unknown result ids.

    The units the topic's measures may read are pulled from the store once
    (:meth:`~graphprum.store.base.Store.view`) and shared by every run.
    ``tick(fraction of the topic)`` is handed to simulations."""
    shared: CacheDict = {}
    opts = job.options
    assessment = topic_assessment(job.assessments, topic)
    out = TopicOutput([], [], [])
    view: UnitView | None = None
    store = job.store
    judged = job.qrels[topic]
    if store is not None:
        rankings = [run.ranked(topic) for run in job.runs if run.ranges is None]
        trees = [u for run in job.runs if opts.trees
                 for t in (run.trees or {}).get(topic) or [] for u in t]
        ids = topic_ids(rankings, judged, [trees] if trees else None)
        documents = [*(assessment.docs if assessment is not None else []),
                     *(d for run in job.runs if run.ranges is not None for d in run.ranked(topic))]
        view = store.view(ids, list(dict.fromkeys(documents)))
    for ri, run in enumerate(job.runs):
        ranked = run.ranked(topic)
        if opts.max_results is not None:
            ranked = ranked[:opts.max_results]
        missing: list[str] = []
        spans = None
        if run.ranges is not None:  # documents checked when the run was read
            results = run.topics.get(topic)
            spans = np.zeros((0, 2)) if results is None else range_spans(results, run.ranges)
            spans = spans[:len(ranked)]
        elif view is not None and ranked:
            rows = view.resolve(ranked)
            missing = [u for u, r in zip(ranked, rows, strict=True) if r < 0]
        out.unknown.append(missing)
        if missing or opts.judged_only:
            ranked = prepare_ranking(ranked, judged, set(missing), judged_only=opts.judged_only)
        ctx = TopicContext(
            topic=topic, ranked=ranked, qrels=judged, models=list(job.models),
            ideal_min=opts.ideal_min, collection_size=job.collection_size,
            store=store, trees=(run.trees or {}).get(topic) if opts.trees else None,
            assessments=assessment, cache=TopicCache(shared),
            view=view, exh_spec=job.qrels.exh_spec.get(topic),
            progress=None if tick is None else _run_tick(tick, ri, len(job.runs)),
            spans=spans,
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


def _run_tick(tick: Callable[[float], None], ri: int, n: int) -> Callable[[float], None]:
    """The progress of run ``ri`` of ``n`` on a topic, as a fraction of the topic."""
    return lambda f: tick((ri + f) / n)


def classical_values(job: Job, topics: Sequence[str]) -> ClassicalValues:
    """Per run, the classical measures' values on ``topics``, computed by one
    call into trec_eval's code for all the runs
    (:func:`graphprum.measures.classical.compute_classical`): each (run,
    topic) is a topic of its own there, named ``RUN-INDEX\\x1fTOPIC``
    (trec_eval reads topic ids as C strings, which end at a NUL).

    A topic's values depend on its own ranking and judgements only, so any
    cut of the topics into chunks gives the values of one call over them
    all (the grades' scale of graded qrels aside: :func:`prepare_job
    <graphprum.evaluation.job.prepare_job>` checks every grade first, so
    that an error names the qrels' topic and line, and the scale a chunk's
    graded REL values are put on changes no value of a measure that accepts
    them); but trec_eval's code is not called on
    rankings that are all empty (it would fail) and gives them no value
    (num_rel among them), so a chunk whose rankings are all empty gets one
    topic of the job with results beside them (:func:`_with_results`),
    whose values are dropped.
    """
    opts = job.options
    rankings: dict[str, list[str]] = {}
    qrels: dict[str, Mapping[str, float]] = {}
    missing: list[str] = []
    for ri, run in enumerate(job.runs):
        for topic in topics:
            if opts.complete or topic in run.topics:
                key = f"{ri}\x1f{topic}"
                rankings[key] = _classical_ranking(job, run, topic)
                qrels[key] = job.qrels[topic]
                if topic not in run.topics:
                    missing.append(key)
    borrowed = _with_results(job) if not any(rankings.values()) else {}
    for key, ranking in borrowed.items():
        rankings[key], qrels[key] = ranking, job.qrels[key.split("\x1f", 1)[1]]
    # results first: trec_eval's code fails when the first ranking it reads is empty
    rankings = dict(sorted(rankings.items(), key=lambda item: not item[1]))
    values = compute_classical(job.classical, rankings, qrels,
                               relevance_level=opts.relevance_level, missing=missing,
                               qrels_path=job.qrels.path or None)
    out: ClassicalValues = [{name: {} for name in values} for _ in job.runs]
    for name, per in values.items():
        for key, value in per.items():
            if key not in borrowed:
                run_index, topic = key.split("\x1f", 1)
                out[int(run_index)][name][topic] = value
    return out


def _classical_ranking(job: Job, run: Run, topic: str) -> list[str]:
    """The ranking of ``topic`` a classical measure sees: ids the store does not
    hold count as non-relevant (only those the qrels judge make a difference)."""
    return prepare_ranking(run.ranked(topic), job.qrels[topic], job.judged_unknown,
                           max_results=job.options.max_results,
                           judged_only=job.options.judged_only)


def _with_results(job: Job) -> dict[str, list[str]]:
    """The first (run, topic) of the job with results a classical measure
    sees, as :func:`classical_values` names it (none: no run has any)."""
    for topic in job.topics:
        for ri, run in enumerate(job.runs):
            if topic in run.topics:
                ranking = _classical_ranking(job, run, topic)
                if ranking:
                    return {f"{ri}\x1f{topic}": ranking}
    return {}
