"""Read video segments (DESIGN §1.1, §1.3) into ParsedDocument records.

Two inputs are understood:

* **segment tables** -- text lines ``VIDEO N START END`` (whitespace
  separated; ``#`` comment lines and blank lines ignored).  START and END are
  seconds, written as a number (``12.5``) or a clock time
  (``[HH:]MM:SS[.fff]``).  The segments of one video are numbered
  N = 1..n without gaps, and numbering follows time: segment N + 1 starts no
  earlier than segment N ends (touching is fine, overlap is not).  Lines may
  come in any order and one file may hold several videos.
* **subtitle files** ``.srt`` (SubRip) and ``.vtt`` (WebVTT): every cue is
  one segment of the video named by the file stem (``talk.srt`` -> video
  ``talk``).  Cues must come in order of their start; they may overlap, as
  broadcast roll-up captions and YouTube captions do (see below).  WebVTT
  ``NOTE``, ``STYLE`` and ``REGION`` blocks are skipped, cue settings
  ignored.  In WebVTT only an empty line ends a cue (a line of spaces is
  cue text, as YouTube's automatic captions write it); in SubRip a line of
  spaces counts as blank.  A timing line inside a block starts a new cue
  (files that forget the blank line).  A cue's ``words`` are the
  whitespace-separated tokens of its text with ``<tags>`` -- including
  WebVTT's inline timestamps ``<00:00:00.560>`` and ``<c>`` spans -- and
  ``{\\codes}`` removed.

Overlapping cues become overlapping segments, numbered in order of start
(then end).  The T2I user (:mod:`graphprum.t2i`) lives on the video's time
line, not on the segments: a result starts the user at its segment's
start, a relevant segment is the fragment ``[start, end)`` of the time
line, overlapping fragments are viewed once (D_R is the length of their
union) and each counts once as a reference item.  Segment tables keep the
stricter rule: segments in time order without overlap.

A video becomes one root unit of kind ``KIND_VIDEO`` (tag ``video``, path
``/video``, id = the video name) spanning ``[0, end of its last segment)`` --
the media time line starts at 0 even when the first segment starts later --
whose children are its segments in time order (kind ``KIND_SEGMENT``, tag
``segment``, path ``/video/segment``, id ``VIDEO#N``), with ``start`` and
``length`` in seconds.

Every problem raises :class:`~graphprum.errors.InputError` naming the file and
line: a malformed timestamp, a negative time, an END not after its START,
overlapping or unordered segments, a duplicate or missing segment number.

Why the standard library and not a subtitle package
---------------------------------------------------
pysrt 1.1.2, webvtt-py 0.6.0 and pysubs2 1.8.1 were evaluated (all install
from PyPI).  None reports the *line* of a malformed cue: pysrt skips bad
items silently by default (``ERROR_RAISE`` gives the item, not the line),
webvtt-py raises ``MalformedCaptionError('Invalid timestamp ...')`` without
a position, pysubs2 is lenient by design and drops what it cannot read.  The
two formats need only a line-by-line block parser with one timestamp regular
expression, so a small parser here gives exact ``file:line: problem``
messages (DESIGN §1.3) and no new dependency.

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "talk.srt").write_text(
...     "1\\n00:00:01,000 --> 00:00:04,500\\nHello <i>there</i>\\n\\n"
...     "2\\n00:00:05,000 --> 00:00:07,000\\nBye\\n")
>>> [doc] = read_segments(d / "talk.srt")
>>> doc.name, doc.tags
('talk', ['video', 'segment', 'segment'])
>>> doc.columns["start"].tolist(), doc.columns["length"].tolist()
([0.0, 1.0, 5.0], [7.0, 3.5, 2.0])
>>> doc.columns["words"].tolist(), doc.columns["parent"].tolist()
([3, 2, 1], [-1, 0, 0])
>>> _ = (d / "segs.txt").write_text("news 2 10 20\\nnews 1 0 10\\nnews 3 15 30\\n")
>>> read_segments(d / "segs.txt")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
graphprum.errors.InputError: ...segs.txt:3: segment news#3 starts at 15 before news#2 ends at 20 ...
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from graphprum.errors import InputError
from graphprum.io.lines import ascii_integer, iter_lines, parse_time, read_text, seconds
from graphprum.loaders.names import utf8_path
from graphprum.units import KIND_SEGMENT, KIND_VIDEO, ParsedDocument, text_snippet

__all__ = ["SUBTITLE_SUFFIXES", "find_video_files", "parse_time", "read_segments",
           "read_videos", "video_document"]

#: File suffixes read as subtitles (anything else is a segment table).
SUBTITLE_SUFFIXES = (".srt", ".vtt")
#: Suffixes picked up when a directory is given.
DIRECTORY_SUFFIXES = (".srt", ".vtt", ".seg", ".segments")

_TAGS = re.compile(r"<[^>]*>|\{\\[^}]*\}")
_TABLE_LAYOUT = "VIDEO N START END"


def _table_time(path: Path, line: int, text: str, what: str) -> float:
    found = seconds(text)
    value = math.nan if found is None else found
    if not math.isfinite(value):
        raise InputError(path, line, f"expected {what} in seconds or [HH:]MM:SS[.fff], "
                                     f"got {text!r}")
    if value < 0:
        raise InputError(path, line, f"{what} {text} is negative")
    return value


def _fmt(x: float) -> str:
    return f"{x:g}"


def _check_name(path: Path, line: int | None, name: str) -> None:
    if not name or "#" in name or any(c.isspace() for c in name):
        raise InputError(path, line, f"video id {name!r} must be non-empty without '#' or spaces")


def _check_order(path: Path, name: str, starts: list[float], ends: list[float],
                 lines: list[int], what: str) -> None:
    """Segments in time order without overlap (vectorised; first offender reported)."""
    s = np.asarray(starts)
    e = np.asarray(ends)
    bad = np.flatnonzero(s[1:] < e[:-1])
    if len(bad):
        k = int(bad[0]) + 1
        raise InputError(path, lines[k],
                         f"{what} {name}#{k + 1} starts at {_fmt(s[k])} before {name}#{k} "
                         f"ends at {_fmt(e[k - 1])} ({what}s must be in time order "
                         f"and must not overlap)")


def video_document(name: str, source: str, starts: Iterable[float], ends: Iterable[float],
                   words: Iterable[int] | None = None,
                   texts: Iterable[str] | None = None) -> ParsedDocument:
    """A video root with one child segment per ``(start, end)``, already checked.

    >>> doc = video_document("v", "", [0, 5], [5, 9])
    >>> doc.columns["size"].tolist(), doc.columns["post"].tolist(), doc.columns["pos"].tolist()
    ([3, 1, 1], [2, 0, 1], [1, 1, 2])
    >>> doc.paths
    ['/video', '/video/segment', '/video/segment']
    """
    s = np.asarray(list(starts), dtype=np.float64)
    e = np.asarray(list(ends), dtype=np.float64)
    n = len(s)
    w = np.zeros(n, np.int32) if words is None else np.asarray(list(words), dtype=np.int32)
    seg = np.arange(n, dtype=np.int32)
    cols: dict[str, np.ndarray] = {
        "kind": np.concatenate([[KIND_VIDEO], np.full(n, KIND_SEGMENT)]).astype(np.int8),
        "parent": np.concatenate([[-1], np.zeros(n)]).astype(np.int32),
        "depth": np.concatenate([[0], np.ones(n)]).astype(np.int16),
        "post": np.concatenate([[n], seg]).astype(np.int32),
        "size": np.concatenate([[n + 1], np.ones(n)]).astype(np.int32),
        "pos": np.concatenate([[1], seg + 1]).astype(np.int32),
        "start": np.concatenate([[0.0], s]),
        "length": np.concatenate([[float(e.max()) if n else 0.0], e - s]),
        "words": np.concatenate([[int(w.sum())], w]).astype(np.int32),
    }
    snippets = None if texts is None else ["", *(text_snippet(s) for s in texts)]
    return ParsedDocument(name, source, KIND_VIDEO, ["video"] + ["segment"] * n,
                          ["/video"] + ["/video/segment"] * n, cols, texts=snippets)


# --------------------------------------------------------------------------
# segment tables


def _read_table(path: Path) -> list[ParsedDocument]:
    videos: dict[str, dict[int, tuple[float, float, int]]] = {}
    try:
        text = read_text(path)
    except InputError as exc:
        if "NUL bytes" not in str(exc):
            raise
        raise InputError(path, None, "a binary file (the video itself?): load video reads a "
                         f"video's segments, as subtitles (.srt, .vtt) or a table "
                         f"{_TABLE_LAYOUT} (seconds; a shot list from a scene detector, "
                         f"say)") from None
    for line, fields in iter_lines(text):
        if len(fields) != 4:
            raise InputError(path, line, f"expected 4 fields {_TABLE_LAYOUT}, got {len(fields)}")
        name, n_text, s_text, e_text = fields
        _check_name(path, line, name)
        n = ascii_integer(n_text) or 0
        if n < 1:
            raise InputError(path, line, f"expected N a segment number >= 1, got {n_text!r}")
        start = _table_time(path, line, s_text, "START")
        end = _table_time(path, line, e_text, "END")
        if not end > start:
            raise InputError(path, line, f"END {e_text} is not after START {s_text}")
        segs = videos.setdefault(name, {})
        if n in segs:
            raise InputError(path, line, f"segment {name}#{n} given twice "
                                         f"(first on line {segs[n][2]})")
        segs[n] = (start, end, line)
    if not videos:
        raise InputError(path, None, f"no segments: expected lines {_TABLE_LAYOUT}")
    docs = []
    for name, segs in videos.items():
        numbers = sorted(segs)
        if numbers[-1] != len(numbers):
            missing = next(k for k in range(1, numbers[-1] + 1) if k not in segs)
            after = min(k for k in numbers if k > missing)
            raise InputError(path, segs[after][2],
                             f"segments of video {name} must be numbered 1..n without gaps: "
                             f"{name}#{missing} is missing")
        starts = [segs[k][0] for k in numbers]
        ends = [segs[k][1] for k in numbers]
        _check_order(path, name, starts, ends, [segs[k][2] for k in numbers], "segment")
        docs.append(video_document(name, os.path.abspath(path), starts, ends))
    return docs


# --------------------------------------------------------------------------
# subtitles


def _timing(path: Path, line: int, text: str) -> tuple[float, float]:
    """``START --> END [settings]`` of a cue."""
    left, arrow, right = text.partition("-->")
    if not arrow:
        raise InputError(path, line, f"expected a timing line START --> END, got {text.strip()!r}")
    right_fields = right.split()
    if not right_fields:
        raise InputError(path, line, "timing line has no END after -->")
    start = parse_time(left)
    if start is None:
        raise InputError(path, line, f"bad timestamp {left.strip()!r}: expected "
                                     f"[HH:]MM:SS,mmm or [HH:]MM:SS.mmm")
    end = parse_time(right_fields[0])
    if end is None:
        raise InputError(path, line, f"bad timestamp {right_fields[0]!r}: expected "
                                     f"[HH:]MM:SS,mmm or [HH:]MM:SS.mmm")
    if not end > start:
        raise InputError(path, line, f"cue end {right_fields[0]} is not after its start "
                                     f"{left.strip()}")
    return start, end


def _blocks(lines: list[str], first: int, empty_only: bool = False
            ) -> Iterator[tuple[int, list[str]]]:
    """Runs of non-blank lines from index ``first``: (1-based line, lines).

    A blank line is an empty one with ``empty_only`` (WebVTT), else one of
    whitespace only; a block never starts with a blank line.
    """
    def blank(text: str) -> bool:
        return text == "" if empty_only else not text.strip()

    i, n = first, len(lines)
    while i < n:
        if not lines[i].strip():
            i += 1
            continue
        j = i
        while j < n and not blank(lines[j]):
            j += 1
        yield i + 1, lines[i:j]
        i = j


def _check_start_order(path: Path, name: str, starts: list[float], lines: list[int]) -> None:
    """Cues in order of their start (overlap allowed); the first offender reported."""
    s = np.asarray(starts)
    bad = np.flatnonzero(s[1:] < s[:-1])
    if len(bad):
        k = int(bad[0]) + 1
        raise InputError(path, lines[k], f"cue {name}#{k + 1} starts at {_fmt(s[k])}, before "
                                         f"the cue above it ({_fmt(s[k - 1])}): cues must "
                                         f"come in order of their start")


def _read_subtitles(path: Path) -> list[ParsedDocument]:
    text = read_text(path)
    vtt = path.suffix.lower() == ".vtt"
    # lines end with CRLF, LF or, in WebVTT, a lone CR too
    lines = _LINE_ENDS.split(text) if vtt else [ln.rstrip("\r") for ln in text.split("\n")]
    first = 0
    if vtt:
        if not lines or not (lines[0] == "WEBVTT" or lines[0].startswith(("WEBVTT ", "WEBVTT\t"))):
            raise InputError(path, 1, "a WebVTT file must start with WEBVTT")
        first = 1
        # header lines, up to a blank line or a cue's timing line right under them
        while first < len(lines) and lines[first].strip() and "-->" not in lines[first]:
            first += 1
    name = path.stem
    _check_name(path, None, name)
    starts: list[float] = []
    ends: list[float] = []
    words: list[int] = []
    texts: list[str] = []
    where: list[int] = []
    for line, block in _blocks(lines, first, empty_only=vtt):
        head = block[0].strip()
        if vtt and head.split(maxsplit=1)[0] in ("NOTE", "STYLE", "REGION") \
                and "-->" not in head:
            continue
        k = 0
        if "-->" not in head:
            if not vtt and not head.isdigit():
                raise InputError(path, line, f"expected a cue number or a timing line "
                                             f"START --> END, got {head!r}")
            if len(block) < 2:
                raise InputError(path, line + 1, "expected a timing line START --> END after "
                                                 f"cue {head!r}")
            k = 1
        for at, cue_lines in _cues(block, k, vtt):
            if vtt and at > k and not block[at].lstrip()[:1].isdigit():
                # cue text holding '-->': as in browsers (the WebVTT parser), it
                # ends the cue and starts one whose timing fails: that one and
                # the rest of its block are dropped
                break
            start, end = _timing(path, line + at, block[at])
            starts.append(start)
            ends.append(end)
            cue = " ".join(_TAGS.sub(" ", t) for t in cue_lines)
            words.append(len(cue.split()))
            texts.append(cue)
            where.append(line + at)
    if not starts:
        raise InputError(path, None, "no cues")
    _check_start_order(path, name, starts, where)
    order = sorted(range(len(starts)), key=lambda i: (starts[i], ends[i]))
    return [video_document(name, os.path.abspath(path), [starts[i] for i in order],
                           [ends[i] for i in order], [words[i] for i in order],
                           [texts[i] for i in order])]


def _cues(block: list[str], k: int, vtt: bool) -> list[tuple[int, list[str]]]:
    """(index of the timing line, text lines) of each cue of a block whose
    first timing line is ``block[k]``: a later timing line starts a new cue,
    taking a SubRip cue number just above it along."""
    timings = [i for i in range(k + 1, len(block)) if "-->" in block[i]]
    out = []
    for a, b in zip([k, *timings], [*timings, len(block)], strict=True):
        end = b
        if b < len(block) and not vtt and b - 1 > a and block[b - 1].strip().isdigit():
            end = b - 1  # the next cue's number
        out.append((a, block[a + 1:end]))
    return out


#: Line ends of a WebVTT file: LF (after any CRs: CRLF, and CRCRLF from CRLF
#: text written again in text mode on Windows) or a lone CR.
_LINE_ENDS = re.compile(r"\r*\n|\r")


# --------------------------------------------------------------------------
# entry points


def read_segments(path: str | os.PathLike[str]) -> list[ParsedDocument]:
    """The videos of one segment table or subtitle file (see module docstring).

    Parameters
    ----------
    path : str or PathLike
        A ``.srt``/``.vtt`` subtitle file (one video named by the file stem)
        or a segment table ``VIDEO N START END`` (any other name).

    Returns
    -------
    list of ParsedDocument
        One per video, in order of first appearance.

    Raises
    ------
    InputError
        Naming file, line and problem.
    """
    p = Path(path)
    if p.suffix.lower() in SUBTITLE_SUFFIXES:
        return _read_subtitles(p)
    return _read_table(p)


def find_video_files(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Files named directly, plus ``*.srt``, ``*.vtt``, ``*.seg``, ``*.segments``
    found recursively under directories (sorted)."""
    out: list[Path] = []
    for item in paths:
        p = Path(item)
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*")
                              if f.is_file() and f.suffix.lower() in DIRECTORY_SUFFIXES))
        elif p.exists():
            out.append(p)
        else:
            raise InputError(p, None, "no such file or directory")
    for f in out:
        utf8_path(f)  # video ids and sources are text
    return out


def read_videos(paths: Iterable[str | os.PathLike[str]]) -> Iterator[ParsedDocument]:
    """Every video of every file of :func:`find_video_files`."""
    for f in find_video_files(paths):
        yield from read_segments(f)
