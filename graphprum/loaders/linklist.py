"""Stream a link list (``load links FILE``, DESIGN §1.3) in chunks.

A link list holds one LINK edge per line, ``FROM<TAB>TO`` (two page ids,
surrounding spaces removed); ``#`` starts a comment line and blank lines are
ignored; a repeated line is a repeated link (multiplicity counts).  The file
is handed out as chunks of about ``chunk`` pairs, so millions of edges never
sit in memory as text.

It is read by pyarrow's CSV reader (in C, in blocks, on every core), the
ids trimmed and checked column by column.  A file that reader refuses, or
whose columns fail a check (an empty id, a ``#`` inside one, a field
count other than 2, bytes that are not UTF-8), is read again line by line
from where the fast reader stopped, which names the file, the line and the
problem exactly: both readers give the same pairs.

Examples
--------
>>> import tempfile, pathlib
>>> f = pathlib.Path(tempfile.mkdtemp()) / "links.tsv"
>>> _ = f.write_text("# site\\na.html\\tb.html\\n\\nb.html\\ta.html\\na.html\\tb.html\\n")
>>> [(s.tolist(), d.tolist()) for s, d in read_link_list(f, chunk=2)]
[(['a.html', 'b.html'], ['b.html', 'a.html']), (['a.html'], ['b.html'])]
>>> _ = f.write_text("a.html\\tb.html\\na.html b.html\\n")
>>> list(read_link_list(f))
Traceback (most recent call last):
...
graphprum.errors.InputError: ...links.tsv:2: expected 2 tab-separated fields FROM TO, got 1
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as csv

from graphprum.errors import InputError
from graphprum.units import Names

#: Pairs per chunk handed out by :func:`read_link_list`.
CHUNK = 100_000
_BLOCK = 1 << 22  # bytes read at a time
#: Bytes per block of the CSV reader (it reads ahead several: 4 MiB blocks
#: held 170 MB more than 1 MiB ones on 10M links, for no speed).
_CSV_BLOCK = 1 << 20
#: Batches between two returns of freed memory to the system (each return
#: makes the next blocks fault their pages in again).  10M links, every 8
#: batches (and link_pairs_into's chunks): 370k page faults, 5.5-6.1 s of
#: CPU; every 32: 240-250k, 4.7-5.3 s, the peak about 10 MB higher.
_RELEASE = 32
#: What ``bytes.strip()`` removes around an id (ASCII whitespace).
_SPACES = " \t\n\r\x0b\x0c"


class _RefusedError(Exception):
    """The fast reader met something only the careful one explains."""


def _lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, list[bytes]]]:
    """(number of the first line, lines) blocks of the file, line ends removed."""
    lineno = 1
    rest = b""
    try:
        with open(path, "rb") as fh:
            while True:
                block = fh.read(_BLOCK)
                if not block:
                    break
                block = rest + block
                cut = block.rfind(b"\n")
                if cut < 0:
                    rest = block
                    continue
                lines = block[:cut].split(b"\n")
                rest = block[cut + 1:]
                yield lineno, lines
                lineno += len(lines)
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror or exc}") from None
    if rest:
        yield lineno, [rest]


def _bad_line(path: str | os.PathLike[str], lineno: int, raw: bytes) -> InputError:
    """The error for a line that is not ``FROM<TAB>TO``."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return InputError(path, lineno, f"not UTF-8 (byte {exc.start + 1} of the line)")
    fields = line.rstrip("\r").split("\t")
    if len(fields) != 2:
        return InputError(path, lineno,
                          f"expected 2 tab-separated fields FROM TO, got {len(fields)}")
    which = "FROM" if not fields[0].strip() else "TO"
    return InputError(path, lineno, f"empty {which} id")


def read_link_list(path: str | os.PathLike[str], chunk: int = CHUNK,
                   ) -> Iterator[tuple[Names, Names]]:
    """Yield ``(from_ids, to_ids)`` chunks of a link list, in file order
    (module notes; the errors are :func:`read_link_list_by_line`'s)."""
    done = 0
    try:
        for a, b in _chunked(_fast(path), chunk):
            done += len(a)
            yield a, b
        return
    except _RefusedError:
        pass
    careful = ((Names(pa.array(a.tolist(), pa.string())), Names(pa.array(b.tolist(), pa.string())))
               for a, b in read_link_list_by_line(path, chunk))
    yield from _chunked(careful, chunk, skip=done)


