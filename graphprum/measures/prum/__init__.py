"""PRUM: precision-recall with user modelling (Piwowarski, Gallinari, Dupret,
TOIS 2007), for one topic.  Its results are units: a range run (passages,
clips) is refused, since a range is no unit the navigation models lead from
and the elements it covers are no one answer (nested elements share a span,
a range cuts elements); T2I, iP and the INEX passage measures read ranges.

A user consults the ranked units top-down and, from each, may navigate to
other units; precision at recall r is the expected number of consulted
ranks that lead to an ideal unit not seen before, over the expected number
of ranks consulted (§3.1).  One module per way of computing it:

- :mod:`~graphprum.measures.prum.events` -- the navigation events of a
  topic (Hypothesis 2.2, eq. 6), what every computation reads;
- :mod:`~graphprum.measures.prum.exact` -- eq. 5 under Hypothesis 2.3,
  every recall at once;
- :mod:`~graphprum.measures.prum.outcomes` -- CL(r) and C(r) of §3.2 for
  one user's navigation outcome;
- :mod:`~graphprum.measures.prum.enumeration` -- E[CL]/E[C] over every
  outcome (``exact=enum``);
- :mod:`~graphprum.measures.prum.simulation` -- the same by simulating
  users, with standard errors and the cost check (``exact=mc``);
- :mod:`~graphprum.measures.prum.family` -- the ``PRUM`` family: names,
  parameters, the per-topic cache (its ``FAMILIES``, which this package
  hands to :mod:`graphprum.measures.registry`).

Examples
--------
Table III (Fig. 5, list c, d, a, b; ERRATA item 3), eq. 5 and exactly:

>>> nav = [[.4, .4], [.6, .4], [1, 0], [0, 1]]
>>> precision_at_recall(nav).round(5).tolist(), enumerate_precision(nav).round(5).tolist()
([0.69137, 0.63561], [0.69137, 0.64623])
>>> round(prum_mean(precision_at_recall([[0, 1], [0, 0], [1, 0]])), 4)
0.8485
"""

from graphprum.measures.interpolation import LEVELS, interpolated, min_recall, prum_mean
from graphprum.measures.prum.enumeration import MAX_ENUM_EVENTS, enumerate_precision
from graphprum.measures.prum.events import Events, events, self_events
from graphprum.measures.prum.exact import NORMAL_THRESHOLD, precision_at_recall
from graphprum.measures.prum.family import FAMILIES, compute_prum, navigation_matrix
from graphprum.measures.prum.simulation import (
    MC_WORK_LIMIT,
    SimulatedPrecision,
    check_mc_cost,
    simulate_precision,
)

__all__ = [
    "FAMILIES",
    "LEVELS",
    "MAX_ENUM_EVENTS",
    "MC_WORK_LIMIT",
    "NORMAL_THRESHOLD",
    "Events",
    "SimulatedPrecision",
    "check_mc_cost",
    "compute_prum",
    "enumerate_precision",
    "events",
    "interpolated",
    "min_recall",
    "navigation_matrix",
    "precision_at_recall",
    "prum_mean",
    "self_events",
    "simulate_precision",
]
