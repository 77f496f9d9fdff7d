"""The ``graphprum`` command line: a thin layer over the Python API.

One module per command group (:mod:`~graphprum.cli.load`,
:mod:`~graphprum.cli.browse`, :mod:`~graphprum.cli.summary`,
:mod:`~graphprum.cli.evaluate`, :mod:`~graphprum.cli.query`,
:mod:`~graphprum.cli.server`); what they share is in :mod:`~graphprum.cli.app`
and :mod:`~graphprum.cli.options`.  Every error a user can cause is printed
as one line on stderr and exits with status 2; nothing is written to the
store in that case.
"""

from __future__ import annotations

import sys

from graphprum.cli import browse, evaluate, load, query, server, summary  # noqa: F401
from graphprum.cli.app import app, main_options

__all__ = ["app", "main", "main_options"]


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


def main() -> None:
    """Entry point of the ``graphprum`` script."""
    if sys.stderr is not None and not isinstance(sys.stderr, _RedactedStream):
        sys.stderr = _RedactedStream(sys.stderr)
    try:
        app()
    except KeyboardInterrupt:
        print("graphprum: interrupted", file=sys.stderr)
        sys.exit(130)