def _fast(path: str | os.PathLike[str]) -> Iterator[tuple[Names, Names]]:
    """Pairs block by block from pyarrow's CSV reader; _RefusedError at anything
    the careful reader must explain."""
    import pyarrow.compute as pc  # 50 ms of import (arrow_compute.py): link lists only

    def invalid(row: Any) -> str:  # a line without one tab: a comment or blank line, or wrong
        text = row.text or ""
        return "skip" if not text.strip(_SPACES) or text.lstrip(_SPACES).startswith("#") \
            else "error"

    if _lone_carriage_return(path):  # the CSV reader would end a line there; a line does not
        raise _RefusedError
    try:
        reader = csv.open_csv(
            os.fspath(path),
            read_options=csv.ReadOptions(column_names=["a", "b"], block_size=_CSV_BLOCK),
            parse_options=csv.ParseOptions(delimiter="\t", quote_char=False, escape_char=False,
                                           invalid_row_handler=invalid),
            convert_options=csv.ConvertOptions(column_types={"a": pa.string(), "b": pa.string()},
                                               strings_can_be_null=False))
        with reader:  # closed however it ends: an open reader's thread aborts the exit
            for n, batch in enumerate(reader):
                a, b = batch.column(0), batch.column(1)
                if n % _RELEASE == _RELEASE - 1:
                    pa.default_memory_pool().release_unused()  # the allocator keeps freed blocks
                if _plain(a) and _plain(b):  # nothing to trim, no comment, no '#', no empty id
                    yield Names(a), Names(b)
                    continue
                a, b = (pc.utf8_trim(x, characters=_SPACES) for x in (a, b))
                empty_a, empty_b = pc.equal(pc.utf8_length(a), 0), pc.equal(pc.utf8_length(b), 0)
                blank = pc.and_(empty_a, empty_b)  # a line of spaces and a tab
                comment = pc.starts_with(a, "#")
                keep = pc.invert(pc.or_(blank, comment))
                a, b = pc.filter(a, keep), pc.filter(b, keep)
                bad = pc.or_(pc.or_(pc.equal(pc.utf8_length(a), 0), pc.equal(pc.utf8_length(b), 0)),
                             pc.or_(pc.match_substring(a, "#"), pc.match_substring(b, "#")))
                if pc.any(bad).as_py():
                    raise _RefusedError
                yield Names(a), Names(b)
    except (pa.ArrowException, OSError) as exc:
        raise _RefusedError from exc


#: The bytes that make an id need the column checks: ASCII whitespace other
#: than tab and line feed (which the CSV reader never leaves in a field) and '#'.
_SPECIAL = np.frombuffer(b" \r\x0b\x0c#", np.uint8)


def _plain(ids: Any) -> bool:
    """Whether a column of the CSV reader holds no empty id and no byte of
    :data:`_SPECIAL` (then trimming it changes nothing and no id starts a
    comment or holds '#'): one comparison per byte, where the column checks
    take ten string kernels.

    >>> _plain(pa.array(["a.html", "b!.html"])), _plain(pa.array(["a.html", " b"]))
    (True, False)
    >>> _plain(pa.array(["a", ""])), _plain(pa.array(["a#b"]))
    (False, False)
    """
    if not len(ids):
        return False
    offsets = np.frombuffer(ids.buffers()[1], np.int32, len(ids) + 1, 4 * ids.offset)
    if (offsets[1:] == offsets[:-1]).any():
        return False
    data = np.frombuffer(ids.buffers()[2], np.uint8)[offsets[0]:offsets[-1]]
    if data.min() > 0x23:  # the special bytes are all below '$' (a reduction: no temporary)
        return True
    return not np.isin(data[data <= 0x23], _SPECIAL).any()


