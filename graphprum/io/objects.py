"""Runs and qrels from what a notebook holds, with the rules of the files.

:func:`run_from_object` and :func:`qrels_from_object` accept

- a pandas DataFrame with ir_measures' column names (``query_id, doc_id,
  score`` for a run, ``query_id, doc_id, relevance`` for qrels) or the
  TREC names of DESIGN §1.3 (``topic, id, score, rank, tag`` and ``topic,
  iter, id, rel``), in any case; ``qid``, ``docno`` and ``docid`` are
  understood too, other columns are ignored.  A run's ``rank`` column is
  optional (needed by ``order="rank"`` and tree runs); a ``tag`` (or
  ``run``) column makes one run per value, in order of appearance;
- a dict of dicts, pytrec_eval's layout: ``{topic: {id: score}}`` or
  ``{topic: {id: rel}}``;
- an iterable of ir_measures' namedtuples (``ScoredDoc(query_id, doc_id,
  score)``, ``Qrel(query_id, doc_id, relevance, iteration)``) or of any
  objects with those attributes.

What a file would refuse is refused here, naming the row: a SCORE that is
not a number, a duplicate (TOPIC, ID) (``dedup=True`` keeps the first
result), a REL that is neither an integer nor a grade in [0, 1], nothing at
all.  Results are ordered as trec_eval orders a file (SCORE descending, ties
by ID descending; the order of the rows never matters).  Topic and unit ids
are strings; integral numbers become their digits (``5`` and ``5.0`` are
topic ``"5"``).

Examples
--------
>>> import pandas as pd
>>> df = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [0.2, 0.9]})
>>> [r.ranked("1") for r in run_from_object(df, "demo", "bm25")]
[['b', 'a']]
>>> qrels_from_object({"1": {"a": 1, "b": 0}}, "demo")
Qrels({'1': {'a': 1.0, 'b': 0.0}})
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Protocol

import numpy as np

from graphprum.errors import InputError, UsageError
from graphprum.io.qrels import JudgementRow, Qrels, qrels_from_rows
from graphprum.io.runs import ResultRow, Run, run_from_rows

if TYPE_CHECKING:
    import pandas as pd


class ScoredDocLike(Protocol):
    """A result as ir_measures holds it (``ir_measures.ScoredDoc``)."""

    @property
    def query_id(self) -> str: ...

    @property
    def doc_id(self) -> str: ...

    @property
    def score(self) -> float: ...


class QrelLike(Protocol):
    """A judgement as ir_measures holds it (``ir_measures.Qrel``)."""

    @property
    def query_id(self) -> str: ...

    @property
    def doc_id(self) -> str: ...

    @property
    def relevance(self) -> int: ...


#: Column names, lower case, of each field (DESIGN §1.3 and ir_measures).
TOPIC_COLUMNS = ("query_id", "topic", "qid")
ID_COLUMNS = ("doc_id", "id", "docno", "docid")
SCORE_COLUMNS = ("score",)
RANK_COLUMNS = ("rank",)
TAG_COLUMNS = ("tag", "run")
REL_COLUMNS = ("relevance", "rel")


def as_id(value: object) -> str | None:
    """A topic or unit id as text; None for a missing value (None, NaN).

    >>> as_id("d1"), as_id(5), as_id(np.int64(7)), as_id(5.0), as_id(float("nan"))
    ('d1', '5', '7', '5', None)
    """
    if isinstance(value, str):
        return value
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        x = float(value)
        if math.isnan(x):
            return None
        return str(int(x)) if x.is_integer() else repr(x)
    return str(value)


def _ids(where: str, source: str, topic: object, unit: object) -> tuple[str, str]:
    t, u = as_id(topic), as_id(unit)
    if t is None or u is None:
        what = "TOPIC" if t is None else "ID"
        raise InputError(source, None, f"{where}: missing {what}")
    return t, u


def is_frame(obj: object) -> bool:
    """Whether ``obj`` is a pandas DataFrame (pandas imported only when it may be one)."""
    if type(obj).__module__.partition(".")[0] != "pandas":
        return False
    import pandas as pd

    return isinstance(obj, pd.DataFrame)


def is_nested_mapping(obj: object) -> bool:
    """Whether ``obj`` looks like pytrec_eval's ``{topic: {id: number}}``: a
    mapping whose first value is a mapping whose first value is not one.

    >>> is_nested_mapping({"1": {"a": 1.0}}), is_nested_mapping({"bm25": {"1": {"a": 1}}})
    (True, False)
    """
    if not isinstance(obj, Mapping) or not obj:
        return False
    first = next(iter(obj.values()))
    if not isinstance(first, Mapping):
        return False
    return not first or not isinstance(next(iter(first.values())), Mapping)


def _column(df: pd.DataFrame, names: tuple[str, ...], what: str, source: str,
            required: bool = True) -> str | None:
    """The one column of ``df`` named like ``names`` (any case)."""
    found = [c for c in df.columns if isinstance(c, str) and c.lower() in names]
    if len(found) > 1:
        raise UsageError(f"{source}: columns {', '.join(map(repr, found))} all look like "
                         f"{what}; keep one")
    if not found:
        if required:
            raise UsageError(f"{source}: no {what} column (one of {', '.join(names)}); the "
                             f"columns are {', '.join(map(str, df.columns))}")
        return None
    return found[0]


def _frame_runs(df: pd.DataFrame, source: str, tag: str) -> dict[str, list[ResultRow]]:
    """The result rows of a run DataFrame, by TAG (``tag`` without a tag column)."""
    topic = _column(df, TOPIC_COLUMNS, "topic (query_id)", source)
    unit = _column(df, ID_COLUMNS, "unit id (doc_id)", source)
    score = _column(df, SCORE_COLUMNS, "score", source)
    rank = _column(df, RANK_COLUMNS, "rank", source, required=False)
    tag_column = _column(df, TAG_COLUMNS, "run tag", source, required=False)
    assert topic is not None and unit is not None and score is not None
    n = len(df)
    ranks: list[object] = df[rank].tolist() if rank is not None else [None] * n
    tags: list[object] = df[tag_column].tolist() if tag_column is not None else [tag] * n
    runs: dict[str, list[ResultRow]] = {}
    for label, t, u, k, s, g in zip(df.index.tolist(), df[topic].tolist(), df[unit].tolist(),
                                    ranks, df[score].tolist(), tags, strict=True):
        where = f"index {label!r}"
        t_id, u_id = _ids(where, source, t, u)
        name = as_id(g)
        if name is None:
            raise InputError(source, None, f"{where}: missing TAG")
        runs.setdefault(name, []).append((where, t_id, u_id, _rank(source, where, k),
                                          _score(source, where, s)))
    return runs


def _rank(source: str, where: str, value: object) -> int | None:
    """A rank cell: None when missing, else an integer (InputError otherwise)."""
    if value is None or (isinstance(value, float | np.floating) and math.isnan(float(value))):
        return None
    if isinstance(value, int | np.integer) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, float | np.floating) and float(value).is_integer():
        return int(value)
    raise InputError(source, None, f"{where}: expected RANK an integer, got {value!r}")


def _score(source: str, where: str, value: object) -> float:
    """A score: a number, not NaN (infinities allowed, as trec_eval's atof reads them)."""
    if isinstance(value, int | float | np.integer | np.floating) \
            and not isinstance(value, bool) and not math.isnan(float(value)):
        return float(value)
    raise InputError(source, None, f"{where}: expected SCORE a number, got {value!r}")


def run_from_object(obj: object, source: str, tag: str, *, order: str = "score",
                    dedup: bool = False, trees: bool = False) -> list[Run]:
    """The run(s) of an in-memory object (see the module notes).

    Parameters
    ----------
    obj : DataFrame, dict of dicts, or iterable of ScoredDoc-like objects
    source : str
        How errors name it (``"runs[0] (DataFrame)"``).
    tag : str
        The TAG of the run unless the object names its runs (a ``tag`` column).
    order, dedup, trees
        As for :func:`graphprum.io.runs.read_run`.

    Returns
    -------
    list of Run
        One run; a DataFrame with a ``tag`` column gives one per tag.

    Raises
    ------
    UsageError
        ``obj`` is none of these, or a DataFrame lacks a column.
    InputError
        A bad value, a duplicate, no results (naming the row).
    """
    if is_frame(obj):
        df: pd.DataFrame = obj  # type: ignore[assignment]
        runs = _frame_runs(df, source, tag)
        if not runs:
            raise InputError(source, None, "empty run: no results")
        named = len(runs) > 1 or tag not in runs
        return [run_from_rows(f"{source}, tag {t!r}" if named else source, t, rows,
                              order=order, dedup=dedup, trees=trees)
                for t, rows in runs.items()]
    if isinstance(obj, Mapping):
        items = _mapping_items(obj, source, "score")
    elif isinstance(obj, Iterable) and not isinstance(obj, str | bytes):
        items = _record_items(obj, source, "score")
    else:
        raise UsageError(f"{source}: a run is a file path, a DataFrame (query_id, doc_id, "
                         f"score), a dict {{topic: {{id: score}}}} or ScoredDoc tuples, got "
                         f"{type(obj).__name__}")
    rows = ((where, t, u, None, _score(source, where, s)) for where, t, u, s in items)
    return [run_from_rows(source, tag, rows, order=order, dedup=dedup, trees=trees)]


def qrels_from_object(obj: object, source: str) -> Qrels:
    """The :class:`~graphprum.io.qrels.Qrels` of an in-memory object (module notes).

    Raises
    ------
    UsageError
        ``obj`` is none of the accepted kinds, or a DataFrame lacks a column.
    InputError
        A bad REL, a duplicate, no judgements (naming the row).
    """
    if isinstance(obj, Qrels):
        return obj
    if is_frame(obj):
        df: pd.DataFrame = obj  # type: ignore[assignment]
        topic = _column(df, TOPIC_COLUMNS, "topic (query_id)", source)
        unit = _column(df, ID_COLUMNS, "unit id (doc_id)", source)
        rel = _column(df, REL_COLUMNS, "relevance", source)
        assert topic is not None and unit is not None and rel is not None

        def rows() -> Iterator[JudgementRow]:
            for label, t, u, r in zip(df.index.tolist(), df[topic].tolist(),
                                      df[unit].tolist(), df[rel].tolist(), strict=True):
                where = f"index {label!r}"
                yield (where, *_ids(where, source, t, u), r)
        return qrels_from_rows(source, rows())
    if isinstance(obj, Mapping):
        return qrels_from_rows(source, _mapping_items(obj, source, "relevance"))
    if isinstance(obj, Iterable) and not isinstance(obj, str | bytes):
        return qrels_from_rows(source, _record_items(obj, source, "relevance"))
    raise UsageError(f"{source}: qrels are a file path, a DataFrame (query_id, doc_id, "
                     f"relevance), a dict {{topic: {{id: rel}}}} or Qrel tuples, got "
                     f"{type(obj).__name__}")


def _mapping_items(obj: Mapping[object, object], source: str,
                   field: str) -> Iterator[JudgementRow]:
    """Rows of ``{topic: {id: value}}`` (``field``: what the value is, for errors)."""
    for topic, judged in obj.items():
        if not isinstance(judged, Mapping):
            raise UsageError(f"{source}: expected {{topic: {{id: {field}}}}}, got "
                             f"{type(judged).__name__} for topic {topic!r}")
        for unit, value in judged.items():
            where = f"topic {topic!r}, id {unit!r}"
            yield (where, *_ids(where, source, topic, unit), value)


def _record_items(obj: Iterable[object], source: str, field: str) -> Iterator[JudgementRow]:
    """Rows of ir_measures namedtuples (or objects with ``query_id``, ``doc_id``, ``field``)."""
    for i, rec in enumerate(obj):
        try:
            topic, unit, value = rec.query_id, rec.doc_id, getattr(rec, field)  # type: ignore[attr-defined]
        except AttributeError:
            raise UsageError(f"{source}: item {i} is {type(rec).__name__}, not an object with "
                             f"query_id, doc_id and {field} (ir_measures' "
                             f"{'ScoredDoc' if field == 'score' else 'Qrel'})") from None
        where = f"item {i}"
        yield (where, *_ids(where, source, topic, unit), value)
