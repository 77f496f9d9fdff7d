"""The evaluation loop behind :func:`graphprum.evaluate` and ``graphprum eval``.

For every run and every topic of the qrels, a
:class:`~graphprum.context.TopicContext` is built and each user-model
measure computes one value from it (:mod:`graphprum.evaluation.topics`); classical measures
(trec_eval's names such as ``map``, ``P_10``, and ir_measures' such as
``AP``, ``nDCG@10``) are computed by :mod:`graphprum.measures.classical` on
the same ranking.

Topics: by default (``complete=True``, trec_eval's ``-c``) every topic of the
qrels is evaluated, a topic the run lacks on an empty ranking (0 for most
measures; PRUM with a finite collection follows eq. 5 with o = 0); with
``complete=False`` (trec_eval's default) only the run's topics that the
qrels judge.  Topics of a run that the qrels lack are ignored and reported.
The ``all`` row aggregates the topics' values as the measure declares
(:func:`graphprum.measures.registry.aggregation`): the mean, the sum for
counts (``num_rel_ret``, ``NumRet``), the geometric mean for ``gm_map``.

Rankings: ``max_results`` keeps the first results of each topic (``-M``);
ids the store does not hold are non-relevant (DESIGN §4: they are replaced
by ids no qrels can judge); ``judged_only`` then drops results the qrels do
not judge with REL >= 0 (``-J``).

The result is one row per run, measure and topic
(:class:`~graphprum.evaluation.rows.ResultRows`; :func:`graphprum.evaluate`
makes it a tidy DataFrame): :data:`COLUMNS`, and a standard error when a
measure is simulated (``PRUM(exact=mc)``).
"""

from __future__ import annotations

import math
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from graphprum.errors import InputError, UsageError
from graphprum.evaluation.inputs import (
    MeasuresLike,
    PassagesLike,
    QrelsLike,
    RunsLike,
    StoreLike,
    as_store,
    measure_names,
    read_passages,
    read_qrels_like,
    run_items,
)
from graphprum.evaluation.options import AUTO, EvalOptions
from graphprum.evaluation.reading import (
    RunReading,
    check_stdin,
    is_path,
    reading_jobs,
    start_reading,
)
from graphprum.evaluation.rows import COLUMNS, ResultRows, printed_rows
from graphprum.evaluation.topics import (
    Job,
    TopicOutput,
    evaluate_topic,
    prepare_ranking,
)
from graphprum.io.qrels import Qrels
from graphprum.measures.classical import compute_classical, preload_classical
from graphprum.measures.names import aggregation
from graphprum.measures.registry import Family, MeasureSpec, aggregate, family
from graphprum.navigation.base import parse_model
from graphprum.pool import can_fork, cpu_count, fork_map

if TYPE_CHECKING:
    import pandas as pd

    from graphprum.assessments import TopicAssessment
    from graphprum.io.runs import Run
    from graphprum.store.base import Store

Warn = Callable[[str], None]
#: ``progress(done, total)``: called as work finishes.
Progress = Callable[[float, int], None]


def expand_measures(names: Sequence[str]) -> list[MeasureSpec]:
    """Resolve measure names (:func:`graphprum.measures.names.resolve`): sets
    and bare family names expand into the names they stand for; duplicates go."""
    from graphprum.measures.names import resolve

    out: list[MeasureSpec] = []
    for name in names:
        out.extend(resolve(str(name)))
    seen: set[str] = set()
    unique = []
    for s in out:
        if str(s) not in seen:
            seen.add(str(s))
            unique.append(s)
    return unique


def needs_store(measures: MeasuresLike, nav: Sequence[str]) -> bool:
    """Whether these measures or navigation models read the collection's structure."""
    if any(parse_model(m).needs_store for m in nav):
        return True
    for s in expand_measures(measure_names(measures)):
        fam = family(s.name)
        if fam is not None and fam.needs_store:
            return True
    return False


def is_simulated(spec: MeasureSpec) -> bool:
    """Whether ``spec`` is simulated (``exact=mc``) and so has a standard error."""
    return spec.params.get("exact") == "mc"


