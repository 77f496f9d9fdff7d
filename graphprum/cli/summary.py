"""``graphprum summary build|show``: AxPRE structural summaries."""

import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from graphprum.cli.shared import (
    TABLE_FORMATS,
    Digits,
    choose_format,
    note,
    status,
    store_from_options,
    sub_app,
    user_errors,
)
from graphprum.errors import UsageError, printable
from graphprum.tabular import write_rows

summary_app = sub_app("summary", "AxPRE structural summaries: build, show.")
SUMMARY_FORMATS = [*TABLE_FORMATS, "dot", "png", "html"]
#: Formats written to a file (--output), and the endings of their files.
FILE_SUFFIXES = {"png": (".png",), "html": (".html", ".htm"), "dot": (".dot", ".gv")}


@summary_app.command("build", short_help="Build an AxPRE summary of the XML elements.")
@user_errors
def summary_build(
    axpre: Annotated[str, typer.Argument(
        help="label, p, p*, c, p*|c or c* (quote p* in a shell).")],
    weight: Annotated[str, typer.Option(
        help="Edge weight for the steady state: count, length, extent, or a SRC DST W file.")]
    = "count",
) -> None:
    """Build an AxPRE partition of the XML elements and its summary graph, and store it."""
    # pandas and scipy (0.8 s of imports): for the summary commands only
    from graphprum.summaries.axpre import normalise_axpre
    from graphprum.summaries.stored import build_stored

    store = store_from_options(create=False)
    t0 = time.perf_counter()
    with status(f"building the {normalise_axpre(axpre)} summary of {store.location} ..."):
        summary = build_stored(store, axpre, weight)
    print(f"built {summary.axpre} summary: {len(summary)} partitions, {len(summary.edges)} "
          f"edges over {int(summary.partitions['extent'].sum()):,} elements in "
          f"{time.perf_counter() - t0:.2f} s")


@summary_app.command("show")
@user_errors
def summary_show(
    axpre: Annotated[str, typer.Argument(help="A built summary: label, p, p*, c, p*|c, c*.")],
    fmt: Annotated[str | None, typer.Option(
        "--format", "-f", help="table (on a terminal), tsv (otherwise; sid key extent length "
        "pi, with a header), csv, json (partitions and edges), dot, png or html.")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o",
                                                help="File for png, html, dot.")]
    = None,
    weight: Annotated[str | None, typer.Option(help="Show π under another weight.")] = None,
    limit: Annotated[int | None, typer.Option(
        help="Rows shown (0 = all; default 50 in the table, all in tsv and csv).", min=0)]
    = None,
    digits: Digits = 4,
    run: Annotated[Path | None, typer.Option(help="html: a run to overlay.")] = None,
    qrels: Annotated[Path | None, typer.Option(help="html: qrels to overlay.")] = None,
) -> None:
    """Partitions with extent sizes, total lengths and steady-state π.

    --format html writes one self-contained page to explore every summary
    (those not stored are built for the page), with --run/--qrels overlaid.
    """
    # pandas and scipy (0.8 s of imports): for the summary commands only
    from graphprum.summaries import render
    from graphprum.summaries.stored import stored_summary

    if fmt is None and output is not None:  # -o pi.png: the file says which
        fmt = next((f for f, ends in FILE_SUFFIXES.items()
                    if output.suffix.lower() in ends), None)
    fmt = choose_format(fmt, SUMMARY_FORMATS)
    if fmt != "html" and (run is not None or qrels is not None):
        raise UsageError("--run and --qrels go with --format html")
    if limit and fmt not in ("table", "tsv", "csv"):
        raise UsageError(f"--limit goes with --format table, tsv or csv; {fmt} holds every "
                    f"partition")
    if output is not None and fmt not in FILE_SUFFIXES:
        raise UsageError(f"--output goes with --format png, html or dot; {fmt} is printed")
    if output is not None and output.suffix.lower() not in FILE_SUFFIXES[fmt]:
        raise UsageError(f"--output {output}: a {fmt} file ends in "
                    f"{' or '.join(FILE_SUFFIXES[fmt])}")
    store = store_from_options(create=False)
    if fmt == "html":
        from graphprum.summaries.explore import write_explorer  # (as the imports above)

        if output is None:
            raise UsageError("--format html needs --output FILE.html")
        data = write_explorer(store, axpre, output, weight=weight, run=run, qrels=qrels)
        if data.get("overlay") and data["overlay"]["unknown"]:
            overlay = data["overlay"]
            note(f"note: {overlay['unknown']} of {len(overlay['units'])} ids of the run and "
                 f"qrels are not in the store {store.location}; the page leaves them out")
        built = [n for n, s in data["summaries"].items() if not s["stored"]]
        print(f"wrote {output}: summaries {', '.join(data['summaries'])}"
              + (f" ({', '.join(built)} built for the page)" if built else ""))
        return
    summary = stored_summary(store, axpre, weight)
    if fmt == "json":
        print(render.to_json(summary))
    elif fmt == "dot":
        if output is None:
            print(render.to_dot(summary))
        else:
            output.write_text(render.to_dot(summary) + "\n", encoding="utf-8")
            print(printable(f"wrote {output}"))
    elif fmt == "png":
        if output is None:
            raise UsageError("--format png needs --output FILE.png")
        drawn = render.to_png(summary, output)
        top = min(len(summary), render.PNG_PARTITIONS)
        print(printable(f"wrote {output}: the {top} partitions of largest π of {len(summary)}"
                        + (f", with {len(drawn) - top} ancestors" if len(drawn) > top
                           else "")))
    else:
        rows = render.table_rows(summary)
        if limit is None:
            limit = 50 if fmt == "table" else 0
        shown = rows[: limit or None]
        more = len(rows) - len(shown)
        columns = (["SID", "key", "extent", "length", "π"] if fmt == "table" else
                   ["sid", "key", "extent", "length", "pi"])
        write_rows(columns,
                   [[r["sid"], r["key"], r["extent"], r["length"], r["pi"]] for r in shown],
                   fmt, sys.stdout, digits=digits, group_thousands=True,
                   title=f"{summary.axpre} summary, weight {summary.weight}: {len(summary)} "
                         f"partitions, {len(summary.edges)} edges",
                   footer=f"... {more} more (--limit 0 shows all)" if more else None)
