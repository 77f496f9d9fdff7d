"""The evaluation loop behind :func:`graphprum.evaluate` and ``graphprum eval``.

For every run and every topic of the qrels, a :class:`TopicContext` is built
and each user-model measure computes one value from it; classical measures
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
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from graphprum.context import TopicContext, topic_ids
from graphprum.errors import UsageError
from graphprum.measures.classical import compute_classical
from graphprum.measures.names import aggregation
from graphprum.measures.prum import check_mc_cost
from graphprum.measures.registry import MeasureSpec, aggregate, family
from graphprum.navigation.base import parse_model
from graphprum.store.base import FORK_SAFE, TABLE

COLUMNS = ["run", "measure", "topic", "value"]
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


def needs_store(measures: Sequence[str], nav: Sequence[str]) -> bool:
    """Whether these measures or navigation models read the collection's structure."""
    if any(parse_model(m).needs_store for m in nav):
        return True
    for s in expand_measures(measures):
        fam = family(s.name)
        if fam is not None and fam.needs_store:
            return True
    return False


def run_evaluation(runs: Sequence[Any], qrels: Any, measures: Sequence[str], *,
                   nav: Sequence[str] | str = ("classical",), store: Any = None,
                   collection_size: float | None = None, ideal_min: float = 1.0,
                   order: str = "score", dedup: bool = False, trees: bool = False,
                   passages: Any = None, assessments: Any = None, per_topic: bool = True,
                   strict: bool = False, warn: Warn | None = None,
                   offsets: str = "chars", ends: str = "exclusive",
                   jobs: int = 1, progress: Progress | None = None,
                   force: bool = False,
                   complete: bool = True, relevance_level: int = 1,
                   judged_only: bool = False, max_results: int | None = None,
                   task: str | None = None) -> pd.DataFrame:
    """Evaluate; see :func:`graphprum.evaluate` for the parameters.

    ``complete``, ``relevance_level``, ``judged_only`` and ``max_results``
    are trec_eval's ``-c``, ``-l``, ``-J`` and ``-M`` (module notes).
    ``task`` (an INEX 2006 task: focused, ric, bic) checks that every run
    keeps the task's rules (:func:`graphprum.measures.inex.task_violations`):
    violations are listed with ``warn``, and are an error with ``strict``.

    ``progress(done, total)`` is called as topics finish (a progress bar),
    and with fractions of a topic during a ``PRUM(exact=mc)`` simulation.
    A simulation larger than :data:`~graphprum.measures.prum.MC_WORK_LIMIT`
    (estimated before anything is evaluated) is refused unless ``force``.

    ``jobs`` > 1 evaluates topics in that many forked processes (the store's
    memory-mapped columns are inherited, not copied); the table is the same,
    value for value, as with ``jobs=1``.  Topics are evaluated one after the
    other, all runs of a topic together: ids are resolved once per (run,
    topic) and what depends on the topic only (INEX recall-bases) is computed
    once and shared by the runs.
    """
    from graphprum.io.qrels import read_qrels

    warn = warn or (lambda message: None)
    if isinstance(nav, str):
        nav = [nav]
    if collection_size is not None and not collection_size > 0:
        raise UsageError(f"--collection-size {collection_size:g}: N must be a positive "
                         f"number of units")
    if not ideal_min > 0:
        raise UsageError(f"--ideal-min {ideal_min:g}: must be > 0 (REL 0 means not relevant)")
    if not isinstance(jobs, int) or jobs < 1:
        raise UsageError(f"--jobs must be a positive integer, got {jobs!r}")
    if max_results is not None and (not isinstance(max_results, int) or max_results < 1):
        raise UsageError(f"-M/--max-results must be a positive integer, got {max_results!r}")
    if trees and (judged_only or max_results is not None):
        raise UsageError("--judged-only and --max-results do not apply to tree runs (--trees)")
    specs = expand_measures(measures)
    if not specs:
        raise UsageError("no measure given (-m)")
    models = [parse_model(m) for m in nav]
    if isinstance(store, str | os.PathLike):
        from graphprum.store import open_store

        store = open_store(store, create=False)
    model_needs = [m.spec for m in models if m.needs_store]
    measure_needs = [str(s) for s in specs if (f := family(s.name)) and f.needs_store]
    if store is None and (model_needs or measure_needs):
        what = ", ".join(model_needs + measure_needs)
        raise UsageError(f"{what} need(s) the collection's structure: load it into a store "
                         f"and pass --store (or drop --no-store)")
    if assessments is None and passages is not None:
        assessments = _read_assessments(passages, store, offsets, ends, warn)
    if assessments is not None:
        from graphprum.measures.bic import BEP_FAMILIES, require_beps

        require_beps([str(s) for s in specs if s.name in BEP_FAMILIES], assessments)
    if qrels is None:
        if assessments is None:
            raise UsageError("eval needs --qrels or --passages")
        qrels = _qrels_from_assessments(assessments, store)
    elif isinstance(qrels, str | os.PathLike):
        inputs = [str(x) for x in (qrels, passages, *runs) if isinstance(x, str | os.PathLike)]
        if inputs.count("-") > 1:
            raise UsageError("only one input can be read from standard input (-)")
        qrels = read_qrels(qrels)
    read = _read_runs(runs, order, dedup, trees,
                      _usable_jobs(jobs, None, len(runs), lambda message: None))
    if not read:
        raise UsageError("no run given")
    for r in read:
        for message in getattr(r, "notes", ()):
            warn(message)
    if task is not None:
        _check_task(task, read, qrels, strict, warn)
    tags = Counter(r.tag for r in read)
    if len(tags) < len(read):
        warn("note: several runs share a TAG: " + ", ".join(t for t, c in tags.items() if c > 1)
             + "; rows are told apart by file order only")
    n_units = _collection_size(store, qrels, collection_size, strict, warn)
    topics = list(qrels)
    check_mc_cost(specs, [len(r.ranked(t)) for r in read for t in topics if t in r.topics],
                  force)
    job = _Job(runs=read, qrels=qrels, topics=topics, models=models,
               specs=[s for s in specs if family(s.name) is not None], ideal_min=ideal_min,
               collection_size=n_units, store=store, trees=trees, assessments=assessments,
               judged_only=judged_only, max_results=max_results)
    if job.specs or store is not None:
        per_topic_out = _evaluate_topics(job, _usable_jobs(jobs, store, len(topics), warn),
                                         progress or (lambda done, total: None))
    else:
        per_topic_out = []
    classical = [s for s in specs if family(s.name) is None]
    if store is not None and per_topic_out:
        for ri, run in enumerate(read):
            _check_known(run, [out.unknown[ri] for out in per_topic_out], topics, max_results,
                         store)
    for out in per_topic_out:
        for message in out.notes:
            warn(message)
    rows: list[tuple[str, str, str, float]] = []
    for ri, run in enumerate(read):
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
        for topic, out in zip(topics, per_topic_out, strict=False):
            for name, value in out.values[ri].items():
                values.setdefault(name, {})[topic] = value
        run_topics = topics if complete else [t for t in topics if t in run.topics]
        if classical:
            unknown_ids = {t: set(out.unknown[ri]) for t, out in
                           zip(topics, per_topic_out, strict=False)}
            rankings = {t: prepare_ranking(run.ranked(t), qrels[t], unknown_ids.get(t, ()),
                                           max_results=max_results, judged_only=judged_only)
                        for t in run_topics}
            values.update(compute_classical([str(s) for s in classical], rankings, qrels,
                                            relevance_level=relevance_level,
                                            missing=[t for t in run_topics
                                                     if t not in run.topics],
                                            qrels_path=getattr(qrels, "path", None) or None))
        for s in specs:
            per = values[str(s)]
            vals = [per.get(t, 0.0) for t in run_topics]
            if per_topic:
                rows.extend((run.tag, str(s), t, v) for t, v in zip(run_topics, vals, strict=True))
            rows.append((run.tag, str(s), "all", aggregate(vals, aggregation(s))))
            if s.params.get("exact") == "mc":
                rows.extend(_stderr_rows(run.tag, s, values.get(stderr_name(s), {}), run_topics,
                                         per_topic))
    return pd.DataFrame(rows, columns=COLUMNS)


