"""``graphprum eval``, ``compare``, ``plot`` and ``report``: evaluate runs,
test differences, draw curves, write a report.  All four take the shared
inputs and :class:`~graphprum.evaluation.options.EvalOptions`
(:mod:`graphprum.cli.options`) and call the Python API (:mod:`graphprum.api`):
what they add is the flags, the store ``--store`` names, a progress bar and
the output format."""

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from graphprum.api import (
    compare,
    evaluate,
    evaluate_rows,
    intervals,
    plot,
    refuse_other_aggregates,
    report,
)
from graphprum.cli.measures import measure_help
from graphprum.cli.options import EvalArgs, eval_options
from graphprum.cli.shared import app, choose_format, digits_help, note, user_errors
from graphprum.errors import UsageError
from graphprum.measures.classical_names import TREC_SETS
from graphprum.measures.inex import task_measures
from graphprum.results import FORMATS as EVAL_FORMATS
from graphprum.results import write_results, write_trec

#: What compare prints: eval's formats but trec_eval's.
FORMATS = tuple(f for f in EVAL_FORMATS if f != "trec")
#: ``--digits`` of eval, and of compare (FORMATS, no trec).
EvalDigits = Annotated[int, typer.Option("--digits", min=0, max=17,
                                         help=digits_help(EVAL_FORMATS))]
CompareDigits = Annotated[int, typer.Option("--digits", min=0, max=17, help=digits_help(FORMATS))]
Format = Annotated[str | None, typer.Option(
    "--format", "-f",
    help="table (terminal default), tsv (default otherwise), csv, json, latex, markdown; "
    "tsv, csv and json at full precision.")]
EvalFormat = Annotated[str | None, typer.Option(
    "--format", "-f",
    help="table (terminal default), tsv (default otherwise), csv, json, latex, markdown, "
         "or trec (trec_eval's MEASURE TOPIC VALUE, one run); tsv, csv and json at full "
         "precision.")]
Test = Annotated[str, typer.Option(
    "--test", "-t", help="Paired test over topics: randomization (default; sign-flip "
    "permutation, exact up to 17 topics), t or bootstrap (no p-value on one topic or "
    "equal differences).")]
Baseline = Annotated[str | None, typer.Option(
    help="Compare every run with this run TAG (default: all pairs).")]
Correction = Annotated[str, typer.Option(
    help="Multiple-comparison correction: holm, bonferroni or none.")]
Alpha = Annotated[float, typer.Option(help="Significance level.")]
Seed = Annotated[int, typer.Option(help="Seed of randomization / bootstrap samples.")]
Permutations = Annotated[int, typer.Option(
    help="Sign vectors of the randomization test (enumerated exactly when 2^topics is "
         "not larger).")]
Samples = Annotated[int, typer.Option(
    help="Bootstrap resamples (of the bootstrap test and of the confidence intervals).")]
#: compare's layouts (graphprum.runs_table for "runs").
VIEWS = ("pairs", "runs")
View = Annotated[str, typer.Option(
    help="pairs (default): one row per pair of runs and measure, with the tests; runs: one "
         "row per run and a column per measure, as ranx prints it: the best mean in bold, "
         "a superscript letter for each run it is significantly better than, and the "
         "mean's confidence interval.")]
Interval = Annotated[str, typer.Option(
    "--ci", help="Confidence interval of each run's mean (--view runs): bca (default; "
    "bias-corrected and accelerated bootstrap), percentile (bootstrap) or none; at "
    "level 1 - alpha, from --samples resamples seeded by --seed.")]
Ranks = Annotated[str | None, typer.Option(
    "--ranks", "-k", help="Ranks of gain curves: 1-50 (default), or a list like 1,5,10,20.")]


def parse_ranks(text: str | None) -> list[int] | None:
    """``"1-50"`` or ``"1,5,10"`` (or a mix) to a list of ranks; None stays None.

    >>> parse_ranks("1-3,10")
    [1, 2, 3, 10]
    """
    if text is None:
        return None
    out: list[int] = []
    try:
        for item in text.split(","):
            if not item.strip():
                continue
            lo, dash, hi = item.partition("-")
            out.extend(range(int(lo), int(hi) + 1) if dash else [int(lo)])
    except ValueError:
        raise UsageError(f"--ranks {text!r}: expected ranks like 1-50 or 1,5,10") from None
    if not out or min(out) < 1:
        raise UsageError(f"--ranks {text!r}: ranks must be integers >= 1")
    return sorted(set(out))


