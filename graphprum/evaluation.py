"""The evaluation loop behind :func:`graphprum.evaluate` and ``graphprum eval``.

For every run and every topic of the qrels, a :class:`TopicContext` is built
and each user-model measure computes one value from it; classical measures
(any name no family claims: ``AP``, ``P@10``, ``nDCG@10``, ...) are computed
by ir_measures on the same ranking.  Topics of the qrels that a run lacks
score 0; the ``all`` row of a measure is the arithmetic mean over the qrels'
topics (DESIGN §1.4, §1.6).
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from graphprum.errors import UsageError
from graphprum.context import TopicContext
from graphprum.measures.registry import MeasureSpec, family, parse_measure
from graphprum.navigation.base import parse_model

COLUMNS = ["run", "measure", "topic", "value"]
Warn = Callable[[str], None]


def expand_measures(names: Sequence[str]) -> list[MeasureSpec]:
    """Parse measure names and expand bare family names into their defaults."""
    out: list[MeasureSpec] = []
    for name in names:
        spec = parse_measure(name)
        fam = family(spec.name)
        if fam is not None and fam.expand is not None:
            out.extend(fam.expand(spec))
        else:
            out.append(spec)
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
                   offsets: str = "chars", ends: str = "exclusive") -> pd.DataFrame:
    """Evaluate; see :func:`graphprum.evaluate` for the parameters."""
    from graphprum.io.qrels import read_qrels
    from graphprum.io.runs import read_run

    warn = warn or (lambda message: None)
    if isinstance(nav, str):
        nav = [nav]
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
    if qrels is None:
        if assessments is None:
            raise UsageError("eval needs --qrels or --passages")
        qrels = _qrels_from_assessments(assessments, store)
    elif isinstance(qrels, str | os.PathLike):
        qrels = read_qrels(qrels)
    read = [r if hasattr(r, "topics") else read_run(r, order=order, dedup=dedup, trees=trees)
            for r in runs]
    if not read:
        raise UsageError("no run given")
    tags = Counter(r.tag for r in read)
    if len(tags) < len(read):
        warn("note: several runs share a TAG: " + ", ".join(t for t, c in tags.items() if c > 1)
             + "; rows are told apart by file order only")
    n_units = _collection_size(store, qrels, collection_size, strict, warn)
    topics = list(qrels)
    user_specs = [s for s in specs if family(s.name) is not None]
    classical = [s for s in specs if family(s.name) is None]
    rows: list[tuple[str, str, str, float]] = []
    for run in read:
        extra_topics = [t for t in run.topics if t not in qrels]
        if extra_topics:
            warn(f"note: run {run.tag}: {len(extra_topics)} topic(s) not in the qrels ignored: "
                 + ", ".join(extra_topics[:10]) + (" ..." if len(extra_topics) > 10 else ""))
        if store is not None:
            _report_unknown_run_ids(run, store, warn)
        values: dict[str, dict[str, float]] = {str(s): {} for s in specs}
        for topic in topics:
            ctx = TopicContext(
                topic=topic, ranked=run.ranked(topic), qrels=qrels[topic], models=models,
                ideal_min=ideal_min, collection_size=n_units,
                store=store, trees=(run.trees or {}).get(topic) if trees else None,
                assessments=_topic_assessment(assessments, topic),
            )
            for s in user_specs:
                fam = family(s.name)
                assert fam is not None
                values[str(s)][topic] = float(fam.compute(s, ctx))
        if classical:
            for name, per in _classical(classical, run, qrels).items():
                values[name] = per
        for s in specs:
            per = values[str(s)]
            vals = [per.get(t, 0.0) for t in topics]
            if per_topic:
                rows.extend((run.tag, str(s), t, v) for t, v in zip(topics, vals, strict=True))
            rows.append((run.tag, str(s), "all", float(np.mean(vals)) if vals else 0.0))
    return pd.DataFrame(rows, columns=COLUMNS)


def _collection_size(store: Any, qrels: Any, given: float | None, strict: bool,
                     warn: Warn) -> float:
    """N of DESIGN §1.4, and a report of qrels ids the store does not hold."""
    if store is None:
        return math.inf if given is None else float(given)
    ids = sorted({u for judged in qrels.values() for u in judged})
    rows = store.resolve(ids) if ids else np.zeros(0, np.int64)
    unknown = [u for u, r in zip(ids, rows, strict=True) if r < 0]
    if unknown:
        message = (f"{len(unknown)} of {len(ids)} judged ids are not in the store "
                   f"{store.location}: " + ", ".join(unknown[:5])
                   + (" ..." if len(unknown) > 5 else ""))
        if strict:
            raise UsageError(message)
        warn("note: " + message)
    if given is not None:
        return float(given)
    known = rows[rows >= 0]
    if len(known) == 0:
        return float(len(store.table()))
    kinds = np.asarray(store.table().columns["kind"])
    kind = int(np.bincount(kinds[known].astype(np.int64)).argmax())
    return float(np.count_nonzero(kinds == kind))


def _report_unknown_run_ids(run: Any, store: Any, warn: Warn) -> None:
    ids = sorted({u for t in run.topics.values() for u in t.ids})
    if not ids:
        return
    rows = store.resolve(ids)
    unknown = [u for u, r in zip(ids, rows, strict=True) if r < 0]
    if unknown:
        warn(f"note: run {run.tag}: {len(unknown)} result id(s) not in the store, counted as "
             f"non-relevant: " + ", ".join(unknown[:5]) + (" ..." if len(unknown) > 5 else ""))


def _classical(specs: Sequence[MeasureSpec], run: Any, qrels: Any) -> dict[str, dict[str, float]]:
    """Classical measures by ir_measures, on our ranking order."""
    import ir_measures

    parsed = {}
    for s in specs:
        try:
            parsed[str(s)] = ir_measures.parse_measure(str(s))
        except (ValueError, NameError, TypeError, AttributeError, KeyError) as exc:
            raise UsageError(f"unknown measure {str(s)!r}: neither a graphprum measure nor "
                             f"one ir_measures knows ({exc})") from None
    ir_qrels = [ir_measures.Qrel(t, u, int(r) if float(r).is_integer() else r)
                for t, judged in qrels.items() for u, r in judged.items()]
    # strictly decreasing synthetic scores reproduce our evaluation order exactly
    ir_run = [ir_measures.ScoredDoc(t, u, float(len(r.ids) - i))
              for t, r in run.topics.items() if t in qrels for i, u in enumerate(r.ids)]
    out: dict[str, dict[str, float]] = {name: {} for name in parsed}
    by_measure = {m: name for name, m in parsed.items()}
    try:
        for metric in ir_measures.iter_calc(list(parsed.values()), ir_qrels, ir_run):
            name = by_measure.get(metric.measure)
            if name is not None:
                out[name][metric.query_id] = float(metric.value)
    except (ValueError, TypeError) as exc:
        raise UsageError(f"ir_measures could not compute {', '.join(parsed)}: {exc}") from None
    return out


def _read_assessments(passages: Any, store: Any, offsets: str, ends: str, warn: Warn) -> Any:
    from graphprum.io.assessments import read_assessments

    return read_assessments(passages, store, units=offsets, end=ends, warn=warn)


def _topic_assessment(assessments: Any, topic: str) -> Any:
    """The topic's passage assessments; an empty one for a topic they do not
    mention (so its INEX measures score 0), None without assessments."""
    if assessments is None:
        return None
    found = assessments.get(topic)
    if found is None:
        from graphprum.measures.inex_base import TopicAssessment

        found = TopicAssessment(topic)
    return found


def _qrels_from_assessments(assessments: Any, store: Any) -> dict[str, dict[str, float]]:
    from graphprum.measures.inex_base import qrels_from_assessments

    return qrels_from_assessments(assessments, store)