#: Prefix of the id that stands in a ranking for a result the store does not
#: hold (DESIGN §4: counted as non-relevant): no qrels line can judge it.
UNKNOWN_PREFIX = "\x00not-in-store\x00"


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


def _check_known(run: Any, unknown: list[list[str]], topics: list[str],
                 max_results: int | None, store: Any) -> None:
    """InputError when most result ids of ``run`` (in the qrels' topics) are not
    in the store: the run was made for another collection or another id
    convention, and every value would be 0.  The message shows both."""
    from graphprum.errors import InputError

    missing = sum(len(u) for u in unknown)
    total = sum(len(run.ranked(t)[:max_results]) for t in topics if t in run.topics)
    if total == 0 or 2 * missing <= total:
        return
    seen = [u for ids in unknown for u in ids][:3]
    table = store.table()
    n = len(table)
    rows = sorted({0, min(1, n - 1), n // 2, n - 1}) if n else []
    expected = table.ids(rows) if rows else []
    raise InputError(getattr(run, "path", "") or run.tag, None,
                     f"{missing} of {total} result ids of run {run.tag} are not in the store "
                     f"{getattr(store, 'location', '')}: the run's ids look like "
                     f"{', '.join(map(repr, seen))}; the store's like "
                     f"{', '.join(map(repr, expected)) or '(an empty store)'} (DESIGN §1.1). "
                     f"Load the collection the run was made for, or evaluate without the "
                     f"store (--no-store)")


def _check_task(task: str, runs: Sequence[Any], qrels: Any, strict: bool, warn: Warn) -> None:
    """List (or, with ``strict``, refuse) what in the runs breaks ``task``'s rules."""
    from graphprum.errors import InputError
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
            raise InputError(getattr(run, "path", "") or run.tag, None, head)
        warn("note: " + head)


def stderr_name(spec: MeasureSpec) -> str:
    """Row name of the standard error of a simulated measure: ``NAME(...) stderr``."""
    return f"{spec} stderr"


def _stderr_rows(tag: str, spec: MeasureSpec, per: dict[str, float], topics: list[str],
                 per_topic: bool) -> list[tuple[str, str, str, float]]:
    """Standard-error rows of a simulated measure (``exact=mc``).

    Topics are simulated independently, so the standard error of the mean
    over n topics is sqrt(sum of squared per-topic errors) / n; a topic that
    scores 0 without simulation (missing from the run) has error 0.
    """
    name = stderr_name(spec)
    errs = [per.get(t, 0.0) for t in topics]
    rows = [(tag, name, t, e) for t, e in zip(topics, errs, strict=True)] if per_topic else []
    mean_err = float(np.sqrt(np.sum(np.square(errs))) / len(errs)) if errs else 0.0
    rows.append((tag, name, "all", mean_err))
    return rows


# --------------------------------------------------------------------------
# per-topic evaluation (sequential or in forked processes)

#: ``ctx.extra`` keys (first tuple item) whose value depends on the topic only,
#: not on the run, so that all runs of a topic share one computation.
TOPIC_LEVEL_KEYS = frozenset({"inex_recall_base"})


@dataclass
class _Job:
    """Everything the evaluation of one topic needs (inherited by forked workers)."""

    runs: list[Any]
    qrels: Any
    topics: list[str]
    models: list[Any]
    specs: list[MeasureSpec]
    ideal_min: float
    collection_size: float
    store: Any
    trees: bool
    assessments: Any
    judged_only: bool = False
    max_results: int | None = None


@dataclass
class _TopicOutput:
    """Values of one topic: per run, measure name -> value; and per run the
    result ids of that topic the store does not hold."""

    values: list[dict[str, float]]
    unknown: list[list[str]]
    notes: list[str] = field(default_factory=list)


class _SharedExtra(dict):
    """``ctx.extra`` of one (run, topic): keys of :data:`TOPIC_LEVEL_KEYS` live
    in a dictionary shared by every run of the topic."""

    def __init__(self, shared: dict) -> None:
        super().__init__()
        self.shared = shared

    @staticmethod
    def _topic_level(key: Any) -> bool:
        head = key[0] if isinstance(key, tuple) and key else key
        return isinstance(head, str) and head in TOPIC_LEVEL_KEYS

    def __contains__(self, key: Any) -> bool:
        if self._topic_level(key):
            return key in self.shared
        return super().__contains__(key)

    def __getitem__(self, key: Any) -> Any:
        if self._topic_level(key):
            return self.shared[key]
        return super().__getitem__(key)

    def __setitem__(self, key: Any, value: Any) -> None:
        if self._topic_level(key):
            self.shared[key] = value
        else:
            super().__setitem__(key, value)

    def get(self, key: Any, default: Any = None) -> Any:
        """``dict.get`` that looks in the shared dictionary for topic-level keys."""
        if self._topic_level(key):
            return self.shared.get(key, default)
        return super().get(key, default)


def _evaluate_topic(job: _Job, topic: str, store: Any,
                    tick: Callable[[float], None] | None = None) -> _TopicOutput:
    """All runs of one topic: every user-model measure, and the unknown result ids.

    The units the topic's measures may read are pulled from the store once
    (:meth:`~graphprum.store.base.Store.view`) and shared by every run.
    ``tick(fraction of the topic)`` is handed to simulations."""
    shared: dict[Any, Any] = {}
    assessment = _topic_assessment(job.assessments, topic)
    values: list[dict[str, float]] = []
    unknown: list[list[str]] = []
    notes: list[str] = []
    view = None
    if store is not None:
        rankings = [run.ranked(topic) for run in job.runs]
        trees = [u for run in job.runs if job.trees
                 for t in (run.trees or {}).get(topic) or [] for u in t]
        ids = topic_ids(rankings, job.qrels[topic], [trees] if trees else None)
        view = store.view(ids, assessment.docs if assessment is not None else [])
    for run in job.runs:
        ranked = run.ranked(topic)
        if job.max_results is not None:
            ranked = ranked[:job.max_results]
        missing: list[str] = []
        if view is not None and ranked:
            rows = view.resolve(ranked)
            missing = [u for u, r in zip(ranked, rows, strict=True) if r < 0]
        unknown.append(missing)
        if missing or job.judged_only:
            ranked = prepare_ranking(ranked, job.qrels[topic], set(missing),
                                     judged_only=job.judged_only)
        ctx = TopicContext(
            topic=topic, ranked=ranked, qrels=job.qrels[topic], models=job.models,
            ideal_min=job.ideal_min, collection_size=job.collection_size,
            store=store, trees=(run.trees or {}).get(topic) if job.trees else None,
            assessments=assessment, extra=_SharedExtra(shared), view=view,
            exh_spec=getattr(job.qrels, "exh_spec", {}).get(topic),
        )
        if tick is not None:
            n_runs, ri = len(job.runs), len(values)
            ctx.extra[("progress",)] = lambda f, ri=ri, n=n_runs: tick((ri + f) / n)
        out: dict[str, float] = {}
        # a topic the run lacks is evaluated on an empty ranking (trec_eval -c)
        for s in job.specs:
            fam = family(s.name)
            assert fam is not None
            try:
                got = fam.evaluate(s, ctx)
            except UsageError as exc:
                message = str(exc)
                raise UsageError(message if message.startswith(str(s))
                                 else f"{s}: {message}") from None
            out[str(s)] = got.value
            if got.stderr is not None:
                out[stderr_name(s)] = float(got.stderr)
            if got.note is not None:
                notes.append(f"note: run {run.tag}: {got.note}")
        values.append(out)
    return _TopicOutput(values, unknown, notes)


#: The job of the forked workers (set by the parent just before forking).
_WORKER_JOB: _Job | None = None


def _worker(i: int) -> Any:
    """Evaluate topic ``i`` of the inherited job; errors come back as values."""
    from graphprum.errors import GraphprumError, InputError

    job = _WORKER_JOB
    assert job is not None
    try:
        return _evaluate_topic(job, job.topics[i], job.store)
    except InputError as exc:
        return ("error", type(exc), (exc.path, exc.line, exc.message))
    except GraphprumError as exc:
        return ("error", type(exc), (str(exc),))


def _usable_jobs(jobs: int, store: Any, n_topics: int, warn: Warn) -> int:
    """``jobs``, or 1 where forking cannot help or is not safe."""
    import multiprocessing

    if jobs <= 1 or n_topics < 2:
        return 1
    if "fork" not in multiprocessing.get_all_start_methods():
        warn("note: --jobs needs the fork start method, not available here; using 1")
        return 1
    if store is not None and FORK_SAFE not in store.capabilities:
        warn("note: --jobs is ignored with a server store (a connection cannot be "
             "shared between processes); using 1")
        return 1
    return min(jobs, n_topics)


def _read_one(args: tuple[Any, str, bool, bool]) -> Any:
    from graphprum.errors import GraphprumError, InputError
    from graphprum.io.runs import read_run

    run, order, dedup, trees = args
    try:
        return run if hasattr(run, "topics") else read_run(run, order=order, dedup=dedup,
                                                             trees=trees)
    except InputError as exc:
        return ("error", type(exc), (exc.path, exc.line, exc.message))
    except GraphprumError as exc:
        return ("error", type(exc), (str(exc),))


def _read_runs(runs: Sequence[Any], order: str, dedup: bool, trees: bool,
               jobs: int) -> list[Any]:
    """Read the run files (those not already read), in ``jobs`` processes."""
    from graphprum.io.lines import is_stream, read_bytes
    from graphprum.io.runs import read_run

    names = [str(r) for r in runs if not hasattr(r, "topics")]
    if names.count("-") > 1:
        raise UsageError("only one input can be read from standard input (-)")
    for r in runs:  # read once, before any worker is forked
        if not hasattr(r, "topics") and is_stream(r):
            read_bytes(r)
    todo = [(r, order, dedup, trees) for r in runs]
    if jobs > 1 and sum(not hasattr(r, "topics") for r in runs) > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            read = pool.map(_read_one, todo, chunksize=1)
    else:
        return [r if hasattr(r, "topics") else read_run(r, order=order, dedup=dedup, trees=trees)
                for r in runs]
    for r in read:
        if isinstance(r, tuple):
            _, cls, args = r
            raise cls(*args)
    return read


def _evaluate_topics(job: _Job, jobs: int, progress: Progress) -> list[_TopicOutput]:
    """Every topic of ``job``, in topic order, in ``jobs`` processes."""
    global _WORKER_JOB

    store = job.store
    total = len(job.topics)
    outs: list = []
    progress(0, total)
    if jobs == 1:
        for t in job.topics:
            outs.append(_evaluate_topic(job, t, store,
                                        lambda f: progress(len(outs) + f, total)))
            progress(len(outs), total)
        return outs
    import multiprocessing

    if job.store is not None and TABLE in job.store.capabilities:
        job.store.table()  # map the columns once, before the workers inherit them
    _WORKER_JOB = job
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for out in pool.imap(_worker, range(total), chunksize=1):
                outs.append(out)
                progress(len(outs), total)
    finally:
        _WORKER_JOB = None
    for out in outs:
        if isinstance(out, tuple):
            _, cls, args = out
            raise cls(*args)
    return outs


def _collection_size(store: Any, qrels: Any, given: float | None, strict: bool,
                     warn: Warn) -> float:
    """N of DESIGN §1.4, and a report of qrels ids the store does not hold."""
    if store is None:
        return math.inf if given is None else float(given)
    ids = sorted({u for judged in qrels.values() for u in judged})
    kinds = store.kinds(ids) if ids else np.zeros(0, np.int64)
    unknown = [u for u, k in zip(ids, kinds, strict=True) if k < 0]
    if unknown:
        message = (f"{len(unknown)} of {len(ids)} judged ids are not in the store "
                   f"{store.location}: " + ", ".join(unknown[:5])
                   + (" ..." if len(unknown) > 5 else ""))
        if strict:
            raise UsageError(message)
        warn("note: " + message)
    if given is not None:
        return float(given)
    known = kinds[kinds >= 0]
    if len(known) == 0:
        return float(store.count_units())
    kind = int(np.bincount(known.astype(np.int64)).argmax())
    return float(store.count_units(kind))


def _report_unknown(run: Any, unknown: list[str], warn: Warn) -> None:
    """The note on result ids of ``run`` that the store does not hold (sorted)."""
    if unknown:
        warn(f"note: run {run.tag}: {len(unknown)} result id(s) not in the store, counted as "
             f"non-relevant: " + ", ".join(unknown[:5]) + (" ..." if len(unknown) > 5 else ""))


def _read_assessments(passages: Any, store: Any, offsets: str, ends: str, warn: Warn) -> Any:
    from graphprum.assessments import read_assessments

    return read_assessments(passages, store, units=offsets, end=ends, warn=warn)


def _topic_assessment(assessments: Any, topic: str) -> Any:
    """The topic's passage assessments; an empty one for a topic they do not
    mention (so its INEX measures score 0), None without assessments."""
    if assessments is None:
        return None
    found = assessments.get(topic)
    if found is None:
        from graphprum.assessments import TopicAssessment

        found = TopicAssessment(topic)
    return found


def _qrels_from_assessments(assessments: Any, store: Any) -> dict[str, dict[str, float]]:
    from graphprum.measures.inex_base import qrels_from_assessments

    return qrels_from_assessments(assessments, store)
