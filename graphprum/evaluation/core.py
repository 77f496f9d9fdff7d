"""The evaluation loop behind :func:`graphprum.evaluate` and ``graphprum eval``.

An evaluation is prepared (:func:`graphprum.evaluation.job.prepare_job`:
every input read and checked, the :class:`~graphprum.evaluation.job.Job`),
then run (:func:`run_job`): the qrels' topics are cut into chunks of
consecutive topics (:func:`topic_chunks`), each chunk evaluated for every
run (:func:`graphprum.evaluation.topics.evaluate_chunk`: the user-model
measures topic by topic, the classical ones, trec_eval's names such as
``map`` and ir_measures' such as ``nDCG@10``, by trec_eval's code over the
chunk), here or in forked processes (:func:`graphprum.workers.ordered_map`,
``jobs``); then the table is made (:func:`result_rows`).

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

import math
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import cast

import numpy as np

from graphprum.errors import InputError, UsageError
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
from graphprum.evaluation.rows import ResultRows
from graphprum.evaluation.topics import (
    ChunkOutput,
    ClassicalValues,
    TopicOutput,
    evaluate_chunk,
)
from graphprum.io.runs import Run
from graphprum.measures.names import aggregation
from graphprum.measures.registry import MeasureSpec, aggregate
from graphprum.store.base import FORK_SAFE, SERVER, ServerReads, Store
from graphprum.workers import can_fork, cpu_count, ordered_map

Warn = Callable[[str], None]
#: ``progress(done, total)``: called as work finishes.
Progress = Callable[[float, int], None]

__all__ = ["AUTO_MIN_RESULTS", "CHUNK_RESULTS", "grouped_notes", "result_rows",
           "run_evaluation", "run_job", "topic_chunks", "usable_jobs"]


def is_simulated(spec: MeasureSpec) -> bool:
    """Whether ``spec`` is simulated (``exact=mc``) and so has a standard error."""
    return spec.params.get("exact") == "mc"


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
        if job.store is not None and topic_outs and opts.unknown == "error":
            for ri, run in enumerate(job.runs):
                _check_known(run, [out.unknown[ri] for out in topic_outs], job.topics,
                             opts.max_results, job.store)
        for message in grouped_notes([m for out in topic_outs for m in out.notes]):
            say(message)
        return result_rows(job, topic_outs, _joined([chunk.classical for chunk in outputs]),
                           per_topic, say)
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
    server = job.store is not None and SERVER in job.store.capabilities
    jobs = min(jobs, len(chunks))
    if server and jobs > 1:
        cast(ServerReads, job.store).read_ahead(_viewed(job, job.topics), pull=True)
    done = 0

    def evaluate(job: Job, topics: list[str]) -> ChunkOutput:  # here, or in a worker
        tick = None if jobs > 1 else (lambda x: progress(done + x, total))
        if server:  # the chunk's documents in a few large queries
            if jobs > 1:
                job = replace(job, store=own_store(job.store))
            cast(ServerReads, job.store).read_ahead(_viewed(job, topics))
        return evaluate_chunk(job, topics, tick)

    outputs: list[ChunkOutput] = []
    for topics, out in zip(chunks, ordered_map(evaluate, job, chunks, jobs), strict=True):
        if jobs > 1 or not out.topics:  # (else evaluate_chunk said it, topic by topic)
            for k in range(1, len(topics) + 1):
                progress(done + k, total)
        done += len(topics)
        outputs.append(out)
    return outputs


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


#: A per-topic note: ``note: run R: MEASURE: topic T: what``.
_TOPIC_NOTE = re.compile(r"(note: run .+?: \S+): topic (\S+): (.*)", re.DOTALL)
#: Per-topic notes of one run and measure shown in full before the rest are summed up.
NOTES_SHOWN = 2


def grouped_notes(notes: Sequence[str]) -> list[str]:
    """``notes`` with the per-topic notes of one run and measure beyond the
    first :data:`NOTES_SHOWN` folded into one line naming their topics (a
    simulated measure can note every topic of every run).

    >>> notes = [f"note: run r: PRUM(x): topic {t}: spread {t}" for t in "1234"]
    >>> for line in grouped_notes([*notes, "note: other"]):
    ...     print(line)
    note: run r: PRUM(x): topic 1: spread 1
    note: run r: PRUM(x): topic 2: spread 2
    note: run r: PRUM(x): a like note for 2 more topics: 3, 4
    note: other
    """
    groups: dict[str, list[tuple[str, str]]] = {}  # head -> (topic, note)
    out: list[str | tuple[str, list[tuple[str, str]]]] = []
    for note in notes:
        m = _TOPIC_NOTE.fullmatch(note)
        if m is None:
            out.append(note)
            continue
        members = groups.get(m.group(1))
        if members is None:
            members = groups[m.group(1)] = []
            out.append((m.group(1), members))
        members.append((m.group(2), note))
    lines: list[str] = []
    for item in out:
        if isinstance(item, str):
            lines.append(item)
            continue
        head, members = item
        lines.extend(note for _, note in members[:NOTES_SHOWN])
        rest = [topic for topic, _ in members[NOTES_SHOWN:]]
        if rest:
            more = f"{len(rest)} more topic{'s' if len(rest) > 1 else ''}"
            lines.append(f"{head}: a like note for {more}: {', '.join(rest[:20])}"
                         + (" ..." if len(rest) > 20 else ""))
    return lines


def result_rows(job: Job, per_topic_out: Sequence[TopicOutput],
                classical_values: ClassicalValues, per_topic: bool, warn: Warn) -> ResultRows:
    """The result rows: per run, per measure, the topics' values and their aggregate."""
    qrels, topics, store, opts = job.qrels, job.topics, job.store, job.options
    rows: list[tuple[str, str, str, float, float]] = []
    for ri, run in enumerate(job.runs):
        extra_topics = [t for t in run.topics if t not in qrels]
        if extra_topics:
            warn(f"note: run {run.tag}: {len(extra_topics)} topic(s) not in the qrels ignored: "
                 + ", ".join(extra_topics[:10]) + (" ..." if len(extra_topics) > 10 else ""))
        if job.skipped:
            _report_skipped(run, job.skipped[ri], warn)
        elif store is not None and run.ranges is None:  # (a range run's documents are checked)
            _report_unknown(run, _unknown_ids(store, run, ri, per_topic_out, extra_topics), warn)
        values: dict[str, dict[str, float]] = {str(s): {} for s in job.specs}
        errors: dict[str, dict[str, float]] = {}
        for topic, out in zip(topics, per_topic_out, strict=False):
            for name, value in out.values[ri].items():
                values.setdefault(name, {})[topic] = value
            for name, err in out.stderr[ri].items():
                errors.setdefault(name, {})[topic] = err
        run_topics = topics if opts.complete else [t for t in topics if t in run.topics]
        if classical_values:
            values.update(classical_values[ri])
        for s in job.specs:
            rows.extend(_measure_rows(job, run.tag, s, values[str(s)], errors.get(str(s), {}),
                                      run_topics, per_topic))
    absent = frozenset((run.tag, t) for run in job.runs for t in topics
                       if opts.complete and t not in run.topics)
    skipped = {run.tag: len(gone) for run, gone in zip(job.runs, job.skipped, strict=True)} \
        if job.skipped else None
    return ResultRows(rows, any(is_simulated(s) for s in job.specs), absent, skipped)


