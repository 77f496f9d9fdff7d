"""graphprum as a drop-in for trec_eval and ir_measures (issue 21).

The reference is pytrec_eval, trec_eval's own C code: every ``all_trec``
measure graphprum offers is compared on randomly generated qrels and runs
(graded, negative grades, ties, topics missing from the run and from the
qrels), per topic and ``all``, with and without ``-c``, with ``-l 2`` and
``-J``.  The wrong-number items of the issue are tests with the values
computed by hand in their docstrings.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

import graphprum
from graphprum.errors import InputError, UsageError
from graphprum.measures.classical_names import TREC_SETS, trec_names


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def values(df, measure: str | None = None) -> dict:
    """(measure, topic) -> value, or topic -> value for one measure."""
    out = {(m, t): v for _, m, t, v in df.itertuples(index=False)}
    if measure is None:
        return out
    return {t: v for (m, t), v in out.items() if m == measure}


# --- item 1: counts are summed, gm_map is a geometric mean ---------------------

COUNT_QRELS = "1 0 a 1\n1 0 b 1\n1 0 c 0\n2 0 d 1\n3 0 e 1\n3 0 f 2\n"
COUNT_RUN = ("1 Q0 a 1 3 r\n1 Q0 x 2 2 r\n1 Q0 c 3 1 r\n"
             "2 Q0 y 1 2 r\n2 Q0 d 2 1 r\n")


def test_count_measures_are_summed_over_topics(tmp_path):
    """Topic 1 retrieves a (rel), x, c: 3 retrieved, 1 relevant retrieved, 2
    relevant.  Topic 2 retrieves y, d: 2 retrieved, 1 relevant retrieved, 1
    relevant.  Topic 3 (2 relevant) is missing from the run.  trec_eval and
    ir_measures sum counts: with the qrels' topics (-c, graphprum's
    default) num_q = 3, num_ret = 3 + 2 + 0 = 5, num_rel = 2 + 1 + 2 = 5,
    num_rel_ret = 1 + 1 + 0 = 2 (not their means 1.67, 1.67, 0.67); over
    the run's topics (--no-c) num_q = 2, num_ret = 5, num_rel = 3,
    num_rel_ret = 2.  map is still a mean: AP = (1/1)/2, (1/2)/1, 0 ->
    (0.5 + 0.5 + 0)/3 = 1/3 with -c, 1/2 without."""
    q, r = write(tmp_path / "q", COUNT_QRELS), write(tmp_path / "r", COUNT_RUN)
    names = ["num_q", "num_ret", "num_rel", "num_rel_ret", "map",
             "NumQ", "NumRet", "NumRel", "NumRelRet", "AP"]
    got = values(graphprum.evaluate([r], q, names, per_topic=False))
    expected = {"num_q": 3, "num_ret": 5, "num_rel": 5, "num_rel_ret": 2, "map": 1 / 3,
                "NumQ": 3, "NumRet": 5, "NumRel": 5, "NumRelRet": 2, "AP": 1 / 3}
    assert {m: got[(m, "all")] for m in names} == pytest.approx(expected, abs=1e-12)
    got = values(graphprum.evaluate([r], q, names, per_topic=True, complete=False))
    expected = {"num_q": 2, "num_ret": 5, "num_rel": 3, "num_rel_ret": 2, "map": 1 / 2,
                "NumQ": 2, "NumRet": 5, "NumRel": 3, "NumRelRet": 2, "AP": 1 / 2}
    assert {m: got[(m, "all")] for m in names} == pytest.approx(expected, abs=1e-12)
    assert ("map", "3") not in got  # --no-c: topic 3 is not evaluated


def test_gm_map_is_a_geometric_mean_with_trec_evals_floor(tmp_path):
    """gm_map (trec_eval): exp(mean(log(max(AP, 1e-5)))).  AP per topic: 0.5,
    0.5 and 0 (topic 3 missing, -c): exp((2 log 0.5 + log 1e-5)/3) =
    (0.25e-5)^(1/3) = 0.013572088...; without topic 3: 0.5.  Per topic the
    row shows AP floored at 1e-5."""
    q, r = write(tmp_path / "q", COUNT_QRELS), write(tmp_path / "r", COUNT_RUN)
    got = values(graphprum.evaluate([r], q, ["gm_map"]), "gm_map")
    assert got == pytest.approx({"1": 0.5, "2": 0.5, "3": 1e-5,
                                 "all": (0.25e-5) ** (1 / 3)}, abs=1e-12)
    got = values(graphprum.evaluate([r], q, ["gm_map"], complete=False), "gm_map")
    assert got["all"] == pytest.approx(0.5, abs=1e-12)


# --- item 2 and issue 18: grades ----------------------------------------------

@pytest.mark.parametrize("c_grade", ["0.5", "0"])
def test_rel_threshold_keeps_its_meaning_with_graded_qrels(tmp_path, c_grade):
    """Issue 21 item 2: qrels a 2, b 1, c 0.5 (or c 0); run b, c, a.  At
    rel=2 only a (rank 3) is relevant, whatever c's grade below 1:
    P(rel=2)@1 = 0, AP(rel=2) = (1/3)/1 = 1/3, NumRelRet(rel=2) = 1; map at
    trec_eval's -l 2 = 1/3.  At the default threshold relevant means REL > 0:
    with c = 0.5 all three are relevant, AP = 1; with c = 0, AP = (1/1 +
    2/3)/2 = 5/6."""
    q = write(tmp_path / "q", f"1 0 a 2\n1 0 b 1\n1 0 c {c_grade}\n")
    r = write(tmp_path / "r", "1 Q0 b 1 3 r\n1 Q0 c 2 2 r\n1 Q0 a 3 1 r\n")
    got = values(graphprum.evaluate([r], q, ["P(rel=2)@1", "AP(rel=2)", "NumRelRet(rel=2)",
                                             "AP", "map"], per_topic=False))
    assert got[("P(rel=2)@1", "all")] == 0.0
    assert got[("AP(rel=2)", "all")] == pytest.approx(1 / 3, abs=1e-12)
    assert got[("NumRelRet(rel=2)", "all")] == 1.0
    assert got[("AP", "all")] == pytest.approx(1.0 if c_grade == "0.5" else 5 / 6, abs=1e-12)
    assert got[("map", "all")] == got[("AP", "all")]
    at2 = values(graphprum.evaluate([r], q, ["map", "P_1"], per_topic=False,
                                    relevance_level=2))
    assert (at2[("map", "all")], at2[("P_1", "all")]) == pytest.approx((1 / 3, 0.0), abs=1e-12)


def test_graded_qrels_refuse_measures_that_use_the_size_of_a_grade(tmp_path):
    q = write(tmp_path / "q", "1 0 a 2\n1 0 b 0.5\n")
    r = write(tmp_path / "r", "1 Q0 b 1 3 r\n")
    for name in ("ERR@10", "G"):
        with pytest.raises(UsageError, match="graded values in"):
            graphprum.evaluate([r], q, [name])


def test_a_huge_grade_is_refused_with_its_line_not_computed(tmp_path):
    """Issue 18: REL 2,147,480,000 made trec_eval allocate 17 GB (one counter
    per grade level) and print AP 0.0 under a memory limit.  Grades beyond
    ±1,000,000 are refused, naming the line."""
    q = write(tmp_path / "q", "1 0 a 1\n1 0 b 2147480000\n")
    r = write(tmp_path / "r", "1 Q0 b 1 3 r\n")
    with pytest.raises(InputError) as e:
        graphprum.evaluate([r], q, ["AP"])
    assert str(e.value).startswith(f"{q}:2: REL 2147480000 of 'b' (topic '1') is beyond")
    # user-model measures read grades as numbers and do not need the bound
    df = graphprum.evaluate([r], q, ["PRUM(r=1)"], per_topic=False)
    assert df["value"].tolist() == [1.0]


def test_negative_grades_are_not_relevant_and_count_as_trec_eval_counts_them(tmp_path):
    """TREC Web track qrels: -2 spam, -1 junk.  Run (s, j, g): s and j are not
    relevant, so P@3 = 1/3 and AP = (1/3)/1.  bpref counts only judged
    non-relevant documents (REL 0) ranked above a relevant one; trec_eval
    does not count negative grades as judged: bpref = 1 - 0/1 = 1.  With
    -J, s and j are dropped (trec_eval: in the pool but unjudged): P@3 =
    1/3 still (g alone, over 3), AP = 1."""
    q = write(tmp_path / "q", "1 0 s -2\n1 0 j -1\n1 0 g 1\n1 0 n 0\n")
    r = write(tmp_path / "r", "1 Q0 s 1 3 r\n1 Q0 j 2 2 r\n1 Q0 g 3 1 r\n")
    got = values(graphprum.evaluate([r], q, ["P@3", "AP", "bpref"], per_topic=False))
    assert got == pytest.approx({("P@3", "all"): 1 / 3, ("AP", "all"): 1 / 3,
                                 ("bpref", "all"): 1.0}, abs=1e-12)
    got = values(graphprum.evaluate([r], q, ["P@3", "AP"], per_topic=False, judged_only=True))
    assert got == pytest.approx({("P@3", "all"): 1 / 3, ("AP", "all"): 1.0}, abs=1e-12)


# --- names --------------------------------------------------------------------

def test_trec_eval_names_sets_and_spellings():
    assert trec_names("P.5,10") == trec_names("P_5") + trec_names("P.10") == ["P_5", "P_10"]
    assert trec_names("iprec_at_recall.0.1") == ["iprec_at_recall_0.10"]
    # every numeric measure trec_eval's all_trec prints (runid is the run's
    # TAG, see --format trec; relstring is a string)
    printed = pytrec_eval.RelevanceEvaluator({"1": {"a": 1}}, {"all_trec"}).evaluate(
        {"1": {"a": 1.0}})["1"]
    assert sorted(trec_names("all_trec")) == sorted(set(printed) - {"runid", "relstring"})
    assert set(trec_names("official")) <= set(trec_names("all_trec"))
    assert set(TREC_SETS) == {"all_trec", "official", "set"}


@pytest.mark.parametrize(("typed", "expected"), [
    ("MAP", "MAP"), ("ndcg_CUT_10", "ndcg_cut_10"), ("prum@0.5", "PRUM@0.5"),
    ("ndcg@10", "nDCG@10"), ("p_10", "P_10"), ("Recip_Rank", "recip_rank"),
])
def test_names_are_case_insensitive(tmp_path, typed, expected):
    from graphprum.evaluation import expand_measures

    assert [str(s) for s in expand_measures([typed])] == [expected]


def test_a_typo_gets_a_suggestion():
    from graphprum.evaluation import expand_measures

    with pytest.raises(UsageError, match=r"unknown measure 'ndgc_cut_10'; did you mean"):
        expand_measures(["ndgc_cut_10"])
    with pytest.raises(UsageError, match="did you mean PRUM"):
        expand_measures(["PRMU"])


@pytest.mark.parametrize(("typed", "suggested"), [
    ("P10", ["P@10", "P_10"]), ("ndcg20", ["nDCG@20"]), ("Recall100", ["Recall@100"]),
])
def test_a_cutoff_without_its_at_gets_names_that_work(typed, suggested):
    """``P10`` is no measure; each name suggested is one -m takes."""
    from graphprum.evaluation import expand_measures

    with pytest.raises(UsageError) as err:
        expand_measures([typed])
    assert str(err.value) == (f"unknown measure {typed!r}; did you mean "
                              + " or ".join(suggested) + "?")
    for name in suggested:
        assert [str(s) for s in expand_measures([name])] == [name]


# --- differential: graphprum against pytrec_eval ---------------------------------

IR_EQUIVALENTS = {  # ir_measures names and the trec_eval measure they are
    "AP": "map", "P@10": "P_10", "nDCG@10": "ndcg_cut_10", "nDCG": "ndcg",
    "RR": "recip_rank", "NumQ": "num_q", "NumRet": "num_ret", "NumRel": "num_rel",
    "NumRelRet": "num_rel_ret", "Rprec": "Rprec", "Bpref": "bpref", "R@100": "recall_100",
    "IPrec@0.5": "iprec_at_recall_0.50", "SetP": "set_P", "infAP": "infAP",
    "Success@5": "success_5", "AP@10": "map_cut_10", "SetR": "set_recall",
}


def _random_case(seed: int) -> tuple[dict, dict]:
    """Qrels (integer grades, negative ones too) and a run (ties on score)
    over topics that are missing from one side or the other."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i:02d}" for i in range(25)]
    topics = [str(t) for t in range(1, int(rng.integers(3, 8)) + 1)]
    qrels: dict[str, dict[str, int]] = {}
    for t in topics[:-1] if rng.random() < 0.7 else topics:  # a run-only topic
        judged = rng.choice(docs, size=int(rng.integers(1, 15)), replace=False)
        qrels[t] = {str(d): int(rng.choice([-2, -1, 0, 0, 0, 1, 1, 2, 3])) for d in judged}
        if max(qrels[t].values()) < 0:  # see test_a_topic_judged_only_negative
            qrels[t][str(judged[0])] = 0
    run: dict[str, dict[str, float]] = {}
    for t in topics:
        if t in qrels and rng.random() < 0.25:
            continue  # a qrels-only topic
        got = rng.choice(docs, size=int(rng.integers(1, 20)), replace=False)
        # scores k/4 are exact in float32 and tie often
        run[t] = {str(d): float(rng.integers(0, 6)) / 4 for d in got}
    if not any(t in qrels for t in run):
        first = next(iter(qrels))
        run[first] = {"d00": 1.0}
    return qrels, run


