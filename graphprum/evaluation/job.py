"""Preparing an evaluation: inputs read and checked, the :class:`Job`
that :mod:`graphprum.evaluation.core` then runs.

:func:`prepare_job` does, in this order, everything that can refuse an
evaluation before its first topic: the measures resolved, the navigation
models parsed and checked against the store, the passages and qrels read,
the store's columns mapped (so that forked workers inherit them), the runs
read (:func:`~graphprum.evaluation.inputs.read_run_items`) and checked
(INEX task rules, distinct names; with ``unknown="skip"``, the ids the
store does not hold dropped), the collection size N found, and the cost of
simulations estimated.  Notes go to ``warn`` as they are found.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence

import numpy as np

from graphprum.assessments import TopicAssessment
from graphprum.errors import InputError, UsageError
from graphprum.evaluation.inputs import (
    MeasuresLike,
    PassagesLike,
    QrelsLike,
    RunsLike,
    check_stdin,
    is_path,
    measure_names,
    read_passages,
    read_qrels_like,
    read_run_items,
    run_items,
    source_texts,
)
from graphprum.evaluation.options import EvalOptions
from graphprum.io.lines import find_line
from graphprum.io.qrels import Qrels
from graphprum.io.range_runs import Documents, resolve_ranges
from graphprum.io.ranking import without_ids
from graphprum.io.runs import Run
from graphprum.measures.bic import BEP_FAMILIES, require_beps
from graphprum.measures.classical import trec_grades
from graphprum.measures.inex import task_violations
from graphprum.measures.inex_base import qrels_from_assessments
from graphprum.measures.names import resolve
from graphprum.measures.prum import check_mc_cost
from graphprum.measures.registry import Family, MeasureSpec, families, family
from graphprum.navigation.base import NavigationModel, parse_model
from graphprum.store.base import TABLE, Store
from graphprum.store.tables import TableStore
from graphprum.units import KIND_VIDEO

Warn = Callable[[str], None]

__all__ = ["Job", "collection_size", "distinct_names", "expand_measures", "needs_store",
           "prepare_job", "some_topics", "uses_user_models"]


@dataclasses.dataclass(frozen=True)
class Job:
    """Everything the evaluation of a chunk of topics needs (inherited by
    forked workers, never pickled).

    ``specs`` are every measure asked for, in order: ``measures`` the
    user-model ones with their families, ``classical`` the names computed by
    trec_eval's code; ``judged_unknown`` the judged ids the store does not
    hold (a classical measure counts a result among them as non-relevant);
    ``skipped`` per run the result ids dropped (``unknown="skip"``).
    """

    runs: Sequence[Run]
    qrels: Qrels
    topics: Sequence[str]
    models: Sequence[NavigationModel]
    measures: Sequence[tuple[MeasureSpec, Family]]
    classical: Sequence[str]
    specs: Sequence[MeasureSpec]
    options: EvalOptions
    collection_size: float
    store: Store | None
    assessments: Mapping[str, TopicAssessment] | None
    judged_unknown: frozenset[str] = frozenset()
    skipped: tuple[tuple[str, ...], ...] = ()


def expand_measures(names: Sequence[str]) -> list[MeasureSpec]:
    """Resolve measure names (:func:`graphprum.measures.names.resolve`): sets
    and bare family names expand into the names they stand for; duplicates go."""
    out: dict[str, MeasureSpec] = {}
    for name in names:
        for spec in resolve(str(name)):
            out.setdefault(str(spec), spec)
    return list(out.values())


def needs_store(measures: MeasuresLike, nav: Sequence[str]) -> bool:
    """Whether these measures or navigation models read the collection's structure."""
    if any(parse_model(m).needs_store for m in nav):
        return True
    return any((fam := family(s.name)) is not None and fam.needs_store
               for s in expand_measures(measure_names(measures)))


def uses_user_models(measures: MeasuresLike) -> bool:
    """Whether any of these measures is graphprum's (a user-model measure),
    not a classical one."""
    return any(family(s.name) is not None for s in expand_measures(measure_names(measures)))


