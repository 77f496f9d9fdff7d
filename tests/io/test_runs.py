"""TREC runs and tree runs (DESIGN §1.3): order, duplicates, tags, errors."""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from graphprum.errors import InputError, UsageError
from graphprum.io import Run, read_run, read_trec_run, write_run
from graphprum.io.xpaths import is_positional_id


def write(tmp_path, text: str, name: str = "run"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def lines(rows, tag="sys") -> str:
    return "".join(f"{t} Q0 {d} {r} {s} {tag}\n" for t, d, r, s in rows)


def error(path, **kw) -> str:
    with pytest.raises(InputError) as info:
        read_run(path, **kw)
    return str(info.value)


# --- order: checked against trec_eval's own code (pytrec_eval) -------------

def trec_eval_positions(docs: list[str], scores: list[float]) -> dict[str, int]:
    """1-based position trec_eval gives each doc: one topic per doc, whose only
    relevant doc is that doc, so recip_rank = 1 / position."""
    qrels = {f"q{i}": {d: 1} for i, d in enumerate(docs)}
    run = {f"q{i}": dict(zip(docs, scores, strict=True)) for i in range(len(docs))}
    result = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    return {d: round(1 / result[f"q{i}"]["recip_rank"]) for i, d in enumerate(docs)}


def our_positions(tmp_path, docs, scores, name="run") -> dict[str, int]:
    p = write(tmp_path, lines([("1", d, 1, repr(s)) for d, s in zip(docs, scores, strict=True)]),
              name)
    return {d: i for i, d in enumerate(read_run(p).ranked("1"), 1)}


def test_score_ties_follow_trec_eval(tmp_path):
    # ties at 2.0 and 1.0; ids whose byte order differs from case-folded or
    # numeric order; 1.00000001 equals 1.0 as a C float (trec_eval's sim).
    docs = ["b", "B", "a", "10", "9", "é", "z", "d1", "d2", "x"]
    scores = [2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.00000001, 3.0, 0.5, 1.0000001]
    ours = our_positions(tmp_path, docs, scores)
    assert ours == trec_eval_positions(docs, scores)
    # and spelled out: score desc, then id desc by bytes ('é' > 'z' > 'a' > '9' > '10')
    assert sorted(ours, key=ours.get) == ["d1", "b", "B", "x", "é", "z", "a", "9", "10", "d2"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.text(alphabet="aAbB0123é_-", min_size=1, max_size=4),
                          st.sampled_from([0.0, 1.0, 1.00000001, 1.0000001, -2.5, 7.25,
                                           1e-40, 0.1, 0.30000000000000004, 0.3])),
                min_size=1, max_size=25, unique_by=lambda t: t[0]))
def test_order_matches_pytrec_eval_on_random_ties(tmp_path_factory, results):
    docs = [d for d, _ in results]
    scores = [s for _, s in results]
    tmp = tmp_path_factory.mktemp("r")
    assert our_positions(tmp, docs, scores) == trec_eval_positions(docs, scores)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.text(alphabet="aAbB0123é_-", min_size=1, max_size=4),
                          st.sampled_from([0.0, 1.0, 1.00000001, 1.0000001, -2.5, 7.25,
                                           0.1, 0.30000000000000004, 0.3])),
                min_size=1, max_size=25, unique_by=lambda t: t[0]), st.integers(0, 24))
def test_order_of_runs_written_in_order_or_all_but_one_pair(tmp_path_factory, results, swap):
    # most runs are written in trec_eval's order already (read without sorting):
    # as written in that order, and with one neighbouring pair swapped
    docs = [d for d, _ in results]
    scores = [s for _, s in results]
    want = trec_eval_positions(docs, scores)
    order = sorted(range(len(docs)), key=lambda i: want[docs[i]])
    if 0 < swap < len(order):
        order[swap - 1], order[swap] = order[swap], order[swap - 1]
    tmp = tmp_path_factory.mktemp("r")
    assert our_positions(tmp, [docs[i] for i in order], [scores[i] for i in order]) == want


def test_scores_and_ranks_are_kept_as_written(tmp_path):
    p = write(tmp_path, lines([("1", "a", 5, "1.00000001"), ("1", "b", 3, "1.0")]))
    topic = read_run(p).topics["1"]
    assert topic.ids == ["b", "a"]  # tie as C floats -> id descending
    assert topic.scores.tolist() == [1.0, 1.00000001]
    assert topic.ranks.tolist() == [3, 5]


