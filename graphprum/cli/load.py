"""``graphprum load xml|web|links|video``: load a collection into the store."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from graphprum import loading
from graphprum.cli.browse import links_not_stored
from graphprum.cli.shared import Progress, note, open_store, status, sub_app, user_errors
from graphprum.errors import StoreError, UsageError
from graphprum.loaders.xml import find_xml_files

load_app = sub_app("load", "Load a collection into the store.")


@load_app.callback(invoke_without_command=True)
@user_errors
def load_group(
    ctx: typer.Context,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Finish what interrupted loads left: remove the documents they "
                         "never completed (a Bolt store; the next load does it too).")] = False,
) -> None:
    """Load a collection into the store."""
    if resume:
        removed = open_store(create=False).resume_loads()
        print(f"removed {removed:,} incomplete documents" if removed
              else "nothing to resume: no incomplete documents")
        raise typer.Exit()
    if ctx.invoked_subcommand is None:
        print(ctx.get_help())
        raise typer.Exit(2)

Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
Graph = Annotated[bool, typer.Option(
    "--graph/--no-graph",
    help="Build the collection's graph for 'graphprum query' now (default), or leave it "
         "to the first query.")]


def build_graph(store: Any, wanted: bool) -> str:
    """Build the store's graph for Cypher after a load (unless not ``wanted``);
    the phrase the load's summary line ends with."""
    if not wanted:
        return ""
    t0 = time.perf_counter()
    try:
        with status("building the graph for 'graphprum query' ..."):
            built = store.build_graph()
    except StoreError as exc:  # the load itself is committed: say so, go on
        note(f"note: {exc}; the first query will build it")
        return ""
    return f"; graph for queries in {time.perf_counter() - t0:.2f} s" if built else ""


def summary_names(store: Any) -> list[str]:
    """The AxPRE summaries stored (a load drops them: the collection changes)."""
    return [str(n) for n in store.info().get("summaries", [])]


def note_dropped_summaries(store: Any, had: list[str]) -> None:
    """A note naming the summaries the load dropped, and how to build them again."""
    gone = [n for n in had if n not in summary_names(store)]
    if gone:
        note(f"note: the collection changed, so its stored summaries are dropped: "
             f"{', '.join(gone)} (graphprum summary build {gone[0]!r} builds one again)")


def parse_jobs(text: str) -> int | str:
    """``--jobs``: a positive number, or ``auto``."""
    if text == "auto":
        return text
    if text.isascii() and text.isdigit() and int(text) > 0:
        return int(text)
    raise UsageError(f"--jobs must be a positive integer or auto, got {text!r}")


Wait = Annotated[float, typer.Option(
    help="Seconds to wait for another process writing to the store (default: fail at once).",
    min=0)]


@load_app.command("xml")
@user_errors
def load_xml(
    paths: Annotated[list[Path], typer.Argument(
        help="XML files or directories (recursively *.xml).")],
    links: Annotated[list[str] | None, typer.Option(
        help="TAG@ATTR: these elements become LINK edges to the target document (or the "
             "element its #fragment names by id); repeat for several kinds, e.g. --links "
             "link@xref --links gui@xref; namespaced tags and attributes in Clark notation: "
             "collectionlink@{http://www.w3.org/1999/xlink}href; a target is a path "
             "relative to the file or the id of a document of the load (Mallard "
             "xref=\"page-id\")")] = None,
    replace: Annotated[bool, typer.Option(help="Replace documents already stored.")] = False,
    skip_bad: Annotated[bool, typer.Option(
        help="Skip files that are not well-formed XML and list them.")] = False,
    quiet: Quiet = False,
    wait: Wait = 0.0,
    graph: Graph = True,
    jobs: Annotated[str, typer.Option(
        "--jobs", "-j", metavar="N|auto",
        help="Processes that parse the files: auto (the default) is one per CPU, at "
             "most 4, once the files hold 8 MB of XML or more (less is parsed here); "
             "the store gets the same bytes either way.")] = "auto",
) -> None:
    """Load XML documents: one unit per element, ids DOC#XPATH.

    A directory's files get ids relative to it (path without extension); a
    file given directly gets its stem. Loading is all or nothing.
    """
    n_jobs = parse_jobs(jobs)
    files = find_xml_files(paths)  # fail fast on bad paths, and count for the bar
    store = open_store(wait=wait)
    had = summary_names(store)
    with Progress(len(files), "loading XML", quiet) as advance:
        report = loading.load_xml(store, paths, links=links, replace=replace,
                                  skip_bad=skip_bad, on_file=lambda f, n: advance(1),
                                  jobs=n_jobs)
    for s in report.skipped:
        print(f"graphprum: skipped {s}", file=sys.stderr)
    for spec, n in report.links_matched.items():
        if not n:
            print(f"graphprum: warning: --links {spec} matched no element with that "
                  f"attribute", file=sys.stderr)
    print(f"loaded {report.documents} documents, {report.elements} elements in "
          f"{report.seconds:.2f} s ({report.rate:,.0f} elements/s)"
          + (f", replaced {report.replaced}" if report.replaced else "")
          + (f", skipped {len(report.skipped)} bad files" if report.skipped else "")
          + (links_said(store, report) if links else "")
          + build_graph(store, graph))
    note_dropped_summaries(store, had)


