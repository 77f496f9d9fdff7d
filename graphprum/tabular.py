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

Every table for people, these and the grids of ``eval`` and ``compare``
(:class:`Grid`: text cells, some bold, some with superscript letters), is
drawn by one writer, :func:`write_grid`, as a rich table, markdown or LaTeX;
a table too wide for the terminal is drawn transposed or long instead.

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
from dataclasses import dataclass, field
from numbers import Real
from typing import TYPE_CHECKING, Any, TextIO

from graphprum.errors import UsageError, printable
from graphprum.floats import DIGITS, exact, json_value, readable

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

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


#: The width of a table written to a file or pipe: as wide as it likes.
OFF_TERMINAL_WIDTH = 100_000


def console_width(out: TextIO) -> int | None:
    """The terminal's width on a terminal (rich decides); wide enough elsewhere,
    so a table written to a file or pipe is never cut at 80 columns."""
    isatty = getattr(out, "isatty", None)
    return None if isatty is not None and isatty() else OFF_TERMINAL_WIDTH


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
    numeric = [bool(rows) and all(_is_number(r[i]) for r in rows
                                  if i < len(r) and r[i] is not None)
               for i in range(len(columns))]
    grid = Grid(list(columns), [[_human(v, digits, group) for v in row] for row in rows],
                "".join("r" if num else "l" for num in numeric))
    write_grid(grid, "table", out, title=title, note=footer)


# ------------------------------------------------------------------ grids
@dataclass
class Grid:
    """A table of text for people: what eval, compare and ``compare --view
    runs`` print as ``table``, ``markdown`` and ``latex`` (:func:`write_grid`).

    ``align`` has a letter per column, ``l`` or ``r``; ``bold`` holds the
    (row, column) cells set in bold, ``sup`` the letters set as a
    superscript after a cell; ``keys``, the leading columns that name a row
    (``run``; ``topic, run``), and ``field_name``, what the other columns'
    names are (``measure``): the long layout of a grid too wide for the
    terminal (:func:`write_grid`).
    """

    header: list[str]
    rows: list[list[str]]
    align: str
    bold: set[tuple[int, int]] = field(default_factory=set)
    sup: dict[tuple[int, int], str] = field(default_factory=dict)
    keys: int = 1
    field_name: str = "column"

    def transposed(self) -> Grid:
        """The columns as rows: a column of the other columns' names, then one
        column per row, headed by its key cells (one line each).

        >>> g = Grid(["run", "AP", "P_5"], [["a", "0.5", "0.2"], ["b", "0.4", "0.6"]], "lrr",
        ...          bold={(0, 1), (1, 2)})
        >>> t = g.transposed(); t.header, t.rows, t.align, sorted(t.bold)
        (['run', 'a', 'b'], [['AP', '0.5', '0.4'], ['P_5', '0.2', '0.6']], 'lrr', [(0, 1), (1, 2)])
        """
        k = self.keys
        header = ["\n".join(self.header[:k]), *("\n".join(r[:k]) for r in self.rows)]
        rows = [[self.header[j], *(r[j] for r in self.rows)] for j in range(k, len(self.header))]
        return Grid(header, rows, "l" + self._value_align() * len(self.rows),
                    {(j - k, i + 1) for i, j in self.bold},
                    {(j - k, i + 1): s for (i, j), s in self.sup.items()})

    def long(self) -> Grid:
        """One row per non-empty cell: the row's key cells, the column's name
        (under :attr:`field_name`) and the cell, as TSV lays results out.

        >>> g = Grid(["run", "AP", "P_5"], [["a", "0.5", ""], ["b", "0.4", "0.6"]], "lrr",
        ...          bold={(0, 1), (1, 2)}, field_name="measure")
        >>> t = g.long(); t.header, t.rows, t.align, sorted(t.bold)
        (['run', 'measure', 'value'], [['a', 'AP', '0.5'], ['b', 'AP', '0.4'], \
['b', 'P_5', '0.6']], 'llr', [(0, 2), (2, 2)])
        """
        k = self.keys
        grid = Grid([*self.header[:k], self.field_name, "value"], [],
                    self.align[:k] + "l" + self._value_align(), keys=k + 1)
        for i, row in enumerate(self.rows):
            for j in range(k, len(self.header)):
                if row[j]:
                    if (i, j) in self.bold:
                        grid.bold.add((len(grid.rows), k + 1))
                    if (i, j) in self.sup:
                        grid.sup[len(grid.rows), k + 1] = self.sup[i, j]
                    grid.rows.append([*row[:k], self.header[j], row[j]])
        return grid

    def _value_align(self) -> str:
        """``r`` when any column after the keys is right-aligned (numbers)."""
        return "r" if "r" in self.align[self.keys:] else "l"


