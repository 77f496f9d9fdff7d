"""Video segments: segment tables, .srt and .vtt (graphprum.loaders.video)."""

from __future__ import annotations

import os
import re
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from graphprum.errors import InputError
from graphprum.loaders.video import read_segments, read_videos
from graphprum.store import open_store
from graphprum.units import KIND_SEGMENT, KIND_VIDEO
from tests.support import REPO


def test_segment_table_into_store(write, tmp_path):
    p = write("news.seg", "# two videos\nnews 2 10 20.5\nnews 1 0:03 10\n\n"
                          "talk 1 00:01:00 00:01:30\n")
    docs = read_segments(p)
    assert [d.name for d in docs] == ["news", "talk"]
    news = docs[0]
    assert news.columns["kind"].tolist() == [KIND_VIDEO, KIND_SEGMENT, KIND_SEGMENT]
    assert news.columns["start"].tolist() == [0.0, 3.0, 10.0]
    assert news.columns["length"].tolist() == [20.5, 7.0, 10.5]
    assert docs[1].columns["start"].tolist() == [0.0, 60.0]
    store = open_store(tmp_path / "store")
    store.load_documents(read_videos([tmp_path]))
    rows = store.resolve(["news", "news#1", "news#2", "news#3", "talk#1"]).tolist()
    assert rows[3] == -1 and min(rows[:3] + rows[4:]) >= 0
    t = store.table()
    assert t.ids(rows[:3]) == ["news", "news#1", "news#2"]
    assert t.contains(rows[0], rows[2]) and not t.contains(rows[1], rows[2])


@pytest.mark.parametrize("text, line, message", [
    ("v 1 0 10\nv 2 5 20\n", 2, "v#2 starts at 5 before v#1 ends at 10"),  # overlap
    ("v 2 0 10\nv 1 20 30\n", 1, "v#2 starts at 0 before v#1 ends at 30"),  # unordered
    ("v 1 -1 10\n", 1, "START -1 is negative"),
    ("v 1 10 5\n", 1, "END 5 is not after START 10"),
    ("v 1 3 3\n", 1, "END 3 is not after START 3"),
    ("v 1 0:61 70\n", 1, "expected START in seconds"),
    ("v 1 abc 70\n", 1, "expected START in seconds"),
    ("v 1 0 10\nv 1 10 20\n", 2, "given twice (first on line 2)"),
    ("v 1 0 10\nv 3 20 30\n", 2, "v#2 is missing"),
    ("v 0 0 10\n", 1, "segment number >= 1"),
    ("v 1 0\n", 1, "expected 4 fields VIDEO N START END, got 3"),
    ("v#x 1 0 1\n", 1, "without '#'"),
    # issue 18: numbers in input files are ASCII decimal
    ("v 1 0 1_0\n", 1, "expected END in seconds"),
    ("v 1 0 ١٠\n", 1, "expected END in seconds"),
    ("v ١ 0 10\n", 1, "segment number >= 1"),
    ("v 1_0 0 10\n", 1, "segment number >= 1"),
    ("v 1 0:١٠ 20\n", 1, "expected START in seconds"),
    ("v 1 0 inf\n", 1, "expected END in seconds"),
])
def test_segment_table_errors(write, text, line, message):
    p = write("bad.seg", "# header\n" + text)
    with pytest.raises(InputError) as err:
        read_segments(p)
    assert err.value.line == line + 1
    assert message in err.value.message
    assert str(err.value).startswith(f"{p}:{line + 1}: ")


SRT = """1
00:00:01,000 --> 00:00:04,000
Big <b>bunny</b> {\\an8}wakes

2
00:00:04,000 --> 00:01:02,5
He stretches.
"""


def test_srt(write):
    [doc] = read_segments(write("bunny.srt", "\ufeff" + SRT.replace("\n", "\r\n")))
    assert doc.name == "bunny"
    assert doc.columns["start"].tolist() == [0.0, 1.0, 4.0]
    assert doc.columns["length"].tolist() == [62.5, 3.0, 58.5]
    assert doc.columns["words"].tolist() == [5, 3, 2]


