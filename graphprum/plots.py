"""Figures: precision–recall curves and gain curves of several runs.

A *curve kind* is a measure read at several points, as its family declares
(:class:`graphprum.measures.registry.Curve`; ``graphprum measures`` lists
them in its ``curve`` column):

- recall-level kinds (x = recall 0.0, 0.1, ..., 1.0), such as ``PRUM``
  (interpolated PRUM precision, PRUM §3.1), ``EPRUM`` (INEX 2006 eq. 15),
  ``T2I-PR`` (T2I eq. 5), ``ep`` (effort-precision / gain-recall, INEX
  2006 §4.2);
- rank kinds (x = rank k, default 1..50), such as ``nxCG``, ``xCG``,
  ``gP``, ``gR``, ``SR``, ``SRP`` and the classical ``P``, ``R``, ``nDCG``
  (ir_measures).

:func:`curve_measures` names the measures a curve needs (``PRUM@0.0`` ...
``PRUM@1.0``); evaluate them (``per_topic=True`` for one topic's curve) and
hand the result to :func:`plot_curves`, which returns a matplotlib
:class:`~matplotlib.figure.Figure` (drawn on the Agg canvas; pyplot and the
global backend are never touched) with one line per run and a legend.

Examples
--------
>>> curve_measures("PRUM")[:3]
['PRUM@0.0', 'PRUM@0.1', 'PRUM@0.2']
>>> curve_measures("gP", ks=[5, 10])
['gP@5', 'gP@10']
>>> curve_measures("T2I-PR(tau=15)")[-1]
'T2I-PR(tau=15)@1.0'
>>> import pandas as pd
>>> rows = [(r, m, "all", v) for r, f in (("a", 1.0), ("b", 0.5))
...         for m, v in zip(curve_measures("PRUM"), [f * (1 - i / 20) for i in range(11)])]
>>> fig = plot_curves(pd.DataFrame(rows, columns=["run", "measure", "topic", "value"]), ["PRUM"])
>>> len(fig.axes[0].get_lines()), [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
(2, ['a (mean 0.7500)', 'b (mean 0.3750)'])
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Sequence
from itertools import cycle

import numpy as np
import pandas as pd
from matplotlib import rc_context
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from graphprum.errors import UsageError
from graphprum.measures.names import curve
from graphprum.measures.registry import CURVE_LEVELS, CURVE_RANKS, MeasureSpec
from graphprum.version import __version__

#: Recall levels of the precision–recall kinds.
LEVELS = CURVE_LEVELS
#: Default ranks of the gain curves.
RANKS = CURVE_RANKS
FIGURE_TYPES = (".png", ".svg", ".pdf")
_STYLES = ("-", "--", "-.", ":")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def curve_points(spec: str, ks: Sequence[int] | None = None) -> list[str]:
    """The x values of a curve as cutoff strings (recall levels or ranks)."""
    _, kind = curve(spec)
    if kind.axis == "level":
        return list(LEVELS)
    ks = list(RANKS if ks is None else ks)
    if not ks or any(int(k) < 1 for k in ks):
        raise UsageError("ranks of a gain curve must be integers >= 1")
    return [str(int(k)) for k in ks]


def curve_measures(spec: str, ks: Sequence[int] | None = None) -> list[str]:
    """Measure names that make up the curve of ``spec`` (see the module doc)."""
    s, _ = curve(spec)
    return [str(MeasureSpec(s.name, dict(s.params), c)) for c in curve_points(spec, ks)]


def is_curve(spec: str) -> bool:
    """Whether ``spec`` names a curve kind (a bare name whose measure has a curve).

    >>> is_curve("PRUM"), is_curve("PRUM@0.5"), is_curve("AP")
    (True, False, False)
    """
    try:
        curve(spec)
    except UsageError:
        return False
    return True


def topics_averaged(df: pd.DataFrame, runs: Sequence[str] | None = None) -> str:
    """The topics a mean of each run covers (its per-topic rows), for "mean
    over ...": one count when the runs' agree, else each run's (``--no-c``
    averages over a run's own topics).

    >>> df = pd.DataFrame({"run": ["a", "a", "a", "b", "b"],
    ...                    "topic": ["1", "2", "all", "1", "all"]})
    >>> topics_averaged(df), topics_averaged(df, ["a"]), topics_averaged(df[df.topic == "all"])
    ("each run's topics (a: 2, b: 1)", '2 topics', 'topics')
    """
    runs = list(dict.fromkeys(df["run"])) if runs is None else list(runs)
    per = df[df["topic"] != "all"]
    counts = {r: per.loc[per["run"] == r, "topic"].nunique() for r in runs}
    if not any(counts.values()):
        return "topics"
    if len(set(counts.values())) == 1:
        n = next(iter(counts.values()))
        return f"{n} topic" + ("s" if n != 1 else "")
    return "each run's topics (" + ", ".join(f"{r}: {n}" for r, n in counts.items()) + ")"


def navigation_label(nav: Sequence[str] | None) -> str:
    """How a figure names the navigation model(s) of the evaluation.

    >>> navigation_label(["structural"]), navigation_label(["links:hops=2", "bep"])
    ('navigation: structural', 'navigation: links:hops=2 + bep (noisy-or)')
    >>> navigation_label(None)
    ''
    """
    if not nav:
        return ""
    joined = " + ".join(nav)
    return f"navigation: {joined}" + (" (noisy-or)" if len(nav) > 1 else "")


def plot_curves(df: pd.DataFrame, kinds: Sequence[str], *, ks: Sequence[int] | None = None,
                runs: Sequence[str] | None = None, topic: str = "all",
                title: str | None = None, nav: Sequence[str] | None = None) -> Figure:
    """One panel per curve kind, one line per run, a legend in each panel.

    Parameters
    ----------
    df : pandas.DataFrame
        Evaluation with columns ``run, measure, topic, value`` holding the
        measures of :func:`curve_measures` for every kind.
    kinds : sequence of str
        Curve kinds (``PRUM``, ``nxCG``, ``T2I-PR(tau=15)``, ...).
    ks : sequence of int, optional
        Ranks of the rank kinds (default 1..50).
    runs : sequence of str, optional
        Runs to draw, in legend order (default: all, in order of appearance).
    topic : str
        ``all`` (mean over topics) or one topic id.
    title : str, optional
        Figure title (default: what is averaged, and the navigation model).
    nav : sequence of str, optional
        The navigation models (``--nav``) of the evaluation, named in the
        default title: user-model measures such as PRUM depend on them.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not kinds:
        raise UsageError("no curve to plot (-m)")
    runs = list(dict.fromkeys(df["run"])) if runs is None else list(runs)
    sub = df[df["topic"] == topic]
    if sub.empty:
        known = [t for t in dict.fromkeys(df["topic"]) if t != "all"]
        raise UsageError(f"topic {topic!r} is not in the results"
                         + (f"; topics: {', '.join(known[:20])}" if known else
                            " (evaluate with per-topic rows)"))
    values = {(r, m): v for r, m, v in sub[["run", "measure", "value"]].itertuples(index=False)}
    fig = Figure(figsize=(6.4 * len(kinds), 4.8), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(kinds), squeeze=False)[0]
    for ax, kind in zip(axes, kinds, strict=True):
        _panel(ax, kind, values, runs, ks)
    if title is None:
        title = f"topic {topic}" if topic != "all" else f"mean over {topics_averaged(df, runs)}"
        if nav:
            title += f"; {navigation_label(nav)}"
    fig.suptitle(title)
    return fig


