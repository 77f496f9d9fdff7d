"""The evaluation loop at scale: ``jobs=N`` (forked workers), the topic-major
order with caches shared by the runs of a topic, and the resolving store.

Expected values never come from the code under test run the same way: the
parallel table is compared with the sequential one, the multi-run table with
one-run-at-a-time tables (no cross-run sharing possible), and both with a
plain loop written here that builds every (run, topic) context on the raw
store with a fresh cache and calls the measures directly.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from graphprum import evaluate
from graphprum.assessments import read_assessments
from graphprum.context import TopicContext
from graphprum.errors import UsageError
from graphprum.evaluation import expand_measures
from graphprum.io.qrels import read_qrels
from graphprum.io.runs import read_run
from graphprum.loading import load_xml
from graphprum.measures.registry import family
from graphprum.navigation.base import parse_model
from graphprum.store.local import LocalStore
from tests.support import REPO

BENCH = REPO / "bench"
USER = ["PRUM", "PRUM@0.5", "SRP@10", "nxCG@10", "MAep", "AgP", "BEPD"]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A small generated collection, its store, qrels, passages and 3 runs
    (one with an id the store does not hold and a topic the qrels lack)."""
    base = tmp_path_factory.mktemp("jobs")
    col, out = base / "col", base / "runs"
    subprocess.run([sys.executable, str(BENCH / "gen_collection.py"), str(col),
                    "--articles", "40", "--seed", "3"], check=True, capture_output=True)
    subprocess.run([sys.executable, str(BENCH / "gen_runs.py"), str(col), str(out),
                    "--topics", "7", "--runs", "3", "--k", "120", "--seed", "5",
                    "--noise-docs", "10", "--docs-per-topic", "3"],
                   check=True, capture_output=True)
    run1 = out / "run-01.txt"
    with open(run1, "a", encoding="utf-8") as f:
        f.write("3 Q0 nosuchdoc#/article[1] 999 -1 synth-01\n")
        f.write("99 Q0 nosuchdoc#/article[2] 1 5 synth-01\n")
    store = LocalStore(base / "store")
    load_xml(store, [col])
    runs = [out / f"run-{i:02d}.txt" for i in (1, 2, 3)]
    return {"store": store, "qrels": out / "qrels.txt", "passages": out / "passages.txt",
            "runs": runs}


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of about 300 results: the 7 topics make several, so that
    ``jobs`` > 1 spreads them over processes."""
    from graphprum.evaluation import core

    monkeypatch.setattr(core, "CHUNK_RESULTS", 300)


def _eval(data: dict, measures: list[str], nav: str, jobs: int,
          runs: list[Path] | None = None, warn=None) -> pd.DataFrame:
    return evaluate(runs or data["runs"], data["qrels"], measures, nav=[nav],
                    store=data["store"], ideal_min=2, passages=data["passages"],
                    jobs=jobs, warn=warn)


@pytest.mark.parametrize("nav", ["classical", "structural"])
def test_jobs_give_the_same_table(data: dict, nav: str) -> None:
    one_notes: list[str] = []
    two_notes: list[str] = []
    one = _eval(data, [*USER, "AP"], nav, 1, warn=one_notes.append)
    two = _eval(data, [*USER, "AP"], nav, 2, warn=two_notes.append)
    three = _eval(data, [*USER, "AP"], nav, 3)
    pd.testing.assert_frame_equal(one, two, check_exact=True)
    pd.testing.assert_frame_equal(one, three, check_exact=True)
    assert one_notes == two_notes
    # the unknown id and the extra topic are reported once, for run 1 only
    unknown = [n for n in one_notes if "not in the store" in n]
    assert len(unknown) == 1 and "synth-01" in unknown[0] and "2 result id(s)" in unknown[0]
    assert any("topic(s) not in the qrels ignored: 99" in n for n in one_notes)
    # the table is not trivially zero
    assert (one[one.topic == "all"]["value"] > 0).sum() >= 6


def test_runs_together_equal_runs_alone(data: dict) -> None:
    """Sharing topic-level caches across runs changes no value."""
    together = _eval(data, USER, "structural", 1)
    alone = pd.concat([_eval(data, USER, "structural", 1, runs=[r]) for r in data["runs"]])
    key = ["run", "measure", "topic"]
    a = together.sort_values(key).reset_index(drop=True)
    b = alone.sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_matches_a_plain_loop(data: dict) -> None:
    """Per (run, topic): a fresh context on the raw store, measures called directly."""
    store = data["store"]
    qrels = read_qrels(data["qrels"])
    runs = [read_run(r) for r in data["runs"]]
    ass = read_assessments(data["passages"], store, units="chars", end="exclusive")
    models = [parse_model("structural")]
    n_units = float(np.count_nonzero(np.asarray(store.table().columns["kind"])
                                     == store.table().columns["kind"][0]))
    got = _eval(data, USER, "structural", 2)
    for run in runs:
        for topic in qrels:
            from graphprum.assessments import TopicAssessment

            ctx = TopicContext(topic=topic, ranked=run.ranked(topic), qrels=qrels[topic],
                               models=models, ideal_min=2, collection_size=n_units,
                               store=store,
                               assessments=ass.get(topic) or TopicAssessment(topic))
            for spec in expand_measures(USER):
                want = float(family(spec.name).compute(spec, ctx))
                row = got[(got.run == run.tag) & (got.measure == str(spec))
                          & (got.topic == topic)]
                assert len(row) == 1
                assert row["value"].iloc[0] == want, (run.tag, topic, str(spec))


def test_topic_view_resolves_like_the_store(data: dict) -> None:
    store = data["store"]
    table = store.table()
    rng = np.random.default_rng(0)
    rows = rng.choice(len(table), size=300)
    ids = [*table.ids(rows), "nosuch#/x[1]", "nosuchdoc", ""]
    view = store.view(ids[:100])
    for _ in range(3):  # ids the view was built for, and others (resolved on demand)
        order = rng.permutation(len(ids))
        asked = [ids[i] for i in order]
        assert view.resolve(asked).tolist() == store.resolve(asked).tolist()
    got = view.resolve(ids)
    got[:] = -7  # callers may scribble on the answer: the view must not change
    assert view.resolve(ids).tolist() == [*rows.tolist(), -1, -1, -1]
    assert view.table is store.table()  # the embedded store's view is the collection
    assert view.resolve([]).tolist() == []


def test_worker_errors_come_back_as_the_same_errors(data: dict) -> None:
    """PRUM(exact=enum) refuses the rankings of these topics: the first
    chunk's error, the same class and message in one process or in workers."""
    errors = []
    for jobs in (1, 2, 3):
        with pytest.raises(UsageError, match="exact=enum") as err:
            _eval(data, ["PRUM(exact=enum)"], "structural", jobs)
        errors.append((type(err.value), str(err.value)))
    assert errors[0] == errors[1] == errors[2]


