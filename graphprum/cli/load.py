"""``graphprum load xml|web|links|video``: load a collection into the store."""

import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from graphprum import loading
from graphprum.cli.browse import links_not_stored
from graphprum.cli.shared import (
    Progress,
    note,
    status,
    stopped,
    store_from_options,
    sub_app,
    user_errors,
)
from graphprum.errors import InputError, StoreError, UsageError
from graphprum.loaders.web_links import SiteIndex  # no lxml: the file walks only
from graphprum.loaders.xml_files import GLOB, find_xml_files
from graphprum.store.base import CYPHER, TABLE, Resumed

load_app = sub_app("load", "Load a collection into the store.")


@load_app.callback(invoke_without_command=True)
@user_errors
def load_group(
    ctx: typer.Context,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Finish what interrupted loads left: remove the documents they "
                         "never completed, or finish one killed once all it wrote was in "
                         "(a Bolt store; the next load does it too).")] = False,
) -> None:
    """Load a collection into the store."""
    if resume:
        print(resumed_message(store_from_options(create=False).resume_loads()))
        raise typer.Exit()
    if ctx.invoked_subcommand is None:
        print(ctx.get_help())
        raise typer.Exit(2)


def resumed_message(done: Resumed) -> str:
    """What ``load --resume`` says it did.

    >>> resumed_message(Resumed(3))
    'removed 3 incomplete documents'
    >>> resumed_message(Resumed(0, {"kind": "web", "documents": 530, "units": 9000}))
    'finished the interrupted load: web, 530 documents, 9,000 units'
    >>> resumed_message(Resumed())
    'nothing to do: no interrupted load left'
    >>> resumed_message(Resumed(freed=3 * 2**20))
    'removed 3.0 MiB of files that killed writes left'
    """
    said = []
    if done.finished is not None:
        entry = done.finished
        what = ", ".join([*([str(entry["kind"])] if entry.get("kind") else []),
                          *(f"{entry[k]:,} {k}" for k in ("documents", "units") if k in entry)])
        said.append("finished the interrupted load" + (f": {what}" if what else ""))
    if done.removed:
        said.append(f"removed {done.removed:,} incomplete documents")
    if done.freed > 0:
        said.append(f"removed {done.freed / 2**20:,.1f} MiB of files that killed writes left")
    return "; ".join(said) or "nothing to do: no interrupted load left"


Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
#: Units up to which ``load`` builds the graph for queries at once by
#: default; above, the first query builds it.  LadybugDB's build cannot be
#: bounded by a batch (see :mod:`graphprum.store.local.graph`) and takes
#: about as long as the load itself: 11 s and 210-250 B per element at 3M
#: elements, where the load takes 12 s and 45 B per element.
GRAPH_AT_LOAD = 1_000_000

Graph = Annotated[bool | None, typer.Option(
    "--graph/--no-graph", show_default=False,
    help=f"Build the collection's graph for 'graphprum query' now, or leave it to the "
         f"first query. Default: now for a store of up to {GRAPH_AT_LOAD:,} units, "
         f"else at the first query.")]


FollowSymlinks = Annotated[bool, typer.Option(
    "--follow-symlinks",
    help="Also load symbolic links to files outside the loaded directory (by default "
         "they are skipped with a note, as FIFOs and devices are).")]


def build_graph(store: Any, wanted: bool | None) -> str:
    """Build the store's graph for Cypher after a load (``wanted`` None:
    when it holds at most :data:`GRAPH_AT_LOAD` units); the phrase the
    load's summary line ends with."""
    # a store that answers Cypher from columns (the embedded one) derives
    # its graph from them; a server's graph is the store
    if not {CYPHER, TABLE} <= store.capabilities:
        return ""
    if wanted is None:
        units = store.count_units()
        wanted = units <= GRAPH_AT_LOAD
        if not wanted:
            note(f"note: the graph for 'graphprum query' is left to the first query (the "
                 f"store holds {units:,} units, more than {GRAPH_AT_LOAD:,}); --graph builds "
                 f"it now")
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


