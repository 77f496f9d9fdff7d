"""T2I measures (de Vries, Kazai and Lalmas, RIAO 2004, §5): effort-based
precision, expected search length, its reduction factor, and the
probability of relevance, for fragments without a predefined retrieval unit.

Every measure walks the :mod:`graphprum.t2i` user through the ranked list
(user parameters ``tau`` = tau_NR, default 15; ``init`` = tau_init, default
0; ``keepsviewing``, default true -- in the store's units: seconds for video,
characters for text) and reads two things off that walk: the fragments hit,
each once, with the cumulative *wasted* effort W at which it was hit, and the
wasted effort of the whole list.  Notation of Table 1: R relevant fragments,
S desired, D the effort to inspect the collection (total length of the
documents of the fragments' kind; ``D=`` overrides), D_R the effort to
inspect all relevant fragments (length of their union),
``I = ceil((D - D_R) / tau)``.

"The number of times T2I is reached" (j) is read as the number of times the
cumulative wasted effort crosses a multiple of tau: ``j = floor(W / tau)``.
When every unsuccessful inspection ends by giving up (no ``init``, no
document ending early) this is exactly the number of give-ups; unlike a
count of give-ups it also charges results cut short by a document's end and
the ``init`` effort, so many short non-relevant results cannot look free.

Measures (DESIGN §1.6)
----------------------
``T2I-P(tau=..,T=..)`` -- eq. 2: ``(tau/T) sum_{t=1}^{T/tau} P_t`` where P_t,
the precision after t·tau of wasted effort, is ``F_t / (F_t + t)``: F_t
fragments found once W reaches t·tau (hits at exactly t·tau count), each tau
of waste standing for one non-relevant item (Hull's precision at a cut-off,
with the cut-off measured in wasted effort only).  T defaults to 20·tau
(5 minutes for tau = 15 s) and must be a multiple of tau.

``ESL(S=..)`` -- eq. 3 in its final form (ERRATA T2I 1):
``ESL = j (r - s + 1)/(r + 1) + s I/(r + 1)`` with r the relevant fragments
not retrieved and s those still wanted when the list is exhausted; when the
S-th fragment is found inside the list, s = 0 and ESL = j at that hit.
S defaults to R (``S=R`` also accepted) and is capped at R.

``ESLRF(S=..)`` -- eq. 4: ``1 - (R + 1)/(S (r + 1)) (s + j (r - s + 1)/I)``,
i.e. ``1 - ESL / (S I/(R + 1))``; 0.0 when I = 0.

``T2I-PR@L`` -- eq. 5 at recall levels: ``P_S = S / (S + ESL_S)`` (ESL for S
desired fragments, ERRATA T2I 2 for S = R), interpolated at level L like
PRUM (max over S >= ceil(L R), S >= 1); ``T2I-PR`` is the mean over the
levels 0.0, 0.1, ..., 1.0.

A topic without relevant fragments scores 0.0 on every measure (for ESL,
where lower is better, eq. 3's own value with S = R = 0: it lowers a mean).

A result is an entry point: the user starts viewing at its start, a unit's
or, in a range run, a range's -- the paper's own setting, where systems
return clips and passages of their own choosing
(:mod:`graphprum.io.range_runs`); its end is not read.

Examples
--------
One 300 s video with relevant fragments r1 [20, 30), r2 [100, 110),
r3 [200, 210); tau = 15.  System B returns r1, r2 and a non-relevant start
(250 s); each inspection wastes 15 s:

>>> from graphprum.t2i import Fragments, T2IUser, simulate
>>> f = Fragments.from_arrays([0, 0, 0], [20, 100, 200], [30, 110, 210])
>>> tr = simulate(T2IUser(15), f, np.array([300.0]), [0, 0, 0], [20, 100, 250])
>>> tr.hit_waste.tolist(), tr.waste
([0.0, 15.0], 45.0)
>>> round(t2i_precision(tr, 15, 45), 12)  # (2/3 + 2/4 + 2/5) / 3
0.522222222222
>>> expected_search_length(tr, R=3, S=2, I=18, tau=15)
1.0
>>> expected_search_length(tr, R=3, S=3, I=18, tau=15)  # j = 3, r = s = 1
10.5
"""

from __future__ import annotations

import math

import numpy as np

from graphprum.context import CacheKind, TopicContext
from graphprum.errors import UsageError
from graphprum.measures.declare import Curve, Family, Measure, Param
from graphprum.measures.interpolation import interpolated, prum_mean
from graphprum.t2i import (
    Fragments,
    T2IUser,
    Trace,
    doc_ends,
    ranked_positions,
    simulate,
    topic_fragments,
)

__all__ = ["eslrf", "expected_search_length", "probability_of_relevance", "t2i_precision"]

_EPS = 1e-9

#: The simulated user's trace over a run, by user (tau, init, keepsviewing).
TRACES: CacheKind[Trace] = CacheKind("T2I traces")