def links_said(store: Any, report: Any) -> str:
    """The links of an XML load as ``info`` counts them: stored (arriving
    at a stored unit or dangling, store-wide) and not stored, by kind."""
    info = store.info()
    dropped = links_not_stored(report.extra)
    return (f", {report.links:,} links (the store holds {info.get('links', 0):,} that arrive "
            f"at a unit and {info.get('dangling_links', 0):,} dangling)"
            + (f"; {dropped}" if dropped else ""))


@load_app.command("web")
@user_errors
def load_web(
    root: Annotated[Path, typer.Argument(help="The site's root directory.")],
    elements: Annotated[bool, typer.Option(
        help="Store each page's element tree (ids PAGE#XPATH) instead of one unit per "
             "page: the page's root element (PAGE#/html[1]) stands for the page.")] = False,
    replace: Annotated[bool, typer.Option(help="Replace pages already stored.")] = False,
    quiet: Quiet = False,
    wait: Wait = 0.0,
    graph: Graph = True,
) -> None:
    """Load an HTML site: every .html/.htm file is a page (id = path relative to ROOT).

    Links are resolved as a browser would; links leaving the site or to
    missing files are counted (see 'graphprum info') but not stored.
    """
    total = sum(1 for p in Path(root).rglob("*") if p.suffix.lower() in (".html", ".htm")) \
        if Path(root).is_dir() else 0
    store = open_store(wait=wait)
    had = summary_names(store)
    with Progress(total, "loading pages", quiet) as advance:
        report = loading.load_web(store, root, elements=elements, replace=replace,
                                  on_file=lambda page, n: advance(1))
    dropped = links_not_stored(report.extra)
    print(f"loaded {report.documents} pages, {report.elements} units, {report.links} links "
          f"in {report.seconds:.2f} s ({report.documents / max(report.seconds, 1e-9):,.0f} "
          f"pages/s)" + (f"; {dropped}" if dropped else "")
          + build_graph(store, graph))
    note_dropped_summaries(store, had)


@load_app.command("links")
@user_errors
def load_links(
    path: Annotated[Path, typer.Argument(help="Link list: FROM<TAB>TO lines.")],
    wait: Wait = 0.0,
    graph: Graph = True,
) -> None:
    """Load a link list between pages; pages not yet stored become page units."""
    store = open_store(wait=wait)
    had = summary_names(store)
    report = loading.load_links(store, path)
    print(f"loaded {report.links} links ({report.documents} new pages) in "
          f"{report.seconds:.2f} s ({report.links / max(report.seconds, 1e-9):,.0f} links/s)"
          + build_graph(store, graph))
    note_dropped_summaries(store, had)


@load_app.command("video")
@user_errors
def load_video(
    paths: Annotated[list[Path], typer.Argument(
        help="Segment tables (VIDEO N START END), .srt/.vtt files, or directories.")],
    replace: Annotated[bool, typer.Option(help="Replace videos already stored.")] = False,
    wait: Wait = 0.0,
    graph: Graph = True,
) -> None:
    """Load video segments: ids VIDEO#N, N the 1-based segment index in time order."""
    store = open_store(wait=wait)
    had = summary_names(store)
    report = loading.load_video(store, paths, replace=replace)
    print(f"loaded {report.documents} videos, {report.elements - report.documents} segments "
          f"in {report.seconds:.2f} s" + build_graph(store, graph))
    note_dropped_summaries(store, had)
