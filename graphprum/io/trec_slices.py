"""Reading well-formed TREC run text fast, whole or in byte slices, without numpy.

``graphprum eval`` forks the processes that read a big run file before it
imports numpy (about 40 ms), so that the reading starts that much sooner
(:mod:`graphprum.evaluation.reading`).  What they run is here, and imports
nothing but the standard library and graphprum's numpy-free helpers.

:func:`parse_fast` is one tight pass over lines that are all well formed;
anything unusual (a line without 6 fields, a second TAG, a number that is
not one, NaN, a duplicate) gives None, and the caller reads the file with
:func:`graphprum.io.runs.read_trec_run`'s careful parse, which names the
line.  :func:`read_slice` reads the lines of a byte range into a
:class:`SliceRun`: every topic in evaluation order, its scores and ranks as
``array`` columns that pickle as bytes and become numpy arrays without a
copy (:func:`graphprum.io.runs.run_of_slice`).

Examples
--------
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "run")
>>> _ = open(path, "w").write("1 Q0 a 1 3 t\\n1 Q0 b 2 5 t\\n2 Q0 c 1 1 t\\n")
>>> trec_run_slices(path, 2)
[(0, 26), (26, 39)]
>>> part = read_slice(path, 0, 26)
>>> part.tag, part.topics["1"][0], part.topics["1"][1].tolist()
('t', 'b\\na', [5.0, 3.0])
"""

from __future__ import annotations

import math
import os
from array import array
from dataclasses import dataclass, field

from graphprum.io.lines import INT64_MAX, INT64_MIN, PathArg, gc_paused, is_stream, sniff
from graphprum.io.order import rank_order, trec_order
from graphprum.io.xpaths import is_positional_id

__all__ = ["SliceRun", "TopicLines", "is_xml", "parse_fast", "read_slice", "trec_run_slices"]


class TopicLines:
    """The fields of one topic's lines while reading, in file order."""

    __slots__ = ("ids", "ranks", "scores", "seen")

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.scores: list[float] = []
        self.ranks: list[int] = []
        self.seen: dict[object, None] = {}


@dataclass
class SliceRun:
    """The run of some lines of a TREC run file, made without numpy.

    Attributes
    ----------
    tag : str
        The TAG of every line.
    topics : dict of str to (str, array, array)
        Per topic in order of first appearance: its ids in evaluation order
        joined by newlines (no id holds one: lines are split at them), and
        their SCOREs (``array("d")``) and RANKs (``array("q")``) in that order.
    """

    tag: str
    topics: dict[str, tuple[str, array, array]] = field(default_factory=dict)


def parse_fast(text: str, trees: bool) -> tuple[str, dict[str, TopicLines]] | None:
    """One tight pass over a well-formed run; None on anything unusual.

    Lines are split and their fields appended to per-topic columns; RANK and
    SCORE columns are converted per topic with ``map``.  Any irregularity
    (field count, second TAG, bad number, NaN, duplicate, empty file) gives
    None: the caller then reads carefully, applying ``dedup`` and naming the
    offending line.  With ``trees`` a repeat is a repeated (ID, RANK).

    >>> tag, topics = parse_fast("1 Q0 a 1 0.5 t\\n# a comment\\n1 Q0 b 2 0.25 t\\n", False)
    >>> tag, topics["1"].ids, topics["1"].scores
    ('t', ['a', 'b'], [0.5, 0.25])
    >>> parse_fast("1 Q0 a 1 nan t\\n", False) is None
    True
    """
    columns: dict[str, tuple[list[str], list[str], list[str]]] = {}
    current = None
    tag = None
    ids: list[str] = []
    rank_text: list[str] = []
    score_text: list[str] = []
    for f in map(str.split, text.split("\n")):
        if len(f) != 6 or f[0][0] == "#":
            if not f or f[0][0] == "#":
                continue
            return None
        if f[0] != current:
            current = f[0]
            acc = columns.get(current)
            if acc is None:
                acc = columns[current] = ([], [], [])
            ids, rank_text, score_text = acc
        if f[5] != tag:
            if tag is not None:
                return None
            tag = f[5]
        ids.append(f[2])
        rank_text.append(f[3])
        score_text.append(f[4])
    if tag is None:
        return None
    topics: dict[str, TopicLines] = {}
    for topic, (ids, rank_text, score_text) in columns.items():
        lines = topics[topic] = TopicLines()
        lines.ids = ids
        numbers = "".join(rank_text) + "".join(score_text)
        if not numbers.isascii() or "_" in numbers:
            return None  # int() and float() take digits input files may not use
        try:
            lines.ranks = list(map(int, rank_text))
            lines.scores = list(map(float, score_text))
        except ValueError:
            return None
        if lines.ranks and (max(lines.ranks) > INT64_MAX or min(lines.ranks) < INT64_MIN):
            return None  # beyond the 64-bit column: the careful parse names the line
        if any(map(math.isnan, lines.scores)):
            return None
        keys = zip(ids, lines.ranks, strict=True) if trees else ids
        if len(set(keys)) != len(ids):
            return None
    return tag, topics