def _times_reached(waste: float | np.ndarray, tau: float) -> np.ndarray:
    """j = floor(W / tau), robust to rounding (3 x 15.000000001 is 3)."""
    return np.floor(np.asarray(waste, dtype=np.float64) / tau + _EPS)


def t2i_precision(trace: Trace, tau: float, T: float) -> float:  # noqa: N803
    """Eq. 2: mean of ``F_t / (F_t + t)`` over t = 1..T/tau (module notes)."""
    n = round(T / tau)
    t = np.arange(1, n + 1, dtype=np.float64)
    found = trace.found(t * tau).astype(np.float64)
    return float(np.mean(found / (found + t)))


def expected_search_length(trace: Trace, R: int, S: int, I: float,  # noqa: N803, E741
                           tau: float) -> float:
    """Eq. 3 (final form, ERRATA T2I 1) for S desired of R fragments.

    >>> from graphprum.t2i import Trace
    >>> tr = Trace(np.array([0]), np.array([20.0]), np.array([20.0, 40.0]))
    >>> expected_search_length(tr, R=4, S=1, I=10, tau=15)  # found at W = 20: j = 1
    1.0
    >>> expected_search_length(tr, R=4, S=2, I=10, tau=15)  # j = 4, r = 3, s = 1
    5.5
    """
    return float(expected_search_lengths(trace, R, I, tau)[S - 1])


def expected_search_lengths(trace: Trace, R: int, I: float, tau: float  # noqa: N803, E741
                            ) -> np.ndarray:
    """ESL_S for S = 1..R at once (eq. 3)."""
    S = np.arange(1, R + 1)  # noqa: N806
    found = len(trace.hit_waste)
    out = np.empty(R)
    inside = found >= S
    out[inside] = _times_reached(trace.hit_waste[S[inside] - 1], tau)
    j = float(_times_reached(trace.waste, tau))
    r = R - found
    s = S[~inside] - found
    out[~inside] = j * (r - s + 1) / (r + 1) + s * I / (r + 1)
    return out


def eslrf(esl: float, R: int, S: int, I: float) -> float:  # noqa: N803, E741
    """Eq. 4: ``1 - ESL / (S I / (R + 1))``; 0.0 when I = 0.

    >>> eslrf(1.0, R=3, S=2, I=18)  # 1 - (4 / (2 * 1)) * (0 + 1 * 2 / 18)
    0.8888888888888888
    """
    if I <= 0:
        return 0.0
    return 1.0 - esl * (R + 1) / (S * I)


def probability_of_relevance(esl: np.ndarray) -> np.ndarray:
    """Eq. 5 at every S = 1..R: ``S / (S + ESL_S)``.

    >>> probability_of_relevance(np.array([0.0, 2.0])).tolist()
    [1.0, 0.5]
    """
    S = np.arange(1, len(esl) + 1, dtype=np.float64)  # noqa: N806
    return S / (S + np.asarray(esl, dtype=np.float64))


# --------------------------------------------------------------------------
# the families


def _user(m: Measure) -> T2IUser:
    try:
        return T2IUser(m["tau"], m["init"], m["keepsviewing"])
    except UsageError as exc:
        raise UsageError(f"measure {m}: {exc}") from None


def _trace(ctx: TopicContext, user: T2IUser) -> tuple[Trace, Fragments]:
    frags = topic_fragments(ctx)
    def trace() -> Trace:
        doc, start = ranked_positions(ctx)
        return simulate(user, frags, doc_ends(ctx.table), doc, start)

    return ctx.cache.get(TRACES, user, trace), frags


def _effort_outside(m: Measure, ctx: TopicContext, frags: Fragments, tau: float) -> float:
    """I = ceil((D - D_R) / tau)."""
    d = m["D"]
    if d is None:
        view = ctx.units_view()
        kinds = np.asarray(view.table.docs["kind"])
        present = np.unique(kinds[frags.doc]) if len(frags.doc) else np.unique(
            view.collection["kind"] if view.collection is not None else kinds)
        d = view.total_length(present.tolist())
    return float(max(0, math.ceil((d - frags.relevant_length()) / tau - _EPS)))


def _desired(m: Measure, R: int) -> int:  # noqa: N803
    s = m["S"]
    return R if s in ("R", "all") else min(s, R)


def compute_t2i_p(m: Measure, ctx: TopicContext) -> float:
    """``T2I-P(tau=..,T=..)`` for one topic (eq. 2)."""
    user = _user(m)
    T = m["T"] if m["T"] is not None else 20 * user.tau  # noqa: N806
    trace, frags = _trace(ctx, user)
    if frags.R == 0:
        return 0.0
    return t2i_precision(trace, user.tau, T)


def compute_esl(m: Measure, ctx: TopicContext) -> float:
    """``ESL(S=..)`` for one topic (eq. 3)."""
    got = _search_length(m, ctx)
    return 0.0 if got is None else got[0]


