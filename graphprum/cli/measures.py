"""``graphprum measures``: the measures ``-m`` takes, and what one of them is."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from graphprum.cli.shared import TABLE_FORMATS, app, choose_format, user_errors
from graphprum.measures.names import catalog, describe, resolve
from graphprum.measures.registry import family
from graphprum.results import write_rows

LIST_FORMATS = TABLE_FORMATS


@app.command("measures")
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
    """List graphprum's measure families, or describe one: its parameters,
    cutoff, aggregation over topics, curve, what it needs, and an example.

    The families are the names graphprum computes itself; every other name
    is trec_eval's (map, P_10, all_trec) or ir_measures' (AP, nDCG@10), see
    docs/trec_eval.md. 'graphprum eval -m help' prints the same list.
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
    """The families, one row each, in ``fmt`` (``graphprum measures``, ``eval -m help``)."""
    write_rows(catalog(), fmt, sys.stdout)


def measure_help(value: list[str] | None) -> list[str] | None:
    """``-m help``: the list of ``graphprum measures``, then exit (an eager
    option callback: no run or qrels needed)."""
    if value and "help" in value:
        print_catalog(choose_format(None, LIST_FORMATS))
        raise typer.Exit()
    return value
