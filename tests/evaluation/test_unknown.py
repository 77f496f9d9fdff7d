"""``eval --unknown error|skip`` (issue 41 item 1): result ids the store does not hold.

The expected tables come from the same run written again without the
unknown lines (by this test, with the store's ids in hand): ``skip`` drops
them before anything else, so the results after them move up, as if the
system had never returned them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from graphprum import evaluate
from graphprum.errors import InputError, UsageError
from graphprum.loading import load_xml
from graphprum.store.local import LocalStore
from tests.support import PLOS

GRAPHPRUM = str(Path(sys.executable).with_name("graphprum"))
BAD = ["nosuch#/article[1]", "pmed-1001418#/article[9]", "other#/x[1]"]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The PLOS store, and the bm25 run with unknown ids among its results:
    three distinct ids on five lines, two topics, two at the top of a topic."""
    base = tmp_path_factory.mktemp("unknown")
    load_xml(LocalStore(base / "graphprum-store"), [PLOS / "articles"])
    lines = (PLOS / "run-bm25.txt").read_text().splitlines()
    tag = lines[0].split()[5]
    extra = [f"1 Q0 {BAD[0]} 0 99 {tag}", f"1 Q0 {BAD[1]} 0 98 {tag}",
             f"2 Q0 {BAD[0]} 0 99 {tag}", f"2 Q0 {BAD[2]} 50 -1 {tag}",
             f"3 Q0 {BAD[1]} 7 21.0 {tag}"]
    (base / "with-unknown.txt").write_text("\n".join([*extra, *lines]) + "\n")
    (base / "clean.txt").write_text("\n".join(lines) + "\n")
    return {"base": base, "store": base / "graphprum-store", "qrels": PLOS / "qrels.txt",
            "run": base / "with-unknown.txt", "clean": base / "clean.txt", "tag": tag}


MEASURES = ["PRUM", "PRUM(r=1)", "AP", "P@5", "nDCG@10", "SRP@10"]


@pytest.mark.parametrize("options", [{}, {"max_results": 5}, {"nav": "structural"}])
def test_skip_equals_the_run_without_those_lines(data: dict, options: dict) -> None:
    notes: list[str] = []
    skipped = evaluate(data["run"], data["qrels"], MEASURES, store=data["store"],
                       unknown="skip", warn=notes.append, **options)
    clean = evaluate(data["clean"], data["qrels"], MEASURES, store=data["store"], **options)
    pd.testing.assert_frame_equal(skipped, clean, check_exact=True)
    assert skipped.attrs["unknown_skipped"] == {data["tag"]: 5}
    said = [n for n in notes if "skipped" in n]
    assert said == [f"note: run {data['tag']}: 5 result(s) whose id is not in the store "
                    f"skipped (--unknown skip), e.g. {', '.join(BAD)}"]


def test_error_keeps_them_as_non_relevant_results(data: dict) -> None:
    """The default: the unknown ids stay in the ranking as non-relevant
    results (AP of topic 1 falls: two unknown results come before the others)."""
    notes: list[str] = []
    kept = evaluate(data["run"], data["qrels"], ["AP"], store=data["store"],
                    warn=notes.append)
    clean = evaluate(data["clean"], data["qrels"], ["AP"], store=data["store"])

    def ap(df: pd.DataFrame) -> float:
        return float(df[df.topic == "1"]["value"].iloc[0])

    assert 0 < ap(kept) < ap(clean)
    assert "unknown_skipped" not in kept.attrs
    assert any("3 result id(s) not in the store, counted as non-relevant" in n for n in notes)


def test_a_run_of_another_collection_is_an_error_unless_skipped(data: dict,
                                                                 tmp_path: Path) -> None:
    other = tmp_path / "other.txt"
    other.write_text("".join(f"1 Q0 {u} {i} {9 - i} other\n" for i, u in enumerate(BAD, 1)))
    for store in (data["store"], str(data["store"])):  # (a location: opened, then closed)
        with pytest.raises(InputError, match="3 of 3 result ids of run other are not in "):
            evaluate(other, data["qrels"], ["AP"], store=store)
    got = evaluate(other, data["qrels"], ["AP"], store=data["store"], unknown="skip")
    assert got["value"].tolist() == [0.0] * len(got)
    assert got.attrs["unknown_skipped"] == {"other": 3}