def _lone_carriage_return(path: str | os.PathLike[str]) -> bool:
    """Whether the file holds a ``\\r`` that does not end a line (inside an id)."""
    buffer = bytearray(_BLOCK)  # read into: no new bytes object (and page faults) per block
    try:
        with open(path, "rb") as fh:
            ends_cr = False  # the block before ended with \r
            while size := fh.readinto(buffer):
                block = buffer[:size] if size < _BLOCK else buffer
                if ends_cr and block[0] != 0x0A:
                    return True
                ends_cr = block[-1] == 0x0D
                body = block[:-1] if ends_cr else block
                if b"\r" in body and body.count(b"\r") != body.count(b"\r\n"):
                    return True
            return ends_cr
    except OSError:
        return True  # the careful reader names the problem


def _chunked(pairs: Iterator[tuple[Names, Names]], chunk: int,
             skip: int = 0) -> Iterator[tuple[Names, Names]]:
    """``pairs`` regrouped into chunks of ``chunk`` (the last one shorter),
    the first ``skip`` pairs left out: chunked arrays of slices of the same
    buffers, nothing copied."""
    held: list[tuple[Any, Any]] = []
    size = 0
    for a, b in pairs:
        x, y = a.arrow, b.arrow
        if skip:
            cut = min(skip, len(x))
            x, y, skip = x[cut:], y[cut:], skip - cut
        held.append((x, y))
        size += len(x)
        while size >= chunk:
            all_x = pa.chunked_array([h[0] for h in held], pa.string())
            all_y = pa.chunked_array([h[1] for h in held], pa.string())
            yield Names(all_x[:chunk]), Names(all_y[:chunk])
            rest_x, rest_y = all_x[chunk:], all_y[chunk:]
            held = list(zip(rest_x.chunks, rest_y.chunks, strict=True))
            size -= chunk
    if size:
        yield (Names(pa.chunked_array([h[0] for h in held], pa.string())),
               Names(pa.chunked_array([h[1] for h in held], pa.string())))


def read_link_list_by_line(path: str | os.PathLike[str], chunk: int = CHUNK,
                           ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Yield ``(from_ids, to_ids)`` chunks of a link list, in file order,
    read line by line in Python.

    Parameters
    ----------
    path : path-like
        The ``FROM<TAB>TO`` file (UTF-8).
    chunk : int
        Pairs per chunk (the last one may be shorter).

    Yields
    ------
    (numpy.ndarray, numpy.ndarray)
        Two object arrays of str of equal length.

    Raises
    ------
    InputError
        A line without exactly two tab-separated non-empty fields, not
        UTF-8, or with an id holding ``#``, naming the file and line.
    """
    src: list[str] = []
    dst: list[str] = []
    first = True
    for lineno, lines in _lines(path):
        if first and lines and lines[0].startswith(b"\xef\xbb\xbf"):
            lines[0] = lines[0][3:]
        first = False
        for i, raw in enumerate(lines):
            a, tab, b = raw.partition(b"\t")
            a = a.strip()
            b = b.strip()
            if not (tab and a and b) or b"\t" in b:
                if not raw.strip() or raw.lstrip().startswith(b"#"):
                    continue
                raise _bad_line(path, lineno + i, raw)
            if a[:1] == b"#":
                continue
            if b"#" in a or b"#" in b:
                raise InputError(path, lineno + i,
                                 f"page id {(a if b'#' in a else b).decode('utf-8', 'replace')!r}"
                                 f" holds '#', which separates a document from the unit inside "
                                 f"it in unit ids: link lists name pages or documents")
            try:
                src.append(a.decode("utf-8"))
                dst.append(b.decode("utf-8"))
            except UnicodeDecodeError:
                raise _bad_line(path, lineno + i, raw) from None
            if len(src) >= chunk:
                yield _arrays(src, dst)
                src, dst = [], []
    if src:
        yield _arrays(src, dst)


def _arrays(src: list[str], dst: list[str]) -> tuple[np.ndarray, np.ndarray]:
    a = np.empty(len(src), dtype=object)
    b = np.empty(len(dst), dtype=object)
    a[:] = src
    b[:] = dst
    return a, b
