"""Many XML files into batches of documents, in order: the files of a load
parsed here or, for a large load, in worker processes (pieces of a few MB
each, results in the files' order, the store receiving the same bytes
either way).

>>> import tempfile
>>> from pathlib import Path
>>> d = Path(tempfile.mkdtemp())
>>> _ = (d / "a.xml").write_text("<a><b/></a>"), (d / "c.xml").write_text("<c/>")
>>> [b.names for b in iter_xml_batches(find_xml_files([d]))]
[['a', 'c']]
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from graphprum.errors import InputError
from graphprum.loaders.files import Skipped
from graphprum.loaders.xml import RawBatch
from graphprum.loaders.xml_files import GLOB, XmlFile, find_xml_files
from graphprum.loaders.xml_links import LinkCounts, LinkRules, LinkSpec
from graphprum.units import DocumentBatch, ParsedDocument
from graphprum.workers import can_fork, ordered_map

#: Units per batch: large enough to amortise numpy calls, small enough for memory.
BATCH_UNITS = 1 << 14


def xml_documents(paths: Iterable[str | os.PathLike[str]],
                  links: str | Sequence[str] | None = None,
                  skip_bad: bool = False, on_file: Callable[[XmlFile, int], None] | None = None,
                  batches: bool = False, jobs: int = 1, link_counts: LinkCounts | None = None,
                  globs: Sequence[str] = (GLOB,), follow_symlinks: bool = False,
                  ) -> tuple[Generator[ParsedDocument] | Generator[DocumentBatch],
                             list[Skipped]]:
    """The documents of ``paths`` (files or directories) for a store's
    ``load_xml``, and the list of files skipped: those a directory holds
    that are not loaded (:func:`find_xml_files`, at once), and with
    ``skip_bad`` those that are not well-formed (as they are parsed).

    ``links`` are ``TAG@ATTR`` specs (one or several: an element matching
    any of them is a link, once per spec it matches); what they found is
    added to ``link_counts`` as the documents are read.

    With ``batches`` the iterator yields :class:`DocumentBatch` records of
    about :data:`BATCH_UNITS` units instead of single documents.  Paths are
    checked before anything is parsed (InputError for a missing path or a
    directory with no matching file).  ``jobs`` > 1: files are parsed in
    that many worker processes when there are enough of them
    (:func:`iter_xml_batches`).
    """
    LinkRules.of(links)  # a bad spec is refused before the paths are looked at
    skipped: list[Skipped] = []
    files = find_xml_files(paths, globs, follow_symlinks, skipped)
    rules = LinkRules.of(links, files)
    found = iter_xml_batches(files, rules, skip_bad=skip_bad, skipped=skipped, on_file=on_file,
                             jobs=jobs, link_counts=link_counts)
    if not batches:
        return (doc for batch in found for doc in batch.documents()), skipped
    return found, skipped


def iter_xml_batches(files: list[XmlFile], links: LinkRules | LinkSpec | None = None,
                     skip_bad: bool = False, skipped: list[Skipped] | None = None,
                     on_file: Callable[[XmlFile, int], None] | None = None,
                     batch_units: int = BATCH_UNITS, jobs: int = 1,
                     link_counts: LinkCounts | None = None) -> Generator[DocumentBatch]:
    """Parse ``files`` in order into batches; with ``skip_bad``, collect bad
    files in ``skipped`` and go on; what the links came to is added to
    ``link_counts``.

    With ``jobs`` > 1 and at least :data:`PARALLEL_MIN_BYTES` of XML, runs
    of consecutive files (:func:`file_pieces`) are parsed in ``jobs``
    forked workers (:func:`graphprum.workers.ordered_map`) and their batches
    come back pickled, in file order: the same documents, the same errors
    (the first bad file in file order), ``on_file`` called for the same
    files in the same order; only where batches end differs, which no store
    sees.
    """
    if isinstance(links, LinkSpec):
        links = LinkRules.of(links, files)
    counts = link_counts if link_counts is not None else LinkCounts()
    pieces = file_pieces(files, jobs)
    if pieces is None:
        parsed = _parse_files(files, links, skip_bad, batch_units, on_file,
                              skipped if skipped is not None else [], counts)
        yield from parsed.batches
        if parsed.error is not None:
            raise parsed.error
        return
    here = [_parsed_here(piece) for piece in pieces]

    def parse(_: None, k: int) -> _ParsedFiles | None:
        if here[k]:
            return None
        parsed = _parse_files(pieces[k], links, skip_bad, batch_units)
        parsed.batches = list(parsed.batches)
        return parsed

    with contextlib.closing(ordered_map(parse, None, range(len(pieces)), jobs)) as results:
        for piece, given in zip(pieces, results, strict=True):
            if given is None:  # one big file: its batches one at a time, as with one job
                parsed = _parse_files(piece, links, skip_bad, batch_units, on_file,
                                      skipped if skipped is not None else [], counts)
                yield from parsed.batches
            else:
                parsed = given
                if on_file:
                    for f, count in zip(piece, parsed.counts, strict=False):
                        on_file(f, count)
                if skipped is not None:
                    skipped.extend(parsed.skipped)
                counts.add(parsed.link_counts)
                yield from parsed.batches
            if parsed.error is not None:
                raise parsed.error


#: Parse in worker processes only above this much XML in all (forking and
#: sending the batches back cost more than they save on less).
PARALLEL_MIN_BYTES = 8 << 20
#: XML bytes per piece of work given to a worker (at most).
PIECE_BYTES = 4 << 20


def file_pieces(files: list[XmlFile], jobs: int) -> list[list[XmlFile]] | None:
    """Runs of consecutive files of about the same size in bytes, at least
    four per worker and at most :data:`PIECE_BYTES` each (a bigger file is
    a piece of its own); None when the files are parsed here: one job, no
    ``fork`` on this platform, or less than :data:`PARALLEL_MIN_BYTES` in all.
    """
    if jobs <= 1 or len(files) < 2:
        return None
    if not can_fork():
        return None
    sizes = []
    for f in files:
        try:
            sizes.append(f.path.stat().st_size)
        except OSError:
            sizes.append(0)  # the parse names the problem
    total = sum(sizes)
    if total < PARALLEL_MIN_BYTES:
        return None
    target = max(1, min(PIECE_BYTES, total // (4 * jobs)))
    pieces: list[list[XmlFile]] = [[]]
    held = 0
    for f, size in zip(files, sizes, strict=True):
        if pieces[-1] and held + size > target:
            pieces.append([])
            held = 0
        pieces[-1].append(f)
        held += size
    return pieces


def _parsed_here(piece: list[XmlFile]) -> bool:
    """Whether a piece is one file bigger than :data:`PIECE_BYTES`, parsed
    by the loading process itself: a worker sends a piece's batches back
    all at once, which for one big file would hold its whole parse in
    memory twice (the worker's pickle and the parent's copy), where one
    process holds a batch at a time."""
    try:
        return len(piece) == 1 and piece[0].path.stat().st_size > PIECE_BYTES
    except OSError:
        return True  # the parse here names the problem


@dataclass
class _ParsedFiles:
    """What parsing a run of files gives: its batches, the elements of each
    file parsed (0 for a file skipped), the files skipped, and the error
    that stopped it (a bad file without ``skip_bad``)."""

    batches: Iterator[DocumentBatch] | list[DocumentBatch]
    counts: list[int]
    skipped: list[Skipped]
    error: InputError | None = None
    link_counts: LinkCounts = field(default_factory=LinkCounts)


def _parse_files(files: list[XmlFile], links: LinkRules | None, skip_bad: bool,
                 batch_units: int, on_file: Callable[[XmlFile, int], None] | None = None,
                 skipped: list[Skipped] | None = None,
                 link_counts: LinkCounts | None = None) -> _ParsedFiles:
    """Parse ``files`` in order into batches (lazily: ``batches`` is a
    generator, the other fields fill as it runs; files skipped are added
    to ``skipped``, and the links' counts to ``link_counts``, when given)."""
    out = _ParsedFiles(iter(()), [], skipped if skipped is not None else [],
                       link_counts=link_counts if link_counts is not None else LinkCounts())

    def new_batch() -> RawBatch:
        raw = RawBatch(links)
        raw.link_counts = out.link_counts
        return raw

    def batches() -> Iterator[DocumentBatch]:
        raw = new_batch()
        try:
            for f in files:
                try:
                    count = raw.parse(f.path, f.name, f.root)
                except InputError as exc:
                    if not skip_bad:
                        out.error = exc
                        return
                    out.skipped.append(Skipped(exc.path, exc.line, exc.message))
                    count = 0
                out.counts.append(count)
                if on_file:
                    on_file(f, count)
                if len(raw) >= batch_units:
                    yield raw.finished()
                    raw = new_batch()
            if raw.names:
                yield raw.finished()
        finally:
            raw.close()

    out.batches = batches()
    return out
