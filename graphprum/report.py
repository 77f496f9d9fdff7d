"""Writing results: tables (rich), tsv, csv, json.

TSV rows are ``RUN<TAB>MEASURE<TAB>TOPIC<TAB>VALUE`` with full precision
(``repr``), like trec_eval's output; tables show 4 decimals.

Examples
--------
>>> import io, pandas as pd
>>> df = pd.DataFrame([("r1", "PRUM", "all", 0.5)], columns=["run", "measure", "topic", "value"])
>>> out = io.StringIO(); write_results(df, "tsv", out); out.getvalue()
'r1\\tPRUM\\tall\\t0.5\\n'
"""

from __future__ import annotations

import json
from typing import TextIO

import pandas as pd
from rich.console import Console
from rich.table import Table

from graphprum.errors import UsageError


def write_results(df: pd.DataFrame, fmt: str, out: TextIO) -> None:
    """Write an evaluation table in ``fmt`` (table, tsv, csv, json) to ``out``."""
    if fmt == "tsv":
        for run, measure, topic, value in df.itertuples(index=False):
            out.write(f"{run}\t{measure}\t{topic}\t{value!r}\n")
    elif fmt == "csv":
        df.to_csv(out, index=False, float_format=None)
    elif fmt == "json":
        json.dump([{"run": r, "measure": m, "topic": t, "value": v}
                   for r, m, t, v in df.itertuples(index=False)], out, indent=1)
        out.write("\n")
    elif fmt == "table":
        _write_table(df, out)
    else:
        raise UsageError(f"unknown format {fmt!r}; choose table, tsv, csv or json")


def _write_table(df: pd.DataFrame, out: TextIO) -> None:
    """Runs as rows, measures as columns; the best mean per measure in bold."""
    console = Console(file=out, highlight=False)
    measures = list(dict.fromkeys(df["measure"]))
    topics = [t for t in dict.fromkeys(df["topic"]) if t != "all"] + ["all"]
    runs = list(dict.fromkeys(df["run"]))
    pivot = df.pivot_table(index=["topic", "run"], columns="measure", values="value",
                           aggfunc="first", sort=False)
    best = {m: df[(df["topic"] == "all") & (df["measure"] == m)]["value"].max()
            for m in measures}
    table = Table(show_edge=False, pad_edge=False)
    if len(topics) > 1:
        table.add_column("topic")
    table.add_column("run")
    for m in measures:
        table.add_column(m, justify="right")
    for topic in topics:
        for run in runs:
            if (topic, run) not in pivot.index:
                continue
            cells = []
            for m in measures:
                v = pivot.loc[(topic, run), m]
                text = f"{v:.4f}"
                if topic == "all" and len(runs) > 1 and v == best[m]:
                    text = f"[bold]{text}[/bold]"
                cells.append(text)
            row = ([topic] if len(topics) > 1 else []) + [run, *cells]
            table.add_row(*row)
    console.print(table)
