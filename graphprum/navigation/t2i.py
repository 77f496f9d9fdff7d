"""The ``t2i`` navigation model (DESIGN §1.5): the tolerance-to-irrelevance user.

``t2i[:tau=15,init=0,keepsviewing=true]`` -- P(x -> y) = 1 when a user who
starts at x and views (reads) forward reaches y before tau_NR of
non-relevant material has passed, else 0 (T2I paper §4; PRUM §2.3 suggests
it for video).  ``t2i:tau=A-B`` -- tau_NR uniform over [A, B]: P(x -> y) is
the fraction of those users who reach y, ``(B - max(A, tau*)) / (B - A)``
clipped to [0, 1], exact from the threshold tau*(x, y) of
:func:`graphprum.t2i.reach_thresholds`.

"Reaching" follows the single definition of :mod:`graphprum.t2i`: the user
keeps going while relevant material (the topic's relevant fragments: the
relevant units of the qrels, or the highlighted ranges of passage
assessments) appears before tau of non-relevant material has passed, and
reaches y when the viewed interval meets y's span.  Units are those of the
store's ``start``/``length`` columns: seconds for video, characters for text.
Only units of the same document are reached; a unit always leads to itself.
``init`` is accepted for symmetry with the measures: it is effort spent
before viewing starts and does not change what is reached.

Examples
--------
PRUM Fig. 6, video half: scenes a [0, 1), b [1, 10), c [10, 20) (the ideal,
relevant scene), f [20, 30); tau uniform over [0, 12].  From a the user must
pass 10 s of non-relevant material to reach c (tau* = 10), from b 9 s, so
1/6 and 1/4 of the users reach c:

>>> m = T2IModel("t2i:tau=0-12", 0.0, 12.0, keepsviewing=True)
>>> m.probability(np.array([10.0, 9.0, 0.0, -1.0]))  # tau* values
array([0.16666667, 0.25      , 1.        , 1.        ])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphprum.errors import UsageError
from graphprum.navigation.base import parse_options
from graphprum.t2i import reach_thresholds, result_positions, topic_fragments

if TYPE_CHECKING:
    from graphprum.context import TopicContext

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def parse_bool(text: str) -> bool:
    """``true/false``, ``1/0``, ``yes/no``, ``on/off`` (ValueError otherwise).

    >>> parse_bool("False"), parse_bool("yes")
    (False, True)
    """
    t = text.strip().lower()
    if t in _TRUE:
        return True
    if t in _FALSE:
        return False
    raise ValueError(text)


def parse_tau(text: str) -> tuple[float, float]:
    """``15`` -> (15, 15); ``10-15`` -> (10, 15) (ValueError when malformed).

    >>> parse_tau("10-15"), parse_tau("7.5")
    ((10.0, 15.0), (7.5, 7.5))
    """
    t = text.strip()
    left, dash, right = t.partition("-")
    if dash and left:
        low, high = float(left), float(right)
    else:
        low = high = float(t)
    if not (np.isfinite(low) and np.isfinite(high)):
        raise ValueError(text)
    return low, high


class T2IModel:
    """P(x -> y) under the T2I user; see the module notes.

    Parameters
    ----------
    spec : str
        The ``--nav`` spec.
    low, high : float
        tau_NR, or the bounds of its uniform range (``low == high`` for one value).
    keepsviewing : bool
        kappa_keepsviewing.
    init : float
        tau_init (does not change reachability).
    """

    needs_store = True
    browses = True

    def __init__(self, spec: str, low: float, high: float, keepsviewing: bool = True,
                 init: float = 0.0) -> None:
        if low < 0 or high < low or high <= 0:
            raise UsageError(f"--nav {spec!r}: tau must be > 0, or a range A-B with "
                             f"0 <= A <= B and B > 0")
        if init < 0:
            raise UsageError(f"--nav {spec!r}: init must be >= 0")
        self.spec = spec
        self.low = low
        self.high = high
        self.keepsviewing = keepsviewing
        self.init = init

    def probability(self, threshold: np.ndarray) -> np.ndarray:
        """Fraction of users (tau in [low, high]) with tau > ``threshold``."""
        thr = np.asarray(threshold, dtype=np.float64)
        if self.high == self.low:
            return (self.high > thr).astype(np.float64)
        return np.clip((self.high - np.maximum(thr, self.low)) / (self.high - self.low),
                       0.0, 1.0)

    def matrix(self, sources: Sequence[str], targets: Sequence[str],
               ctx: TopicContext | None) -> sp.csr_array:
        """P(sources[i] -> targets[j]), nonzero only within a document."""
        shape = (len(sources), len(targets))
        if ctx is None or ctx.store is None:
            raise UsageError(f"--nav {self.spec}: the t2i model needs a store (--store)")
        if not sources or not targets:
            return sp.csr_array(shape)
        frags = topic_fragments(ctx)
        sdoc, sx, _ = result_positions(ctx, sources)
        tdoc, ts, te = result_positions(ctx, targets)
        rows, cols, thr = reach_thresholds(frags, sdoc, sx, tdoc, ts, te, self.keepsviewing)
        vals = self.probability(thr)
        keep = vals > 0
        return sp.csr_array((vals[keep], (rows[keep], cols[keep])), shape=shape)


def build(args: str) -> T2IModel:
    spec = "t2i" + (":" + args if args else "")
    opts = parse_options(spec, args, {"tau": parse_tau, "init": float,
                                      "keepsviewing": parse_bool})
    tau = opts.get("tau", (15.0, 15.0))
    assert isinstance(tau, tuple)
    low, high = tau
    return T2IModel(spec, float(low), float(high), bool(opts.get("keepsviewing", True)),
                    float(opts.get("init", 0.0)))  # type: ignore[arg-type]