def compute_eslrf(m: Measure, ctx: TopicContext) -> float:
    """``ESLRF(S=..)`` for one topic (eq. 4)."""
    got = _search_length(m, ctx)
    return 0.0 if got is None else eslrf(*got)


def _search_length(m: Measure, ctx: TopicContext) -> tuple[float, int, int, float] | None:
    """(ESL, R, S, I) of eq. 3 for the user of ``m``; None without relevant fragments."""
    user = _user(m)
    trace, frags = _trace(ctx, user)
    R = frags.R  # noqa: N806
    if R == 0:
        return None
    S = _desired(m, R)  # noqa: N806
    I = _effort_outside(m, ctx, frags, user.tau)  # noqa: N806, E741
    return expected_search_length(trace, R, S, I, user.tau), R, S, I


def compute_t2i_pr(m: Measure, ctx: TopicContext) -> float:
    """``T2I-PR@L`` and ``T2I-PR`` (eq. 5) for one topic."""
    user = _user(m)
    trace, frags = _trace(ctx, user)
    R = frags.R  # noqa: N806
    if R == 0:
        return 0.0
    I = _effort_outside(m, ctx, frags, user.tau)  # noqa: N806, E741
    prec = probability_of_relevance(expected_search_lengths(trace, R, I, user.tau))
    return interpolated(prec, m.level) if m.level is not None else prum_mean(prec)


#: Steps T / tau of T2I-P at most: its precision is computed at every step
#: (T = 5e9 with tau = 5 asked for 24 GB before this limit).
MAX_STEPS = 10_000_000


def _t_multiple_of_tau(m: Measure) -> None:
    if m["T"] is None:
        return
    ratio = m["T"] / m["tau"]
    if not (ratio >= 1 - _EPS and abs(ratio - round(ratio)) < 1e-6):
        raise UsageError(f"measure {m}: T must be a positive multiple of tau={m['tau']:g}")
    if ratio > MAX_STEPS:  # precision is kept at every step: 8 bytes each, and more
        raise UsageError(f"measure {m}: T / tau = {ratio:,.0f} steps; at most {MAX_STEPS:,} "
                         f"(a larger tau, or a smaller T)")


#: The user of every T2I measure (:class:`graphprum.t2i.T2IUser`).
USER = {
    "tau": Param(float, 15.0, "tau_NR: the non-relevant effort a user tolerates before "
                              "giving up, in the store's units: seconds for video, "
                              "characters for text", above=0),
    "init": Param(float, 0.0, "tau_init: the effort of starting to inspect a result",
                  minimum=0),
    "keepsviewing": Param(bool, True, "whether a user who hits relevant material keeps "
                                      "viewing past it"),
}
_D = Param(float, None, "D, the effort to inspect the collection; by default the total "
                        "length of the documents of the fragments' kind", minimum=0)
_S = Param(int, "R", "S, the relevant fragments the user wants (capped at R)", minimum=1,
           keywords=("R", "all"))
_NEEDS = ("store",)
#: How the T2I measures read a range run (module notes).
_RANGES = "taken; a result is an entry point at its start, viewed forward (its end is not read)"

FAMILIES = (
    Family("T2I-P", compute_t2i_p,
           "effort-based precision: the mean of F_t / (F_t + t) over t = 1..T/tau, the "
           "precision after t tau of wasted effort (eq. 2)",
           params={**USER, "T": Param(float, None, "the effort horizon, a multiple of tau; "
                                                   "by default 20 tau", above=0)},
           needs=_NEEDS, validate=_t_multiple_of_tau, ranges=_RANGES,
           examples=(("T2I-P(tau=15)", "precision over 5 minutes of wasted viewing"),
                     ("T2I-P(tau=15,T=60)", "over the first minute"))),
    Family("ESL", compute_esl,
           "expected search length: the times the user gives up before finding S "
           "relevant fragments (eq. 3, ERRATA T2I 1)",
           params={**USER, "S": _S, "D": _D}, needs=_NEEDS, ranges=_RANGES, better="lower",
           examples=(("ESL(S=1)", "give-ups before the first relevant fragment"),
                     ("ESL", "before all R of them"))),
    Family("ESLRF", compute_eslrf,
           "expected search length reduction factor: 1 - ESL over that of a random "
           "order (eq. 4)",
           params={**USER, "S": _S, "D": _D}, needs=_NEEDS, ranges=_RANGES,
           examples=(("ESLRF(S=1)", "for the first relevant fragment"),)),
    Family("T2I-PR", compute_t2i_pr,
           "probability of relevance S / (S + ESL_S) interpolated at recall level L "
           "(eq. 5, ERRATA T2I 2); bare: the mean over 11 levels",
           params={**USER, "D": _D}, cutoff="level", needs=_NEEDS, ranges=_RANGES,
           curve=Curve("level", "T2I precision"),
           examples=(("T2I-PR(tau=15)", "mean over recall levels 0.0, 0.1, ..., 1.0"),
                     ("T2I-PR(tau=15)@0.5", "at recall level 0.5"))),
)
