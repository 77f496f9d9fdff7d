"""``graphprum info``, ``show`` and ``nav``: look at what a store holds.

Each prints a layout for people on a terminal and TSV otherwise (``--format``
chooses): ``info`` and ``show`` as ``FIELD<TAB>VALUE...`` lines, ``nav`` as
``FROM<TAB>TO<TAB>P`` lines, the layout of the navigation files it reads.
"""

import json
import sys
from collections import Counter
from collections.abc import Mapping
from typing import Annotated, Any

import typer

from graphprum.cli.shared import (
    TABLE_FORMATS,
    Digits,
    Format,
    app,
    choose_format,
    state,
    store_from_options,
    user_errors,
)
from graphprum.context import TopicContext
from graphprum.describe import describe_unit
from graphprum.errors import UnknownIdError, printable
from graphprum.floats import readable
from graphprum.io.xpaths import normalise_id
from graphprum.navigation.base import FORMS, parse_model
from graphprum.store.base import RECOUNTED
from graphprum.tabular import write_rows

#: What the loaders' link statistics count: links found and not stored, and why.
LINKS_NOT_STORED = {
    "external_links": "external",
    "links_leaving_root": "leaving the loaded root",
    "links_to_missing_files": "to missing files",
    "links_to_non_pages": "to files that are not pages",
    "links_within_page": "within their own page",
    "links_within_document": "to a place in their own document only",
}


def links_not_stored(stats: Mapping[str, Any]) -> str:
    """The links a load found and did not store, by kind (``""`` for none).

    >>> links_not_stored({"external_links": 3, "links_within_page": 2657, "links_to_non_pages": 0})
    '2,660 links not stored: 3 external, 2,657 within their own page'
    """
    kinds = [(n, label) for key, label in LINKS_NOT_STORED.items()
             if isinstance(n := stats.get(key, 0), int) and n]
    if not kinds:
        return ""
    total = sum(n for n, _ in kinds)
    return (f"{total:,} link{'s' if total != 1 else ''} not stored: "
            + ", ".join(f"{n:,} {label}" for n, label in kinds))


AsJson = Annotated[bool, typer.Option("--json", help="Print JSON (same as --format json).")]


@app.command(short_help="Counts per kind, documents, links, summaries, format.")
@user_errors
def info(
    as_json: AsJson = False,
    fmt: Format = None,
) -> None:
    """Counts per kind, documents, links, summaries, store format and size on disk."""
    fmt = choose_format("json" if as_json else fmt, TABLE_FORMATS)
    store = store_from_options(create=False)
    data = store.info()  # numbers at full precision: the table rounds them
    if fmt == "json":
        print(json.dumps(data, indent=1, default=str))
    elif fmt == "table":
        rows = info_rows(data, state.store or "")
        width = max(len(k) for k, _ in rows)
        for k, v in rows:
            print(printable(f"{k:<{width}}  {v}"))
    else:
        write_rows(["field", "value"], info_records(data), fmt, sys.stdout, header=False)


def degree_sentence(numbers: Mapping[str, Any]) -> str:
    """A degree distribution (the store's ``info``, at full precision) as
    the ``info`` table words it: the mean to 2 decimals, percentiles to 1.

    >>> degree_sentence({"units": 1168, "mean": 17.7718, "median": 16, "p90": 23,
    ...                  "p99": 111.54, "max": 3408})
    '1,168 units; mean 17.77, median 16, p90 23, p99 111.5, max 3,408'
    """
    return (f"{numbers['units']:,} units; mean {numbers['mean']:.2f}, "
            + ", ".join(f"{k} {readable(round(float(numbers[k]), 1))}"
                        for k in ("median", "p90", "p99"))
            + f", max {numbers['max']:,}")


def info_records(data: Mapping[str, Any], prefix: str = "") -> list[list[Any]]:
    """``info`` as (field, value) records for tsv and csv: nested fields as
    ``link_stats.pages``, lists of plain values joined by commas.

    >>> info_records({"elements": 12, "summaries": ["p*", "c"], "degrees": {"out": "2 units"}})
    [['elements', 12], ['summaries', 'p*,c'], ['degrees.out', '2 units']]
    """
    rows: list[list[Any]] = []
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            rows.extend(info_records(value, name + "."))
        elif isinstance(value, list | tuple) and all(
                isinstance(v, str | int | float) for v in value):
            rows.append([name, ",".join(str(v) for v in value)])
        else:
            rows.append([name, value])
    return rows