VTT = """WEBVTT - a header
Kind: captions

NOTE a comment
over two lines

STYLE
::cue { color: red }

intro
00:01.000 --> 00:04.000 align:start line:0
<v Bunny>Hello</v>
   \t
00:00:05.000 --> 00:00:07.250
World
"""


def test_vtt(write):
    [doc] = read_segments(write("clip.vtt", VTT))
    assert doc.columns["start"].tolist() == [0.0, 1.0, 5.0]
    assert doc.columns["length"].tolist() == [7.25, 3.0, 2.25]
    assert doc.columns["words"].tolist() == [2, 1, 1]


@pytest.mark.parametrize(("text", "cues"), [
    ("WEBVTT\n00:01.000 --> 00:02.000\nno blank\n", [(1.0, 2, "no blank")]),
    ("WEBVTT\r\r00:01.000 --> 00:02.000\rcr only\r\r00:03.000 --> 00:04.000\rb\r",
     [(1.0, 2, "cr only"), (3.0, 1, "b")]),
    # text holding '-->' ends the cue; the cue it starts has no timing and is
    # dropped with the rest of its block (the WebVTT parser, Chromium)
    ("WEBVTT\n\n00:00:01.000 --> 00:00:02.000\ntext\n-->arrow\ndropped\n\n"
     "00:03.000 --> 00:04.000\nnext\n", [(1.0, 1, "text"), (3.0, 1, "next")]),
    ("WEBVTT\r\r\n\r\r\n00:01.000 --> 00:02.000\r\r\nhello\r\r\n", [(1.0, 1, "hello")]),
    ("WEBVTT\n\n00:01.000 --> 00:02.000\na\n00:03.000-->00:04.000\nb\n",
     [(1.0, 1, "a"), (3.0, 1, "b")]),
    ("WEBVTT\nKind: captions\n\n00:01.000 --> 00:02.000\nx\n", [(1.0, 1, "x")]),
])
def test_vtt_as_browsers_read_it(write, text, cues):
    """Chromium's own <track> parser was the reference (audit of 2026-11-27):
    a cue right under the header, lines ending in a lone CR (or CRCRLF), cues
    without a blank line between them, and a cue text line holding '-->'."""
    [doc] = read_segments(write("clip.vtt", text))
    rows = list(zip(doc.columns["start"].tolist(), doc.columns["words"].tolist(), doc.texts,
                    strict=True))
    assert rows[1:] == cues  # row 0: the video itself


@pytest.mark.parametrize("name, text, line, message", [
    ("a.srt", "1\n00:00:01,000 -> 00:00:02,000\nx\n", 2, "expected a timing line"),
    ("a.srt", "1\n00:00:01,000 --> 00:00:02;000\nx\n", 2, "bad timestamp '00:00:02;000'"),
    ("a.srt", "1\n00:00:61,000 --> 00:01:02,000\nx\n", 2, "bad timestamp '00:00:61,000'"),
    ("a.srt", "one\n00:00:01,000 --> 00:00:02,000\nx\n", 1, "expected a cue number"),
    ("a.srt", "1\n00:00:03,000 --> 00:00:02,000\nx\n", 2, "is not after its start"),
    ("a.srt", SRT + "\n3\n00:00:02,000 --> 00:01:10,000\nx\n", 10,
     "cue a#3 starts at 2, before the cue above it (4)"),
    ("a.srt", "1\n", 2, "expected a timing line START --> END after cue '1'"),
    ("a.vtt", "1\n00:01.000 --> 00:02.000\n", 1, "must start with WEBVTT"),
    ("a.vtt", "WEBVTT\n\nid\n00:01.000 --> 00:0x.000\n", 4, "bad timestamp '00:0x.000'"),
    ("a.vtt", "WEBVTT\n\n00:01.000 --> 00:02.000\na\n00:03.000 --> 4.000\nb\n", 5,
     "bad timestamp '4.000'"),
])
def test_subtitle_errors(write, name, text, line, message):
    p = write(name, text)
    with pytest.raises(InputError) as err:
        read_segments(p)
    assert (err.value.line, err.value.path) == (line, str(p))
    assert message in err.value.message


