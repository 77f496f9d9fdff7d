"""The Python API (graphprum.evaluate, compare, plot, report) with what a
notebook holds.

Expected values come from the files (a run read from a TREC file is the
reference for the same run as a DataFrame, a dict or ir_measures tuples: the
same semantics), from ir_measures itself on the same DataFrames, and from
hand computations written here.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest

import graphprum
from graphprum.errors import InputError, UsageError
from graphprum.evaluation import EvalOptions
from graphprum.io.qrels import read_qrels
from graphprum.io.runs import read_run
from tests.support import REPO

PLOS = REPO / "examples" / "plos"


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A run with score ties (trec_eval breaks them by id, descending) over 6
    topics, one topic the run lacks, one the qrels lack; graded qrels."""
    rng = np.random.default_rng(7)
    d = tmp_path_factory.mktemp("api")
    run_lines, qrel_lines = [], []
    for t in range(1, 7):
        docs = [f"d{i:02d}" for i in rng.choice(40, size=25, replace=False)]
        scores = rng.integers(0, 6, size=len(docs)).astype(float)  # many ties
        if t != 6:  # topic 6: judged, not retrieved
            run_lines += [f"{t} Q0 {doc} {k + 1} {s:g} sys" for k, (doc, s) in
                          enumerate(zip(docs, scores, strict=True))]
        judged = rng.choice(40, size=12, replace=False)
        qrel_lines += [f"{t} 0 d{i:02d} {int(rng.integers(0, 3))}" for i in judged]
    run_lines += ["9 Q0 d01 1 1 sys"]  # a topic the qrels lack
    (d / "run").write_text("\n".join(run_lines) + "\n")
    (d / "qrels").write_text("\n".join(qrel_lines) + "\n")
    return {"run": d / "run", "qrels": d / "qrels"}


def run_frame(path: Path, shuffle: bool = True) -> pd.DataFrame:
    """The run file as ir_measures' DataFrame (rows shuffled: order must not matter)."""
    rows = [line.split() for line in path.read_text().splitlines()]
    df = pd.DataFrame({"query_id": [r[0] for r in rows], "doc_id": [r[2] for r in rows],
                       "score": [float(r[4]) for r in rows]})
    return df.sample(frac=1.0, random_state=3) if shuffle else df


def qrels_frame(path: Path) -> pd.DataFrame:
    rows = [line.split() for line in path.read_text().splitlines()]
    return pd.DataFrame({"query_id": [r[0] for r in rows], "doc_id": [r[2] for r in rows],
                         "relevance": [int(r[3]) for r in rows], "iteration": "0"})


MEASURES = ["AP", "P@5", "nDCG@10", "PRUM", "PRUM@0.5", "PRUM(r=1)", "map", "recip_rank"]


def test_every_input_form_gives_the_files_values(files: dict[str, Path]) -> None:
    want = graphprum.evaluate([files["run"]], files["qrels"], MEASURES)
    want["run"] = "x"
    runs_df = run_frame(files["run"])
    qrels_df = qrels_frame(files["qrels"])
    trec_df = runs_df.rename(columns={"query_id": "TOPIC", "doc_id": "ID", "score": "SCORE"})
    as_dict: dict[str, dict[str, float]] = {}
    for t, doc, s in runs_df.itertuples(index=False):
        as_dict.setdefault(t, {})[doc] = s
    scored = [ir_measures.ScoredDoc(t, doc, s) for t, doc, s in runs_df.itertuples(index=False)]
    qrels_dict: dict[str, dict[str, int]] = {}
    for t, doc, rel, _ in qrels_df.itertuples(index=False):
        qrels_dict.setdefault(t, {})[doc] = rel
    tuples = [ir_measures.Qrel(t, doc, rel, "0") for t, doc, rel, _ in
              qrels_df.itertuples(index=False)]
    forms = [
        (str(files["run"]), files["qrels"]),  # one path as a str: one run
        (runs_df, qrels_df),
        (trec_df, qrels_df.rename(columns={"query_id": "topic", "doc_id": "id",
                                           "relevance": "rel"})),
        (as_dict, qrels_dict),
        (scored, tuples),
        (iter(scored), iter(tuples)),
        (read_run(files["run"]), read_qrels(files["qrels"])),
    ]
    for runs, qrels in forms:
        got = graphprum.evaluate({"x": runs}, qrels, MEASURES)
        pd.testing.assert_frame_equal(got, want, check_exact=True, obj=type(runs).__name__)


