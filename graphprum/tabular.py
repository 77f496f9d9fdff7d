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
a table too wide for the terminal is drawn to fit without breaking an id, a
name or a number: its prose wrapped, beside or under the rest, else
transposed, long, or a block per row (:func:`_fitting_table`).

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
    from rich.text import Text

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

    On a terminal too narrow for the table, it is drawn to fit
    (:func:`_fitting_table`): prose wrapped at spaces, beside the other
    columns or under each row; else transposed (its columns as rows: eval's
    measures down the side, trec_eval's way), long (one row per cell after
    the keys: run, measure, value, as the TSV), or a block per row; ids,
    names and numbers are never wrapped or cut.  Off a terminal the table
    is always as wide as it likes.

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
        drawn = _fitting_table(grid, console, ruled, caption)
        if isinstance(drawn, list):  # lines as they are: a longer one is the terminal's to wrap
            for line in drawn:
                console.print(line, soft_wrap=True)
        else:
            console.print(drawn)
    if note:
        console.print(escape(note))


#: The narrowest a column of prose (text of several words, such as a
#: measure's summary) is wrapped to: below it a line holds three or four
#: words and the table reads as a column of words.
PROSE_WIDTH = 30


def _prose(grid: Grid) -> list[int]:
    """The columns of prose: after the keys, left-aligned, some cell of
    several words, the widest wider than :data:`PROSE_WIDTH`.  Only these
    are ever wrapped (at spaces); ids, names and numbers never are."""
    from rich.cells import cell_len

    return [j for j in range(grid.keys, len(grid.header)) if grid.align[j] == "l"
            and any(" " in r[j].strip() for r in grid.rows if j < len(r))
            and max(cell_len(r[j]) for r in grid.rows if j < len(r)) > PROSE_WIDTH]


def _fitting_table(grid: Grid, console: Console, ruled: bool,
                   caption: str | None) -> Table | list[Text]:
    """``grid`` drawn to fit the console without breaking an id, a number
    or a word, the first of these that fits:

    1. as a table, as wide as it likes, or with its prose columns
       (:func:`_prose`) wrapped at spaces to no fewer than
       :data:`PROSE_WIDTH` columns (nor than their longest word);
    2. the other columns as a table, each row's prose on the lines under it
       (``graphprum measures``: a measure's summary under its name);
    3. transposed (:meth:`Grid.transposed`), then long (:meth:`Grid.long`),
       each as in 1;
    4. one record per block, a ``column  value`` line per cell (``nav``'s
       long ids): a value wider than the terminal is left whole on its line.

    Off a terminal the table is as wide as it likes."""
    if console.width >= OFF_TERMINAL_WIDTH:  # a file or pipe: nothing to fit (1 s of 3.3 s
        return _rich_table(grid, ruled, caption)  # for 3,000 rows measured needlessly)
    table = _wrapped(grid, console, ruled, caption)
    if table is not None:
        return table
    lines = _prose_beneath(grid, console.width)
    if lines is not None:
        return lines
    for layout in (Grid.transposed, Grid.long):
        table = _wrapped(layout(grid), console, ruled, caption)
        if table is not None:
            return table
    return _records(grid, console.width)


def _wrapped(grid: Grid, console: Console, ruled: bool, caption: str | None) -> Table | None:
    """``grid`` as a rich table that fits ``console``: as wide as it likes,
    or its prose columns narrowed (the others never are); None if neither fits."""
    from rich.cells import cell_len
    from rich.measure import Measurement

    unbounded = console.options.update_width(1_000_000)

    def width(widths: dict[int, int]) -> int:
        table = _rich_table(grid, ruled, caption, widths)
        return Measurement.get(console, unbounded, table).maximum

    if width({}) <= console.width:
        return _rich_table(grid, ruled, caption)
    prose = _prose(grid)
    if not prose:
        return None
    lines = [[grid.header[j], *(r[j] for r in grid.rows)] for j in prose]
    natural = [max(cell_len(line) for c in cells for line in c.split("\n")) for cells in lines]
    words = [max(cell_len(w) for c in cells for w in c.split()) for cells in lines]
    narrowest = [min(n, max(w, PROSE_WIDTH)) for n, w in zip(natural, words, strict=True)]
    spare = console.width - width(dict(zip(prose, narrowest, strict=True)))
    if spare < 0:
        return None
    widths = list(narrowest)
    while spare > 0 and any(w < n for w, n in zip(widths, natural, strict=True)):
        for i, n in enumerate(natural):  # the spare columns shared out one at a time
            if spare > 0 and widths[i] < n:
                widths[i] += 1
                spare -= 1
    return _rich_table(grid, ruled, caption, dict(zip(prose, widths, strict=True)))


