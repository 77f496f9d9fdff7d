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


def main() -> None:
    """Entry point of the ``graphprum`` script."""
    try:
        app()
    except KeyboardInterrupt:
        print("graphprum: interrupted", file=sys.stderr)
        sys.exit(130)
