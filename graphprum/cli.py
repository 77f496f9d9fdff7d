"""The ``graphprum`` command line: a thin layer over the Python API.

Every error a user can cause is printed as one line on stderr and exits with
status 2; nothing is written to the store in that case.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from graphprum import __version__
from graphprum.errors import GraphprumError

F = TypeVar("F", bound=Callable[..., Any])

HELP = """Evaluate retrieval over connected collections (XML, web sites, video)
with user-model measures: PRUM, EPRUM, SR/SRP, the INEX 2006 measures, T2I.

Typical session:

  graphprum load xml examples/plos/articles

  graphprum info

  graphprum eval examples/plos/run-*.txt --qrels examples/plos/qrels.txt -m PRUM -m AP

The store is a directory (default ./graphprum-store, or $GRAPHPRUM_STORE),
or a bolt:// / neo4j:// URI.
"""

app = typer.Typer(help=HELP, no_args_is_help=True, add_completion=True,
                  rich_markup_mode=None, pretty_exceptions_enable=False)
load_app = typer.Typer(help="Load a collection into the store.", no_args_is_help=True)
app.add_typer(load_app, name="load")

err_console = Console(stderr=True)


class _State:
    store: str | None = None
    quiet: bool = False
    verbose: bool = False


state = _State()


def user_errors(func: F) -> F:
    """Turn GraphprumError into one line on stderr and exit status 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except GraphprumError as exc:
            print(f"graphprum: error: {exc}", file=sys.stderr)
            raise typer.Exit(exc.exit_code) from None
        except BrokenPipeError:  # e.g. | head
            raise typer.Exit(0) from None

    return wrapper  # type: ignore[return-value]


def _version(value: bool) -> None:
    if value:
        print(f"graphprum {__version__}")
        raise typer.Exit(0)


