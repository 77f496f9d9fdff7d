"""The careful pass of the TREC run reader: line by line, naming file and line.

Every line is split at white space as Python splits it
(:func:`graphprum.io.lines.iter_lines`) and its fields checked as DESIGN
§1.3 says, so that an error names ``file:line`` (and, for a duplicate, the
first line of it too).  The fast pass (:mod:`graphprum.io.run_columns`)
hands this pass every file it refuses; both give the same run.  The same
per-topic lists (:class:`TopicLines`) and the same finish
(:func:`finish_run`: ids normalised, topics ordered or trees built) serve
runs held in memory (:func:`graphprum.io.runs.run_from_columns`).

Examples
--------
>>> tag, topics = parse_careful("run", "1 Q0 a 1 0.5 t\\n1 Q0 c 2 0.9 t\\n", False, False, [])
>>> tag, topics["1"].ids
('t', ['a', 'c'])
>>> finish_run("run", tag, topics, "score", False, False).ranked("1")
['c', 'a']
>>> parse_careful("run", "1 Q0 a 1 0.5 t\\n1 Q0 c x 0.9 t\\n", False, False, [])
Traceback (most recent call last):
...
graphprum.errors.InputError: run:2: expected RANK an integer, got 'x'
"""

from __future__ import annotations

import os

import numpy as np

from graphprum.errors import InputError, UsageError
from graphprum.io.lines import (
    PathArg,
    decode_text,
    expect_count,
    find_line,
    gc_paused,
    iter_lines,
    parse_float,
    parse_int,
    read_bytes,
    seconds,
)
from graphprum.io.range_runs import LAYOUTS, field_text, is_range_line, range_fields
from graphprum.io.ranking import RankedTopic, Run, ranked_table, ranked_topic
from graphprum.io.xpaths import is_positional_id, normalise_id

__all__ = ["LAYOUT", "TopicLines", "finish_run", "parse_careful", "read_careful"]

#: The fields of a line of a TREC run.
LAYOUT = "TOPIC Q0 ID RANK SCORE TAG"


def read_careful(path: PathArg, order: str = "score", dedup: bool = False,
                 trees: bool = False) -> Run:
    """The :class:`~graphprum.io.ranking.Run` of a TREC, range or tree run
    file read line by line (:func:`graphprum.io.runs.read_trec_run` says
    what is read and what is an error).

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "run")
    >>> _ = open(p, "w").write("1 Q0 a 1 0.5 sys\\n1 Q0 b 2 0.9 sys extra\\n")
    >>> run = read_careful(p)
    >>> run.ranked("1"), run.notes[0].endswith("(first on line 2)")
    (['b', 'a'], True)
    """
    extra: list[int] = []
    text = decode_text(path, read_bytes(path))
    with gc_paused():
        tag, topics = parse_careful(path, text, dedup, trees, extra)
    del text
    if tag is None:
        raise InputError(path, None, f"empty run: no result lines {LAYOUT}")
    run = finish_run(path, tag, topics, order, dedup, trees)
    run.path = str(path)
    if extra:
        run.notes.append(f"note: {path}: {extra[1]} line(s) have more than 6 fields; the "
                         f"fields after the 6th are ignored, as trec_eval does (first on "
                         f"line {extra[0]})")
    return run


class TopicLines:
    """The fields of one topic's lines while reading, in file order."""

    __slots__ = ("bounds", "ids", "integral", "ranks", "scores", "seen")

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.scores: list[float] = []
        self.ranks: list[int] = []
        self.seen: dict[object, None] = {}
        self.bounds: list[tuple[float, float]] = []  # a range run's range fields
        self.integral = True  # whether they are all written as integers


def finish_run(source: PathArg, tag: str, topics: dict[str, TopicLines], order: str,
               dedup: bool, trees: bool) -> Run:
    """The :class:`Run` of the lines read: ids normalised, topics ordered (or
    trees built); a range run's layout from its range fields."""
    if any(acc.bounds for acc in topics.values()):
        return _finish_ranges(tag, topics, order)
    _normalise_ids(source, topics, dedup, trees)
    if trees:
        run = Run(tag=tag, trees={})
        ranked: dict[str, RankedTopic] = {}
        assert run.trees is not None
        for topic, acc in topics.items():
            run.trees[topic], ranked[topic] = _build_trees(acc)
            _check_one_document(source, topic, run.trees[topic])
        run.topics = ranked
        return run
    kept = list(topics.items())
    sizes = [len(acc.ids) for _, acc in kept]
    codes = np.repeat(np.arange(len(kept), dtype=np.int32), sizes)
    ids = [u for _, acc in kept for u in acc.ids]
    scores = np.array([s for _, acc in kept for s in acc.scores], np.float64)
    ranks = np.array([r for _, acc in kept for r in acc.ranks], np.int64)
    return Run(tag=tag, topics=ranked_table([t for t, _ in kept], codes, ids, scores, ranks,
                                            order))


