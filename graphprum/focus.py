"""Focused runs: a run with its overlapping results removed, and a run
checked against the rules of an INEX task.

INEX's focused task asks for a ranking "without returning overlapping
elements" (INEX 2006 §5): no result may contain another.  Systems that
rank every element (a thorough run) made focused runs by walking their
ranking top-down and dropping each element that overlaps one already kept
(an ancestor or a descendant of it): the higher-ranked result stays.
:func:`focus_run` does exactly that.  Overlap is the store's containment
(the ancestor/descendant relation of its units, read through the
:class:`~graphprum.store.base.Store` contract), so it holds for every kind
of unit and every backend; a result the store does not hold is an error,
since its overlap cannot be known.

:func:`check_run` lists what in a run breaks a task's rules (overlap for
``focused``; overlap and results of one article grouped together for
``ric``; one result per article for ``bic``), topic by topic: the check
``graphprum eval --task`` makes
(:func:`graphprum.measures.inex.task_violations`).  A focused run passes
the ``focused`` check.

Examples
--------
>>> from graphprum.io.runs import Run, ranked_topic
>>> from graphprum.loading import load_xml
>>> from graphprum.store.memory import MemoryStore
>>> import pathlib, tempfile
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "x.xml").write_text("<a><s><p>one</p><p>two</p></s><s/></a>")
>>> store = MemoryStore(); _ = load_xml(store, [d / "x.xml"])
>>> ids = ["x#/a[1]/s[1]", "x#/a[1]/s[1]/p[2]", "x#/a[1]/s[2]", "x#/a[1]"]
>>> run = Run("sys", {"1": ranked_topic(ids, [4.0, 3.0, 2.0, 1.0], [1, 2, 3, 4], None)})
>>> for v in check_run(run, "focused"):
...     print(v)
topic 1: x#/a[1] (rank 4) contains x#/a[1]/s[1] (rank 1)
topic 1: x#/a[1] (rank 4) contains x#/a[1]/s[1]/p[2] (rank 2)
topic 1: x#/a[1]/s[1] (rank 1) contains x#/a[1]/s[1]/p[2] (rank 2)
topic 1: x#/a[1] (rank 4) contains x#/a[1]/s[2] (rank 3)
>>> focused = focus_run(run, store)
>>> focused.run.ranked("1"), focused.run.topics["1"].ranks.tolist()
(['x#/a[1]/s[1]', 'x#/a[1]/s[2]'], [1, 2])
>>> for r in focused.removed:
...     print(r)
topic 1: x#/a[1]/s[1]/p[2] (rank 2) overlaps x#/a[1]/s[1] (rank 1)
topic 1: x#/a[1] (rank 4) overlaps x#/a[1]/s[1] (rank 1)
>>> check_run(focused.run, "focused")
[]
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from graphprum.errors import InputError, UsageError
from graphprum.evaluation.inputs import RunLike, StoreLike, as_store
from graphprum.io.objects import is_frame, run_from_object
from graphprum.io.ranking import RankedTopic, Run
from graphprum.io.runs import read_run
from graphprum.measures.inex import task_violations

if TYPE_CHECKING:
    from graphprum.store.base import Store

__all__ = ["Focused", "Removal", "Violation", "check_run", "focus_run"]

#: A run given as a file, already read, or in memory (as evaluate takes one).
RunArg = RunLike


class Removal(NamedTuple):
    """A result :func:`focus_run` dropped: ``unit`` at ``rank`` (1-based, in
    the run's order) overlaps ``kept``, ranked higher at ``kept_rank``."""

    topic: str
    unit: str
    rank: int
    kept: str
    kept_rank: int

    def __str__(self) -> str:
        return (f"topic {self.topic}: {self.unit} (rank {self.rank}) overlaps {self.kept} "
                f"(rank {self.kept_rank})")


class Focused(NamedTuple):
    """What :func:`focus_run` returns: the focused ``run`` and the results
    it ``removed``, topic by topic in rank order."""

    run: Run
    removed: list[Removal]

    def __repr__(self) -> str:
        kept = sum(len(t) for t in self.run.topics.values())
        return (f"Focused(run={self.run.tag!r}: {kept} results in {len(self.run.topics)} "
                f"topics, removed {len(self.removed)})")


class Violation(NamedTuple):
    """One result of ``topic`` that breaks a task's rule, in words."""

    topic: str
    message: str

    def __str__(self) -> str:
        return f"topic {self.topic}: {self.message}"


def _read(run: RunArg, order: str, dedup: bool) -> Run:
    if isinstance(run, Run):
        return run
    if isinstance(run, str | os.PathLike):
        return read_run(run, order=order, dedup=dedup)
    if isinstance(run, bytes) or not (is_frame(run) or isinstance(run, Mapping | Iterable)):
        raise UsageError(f"a run is a file path, a graphprum Run, a DataFrame (query_id, "
                         f"doc_id, score), a dict {{topic: {{id: score}}}} or ScoredDoc "
                         f"tuples; got {type(run).__name__}")
    found = run_from_object(run, "run", "run", order=order, dedup=dedup)
    if len(found) != 1:
        raise UsageError(f"the run holds {len(found)} runs (tags "
                         f"{', '.join(r.tag for r in found[:5])}); give one")
    return found[0]


def _store(store: StoreLike) -> Store:
    found = as_store(store)
    if found is None:
        raise UsageError("focusing a run needs the store of its collection (overlap is "
                         "read from it)")
    return found


def check_run(run: RunArg, task: str, *, order: str = "score",
              dedup: bool = False) -> list[Violation]:
    """What in ``run`` breaks the rules of INEX 2006 ``task``.

    Parameters
    ----------
    run : Run, str, PathLike, DataFrame, dict or ScoredDoc tuples
        The run, its file (TREC or INEX XML, read in ``order``, with
        ``dedup`` as :func:`graphprum.io.runs.read_run` takes them), or
        one run in memory as :func:`graphprum.evaluate` takes it.
    task : {"thorough", "focused", "ric", "bic"}
        The task (``relevant-in-context`` and ``best-in-context`` too);
        thorough sets no rule.

    Returns
    -------
    list of Violation
        One per violation, topic by topic in the run's order: the messages
        of :func:`graphprum.measures.inex.task_violations` (overlap is read
        from the ids, ``DOC#XPATH`` prefixes, as ``eval --task`` reads it).
    """
    read = _read(run, order, dedup)
    return [Violation(topic, message) for topic in read.topics
            for message in task_violations(task, read.ranked(topic))]


def focus_run(run: RunArg, store: StoreLike, *, tag: str | None = None, order: str = "score",
              dedup: bool = False) -> Focused:
    """``run`` without overlap: each topic's results top-down, a result
    dropped when it contains or is contained in one kept above it.

    Parameters
    ----------
    run : Run, str, PathLike, DataFrame, dict or ScoredDoc tuples
        The run, its file (read in ``order``, with ``dedup``), or one run
        in memory as :func:`graphprum.evaluate` takes it.
    store : Store, Collection or a store's location
        The collection the run was made for: overlap is its containment.
    tag : str, optional
        TAG of the focused run (default: the run's).

    Returns
    -------
    Focused
        ``run``: the kept results in the same order, SCORE as given and RANK
        renumbered 1, 2, ... (so the run reads back in the same order by
        score or by rank); ``removed``: every dropped result with the kept
        one it overlaps.

    Raises
    ------
    InputError
        When the store does not hold some of the run's ids.
    """
    read = _read(run, order, dedup)
    if read.trees is not None:
        raise UsageError(f"{read.path or read.tag}: a tree run (--trees) has no overlap to "
                         "remove: each tree is a set of units")
    found = _store(store)
    topics: dict[str, RankedTopic] = {}
    removed: list[Removal] = []
    for topic, ranked in read.topics.items():
        keep = _kept(topic, ranked.ids, found, read, removed)
        topics[topic] = RankedTopic([ranked.ids[i] for i in keep], ranked.scores[keep],
                                    np.arange(1, len(keep) + 1, dtype=np.int64))
    return Focused(Run(tag or read.tag, topics, path=read.path), removed)


def _kept(topic: str, ids: list[str], store: Store, run: Run,
          removed: list[Removal]) -> list[int]:
    """Positions of ``ids`` kept (a result overlapping none kept above it);
    the others appended to ``removed``."""
    view = store.view(ids)
    rows = view.resolve(ids).tolist()
    unknown = [u for u, r in zip(ids, rows, strict=True) if r < 0]
    if unknown:
        raise InputError(run.path or run.tag, None,
                         f"topic {topic}: {len(unknown)} result id(s) of run {run.tag} are not "
                         f"in the store {store.location} (e.g. "
                         f"{', '.join(map(repr, unknown[:3]))}), so their overlap is unknown: "
                         f"load the collection the run was made for")
    parent = view.table.columns["parent"]
    kept_at: dict[int, int] = {}  # row of a kept result -> its position
    under: dict[int, int] = {}  # row of an ancestor (or self) of a kept result -> that position
    keep: list[int] = []
    for i, row in enumerate(rows):
        line = [row]
        while parent[line[-1]] >= 0:
            line.append(int(parent[line[-1]]))
        above = next((kept_at[a] for a in line if a in kept_at), None)  # it is inside a kept one
        if above is None:
            above = under.get(row)  # it contains a kept one
        if above is not None:
            removed.append(Removal(topic, ids[i], i + 1, ids[above], above + 1))
            continue
        keep.append(i)
        kept_at[row] = i
        for a in line:
            under.setdefault(a, i)
    return keep
