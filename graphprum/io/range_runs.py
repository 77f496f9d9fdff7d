"""Range runs: results that are any passage of a text or any clip of a video.

A *range run* names, instead of a loaded unit, a range of a document
(DESIGN §1.3, docs/formats.md "Range runs").  Two layouts beside TREC's six
fields, told apart from a TREC run by their eight fields (the seventh and
eighth numbers):

- text, INEX 2008's FOL layout: ``TOPIC Q0 DOC RANK SCORE TAG OFFSET LENGTH``,
  OFFSET and LENGTH integers counting characters of the document's text
  content (DESIGN §1.2: the range is ``[OFFSET, OFFSET + LENGTH)``), or
  UTF-8 bytes with ``--offsets bytes``, as for passage qrels;
- time: ``TOPIC Q0 VIDEO RANK SCORE TAG START END``, seconds as the segment
  tables write them (``17.5``, or clock times ``[HH:]MM:SS[.fff]``), END
  exclusive.

A range run holds one layout: its lines all have eight fields.  A run
whose range fields are all integers could be either layout; the
documents it names say which (:func:`resolve_ranges`: videos are timed,
everything else is text), and a run naming both videos and texts is an
error, as is a text document given a time that is no integer.  The order
of a topic's results is the TREC rule (SCORE descending, ties by DOC
descending, ``--order rank`` by RANK), then, for ranges of one document
with one score, OFFSET (START) ascending, then LENGTH (END).  A duplicate
is the same TOPIC, DOC and both range fields.

The reader is :func:`graphprum.io.runs.read_run` (the fields are parsed by
:func:`range_fields`); a read run keeps the two fields as written
(:attr:`~graphprum.io.ranking.RankedTopic.bounds`) and its layout
(:attr:`~graphprum.io.ranking.Run.ranges`); :func:`spans` gives any topic's
``[start, end)``.

Examples
--------
>>> import tempfile, os
>>> from graphprum.io.runs import read_run
>>> p = os.path.join(tempfile.mkdtemp(), "run")
>>> _ = open(p, "w").write("1 Q0 d1 1 0.9 fol 120 50\\n1 Q0 d1 2 0.5 fol 0 10\\n")
>>> run = read_run(p)
>>> run.ranges, run.ranked("1"), run.topics["1"].bounds.tolist()
('text|time', ['d1', 'd1'], [[120.0, 50.0], [0.0, 10.0]])
>>> docs = Documents(["d1"], np.array([False]), np.array([400.0]))
>>> text = resolve_ranges(run, docs)
>>> text.ranges, spans(text.topics["1"], text.ranges).tolist()
('text', [[120.0, 170.0], [0.0, 10.0]])
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from graphprum.errors import InputError
from graphprum.io.lines import INTEGER, PathArg, find_line, seconds
from graphprum.io.passages import byte_to_char
from graphprum.io.ranking import RankedTopic, Run, TopicTable

__all__ = ["TEXT_LAYOUT", "TIME_LAYOUT", "Documents", "is_range_line", "range_fields",
           "range_lines", "ranges_of_units", "resolve_ranges", "spans"]

TEXT_LAYOUT = "TOPIC Q0 DOC RANK SCORE TAG OFFSET LENGTH"
TIME_LAYOUT = "TOPIC Q0 VIDEO RANK SCORE TAG START END"
#: Both layouts, for messages about a line that fits neither.
LAYOUTS = f"{TEXT_LAYOUT} (or START END for a video)"


def is_range_line(fields: Sequence[str]) -> bool:
    """Whether the fields of a line are a range run's: eight, the last two
    numbers or clock times.

    >>> is_range_line("1 Q0 d 1 0.5 r 10 20".split()), is_range_line("1 Q0 d 1 0.5 r x y".split())
    (True, False)
    """
    return len(fields) == 8 and seconds(fields[6]) is not None \
        and seconds(fields[7]) is not None


def range_fields(path: PathArg, line: int, fields: Sequence[str]) -> tuple[float, float, bool]:
    """The two range fields of a line (:func:`is_range_line`'s eight fields),
    and whether both are written as integers (then the line may be of
    either layout).

    Raises
    ------
    InputError
        A field that is neither a number nor a clock time, or a negative
        one; a time line (one field no integer) whose END is before its START.

    >>> range_fields("r", 1, "1 Q0 v 1 0.5 t 00:17 26.5".split())
    (17.0, 26.5, False)
    >>> range_fields("r", 3, "1 Q0 d 1 0.5 t 10 -4".split())
    Traceback (most recent call last):
    ...
    graphprum.errors.InputError: r:3: negative LENGTH (or END) -4
    """
    first, second = fields[6], fields[7]
    a, b = seconds(first), seconds(second)
    for value, text, what in ((a, first, "OFFSET (or START)"), (b, second, "LENGTH (or END)")):
        if value is None or not math.isfinite(value):
            raise InputError(path, line, f"expected {what} a number of characters or seconds "
                                         f"(or [HH:]MM:SS[.fff]), got {text!r}")
        if value < 0:
            raise InputError(path, line, f"negative {what} {text}")
    assert a is not None and b is not None
    integral = bool(INTEGER.fullmatch(first) and INTEGER.fullmatch(second))
    if not integral and b < a:
        raise InputError(path, line, f"END {second} is before START {first}")
    return a, b, integral


def spans(ranked: RankedTopic, layout: str) -> np.ndarray:
    """``[start, end)`` of every result of a range run's topic, ``(n, 2)``:
    ``[OFFSET, OFFSET + LENGTH)`` for text, ``[START, END)`` for time.

    >>> t = RankedTopic(["d"], np.zeros(1), np.ones(1, np.int64), np.array([[5.0, 3.0]]))
    >>> spans(t, "text").tolist(), spans(t, "time").tolist()
    ([[5.0, 8.0]], [[5.0, 3.0]])
    """
    if ranked.bounds is None:
        raise ValueError("spans: not a topic of a range run")
    if layout == "time":
        return ranked.bounds
    if layout != "text":
        raise ValueError(f"spans: the layout of the run is {layout!r}; resolve_ranges first")
    out = ranked.bounds.copy()
    out[:, 1] += out[:, 0]
    return out


@dataclass(frozen=True)
class Documents:
    """What :func:`resolve_ranges` knows of a collection's documents.

    Attributes
    ----------
    names : sequence of str
        Every document's name.
    video : numpy.ndarray of bool
        Whether each document is a video (its ranges are times).
    length : numpy.ndarray of float64
        Each document's length: characters of its text, or the end of a
        video's time line in seconds.
    """

    names: Sequence[str]
    video: np.ndarray
    length: np.ndarray

    def index(self) -> dict[str, int]:
        """Document name -> its position."""
        return {n: i for i, n in enumerate(self.names)}


#: DOC -> the document's text content (to read UTF-8 byte offsets).
DocText = Callable[[str], str]


def resolve_ranges(run: Run, docs: Documents, doc_text: DocText | None = None) -> Run:
    """``run`` checked against the documents it names, its layout decided
    (``"text"`` or ``"time"``, module notes) and, with ``doc_text``, its
    text offsets read as UTF-8 bytes and turned into characters (a byte
    inside a character counts from that character's start, as for passage
    qrels).  A unit run is returned as it is.

    Raises
    ------
    InputError
        Naming the file and line (for a run read from a file): a document
        the collection does not hold, a run naming both texts and videos, a
        text range whose fields are no integers, a time range whose END is
        before its START, a range that ends past its document's end.

    Examples
    --------
    >>> run = Run("r", {"1": RankedTopic(["v"], np.ones(1), np.ones(1, np.int64),
    ...                                   np.array([[17.0, 26.5]]))}, ranges="time")
    >>> docs = Documents(["v"], np.array([True]), np.array([20.0]))
    >>> resolve_ranges(run, docs)
    Traceback (most recent call last):
    ...
    graphprum.errors.InputError: r: topic '1': range 17-26.5 of video 'v' ends past its end (20 s)
    """
    if run.ranges is None:
        return run
    where = docs.index()
    video: bool | None = None  # the layout, from the first result's document
    converted: dict[str, np.ndarray] = {}
    for topic, ranked in run.topics.items():
        assert ranked.bounds is not None
        names = ranked.ids
        at = np.fromiter((where.get(d, -1) for d in names), np.int64, len(names))
        lost = np.flatnonzero(at < 0)
        if len(lost):
            k = int(lost[0])
            hint = " (a range names a document, not a unit)" if "#" in names[k] else ""
            raise InputError(*_place(run, topic, ranked, k),
                             f"document {names[k]!r} is not in the collection{hint}")
        if video is None and len(at):
            video = bool(docs.video[at[0]])
        other = np.flatnonzero(docs.video[at] != video)
        if len(other):
            k = int(other[0])
            kind = "a video" if video is False else "a text"
            raise InputError(*_place(run, topic, ranked, k),
                             f"document {names[k]!r} is {kind}, unlike the documents above "
                             f"it: a run holds one layout, text ranges ({TEXT_LAYOUT}) or time "
                             f"ranges ({TIME_LAYOUT})")
        bounds = ranked.bounds
        if video:
            back = np.flatnonzero(bounds[:, 1] < bounds[:, 0])
            if len(back):
                k = int(back[0])
                raise InputError(*_place(run, topic, ranked, k),
                                 f"END {field_text(bounds[k, 1])} is before START "
                                 f"{field_text(bounds[k, 0])}")
            ends = bounds[:, 1]
        else:
            if run.ranges == "time":  # some line writes a time, not integers
                raise _times_for_text(run, topic, ranked)
            if doc_text is not None:
                bounds = _byte_ranges(names, bounds, doc_text)
                converted[topic] = bounds
            ends = bounds[:, 0] + bounds[:, 1]
        past = np.flatnonzero(ends > docs.length[at])
        if len(past):
            k = int(past[0])
            a, b = ranked.bounds[k]
            raise InputError(*_place(run, topic, ranked, k),
                             f"range {field_text(a)}-{field_text(b if video else a + b)} of "
                             f"{'video' if video else 'document'} {names[k]!r} ends past its end "
                             f"({field_text(float(docs.length[at[k]]))} "
                             f"{'s' if video else 'characters'})")
    topics = _with_bounds(run.topics, converted) if converted else run.topics
    return dataclasses.replace(run, topics=topics, ranges="time" if video else "text")


def _place(run: Run, topic: str, ranked: RankedTopic, k: int) -> tuple[str, int | None]:
    """(source, line) of result ``k`` of ``topic`` as errors name it: the
    file's line for a run read from a file, else the run and its topic."""
    assert ranked.bounds is not None
    doc = ranked.ids[k]
    written = (float(ranked.bounds[k, 0]), float(ranked.bounds[k, 1]))
    if run.path:
        def same(f: list[str]) -> bool:
            return len(f) == 8 and f[0] == topic and f[2] == doc \
                and (seconds(f[6]), seconds(f[7])) == written

        line = find_line(run.path, same)
        if line:
            return run.path, line
    return f"{run.path or run.tag}: topic {topic!r}", None


def _times_for_text(run: Run, topic: str, ranked: RankedTopic) -> InputError:
    """The error of a run of texts written as times: naming the first line
    whose range fields are not integers."""
    message = (f"document {ranked.ids[0]!r} is a text: its ranges are OFFSET LENGTH in "
               f"characters, integers ({TEXT_LAYOUT}), not times")
    if run.path:
        line = find_line(run.path, lambda f: len(f) == 8 and not (
            INTEGER.fullmatch(f[6]) and INTEGER.fullmatch(f[7])))
        if line:
            return InputError(run.path, line, "expected integers OFFSET LENGTH: " + message)
    return InputError(*_place(run, topic, ranked, 0), message)


def _byte_ranges(names: Sequence[str], bounds: np.ndarray, doc_text: DocText) -> np.ndarray:
    """OFFSET LENGTH in UTF-8 bytes as OFFSET LENGTH in characters, one
    document at a time; a range past the end of the document's bytes is
    kept past the end of its characters (so that it is refused)."""
    out = bounds.copy()
    names_array = np.asarray(names, dtype=object)
    for doc in dict.fromkeys(names):
        rows = np.flatnonzero(names_array == doc)
        text = doc_text(doc)
        size = len(text.encode("utf-8"))
        a = bounds[rows, 0]
        e = a + bounds[rows, 1]
        start = byte_to_char(text, a.astype(np.int64)).astype(np.float64)
        end = byte_to_char(text, e.astype(np.int64)).astype(np.float64)
        end = np.where(e > size, len(text) + (e - size), end)  # past the end stays past it
        out[rows, 0], out[rows, 1] = start, end - start
    return out


def _with_bounds(topics: Mapping[str, RankedTopic], bounds: Mapping[str, np.ndarray]
                 ) -> Mapping[str, RankedTopic]:
    """``topics`` with the range fields of some replaced."""
    if isinstance(topics, TopicTable):
        whole = topics.bounds.copy() if topics.bounds is not None else None
        assert whole is not None
        for topic, new in bounds.items():
            k = topics.topics.index(topic)
            whole[int(topics.starts[k]):int(topics.starts[k + 1])] = new
        return TopicTable(topics.topics, topics.starts, topics.ids, topics.scores, topics.ranks,
                          whole)
    return {t: RankedTopic(r.ids, r.scores, r.ranks, bounds.get(t, r.bounds))
            for t, r in topics.items()}


def range_lines(run: Run, tag: str | None = None) -> Iterator[str]:
    """The lines of a range run in its layout (each ending in a newline):
    RANK and SCORE as kept, the range fields as numbers that read back the same.

    >>> run = Run("r", {"1": RankedTopic(["d"], np.array([2.5]), np.array([1]),
    ...                                   np.array([[120.0, 50.0]]))}, ranges="text")
    >>> list(range_lines(run))
    ['1 Q0 d 1 2.5 r 120 50\\n']
    """
    name = tag or run.tag
    for topic, ranked in run.topics.items():
        assert ranked.bounds is not None
        n = len(ranked)
        for i, (doc, rank, score, (a, b)) in enumerate(zip(
                ranked.ids, ranked.ranks.tolist(), ranked.scores.tolist(),
                ranked.bounds.tolist(), strict=True)):
            value = repr(score) if score == score else str(n - i)  # NaN: no rsv
            yield f"{topic} Q0 {doc} {rank} {value} {name} {field_text(a)} {field_text(b)}\n"


def field_text(x: float) -> str:
    """A range field as written: an integer without a point, else the shortest repr.

    >>> field_text(99999999.0), field_text(17.25)
    ('99999999', '17.25')
    """
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def ranges_of_units(run: Run, doc: Sequence[str], start: np.ndarray, end: np.ndarray,
                    video: bool) -> Run:
    """The range run of a unit run: each result replaced by its unit's span
    (``doc``, ``start`` and ``end`` of every result of every topic, in the
    run's order), RANK 1, 2, ... in evaluation order and SCORE as kept;
    ``video`` says the layout (time: START END, else text: OFFSET LENGTH).

    >>> run = Run("r", {"1": RankedTopic(["d#/a[1]/p[2]"], np.array([0.5]), np.array([3]))})
    >>> out = ranges_of_units(run, ["d"], np.array([10.0]), np.array([25.0]), False)
    >>> out.ranges, out.ranked("1"), out.topics["1"].bounds.tolist(), out.topics["1"].ranks
    ('text', ['d'], [[10.0, 15.0]], array([1]))
    """
    topics: dict[str, RankedTopic] = {}
    at = 0
    for topic, ranked in run.topics.items():
        n = len(ranked)
        s, e = start[at:at + n], end[at:at + n]
        bounds = np.column_stack([s, e if video else e - s]).astype(np.float64)
        topics[topic] = RankedTopic(list(doc[at:at + n]), ranked.scores.copy(),
                                    np.arange(1, n + 1, dtype=np.int64), bounds)
        at += n
    return dataclasses.replace(run, topics=topics, trees=None, notes=[],
                               ranges="time" if video else "text")
