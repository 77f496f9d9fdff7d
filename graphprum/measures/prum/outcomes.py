"""What one user meets: CL(r) and C(r) of PRUM §3.2 for navigation outcomes.

Without Hypothesis 2.3 the precision at recall r is E[CL(r)] / E[C(r)]
(§3.2, Table III): each uncertain navigation event (0 < P < 1) is an
independent coin (Hypothesis 2.2), an *outcome* says which coins fell, and
in one outcome the ranks at which every ideal unit is first seen are known.
C(r) is the number of ranks consulted until r ideal units are seen, CL(r)
the number of those ranks that led to a previously unseen ideal unit.
``exact=enum`` weighs every outcome by its probability
(:mod:`~graphprum.measures.prum.enumeration`), ``exact=mc`` draws them
(:mod:`~graphprum.measures.prum.simulation`).

Examples
--------
Ranks 0 and 2 lead to ideal units 1 and 0 (first seen), 3 ranks, 2 ideal
units, no unranked part:

>>> cl, c = outcome_counts(np.array([[2, 0]]), o=3, t=2, u=math.inf)
>>> cl.tolist(), c.tolist()
([[1.0, 2.0]], [[1.0, 3.0]])
"""

from __future__ import annotations

import math

import numpy as np

from graphprum.measures.prum.events import Events


def outcome_counts(fs: np.ndarray, o: int, t: int, u: float) -> tuple[np.ndarray, np.ndarray]:
    """CL(r) and C(r) of §3.2 for each outcome, r = 1..t.

    ``fs[k, x]``: 0-based rank at which ideal unit x is first seen in outcome
    k (o: never).  When the ranked part falls short (F_o < r) the user goes
    on in the unranked part with the classical model: C gains the expected
    (r - F_o)(u+1)/(t - F_o + 1) (Cooper, eq. 16) and CL gains r - F_o
    (eq. 18).  ``u = inf`` is left to the caller (precision 0 there).
    """
    srt = np.sort(fs, axis=1)
    seen = srt < o
    fresh = seen.copy()
    fresh[:, 1:] &= srt[:, 1:] != srt[:, :-1]
    cl = np.cumsum(fresh, axis=1).astype(float)
    f_o = seen.sum(axis=1)[:, None]
    r = np.arange(1, t + 1)[None, :]
    need = np.maximum(r - f_o, 0)
    cl += need
    uu = 0.0 if math.isinf(u) else u
    with np.errstate(divide="ignore", invalid="ignore"):
        rest = o + need * (uu + 1.0) / (t - f_o + 1.0)
    c = np.where(seen, srt + 1.0, rest)
    return cl, c


def first_seen(bits: np.ndarray, rows: np.ndarray, starts: np.ndarray, cols: np.ndarray,
               ev: Events) -> np.ndarray:
    """First-seen ranks of all ideal units for each outcome (row) of ``bits``.

    ``bits[k, j]``: whether uncertain event j happened in outcome k; the
    events are ``ev.uncertain()``'s (``rows``, ``cols``, grouped by column
    from ``starts``).  Certain events count in every outcome.
    """
    n = bits.shape[0]
    fs = np.broadcast_to(ev.first_certain, (n, ev.t)).copy()
    if len(rows):
        vals = np.where(bits, rows[None, :], ev.o)
        mins = np.minimum.reduceat(vals, starts, axis=1)
        ucols = cols[starts]
        fs[:, ucols] = np.minimum(fs[:, ucols], mins)
    return fs
