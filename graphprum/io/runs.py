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

Reading: one fast pass reads the file into columns with pyarrow's CSV
reader, a block at a time (:mod:`graphprum.io.run_columns`); it takes files
whose lines hold six fields split by single spaces (or single tabs), comment
lines aside, and refuses anything else (tree runs too).  A refused file is
read by the careful pass, line by line, which names the line of any problem
(:mod:`graphprum.io.run_careful`).  Both give the same run.

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

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from graphprum.errors import InputError, UsageError
from graphprum.io.inex_run import read_inex_run
from graphprum.io.lines import PathArg, sniff
from graphprum.io.range_runs import field_text, range_lines
from graphprum.io.ranking import (
    ORDERS,
    RANGE_LAYOUTS,
    RankedTopic,
    Run,
    TopicTable,
    check_order,
    ranked_topic,
)
from graphprum.io.run_careful import TopicLines, finish_run, read_careful
from graphprum.io.run_columns import read_columns, read_fast_run

__all__ = [
    "ORDERS",
    "RankedTopic",
    "Run",
    "TopicTable",
    "Where",
    "check_order",
    "is_xml",
    "ranked_topic",
    "read_columns",
    "read_run",
    "read_trec_run",
    "run_from_columns",
    "run_lines",
    "write_run",
]


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
    if not trees:
        fast = read_fast_run(path, order, dedup)
        if fast is not None:
            return fast
    return read_careful(path, order, dedup, trees)


#: Names a result of an in-memory run in error messages, by its position
#: (``lambda i: f"index {labels[i]!r}"``).
Where = Callable[[int], str]


def run_from_columns(source: str, tag: str, topics: Sequence[str], ids: Sequence[str],
                     scores: np.ndarray, ranks: np.ndarray | None, where: Where, *,
                     order: str = "score", dedup: bool = False, trees: bool = False,
                     bounds: np.ndarray | None = None, ranges: str | None = None) -> Run:
    """A :class:`Run` from results held in memory, with the rules of the files.

    The same order (trec_eval's, or RANK with ``order="rank"``), the same
    duplicate rule (an error naming both results, unless ``dedup`` keeps the
    first), the same id normalisation and tree grouping as
    :func:`read_trec_run`.  Without ``ranks`` each result's RANK is its
    position among its topic's results (1, 2, ...); ``order="rank"`` and
    ``trees`` need ranks.  A range run has ``bounds``, the two range fields
    of each result (``(n, 2)``), and their layout ``ranges``
    (:attr:`Run.ranges`); its ids are documents.

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
    if bounds is not None:
        _check_bounds(source, bounds, ranges, where)
        if trees:
            raise UsageError(f"{source}: tree runs use the TREC layout, not ranges")
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
    lines: dict[str, TopicLines] = {}
    for topic, rows in positions.items():
        acc = lines[topic] = TopicLines()
        acc.ids = [ids[i] for i in rows]
        acc.scores = [score_list[i] for i in rows]
        acc.ranks = [rank_list[i] for i in rows] if rank_list is not None else \
            list(range(1, len(rows) + 1))
        if bounds is not None:
            acc.bounds = [(float(a), float(b)) for a, b in bounds[rows].tolist()]
        keys: list[object] = list(zip(acc.ids, acc.ranks, strict=True)) if trees else \
            list(zip(acc.ids, acc.bounds, strict=True)) if bounds is not None else list(acc.ids)
        if len(set(keys)) < len(keys):
            _in_memory_duplicates(source, topic, rows, keys, acc, where, dedup, trees)
    run = finish_run(source, tag, lines, order, dedup, trees)
    if bounds is not None:
        run.ranges = ranges
    return run


def _check_bounds(source: str, bounds: np.ndarray, ranges: str | None, where: Where) -> None:
    """InputError naming the first result whose range fields break the
    rules of the files (:func:`graphprum.io.range_runs.range_fields`)."""
    if ranges not in RANGE_LAYOUTS:
        raise UsageError(f"{source}: range layout {ranges!r}; expected one of "
                         f"{', '.join(RANGE_LAYOUTS)}")
    finite = np.isfinite(bounds).all(axis=1) & (bounds >= 0).all(axis=1)
    rules = [(~finite, "a range needs finite numbers >= 0")]
    if ranges == "time":
        rules.append((bounds[:, 1] < bounds[:, 0], "END before START"))
    if ranges == "text":
        rules.append(((bounds != np.floor(bounds)).any(axis=1),
                      "OFFSET and LENGTH count characters: integers"))
    for bad, what in rules:
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            a, b = bounds[k].tolist()
            raise InputError(source, None, f"{where(k)}: {what}, got {a:g} {b:g}")


def _in_memory_duplicates(source: str, topic: str, rows: list[int], keys: list[object],
                          acc: TopicLines, where: Where, dedup: bool, trees: bool) -> None:
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
                f"{topic!r}" if trees else f"duplicate range {field_text(acc.bounds[k][0])} "
                f"{field_text(acc.bounds[k][1])} of {unit!r} for topic {topic!r}" if acc.bounds
                else f"duplicate result {unit!r} for topic {topic!r}")
        raise InputError(source, None, f"{where(rows[k])}: {what} (first at "
                                       f"{where(rows[first[key]])})"
                         + ("" if trees else "; use dedup=True to keep the first"))
    acc.ids = [acc.ids[k] for k in keep]
    acc.scores = [acc.scores[k] for k in keep]
    acc.ranks = [acc.ranks[k] for k in keep]
    if acc.bounds:
        acc.bounds = [acc.bounds[k] for k in keep]



def is_xml(path: PathArg) -> bool:
    """Whether the file's first non-blank character is ``<`` (an INEX XML run)."""
    return sniff(path, 64).startswith(b"<")


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
        return read_inex_run(path, dedup=dedup, doc_prefix=doc_prefix)
    return read_trec_run(path, order=order, dedup=dedup, trees=trees)


def write_run(run: Run | Mapping[str, Sequence[str]], path: PathArg,
              tag: str | None = None) -> None:
    """Write a run in the TREC layout (a range run in its own, eight fields).

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
    if isinstance(run, Run) and run.ranges is not None:
        return list(range_lines(run, tag))
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
