"""``PRUM(exact=enum)``: E[CL(r)] / E[C(r)] of PRUM §3.2 over every outcome.

The exact precision of §3.2 (Table III) under Hypotheses 2.1 and 2.2 only:
each uncertain navigation event (0 < P < 1, and able to matter: before its
target is surely seen) is an independent coin, and all 2^k outcomes are
weighed by their probabilities (:mod:`~graphprum.measures.prum.outcomes`
says what a user meets in one).  The unranked part follows the classical
model as in eq. 5; ``u = inf`` gives 0 where the ranked part may fall short
of r.

Examples
--------
Table III (ERRATA item 3):

>>> enumerate_precision([[.4, .4], [.6, .4], [1, 0], [0, 1]]).round(5).tolist()
[0.69137, 0.64623]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from graphprum.errors import UsageError
from graphprum.measures.prum.events import events
from graphprum.measures.prum.outcomes import first_seen, outcome_counts

#: Largest number of uncertain navigation events ``exact=enum`` enumerates.
MAX_ENUM_EVENTS = 20


def enumerate_precision(nav: Any, u: float = math.inf, *,
                        max_events: int = MAX_ENUM_EVENTS) -> np.ndarray:
    """E[CL(r)] / E[C(r)] for r = 1..t by enumerating every navigation outcome.

    Parameters
    ----------
    nav : array_like or scipy.sparse array, shape (o, t), or Events
        As for :func:`~graphprum.measures.prum.exact.precision_at_recall`.
    u : float
        Size of the unranked part (N - o).
    max_events : int
        Most uncertain events enumerated.

    Raises
    ------
    UsageError
        When more than ``max_events`` uncertain events would be enumerated.
    """
    ev = events(nav)
    t = ev.t
    if t == 0:
        return np.zeros(0)
    rows, cols, probs, starts = ev.uncertain()
    k = len(rows)
    if k > max_events:
        raise UsageError(f"PRUM(exact=enum): {k} uncertain navigation events, more than "
                         f"{max_events} (2^{k} outcomes); use exact=mc,samples=N")
    total = 1 << k
    chunk = max(1, min(total, (1 << 22) // max(t, k, 1)))
    e_cl = np.zeros(t)
    e_c = np.zeros(t)
    shifts = np.arange(k)
    for start in range(0, total, chunk):
        idx = np.arange(start, min(total, start + chunk))
        bits = ((idx[:, None] >> shifts[None, :]) & 1).astype(bool)
        w = np.where(bits, probs[None, :], 1.0 - probs[None, :]).prod(axis=1)
        cl, c = outcome_counts(first_seen(bits, rows, starts, cols, ev), ev.o, t, u)
        e_cl += w @ cl
        e_c += w @ c
    out: np.ndarray = e_cl / e_c
    if math.isinf(u):
        out[ev.certain_seen:] = 0.0
    return out