def _measure_rows(job: Job, tag: str, spec: MeasureSpec, per: Mapping[str, float],
                  errors: Mapping[str, float], run_topics: Sequence[str], per_topic: bool
                  ) -> list[tuple[str, str, str, float, float]]:
    """The rows of one measure of one run: its topics (with ``per_topic``), then ``all``."""
    name = str(spec)
    vals = [per.get(t, 0.0) for t in run_topics]
    # a topic that scores 0 without simulation (missing from the run) has error 0
    errs = [errors.get(t, 0.0) for t in run_topics] if is_simulated(spec) else None
    rows = [(tag, name, t, v, e) for t, v, e in
            zip(run_topics, vals, errs or [math.nan] * len(vals), strict=True)] \
        if per_topic else []
    # added in trec_eval's order, topic ids sorted as C strings
    total = aggregate([per.get(t, 0.0) for t in sorted(run_topics, key=_c_order)],
                      aggregation(spec))
    if name == "num_rel" and job.options.complete:
        # trec_eval -c (m_num_rel.c): every judgement with REL > 0 of the
        # qrels, whatever -l, -J or -M
        total = float(sum(1 for judged in job.qrels.values() for rel in judged.values()
                          if rel > 0))
    rows.append((tag, name, "all", total, _mean_error(errs) if errs is not None else math.nan))
    return rows


