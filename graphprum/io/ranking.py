"""A run in memory: the results of every topic in evaluation order
(:class:`Run`, :class:`RankedTopic`) and the orders trec_eval and INEX use.

Every reader of runs (TREC text, INEX XML, in-memory tables) produces these.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from graphprum.errors import UsageError
from graphprum.io.order import rank_order, trec_order

__all__ = ["ORDERS", "RankedTopic", "Run", "check_order", "rank_order", "ranked_topic",
           "trec_order"]

ORDERS = ("score", "rank")


class RankedTopic:
    """The results of one topic, in evaluation order.

    Attributes
    ----------
    ids : list of str
        Unit ids, best first.
    scores : numpy.ndarray of float64
        SCORE (or INEX ``rsv``; NaN when absent) of each id, as written.
    ranks : numpy.ndarray of int64
        RANK (or INEX ``rank``; the position when absent) of each id, as written.

    A topic that came through a pickle (a run read in a worker) keeps its
    ids as the one string they were sent as until ``ids`` is first read:
    the parent that receives a run splits none of them, and the worker
    that evaluates the topic splits only its own, into objects of its
    own (not pages shared with the parent, which every reference count
    would copy).  The parent of ``--jobs`` evaluates topics too: it keeps
    their ids split, as ``--jobs 1`` keeps every topic's.
    """

    __slots__ = ("_ids", "_joined", "ranks", "scores")

    def __init__(self, ids: list[str], scores: np.ndarray, ranks: np.ndarray) -> None:
        self._ids: list[str] | None = ids
        self._joined: str | None = None
        self.scores = scores
        self.ranks = ranks

    @classmethod
    def from_joined(cls, joined: str, scores: np.ndarray, ranks: np.ndarray) -> RankedTopic:
        """A topic whose ``len(scores)`` ids are ``joined`` by newlines (none
        holds one), split when first read.

        >>> RankedTopic.from_joined("a\\nb", np.zeros(2), np.arange(2)).ids
        ['a', 'b']
        """
        topic = cls.__new__(cls)
        topic._ids, topic._joined = None, joined
        topic.scores, topic.ranks = scores, ranks
        return topic

    @property
    def ids(self) -> list[str]:
        """Unit ids, best first."""
        if self._ids is None:
            self._ids = self._joined.split("\n") if self._joined is not None else []
            self._joined = None
        return self._ids

    @ids.setter
    def ids(self, ids: list[str]) -> None:
        self._ids, self._joined = ids, None

    def __len__(self) -> int:
        return len(self.scores)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RankedTopic):
            return NotImplemented
        return (self.ids == other.ids and np.array_equal(self.scores, other.scores, equal_nan=True)
                and np.array_equal(self.ranks, other.ranks))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RankedTopic(ids={self.ids!r}, scores={self.scores!r}, ranks={self.ranks!r})"

    def __getstate__(self) -> tuple[str | list[str], np.ndarray, np.ndarray]:
        """Pickled compactly, the ids as one string (a run read in a worker
        comes back to the parent pickled: 10x faster than a list of strings),
        unless an id holds a newline.

        >>> import pickle
        >>> t = RankedTopic(["a", "b\\nc", ""], np.zeros(3), np.arange(3))
        >>> pickle.loads(pickle.dumps(t)).ids, t.__getstate__()[0] == t.ids
        (['a', 'b\\nc', ''], True)
        >>> back = pickle.loads(pickle.dumps(RankedTopic(["a", "b"], np.zeros(2), np.arange(2))))
        >>> back._joined, len(back), back.ids, back._joined
        ('a\\nb', 2, ['a', 'b'], None)
        """
        if self._ids is None and self._joined is not None:
            return self._joined, self.scores, self.ranks
        joined = "\n".join(self.ids)
        if self.ids and joined.count("\n") == len(self.ids) - 1:
            return joined, self.scores, self.ranks
        return self.ids, self.scores, self.ranks

    def __setstate__(self, state: tuple[str | list[str], np.ndarray, np.ndarray]) -> None:
        ids, self.scores, self.ranks = state
        if isinstance(ids, str):
            self._ids, self._joined = None, ids
        else:
            self._ids, self._joined = ids, None


@dataclass
class Run:
    """A run: its TAG and, per topic, the ranked results.

    Attributes
    ----------
    tag : str
        TAG column (TREC) or ``run-id`` attribute (INEX XML).
    topics : dict of str to RankedTopic
        Topics in order of first appearance in the file.
    trees : dict of str to list of list of str, or None
        Tree runs only: per topic the retrieved trees in rank order.  Then
        ``topics`` holds each topic's distinct units in order of first
        appearance over the ranked trees.
    path : str
        The file read.
    notes : list of str
        What the reader let pass but a user should know (ignored fields).
    """

    tag: str
    topics: dict[str, RankedTopic] = field(default_factory=dict)
    trees: dict[str, list[list[str]]] | None = None
    path: str = ""
    notes: list[str] = field(default_factory=list)

    def ranked(self, topic: str) -> list[str]:
        """Ids of ``topic`` in evaluation order ([] when the run lacks the topic)."""
        ranked = self.topics.get(topic)
        return [] if ranked is None else ranked.ids

    def __len__(self) -> int:
        return len(self.topics)


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
