"""Passage qrels: INEX 2006 highlighting and best entry points (DESIGN §1.3).

Lines are ``TOPIC DOC START END`` (one highlighted range, character offsets
of DESIGN §1.2, END exclusive, integers with 0 <= START < END) or
``TOPIC DOC BEP OFFSET`` (the best entry point, an integer offset >= 0, at
most one per (TOPIC, DOC)).  Ranges of one document are merged into their
union: sorted, disjoint, and not touching (``[0, 5)`` and ``[5, 8)`` become
``[0, 8)``), so that lengths and overlaps are plain interval arithmetic.

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
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graphprum.errors import InputError
from graphprum.io.lines import PathArg, find_line, parse_int, read_lines, starts_with

_LAYOUT = "TOPIC DOC START END or TOPIC DOC BEP OFFSET"


@dataclass
class DocAssessment:
    """The assessment of one document for one topic.

    Attributes
    ----------
    ranges : list of (int, int)
        Highlighted character ranges ``[start, end)``, merged and sorted.
    bep : int or None
        Best entry point offset, when given.
    """

    ranges: list[tuple[int, int]] = field(default_factory=list)
    bep: int | None = None

    @property
    def relevant_length(self) -> int:
        """Number of highlighted characters."""
        return sum(end - start for start, end in self.ranges)


#: topic -> DOC -> assessment, both in file order.
PassageQrels = dict[str, dict[str, DocAssessment]]


def merge_ranges(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Union of half-open ranges: sorted, disjoint, touching ranges joined.

    >>> merge_ranges([(5, 8), (0, 3), (3, 4), (7, 10), (20, 21)])
    [(0, 4), (5, 10), (20, 21)]
    """
    out: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if out and start <= out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def read_passages(path: PathArg) -> PassageQrels:
    """Read passage qrels (see the module notes).

    Raises
    ------
    InputError
        A line without 4 fields, START/END/OFFSET not integers >= 0,
        START >= END, a second BEP for one (TOPIC, DOC) (naming both lines),
        an empty file; naming ``file:line``.
    """
    raw: dict[str, dict[str, DocAssessment]] = {}
    for line, fields in read_lines(path):
        if len(fields) != 4:
            raise InputError(path, line, f"expected 4 fields {_LAYOUT}, got {len(fields)}")
        topic, doc, a, b = fields
        assessment = raw.setdefault(topic, {}).setdefault(doc, DocAssessment())
        if a == "BEP":
            offset = parse_int(path, line, b, "OFFSET an integer >= 0")
            if offset < 0:
                raise InputError(path, line, f"expected OFFSET an integer >= 0, got {b!r}")
            if assessment.bep is not None:
                first = find_line(path, starts_with([topic, doc, "BEP"]))
                raise InputError(path, line, f"second BEP for document {doc!r} of topic "
                                             f"{topic!r} (first on line {first})")
            assessment.bep = offset
            continue
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