def _panel(ax: Axes, kind: str, values: dict[tuple[str, str], float], runs: list[str],
           ks: Sequence[int] | None) -> None:
    s, how = curve(kind)
    names = curve_measures(kind, ks)
    points = curve_points(kind, ks)
    recall = how.axis == "level"
    x = np.array([float(p) for p in points])
    styles = cycle([(ls, mk) for ls in _STYLES for mk in _MARKERS[:2]])
    colours = cycle([f"C{i}" for i in range(10)])
    top = 1.0
    for run in runs:
        missing = [m for m in names if (run, m) not in values]
        if missing:
            raise UsageError(f"run {run!r} has no value of {missing[0]} for this curve")
        y = np.array([values[(run, m)] for m in names], float)
        top = max(top, float(np.nanmax(y)) if len(y) else 0.0)
        ls, mk = next(styles)
        label = f"{run} (mean {np.mean(y):.4f})" if recall else str(run)
        ax.plot(x, y, linestyle=ls, marker=mk, color=next(colours), linewidth=1.8,
                markersize=5, markevery=max(1, len(x) // 12), label=label)
    ax.set_xlabel("recall level" if recall else "rank k")
    ax.set_ylabel(how.label)
    ax.set_title(str(s))
    if recall:
        ax.set_xlim(-0.02, 1.02)
        ax.set_xticks(np.linspace(0, 1, 6))
    else:
        ax.set_xlim(x.min() - 0.5, x.max() + 0.5)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if not how.bounded:
        ax.set_ylim(0, top * 1.05)
    else:
        ax.set_ylim(-0.02, 1.02)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize="small", frameon=True)


def plot_per_topic(df: pd.DataFrame, measure: str, *, runs: Sequence[str] | None = None,
                   nav: Sequence[str] | None = None) -> Figure:
    """Per-topic values of one measure: one marker series per run, topics on the x axis.

    Topics are sorted by the first run's value (descending), so runs can be
    compared topic by topic at a glance; ``nav`` (the ``--nav`` models) is
    named in the title.

    >>> import pandas as pd
    >>> df = pd.DataFrame([("a", "AP", "q1", .2), ("a", "AP", "q2", .6), ("b", "AP", "q1", .4),
    ...                    ("b", "AP", "q2", .1)], columns=["run", "measure", "topic", "value"])
    >>> ax = plot_per_topic(df, "AP").axes[0]
    >>> [t.get_text() for t in ax.get_xticklabels()], len(ax.get_lines())
    (['q2', 'q1'], 2)
    """
    sub = df[(df["measure"] == measure) & (df["topic"] != "all")]
    if sub.empty:
        raise UsageError(f"no per-topic values of {measure}")
    table = sub.pivot_table(index="topic", columns="run", values="value", aggfunc="first",
                            sort=False)
    runs = list(dict.fromkeys(sub["run"])) if runs is None else list(runs)
    table = table.sort_values(runs[0], ascending=False, kind="stable")
    n = len(table)
    fig = Figure(figsize=(min(14.0, max(6.4, 0.25 * n + 2)), 4.2), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    x = np.arange(n)
    dodge = min(0.12, 0.6 / max(1, len(runs)))  # runs side by side within a topic
    for i, run in enumerate(runs):
        ax.plot(x + (i - (len(runs) - 1) / 2) * dodge, table[run].to_numpy(float),
                linestyle="none",
                marker=_MARKERS[i % len(_MARKERS)], color=f"C{i % 10}", markersize=6,
                alpha=0.85, label=str(run))
    ax.set_xticks(x, [str(t) for t in table.index], rotation=90 if n > 8 else 0,
                  fontsize="small" if n <= 40 else "x-small")
    if n > 80:
        ax.set_xticks([])
        ax.set_xlabel(f"{n} topics (sorted by {runs[0]})")
    else:
        ax.set_xlabel(f"topic (sorted by {runs[0]})")
    ax.set_ylabel(measure)
    ax.set_xlim(-0.7, n - 0.3)
    ax.set_ylim(bottom=0)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", borderaxespad=0)
    ax.set_title(f"{measure} per topic" + (f" ({navigation_label(nav)})" if nav else ""))
    return fig


def save_figure(fig: Figure, path: str | os.PathLike[str]) -> None:
    """Write ``fig`` as PNG (150 dpi), SVG or PDF, chosen by the file suffix."""
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if suffix not in FIGURE_TYPES:
        raise UsageError(f"{os.fspath(path)}: figure type {suffix or '(none)'!r} unknown; "
                         f"use {', '.join(FIGURE_TYPES)}")
    try:
        fig.savefig(path, dpi=150, format=suffix[1:], metadata=_metadata(suffix))
    except OSError as exc:
        raise UsageError(f"{os.fspath(path)}: cannot write: {exc.strerror or exc}") from None


def _metadata(suffix: str) -> dict[str, str | None]:
    software = f"graphprum {__version__}"
    if suffix == ".png":
        return {"Software": software}
    if suffix == ".pdf":
        return {"Creator": software, "CreationDate": None}
    return {"Creator": software, "Date": None}


_SVG_PROLOGUE = re.compile(r"^.*?(?=<svg\b)", re.S)
_SVG_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)


def figure_svg(fig: Figure) -> str:
    """The figure as an ``<svg>`` element to inline in HTML.

    Text stays text (``svg.fonttype = none``); the XML prologue, DOCTYPE and
    RDF metadata are dropped so nothing refers to a network resource.

    >>> fig = Figure(); _ = fig.subplots().plot([0, 1], [0, 1])
    >>> svg = figure_svg(fig)
    >>> svg.startswith("<svg") and "<metadata>" not in svg and "DOCTYPE" not in svg
    True
    """
    buf = io.StringIO()
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": "graphprum"}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    text = _SVG_METADATA.sub("", _SVG_PROLOGUE.sub("", buf.getvalue(), count=1), count=1)
    return text.strip()