def prepare_job(runs: RunsLike, qrels: QrelsLike | None, measures: MeasuresLike, *,
                options: EvalOptions, store: Store | None, passages: PassagesLike | None,
                warn: Warn) -> Job:
    """The job of an evaluation, every input read and checked (module notes)."""
    specs = expand_measures(measure_names(measures))
    if not specs:
        raise UsageError("no measure given (-m)")
    items = run_items(runs)
    if not items:
        raise UsageError("no run given")
    check_stdin([qrels, passages, *(run for _, run in items)])
    models = [parse_model(m) for m in options.nav]
    user = [(s, f) for s in specs if (f := family(s.name)) is not None]
    _check_store_given(store, [m.spec for m in models if m.needs_store]
                       + [str(s) for s, f in user if f.needs_store])
    assessments = None
    if passages is not None:
        assessments = read_passages(passages, store, options, warn)
        require_beps([str(s) for s in specs if s.name in BEP_FAMILIES], assessments)
    if qrels is None:
        if assessments is None:
            raise UsageError("evaluating needs qrels (--qrels) or passages (--passages)")
        judged = Qrels(qrels_from_assessments(assessments, store))
    else:
        judged = read_qrels_like(qrels)
        if assessments is not None:
            _note_topics_apart(judged, assessments, passages, warn)
    if "all" in judged:
        raise UsageError("a topic of the qrels is named 'all', the name of the rows "
                         "that sum up the topics; rename it")
    classical = [str(s) for s in specs if family(s.name) is None]
    if classical:
        trec_grades(judged, judged.path or None)  # its errors name the qrels' topic and line
    if store is not None and TABLE in store.capabilities:
        store.table()  # the columns mapped once, before any worker is forked
        _note_no_links(store, models, warn)
    judged_kinds = _judged_kinds(store, judged)
    read = read_run_items(items, options)
    for run in read:
        for message in run.notes:
            warn(message)
    docs = _range_documents(read, specs, options, store)
    if options.task is not None:
        _check_task(options.task, read, judged, options.strict, warn)
    read = distinct_names(read, warn)
    skipped: tuple[tuple[str, ...], ...] = ()
    if options.unknown == "skip":
        read, skipped = _skip_unknown(read, store, docs)
    if docs is not None:
        assert store is not None
        doc_text = source_texts(store) if options.offsets == "bytes" else None
        read = [resolve_ranges(run, docs, doc_text) for run in read]
    n_units = collection_size(store, judged, options.collection_size, options.strict, warn,
                              judged_kinds)
    topics = list(judged)
    if options.collection_size is not None:
        _check_size_given(options.collection_size, read, topics, options.max_results)
    lengths = [len(r.topics[t]) for r in read for t in topics if t in r.topics]
    check_mc_cost([s for s, _ in user], lengths, options.force)
    return Job(runs=read, qrels=judged, topics=topics, models=models, measures=user,
               classical=classical, specs=specs,
               options=options, collection_size=n_units, store=store, assessments=assessments,
               judged_unknown=frozenset(u for u, k in zip(*judged_kinds, strict=True) if k < 0)
               if store is not None else frozenset(), skipped=skipped)


#: Navigation models that walk the store's LINK edges.
LINK_MODELS = frozenset({"links", "browse"})


def _note_no_links(store: Store, models: Sequence[NavigationModel], warn: Warn) -> None:
    """A note when a model walks links and the (embedded) store holds none:
    it then moves nobody, and PRUM equals the classical one."""
    walking = [m.spec for m in models if m.spec.split(":", 1)[0] in LINK_MODELS]
    if walking and isinstance(store, TableStore) and not len(store.link_rows()[0]):
        warn(f"note: --nav {walking[0]}: the store holds no links, so the model follows none "
             f"(load xml --links TAG@ATTR, load web, or load links FILE add them)")


def _note_topics_apart(judged: Qrels, assessments: Mapping[str, TopicAssessment],
                       passages: PassagesLike | None, warn: Warn) -> None:
    """Notes when the qrels and the passages (both given) hold different
    topics: the qrels name the topics evaluated, so a qrels topic without
    passages scores 0 on the measures that read passages (and counts in
    their means), and a passages topic the qrels lack is not evaluated."""
    where = f"{passages}" if is_path(passages) else "passages"
    lacking = [t for t in judged if t not in assessments]
    if lacking:
        warn(f"note: {where}: {len(lacking)} topic(s) of the qrels have no passages: the "
             f"measures that read passages score them 0, in their means: "
             + some_topics(lacking))
    extra = [t for t in assessments if t not in judged]
    if extra:
        warn(f"note: {where}: {len(extra)} topic(s) not in the qrels ignored (the qrels name "
             f"the topics evaluated): " + some_topics(extra))