def _cell(grid: Grid, i: int, j: int) -> Text:
    """Cell ``(i, j)`` of ``grid`` as rich text: bold, with its superscript."""
    from rich.text import Text

    text = Text(grid.rows[i][j], style="bold" if (i, j) in grid.bold else "")
    text.append(grid.sup.get((i, j), "").translate(_SUPERSCRIPT))
    return text


def _indented(prefix: Text, text: str, width: int) -> list[Text]:
    """``text`` wrapped at spaces to ``width`` after ``prefix`` (its first
    line) or as many spaces (the others); a word longer than that whole."""
    import textwrap

    from rich.text import Text

    lines = textwrap.wrap(text, max(1, width - len(prefix)), break_long_words=False,
                          break_on_hyphens=False) or [""]
    return [prefix + line if k == 0 else Text(" " * len(prefix) + line)
            for k, line in enumerate(lines)]


def _prose_beneath(grid: Grid, width: int) -> list[Text] | None:
    """The columns other than prose as a table, each row's prose indented
    on the lines under it (the header's names of the prose likewise); None
    when there is no prose or the other columns do not fit ``width``."""
    from rich.cells import cell_len
    from rich.text import Text

    prose = _prose(grid)
    shown = [j for j in range(len(grid.header)) if j not in prose]
    if not prose or not shown:
        return None
    cells = [[_cell(grid, i, j) for j in shown] for i in range(len(grid.rows))]
    heads = [Text(grid.header[j], style="bold") for j in shown]
    widths = [max(cell_len(c.plain) for c in column) for column in zip(heads, *cells, strict=True)]
    if sum(widths) + 2 * (len(shown) - 1) > width:
        return None
    indent = Text("    ")

    def line(row: list[Text]) -> Text:
        out = Text()
        for k, (j, cell, w) in enumerate(zip(shown, row, widths, strict=True)):
            pad = " " * (w - cell_len(cell.plain))
            out += Text("  " if k else "") + (Text(pad) + cell if grid.align[j] == "r"
                                             else cell + pad)
        out.rstrip()
        return out

    lines = [line(heads), *(Text(f"    {grid.header[j]}", style="bold") for j in prose)]
    for i, row in enumerate(cells):
        lines.append(line(row))
        for j in prose:
            if grid.rows[i][j] or len(prose) > 1:
                lines += _indented(indent, grid.rows[i][j], width)
    return lines


def _records(grid: Grid, width: int) -> list[Text]:
    """One block per row, a blank line between: a ``column  value`` line per
    cell (the keys', and every other that is not empty); prose wrapped at
    spaces under itself, anything else whole on its line."""
    from rich.text import Text

    prose = _prose(grid)
    names = [" ".join(h.split("\n")) for h in grid.header]
    name_width = max(len(n) for n in names)
    lines: list[Text] = []
    for i, row in enumerate(grid.rows):
        if i:
            lines.append(Text())
        for j, value in enumerate(row):
            if value or j < grid.keys:
                name = Text(names[j].ljust(name_width) + "  ", style="bold")
                lines += (_indented(name, value, width) if j in prose
                          else [name + _cell(grid, i, j)])
    return lines


def _rich_table(grid: Grid, ruled: bool, caption: str | None,
                widths: Mapping[int, int] | None = None) -> Table:
    """``grid`` as a rich table: only the columns of ``widths`` (prose, at
    those widths) are wrapped, at spaces; no other is ever wrapped."""
    from rich.box import HEAVY_HEAD  # 30 ms of import: only when drawing for a person
    from rich.markup import escape
    from rich.table import Table

    table = Table(box=HEAVY_HEAD if ruled else None, show_edge=False, pad_edge=False,
                  caption=escape(caption) if caption else None, caption_justify="left")
    widths = widths or {}
    for j, (h, a) in enumerate(zip(grid.header, grid.align, strict=True)):
        table.add_column(escape(h), justify="right" if a == "r" else "left",
                         width=widths.get(j), no_wrap=j not in widths)
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
