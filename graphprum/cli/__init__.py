"""The ``graphprum`` command line: a thin layer over the Python API.

One module per command group (:mod:`~graphprum.cli.load`,
:mod:`~graphprum.cli.browse`, :mod:`~graphprum.cli.summary`,
:mod:`~graphprum.cli.evaluate`, :mod:`~graphprum.cli.measures`, :mod:`~graphprum.cli.query`,
:mod:`~graphprum.cli.server`); what they share is in :mod:`~graphprum.cli.shared`
and :mod:`~graphprum.cli.options`.  Every error a user can cause is printed
as one line on stderr and exits with status 2; nothing is written to the
store in that case.

``graphprum.cli.app`` is the typer application with every command.  The
``graphprum`` script imports and builds only the command it is asked for
(:data:`COMMANDS`, :func:`command_named`): building all of them took 12 ms
of every start-up, where one takes 4.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphprum.cli.shared import _State, main_options, one_line

if TYPE_CHECKING:
    import typer

__all__ = ["COMMANDS", "app", "command_named", "main", "main_options", "script", "with_commands"]

#: Each command (or command group) of ``graphprum`` -> the module of
#: :mod:`graphprum.cli` that adds it, in the order of ``graphprum --help``
#: (tests/cli check that this is exactly what the modules add).
COMMANDS: dict[str, str] = {
    "info": "browse", "show": "browse", "nav": "browse", "measures": "measures",
    "eval": "evaluate", "compare": "evaluate", "plot": "evaluate", "report": "evaluate",
    "query": "query", "copy": "query", "load": "load", "runs": "runs", "server": "server",
    "summary": "summary",
}

#: The global options that take a value (``main_options``).
_VALUED = ("--store", "-s")


def with_commands(names: Sequence[str] | None = None) -> typer.Typer:
    """The typer application with the commands ``names`` added (imported),
    and every command when ``names`` is None or names a command unknown
    here: then the help lists them all, and click suggests the closest."""
    from graphprum.cli.shared import app

    wanted = (list(COMMANDS) if names is None or any(n not in COMMANDS for n in names)
              else names)
    for module in dict.fromkeys(COMMANDS[n] for n in wanted):
        importlib.import_module(f"graphprum.cli.{module}")
    # the help lists them in the order of COMMANDS, whichever was imported first
    rank = {name: i for i, name in enumerate(COMMANDS)}
    app.registered_commands.sort(
        key=lambda c: rank.get(c.name or getattr(c.callback, "__name__", ""), len(rank)))
    app.registered_groups.sort(key=lambda g: rank.get(g.name or "", len(rank)))
    return app


def command_named(argv: Sequence[str]) -> str | None:
    """The command that ``argv`` (the script's arguments) asks for: its first
    word that is neither a global option nor the value of one; None without
    one (``graphprum --help``, ``graphprum``) or while the shell completes a
    word (every command is needed then).

    >>> command_named(["--store", "bolt://h:7687", "-v", "eval", "run.txt"])
    'eval'
    >>> command_named(["-s/tmp/store", "load", "xml"]), command_named(["-vs", "x", "info"])
    ('load', 'info')
    >>> command_named(["--help"]) is None, command_named(["--help", "eval"]) is None
    (True, True)
    """
    if any(k.startswith("_") and k.endswith("_COMPLETE") for k in os.environ):
        return None
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word in _VALUED or (word[:1] == "-" and word[1:2] != "-" and word.endswith("s")
                                 and set(word[1:-1]) <= {"v"}):  # -s, -vs
            skip = True
        elif word in ("--", "--help"):  # --help before the command: the whole list
            return None
        elif not word.startswith("-"):
            return word
    return None


def __getattr__(name: str) -> typer.Typer:
    """``graphprum.cli.app``: the application with every command."""
    if name == "app":
        return with_commands()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _RedactedStream:
    """A text stream that takes passwords out of URIs before writing
    (:func:`graphprum.store.uri.redact`): the last net under everything a
    command or a library prints on stderr."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        from graphprum.store.uri import redact

        self._stream.write(redact(text) if "://" in text else text)
        return len(text)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def usage_error_line(exc: Exception) -> str:
    """A command-line parsing error of click (bad option, missing argument,
    bad value) as one line, with where to find help.

    >>> import typer
    >>> usage_error_line(typer.BadParameter("must be >= 1"))
    'graphprum: error: Invalid value: must be >= 1'
    """
    text = one_line(exc.format_message())  # type: ignore[attr-defined]
    ctx = getattr(exc, "ctx", None)
    path = getattr(ctx, "command_path", "")
    option = getattr(exc, "option_name", None)
    if type(exc).__name__ == "NoSuchOption" and option in GLOBAL_OPTIONS and path \
            and path != "graphprum":
        return (f"graphprum: error: {option} is a global option: it goes before the command "
                f"(graphprum {option} ... {path.removeprefix('graphprum ')} ...)")
    return f"graphprum: error: {text}" + (f" (see '{path} --help')" if path else "")


#: Options of ``graphprum`` itself, given before the command.
GLOBAL_OPTIONS = {"--store", "-s", "--quiet", "--verbose", "-v"}


def main() -> None:
    """Entry point of the ``graphprum`` script: every error one line on
    stderr (click's usage errors too), exit status 2 for a user's mistake."""
    _State.done = False
    if sys.stderr is not None and not isinstance(sys.stderr, _RedactedStream):
        sys.stderr = _RedactedStream(sys.stderr)
    # a file name that is not UTF-8 (a str with surrogate escapes) is printed
    # as its own bytes, as ls prints it, rather than failing
    with contextlib.suppress(AttributeError, ValueError):
        sys.stdout.reconfigure(errors="surrogateescape")  # type: ignore[union-attr]
    command = command_named(sys.argv[1:])
    app = with_commands(None if command is None else [command])
    try:
        code = app(standalone_mode=False)
    except KeyboardInterrupt:
        print("graphprum: interrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:  # e.g. --help | head
        sys.exit(0)
    except Exception as exc:
        # click's exceptions (its own, or typer's vendored copy) have these
        if not (hasattr(exc, "format_message") and hasattr(exc, "exit_code")):
            raise
        if type(exc).__name__ == "NoArgsIsHelpError":
            exc.show()  # type: ignore[attr-defined]  # the help text
        else:
            print(usage_error_line(exc), file=sys.stderr)
        sys.exit(exc.exit_code)  # type: ignore[attr-defined]
    except BaseException as exc:  # click's Abort (EOF at a prompt)
        if type(exc).__name__ != "Abort":
            raise
        print("graphprum: aborted", file=sys.stderr)
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)


def script() -> None:
    """Entry point of the installed ``graphprum`` script: :func:`main`; then,
    when the command said it has nothing left to finish
    (:func:`graphprum.cli.shared.nothing_left_to_finish`) and its output is
    flushed, the process ends at once (``os._exit``) instead of tearing the
    interpreter down object by object.  :func:`main` itself always returns
    by ``SystemExit``, for callers in the same process."""
    try:
        main()
        code: int = 0
    except SystemExit as exc:
        if not _State.done:
            raise
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    if not _State.done:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe: leave the usual way
        sys.exit(code)
    os._exit(code)
