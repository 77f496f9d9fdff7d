"""Runs and qrels from what a notebook holds, with the rules of the files.

:func:`run_from_object` and :func:`qrels_from_object` accept

- a pandas DataFrame with ir_measures' column names (``query_id, doc_id,
  score`` for a run, ``query_id, doc_id, relevance`` for qrels) or the
  TREC names of DESIGN §1.3 (``topic, id, score, rank, tag`` and ``topic,
  iter, id, rel``), in any case; ``qid``, ``docno`` and ``docid`` are
  understood too, other columns are ignored.  A run's ``rank`` column is
  optional (needed by ``order="rank"`` and tree runs); a ``tag`` (or
  ``run``) column makes one run per value, in order of appearance; columns
  ``offset`` and ``length`` (characters) or ``start`` and ``end`` (seconds)
  make a range run (:mod:`graphprum.io.range_runs`), its ids documents;
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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from graphprum.errors import InputError, UsageError
from graphprum.io.qrels import JudgementRow, Qrels, qrels_from_rows
from graphprum.io.runs import Run, Where, run_from_columns

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
#: A range run's columns: text (characters) or time (seconds), DESIGN §1.3.
RANGE_COLUMNS = {"text": ("offset", "length"), "time": ("start", "end")}
REL_COLUMNS = ("relevance", "rel")


def as_id(value: object) -> str | None:
    """A topic or unit id as text; None for a missing value (None, NaN).

    >>> as_id("d1"), as_id(5), as_id(np.int64(7)), as_id(5.0), as_id(float("nan"))
    ('d1', '5', '7', '5', None)
    >>> import pandas as pd
    >>> as_id(pd.NA), as_id(pd.NaT)
    (None, None)
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
    if type(value).__name__ in ("NAType", "NaTType"):  # pandas' missing values
        return None
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
    import pandas as pd  # ~0.2 s of import: only when a DataFrame may be at hand

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


def _id_list(values: Sequence[object], source: str, where: Where, what: str) -> list[str]:
    """Ids as text (:func:`as_id`); InputError naming the first missing one."""
    if all(type(v) is str for v in values):
        return list(values)  # type: ignore[arg-type]
    out: list[str] = []
    for i, v in enumerate(values):
        text = as_id(v)
        if text is None:
            raise InputError(source, None, f"{where(i)}: missing {what}")
        out.append(text)
    return out


def _number_array(values: Sequence[object], source: str, where: Where) -> np.ndarray:
    """Scores as float64; InputError naming the first that is not a number
    (NaN is refused later, by the run's rules)."""
    try:
        if not any(isinstance(v, bool | str | bytes) for v in values):
            return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        pass
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating):
            raise InputError(source, None, f"{where(i)}: expected SCORE a number, got {v!r}")
    return np.asarray(values, dtype=np.float64)  # a number type numpy refused at first


def _rank_array(values: Sequence[object], source: str, where: Where) -> np.ndarray:
    """Ranks as int64; InputError naming the first that is missing or not an integer."""
    out = np.zeros(len(values), dtype=np.int64)
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating) \
                or not float(v).is_integer():
            missing = v is None or (isinstance(v, float | np.floating) and math.isnan(float(v)))
            raise InputError(source, None, f"{where(i)}: " + (
                "missing RANK" if missing else f"expected RANK an integer, got {v!r}"))
        out[i] = int(v)
    return out


def _frame_runs(df: pd.DataFrame, source: str, tag: str, order: str, dedup: bool,
                trees: bool) -> list[Run]:
    """The run of a DataFrame, or one run per TAG with a tag column."""
    topic = _column(df, TOPIC_COLUMNS, "topic (query_id)", source)
    unit = _column(df, ID_COLUMNS, "unit id (doc_id)", source)
    score = _column(df, SCORE_COLUMNS, "score", source)
    rank = _column(df, RANK_COLUMNS, "rank", source, required=False)
    tag_column = _column(df, TAG_COLUMNS, "run tag", source, required=False)
    assert topic is not None and unit is not None and score is not None
    if len(df) == 0:
        raise InputError(source, None, "empty run: no results")
    labels = df.index.tolist()

    def where(i: int) -> str:
        return f"index {labels[i]!r}"

    topics = _id_list(df[topic].tolist(), source, where, "TOPIC")
    ids = _id_list(df[unit].tolist(), source, where, "ID")
    scores = _number_array(df[score].tolist(), source, where)
    ranks = _rank_array(df[rank].tolist(), source, where) if rank is not None else None
    layout, bounds = _range_columns(df, source, where)
    if tag_column is None:
        return [run_from_columns(source, tag, topics, ids, scores, ranks, where, order=order,
                                 dedup=dedup, trees=trees, bounds=bounds, ranges=layout)]
    tags = _id_list(df[tag_column].tolist(), source, where, "TAG")
    by_tag: dict[str, list[int]] = {}
    for i, t in enumerate(tags):
        by_tag.setdefault(t, []).append(i)
    runs = []
    for t, rows in by_tag.items():
        def where_in(k: int, rows: list[int] = rows) -> str:
            return where(rows[k])

        runs.append(run_from_columns(
            f"{source}, tag {t!r}", t, [topics[i] for i in rows], [ids[i] for i in rows],
            scores[rows], ranks[rows] if ranks is not None else None, where_in, order=order,
            dedup=dedup, trees=trees, bounds=None if bounds is None else bounds[rows],
            ranges=layout))
    return runs


def _range_columns(df: pd.DataFrame, source: str, where: Where
                   ) -> tuple[str | None, np.ndarray | None]:
    """The layout and the two range fields of a DataFrame that holds a range
    run's columns (:data:`RANGE_COLUMNS`), or (None, None)."""
    found = {layout: [_column(df, (name,), name, source, required=False) for name in pair]
             for layout, pair in RANGE_COLUMNS.items()}
    given = [layout for layout, cols in found.items() if any(c is not None for c in cols)]
    if not given:
        return None, None
    if len(given) > 1 or any(c is None for c in found[given[0]]):
        raise UsageError(f"{source}: a range run has the columns offset and length (text, "
                         f"characters) or start and end (time, seconds); the columns are "
                         f"{', '.join(map(str, df.columns))}")
    columns = [c for c in found[given[0]] if c is not None]
    bounds = np.column_stack([_number_array(df[c].tolist(), source, where) for c in columns])
    return given[0], bounds.astype(np.float64)


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
        return _frame_runs(obj, source, tag, order, dedup, trees)  # type: ignore[arg-type]
    if isinstance(obj, Mapping):
        items = list(_mapping_items(obj, source, "score"))
    elif isinstance(obj, Iterable) and not isinstance(obj, str | bytes):
        items = list(_record_items(obj, source, "score"))
    else:
        raise UsageError(f"{source}: a run is a file path, a DataFrame (query_id, doc_id, "
                         f"score), a dict {{topic: {{id: score}}}} or ScoredDoc tuples, got "
                         f"{type(obj).__name__}")

    def where(i: int) -> str:
        return items[i][0]

    scores = _number_array([item[3] for item in items], source, where)
    return [run_from_columns(source, tag, [item[1] for item in items],
                             [item[2] for item in items], scores, None, where, order=order,
                             dedup=dedup, trees=trees)]


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
