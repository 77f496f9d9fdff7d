"""Command-line commands ``compare``, ``plot`` and ``report``.

They take the same evaluation options as ``eval`` and are added to the main
typer application by :func:`register` (called from :mod:`graphprum.cli`).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    import pandas as pd

# ------------------------------------------------- options shared with eval
Runs = Annotated[list[Path], typer.Argument(help="Run files (TREC or INEX XML).")]
Qrels = Annotated[Path | None, typer.Option("--qrels", help="Qrels TOPIC ITER ID REL.")]
Passages = Annotated[Path | None, typer.Option(
    "--passages", help="Passage qrels TOPIC DOC START END (INEX measures).")]
Nav = Annotated[list[str], typer.Option(
    "--nav", help="Navigation model (repeat; noisy-or). Default classical.")]
CollectionSize = Annotated[float | None, typer.Option(
    help="N for the unranked part; default: units in the store (infinite without).")]
IdealMin = Annotated[float, typer.Option(help="Ideal units have REL >= this.")]
Order = Annotated[str, typer.Option(help="score (trec_eval order) or rank (INEX).")]
Dedup = Annotated[bool, typer.Option(help="Keep the first of duplicate results.")]
Trees = Annotated[bool, typer.Option(help="Runs list trees (lines sharing a RANK).")]
Strict = Annotated[bool, typer.Option(help="Unknown qrels ids are an error.")]
NoStore = Annotated[bool, typer.Option(
    "--no-store", help="Do not open a store (ids are opaque strings).")]
Offsets = Annotated[str, typer.Option(
    help="Passage offsets count 'chars' (default) or UTF-8 'bytes'.")]
InclusiveEnds = Annotated[bool, typer.Option(
    help="Passage END offsets are inclusive (default exclusive).")]
Test = Annotated[str, typer.Option(
    "--test", "-t", help="Paired test over topics: t, randomization (sign-flip permutation; "
    "exact up to 17 topics) or bootstrap.")]
Baseline = Annotated[str | None, typer.Option(
    help="Compare every run with this run TAG (default: all pairs).")]
Correction = Annotated[str, typer.Option(
    help="Multiple-comparison correction: holm, bonferroni or none.")]
Alpha = Annotated[float, typer.Option(help="Significance level.")]
Seed = Annotated[int, typer.Option(help="Seed of randomization / bootstrap samples.")]
Permutations = Annotated[int, typer.Option(
    help="Sign vectors of the randomization test (enumerated exactly when 2^topics is "
         "not larger).")]
Samples = Annotated[int, typer.Option(help="Bootstrap resamples.")]
Ranks = Annotated[str | None, typer.Option(
    "--ranks", "-k", help="Ranks of gain curves: 1-50 (default), or a list like 1,5,10,20.")]

_NAV_DEFAULT = ["classical"]


def parse_ranks(text: str | None) -> list[int] | None:
    """``"1-50"`` or ``"1,5,10"`` (or a mix) to a list of ranks; None stays None.

    >>> parse_ranks("1-3,10")
    [1, 2, 3, 10]
    """
    from graphprum.errors import UsageError

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


class _Eval:
    """The evaluation options of one command, and the store they opened."""

    def __init__(self, cli: Any, runs: Sequence[Path], qrels: Path | None,
                 passages: Path | None, nav: Sequence[str], collection_size: float | None,
                 ideal_min: float, order: str, dedup: bool, trees: bool, strict: bool,
                 no_store: bool, offsets: str, inclusive_ends: bool) -> None:
        self.cli = cli
        self.runs = list(runs)
        self.qrels = qrels
        self.passages = passages
        self.nav = list(nav)
        self.collection_size = collection_size
        self.ideal_min = ideal_min
        self.order = order
        self.dedup = dedup
        self.trees = trees
        self.strict = strict
        self.no_store = no_store
        self.offsets = offsets
        self.ends = "inclusive" if inclusive_ends else "exclusive"
        self.store: Any = None

    def run(self, measures: Sequence[str]) -> pd.DataFrame:
        from graphprum.evaluation import needs_store, run_evaluation

        cli = self.cli
        if self.qrels is None and self.passages is None:
            raise cli._usage("needs --qrels or --passages")
        if self.offsets not in ("chars", "bytes"):
            raise cli._usage(f"--offsets {self.offsets!r}: choose chars or bytes")
        if not self.no_store and (needs_store(measures, self.nav) or cli._store_exists()):
            self.store = cli._open_store(create=False)
        with cli._Progress(None, f"evaluating {len(self.runs)} run(s), topics") as bar:
            return run_evaluation(self.runs, self.qrels, measures, nav=self.nav,
                                  store=self.store, collection_size=self.collection_size,
                                  ideal_min=self.ideal_min, order=self.order, dedup=self.dedup,
                                  trees=self.trees, passages=self.passages, per_topic=True,
                                  strict=self.strict, warn=cli.note, offsets=self.offsets,
                                  ends=self.ends, progress=bar.update)

    def parameters(self) -> dict[str, str]:
        """What the evaluation used, for the report's reproduction section."""
        params = {"navigation models (--nav)": ", ".join(self.nav),
                  "collection size N": self._collection_size(),
                  "ideal units": f"REL >= {self.ideal_min:g}",
                  "run order": self.order, "dedup": str(self.dedup), "tree runs": str(self.trees)}
        if self.passages is not None:
            params["passage offsets"] = f"{self.offsets}, ends {self.ends}"
        if self.store is None:
            params["store"] = "none (ids are opaque strings)"
        else:
            params["store"] = str(getattr(self.store, "location", self.store))
            try:
                info = self.store.info()
            except Exception:  # a report must not fail on a detail
                info = {}
            for key in ("format", "documents", "elements", "pages", "segments", "links",
                        "summaries"):
                if info.get(key):
                    v = info[key]
                    params[f"store {key}"] = ", ".join(v) if isinstance(v, list) else str(v)
        return params

    def _collection_size(self) -> str:
        if self.collection_size is not None:
            return f"{self.collection_size:g} (--collection-size)"
        if self.store is None:
            return "infinite (no store: unranked units add no precision)"
        if self.qrels is None:
            return "units in the store of the judged kind"
        from graphprum.evaluation import _collection_size
        from graphprum.io.qrels import read_qrels

        n = _collection_size(self.store, read_qrels(self.qrels), None, False,
                             lambda message: None)
        return f"{n:g} (units in the store of the judged kind)" if math.isfinite(n) else "∞"

    def inputs(self, tags: Sequence[str]) -> list[dict[str, str]]:
        """Input files with their SHA-256; ``tags`` are the runs' TAGs in file order."""
        from graphprum.html_report import file_digest

        files = []
        for role, path in (("qrels", self.qrels), ("passages", self.passages)):
            if path is not None:
                files.append({"role": role, "path": str(path), "sha256": file_digest(path)})
        tags = list(tags) if len(tags) == len(self.runs) else [""] * len(self.runs)
        for path, tag in zip(self.runs, tags, strict=True):
            files.append({"role": "run", "path": str(path), "tag": str(tag),
                          "sha256": file_digest(path)})
        return files