def _finish_ranges(tag: str, topics: dict[str, TopicLines], order: str) -> Run:
    """The :class:`Run` of a range run's lines (:func:`finish_run`)."""
    kept = list(topics.items())
    sizes = [len(acc.ids) for _, acc in kept]
    bounds = np.array([b for _, acc in kept for b in acc.bounds], np.float64).reshape(-1, 2)
    table = ranked_table([t for t, _ in kept], np.repeat(np.arange(len(kept), dtype=np.int32),
                                                         sizes),
                         [u for _, acc in kept for u in acc.ids],
                         np.array([s for _, acc in kept for s in acc.scores], np.float64),
                         np.array([r for _, acc in kept for r in acc.ranks], np.int64), order,
                         bounds)
    integral = all(acc.integral for _, acc in kept)
    return Run(tag=tag, topics=table, ranges="text|time" if integral else "time")


def parse_careful(path: PathArg, text: str, dedup: bool, trees: bool,
                  extra: list[int]) -> tuple[str | None, dict[str, TopicLines]]:
    """Line-by-line parse: raises InputError naming the line, applies ``dedup``.

    Lines with more than 6 fields are read from their first 6; ``extra``
    receives the first such line and their count.  A first line of eight
    fields ending in two numbers makes a range run
    (:mod:`graphprum.io.range_runs`), every line of which has eight fields.
    """
    topics: dict[str, TopicLines] = {}
    tag: str | None = None
    tag_line = 0
    ranges: bool | None = None  # the first line decides
    first = 0
    bounds = (0.0, 0.0)
    for line, fields in iter_lines(text):
        if ranges is None:
            ranges, first = is_range_line(fields), line
            if ranges and trees:
                raise UsageError(f"{path}: tree runs (--trees) use the TREC layout {LAYOUT}, "
                                 f"not a range run's")
        if ranges:
            if len(fields) != 8:
                raise InputError(path, line, f"expected 8 fields {LAYOUTS} as on line {first} "
                                             f"(a run holds one layout), got {len(fields)}")
            a, b, integral = range_fields(path, line, fields)
            bounds = (a, b)
        elif len(fields) != 6:
            if len(fields) < 6:
                expect_count(path, line, fields, 6, LAYOUT)
            if is_range_line(fields):
                raise InputError(path, line, f"a range line ({LAYOUTS}) in a run of TREC lines "
                                             f"{LAYOUT} (line {first}): a run holds one layout")
            if not extra:
                extra.extend((line, 0))
            extra[1] += 1
        topic, _, unit, rank_text, score_text, line_tag = fields[:6]
        if line_tag != tag:
            if tag is not None:
                raise InputError(path, line, f"expected one TAG per file ({tag!r} on line "
                                             f"{tag_line}), got {line_tag!r}")
            tag, tag_line = line_tag, line
        rank = parse_int(path, line, rank_text, "RANK an integer")
        score = parse_float(path, line, score_text, "SCORE a number", allow_inf=True)
        acc = topics.get(topic)
        if acc is None:
            acc = topics[topic] = TopicLines()
        key = (unit, *bounds) if ranges else (unit, rank) if trees else unit
        if key in acc.seen:
            if dedup:
                continue
            if ranges:
                _duplicate_range(path, line, topic, unit, bounds)
            _duplicate(path, line, topic, unit, rank if trees else None)
        acc.seen[key] = None
        acc.ids.append(unit)
        acc.scores.append(score)
        acc.ranks.append(rank)
        if ranges:
            acc.bounds.append(bounds)
            acc.integral = acc.integral and integral
    return tag, topics


