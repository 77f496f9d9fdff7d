"""How per-topic values become the ``all`` value: the mean, the sum, the
geometric mean, as trec_eval aggregates them.

Examples
--------
>>> aggregate([1.0, 2.0, 6.0]), aggregate([1.0, 2.0, 6.0], "sum")
(3.0, 9.0)
>>> round(aggregate([0.5, 0.0], "gmean"), 6)  # sqrt(0.5 * 1e-5)
0.002236
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: The arithmetic mean (most measures), the sum (counts: trec_eval's
#: ``num_rel_ret``, ir_measures' ``NumRelRet``), the geometric mean
#: (``gm_map``, ``gm_bpref``).
AGGREGATES = ("mean", "sum", "gmean")

#: trec_eval's floor for a value entering a geometric mean (``MIN_GEO_MEAN``):
#: a topic scoring 0 would otherwise make the geometric mean 0.
MIN_GEO_MEAN = 1e-5


def aggregate(values: Sequence[float], how: str = "mean") -> float:
    """The ``all`` value of per-topic ``values``; 0.0 without topics.

    ``gmean`` is trec_eval's: ``exp(mean(log(max(v, MIN_GEO_MEAN))))``.
    The values are added one after another in the order given, as trec_eval
    adds them (in topic order): the last printed digit of a mean depends on it.
    """
    if how not in AGGREGATES:
        raise ValueError(f"aggregate {how!r}: expected one of {', '.join(AGGREGATES)}")
    if len(values) == 0:
        return 0.0
    if how == "gmean":
        values = [math.log(max(float(v), MIN_GEO_MEAN)) for v in values]
    total = 0.0
    for v in values:  # one after another, as trec_eval adds (numpy adds pairwise,
        total += float(v)  # which can move a mean across the last printed digit)
    if how == "sum":
        return total
    mean = total / len(values)
    return math.exp(mean) if how == "gmean" else mean
