"""What a measure may ask about one topic of one run: :class:`TopicContext`.

The evaluation loop (:mod:`graphprum.evaluation`) builds one per run and
topic; measures and navigation models read it and cache work in
:attr:`TopicContext.cache` under typed keys (:class:`CacheKind`).

A :class:`CacheKind` says what its values are (its type parameter) and
whether they depend on the topic only (``topic_level=True``: the INEX
recall-base) or also on the run's ranking.  The evaluator gives every run
of a topic the same :class:`TopicCache` store for topic-level values, so
they are computed once per topic.

Examples
--------
>>> SQUARES: CacheKind[int] = CacheKind("squares")
>>> ctx = TopicContext(topic="1", ranked=["a"], qrels={"a": 1.0})
>>> ctx.cache.get(SQUARES, 3, lambda: 3 * 3), ctx.cache.get(SQUARES, 3, lambda: -1)
(9, 9)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar, cast

import numpy as np

from graphprum.assessments import TopicAssessment
from graphprum.errors import UsageError
from graphprum.navigation.base import NavigationModel, combine
from graphprum.store.base import Store, UnitView
from graphprum.units import UnitTable

if TYPE_CHECKING:
    import scipy.sparse as sp

T = TypeVar("T")


@dataclass(frozen=True, eq=False)
class CacheKind(Generic[T]):
    """A kind of value a measure caches for one topic (values of type ``T``).

    Attributes
    ----------
    name : str
        What the values are, for people reading the code.
    topic_level : bool
        The values depend on the topic only (not on the run): shared by all
        runs of the topic.
    """

    name: str
    topic_level: bool = False


#: Cached values by (kind, parameters).
CacheDict = dict[tuple[CacheKind[object], Hashable], object]


class TopicCache:
    """Values computed for one topic, by :class:`CacheKind` and parameters.

    Parameters
    ----------
    shared : dict, optional
        Where topic-level values live; the evaluator hands one dict to the
        caches of all runs of a topic.  A fresh one by default.
    """

    def __init__(self, shared: CacheDict | None = None) -> None:
        self._own: CacheDict = {}
        self._shared: CacheDict = {} if shared is None else shared

    def _where(self, kind: CacheKind[T]) -> CacheDict:
        return self._shared if kind.topic_level else self._own

    def get(self, kind: CacheKind[T], params: Hashable, make: Callable[[], T]) -> T:
        """The value of ``kind`` for ``params``, computed by ``make()`` on first use."""
        where = self._where(kind)
        key = (cast("CacheKind[object]", kind), params)
        if key not in where:
            where[key] = make()
        return cast(T, where[key])

    def peek(self, kind: CacheKind[T], params: Hashable) -> T | None:
        """The value of ``kind`` for ``params`` if computed, else None."""
        return cast("T | None", self._where(kind).get((cast("CacheKind[object]", kind), params)))

    def put(self, kind: CacheKind[T], params: Hashable, value: T) -> None:
        """Keep ``value`` as the value of ``kind`` for ``params``."""
        self._where(kind)[(cast("CacheKind[object]", kind), params)] = value


@dataclass
class TopicContext:
    """What a measure may ask about one topic of one run.

    Attributes
    ----------
    topic : str
        Topic id.
    ranked : list of str
        Result ids in evaluation order (DESIGN §1.3 ordering already applied).
    qrels : dict of str to float
        Judged ids of this topic and their REL value as given in the qrels.
    models : list of NavigationModel
        The ``--nav`` models; combined by noisy-or in :meth:`nav`.
    ideal_min : float
        Units with REL >= ideal_min are ideal units (PRUM, EPRUM).
    collection_size : float
        N of DESIGN §1.4; ``math.inf`` when unknown.
    store : Store or None
        The collection, when one is open.
    trees : list of list of str or None
        For tree runs (``--trees``): the retrieved trees in rank order.
    assessments : TopicAssessment or None
        Passage assessments of this topic (INEX measures), when given.
    exh_spec : dict of str to (int, int), or None
        INEX 2005 (exhaustivity, specificity) of the judged ids, when the
        qrels give them (``TOPIC ITER ID E S``; GRPng).
    cache : TopicCache
        Work shared by the measures of this run and topic (and, for
        topic-level kinds, by all runs of the topic).
    view : UnitView or None
        The units this topic's measures may read (the documents holding the
        ranked, judged and assessed units), pulled from the store once per
        topic by the evaluator; pulled on first use when not given.
    progress : callable or None
        ``progress(fraction of this run and topic)`` for long simulations.
    spans : numpy.ndarray or None
        For a range run (passages or clips instead of units): ``[start,
        end)`` of each ranked result, ``(len(ranked), 2)``, in characters
        of its document's text or seconds of its video; ``ranked`` then
        holds the results' documents.  None for a run of units.
    """

    topic: str
    ranked: list[str]
    qrels: dict[str, float]
    models: list[NavigationModel] = field(default_factory=list)
    ideal_min: float = 1.0
    collection_size: float = math.inf
    store: Store | None = None
    trees: list[list[str]] | None = None
    assessments: TopicAssessment | None = None
    cache: TopicCache = field(default_factory=TopicCache)
    view: UnitView | None = None
    exh_spec: dict[str, tuple[int, int]] | None = None
    progress: Callable[[float], None] | None = None
    spans: np.ndarray | None = None

    @property
    def ideal(self) -> list[str]:
        """Ideal units: judged with REL >= ideal_min, in qrels order."""
        return [u for u, rel in self.qrels.items() if rel >= self.ideal_min]

    @property
    def relevant(self) -> list[str]:
        """Relevant units: judged with REL > 0, in qrels order."""
        return [u for u, rel in self.qrels.items() if rel > 0]

    @property
    def max_grade(self) -> float:
        """Largest REL in the topic's qrels (1.0 when none is above 1)."""
        return max([1.0, *self.qrels.values()])

    def grade(self, unit: str) -> float:
        """rel(e) in [0, 1]: REL scaled by the largest grade (values in [0, 1] kept);
        0 for a negative REL (judged not relevant)."""
        return max(self.qrels.get(unit, 0.0), 0.0) / self.max_grade

    def units_view(self) -> UnitView:
        """The topic's :class:`~graphprum.store.base.UnitView` (requires a store)."""
        if self.view is None:
            if self.store is None:
                raise UsageError("this measure or navigation model needs a store (--store)")
            documents = list(self.assessments.docs) if self.assessments is not None else []
            if self.spans is not None:  # a range run ranks documents
                documents += self.ranked
            self.view = self.store.view(topic_ids([] if self.spans is not None else [self.ranked],
                                                  self.qrels, self.trees),
                                        list(dict.fromkeys(documents)))
        return self.view

    @property
    def table(self) -> UnitTable:
        """The units of the topic's view (the whole collection on the
        embedded and memory stores; the topic's documents on a server)."""
        return self.units_view().table

    def rows(self, ids: Sequence[str]) -> np.ndarray:
        """Rows of ``ids`` in :attr:`table` (-1 for units the store does not hold)."""
        return self.units_view().resolve(list(ids))

    def span_docs(self) -> np.ndarray:
        """A range run's ranked documents as rows of ``table.docs`` (-1 for
        one the table lacks); empty for a run of units."""
        if self.spans is None:
            return np.zeros(0, np.int64)
        table = self.table
        found = []
        for name in self.ranked:
            try:
                found.append(table.doc_index(name))
            except KeyError:
                found.append(-1)
        return np.array(found, np.int64)

    def nav(self, sources: Sequence[str], targets: Sequence[str]) -> sp.csr_array:
        """P(sources[i] -> targets[j]) under the noisy-or of all ``--nav`` models."""
        return combine(self.models, list(sources), list(targets), self)


def topic_ids(rankings: Sequence[Sequence[str]], qrels: dict[str, float],
              trees: Sequence[Sequence[str]] | None = None) -> list[str]:
    """Every unit id one topic's measures may ask about: the ranked ones,
    the judged ones and the members of retrieved trees, each once.

    >>> topic_ids([["a", "b"], ["c", "a"]], {"d": 1.0, "b": 0.0})
    ['a', 'b', 'c', 'd']
    """
    ids = [u for ranked in rankings for u in ranked] + list(qrels)
    if trees:
        ids.extend(u for t in trees for u in t)
    return list(dict.fromkeys(ids))
