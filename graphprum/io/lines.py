"""The line reader shared by every text input of DESIGN §1.3.

Text inputs are UTF-8; a line whose first non-blank character is ``#`` is a
comment; blank lines are ignored.  An input may be ``-`` (standard input),
a pipe (``<(zcat run.gz)``) or gzip-compressed (told by its first bytes,
whatever its name): :func:`read_bytes` reads such an input once and keeps
its bytes, so that readers that look twice (the format sniff, the search
for the first line of a duplicate) see the same data.  :func:`read_lines` yields, for every other
line, its 1-based line number and its fields, so that readers can name the
exact ``file:line`` of a problem.  The whole file is decoded at once (fast);
an undecodable byte is reported with the line that holds it.

Examples
--------
>>> import tempfile, os
>>> d = tempfile.mkdtemp()
>>> p = os.path.join(d, "q.txt")
>>> _ = open(p, "w", encoding="utf-8").write("# comment\\n\\n1 0 d1 1\\n  1 0 d2 0\\n")
>>> list(read_lines(p))
[(3, ['1', '0', 'd1', '1']), (4, ['1', '0', 'd2', '0'])]
"""

from __future__ import annotations

import gc
import gzip
import io
import os
import re
import stat
import sys
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from os import PathLike

from graphprum.errors import InputError

PathArg = str | PathLike[str]


#: The bytes of inputs that can be read only once (standard input, pipes),
#: by the name they were given.
_ONCE: dict[str, bytes] = {}
_GZIP = b"\x1f\x8b"


def display_name(path: PathArg) -> str:
    """How errors name an input: ``<stdin>`` for ``-``."""
    return "<stdin>" if str(path) == "-" else str(path)


def is_stream(path: PathArg) -> bool:
    """Whether ``path`` is standard input or something else that is not a
    regular file (a pipe, ``/dev/fd/N``): readable once only."""
    if str(path) == "-":
        return True
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def read_bytes(path: PathArg) -> bytes:
    """The whole input, gunzipped when it starts with gzip's magic bytes.

    ``-`` reads standard input; standard input and pipes are read once and
    their bytes kept for later calls.

    Raises
    ------
    InputError
        The input cannot be read, or is gzip data that does not decompress.

    Examples
    --------
    >>> import gzip, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "q.gz")
    >>> _ = open(p, "wb").write(gzip.compress(b"1 0 d 1\\n"))
    >>> read_bytes(p)
    b'1 0 d 1\\n'
    """
    key = str(path)
    if key in _ONCE:
        return _ONCE[key]
    name = display_name(path)
    once = is_stream(path)
    try:
        if key == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except OSError as e:
        raise InputError(name, None, f"cannot read: {e.strerror or e}") from None
    if data.startswith(_GZIP):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            raise InputError(name, None, f"not a valid gzip file: {e}") from None
    if once:
        _ONCE[key] = data
    return data


def xml_source(path: PathArg) -> bytes | io.BytesIO:
    """What to hand lxml's ``parse``: the file name as bytes (libxml2 takes it
    as is; a ``str`` must encode to UTF-8), or the bytes of a stream or of a
    gzip file (:func:`read_bytes`)."""
    if is_stream(path):
        return io.BytesIO(read_bytes(path))
    try:
        with open(path, "rb") as f:
            gz = f.read(2) == _GZIP
    except OSError:
        return os.fsencode(path)  # lxml reports the error
    return io.BytesIO(read_bytes(path)) if gz else os.fsencode(path)


def read_text(path: PathArg) -> str:
    """The whole input (:func:`read_bytes`) decoded as UTF-8, a leading byte
    order mark dropped.

    Raises
    ------
    InputError
        The file cannot be read, or a byte sequence is not UTF-8 (the error
        names the line that holds it).

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "bad.txt")
    >>> _ = open(p, "wb").write(b"ok\\nbad \\xff here\\n")
    >>> read_text(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    graphprum.errors.InputError: ...bad.txt:2: not UTF-8: byte 0xff at column 5
    >>> _ = open(p, "wb").write(b"\\x00\\x00\\x00\\x20ftypisom\\xff")  # an MP4 file
    >>> read_text(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    graphprum.errors.InputError: ...bad.txt: not a text file: it holds NUL bytes (binary ...
    """
    return decode_text(path, read_bytes(path))


#: Byte order marks of the encodings iconv converts (UTF-32's before UTF-16's,
#: which they begin with).
_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
         (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))