def test_values_agree_with_ir_measures(files: dict[str, Path]) -> None:
    """Per topic, as ir_measures computes them (which also gives the judged topic
    the run lacks its values on an empty ranking, as graphprum's default)."""
    runs_df, qrels_df = run_frame(files["run"]), qrels_frame(files["qrels"])
    measures = [ir_measures.AP, ir_measures.nDCG @ 10, ir_measures.P(rel=2) @ 5,
                ir_measures.RR]
    got = graphprum.evaluate(runs_df, qrels_df, measures)
    got = got[got.topic != "all"]
    want = {(str(m.measure), m.query_id): m.value
            for m in ir_measures.iter_calc(measures, qrels_df, runs_df)}
    assert len(got) == len(want) == 4 * 6
    for _, measure, topic, value in got.itertuples(index=False):
        assert math.isclose(value, want[measure, topic], rel_tol=1e-9, abs_tol=1e-12)
    assert set(got["measure"]) == {"AP", "nDCG@10", "P(rel=2)@5", "RR"}


def test_tidy_result_pivots(files: dict[str, Path]) -> None:
    df = graphprum.evaluate({"a": files["run"], "b": run_frame(files["run"])}, files["qrels"],
                            "AP")  # one measure as a str
    assert list(df.columns) == ["run", "measure", "topic", "value"]
    wide = df.pivot(index="topic", columns="run", values="value")
    assert list(wide.columns) == ["a", "b"] and (wide["a"] == wide["b"]).all()
    # complete=True: the 6 qrels topics and the mean, topic 6 (not retrieved) 0
    assert sorted(wide.index) == ["1", "2", "3", "4", "5", "6", "all"]
    assert wide.loc["6", "a"] == 0.0
    assert wide.loc["all", "a"] == pytest.approx(wide.drop("all")["a"].mean(), rel=1e-12)


def test_runs_are_named() -> None:
    run = pd.DataFrame({"query_id": ["1", "1", "1", "1"], "doc_id": ["a", "b", "a", "c"],
                        "score": [2.0, 1.0, 1.0, 3.0], "tag": ["s1", "s1", "s2", "s2"]})
    qrels = {"1": {"a": 1}}
    df = graphprum.evaluate(run, qrels, "P@1", per_topic=False)
    assert df["run"].tolist() == ["s1", "s2"] and df["value"].tolist() == [1.0, 0.0]
    df = graphprum.evaluate([{"1": {"a": 1.0}}, {"1": {"b": 1.0}}], qrels, "P@1",
                            per_topic=False)
    assert df["run"].tolist() == ["run1", "run2"] and df["value"].tolist() == [1.0, 0.0]


def test_simulated_measures_have_a_stderr_column() -> None:
    run, qrels = {"1": {"a": 2.0, "b": 1.0}}, {"1": {"b": 1}}
    plain = graphprum.evaluate(run, qrels, ["PRUM"])
    assert "stderr" not in plain.columns
    df = graphprum.evaluate(run, qrels, ["AP", "PRUM(exact=mc,samples=50)"])
    assert list(df.columns) == ["run", "measure", "topic", "value", "stderr"]
    mc = df[df.measure == "PRUM(exact=mc,samples=50)"]
    assert mc["stderr"].notna().all() and df[df.measure == "AP"]["stderr"].isna().all()


