"""Stream a link list (``load links FILE``, DESIGN §1.3) in chunks.

A link list holds one LINK edge per line, ``FROM<TAB>TO`` (two page ids,
surrounding spaces removed); ``#`` starts a comment line and blank lines are
ignored; a repeated line is a repeated link (multiplicity counts).  The file
is read in binary blocks and handed out as chunks of about ``chunk`` pairs,
so millions of edges never sit in memory as text.

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

import numpy as np

from graphprum.errors import InputError

#: Pairs per chunk handed out by :func:`read_link_list`.
CHUNK = 100_000
_BLOCK = 1 << 22  # bytes read at a time


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
                   ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Yield ``(from_ids, to_ids)`` chunks of a link list, in file order.

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