#: The formats of :func:`write_grid`.
GRID_FORMATS = ("table", "markdown", "latex")

_SUPERSCRIPT = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖᑫʳˢᵗᵘᵛʷˣʸᶻ")


def write_grid(grid: Grid, fmt: str, out: TextIO, *, ruled: bool = False,
               title: str | None = None, caption: str | None = None, note: str | None = None,
               fit_rule: bool = True) -> None:
    """Write ``grid`` as a ``table`` (rich), ``markdown`` (:func:`markdown_table`)
    or ``latex`` (:func:`latex_table`).

    ``ruled``: the table's columns apart by rules and its header by a line
    (rich's default box) rather than by spaces; ``title`` and ``caption``
    (table only) above it and below it at its width; ``note`` below the
    table at the terminal's width, below the markdown, as a LaTeX comment
    above the tabular; ``fit_rule``: see :func:`markdown_table`.

    On a terminal too narrow for the table, it is drawn transposed (its
    columns as rows: eval's measures down the side, trec_eval's way), or,
    when that is too wide too, long (one row per cell after the keys: run,
    measure, value, as the TSV); numbers are never wrapped or cut.  Off a
    terminal the table is always as wide as it likes.

    >>> import sys
    >>> grid = Grid(["run", "AP"], [["a", "0.5000"], ["b", "0.2500"]], "lr", bold={(0, 1)})
    >>> write_grid(grid, "table", sys.stdout, note="(bold: the best)")
    run      AP
    a    0.5000
    b    0.2500
    (bold: the best)
    """
    if fmt == "latex":
        out.write((f"% {note}\n" if note else "") + latex_table(grid))
    elif fmt == "markdown":
        out.write(markdown_table(grid, fit_rule=fit_rule) + (f"\n{note}\n" if note else ""))
    elif fmt == "table":
        _write_rich(grid, out, ruled, title, caption, note)
    else:
        raise UsageError(f"unknown format {fmt!r}; choose {', '.join(GRID_FORMATS)}")


def _write_rich(grid: Grid, out: TextIO, ruled: bool, title: str | None, caption: str | None,
                note: str | None) -> None:
    from rich.console import Console  # 30 ms of import: only when drawing for a person
    from rich.markup import escape

    console = Console(file=out, highlight=False, width=console_width(out))
    if title:
        console.print(escape(title))
    if grid.header:
        console.print(_fitting_table(grid, console, ruled, caption))
    if note:
        console.print(escape(note))


def _fitting_table(grid: Grid, console: Console, ruled: bool, caption: str | None) -> Table:
    """``grid`` as a rich table as wide as it likes when that fits the
    console; else transposed (:meth:`Grid.transposed`) when that fits; else
    long (:meth:`Grid.long`).  Numbers (right-aligned columns) are never
    wrapped; text is folded when nothing else fits."""
    from rich.measure import Measurement

    unbounded = console.options.update_width(1_000_000)
    table = _rich_table(grid, ruled, caption)
    if console.width >= OFF_TERMINAL_WIDTH:  # a file or pipe: nothing to fit (1 s of 3.3 s
        return table                          # for 3,000 rows measured needlessly)
    for layout in (Grid.transposed, Grid.long):
        if Measurement.get(console, unbounded, table).maximum <= console.width:
            break
        table = _rich_table(layout(grid), ruled, caption)
    return table