def _reference(qrels: dict, run: dict, names: list[str], *, complete: bool, level: int,
               judged: bool) -> dict:
    """pytrec_eval's values, per topic and aggregated as trec_eval does."""
    scored = {t: docs for t, docs in run.items() if t in qrels}
    if complete:  # trec_eval -c: a qrels topic missing from the run is an empty ranking
        scored.update({t: {} for t in qrels if t not in scored})
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(names), relevance_level=level,
                                               judged_docs_only_flag=judged)
    per = evaluator.evaluate(scored)
    out = {}
    for name in names:
        raw = []
        for t in qrels:
            if t not in per:
                continue
            v = per[t][name]
            if math.isnan(v) and t not in run:
                v = 0.0  # trec_eval -c: "missing queries contribute a value of 0"
            raw.append(v)
            out[(name, t)] = math.exp(v) if name.startswith("gm_") else v
        out[(name, "all")] = pytrec_eval.compute_aggregated_measure(name, raw)
        if name == "num_rel" and complete:
            # trec_eval -c (m_num_rel.c, which pytrec_eval's aggregation skips):
            # every judgement with REL > 0, whatever -l and -J
            out[(name, "all")] = float(sum(g > 0 for judged in qrels.values()
                                           for g in judged.values()))
    return out


def _files(tmp_path: Path, qrels: dict, run: dict) -> tuple[Path, Path]:
    q = write(tmp_path / "qrels", "".join(f"{t} 0 {d} {g}\n" for t, judged in qrels.items()
                                          for d, g in judged.items()))
    r = write(tmp_path / "run", "".join(f"{t} Q0 {d} {i} {s!r} tag\n" for t, docs in run.items()
                                        for i, (d, s) in enumerate(docs.items(), 1)))
    return q, r


