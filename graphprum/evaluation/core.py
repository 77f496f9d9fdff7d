"""The evaluation loop behind :func:`graphprum.evaluate` and ``graphprum eval``.

An evaluation is prepared (:func:`graphprum.evaluation.job.prepare_job`:
every input read and checked, the :class:`~graphprum.evaluation.job.Job`),
then run (:func:`run_job`): the qrels' topics are cut into chunks of
consecutive topics (:func:`topic_chunks`), each chunk evaluated for every
run (:func:`graphprum.evaluation.topics.evaluate_chunk`: the user-model
measures topic by topic, the classical ones, trec_eval's names such as
``map`` and ir_measures' such as ``nDCG@10``, by trec_eval's code over the
chunk), here or in forked processes (:func:`graphprum.workers.ordered_map`,
``jobs``); then the runs' unknown ids are checked and reported
(:mod:`graphprum.evaluation.unknown`) and the table is made
(:func:`graphprum.evaluation.rows.result_rows`).

Topics: by default (``complete=True``, trec_eval's ``-c``) every topic of the
qrels is evaluated, a topic the run lacks on an empty ranking (0 for most
measures; PRUM with a finite collection follows eq. 5 with o = 0); with
``complete=False`` (trec_eval's default) only the run's topics that the
qrels judge.  Topics of a run that the qrels lack are ignored and reported.
The ``all`` row aggregates the topics' values as the measure declares
(:func:`graphprum.measures.names.aggregation`): the mean, the sum for
counts (``num_rel_ret``, ``NumRet``), the geometric mean for ``gm_map``.

Rankings: ``max_results`` keeps the first results of each topic (``-M``);
ids the store does not hold are non-relevant (DESIGN §4: they are replaced
by ids no qrels can judge), or dropped before anything else with
``unknown="skip"``; ``judged_only`` then drops results the qrels do not
judge with REL >= 0 (``-J``).

The result is one row per run, measure and topic
(:class:`~graphprum.evaluation.rows.ResultRows`; :func:`graphprum.evaluate`
makes it a tidy DataFrame): :data:`~graphprum.evaluation.rows.COLUMNS`,
and a standard error when a measure is simulated (``PRUM(exact=mc)``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from functools import partial
from typing import cast

from graphprum.errors import UsageError
from graphprum.evaluation.inputs import (
    MeasuresLike,
    PassagesLike,
    QrelsLike,
    RunsLike,
    StoreLike,
    as_store,
    is_path,
)
from graphprum.evaluation.job import Job, prepare_job
from graphprum.evaluation.options import AUTO, EvalOptions
from graphprum.evaluation.rows import ResultRows, grouped_notes, result_rows
from graphprum.evaluation.topics import ChunkOutput, ClassicalValues, evaluate_chunk
from graphprum.evaluation.unknown import check_known, report_unknown
from graphprum.store.base import FORK_SAFE, SERVER, ServerReads, Store
from graphprum.workers import can_fork, cpu_count, ordered_map

Warn = Callable[[str], None]
#: ``progress(done, total)``: called as work finishes.
Progress = Callable[[float, int], None]

__all__ = ["AUTO_MIN_RESULTS", "CHUNK_RESULTS", "evaluate_part", "run_evaluation", "run_job",
           "topic_chunks", "usable_jobs"]


def run_evaluation(runs: RunsLike, qrels: QrelsLike | None, measures: MeasuresLike, *,
                   options: EvalOptions | None = None, store: StoreLike | None = None,
                   passages: PassagesLike | None = None, per_topic: bool = True,
                   warn: Warn | None = None, progress: Progress | None = None
                   ) -> ResultRows:
    """Evaluate; see :func:`graphprum.evaluate` for the inputs and the result.

    ``options`` (:class:`~graphprum.evaluation.options.EvalOptions`) say
    how.  ``complete``, ``relevance_level``, ``judged_only`` and
    ``max_results`` are trec_eval's ``-c``, ``-l``, ``-J`` and ``-M``
    (module notes).  ``task`` (an INEX 2006 task: focused, ric, bic) checks
    that every run keeps the task's rules
    (:func:`graphprum.measures.inex.task_violations`): violations are listed
    with ``warn``, and are an error with ``strict``.

    ``progress(done, total)`` is called as topics finish (a progress bar),
    and with fractions of a topic during a ``PRUM(exact=mc)`` simulation.
    A simulation larger than :data:`~graphprum.measures.prum.MC_WORK_LIMIT`
    (estimated before anything is evaluated) is refused unless ``force``.

    ``jobs`` > 1 evaluates chunks of topics in that many forked processes
    (:func:`usable_jobs`; the store's memory-mapped columns are inherited,
    not copied); the table is the same, value for value, as with ``jobs=1``.
    """
    for name, given in (("warn", warn), ("progress", progress)):
        if given is not None and not callable(given):
            raise UsageError(f"{name} is a function (or None), got {type(given).__name__}")
    opts = options if options is not None else EvalOptions()
    say: Warn = warn or (lambda message: None)
    the_store = as_store(store)
    try:
        job = prepare_job(runs, qrels, measures, options=opts, store=the_store,
                          passages=passages, warn=say)
        outputs = run_job(job, usable_jobs(opts.jobs, job, say),
                          progress or (lambda done, total: None))
        topic_outs = [out for chunk in outputs for out in chunk.topics]
        check_known(job, topic_outs)
        for message in grouped_notes([m for out in topic_outs for m in out.notes]):
            say(message)
        report_unknown(job, topic_outs, say)
        return result_rows(job, topic_outs, _joined([chunk.classical for chunk in outputs]),
                           per_topic)
    finally:
        if is_path(store) and the_store is not None:  # opened here, so closed here
            the_store.close()


#: Results (over every run) a chunk of topics holds on average (one holds
#: less than this and its largest topic's together): a chunk is one piece of
#: work for a process, and one call of trec_eval's code per run (its rankings
#: held in memory as Python dicts).
CHUNK_RESULTS = 20_000

#: ``jobs="auto"`` forks one process per CPU from this many results (over
#: every run, in the qrels' topics): below, forking and sending results back
#: cost more than the processes save (bench/startup.py, the ``jobs`` lines).
AUTO_MIN_RESULTS = 150_000


def _results(job: Job, topic: str) -> int:
    """The results of every run on ``topic``."""
    return sum(len(run.topics[topic]) for run in job.runs if topic in run.topics)


def topic_chunks(job: Job, jobs: int = 1) -> list[list[str]]:
    """The job's topics cut into runs of consecutive topics of about equal
    results, about :data:`CHUNK_RESULTS` each (at least one topic each),
    their number a multiple of ``jobs`` (while there are topics enough), so
    that no process is left alone with the last chunk: 114 topics of 1,500
    results in 2 processes are ten chunks of 11 or 12 topics, where chunks
    of at most 20,000 results were eight of 13 topics and one of 10, and one
    process evaluated 62 topics while the other had 52.

    >>> from types import SimpleNamespace as NS
    >>> job = NS(topics=list("abcdefghi"), runs=[NS(topics={t: [0] * 3_000 for t in "abcdefghi"})])
    >>> [len(c) for c in topic_chunks(job)], [len(c) for c in topic_chunks(job, jobs=3)]
    ([5, 4], [3, 3, 3])
    """
    sizes = [max(1, _results(job, topic)) for topic in job.topics]
    total = sum(sizes)
    count = -(-total // CHUNK_RESULTS)
    count = min(len(sizes), -(-count // max(1, jobs)) * max(1, jobs))
    chunks: list[list[str]] = []
    left, share, held = total, 0.0, 0  # results not yet in a chunk, the chunk's share, in it
    for at, (topic, size) in enumerate(zip(job.topics, sizes, strict=True)):
        # a new chunk where the middle of the topic would pass the chunk's
        # share of what was left when it began, or where each topic left
        # must make a chunk of its own
        if not chunks or (len(chunks) < count and (held + size / 2 > share
                                                   or len(sizes) - at == count - len(chunks))):
            chunks.append([])
            share, held = left / (count - len(chunks) + 1), 0
        chunks[-1].append(topic)
        held += size
        left -= size
    return chunks


def usable_jobs(jobs: int | str, job: Job, warn: Warn) -> int:
    """How many processes evaluate ``job``: ``jobs``, or with ``auto`` one per
    CPU once the runs hold :data:`AUTO_MIN_RESULTS` results; 1 where forking
    cannot help or is not safe (a note when ``jobs`` asked for more); on a
    graph server (capability ``server``) each opens a connection of its own."""
    asked = jobs != AUTO
    if asked:
        most = int(jobs)
    else:
        results = sum(_results(job, topic) for topic in job.topics)
        most = cpu_count() if results >= AUTO_MIN_RESULTS else 1
    if most <= 1 or len(job.topics) < 2:
        return 1
    if not can_fork():
        if asked:
            warn("note: --jobs needs the fork start method, not available here; using 1")
        return 1
    if job.store is not None and not {FORK_SAFE, SERVER} & job.store.capabilities:
        if asked:
            warn("note: --jobs is ignored with this store (it cannot be shared between "
                 "processes); using 1")
        return 1
    return most


def run_job(job: Job, jobs: int, progress: Progress) -> list[ChunkOutput]:
    """Every chunk of ``job`` (:func:`topic_chunks`), in topic order, in
    ``jobs`` processes; ``progress(done, total)`` as topics finish (with
    fractions of a topic during simulations, in one process).

    On a graph server, each process announces its topics' documents first
    (``read_ahead``: they come in a few large queries); with ``jobs`` > 1,
    each process is on a connection of its own (:func:`own_store`),
    and the documents the topics' element ids lie in are pulled here first,
    once, before the processes fork and inherit them.  Those pulls keep both cores busy in
    one process already (several queries under way, the client decoding one
    while the server encodes the next: 50 topics, 0.24 s of pull, 0.45
    CPU-s of client and server), so processes pulling their own documents
    only took turns (0.27 s), paid twice for what two chunks share, and
    made ``--jobs 2`` slower than ``--jobs 1`` (bench/bolt_eval.py,
    ``bolt_jobs``)."""
    total = len(job.topics)
    progress(0, total)
    chunks = topic_chunks(job, jobs)
    jobs = min(jobs, len(chunks))
    if jobs > 1 and _on_server(job):
        cast(ServerReads, job.store).read_ahead(_viewed(job, job.topics), pull=True)
    parts: list[tuple[int, list[str]]] = []  # (index of its first topic, the chunk)
    first = 0
    for topics in chunks:
        parts.append((first, topics))
        first += len(topics)
    # a forked worker tells no progress: this process does as its chunks come back
    evaluate = partial(evaluate_part, forked=jobs > 1, progress=None if jobs > 1 else progress)
    outputs: list[ChunkOutput] = []
    for (first, topics), out in zip(parts, ordered_map(evaluate, job, parts, jobs), strict=True):
        if jobs > 1 or not out.topics:  # (else evaluate_chunk said it, topic by topic)
            for k in range(1, len(topics) + 1):
                progress(first + k, total)
        outputs.append(out)
    return outputs


def evaluate_part(job: Job, part: tuple[int, list[str]], *, forked: bool,
                  progress: Progress | None) -> ChunkOutput:
    """One chunk of :func:`run_job`, here or in a forked worker: ``part`` is
    the index in ``job.topics`` of the chunk's first topic, and the chunk;
    ``progress(done, total)`` as the chunk's topics are done (``done``
    counted over the job's topics, with fractions of a topic during
    simulations).  On a graph server, the chunk's documents are announced
    first (a few large queries), on a connection of this process's own in
    a ``forked`` worker (:func:`own_store`)."""
    first, topics = part
    if _on_server(job):
        if forked:
            job = replace(job, store=own_store(job.store))
        cast(ServerReads, job.store).read_ahead(_viewed(job, topics))
    total = len(job.topics)
    tick = None if progress is None else (lambda done: progress(first + done, total))
    return evaluate_chunk(job, topics, tick)


def _on_server(job: Job) -> bool:
    """Whether the job's store is a graph server (capability ``server``)."""
    return job.store is not None and SERVER in job.store.capabilities


