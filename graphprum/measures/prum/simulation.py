"""``PRUM(exact=mc,samples=N,seed=S)``: E[CL(r)] / E[C(r)] of PRUM §3.2 by
simulating users, with delta-method standard errors.

Each simulated user draws every uncertain navigation event as an
independent Bernoulli (Hypothesis 2.2, vectorised over users); the ranked
part gives CL(r), C(r) exactly as for enumeration
(:mod:`~graphprum.measures.prum.outcomes`).  The ratio of means is reported
with its delta-method standard error ``sd(CL - R C) / (mean(C) sqrt(n))``.

The delta method only sees outcomes that occurred: when an event's rarer
outcome (probability m = min(p, 1 - p)) never occurred among the n users --
likely when n m < 3 -- the standard error may be 0 while the estimate is
off (an event of probability .9995 followed by all of 1000 users).  The
probabilities are known, so the probability q that a user meets at least
one outcome no simulated user met is exact: q = 1 - prod(1 - m) over those
events.  Mixing such users back in at their worst -- CL in [0, r], C up to
o + r (u + 1)/(t + 1), the largest number of consultations eq. 5 allows
for recall r (o when u is infinite) -- bounds the true value::

    low  = (1-q) a / ((1-q) c + q C_max)
    high = ((1-q) a + q r) / ((1-q) c + q r)

with a, c the simulated means of CL and C (:attr:`SimulatedPrecision.low`,
:attr:`SimulatedPrecision.high`).

A simulation has a cost known before it starts (users times ranked
results): :func:`check_mc_cost` refuses one above :data:`MC_WORK_LIMIT`
unless forced.

Examples
--------
Table III (ERRATA item 3: 0.64623 at r = 2 without Hypothesis 2.3):

>>> res = simulate_precision([[.4, .4], [.6, .4], [1, 0], [0, 1]], samples=20000, seed=1)
>>> bool(abs(res.precision[1] - 0.64623) < 4 * res.stderr[1])
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from graphprum.errors import UsageError
from graphprum.measures.interpolation import LEVELS, argmax_at, min_recall
from graphprum.measures.prum.events import Events, events
from graphprum.measures.prum.outcomes import first_seen, outcome_counts
from graphprum.measures.spec import MeasureSpec

#: Largest simulation ``exact=mc`` starts without ``force``: simulated users
#: times ranked results, summed over runs and topics (:func:`mc_work`).  One
#: such step costs 30-70 ns on one core (synthetic topics of 100-1,500
#: ranked results, 10-50 ideal units, 10^3-10^4 samples), so the bound is
#: about 5-12 minutes of simulation.
MC_WORK_LIMIT = 10**10
#: Seconds per step of :data:`MC_WORK_LIMIT`, for the estimate shown.
MC_SECONDS_PER_STEP = 50e-9

#: CL, C and the drawn coins of a chunk of simulated users.
Chunk = tuple[np.ndarray, np.ndarray, np.ndarray]


def simulate_precision(nav: Any, u: float = math.inf, *, samples: int = 1000,
                       seed: int | None = 0,
                       progress: Callable[[float], None] | None = None) -> SimulatedPrecision:
    """E[CL(r)]/E[C(r)] (§3.2, no Hypothesis 2.3) by simulating ``samples`` users.

    Parameters
    ----------
    nav : array_like or scipy.sparse array, shape (o, t), or Events
        As for :func:`~graphprum.measures.prum.exact.precision_at_recall`.
    u : float
        Size of the unranked part (N - o).
    samples, seed : int
        Simulated users, and the seed that draws them (None: a fresh one).
    progress : callable or None
        Called with the fraction done as chunks of users are simulated.
    """
    if samples < 1:
        raise UsageError(f"PRUM(exact=mc): samples must be >= 1, got {samples}")
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    users = _Users.of(events(nav), u, samples, seed)
    t = users.ev.t
    if t == 0:
        empty = np.zeros(0)
        return SimulatedPrecision(empty, empty, samples, seed, users, empty, 0)
    zero = users.ev.certain_seen if math.isinf(u) else t
    rare = users.probs < 0.5  # the rarer outcome of each event: happening (p < .5) or not
    met = np.zeros(len(users.probs), dtype=bool)
    s_cl, s_c, s_cl2, s_c2, s_clc = (np.zeros(t) for _ in range(5))
    done = 0
    for cl, c, bits in users:
        met |= (bits == rare[None, :]).any(axis=0)
        done += len(cl)
        if progress is not None:
            progress(done / samples)
        s_cl += cl.sum(axis=0)
        s_c += c.sum(axis=0)
        s_cl2 += (cl * cl).sum(axis=0)
        s_c2 += (c * c).sum(axis=0)
        s_clc += (cl * c).sum(axis=0)
    n = samples
    m_cl, m_c = s_cl / n, s_c / n
    ratio = m_cl / m_c
    if n > 1:
        # sample variance of psi = CL - R C, from the accumulated moments
        ss = (s_cl2 - 2 * ratio * s_clc + ratio**2 * s_c2) - n * (m_cl - ratio * m_c) ** 2
        stderr = np.sqrt(np.maximum(ss, 0.0) / (n - 1) / n) / m_c
    else:
        stderr = np.zeros(t)
    ratio[zero:] = 0.0
    stderr[zero:] = 0.0
    m = np.minimum(users.probs, 1.0 - users.probs)[~met]
    q = float(-np.expm1(np.sum(np.log1p(-m)))) if len(m) else 0.0
    low, high = _unmet_bounds(ratio, m_cl, m_c, q, users.ev, u)
    low[zero:] = 0.0
    high[zero:] = 0.0
    return SimulatedPrecision(ratio, stderr, samples, seed, users, m_c, zero, low, high, q,
                              float(m.min()) if len(m) else 0.0)


def _unmet_bounds(ratio: np.ndarray, m_cl: np.ndarray, m_c: np.ndarray, q: float, ev: Events,
                  u: float) -> tuple[np.ndarray, np.ndarray]:
    """``low`` and ``high`` of the module notes: the users who meet an
    outcome nobody met (probability q) mixed back in at their worst."""
    if q == 0.0:
        return ratio.copy(), ratio.copy()
    t = ev.t
    r = np.arange(1, t + 1, dtype=float)
    c_max = np.full(t, float(ev.o)) if math.isinf(u) else ev.o + r * (u + 1.0) / (t + 1.0)
    low = (1 - q) * m_cl / ((1 - q) * m_c + q * c_max)
    high = ((1 - q) * m_cl + q * r) / ((1 - q) * m_c + q * r)
    return low, high


@dataclass(frozen=True)
class _Users:
    """The simulated users of one topic, drawn in chunks from their seed:
    iterating again draws the same users (:meth:`SimulatedPrecision.combination_stderr`
    reads them twice without keeping them)."""

    ev: Events
    u: float
    samples: int
    seed: int
    rows: np.ndarray
    cols: np.ndarray
    probs: np.ndarray
    starts: np.ndarray

    @classmethod
    def of(cls, ev: Events, u: float, samples: int, seed: int) -> _Users:
        return cls(ev, u, samples, seed, *ev.uncertain())

    def __iter__(self) -> Iterator[Chunk]:
        if self.ev.t == 0:
            return
        k = len(self.rows)
        chunk = max(1, min(self.samples, (1 << 22) // max(self.ev.t, k, 1)))
        rng = np.random.default_rng(self.seed)
        for start in range(0, self.samples, chunk):
            n = min(chunk, self.samples - start)
            bits = rng.random((n, k)) < self.probs[None, :]
            fs = first_seen(bits, self.rows, self.starts, self.cols, self.ev)
            yield (*outcome_counts(fs, self.ev.o, self.ev.t, self.u), bits)


@dataclass
class SimulatedPrecision:
    """Monte Carlo estimate of E[CL(r)]/E[C(r)] (r = 1..t) with standard errors.

    Attributes
    ----------
    precision, stderr : ndarray of shape (t,)
        Ratio estimates and their delta-method standard errors.
    samples, seed : int
        Simulation size and the seed that reproduces it.
    low, high : ndarray of shape (t,)
        Where E[CL]/E[C] can lie when the outcomes no simulated user met
        are mixed back in at their worst (module notes); equal to
        ``precision`` when every outcome was met.
    unseen : float
        Probability that a user meets an outcome no simulated user met
        (known exactly from the navigation probabilities).
    rarest_unseen : float
        Probability of the least likely such outcome (0.0 when none).
    """

    precision: np.ndarray
    stderr: np.ndarray
    samples: int
    seed: int
    _users: _Users = field(repr=False)
    _mean_c: np.ndarray = field(repr=False)
    _zero: int = field(repr=False)
    low: np.ndarray = field(default_factory=lambda: np.zeros(0))
    high: np.ndarray = field(default_factory=lambda: np.zeros(0))
    unseen: float = 0.0
    rarest_unseen: float = 0.0

    def combination_stderr(self, weights: np.ndarray) -> float:
        """Standard error of ``sum_r weights[r-1] * precision[r-1]``.

        Delta method on the ratio estimators: the influence of a simulated
        user is ``sum_r w_r (CL_r - R_r C_r) / mean(C_r)``; its sample
        standard deviation / sqrt(n).  Replays the same simulated users.
        """
        w = np.asarray(weights, dtype=float).copy()
        w[self._zero:] = 0.0
        nz = np.flatnonzero(w)
        if len(nz) == 0 or self.samples < 2:
            return 0.0
        s1 = 0.0
        s2 = 0.0
        for cl, c, _ in self._users:
            psi = ((cl[:, nz] - self.precision[nz] * c[:, nz]) / self._mean_c[nz]) @ w[nz]
            s1 += float(psi.sum())
            s2 += float((psi * psi).sum())
        n = self.samples
        var = max(s2 - s1 * s1 / n, 0.0) / (n - 1)
        return math.sqrt(var / n)

    def interpolated(self, level: float | str | Fraction) -> tuple[float, float]:
        """Interpolated precision at ``level`` and its standard error."""
        if len(self.precision) == 0:
            return 0.0, 0.0
        j = argmax_at(self.precision, level)
        return float(self.precision[j]), float(self.stderr[j])

    def mean(self) -> tuple[float, float]:
        """11-level mean (PRUM) and its standard error."""
        t = len(self.precision)
        if t == 0:
            return 0.0, 0.0
        w = np.zeros(t)
        for lv in LEVELS:
            w[argmax_at(self.precision, lv)] += 1.0 / len(LEVELS)
        return float(w @ self.precision), self.combination_stderr(w)

    def bounds(self, r: int | None = None, level: float | str | Fraction | None = None
               ) -> tuple[float, float]:
        """Where the value at recall ``r``, at ``level`` (interpolated), or the
        11-level mean can lie given the outcomes no simulated user met.

        Interpolation takes a maximum over r >= ceil(level t), so the bounds
        of an interpolated value are the maxima of the bounds.
        """
        t = len(self.precision)
        if t == 0 or (r is not None and r > t):
            return 0.0, 0.0
        if r is not None:
            return float(self.low[r - 1]), float(self.high[r - 1])
        levels = [level] if level is not None else list(LEVELS)
        lo = hi = 0.0
        for lv in levels:
            r0 = min_recall(lv, t)
            lo += float(np.max(self.low[r0 - 1:]))
            hi += float(np.max(self.high[r0 - 1:]))
        return lo / len(levels), hi / len(levels)


# --------------------------------------------------------------------------
# the cost of a simulation, known before it starts


def mc_samples(spec: MeasureSpec) -> int | None:
    """Simulated users of a ``PRUM(exact=mc,...)`` measure, None for others.

    >>> from graphprum.measures.spec import parse_measure
    >>> mc_samples(parse_measure("PRUM(exact=mc,samples=500)")), mc_samples(parse_measure("AP"))
    (500, None)
    """
    if spec.name.upper() != "PRUM" or spec.params.get("exact") != "mc":
        return None
    samples: int = spec.param("samples", int, 1000)
    return samples


def mc_work(samples: int, ranked_lengths: Sequence[int]) -> int:
    """Steps of simulation (users times ranked results, at least one result
    per (run, topic)) of ``samples`` users over rankings of these lengths.

    >>> mc_work(1000, [10, 0, 5])
    16000
    """
    return samples * sum(max(int(n), 1) for n in ranked_lengths)


def check_mc_cost(specs: Sequence[MeasureSpec], ranked_lengths: Sequence[int],
                  force: bool = False) -> None:
    """UsageError when an ``exact=mc`` measure would simulate more than
    :data:`MC_WORK_LIMIT` steps (unless ``force``); the message gives the
    estimate.

    >>> from graphprum.measures.spec import parse_measure
    >>> try:
    ...     check_mc_cost([parse_measure("PRUM(exact=mc,samples=1000000000)")], [1500])
    ... except UsageError as exc:
    ...     print(str(exc)[35:98])
    1.5e+12 simulation steps (samples x ranked results), about 21 h
    """
    seen: set[int] = set()
    for spec in specs:
        samples = mc_samples(spec)
        if samples is None or samples in seen:
            continue
        seen.add(samples)  # measures with the same samples share one simulation
        work = mc_work(samples, ranked_lengths)
        if work > MC_WORK_LIMIT and not force:
            raise UsageError(f"{spec}: {work:.2g} simulation steps (samples x ranked results), "
                             f"about {_duration(work * MC_SECONDS_PER_STEP)}; more than the "
                             f"{MC_WORK_LIMIT:.0e} graphprum starts without --force: lower "
                             f"samples, or add --force")


def _duration(seconds: float) -> str:
    """``seconds`` in the largest fitting unit.

    >>> _duration(40), _duration(4000), _duration(4e5), _duration(4e8)
    ('40 s', '67 min', '4.6 days', '13 years')
    """
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.0f} h"
    if seconds < 2 * 365 * 86400:
        return f"{seconds / 86400:.2g} days"
    return f"{seconds / (365 * 86400):.2g} years"
