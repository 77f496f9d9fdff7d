"""One self-contained HTML report of an evaluation.

The page needs no network access: the CSS is inline and the figures are
inline SVG (text kept as text).  It holds the summary table (best mean per
measure in bold), significance tests between runs, the figures, per-topic
tables, and what is needed to reproduce the numbers: the exact command, the
versions of graphprum, numpy, scipy, pandas, matplotlib, ir_measures and
Python, the parameters (navigation models, collection size, store, ...) and
SHA-256 digests of the input files.

Examples
--------
>>> import pandas as pd
>>> df = pd.DataFrame([("a", "AP", "q1", 0.5), ("a", "AP", "all", 0.5)],
...                   columns=["run", "measure", "topic", "value"])
>>> page = build_report(df, figures=False)
>>> page.startswith("<!DOCTYPE html>") and "<td><b>0.5000</b></td>" not in page
True
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import html
import os
import platform
import shlex
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd

from graphprum.errors import UsageError, printable
from graphprum.evaluation import expand_measures
from graphprum.floats import fixed, p_value
from graphprum.measures.names import best_value, better_of, is_best
from graphprum.measures.registry import parse_measure
from graphprum.plots import (
    curve_measures,
    figure_svg,
    is_curve,
    plot_curves,
    plot_per_topic,
    topics_averaged,
)
from graphprum.significance import compare_measures, describe_test
from graphprum.store.uri import redact
from graphprum.version import __version__

_CSS = """
:root { --fg: #1d2330; --muted: #5b6475; --line: #d9dde5; --head: #f3f5f8; --accent: #2457a6; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: var(--fg); margin: 0 auto; padding: 1.5rem 2rem 4rem; max-width: 1200px; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; }
h2 { font-size: 1.25rem; margin: 2.2rem 0 .6rem; padding-bottom: .25rem;
     border-bottom: 2px solid var(--line); }
h3 { font-size: 1.05rem; margin: 1.4rem 0 .4rem; }
p.meta, p.note, figcaption { color: var(--muted); font-size: .9rem; }
p.nav-model { margin: .2rem 0 .4rem; padding: .35rem .7rem; background: var(--head);
              border-left: 3px solid var(--accent); font-size: .92rem; }
nav { margin: .6rem 0 1rem; font-size: .92rem; }
nav a { color: var(--accent); margin-right: 1rem; text-decoration: none; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: .4rem 0 1rem; font-size: .9rem; }
th, td { padding: .28rem .6rem; border-bottom: 1px solid var(--line); white-space: nowrap; }
thead th { background: var(--head); border-bottom: 2px solid #aab2c0; text-align: left;
           vertical-align: bottom; white-space: normal; }
th.num, td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.mean td { border-top: 2px solid #aab2c0; font-weight: 600; }
tbody tr:hover td { background: #f7f9fc; }
td.best { font-weight: 700; color: #0b3d91; }
td.sig { font-weight: 700; color: #0b6b2e; }
.figures { display: flex; flex-wrap: wrap; gap: 1rem 2rem; align-items: flex-start; }
figure { margin: .6rem 0 1rem; flex: 1 1 500px; max-width: 560px; }
figure.wide { flex-basis: 100%; max-width: 100%; }
figure svg { width: 100%; height: auto; display: block; }
.tables { display: flex; flex-wrap: wrap; gap: 0 2.5rem; align-items: flex-start; }
dl.params { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1.2rem;
            font-size: .9rem; }
dl.params dt { color: var(--muted); }
dl.params dd { margin: 0; font-family: ui-monospace, "DejaVu Sans Mono", monospace;
               overflow-wrap: anywhere; }
pre.command { background: var(--head); padding: .7rem 1rem; border-radius: 4px;
              white-space: pre-wrap; overflow-wrap: anywhere; font-size: .88rem; }
"""


def versions() -> dict[str, str]:
    """Versions of graphprum, the numeric libraries and Python."""
    out = {"graphprum": __version__}
    for name, dist in (("numpy", "numpy"), ("scipy", "scipy"), ("pandas", "pandas"),
                       ("matplotlib", "matplotlib"), ("ir_measures", "ir_measures"),
                       ("lxml", "lxml")):
        try:
            out[name] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    out["python"] = f"{platform.python_version()} ({platform.python_implementation()})"
    out["platform"] = platform.platform()
    return out


def file_digest(path: str | os.PathLike[str]) -> str:
    """SHA-256 of a file's bytes, hex (``-`` when it cannot be read)."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError:
        return "-"
    return h.hexdigest()


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _table(header: Sequence[str], rows: Iterable[Sequence[tuple[str, str]]], *,
           numeric_from: int, row_classes: Sequence[str] | None = None,
           caption: str | None = None) -> str:
    """An HTML table; each cell is (text, css class)."""
    parts = ['<div class="scroll"><table>']
    if caption:
        parts.append(f"<caption>{_e(caption)}</caption>")
    parts.append("<thead><tr>" + "".join(
        f'<th{" class=num" if i >= numeric_from else ""} scope="col">{_e(h)}</th>'
        for i, h in enumerate(header)) + "</tr></thead><tbody>")
    for k, row in enumerate(rows):
        cls = row_classes[k] if row_classes else ""
        parts.append(f'<tr{f" class={cls}" if cls else ""}>' + "".join(
            f'<td class="{" ".join(c for c in (css, "num" if i >= numeric_from else "") if c)}">'
            f"{_e(text)}</td>" for i, (text, css) in enumerate(row)) + "</tr>")
    parts.append("</tbody></table></div>")
    return "".join(parts).replace(' class=""', "")


def summary_table(df: pd.DataFrame) -> str:
    """Runs as rows, measures as columns (means over topics); the best mean of
    a measure marked, in its direction (none for counts)."""
    means = df[df["topic"] == "all"]
    if means.empty:
        raise UsageError("no means (topic 'all') in the results")
    measures = list(dict.fromkeys(means["measure"]))
    runs = list(dict.fromkeys(means["run"]))
    values = {(r, m): v for r, m, v in means[["run", "measure", "value"]].itertuples(index=False)}
    best = {m: best_value([values[r, m] for r in runs if (r, m) in values], better_of(m))
            for m in measures}
    rows = []
    for r in runs:
        row = [(str(r), "")]
        for m in measures:
            v = values.get((r, m))
            row.append(("" if v is None else fixed(v),
                        "best" if len(runs) > 1 and is_best(v, best[m]) else ""))
        rows.append(row)
    return _table(["run", *measures], rows, numeric_from=1)


def per_topic_tables(df: pd.DataFrame) -> str:
    """One table per measure: topics as rows, runs as columns, the mean last."""
    per = df[df["topic"] != "all"]
    out = []
    for m in dict.fromkeys(per["measure"]):
        sub = df[df["measure"] == m]
        runs = list(dict.fromkeys(sub["run"]))
        pivot = sub.pivot_table(index="topic", columns="run", values="value", aggfunc="first",
                                sort=False)
        topics = [t for t in pivot.index if t != "all"] + (["all"] if "all" in pivot.index
                                                           else [])
        rows, classes = [], []
        for t in topics:
            vals = [pivot.loc[t, r] if r in pivot.columns else float("nan") for r in runs]
            top = best_value([v for v in vals if v == v], better_of(m))
            rows.append([("mean" if t == "all" else str(t), "")] + [
                ("" if v != v else fixed(v), "best" if len(runs) > 1 and is_best(v, top) else "")
                for v in vals])
            classes.append("mean" if t == "all" else "")
        out.append(f'<div><h3 id="topic-{_e(m)}">{_e(m)}</h3>'
                   + _table(["topic", *runs], rows, numeric_from=1, row_classes=classes)
                   + "</div>")
    return '<div class="tables">' + "\n".join(out) + "</div>"


def comparison_table(res: pd.DataFrame) -> str:
    """Significance tests (:func:`graphprum.significance.compare` rows) as an HTML table."""
    rows = []
    for r in res.to_dict("records"):
        sig = "sig" if r["significant"] else ""
        rows.append([(str(r["measure"]), ""), (str(r["run_a"]), ""), (str(r["run_b"]), ""),
                     (fixed(r["mean_a"]), ""), (fixed(r["mean_b"]), ""),
                     (fixed(r["diff"], sign=True), sig), (fixed(r["effect_size"], 2), ""),
                     (f"{r['wins']}/{r['losses']}/{r['ties']}", ""),
                     (p_value(r["p_value"]), ""), (p_value(r["p_adjusted"]), sig),
                     ("*" if r["significant"] else "", sig)])
    return _table(["measure", "run A", "run B", "mean A", "mean B", "A − B", "d_z",
                   "W/L/T", "p", "p adj.", "sig."], rows, numeric_from=3)


def navigation_note(nav: Sequence[str] | None) -> str:
    """The navigation models as a line for the top of the summary.

    >>> navigation_note(["structural"])
    '<p class="nav-model">Navigation model (<code>--nav</code>): <code>structural</code>. \
User-model measures (PRUM, EPRUM, SR, ...) depend on it; classical ones (AP, P@k, nDCG) do not.</p>'
    """
    if not nav:
        return ""
    models = " + ".join(f"<code>{_e(m)}</code>" for m in nav)
    combined = " (combined by noisy-or)" if len(nav) > 1 else ""
    return (f'<p class="nav-model">Navigation model{"s" if len(nav) > 1 else ""} '
            f"(<code>--nav</code>): {models}{combined}. User-model measures (PRUM, EPRUM, "
            "SR, ...) depend on it; classical ones (AP, P@k, nDCG) do not.</p>")


def _without_per_topic_figure(results: pd.DataFrame, figures: bool, limit: int) -> str:
    """A note naming the measures that get no per-topic figure, and why."""
    measures = list(dict.fromkeys(results["measure"]))
    per_topic = set(results.loc[results["topic"] != "all", "measure"])
    if not figures:
        return ""
    if not per_topic:
        return ('<p class="note">No per-topic figures: the results hold only means over '
                "topics.</p>")
    reasons = []
    drawn = [m for m in measures if m in per_topic][:limit]
    skipped = [m for m in measures if m in per_topic and m not in drawn]
    if skipped:
        reasons.append(f"No per-topic figure for {', '.join(_e(m) for m in skipped)}: a report "
                       f"draws per-topic figures for its first {limit} measures "
                       f"({', '.join(_e(m) for m in drawn)}); every measure's per-topic values "
                       f'are in the <a href="#per-topic">per-topic tables</a>.')
    means_only = [m for m in measures if m not in per_topic]
    if means_only:
        reasons.append(f"No per-topic figure for {', '.join(_e(m) for m in means_only)}: "
                       "the results hold only its mean over topics.")
    return "".join(f'<p class="note">{r}</p>' for r in reasons)


def _params(items: Mapping[str, Any]) -> str:
    body = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in items.items())
    return f'<dl class="params">{body}</dl>'


def build_report(results: pd.DataFrame, *, curves: pd.DataFrame | None = None,
                 curve_kinds: Sequence[str] = (), ks: Sequence[int] | None = None,
                 comparisons: pd.DataFrame | None = None, comparison_note: str = "",
                 command: str | None = None, parameters: Mapping[str, Any] | None = None,
                 inputs: Sequence[Mapping[str, str]] = (), title: str = "graphprum report",
                 figures: bool = True, per_topic_figures: int = 3,
                 nav: Sequence[str] | None = None) -> str:
    """The report as one HTML string.

    Parameters
    ----------
    results : pandas.DataFrame
        Scalar measures (``run, measure, topic, value``) with per-topic rows.
    curves : pandas.DataFrame, optional
        Values of the curve measures (:func:`graphprum.plots.curve_measures`).
    curve_kinds : sequence of str
        Curves to draw from ``curves`` (one figure each).
    ks : sequence of int, optional
        Ranks of gain curves.
    comparisons : pandas.DataFrame, optional
        :func:`graphprum.significance.compare` rows; ``comparison_note`` says how
        they were made (test, correction, seed).
    command : str, optional
        The exact command line.
    parameters : mapping, optional
        Evaluation parameters (navigation models, collection size, store, ...).
    inputs : sequence of mappings
        Input files: ``role``, ``path``, ``sha256`` (and ``tag`` for runs).
    figures : bool
        Draw the figures (per-topic figures for the first ``per_topic_figures``
        measures, and the curves); the page says which measures got none, and why.
    nav : sequence of str, optional
        The navigation models (``--nav``), stated next to the summary table
        and in the figures' titles.
    """
    now = _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat()
    runs = list(dict.fromkeys(results["run"]))
    topics = [t for t in dict.fromkeys(results["topic"]) if t != "all"]
    sections = []
    sections.append(("summary", "Summary", navigation_note(nav)
                     + f'<p class="note">Mean over {_e(topics_averaged(results))}; '
                     "the best mean of each measure is in bold.</p>" + summary_table(results)))
    if comparisons is not None and len(comparisons):
        sections.append(("significance", "Significance tests",
                         f'<p class="note">{_e(comparison_note)}</p>'
                         + comparison_table(comparisons)))
    figs = []
    if figures:
        for kind in curve_kinds:
            assert curves is not None
            fig = plot_curves(curves, [kind], ks=ks, nav=nav)
            figs.append(f"<figure>{figure_svg(fig)}<figcaption>{_e(kind)} curve, mean over "
                        f"{_e(topics_averaged(curves))}.</figcaption></figure>")
        if topics:
            measures = list(dict.fromkeys(results[results["topic"] != "all"]["measure"]))
            for m in measures[:per_topic_figures]:
                fig = plot_per_topic(results, m, nav=nav)
                wide = ' class="wide"' if len(topics) > 20 else ""
                figs.append(f"<figure{wide}>{figure_svg(fig)}<figcaption>{_e(m)} per topic, topics "
                            f"sorted by {_e(runs[0])}.</figcaption></figure>")
    missing = _without_per_topic_figure(results, figures, per_topic_figures)
    if figs or missing:
        sections.append(("figures", "Figures", missing
                         + '<div class="figures">' + "\n".join(figs) + "</div>"))
    if topics:
        sections.append(("per-topic", "Per-topic values", per_topic_tables(results)))
    repro = []
    if command:
        repro.append(f'<h3>Command</h3><pre class="command">{_e(command)}</pre>')
    if parameters:
        repro.append("<h3>Parameters</h3>" + _params(parameters))
    if inputs:
        rows = [[(f.get("role", ""), ""), (f.get("path", ""), ""), (f.get("tag", ""), ""),
                 (f.get("sha256", ""), "")] for f in inputs]
        repro.append("<h3>Input files</h3>" + _table(["role", "path", "run tag", "SHA-256"],
                                                       rows, numeric_from=99))
    repro.append("<h3>Versions</h3>" + _params(versions()))
    sections.append(("reproduce", "Reproducing these results", "\n".join(repro)))
    nav = "".join(f'<a href="#{sid}">{_e(name)}</a>' for sid, name, _ in sections)
    body = "\n".join(f'<section id="{sid}"><h2>{_e(name)}</h2>\n{content}</section>'
                     for sid, name, content in sections)
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<meta name="generator" content="graphprum">\n'
            f"<title>{_e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
            f"<header><h1>{_e(title)}</h1>\n"
            f'<p class="meta">{len(runs)} run(s), {len(topics)} topic(s); generated {now} by '
            f"graphprum {_e(versions()['graphprum'])}</p>\n<nav>{nav}</nav></header>\n"
            f"{body}\n</body>\n</html>\n")


def write_report(page: str, path: str | os.PathLike[str]) -> None:
    """Write the page atomically (a temporary file in the same directory, then rename)."""
    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".graphprum-report-", suffix=".html",
                                   dir=target.parent if str(target.parent) else ".")
    except OSError as exc:
        raise UsageError(f"{target}: cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(printable(page))  # file names that are not UTF-8, as \xNN
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise UsageError(f"{target}: cannot write: {exc.strerror or exc}") from None


def command_line(argv: Sequence[str] | None = None) -> str:
    """The command as typed (shell-quoted), from ``sys.argv`` by default,
    with passwords taken out of URIs and undecodable bytes of file names
    shown as ``\\xNN``.

    >>> command_line(["/usr/bin/graphprum", "--store", "bolt://neo4j:pw@db:7687", "info"])
    'graphprum --store bolt://neo4j@db:7687 info'
    """
    argv = list(sys.argv if argv is None else argv)
    if argv:
        argv[0] = os.path.basename(argv[0])
    return redact(printable(" ".join(shlex.quote(a) for a in argv)))


def report_page(evaluate: Callable[[Sequence[str]], pd.DataFrame], measures: Sequence[str], *,
                curves: Sequence[str] = (), ks: Sequence[int] | None = None,
                ranks_text: str | None = None, test: str = "randomization",
                baseline: str | None = None, correction: str = "holm", alpha: float = 0.05,
                seed: int = 0, permutations: int = 2**17, samples: int = 10_000,
                title: str = "graphprum report", command: str | None = None,
                parameters: Callable[[], dict[str, str]] | None = None,
                inputs: Callable[[Sequence[str]], Sequence[Mapping[str, str]]] | None = None,
                warn: Callable[[str], None] | None = None,
                nav: Sequence[str] | None = None) -> str:
    """Evaluate, compare and draw, then :func:`build_report`: the whole report.

    ``evaluate(names)`` returns the per-topic evaluation of the measure
    names it is given; ``curves`` are curve kinds (default: the curves of
    ``measures``); ``parameters()`` and ``inputs(run_tags)`` describe the
    evaluation for the reproduction section; ``nav`` (the ``--nav``
    models) is stated next to the summary and in the figures.
    """
    scalar = [str(s) for s in expand_measures(measures)]
    kinds = list(curves) or [str(parse_measure(m)) for m in measures if is_curve(m)]
    curve_names = [n for k in kinds for n in curve_measures(k, ks)]
    df = evaluate(list(dict.fromkeys([*measures, *curve_names])))
    results = df[df["measure"].isin(scalar)]
    comparisons = None
    note_text = ""
    if df["run"].nunique() > 1:
        comparisons = compare_measures(df, scalar, test=test, baseline=baseline,
                                       correction=correction, alpha=alpha, seed=seed,
                                       permutations=permutations, samples=samples, warn=warn)
        note_text = describe_test(test, correction=correction, alpha=alpha, seed=seed,
                                  permutations=permutations, samples=samples)
    params = dict(parameters() if parameters is not None else {})
    params["measures (-m)"] = ", ".join(measures)
    if kinds:
        params["curves"] = ", ".join(kinds) + (f" (ranks {ranks_text})" if ranks_text else "")
    if comparisons is not None:
        params["significance"] = f"{test}, correction {correction}, alpha {alpha}, seed {seed}"
    tags = list(dict.fromkeys(df["run"]))
    return build_report(results, curves=df, curve_kinds=kinds, ks=ks, comparisons=comparisons,
                        comparison_note=note_text, command=command, parameters=params,
                        inputs=inputs(tags) if inputs is not None else (), title=title,
                        nav=nav)
