"""The T2I user simulation (graphprum.t2i) and the t2i navigation model.

Expected values are worked out by hand on the timelines drawn in comments,
or come from a brute-force user written differently below: it steps through
the medium one unit cell [k, k + 1) at a time with a counter of consecutive
non-relevant cells (the paper's state diagram, Fig. 3), instead of the
event walk over fragments that graphprum.t2i uses.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphprum.context import TopicContext
from graphprum.errors import UsageError
from graphprum.loaders.video import video_document
from graphprum.navigation.base import parse_model
from graphprum.store import open_store
from graphprum.t2i import Fragments, T2IUser, inspect, reach_thresholds, simulate

# ---------------------------------------------------------------------------
# brute force: the state diagram stepped cell by cell (integer positions)


def brute_inspect(x, frags, seen, tau, kv, end):
    """One inspection; returns (hits in order with waste before each, waste).

    frags: list of (a, b) integer ranges; seen: set of indices (updated).
    """
    unseen = [k for k in range(len(frags)) if k not in seen]
    hits, waste, run = [], 0, 0
    stop_at = None  # keepsviewing=False: the end of the first relevant item
    pos = x
    while pos < end:
        if stop_at is not None and pos >= stop_at:
            break
        covering = [k for k in unseen if frags[k][0] <= pos < frags[k][1]]
        if covering:
            run = 0
            for k in covering:
                if k not in seen:
                    seen.add(k)
                    hits.append((k, waste))
            if not kv and stop_at is None:
                stop_at = max(frags[k][1] for k in covering)
        else:
            if stop_at is not None:  # cannot happen: S is covered by the first item
                break
            waste += 1
            run += 1
            if run == tau:
                break
        pos += 1
    return hits, waste


def brute_simulate(results, frags, tau, kv, init, end):
    seen: set[int] = set()
    total, hits, per = 0, [], []
    for x in results:
        h, w = brute_inspect(x, frags, seen, tau, kv, end)
        hits.extend((k, total + init + off) for k, off in h)
        total += w + init
        per.append(w + init)
    return hits, per


def _fr(frags):
    """Fragments in one document, keeping the given order (tests sort them first)."""
    return Fragments.from_arrays([0] * len(frags), [a for a, _ in frags], [b for _, b in frags])


fragment_lists = st.lists(
    st.tuples(st.integers(0, 58), st.integers(1, 12)).map(lambda t: (t[0], min(t[0] + t[1], 60))),
    max_size=6,
).map(lambda fs: sorted(set(fs), key=lambda f: (f[0], f[1])))


@settings(max_examples=300, deadline=None)
@given(frags=fragment_lists, results=st.lists(st.integers(0, 60), min_size=1, max_size=6),
       tau=st.integers(1, 15), kv=st.booleans(), init=st.integers(0, 3))
def test_simulation_matches_brute_force(frags, results, tau, kv, init):
    end = 60
    f = _fr(frags)
    assert list(zip(f.start.tolist(), f.end.tolist(), strict=True)) == \
        [(float(a), float(b)) for a, b in frags]
    tr = simulate(T2IUser(tau, init, kv), f, np.array([float(end)]), [0] * len(results),
                  [float(x) for x in results])
    hits, per = brute_simulate(results, frags, tau, kv, init, end)
    assert tr.hit_fragment.tolist() == [k for k, _ in hits]
    assert tr.hit_waste.tolist() == pytest.approx([float(w) for _, w in hits])
    assert tr.result_waste.tolist() == pytest.approx([float(w) for w in per])


def brute_reaches(x, frags, tau, kv, end, target):
    """Whether a fresh user at x views a cell of target [s, t) (t > s)."""
    seen: set[int] = set()
    # re-run the stepping, recording viewed cells
    unseen = list(range(len(frags)))
    run, pos, stop_at = 0, x, None
    while pos < end:
        if stop_at is not None and pos >= stop_at:
            break
        if target[0] <= pos < target[1]:
            return True
        covering = [k for k in unseen if frags[k][0] <= pos < frags[k][1]]
        if covering:
            run = 0
            seen.update(covering)
            if not kv and stop_at is None:
                stop_at = max(frags[k][1] for k in covering)
        else:
            run += 1
            if run == tau:
                return False
        pos += 1
    return False


@settings(max_examples=300, deadline=None)
@given(frags=fragment_lists, x=st.integers(0, 59), target=st.tuples(st.integers(0, 59),
       st.integers(1, 20)), kv=st.booleans(), low=st.integers(0, 10), width=st.integers(1, 12))
def test_thresholds_match_brute_force(frags, x, target, kv, low, width):
    end = 60
    s, t = target[0], min(target[0] + target[1], end)
    f = _fr(frags)
    rows, _, thr = reach_thresholds(f, [0], [float(x)], [0], [float(s)], [float(t)], kv)
    tau_star = float(thr[0]) if len(rows) else math.inf
    # fixed integer tau: reached iff tau > tau*
    for tau in range(1, 25):
        assert (tau > tau_star) == brute_reaches(x, frags, tau, kv, end, (s, t)), tau
    # tau uniform over [low, low + width]: outcomes only change at integers, and a
    # user with tau in (k, k + 1] behaves like tau = k + 1 (reached iff tau > tau*)
    high = low + width
    expected = sum(brute_reaches(x, frags, k + 1, kv, end, (s, t)) for k in range(low, high))
    model = parse_model(f"t2i:tau={low}-{high},keepsviewing={str(kv).lower()}")
    got = float(model.probability(np.array([tau_star]))[0])
    assert got == pytest.approx(expected / width)


# ---------------------------------------------------------------------------
# hand cases on one timeline (seconds), tau = 15
#
#  0    10    20 25    40        60        80        100         130
#  |-1--|--2--|3-|--4---|----5----|----6----|----7----|-----8-----|
#              r1         r2                    r3
#
# relevant fragments r1 = [20, 25), r2 = [40, 60), r3 = [80, 100);
# gaps: r1 -> r2 is 15 (exactly tau), r2 -> r3 is 20.

R1, R2, R3 = (20, 25), (40, 60), (80, 100)
TIMELINE = Fragments.from_arrays([0, 0, 0], [20, 40, 80], [25, 60, 100])
END = np.array([130.0])


def _sim(starts, **user):
    return simulate(T2IUser(**user), TIMELINE, END, [0] * len(starts), starts)


def test_gap_shorter_and_longer_than_tau():
    # start 10, tau 15: 10 s of waste into r1, then the gap to r2 is exactly
    # 15 = tau: the tolerance runs out at 40 as r2 begins, r2 is not reached.
    tr = _sim([10.0], tau=15)
    assert tr.hit_fragment.tolist() == [0] and tr.hit_waste.tolist() == [10.0]
    assert tr.waste == 10 + 15
    # tau 20: r2 is reached (gap 15 < 20) at waste 10 + 15; the gap of 20 to r3
    # equals tau, so the user gives up at 80 having wasted 10 + 15 + 20.
    tr = _sim([10.0], tau=20)
    assert tr.hit_fragment.tolist() == [0, 1] and tr.hit_waste.tolist() == [10.0, 25.0]
    assert tr.waste == 45.0
    # tau 21: r3 too, at waste 45; after r3 (ends at 100) 21 more s of waste
    # (the video ends at 130, 30 s later).
    tr = _sim([10.0], tau=21)
    assert tr.hit_fragment.tolist() == [0, 1, 2]
    assert tr.hit_waste.tolist() == [10.0, 25.0, 45.0] and tr.waste == 66.0


def test_keepsviewing_false_stops_after_first_fragment():
    tr = _sim([10.0], tau=20, keepsviewing=False)  # r1 at waste 10, stop at 25
    assert tr.hit_fragment.tolist() == [0] and tr.waste == 10.0
    tr = _sim([0.0], tau=15, keepsviewing=False)  # gap 20 >= 15: give up at 15
    assert tr.hit_fragment.tolist() == [] and tr.waste == 15.0


def test_results_inside_before_after_fragments():
    # inside r2 (at 50): hit at once, 10 s of r2 left, then 15 s of waste
    tr = _sim([50.0], tau=15)
    assert tr.hit_fragment.tolist() == [1] and tr.hit_waste.tolist() == [0.0]
    assert tr.waste == 15.0
    # after every fragment (at 110): 15 s of waste; at 120 only 10 s are left
    assert _sim([110.0], tau=15).waste == 15.0
    assert _sim([120.0], tau=15).waste == 10.0
    # at the end of r1 (25): r1 is behind; r2 is exactly tau away: nothing
    tr = _sim([25.0], tau=15)
    assert tr.hit_fragment.tolist() == [] and tr.waste == 15.0


def test_same_fragment_hit_twice_counts_once_and_init():
    # r1, r1 again, then r2 -- with init 3 charged to every result
    tr = _sim([20.0, 20.0, 40.0], tau=15, init=3)
    # result 1: 3 + 15 (gap to r2 is tau) = 18; result 2: r1 is seen, so it
    # is non-relevant now: 3 + 15 = 18; result 3: r2 at 36 + 3 = 39, then
    # the gap of 20 to r3: 3 + 15.
    assert tr.hit_fragment.tolist() == [0, 1]
    assert tr.hit_waste.tolist() == [3.0, 39.0]
    assert tr.result_waste.tolist() == [18.0, 18.0, 18.0]


def test_unknown_results_cost_a_full_tolerance():
    tr = simulate(T2IUser(15, 2), TIMELINE, END, [-1, 0], [0.0, 20.0])
    assert tr.result_waste.tolist() == [17.0, 17.0]
    assert tr.hit_waste.tolist() == [17.0 + 2.0]


def test_nested_fragments_both_count():
    #  0        10   15        30
    #  |--------[=p=)----------)      section [0, 30) holds paragraph [10, 15)
    f = Fragments.from_arrays([0, 0], [0, 10], [30, 15])
    got, pos, w = inspect(T2IUser(5), 12.0, f.start, f.end, 100.0)
    assert sorted(got.tolist()) == [0, 1] and pos.tolist() == [0.0, 0.0] and w == 5.0


def test_user_parameters_are_checked():
    with pytest.raises(UsageError):
        T2IUser(0)
    with pytest.raises(UsageError):
        T2IUser(10, -1)
    with pytest.raises(UsageError):
        parse_model("t2i:tau=20-10")
    with pytest.raises(UsageError):
        parse_model("t2i:tau=x")
    with pytest.raises(UsageError):
        parse_model("t2i:speed=2")


# ---------------------------------------------------------------------------
# the navigation model through a store


@pytest.fixture
def timeline_store(tmp_path):
    store = open_store(tmp_path / "store")
    starts = [0, 10, 20, 25, 40, 60, 80, 100]
    ends = [10, 20, 25, 40, 60, 80, 100, 130]
    store.load_documents([video_document("v", "timeline", starts, ends)])
    return store


def _ctx(store, ranked=(), relevant=("v#3", "v#5", "v#7")):
    return TopicContext("1", list(ranked), {u: 1.0 for u in relevant}, store=store)


def test_nav_fixed_tau(timeline_store):
    ctx = _ctx(timeline_store)
    src = ["v", "v#2", "v#3", "v#4", "v#5"]
    tgt = ["v#3", "v#4", "v#5", "v#7"]
    p = parse_model("t2i:tau=15").matrix(src, tgt, ctx).toarray()
    assert p.tolist() == [
        [0, 0, 0, 0],  # from 0: r1 is 20 s away
        [1, 1, 0, 0],  # from 10: r1, then watch to 40 where r2 begins: not reached
        [1, 1, 0, 0],  # r1 itself, then [25, 40) viewed
        [0, 1, 0, 0],  # v#4 contains its own start; r2 is exactly 15 s away
        [0, 0, 1, 0],  # r3 20 s after r2 ends; v#3 is behind
    ]
    p = parse_model("t2i:tau=15,keepsviewing=false").matrix(["v#3"], ["v#4"], ctx).toarray()
    assert p.tolist() == [[0]]  # stops when r1 ends at 25


def test_nav_uniform_tau(timeline_store):
    ctx = _ctx(timeline_store)
    m = parse_model("t2i:tau=10-30")
    p = m.matrix(["v#2", "v", "v"], ["v#5", "v#7", "v#8"], ctx).toarray()
    # from 10: r2 needs tau > 15 -> (30 - 15) / 20; from 0: r1 needs tau > 20,
    # after which r2 (gap 15) and r3 (gap 20) follow -> (30 - 20) / 20
    assert p[0, 0] == pytest.approx(0.75)
    assert p[1, 1] == pytest.approx(0.5) and p[2, 2] == pytest.approx(0.5)


def test_nav_needs_store():
    with pytest.raises(UsageError):
        parse_model("t2i").matrix(["a"], ["b"], TopicContext("1", [], {"b": 1.0}))


# ---------------------------------------------------------------------------
# PRUM Fig. 6, video half: four scenes a, b, c, f; c is the ideal unit.
#
#  0 1        10          20             30
#  |a|---b----|=====c=====|------f-------|
#
# tau uniform over [0, 12]: a user at a must pass 10 s of non-relevant video
# to reach c (tau > 10: 2/12 = 1/6 of the users), at b 9 s (3/12 = 1/4), the
# probabilities the paper sets to match the XML half (ERRATA PRUM 4).


@pytest.fixture
def fig6(tmp_path):
    store = open_store(tmp_path / "store")
    store.load_documents([video_document("fig6", "fig6", [0, 1, 10, 20], [1, 10, 20, 30])])
    (tmp_path / "qrels").write_text("1 0 fig6#3 1\n")
    (tmp_path / "good").write_text("1 Q0 fig6#3 1 3 good\n1 Q0 fig6#2 2 2 good\n"
                                   "1 Q0 fig6#1 3 1 good\n")
    (tmp_path / "bad").write_text("1 Q0 fig6#1 1 3 bad\n1 Q0 fig6#2 2 2 bad\n"
                                  "1 Q0 fig6#3 3 1 bad\n")
    return store, tmp_path


def test_fig6_video_navigation(fig6):
    store, _ = fig6
    ctx = TopicContext("1", [], {"fig6#3": 1.0}, store=store)
    p = parse_model("t2i:tau=0-12").matrix(["fig6#1", "fig6#2", "fig6#3"], ["fig6#3"], ctx)
    assert p.toarray()[:, 0].tolist() == pytest.approx([1 / 6, 1 / 4, 1.0])


def test_fig6_video_prum_matches_xml_half(fig6):
    pytest.importorskip("graphprum.measures.prum")
    import graphprum

    store, d = fig6
    for n in (6, None):  # the XML half's 6 units; the store's default N
        df = graphprum.evaluate([d / "good", d / "bad"], d / "qrels", ["PRUM(r=1)"],
                                nav=["t2i:tau=0-12"], store=store, collection_size=n)
        got = {r.run: r.value for r in df[df.topic == "all"].itertuples()}
        assert got["good"] == pytest.approx(1.0)
        assert got["bad"] == pytest.approx(0.40678, abs=5e-6)
