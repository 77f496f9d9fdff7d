"""``graphprum query`` and ``graphprum copy``: Cypher against a store, and
copying a collection between stores."""

import sys
from typing import Annotated

import typer

from graphprum.cli.shared import (
    TABLE_FORMATS,
    Digits,
    Format,
    app,
    choose_format,
    status,
    store_from_options,
    user_errors,
)
from graphprum.errors import UsageError
from graphprum.loading import copy_store
from graphprum.query import parse_param, run_query
from graphprum.store import open_store
from graphprum.tabular import write_rows


@app.command()
@user_errors
def query(
    cypher: Annotated[str, typer.Argument(help="A Cypher query; use $name for parameters.")],
    param: Annotated[list[str], typer.Option(
        "--param", "-p", help="NAME=VALUE (JSON values parsed; repeat). Values are data: "
                              "never run as Cypher.")] = [],  # noqa: B006
    write: Annotated[bool, typer.Option(help="Allow the query to write (Bolt stores).")]
    = False,
    timeout: Annotated[float, typer.Option(
        help="Give up after SECONDS (0: no limit), on every store.")] = 60.0,
    fmt: Format = None,
    digits: Digits = 4,
) -> None:
    """Run Cypher against the store (read-only unless --write).

    Both stores hold the collection as the same property graph: (:Unit {uid,
    doc, tag, path, kind, depth, pre, post, size, pos, start, length, words,
    text, attributes}), (:Attribute {name, value}), (:Document {name,
    source, kind, length, count}), CHILD, ROOT, LINK {anchor},
    HAS_ATTRIBUTE, (:Summary {axpre, sid, key, extent, length}),
    IN_PARTITION, SUMMARY_EDGE {count, length}.  The embedded store runs the
    openCypher of LadybugDB (read-only); a Bolt store runs its server's.
    The dialects differ (docs/query.md lists where: 1-based substring and
    list indexes on the embedded store, unknown labels an error there).

    Example: graphprum query 'MATCH (s:Unit {tag: $t}) RETURN count(s) AS n'
    --param t=sec
    """
    fmt = choose_format(fmt, TABLE_FORMATS)
    if not timeout >= 0:  # NaN too
        raise UsageError(f"--timeout {timeout}: seconds, 0 or more")
    params = dict(parse_param(p) for p in param)
    store = store_from_options(create=False)
    # the first query of an embedded store builds its graph (minutes for a
    # large collection): a spinner says so on a terminal
    first = not getattr(store, "graph_ready", lambda: True)()
    with status("building the graph for queries (this store's first query), then querying ..."
                if first else "querying ..."):
        rows = run_query(store, cypher, params, write=write, timeout=timeout or None)
    columns = getattr(rows, "columns", None) or list(dict.fromkeys(k for r in rows for k in r))
    write_rows(columns, [[r.get(c) for c in columns] for r in rows], fmt, sys.stdout,
               digits=digits, footer=f"({len(rows)} row{'s' if len(rows) != 1 else ''})")


@app.command()
@user_errors
def copy(
    src: Annotated[str, typer.Argument(help="Source store (directory or bolt:// URI).")],
    dst: Annotated[str, typer.Argument(help="Destination store.")],
    replace: Annotated[bool, typer.Option(help="Replace documents already there.")] = False,
) -> None:
    """Copy a collection into another store (a Neo4j server, say)."""
    report = copy_store(open_store(src, create=False), open_store(dst), replace=replace)
    print(f"copied {report.documents} documents, {report.elements} units in "
          f"{report.seconds:.2f} s")
