"""What a measure may ask about one topic of one run: :class:`TopicContext`.

The evaluation loop (:mod:`graphprum.evaluation`) builds one per run and
topic; measures and navigation models read it and may cache per-topic work
in :attr:`TopicContext.extra`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from graphprum.navigation.base import NavigationModel, combine
from graphprum.store.base import Store, UnitView
from graphprum.units import UnitTable


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
    assessments : Any
        Passage assessments of this topic (INEX measures), when given.
    exh_spec : dict of str to (int, int), or None
        INEX 2005 (exhaustivity, specificity) of the judged ids, when the
        qrels give them (``TOPIC ITER ID E S``; GRPng).
    extra : dict
        Free room for per-topic caches shared by measures of one run.
    view : UnitView or None
        The units this topic's measures may read (the documents holding the
        ranked, judged and assessed units), pulled from the store once per
        topic by the evaluator; pulled on first use when not given.
    """

    topic: str
    ranked: list[str]
    qrels: dict[str, float]
    models: list[NavigationModel] = field(default_factory=list)
    ideal_min: float = 1.0
    collection_size: float = math.inf
    store: Store | None = None
    trees: list[list[str]] | None = None
    assessments: Any = None
    extra: dict[str, Any] = field(default_factory=dict)
    view: UnitView | None = None
    exh_spec: dict[str, tuple[int, int]] | None = None

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
            from graphprum.errors import UsageError

            if self.store is None:
                raise UsageError("this measure or navigation model needs a store (--store)")
            documents = list(self.assessments.docs) if self.assessments is not None else []
            self.view = self.store.view(topic_ids([self.ranked], self.qrels, self.trees),
                                        documents)
        return self.view

    @property
    def table(self) -> UnitTable:
        """The units of the topic's view (the whole collection on the
        embedded and memory stores; the topic's documents on a server)."""
        return self.units_view().table

    def rows(self, ids: Sequence[str]) -> np.ndarray:
        """Rows of ``ids`` in :attr:`table` (-1 for units the store does not hold)."""
        return self.units_view().resolve(list(ids))

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
