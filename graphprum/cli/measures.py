"""``graphprum measures``: every name ``-m`` takes, and what one of them is."""

import json
import sys
from typing import Annotated

import typer

from graphprum.cli.shared import TABLE_FORMATS, app, choose_format, user_errors
from graphprum.measures.names import catalog, describe, resolve
from graphprum.measures.registry import family
from graphprum.results import write_rows

LIST_FORMATS = TABLE_FORMATS

#: The heading of each source's section of the table, in the order listed.
SECTIONS = {
    "graphprum": "graphprum's measure families: NAME(param=value,...)@cutoff "
                 "('graphprum measures NAME' describes one)",
    "trec_eval": "trec_eval's names, computed by trec_eval's own C code: NAME, NAME_k, "
                 "NAME.k1,k2, and the sets",
    "ir_measures": "ir_measures' names: NAME(param=value,...)@cutoff (docs/trec_eval.md)",
}


@app.command("measures", short_help="List the measures -m takes, or describe one.")
@user_errors
def measures_command(
    name: Annotated[str | None, typer.Argument(
        metavar="NAME", help="A measure to describe: a graphprum family (PRUM, SRP, ...), "
        "a trec_eval name (map, P_10) or an ir_measures name (nDCG).")] = None,
    fmt: Annotated[str | None, typer.Option(
        "--format", "-f", help="table (terminal default), tsv (default otherwise), csv or "
        "json.")]
    = None,
) -> None:
    """List every measure name -m takes, or describe one: its parameters,
    cutoff, aggregation over topics, curve, what it needs, and an example.

    The list has graphprum's families first (the names graphprum computes
    itself), then trec_eval's names (map, P_10, all_trec) and ir_measures'
    names (AP, nDCG@10), see docs/trec_eval.md; off a terminal it is one
    TSV table whose column 'source' says whose a name is. 'graphprum eval
    -m help' prints the same list.
    """
    fmt = choose_format(fmt, LIST_FORMATS)
    if name is None:
        print_catalog(fmt)
        return
    if fmt == "json":
        fam = family(resolve(name)[0].name)
        data = fam.describe() if fam is not None else {"name": name, "help": describe(name)}
        print(json.dumps(data, indent=1, ensure_ascii=False))
        return
    sys.stdout.write(describe(name))


def print_catalog(fmt: str) -> None:
    """Every name ``-m`` takes, one row each, in ``fmt`` (``graphprum
    measures``, ``eval -m help``): on a terminal one table per source under
    its heading (without the columns that say nothing there), otherwise one
    table with a ``source`` column."""
    rows = catalog()
    if fmt != "table":
        write_rows(rows, fmt, sys.stdout)
        return
    for i, (source, heading) in enumerate(SECTIONS.items()):
        section = [r for r in rows if r["source"] == source]
        shown = [c for c in section[0] if c != "source" and any(r[c] != "-" for r in section)]
        if i:
            sys.stdout.write("\n")
        write_rows([{c: r[c] for c in shown} for r in section], fmt, sys.stdout, title=heading)


def measure_help(value: list[str] | None) -> list[str] | None:
    """``-m help``: the list of ``graphprum measures``, then exit (an eager
    option callback: no run or qrels needed)."""
    if value and "help" in value:
        print_catalog(choose_format(None, LIST_FORMATS))
        raise typer.Exit()
    return value
