"""The typer application, its global options, and what every command shares:
turning user errors into one line and exit status 2, notes on stderr, the
store named by ``--store``, progress bars, and the output format off a
terminal.

Command modules (:mod:`graphprum.cli.load`, :mod:`graphprum.cli.evaluate`, ...)
add their commands to :data:`app`; :mod:`graphprum.cli` imports them all.
"""

import contextlib
import functools
import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Annotated, Any, TypeVar

import typer

from graphprum.errors import GraphprumError, StoreError, UsageError, printable
from graphprum.store import Store, open_store
from graphprum.store import store_exists as _exists
from graphprum.store.uri import redact
from graphprum.version import __version__

F = TypeVar("F", bound=Callable[..., Any])

#: Exit status after Ctrl-C (128 + SIGINT, as a shell reports it).
INTERRUPTED = 130
#: Exit status after SIGTERM (128 + 15, as a shell reports it).
TERMINATED = 143


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill PID``, a job manager's stop), raised where the process
    is, so that what Ctrl-C undoes is undone: a load's new generation
    removed, the worker processes stopped, the store's lock let go."""


def stopped() -> tuple[str, int]:
    """How the command was stopped, and its exit status: ``("terminated",
    143)`` after SIGTERM, else ``("interrupted", 130)`` (Ctrl-C)."""
    return ("terminated", TERMINATED) if state.terminated else ("interrupted", INTERRUPTED)

HELP = """Evaluate retrieval over connected collections (XML, web sites, video)
with user-model measures: PRUM, EPRUM, SR/SRP, the INEX 2006 measures, T2I.

Typical session:

  graphprum load xml examples/plos/articles

  graphprum info

  graphprum eval examples/plos/run-*.txt --qrels examples/plos/qrels.txt -m PRUM -m AP

The store is a directory (default ./graphprum-store, or $GRAPHPRUM_STORE),
or a bolt:// / neo4j:// URI.
"""

# the neo4j driver logs connection retries as warnings; without a handler of
# its own they would reach stderr through logging's last resort, beside the
# one-line error that says what failed
logging.getLogger("neo4j").addHandler(logging.NullHandler())

app = typer.Typer(help=HELP, no_args_is_help=True, add_completion=True,
                  rich_markup_mode=None, pretty_exceptions_enable=False)


def sub_app(name: str, help: str, short_help: str | None = None) -> typer.Typer:
    """A command group ``graphprum NAME ...`` added to :data:`app`
    (``short_help``: its line in ``graphprum --help``, when ``help``'s first
    sentence is too long for it)."""
    group = typer.Typer(help=help, no_args_is_help=True, rich_markup_mode=None)
    app.add_typer(group, name=name, short_help=short_help)
    return group


class _State:
    store: str | None = None
    quiet: bool = False
    verbose: bool = False
    #: Whether SIGTERM came (:class:`Terminated`).
    terminated: bool = False


#: The global options of this invocation.
state = _State()


def one_line(text: str) -> str:
    """``text`` fit for one line of stderr: lines joined, undecodable bytes of
    file names shown as ``\\xNN``, the user information of URIs (passwords)
    taken out.

    >>> one_line("bolt://neo4j:pw@host:7687: down\\n  (retry)")
    'bolt://neo4j@host:7687: down (retry)'
    """
    lines = [ln.strip() for ln in printable(text).splitlines() if ln.strip()]
    return redact(" ".join(lines))


def os_error_text(exc: OSError) -> str:
    """An operating-system error as ``FILE: reason`` (``FILE -> FILE2`` for
    a rename), or the reason alone when no file is known.

    >>> os_error_text(PermissionError(13, "Permission denied", "/ro/x"))
    '/ro/x: Permission denied'
    """
    reason = exc.strerror or str(exc) or type(exc).__name__
    names = [os.fsdecode(n) if isinstance(n, bytes) else str(n)
             for n in (exc.filename, exc.filename2) if n is not None]
    return f"{' -> '.join(names)}: {reason}" if names else reason