def _rich_table(grid: Grid, ruled: bool, caption: str | None) -> Table:
    from rich.box import HEAVY_HEAD  # 30 ms of import: only when drawing for a person
    from rich.markup import escape
    from rich.table import Table

    table = Table(box=HEAVY_HEAD if ruled else None, show_edge=False, pad_edge=False,
                  caption=escape(caption) if caption else None, caption_justify="left")
    for h, a in zip(grid.header, grid.align, strict=True):
        table.add_column(escape(h), justify="right" if a == "r" else "left",
                         overflow="fold", no_wrap=a == "r")
    for i, row in enumerate(grid.rows):
        table.add_row(*[(f"[bold]{escape(c)}[/bold]" if (i, j) in grid.bold else escape(c))
                        + grid.sup.get((i, j), "").translate(_SUPERSCRIPT)
                        for j, c in enumerate(row)])
    return table


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
                  "∞": r"$\infty$", "–": "--", "|": r"\textbar{}"}


def latex_escape(text: str) -> str:
    r"""Escape LaTeX's special characters.

    >>> print(latex_escape("nxCG@10 & P_5 #1"))
    nxCG@10 \& P\_5 \#1
    """
    return "".join(_LATEX_SPECIAL.get(c, c) for c in text)


def latex_table(grid: Grid) -> str:
    r"""A booktabs ``tabular`` (needs ``\usepackage{booktabs}``): bold cells in
    ``\textbf``, superscripts as ``$^{...}$``.

    >>> print(latex_table(Grid(["run", "AP"], [["a_1", "0.5000"]], "lr", bold={(0, 1)})), end="")
    \begin{tabular}{lr}
    \toprule
    run & AP \\
    \midrule
    a\_1 & \textbf{0.5000} \\
    \bottomrule
    \end{tabular}
    """
    lines = [f"\\begin{{tabular}}{{{grid.align}}}", "\\toprule",
             " & ".join(latex_escape(h) for h in grid.header) + r" \\", "\\midrule"]
    for i, row in enumerate(grid.rows):
        cells = [latex_escape(c) for c in row]
        cells = [(f"\\textbf{{{c}}}" if (i, j) in grid.bold and c else c)
                 + (f"$^{{{sup}}}$" if (sup := grid.sup.get((i, j))) else "")
                 for j, c in enumerate(cells)]
        lines.append(" & ".join(cells) + r" \\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


def markdown_escape(text: str) -> str:
    r"""Escape what would break a pipe-table cell (``|``, ``*``, ``_``, backslash).

    >>> markdown_escape("a|b_c")
    'a\\|b\\_c'
    """
    for c in ("\\", "|", "*", "_", "`"):
        text = text.replace(c, "\\" + c)
    return text


def markdown_table(grid: Grid, *, fit_rule: bool = True) -> str:
    """A GitHub-flavoured markdown pipe table: bold cells wrapped in ``**``,
    superscripts in ``<sup>``; the rule under the header as wide as each
    header cell, or, without ``fit_rule``, ``:---`` under every column.

    >>> print(markdown_table(Grid(["run", "AP"], [["a", "0.5"]], "lr")), end="")
    | run | AP |
    |:----|---:|
    | a | 0.5 |
    """
    rule = {"l": ":{}", "r": "{}:"}
    cols = [markdown_escape(h) for h in grid.header]
    lines = ["| " + " | ".join(cols) + " |",
             "|" + "|".join(rule[a].format("-" * max(3, len(h) + 1)) if fit_rule else ":---"
                            for a, h in zip(grid.align, cols, strict=True)) + "|"]
    for i, row in enumerate(grid.rows):
        cells = [markdown_escape(c) for c in row]
        cells = [(f"**{c}**" if (i, j) in grid.bold and c else c)
                 + (f"<sup>{sup}</sup>" if (sup := grid.sup.get((i, j))) else "")
                 for j, c in enumerate(cells)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