def decode_text(path: PathArg, data: bytes) -> str:
    """``data``, the bytes of ``path``, decoded as :func:`read_text` decodes them."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        encoding = next((name for bom, name in _BOMS if data.startswith(bom)), None)
        if encoding is not None:
            raise InputError(display_name(path), None,
                             f"text in {encoding} (its byte order mark says so): convert it "
                             f"with iconv -f {encoding} -t UTF-8") from None
        if b"\0" in data[:8192]:  # a media or other binary file (or UTF-16 text)
            raise InputError(display_name(path), None,
                             "not a text file: it holds NUL bytes (binary data, or text in "
                             "UTF-16 or UTF-32: convert it with iconv -f UTF-16 -t UTF-8)"
                             ) from None
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        byte = data[e.start]
        raise InputError(display_name(path), line,
                         f"not UTF-8: byte 0x{byte:02x} at column {column}") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def read_lines(path: PathArg, sep: str | None = None) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(line_number, fields)`` for every data line of a text input.

    Parameters
    ----------
    path : str or PathLike
        The file.
    sep : str or None
        Field separator: None splits on runs of whitespace; ``"\\t"`` splits
        on single tabs (fields then keep inner spaces, surrounding spaces are
        stripped).

    Notes
    -----
    Lines are split on ``\\n`` only (a trailing ``\\r`` is dropped), so line
    numbers are the ones an editor shows.  Comment lines (first non-blank
    character ``#``) and blank lines are skipped but counted.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "nav.tsv")
    >>> _ = open(p, "w", encoding="utf-8").write("a b\\tc\\t0.5\\r\\n#x\\n")
    >>> list(read_lines(p, sep="\\t"))
    [(1, ['a b', 'c', '0.5'])]
    """
    return iter_lines(read_text(path), sep)


def iter_lines(text: str, sep: str | None = None) -> Iterator[tuple[int, list[str]]]:
    """:func:`read_lines` over text already read.

    >>> list(iter_lines("# c\\n\\n x y\\n"))
    [(3, ['x', 'y'])]
    """
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if not stripped or stripped[0] == "#":
            continue
        if sep is None:
            yield number, stripped.split()
        else:
            yield number, [f.strip() for f in stripped.split(sep)]


def sniff(path: PathArg, size: int = 512) -> bytes:
    """The first non-blank bytes of an input (BOM dropped, gunzipped); b"" if empty.

    Used to tell XML inputs (starting with ``<``) from text layouts.  A
    stream or a gzip file is read whole (:func:`read_bytes` keeps a stream's
    bytes for the reader that follows); a plain file only in part.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "r.xml")
    >>> _ = open(p, "w").write("\\n  <?xml version='1.0'?><inex-submission/>")
    >>> sniff(p)[:5]
    b'<?xml'
    """
    if is_stream(path):
        head = read_bytes(path).lstrip()[:size]
    else:
        try:
            with open(path, "rb") as f:
                head = f.read(size)
                if head.startswith(_GZIP):
                    head = read_bytes(path)
                while head and not head.lstrip():
                    more = f.read(size)
                    if not more:
                        break
                    head = more
        except OSError as e:
            raise InputError(path, None, f"cannot read: {e.strerror or e}") from None
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    return head.lstrip()


def expect_count(path: PathArg, line: int, fields: list[str], n: int, layout: str) -> None:
    """Raise InputError unless ``fields`` has exactly ``n`` items.

    >>> expect_count("q.txt", 3, ["1", "0", "d"], 4, "TOPIC ITER ID REL")
    Traceback (most recent call last):
    ...
    graphprum.errors.InputError: q.txt:3: expected 4 fields TOPIC ITER ID REL, got 3
    """
    if len(fields) != n:
        raise InputError(path, line, f"expected {n} fields {layout}, got {len(fields)}")


#: A number as input files write it: ASCII digits, an optional sign, point
#: and exponent.  Python's ``float`` and ``int`` also take ``1_0``, ``١٠``
#: (Arabic-Indic digits), ``nan`` and surrounding spaces; input files may not.
DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
INTEGER = re.compile(r"[+-]?[0-9]+")
_INFINITY = re.compile(r"[+-]?inf(?:inity)?", re.IGNORECASE)


def ascii_number(text: str, allow_inf: bool = False) -> float | None:
    """``text`` as a float if it is an ASCII decimal number, else None.

    >>> ascii_number("1e-3"), ascii_number("-.5"), ascii_number("1_0"), ascii_number("١٠")
    (0.001, -0.5, None, None)
    >>> ascii_number("nan"), ascii_number("inf"), ascii_number("-inf", allow_inf=True)
    (None, None, -inf)
    """
    if DECIMAL.fullmatch(text) or (allow_inf and _INFINITY.fullmatch(text)):
        return float(text)
    return None


_CLOCK = re.compile(r"^(?:([0-9]+):)?([0-9]{1,2}):([0-9]{1,2})(?:[.,]([0-9]+))?$")