#: The exit status after the reader of standard output went away (``| head``):
#: 128 + SIGPIPE, what a shell reports for a program SIGPIPE ends (``yes | head``),
#: so that ``set -o pipefail`` sees the output was cut, never a success.
BROKEN_PIPE = 141


def user_errors(func: F) -> F:
    """Turn GraphprumError into one line on stderr and its exit status (2);
    also an OSError (no space, read-only file system, permission denied, a
    file that vanished ...) that no lower layer turned into a GraphprumError:
    one line naming the file, exit status 2, never a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except GraphprumError as exc:
            print(f"graphprum: error: {one_line(str(exc))}", file=sys.stderr)
            raise typer.Exit(exc.exit_code) from None
        except BrokenPipeError:  # e.g. | head: the status of a process SIGPIPE ends
            raise typer.Exit(BROKEN_PIPE) from None
        except OSError as exc:
            print(f"graphprum: error: {one_line(os_error_text(exc))}", file=sys.stderr)
            raise typer.Exit(GraphprumError.exit_code) from None

    return wrapper  # type: ignore[return-value]


def _version(value: bool) -> None:
    if value:
        print(f"graphprum {__version__}")
        raise typer.Exit(0)


@app.callback()
def main_options(
    store: Annotated[str | None, typer.Option(
        "--store", "-s", envvar="GRAPHPRUM_STORE",
        help="Store: a directory (embedded, default ./graphprum-store) or a bolt:// URI.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bars or notes.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="More notes on stderr.")]
    = False,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """Global options."""
    state.store = store
    state.quiet = quiet
    state.verbose = verbose


def store_from_options(create: bool = True, wait: float = 0.0) -> Store:
    """The store named by ``--store`` (or ``$GRAPHPRUM_STORE``, or the default);
    ``wait``: seconds a write waits for another writer.  An embedded store
    that is not there (``create=False``) is an error that says how to make
    one, and, for the default, how to name another."""
    try:
        return open_store(state.store, create=create, wait=wait)
    except StoreError as exc:
        if create or _exists(state.store):
            raise
        named = state.store is not None or os.environ.get("GRAPHPRUM_STORE")
        raise StoreError(f"{exc}: load a collection into it first (graphprum load xml DIR)"
                         + ("" if named else ", or name the store: --store DIR or "
                            "$GRAPHPRUM_STORE")) from None


def store_exists() -> bool:
    """Whether ``--store`` names a server or an existing embedded store."""
    return _exists(state.store)


def note(message: str) -> None:
    """A note on stderr (suppressed by --quiet); passwords in URIs taken out."""
    if not state.quiet:
        print(redact(printable(message)), file=sys.stderr)


def show_progress(quiet: bool = False) -> bool:
    """Whether progress is drawn: stderr is a terminal and nobody asked for quiet."""
    return not (quiet or state.quiet) and sys.stderr.isatty()


#: What every command that prints a table accepts (some accept more).
TABLE_FORMATS = ("table", "tsv", "csv", "json")


def choose_format(fmt: str | None, formats: Sequence[str], option: str = "--format") -> str:
    """``fmt``, checked against ``formats``; by default ``table`` on a terminal
    and ``tsv`` otherwise (nothing is ever cut to a terminal's width in a pipe).

    Every command that prints a table picks its format here, so all of them
    behave alike in a pipe.
    """
    if fmt is None:
        fmt = "table" if sys.stdout.isatty() else "tsv"
    if fmt not in formats:
        raise UsageError(f"{option} {fmt!r}: choose one of {', '.join(formats)}")
    return fmt


def format_help(formats: Sequence[str] = TABLE_FORMATS, more: str = "") -> str:
    """The help of the ``--format``/``-f`` option of a command that prints
    ``formats`` (default None, see :func:`choose_format`)."""
    return (f"{', '.join(formats)}: table on a terminal, tsv otherwise "
            f"(tsv, csv and json at full precision).{' ' + more if more else ''}")


#: The formats whose numbers are rounded to ``--digits``.
ROUNDED_FORMATS = ("table", "latex", "markdown")


def digits_help(formats: Sequence[str] = TABLE_FORMATS, significant: bool = False) -> str:
    """The help of the ``--digits`` option of a command that prints
    ``formats``: it names the formats for people among them
    (``significant``: numbers are :func:`~graphprum.floats.readable`)."""
    rounded = ", ".join(f for f in formats if f in ROUNDED_FORMATS)
    kept = ", ".join(f for f in formats if f in ("tsv", "csv", "json"))
    trec = "; trec prints trec_eval's own" if "trec" in formats else ""
    small = (", or as many significant digits where that says more (0.0006965)"
             if significant else "")
    return (f"Decimals shown by the formats for people ({rounded}; default 4, as "
            f"trec_eval{small}); {kept} keep full precision{trec}.")


#: The ``--format`` option of a command printing :data:`TABLE_FORMATS`.
Format = Annotated[str | None, typer.Option("--format", "-f", help=format_help())]
#: The ``--digits`` option of a command printing :data:`TABLE_FORMATS`.
Digits = Annotated[int, typer.Option("--digits", min=0, max=17,
                                      help=digits_help(significant=True))]


class Progress:
    """A rich progress bar on stderr when it is a terminal, nothing otherwise.

    ``with Progress(total, label) as bar``: ``bar(n)`` advances by n,
    ``bar.update(done, total)`` sets both (for callers that know the total
    only once they start).  The bar appears once the work has taken
    :data:`PROGRESS_DELAY` seconds (as tqdm's ``delay``): work done sooner
    leaves the terminal as it was, with no bar flashing by.
    """

    def __init__(self, total: int | None, label: str, quiet: bool = False) -> None:
        self.total = total
        self.label = label
        self.enabled = show_progress(quiet)
        self.done = 0.0
        self._progress: Any = None
        self._task: Any = None
        self._started = self._drawn = 0.0

    def __enter__(self) -> "Progress":
        self._started = time.monotonic()
        return self

    def __call__(self, n: int) -> None:
        self.done += n
        self._refresh()

    def update(self, done: float, total: int) -> None:
        """Set the completed count and the total."""
        self.done, self.total = done, total
        self._refresh(force=done >= total)

    def _refresh(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if self._progress is None:
            if now - self._started < PROGRESS_DELAY:
                return
            self._start()
        elif not force and now - self._drawn < 0.1:
            return
        self._drawn = now
        self._progress.update(self._task, completed=self.done, total=self.total)
        self._progress.refresh()

    def _start(self) -> None:
        # rich: 30 ms of import, only when drawing for a person
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
        from rich.progress import Progress as RichProgress

        # no refresh thread (auto_refresh off): evaluation forks worker
        # processes, and a thread holding the console's lock at fork time
        # could deadlock a worker; the bar is redrawn from here, throttled
        self._progress = RichProgress(TextColumn("{task.description}"), BarColumn(),
                                      MofNCompleteColumn(), TimeRemainingColumn(),
                                      console=err_console(), transient=True, auto_refresh=False)
        self._task = self._progress.add_task(self.label, total=self.total, completed=self.done)
        self._progress.start()

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()


#: Seconds of work before a progress bar is drawn.
PROGRESS_DELAY = 0.5


@functools.cache
def err_console() -> Any:
    """The rich console on stderr (created on first use)."""
    from rich.console import Console  # 30 ms of import: only when drawing for a person

    return Console(stderr=True)


def status(message: str) -> Any:
    """A spinner with ``message`` on stderr while a step without steps runs."""
    if not show_progress():
        return contextlib.nullcontext()
    return err_console().status(message)