@app.callback()
def main_options(
    store: Annotated[str | None, typer.Option(
        "--store", "-s", envvar="GRAPHPRUM_STORE",
        help="Store: a directory (embedded, default ./graphprum-store) or a bolt:// URI.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bars or notes.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="More notes on stderr.")]
    = False,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """Global options."""
    state.store = store
    state.quiet = quiet
    state.verbose = verbose


def _open_store(create: bool = True):
    from graphprum.store import open_store

    return open_store(state.store, create=create)


def _show_progress(quiet: bool) -> bool:
    return not (quiet or state.quiet) and sys.stderr.isatty()


def note(message: str) -> None:
    """A note on stderr (suppressed by --quiet)."""
    if not state.quiet:
        print(message, file=sys.stderr)


# --------------------------------------------------------------------- load
@load_app.command("xml")
@user_errors
def load_xml(
    paths: Annotated[list[Path], typer.Argument(
        help="XML files or directories (recursively *.xml).")],
    links: Annotated[str | None, typer.Option(
        help="TAG@ATTR: these elements become LINK edges to the target document, e.g. "
             "collectionlink@{http://www.w3.org/1999/xlink}href")] = None,
    replace: Annotated[bool, typer.Option(help="Replace documents already stored.")] = False,
    skip_bad: Annotated[bool, typer.Option(
        help="Skip files that are not well-formed XML and list them.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Load XML documents: one unit per element, ids DOC#XPATH (DESIGN §1.1).

    A directory's files get ids relative to it (path without extension); a
    file given directly gets its stem. Loading is all or nothing.
    """
    from graphprum.loaders.xml import find_xml_files

    store = _open_store()
    files = find_xml_files(paths)  # fail fast on bad paths, and count for the bar
    with _Progress(len(files), "loading XML", quiet) as advance:
        report = store.load_xml(paths, links=links, replace=replace, skip_bad=skip_bad,
                                on_file=lambda f, n: advance(1))
    for s in report.skipped:
        print(f"graphprum: skipped {s}", file=sys.stderr)
    print(f"loaded {report.documents} documents, {report.elements} elements in "
          f"{report.seconds:.2f} s ({report.rate:,.0f} elements/s)"
          + (f", replaced {report.replaced}" if report.replaced else "")
          + (f", skipped {len(report.skipped)} bad files" if report.skipped else "")
          + (f", {report.links} links" if report.links else ""))


class _Progress:
    """A rich progress bar on stderr when it is a terminal, nothing otherwise.

    ``with _Progress(total, label) as bar``: ``bar(n)`` advances by n,
    ``bar.update(done, total)`` sets both (for callers that know the total
    only once they start).
    """

    def __init__(self, total: int | None, label: str, quiet: bool = False) -> None:
        self.total = total
        self.label = label
        self.enabled = _show_progress(quiet)
        self._progress: Any = None
        self._task: Any = None
        self._drawn = 0.0

    def __enter__(self) -> _Progress:
        if not self.enabled:
            return self
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        # no refresh thread (auto_refresh off): evaluation forks worker
        # processes, and a thread holding the console's lock at fork time
        # could deadlock a worker; the bar is redrawn from here, throttled
        self._progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                  MofNCompleteColumn(), TimeRemainingColumn(),
                                  console=err_console, transient=True, auto_refresh=False)
        self._progress.start()
        self._task = self._progress.add_task(self.label, total=self.total)
        self._progress.refresh()
        return self

    def __call__(self, n: int) -> None:
        if self._progress is not None:
            self._progress.advance(self._task, n)
            self._refresh()

    def update(self, done: int, total: int) -> None:
        """Set the completed count and the total."""
        if self._progress is not None:
            self._progress.update(self._task, completed=done, total=total)
            self._refresh(force=done >= total)

    def _refresh(self, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self._drawn >= 0.1:
            self._drawn = now
            self._progress.refresh()

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()


def _status(message: str):
    """A spinner with ``message`` on stderr while a step without steps runs."""
    if not _show_progress(False):
        return contextlib.nullcontext()
    return err_console.status(message)


@load_app.command("web")
@user_errors
def load_web(
    root: Annotated[Path, typer.Argument(help="The site's root directory.")],
    elements: Annotated[bool, typer.Option(
        help="Also store each page's element tree (ids PAGE#XPATH).")] = False,
    replace: Annotated[bool, typer.Option(help="Replace pages already stored.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Load an HTML site: every .html/.htm file is a page (id = path relative to ROOT).

    Links are resolved as a browser would; links leaving the site or to
    missing files are counted (see 'graphprum info') but not stored.
    """
    total = sum(1 for p in Path(root).rglob("*") if p.suffix.lower() in (".html", ".htm")) \
        if Path(root).is_dir() else 0
    store = _open_store()
    with _Progress(total, "loading pages", quiet) as advance:
        report = store.load_web(root, elements=elements, replace=replace,
                                on_file=lambda page, n: advance(1))
    dropped = sum(report.extra.values())
    print(f"loaded {report.documents} pages, {report.elements} units, {report.links} links "
          f"in {report.seconds:.2f} s ({report.documents / max(report.seconds, 1e-9):,.0f} "
          f"pages/s); {dropped} links not stored (external, missing or outside)")


@load_app.command("links")
@user_errors
def load_links(
    path: Annotated[Path, typer.Argument(help="Link list: FROM<TAB>TO lines.")],
) -> None:
    """Load a link list between pages; pages not yet stored become page units."""
    store = _open_store()
    report = store.load_links(path)
    print(f"loaded {report.links} links ({report.documents} new pages) in "
          f"{report.seconds:.2f} s ({report.links / max(report.seconds, 1e-9):,.0f} links/s)")


@load_app.command("video")
@user_errors
def load_video(
    paths: Annotated[list[Path], typer.Argument(
        help="Segment tables (VIDEO N START END), .srt/.vtt files, or directories.")],
    replace: Annotated[bool, typer.Option(help="Replace videos already stored.")] = False,
) -> None:
    """Load video segments: ids VIDEO#N, N the 1-based segment index in time order."""
    store = _open_store()
    report = store.load_video(paths, replace=replace)
    print(f"loaded {report.documents} videos, {report.elements - report.documents} segments "
          f"in {report.seconds:.2f} s")


# --------------------------------------------------------------------- info
@app.command()
@user_errors
def info(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Counts per kind, documents, links, summaries, store format and size on disk."""
    store = _open_store(create=False)
    data = store.info()
    if as_json:
        print(json.dumps(data, indent=1, default=str))
        return
    rows = [
        ("store", data.get("store", state.store or "")),
        ("format", data.get("format", "")),
        ("documents", f"{data.get('documents', 0):,}"),
        ("elements", f"{data.get('elements', 0):,}"),
    ]
    for key in ("pages", "videos", "segments"):
        if data.get(key):
            rows.append((key, f"{data[key]:,}"))
    for key in ("tags", "label_paths"):
        if key in data:
            rows.append((key.replace("_", " "), f"{data[key]:,}"))
    if data.get("links") or data.get("dangling_links") or data.get("link_stats"):
        rows.append(("links", f"{data.get('links', 0):,}"))
        rows.append(("dangling links", f"{data.get('dangling_links', 0):,}"))
        for k, v in data.get("link_stats", {}).items():
            rows.append((k.replace("_", " "), f"{v:,}" if isinstance(v, int) else str(v)))
    for k, v in data.get("degrees", {}).items():
        rows.append((k, str(v)))
    rows.append(("summaries", ", ".join(data.get("summaries", [])) or "none"))
    if "bytes_on_disk" in data:
        rows.append(("size on disk", _human_bytes(data["bytes_on_disk"])))
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")


def _human_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"  # pragma: no cover


# --------------------------------------------------------------------- show
@app.command()
@user_errors
def show(
    uid: Annotated[str, typer.Argument(
        metavar="ID", help="A unit id, e.g. doc#/article[1]/sec[2].")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """A unit with its ancestors, children (with lengths), links and summary partitions."""
    from graphprum.inspect import describe_unit

    store = _open_store(create=False)
    data = describe_unit(store, uid)
    if as_json:
        print(json.dumps(data, indent=1, default=str))
        return
    console = Console()
    u = data["unit"]
    console.print(f"[bold]{u['id']}[/bold]  ({u['kind']} <{u['tag']}>)", highlight=False)
    fields = ["doc", "label_path", "depth", "pre", "post", "size", "start", "end", "length",
              "words"]
    for f in fields:
        v = u[f]
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        console.print(f"  {f:<11} {v}", highlight=False)
    for name, sid in data.get("partitions", {}).items():
        console.print(f"  summary {name}: partition {sid}", highlight=False)
    if data["ancestors"]:
        console.print("ancestors:", highlight=False)
        for a in data["ancestors"]:
            console.print(f"  {a}", highlight=False)
    if data["children"]:
        t = Table("child", "tag", "length", "words", box=None, pad_edge=False)
        for c in data["children"]:
            t.add_row(c["id"], c["tag"], _num(c["length"]), str(c["words"]))
        console.print(f"children ({len(data['children'])}):", highlight=False)
        console.print(t)
    for direction in ("out_links", "in_links"):
        links = data.get(direction, [])
        if links:
            counts = Counter(links)  # LINK edges keep their multiplicity; shown once each
            console.print(f"{direction.replace('_', '-')} ({len(links)} to {len(counts)} "
                          f"{'units' if len(counts) > 1 else 'unit'}):", highlight=False)
            for link, n in list(counts.items())[:50]:
                console.print(f"  {link}" + (f"  x{n}" if n > 1 else ""), highlight=False)
            if len(counts) > 50:
                console.print(f"  ... {len(counts) - 50} more", highlight=False)


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.3f}"


# ------------------------------------------------------------------ summary
summary_app = typer.Typer(help="AxPRE structural summaries: build, show.", no_args_is_help=True)
app.add_typer(summary_app, name="summary")
SUMMARY_FORMATS = ["table", "json", "dot", "png"]


@summary_app.command("build")
@user_errors
def summary_build(
    axpre: Annotated[str, typer.Argument(
        help="label, p, p*, c, p*|c or c* (quote p* in a shell).")],
    weight: Annotated[str, typer.Option(
        help="Edge weight for the steady state: count, length, extent, or a SRC DST W file.")]
    = "count",
) -> None:
    """Build an AxPRE partition of the XML elements and its summary graph, and store it."""
    from graphprum.summaries.axpre import build_summary, normalise_axpre

    store = _open_store(create=False)
    t0 = time.perf_counter()
    from graphprum.units import KIND_ELEMENT

    if not (store.table().columns["kind"] == KIND_ELEMENT).any():
        raise _usage(f"{store.location} holds no XML elements to summarise "
                     f"(load XML, or web pages with --elements)")
    with _status(f"building the {normalise_axpre(axpre)} summary of {store.location} ..."):
        if hasattr(store, "summary_dir"):  # embedded store: stored with the collection
            summary = store.build_summary(axpre, weight)
        else:  # Bolt: derived by Cypher, stored as (:Summary) nodes; π from the same partition
            store.build_summary(normalise_axpre(axpre))
            summary = build_summary(store.table(), axpre, weight)
    print(f"built {summary.axpre} summary: {len(summary)} partitions, {len(summary.edges)} "
          f"edges over {int(summary.partitions['extent'].sum()):,} elements in "
          f"{time.perf_counter() - t0:.2f} s")


@summary_app.command("show")
@user_errors
def summary_show(
    axpre: Annotated[str, typer.Argument(help="A built summary: label, p, p*, c, p*|c, c*.")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="table, json, dot or png.")]
    = "table",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="File for png.")] = None,
    weight: Annotated[str | None, typer.Option(help="Show π under another weight.")] = None,
    limit: Annotated[int, typer.Option(help="Table rows shown (0 = all).")] = 50,
) -> None:
    """Partitions with extent sizes, total lengths and steady-state π."""
    from graphprum.summaries import render

    if fmt not in SUMMARY_FORMATS:
        raise _usage(f"--format {fmt!r}: choose one of {', '.join(SUMMARY_FORMATS)}")
    from graphprum.summaries.axpre import build_summary, normalise_axpre

    store = _open_store(create=False)
    if hasattr(store, "summary"):
        summary = store.summary(axpre)
    elif normalise_axpre(axpre) in store.summary_names():
        summary = build_summary(store.table(), axpre, weight or "count")
    else:
        raise _usage(f"no {normalise_axpre(axpre)} summary in {store.location}; build it "
                     f"with 'graphprum summary build {normalise_axpre(axpre)}'")
    if weight is not None and weight != summary.weight:
        summary = summary.reweighted(weight, store.table())
    if fmt == "json":
        print(render.to_json(summary))
    elif fmt == "dot":
        print(render.to_dot(summary))
    elif fmt == "png":
        if output is None:
            raise _usage("--format png needs --output FILE.png")
        drawn = render.to_png(summary, output)
        print(f"wrote {output} ({len(drawn)} of {len(summary)} partitions drawn)")
    else:
        rows = render.table_rows(summary)
        t = Table("SID", "key", "extent", "length", "π", box=None, pad_edge=False)
        for r in rows[: limit or None]:
            t.add_row(r["sid"], r["key"], f"{r['extent']:,}", _num(r["length"]),
                      f"{r['pi']:.4f}")
        console = Console(highlight=False)
        console.print(f"{summary.axpre} summary, weight {summary.weight}: {len(summary)} "
                      f"partitions, {len(summary.edges)} edges")
        console.print(t)
        if limit and len(rows) > limit:
            console.print(f"... {len(rows) - limit} more (--limit 0 shows all)")


# ---------------------------------------------------------------------- nav
@app.command()
@user_errors
def nav(
    model: Annotated[list[str], typer.Argument(
        help="Navigation model(s), e.g. structural:words, walk:nav.tsv,hops=2 "
             "(several combine by noisy-or).")],
    sources: Annotated[list[str], typer.Option("--from", help="Source unit id (repeat).")],
    targets: Annotated[list[str], typer.Option("--to", help="Target unit id (repeat).")],
    topic: Annotated[str, typer.Option(help="Topic (for topic-specific models).")] = "",
) -> None:
    """Print FROM TO P under a navigation model (DESIGN §1.5), tab separated."""
    from graphprum.context import TopicContext
    from graphprum.navigation.base import parse_model

    models = [parse_model(m) for m in model]
    store = _open_store(create=False) if any(m.needs_store for m in models) else None
    if store is not None:
        ids = list(dict.fromkeys([*sources, *targets]))
        unknown = [u for u, r in zip(ids, store.resolve(ids), strict=True) if r < 0]
        if unknown:
            note(f"note: not in store {store.location} (P = 0 but to itself): "
                 + ", ".join(unknown))
    ctx = TopicContext(topic=topic, ranked=list(sources), qrels={}, models=models, store=store)
    p = ctx.nav(sources, targets).toarray()
    for i, s in enumerate(sources):
        for j, t in enumerate(targets):
            print(f"{s}\t{t}\t{float(p[i, j])!r}")


# --------------------------------------------------------------------- eval
from graphprum.report import FORMATS  # noqa: E402


@app.command("eval")
@user_errors
def eval_command(
    runs: Annotated[list[Path], typer.Argument(help="Run files (TREC or INEX XML).")],
    qrels: Annotated[Path | None, typer.Option("--qrels", help="Qrels TOPIC ITER ID REL.")] = None,
    passages: Annotated[Path | None, typer.Option(
        "--passages", help="Passage qrels TOPIC DOC START END (INEX measures).")] = None,
    measure: Annotated[list[str], typer.Option(
        "--measure", "-m", help="Measure, e.g. PRUM, PRUM@0.5, SRP@10, AP (repeat).")]
    = ["PRUM"],  # noqa: B006
    nav_models: Annotated[list[str], typer.Option(
        "--nav", help="Navigation model (repeat; noisy-or). Default classical.")]
    = ["classical"],  # noqa: B006
    fmt: Annotated[str | None, typer.Option(
        "--format", "-f",
        help="table (terminal default), tsv (default otherwise), csv, json, latex, markdown.")]
    = None,
    per_topic: Annotated[bool, typer.Option("--per-topic", "-q", help="Per-topic rows too.")]
    = False,
    collection_size: Annotated[float | None, typer.Option(
        help="N for the unranked part; default: units in the store (infinite without).")]
    = None,
    ideal_min: Annotated[float, typer.Option(help="Ideal units have REL >= this.")] = 1.0,
    order: Annotated[str, typer.Option(help="score (trec_eval order) or rank (INEX).")]
    = "score",
    dedup: Annotated[bool, typer.Option(help="Keep the first of duplicate results.")] = False,
    trees: Annotated[bool, typer.Option(help="Runs list trees (lines sharing a RANK).")]
    = False,
    strict: Annotated[bool, typer.Option(help="Unknown qrels ids are an error.")] = False,
    no_store: Annotated[bool, typer.Option(
        "--no-store", help="Do not open a store (ids are opaque strings).")] = False,
    task: Annotated[str | None, typer.Option(
        help="INEX 2006 task preset adding its official measures: thorough, focused, "
             "ric (relevant in context), bic (best in context).")] = None,
    offsets: Annotated[str, typer.Option(
        help="Passage offsets count 'chars' (default) or UTF-8 'bytes'.")] = "chars",
    inclusive_ends: Annotated[bool, typer.Option(
        help="Passage END offsets are inclusive (default exclusive).")] = False,
    jobs: Annotated[int, typer.Option(
        "--jobs", "-j", min=1, help="Evaluate topics in N processes (same results).")] = 1,
) -> None:
    """Evaluate runs with user-model and classical measures.

    Output rows are RUN MEASURE TOPIC VALUE; TOPIC 'all' is the mean over the
    qrels' topics. Topics missing from a run score 0.
    """
    from graphprum.evaluation import needs_store, run_evaluation
    from graphprum.report import write_results

    if qrels is None and passages is None:
        raise _usage("eval needs --qrels or --passages")
    if task is not None:
        from graphprum.measures.inex import task_measures

        preset = task_measures(task)
        measure = preset if measure == ["PRUM"] else [*measure, *preset]
    if offsets not in ("chars", "bytes"):
        raise _usage(f"--offsets {offsets!r}: choose chars or bytes")
    if fmt is None:
        fmt = "table" if sys.stdout.isatty() else "tsv"
    if fmt not in FORMATS:
        raise _usage(f"--format {fmt!r}: choose one of {', '.join(FORMATS)}")
    store = None
    if not no_store and (needs_store(measure, nav_models) or _store_exists()):
        store = _open_store(create=False)
    with _Progress(None, f"evaluating {len(runs)} run(s), topics") as bar:
        df = run_evaluation(runs, qrels, measure, nav=nav_models, store=store,
                            collection_size=collection_size, ideal_min=ideal_min, order=order,
                            dedup=dedup, trees=trees, passages=passages, per_topic=per_topic,
                            strict=strict, warn=note, offsets=offsets,
                            ends="inclusive" if inclusive_ends else "exclusive", jobs=jobs,
                            progress=bar.update)
    write_results(df, fmt, sys.stdout)


def _store_exists() -> bool:
    loc = state.store or os.environ.get("GRAPHPRUM_STORE") or "graphprum-store"
    return "://" in loc or (Path(loc) / "manifest.json").exists()


def _usage(message: str) -> GraphprumError:
    from graphprum.errors import UsageError

    return UsageError(message)


# -------------------------------------------------------------------- query
QUERY_FORMATS = ["table", "json", "tsv"]


@app.command()
@user_errors
def query(
    cypher: Annotated[str, typer.Argument(help="A Cypher query; use $name for parameters.")],
    param: Annotated[list[str], typer.Option(
        "--param", "-p", help="NAME=VALUE (JSON values parsed; repeat). Never pasted into "
                              "the query text.")] = [],  # noqa: B006
    write: Annotated[bool, typer.Option(help="Allow the query to write.")] = False,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table, json or tsv.")] = "table",
) -> None:
    """Run Cypher against the store (read-only unless --write).

    On the embedded store a read-only subset of Cypher runs over a networkx
    view of the collection (grand-cypher: MATCH/WHERE/RETURN, ORDER BY,
    LIMIT, upper-case aggregates such as COUNT(u); no parameters, no
    writes); the Bolt store runs any Cypher its server knows.
    """
    from graphprum.query import parse_param, run_query

    if fmt not in QUERY_FORMATS:
        raise _usage(f"--format {fmt!r}: choose one of {', '.join(QUERY_FORMATS)}")
    params = dict(parse_param(p) for p in param)
    store = _open_store(create=False)
    rows = run_query(store, cypher, params, write=write)
    if fmt == "json":
        print(json.dumps(rows, indent=1, default=str, ensure_ascii=False))
        return
    columns = list(dict.fromkeys(k for r in rows for k in r))
    if fmt == "tsv":
        print("\t".join(columns))
        for r in rows:
            print("\t".join(str(r.get(c, "")) for c in columns))
        return
    t = Table(*columns, box=None, pad_edge=False) if columns else None
    for r in rows:
        t.add_row(*(str(r.get(c, "")) for c in columns))  # type: ignore[union-attr]
    console = Console(highlight=False)
    if t is not None:
        console.print(t)
    console.print(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")


# --------------------------------------------------------------------- copy
@app.command()
@user_errors
def copy(
    src: Annotated[str, typer.Argument(help="Source store (directory or bolt:// URI).")],
    dst: Annotated[str, typer.Argument(help="Destination store.")],
    replace: Annotated[bool, typer.Option(help="Replace documents already there.")] = False,
) -> None:
    """Copy a collection (documents, links) between stores, e.g. into Neo4j."""
    from graphprum.store import open_store
    from graphprum.store.copy import copy_store

    report = copy_store(open_store(src, create=False), open_store(dst), replace=replace)
    print(f"copied {report.documents} documents, {report.elements} units in "
          f"{report.seconds:.2f} s")


# ------------------------------------------------------------------- server
server_app = typer.Typer(help="A local FalkorDB server with Bolt (pip install "
                              "graphprum[server]), for users without Docker.",
                         no_args_is_help=True)
app.add_typer(server_app, name="server")
_SERVER_DIR = Path(os.environ.get("GRAPHPRUM_SERVER_DIR", "graphprum-server"))


@server_app.command("start")
@user_errors
def server_start(
    port: Annotated[int, typer.Option(help="Bolt port.")] = 7687,
    data_dir: Annotated[Path, typer.Option(help="Data directory.")] = _SERVER_DIR,
) -> None:
    """Start the server in the background; prints the URI to use with --store."""
    from graphprum.store import falkor_server

    st = falkor_server.start(data_dir, port=port)
    print(f"FalkorDB running (pid {st['pid']}): use --store {st['uri']}")


@server_app.command("stop")
@user_errors
def server_stop(
    data_dir: Annotated[Path, typer.Option(help="Data directory.")] = _SERVER_DIR,
) -> None:
    """Stop the server started for this data directory."""
    from graphprum.store import falkor_server

    st = falkor_server.stop(data_dir)
    print("stopped" if not st.get("running") else f"still running: {st}")


@server_app.command("status")
@user_errors
def server_status(
    data_dir: Annotated[Path, typer.Option(help="Data directory.")] = _SERVER_DIR,
) -> None:
    """Whether the server runs, with its pid and URI."""
    from graphprum.store import falkor_server

    st = falkor_server.status(data_dir)
    print(f"running (pid {st['pid']}): {st.get('uri')}" if st["running"] else "not running")


from graphprum.cli_report import register as _register_report  # noqa: E402

_register_report(app)


def main() -> None:
    """Entry point of the ``graphprum`` script."""
    try:
        app()
    except KeyboardInterrupt:
        print("graphprum: interrupted", file=sys.stderr)
        sys.exit(130)

