"""``graphprum export neo4j-admin DIR``: a collection as the CSV files that
Neo4j's offline bulk import reads (:mod:`graphprum.store.bolt.neo4j_admin`)."""

import time
from pathlib import Path
from typing import Annotated

import typer

from graphprum.cli.load import Quiet
from graphprum.cli.shared import Progress, note, store_from_options, sub_app, user_errors

export_app = sub_app("export", "Write the collection in another system's format.")


@export_app.command("neo4j-admin", short_help="CSV files for neo4j-admin database import full.")
@user_errors
def export_neo4j(
    directory: Annotated[Path, typer.Argument(
        help="New directory for the CSV files (an existing one must hold none of them).")],
    database: Annotated[str, typer.Option(
        help="Database name written into the neo4j-admin command printed.")] = "neo4j",
    quiet: Quiet = False,
) -> None:
    """Write the store's collection as the node and relationship CSV files
    (with headers) of `neo4j-admin database import full`, Neo4j's way to
    load tens of millions of nodes into a new database while it is offline.

    The imported database is a graphprum Bolt store (--store
    bolt://HOST:7687): Document, Unit, Attribute, PendingLink and Meta
    nodes; ROOT, CHILD, HAS_ATTRIBUTE and LINK relationships; every
    document complete.  Summaries are not exported (build them there with
    `summary build`).  Prints the neo4j-admin command to run; create the
    indexes of cypher/schema/neo4j.cypher after the import (graphprum does
    so on its first load, or any `load --resume`).

    Example: graphprum export neo4j-admin neo4j-import
    """
    # the Bolt store's 20 modules (~9 ms of import): this command only
    from graphprum.store.bolt.neo4j_admin import export_neo4j_admin, import_command

    store = store_from_options(create=False)
    t0 = time.perf_counter()
    with Progress(int(store.count_units()), "exporting units", quiet) as advance:
        counts = export_neo4j_admin(store, directory, on_document=advance)
    seconds = time.perf_counter() - t0
    nodes = sum(counts[k] for k in ("Document", "Unit", "Attribute", "PendingLink", "Meta"))
    note(f"wrote {nodes:,} nodes ({counts['Unit']:,} units) and "
         f"{sum(counts.values()) - nodes:,} relationships in {seconds:.2f} s")
    print(import_command(directory, database))