def test_order_rank_with_ties_broken_by_score_then_id(tmp_path):
    rows = [("1", "a", 3, 0.1), ("1", "b", 1, 0.2), ("1", "c", 2, 0.5), ("1", "d", 2, 0.9),
            ("1", "e", 2, 0.5), ("2", "x", 10, 0), ("2", "y", -1, 0)]
    p = write(tmp_path, lines(rows))
    run = read_run(p, order="rank")
    # rank 1: b; rank 2: d (0.9), then e, c (0.5, id descending); rank 3: a
    assert run.ranked("1") == ["b", "d", "e", "c", "a"]
    assert run.ranked("2") == ["y", "x"]
    assert read_run(p).ranked("1") == ["d", "e", "c", "b", "a"]


def test_topics_interleaved_and_in_first_appearance_order(tmp_path):
    p = write(tmp_path, lines([("2", "a", 1, 1), ("1", "b", 1, 1), ("2", "c", 2, 3)]))
    run = read_run(p)
    assert isinstance(run, Run) and run.tag == "sys" and len(run) == 2
    assert list(run.topics) == ["2", "1"]
    assert run.ranked("2") == ["c", "a"]
    assert run.ranked("absent") == []


def test_comments_blank_lines_and_tabs(tmp_path):
    p = write(tmp_path, "# my run\n\n1\tQ0\ta\t1\t2.0\tsys\n   \n  1 Q0 b 2 1.0 sys\n")
    assert read_run(p).ranked("1") == ["a", "b"]


# --- duplicates, tags, empty ------------------------------------------------

def test_duplicate_is_an_error_naming_both_lines(tmp_path):
    p = write(tmp_path, "# c\n" + lines([("1", "a", 1, 3), ("2", "a", 1, 3), ("1", "b", 2, 2),
                                          ("1", "a", 3, 1)]))
    assert error(p) == (f"{p}:5: duplicate result 'a' for topic '1' (first on line 2); "
                        "use --dedup to keep the first")


def test_dedup_keeps_the_first_in_file_order(tmp_path):
    p = write(tmp_path, lines([("1", "a", 1, 0.1), ("1", "b", 2, 0.5), ("1", "a", 3, 0.9)]))
    topic = read_run(p, dedup=True).topics["1"]
    assert topic.ids == ["b", "a"]  # a keeps 0.1, not 0.9
    assert topic.scores.tolist() == [0.5, 0.1]


def test_second_tag_is_an_error(tmp_path):
    p = write(tmp_path, lines([("1", "a", 1, 1)], "one") + lines([("1", "b", 2, 1)], "two"))
    assert error(p) == f"{p}:2: expected one TAG per file ('one' on line 1), got 'two'"


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n"])
def test_empty_run_is_an_error(tmp_path, text):
    p = write(tmp_path, text)
    assert error(p) == f"{p}: empty run: no result lines TOPIC Q0 ID RANK SCORE TAG"


@pytest.mark.parametrize(("line", "expected"), [
    ("1 Q0 b 2 0.5", "expected 6 fields TOPIC Q0 ID RANK SCORE TAG, got 5"),
    ("1 Q0 b 2 0.5", "expected 6 fields TOPIC Q0 ID RANK SCORE TAG, got 5"),
    ("1 Q0 b 1_0 0.5 sys", "expected RANK an integer (ASCII digits), got '1_0'"),
    ("1 Q0 b ١٠ 0.5 sys", "expected RANK an integer (ASCII digits), got '١٠'"),
    ("1 Q0 b 2 0_5 sys", "expected SCORE a number (ASCII digits), got '0_5'"),
    ("1 Q0 b two 0.5 sys", "expected RANK an integer, got 'two'"),
    ("1 Q0 b 2.0 0.5 sys", "expected RANK an integer, got '2.0'"),
    ("1 Q0 b 2 high sys", "expected SCORE a number, got 'high'"),
    ("1 Q0 b 2 nan sys", "expected SCORE a number, got 'nan'"),
    ("1 Q0 b 9223372036854775808 0.5 sys", "expected RANK an integer of at most 64 bits "
     "(-9223372036854775808 to 9223372036854775807), got '9223372036854775808'"),
    ("1 Q0 b -9223372036854775809 0.5 sys", "expected RANK an integer of at most 64 bits "
     "(-9223372036854775808 to 9223372036854775807), got '-9223372036854775809'"),
])
def test_malformed_lines(tmp_path, line, expected):
    p = write(tmp_path, "1 Q0 a 1 1.0 sys\n\n" + line + "\n")
    assert error(p) == f"{p}:3: {expected}"