def test_in_memory_inputs_keep_the_files_rules() -> None:
    qrels = {"1": {"a": 1}}
    dup = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "a"], "score": [1.0, 2.0]})
    with pytest.raises(InputError, match=r"index 1: duplicate result 'a' .*first at index 0"):
        graphprum.evaluate(dup, qrels, "AP")
    # dedup keeps the first row, as --dedup keeps the first line: a at score 1.0
    df = graphprum.evaluate(pd.concat([dup, pd.DataFrame(
        {"query_id": ["1"], "doc_id": ["b"], "score": [1.5]})], ignore_index=True),
        qrels, "P@1", dedup=True, per_topic=False)
    assert df["value"].tolist() == [0.0]
    nan = dup.assign(doc_id=["a", "b"], score=[1.0, float("nan")])
    with pytest.raises(InputError, match=r"index 1: expected SCORE a number, got nan"):
        graphprum.evaluate(nan, qrels, "AP")
    with pytest.raises(InputError, match=r"qrels: topic '1', id 'a': expected REL"):
        graphprum.evaluate(dup.iloc[:1], {"1": {"a": 1.5}}, "AP")
    with pytest.raises(InputError, match="empty run"):
        graphprum.evaluate({"r": {}}, qrels, "AP")


@pytest.mark.parametrize(("call", "message"), [
    (lambda: graphprum.evaluate(42, {"1": {"a": 1}}, "AP"), "runs are a file path"),
    (lambda: graphprum.evaluate({"1": {"a": 1.0}}, 3.5, "AP"), "qrels are a file path"),
    (lambda: graphprum.evaluate({"1": {"a": 1.0}}, {"1": {"a": 1}}, 7), "measures are"),
    (lambda: graphprum.evaluate({"1": {"a": 1.0}}, {"1": {"a": 1}}, "AP", jbos=2),
     "unknown option 'jbos'; did you mean 'jobs'?"),
    (lambda: graphprum.evaluate({"1": {"a": 1.0}}, {"1": {"a": 1}}, "AP", jobs="2"),
     "jobs must be a positive integer or auto, got '2'"),
    (lambda: graphprum.evaluate(pd.DataFrame({"qid": ["1"], "score": [1.0]}),
                                {"1": {"a": 1}}, "AP"), "no unit id (doc_id) column"),
    (lambda: graphprum.evaluate({"1": {"a": 1.0}},
                                pd.DataFrame({"query_id": ["1"], "doc_id": ["a"]}), "AP"),
     "no relevance column"),
    (lambda: graphprum.evaluate({"1": {"a": 1.0}}, {"1": {"a": 1}}, "AP", store=3),
     "store is a Collection"),
    (lambda: graphprum.compare(pd.DataFrame({"x": [1]})), "results are the DataFrame"),
])
def test_what_is_not_accepted_is_one_line(call, message: str) -> None:
    with pytest.raises(UsageError) as err:
        call()
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_single_path_is_one_run_never_its_characters(files: dict[str, Path]) -> None:
    one = graphprum.evaluate(str(files["run"]), str(files["qrels"]), "AP", per_topic=False)
    assert one["run"].tolist() == ["sys"]


def test_options_object_and_keywords() -> None:
    opts = EvalOptions(complete=False)
    run, qrels = {"1": {"a": 1.0}}, {"1": {"a": 1}, "2": {"b": 1}}
    assert graphprum.evaluate(run, qrels, "AP", options=opts, per_topic=False)["value"][0] \
        == 1.0  # averaged over the run's topic only
    # a keyword changes one option of the object
    assert graphprum.evaluate(run, qrels, "AP", options=opts, complete=True,
                              per_topic=False)["value"][0] == 0.5
    with pytest.raises(UsageError, match="--ideal-min"):
        opts.replace(ideal_min=0)


