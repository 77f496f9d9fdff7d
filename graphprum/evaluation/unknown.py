"""What the runs hold that the evaluation does not know, once every topic is evaluated.

A result id the store does not hold is non-relevant (DESIGN §4), and each
topic reports the ones it met (``unknown`` of a
:class:`~graphprum.evaluation.topics.TopicOutput`).
When most of a run's ids are unknown, the run was made for another
collection or another id convention, and :func:`check_known` refuses it
(``unknown="error"``, the default) with examples of both.  Otherwise
:func:`report_unknown` notes, run by run, the topics the qrels lack (they
are ignored) and the ids the store lacks, or with ``unknown="skip"`` the
results dropped when the job was prepared.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from graphprum.errors import InputError
from graphprum.evaluation.job import Job, some_topics
from graphprum.evaluation.topics import TopicOutput
from graphprum.io.runs import Run
from graphprum.store.base import Store

Warn = Callable[[str], None]

__all__ = ["check_known", "report_unknown"]


def check_known(job: Job, outputs: Sequence[TopicOutput]) -> None:
    """InputError when most result ids of a run (in the qrels' topics) are
    not in the job's store (:func:`_check_known`); nothing without a store,
    a topic evaluated, or with ``unknown`` other than ``error``."""
    if job.store is None or not outputs or job.options.unknown != "error":
        return
    for ri, run in enumerate(job.runs):
        _check_known(run, [out.unknown[ri] for out in outputs], job.topics,
                     job.options.max_results, job.store)


def report_unknown(job: Job, outputs: Sequence[TopicOutput], warn: Warn) -> None:
    """The notes of each run: its topics the qrels lack (ignored), the
    qrels' topics it lacks (evaluated on an empty ranking, unless
    ``complete`` is off: then they are left out, and say nothing), and its
    result ids the store lacks (counted as non-relevant), or the results
    ``unknown="skip"`` dropped; a range run's documents were checked when
    it was read."""
    for ri, run in enumerate(job.runs):
        extra_topics = [t for t in run.topics if t not in job.qrels]
        if extra_topics:
            warn(f"note: run {run.tag}: {len(extra_topics)} topic(s) not in the qrels ignored: "
                 + some_topics(extra_topics))
        lacking = [t for t in job.topics if t not in run.topics] if job.options.complete else []
        if lacking:
            warn(f"note: run {run.tag}: {len(lacking)} qrels topic(s) not in the run, evaluated "
                 f"on an empty ranking (--no-c: left out): " + some_topics(lacking))
        if job.skipped:
            _report_skipped(run, job.skipped[ri], warn)
        elif job.store is not None and run.ranges is None:
            _report_unknown(run, _unknown_ids(job.store, run, ri, outputs, extra_topics), warn)


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
    documents = [u for u in seen if u in set(names)]
    roots = f"The run names documents, and a result is a unit: the root of " \
            f"{documents[0]!r} is {store.units(documents[:1])['id'].iloc[0]!r}. " \
        if documents else ""
    raise InputError(run.path or run.tag, None,
                     f"{missing} of {total} result ids of run {run.tag} are not in the store "
                     f"{store.location}: the run's ids look like "
                     f"{', '.join(map(repr, seen))}; the store's like "
                     f"{', '.join(map(repr, expected)) or '(an empty store)'} "
                     f"(unit ids: docs/formats.md). {roots}"
                     f"Load the collection the run was made for, evaluate without the "
                     f"store (--no-store), or drop them (--unknown skip)")


def _unknown_ids(store: Store, run: Run, ri: int, outputs: Sequence[TopicOutput],
                 extra_topics: Sequence[str]) -> list[str]:
    """The result ids of run ``ri`` the store does not hold, sorted: those the
    topics found, and those of the topics the qrels lack."""
    unknown = {u for out in outputs for u in out.unknown[ri]}
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