MIXES = {"user and classical": [*USER, "AP"],
         "classical only": ["map", "P_10", "ndcg_cut_10", "num_rel", "nDCG@10", "R@100"],
         "simulated": ["PRUM(exact=mc,samples=300)", "PRUM(r=1)"],
         "success and SR": ["PRUM-success@1", "SR@5", "SRP@10"]}


@pytest.mark.parametrize("mix", list(MIXES))
def test_workers_give_the_serial_table_on_measure_mixes(data: dict, mix: str) -> None:
    one = _eval(data, MIXES[mix], "structural", 1)
    two = _eval(data, MIXES[mix], "structural", 2)
    pd.testing.assert_frame_equal(one, two, check_exact=True)
    assert (one["value"] > 0).any()


@pytest.mark.parametrize("jobs", [0, -1, 1.5])
def test_bad_jobs(data: dict, jobs) -> None:
    with pytest.raises(UsageError, match="jobs"):
        _eval(data, ["PRUM"], "classical", jobs)


def test_no_store_jobs(data: dict) -> None:
    """Classical PRUM without a store: opaque ids, N infinite, same with 2 jobs."""
    one = evaluate(data["runs"], data["qrels"], ["PRUM", "PRUM(r=1)"], ideal_min=2)
    two = evaluate(data["runs"], data["qrels"], ["PRUM", "PRUM(r=1)"], ideal_min=2,
                   jobs=2)
    pd.testing.assert_frame_equal(one, two, check_exact=True)
    # PRUM(r=1) without a store is 1 / (rank of the first ideal unit): checked by hand
    qrels = read_qrels(data["qrels"])
    run = read_run(data["runs"][1])
    for topic in qrels:
        ideal = {u for u, r in qrels[topic].items() if r >= 2}
        ranks = [i + 1 for i, u in enumerate(run.ranked(topic)) if u in ideal]
        want = 1.0 / ranks[0] if ranks else 0.0
        row = one[(one.run == run.tag) & (one.measure == "PRUM(r=1)") & (one.topic == topic)]
        assert math.isclose(row["value"].iloc[0], want, rel_tol=1e-12)