def info_rows(data: dict[str, Any], location: str = "") -> list[tuple[str, str]]:
    """The ``info`` table's (label, value) rows."""
    rows = [
        ("store", data.get("store", location)),
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
        rows.append(("links", f"{data.get('links', 0):,} (a unit's out-links: the links "
                              f"in its subtree)"))
        rows.append(("dangling links", f"{data.get('dangling_links', 0):,} (target not stored)"))
        stats = data.get("link_stats", {})
        dropped = links_not_stored(stats)
        if dropped:
            again = stats.get(RECOUNTED, 0)
            rows.append(("links not stored", dropped.partition(": ")[2] + (
                f" (sums over the loads, {again:,} document(s) of which were loaded again "
                f"since: their links may be counted twice)" if again else "")))
        for k, v in stats.items():
            if k not in LINKS_NOT_STORED and k != RECOUNTED:
                rows.append((k.replace("_", " "), f"{v:,}" if isinstance(v, int) else str(v)))
    for k, v in data.get("degrees", {}).items():
        rows.append((k, degree_sentence(v)))
    rows.append(("summaries", ", ".join(data.get("summaries", [])) or "none"))
    if data.get("incomplete_documents"):
        rows.append(("incomplete documents",
                     f"{data['incomplete_documents']:,} (a load was interrupted: the next "
                     f"load or 'graphprum load --resume' removes them)"))
    if data.get("interrupted_loads"):
        rows.append(("interrupted load",
                     "killed while it made its documents visible: 'graphprum load --resume' "
                     "or the next load finishes it (its history entry and link statistics "
                     "are added then)"))
    if "bytes_on_disk" in data:
        rows.append(("size on disk", human_bytes(data["bytes_on_disk"])))
    return rows


def human_bytes(n: float) -> str:
    """``1536`` -> ``'1.5 KiB'``.

    >>> human_bytes(512), human_bytes(1536)
    ('512 B', '1.5 KiB')
    """
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


@app.command(short_help="A unit: its ancestors, children, links, partitions.")
@user_errors
def show(
    uid: Annotated[str, typer.Argument(
        metavar="ID", help="A unit id, e.g. doc#/article[1]/sec[2].")],
    as_json: AsJson = False,
    fmt: Format = None,
    digits: Digits = 4,
) -> None:
    """A unit with its ancestors, children (with lengths), links and summary partitions.

    Off a terminal (or with -f tsv) one FIELD<TAB>VALUE... line each: the
    unit's fields, its text and '@NAME VALUE' attributes, then 'partition
    SUMMARY SID', 'ancestor ID', 'child ID TAG LENGTH WORDS', 'out_link ID
    COUNT' and 'in_link ID COUNT' lines.
    """
    fmt = choose_format("json" if as_json else fmt, TABLE_FORMATS)
    store = store_from_options(create=False)
    data = describe_unit(store, uid)
    if fmt == "json":
        print(json.dumps(data, indent=1, default=str))
    elif fmt == "table":
        _print_unit(data, digits)
    else:
        write_rows(["field", "value"], show_records(data), fmt, sys.stdout, header=False)


#: The unit fields ``show`` prints, in order.
UNIT_FIELDS = ("doc", "label_path", "depth", "pre", "post", "size", "start", "end", "length",
               "words")


def show_records(data: Mapping[str, Any]) -> list[list[Any]]:
    """What :func:`describe_unit <graphprum.describe.describe_unit>` found, as
    ``FIELD VALUE...`` records (the tsv and csv of ``show``).

    >>> data = {"unit": {"id": "v#1", "kind": "segment", "tag": "segment", "start": 0.0},
    ...         "partitions": {}, "ancestors": ["v"], "children": [],
    ...         "out_links": ["v#2", "v#2"], "in_links": []}
    >>> show_records(data)
    [['id', 'v#1'], ['kind', 'segment'], ['tag', 'segment'], ['start', 0.0], \
['ancestor', 'v'], ['out_link', 'v#2', 2]]
    """
    u = data["unit"]
    rows: list[list[Any]] = [[f, u[f]] for f in ("id", "kind", "tag", *UNIT_FIELDS) if f in u]
    if u.get("text"):
        rows.append(["text", u["text"]])
    rows += [[f"@{name}", value] for name, value in (u.get("attributes") or {}).items()]
    rows += [["partition", name, sid] for name, sid in data.get("partitions", {}).items()]
    rows += [["ancestor", a] for a in data.get("ancestors", [])]
    rows += [["child", c["id"], c["tag"], c["length"], c["words"]]
             for c in data.get("children", [])]
    for direction in ("out_links", "in_links"):
        counts = Counter(data.get(direction, []))
        rows += [[direction[:-1], link, n] for link, n in counts.items()]
    return rows


def _print_unit(data: Mapping[str, Any], digits: int) -> None:
    """``show`` for people: the unit, then its neighbourhood, numbers readable."""
    from rich.console import Console  # 30 ms of import: only when drawing for a person
    from rich.markup import escape
    from rich.measure import Measurement
    from rich.table import Table

    console = Console(highlight=False, soft_wrap=True)
    u = data["unit"]
    console.print(f"[bold]{escape(u['id'])}[/bold]  ({u['kind']} <{escape(u['tag'])}>)")
    for f in UNIT_FIELDS:
        console.print(f"  {f:<11} {escape(readable(u[f], digits))}")
    if u.get("text"):
        console.print(f"  {'text':<11} {u['text']}", markup=False)
    for name, value in (u.get("attributes") or {}).items():
        console.print(f"  @{name:<10} {value}", markup=False)
    for name, sid in data.get("partitions", {}).items():
        console.print(f"  summary {escape(name)}: partition {sid}")
    if data["ancestors"]:
        console.print("ancestors:")
        for a in data["ancestors"]:
            console.print(f"  {escape(a)}")
    if data["children"]:
        console.print(f"children ({len(data['children'])}):")
        t = Table("child", "tag", "length", "words", box=None, pad_edge=False)
        for c in data["children"]:
            t.add_row(escape(c["id"]), escape(c["tag"]), readable(c["length"], digits),
                      readable(c["words"], digits))
        if Measurement.get(console, console.options.update_width(1_000_000), t).maximum \
                <= console.width:
            console.print(t)
        else:  # a line each, as the ancestors: ids whole, never cut to fit the terminal
            for c in data["children"]:
                console.print(f"  {escape(c['id'])}  <{escape(c['tag'])}>  length "
                              f"{readable(c['length'], digits)}, "
                              f"words {readable(c['words'], digits)}")
    for direction in ("out_links", "in_links"):
        links = data.get(direction, [])
        if links:
            counts = Counter(links)  # LINK edges keep their multiplicity; shown once each
            where = ", the links in its subtree" if direction == "out_links" and \
                int(u.get("size", 1)) > 1 else ""
            console.print(f"{direction.replace('_', '-')}{where} ({len(links)} "
                          f"{'to' if direction == 'out_links' else 'from'} {len(counts)} "
                          f"{'units' if len(counts) > 1 else 'unit'}):")
            for link, n in list(counts.items())[:50]:
                console.print(f"  {escape(link)}" + (f"  x{n}" if n > 1 else ""))
            if len(counts) > 50:
                console.print(f"  ... {len(counts) - 50} more")


NAV_HELP = (
    "P(FROM -> TO) under a navigation model: a table on a terminal, otherwise "
    "FROM<TAB>TO<TAB>P lines (the layout of a direct:FILE navigation file).\n\n"
    "\b\nThe models, with their parameters (eval's --nav takes the same):\n"
    + "\n".join(f"  {form}" for form in FORMS.values())
    + "\n\nExample: graphprum nav links:hops=2 --from a.html --to c.html")


@app.command(short_help="P(FROM -> TO) under a navigation model.", help=NAV_HELP)
@user_errors
def nav(
    model: Annotated[list[str], typer.Argument(
        help="Navigation model(s), e.g. structural:words, walk:nav.tsv,hops=2 "
             "(several combine by noisy-or; structural with links also moves down into "
             "a link's target).")],
    sources: Annotated[list[str], typer.Option("--from", help="Source unit id (repeat).")],
    targets: Annotated[list[str], typer.Option("--to", help="Target unit id (repeat).")],
    topic: Annotated[str, typer.Option(help="Topic (for topic-specific models).")] = "",
    fmt: Format = None,
    digits: Digits = 4,
) -> None:
    """P(FROM -> TO) under a navigation model (:data:`NAV_HELP`)."""
    fmt = choose_format(fmt, TABLE_FORMATS)
    models = [parse_model(m) for m in model]
    store = store_from_options(create=False) if any(m.needs_store for m in models) else None
    if store is not None:  # ids as runs give them (doc#/article/sec: [1] steps)
        sources, targets = ([normalise_id(u) for u in ids] for ids in (sources, targets))
        ids = list(dict.fromkeys([*sources, *targets]))
        # kinds, not resolve: on a graph server resolve reads the whole collection
        unknown = [u for u, k in zip(ids, store.kinds(ids), strict=True) if k < 0]
        if unknown:  # a typo would print P = 0 (show refuses it alike)
            more = f" (and {len(unknown) - 1} more: {', '.join(unknown[1:4])}" + (
                ", ...)" if len(unknown) > 4 else ")") if len(unknown) > 1 else ""
            raise UnknownIdError(f"{unknown[0]}: no such unit in store {store.location}{more}")
    ctx = TopicContext(topic=topic, ranked=list(sources), qrels={}, models=models, store=store)
    p = ctx.nav(sources, targets).toarray()
    rows = [[s, t, float(p[i, j])] for i, s in enumerate(sources) for j, t in enumerate(targets)]
    write_rows(["from", "to", "p"], rows, fmt, sys.stdout, digits=digits, header=fmt != "tsv")