def _assert_same(got: dict, ref: dict, what: str) -> None:
    assert set(got) == set(ref), what
    for key, expected in ref.items():
        value = got[key]
        assert (math.isnan(value) and math.isnan(expected)) or \
            value == pytest.approx(expected, rel=1e-12, abs=1e-12), f"{what}: {key}"


@pytest.mark.parametrize("seed", range(30))
def test_every_all_trec_measure_equals_pytrec_eval(tmp_path, seed):
    """Random qrels and runs; all_trec per topic and all, with -c (graphprum's
    default) and without, at -l 1 and -l 2, and with -J."""
    qrels, run = _random_case(seed)
    q, r = _files(tmp_path, qrels, run)
    names = trec_names("all_trec")
    for complete, level, judged in [(True, 1, False), (False, 1, False), (True, 2, False),
                                    (False, 2, True), (True, 1, True)]:
        df = graphprum.evaluate([r], q, ["all_trec"], complete=complete, relevance_level=level,
                                judged_only=judged)
        ref = _reference(qrels, run, names, complete=complete, level=level, judged=judged)
        _assert_same(values(df), ref, f"seed {seed}, -c {complete}, -l {level}, -J {judged}")


@pytest.mark.parametrize("seed", range(30, 40))
def test_ir_measures_names_equal_their_trec_eval_measures(tmp_path, seed):
    qrels, run = _random_case(seed)
    q, r = _files(tmp_path, qrels, run)
    for complete in (True, False):
        df = graphprum.evaluate([r], q, list(IR_EQUIVALENTS), complete=complete)
        ref = _reference(qrels, run, sorted(set(IR_EQUIVALENTS.values())), complete=complete,
                         level=1, judged=False)
        got = {(IR_EQUIVALENTS[m], t): v for (m, t), v in values(df).items()}
        _assert_same(got, ref, f"seed {seed}, -c {complete}")