def test_bad_run_file_same_error_with_jobs(data: dict, tmp_path: Path) -> None:
    from graphprum.errors import InputError

    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 a 1 2 tag\n1 Q0 b one 1 tag\n", encoding="utf-8")
    messages = []
    for jobs in (1, 2):
        with pytest.raises(InputError) as err:
            evaluate([data["runs"][0], bad], data["qrels"], ["PRUM"], jobs=jobs)
        messages.append((str(err.value), err.value.line))
    assert messages[0] == messages[1]
    assert messages[0][1] == 2 and str(bad) in messages[0][0]


@pytest.mark.parametrize("jobs", [1, 2])
def test_progress_reports_every_topic_once(data: dict, jobs: int) -> None:
    calls: list[tuple[int, int]] = []
    evaluate(data["runs"], data["qrels"], ["PRUM"], nav="structural",
             store=data["store"], jobs=jobs, progress=lambda d, t: calls.append((d, t)))
    topics = len(read_qrels(data["qrels"]))
    assert calls == [(done, topics) for done in range(topics + 1)]


def _chunks_spy(monkeypatch, size: int) -> list[tuple[int, int]]:
    """Chunks of about ``size`` results; filled with (chunks, jobs) at each run of a job."""
    from graphprum.evaluation import core

    seen: list[tuple[int, int]] = []
    real = core.run_job
    monkeypatch.setattr(core, "CHUNK_RESULTS", size)

    def spy(job, jobs, progress):
        seen.append((len(core.topic_chunks(job, jobs)), jobs))
        return real(job, jobs, progress)

    monkeypatch.setattr(core, "run_job", spy)
    return seen


def test_auto_forks_when_the_work_pays_and_gives_the_same_table(data: dict, monkeypatch) -> None:
    """``jobs="auto"`` (the default): with the threshold at 0 results one
    process per CPU; the table is the sequential one and progress reaches
    every topic once."""
    from graphprum.evaluation import core

    seen = _chunks_spy(monkeypatch, 100)
    monkeypatch.setattr(core, "AUTO_MIN_RESULTS", 0)
    monkeypatch.setattr(core, "cpu_count", lambda: 2)
    one = _eval(data, [*USER, "AP"], "structural", 1)
    calls: list[tuple[int, int]] = []
    auto = evaluate(data["runs"], data["qrels"], [*USER, "AP"], nav=["structural"],
                    store=data["store"], ideal_min=2, passages=data["passages"],
                    progress=lambda d, t: calls.append((d, t)))
    pd.testing.assert_frame_equal(one, auto, check_exact=True)
    topics = len(read_qrels(data["qrels"]))
    assert seen[-1][1] == 2 and seen[-1][0] > 2  # several chunks, two processes
    assert [d for d, _ in calls] == list(range(topics + 1))


def test_auto_stays_in_one_process_on_small_work(data: dict, monkeypatch) -> None:
    from graphprum.evaluation import core

    seen = _chunks_spy(monkeypatch, 100)
    monkeypatch.setattr(core, "cpu_count", lambda: 2)
    auto = evaluate(data["runs"], data["qrels"], ["PRUM"], jobs="auto")
    one = evaluate(data["runs"], data["qrels"], ["PRUM"], jobs=1)
    pd.testing.assert_frame_equal(one, auto, check_exact=True)
    assert [jobs for _, jobs in seen] == [1, 1]  # 2,500 results: below AUTO_MIN_RESULTS


@pytest.mark.parametrize("jobs", ["many", "2x", ""])
def test_jobs_words_other_than_auto_are_refused(data: dict, jobs: str) -> None:
    with pytest.raises(UsageError, match="jobs"):
        _eval(data, ["PRUM"], "classical", jobs)  # type: ignore[arg-type]


