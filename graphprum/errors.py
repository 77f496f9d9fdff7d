"""One exception family for everything a user can cause.

Every error a user can cause derives from :class:`GraphprumError`; the command
line prints it as one line on stderr and exits with :attr:`GraphprumError.exit_code`
(2 for bad usage or bad input), never with a traceback.

Examples
--------
>>> err = InputError("qrels.txt", 3, "expected 4 fields TOPIC ITER ID REL, got 3")
>>> str(err)
'qrels.txt:3: expected 4 fields TOPIC ITER ID REL, got 3'
>>> err.exit_code
2
>>> import pickle; str(pickle.loads(pickle.dumps(err))) == str(err)
True
>>> print(InputError(bytes([99, 0xe9]).decode("utf-8", "surrogateescape"), None, "empty"))
c\\xe9: empty
"""

from __future__ import annotations

from os import PathLike


def printable(text: str) -> str:
    """``text`` with the undecodable bytes of file names (kept by Python as
    lone surrogates, ``surrogateescape``) shown as ``\\xNN``, so that it can
    be printed and written as UTF-8.

    >>> print(printable("a" + bytes([0xff]).decode("utf-8", "surrogateescape") + "b"))
    a\\xffb
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace") \
            if _only_escapes(text) else text.encode("utf-8", "backslashreplace").decode()
    return text


def _only_escapes(text: str) -> bool:
    """Whether every surrogate of ``text`` is a ``surrogateescape`` byte."""
    return all(not 0xD800 <= ord(c) <= 0xDFFF or 0xDC80 <= ord(c) <= 0xDCFF for c in text)


class GraphprumError(Exception):
    """Base class of every error a user can cause (exit status 2)."""

    exit_code = 2


class InputError(GraphprumError):
    """A bad input file: names the file, the line (if known) and the problem.

    Parameters
    ----------
    path : str or PathLike
        The file that holds the problem (``-``, standard input, is shown
        as ``<stdin>``).
    line : int or None
        1-based line number, or None when the problem is not on one line.
    message : str
        What was expected, in words a user understands.
    """

    def __init__(self, path: str | PathLike[str], line: int | None, message: str) -> None:
        self.path = "<stdin>" if str(path) == "-" else str(path)
        self.line = line
        self.message = message
        where = printable(f"{self.path}:{line}" if line is not None else self.path)
        super().__init__(f"{where}: {message}")

    def __reduce__(self) -> tuple[type[InputError], tuple[str, int | None, str]]:
        """Pickled with its parts, so that a worker process can hand it back whole."""
        return type(self), (self.path, self.line, self.message)


class UsageError(GraphprumError):
    """Bad options or arguments (unknown measure, bad model spec, ...)."""


class StoreError(GraphprumError):
    """The store cannot be opened, is of an unknown format, or lacks something asked for."""


class WorkerError(GraphprumError):
    """A worker process of ``--jobs`` died without its results (killed by a
    signal, by the out-of-memory killer); not the user's input: exit status 1."""

    exit_code = 1


class UnknownIdError(GraphprumError):
    """An id that the store does not hold."""


class ServerError(GraphprumError):
    """A Bolt server that is down, refuses credentials or lacks the database.

    The message names the URI, never the password.
    """
