"""The ``PRUM`` family (DESIGN §1.6): its names, its parameters, its function.

The user consults the ranked units
top-down and, from each, reaches ideal units with the probabilities of the
``--nav`` models (:func:`navigation_matrix`); precision at recall r is eq. 5
(:mod:`~graphprum.measures.prum.exact`), or E[CL]/E[C] of §3.2 without
Hypothesis 2.3 by enumeration (:mod:`~graphprum.measures.prum.enumeration`)
or simulation (:mod:`~graphprum.measures.prum.simulation`); levels are
read by ceiling interpolation (:mod:`graphprum.measures.interpolation`).
Every measure of a topic shares its navigation matrix and its precision
curve (``ctx.cache``).

Examples
--------
>>> from graphprum.context import TopicContext
>>> from graphprum.measures.spec import parse_measure
>>> ctx = TopicContext("1", ["c", "x", "a"], {"a": 1.0, "c": 1.0})
>>> m = FAMILIES[0].bind(parse_measure("PRUM(r=2)"))
>>> round(compute_prum(m, ctx), 4)  # 2 / 3, trec_eval's precision at recall 2
0.6667
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from graphprum.context import CacheKind, TopicContext
from graphprum.errors import UsageError
from graphprum.measures.declare import Curve, Family, Measure, Param, Value
from graphprum.measures.interpolation import interpolated, prum_mean
from graphprum.measures.prum.enumeration import MAX_ENUM_EVENTS, enumerate_precision
from graphprum.measures.prum.events import Events, events, self_events
from graphprum.measures.prum.exact import precision_at_recall
from graphprum.measures.prum.simulation import SimulatedPrecision, simulate_precision

if TYPE_CHECKING:
    import scipy.sparse as sp

#: P(ranked[i] -> ideal[x]) under the ``--nav`` models (:func:`navigation_matrix`).
NAVIGATION: CacheKind[sp.csr_array] = CacheKind("navigation from ranked to ideal units")
#: The same as the navigation events of eq. 5 (:func:`navigation_events`).
EVENTS: CacheKind[Events] = CacheKind("navigation events from ranked to ideal units")
#: Precision at each recall (eq. 5, or E[CL]/E[C] with exact=enum), by ``exact``.
PRECISION: CacheKind[np.ndarray] = CacheKind("PRUM precision at each recall")
#: The simulated users of ``exact=mc``, by (samples, seed).
SIMULATED: CacheKind[SimulatedPrecision] = CacheKind("PRUM simulation")


def navigation_matrix(ctx: TopicContext) -> sp.csr_array:
    """P of eq. 5 for the topic of ``ctx``: ``P[i, x]``, the probability that
    a user consulting the i-th ranked unit reaches ideal unit x under the
    ``--nav`` models, computed once per topic and shared by every measure
    that reads it (PRUM, PRUM-success).

    Returns a ``scipy.sparse`` array of shape (ranked, ideal).
    """
    return ctx.cache.get(NAVIGATION, None, lambda: ctx.nav(ctx.ranked, ctx.ideal))


def navigation_events(ctx: TopicContext) -> Events:
    """The events of :func:`navigation_matrix` that eq. 5 reads, once per
    topic; when no ``--nav`` model browses (the classical model) they are
    read off the ranking directly (:func:`~graphprum.measures.prum.events.self_events`),
    without a matrix."""
    if not any(model.browses for model in ctx.models):
        return ctx.cache.get(EVENTS, None, lambda: self_events(ctx.ranked, ctx.ideal))
    return ctx.cache.get(EVENTS, None, lambda: events(navigation_matrix(ctx)))


def compute_prum(m: Measure, ctx: TopicContext) -> float | Value:
    """Value of a PRUM measure for the topic of ``ctx``.

    Names: ``PRUM`` (mean over 11 levels), ``PRUM@L`` (interpolated at
    level L in [0, 1]), ``PRUM(r=K)`` (precision at integer recall K, eq. 5,
    not interpolated; 0.0 when K > |I| since that recall cannot be reached);
    with ``exact=enum`` or ``exact=mc,samples=N[,seed=S]`` (default
    samples=1000, seed=0) the E[CL]/E[C] of §3.2 replaces eq. 5 and, for mc,
    the value comes with its standard error.
    A topic without ideal units scores 0.0.  u = N - |ranked| (at least 0).
    """
    r, level, exact = m["r"], m.level, m["exact"]
    if not ctx.ideal:
        return Value(0.0, 0.0) if exact == "mc" else 0.0
    nav = navigation_events(ctx)
    u = max(float(ctx.collection_size) - len(ctx.ranked), 0.0)
    if exact == "mc":
        return _simulated(m, ctx, nav, u)
    prec = ctx.cache.peek(PRECISION, exact)
    if prec is None:
        try:
            prec = (enumerate_precision(nav, u) if exact == "enum"
                    else precision_at_recall(nav, u))
        except UsageError as exc:
            raise UsageError(f"measure {m}, topic {ctx.topic}: {exc}") from None
        ctx.cache.put(PRECISION, exact, prec)
    if r is not None:
        return float(prec[r - 1]) if r <= len(prec) else 0.0
    if level is not None:
        return interpolated(prec, level)
    return prum_mean(prec)


def _simulated(m: Measure, ctx: TopicContext, nav: Events, u: float) -> Value:
    """``PRUM(exact=mc,...)``: the value with its standard error, or with half
    the spread the unmet outcomes leave and a note saying so."""
    r, level, samples, seed = m["r"], m.level, m["samples"], m["seed"]
    res = ctx.cache.get(SIMULATED, (samples, seed), lambda: simulate_precision(
        nav, u, samples=samples, seed=seed, progress=ctx.progress))
    if r is not None:
        value, err = (float(res.precision[r - 1]), float(res.stderr[r - 1])) \
            if r <= len(res.precision) else (0.0, 0.0)
    elif level is not None:
        value, err = res.interpolated(level)
    else:
        value, err = res.mean()
    low, high = res.bounds(r, level)
    half = max(value - low, high - value) / 2.0
    if res.unseen > 0 and half > err:
        note = (
            f"{m}: topic {ctx.topic}: some navigation outcomes never occurred among the "
            f"{samples:,} simulated users (probability {res.unseen:.3g} that a user meets "
            f"one); the value may lie anywhere in [{low:.6g}, {high:.6g}], so the stderr "
            f"row reports half that spread, {half:.3g}. Raise samples to at least "
            f"{math.ceil(10 / res.rarest_unseen - 1e-6):,} (10 / {res.rarest_unseen:.3g}, the "
            f"rarest such outcome) or use exact=enum")
        return Value(value, half, note)
    return Value(value, err)


def _one_of_r_and_level(m: Measure) -> None:
    if m["r"] is not None and m.level is not None:
        raise UsageError(f"measure {m}: give either r=K or @L, not both")


FAMILIES = (
    Family(
        "PRUM", compute_prum,
        "precision of a user who navigates from the ranked units (eq. 5), "
        "interpolated over recall levels (§3.1)",
        params={
            "r": Param(int, None, "precision at integer recall K (eq. 5), not interpolated; "
                                  "0 when K exceeds the ideal units", minimum=1),
            "exact": Param(str, None, "E[CL]/E[C] of §3.2 without Hypothesis 2.3: enum "
                                      "enumerates every navigation outcome (at most "
                                      f"{MAX_ENUM_EVENTS} uncertain events), mc simulates "
                                      "users and adds a stderr row",
                           choices=("enum", "mc")),
            "samples": Param(int, 1000, "simulated users", minimum=1,
                             requires=("exact", "mc")),
            "seed": Param(int, 0, "seed of the simulation", requires=("exact", "mc")),
        },
        cutoff="level",
        curve=Curve("level", "interpolated precision (PRUM)"),
        examples=(
            ("PRUM", "mean of PRUM@L over L = 0.0, 0.1, ..., 1.0"),
            ("PRUM@0.5", "interpolated precision at recall level 0.5"),
            ("PRUM(r=2)", "precision at integer recall 2, eq. 5"),
            ("PRUM(exact=enum)", "the mean with E[CL]/E[C] by enumeration"),
            ("PRUM(exact=mc,samples=1000,seed=0)@0.5", "E[CL]/E[C] at level 0.5 by "
             "simulating 1000 users, with a stderr row"),
        ),
        validate=_one_of_r_and_level,
    ),
)
