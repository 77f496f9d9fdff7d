"""Passage qrels: INEX 2006 highlighting and best entry points (DESIGN §1.3).

Lines are ``TOPIC DOC START END`` (one highlighted range, character offsets
of DESIGN §1.2, END exclusive, integers with 0 <= START < END) or
``TOPIC DOC BEP OFFSET`` (the best entry point, an integer offset >= 0, at
most one per (TOPIC, DOC)).  The documents ``timed`` says are videos
(``TOPIC VIDEO START END``): their START, END and OFFSET are seconds as
segment tables write them (``17.5``, or ``[HH:]MM:SS[.fff]``), so that
relevance needs no predefined segments either.  Ranges of one document are
merged into their union: sorted, disjoint, and not touching (``[0, 5)`` and
``[5, 8)`` become ``[0, 8)``), so that lengths and overlaps are plain
interval arithmetic.

Examples
--------
>>> import tempfile, os
>>> p = os.path.join(tempfile.mkdtemp(), "passages")
>>> _ = open(p, "w").write("1 d 10 20\\n1 d 0 5\\n1 d 15 30\\n1 d BEP 12\\n")
>>> a = read_passages(p)
>>> a["1"]["d"]
DocAssessment(ranges=[(0, 5), (10, 30)], bep=12)
>>> a["1"]["d"].relevant_length
25
>>> _ = open(p, "w").write("1 v 17 26.5\\n1 v 00:30 00:31.5\\n1 v BEP 17.25\\n")
>>> read_passages(p, timed=lambda doc: doc == "v")["1"]["v"]
DocAssessment(ranges=[(17, 26.5), (30.0, 31.5)], bep=17.25)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from graphprum.errors import InputError
from graphprum.io.lines import (
    INTEGER,
    PathArg,
    find_line,
    parse_int,
    read_lines,
    seconds,
    starts_with,
)

_LAYOUT = "TOPIC DOC START END or TOPIC DOC BEP OFFSET"


@dataclass
class DocAssessment:
    """The assessment of one document for one topic.

    Attributes
    ----------
    ranges : list of (int, int)
        Highlighted character ranges ``[start, end)``, merged and sorted
        (a video's in seconds, which need not be integers).
    bep : int or None
        Best entry point offset, when given.
    """

    ranges: list[tuple[float, float]] = field(default_factory=list)
    bep: float | None = None

    @property
    def relevant_length(self) -> float:
        """Number of highlighted characters."""
        return sum(end - start for start, end in self.ranges)


#: topic -> DOC -> assessment, both in file order.
PassageQrels = dict[str, dict[str, DocAssessment]]


def merge_ranges(ranges: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Union of half-open ranges: sorted, disjoint, touching ranges joined.

    >>> merge_ranges([(5, 8), (0, 3), (3, 4), (7, 10), (20, 21)])
    [(0, 4), (5, 10), (20, 21)]
    """
    out: list[tuple[float, float]] = []
    for start, end in sorted(ranges):
        if out and start <= out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def read_passages(path: PathArg, timed: Callable[[str], bool] | None = None) -> PassageQrels:
    """Read passage qrels (see the module notes); ``timed(DOC)`` says which
    documents are videos (none by default).

    Raises
    ------
    InputError
        A line without 4 fields, START/END/OFFSET not integers >= 0 (for a
        video: not numbers of seconds >= 0), START >= END, a second BEP for
        one (TOPIC, DOC) (naming both lines), an empty file; naming ``file:line``.
    """
    raw: dict[str, dict[str, DocAssessment]] = {}
    for line, fields in read_lines(path):
        if len(fields) != 4:
            raise InputError(path, line, f"expected 4 fields {_LAYOUT}, got {len(fields)}")
        topic, doc, a, b = fields
        assessment = raw.setdefault(topic, {}).setdefault(doc, DocAssessment())
        video = timed is not None and timed(doc)
        if a == "BEP":
            offset = _time(path, line, b, "OFFSET") if video else \
                parse_int(path, line, b, "OFFSET an integer >= 0")
            if offset < 0:
                raise InputError(path, line, f"expected OFFSET an integer >= 0, got {b!r}")
            if assessment.bep is not None:
                first = find_line(path, starts_with([topic, doc, "BEP"]))
                raise InputError(path, line, f"second BEP for document {doc!r} of topic "
                                             f"{topic!r} (first on line {first})")
            assessment.bep = offset
            continue
        if video:
            start, end = _time(path, line, a, "START"), _time(path, line, b, "END")
        else:
            start = parse_int(path, line, a, "START an integer >= 0 (or BEP)")
            end = parse_int(path, line, b, "END an integer")
        if start < 0:
            raise InputError(path, line, f"expected START an integer >= 0, got {a!r}")
        if end <= start:
            raise InputError(path, line, f"expected START < END (END exclusive), got {start} {end}")
        assessment.ranges.append((start, end))
    if not raw:
        raise InputError(path, None, f"empty passage qrels: no {_LAYOUT} lines")
    for docs in raw.values():
        for assessment in docs.values():
            assessment.ranges = merge_ranges(assessment.ranges)
    return raw


def _time(path: PathArg, line: int, text: str, what: str) -> float:
    """A video's START, END or OFFSET: seconds (an integer stays one)."""
    value = seconds(text)
    if value is None:
        raise InputError(path, line, f"expected {what} a time of the video, seconds or "
                                     f"[HH:]MM:SS[.fff], got {text!r}")
    return int(text) if INTEGER.fullmatch(text) else value


def byte_to_char(text: str, offsets: np.ndarray) -> np.ndarray:
    """Character offsets of UTF-8 byte offsets into ``text`` (vectorised).

    A byte offset inside a multi-byte character maps to that character's
    start; offsets past the end map to ``len(text)``.

    >>> byte_to_char("é a", np.array([0, 2, 3, 4, 9])).tolist()
    [0, 1, 2, 3, 3]
    """
    data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    starts = (data & 0xC0) != 0x80  # first byte of each character
    char_at = np.concatenate([[0], np.cumsum(starts)])  # chars before byte b
    off = np.clip(np.asarray(offsets, dtype=np.int64), 0, len(data))
    # a byte offset inside a character: count only characters starting before it
    out: np.ndarray = char_at[off] - ((off < len(data)) & ~np.append(starts, True)[off]).astype(
        np.int64)
    return out
