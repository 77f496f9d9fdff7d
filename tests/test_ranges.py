"""Range runs end to end (issue 40): a range run whose ranges are the spans
of loaded units evaluates as the unit run on every measure that takes both
(a differential test); a clip starting inside a segment as a segment of
another table starting there; ``runs to-ranges``, ``eval``, ``compare``,
``plot`` and ``report`` on the command line, and every bad input as one
line naming the file and the line, exit status 2.

Real content: the bundled PLOS articles and the Big Buck Bunny trailer's
scenes (examples/); the passages are the spans of the examples' judged
units (REL 2 elements, relevant scenes), each unit's start its best entry
point.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import graphprum
from graphprum.cli import app
from graphprum.loading import load_video, load_xml
from graphprum.measures.registry import families
from graphprum.ranges import to_ranges
from graphprum.store.local import LocalStore

REPO = Path(__file__).resolve().parent.parent
PLOS = REPO / "examples" / "plos"
VIDEO = REPO / "examples" / "video"

#: One name of every family that takes range runs, with parameters that
#: make its values move on these collections (tau in characters for text).
NAMES = {"AgP": "AgP", "BEPD": "BEPD(A=1)", "EPRUM": "EPRUM", "ESL": "ESL(tau={tau})",
         "ESLRF": "ESLRF(tau={tau})", "gP": "gP@10", "gR": "gR@5", "iP": "iP@0.05",
         "MAiP": "MAiP", "T2I-P": "T2I-P(tau={tau})", "T2I-PR": "T2I-PR(tau={tau})"}
EXTRA = ["gP@1", "EPRUM@3", "EPRUM@0.5", "BEPD(A=0.01)", "iP@0.0", "iP@0.5",
         "T2I-PR(tau={tau},keepsviewing=false)", "ESL(tau={tau},S=1,init=3)"]


def measures(tau: float) -> list[str]:
    taking = sorted(name for name, f in families().items() if f.ranges)
    assert sorted(NAMES) == taking  # every family that takes ranges is tested
    return [m.format(tau=tau) for m in [*NAMES.values(), *EXTRA]]


def passages_of(store: LocalStore | graphprum.Collection, judged: dict[str, list[str]],
                path: Path) -> Path:
    """Passage qrels highlighting the judged units' spans, a BEP at each
    document's first judged unit."""
    view = store.view([u for ids in judged.values() for u in ids])
    table = view.table
    lines = []
    for topic, ids in judged.items():
        rows = view.resolve(ids)
        beps: dict[str, float] = {}
        for row in rows.tolist():
            doc = table.docs["name"][table.columns["doc"][row]]
            start = float(table.columns["start"][row])
            end = start + float(table.columns["length"][row])
            lines.append(f"{topic} {doc} {start:g} {end:g}")
            beps.setdefault(doc, start)
        lines += [f"{topic} {doc} BEP {bep:g}" for doc, bep in beps.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def judged_units(qrels: Path, rel: float) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in qrels.read_text().splitlines():
        f = line.split()
        if f and not f[0].startswith("#") and float(f[3]) >= rel:
            out.setdefault(f[0], []).append(f[2])
    return out


def values(df) -> dict[tuple[str, str], float]:  # type: ignore[no-untyped-def]
    return {(m, t): v for m, t, v in zip(df.measure, df.topic, df.value, strict=True)}


@pytest.fixture(scope="module")
def plos(tmp_path_factory) -> tuple[LocalStore, Path]:
    d = tmp_path_factory.mktemp("plos")
    store = LocalStore(d / "store")
    load_xml(store, [PLOS / "articles"])
    return store, passages_of(store, judged_units(PLOS / "qrels.txt", 2), d / "passages.txt")


def distinct_spans(run: graphprum.io.Run, store: LocalStore) -> graphprum.io.Run:
    """``run`` without the units whose span repeats one above them (an
    element and its only child): a range run lists a range once."""
    table = store.table()
    topics = {}
    for topic, ranked in run.topics.items():
        rows = store.view(ranked.ids).resolve(ranked.ids)
        spans = list(zip(table.columns["doc"][rows].tolist(), table.columns["start"][rows].tolist(),
                         table.columns["length"][rows].tolist(), strict=True))
        keep = [i for i, s in enumerate(spans) if s not in spans[:i]]
        topics[topic] = graphprum.io.RankedTopic([ranked.ids[i] for i in keep],
                                                 ranked.scores[keep], ranked.ranks[keep])
    return graphprum.io.Run(run.tag, topics)


@pytest.mark.parametrize("run_file", ["run-bm25.txt", "run-sections.txt"])
def test_ranges_of_elements_evaluate_as_the_elements(plos, run_file):
    store, passages = plos
    units = distinct_spans(graphprum.io.read_run(PLOS / run_file), store)
    ranges = to_ranges(units, store)
    assert ranges.ranges == "text"
    assert not [n for n in ranges.notes if "repeats" in n]
    assert [len(t) for t in ranges.topics.values()] == [len(t) for t in units.topics.values()]
    names = measures(tau=300)
    got = values(graphprum.evaluate(ranges, None, names, store=store, passages=passages))
    want = values(graphprum.evaluate(units, None, names, store=store, passages=passages))
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert got[key] == pytest.approx(value, abs=1e-12), key
    # the values say something (ESL(S=1) may be 0: the first result is relevant)
    assert sum(v > 0 for (_, t), v in want.items() if t == "all") >= len(names) - 1


def test_ranges_of_segments_evaluate_as_the_segments(tmp_path):
    store = LocalStore(tmp_path / "store")
    load_video(store, [VIDEO / "bbb_trailer.srt"])
    units = graphprum.io.read_run(VIDEO / "run.txt")
    ranges = to_ranges(units, store)
    assert ranges.ranges == "time"
    passages = passages_of(store, judged_units(VIDEO / "qrels.txt", 1), tmp_path / "p.txt")
    names = measures(tau=5)
    for kw in ({"passages": passages}, {"passages": passages, "qrels": VIDEO / "qrels.txt"}):
        qrels = kw.pop("qrels", None)
        got = values(graphprum.evaluate(ranges, qrels, names, store=store, **kw))
        want = values(graphprum.evaluate(units, qrels, names, store=store, **kw))
        for key, value in want.items():
            assert got[key] == pytest.approx(value, abs=1e-12), key
    # T2I from segment qrels alone (no passages) too
    t2i = [n for n in names if n.startswith(("T2I", "ESL"))]
    got = values(graphprum.evaluate(ranges, VIDEO / "qrels.txt", t2i, store=store))
    want = values(graphprum.evaluate(units, VIDEO / "qrels.txt", t2i, store=store))
    assert got == pytest.approx(want, abs=1e-12)


def test_a_clip_inside_a_segment_is_a_segment_of_another_table_starting_there(tmp_path):
    """The trailer's scenes (segments #4 [16, 22), #8 [37, 43.5), ...) and a
    range run starting inside them at 17 s and 40 s; another segment table of
    the same 55 s has segments starting exactly there: a user starts at the
    same instant either way.  Relevance as ranges in seconds (some written
    as clock times): neither side needs predefined units."""
    scenes = LocalStore(tmp_path / "scenes")
    load_video(scenes, [VIDEO / "bbb_trailer.srt"])
    table = tmp_path / "cut.txt"
    table.write_text("bbb_trailer 1 0 17\nbbb_trailer 2 17 26.5\nbbb_trailer 3 26.5 40\n"
                     "bbb_trailer 4 40 55\n")
    cut = LocalStore(tmp_path / "cut")
    load_video(cut, [table])
    passages = tmp_path / "passages.txt"
    passages.write_text("# TOPIC VIDEO START END (seconds)\n1 bbb_trailer 16 22\n"
                        "1 bbb_trailer 00:37 00:43.5\n1 bbb_trailer BEP 16\n"
                        "2 bbb_trailer 22 27.5\n2 bbb_trailer 27.5 32\n2 bbb_trailer 37 43.5\n"
                        "2 bbb_trailer BEP 22.5\n")
    clips = tmp_path / "clips.txt"
    clips.write_text("1 Q0 bbb_trailer 1 3 clips 17 26.5\n1 Q0 bbb_trailer 2 2 clips 40 55\n"
                     "1 Q0 bbb_trailer 3 1 clips 0 17\n2 Q0 bbb_trailer 1 3 clips 00:40 55\n"
                     "2 Q0 bbb_trailer 2 2 clips 17 26.5\n")
    segments = tmp_path / "segments.txt"
    segments.write_text("1 Q0 bbb_trailer#2 1 3 segs\n1 Q0 bbb_trailer#4 2 2 segs\n"
                        "1 Q0 bbb_trailer#1 3 1 segs\n2 Q0 bbb_trailer#4 1 3 segs\n"
                        "2 Q0 bbb_trailer#2 2 2 segs\n")
    names = measures(tau=5)
    got = values(graphprum.evaluate(clips, None, names, store=scenes, passages=passages))
    want = values(graphprum.evaluate(segments, None, names, store=cut, passages=passages))
    assert got == pytest.approx(want, abs=1e-12)
    assert got[("ESL(tau=5)", "1")] != values(graphprum.evaluate(
        graphprum.io.read_run(VIDEO / "run.txt"), None, ["ESL(tau=5)"], store=scenes,
        passages=passages))[("ESL(tau=5)", "1")]  # a clip is not the segment holding it


# --- the command line ------------------------------------------------------------

def invoke(*args: str | Path) -> tuple[int, str, str]:
    r = CliRunner().invoke(app, [str(a) for a in args])
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture(scope="module")
def plos_cli(plos, tmp_path_factory) -> tuple[str, Path, Path, Path]:
    store, passages = plos
    d = tmp_path_factory.mktemp("cli")
    ranges = d / "ranges.txt"
    code, out, err = invoke("--store", store.location, "runs", "to-ranges",
                            PLOS / "run-bm25.txt", "-o", ranges)
    assert code == 0, err
    assert out == "" and "written as text ranges" in err
    assert "whose span repeats one above it" in err and "--order rank" in err
    return store.location, passages, ranges, d


def test_to_ranges_then_eval_on_the_command_line(plos_cli):
    store, passages, ranges, _ = plos_cli
    lines = ranges.read_text().splitlines()
    assert lines[0].split()[2] == "pmed-1001418" and len(lines[0].split()) == 8
    # (units sharing a span were dropped, with a note: values that count
    # characters or articles do not move, a T2I user's repeated views would)
    base = ["--store", store, "eval", "--passages", passages, "-m", "MAiP", "-m", "AgP",
            "-m", "iP@0.01", "-m", "BEPD", "-q"]
    code, by_ranges, err = invoke(*base, ranges, "--order", "rank")
    assert code == 0, err
    code, by_units, err = invoke(*base, PLOS / "run-bm25.txt")
    assert code == 0, err
    assert by_ranges == by_units


def test_compare_plot_and_report_take_range_runs(plos_cli):
    store, passages, ranges, d = plos_cli
    other = d / "other.txt"
    code, _, err = invoke("--store", store, "runs", "to-ranges", PLOS / "run-sections.txt",
                          "-o", other)
    assert code == 0, err
    shared = ["--passages", passages, "-m", "MAiP", "-m", "iP@0.01"]
    code, out, err = invoke("--store", store, "compare", ranges, other, *shared)
    assert code == 0, err
    assert "MAiP" in out and "plos-bm25-elements" in out
    code, _, err = invoke("--store", store, "plot", ranges, other, "--passages", passages,
                          "-m", "iP", "-o", d / "ip.png")
    assert code == 0, err
    assert (d / "ip.png").stat().st_size > 1000
    code, _, err = invoke("--store", store, "report", ranges, other, *shared, "-o",
                          d / "report.html")
    assert code == 0, err
    assert "MAiP" in (d / "report.html").read_text()


@pytest.mark.parametrize(("text", "line", "message"), [
    ("1 Q0 pmed-1001418 1 1 r 0 10\n1 Q0 pmed-1001418 2 1 r 0 99999999\n", 2,
     "range 0-99999999 of document 'pmed-1001418' ends past its end"),
    ("1 Q0 pmed-1001418 1 1 r 0 10\n1 Q0 pmed-1001418 2 1 r 5 -1\n", 2,
     "negative LENGTH (or END) -1"),
    ("1 Q0 pmed-1001418 1 1 r 0 10\n2 Q0 pmed-9999 1 1 r 0 10\n", 2,
     "document 'pmed-9999' is not in the collection"),
    ("1 Q0 pmed-1001418 1 1 r 0 10\n1 Q0 pmed-1001418#/article[1] 2 1 r\n", 2,
     "expected 8 fields"),
    ("1 Q0 pmed-1001418#/article[1] 1 1 r\n1 Q0 pmed-1001418 2 1 r 0 10\n", 2,
     "a range line"),
    ("1 Q0 pmed-1001418 1 1 r 0 10\n1 Q0 pmed-1001418 2 1 r 2.5 4\n", 2,
     "expected integers OFFSET LENGTH"),
    ("1 Q0 pmed-1001418 1 1 r 0 10\n1 Q0 pmed-1001418 2 1 r 0 10\n", 2, "duplicate range"),
])
def test_bad_range_runs_are_one_line_naming_the_line(plos_cli, text, line, message):
    store, passages, _, d = plos_cli
    bad = d / "bad.txt"
    bad.write_text(text)
    code, out, err = invoke("--store", store, "eval", bad, "--passages", passages, "-m", "MAiP")
    assert code == 2 and out == ""
    assert err.startswith(f"graphprum: error: {bad}:{line}: ") and message in err, err
    assert len(err.strip().splitlines()) == 1


def test_a_run_of_videos_and_texts_is_refused(tmp_path):
    store = LocalStore(tmp_path / "store")
    load_xml(store, [PLOS / "articles" / "pmed-1001418.xml"])
    load_video(store, [VIDEO / "bbb_trailer.srt"])
    run = tmp_path / "mixed.txt"
    run.write_text("1 Q0 pmed-1001418 1 2 r 0 10\n1 Q0 bbb_trailer 2 1 r 0 10\n")
    passages = tmp_path / "p.txt"
    passages.write_text("1 pmed-1001418 0 100\n")
    code, _, err = invoke("--store", tmp_path / "store", "eval", run, "--passages", passages,
                          "-m", "MAiP")
    assert code == 2
    assert err.startswith(f"graphprum: error: {run}:2: document 'bbb_trailer' is a video, "
                          f"unlike the documents above it")


def test_measures_of_units_refuse_range_runs(plos_cli):
    store, passages, ranges, _ = plos_cli
    code, _, err = invoke("--store", store, "eval", ranges, "--passages", passages,
                          "-m", "PRUM", "-m", "MAiP")
    assert code == 2
    assert "PRUM take(s) runs of units" in err and "MAiP" in err
    code, _, err = invoke("--store", store, "eval", ranges, "--passages", passages,
                          "-m", "MAiP", "--no-store")
    assert code == 2
    code, _, err = invoke("--store", store, "runs", "focus", ranges)
    assert code == 2 and "a range run" in err
    code, _, err = invoke("--store", store, "runs", "to-ranges", ranges)
    assert code == 2 and "a range run" in err


def test_to_ranges_names_a_unit_the_store_lacks(plos_cli, tmp_path):
    store, *_ = plos_cli
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 pmed-1001418#/article[1] 1 2 r\n1 Q0 nosuch#/a[1] 2 1 r\n")
    code, out, err = invoke("--store", store, "runs", "to-ranges", run)
    assert code == 2 and out == ""
    assert err.startswith(f"graphprum: error: {run}:2: 'nosuch#/a[1]' is not in the store")


def test_byte_offsets_of_a_range_run(tmp_path):
    """--offsets bytes reads OFFSET LENGTH as UTF-8 bytes (as for passage
    qrels): 'é' is two bytes, one character."""
    d = tmp_path / "c"
    d.mkdir()
    (d / "x.xml").write_text("<a><p>éé</p><p>abcd</p></a>", encoding="utf-8")
    store = tmp_path / "s"
    assert invoke("--store", store, "load", "xml", d)[0] == 0
    in_chars, in_bytes = tmp_path / "p.txt", tmp_path / "pb.txt"
    in_chars.write_text("1 x 2 6\n")  # p[2], 'abcd'
    in_bytes.write_text("1 x 4 8\n")
    chars, bytes_ = tmp_path / "chars.txt", tmp_path / "bytes.txt"
    chars.write_text("1 Q0 x 1 1 r 1 4\n")  # 'éabc'
    bytes_.write_text("1 Q0 x 1 1 r 2 5\n")
    base = ["--store", store, "eval", "-m", "iP@0.5", "-m", "iP@0.8"]
    code, want, err = invoke(*base, chars, "--passages", in_chars)
    assert code == 0 and want == "r\tiP@0.5\tall\t0.75\nr\tiP@0.8\tall\t0.0\n", err
    code, got, err = invoke(*base, bytes_, "--passages", in_bytes, "--offsets", "bytes")
    assert code == 0, err
    assert got == want