@pytest.mark.parametrize("trees", [False, True])
def test_ranks_at_the_64_bit_limits_are_read(tmp_path, trees):
    p = write(tmp_path, "1 Q0 a 9223372036854775807 1.0 sys\n1 Q0 b -9223372036854775808 2 sys\n")
    run = read_run(p, order="rank", trees=trees)
    assert run.ranked("1") == ["b", "a"]


def test_fields_after_the_sixth_are_ignored_with_a_note(tmp_path):
    """trec_eval reads six fields and ignores the rest (issue 21 item 8)."""
    p = write(tmp_path, "1 Q0 a 1 1.0 sys extra\n1 Q0 b 2 2.0 sys\n1 Q0 c 3 0.5 sys x y\n")
    run = read_run(p)
    assert (run.tag, run.ranked("1")) == ("sys", ["b", "a", "c"])
    assert run.notes == [f"note: {p}: 2 line(s) have more than 6 fields; the fields after "
                         f"the 6th are ignored, as trec_eval does (first on line 1)"]


def test_a_six_field_comment_is_not_a_result(tmp_path):
    """Issue 18: '#c Q0 d 1 1.0 TAG' has exactly 6 fields; it is a comment
    for the fast parser as for the careful one."""
    p = write(tmp_path, "#c Q0 d 1 1.0 TAG\n1 Q0 a 1 1.0 sys\n  #x Q0 e 1 1.0 sys\n")
    run = read_run(p)
    assert (run.tag, list(run.topics), run.ranked("1")) == ("sys", ["1"], ["a"])


def test_bad_order_is_a_usage_error(tmp_path):
    p = write(tmp_path, lines([("1", "a", 1, 1)]))
    with pytest.raises(UsageError):
        read_run(p, order="sim")


# --- tree runs ----------------------------------------------------------------

def test_tree_run(tmp_path):
    rows = [("1", "d#/a[1]/b[2]", 2, 0.5), ("1", "d#/a[1]", 1, 0.9), ("1", "d#/a[1]/b[1]", 1, 0.9),
            ("1", "d#/a[1]", 2, 0.5), ("2", "e#/x[1]", 7, 1), ("1", "f#/r[1]", 3, 0.1)]
    p = write(tmp_path, lines(rows))
    run = read_run(p, trees=True)
    assert run.trees == {
        "1": [["d#/a[1]", "d#/a[1]/b[1]"], ["d#/a[1]/b[2]", "d#/a[1]"], ["f#/r[1]"]],
        "2": [["e#/x[1]"]],
    }
    # distinct units in order of first appearance over the ranked trees
    assert run.ranked("1") == ["d#/a[1]", "d#/a[1]/b[1]", "d#/a[1]/b[2]", "f#/r[1]"]


def test_tree_run_repeat_inside_a_tree(tmp_path):
    rows = [("1", "a", 1, 1), ("1", "b", 1, 1), ("1", "a", 2, 1), ("1", "a", 1, 1)]
    p = write(tmp_path, lines(rows))
    assert error(p, trees=True) == (f"{p}:4: unit 'a' repeated inside the tree of RANK 1 "
                                    "of topic '1' (first on line 1)")
    assert read_run(p, trees=True, dedup=True).trees == {"1": [["a", "b"], ["a"]]}
    # the same file as a flat run has duplicates
    assert "duplicate result 'a'" in error(p)


def test_a_tree_of_elements_of_two_documents_is_refused(tmp_path):
    """DESIGN §1.3: a tree is a set of units of one document."""
    rows = [("1", "d1#/a[1]", 1, 2), ("1", "d1#/a[1]/b[1]", 1, 2), ("1", "d2#/a[1]", 2, 1),
            ("1", "d2#/a[1]/b[1]", 1, 2)]
    p = write(tmp_path, lines(rows))
    assert error(p, trees=True) == (f"{p}:4: tree 1 of topic '1' holds units of two documents "
                                    f"('d1#/a[1]' and 'd2#/a[1]/b[1]'); a tree is units of "
                                    f"one document")
    ok = write(tmp_path, lines(rows[:3]))
    assert read_run(ok, trees=True).trees == {"1": [["d1#/a[1]", "d1#/a[1]/b[1]"],
                                                     ["d2#/a[1]"]]}