def test_compare_plot_report(files: dict[str, Path], tmp_path: Path) -> None:
    from graphprum.significance import compare as compare_one

    runs = {"file": files["run"], "shifted": run_frame(files["run"]).assign(
        score=lambda d: -d["score"])}  # the reverse ranking
    df = graphprum.evaluate(runs, files["qrels"], ["AP", ir_measures.P @ 5])
    res = graphprum.compare(df, ir_measures.AP)
    pd.testing.assert_frame_equal(res, compare_one(df, "AP"))
    assert len(graphprum.compare(df)) == 2  # every measure by default
    fig = graphprum.plot(runs, files["qrels"], ["PRUM", "P"], ks=[1, 5, 10])
    assert len(fig.axes) == 2
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert [t.split(" (")[0] for t in legend] == ["file", "shifted"]
    out = tmp_path / "r.html"
    page = graphprum.report(runs, files["qrels"], ["AP"], output=out, title="API report")
    assert out.read_text(encoding="utf-8") == page
    assert "<title>API report</title>" in page and "shifted" in page
    assert "(in memory: DataFrame)" in page and str(files["run"]) in page


def test_collection_evaluate_on_its_store(tmp_path: Path) -> None:
    """A section retrieved for a judged paragraph inside it: AP sees no match,
    structural navigation reaches the paragraph (PRUM above classical PRUM,
    whose only precision comes from the unranked part, N = 4 elements)."""
    (tmp_path / "d.xml").write_text("<a><sec><p>x</p><p>y</p></sec></a>")
    with graphprum.open_store(tmp_path / "store") as c:
        c.load_xml(tmp_path / "d.xml")  # one path, not its characters
        run = {"1": {"d#/a[1]/sec[1]": 1.0}}
        qrels = {"1": {"d#/a[1]/sec[1]/p[2]": 1}}
        classical = c.evaluate(run, qrels, ["AP", "PRUM(r=1)"], per_topic=False)
        structural = c.evaluate(run, qrels, "PRUM(r=1)", nav="structural", per_topic=False)
        assert classical["value"][0] == 0.0
        assert structural["value"][0] > classical["value"][1] > 0
        same = graphprum.evaluate(run, qrels, "PRUM(r=1)", nav="structural", store=c,
                                  per_topic=False)
        pd.testing.assert_frame_equal(same, structural)


def test_recall_bases_are_shared_by_the_runs_of_a_topic(monkeypatch, tmp_path: Path) -> None:
    """Topic-level work (the INEX recall-base) is done once per topic, whatever
    the number of runs; run-level work once per run and topic."""
    import graphprum.measures.inex_base as inex_base

    (tmp_path / "d.xml").write_text("<a><p>xxxx</p><p>yyyy</p></a>")
    (tmp_path / "passages").write_text("1 d 0 6\n2 d 4 8\n")
    calls: list[int] = []
    derive = inex_base.derive

    def counting(*args, **kwargs):
        calls.append(1)
        return derive(*args, **kwargs)

    monkeypatch.setattr(inex_base, "derive", counting)
    with graphprum.open_store(tmp_path / "store") as c:
        c.load_xml([tmp_path / "d.xml"])
        runs = [{"1": {"d#/a[1]/p[1]": 1.0}, "2": {"d#/a[1]": 1.0}} for _ in range(3)]
        qrels = {"1": {"d#/a[1]/p[1]": 1}, "2": {"d#/a[1]/p[2]": 1}}
        df = c.evaluate(runs, qrels, ["nxCG@1", "MAep"], passages=tmp_path / "passages")
    assert len(calls) == 2  # 2 topics, 3 runs
    assert df["run"].nunique() == 3


@pytest.mark.parametrize("command", ["eval", "compare", "plot", "report"])
def test_the_command_line_declares_the_options_of_evaluate(command: str) -> None:
    """Every EvalOptions field with flags is an option of each evaluating
    command, with the declaration's help text; the others are not shared."""
    import dataclasses

    from typer.testing import CliRunner

    from graphprum.cli import app

    out = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "300"}).output
    for f in dataclasses.fields(EvalOptions):
        help_ = EvalOptions.help(f.name)
        if help_.flags:
            assert help_.flags[0].split("/")[0] in out, (command, f.name)
            assert help_.text.split(";")[0][:40] in " ".join(out.split()), (command, f.name)
    assert bool(re.search(r"^\s+--task\b", out, re.M)) == (command == "eval")


