"""A comparison of runs laid out as ranx prints one: one row per run, a
column per measure, the best mean of each measure in bold and, after each
mean, a superscript letter for every run it is significantly better than.

Runs are lettered ``a``, ``b``, ... in order (``aa``, ``ab``, ... past
``z``).  A mean carries run X's letter when the paired test of the two runs
(:func:`graphprum.significance.compare`) found the difference significant
after correction and this run's mean is the better: the larger, or the
smaller for a measure where lower is better (``ESL``;
:attr:`graphprum.measures.declare.Family.better`); with a ``baseline``
only the pairs with the baseline are tested, so only its letter (or, on the
baseline's row, the others') can appear.  The best mean is the better one
in the same sense, as in ``eval``'s tables; a count (``num_ret``) has
neither bold nor letters.  When the means come with confidence
intervals (:func:`graphprum.significance.intervals`), each measure's column
is followed by its interval ``[low, high]``.

Examples
--------
>>> import pandas as pd
>>> from graphprum.significance import compare, intervals
>>> rows = [(r, "AP", f"t{i}", v) for r, vals in {"bm25": [.5, .6, .7, .8, .9, .7],
...         "rm3": [.4, .5, .5, .6, .7, .5], "lm": [.5, .6, .7, .7, .9, .9]}.items()
...         for i, v in enumerate(vals)]
>>> df = pd.DataFrame(rows, columns=["run", "measure", "topic", "value"])
>>> table = runs_table(compare(df, "AP", correction="none"),
...                    intervals(df, "AP", method="none"))
>>> table[["letter", "run", "mean", "best", "better_than"]].round(4).values.tolist()
[['a', 'bm25', 0.7, False, ['rm3']], ['b', 'rm3', 0.5333, False, []], \
['c', 'lm', 0.7167, True, ['rm3']]]
>>> import sys
>>> write_runs_table(table, "table", sys.stdout)  # doctest: +NORMALIZE_WHITESPACE
#  run   AP
a  bm25  0.7000ᵇ
b  rm3   0.5333
c  lm    0.7167ᵇ
"""

from __future__ import annotations

import math
from typing import TextIO

import pandas as pd

from graphprum.errors import UsageError
from graphprum.floats import DIGITS, fixed
from graphprum.measures.names import best_value, better_of, is_best
from graphprum.tabular import Grid, write_grid, write_rows

__all__ = ["COLUMNS", "FORMATS", "describe", "letter", "runs_table", "write_runs_table"]

#: Columns of :func:`runs_table`: ``better_than`` lists the TAGs of the runs
#: this run is significantly better than on the measure.
COLUMNS = ["measure", "run", "letter", "mean", "ci_low", "ci_high", "confidence", "n_topics",
           "best", "better_than"]
#: What :func:`write_runs_table` writes.
FORMATS = ("table", "tsv", "csv", "json", "latex", "markdown")


def letter(i: int) -> str:
    """The letter of the ``i``-th run (0-based): ``a`` ... ``z``, ``aa``, ``ab``, ...

    >>> letter(0), letter(25), letter(26), letter(27 * 26)
    ('a', 'z', 'aa', 'aaa')
    """
    text = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        text = chr(ord("a") + r) + text
    return text


def runs_table(pairs: pd.DataFrame, means: pd.DataFrame) -> pd.DataFrame:
    """The rows of the table (module notes), one per measure and run.

    Parameters
    ----------
    pairs : pandas.DataFrame
        Paired tests, :func:`graphprum.significance.compare` or
        ``compare_measures`` rows.
    means : pandas.DataFrame
        Each run's mean (and interval) per measure,
        :func:`graphprum.significance.intervals` rows; their runs, in order,
        are the table's rows.

    Returns
    -------
    pandas.DataFrame
        :data:`COLUMNS`, measure by measure in the order of ``means``.
    """
    runs = [str(r) for r in dict.fromkeys(means["run"])]
    letters = {run: letter(i) for i, run in enumerate(runs)}
    better = {str(m): better_of(str(m)) for m in dict.fromkeys(means["measure"])}
    wins: dict[tuple[str, str], list[str]] = {}
    for p in pairs.to_dict("records"):
        direction = better.get(str(p["measure"]))
        if p["significant"] and p["mean_a"] != p["mean_b"] and direction is not None:
            a_wins = (p["mean_a"] > p["mean_b"]) == (direction == "higher")
            winner, loser = (p["run_a"], p["run_b"]) if a_wins else (p["run_b"], p["run_a"])
            wins.setdefault((p["measure"], winner), []).append(loser)
    groups = dict(list(means.groupby("measure", sort=False)["mean"]))
    best = {m: best_value([float(v) for v in groups[m]], b) for m, b in better.items()}
    rows = []
    for m in means.to_dict("records"):
        beaten = sorted(wins.get((m["measure"], m["run"]), []), key=runs.index)
        rows.append([m["measure"], m["run"], letters[m["run"]], m["mean"], m["ci_low"],
                     m["ci_high"], m["confidence"], m["n_topics"],
                     is_best(float(m["mean"]), best[m["measure"]]), beaten])
    return pd.DataFrame(rows, columns=COLUMNS)