def finish(store: Any, graph: bool | None, line: str) -> None:
    """Print a committed load's summary ``line``, with the graph for
    queries built first (unless not ``graph``).  Interrupted while the graph
    is built (Ctrl-C), it says what was kept: the load, whole; exit 130."""
    try:
        line += build_graph(store, graph)
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM (Terminated)
        how, code = stopped()
        print(line)
        print(f"graphprum: {how} while building the graph for 'graphprum query': the "
              f"load above is kept, whole; the first query builds the graph", file=sys.stderr)
        sys.exit(code)  # not typer.Exit: main would say "interrupted" again
    print(line)


def print_skipped(skipped: list[Any], shown: int = 5) -> None:
    """One line per file a load skipped, on stderr; past ``shown`` files
    skipped for one same reason, the count of the others."""
    by_reason: dict[str, list[Any]] = {}
    for s in skipped:
        by_reason.setdefault(s.message if s.line is None else str(s), []).append(s)
    for reason, files in by_reason.items():
        many = len(files) > shown + 1  # "1 more file" would take a line as well
        for s in files[:shown] if many else files:
            print(f"graphprum: skipped {s}", file=sys.stderr)
        if many:
            print(f"graphprum: skipped {len(files) - shown:,} more files: {reason}",
                  file=sys.stderr)


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
        help="XML files or directories (recursively *.xml, or --glob).")],
    links: Annotated[list[str] | None, typer.Option(
        help="TAG@ATTR: these elements become LINK edges to the target document (or the "
             "element its #fragment names by id); repeat for several kinds, e.g. --links "
             "link@xref --links gui@xref; namespaced tags and attributes in Clark notation: "
             "collectionlink@{http://www.w3.org/1999/xlink}href; a target is a path "
             "relative to the file or the id of a document of the load (Mallard "
             "xref=\"page-id\")")] = None,
    glob: Annotated[list[str], typer.Option(
        "--glob", metavar="PATTERN",
        help="Which files of a directory are documents (a pattern of their names, e.g. "
             "'*.page' for Mallard help; repeat for several; default '*.xml'); ids drop "
             "the extension.")] = [],  # noqa: B006
    follow_symlinks: FollowSymlinks = False,
    replace: Annotated[bool, typer.Option(help="Replace documents already stored.")] = False,
    skip_bad: Annotated[bool, typer.Option(
        help="Skip files that are not well-formed XML and list them.")] = False,
    quiet: Quiet = False,
    wait: Wait = 0.0,
    graph: Graph = None,
    jobs: Annotated[str, typer.Option(
        "--jobs", "-j", metavar="N|auto",
        help="Processes that parse the files: auto (the default) is one per CPU, at "
             "most 4, once the files hold 8 MB of XML or more (less is parsed here); "
             "the store gets the same bytes either way.")] = "auto",
) -> None:
    """Load XML documents: one unit per element, ids DOC#XPATH.

    A directory's files get ids relative to it (path without extension); a
    file given directly gets its stem. Only regular files inside a
    directory are read: FIFOs, devices and symbolic links leaving it are
    skipped with a note. Loading is all or nothing.
    """
    n_jobs = parse_jobs(jobs)
    globs = glob or [GLOB]
    # fail fast on bad paths, and count for the bar
    passed_over: list[str] = []
    files = find_xml_files(paths, globs, follow_symlinks,
                           passed_over=None if glob else passed_over)
    for left in passed_over:  # with --glob the user chose
        note(f"note: {left}")
    store = store_from_options(wait=wait)
    had = summary_names(store)
    try:
        with Progress(len(files), "loading XML", quiet) as advance:
            report = loading.load_xml(store, paths, links=links, replace=replace,
                                      skip_bad=skip_bad, on_file=lambda f, n: advance(1),
                                      jobs=n_jobs, globs=globs,
                                      follow_symlinks=follow_symlinks)
    except InputError as exc:  # say the way past a bad file of many
        if len(files) < 2 or not exc.message.startswith("not well-formed XML"):
            raise
        raise InputError(exc.path, exc.line, f"{exc.message} (--skip-bad loads the other "
                                             f"files and lists this one)") from None
    print_skipped(report.skipped)
    for spec, n in report.links_matched.items():
        if not n:
            print(f"graphprum: warning: --links {spec} matched no element with that "
                  f"attribute", file=sys.stderr)
    finish(store, graph,
           f"loaded {report.documents} documents, {report.elements} elements in "
           f"{report.seconds:.2f} s ({report.rate:,.0f} elements/s)"
           + (f", replaced {report.replaced}" if report.replaced else "")
           + (f", skipped {len(report.skipped)} files" if report.skipped else "")
           + (links_said(store, report) if links else ""))
    note_dropped_summaries(store, had)