def distinct_names(runs: list[Run], warn: Callable[[str], None]) -> list[Run]:
    """``runs`` with distinct names: runs that share a TAG (a copy of a run
    file with one setting changed, say) are named ``TAG (FILE)`` after the
    file each was read from (``TAG (N)``, N its place among the runs, when
    that does not tell them apart), with a note; one row per run, so that
    tables, comparisons and plots keep them apart.

    >>> from graphprum.io.ranking import Run
    >>> runs = [Run("bm25", path="a.txt"), Run("bm25", path="b.txt"), Run("x", path="c")]
    >>> [r.tag for r in distinct_names(runs, print)]
    note: runs share a TAG, so they are named apart: 'bm25 (a.txt)', 'bm25 (b.txt)'
    ['bm25 (a.txt)', 'bm25 (b.txt)', 'x']
    """
    import dataclasses

    tags = Counter(r.tag for r in runs)
    if len(tags) == len(runs):
        return runs
    shared = {t for t, c in tags.items() if c > 1}
    names = [f"{r.tag} ({r.path})" if r.tag in shared else r.tag for r in runs]
    if len(set(names)) < len(names) or any(not r.path for r in runs if r.tag in shared):
        # one file given twice, or runs not from files
        names = [f"{r.tag} ({i + 1})" if r.tag in shared else r.tag
                 for i, r in enumerate(runs)]
    if len(set(names)) < len(names):  # a new name is another run's TAG
        raise UsageError("runs share a TAG and cannot be told apart by their files: "
                         + ", ".join(sorted(shared)) + "; give them distinct TAGs")
    warn("note: runs share a TAG, so they are named apart: "
         + ", ".join(repr(n) for n, r in zip(names, runs, strict=True) if r.tag in shared))
    return [r if r.tag not in shared else dataclasses.replace(r, tag=n)
            for n, r in zip(names, runs, strict=True)]


