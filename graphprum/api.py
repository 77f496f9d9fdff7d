r"""The Python API: evaluate, compare, plot and report, as in a notebook.

These four functions are what the ``eval``, ``compare``, ``plot`` and
``report`` commands call; the command line adds only its flags, the store it
opens by default, a progress bar and the output format.  They are exported
as :func:`graphprum.evaluate`, :func:`graphprum.compare`,
:func:`graphprum.plot` and :func:`graphprum.report`.

Inputs (:mod:`graphprum.evaluation.inputs`): runs and qrels are file paths
or what a notebook holds (DataFrames, dicts of dicts, ir_measures
namedtuples), measures are graphprum names or ir_measures measure objects.
Options (:class:`~graphprum.evaluation.options.EvalOptions`) come as
keywords: ``nav="structural"``, ``jobs=2``, ``complete=False``, ...

Examples
--------
>>> import pandas as pd
>>> run = pd.DataFrame({"query_id": ["1", "1", "1"], "doc_id": ["x", "a", "b"],
...                     "score": [3.0, 2.0, 1.0]})
>>> qrels = {"1": {"a": 1, "b": 1}}
>>> df = evaluate({"demo": run}, qrels, ["PRUM(r=1)", "PRUM(r=2)"])
>>> df
    run    measure topic     value
0  demo  PRUM(r=1)     1  0.500000
1  demo  PRUM(r=1)   all  0.500000
2  demo  PRUM(r=2)     1  0.666667
3  demo  PRUM(r=2)   all  0.666667
>>> df[df.topic != "all"].pivot(index="topic", columns="measure", values="value").round(4)
... # doctest: +NORMALIZE_WHITESPACE
measure  PRUM(r=1)  PRUM(r=2)
topic
1              0.5     0.6667
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from graphprum.errors import UsageError
from graphprum.evaluation.core import run_evaluation
from graphprum.evaluation.inputs import (
    MeasuresLike,
    PassagesLike,
    QrelsLike,
    RunsLike,
    StoreLike,
    as_store,
    measure_names,
    read_qrels_like,
    run_items,
)
from graphprum.evaluation.job import collection_size, expand_measures
from graphprum.evaluation.options import EvalOptions
from graphprum.evaluation.rows import ResultRows
from graphprum.floats import readable
from graphprum.io.objects import as_id, is_frame
from graphprum.measures.names import aggregation_of
from graphprum.store.base import Store

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = ["compare", "evaluate", "intervals", "plot", "report"]

Warn = Callable[[str], None]
#: ``progress(done, total)``: topics done (fractions during simulations) of all.
Progress = Callable[[float, int], None]


def python_warning(note: str) -> None:
    """The API's notes when no ``warn`` is given: a :class:`UserWarning`
    (silenced with ``warnings.filterwarnings("ignore", module="graphprum")``).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     python_warning("note: run r: 1 topic(s) not in the qrels ignored: 7")
    >>> [str(w.message) for w in caught]
    ['run r: 1 topic(s) not in the qrels ignored: 7']
    """
    warnings.warn(note.removeprefix("note: "), UserWarning, stacklevel=2)


def _options(options: EvalOptions | None, values: Mapping[str, object]) -> EvalOptions:
    return EvalOptions.from_keywords(options, **values)


def evaluate(runs: RunsLike, qrels: QrelsLike | None, measures: MeasuresLike, *,
             store: StoreLike | None = None, passages: PassagesLike | None = None,
             per_topic: bool = True, warn: Warn | None = None,
             progress: Progress | None = None, options: EvalOptions | None = None,
             **option_values: object) -> pd.DataFrame:
    r"""Evaluate ``runs`` against ``qrels``: a tidy DataFrame ``run, measure, topic, value``.

    Parameters
    ----------
    runs : path, DataFrame, dict, ScoredDoc tuples, Run, or a list or dict of them
        One run or several (:mod:`graphprum.evaluation.inputs`): TREC or
        INEX XML files (a single ``str`` or ``Path`` is one run);
        DataFrames with ir_measures' columns ``query_id, doc_id, score`` or
        the TREC names ``topic, id, score[, rank, tag]`` (a ``tag`` column
        makes one run per tag); pytrec_eval dicts ``{topic: {id: score}}``;
        iterables of ``ir_measures.ScoredDoc``.  A dict ``{name: run}``
        names the runs; unnamed in-memory runs are ``run1``, ``run2``, ...
        Results are ordered as trec_eval orders a file.
    qrels : path, DataFrame, dict, Qrel tuples, or None
        ``TOPIC ITER ID REL`` judgements (docs/formats.md): a file, a DataFrame
        with ``query_id, doc_id, relevance`` (or ``topic, id, rel``), a dict
        ``{topic: {id: rel}}``, ``ir_measures.Qrel`` tuples; None with
        ``passages``.
    measures : str, ir_measures measure, or a list of them
        Measure names, as `graphprum measures` lists them (``"PRUM"``, ``"PRUM@0.5"``, ``"map"``,
        ``"nDCG@10"``) or ir_measures objects (``ir_measures.AP``,
        ``ir_measures.nDCG@10``).
    store : Collection, store, or a store's location, optional
        The collection (:func:`graphprum.open_store`); needed by structural
        navigation models and measures, and the collection size N of the unranked part.
    passages : path or assessments, optional
        Passage assessments (INEX measures, T2I).
    per_topic : bool
        Rows per topic as well as the ``all`` rows (default True).
    warn : callable, optional
        Receives the notes a command would print on stderr (ids the store
        does not hold, topics the qrels lack, ...); by default they are
        Python warnings (:func:`python_warning`), ``warn=print`` prints them
        and ``warn=lambda note: None`` drops them.
    progress : callable, optional
        ``progress(done, total)`` as topics finish.
    options : EvalOptions, optional
        How to evaluate; keywords (``**option_values``) change single ones.
    **option_values
        :class:`~graphprum.evaluation.options.EvalOptions` fields: ``nav``
        (navigation models, default ``"classical"``), ``collection_size``,
        ``ideal_min``, ``order`` (``"score"`` or ``"rank"``), ``dedup``,
        ``trees``, ``strict``, ``unknown`` (``"error"``, the default, or
        ``"skip"``: result ids the store does not hold are dropped before
        ranking), ``offsets``, ``inclusive_ends``, ``jobs``,
        ``force``; trec_eval's ``complete`` (-c, default True),
        ``relevance_level`` (-l), ``judged_only`` (-J), ``max_results``
        (-M); ``task`` (INEX task rules checked).

    Returns
    -------
    pandas.DataFrame
        Columns ``run, measure, topic, value`` and, when a measure is
        simulated (``PRUM(exact=mc)``), ``stderr`` (NaN for the others).
        Topic ``all`` aggregates the topics as each measure declares (the
        mean; the sum for counts, the geometric mean for ``gm_map``) over
        the qrels' topics, a topic a run lacks evaluated on an empty ranking
        (``complete=False``: over the run's topics).  One measure per column:
        ``df.pivot(index=["run", "topic"], columns="measure", values="value")``.
        With ``unknown="skip"``, ``df.attrs["unknown_skipped"]`` gives per
        run the number of results dropped.

    Raises
    ------
    UsageError
        An input of a kind not accepted, an unknown measure or option, a
        bad option value (one line saying what was expected).
    InputError
        A bad file or in-memory input (naming the file and line, or the row).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "qrels").write_text("1 0 a 1\n1 0 b 1\n")
    >>> _ = (d / "run").write_text("1 Q0 x 1 3 demo\n1 Q0 a 2 2 demo\n1 Q0 b 3 1 demo\n")
    >>> df = evaluate(d / "run", d / "qrels", ["PRUM(r=1)", "PRUM(r=2)"])
    >>> df[df.topic == "all"]["value"].round(4).tolist()
    [0.5, 0.6667]
    >>> import ir_measures
    >>> evaluate(d / "run", {"1": {"a": 1, "b": 1}}, ir_measures.P@2, per_topic=False)
        run measure topic  value
    0  demo     P@2   all    0.5
    """
    return evaluate_rows(runs, qrels, measures, store=store, passages=passages,
                         per_topic=per_topic, warn=warn or python_warning, progress=progress,
                         options=options, **option_values).to_frame()


def evaluate_rows(runs: RunsLike, qrels: QrelsLike | None,
                  measures: MeasuresLike, *,
                  store: StoreLike | None = None, passages: PassagesLike | None = None,
                  per_topic: bool = True, warn: Warn | None = None,
                  progress: Progress | None = None, options: EvalOptions | None = None,
                  **option_values: object) -> ResultRows:
    """:func:`evaluate`, the result as plain rows
    (:class:`~graphprum.evaluation.rows.ResultRows`) rather than a DataFrame:
    what ``graphprum eval`` prints, without loading pandas.

    >>> res = evaluate_rows({"demo": {"1": {"a": 2.0, "x": 1.0}}}, {"1": {"a": 1}}, "PRUM(r=1)")
    >>> res.rows
    [('demo', 'PRUM(r=1)', '1', 1.0, nan), ('demo', 'PRUM(r=1)', 'all', 1.0, nan)]
    """
    return run_evaluation(runs, qrels, measures, options=_options(options, option_values),
                          store=store, passages=passages, per_topic=per_topic,
                          warn=warn or python_warning,
                          progress=progress)


def compare(results: pd.DataFrame, measures: MeasuresLike | None = None, *,
            test: str = "randomization", baseline: str | None = None,
            correction: str = "holm", alpha: float = 0.05, seed: int = 0,
            permutations: int | None = None, samples: int | None = None,
            warn: Warn | None = None) -> pd.DataFrame:
    """Paired significance tests between the runs of ``results``, per measure.

    Parameters
    ----------
    results : pandas.DataFrame
        What :func:`evaluate` returned, with per-topic rows.
    measures : str, ir_measures measure, or a list of them, optional
        The measures to compare on (default: every measure of ``results``).
    test : {"randomization", "t", "bootstrap"}
        Paired test over topics (:mod:`graphprum.significance`); randomization
        (sign-flip permutations, exact up to 17 topics) is the default here,
        in ``graphprum compare`` and in reports.
    baseline : str, optional
        Compare every run with this run's TAG (default: every pair).
    correction : {"holm", "bonferroni", "none"}
        Multiple-comparison correction over the pairs of each measure.
    alpha : float
        Significance level.
    seed : int
        Seed of the random sign vectors or resamples.
    permutations, samples : int, optional
        Sign vectors of the randomization test (default 2**17) and
        bootstrap resamples (default 10,000).
    warn : callable, optional
        Receives notes (pairs that share only some topics); by default
        they are Python warnings, as for :func:`evaluate`.

    Returns
    -------
    pandas.DataFrame
        One row per measure and pair of runs: ``measure, run_a, run_b,
        mean_a, mean_b, diff, test, statistic, p_value, p_adjusted,
        significant, effect_size, ci_low, ci_high, wins, losses, ties,
        n_topics, exact`` (:data:`graphprum.significance.COLUMNS`).

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [(r, "AP", f"t{i}", v) for r, vals in
    ...         {"a": [.5, .6, .7, .8], "b": [.4, .5, .5, .6]}.items()
    ...         for i, v in enumerate(vals)]
    >>> res = compare(pd.DataFrame(rows, columns=["run", "measure", "topic", "value"]))
    >>> res[["run_a", "run_b", "diff", "p_value"]].round(4).values.tolist()
    [['a', 'b', 0.15, 0.125]]
    """
    # scipy.stats and pandas (1 s of imports): only when comparing
    from graphprum.significance import BOOTSTRAP_SAMPLES, PERMUTATIONS, compare_measures

    names = _result_measures(results, measures)
    return compare_measures(results, names, test=test, baseline=baseline,
                            correction=correction, alpha=alpha, seed=seed,
                            permutations=PERMUTATIONS if permutations is None else permutations,
                            samples=BOOTSTRAP_SAMPLES if samples is None else samples,
                            warn=warn or python_warning)


def intervals(results: pd.DataFrame, measures: MeasuresLike | None = None, *,
              method: str = "bca", confidence: float = 0.95, samples: int | None = None,
              seed: int = 0) -> pd.DataFrame:
    """Each run's mean over topics per measure, with a bootstrap confidence interval.

    Parameters
    ----------
    results : pandas.DataFrame
        What :func:`evaluate` returned, with per-topic rows.
    measures : str, ir_measures measure, or a list of them, optional
        The measures (default: every measure of ``results``).
    method : {"bca", "percentile", "none"}
        Bias-corrected and accelerated (the default) or percentile bootstrap
        interval (:mod:`graphprum.significance`); ``none``: means only.
    confidence : float
        Confidence level.
    samples : int, optional
        Bootstrap resamples (default 10,000).
    seed : int
        Seed of the resamples (every interval is drawn from it alone).

    Returns
    -------
    pandas.DataFrame
        One row per measure and run: ``measure, run, mean, ci_low, ci_high,
        n_topics, method, confidence``.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [("a", "AP", f"t{i}", v) for i, v in enumerate([.1, .4, .2, .9, .3])]
    >>> ci = intervals(pd.DataFrame(rows, columns=["run", "measure", "topic", "value"]))
    >>> ci[["run", "measure", "mean", "method"]].values.tolist()
    [['a', 'AP', 0.38, 'bca']]
    """
    # pandas (scipy.stats to compute): intervals only
    from graphprum.significance import BOOTSTRAP_SAMPLES
    from graphprum.significance import intervals as run_intervals

    return run_intervals(results, _result_measures(results, measures), method=method,
                         confidence=confidence,
                         samples=BOOTSTRAP_SAMPLES if samples is None else samples, seed=seed)


def refuse_other_aggregates(measures: list[str]) -> None:
    """Refuse measures whose ``all`` value is a sum or a geometric mean
    (``num_rel_ret``, ``gm_map``): :func:`compare` and :func:`intervals` test
    and print means of per-topic values, which would stand under their name.

    >>> refuse_other_aggregates(["AP", "PRUM@0.5"])
    >>> refuse_other_aggregates(["gm_map"])
    Traceback (most recent call last):
    ...
    graphprum.errors.UsageError: -m gm_map: its value over topics is their gmean, \