def links_said(store: Any, report: Any) -> str:
    """The links of an XML load as ``info`` counts them: stored (arriving
    at a stored unit or dangling, store-wide) and not stored, by kind."""
    info = store.info()
    dropped = links_not_stored(report.extra)
    return (f", {report.links:,} links (the store holds {info.get('links', 0):,} that arrive "
            f"at a unit and {info.get('dangling_links', 0):,} dangling)"
            + (f"; {dropped}" if dropped else ""))


@load_app.command("web", short_help="Load an HTML site: its pages and their links.")
@user_errors
def load_web(
    root: Annotated[Path, typer.Argument(help="The site's root directory.")],
    elements: Annotated[bool, typer.Option(
        help="Store each page's element tree (ids PAGE#XPATH) instead of one unit per "
             "page: the page's root element (PAGE#/html[1]) stands for the page.")] = False,
    follow_symlinks: FollowSymlinks = False,
    replace: Annotated[bool, typer.Option(help="Replace pages already stored.")] = False,
    quiet: Quiet = False,
    wait: Wait = 0.0,
    graph: Graph = None,
) -> None:
    """Load an HTML site: every .html/.htm file is a page (id = path relative to ROOT).

    Links are resolved as a browser would, the pages the store holds
    already counting as files of ROOT (so 'load web DIR --replace' of a
    changed page keeps its links to the others); links leaving the site or
    to missing files are counted (see 'graphprum info') but not stored. Only
    regular files inside ROOT are read: FIFOs, devices and symbolic links
    leaving it are skipped with a note.
    """
    try:  # for the bar (the load names a bad root)
        total = len(SiteIndex.scan(root, follow_symlinks).pages)
    except InputError:
        total = 0
    store = store_from_options(wait=wait)
    had = summary_names(store)
    with Progress(total, "loading pages", quiet) as advance:
        report = loading.load_web(store, root, elements=elements, replace=replace,
                                  on_file=lambda page, n: advance(1),
                                  follow_symlinks=follow_symlinks)
    print_skipped(report.skipped)
    dropped = links_not_stored(report.extra)
    finish(store, graph,
           f"loaded {report.documents} pages, {report.elements} units, {report.links} links "
           f"in {report.seconds:.2f} s ({report.documents / max(report.seconds, 1e-9):,.0f} "
           f"pages/s)" + (f"; {dropped}" if dropped else "")
           + (f", skipped {len(report.skipped)} files" if report.skipped else ""))
    note_dropped_summaries(store, had)


@load_app.command("links", short_help="Load a link list between pages.")
@user_errors
def load_links(
    path: Annotated[Path, typer.Argument(help="Link list: FROM<TAB>TO lines.")],
    wait: Wait = 0.0,
    graph: Graph = None,
) -> None:
    """Load a link list between pages; pages not yet stored become page units."""
    store = store_from_options(wait=wait)
    had = summary_names(store)
    report = loading.load_links(store, path)
    finish(store, graph,
           f"loaded {report.links} links ({report.documents} new pages) in "
           f"{report.seconds:.2f} s ({report.links / max(report.seconds, 1e-9):,.0f} links/s)")
    note_dropped_summaries(store, had)


@load_app.command("video", short_help="Load a video's segments (subtitles, scene lists).")
@user_errors
def load_video(
    paths: Annotated[list[Path], typer.Argument(
        help="Segment tables (VIDEO N START END), .srt/.vtt files, or directories.")],
    replace: Annotated[bool, typer.Option(help="Replace videos already stored.")] = False,
    wait: Wait = 0.0,
    graph: Graph = None,
) -> None:
    """Load video segments: ids VIDEO#N, N the 1-based segment index in time order."""
    store = store_from_options(wait=wait)
    had = summary_names(store)
    report = loading.load_video(store, paths, replace=replace)
    finish(store, graph,
           f"loaded {report.documents} videos, {report.elements - report.documents} segments "
           f"in {report.seconds:.2f} s")
    note_dropped_summaries(store, had)
