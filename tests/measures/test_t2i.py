"""T2I measures (T2I paper eqs. 2-5, ERRATA T2I 1-2) on hand-computed cases.

Timeline (seconds), one video v of 130 s cut into 8 segments, tau = 15:

  0    10    20 25    40        60        80        100         130
  |-1--|--2--|3-|--4---|----5----|----6----|----7----|-----8-----|
              r1         r2                    r3

Relevant segments r1 = v#3 [20, 25), r2 = v#5 [40, 60), r3 = v#7 [80, 100):
R = 3, D = 130, D_R = 5 + 20 + 20 = 45, I = ceil((130 - 45) / 15) = 6.

The paper's §3.2 systems: A returns r1, r1, r2; B returns r1, r2 and a
non-relevant item (v#8).  Walking the user (tau = 15):

  A: v#3 at 20 -> r1 at waste 0; r2 is exactly 15 s after r1: give up (15)
     v#3 again -> r1 already seen, r2 20 s away: give up (cum. 30)
     v#5 at 40 -> r2 at waste 30; r3 20 s after r2: give up (cum. 45)
  B: v#3 -> r1 at 0 (cum. 15); v#5 -> r2 at 15 (cum. 30); v#8 -> 15 s (cum. 45)
"""

from __future__ import annotations

import pytest

import graphprum
from graphprum.assessments import TopicAssessment
from graphprum.context import TopicContext
from graphprum.errors import UsageError
from graphprum.loaders.video import video_document
from graphprum.measures.registry import family, parse_measure
from graphprum.store import open_store

A = ["v#3", "v#3", "v#5"]
B = ["v#3", "v#5", "v#8"]
QRELS = {"v#3": 1.0, "v#5": 2.0, "v#7": 1.0, "v#1": 0.0}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    s = open_store(tmp_path_factory.mktemp("t2i") / "store")
    s.load_documents([video_document("v", "timeline", [0, 10, 20, 25, 40, 60, 80, 100],
                                     [10, 20, 25, 40, 60, 80, 100, 130])])
    return s


def value(name, store, ranked, qrels=QRELS, **kw):
    spec = parse_measure(name)
    fam = family(spec.name)
    assert fam is not None and fam.needs_store
    return fam.compute(spec, TopicContext("1", list(ranked), dict(qrels), store=store, **kw))


def test_t2i_precision_systems_a_and_b(store):
    # cut-offs after 15, 30, 45 s of waste; precision F_t / (F_t + t)
    # A: F = 1, 2, 2 -> (1/2 + 2/4 + 2/5) / 3;  B: F = 2, 2, 2 -> (2/3 + 2/4 + 2/5) / 3
    a = value("T2I-P(tau=15,T=45)", store, A)
    b = value("T2I-P(tau=15,T=45)", store, B)
    assert a == pytest.approx((1 / 2 + 2 / 4 + 2 / 5) / 3)
    assert b == pytest.approx((2 / 3 + 2 / 4 + 2 / 5) / 3)
    assert b >= a
    # default T = 20 tau: t = 1..20, F constant after the list ends
    fa = [1] + [2] * 19
    expected = sum(f / (f + t) for t, f in enumerate(fa, 1)) / 20
    assert value("T2I-P", store, A) == pytest.approx(expected)


def test_esl_systems_a_and_b(store):
    # S = 1: r1 at waste 0 in both -> j = 0
    assert value("ESL(S=1)", store, A) == 0.0 and value("ESL(S=1)", store, B) == 0.0
    # S = 2: A finds r2 at waste 30 (j = 2), B at 15 (j = 1)
    assert value("ESL(S=2)", store, A) == 2.0
    assert value("ESL(S=2)", store, B) == 1.0
    # S = 3 = R (the default): list exhausted with 2 found, W = 45 -> j = 3,
    # r = 1 not retrieved, s = 1 wanted: 3 (1 - 1 + 1)/2 + 1 * 6 / 2 = 4.5
    for run in (A, B):
        assert value("ESL(S=3)", store, run) == pytest.approx(4.5)
        assert value("ESL", store, run) == pytest.approx(4.5)
        assert value("ESL(S=9)", store, run) == pytest.approx(4.5)  # capped at R


def test_eslrf(store):
    # eq. 4: 1 - (R + 1)/(S (r + 1)) (s + j (r - s + 1)/I); found inside the
    # list: s = 0 -> 1 - (R + 1) j / (S I)
    assert value("ESLRF(S=2)", store, A) == pytest.approx(1 - 4 * 2 / (2 * 6))
    assert value("ESLRF(S=2)", store, B) == pytest.approx(1 - 4 * 1 / (2 * 6))
    # S = 3: r = 1, s = 1, j = 3 -> 1 - 4/(3 * 2) (1 + 3 * 1 / 6) = 0
    assert value("ESLRF(S=3)", store, A) == pytest.approx(0.0, abs=1e-12)
    # r1, r2, r3 in turn: each inspection still ends with 15 s of waste, so r3
    # is found at waste 30: j = 2, ESLRF = 1 - 4 * 2 / (3 * 6)
    assert value("ESLRF(S=3)", store, ["v#3", "v#5", "v#7"]) == pytest.approx(1 - 8 / 18)


