"""Rows of values as a table for people, TSV, CSV or JSON: what ``query``,
``summary show``, ``info``, ``show``, ``nav`` and ``compare`` print.

Numbers follow :mod:`graphprum.floats`: full precision in tsv, csv and json,
``digits`` in the table.  Text that is not valid UTF-8 (undecodable bytes
of file names) shows them as ``\\xNN`` (:func:`graphprum.errors.printable`).
TSV fields escape backslash, tab, newline and
carriage return as ``\\\\``, ``\\t``, ``\\n``, ``\\r`` so that every record
stays on one line; CSV quotes as RFC 4180 does; JSON is a list of objects
keyed by column.  Lists and mappings inside a cell are written as JSON text
in tsv, csv and the table.

Examples
--------
>>> import io, sys
>>> rows = [["x", "y", 0.536], ["x", "z", 0.7000000000000002]]
>>> out = io.StringIO(); write_rows(["from", "to", "p"], rows, "tsv", out)
>>> out.getvalue().splitlines()
['from\\tto\\tp', 'x\\ty\\t0.536', 'x\\tz\\t0.7000000000000002']
>>> write_rows(["from", "to", "p"], rows, "table", sys.stdout)
from  to      p
x     y   0.536
x     z     0.7
>>> out = io.StringIO(); write_rows(["a", "b"], [["tab\\there", 1e-05]], "csv", out)
>>> out.getvalue()
'a,b\\ntab\\there,1e-05\\n'
>>> out = io.StringIO(); write_rows(["a"], [["tab\\there"]], "tsv", out, header=False)
>>> out.getvalue()
'tab\\\\there\\n'
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from numbers import Real
from typing import Any, TextIO

from graphprum.errors import UsageError, printable
from graphprum.floats import DIGITS, exact, json_value, readable

#: What :func:`write_rows` writes.
FORMATS = ("table", "tsv", "csv", "json")

_TSV_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def tsv_field(text: str) -> str:
    """``text`` with backslash, tab, newline and carriage return escaped."""
    return text.translate(_TSV_ESCAPES)


def _is_bool(value: Any) -> bool:
    """A Python or numpy boolean (numpy not imported for it)."""
    kind = type(value)
    return isinstance(value, bool) or (kind.__module__ == "numpy"
                                       and kind.__name__ in ("bool", "bool_"))


def _text(value: Any) -> str:
    """A cell as text for tsv/csv: numbers at full precision, containers and
    booleans as JSON writes them.

    >>> import numpy
    >>> [_text(v) for v in (True, numpy.False_, 0.1, None, [True, None])]
    ['true', 'false', '0.1', '', '[true, null]']
    """
    if value is None:
        return ""
    if _is_bool(value):
        return "true" if value else "false"
    if isinstance(value, Mapping | list | tuple):
        return printable(json.dumps(value, default=str, ensure_ascii=False))
    return printable(exact(value))


def _human(value: Any, digits: int, group: bool) -> str:
    """A cell for the table: numbers by :func:`graphprum.floats.readable`, the
    rest as :func:`_text` writes it."""
    if value is None or _is_bool(value) or isinstance(value, Mapping | list | tuple):
        return _text(value)
    if group and isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        value = json_value(value)
    return printable(readable(value, digits))


def _json_ready(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {printable(str(k)): _json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_ready(v) for v in value]
    if isinstance(value, str):
        return printable(value)
    return json_value(value)


def write_rows(columns: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str, out: TextIO, *,
               digits: int = DIGITS, header: bool = True, group_thousands: bool = False,
               title: str | None = None, footer: str | None = None) -> None:
    """Write ``rows`` (one value per column) in ``fmt`` to ``out``.

    Parameters
    ----------
    columns : sequence of str
        Column names: the header of tsv, csv and the table, the keys of json.
    rows : sequence of sequences
        Values: numbers, text, None (empty), lists or mappings (JSON text).
    fmt : {"table", "tsv", "csv", "json"}
        ``table`` aligns columns for people (numbers to ``digits``, see
        :mod:`graphprum.floats`), the others keep full precision.
    header : bool
        Write the header line in tsv and csv (records keep their keys in json).
    group_thousands : bool
        Write integers as ``5,037`` in the table.
    title, footer : str, optional
        Lines above and below the table (table format only).
    """
    if fmt == "tsv":
        if header:
            out.write("\t".join(tsv_field(c) for c in columns) + "\n")
        for row in rows:
            out.write("\t".join(tsv_field(_text(v)) for v in row) + "\n")
    elif fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        if header:
            writer.writerow(columns)
        writer.writerows([_text(v) for v in row] for row in rows)
    elif fmt == "json":
        records = [{c: _json_ready(v) for c, v in zip(columns, row, strict=False)}
                   for row in rows]
        json.dump(records, out, indent=1, ensure_ascii=False, default=str)
        out.write("\n")
    elif fmt == "table":
        _write_table(columns, rows, out, digits, group_thousands, title, footer)
    else:
        raise UsageError(f"unknown format {fmt!r}; choose {', '.join(FORMATS)}")


def _is_number(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def console_width(out: TextIO) -> int | None:
    """The terminal's width on a terminal (rich decides); wide enough elsewhere,
    so a table written to a file or pipe is never cut at 80 columns."""
    isatty = getattr(out, "isatty", None)
    return None if isatty is not None and isatty() else 100_000


#: Rows beyond which a table is laid out here, not by rich (which took 4.6 s
#: for the 10,720 partitions of a summary, against 0.6 s for the same as TSV).
PLAIN_ROWS = 2000


def _write_plain(columns: Sequence[str], rows: Sequence[Sequence[Any]], out: TextIO,
                 digits: int, group: bool, title: str | None, footer: str | None) -> None:
    """The table rich would print (columns two spaces apart, numbers to the
    right), laid out in one pass; a long line is left to the terminal to
    wrap, never cut.

    >>> import io
    >>> out = io.StringIO()
    >>> _write_plain(["name", "n"], [["a", 1], ["bcd", 22]], out, 4, False, None, None)
    >>> print(out.getvalue(), end="")
    name   n
    a      1
    bcd   22
    """
    cells = [[printable(c) for c in columns]]
    cells += [[_human(v, digits, group) for v in row] for row in rows]
    n = len(columns)
    numeric = [bool(rows) and all(_is_number(r[i]) for r in rows
                                  if i < len(r) and r[i] is not None) for i in range(n)]
    widths = [max(len(line[i]) if i < len(line) else 0 for line in cells) for i in range(n)]
    if title:
        out.write(printable(title) + "\n")
    for line in cells:
        padded = [(line[i] if i < len(line) else "").rjust(widths[i]) if numeric[i]
                  else (line[i] if i < len(line) else "").ljust(widths[i]) for i in range(n)]
        out.write("  ".join(padded).rstrip() + "\n")
    if footer:
        out.write(printable(footer) + "\n")


def _write_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], out: TextIO,
                 digits: int, group: bool, title: str | None, footer: str | None) -> None:
    if len(rows) > PLAIN_ROWS and columns:  # rich lays out 10,000 rows in seconds
        _write_plain(columns, rows, out, digits, group, title, footer)
        return
    from rich.console import Console  # 30 ms of import: only when drawing for a person
    from rich.markup import escape
    from rich.table import Table

    console = Console(file=out, highlight=False, width=console_width(out))
    if title:
        console.print(escape(title))
    if columns:
        numeric = [bool(rows) and all(_is_number(r[i]) for r in rows
                                      if i < len(r) and r[i] is not None)
                   for i in range(len(columns))]
        table = Table(box=None, pad_edge=False)
        for c, num in zip(columns, numeric, strict=True):
            table.add_column(escape(c), justify="right" if num else "left", overflow="fold")
        for row in rows:
            table.add_row(*(escape(_human(v, digits, group)) for v in row))
        console.print(table)
    if footer:
        console.print(escape(footer))