@pytest.mark.parametrize("jobs", [1, 2])
def test_classical_measures_count_judged_ids_not_in_the_store_as_non_relevant(
        data: dict, tmp_path: Path, jobs: int) -> None:
    """Run 1 returns nosuchdoc#/article[1] for topic 3, an id the store does
    not hold; here the qrels judge it relevant.  AP (computed beside the
    topics in a worker with 2 jobs) counts it non-relevant but keeps it in
    the qrels' relevant count: ir_measures on the run with that result
    renamed gives the expected values."""
    import ir_measures

    qrels = tmp_path / "qrels"
    unknown = "nosuchdoc#/article[1]"
    qrels.write_text(data["qrels"].read_text() + f"3 0 {unknown} 2\n")
    got = evaluate(data["runs"][:1], qrels, ["AP", "PRUM"], store=data["store"],
                   ideal_min=2, jobs=jobs)
    run = read_run(data["runs"][0])
    judged = read_qrels(qrels)
    scored = [ir_measures.ScoredDoc(t, "renamed" if u == unknown else u, float(-i))
              for t in judged if t in run.topics for i, u in enumerate(run.ranked(t))]
    want = {m.query_id: m.value for m in ir_measures.iter_calc(
        [ir_measures.AP], [ir_measures.Qrel(t, u, int(r)) for t, ids in judged.items()
                           for u, r in ids.items()], scored)}
    ap = got[(got.measure == "AP") & (got.topic != "all")]
    assert dict(zip(ap.topic, ap.value, strict=True)) == pytest.approx(want, rel=1e-12)
    plain = evaluate(data["runs"][:1], qrels, ["AP"], ideal_min=2, jobs=jobs)  # no store
    plain_ap = plain[(plain.measure == "AP") & (plain.topic == "3")]["value"].iloc[0]
    assert ap[ap.topic == "3"]["value"].iloc[0] < plain_ap  # the id did count without it


CLASSICAL = ["AP", "P@5", "nDCG@10", "map", "P_10", "num_rel", "num_rel_ret", "recall_10",
             "Rprec", "bpref"]


def _cut(sizes: list[int], jobs: int) -> list[list[int]]:
    """:func:`~graphprum.evaluation.core.topic_chunks` of topics of ``sizes``
    results (one run), as lists of the sizes."""
    from types import SimpleNamespace

    from graphprum.evaluation import core

    topics = [f"t{i}" for i in range(len(sizes))]
    job = SimpleNamespace(topics=topics, runs=[SimpleNamespace(
        topics={t: range(k) for t, k in zip(topics, sizes, strict=True)})])
    chunks = core.topic_chunks(job, jobs)
    assert [t for c in chunks for t in c] == topics and all(chunks)  # order kept, none empty
    held = dict(zip(topics, sizes, strict=True))
    return [[held[t] for t in c] for c in chunks]


@pytest.mark.parametrize("jobs", [1, 2, 3, 50])
def test_chunks_are_even_and_a_multiple_of_the_processes(jobs: int, monkeypatch) -> None:
    """Topics of uneven sizes: the chunks' number is ``ceil(results /
    CHUNK_RESULTS)`` rounded up to a multiple of ``jobs`` (at most one a
    topic), and no chunk is further from an equal share than the largest
    topic (checked against the shares, not the cut's own arithmetic)."""
    from graphprum.evaluation import core

    monkeypatch.setattr(core, "CHUNK_RESULTS", 5_000)
    rng = np.random.default_rng(11)
    for n in (1, 2, 7, 40, 300):
        for _ in range(20):
            sizes = [int(k) for k in rng.integers(1, 600, size=n)]
            chunks = _cut(sizes, jobs)
            wanted = math.ceil(math.ceil(sum(sizes) / 5_000) / jobs) * jobs
            assert len(chunks) == min(n, wanted)
            share = sum(sizes) / len(chunks)
            assert all(abs(sum(c) - share) <= max(sizes) for c in chunks), (n, jobs)


def test_a_huge_topic_leaves_the_others_shared_evenly(monkeypatch) -> None:
    """One topic of 200,000 results then 100 of 500: the huge one alone,
    the other twelve chunks share the rest (8 or 9 topics each, never one
    topic alone as a cut at fixed boundaries would give)."""
    from graphprum.evaluation import core

    monkeypatch.setattr(core, "CHUNK_RESULTS", 20_000)
    chunks = _cut([200_000] + [500] * 100, 1)
    assert len(chunks) == 13 and chunks[0] == [200_000]
    assert sorted({len(c) for c in chunks[1:]}) == [8, 9]


@pytest.mark.parametrize("options", [{}, {"complete": False}, {"judged_only": True},
                                     {"max_results": 3}, {"relevance_level": 2}],
                         ids=["default", "no-c", "J", "M3", "l2"])