def test_overlapping_cues_become_overlapping_segments(write):
    """Issue 21 item 12: broadcast roll-up captions overlap (cue 2 starts
    while cue 1 is on screen); they load as overlapping segments in order
    of start."""
    [doc] = read_segments(write("news.srt", "1\n00:00:01,000 --> 00:00:05,000\nGood evening\n\n"
                                            "2\n00:00:03,000 --> 00:00:08,000\nGood evening\n"
                                            "and welcome\n\n3\n00:00:06,000 --> 00:00:07,000\n"
                                            "tonight\n"))
    assert doc.columns["start"].tolist() == [0.0, 1.0, 3.0, 6.0]
    assert doc.columns["length"].tolist() == [8.0, 4.0, 5.0, 1.0]
    assert doc.columns["words"].tolist() == [7, 2, 4, 1]


YOUTUBE_VTT = "\n".join([
    "WEBVTT", "Kind: captions", "Language: en", "",
    "00:00:00.030 --> 00:00:02.190 align:start position:0%", " ",
    "so<00:00:00.510><c> today</c><00:00:00.840><c> we're</c><00:00:01.079><c> going</c>", "",
    "00:00:02.190 --> 00:00:02.200 align:start position:0%", "so today we're going", " ", "",
    "00:00:02.200 --> 00:00:04.950 align:start position:0%", "so today we're going",
    "to<00:00:02.429><c> talk</c>", ""])


def test_youtube_automatic_captions(write):
    """YouTube's auto-caption VTT: a line of one space inside a cue (cue text,
    not a cue boundary), inline <00:00:00.510><c> timestamps (tags, not
    words), 10 ms repeat cues."""
    [doc] = read_segments(write("yt.vtt", YOUTUBE_VTT))
    assert doc.columns["start"].tolist() == pytest.approx([0.0, 0.03, 2.19, 2.2])
    assert doc.columns["length"].tolist() == pytest.approx([4.95, 2.16, 0.01, 2.75])
    assert doc.columns["words"].tolist() == [14, 4, 4, 6]


def test_a_missing_blank_line_between_cues(write):
    [doc] = read_segments(write("m.srt", "1\n00:00:01,000 --> 00:00:02,000\nx y\n"
                                         "2\n00:00:03,000 --> 00:00:04,000\nz\n"))
    assert doc.columns["start"].tolist() == [0.0, 1.0, 3.0]
    assert doc.columns["words"].tolist() == [3, 2, 1]


def test_empty_inputs(write):
    for name, text in (("e.srt", "\n\n"), ("e.vtt", "WEBVTT\n\nNOTE only\n"), ("e.seg", "#\n")):
        with pytest.raises(InputError):
            read_segments(write(name, text))


# ---------------------------------------------------------------------------
# Subtitle files as they come from the wild.  No test reaches the network:
#
# * ``subtitle_samples`` are files *made at test time* from the subtitles the
#   project ships (examples/video/bbb_trailer.srt), dressed the way real
#   files are: a BOM and CRLF, cue 0, hour-long times, several text lines,
#   <i> tags and {\an8} codes (SubRip); NOTE blocks with a Netflix-style
#   segment index, lines of spaces only, cue identifiers, cue settings,
#   mm:ss.ttt times and non-ASCII text (WebVTT).
# * ``cached_samples`` are two real files shipped in the pysrt and webvtt-py
#   source packages (their text is copyrighted, so never committed).  The
#   tests use them only when they are already in the cache
#   ($GRAPHPRUM_TESTDATA, default ~/.cache/graphprum-testdata) and skip
#   otherwise; ``python tests/fetch_testdata.py`` puts them there.

EXAMPLE = REPO / "examples" / "video" / "bbb_trailer.srt"
CACHE = Path(os.environ.get("GRAPHPRUM_TESTDATA", Path.home() / ".cache" / "graphprum-testdata"))
CACHED = ("utf-8.srt", "netflix_chicas_del_cable.vtt")  # see tests/fetch_testdata.py
#: Copies of the shipped cues in the made samples (so they are long, like real files).
REPEATS = 40


def _shipped_cues() -> list[tuple[float, float, str]]:
    """(start, end, text) of the shipped example, read without graphprum."""
    text = EXAMPLE.read_text(encoding="utf-8")
    cues = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = block.splitlines()
        a, b = lines[1].split(" --> ")
        cues.append((_clock(a), _clock(b), " ".join(lines[2:])))
    return cues