def _viewed(job: Job, topics: Sequence[str]) -> Iterator[str]:
    """The ids the views of ``topics`` will hold, topic by topic (results,
    judged units, assessed documents)."""
    for topic in topics:
        for run in job.runs:
            yield from run.ranked(topic)[:job.options.max_results]
        yield from job.qrels[topic]
        if job.assessments is not None and topic in job.assessments:
            yield from job.assessments[topic].docs


#: The store a forked worker opened for itself: (its process id, the store).
_OWN: tuple[int, Store] | None = None


def own_store(store: Store | None) -> Store | None:
    """``store`` on a connection of this process's own (a forked worker's
    copy of its parent's connection is not usable), opened once per
    process (:meth:`~graphprum.store.base.ServerReads.reopened`)."""
    global _OWN
    if _OWN is None or _OWN[0] != os.getpid():
        _OWN = (os.getpid(), cast(ServerReads, store).reopened())
    return _OWN[1]


def _joined(pieces: Sequence[ClassicalValues]) -> ClassicalValues:
    """The classical values of the chunks, per run joined."""
    joined: ClassicalValues = []
    for piece in pieces:
        if not joined:
            joined = [{name: dict(per) for name, per in run.items()} for run in piece]
            continue
        for mine, theirs in zip(joined, piece, strict=True):
            for name, per in theirs.items():
                mine.setdefault(name, {}).update(per)
    return joined