def test_t2i_pr(store):
    # P_S = S / (S + ESL_S): A (1, 2/4, 3/7.5), B (1, 2/3, 3/7.5)
    # levels k/10 with R = 3: S >= ceil(3k/10) -> k 0..3: S = 1, 4..6: S = 2,
    # 7..10: S = 3; interpolation = max over S' >= S (the sequences decrease)
    a = (4 * 1 + 3 * 0.5 + 4 * 0.4) / 11
    b = (4 * 1 + 3 * (2 / 3) + 4 * 0.4) / 11
    assert value("T2I-PR", store, A) == pytest.approx(a)
    assert value("T2I-PR", store, B) == pytest.approx(b)
    assert value("T2I-PR@0.5", store, A) == pytest.approx(0.5)
    assert value("T2I-PR@0.5", store, B) == pytest.approx(2 / 3)
    assert value("T2I-PR@1", store, A) == pytest.approx(0.4)


def test_b_never_worse_than_a(store):
    for name in ("T2I-P(T=45)", "T2I-P", "T2I-PR", "T2I-PR@0.5", "ESLRF(S=2)", "ESLRF"):
        assert value(name, store, B) >= value(name, store, A) - 1e-12, name
    for name in ("ESL(S=2)", "ESL"):
        assert value(name, store, B) <= value(name, store, A), name


def test_keepsviewing_and_tau_change_what_is_found(store):
    # one result v#2 (at 10).  tau 20: r1 at waste 10, r2 at 25; r3 is exactly
    # 20 after r2: not reached; total waste 45 -> j = 2 for ESL(S=3):
    # r = 1, s = 1: 2 (1)/2 + 1 * I / 2 with I = ceil(85/20) = 5 -> 3.5
    assert value("ESL(tau=20,S=2)", store, ["v#2"]) == 1.0  # floor(25/20)
    assert value("ESL(tau=20,S=3)", store, ["v#2"]) == pytest.approx(1 + 2.5)
    # without keepsviewing the user stops after r1 (waste 10): found 1,
    # j = 0, r = 2, s = 2: 0 + 2 * 5 / 3
    assert value("ESL(tau=20,S=3,keepsviewing=false)", store, ["v#2"]) == \
        pytest.approx(10 / 3)
    # tau 10: r1 is exactly 10 s from v#2's start: never reached
    assert value("T2I-P(tau=10,T=20)", store, ["v#2"]) == 0.0
    # tau 11, init 3: r1 found at waste 3 + 10 = 13; cut-offs 11 and 22:
    # F = 0 then 1 -> (0/1 + 1/3) / 2
    assert value("T2I-P(tau=11,T=22,init=3)", store, ["v#2"]) == pytest.approx((0 + 1 / 3) / 2)


def test_time_range_assessments(store):
    # passage-style relevance: one fragment [12, 30) across segments 2-4
    ta = TopicAssessment("1", {"v": __import__("numpy").array([[12.0, 30.0]])})
    # v#3 starts inside it (20): found at once; v#1 at 0: 12 s away (< 15)
    assert value("ESL(S=1)", store, ["v#3"], assessments=ta) == 0.0
    # D_R = 18, I = ceil(112/15) = 8; v#8 finds nothing: j = 1, r = 1, s = 1
    assert value("ESL(S=1)", store, ["v#8"], assessments=ta) == pytest.approx(1 / 2 + 8 / 2)
    assert value("T2I-P(T=15)", store, ["v#1"], assessments=ta) == pytest.approx(1 / 2)


def test_no_relevant_scores_zero(store):
    for name in ("T2I-P", "ESL", "ESLRF", "T2I-PR", "T2I-PR@0.3"):
        assert value(name, store, A, qrels={"v#1": 0.0}) == 0.0


def test_bad_parameters(store):
    for name in ("T2I-P(T=20)", "T2I-P(tau=0)", "ESL(S=0)", "ESL(speed=1)", "ESL@5",
                 "T2I-PR@1.5", "T2I-P(keepsviewing=maybe)", "ESLRF(D=-1)"):
        with pytest.raises(UsageError):
            value(name, store, A)


def test_evaluate_end_to_end(store, tmp_path):
    (tmp_path / "qrels").write_text("1 0 v#3 1\n1 0 v#5 1\n1 0 v#7 1\n")
    (tmp_path / "a").write_text("".join(f"1 Q0 {u} {i} {9 - i} A\n" for i, u in
                                        enumerate(["v#3", "v#4", "v#5"], 1)))
    df = graphprum.evaluate([tmp_path / "a"], tmp_path / "qrels", ["ESL(S=2)", "T2I-PR@0.5"],
                            nav=["t2i"], store=store)
    got = {r.measure: r.value for r in df[df.topic == "all"].itertuples()}
    # v#3: r1 at 0, waste 15; v#4 (25): r2 exactly 15 away, waste 15;
    # v#5: r2 at 30 -> ESL(S=2) = 2, P_2 = 2/4
    assert got["ESL(S=2)"] == 2.0
    assert got["T2I-PR@0.5"] == pytest.approx(0.5)