but compare tests and prints means of per-topic values; compare map (the same per-topic values)
    """
    for name in measures:
        try:
            how = aggregation_of(name)
        except (KeyError, ValueError):
            continue  # an unknown name: evaluate says what is wrong with it
        if how != "mean":
            same = {"gm_map": "map", "gm_bpref": "bpref"}.get(name)
            hint = (f"compare {same} (the same per-topic values)" if same
                    else "compare a measure that averages over topics")
            raise UsageError(f"-m {name}: its value over topics is their {how}, but compare "
                             f"tests and prints means of per-topic values; {hint}")


def _result_measures(results: pd.DataFrame, measures: MeasuresLike | None) -> list[str]:
    """The measure names of ``measures`` as ``results`` names them (all by default)."""
    if not is_frame(results) or not {"run", "measure", "topic", "value"} <= set(results.columns):
        raise UsageError("results are the DataFrame graphprum.evaluate returns (run, measure, "
                         f"topic, value); got {type(results).__name__}")
    names = [str(m) for m in dict.fromkeys(results["measure"])] if measures is None \
        else [str(s) for s in expand_measures(measure_names(measures))]
    refuse_other_aggregates(names)
    return names


def plot(runs: RunsLike, qrels: QrelsLike | None, curves: str | Sequence[str], *,
         ks: Sequence[int] | None = None, topic: str = "all", title: str | None = None,
         store: StoreLike | None = None, passages: PassagesLike | None = None,
         warn: Warn | None = None, progress: Progress | None = None,
         options: EvalOptions | None = None, **option_values: object) -> Figure:
    r"""Precision-recall or gain curves of ``runs``: a matplotlib Figure.

    Parameters
    ----------
    runs, qrels, store, passages, warn, progress, options, **option_values
        As for :func:`evaluate`.
    curves : str or list of str
        Curve kinds, one panel each (:mod:`graphprum.plots`): read at 11
        recall levels ``PRUM``, ``EPRUM``, ``T2I-PR``, ``ep``; read at ranks
        ``nxCG``, ``xCG``, ``gP``, ``gR``, ``SR``, ``SRP``, ``P``, ``R``,
        ``nDCG``; with parameters as in a measure name
        (``"PRUM(exact=enum)"``).
    ks : list of int, optional
        Ranks of the gain curves (default 1..50).
    topic : str
        ``"all"`` (the mean over topics) or one topic's curves.
    title : str, optional
        Figure title (default: what is averaged, and the navigation model).

    Returns
    -------
    matplotlib.figure.Figure
        Drawn on the Agg canvas (pyplot is not touched); in a notebook it
        shows itself; :meth:`~matplotlib.figure.Figure.savefig` writes it.

    Examples
    --------
    >>> import pandas as pd
    >>> run = pd.DataFrame({"query_id": ["1"] * 3, "doc_id": ["x", "a", "b"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> fig = plot({"demo": run}, {"1": {"a": 1, "b": 1}}, "PRUM")
    >>> fig.axes[0].get_legend().get_texts()[0].get_text()
    'demo (mean 0.6667)'
    """
    from graphprum.plots import curve_measures, plot_curves  # matplotlib: only when plotting

    topic = as_id(topic) or "all"  # ids as runs' topics are read: topic=2 or 2.0 is '2'
    if ks is not None:  # a curve over ranks in order, each rank once
        ks = sorted(set(ks))
    kinds = [curves] if isinstance(curves, str) else [str(c) for c in curves]
    names = [n for kind in kinds for n in curve_measures(kind, ks)]
    opts = _options(options, option_values)
    df = evaluate(runs, qrels, names, store=store, passages=passages, warn=warn,
                  progress=progress, options=opts)
    return plot_curves(df, kinds, ks=ks, topic=topic, title=title, nav=opts.nav)


def report(runs: RunsLike, qrels: QrelsLike | None,
           measures: MeasuresLike = ("PRUM", "AP"), *,
           output: str | os.PathLike[str] | None = None, curves: Sequence[str] = (),
           ks: Sequence[int] | None = None, test: str = "randomization",
           baseline: str | None = None, correction: str = "holm", alpha: float = 0.05,
           seed: int = 0, permutations: int | None = None, samples: int | None = None,
           title: str = "graphprum report", command: str | None = None,
           store: StoreLike | None = None, passages: PassagesLike | None = None,
           warn: Warn | None = None, progress: Progress | None = None,
           options: EvalOptions | None = None, **option_values: object) -> str:
    """One self-contained HTML page of an evaluation; written to ``output`` if given.

    The page (:mod:`graphprum.html_report`) holds the summary table,
    significance tests between the runs (:func:`compare`'s), the figures,
    per-topic tables, and what reproduces it: the parameters, the input
    files with their SHA-256, the versions.

    Parameters
    ----------
    runs, qrels, store, passages, warn, progress, options, **option_values
        As for :func:`evaluate`.
    measures : str, ir_measures measure, or a list of them
        Default PRUM and AP.
    output : path, optional
        Write the page there (atomically).
    curves : list of str
        Curves to draw (default: the curves of the measures given: PRUM ->
        the PRUM curve, nxCG -> nxCG@1..50, ...).
    ks : list of int, optional
        Ranks of gain curves.
    test, baseline, correction, alpha, seed, permutations, samples
        As for :func:`compare`.
    title : str
        Title of the page.
    command : str, optional
        The command that made the page, shown in its reproduction section.

    Returns
    -------
    str
        The HTML page.
    """
    # matplotlib, scipy.stats and pandas: only when a report is written
    from graphprum.html_report import report_page, write_report
    from graphprum.significance import BOOTSTRAP_SAMPLES, PERMUTATIONS

    opts = _options(options, option_values)
    the_store = as_store(store)
    names = measure_names(measures)
    if ks is not None:  # curves over ranks in order, each rank once
        ks = sorted(set(ks))
    every: RunsLike = runs
    if isinstance(runs, Iterator):  # e.g. a generator of ScoredDoc tuples: read more than once
        every = list(runs)

    def run(names: Sequence[str]) -> pd.DataFrame:
        return evaluate(every, qrels, names, store=the_store, passages=passages, warn=warn,
                        progress=progress, options=opts)

    page = report_page(run, names, curves=curves, ks=ks,
                       ranks_text=None if ks is None else format_ranks(ks),
                       test=test, baseline=baseline, correction=correction, alpha=alpha,
                       seed=seed,
                       permutations=PERMUTATIONS if permutations is None else permutations,
                       samples=BOOTSTRAP_SAMPLES if samples is None else samples,
                       title=title, command=command,
                       parameters=lambda: describe(opts, the_store, qrels, passages),
                       inputs=lambda tags: input_files(every, qrels, passages, tags),
                       warn=warn or python_warning, nav=opts.nav)
    if output is not None:
        write_report(page, output)
    return page


def format_ranks(ks: Sequence[int]) -> str:
    """Ranks as a short text, runs of consecutive ranks as ranges.

    >>> format_ranks([1, 2, 3, 5, 10, 11])
    '1-3,5,10-11'
    """
    parts: list[str] = []
    ordered = sorted(set(ks))
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(parts)


def describe(options: EvalOptions, store: Store | None, qrels: QrelsLike | None,
             passages: PassagesLike | None = None) -> dict[str, str]:
    """What an evaluation used, for a report's reproduction section."""
    params = {"navigation models (--nav)": ", ".join(options.nav)}
    if options.collection_size is not None:
        params["collection size N"] = f"{readable(options.collection_size)} (--collection-size)"
    elif store is None:
        params["collection size N"] = "infinite (no store: unranked units add no precision)"
    elif qrels is None:
        params["collection size N"] = "units in the store of the judged kind"
    else:
        n = collection_size(store, read_qrels_like(qrels), None, False, lambda message: None)
        params["collection size N"] = (f"{readable(n)} (units in the store of the judged kind)"
                                       if math.isfinite(n) else "∞")
    params.update({"ideal units": f"REL >= {options.ideal_min:g}", "run order": options.order,
                   "dedup": str(options.dedup), "tree runs": str(options.trees),
                   "topics averaged": "the qrels' (-c)" if options.complete
                   else "the run's (--no-c)"})
    if options.relevance_level != 1:
        params["relevance level (-l)"] = str(options.relevance_level)
    if options.judged_only:
        params["judged results only (-J)"] = "True"
    if options.max_results is not None:
        params["results per topic (-M)"] = str(options.max_results)
    if passages is not None:
        params["passage offsets"] = f"{options.offsets}, ends {options.ends}"
    if store is None:
        params["store"] = "none (ids are opaque strings)"
        return params
    params["store"] = store.location
    try:
        info = store.info()
    except Exception:  # a report must not fail on a detail
        info = {}
    for key in ("format", "documents", "elements", "pages", "segments", "links", "summaries"):
        if info.get(key):
            v = info[key]
            params[f"store {key}"] = ", ".join(v) if isinstance(v, list) else str(v)
    return params


def input_files(runs: RunsLike, qrels: QrelsLike | None, passages: PassagesLike | None,
                tags: Sequence[str]) -> list[dict[str, str]]:
    """The inputs with the SHA-256 of their files; ``tags`` are the runs'
    TAGs in input order.  In-memory inputs are listed as such."""
    from graphprum.html_report import file_digest  # matplotlib, pandas: a report's only

    def entry(role: str, item: object) -> dict[str, str]:
        if isinstance(item, str | os.PathLike):
            return {"role": role, "path": str(item), "sha256": file_digest(item)}
        return {"role": role, "path": f"(in memory: {type(item).__name__})", "sha256": "-"}

    files = [entry(role, item) for role, item in (("qrels", qrels), ("passages", passages))
             if item is not None]
    items = run_items(runs)
    names = list(tags) if len(tags) == len(items) else [""] * len(items)
    for (_, item), tag in zip(items, names, strict=True):
        files.append({**entry("run", item), "tag": str(tag)})
    return files
