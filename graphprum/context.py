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

import scipy.sparse as sp

from graphprum.navigation.base import NavigationModel, combine
from graphprum.store.base import Store
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
    extra : dict
        Free room for per-topic caches shared by measures of one run.
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
        """rel(e) in [0, 1]: REL scaled by the largest grade (values in [0, 1] kept)."""
        return self.qrels.get(unit, 0.0) / self.max_grade

    @property
    def table(self) -> UnitTable:
        """The collection's unit table (requires a store)."""
        from graphprum.errors import UsageError

        if self.store is None:
            raise UsageError("this measure or navigation model needs a store (--store)")
        return self.store.table()

    def nav(self, sources: Sequence[str], targets: Sequence[str]) -> sp.csr_array:
        """P(sources[i] -> targets[j]) under the noisy-or of all ``--nav`` models."""
        return combine(self.models, list(sources), list(targets), self)

