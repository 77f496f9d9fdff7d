"""``graphprum server start|stop|status``: a local FalkorDB server with Bolt."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from graphprum.cli.app import sub_app, user_errors

server_app = sub_app("server", "A local FalkorDB server with Bolt (pip install "
                               "graphprum[server]), for users without Docker.")
_SERVER_DIR = Path(os.environ.get("GRAPHPRUM_SERVER_DIR", "graphprum-server"))
DataDir = Annotated[Path, typer.Option(help="Data directory.")]


@server_app.command("start")
@user_errors
def server_start(
    port: Annotated[int, typer.Option(help="Bolt port.")] = 7687,
    data_dir: DataDir = _SERVER_DIR,
) -> None:
    """Start the server in the background; prints the URI to use with --store."""
    from graphprum.store import falkor_server

    st = falkor_server.start(data_dir, port=port)
    print(f"FalkorDB running (pid {st['pid']}): use --store {st['uri']}")


@server_app.command("stop")
@user_errors
def server_stop(data_dir: DataDir = _SERVER_DIR) -> None:
    """Stop the server started for this data directory."""
    from graphprum.store import falkor_server

    st = falkor_server.stop(data_dir)
    print("stopped" if not st.get("running") else f"still running: {st}")


@server_app.command("status")
@user_errors
def server_status(data_dir: DataDir = _SERVER_DIR) -> None:
    """Whether the server runs, with its pid and URI."""
    from graphprum.store import falkor_server

    st = falkor_server.status(data_dir)
    print(f"running (pid {st['pid']}): {st.get('uri')}" if st["running"] else "not running")
