"""The ``graphprum`` command line: a thin layer over the Python API.

One module per command group (:mod:`~graphprum.cli.browse`,
:mod:`~graphprum.cli.measures`, :mod:`~graphprum.cli.evaluate`,
:mod:`~graphprum.cli.query`, :mod:`~graphprum.cli.load`,
:mod:`~graphprum.cli.server`, :mod:`~graphprum.cli.summary`,
:mod:`~graphprum.cli.export`), each adding
its commands to the typer application :data:`app` in the order ``graphprum
--help`` lists them; what they share is in :mod:`~graphprum.cli.shared` and
:mod:`~graphprum.cli.options`.  Every error a user can cause is printed as
one line on stderr and exits with status 2; nothing is written to the store
in that case.
"""

import contextlib
import signal
import sys
from typing import Any, TextIO

# each module of commands adds its commands to app when imported
from graphprum.cli import (  # noqa: F401
    browse,
    evaluate,
    export,
    load,
    measures,
    query,
    runs,
    server,
    summary,
)
from graphprum.cli.shared import (
    BROKEN_PIPE,
    INTERRUPTED,
    Terminated,
    app,
    main_options,
    one_line,
    state,
    stopped,
)
from graphprum.store.uri import redact

__all__ = ["app", "main", "main_options"]


class _RedactedStream:
    """A text stream that takes passwords out of URIs before writing
    (:func:`graphprum.store.uri.redact`): the last net under everything a
    command or a library prints on stderr."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(redact(text) if "://" in text else text)
        return len(text)

    def __getattr__(self, name: str) -> Any:
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


def _terminate(signum: int, frame: object) -> None:
    state.terminated = True
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut the clean-up
    raise Terminated


def _interrupted() -> None:
    """Say how the command was stopped, and exit with the status of it."""
    how, code = stopped()
    print(f"graphprum: {how}", file=sys.stderr)
    sys.exit(code)


def main() -> None:
    """Entry point of the ``graphprum`` script: every error one line on
    stderr (click's usage errors too), exit status 2 for a user's mistake."""
    if sys.stderr is not None and not isinstance(sys.stderr, _RedactedStream):
        sys.stderr = _RedactedStream(sys.stderr)
    # a file name that is not UTF-8 (a str with surrogate escapes) is printed
    # as its own bytes, as ls prints it, rather than failing
    with contextlib.suppress(AttributeError, ValueError):
        sys.stdout.reconfigure(errors="surrogateescape")  # type: ignore[union-attr]
    state.terminated = False
    try:
        previous = signal.signal(signal.SIGTERM, _terminate)
        installed = True
    except ValueError:  # not the main thread (a program calling main())
        installed = False
    try:
        _run()
    finally:
        if installed:  # a program calling main() keeps its own handler
            signal.signal(signal.SIGTERM, previous)


def _run() -> None:
    """:func:`main`'s body: the command, its errors as lines, its exit status."""
    try:
        code = app(standalone_mode=False)
    except KeyboardInterrupt:  # before typer catches it (Terminated too)
        _interrupted()
    except BrokenPipeError:  # e.g. --help | head
        sys.exit(BROKEN_PIPE)
    except Exception as exc:
        # click's exceptions (its own, or typer's vendored copy) have these
        if not (hasattr(exc, "format_message") and hasattr(exc, "exit_code")):
            raise
        if type(exc).__name__ == "NoArgsIsHelpError":
            exc.show()  # type: ignore[attr-defined]  # the help text
        else:
            print(usage_error_line(exc), file=sys.stderr)
        sys.exit(exc.exit_code)
    except BaseException as exc:  # click's Abort (EOF at a prompt)
        if type(exc).__name__ != "Abort":
            raise
        if state.terminated:
            _interrupted()
        print("graphprum: aborted", file=sys.stderr)
        sys.exit(1)
    if code == INTERRUPTED:  # typer turns Ctrl-C (and Terminated) into this status, silently
        _interrupted()
    sys.exit(code if isinstance(code, int) else 0)