def describe(pairs: pd.DataFrame, means: pd.DataFrame, *, correction: str, alpha: float,
             samples: int, seed: int) -> str:
    """What the letters, the bold and the intervals of the table mean, in one sentence.

    >>> pairs = pd.DataFrame({"test": ["t"]})
    >>> means = pd.DataFrame({"method": ["bca"], "confidence": [0.95]})
    >>> for part in describe(pairs, means, correction="holm", alpha=0.05, samples=10000,
    ...                      seed=0).split("; "):
    ...     print(part)
    Superscript: significantly better than that run (paired t test, holm-corrected p < 0.05)
    bold: the best mean
    95% CI: BCa bootstrap interval of the mean over topics (10,000 resamples, seed 0).
    >>> means = pd.DataFrame({"measure": ["ESL(tau=5)"], "method": ["none"],
    ...                       "confidence": [0.95]})
    >>> describe(pairs, means, correction="none", alpha=0.05, samples=0, seed=0).split("; ")[-1]
    'bold: the best mean (the lowest for ESL(tau=5)).'
    """
    tests = " and ".join(dict.fromkeys(pairs["test"]))
    p = f"p < {alpha}, not corrected" if correction == "none" else \
        f"{correction}-corrected p < {alpha}"
    lower = [str(m) for m in dict.fromkeys(means.get("measure", []))
             if better_of(str(m)) == "lower"]
    text = (f"Superscript: significantly better than that run (paired {tests} test, {p}); "
            f"bold: the best mean" + (f" (the lowest for {', '.join(lower)})" if lower else ""))
    methods = [m for m in dict.fromkeys(means["method"]) if m != "none"]
    if methods:
        level = float(means["confidence"].iloc[0])
        kind = " and ".join({"bca": "BCa", "percentile": "percentile"}[m] for m in methods)
        text += (f"; {level:.0%} CI: {kind} bootstrap interval of the mean over topics "
                 f"({samples:,} resamples, seed {seed})")
    return text + "."


def write_runs_table(table: pd.DataFrame, fmt: str, out: TextIO, *, digits: int = DIGITS,
                     note: str | None = None) -> None:
    """Write :func:`runs_table` rows in ``fmt``.

    tsv, csv and json carry every column at full precision (``better_than``
    as a list); ``table`` (rich), ``markdown`` and ``latex`` lay the runs
    out as rows and the measures as columns (left-aligned, so that the
    digits line up before the letters), ``digits`` decimals, bold for
    the best mean, superscript letters (Unicode in the table,
    ``<sup>`` in markdown, ``$^{...}$`` in LaTeX), the interval after each
    measure when there is one; ``note`` (what the letters and intervals
    mean) below the table, or as a LaTeX comment above it.
    """
    if fmt in ("tsv", "csv", "json"):
        write_rows(COLUMNS, table[COLUMNS].values.tolist(), fmt, out)
        return
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose {', '.join(FORMATS)}")
    write_grid(_grid(table, digits), fmt, out, note=note, fit_rule=False)


def _grid(table: pd.DataFrame, digits: int) -> Grid:
    records = table.to_dict("records")
    measures = [str(m) for m in dict.fromkeys(r["measure"] for r in records)]
    runs = [str(r) for r in dict.fromkeys(r["run"] for r in records)]
    cells = {(str(r["run"]), str(r["measure"])): r for r in records}
    with_ci = {m: any(not math.isnan(cells[r, m]["ci_low"]) for r in runs if (r, m) in cells)
               for m in measures}
    header = ["#", "run"]
    for m in measures:
        header.append(m)
        if with_ci[m]:
            level = next(cells[r, m]["confidence"] for r in runs if (r, m) in cells)
            header.append(f"{level:.0%} CI")
    grid = Grid(header, [], "l" * len(header), keys=2, field_name="measure")
    for i, run in enumerate(runs):
        first = next(cells[run, m] for m in measures if (run, m) in cells)
        row = [str(first["letter"]), run]
        for m in measures:
            c = cells.get((run, m))
            if c is not None:
                if c["best"] and len(runs) > 1:
                    grid.bold.add((i, len(row)))
                if c["better_than"]:
                    grid.sup[i, len(row)] = "".join(str(cells[b, m]["letter"])
                                                    for b in c["better_than"])
            row.append("" if c is None else fixed(c["mean"], digits))
            if with_ci[m]:
                row.append("" if c is None or math.isnan(c["ci_low"]) else
                           f"[{fixed(c['ci_low'], digits)}, {fixed(c['ci_high'], digits)}]")
        grid.rows.append(row)
    return grid