def test_a_topic_judged_only_negative_is_a_topic_without_relevant_documents(tmp_path):
    """trec_eval keeps the per-level counts of the previous topic when every
    REL of a topic is negative (its arrays are sized by the largest REL):
    G loops forever on the case below and ndcg depends on topic order.
    graphprum adds a REL 0 judgement of an id no run holds to such a topic;
    the reference is trec_eval on topic 2 alone with a REL 0 judgement of an
    unretrieved document: values of a topic without relevant documents
    (0, gm_map 1e-5)."""
    qrels = {"1": {"a": 3, "b": 1, "c": 0}, "2": {"a": -1, "x": -2}}
    run = {"1": {"a": 1.0, "b": 0.5}, "2": {"a": 1.0, "b": 0.5, "x": 0.25}}
    q, r = _files(tmp_path, qrels, run)
    got = values(graphprum.evaluate([r], q, ["all_trec"]))
    names = trec_names("all_trec")
    ref = _reference({"2": {"a": -1, "x": -2, "unretrieved": 0}}, {"2": run["2"]}, names,
                     complete=False, level=1, judged=False)
    assert {k: v for k, v in got.items() if k[1] == "2"} == pytest.approx(
        {k: v for k, v in ref.items() if k[1] == "2"}, abs=1e-12)
    assert got[("gm_map", "2")] == 1e-5 and got[("G", "2")] == 0.0