def check_output(path: Path) -> None:
    """UsageError when ``path`` cannot be written as a new file (a missing or
    read-only directory, a directory given as the file), checked before
    the evaluation that would fill it.

    >>> check_output(Path("/no/such/dir/report.html"))
    Traceback (most recent call last):
    ...
    graphprum.errors.UsageError: /no/such/dir/report.html: no such directory /no/such/dir
    """
    parent = path.parent
    if path.is_dir():
        raise UsageError(f"{path}: is a directory; give a file name")
    if not parent.is_dir():
        raise UsageError(f"{path}: no such directory {parent}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{path}: the directory {parent} is not writable")


@app.command("eval")
@user_errors
@eval_options
def eval_command(
    opts: EvalArgs,
    measure: Annotated[list[str] | None, typer.Option(
        "--measure", "-m", help="Measure, e.g. PRUM (default), PRUM@0.5, SRP@10, AP, or "
                                "trec_eval's map, P_10, P.5,10, all_trec, official "
                                "(repeat); '-m help' lists graphprum's measures, "
                                "'graphprum measures NAME' describes one.",
        callback=measure_help, is_eager=True)] = None,
    fmt: EvalFormat = None,
    digits: EvalDigits = 4,
    per_topic: Annotated[bool, typer.Option("--per-topic", "-q", help="Per-topic rows too.")]
    = False,
    no_summary: Annotated[bool, typer.Option(
        "--no-summary", "-n", help="No 'all' rows (trec_eval -n).")] = False,
    task: Annotated[str | None, typer.Option(
        help="INEX 2006 task preset adding its official measures: thorough, focused, "
             "ric (relevant in context), bic (best in context); the runs are checked "
             "against the task's rules (overlap, grouping, one element per article), "
             "violations listed on stderr, an error with --strict.")] = None,
) -> None:
    """Evaluate runs with user-model and classical measures.

    Output rows are RUN MEASURE TOPIC VALUE; TOPIC 'all' aggregates the
    topics (the mean; the sum for counts such as num_rel_ret, the geometric
    mean for gm_map) over the qrels' topics, a topic missing from a run
    evaluated on an empty ranking (trec_eval -c; --no-c: over the run's
    topics). A RUN or --qrels of '-' is read from standard input; gzip
    files are read as they are.

    Example: graphprum eval run-a.txt run-b.txt --qrels qrels.txt -m PRUM -m AP
    --nav structural
    """
    measures = list(measure or [])
    if task is not None:
        measures += task_measures(task)
        opts.options = opts.options.replace(task=task)
    measures = measures or ["PRUM"]
    fmt = choose_format(fmt, EVAL_FORMATS)
    if fmt == "trec" and len(opts.runs) > 1:
        raise UsageError("--format trec writes one run (trec_eval's layout has no run "
                         "column); give one run, or use --format tsv")
    with opts.progress() as bar:
        result = evaluate_rows(list(opts.runs), opts.qrels, measures, per_topic=per_topic,
                               progress=bar.update, **opts.keywords(measures))
    if no_summary:
        result = result.without_summary()
    if fmt == "trec":  # as trec_eval: no rows for the topics the run lacks
        write_trec(result.without_absent(), sys.stdout,
                   runid=any(m.strip() in TREC_SETS for m in measures))
        return
    write_results(result, fmt, sys.stdout, digits=digits)


@app.command("compare")
@user_errors
@eval_options
def compare_command(
    opts: EvalArgs,
    measure: Annotated[list[str], typer.Option(
        "--measure", "-m", help="Measure to compare on, e.g. PRUM, AP (repeat).")],
    test: Test = "randomization",
    baseline: Baseline = None,
    correction: Correction = "holm",
    alpha: Alpha = 0.05,
    seed: Seed = 0,
    permutations: Permutations = 2**17,
    samples: Samples = 10_000,
    view: View = "pairs",
    ci: Interval = "bca",
    fmt: Format = None,
    digits: CompareDigits = 4,
) -> None:
    """Paired significance tests between runs over topics.

    One row per pair of runs (or per run against --baseline): means, the
    difference, effect size d_z, wins/losses/ties, p and the corrected p;
    '*' marks differences significant at --alpha after correction. With
    --view runs, one row per run as ranx prints it, with each mean's
    bootstrap confidence interval (--ci).

    Example: graphprum compare run-a.txt run-b.txt --qrels qrels.txt -m PRUM -m AP
    """
    # scipy.stats and pandas (1 s of imports): for this command only
    from graphprum.significance import INTERVALS, check_options, write_comparison

    fmt = choose_format(fmt, FORMATS)
    check_options(test, correction, alpha, permutations, samples)  # before evaluating
    if view not in VIEWS:
        raise UsageError(f"--view {view!r}: choose {' or '.join(VIEWS)}")
    if ci not in INTERVALS:
        raise UsageError(f"--ci {ci!r}: choose {', '.join(INTERVALS)}")
    if len(opts.runs) < 2:
        raise UsageError("compare needs at least two runs")
    refuse_other_aggregates(measure)
    with opts.progress() as bar:
        df = evaluate(opts.runs, opts.qrels, measure, progress=bar.update,
                      **opts.keywords(measure))
    res = compare(df, measure, test=test, baseline=baseline, correction=correction,
                  alpha=alpha, seed=seed, permutations=permutations, samples=samples, warn=note)
    if view == "pairs":
        write_comparison(res, fmt, sys.stdout, alpha=alpha, digits=digits)
        return
    # pandas: this view only
    from graphprum.runs_table import describe, runs_table, write_runs_table

    means = intervals(df, measure, method=ci, confidence=1 - alpha, samples=samples, seed=seed)
    write_runs_table(runs_table(res, means), fmt, sys.stdout, digits=digits,
                     note=describe(res, means, correction=correction, alpha=alpha,
                                   samples=samples, seed=seed))