def _duplicate_range(path: PathArg, line: int, topic: str, doc: str,
                     bounds: tuple[float, float]) -> None:
    """Raise the duplicate error of a range run, naming the first line."""
    first = find_line(path, lambda f: len(f) == 8 and f[0] == topic and f[2] == doc
                      and (seconds(f[6]), seconds(f[7])) == bounds)
    raise InputError(path, line, f"duplicate range {field_text(bounds[0])} "
                                 f"{field_text(bounds[1])} of {doc!r} for "
                                 f"topic {topic!r} (first on line {first}); use --dedup to keep "
                                 f"the first")


def _normalise_ids(path: PathArg, topics: dict[str, TopicLines], dedup: bool,
                   trees: bool) -> None:
    """Positional XPaths in element ids, when the run writes them otherwise.

    Runs use one convention throughout, so only the first id of each topic
    is tested; when one of them is not positional every id is normalised.
    """
    if all(not acc.ids or is_positional_id(acc.ids[0]) for acc in topics.values()):
        return
    for topic, acc in topics.items():
        ids = [normalise_id(u) for u in acc.ids]
        keys = list(zip(ids, acc.ranks, strict=True)) if trees else ids
        if len(set(keys)) < len(keys):
            first: dict[object, int] = {}
            keep = []
            for i, k in enumerate(keys):
                if k in first:
                    if not dedup:
                        raise InputError(path, None, f"topic {topic!r}: "
                                                     f"{acc.ids[first[k]]!r} and {acc.ids[i]!r} "
                                                     f"are the same element {ids[i]!r}; use "
                                                     f"--dedup to keep the first")
                    continue
                first[k] = i
                keep.append(i)
            acc.scores = [acc.scores[i] for i in keep]
            acc.ranks = [acc.ranks[i] for i in keep]
            ids = [ids[i] for i in keep]
        acc.ids = ids


def _duplicate(path: PathArg, line: int, topic: str, unit: str, rank: int | None) -> None:
    """Raise the duplicate error, naming the first line."""

    def same(f: list[str]) -> bool:
        if len(f) < 6 or f[0] != topic or f[2] != unit:
            return False
        try:
            return rank is None or int(f[3]) == rank
        except ValueError:
            return False

    first = find_line(path, same)
    if rank is None:
        raise InputError(path, line, f"duplicate result {unit!r} for topic {topic!r} "
                                     f"(first on line {first}); use --dedup to keep the first")
    raise InputError(path, line, f"unit {unit!r} repeated inside the tree of RANK {rank} "
                                 f"of topic {topic!r} (first on line {first})")


def _check_one_document(source: PathArg, topic: str, trees: list[list[str]]) -> None:
    """InputError when a tree holds elements (ids ``DOC#/XPATH``) of two
    documents: a tree is a set of units of one document (DESIGN §1.3).
    Names the line of the first element of another document when
    ``source`` is a file."""
    for k, tree in enumerate(trees):
        elements = [u for u in tree if "#/" in u]  # element ids DOC#/XPATH
        if len(elements) < 2:
            continue
        doc = elements[0].split("#", 1)[0]
        other = next((u for u in elements if u.split("#", 1)[0] != doc), None)
        if other is None:
            continue
        raise InputError(source, _unit_line(source, topic, other),
                         f"tree {k + 1} of topic {topic!r} holds units of two documents "
                         f"({elements[0]!r} and {other!r}); a tree is units of one document")


def _unit_line(source: PathArg, topic: str, unit: str) -> int | None:
    """The first line of ``source`` (a file) naming ``unit`` for ``topic``."""
    if not (isinstance(source, str | os.PathLike) and os.path.isfile(source)):
        return None

    def names_it(f: list[str]) -> bool:
        return len(f) >= 3 and f[0] == topic and f[2] == unit

    return find_line(source, names_it) or None


def _build_trees(acc: TopicLines) -> tuple[list[list[str]], RankedTopic]:
    """Group one topic's lines into trees by RANK; also its distinct units."""
    by_rank: dict[int, list[int]] = {}
    for i, rank in enumerate(acc.ranks):
        members = by_rank.get(rank)
        if members is None:
            members = by_rank[rank] = []
        members.append(i)
    ids = acc.ids
    groups = [by_rank[rank] for rank in sorted(by_rank)]
    trees = [[ids[i] for i in members] for members in groups]
    first: dict[str, int] = {}
    for members in groups:
        for i in members:
            first.setdefault(ids[i], i)
    return trees, ranked_topic(ids, acc.scores, acc.ranks, list(first.values()))