def _stamp(seconds: float, sep: str, hours: bool = True) -> str:
    ms = round(seconds * 1000)
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, ms = divmod(rest, 1000)
    return (f"{h:02d}:" if hours or h else "") + f"{m:02d}:{s:02d}{sep}{ms:03d}"


def make_srt(path: Path) -> Path:
    """A SubRip file of REPEATS copies of the shipped cues, starting past 1 h."""
    cues = _shipped_cues()
    span = cues[-1][1]
    out = []
    for k in range(REPEATS):
        for i, (a, b, text) in enumerate(cues):
            n = k * len(cues) + i  # numbered from 0, as some tools do
            t0, t1 = 3600 + k * span + a, 3600 + k * span + b
            words = text.split()
            half = len(words) // 2
            body = [f"<i>{' '.join(words[:half])}</i>", " ".join(words[half:])] if half \
                else [text]
            if n % 7 == 0:
                body[0] = "{\\an8}" + body[0]
            out.append(f"{n}\n{_stamp(t0, ',')} --> {_stamp(t1, ',')}\n" + "\n".join(body))
    path.write_bytes(("\ufeff" + "\n\n".join(out) + "\n").replace("\n", "\r\n")
                     .encode("utf-8"))
    return path


def make_vtt(path: Path) -> Path:
    """A WebVTT file of REPEATS copies of the shipped cues, shaped like a Netflix export."""
    cues = _shipped_cues()
    span = cues[-1][1]
    out = ["WEBVTT", "NOTE Netflix\nNOTE Profile: webvtt-lssdh-ios8",
           "NOTE SegmentIndex\nNOTE Segment=597.080 20887@419 153\nNOTE /SegmentIndex",
           " " * 51, " " * 20]
    for k in range(REPEATS):
        for i, (a, b, text) in enumerate(cues):
            t0, t1 = k * span + a, k * span + b
            settings = "  position:50.00%,middle  align:middle size:80.00%  line:84.67% "
            out.append(f"{k * len(cues) + i + 1}\n{_stamp(t0, '.', hours=False)} --> "
                       f"{_stamp(t1, '.', hours=False)}{settings}\n"
                       f"[Narrador] <i>{text}</i>\n<i>—¿Qué pasa, conejo?</i>")
    path.write_text("\n\n".join(out) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def subtitle_samples(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("subtitles")
    return {"made.srt": make_srt(tmp / "made.srt"), "made.vtt": make_vtt(tmp / "made.vtt")}


@pytest.fixture(scope="session")
def cached_samples() -> dict[str, Path]:
    missing = [str(CACHE / name) for name in CACHED if not (CACHE / name).exists()]
    if missing:
        pytest.skip(f"real subtitle samples not cached: {', '.join(missing)} (tests never "
                    f"download; python tests/fetch_testdata.py fetches them)")
    return {name: CACHE / name for name in CACHED}


def _clock(text: str) -> float:
    t = datetime.strptime(text.replace(",", "."), "%H:%M:%S.%f")
    return t.hour * 3600 + t.minute * 60 + t.second + t.microsecond / 1e6


def _check_cues(path: Path, cues: int) -> None:
    """The loader's segments against an independent reading of the timing lines."""
    [doc] = read_segments(path)
    assert len(doc.tags) - 1 == cues
    text = path.read_text(encoding="utf-8-sig")
    timings = re.findall(r"^(\S+) --> (\S+)", text, flags=re.M)
    assert len(timings) == cues  # an independent count of timing lines
    fix = (lambda s: s) if path.suffix == ".srt" else (lambda s: s if s.count(":") == 2
                                                       else "00:" + s)
    starts = np.array([_clock(fix(a)) for a, _ in timings])
    ends = np.array([_clock(fix(b)) for _, b in timings])
    assert doc.columns["start"][1:] == pytest.approx(starts)
    assert doc.columns["length"][1:] == pytest.approx(ends - starts)
    assert doc.columns["length"][0] == pytest.approx(ends.max())
    assert (doc.columns["words"][1:] > 0).all()


@pytest.mark.parametrize("name", ["made.srt", "made.vtt"])
def test_subtitles_made_from_the_shipped_example(subtitle_samples, name):
    path = subtitle_samples[name]
    _check_cues(path, REPEATS * len(_shipped_cues()))
    [doc] = read_segments(path)
    if name.endswith(".srt"):  # the made file starts past one hour, with a BOM and CRLF
        assert path.read_bytes().startswith("\ufeff0\r\n01:00:00,000 --> ".encode())
        assert doc.columns["start"][1] == pytest.approx(3600.0)
    else:  # tags removed: "[Narrador] <i>Title card: ...</i>" + "<i>—¿Qué pasa, conejo?</i>"
        first = _shipped_cues()[0][2]
        assert doc.columns["words"][1] == 1 + len(first.split()) + 3


@pytest.mark.parametrize("name, cues", [
    # pysrt's own test suite asserts 1332 items for this file (cues 0..1331)
    ("utf-8.srt", 1332),
    ("netflix_chicas_del_cable.vtt", 865),
])
def test_real_subtitles(cached_samples, name, cues):
    _check_cues(cached_samples[name], cues)


def test_t2i_on_overlapping_segments(write, tmp_path):
    """Cues [0, 10), [5, 15), [20, 30); v#2 = [5, 15) is relevant.  The T2I
    user lives on the time line: a result v#1 starts the user at 0, who
    enters [5, 15) after 5 s of non-relevant material (< tau = 15): a hit at
    wasted effort 5, so ESL(S=1) = floor(5/15) = 0 and T2I-P(T=15) = P_1 =
    F_1/(F_1 + 1) = 1/2 (the fragment is found before 15 s are wasted)."""
    import graphprum

    srt = write("v.srt", "1\n00:00:00,000 --> 00:00:10,000\na\n\n2\n00:00:05,000 --> "
                         "00:00:15,000\nb\n\n3\n00:00:20,000 --> 00:00:30,000\nc\n")
    store = open_store(tmp_path / "vs")
    store.load_documents(read_videos([srt]))
    (tmp_path / "q").write_text("1 0 v#2 1\n")
    (tmp_path / "r").write_text("1 Q0 v#1 1 1 r\n")
    df = graphprum.evaluate([tmp_path / "r"], tmp_path / "q",
                            ["ESL(S=1,tau=15)", "T2I-P(tau=15,T=15)"], store=store,
                            per_topic=False)
    assert df["value"].tolist() == pytest.approx([0.0, 0.5], abs=1e-12)


@pytest.mark.parametrize("name", ["film.mp4", "film.srt"])
def test_a_media_file_is_told_what_load_video_reads(tmp_path: Path, name: str) -> None:
    """The film itself, given to ``load video``: before, "film.mp4:1: not
    UTF-8: byte 0x98 at column 28"; the error now says it is binary and what
    the loader reads (a subtitle file in UTF-16 is told how to convert it)."""
    path = tmp_path / name
    path.write_bytes(b"\x00\x00\x00\x20ftypisom\x00\x00\x02\x00" + bytes(range(128, 256)))
    with pytest.raises(InputError) as caught:
        list(read_videos([path]))
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and "NUL" not in message[:len(str(path)) + 2]
    if name.endswith(".mp4"):
        assert "a binary file (the video itself?): load video reads a video's segments" in message
    else:
        assert "not a text file: it holds NUL bytes" in message and "iconv" in message


def test_a_refused_video_load_leaves_the_store_directory_as_it_was(write, tmp_path) -> None:
    """A bad second file is found before the store is written to: its
    directory keeps its entries and modification time (before, a staging
    generation was made and removed)."""
    from graphprum.loading import load_video

    store_dir = tmp_path / "store"
    load_video(open_store(store_dir), write("a.seg", "a 1 0 10\n"))
    before = (sorted(os.listdir(store_dir)), os.stat(store_dir).st_mtime_ns)
    good, bad = write("b.seg", "b 1 0 10\n"), write("c.seg", "c 1 0 10\nc 2 5 20\n")
    with pytest.raises(InputError, match=r"c\.seg:2"):
        load_video(open_store(store_dir), [good, bad])
    assert (sorted(os.listdir(store_dir)), os.stat(store_dir).st_mtime_ns) == before