def test_max_results_keeps_the_first_results_of_each_topic(tmp_path):
    """-M 3: trec_eval evaluates the first 3 results (after its ordering);
    the reference is pytrec_eval on the run cut to those 3."""
    qrels, run = _random_case(99)
    q, r = _files(tmp_path, qrels, run)
    cut = {}
    for t, docs in run.items():
        order = sorted(docs, key=lambda d: (np.float32(docs[d]), d), reverse=True)[:3]
        cut[t] = {d: docs[d] for d in order}
    df = graphprum.evaluate([r], q, ["all_trec"], max_results=3)
    _assert_same(values(df), _reference(qrels, cut, trec_names("all_trec"), complete=True,
                                        level=1, judged=False), "-M 3")


def test_err_through_gdeval_equals_ir_measures_on_the_files() -> None:
    """ERR@k is computed by ir_measures' gdeval provider, which reads topics
    as numbers: graphprum's own topic keys made it fail with a traceback.
    Expected: ir_measures on the same files, per topic."""
    import ir_measures

    plos = Path(__file__).resolve().parents[2] / "examples" / "plos"
    qrels, run = plos / "qrels.txt", plos / "run-bm25.txt"
    got = graphprum.evaluate(run, qrels, ["ERR@10", "ERR@20"])
    got = got[got.topic != "all"]
    want = {(str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(
        [ir_measures.parse_measure("ERR@10"), ir_measures.parse_measure("ERR@20")],
        list(ir_measures.read_trec_qrels(str(qrels))), list(ir_measures.read_trec_run(str(run))))}
    assert len(got) == len(want) > 0
    for measure, topic, value in zip(got.measure, got.topic, got.value, strict=True):
        assert value == pytest.approx(want[(measure, topic)], abs=1e-12)


def test_an_ir_measures_name_that_looks_like_trec_evals_is_a_usage_error():
    """``P_IA`` is ir_measures' (intent-aware P, from pyndeval), not trec_eval's
    ``P`` with a cutoff 'IA': without its provider, a one-line usage error
    (before: pytrec_eval's ValueError, a traceback)."""
    from graphprum.measures.classical import compute_classical

    pytest.importorskip("ir_measures")
    try:
        import pyndeval  # noqa: F401
    except ImportError:
        with pytest.raises(UsageError, match=r"(?s)ir_measures could not compute P_IA: .*pyndeval"):
            compute_classical(["P_IA"], {"1": ["a", "b"]}, {"1": {"a": 1}})
    else:  # pragma: no cover - with the provider it is computed
        assert "1" in compute_classical(["P_IA"], {"1": ["a", "b"]}, {"1": {"a": 1}})["P_IA"]