def trec_run_slices(path: PathArg, parts: int) -> list[tuple[int, int]] | None:
    """Byte ranges that split a TREC run file into at most ``parts`` at line
    ends, for readers in several processes (:func:`read_slice`); None when
    the file cannot be read that way (standard input, gzip, a file that
    cannot be opened).

    >>> import tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "run")
    >>> _ = open(p, "w").write("1 Q0 a 1 3 t\\n1 Q0 b 2 2 t\\n2 Q0 c 1 1 t\\n")
    >>> trec_run_slices(p, 2), trec_run_slices(p, 1)
    ([(0, 26), (26, 39)], [(0, 39)])
    """
    if is_stream(path):
        return None
    try:
        with open(path, "rb") as f:
            if f.read(2) == b"\x1f\x8b":  # gzip: read whole
                return None
            size = os.fstat(f.fileno()).st_size
            cuts = [0]
            for k in range(1, parts):
                f.seek(max(cuts[-1], size * k // parts))
                f.readline()
                if cuts[-1] < f.tell() < size:
                    cuts.append(f.tell())
    except OSError:
        return None
    return list(zip(cuts, [*cuts[1:], size], strict=True))


def is_xml(path: PathArg) -> bool:
    """Whether the file's first non-blank character is ``<`` (an INEX XML run)."""
    return sniff(path, 64).startswith(b"<")


def read_slice(path: PathArg, start: int, end: int, order: str = "score") -> SliceRun | None:
    """The run of the lines in bytes ``[start, end)`` of a TREC run file, or
    None when anything there needs the careful reading (a malformed line, a
    duplicate, bytes that are not UTF-8, ids to normalise, no line at all).

    ``order`` is ``"score"`` (trec_eval's) or ``"rank"``; the caller checks it.

    >>> import tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "run")
    >>> _ = open(p, "w").write("1 Q0 a 1 0.5 t\\n1 Q0 b 2 0.5 t\\n")
    >>> read_slice(p, 0, 30).topics["1"][0], read_slice(p, 0, 30, "rank").topics["1"][0]
    ('b\\na', 'a\\nb')
    """
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read(end - start)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if start == 0 and text.startswith("\ufeff"):
        text = text[1:]
    with gc_paused():
        fast = parse_fast(text, False)
        if fast is None or not all(is_positional_id(acc.ids[0]) for acc in fast[1].values()):
            # ids to normalise: whether the whole file is normalised depends on
            # the first id of every topic in it, so it is read whole
            return None
        out = SliceRun(fast[0])
        for topic, acc in fast[1].items():
            if order == "score":
                positions = trec_order(acc.ids, acc.scores)
            else:
                positions = rank_order(acc.ids, acc.scores, acc.ranks)
            ids, scores, ranks = acc.ids, acc.scores, acc.ranks
            if positions != list(range(len(ids))):
                ids = [ids[i] for i in positions]
                scores = [scores[i] for i in positions]
                ranks = [ranks[i] for i in positions]
            out.topics[topic] = ("\n".join(ids), array("d", scores), array("q", ranks))
    return out