def test_skip_needs_a_store_and_a_known_value(data: dict) -> None:
    with pytest.raises(UsageError, match=r"--unknown skip .* needs a store"):
        evaluate(data["run"], data["qrels"], ["AP"], unknown="skip")
    with pytest.raises(UsageError, match=r"--unknown 'drop': choose error or skip"):
        evaluate(data["run"], data["qrels"], ["AP"], store=data["store"], unknown="drop")


def _eval(data: dict, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([GRAPHPRUM, "eval", str(data["run"]), "--qrels", str(data["qrels"]),
                           "-m", "AP", *args], cwd=data["base"], capture_output=True,
                          text=True, timeout=120)


def test_the_count_is_in_the_outputs_metadata(data: dict) -> None:
    tag = data["tag"]
    tsv = _eval(data, "--unknown", "skip", "-f", "tsv")
    assert tsv.returncode == 0, tsv.stderr
    first, *rows = tsv.stdout.splitlines()
    assert first == f"# {tag}\tunknown_skipped\tall\t5"
    assert all(len(r.split("\t")) == 4 and not r.startswith("#") for r in rows)
    csv = _eval(data, "--unknown", "skip", "-f", "csv").stdout.splitlines()
    assert csv[:2] == [f"# {tag},unknown_skipped,all,5", "run,measure,topic,value"]
    got = json.loads(_eval(data, "--unknown", "skip", "-f", "json").stdout)
    assert got["unknown_skipped"] == {tag: 5} and got["results"][0]["measure"] == "AP"
    plain = _eval(data, "-f", "json")  # the default: a list of records, as ever
    assert isinstance(json.loads(plain.stdout), list)
    assert "#" not in _eval(data, "-f", "tsv").stdout


def test_judged_ids_not_in_the_store_are_non_relevant_however_many(data: dict,
                                                                   tmp_path: Path) -> None:
    """Two results of a topic whose ids the qrels judge but the store does
    not hold are two non-relevant results (DESIGN §4), as the same run with
    two unjudged ids in their place is without a store (trec_eval's view).
    trec_eval's C code reads ids as C strings: ids that began with a NUL
    were all the empty string to it, so it refused the topic as holding
    duplicate documents and every classical value of the topic was 0; and
    gdeval (ERR@10) splits its lines at white space, so a tab is no better."""
    ghosts = ["ghost-a#/x[1]", "ghost-b#/x[1]"]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(data["qrels"].read_text() + f"1 0 {ghosts[0]} 1\n1 0 {ghosts[1]} 2\n")
    lines = data["clean"].read_text().splitlines()
    tag = data["tag"]

    def run_with(ids: list[str], name: str) -> Path:
        path = tmp_path / name
        path.write_text("\n".join([f"1 Q0 {ids[0]} 0 99 {tag}", f"1 Q0 {ids[1]} 0 98 {tag}",
                                   *lines]) + "\n")
        return path

    measures = ["AP", "P@5", "num_ret", "num_rel_ret", "bpref", "nDCG@10", "ERR@10"]
    notes: list[str] = []
    kept = evaluate(run_with(ghosts, "ghosts.txt"), qrels, measures, store=data["store"],
                    warn=notes.append)
    fresh = evaluate(run_with(["fresh-a#/x[1]", "fresh-b#/x[1]"], "fresh.txt"), qrels,
                     measures, store=None)
    pd.testing.assert_frame_equal(kept, fresh, check_exact=False, rtol=0, atol=1e-12)
    one = kept[(kept.topic == "1") & (kept.measure == "num_ret")]["value"].iloc[0]
    assert one == len([line for line in lines if line.split()[0] == "1"]) + 2
    assert any("2 result id(s) not in the store, counted as non-relevant" in n for n in notes)
