"""PRUM (TOIS 2007): worked examples of the paper (ERRATA corrections),
Appendix B against Raghavan's closed form, eq. 5 against a naive subset
enumeration written here, and exact=enum/mc."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from graphprum.errors import UsageError
from graphprum.measures.prum import (
    enumerate_precision,
    interpolated,
    min_recall,
    precision_at_recall,
    prum_mean,
    simulate_precision,
)

# Fig. 5 / Table III: list (c, d, a, b); ideal (a, b); c->a .4, c->b .4, d->a .6, d->b .4
TABLE3 = np.array([[0.4, 0.4], [0.6, 0.4], [1.0, 0.0], [0.0, 1.0]])


def test_table3_eq5():
    assert precision_at_recall(TABLE3) == pytest.approx([0.69137, 0.63561], abs=5e-6)
    # the whole collection is ranked: u = 0 changes nothing
    assert precision_at_recall(TABLE3, u=0) == pytest.approx([0.69137, 0.63561], abs=5e-6)


def test_table3_enum_and_table_scenarios():
    assert enumerate_precision(TABLE3) == pytest.approx([0.69137, 0.64623], abs=5e-6)
    # the printed expectations: E[C(1)] = 1.45 (rounded), E[CL(2)] = 1.75, E[C(2)] = 2.71
    assert enumerate_precision(TABLE3)[1] == pytest.approx(1.7536 / 2.7136, abs=1e-4)


def test_table3_mc_within_4_stderr():
    exact = enumerate_precision(TABLE3)
    res = simulate_precision(TABLE3, samples=20000, seed=7)
    assert np.all(res.stderr > 0)
    assert np.all(np.abs(res.precision - exact) < 4 * res.stderr)
    # reproducible with the same seed
    again = simulate_precision(TABLE3, samples=20000, seed=7)
    assert np.array_equal(res.precision, again.precision)


def test_fig4_noisy_or():
    # the probability that d is seen after a, b, c: noisy-or of .4, .9, .2
    # (Fig. 4 gives 0.4, 0.94, 0.952); with one ideal unit F_i is that event
    from graphprum.measures.prum.events import events
    from graphprum.measures.prum.exact import _accumulate

    nav = np.array([[0.4], [0.9], [0.2]])
    _, c_s, dist_o = _accumulate(events(nav), 10)
    # C[0] = P(F_0=0) + P(F_1=0) + P(F_2=0) = 1 + .6 + .06
    assert c_s[0] == pytest.approx(1 + 0.6 + 0.06)
    assert dist_o[1] == pytest.approx(0.952)
    # eq. 5 at r = 1 with u = 1: (.952 + .048) / (1.66 + .048 (u+1)/2)
    assert precision_at_recall(nav, u=1)[0] == pytest.approx(1 / 1.708)


def _structural(ranked, lengths, parent):
    """Eq. 9 by hand: len(x)/len(y) if y contains x, len(y)/len(x) if x contains y."""

    def ancestors(x):
        out = set()
        while x in parent:
            x = parent[x]
            out.add(x)
        return out

    def p(x, y):
        if x == y:
            return 1.0
        if y in ancestors(x):
            return lengths[x] / lengths[y]
        if x in ancestors(y):
            return lengths[y] / lengths[x]
        return 0.0

    return p


def test_fig6_structural():
    lengths = {"a": 60, "b": 40, "f": 10, "c": 10, "d": 10, "e": 10}
    parent = {"b": "a", "f": "a", "c": "b", "d": "b", "e": "b"}
    p = _structural(None, lengths, parent)
    ideal = ["c"]
    good = np.array([[p(x, y) for y in ideal] for x in "cba"])
    bad = np.array([[p(x, y) for y in ideal] for x in "abc"])
    assert bad[:, 0].tolist() == pytest.approx([10 / 60, 10 / 40, 1.0])
    u = len(lengths) - 3
    assert precision_at_recall(good, u) == pytest.approx([1.0])
    assert precision_at_recall(bad, u) == pytest.approx([0.40678], abs=5e-6)
    assert precision_at_recall(bad) == pytest.approx([0.40678], abs=5e-6)
    # one ideal unit: Hypothesis 2.3 is exact, enumeration agrees
    assert enumerate_precision(bad, u) == pytest.approx([0.40678], abs=5e-6)


def test_fig7_best_entry_point():
    nav = np.array([[1.0, 1.0]])  # a -> b, a -> c
    assert precision_at_recall(nav, u=99)[1] == pytest.approx(1.0)
    assert enumerate_precision(nav, u=99)[1] == pytest.approx(1.0)


# ---------------------------------------------------------------- Appendix B


def _raghavan(rel_flags, t, u):
    """Appendix B closed form: r / l_r when reached, else the GRP/Raghavan
    expression with the unranked part; computed from the 0/1 list directly."""
    o = len(rel_flags)
    pos = [i + 1 for i, f in enumerate(rel_flags) if f]
    e_o = len(pos)
    out = []
    for r in range(1, t + 1):
        if e_o >= r:
            out.append(r / pos[r - 1])
        elif math.isinf(u):
            out.append(0.0)
        else:
            out.append(r / (r + (o - e_o) + (r - e_o) * (u - (t - e_o)) / (t - e_o + 1)))
    return out


@st.composite
def classical_lists(draw):
    t = draw(st.integers(1, 8))
    o = draw(st.integers(0, 15))
    # each ranked unit: -1 (non-ideal) or the index of an ideal unit, no repeats
    slots = draw(st.lists(st.integers(-1, t - 1), min_size=o, max_size=o))
    seen, ranked = set(), []
    for s in slots:
        if s >= 0 and s in seen:
            s = -1
        seen.add(s)
        ranked.append(s)
    extra = draw(st.integers(0, 30))
    return t, ranked, extra


@settings(max_examples=300, deadline=None)
@given(classical_lists())
def test_appendix_b_raghavan(case):
    t, ranked, extra = case
    o = len(ranked)
    nav = sp.csr_array((np.ones(sum(s >= 0 for s in ranked)),
                        ([i for i, s in enumerate(ranked) if s >= 0],
                         [s for s in ranked if s >= 0])), shape=(o, t))
    flags = [s >= 0 for s in ranked]
    # the unranked part must hold the t - e_o unretrieved ideal units
    u = (t - sum(flags)) + extra
    assert precision_at_recall(nav, u) == pytest.approx(_raghavan(flags, t, u), rel=1e-12)
    # u = inf: trec_eval semantics, K / rank of K-th relevant, 0 if not retrieved
    assert precision_at_recall(nav) == pytest.approx(_raghavan(flags, t, math.inf), rel=1e-12)
    # the enumeration (no uncertain event: one outcome) agrees
    assert enumerate_precision(nav, u) == pytest.approx(_raghavan(flags, t, u), rel=1e-12)
    # and so does the general probabilistic path, forced by a negligible entry
    if o:
        dense = nav.toarray()
        dense[0][dense[0] == 0] = 1e-300
        assert precision_at_recall(dense, u) == pytest.approx(_raghavan(flags, t, u), rel=1e-12)


def test_trec_eval_semantics_example():
    # ranks 2 and 5 relevant out of 3: P at recall 1 = 1/2, recall 2 = 2/5, recall 3 = 0
    nav = np.zeros((6, 3))
    nav[1, 0] = nav[4, 2] = 1.0
    assert precision_at_recall(nav).tolist() == [0.5, 0.4, 0.0]


# ------------------------------------------- eq. 5 against a naive computation


def _naive_eq5(nav, u):
    """Eq. 5 written out literally: eqs. 6, 7 (sum over subsets A), 8 (each
    leave-one-out law again by subsets), terms (a)-(d) with eq. 16's Cooper
    factor.  Exponential in t; for small cases only."""
    o, t = nav.shape
    seen = np.zeros((o + 1, t))  # P(x in S_i), i = 0..o
    for i in range(1, o + 1):
        seen[i] = 1 - (1 - seen[i - 1]) * (1 - nav[i - 1])

    def law(q, s, skip=None):
        idx = [x for x in range(t) if x != skip]
        total = 0.0
        for a in itertools.combinations(idx, s):
            pr = 1.0
            for x in idx:
                pr *= q[x] if x in a else 1 - q[x]
            total += pr
        return total

    out = []
    for r in range(1, t + 1):
        a = b = c = d = 0.0
        for s in range(r):
            for i in range(1, o + 1):
                f_prev = law(seen[i - 1], s)
                c += f_prev
                if f_prev > 0:
                    keep = 1.0
                    for x in range(t):
                        delta = seen[i, x] - seen[i - 1, x]
                        keep *= 1 - delta * law(seen[i - 1], s, skip=x) / f_prev
                    a += f_prev * (1 - keep)
            f_o = law(seen[o], s)
            b += f_o * (r - s)
            if math.isinf(u):
                d += math.inf if f_o > 0 else 0.0
            else:
                d += f_o * (r - s) * (1 + (u - (t - s)) / (t - s + 1))
        out.append((a + b) / (c + d) if not math.isinf(d) else 0.0)
    return out


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 5), st.integers(0, 7), st.data())
def test_eq5_against_naive(t, o, data):
    probs = st.sampled_from([0.0, 0.0, 0.0, 1.0, 0.1, 0.25, 0.5, 0.6, 0.9, 0.999])
    nav = np.array([[data.draw(probs) for _ in range(t)] for _ in range(o)]).reshape(o, t)
    u = data.draw(st.sampled_from([math.inf, float(t), 3.0 * t + 7]))
    got = precision_at_recall(nav, u)
    assert got == pytest.approx(_naive_eq5(nav, u), rel=1e-9, abs=1e-12)
    # sparse input gives the same
    assert precision_at_recall(sp.csr_array(nav), u) == pytest.approx(got, rel=1e-12)


def test_incremental_law_stays_exact_on_long_lists():
    """400 ranks changing 60 ideal units' probabilities many times: compare
    with eq. 5 where every law (leave-one-out included) is rebuilt from scratch."""
    rng = np.random.default_rng(3)
    o, t = 400, 60
    dense = np.where(rng.random((o, t)) < 0.05, rng.uniform(0.01, 0.99, (o, t)), 0.0)
    got = precision_at_recall(dense, u=5000)
    ref = _scratch_eq5(dense, 5000.0)
    assert got == pytest.approx(ref, rel=1e-8, abs=1e-12)


def _scratch_eq5(nav, u):
    """Eq. 5 with every law recomputed by polynomial products (numpy.polynomial),
    leave-one-out laws included: O(o t^3) but independent of the incremental code."""
    from numpy.polynomial import polynomial as poly

    o, t = nav.shape

    def law(q):
        out = np.ones(1)
        for qx in q:
            out = poly.polymul(out, [1 - qx, qx])
        return np.pad(out, (0, t + 1 - len(out)))

    seen = np.zeros(t)
    a_s = np.zeros(t + 1)
    c_s = np.zeros(t + 1)
    for i in range(o):
        prev = law(seen)
        c_s += prev
        new = 1 - (1 - seen) * (1 - nav[i])
        keep = np.ones(t + 1)
        for x in np.flatnonzero(new > seen):
            loo = law(np.delete(seen, x))
            with np.errstate(divide="ignore", invalid="ignore"):
                keep *= np.where(prev > 0, 1 - (new[x] - seen[x]) * loo / prev, 1.0)
        a_s += prev * (1 - keep)
        seen = new
    d_o = law(seen)
    out = []
    for r in range(1, t + 1):
        s = np.arange(r)
        a = a_s[:r].sum() + (d_o[:r] * (r - s)).sum()
        c = c_s[:r].sum() + (d_o[:r] * (r - s) * (u + 1) / (t - s + 1)).sum()
        out.append(a / c)
    return np.array(out)


def _large_case(seed, o, t):
    rng = np.random.default_rng(seed)
    dense = np.where(rng.random((o, t)) < 0.01, rng.uniform(0.05, 0.95, (o, t)), 0.0)
    for i in range(0, o, 7):  # some ideal units ranked directly
        dense[i, rng.integers(t)] = 1.0
    return dense


def test_normal_approximation_agrees_on_large_cases():
    dense = _large_case(11, 600, 400)  # up to ~250 uncertain ideal units
    exact = precision_at_recall(dense, u=10000)
    approx = precision_at_recall(dense, u=10000, normal_threshold=0)
    assert np.max(np.abs(exact - approx)) < 1e-2
    assert prum_mean(approx) == pytest.approx(prum_mean(exact), abs=1e-4)
    # the exact path is exact: compare with laws rebuilt from scratch
    small = _large_case(12, 150, 60)
    assert precision_at_recall(small, u=500) == pytest.approx(_scratch_eq5(small, 500.0),
                                                              rel=1e-9)


def test_exact_path_below_threshold(monkeypatch):
    """Below the threshold the normal law is never evaluated; above, it is."""
    import graphprum.measures.prum.exact as prum

    calls = []
    real = prum.normal_grid

    def spy(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(prum, "normal_grid", spy)
    dense = _large_case(5, 300, 150)
    assert prum.NORMAL_THRESHOLD >= 150
    prum.precision_at_recall(dense, u=1000)
    assert not calls
    prum.precision_at_recall(dense, u=1000, normal_threshold=10)
    assert calls


# ---------------------------------------------------------------- enum / mc


def _brute_cl_c(nav, u):
    """E[CL]/E[C] by looping over outcomes one by one, simulating the user
    rank by rank (no vectorisation, no sorting)."""
    o, t = nav.shape
    events = [(i, x) for i in range(o) for x in range(t) if 0 < nav[i, x] < 1]
    e_cl = np.zeros(t)
    e_c = np.zeros(t)
    for bits in itertools.product([False, True], repeat=len(events)):
        pr = 1.0
        hit = nav >= 1
        for (i, x), b in zip(events, bits, strict=True):
            pr *= nav[i, x] if b else 1 - nav[i, x]
            hit[i, x] |= b
        for r in range(1, t + 1):
            seen = set()
            cl = c = 0
            for i in range(o):
                if len(seen) >= r:
                    break
                c = i + 1
                new = {x for x in range(t) if hit[i, x]} - seen
                cl += bool(new)
                seen |= new
            if len(seen) < r:
                need = r - len(seen)
                if math.isinf(u):
                    c = math.inf
                else:
                    c += need * (1 + (u - (t - len(seen))) / (t - len(seen) + 1))
                cl += need
            e_cl[r - 1] += pr * cl
            e_c[r - 1] += pr * c
    return np.where(np.isinf(e_c), 0.0, e_cl / e_c)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 4), st.integers(0, 5), st.data())
def test_enum_against_brute_force(t, o, data):
    probs = st.sampled_from([0.0, 0.0, 1.0, 0.3, 0.5, 0.8])
    nav = np.array([[data.draw(probs) for _ in range(t)] for _ in range(o)]).reshape(o, t)
    if np.count_nonzero((nav > 0) & (nav < 1)) > 10:
        return
    u = data.draw(st.sampled_from([math.inf, 2.0 * t + 3]))
    assert enumerate_precision(nav, u) == pytest.approx(_brute_cl_c(nav, u), rel=1e-10)


def test_enum_refuses_large_cases():
    nav = np.full((5, 5), 0.5)
    with pytest.raises(UsageError, match="25 uncertain"):
        enumerate_precision(nav)


def test_mc_mean_and_level_stderr():
    exact = enumerate_precision(TABLE3, u=10)
    res = simulate_precision(TABLE3, u=10, samples=40000, seed=3)
    assert np.all(np.abs(res.precision - exact) < 4 * res.stderr)
    value, err = res.mean()
    ref = prum_mean(exact)
    assert err > 0 and abs(value - ref) < 4 * err
    # a single r as a combination gives back its own standard error
    w = np.array([0.0, 1.0])
    assert res.combination_stderr(w) == pytest.approx(res.stderr[1], rel=1e-9)


# ---------------------------------------------------------------- interpolation


def test_min_recall_exact_rationals():
    assert math.ceil(0.07 * 100) == 8  # the trap: 7.000000000000001
    assert min_recall(0.07, 100) == 7
    assert min_recall(0.55, 100) == 55
    assert min_recall("0.55", 100) == 55
    assert min_recall(0.3, 10) == 3
    assert min_recall(0.7, 10) == 7
    assert min_recall(0.1, 30) == 3
    assert min_recall(0.0, 5) == 1
    assert min_recall(1.0, 5) == 5
    assert min_recall(0.15, 7) == 2  # 1.05 -> 2


def test_interpolation_and_mean():
    prec = np.array([0.5, 1.0, 0.2, 0.3])
    assert interpolated(prec, 0.0) == 1.0
    assert interpolated(prec, 0.5) == 1.0  # r >= 2
    assert interpolated(prec, 0.6) == 0.3  # r >= 3 (2.4 -> 3)
    assert interpolated(prec, 1.0) == 0.3
    levels = [1.0] * 6 + [0.3] * 5  # 0.0..0.5 -> r>=1,1,1,2,2,2 ; 0.6..1.0 -> r>=3,3,4,4,4
    assert prum_mean(prec) == pytest.approx(sum(levels) / 11)
    with pytest.raises(UsageError):
        interpolated(prec, 1.5)


def test_unbounded_collection_needs_certain_recall_even_when_nearly_certain():
    """u = inf: recall r that the list reaches only with probability
    1 - 4e-16 (0.999s) is not certain, so precision is 0 (the limit of eq. 5),
    as the naive formula says; a hypothesis example once found rounding here."""
    nav = np.array([[0.6, 0.999], [0.999, 0.999], [0.999, 0.999]])
    assert precision_at_recall(nav, math.inf).tolist() == [0.0, 0.0]
    assert _naive_eq5(nav, math.inf) == [0.0, 0.0]
    nav[0, 0] = 1.0  # now one ideal unit is surely seen at rank 1
    assert precision_at_recall(nav, math.inf)[0] > 0.0


def test_unit_made_certain_by_underflow_counts_once():
    """Many navigation events (links:hops=10000) drive P(unit not seen) to
    exactly 0.0 by underflow (0.5^1100 < 2^-1074) without any p = 1 event;
    the unit is then certain, once: the same list with a p = 1 event at a
    rank where the product has already underflowed gives the same precision
    (it differs by less than 2^-1074 in exact arithmetic), and events after
    that change nothing.  Counting every later event as 'became certain'
    used to overflow the law's support (ValueError: could not broadcast)."""
    o = 1200
    many = np.zeros((o, 2))
    many[:, 0] = 0.5                 # unit a: 1,200 events of 0.5
    many[::7, 1] = 0.3               # unit b: uncertain all along
    sure = many.copy()
    sure[1100, 0] = 1.0              # certain at rank 1101, where 0.5^1100 is already 0.0
    sure[1101:, 0] = 0.0
    assert 0.5**1100 == 0.0
    got = precision_at_recall(many)
    assert np.all(np.isfinite(got))
    assert got == pytest.approx(precision_at_recall(sure), rel=1e-12, abs=1e-15)
