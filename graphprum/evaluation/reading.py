"""Reading the run files of an evaluation, in a worker while the caller goes on.

A big run takes a while to read (about 1 s per million lines), and an
evaluation has other work before it needs the run: importing what its
measures and navigation models need (numpy, scipy, pytrec_eval), reading
the qrels, mapping the store's columns.  :func:`start_reading` forks
workers that read the files (:mod:`graphprum.pool`) and returns
at once; :meth:`RunReading.result` collects the runs when they are needed.
A big TREC run file with more workers than files is read in slices, one per
worker, joined in the parent (:func:`graphprum.io.runs.merge_run_slices`).
``graphprum eval`` starts reading first thing, before numpy and the
evaluation's own modules are imported: this module imports nothing heavy,
and TREC text is read by :mod:`graphprum.io.trec_slices`, which needs no
numpy (the workers would each import it, 40 ms).  A file that needs
more (INEX XML, gzip, ``--trees``, ``--dedup``) is read whole, after numpy
is imported here.

:func:`reading_jobs` decides how many processes read: see there.

Examples
--------
>>> import os, tempfile
>>> from graphprum.evaluation.options import EvalOptions
>>> path = os.path.join(tempfile.mkdtemp(), "run")
>>> _ = open(path, "w").write("1 Q0 a 1 0.5 sys\\n1 Q0 b 2 0.9 sys\\n")
>>> with start_reading([(None, path)], EvalOptions(), jobs=2) as reading:
...     runs = reading.result()
>>> runs[0].tag, runs[0].ranked("1")
('sys', ['b', 'a'])
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeGuard

from graphprum.errors import GraphprumError, UsageError
from graphprum.evaluation.options import AUTO, EvalOptions
from graphprum.pool import Forked, can_fork, cpu_count, fork_start

if TYPE_CHECKING:
    from graphprum.io.runs import Run
    from graphprum.io.trec_slices import SliceRun

#: What one worker reads: (file's index, file, byte range or None for all of it).
_Piece = tuple[int, "str | os.PathLike[str]", "tuple[int, int] | None"]

__all__ = ["AUTO_MIN_RUN_BYTES", "BACKGROUND_RUN_BYTES", "SLICE_BYTES", "RunReading", "check_stdin",
           "reading_jobs", "start_reading"]

#: ``jobs="auto"`` reads several run files in workers when they hold this
#: many bytes together (about 0.15 s of reading on one core): a run read in a
#: worker comes back pickled, which costs about a tenth of reading it.
AUTO_MIN_RUN_BYTES = 8 << 20

#: Run files holding this many bytes together are read in a worker while the
#: caller prepares the evaluation (imports, qrels, the store's columns): about
#: 20 ms of reading, against a fork and the run sent back pickled.
BACKGROUND_RUN_BYTES = 1 << 20

#: A run file is read in slices by several workers when each slice holds at
#: least this many bytes (about 10 ms of reading).
SLICE_BYTES = 1 << 18


def is_path(obj: object) -> TypeGuard[str | os.PathLike[str]]:
    """Whether ``obj`` names a file (a ``str`` or ``PathLike``), not a run in memory."""
    return isinstance(obj, str | os.PathLike)


def runs_expected(obj: object) -> str:
    """The error message for ``obj`` given as runs."""
    return (f"runs are a file path, a DataFrame (query_id, doc_id, score), a dict "
            f"{{topic: {{id: score}}}}, ScoredDoc tuples, or a list (or a dict by name) of "
            f"these; got {type(obj).__name__}")


def check_stdin(paths: Iterable[object]) -> None:
    """UsageError when more than one input is standard input (``-``)."""
    if [str(p) for p in paths if is_path(p)].count("-") > 1:
        raise UsageError("only one input can be read from standard input (-)")


def reading_jobs(jobs: int | str, items: Sequence[tuple[str | None, object]],
                 overlap: bool = True) -> int:
    """How many processes read the run files of ``items`` (1: the caller, when needed).

    Several run files with an explicit ``jobs`` > 1 are read in workers, and
    with ``auto`` when they hold :data:`AUTO_MIN_RUN_BYTES`.  With ``overlap``
    (the caller has work of its own meanwhile: imports, a store) files
    holding :data:`BACKGROUND_RUN_BYTES` are read in a worker.

    >>> reading_jobs(1, [(None, "run.txt")])
    1
    """
    paths = [run for _, run in items if is_path(run)]
    most = cpu_count() if jobs == AUTO else int(jobs)
    if not paths or most <= 1:
        return 1
    if len(paths) >= 2 and jobs != AUTO:
        return most
    size = 0
    for path in paths:
        # standard input, or a file read_run will report, counts nothing
        with contextlib.suppress(OSError, ValueError):
            size += os.stat(path).st_size
    if len(paths) >= 2 and size >= AUTO_MIN_RUN_BYTES:
        return most
    return most if overlap and size >= BACKGROUND_RUN_BYTES else 1


class RunReading:
    """The runs of ``items`` being read (:func:`start_reading`).

    :meth:`result` gives them, waiting for the workers that read files;
    leaving a ``with`` block without it ends those workers.
    """

    def __init__(self, items: Sequence[tuple[str | None, object]], options: EvalOptions,
                 jobs: int) -> None:
        from graphprum.io.lines import is_stream, read_bytes

        if not items:
            raise UsageError("no run given")
        self._items = items
        self._options = options
        self._paths = [r for _, r in items if is_path(r)]
        check_stdin(self._paths)
        for path in self._paths:  # read once, before any worker is forked
            if is_stream(path):
                read_bytes(path)
        self._forked: Forked[SliceRun | Run | GraphprumError | None] | None = None
        self._pieces: list[_Piece] = []
        if jobs > 1 and self._paths and can_fork():
            self._pieces = self._split(jobs)
            if any(where is None for _, _, where in self._pieces):
                # a file read whole needs numpy: imported once, here, not in every worker
                import graphprum.io.runs  # noqa: F401
            self._forked = fork_start(self._read_piece, self._pieces, jobs)

    @property
    def paths(self) -> list[str | os.PathLike[str]]:
        """The run files (``-``: standard input), in the order of the items."""
        return list(self._paths)

    def _split(self, jobs: int) -> list[_Piece]:
        """What each worker reads: a TREC run file of well-formed lines as one
        or more byte slices (several when there are fewer files than
        workers), any other file whole.  Only cheap tests here, before the
        fork: a file that cannot be read, gzip or standard input is read
        whole in a worker, whose error :meth:`result` raises."""
        from graphprum.io.trec_slices import is_xml, trec_run_slices

        opts = self._options
        parts = -(-jobs // len(self._paths))  # workers per file
        pieces: list[_Piece] = []
        for k, path in enumerate(self._paths):
            slices = None
            if not opts.trees and not opts.dedup:
                with contextlib.suppress(OSError, ValueError, GraphprumError):
                    size = os.stat(path).st_size
                    slices = trec_run_slices(path, max(1, min(parts, size // SLICE_BYTES)))
                    if slices is not None and is_xml(path):  # (a plain file: 64 bytes read)
                        slices = None
            if not slices:
                pieces.append((k, path, None))
            else:
                pieces.extend((k, path, piece) for piece in slices)
        return pieces

    def _read_piece(self, piece: _Piece) -> SliceRun | Run | GraphprumError | None:
        """A whole file's run, or a slice's (None: it needs the careful
        reading, in the parent, which joins the slices).  A file read as one
        slice that needs it is read carefully here (numpy imported then).
        A user's error is returned, not raised: :meth:`_files` raises the
        first file's, as one process reading the files in order would."""
        k, path, where = piece
        try:
            if where is None:
                return self._read(path)
            from graphprum.io.trec_slices import read_slice

            got = read_slice(path, where[0], where[1], self._options.order)
            if got is None and sum(i == k for i, _, _ in self._pieces) == 1:
                return self._read(path)  # the file's only piece: its error names the line
            return got
        except GraphprumError as exc:
            return exc

    def _read(self, path: str | os.PathLike[str]) -> Run:
        from graphprum.io.runs import read_run

        opts = self._options
        return read_run(path, order=opts.order, dedup=opts.dedup, trees=opts.trees)

    def _files(self) -> list[Run]:
        """The runs of the files, from the workers' pieces: slices joined; a
        file whose slices need the careful reading read again here (which
        names the line at fault)."""
        if self._forked is None:
            return [self._read(path) for path in self._paths]
        from graphprum.io.runs import Run, merge_run_slices, run_of_slice

        got = self._forked.wait()
        out: list[Run] = []
        for k, path in enumerate(self._paths):  # in order: the first file's error first
            mine = [r for (i, _, _), r in zip(self._pieces, got, strict=True) if i == k]
            parts: list[Run | None] = []
            for r in mine:
                if isinstance(r, GraphprumError):
                    raise r
                parts.append(r if isinstance(r, Run) or r is None else run_of_slice(path, r))
            run = parts[0] if len(parts) == 1 else \
                merge_run_slices(path, parts, self._options.order)
            out.append(run if run is not None else self._read(path))
        return out

    def result(self) -> list[Run]:
        """Every run, in the order of the items."""
        files = self._files()
        from graphprum.io.objects import is_frame, run_from_object
        from graphprum.io.runs import Run

        read_files = iter(files)
        options = self._options
        out: list[Run] = []
        for i, (name, item) in enumerate(self._items):
            if is_path(item):
                found = [next(read_files)]
            elif isinstance(item, Run):
                found = [item]
            elif is_frame(item) or isinstance(item, Mapping) or (
                    isinstance(item, Iterable) and not isinstance(item, bytes)):
                kind = "DataFrame" if is_frame(item) else type(item).__name__
                source = f"run {name!r}" if name is not None else f"runs[{i}] ({kind})"
                found = run_from_object(item, source, name or f"run{i + 1}",
                                        order=options.order, dedup=options.dedup,
                                        trees=options.trees)
                if name is not None:
                    found = [r if len(found) == 1 else
                             dataclasses.replace(r, tag=f"{name}/{r.tag}") for r in found]
                out.extend(found)
                continue
            else:
                raise UsageError(runs_expected(item))
            out.extend(r if name is None else dataclasses.replace(r, tag=name) for r in found)
        return out

    def cancel(self) -> None:
        """Stop reading: end the workers."""
        if self._forked is not None:
            self._forked.cancel()

    def __enter__(self) -> RunReading:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()


def start_reading(items: Sequence[tuple[str | None, object]], options: EvalOptions,
                  jobs: int = 1) -> RunReading:
    """Start reading the runs of ``items`` ((name or None, run) pairs, as
    :func:`graphprum.evaluation.inputs.run_items` gives them).

    With ``jobs`` > 1 the run files are read in that many forked workers (at
    most one per file) while the caller goes on with other work;
    :meth:`RunReading.result` collects them.  With one job every run is read
    when the result is asked for.  Errors in a file are raised by
    :meth:`~RunReading.result`, as they would be by reading it there.
    """
    return RunReading(items, options, jobs)