def _check_format(cli: Any, fmt: str | None) -> str:
    from graphprum.report import FORMATS

    if fmt is None:
        fmt = "table" if sys.stdout.isatty() else "tsv"
    if fmt not in FORMATS:
        raise cli._usage(f"--format {fmt!r}: choose one of {', '.join(FORMATS)}")
    return fmt


def register(app: typer.Typer) -> None:
    """Add the ``compare``, ``plot`` and ``report`` commands to ``app``."""
    from graphprum import cli

    @app.command("compare")
    @cli.user_errors
    def compare_command(
        runs: Runs,
        measure: Annotated[list[str], typer.Option(
            "--measure", "-m", help="Measure to compare on, e.g. PRUM, AP (repeat).")],
        qrels: Qrels = None,
        passages: Passages = None,
        test: Test = "t",
        baseline: Baseline = None,
        correction: Correction = "holm",
        alpha: Alpha = 0.05,
        seed: Seed = 0,
        permutations: Permutations = 2**17,
        samples: Samples = 10_000,
        fmt: Annotated[str | None, typer.Option(
            "--format", "-f", help="table (terminal default), tsv (default otherwise), csv, "
            "json, latex, markdown.")] = None,
        nav_models: Nav = _NAV_DEFAULT,
        collection_size: CollectionSize = None,
        ideal_min: IdealMin = 1.0,
        order: Order = "score",
        dedup: Dedup = False,
        trees: Trees = False,
        strict: Strict = False,
        no_store: NoStore = False,
        offsets: Offsets = "chars",
        inclusive_ends: InclusiveEnds = False,
    ) -> None:
        """Paired significance tests between runs over topics.

        One row per pair of runs (or per run against --baseline): means, the
        difference, effect size d_z, wins/losses/ties, p and the corrected p;
        '*' marks differences significant at --alpha after correction.
        """
        import pandas as pd

        from graphprum.compare import compare, write_comparison

        fmt = _check_format(cli, fmt)
        ev = _Eval(cli, runs, qrels, passages, nav_models, collection_size, ideal_min, order,
                   dedup, trees, strict, no_store, offsets, inclusive_ends)
        df = ev.run(measure)
        from graphprum.evaluation import expand_measures

        names = [str(s) for s in expand_measures(measure)]
        res = pd.concat([compare(df, m, test=test, baseline=baseline, correction=correction,
                                 alpha=alpha, seed=seed, permutations=permutations,
                                 samples=samples, warn=cli.note) for m in names],
                        ignore_index=True)
        write_comparison(res, fmt, sys.stdout, alpha=alpha)

    @app.command("plot")
    @cli.user_errors
    def plot_command(
        runs: Runs,
        measure: Annotated[list[str], typer.Option(
            "--measure", "-m", help="Curve: PRUM, EPRUM, T2I-PR, ep (precision-recall), "
            "nxCG, xCG, gP, gR, SR, SRP, P, nDCG (over ranks). Repeat for side-by-side panels.")],
        output: Annotated[Path, typer.Option(
            "--output", "-o", help="Figure file: .png, .svg or .pdf.")],
        qrels: Qrels = None,
        passages: Passages = None,
        per_topic: Annotated[str | None, typer.Option(
            "--per-topic", help="Plot this topic's curves instead of the mean.")] = None,
        ranks: Ranks = None,
        title: Annotated[str | None, typer.Option(help="Figure title.")] = None,
        nav_models: Nav = _NAV_DEFAULT,
        collection_size: CollectionSize = None,
        ideal_min: IdealMin = 1.0,
        order: Order = "score",
        dedup: Dedup = False,
        trees: Trees = False,
        strict: Strict = False,
        no_store: NoStore = False,
        offsets: Offsets = "chars",
        inclusive_ends: InclusiveEnds = False,
    ) -> None:
        """Precision-recall curves (11 recall levels) or gain curves (ranks) of several runs."""
        from graphprum.errors import UsageError
        from graphprum.plots import FIGURE_TYPES, curve_measures, plot_curves, save_figure

        if output.suffix.lower() not in FIGURE_TYPES:
            raise UsageError(f"{output}: figure type {output.suffix or '(none)'!r} unknown; "
                             f"use {', '.join(FIGURE_TYPES)}")
        ks = parse_ranks(ranks)
        names = [n for m in measure for n in curve_measures(m, ks)]
        ev = _Eval(cli, runs, qrels, passages, nav_models, collection_size, ideal_min, order,
                   dedup, trees, strict, no_store, offsets, inclusive_ends)
        df = ev.run(names)
        fig = plot_curves(df, measure, ks=ks, topic=per_topic or "all", title=title)
        save_figure(fig, output)
        cli.note(f"wrote {output}")

    @app.command("report")
    @cli.user_errors
    def report_command(
        runs: Runs,
        output: Annotated[Path, typer.Option("--output", "-o", help="The HTML file.")],
        qrels: Qrels = None,
        passages: Passages = None,
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
        nav_models: Nav = _NAV_DEFAULT,
        collection_size: CollectionSize = None,
        ideal_min: IdealMin = 1.0,
        order: Order = "score",
        dedup: Dedup = False,
        trees: Trees = False,
        strict: Strict = False,
        no_store: NoStore = False,
        offsets: Offsets = "chars",
        inclusive_ends: InclusiveEnds = False,
    ) -> None:
        """One self-contained HTML page: summary, significance tests, figures,
        per-topic tables, and the command, parameters, input digests and
        versions needed to reproduce it."""
        from graphprum.compare import compare
        from graphprum.evaluation import expand_measures
        from graphprum.html_report import build_report, command_line, write_report
        from graphprum.measures.registry import parse_measure
        from graphprum.plots import curve_measures, is_curve

        ks = parse_ranks(ranks)
        scalar = [str(s) for s in expand_measures(measure)]
        kinds = list(curve) or [str(parse_measure(m)) for m in measure if is_curve(m)]
        curve_names = [n for k in kinds for n in curve_measures(k, ks)]
        ev = _Eval(cli, runs, qrels, passages, nav_models, collection_size, ideal_min, order,
                   dedup, trees, strict, no_store, offsets, inclusive_ends)
        df = ev.run(list(dict.fromkeys([*measure, *curve_names])))
        results = df[df["measure"].isin(scalar)]
        comparisons = None
        note_text = ""
        if df["run"].nunique() > 1:
            import pandas as pd

            comparisons = pd.concat(
                [compare(df, m, test=test, baseline=baseline, correction=correction,
                         alpha=alpha, seed=seed, permutations=permutations, samples=samples,
                         warn=cli.note) for m in scalar], ignore_index=True)
            detail = {"randomization": f", {permutations} sign vectors at most (exact "
                      f"enumeration when 2^topics is not larger), seed {seed}",
                      "bootstrap": f", {samples} resamples, seed {seed}", "t": ""}[test]
            note_text = (f"Paired {test} test over topics{detail}; p corrected for the "
                         f"pairs of each measure by {correction}; significant: corrected "
                         f"p < {alpha}. d_z = mean difference / sd of differences.")
        params = ev.parameters()
        params["measures (-m)"] = ", ".join(measure)
        if kinds:
            params["curves"] = ", ".join(kinds) + (f" (ranks {ranks})" if ranks else "")
        if comparisons is not None:
            params["significance"] = (f"{test}, correction {correction}, alpha {alpha}, "
                                      f"seed {seed}")
        page = build_report(results, curves=df, curve_kinds=kinds, ks=ks,
                            comparisons=comparisons, comparison_note=note_text,
                            command=command_line(), parameters=params,
                            inputs=ev.inputs(list(dict.fromkeys(df["run"]))),
                            title=title)
        write_report(page, output)
        cli.note(f"wrote {output}")