def parse_time(text: str) -> float | None:
    """Seconds of a clock time ``[HH:]MM:SS[.fff]`` (``,`` also accepted), or None.

    >>> parse_time("01:02:03,250"), parse_time("02:03.5"), parse_time("1:60:00")
    (3723.25, 123.5, None)
    """
    m = _CLOCK.match(text.strip())
    if not m:
        return None
    hours, minutes, seconds, frac = m.groups()
    if int(minutes) >= 60 or int(seconds) >= 60:
        return None
    value = int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds)
    return value + (int(frac) / 10 ** len(frac) if frac else 0.0)


def seconds(text: str) -> float | None:
    """A time as segment tables write it: seconds (an ASCII number) or a
    clock time ``[HH:]MM:SS[.fff]``; None for anything else.

    >>> seconds("12.5"), seconds("01:00.5"), seconds("1e1"), seconds("x"), seconds("inf")
    (12.5, 60.5, 10.0, None, None)
    """
    return parse_time(text) if ":" in text else ascii_number(text)


#: Integers read from input files are kept in 64-bit columns: -2^63 to 2^63 - 1.
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def ascii_integer(text: str) -> int | None:
    """``text`` as an int if it is an ASCII decimal integer that fits 64 bits
    (signed), else None.

    >>> ascii_integer("+7"), ascii_integer("1_0"), ascii_integer("٣"), ascii_integer("2.0")
    (7, None, None, None)
    >>> ascii_integer(str(INT64_MAX)) == INT64_MAX, ascii_integer(str(INT64_MAX + 1))
    (True, None)
    """
    if not INTEGER.fullmatch(text):
        return None
    value = int(text)
    return value if INT64_MIN <= value <= INT64_MAX else None


def _digits_hint(text: str) -> str:
    """A hint when ``text`` looks like a number Python would take but input files may not.

    >>> _digits_hint("1_0"), _digits_hint("x")
    (' (ASCII digits)', '')
    """
    odd = not text.isascii() or "_" in text
    return " (ASCII digits)" if odd and any(c.isdigit() for c in text) else ""


def parse_float(path: PathArg, line: int, text: str, what: str,
                allow_inf: bool = False) -> float:
    """``text`` as a float (an ASCII decimal number), or InputError naming ``what``.

    NaN is never accepted, infinities only with ``allow_inf``.

    >>> parse_float("r", 2, "1e-3", "SCORE a number")
    0.001
    >>> parse_float("r", 2, "high", "SCORE a number")
    Traceback (most recent call last):
    ...
    graphprum.errors.InputError: r:2: expected SCORE a number, got 'high'
    >>> parse_float("s", 3, "1_0", "END a number")
    Traceback (most recent call last):
    ...
    graphprum.errors.InputError: s:3: expected END a number (ASCII digits), got '1_0'
    """
    value = ascii_number(text, allow_inf)
    if value is None:
        raise InputError(path, line, f"expected {what}{_digits_hint(text)}, got {text!r}")
    return value


def parse_int(path: PathArg, line: int, text: str, what: str) -> int:
    """``text`` as an int (ASCII decimal digits), or InputError naming ``what``.

    >>> parse_int("r", 5, "x7", "RANK an integer")
    Traceback (most recent call last):
    ...
    graphprum.errors.InputError: r:5: expected RANK an integer, got 'x7'
    >>> try:
    ...     parse_int("r", 5, "9" * 20, "RANK an integer")
    ... except InputError as exc:
    ...     print(str(exc)[:50])
    r:5: expected RANK an integer of at most 64 bits (
    """
    value = ascii_integer(text)
    if value is None:
        hint = f" of at most 64 bits ({INT64_MIN} to {INT64_MAX})" \
            if INTEGER.fullmatch(text) else _digits_hint(text)
        raise InputError(path, line, f"expected {what}{hint}, got {text[:40]!r}")
    return value


def find_line(path: PathArg, match: Callable[[list[str]], bool], sep: str | None = None) -> int:
    """Number of the first data line whose fields satisfy ``match`` (0 if none).

    Readers call it only when reporting a duplicate, to name the first line
    without keeping a line number per record.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "q")
    >>> _ = open(p, "w").write("#c\\n1 0 a 1\\n1 0 b 1\\n")
    >>> find_line(p, lambda f: f[2] == "b")
    3
    """
    for line, fields in read_lines(path, sep):
        if match(fields):
            return line
    return 0


def starts_with(key: list[str]) -> Callable[[list[str]], bool]:
    """A test for :func:`find_line`: whether a line's fields begin with ``key``.

    >>> starts_with(["1", "a"])(["1", "a", "0.5"]), starts_with(["1", "a"])(["1"])
    (True, False)
    """
    return lambda fields: fields[:len(key)] == key


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while building many small objects.

    Reading a run creates a list per line; the collector would otherwise
    rescan them over and over (it more than doubles the time of a
    150,000-line read).  Nothing read here forms reference cycles.  The
    previous state is restored on exit.

    >>> import gc
    >>> with gc_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