# --- what a notebook user passes (audit of 2026-11-27) --------------------------

RUN_A = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "x"], "score": [2.0, 1.0]})
QRELS_A = {"1": {"a": 1}}


def _all(df: pd.DataFrame) -> dict[str, float]:
    rows = df[df["topic"] == "all"]
    return dict(zip(rows["run"], rows["value"], strict=True))


def test_a_list_of_dataframes_is_several_runs() -> None:
    """A DataFrame's columns are attributes too: [df] was read as ScoredDoc
    tuples (AP 0.0, or a garbled duplicate error)."""
    b = RUN_A.assign(score=[1.0, 2.0])
    got = _all(graphprum.evaluate([RUN_A, b], QRELS_A, "AP"))
    assert got == pytest.approx({"run1": 1.0, "run2": 0.5})


def test_a_pandas_missing_id_is_missing() -> None:
    qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": pd.array(["a", None], dtype="string"),
                          "relevance": [1, 1]})
    with pytest.raises(InputError, match="missing ID"):
        graphprum.evaluate({"1": {"a": 1.0}}, qrels, "AP")


@pytest.mark.parametrize(("name", "why"), [
    ("IPrec@1", "invalid param recall=1"), ("P@1.5", "invalid param cutoff=1.5"),
    ("NERR10@10", "unsupported params"), ("SDCG@10", "max_rel=(not given)"),
    ("P@9999999999999999999999", "a rank <= 2147483647"),
])
def test_measures_ir_measures_cannot_take_are_usage_errors(name: str, why: str) -> None:
    with pytest.raises(UsageError, match=re.escape(why)):
        graphprum.evaluate({"1": {"a": 1.0}}, QRELS_A, name)


def test_options_as_a_dict_numpy_numbers_and_callables() -> None:
    one = {"1": {"a": 1.0}}
    want = _all(graphprum.evaluate(one, QRELS_A, "PRUM", collection_size=10))
    assert _all(graphprum.evaluate(one, QRELS_A, "PRUM", options={"collection_size": 10})) == want
    assert _all(graphprum.evaluate(one, QRELS_A, "PRUM", collection_size=np.int64(10),
                                   jobs=np.int64(1))) == want
    for bad, message in (({"warn": 3}, "warn is a function"),
                         ({"progress": 3}, "progress is a function"),
                         ({"options": 5}, "options are EvalOptions or a dict")):
        with pytest.raises(UsageError, match=message):
            graphprum.evaluate(one, QRELS_A, "PRUM", **bad)


def test_a_store_given_by_location_is_closed(tmp_path: Path) -> None:
    import gc
    import warnings

    from graphprum.loading import load_xml

    collection = graphprum.open_store(tmp_path / "s")
    load_xml(collection, REPO / "examples" / "plos" / "articles")  # a Collection, one path
    assert collection.units("pmed-1001300#/article[1]")["id"].tolist() == \
        ["pmed-1001300#/article[1]"]
    del collection
    gc.collect()
    plos = REPO / "examples" / "plos"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graphprum.evaluate(plos / "run-bm25.txt", plos / "qrels.txt", "PRUM", nav="structural",
                           store=tmp_path / "s")
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]


def test_scores_beyond_float32_warn_nothing() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _all(graphprum.evaluate({"1": {"a": 2e40, "b": 1e40}}, QRELS_A, "AP"))
    assert got == pytest.approx({"run1": 0.5})  # both inf in float32: ids break the tie


def test_a_topic_named_all_is_refused() -> None:
    with pytest.raises(UsageError, match="named 'all'"):
        graphprum.evaluate({"all": {"a": 1.0}}, {"all": {"a": 1}}, "AP")