def test_classical_measures_in_chunks_give_one_calls_values(
        data: dict, tmp_path: Path, monkeypatch, options: dict) -> None:
    """The classical measures are computed chunk by chunk (one call of
    trec_eval's code per chunk and run), in one process or two; the table
    is the one of a single chunk, where one call computes them over every
    topic, under every option that changes what a ranking holds, and for a
    run lacking every topic of some chunks (its chunks of empty rankings
    borrow a topic with results: a call on empty rankings alone gives no
    values)."""
    from graphprum.evaluation import core

    topics = list(read_qrels(data["qrels"]))
    lacking = tmp_path / "lacking.txt"  # run 2 without the second half of the topics
    keep = set(topics[:len(topics) // 2])
    lacking.write_text("".join(line + "\n" for line in data["runs"][1].read_text().splitlines()
                               if line.split()[0] in keep))
    for runs in (data["runs"], [data["runs"][0], lacking]):
        monkeypatch.setattr(core, "CHUNK_RESULTS", 10**9)
        whole = evaluate(runs, data["qrels"], [*CLASSICAL, "PRUM"], nav=["structural"],
                         store=data["store"], jobs=1, **options)
        monkeypatch.setattr(core, "CHUNK_RESULTS", 1)  # a topic a chunk
        for jobs in (1, 2):
            got = evaluate(runs, data["qrels"], [*CLASSICAL, "PRUM"], nav=["structural"],
                           store=data["store"], jobs=jobs, **options)
            pd.testing.assert_frame_equal(whole, got, check_exact=True)
        assert (whole[whole.topic == "all"]["value"] > 0).sum() >= len(CLASSICAL)


def test_a_chunk_of_empty_rankings_gets_its_classical_values(data: dict, monkeypatch) -> None:
    """A run made in Python may hold a topic with no result: in a chunk of
    such topics alone, trec_eval's code would not be called (it fails on
    rankings that are all empty), and num_rel would lose its value; the
    table is that of one chunk."""
    from graphprum.evaluation import core
    from graphprum.io.ranking import RankedTopic, Run

    topics = list(read_qrels(data["qrels"]))
    whole = read_run(data["runs"][1])
    second = set(topics[len(topics) // 2:])
    empty = Run(tag="empty-half", topics={
        t: (RankedTopic([], np.zeros(0), np.zeros(0, np.int64)) if t in second
            else whole.topics[t]) for t in topics})
    got = {}
    for size, jobs in ((10**9, 1), (1, 1), (1, 2)):
        monkeypatch.setattr(core, "CHUNK_RESULTS", size)
        got[size, jobs] = evaluate([empty], data["qrels"], ["num_rel", "AP", "PRUM"],
                                   nav=["structural"], store=data["store"], jobs=jobs)
    for other in ((1, 1), (1, 2)):
        pd.testing.assert_frame_equal(got[10**9, 1], got[other], check_exact=True)
    table = got[1, 2]
    num_rel = table[(table.measure == "num_rel") & table.topic.isin(second)]
    assert len(num_rel) == len(second) and (num_rel["value"] > 0).all()


def test_qrels_topics_without_passages_are_noted_and_score_zero(data: dict,
                                                                tmp_path: Path) -> None:
    """With --qrels and --passages, the qrels name the topics: one the
    passages lack scores 0 on the passage measures (and counts in their
    mean), one only the passages hold is not evaluated; both are noted."""
    lines = data["passages"].read_text(encoding="utf-8").splitlines()
    topics = sorted({ln.split()[0] for ln in lines if ln.strip()})
    dropped = topics[:2]
    kept = [ln for ln in lines if ln.split()[0] not in dropped]
    extra = [f"77 {' '.join(ln.split()[1:])}" for ln in kept[:1]]
    passages = tmp_path / "passages.txt"
    passages.write_text("\n".join(kept + extra) + "\n", encoding="utf-8")
    notes: list[str] = []
    table = evaluate(data["runs"][:1], data["qrels"], ["AgP"], store=data["store"],
                     passages=passages, warn=notes.append)
    lacking = [n for n in notes if "have no passages" in n]
    assert len(lacking) == 1 and lacking[0].endswith(": " + ", ".join(dropped))
    assert any("1 topic(s) not in the qrels ignored" in n and n.endswith(": 77") for n in notes)
    per_topic = table[table.topic != "all"].set_index("topic")["value"]
    assert "77" not in per_topic.index
    assert all(per_topic[t] == 0.0 for t in dropped)
    assert per_topic.drop(dropped).max() > 0
    mean = float(table[table.topic == "all"]["value"].iloc[0])
    assert mean == pytest.approx(per_topic.sum() / len(per_topic), abs=1e-12)
