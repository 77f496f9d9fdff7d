"""The orders of results inside a topic: trec_eval's, and RANK's.

trec_eval sorts a topic's results by SCORE descending, ties by ID
descending (``comp_sim_docno``), comparing scores as C ``float``: 1.0 and
1.00000001 tie.  ``array("f", ...)`` rounds to single precision with the
same C cast numpy's ``astype(float32)`` uses (out of range: an infinity).

This module imports nothing but the standard library: the readers that
``graphprum eval --jobs`` forks before numpy is imported use it
(:mod:`graphprum.io.trec_slices`).  It uses numpy where numpy is imported
already (the same values, faster).

Examples
--------
>>> trec_order(["a", "b", "c"], [1.0, 2.0, 1.0])
[1, 2, 0]
>>> rank_order(["a", "b", "c"], [0.1, 0.2, 0.3], [2, 1, 2])
[1, 2, 0]
"""

from __future__ import annotations

import operator
import sys
from array import array
from collections.abc import Iterable, Sequence
from itertools import compress, count, islice
from typing import Any

__all__ = ["float32_values", "in_trec_order", "rank_order", "trec_order"]


def float32_values(scores: Iterable[float]) -> list[float]:
    """``scores`` rounded to C ``float`` (beyond its range: an infinity), as
    trec_eval keeps them.

    >>> float32_values([1.00000001, 1e300, 0.1])
    [1.0, inf, 0.10000000149011612]
    """
    return array("f", scores).tolist()


def trec_order(ids: Sequence[str], scores: Sequence[float]) -> list[int]:
    """Positions sorted as trec_eval does: score descending (float32), then id descending.

    Where numpy is imported already its vector tests find a topic in order
    faster (by 40%); the readers forked before numpy use the standard library.

    >>> trec_order(["a", "b", "c"], [1.0, 2.0, 1.0])
    [1, 2, 0]
    >>> trec_order(["a", "b"], [1.00000001, 1.0])  # equal as C floats
    [1, 0]
    """
    np = sys.modules.get("numpy")
    if np is not None:
        keys = _in_order_numpy(np, ids, scores)
    else:
        keys = float32_values(scores)
        if in_trec_order(ids, keys):
            keys = None
    if keys is None:
        return list(range(len(ids)))
    return sorted(range(len(ids)), key=lambda i: (keys[i], ids[i]), reverse=True)


def _in_order_numpy(np: Any, ids: Sequence[str], scores: Sequence[float]) -> list[float] | None:
    """None when the results are in trec_eval's order (as :func:`in_trec_order`
    tells), else their float32 scores; with numpy's vector operations."""
    with np.errstate(over="ignore"):  # beyond float32: inf, as trec_eval's (float) cast
        s32 = np.asarray(scores, dtype=np.float64).astype(np.float32)
    if len(s32) < 2:
        return None
    head, tail = s32[:-1], s32[1:]
    if (tail <= head).all() and all(ids[i] > ids[i + 1]
                                    for i in np.flatnonzero(tail == head).tolist()):
        return None
    return s32.tolist()


def in_trec_order(ids: Sequence[str], keys: list[float]) -> bool:
    """Whether results with float32 scores ``keys`` (numbers, not NaN: the
    readers refuse it) are already in trec_eval's order, as most systems
    write them: scores never rise, and where two are equal the ids fall.

    Both tests run in C (``sorted`` finds a list in order in one pass);
    ids are compared at ties only.

    >>> in_trec_order(["b", "a", "c"], [2.0, 2.0, 1.0])
    True
    >>> in_trec_order(["a", "b"], [2.0, 2.0]), in_trec_order(["a", "b"], [1.0, 2.0])
    (False, False)
    """
    if len(keys) < 2:
        return True
    if keys != sorted(keys, reverse=True):  # a rise (sorting keeps equal keys in place)
        return False
    if len(set(keys)) == len(keys):
        return True
    ties = compress(count(), map(operator.eq, keys, islice(keys, 1, None)))
    return all(ids[i] > ids[i + 1] for i in ties)


def rank_order(ids: Sequence[str], scores: Sequence[float], ranks: Sequence[int]) -> list[int]:
    """Positions sorted by rank ascending, ties by :func:`trec_order`'s rule.

    >>> rank_order(["a", "b", "c"], [0.1, 0.2, 0.3], [2, 1, 2])
    [1, 2, 0]
    """
    s32 = float32_values(scores)
    return sorted(range(len(ids)), key=lambda i: (-ranks[i], s32[i], ids[i]), reverse=True)