def run_evaluation(runs: RunsLike | RunReading, qrels: QrelsLike | None, measures: MeasuresLike, *,
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

    ``jobs`` > 1 evaluates topics in that many forked processes
    (:mod:`graphprum.pool`; the store's memory-mapped columns are
    inherited, not copied); the table is the same, value for value, as with
    ``jobs=1``.
    """
    if is_path(store):  # opened here, so closed here (its reader lock, files)
        the_store = as_store(store)
        try:
            return _evaluate(runs, qrels, measures, options=options, store=the_store,
                             passages=passages, per_topic=per_topic, warn=warn,
                             progress=progress)
        finally:
            if the_store is not None:
                the_store.close()
    return _evaluate(runs, qrels, measures, options=options, store=store, passages=passages,
                     per_topic=per_topic, warn=warn, progress=progress)


def _evaluate(runs: RunsLike | RunReading, qrels: QrelsLike | None, measures: MeasuresLike, *,
              options: EvalOptions | None, store: StoreLike | None,
              passages: PassagesLike | None, per_topic: bool, warn: Warn | None,
              progress: Progress | None) -> ResultRows:
    """The body of :func:`run_evaluation`."""
    opts = options if options is not None else EvalOptions()
    for name, given in (("warn", warn), ("progress", progress)):
        if given is not None and not callable(given):
            raise UsageError(f"{name} is a function (or None), got {type(given).__name__}")
    warn = warn or (lambda message: None)
    specs = expand_measures(measure_names(measures))
    if not specs:
        raise UsageError("no measure given (-m)")
    the_store = as_store(store)
    if isinstance(runs, RunReading):  # started by the caller (graphprum eval)
        check_stdin([qrels, passages, *runs.paths])
        reading = runs
    else:
        items = run_items(runs)
        check_stdin([qrels, passages, *(run for _, run in items)])
        # big run files are read in workers while this process imports what
        # the navigation models need, reads the qrels and maps the store
        overlap = the_store is not None or any(m != "classical" for m in opts.nav)
        reading = start_reading(items, opts, reading_jobs(opts.jobs, items, overlap))
    with reading:
        models = [parse_model(m) for m in opts.nav]
        model_needs = [m.spec for m in models if m.needs_store]
        measure_needs = [str(s) for s in specs if (f := family(s.name)) and f.needs_store]
        if the_store is None and (model_needs or measure_needs):
            what = ", ".join(model_needs + measure_needs)
            raise UsageError(f"{what} need(s) the collection's structure: load it into a "
                             f"store and pass --store (or drop --no-store)")
        assessments = None
        if passages is not None:
            assessments = read_passages(passages, the_store, opts, warn)
            from graphprum.measures.bic import BEP_FAMILIES, require_beps

            require_beps([str(s) for s in specs if s.name in BEP_FAMILIES], assessments)
        if qrels is None:
            if assessments is None:
                raise UsageError("evaluating needs qrels (--qrels) or passages (--passages)")
            judged = _qrels_from_assessments(assessments, the_store)
        else:
            judged = read_qrels_like(qrels)
        if "all" in judged:
            raise UsageError("a topic of the qrels is named 'all', the name of the rows "
                             "that sum up the topics; rename it")
        classical = [str(s) for s in specs if family(s.name) is None]
        _prepare(classical, the_store)
        judged_kinds = _judged_kinds(the_store, judged)
        read = reading.result()
    for r in read:
        for message in r.notes:
            warn(message)
    if opts.task is not None:
        _check_task(opts.task, read, judged, opts.strict, warn)
    read = distinct_names(read, warn)
    n_units = collection_size(the_store, judged, opts.collection_size, opts.strict, warn,
                              judged_kinds)
    if opts.collection_size is not None:
        _check_size_given(opts.collection_size, read, judged, opts.max_results)
    unknown_judged = ({u for u, k in zip(*judged_kinds, strict=True) if k < 0}
                      if the_store is not None else set())
    topics = list(judged)
    # lengths from the topics themselves: reading ``ranked`` would split the
    # ids of every topic here, which the workers of --jobs do for their own
    if any(family(s.name) is not None for s in specs):  # only a family simulates
        from graphprum.measures.prum import check_mc_cost

        check_mc_cost(specs, [len(r.topics[t]) for r in read for t in topics if t in r.topics],
                      opts.force)
    user: list[tuple[MeasureSpec, Family]] = [
        (s, f) for s in specs if (f := family(s.name)) is not None]
    job = Job(runs=read, qrels=judged, topics=topics, models=models, measures=user,
              ideal_min=opts.ideal_min, collection_size=n_units, store=the_store,
              trees=opts.trees, assessments=assessments, judged_only=opts.judged_only,
              max_results=opts.max_results)
    classical_job = _Classical(job, classical, opts, unknown_judged) if classical else None
    if user or the_store is not None:
        per_topic_out, classical_values = _evaluate_topics(
            job, _usable_jobs(opts.jobs, the_store, len(topics), warn), opts.jobs == AUTO,
            progress or (lambda done, total: None), classical_job)
    else:
        per_topic_out = []
        classical_values = classical_job() if classical_job is not None else []
        if progress is not None:  # computed at once by the classical engine
            progress(len(topics), len(topics))
    if the_store is not None and per_topic_out:
        for ri, run in enumerate(read):
            _check_known(run, [out.unknown[ri] for out in per_topic_out], topics,
                         opts.max_results, the_store)
    for message in grouped_notes([m for out in per_topic_out for m in out.notes]):
        warn(message)
    return _table(job, specs, per_topic_out, classical_values, opts, per_topic, warn)


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


def _prepare(classical: Sequence[str], store: Store | None) -> None:
    """What the evaluation will need, loaded now (while runs may be read in
    a worker): the classical measures' modules, the store's columns mapped."""
    if classical:
        preload_classical(classical)
    if store is not None:
        from graphprum.store.base import TABLE

        if TABLE in store.capabilities:
            store.table()


#: Per run, measure name -> topic -> value of the classical measures.
ClassicalValues = list[dict[str, dict[str, float]]]


class _Classical:
    """The classical measures of every run over the job's topics: one piece
    of work, done after the topics or by a worker beside them."""

    def __init__(self, job: Job, names: list[str], opts: EvalOptions,
                 unknown: Collection[str]) -> None:
        self.job, self.names, self.opts, self.unknown = job, names, opts, unknown

    def __call__(self, topics: Sequence[str] | None = None) -> ClassicalValues:
        """Per run, measure name -> topic -> value, over ``topics`` (default:
        the job's)."""
        job, opts = self.job, self.opts
        topics = job.topics if topics is None else topics
        out = []
        for run in job.runs:
            run_topics = topics if opts.complete else [t for t in topics if t in run.topics]
            # ids the store does not hold count as non-relevant: only those the
            # qrels judge make a difference to a classical measure
            rankings = {t: prepare_ranking(run.ranked(t), job.qrels[t], self.unknown,
                                           max_results=opts.max_results,
                                           judged_only=opts.judged_only)
                        for t in run_topics}
            out.append(compute_classical(self.names, rankings, job.qrels,
                                         relevance_level=opts.relevance_level,
                                         missing=[t for t in run_topics
                                                  if t not in run.topics],
                                         qrels_path=job.qrels.path or None))
        return out

    def halves(self) -> tuple[list[str], list[str]] | None:
        """The job's topics in two halves (in order) whose values are those
        of one call over them all, so that two processes can share the work:
        None when a half could hold only empty rankings of some run (then a
        topic's value can depend on the others': pytrec_eval is not called
        on rankings that are all empty, and fills in none)."""
        topics = self.job.topics
        if len(topics) < 2 or self.opts.judged_only:  # (-J may empty a ranking)
            return None
        half = len(topics) // 2
        parts = (topics[:half], topics[half:])
        if all(any(len(run.topics.get(t, ())) for t in part)  # (-M is at least 1)
               for part in parts for run in self.job.runs):
            return list(parts[0]), list(parts[1])
        return None


def _joined(first: ClassicalValues, second: ClassicalValues) -> ClassicalValues:
    """The classical values of two sets of topics, per run joined."""
    return [{name: {**a[name], **b.get(name, {})} for name in a}
            for a, b in zip(first, second, strict=True)]


def _table(job: Job, specs: Sequence[MeasureSpec], per_topic_out: Sequence[TopicOutput],
           classical_values: Sequence[Mapping[str, dict[str, float]]], opts: EvalOptions,
           per_topic: bool, warn: Warn) -> ResultRows:
    """The result rows: per run, per measure, the topics' values and their aggregate."""
    qrels, topics, store = job.qrels, job.topics, job.store
    simulated = any(is_simulated(s) for s in specs)
    rows: list[tuple[str, str, str, float, float]] = []
    for ri, run in enumerate(job.runs):
        extra_topics = [t for t in run.topics if t not in qrels]
        if extra_topics:
            warn(f"note: run {run.tag}: {len(extra_topics)} topic(s) not in the qrels ignored: "
                 + ", ".join(extra_topics[:10]) + (" ..." if len(extra_topics) > 10 else ""))
        if store is not None:
            unknown = {u for out in per_topic_out for u in out.unknown[ri]}
            extra_ids = [u for t in extra_topics for u in run.ranked(t)]
            if extra_ids:
                found = store.kinds(extra_ids)
                unknown.update(u for u, k in zip(extra_ids, found, strict=True) if k < 0)
            _report_unknown(run, sorted(unknown), warn)
        values: dict[str, dict[str, float]] = {str(s): {} for s in specs}
        errors: dict[str, dict[str, float]] = {}
        for topic, out in zip(topics, per_topic_out, strict=False):
            for name, value in out.values[ri].items():
                values.setdefault(name, {})[topic] = value
            for name, err in out.stderr[ri].items():
                errors.setdefault(name, {})[topic] = err
        run_topics = topics if opts.complete else [t for t in topics if t in run.topics]
        if classical_values:
            values.update(classical_values[ri])
        for s in specs:
            name = str(s)
            per = values[name]
            vals = [per.get(t, 0.0) for t in run_topics]
            errs = _topic_errors(errors.get(name, {}), run_topics) if is_simulated(s) else None
            if per_topic:
                rows.extend((run.tag, name, t, v, e) for t, v, e in
                            zip(run_topics, vals, errs or [math.nan] * len(vals), strict=True))
            # added in trec_eval's order, topic ids sorted as C strings
            in_order = [per.get(t, 0.0) for t in sorted(run_topics, key=_c_order)]
            total = aggregate(in_order, aggregation(s))
            if name == "num_rel" and opts.complete:
                # trec_eval -c (m_num_rel.c): every judgement with REL > 0 of the
                # qrels, whatever -l, -J or -M
                total = float(sum(1 for judged in qrels.values()
                                  for rel in judged.values() if rel > 0))
            rows.append((run.tag, name, "all", total,
                         _mean_error(errs) if errs is not None else math.nan))
    absent = frozenset((run.tag, t) for run in job.runs for t in topics
                       if opts.complete and t not in run.topics)
    return ResultRows(rows, simulated, absent)


def _c_order(topic: str) -> bytes:
    """A topic id's sort key as C's strcmp compares it (trec_eval's order)."""
    return topic.encode("utf-8", "surrogateescape")


def _topic_errors(per: Mapping[str, float], topics: Sequence[str]) -> list[float]:
    """Standard errors of a simulated measure per topic; a topic that scores 0
    without simulation (missing from the run) has error 0."""
    return [per.get(t, 0.0) for t in topics]


def _mean_error(errs: Sequence[float]) -> float:
    """Standard error of the mean over topics of a simulated measure.

    Topics are simulated independently, so the standard error of the mean
    over n topics is sqrt(sum of squared per-topic errors) / n.

    >>> _mean_error([0.3, 0.4])
    0.25
    """
    return float(np.sqrt(np.sum(np.square(errs))) / len(errs)) if errs else 0.0


def stderr_rows(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with its ``stderr`` column turned into rows of their own, as the
    command line prints them: after the rows of a simulated measure, rows
    ``NAME stderr`` (:func:`~graphprum.evaluation.rows.printed_rows`).

    >>> import pandas as pd
    >>> df = pd.DataFrame([("r", "AP", "all", 0.5, float("nan")),
    ...                    ("r", "PRUM(exact=mc)", "1", 0.25, 0.01),
    ...                    ("r", "PRUM(exact=mc)", "all", 0.25, 0.01)],
    ...                   columns=[*COLUMNS, "stderr"])
    >>> stderr_rows(df)["measure"].tolist()
    ['AP', 'PRUM(exact=mc)', 'PRUM(exact=mc)', 'PRUM(exact=mc) stderr', 'PRUM(exact=mc) stderr']
    """
    if "stderr" not in df.columns:
        return df
    import pandas as pd

    rows = printed_rows(list(df[[*COLUMNS, "stderr"]].itertuples(index=False)))
    return pd.DataFrame(rows, columns=COLUMNS)


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
                     f"Load the collection the run was made for, or evaluate without the "
                     f"store (--no-store)")


def _check_task(task: str, runs: Sequence[Run], qrels: Qrels, strict: bool, warn: Warn) -> None:
    """List (or, with ``strict``, refuse) what in the runs breaks ``task``'s rules."""
    from graphprum.measures.inex import task_violations

    for run in runs:
        found = [f"topic {t}: {v}" for t in run.topics if t in qrels
                 for v in task_violations(task, run.ranked(t))]
        if not found:
            continue
        head = (f"run {run.tag}: {len(found)} result(s) break the rules of the {task} task: "
                + "; ".join(found[:10]) + (f"; ... {len(found) - 10} more" if len(found) > 10
                                           else ""))
        if strict:
            raise InputError(run.path or run.tag, None, head)
        warn("note: " + head)


#: ``jobs="auto"`` forks workers once the topics left are estimated to take at
#: least this many seconds in one process.  Forking costs little (the workers
#: inherit everything; ~10 ms per worker at 150 MB), but a worker's topics
#: cost ~30% more CPU than the same topics in one process (copy-on-write
#: faults, the store's per-document id tables built again in each worker):
#: on 2 cores the gain passes the cost from about 0.2 s of work left.
AUTO_MIN_SECONDS = 0.2


def _usable_jobs(jobs: int | str, store: Store | None, n_topics: int, warn: Warn) -> int:
    """The most processes ``jobs`` may use (``auto``: one per CPU), or 1 where
    forking cannot help or is not safe (a note when ``jobs`` asked for more)."""
    asked = jobs != AUTO
    most = cpu_count() if jobs == AUTO else int(jobs)
    if most <= 1 or n_topics < 2:
        return 1
    if not can_fork():
        if asked:
            warn("note: --jobs needs the fork start method, not available here; using 1")
        return 1
    if store is not None:
        from graphprum.store.base import FORK_SAFE

        if FORK_SAFE not in store.capabilities:
            if asked:
                warn("note: --jobs is ignored with a server store (a connection cannot be "
                     "shared between processes); using 1")
            return 1
    return min(most, n_topics)


def _topic_size(job: Job, topic: str) -> int:
    """What the work on ``topic`` grows with: its results over every run (at least 1)."""
    return max(1, sum(len(run.topics[topic]) for run in job.runs if topic in run.topics))


def _evaluate_topics(job: Job, jobs: int, auto: bool, progress: Progress,
                     classical: _Classical | None = None
                     ) -> tuple[list[TopicOutput], ClassicalValues]:
    """Every topic of ``job``, in topic order, in at most ``jobs`` processes;
    and the values of ``classical()`` (the classical measures over whole runs).

    Topics are evaluated here, one after the other, until the ones left are
    worth forking for: at once with an explicit ``jobs`` > 1 (after the first
    topic), and with ``auto`` when the topics left are estimated to take
    :data:`AUTO_MIN_SECONDS` or more, from the time per result of the topics
    done since the first (which also pays for loading what every topic
    needs).  The first topic is always evaluated here: what every topic needs
    (the modules of the measures and models, the store's look-up tables) is
    then loaded once, before the workers inherit it, not once in every worker.
    When workers are forked, ``classical`` is done beside the topics, in two
    halves (:meth:`_Classical.halves`) or as one piece, the first a worker
    takes (the biggest); else it is called here at the end.
    """
    topics = job.topics
    total = len(topics)
    progress(0, total)
    outs: list[TopicOutput] = []
    if jobs > 1 and job.store is not None:
        from graphprum.store.base import TABLE

        if TABLE in job.store.capabilities:
            job.store.table()  # map the columns once, before the workers inherit them
    sizes = [_topic_size(job, t) for t in topics] if auto and jobs > 1 else []
    warm_start = warm_done = 0.0
    for i, topic in enumerate(topics):
        if jobs > 1 and i >= 1 and total - i >= 2:
            if not auto:
                break
            if i >= 2:
                per_result = (time.perf_counter() - warm_start) / max(warm_done, 1)
                if per_result * sum(sizes[i:]) >= AUTO_MIN_SECONDS:
                    break
        outs.append(evaluate_topic(job, topic, lambda f: progress(len(outs) + f, total)))
        progress(len(outs), total)
        if i == 0:
            warm_start = time.perf_counter()
        else:
            warm_done += sizes[i] if sizes else 0
    else:
        return outs, classical() if classical is not None else []
    done_here = len(outs)
    # the classical measures in pieces beside the topics: one (None: every
    # topic) taken first by the worker, or two halves, the first taken by
    # the worker (it takes items from the front) and the second by this
    # process (from the back), each over the topics it mostly evaluates:
    # their ids are split there (a run read in workers keeps them joined
    # until a process reads them), not in both processes
    halves = classical.halves() if classical is not None else None
    pieces: list[tuple[list[str] | None]] = \
        [] if classical is None else [(None,)] if halves is None else [(halves[0],)]
    last = [(halves[1],)] if halves is not None else []
    work: list[str | tuple[list[str] | None]] = [*pieces, *topics[done_here:], *last]
    first, end = len(pieces), len(work) - len(last)

    def do(item: str | tuple[list[str] | None]) -> TopicOutput | ClassicalValues:
        if isinstance(item, str):
            return evaluate_topic(job, item)
        assert classical is not None
        return classical(item[0])

    arrived = [done_here]

    def done(i: int) -> None:
        if first <= i < end:  # a topic (a classical piece is not one)
            arrived[0] += 1
            progress(arrived[0], total)

    rest = fork_map(do, work, min(jobs, len(work)), done=done)
    values: ClassicalValues = rest[0] if pieces else []  # type: ignore[assignment]
    if last:
        values = _joined(values, rest[-1])  # type: ignore[arg-type]
    return [*outs, *rest[first:end]], values  # type: ignore[list-item]


def _judged_kinds(store: Store | None, qrels: Qrels) -> tuple[list[str], np.ndarray]:
    """The ids the qrels judge (sorted) and their kinds in ``store`` (-1: not there)."""
    ids = sorted({u for judged in qrels.values() for u in judged})
    if store is None or not ids:
        return ids, np.full(len(ids), -1, np.int64)
    return ids, store.kinds(ids)


def collection_size(store: Store | None, qrels: Qrels, given: float | None, strict: bool,
                    warn: Warn, judged: tuple[list[str], np.ndarray] | None = None) -> float:
    """N of DESIGN §1.4, and a report of qrels ids the store does not hold.

    ``judged`` is :func:`_judged_kinds` when already known."""
    if store is None:
        return math.inf if given is None else float(given)
    ids, kinds = judged if judged is not None else _judged_kinds(store, qrels)
    unknown = [u for u, k in zip(ids, kinds, strict=True) if k < 0]
    if unknown:
        message = (f"{len(unknown)} of {len(ids)} judged ids are not in the store "
                   f"{store.location}: " + ", ".join(unknown[:5])
                   + (" ..." if len(unknown) > 5 else ""))
        source = getattr(qrels, "path", "")
        if strict:
            if source and os.path.isfile(source):
                from graphprum.io.lines import find_line

                first = unknown[0]
                line = find_line(source, lambda f: len(f) >= 3 and f[2] == first) or None
                raise InputError(source, line, message)
            raise UsageError(message)
        warn("note: " + (f"{source}: " if source else "") + message)
    if given is not None:
        return float(given)
    known = kinds[kinds >= 0]
    if len(known) == 0:
        return float(store.count_units())
    kind = int(np.bincount(known.astype(np.int64)).argmax())
    return float(store.count_units(kind))


def _check_size_given(n: float, runs: Sequence[Run], topics: Collection[str],
                      max_results: int | None = None) -> None:
    """UsageError when a ranking that is evaluated (a topic of ``topics``,
    cut at ``max_results``) holds more units than ``--collection-size`` N:
    N counts every unit a user could be shown, ranked or not (the measures
    would see a negative number of unranked units).

    >>> from graphprum.io.objects import run_from_object
    >>> runs = run_from_object({"1": {"a": 2.0, "b": 1.0}}, "runs[0]", "r")
    >>> _check_size_given(2, runs, ["1"]), _check_size_given(1, runs, ["2"])
    (None, None)
    >>> try:
    ...     _check_size_given(1, runs, ["1"])
    ... except UsageError as exc:
    ...     print(str(exc)[:60])
    --collection-size 1 is smaller than the 2 units run 'r' rank
    """
    longest = max(((min(len(ranked), max_results or len(ranked)), r.tag, t)
                   for r in runs for t, ranked in r.topics.items() if t in topics),
                  default=None)
    if longest is not None and longest[0] > n:
        raise UsageError(f"--collection-size {n:g} is smaller than the {longest[0]} units run "
                         f"{longest[1]!r} ranks for topic {longest[2]!r} (N counts every unit "
                         f"of the collection)")


def _report_unknown(run: Run, unknown: list[str], warn: Warn) -> None:
    """The note on result ids of ``run`` that the store does not hold (sorted)."""
    if unknown:
        warn(f"note: run {run.tag}: {len(unknown)} result id(s) not in the store, counted as "
             f"non-relevant: " + ", ".join(unknown[:5]) + (" ..." if len(unknown) > 5 else ""))


def _qrels_from_assessments(assessments: Mapping[str, TopicAssessment],
                            store: Store | None) -> Qrels:
    from graphprum.measures.inex_base import qrels_from_assessments

    return Qrels(qrels_from_assessments(assessments, store))