def some_topics(topics: Sequence[str]) -> str:
    """The first 10 of ``topics``, and "..." when there are more (notes)."""
    return ", ".join(topics[:10]) + (" ..." if len(topics) > 10 else "")


def _check_store_given(store: Store | None, needs: Sequence[str]) -> None:
    """UsageError when navigation models or measures (``needs``) read the
    collection's structure and there is no store."""
    if store is None and needs:
        verb = "needs" if len(needs) == 1 else "need"
        raise UsageError(f"{', '.join(needs)} {verb} the collection's structure: load it "
                         f"into a store and pass --store (or drop --no-store)")


def _range_documents(runs: Sequence[Run], specs: Sequence[MeasureSpec], options: EvalOptions,
                     store: Store | None) -> Documents | None:
    """The documents range runs may name (None when every run is of units);
    UsageError when a measure or an option does not apply to ranges, or
    there is no store to read the documents from."""
    ranged = next((run for run in runs if run.ranges is not None), None)
    if ranged is None:
        return None
    what = f"run {ranged.tag} ranks ranges of documents (passages or clips), not units"
    refused = [str(s) for s in specs if (f := family(s.name)) is None or not f.ranges]
    if refused:
        takes = [name for name, f in families().items() if f.ranges]
        raise UsageError(f"{what}: {', '.join(refused)} take(s) runs of units; the "
                         f"measures of range runs are {', '.join(takes)} (graphprum measures "
                         f"NAME says how each reads a range)")
    for given, flag in ((options.trees, "--trees"), (options.judged_only, "--judged-only"),
                        (options.task is not None, "--task")):
        if given:
            raise UsageError(f"{what}: {flag} applies to runs of units only")
    if store is None:
        raise UsageError(f"{what}: ranges are read against the collection (their documents' "
                         f"lengths and kinds): load it into a store and pass --store")
    frame = store.documents()
    return Documents(frame["name"].tolist(), np.asarray(frame["kind"]) == KIND_VIDEO,
                     np.asarray(frame["length"], dtype=np.float64))


def _skip_unknown(runs: Sequence[Run], store: Store | None, docs: Documents | None = None
                  ) -> tuple[list[Run], tuple[tuple[str, ...], ...]]:
    """``runs`` without the result ids ``store`` does not hold (``unknown="skip"``;
    a range run's documents ``docs`` does not hold), and per run the ids dropped."""
    if store is None:
        raise UsageError("--unknown skip drops the result ids the store does not hold: it "
                         "needs a store (without one, ids are opaque strings)")
    held = set(docs.names) if docs is not None else set()
    out: list[Run] = []
    dropped: list[tuple[str, ...]] = []
    for run in runs:
        kept, gone = without_ids(run, (lambda ids: np.array([d in held for d in ids], bool))
                                 if run.ranges is not None else
                                 (lambda ids: store.kinds(ids) >= 0))
        out.append(kept)
        dropped.append(tuple(gone))
    return out, tuple(dropped)


def distinct_names(runs: list[Run], warn: Warn) -> list[Run]:
    """``runs`` with distinct names: runs that share a TAG (a copy of a run
    file with one setting changed, say) are named ``TAG (FILE)`` after the
    file each was read from (``TAG (N)``, N its place among the runs, when
    that does not tell them apart), with a note; one row per run, so that
    tables, comparisons and plots keep them apart.

    >>> runs = [Run("bm25", path="a.txt"), Run("bm25", path="b.txt"), Run("x", path="c")]
    >>> [r.tag for r in distinct_names(runs, print)]
    note: runs share a TAG, so they are named apart: 'bm25 (a.txt)', 'bm25 (b.txt)'
    ['bm25 (a.txt)', 'bm25 (b.txt)', 'x']
    """
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


def _check_task(task: str, runs: Sequence[Run], qrels: Qrels, strict: bool, warn: Warn) -> None:
    """List (or, with ``strict``, refuse) what in the runs breaks ``task``'s rules."""
    for run in runs:
        found = [f"topic {t}: {v}" for t in run.topics if t in qrels
                 for v in task_violations(task, run.ranked(t))]
        if not found:
            continue
        head = (f"run {run.tag}: {len(found)} violation(s) of the rules of the {task} task: "
                + "; ".join(found[:10]) + (f"; ... {len(found) - 10} more" if len(found) > 10
                                           else ""))
        if strict:
            raise InputError(run.path or run.tag, None, head)
        warn("note: " + head)


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
        source = qrels.path
        if strict:
            if source and os.path.isfile(source):
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