@app.command("plot", short_help="Precision-recall or gain curves, as a figure.")
@user_errors
@eval_options
def plot_command(
    opts: EvalArgs,
    measure: Annotated[list[str], typer.Option(
        "--measure", "-m", help="Curve: a measure with a curve, e.g. PRUM, T2I-PR "
        "(precision-recall) or nxCG, P (over ranks); 'graphprum measures' lists them (column "
        "curve). Repeat for side-by-side panels.")],
    output: Annotated[Path, typer.Option(
        "--output", "-o", help="Figure file: .png, .svg or .pdf.")],
    per_topic: Annotated[str | None, typer.Option(
        "--per-topic", help="Plot this topic's curves instead of the mean.")] = None,
    ranks: Ranks = None,
    title: Annotated[str | None, typer.Option(
        help="Figure title (default: what is averaged and the navigation model).")] = None,
) -> None:
    """Precision-recall curves (11 recall levels) or gain curves (ranks) of several runs.

    Example: graphprum plot run-a.txt run-b.txt --qrels qrels.txt -m PRUM -o pr.png
    """
    from graphprum.plots import FIGURE_TYPES, curve_measures, save_figure  # matplotlib

    if output.suffix.lower() not in FIGURE_TYPES:
        raise UsageError(f"{output}: figure type {output.suffix or '(none)'!r} unknown; "
                         f"use {', '.join(FIGURE_TYPES)}")
    check_output(output)
    ks = parse_ranks(ranks)
    names = [n for m in measure for n in curve_measures(m, ks)]
    with opts.progress() as bar:
        fig = plot(opts.runs, opts.qrels, measure, ks=ks, topic=per_topic or "all", title=title,
                   progress=bar.update, **opts.keywords(names))
    save_figure(fig, output)
    note(f"wrote {output}")


@app.command("report", short_help="One self-contained HTML page of the results.")
@user_errors
@eval_options
def report_command(
    opts: EvalArgs,
    output: Annotated[Path, typer.Option("--output", "-o", help="The HTML file.")],
    measure: Annotated[list[str], typer.Option(
        "--measure", "-m", help="Measure (repeat). Default PRUM and AP.")]
    = ["PRUM", "AP"],  # noqa: B006
    curve: Annotated[list[str], typer.Option(
        "--curve", help="Curve to draw (repeat). Default: the curves of the measures "
        "given (PRUM -> PRUM curve, nxCG -> nxCG@1..50, ...).")] = [],  # noqa: B006
    ranks: Ranks = None,
    test: Test = "randomization",
    baseline: Baseline = None,
    correction: Correction = "holm",
    alpha: Alpha = 0.05,
    seed: Seed = 0,
    permutations: Permutations = 2**17,
    samples: Samples = 10_000,
    title: Annotated[str, typer.Option(help="Title of the page.")] = "graphprum report",
) -> None:
    """One self-contained HTML page: summary, significance tests, figures,
    per-topic tables, and the command, parameters, input digests and
    versions needed to reproduce it.

    Example: graphprum report run-a.txt run-b.txt --qrels qrels.txt -o report.html
    """
    from graphprum.html_report import command_line  # matplotlib, pandas: this command only
    from graphprum.significance import check_options

    ks = parse_ranks(ranks)
    check_options(test, correction, alpha, permutations, samples)  # before evaluating
    check_output(output)
    with opts.progress() as bar:
        report(opts.runs, opts.qrels, measure, output=output, curves=curve, ks=ks, test=test,
               baseline=baseline, correction=correction, alpha=alpha, seed=seed,
               permutations=permutations, samples=samples, title=title,
               command=command_line(), progress=bar.update,
               **opts.keywords([*measure, *curve]))
    note(f"wrote {output}")
