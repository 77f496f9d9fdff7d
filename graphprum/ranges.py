"""A run of units made a range run (``graphprum runs to-ranges``): the bridge
that makes runs of loaded units comparable with runs of passages and clips.

Each result becomes its unit's span (DESIGN §1.2): an element ``DOC#XPATH``
the range ``DOC OFFSET LENGTH`` of its text, a segment ``VIDEO#N`` the clip
``VIDEO START END`` (:mod:`graphprum.io.range_runs`).  A result whose span
repeats one above it (an element and its only child may share their text)
is dropped, with a note: a range run lists a range once.  The results keep
their order, SCORE as given and RANK 1, 2, ...; evaluated by rank
(``--order rank``) the range run ranks them exactly so.  By score, results
with equal scores are ordered by DOC, then OFFSET, where the unit run
ordered them by id: :func:`to_ranges` says in a note how many topics that
changes.

Examples
--------
>>> import pathlib, tempfile
>>> from graphprum.loading import load_xml
>>> from graphprum.store.memory import MemoryStore
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "x.xml").write_text("<a><p>0123456789</p><p>abcdefghij</p></a>")
>>> store = MemoryStore(); _ = load_xml(store, [d / "x.xml"])
>>> run = Run("r", {"1": RankedTopic(["x#/a[1]/p[2]", "x#/a[1]"], np.array([2.0, 1.0]),
...                                   np.array([1, 2]))})
>>> out = to_ranges(run, store)
>>> out.ranges, out.ranked("1"), out.topics["1"].bounds.tolist()
('text', ['x', 'x'], [[10.0, 10.0], [0.0, 20.0]])
"""

from __future__ import annotations

import os

import numpy as np

from graphprum.errors import InputError, UsageError
from graphprum.evaluation.inputs import StoreLike, as_store
from graphprum.io.lines import find_line
from graphprum.io.range_runs import ranges_of_units
from graphprum.io.ranking import RankedTopic, Run, ranked_table
from graphprum.io.runs import read_run
from graphprum.units import KIND_VIDEO

__all__ = ["to_ranges"]


def to_ranges(run: Run | str | os.PathLike[str], store: StoreLike, *, tag: str | None = None,
              order: str = "score", dedup: bool = False) -> Run:
    """The range run of a run of units (module notes).

    Parameters
    ----------
    run : Run, str or PathLike
        The run, or its file (TREC or INEX XML, read in ``order``, with
        ``dedup`` as :func:`graphprum.io.runs.read_run` takes them).
    store : Store, Collection or a store's location
        The collection that holds every result's unit.
    tag : str, optional
        TAG of the range run (default: the run's).

    Raises
    ------
    InputError
        A result the store does not hold (naming its line), a run that
        lists both elements and video segments (a range run has one layout).
    UsageError
        A tree run, or a run that is already a range run.
    """
    read = run if isinstance(run, Run) else read_run(run, order=order, dedup=dedup)
    where = read.path or read.tag
    if read.ranges is not None:
        raise UsageError(f"{where}: already a range run")
    if read.trees is not None:
        raise UsageError(f"{where}: a tree run (--trees) ranks sets of units, not ranges")
    found = as_store(store)
    if found is None:
        raise UsageError("turning units into ranges needs the store of their collection")
    ids = [u for ranked in read.topics.values() for u in ranked.ids]
    view = found.view(ids)
    rows = view.resolve(ids)
    lost = np.flatnonzero(rows < 0)
    if len(lost):
        unit = ids[int(lost[0])]
        line = find_line(read.path, lambda f: len(f) >= 3 and f[2] == unit) \
            if read.path and os.path.isfile(read.path) else 0
        raise InputError(where, line or None, f"{unit!r} is not in the store {found.location}: "
                                              f"its span is unknown ({len(lost)} such result(s))")
    table = view.table
    doc = np.asarray(table.columns["doc"])[rows]
    video = np.asarray(table.docs["kind"])[doc] == KIND_VIDEO
    if len(video) and video.any() != video.all():
        k = int(np.flatnonzero(video != video[0])[0])
        raise InputError(where, None, f"{ids[k]!r} and {ids[0]!r}: a run of elements and video "
                                      f"segments makes no range run (one has one layout)")
    start = np.asarray(table.columns["start"], dtype=np.float64)[rows]
    end = start + np.asarray(table.columns["length"], dtype=np.float64)[rows]
    names = table.docs["name"]
    out = ranges_of_units(read, [names[d] for d in doc.tolist()], start, end,
                          bool(len(video) and video[0]))
    out.tag = tag or read.tag
    out.path = read.path
    repeated = _drop_repeats(out)
    if repeated:
        out.notes.append(f"note: run {out.tag}: {repeated} result(s) whose span repeats one "
                         f"above it (an element and its only child share their text, say) "
                         f"dropped: a range run lists a range once")
    moved = _reordered_by_score(out)
    if moved:
        out.notes.append(f"note: run {out.tag}: in {moved} topic(s) results with equal scores "
                         f"read back by score in another order (DOC, then OFFSET, where the "
                         f"unit run broke ties by id); evaluate the range run with --order rank "
                         f"to keep this order")
    return out


def _drop_repeats(run: Run) -> int:
    """Drop from a range run the results whose range a result above it has
    (RANK renumbered); how many."""
    dropped = 0
    topics = dict(run.topics)
    for topic, ranked in topics.items():
        assert ranked.bounds is not None
        seen: set[tuple[str, float, float]] = set()
        keep = []
        for i, (doc, (a, b)) in enumerate(zip(ranked.ids, ranked.bounds.tolist(), strict=True)):
            if (doc, a, b) not in seen:
                seen.add((doc, a, b))
                keep.append(i)
        if len(keep) < len(ranked):
            dropped += len(ranked) - len(keep)
            topics[topic] = RankedTopic([ranked.ids[i] for i in keep], ranked.scores[keep],
                                        np.arange(1, len(keep) + 1, dtype=np.int64),
                                        ranked.bounds[keep])
    run.topics = topics
    return dropped


def _reordered_by_score(run: Run) -> int:
    """Topics of a range run whose results are not in the order a reader by
    score puts them (RANK is their order)."""
    topics = list(run.topics)
    parts: list[RankedTopic] = [run.topics[t] for t in topics]
    if not parts:
        return 0
    sizes = [len(p) for p in parts]
    ids = [u for p in parts for u in p.ids]
    bounds = np.concatenate([p.bounds for p in parts if p.bounds is not None])
    ranks = np.concatenate([p.ranks for p in parts])
    table = ranked_table(topics, np.repeat(np.arange(len(topics), dtype=np.int32), sizes), ids,
                         np.concatenate([p.scores for p in parts]), ranks, "score", bounds)
    return sum(1 for t in topics if not np.array_equal(table[t].ranks, run.topics[t].ranks))
