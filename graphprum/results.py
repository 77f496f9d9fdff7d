"""Writing results: tables (rich), tsv, csv, json, LaTeX (booktabs), markdown.

TSV rows are ``RUN<TAB>MEASURE<TAB>TOPIC<TAB>VALUE`` at full precision, like
trec_eval's output; tables (rich, LaTeX, markdown) show ``digits`` decimals
(default 4) with the best mean of each measure in bold (the largest, the
smallest for a measure where lower is better such as ``ESL``, none for a
count such as ``num_ret``: :attr:`graphprum.measures.declare.Family.better`).
Numbers follow the one rule of :mod:`graphprum.floats`.

Examples
--------
>>> import io, pandas as pd
>>> df = pd.DataFrame([("r1", "PRUM", "all", 0.5)], columns=["run", "measure", "topic", "value"])
>>> out = io.StringIO(); write_results(df, "tsv", out); out.getvalue()
'r1\\tPRUM\\tall\\t0.5\\n'
>>> out = io.StringIO(); write_results(df, "markdown", out); print(out.getvalue(), end="")
| run | PRUM |
|:----|-----:|
| r1 | 0.5000 |
>>> out = io.StringIO(); write_results(df, "latex", out, digits=2); print(out.getvalue(), end="")
\\begin{tabular}{lr}
\\toprule
run & PRUM \\\\
\\midrule
r1 & 0.50 \\\\
\\bottomrule
\\end{tabular}
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from graphprum import tabular
from graphprum.errors import UsageError
from graphprum.evaluation.rows import COLUMNS, SKIPPED, PrintedRow, ResultRows, printed_rows
from graphprum.floats import DIGITS, exact, fixed, json_value
from graphprum.measures.classical_names import TREC_MEASURES, trec_root
from graphprum.measures.names import aggregation_of, best_value, better_of, is_best

if TYPE_CHECKING:
    import pandas as pd

#: Every format :func:`write_results` knows.
FORMATS = ("table", "tsv", "csv", "json", "latex", "markdown", "trec")


def write_results(df: pd.DataFrame | ResultRows, fmt: str, out: TextIO,
                  digits: int = DIGITS) -> None:
    """Write an evaluation table in ``fmt`` to ``out``.

    Parameters
    ----------
    df : pandas.DataFrame or ResultRows
        Columns ``run, measure, topic, value`` (topic ``all`` for means),
        and ``stderr`` (:func:`graphprum.evaluate`), written as rows of
        their own, ``NAME stderr`` after the measure's rows; or the same as
        rows (:class:`~graphprum.evaluation.rows.ResultRows`, what
        ``graphprum eval`` writes without loading pandas).
    fmt : str
        One of :data:`FORMATS`: ``tsv``, ``csv`` and ``json`` at full
        precision (with ``unknown="skip"``, the results dropped per run:
        tsv and csv begin with a comment line per run, ``# RUN
        unknown_skipped all N`` in their layout, and json is an object
        ``{"unknown_skipped": {RUN: N}, "results": [...]}``); ``table``
        (rich, aligned), ``latex`` (booktabs tabular) and ``markdown`` (pipe
        table) with ``digits`` decimals, runs as rows and measures as
        columns, the best mean per measure in bold; ``trec``
        (:func:`write_trec`, trec_eval's layout and its 4 decimals).
    out : text stream
    digits : int
        Decimals of the table formats (default 4, as trec_eval).
    """
    rows = result_rows(df)
    skipped = _skipped(df)
    if fmt == "tsv":
        out.writelines(f"# {run}\t{SKIPPED}\tall\t{n}\n" for run, n in skipped.items())
        out.writelines(f"{run}\t{measure}\t{topic}\t{exact(value)}\n"
                       for run, measure, topic, value in rows)
    elif fmt == "csv":
        out.writelines(f"# {run},{SKIPPED},all,{n}\n" for run, n in skipped.items())
        tabular.write_rows(list(COLUMNS), rows, "csv", out)
    elif fmt == "json":
        records = [{"run": r, "measure": m, "topic": t, "value": json_value(v)}
                   for r, m, t, v in rows]
        json.dump({SKIPPED: skipped, "results": records} if skipped else records, out,
                  indent=1)
        out.write("\n")
    elif fmt in tabular.GRID_FORMATS:
        tabular.write_grid(_grid(rows, digits), fmt, out, ruled=True)
    elif fmt == "trec":
        write_trec(rows, out)
    else:
        raise UsageError(f"unknown format {fmt!r}; choose {', '.join(FORMATS)}")


def _skipped(results: pd.DataFrame | ResultRows) -> dict[str, int]:
    """Per run, the results ``unknown="skip"`` dropped ({} when not asked for)."""
    found = results.skipped if isinstance(results, ResultRows) else \
        getattr(results, "attrs", {}).get(SKIPPED)
    return dict(found or {})


def result_rows(results: pd.DataFrame | ResultRows | Sequence[PrintedRow]) -> list[PrintedRow]:
    """The rows ``(run, measure, topic, value)`` of an evaluation as printed:
    standard errors as rows of their own
    (:func:`~graphprum.evaluation.rows.printed_rows`)."""
    if isinstance(results, ResultRows):
        return results.printed()
    if isinstance(results, Sequence):
        return list(results)
    columns = [*COLUMNS, "stderr"] if "stderr" in results.columns else list(COLUMNS)
    return printed_rows(list(results[columns].itertuples(index=False, name=None)))


def write_trec(df: pd.DataFrame | ResultRows | Sequence[PrintedRow], out: TextIO,
               runid: bool = True) -> None:
    """trec_eval's output: ``MEASURE<TAB>TOPIC<TAB>VALUE``, one run.

    As trec_eval prints them: the measure name left-justified in 22
    characters; per-topic rows first, topic by topic, then a ``runid`` row
    with the run's TAG (``runid``: trec_eval prints it for its sets such as
    ``-m all_trec``, not for a list of measures) and the ``all`` rows;
    trec_eval's measures in the order of its measure table whatever the
    order of ``-m``, a measure's cutoffs in increasing order (others after
    them, as given); counts (``num_ret``, ``NumRelRet``, ...) as integers,
    other values with 4 decimals; no per-topic rows for geometric means
    (``gm_map``) or for ``num_q``, as trec_eval.

    >>> import io, pandas as pd
    >>> df = pd.DataFrame([("r", "map", "1", 0.5), ("r", "num_ret", "1", 3.0),
    ...                    ("r", "map", "all", 0.5), ("r", "num_ret", "all", 3.0)],
    ...                   columns=["run", "measure", "topic", "value"])
    >>> out = io.StringIO(); write_trec(df, out); print(out.getvalue().expandtabs(4), end="")
    num_ret                 1   3
    map                     1   0.5000
    runid                   all r
    num_ret                 all 3
    map                     all 0.5000
    """
    rows = result_rows(df)
    topics = list(dict.fromkeys(t for _, _, t, _ in rows if t != "all"))
    table = {root: i for i, root in enumerate(TREC_MEASURES)}

    def place(measure: str) -> tuple[int, float]:  # P_5 before P_10, as trec_eval
        m = trec_root(measure)
        if m is None:
            return len(table), 0.0
        return table[m.root], float(measure[len(m.root) + 1:]) if m.param else 0.0

    places = {m: place(m) for m in dict.fromkeys(m for _, m, _, _ in rows)}  # once a name
    rows.sort(key=lambda r: places[r[1]])
    runs = list(dict.fromkeys(r for r, _, _, _ in rows))
    if len(runs) > 1:
        raise UsageError("--format trec writes one run (trec_eval's layout has no run column); "
                         "give one run, or use --format tsv")
    how: dict[str, str] = {}

    def kind(measure: str) -> str:
        if measure not in how:
            how[measure] = aggregation_of(measure)
        return how[measure]

    def line(measure: str, topic: str, value: float) -> str:
        text = f"{round(value)}" if kind(measure) == "sum" and math.isfinite(value) \
            else f"{value:6.4f}"
        return f"{measure:<22}\t{topic}\t{text}\n"

    for topic in topics:
        out.writelines(line(m, t, v) for _, m, t, v in rows
                       if t == topic and kind(m) != "gmean" and m != "num_q")
    summary = [line(m, t, v) for _, m, t, v in rows if t == "all"]
    if summary and runid:  # trec_eval -n prints no summary, runid included
        out.write(f"{'runid':<22}\tall\t{runs[0]}\n")
    out.writelines(summary)


def _grid(result: Sequence[PrintedRow], digits: int = DIGITS) -> tabular.Grid:
    """Runs (and topics) as rows, measures as columns, ``digits`` decimals; cells to bold."""
    measures = list(dict.fromkeys(m for _, m, _, _ in result))
    topics = [t for t in dict.fromkeys(t for _, _, t, _ in result) if t != "all"]
    topics.append("all")
    runs = list(dict.fromkeys(r for r, _, _, _ in result))
    values = {(t, r, m): v for r, m, t, v in result}
    best = {m: best_value([values[("all", r, m)] for r in runs if ("all", r, m) in values],
                     better_of(m)) for m in measures}
    with_topic = len(topics) > 1
    header = (["topic"] if with_topic else []) + ["run", *measures]
    rows: list[list[str]] = []
    bold: set[tuple[int, int]] = set()
    first = 2 if with_topic else 1
    for topic in topics:
        for run in runs:
            if not any((topic, run, m) in values for m in measures):
                continue
            cells = []
            for j, m in enumerate(measures):
                v = values.get((topic, run, m))
                cells.append("" if v is None else fixed(v, digits))
                if topic == "all" and len(runs) > 1 and is_best(v, best[m]):
                    bold.add((len(rows), first + j))
            rows.append(([topic] if with_topic else []) + [run, *cells])
    return tabular.Grid(header, rows, "l" * first + "r" * len(measures), bold, keys=first,
                        field_name="measure")


def write_rows(rows: Sequence[dict[str, str]], fmt: str, out: TextIO, *,
               title: str | None = None) -> None:
    """Rows of text (a listing such as ``graphprum measures``) in ``fmt``, as
    :func:`graphprum.tabular.write_rows` writes every table: ``table`` (rich,
    aligned, never cut off a terminal), ``tsv`` (a header line, then one line
    per row), ``csv`` or ``json`` (a list of objects); ``title`` above the
    table (wrapped at spaces to a terminal's width).

    >>> import io
    >>> out = io.StringIO(); write_rows([{"name": "PRUM", "cutoff": "level"}], "tsv", out)
    >>> out.getvalue()
    'name\\tcutoff\\nPRUM\\tlevel\\n'
    """
    columns = list(dict.fromkeys(k for r in rows for k in r))
    tabular.write_rows(columns, [[r.get(c, "") for c in columns] for r in rows], fmt, out,
                       title=title)
