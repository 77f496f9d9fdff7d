"""A run in memory: the results of every topic in evaluation order
(:class:`Run`, :class:`RankedTopic`, :class:`TopicTable`) and the orders
trec_eval and INEX use (:func:`ranked_table`).

Every reader of runs (TREC text, INEX XML, in-memory tables) produces these.
trec_eval sorts a topic's results by SCORE descending, ties by ID descending
(``comp_sim_docno``), comparing scores as C ``float``: 1.0 and 1.00000001
tie (numpy's ``astype(float32)`` is C's cast; beyond its range, an
infinity).  Ids are compared as bytes of UTF-8, which is Python's order of
``str``.  ``order="rank"`` sorts by RANK ascending, ties by the score rule.

Examples
--------
>>> import numpy as np
>>> table = ranked_table(["1"], np.zeros(3, np.int32), ["a", "b", "c"],
...                      np.array([1.0, 1.00000001, 2.0]), np.array([3, 2, 1]))
>>> table["1"].ids, table["1"].scores.tolist()
(['c', 'b', 'a'], [2.0, 1.00000001, 1.0])
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from graphprum import arrow_compute as pc
from graphprum.errors import UsageError
from graphprum.io.columns import from_numpy, from_strings, to_numpy

__all__ = ["ORDERS", "RANGE_LAYOUTS", "RankedTopic", "Run", "RunColumns", "TopicTable",
           "check_order", "ordered_table", "ranked_table", "ranked_topic", "without_ids"]

ORDERS = ("score", "rank")
#: Layouts of a range run's two range fields (:attr:`Run.ranges`).
RANGE_LAYOUTS = ("text", "time", "text|time")


class RankedTopic:
    """The results of one topic, in evaluation order.

    Attributes
    ----------
    ids : list of str
        Unit ids, best first (made from the run's columns when read: a
        run read from a file keeps its ids as one Arrow column); the
        documents of a range run.
    scores : numpy.ndarray of float64
        SCORE (or INEX ``rsv``; NaN when absent) of each id, as written.
    ranks : numpy.ndarray of int64
        RANK (or INEX ``rank``; the position when absent) of each id, as written.
    bounds : numpy.ndarray of float64, or None
        A range run's two range fields of each result as written, shape
        ``(n, 2)``: OFFSET LENGTH or START END (:attr:`Run.ranges` says
        which); None for a unit run.
    """

    __slots__ = ("_ids", "bounds", "ranks", "scores")

    def __init__(self, ids: Sequence[str] | pa.StringArray, scores: np.ndarray,
                 ranks: np.ndarray, bounds: np.ndarray | None = None) -> None:
        self._ids = ids if isinstance(ids, pa.Array) else list(ids)
        self.scores = scores
        self.ranks = ranks
        self.bounds = bounds

    @property
    def ids(self) -> list[str]:
        """Unit ids, best first."""
        if isinstance(self._ids, list):
            return self._ids
        if pa.types.is_large_binary(self._ids.type):  # (ids that are not valid UTF-8)
            return [b.decode("utf-8", "surrogatepass") for b in self._ids.to_pylist()]
        return self._ids.to_pylist()  # type: ignore[no-any-return]

    def __len__(self) -> int:
        return len(self.scores)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RankedTopic):
            return NotImplemented
        return (self.ids == other.ids and np.array_equal(self.scores, other.scores, equal_nan=True)
                and np.array_equal(self.ranks, other.ranks)
                and (self.bounds is other.bounds or (
                    self.bounds is not None and other.bounds is not None
                    and np.array_equal(self.bounds, other.bounds))))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        bounds = "" if self.bounds is None else f", bounds={self.bounds.tolist()!r}"
        return (f"RankedTopic(ids={self.ids!r}, scores={self.scores!r}, ranks={self.ranks!r}"
                f"{bounds})")


class TopicTable(Mapping[str, RankedTopic]):
    """Every topic's results as columns, topic after topic, each in evaluation
    order (:func:`ranked_table` makes it): about 20 bytes per result beside
    its id's characters.  ``table[topic]`` is a :class:`RankedTopic` over
    its rows.

    Parameters
    ----------
    topics : list of str
        The topics, in order of first appearance.
    starts : numpy.ndarray of int64
        ``len(topics) + 1`` offsets: topic ``k`` holds rows ``starts[k]`` to
        ``starts[k + 1]``.
    ids : pyarrow.Array
        Strings (binary for ids that are not valid UTF-8).
    scores : numpy.ndarray of float64
    ranks : numpy.ndarray of int64
    bounds : numpy.ndarray of float64, or None
        A range run's range fields, ``(rows, 2)`` (:attr:`RankedTopic.bounds`).
    """

    def __init__(self, topics: list[str], starts: np.ndarray, ids: pa.StringArray,
                 scores: np.ndarray, ranks: np.ndarray, bounds: np.ndarray | None = None
                 ) -> None:
        self.topics = topics
        self.starts = starts
        self.ids = ids
        self.scores = scores
        self.ranks = ranks
        self.bounds = bounds
        self._where = {t: k for k, t in enumerate(topics)}

    def __getitem__(self, topic: str) -> RankedTopic:
        k = self._where[topic]
        a, b = int(self.starts[k]), int(self.starts[k + 1])
        return RankedTopic(self.ids.slice(a, b - a), self.scores[a:b], self.ranks[a:b],
                           None if self.bounds is None else self.bounds[a:b])

    def __contains__(self, topic: object) -> bool:
        return topic in self._where

    def __iter__(self) -> Iterator[str]:
        return iter(self.topics)

    def __len__(self) -> int:
        return len(self.topics)

    def select(self, keep: np.ndarray) -> TopicTable:
        """The table with only the rows where ``keep`` (booleans, one per row) holds;
        topics left with no row go."""
        of_row = np.repeat(np.arange(len(self.topics)), np.diff(self.starts))
        counts = np.bincount(of_row[keep], minlength=len(self.topics))
        kept = [t for t, n in zip(self.topics, counts.tolist(), strict=True) if n]
        starts = np.concatenate([[0], np.cumsum(counts[counts > 0])]).astype(np.int64)
        return TopicTable(kept, starts, pc.filter(self.ids, from_numpy(keep)),
                          self.scores[keep], self.ranks[keep],
                          None if self.bounds is None else self.bounds[keep])


def ranked_table(topics: list[str], codes: np.ndarray, ids: Sequence[str] | pa.StringArray,
                 scores: np.ndarray, ranks: np.ndarray, order: str = "score",
                 bounds: np.ndarray | None = None) -> TopicTable:
    """The results of a run (one row each: its topic's index in ``topics``,
    its id, SCORE and RANK, and a range run's range fields ``bounds``)
    grouped by topic in ``topics``' order, each topic in evaluation order
    (module notes; ranges of one document with one score: the first field
    ascending, then the second); ``order`` is checked by the caller.

    >>> table = ranked_table(["1"], np.zeros(3, np.int32), ["a", "b", "c"],
    ...                      np.array([0.1, 0.2, 0.3]), np.array([2, 1, 2]), order="rank")
    >>> table["1"].ids
    ['b', 'c', 'a']
    """
    column = ids if isinstance(ids, pa.Array) else from_strings(ids)
    return ordered_table(topics, RunColumns(codes, column, scores, ranks, bounds), order)


@dataclass
class RunColumns:
    """The results of a run as read, one row each, in file order: the topic's
    index, ID, SCORE, RANK and a range run's range fields (the inputs of
    :func:`ranked_table`)."""

    codes: np.ndarray
    ids: pa.Array
    scores: np.ndarray
    ranks: np.ndarray
    bounds: np.ndarray | None = None


def ordered_table(topics: list[str], columns: RunColumns, order: str = "score") -> TopicTable:
    """:func:`ranked_table` of ``columns``, whose columns it replaces by their
    copies in evaluation order, one after the other, so that a column as
    read is freed as soon as its copy is made (when nothing else holds it,
    as with a reader's columns: a million lines' peak 20 MB lower,
    bench/run_memory.py)."""
    with np.errstate(over="ignore"):  # beyond float32: an infinity, as trec_eval's (float)
        s32 = columns.scores.astype(np.float32)
    keys = {"topic": from_numpy(columns.codes), "score": from_numpy(s32), "id": columns.ids}
    by = [("topic", "ascending"), ("score", "descending"), ("id", "descending")]
    if order == "rank":
        keys["rank"] = from_numpy(columns.ranks)
        by.insert(1, ("rank", "ascending"))
    if columns.bounds is not None:
        keys["first"] = from_numpy(columns.bounds[:, 0])
        keys["second"] = from_numpy(columns.bounds[:, 1])
        by += [("first", "ascending"), ("second", "ascending")]
    rows = pc.sort_indices(pa.Table.from_arrays(list(keys.values()), names=list(keys)),
                           sort_keys=by)
    del keys, s32
    counts = np.bincount(columns.codes, minlength=len(topics)) if len(columns.codes) else \
        np.zeros(len(topics), np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    at = to_numpy(rows)
    columns.ids = pc.take(columns.ids, rows)
    columns.scores = columns.scores[at]
    columns.ranks = columns.ranks[at]
    if columns.bounds is not None:
        columns.bounds = columns.bounds[at]
    return TopicTable(list(topics), starts, columns.ids, columns.scores, columns.ranks,
                      columns.bounds)


@dataclass
class Run:
    """A run: its TAG and, per topic, the ranked results.

    Attributes
    ----------
    tag : str
        TAG column (TREC) or ``run-id`` attribute (INEX XML).
    topics : mapping of str to RankedTopic
        Topics in order of first appearance in the file (a
        :class:`TopicTable` for a TREC file).
    trees : dict of str to list of list of str, or None
        Tree runs only: per topic the retrieved trees in rank order.  Then
        ``topics`` holds each topic's distinct units in order of first
        appearance over the ranked trees.
    path : str
        The file read.
    notes : list of str
        What the reader let pass but a user should know (ignored fields).
    ranges : str or None
        None for a run of units; for a range run the layout of its range
        fields (:data:`RANGE_LAYOUTS`): ``"text"`` (OFFSET LENGTH,
        characters), ``"time"`` (START END, seconds) or ``"text|time"``
        (integers a reader cannot tell apart: the store's documents say
        which, :func:`graphprum.io.range_runs.resolve_ranges`).  Ids are
        then documents and every topic has :attr:`RankedTopic.bounds`.
    """

    tag: str
    topics: Mapping[str, RankedTopic] = field(default_factory=dict)
    trees: dict[str, list[list[str]]] | None = None
    path: str = ""
    notes: list[str] = field(default_factory=list)
    ranges: str | None = None

    def ranked(self, topic: str) -> list[str]:
        """Ids of ``topic`` in evaluation order ([] when the run lacks the topic)."""
        ranked = self.topics.get(topic)
        return [] if ranked is None else ranked.ids

    def __len__(self) -> int:
        return len(self.topics)


def without_ids(run: Run, known: Callable[[list[str]], np.ndarray]) -> tuple[Run, list[str]]:
    """``run`` without the results whose ids ``known(ids)`` (booleans, one per
    id) says no, every topic's others moving up; and the ids dropped, in
    evaluation order (a tree run loses them from its trees too).

    >>> run = Run("r", {"1": RankedTopic(["a", "x", "b"], np.zeros(3), np.arange(3))})
    >>> kept, dropped = without_ids(run, lambda ids: np.array([u != "x" for u in ids]))
    >>> kept.ranked("1"), dropped
    (['a', 'b'], ['x'])
    """
    topics = run.topics
    if isinstance(topics, TopicTable):
        ids = topics.ids.to_pylist()
        keep = np.asarray(known(ids), bool)
        dropped = [u for u, k in zip(ids, keep.tolist(), strict=True) if not k]
        kept: Mapping[str, RankedTopic] = topics.select(keep)
    else:
        dropped, ranked = [], {}
        for topic, results in topics.items():
            ids = results.ids
            keep = np.asarray(known(ids), bool) if ids else np.zeros(0, bool)
            dropped.extend(u for u, k in zip(ids, keep.tolist(), strict=True) if not k)
            if keep.any():
                ranked[topic] = RankedTopic([u for u, k in zip(ids, keep.tolist(), strict=True)
                                             if k], results.scores[keep], results.ranks[keep],
                                            None if results.bounds is None
                                            else results.bounds[keep])
        kept = ranked
    gone = set(dropped)
    trees = None if run.trees is None else {
        topic: [kept_tree for tree in forest if (kept_tree := [u for u in tree if u not in gone])]
        for topic, forest in run.trees.items()}
    return dataclasses.replace(run, topics=kept, trees=trees), dropped


def check_order(order: str) -> None:
    """UsageError unless ``order`` is ``"score"`` or ``"rank"``."""
    if order not in ORDERS:
        raise UsageError(f"unknown run order {order!r}; expected 'score' or 'rank'")


def ranked_topic(ids: list[str], scores: list[float], ranks: list[int],
                 positions: list[int] | None) -> RankedTopic:
    """A :class:`RankedTopic` with the results taken in ``positions`` order (None: as given)."""
    s = np.asarray(scores, dtype=np.float64)
    r = np.asarray(ranks, dtype=np.int64)
    if positions is None:
        return RankedTopic(list(ids), s, r)
    p = np.asarray(positions, dtype=np.int64)
    return RankedTopic([ids[i] for i in positions], s[p], r[p])
