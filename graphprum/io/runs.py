"""Runs: TREC ``TOPIC Q0 ID RANK SCORE TAG`` files, tree runs, and the entry point.

Evaluation order inside a topic (DESIGN §1.3), ``order="score"`` (default):
SCORE descending, ties broken by ID descending — trec_eval's ``comp_sim_docno``
(``strcmp(docno2, docno1)``).  Two details make this *exactly* trec_eval:

- trec_eval keeps ``sim`` in a C ``float``: scores are compared after
  rounding to single precision (1.0 and 1.00000001 tie), though
  :attr:`RankedTopic.scores` keeps the values as written.
- ``strcmp`` compares bytes; Python compares ``str`` by code point, which is
  the same order for UTF-8.

``order="rank"`` sorts by RANK ascending (as INEX did); lines with equal RANK
are then ordered by the score rule above (SCORE descending, ID descending),
so the result never depends on the order of lines in the file.

A duplicate (TOPIC, ID) is an error naming both lines, unless ``dedup=True``
keeps the first line in file order.  One TAG per file; an empty run is an
error.  Element ids whose XPath has steps without a position
(``doc#/article/sec``, the INEX convention for ``[1]``) are normalised as
INEX XML runs are (``doc#/article[1]/sec[1]``); two lines that become the
same id are a duplicate.  RANK and SCORE are written with ASCII digits (SCORE may be ``inf``,
as trec_eval's ``atof`` reads it).  Fields after the sixth are ignored, as
trec_eval does, with a note in :attr:`Run.notes`.

Tree runs (``trees=True``, for SR): all lines of a topic with one RANK form
one tree, trees are ranked by RANK ascending, units inside a tree keep file
order; a unit may appear in several trees, a repeat inside one tree is an
error (``dedup=True`` drops it).

Examples
--------
>>> import tempfile, os
>>> p = os.path.join(tempfile.mkdtemp(), "run")
>>> _ = open(p, "w").write('''1 Q0 a 1 0.5 sys
... 1 Q0 c 2 0.9 sys
... 1 Q0 b 3 0.5 sys
... ''')
>>> run = read_run(p)
>>> run.tag, run.ranked("1")
('sys', ['c', 'b', 'a'])
>>> read_run(p, order="rank").ranked("1")
['a', 'c', 'b']
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from graphprum.errors import InputError, UsageError
from graphprum.io.lines import (
    PathArg,
    expect_count,
    find_line,
    gc_paused,
    iter_lines,
    parse_float,
    parse_int,
    read_text,
)
from graphprum.io.ranking import (
    ORDERS,
    RankedTopic,
    Run,
    check_order,
    rank_order,
    ranked_topic,
    trec_order,
)
from graphprum.io.trec_slices import SliceRun, is_xml, read_slice, trec_run_slices
from graphprum.io.trec_slices import TopicLines as _Topic
from graphprum.io.trec_slices import parse_fast as _parse_fast
from graphprum.io.xpaths import is_positional_id, normalise_id

__all__ = [
    "ORDERS",
    "RankedTopic",
    "Run",
    "check_order",
    "is_xml",
    "merge_run_slices",
    "rank_order",
    "ranked_topic",
    "read_run",
    "read_trec_run",
    "read_trec_slice",
    "run_from_columns",
    "run_lines",
    "run_of_slice",
    "trec_order",
    "trec_run_slices",
    "write_run",
]

_LAYOUT = "TOPIC Q0 ID RANK SCORE TAG"


def read_trec_run(path: PathArg, order: str = "score", dedup: bool = False,
                  trees: bool = False) -> Run:
    """Read a TREC run file (see the module notes for order, duplicates, trees).

    Raises
    ------
    InputError
        A line without 6 fields, a RANK that is not an integer, a SCORE that
        is not a number, a second TAG, a duplicate (TOPIC, ID) (or a repeat
        inside one tree), an empty file; always naming ``file:line``.
    """
    check_order(order)
    text = read_text(path)
    extra: list[int] = []
    with gc_paused():
        fast = _parse_fast(text, trees)
        tag, topics = fast if fast is not None else \
            _parse_careful(path, text, dedup, trees, extra)
    if tag is None:
        raise InputError(path, None, f"empty run: no result lines {_LAYOUT}")
    run = _finish(path, tag, topics, order, dedup, trees)
    run.path = str(path)
    if extra:
        run.notes.append(f"note: {path}: {extra[1]} line(s) have more than 6 fields; the "
                         f"fields after the 6th are ignored, as trec_eval does (first on "
                         f"line {extra[0]})")
    return run


def read_trec_slice(path: PathArg, start: int, end: int, order: str = "score") -> Run | None:
    """The run of the lines in bytes ``[start, end)`` of a TREC run file, or
    None when anything there needs :func:`read_trec_run`'s careful reading (a
    malformed line, a duplicate, bytes that are not UTF-8, ...).  Join the
    slices with :func:`merge_run_slices`; :func:`trec_run_slices` makes them."""
    check_order(order)
    part = read_slice(path, start, end, order)
    return run_of_slice(path, part) if part is not None else None


def run_of_slice(path: PathArg, part: SliceRun) -> Run:
    """The :class:`Run` of :func:`~graphprum.io.trec_slices.read_slice`'s
    result (read in a worker, perhaps): its columns become numpy arrays
    without a copy, its ids stay one string until a topic's are first read.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "run")
    >>> _ = open(p, "w").write("1 Q0 a 1 0.5 t\\n1 Q0 b 2 0.75 t\\n")
    >>> run = run_of_slice(p, read_slice(p, 0, 32))
    >>> run.ranked("1"), run.topics["1"].scores.tolist(), run.path == p
    (['b', 'a'], [0.75, 0.5], True)
    """
    run = Run(tag=part.tag, path=str(path))
    for topic, (joined, scores, ranks) in part.topics.items():
        run.topics[topic] = RankedTopic.from_joined(joined, np.frombuffer(scores, np.float64),
                                                    np.frombuffer(ranks, np.int64))
    return run


def merge_run_slices(path: PathArg, slices: Sequence[Run | None],
                     order: str = "score") -> Run | None:
    """One run from the runs of consecutive slices of one file
    (:func:`read_trec_slice`), as :func:`read_trec_run` reads the whole file
    (without ``dedup`` or ``trees``); None when a slice was None, the slices
    have different TAGs, or an id repeats across them: then the careful
    reading names the line.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "run")
    >>> _ = open(p, "w").write("1 Q0 a 1 3 t\\n1 Q0 b 2 2 t\\n2 Q0 c 1 1 t\\n1 Q0 z 9 9 t\\n")
    >>> parts = [read_trec_slice(p, a, b) for a, b in trec_run_slices(p, 3)]
    >>> run = merge_run_slices(p, parts)
    >>> run.ranked("1") == read_trec_run(p).ranked("1") == ["z", "a", "b"]
    True
    """
    if not slices or any(r is None for r in slices) \
            or len({r.tag for r in slices if r is not None}) != 1:
        return None
    merged = Run(tag=slices[0].tag)  # type: ignore[union-attr]
    for part in slices:
        assert part is not None
        for topic, ranked in part.topics.items():
            before = merged.topics.get(topic)
            if before is None:
                merged.topics[topic] = ranked
                continue
            ids = before.ids + ranked.ids
            if len(set(ids)) < len(ids):
                return None
            scores = np.concatenate([before.scores, ranked.scores]).tolist()
            ranks = np.concatenate([before.ranks, ranked.ranks]).tolist()
            positions = trec_order(ids, scores) if order == "score" else \
                rank_order(ids, scores, ranks)
            merged.topics[topic] = ranked_topic(ids, scores, ranks, positions)
    merged.path = str(path)
    return merged


def _finish(source: PathArg, tag: str, topics: dict[str, _Topic], order: str, dedup: bool,
            trees: bool) -> Run:
    """The :class:`Run` of the lines read: ids normalised, topics ordered (or trees built)."""
    _normalise_ids(source, topics, dedup, trees)
    run = Run(tag=tag)
    if trees:
        run.trees = {}
        for topic, acc in topics.items():
            run.trees[topic], run.topics[topic] = _build_trees(acc)
            _check_one_document(source, topic, run.trees[topic])
        return run
    for topic, acc in topics.items():
        if order == "score":
            positions = trec_order(acc.ids, acc.scores)
        else:
            positions = rank_order(acc.ids, acc.scores, acc.ranks)
        run.topics[topic] = ranked_topic(acc.ids, acc.scores, acc.ranks, positions)
    return run


#: Names a result of an in-memory run in error messages, by its position
#: (``lambda i: f"index {labels[i]!r}"``).
Where = Callable[[int], str]


def run_from_columns(source: str, tag: str, topics: Sequence[str], ids: Sequence[str],
                     scores: np.ndarray, ranks: np.ndarray | None, where: Where, *,
                     order: str = "score", dedup: bool = False, trees: bool = False) -> Run:
    """A :class:`Run` from results held in memory, with the rules of the files.

    The same order (trec_eval's, or RANK with ``order="rank"``), the same
    duplicate rule (an error naming both results, unless ``dedup`` keeps the
    first), the same id normalisation and tree grouping as
    :func:`read_trec_run`.  Without ``ranks`` each result's RANK is its
    position among its topic's results (1, 2, ...); ``order="rank"`` and
    ``trees`` need ranks.

    Parameters
    ----------
    source : str
        How errors name the input (``"runs[1] (DataFrame)"``).
    tag : str
        The run's TAG.
    topics, ids : sequence of str
        TOPIC and ID of each result.
    scores : numpy.ndarray of float64
        SCORE of each result (infinities allowed, NaN not).
    ranks : numpy.ndarray of int64, or None
        RANK of each result.
    where : callable
        ``where(i)`` names result ``i`` in error messages.

    Raises
    ------
    InputError
        A NaN SCORE, a duplicate (TOPIC, ID), no results; naming the result.

    Examples
    --------
    >>> run = run_from_columns("demo", "sys", ["1", "1"], ["a", "c"], np.array([0.5, 0.9]),
    ...                        None, lambda i: f"row {i}")
    >>> run.tag, run.ranked("1")
    ('sys', ['c', 'a'])
    >>> run_from_columns("demo", "sys", ["1", "1"], ["a", "a"], np.array([0.5, 0.2]),
    ...                  None, lambda i: f"row {i}")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    graphprum.errors.InputError: demo: row 1: duplicate result 'a' ... (first at row 0); ...
    """
    check_order(order)
    if not len(ids):
        raise InputError(source, None, "empty run: no results")
    bad = np.flatnonzero(np.isnan(scores))
    if len(bad):
        raise InputError(source, None, f"{where(int(bad[0]))}: expected SCORE a number, "
                                       f"got nan")
    if ranks is None and (order == "rank" or trees):
        raise InputError(source, None, "no RANK: " + ("tree runs need" if trees
                                                      else "order='rank' needs")
                         + " a rank for every result")
    positions: dict[str, list[int]] = {}
    for i, topic in enumerate(topics):
        found = positions.get(topic)
        if found is None:
            found = positions[topic] = []
        found.append(i)
    score_list = scores.tolist()
    rank_list = ranks.tolist() if ranks is not None else None
    lines: dict[str, _Topic] = {}
    for topic, rows in positions.items():
        acc = lines[topic] = _Topic()
        acc.ids = [ids[i] for i in rows]
        acc.scores = [score_list[i] for i in rows]
        acc.ranks = [rank_list[i] for i in rows] if rank_list is not None else \
            list(range(1, len(rows) + 1))
        keys: list[object] = list(zip(acc.ids, acc.ranks, strict=True)) if trees else \
            list(acc.ids)
        if len(set(keys)) < len(keys):
            _in_memory_duplicates(source, topic, rows, keys, acc, where, dedup, trees)
    return _finish(source, tag, lines, order, dedup, trees)


def _in_memory_duplicates(source: str, topic: str, rows: list[int], keys: list[object],
                          acc: _Topic, where: Where, dedup: bool, trees: bool) -> None:
    """Keep the first of repeated results of ``topic`` (``dedup``), or raise the
    duplicate error naming both."""
    first: dict[object, int] = {}
    keep: list[int] = []
    for k, key in enumerate(keys):
        if key not in first:
            first[key] = k
            keep.append(k)
            continue
        if dedup:
            continue
        unit = acc.ids[k]
        what = (f"unit {unit!r} repeated inside the tree of RANK {acc.ranks[k]} of topic "
                f"{topic!r}" if trees else f"duplicate result {unit!r} for topic {topic!r}")
        raise InputError(source, None, f"{where(rows[k])}: {what} (first at "
                                       f"{where(rows[first[key]])})"
                         + ("" if trees else "; use dedup=True to keep the first"))
    acc.ids = [acc.ids[k] for k in keep]
    acc.scores = [acc.scores[k] for k in keep]
    acc.ranks = [acc.ranks[k] for k in keep]


def _parse_careful(path: PathArg, text: str, dedup: bool, trees: bool,
                   extra: list[int]) -> tuple[str | None, dict[str, _Topic]]:
    """Line-by-line parse: raises InputError naming the line, applies ``dedup``.

    Lines with more than 6 fields are read from their first 6; ``extra``
    receives the first such line and their count.
    """
    topics: dict[str, _Topic] = {}
    tag: str | None = None
    tag_line = 0
    for line, fields in iter_lines(text):
        if len(fields) != 6:
            if len(fields) < 6:
                expect_count(path, line, fields, 6, _LAYOUT)
            if not extra:
                extra.extend((line, 0))
            extra[1] += 1
            fields = fields[:6]
        topic, _, unit, rank_text, score_text, line_tag = fields
        if line_tag != tag:
            if tag is not None:
                raise InputError(path, line, f"expected one TAG per file ({tag!r} on line "
                                             f"{tag_line}), got {line_tag!r}")
            tag, tag_line = line_tag, line
        rank = parse_int(path, line, rank_text, "RANK an integer")
        score = parse_float(path, line, score_text, "SCORE a number", allow_inf=True)
        acc = topics.get(topic)
        if acc is None:
            acc = topics[topic] = _Topic()
        key = (unit, rank) if trees else unit
        if key in acc.seen:
            if dedup:
                continue
            _duplicate(path, line, topic, unit, rank if trees else None)
        acc.seen[key] = None
        acc.ids.append(unit)
        acc.scores.append(score)
        acc.ranks.append(rank)
    return tag, topics


def _normalise_ids(path: PathArg, topics: dict[str, _Topic], dedup: bool, trees: bool) -> None:
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


def _build_trees(acc: _Topic) -> tuple[list[list[str]], RankedTopic]:
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


def read_run(path: PathArg, order: str = "score", dedup: bool = False, trees: bool = False,
             doc_prefix: str = "") -> Run:
    """Read a run, TREC text or INEX 2006 XML, told apart by content.

    Parameters
    ----------
    path : str or PathLike
        The run file.
    order : {"score", "rank"}
        TREC runs: trec_eval's order (default) or RANK ascending.  INEX XML
        runs are always ordered by ``rank`` ascending, else ``rsv``
        descending (see :func:`graphprum.io.inex_run.read_inex_run`).
    dedup : bool
        Keep the first of duplicate (TOPIC, ID) lines instead of failing.
    trees : bool
        Read a tree run (TREC layout only).
    doc_prefix : str
        INEX XML runs: directory prepended to each ``<file>`` to form DOC.

    Raises
    ------
    InputError
        Malformed input (see the format readers); UsageError for a bad
        ``order`` or ``trees`` with an XML run.
    """
    check_order(order)
    if is_xml(path):
        if trees:
            raise UsageError(f"{path}: tree runs (--trees) must use the TREC layout, "
                             "not INEX XML")
        from graphprum.io.inex_run import read_inex_run  # lxml, only for XML runs

        return read_inex_run(path, dedup=dedup, doc_prefix=doc_prefix)
    return read_trec_run(path, order=order, dedup=dedup, trees=trees)


def write_run(run: Run | Mapping[str, Sequence[str]], path: PathArg,
              tag: str | None = None) -> None:
    """Write a run in the TREC layout.

    A :class:`Run` is written with its RANK and SCORE as kept (tree runs: one
    line per unit of each tree, RANK the tree's rank), so reading the file
    back gives the same run; a plain mapping topic -> ids (best first) gets
    RANK 1, 2, ... and SCORE n, n-1, ..., 1.  ``tag`` overrides the run's tag
    (default ``"graphprum"`` for mappings).

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "r")
    >>> write_run({"7": ["x", "y"]}, p, tag="t")
    >>> open(p).read()
    '7 Q0 x 1 2 t\\n7 Q0 y 2 1 t\\n'
    >>> read_run(p).ranked("7")
    ['x', 'y']
    """
    lines = run_lines(run, tag)
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(lines)


def run_lines(run: Run | Mapping[str, Sequence[str]], tag: str | None = None) -> list[str]:
    """The lines :func:`write_run` writes (each ending in a newline).

    >>> run_lines({"7": ["x"]}, tag="t")
    ['7 Q0 x 1 1 t\\n']
    """
    lines: list[str] = []
    if isinstance(run, Run):
        name = tag or run.tag
        if run.trees is not None:
            for topic, topic_trees in run.trees.items():
                for rank, tree in enumerate(topic_trees, 1):
                    n = len(topic_trees)
                    lines.extend(f"{topic} Q0 {u} {rank} {n - rank + 1} {name}\n" for u in tree)
        else:
            for topic, ranked in run.topics.items():
                n = len(ranked)
                for i, (unit, rank, score) in enumerate(zip(ranked.ids, ranked.ranks.tolist(),
                                                            ranked.scores.tolist(), strict=True)):
                    value = repr(score) if score == score else str(n - i)  # NaN: no rsv
                    lines.append(f"{topic} Q0 {unit} {rank} {value} {name}\n")
    else:
        name = tag or "graphprum"
        for topic, ids in run.items():
            n = len(ids)
            lines.extend(f"{topic} Q0 {u} {i} {n - i + 1} {name}\n" for i, u in enumerate(ids, 1))
    return lines
