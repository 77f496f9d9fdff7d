"""What :func:`graphprum.evaluate` accepts, turned into the typed core's inputs.

Runs (:data:`RunsLike`): one run or several, each a file path (TREC or
INEX XML), a :class:`~graphprum.io.runs.Run`, or an in-memory run of
:mod:`graphprum.io.objects` (DataFrame, ``{topic: {id: score}}``, ScoredDoc
tuples).  A single path (``str`` or ``PathLike``) is one run, never a
sequence of characters; a list or tuple holds several runs; a mapping of
names to runs names them (the name becomes the TAG).  An in-memory run
without a name is called ``run1``, ``run2``, ... by its position.

Qrels (:data:`QrelsLike`): a file path, a :class:`~graphprum.io.qrels.Qrels`,
or in-memory qrels (DataFrame, ``{topic: {id: rel}}``, Qrel tuples).

Measures (:data:`MeasuresLike`): one or several graphprum names (DESIGN
§1.6: ``"PRUM@0.5"``, ``"map"``, ``"nDCG@10"``) or ir_measures measure
objects (``ir_measures.AP``, ``ir_measures.nDCG@10``), which are taken by
their names.

Anything else is a :class:`~graphprum.errors.UsageError` of one line.

Examples
--------
>>> measure_names("AP"), measure_names(["PRUM", "P@10"])
(['AP'], ['PRUM', 'P@10'])
>>> import ir_measures
>>> measure_names([ir_measures.AP, ir_measures.nDCG@10])
['AP', 'nDCG@10']
>>> [name for name, _ in run_items("run.txt")]
[None]
>>> [name for name, _ in run_items({"bm25": "a.txt", "sections": "b.txt"})]
['bm25', 'sections']
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, TypeAlias, TypeGuard, runtime_checkable

from graphprum.assessments import TopicAssessment, doc_line, read_assessments
from graphprum.errors import InputError, UsageError
from graphprum.evaluation.options import AUTO, EvalOptions
from graphprum.io.lines import is_stream, read_bytes
from graphprum.io.objects import (
    QrelLike,
    ScoredDocLike,
    is_frame,
    is_nested_mapping,
    qrels_from_object,
    run_from_object,
)
from graphprum.io.qrels import Qrels, read_qrels
from graphprum.io.runs import Run, read_run
from graphprum.measures.registry import MeasureSpec
from graphprum.store import open_store
from graphprum.store.base import Store
from graphprum.workers import cpu_count, ordered_map

if TYPE_CHECKING:
    import pandas as pd

PathLike: TypeAlias = "str | os.PathLike[str]"
#: One run (module notes).
RunLike: TypeAlias = ("str | os.PathLike[str] | Run | pd.DataFrame"
                      " | Mapping[str, Mapping[str, float]] | Iterable[ScoredDocLike]")
#: One run, several, or several by name (module notes).
RunsLike: TypeAlias = "RunLike | Sequence[RunLike] | Mapping[str, RunLike]"
#: Qrels (module notes).
QrelsLike: TypeAlias = ("str | os.PathLike[str] | Qrels | pd.DataFrame"
                        " | Mapping[str, Mapping[str, float]] | Iterable[QrelLike]")
#: Passage assessments: a file, or already read (topic -> TopicAssessment).
PassagesLike: TypeAlias = "str | os.PathLike[str] | Mapping[str, TopicAssessment]"
Warn = Callable[[str], None]


@runtime_checkable
class MeasureObject(Protocol):
    """An ir_measures measure (``ir_measures.AP``, ``ir_measures.nDCG@10``):
    its ``str`` is its name."""

    NAME: str
    SUPPORTED_PARAMS: Mapping[str, object]


#: A measure: a name, a parsed name, or an ir_measures measure.
MeasureLike: TypeAlias = "str | MeasureSpec | MeasureObject"
#: One measure or several.
MeasuresLike: TypeAlias = "MeasureLike | Iterable[MeasureLike]"


class HasStore(Protocol):
    """Something that holds a store (a :class:`graphprum.collection.Collection`)."""

    @property
    def store(self) -> Store: ...


#: A store, its location, or a collection holding one.
StoreLike: TypeAlias = "Store | str | os.PathLike[str] | HasStore"


def _measure_name(m: object) -> str:
    if isinstance(m, str):
        return m
    if isinstance(m, MeasureSpec | MeasureObject):
        return str(m)
    raise UsageError(f"measures are names such as 'PRUM@0.5' or 'map', or ir_measures "
                     f"measures such as ir_measures.AP; got {type(m).__name__} {m!r}")


def measure_names(measures: MeasuresLike) -> list[str]:
    """The names of ``measures`` (one or several; module notes)."""
    if isinstance(measures, str | MeasureSpec | MeasureObject):
        return [_measure_name(measures)]
    if not isinstance(measures, Iterable) or is_frame(measures) \
            or isinstance(measures, Mapping | bytes):
        raise UsageError(f"measures are a name, an ir_measures measure, or a list of them; "
                         f"got {type(measures).__name__}")
    return [_measure_name(m) for m in measures]


def run_items(runs: RunsLike) -> list[tuple[str | None, object]]:
    """``runs`` as (name or None, one run) pairs, in order (module notes)."""
    if is_path(runs) or isinstance(runs, Run) or is_frame(runs):
        return [(None, runs)]
    if isinstance(runs, Mapping):
        if is_nested_mapping(runs):
            return [(None, runs)]  # one pytrec_eval-style run
        return [(str(name), run) for name, run in runs.items()]
    if isinstance(runs, bytes) or not isinstance(runs, Iterable):
        raise UsageError(runs_expected(runs))
    items = list(runs)
    if items and hasattr(items[0], "query_id") and not is_frame(items[0]):
        return [(None, items)]  # one run of ScoredDoc tuples (a DataFrame's columns
        # are attributes too: a list of DataFrames is several runs)
    return [(None, r) for r in items]


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


#: ``jobs="auto"`` reads several run files in one process per CPU when they
#: hold this many bytes together (about 0.3 s of reading in one process).
AUTO_RUN_BYTES = 8 << 20


def reading_jobs(jobs: int | str, paths: Sequence[str | os.PathLike[str]]) -> int:
    """How many processes read the run files ``paths``: one for a single file;
    ``jobs`` for several, with ``auto`` one per CPU once they hold
    :data:`AUTO_RUN_BYTES`.

    >>> reading_jobs(4, ["run.txt"]), reading_jobs(4, ["a.txt", "b.txt"])
    (1, 4)
    """
    if len(paths) < 2:
        return 1
    if jobs != AUTO:
        return int(jobs)
    size = 0
    for path in paths:
        with contextlib.suppress(OSError, ValueError):  # read_run reports these
            size += os.stat(path).st_size
    return cpu_count() if size >= AUTO_RUN_BYTES else 1


def _read_file(options: EvalOptions, path: str | os.PathLike[str]) -> Run:
    return read_run(path, order=options.order, dedup=options.dedup, trees=options.trees)


def read_run_items(items: Sequence[tuple[str | None, object]], options: EvalOptions
                   ) -> list[Run]:
    """Every run of ``items`` (:func:`run_items`), in order: files read in
    :func:`reading_jobs` processes (the first file's error is raised, as one
    process reading them in order would), in-memory runs by
    :func:`graphprum.io.objects.run_from_object`, named by their keys."""
    paths = [run for _, run in items if is_path(run)]
    check_stdin(paths)
    for path in paths:  # a stream read once, here, before any worker is forked
        if is_stream(path):
            read_bytes(path)
    files = iter(ordered_map(_read_file, options, paths, reading_jobs(options.jobs, paths)))
    out: list[Run] = []
    for i, (name, item) in enumerate(items):
        if is_path(item):
            found = [next(files)]
        elif isinstance(item, Run):
            found = [item]
        elif is_frame(item) or isinstance(item, Mapping) or (
                isinstance(item, Iterable) and not isinstance(item, bytes)):
            kind = "DataFrame" if is_frame(item) else type(item).__name__
            source = f"run {name!r}" if name is not None else f"runs[{i}] ({kind})"
            found = run_from_object(item, source, name or f"run{i + 1}", order=options.order,
                                    dedup=options.dedup, trees=options.trees)
            if name is not None:
                found = [r if len(found) == 1 else
                         dataclasses.replace(r, tag=f"{name}/{r.tag}") for r in found]
            out.extend(found)
            continue
        else:
            raise UsageError(runs_expected(item))
        out.extend(r if name is None else dataclasses.replace(r, tag=name) for r in found)
    return out


def read_qrels_like(qrels: QrelsLike) -> Qrels:
    """:class:`~graphprum.io.qrels.Qrels` from a path or an in-memory object."""
    if is_path(qrels):
        return read_qrels(qrels)
    if isinstance(qrels, bytes):
        raise UsageError("qrels are a file path, a DataFrame, a dict or Qrel tuples; got bytes")
    return qrels_from_object(qrels, "qrels")


def as_store(store: StoreLike | None) -> Store | None:
    """The store of ``store``: itself, the one at a location (opened, never
    created), or the one a :class:`~graphprum.collection.Collection` holds."""
    if store is None:
        return None
    if isinstance(store, Store):
        return store
    if is_path(store):
        return open_store(store, create=False)
    inner = getattr(store, "store", None)
    if isinstance(inner, Store):
        return inner
    raise UsageError(f"store is a Collection (graphprum.open_store), a store, or a store's "
                     f"location; got {type(store).__name__}")


def source_texts(store: Store) -> Callable[[str], str]:
    """DOC -> its text content, read again from the XML file it was loaded
    from (the store keeps snippets, not whole texts), to turn UTF-8 byte
    offsets into characters; checked against the length the store holds."""
    docs = store.documents()
    where = dict(zip(docs["name"], zip(docs["source"], docs["length"], strict=True),
                     strict=True))
    read: dict[str, str] = {}  # a document judged for several topics is read once

    def text(doc: str) -> str:
        if doc not in read:
            read[doc] = _read(doc)
        return read[doc]

    def _read(doc: str) -> str:
        if doc not in where:
            return ""  # a document the store lacks: reported with the others
        # the XML loader (and lxml): for byte offsets only, not in every eval
        from graphprum.loaders.xml import text_content

        source, length = where[doc]
        try:
            content = text_content(source)
        except (OSError, SyntaxError) as exc:  # lxml's XMLSyntaxError is a SyntaxError
            raise InputError(source, None, f"byte offsets (--offsets bytes) need the text of "
                                           f"document {doc!r}, read again from the file it was "
                                           f"loaded from: {exc}") from None
        if len(content) != int(length):
            raise InputError(source, None, f"the file of document {doc!r} changed since it was "
                                           f"loaded ({len(content)} characters, the store's "
                                           f"{int(length)}): load it again")
        return content

    return text


def read_passages(passages: PassagesLike, store: Store | None, options: EvalOptions,
                  warn: Warn) -> Mapping[str, TopicAssessment]:
    """Passage assessments from a file (read against ``store``), or as given."""
    if not is_path(passages):
        if not isinstance(passages, Mapping):
            raise UsageError(f"passages are a file path or assessments read with "
                             f"graphprum.assessments.read_assessments; got "
                             f"{type(passages).__name__}")
        return passages
    doc_text = source_texts(store) if options.offsets == "bytes" and store is not None \
        else None
    out = read_assessments(passages, store, units=options.offsets, end=options.ends, warn=warn,
                           doc_text=doc_text)
    if out.unknown:
        doc, line = out.unknown[0]
        line = line or doc_line(passages, {"name": doc})
        names = ", ".join(repr(d) for d, _ in out.unknown[:5])
        message = (f"{len(out.unknown)} document(s) the passages name are not in the store "
                   f"{store.location if store is not None else ''}: {names}"
                   + (" ..." if len(out.unknown) > 5 else "")
                   + " (their passages count for no unit)")
        if options.strict:
            raise InputError(passages, line, message)
        warn(f"note: {passages}" + (f":{line}" if line else "") + f": {message}")
    return out