# --- writer -------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.sampled_from(["1", "2", "10"]),
                       st.lists(st.text(alphabet="abcdé#/[]1", min_size=1, max_size=5).filter(
                           lambda s: not s.startswith("#") and is_positional_id(s)),
                           min_size=1, max_size=8, unique=True),
                       min_size=1))
def test_write_run_then_read_gives_the_same_ranking(tmp_path_factory, ranking):
    tmp = tmp_path_factory.mktemp("w")
    write_run(ranking, tmp / "a", tag="t")
    run = read_run(tmp / "a")
    assert {t: run.ranked(t) for t in run.topics} == ranking
    write_run(run, tmp / "b")  # a Run keeps its scores and ranks
    again = read_run(tmp / "b")
    for t, ranked in run.topics.items():
        assert again.topics[t].ids == ranked.ids
        np.testing.assert_array_equal(again.topics[t].scores, ranked.scores)
        np.testing.assert_array_equal(again.topics[t].ranks, ranked.ranks)


def test_write_tree_run_round_trip(tmp_path):
    rows = [("1", "a", 1, 1), ("1", "b", 1, 1), ("1", "a", 2, 1)]
    run = read_trec_run(write(tmp_path, lines(rows)), trees=True)
    write_run(run, tmp_path / "out")
    assert read_trec_run(tmp_path / "out", trees=True).trees == run.trees


# --- the fast column reader agrees with the line-by-line parser ------------------

@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["1", "2", "03"]),
                          st.text(alphabet="abé#/1", min_size=1, max_size=3).filter(
                              lambda s: not s.startswith("#")),
                          st.integers(-3, 9), st.sampled_from(["0.5", "1", "-2e3", "inf", "7"]),
                          st.booleans()),
                min_size=1, max_size=30),
       st.sampled_from(["score", "rank"]), st.booleans())
def test_fast_and_careful_parsers_agree(rows, order, dedup):
    from graphprum.io.run_careful import finish_run, parse_careful
    from graphprum.io.run_columns import read_columns

    text = "".join(("# note\n\n" if comment else "") + f"{t} Q0 {d} {r} {s} tag\n"
                   for t, d, r, s, comment in rows)
    fast = read_columns(text.encode(), order, dedup)
    keys = [(t, d) for t, d, _, _, _ in rows]
    if len(set(keys)) != len(keys) and not dedup:
        assert fast is None  # duplicates go to the careful parser, which names both lines
        return
    if not all(is_positional_id(d) for _, d, _, _, _ in rows):
        return  # ids to normalise: the careful parser's (test_non_positional_xpaths...)
    tag, topics = parse_careful("run", text, dedup=dedup, trees=False, extra=[])
    careful = finish_run("run", tag, topics, order, dedup, trees=False)
    assert fast is not None and fast[0] == tag == "tag"
    assert list(fast[1]) == list(careful.topics)
    for topic, ranked in fast[1].items():
        assert ranked == careful.topics[topic]


def test_non_positional_xpaths_are_normalised_like_inex_runs(tmp_path):
    """Issue 21 item 11: doc#/article/sec means doc#/article[1]/sec[1]."""
    p = write(tmp_path, "1 Q0 d#/article/sec 1 2 s\n1 Q0 d#/article[1]/sec[2] 2 1 s\n"
                        "2 Q0 page.html 1 1 s\n")
    run = read_run(p)
    assert run.ranked("1") == ["d#/article[1]/sec[1]", "d#/article[1]/sec[2]"]
    assert run.ranked("2") == ["page.html"]
    twice = write(tmp_path, "1 Q0 d#/a/b 1 2 s\n1 Q0 d#/a[1]/b[1] 2 1 s\n", "twice")
    with pytest.raises(InputError, match=r"'d#/a/b' and 'd#/a\[1\]/b\[1\]' are the same"):
        read_run(twice)
    assert read_run(twice, dedup=True).ranked("1") == ["d#/a[1]/b[1]"]
