"""``graphprum server start|stop|status``: a local FalkorDB server with Bolt.

The data directory defaults to a per-user one (see
:func:`graphprum.store.bolt.server.default_data_dir`), so the commands find
the server from any working directory; servers started with ``--data-dir``
are remembered there too, and ``status`` lists them all.
"""

from pathlib import Path
from typing import Annotated

import typer

from graphprum.cli.shared import note, sub_app, user_errors
from graphprum.errors import UsageError

server_app = sub_app("server", "A local FalkorDB server with Bolt (pip install "
                               "graphprum[server]), for users without Docker. Every port "
                               "listens on 127.0.0.1 only.",
                    short_help="A local FalkorDB server: start, stop, status.")
DataDir = Annotated[Path | None, typer.Option(
    help="Data directory (default: per user, e.g. ~/.local/share/graphprum/server, or "
         "$GRAPHPRUM_SERVER_DIR).")]


@server_app.command("start", short_help="Start the server; prints the URI to use.")
@user_errors
def server_start(
    port: Annotated[int, typer.Option(help="Bolt port.")] = 7687,
    data_dir: DataDir = None,
    bind: Annotated[str, typer.Option(
        help="Address to listen on: 127.0.0.1 only (FalkorDB's Bolt port takes no "
             "password, so other addresses are refused).")] = "127.0.0.1",
) -> None:
    """Start the server in the background; prints the URI to use with --store."""
    from graphprum.store.bolt import server as falkor_server  # the Bolt store's modules: ~9 ms

    st = falkor_server.start(data_dir, port=port, bind=bind, remember=True)
    print(f"FalkorDB running (pid {st['pid']}): use --store {st['uri']}")


@server_app.command("stop", short_help="Stop the server.")
@user_errors
def server_stop(data_dir: DataDir = None) -> None:
    """Stop the server (of --data-dir; without it, the default directory's, or
    the only server running)."""
    from graphprum.store.bolt import server as falkor_server  # the Bolt store's modules: ~9 ms

    if data_dir is None and not falkor_server.status()["running"]:
        running = falkor_server.remembered()
        if len(running) > 1:
            raise UsageError("several FalkorDB servers run; name one with --data-dir: "
                        + ", ".join(st["data_dir"] for st in running))
        if running:
            data_dir = Path(running[0]["data_dir"])
    st = falkor_server.stop(data_dir)
    if st.get("stale"):
        note(f"graphprum: pid {st.get('pid')} of {st['data_dir']} is not the server it "
             f"started (gone, or another program now): not signalled; state cleared")
    print("stopped" if not st.get("running") else f"still running: {st}")


@server_app.command("status", short_help="Whether the server runs, its pid, URI, data.")
@user_errors
def server_status(data_dir: DataDir = None) -> None:
    """Whether the server runs, with its pid, URI and where its data live
    (without --data-dir: every server started by `server start` that still runs)."""
    from graphprum.store.bolt import server as falkor_server  # the Bolt store's modules: ~9 ms

    if data_dir is not None:
        st = falkor_server.status(data_dir)
        print(f"running (pid {st['pid']}): {st.get('uri')}  {_where(st)}" if st["running"]
              else "not running")
        return
    running = falkor_server.remembered()
    if not running:
        print("not running")
    for st in running:
        print(f"running (pid {st['pid']}): {st.get('uri')}  {_where(st)}")


def _where(st: dict[str, object]) -> str:
    """Where a server's data live and how they are kept."""
    kept = f"append-only file {st['append_only']}, flushed every second" \
        if st.get("append_only") else "snapshot only, no append-only file"
    return f"data {st['data_dir']} ({kept})"