def _c_order(topic: str) -> bytes:
    """A topic id's sort key as C's strcmp compares it (trec_eval's order)."""
    return topic.encode("utf-8", "surrogateescape")


def _mean_error(errs: Sequence[float]) -> float:
    """Standard error of the mean over topics of a simulated measure.

    Topics are simulated independently, so the standard error of the mean
    over n topics is sqrt(sum of squared per-topic errors) / n.

    >>> _mean_error([0.3, 0.4])
    0.25
    """
    return float(np.sqrt(np.sum(np.square(errs))) / len(errs)) if errs else 0.0


def _check_known(run: Run, unknown: list[list[str]], topics: Sequence[str],
                 max_results: int | None, store: Store) -> None:
    """InputError when most result ids of ``run`` (in the qrels' topics) are not
    in the store: the run was made for another collection or another id
    convention, and every value would be 0.  The message shows both."""
    missing = sum(len(u) for u in unknown)
    total = sum(min(len(run.topics[t]), max_results if max_results is not None else math.inf)
                for t in topics if t in run.topics)
    if total == 0 or 2 * missing <= total:
        return
    seen = [u for ids in unknown for u in ids][:3]
    names = store.documents()["name"].tolist()
    table = store.view([], sorted({names[0], names[len(names) // 2], names[-1]})
                       if names else []).table
    n = len(table)
    rows = sorted({0, min(1, n - 1), n // 2, n - 1}) if n else []
    expected = table.ids(rows) if rows else []
    raise InputError(run.path or run.tag, None,
                     f"{missing} of {total} result ids of run {run.tag} are not in the store "
                     f"{store.location}: the run's ids look like "
                     f"{', '.join(map(repr, seen))}; the store's like "
                     f"{', '.join(map(repr, expected)) or '(an empty store)'} "
                     f"(unit ids: docs/formats.md). "
                     f"Load the collection the run was made for, evaluate without the "
                     f"store (--no-store), or drop them (--unknown skip)")


def _unknown_ids(store: Store, run: Run, ri: int, per_topic_out: Sequence[TopicOutput],
                 extra_topics: Sequence[str]) -> list[str]:
    """The result ids of run ``ri`` the store does not hold, sorted: those the
    topics found, and those of the topics the qrels lack."""
    unknown = {u for out in per_topic_out for u in out.unknown[ri]}
    extra_ids = [u for t in extra_topics for u in run.ranked(t)]
    if extra_ids:
        found = store.kinds(extra_ids)
        unknown.update(u for u, k in zip(extra_ids, found, strict=True) if k < 0)
    return sorted(unknown)


def _report_unknown(run: Run, unknown: list[str], warn: Warn) -> None:
    """The note on result ids of ``run`` that the store does not hold (sorted)."""
    if unknown:
        warn(f"note: run {run.tag}: {len(unknown)} result id(s) not in the store, counted as "
             f"non-relevant: " + ", ".join(unknown[:5]) + (" ..." if len(unknown) > 5 else ""))


def _report_skipped(run: Run, dropped: Sequence[str], warn: Warn) -> None:
    """The note on the results of ``run`` dropped by ``unknown="skip"``."""
    if dropped:
        examples = list(dict.fromkeys(dropped))[:3]
        warn(f"note: run {run.tag}: {len(dropped)} result(s) whose id is not in the store "
             f"skipped (--unknown skip), e.g. " + ", ".join(examples))