def test_progress_reaches_the_end_with_classical_measures_only() -> None:
    seen: list[tuple[float, float]] = []
    graphprum.evaluate({"1": {"a": 1.0}, "2": {"b": 1.0}}, {"1": {"a": 1}, "2": {"b": 1}},
                       ["AP", "nDCG@10"], progress=lambda done, total: seen.append((done, total)))
    assert seen and seen[-1] == (2, 2)


def test_compare_and_intervals_refuse_a_measure_whose_value_is_no_mean() -> None:
    """gm_map's value over topics is their geometric mean: a table of means
    under its name would mislead (the arithmetic mean of 0.1 and 0.9 is 0.5,
    their geometric mean 0.3)."""


    rows = [(r, "gm_map", f"t{i}", v) for r, vals in {"a": [.1, .9], "b": [.2, .3]}.items()
            for i, v in enumerate(vals)]
    df = pd.DataFrame(rows, columns=["run", "measure", "topic", "value"])
    for call in (graphprum.compare, graphprum.intervals):
        with pytest.raises(UsageError, match="gm_map: its value over topics is their gmean"):
            call(df)


def test_notes_are_python_warnings_unless_warn_is_given() -> None:
    """A run topic the qrels lack is ignored with a note, which the command
    prints; from Python it is a UserWarning by default (before: dropped,
    the mean silently over fewer topics than the run holds), and goes to
    ``warn`` alone when one is given."""
    run, qrels = {"1": {"a": 1.0}, "9": {"a": 1.0}}, {"1": {"a": 1}}
    with pytest.warns(UserWarning, match=r"1 topic\(s\) not in the qrels ignored"):
        graphprum.evaluate(run, qrels, "AP")
    told: list[str] = []
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        graphprum.evaluate(run, qrels, "AP", warn=told.append)
    assert len(told) == 1 and "not in the qrels ignored" in told[0]
    frame = graphprum.evaluate({"1": {"a": 1.0, "b": 0.5}, "2": {"a": 1.0}},
                               {"1": {"a": 1}, "2": {"a": 1}}, "AP")
    other = frame[frame["topic"] != "2"].replace({"run1": "run2"})
    with pytest.warns(UserWarning, match="topic"):
        graphprum.compare(pd.concat([frame, other]))


def test_the_reports_comparison_notes_are_python_warnings(tmp_path: Path) -> None:
    """report() compares the runs as compare() does, and says alike when
    two runs share only some topics (a review: its notes were dropped)."""
    qrels = {"1": {"a": 1}, "2": {"a": 1}}
    runs = {"r1": {"1": {"a": 1.0}, "2": {"a": 1.0}}, "r2": {"1": {"a": 1.0}}}
    with pytest.warns(UserWarning, match="shared topics"):
        graphprum.report(runs, qrels, ["AP"], output=tmp_path / "r.html", complete=False)


def test_a_qrels_topic_the_run_lacks_is_noted_unless_left_out(tmp_path: Path) -> None:
    """Topic 2 is judged and the run lacks it: it is evaluated on an empty ranking (AP 0,
    so the mean is (1 + 0) / 2) and, as a run topic the qrels lack, noted (before:
    silently); complete=False leaves it out (AP 1) and says nothing."""
    import warnings

    run, qrels = {"1": {"a": 1.0}}, {"1": {"a": 1}, "2": {"b": 1}}
    message = (r"^run \S+: 1 qrels topic\(s\) not in the run, evaluated on an empty ranking "
               r"\(--no-c: left out\): 2$")
    with pytest.warns(UserWarning, match=message):
        df = graphprum.evaluate(run, qrels, "AP", per_topic=False)
    assert df["value"].tolist() == [0.5]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df = graphprum.evaluate(run, qrels, "AP", per_topic=False, complete=False)
    assert df["value"].tolist() == [1.0]
    with pytest.warns(UserWarning, match=message):
        graphprum.report({"r1": run, "r2": {"1": {"a": 1.0}, "2": {"b": 1.0}}}, qrels, ["AP"],
                         output=tmp_path / "r.html")
