"""``graphprum info``, ``show`` and ``nav``: look at what a store holds."""

from __future__ import annotations

import json
from collections import Counter
from typing import Annotated, Any

import typer

from graphprum.cli.app import app, note, open_store, state, user_errors
from graphprum.errors import printable


@app.command()
@user_errors
def info(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Counts per kind, documents, links, summaries, store format and size on disk."""
    store = open_store(create=False)
    data = store.info()
    if as_json:
        print(json.dumps(data, indent=1, default=str))
        return
    rows = info_rows(data, state.store or "")
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(printable(f"{k:<{width}}  {v}"))


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
        rows.append(("links", f"{data.get('links', 0):,}"))
        rows.append(("dangling links", f"{data.get('dangling_links', 0):,}"))
        for k, v in data.get("link_stats", {}).items():
            rows.append((k.replace("_", " "), f"{v:,}" if isinstance(v, int) else str(v)))
    for k, v in data.get("degrees", {}).items():
        rows.append((k, str(v)))
    rows.append(("summaries", ", ".join(data.get("summaries", [])) or "none"))
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


@app.command()
@user_errors
def show(
    uid: Annotated[str, typer.Argument(
        metavar="ID", help="A unit id, e.g. doc#/article[1]/sec[2].")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """A unit with its ancestors, children (with lengths), links and summary partitions."""
    from rich.console import Console
    from rich.table import Table

    from graphprum.inspect import describe_unit

    store = open_store(create=False)
    data = describe_unit(store, uid)
    if as_json:
        print(json.dumps(data, indent=1, default=str))
        return
    console = Console(highlight=False, soft_wrap=True)
    u = data["unit"]
    console.print(f"[bold]{u['id']}[/bold]  ({u['kind']} <{u['tag']}>)")
    fields = ["doc", "label_path", "depth", "pre", "post", "size", "start", "end", "length",
              "words"]
    for f in fields:
        v = u[f]
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        console.print(f"  {f:<11} {v}")
    if u.get("text"):
        console.print(f"  {'text':<11} {u['text']}", markup=False)
    for name, value in (u.get("attributes") or {}).items():
        console.print(f"  @{name:<10} {value}", markup=False)
    for name, sid in data.get("partitions", {}).items():
        console.print(f"  summary {name}: partition {sid}")
    if data["ancestors"]:
        console.print("ancestors:")
        for a in data["ancestors"]:
            console.print(f"  {a}")
    if data["children"]:
        t = Table("child", "tag", "length", "words", box=None, pad_edge=False)
        for c in data["children"]:
            t.add_row(c["id"], c["tag"], _num(c["length"]), str(c["words"]))
        console.print(f"children ({len(data['children'])}):")
        console.print(t)
    for direction in ("out_links", "in_links"):
        links = data.get(direction, [])
        if links:
            counts = Counter(links)  # LINK edges keep their multiplicity; shown once each
            console.print(f"{direction.replace('_', '-')} ({len(links)} to {len(counts)} "
                          f"{'units' if len(counts) > 1 else 'unit'}):")
            for link, n in list(counts.items())[:50]:
                console.print(f"  {link}" + (f"  x{n}" if n > 1 else ""))
            if len(counts) > 50:
                console.print(f"  ... {len(counts) - 50} more")


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.3f}"


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
    """Print FROM TO P under a navigation model, tab separated."""
    from graphprum.context import TopicContext
    from graphprum.navigation.base import parse_model

    models = [parse_model(m) for m in model]
    store = open_store(create=False) if any(m.needs_store for m in models) else None
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
