"""PRUM-success: trec_eval's ``success_k`` for PRUM's navigating user -- the
probability that the user has reached an ideal unit after consulting the
first k ranked units (PRUM, Piwowarski, Gallinari, Dupret, TOIS 2007,
Hypotheses 2.1-2.2, eq. 6).

The user consults the ranked units in order; from the i-th one he reaches
ideal unit x with probability ``P[i, x]`` (PRUM's navigation matrix,
:func:`graphprum.measures.prum.family.navigation_matrix`), every navigation event
independent of the others (Hypothesis 2.2).  Eq. 6 gives the probability
that x is not seen after k ranks, ``prod_{i<=k} (1 - P[i, x])``; the
events of different ideal units being independent too, no ideal unit is
seen with probability ``prod_x prod_{i<=k} (1 - P[i, x])``, so::

    PRUM-success@k = 1 - prod_{i<=k} prod_x (1 - P[i, x])

exactly: no Hypothesis 2.3 is involved (the value is a probability, not a
ratio of expectations).  With the classical model (P[i, x] = 1 when the
i-th result is x) it is trec_eval's ``success_k`` with the ideal units
(REL >= --ideal-min) as the relevant documents.  A bare name stands for
@1, @5 and @10 (trec_eval's ``success`` defaults); without a cutoff the
whole ranked list counts; a topic without ideal units scores 0.

Examples
--------
Fig. 5 of the PRUM paper (list c, d, a, b; c leads to a and to b with .4
each, d to a with .6 and to b with .4; a and b are ideal):

>>> nav = np.array([[.4, .4], [.6, .4], [1, 0], [0, 1]])
>>> round(success_at(nav, 1), 12), round(success_at(nav, 2), 12), success_at(nav, 3)
(0.64, 0.9136, 1.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from graphprum.context import TopicContext
from graphprum.measures.declare import Curve, Family, Measure
from graphprum.measures.prum.family import navigation_matrix


def success_at(nav: Any, k: int | None = None) -> float:
    """``1 - prod_{i<=k} prod_x (1 - nav[i, x])`` (module notes); the whole
    list when ``k`` is None.

    Parameters
    ----------
    nav : array_like or scipy.sparse array, shape (o, t)
        ``nav[i, x]``: probability that a user consulting the i-th ranked
        unit reaches ideal unit x.
    k : int or None
        Ranks consulted (more than o: the whole list).
    """
    import scipy.sparse as sp  # as in the PRUM family's events: not for a classical eval

    m = sp.csr_array(nav) if sp.issparse(nav) else sp.csr_array(np.asarray(nav, dtype=float))
    head = m[:k] if k is not None else m
    p = np.clip(np.asarray(head.data, dtype=float), 0.0, 1.0)
    if np.any(p >= 1.0):
        return 1.0
    return float(-np.expm1(np.sum(np.log1p(-p))))


def compute_prum_success(m: Measure, ctx: TopicContext) -> float:
    """``PRUM-success@k`` for the topic of ``ctx``."""
    if not ctx.ideal:
        return 0.0
    return success_at(navigation_matrix(ctx), m.rank)


FAMILIES = (
    Family(
        "PRUM-success", compute_prum_success,
        "probability that the navigating user has reached an ideal unit within the "
        "first k ranks; trec_eval's success_k under the classical model",
        cutoff="rank", expands_to=("1", "5", "10"),
        curve=Curve("rank", "P(an ideal unit reached by rank k)"),
        examples=(("PRUM-success@5", "within the first 5 ranked units"),
                  ("PRUM-success", "PRUM-success@1, @5, @10"))),
)
