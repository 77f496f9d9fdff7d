"""Paired significance tests between runs over topics.

Every test pairs the per-topic values of two runs on one measure (the topics
both runs were evaluated on) and works on the differences ``d = a - b``:

``t``
    Student's paired t-test, two-sided (:func:`scipy.stats.ttest_rel`), with
    the t confidence interval of the mean difference.
``randomization``
    Paired (sign-flip) permutation test of the mean difference, two-sided:
    under the null hypothesis each topic's two values are exchangeable, so
    every sign vector ``s`` in {-1, +1}^n is equally likely and
    ``p = P(|mean(s * d)| >= |mean(d)|)``.  When ``2**n <= permutations``
    every sign vector is enumerated and p is exact; otherwise ``permutations``
    random sign vectors are drawn (seeded) and ``p = (hits + 1) / (B + 1)``
    (the observed assignment counted once, so p is never 0).  Default
    ``permutations = 2**17 = 131072``: exact up to 17 topics.
``bootstrap``
    Paired bootstrap of the mean difference (Efron & Tibshirani 1993,
    §16.4): ``B`` resamples of the topics with replacement; the two-sided
    p-value is the share of resampled means of the *centred* differences
    ``d - mean(d)`` (the null shifted to mean 0) at least as far from 0 as
    ``mean(d)``, ``(hits + 1) / (B + 1)``; the confidence interval is the
    percentile interval of the uncentred resampled means.  Default
    ``B = 10000``.

Few topics, equal differences: the t and bootstrap tests estimate the
spread of the mean difference from the spread of ``d``, so on one topic, or
when every topic's difference is the same non-zero value, they have nothing
to test with: the t statistic is ``mean / 0`` (:func:`scipy.stats.ttest_rel`
gives p = NaN on one topic and p = 0 on equal differences) and every
centred bootstrap resample is 0 (p would fall to its floor ``1 / (B + 1)``).
Both tests then give p = NaN (not significant; the ``warn`` note names the
measure and pair and points to the randomization test), whose p is exact
there: 1 on one topic, ``2 / 2**n`` on n equal non-zero differences.  When
every difference is 0 (the runs agree on every topic) p = 1 in every test:
no statistic of the differences is further from 0 than the observed one.
The Holm and Bonferroni corrections count only the pairs with a p-value
(as R's ``p.adjust`` does with NA).

Effect size: ``d_z = mean(d) / sd(d)`` (Cohen's d for paired samples, sd
with n - 1 degrees of freedom); 0 when every difference is 0, infinite when
they are all equal and non-zero.

p-values of one call (one measure, all compared pairs) are corrected for
multiple comparisons by Holm's step-down method (default), Bonferroni, or
not at all; a difference is *significant* when the corrected p < ``alpha``.

Confidence intervals of each run's mean over topics (:func:`intervals`)
come from ``B`` bootstrap resamples of its per-topic values
(:func:`scipy.stats.bootstrap`), by one of

``bca``
    the bias-corrected and accelerated interval (Efron & Tibshirani 1993,
    §14.3; the default): the percentiles of the resampled means moved by the
    bias ``z0 = Φ⁻¹(share of resampled means below the mean)`` and the
    acceleration ``a`` (the skewness of the jackknife means).  Per-topic
    values of a retrieval measure are bounded and skewed (many topics near
    0, a few near 1): BCa is second-order accurate there, where the plain
    percentile interval is only first-order accurate and too narrow on the
    long side.
``percentile``
    the ``(1 - confidence)/2`` and ``(1 + confidence)/2`` percentiles of the
    resampled means.

Every interval is drawn with a generator seeded by ``seed`` alone, so a
run's interval does not depend on which other runs or measures are in the
table; values that are all equal (or a single topic) give the interval
``[mean, mean]``.

Examples
--------
>>> import pandas as pd
>>> rows = [(r, "AP", f"t{i}", v) for r, vals in
...         {"a": [.5, .6, .7, .8], "b": [.4, .5, .5, .6]}.items()
...         for i, v in enumerate(vals)]
>>> df = pd.DataFrame(rows, columns=["run", "measure", "topic", "value"])
>>> res = compare(df, "AP", test="randomization")
>>> res[["run_a", "run_b", "diff", "p_value", "n_topics"]].round(4).values.tolist()
[['a', 'b', 0.15, 0.125, 4]]
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import numpy as np
import pandas as pd

from graphprum.errors import UsageError
from graphprum.floats import DIGITS, fixed, p_value
from graphprum.measures.names import better_of
from graphprum.results import FORMATS
from graphprum.tabular import GRID_FORMATS, Grid, write_grid, write_rows

TESTS = ("t", "randomization", "bootstrap")
CORRECTIONS = ("holm", "bonferroni", "none")
#: Default number of sign vectors of the randomization test (exact up to 17 topics).
PERMUTATIONS = 2**17
#: Default number of bootstrap resamples.
BOOTSTRAP_SAMPLES = 10_000
#: How :func:`intervals` computes a confidence interval (module notes); ``none``: not at all.
INTERVALS = ("bca", "percentile", "none")
#: Columns of the DataFrame :func:`intervals` returns.
INTERVAL_COLUMNS = ["measure", "run", "mean", "ci_low", "ci_high", "n_topics", "method",
                    "confidence"]
#: Columns of the DataFrame :func:`compare` returns.
COLUMNS = ["measure", "run_a", "run_b", "mean_a", "mean_b", "diff", "test", "statistic",
           "p_value", "p_adjusted", "significant", "effect_size", "ci_low", "ci_high",
           "wins", "losses", "ties", "n_topics", "exact"]

_CHUNK = 1 << 14



def check_options(test: str, correction: str, alpha: float, permutations: int = 1,
                  samples: int = 1) -> None:
    """UsageError for options :func:`compare` cannot take; cheap, so that a
    command checks them before it evaluates anything.

    >>> check_options("t", "holm", 0.05)
    >>> check_options("z", "holm", 0.05)
    Traceback (most recent call last):
    ...
    graphprum.errors.UsageError: unknown test 'z'; choose t, randomization, bootstrap
    """
    if test not in TESTS:
        raise UsageError(f"unknown test {test!r}; choose {', '.join(TESTS)}")
    if correction not in CORRECTIONS:
        raise UsageError(f"unknown correction {correction!r}; choose {', '.join(CORRECTIONS)}")
    if not 0 < alpha < 1:
        raise UsageError(f"alpha must be in (0, 1), got {alpha}")
    if permutations < 1 or samples < 1:
        raise UsageError("permutations and samples must be >= 1")

def compare(df: pd.DataFrame, measure: str, *, test: str = "randomization",
            baseline: str | None = None,
            correction: str = "holm", alpha: float = 0.05, seed: int = 0,
            permutations: int = PERMUTATIONS, samples: int = BOOTSTRAP_SAMPLES,
            runs: Sequence[str] | None = None,
            warn: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Paired significance tests between runs on ``measure``.

    Parameters
    ----------
    df : pandas.DataFrame
        An evaluation (columns ``run, measure, topic, value``) with per-topic
        rows; ``all`` rows are ignored.
    measure : str
        The measure compared, as named in ``df`` (e.g. ``"PRUM"``, ``"AP"``).
    test : {"randomization", "t", "bootstrap"}
        See the module documentation; randomization (the default of every
        command and function here) makes no normality assumption.
    baseline : str, optional
        Compare every other run with this one (``run_b`` = baseline);
        by default every pair of runs, in the order they appear.
    correction : {"holm", "bonferroni", "none"}
        Multiple-comparison correction over the pairs of this call.
    alpha : float
        Significance level of the ``significant`` column.
    seed : int
        Seed of the random sign vectors / resamples (results are reproducible).
    permutations, samples : int
        Sign vectors (randomization) and resamples (bootstrap).
    runs : sequence of str, optional
        Restrict to these runs (in this order).
    warn : callable, optional
        Called with a note when two runs do not share the same topics.

    Returns
    -------
    pandas.DataFrame
        One row per pair with :data:`COLUMNS`: means of both runs over the
        shared topics, ``diff = mean_a - mean_b``, the test statistic (t, or
        the mean difference), raw and corrected p-values, ``significant``,
        the effect size ``d_z``, a confidence interval of the mean difference
        (t and bootstrap; NaN for randomization), topic wins/losses/ties of
        run a (a win is a better value in the measure's direction: lower for
        ESL), the number of topics and whether p is exact.
    """
    check_options(test, correction, alpha, permutations, samples)
    table = _per_topic(df, measure)
    names = list(runs) if runs is not None else list(table.columns)
    for r in [*names, *([baseline] if baseline else [])]:
        if r not in table.columns:
            raise UsageError(f"run {r!r} is not in the results; runs: "
                             + ", ".join(map(str, table.columns)))
    if baseline is not None:
        pairs = [(r, baseline) for r in names if r != baseline]
    else:
        pairs = list(itertools.combinations(names, 2))
    if not pairs:
        raise UsageError("compare needs at least two runs")
    rng_seed = np.random.SeedSequence(seed)
    rows = []
    for (a, b), child in zip(pairs, rng_seed.spawn(len(pairs)), strict=True):
        both = table[[a, b]].dropna()
        if len(both) < len(table) and warn is not None:
            warn(f"note: {a} vs {b} on {measure}: {len(both)} shared topics of {len(table)}")
        if both.empty:
            raise UsageError(f"runs {a!r} and {b!r} share no topic on {measure}")
        x = both[a].to_numpy(float)
        y = both[b].to_numpy(float)
        row = _pair(measure, a, b, x, y, test, np.random.default_rng(child),
                    permutations, samples, alpha)
        p = row[COLUMNS.index("p_value")]
        if isinstance(p, float) and math.isnan(p) and warn is not None:
            warn(f"note: {a} vs {b} on {measure}: the {test} test is undefined on "
                 + ("1 topic" if len(x) == 1 else
                    f"{len(x)} topics whose differences are all equal")
                 + ": no p-value, not significant; use the randomization test, exact there")
        rows.append(row)
    out = pd.DataFrame(rows, columns=COLUMNS)
    out["p_adjusted"] = adjust(out["p_value"].to_numpy(float), correction)
    out["significant"] = out["p_adjusted"] < alpha
    return out


def _per_topic(df: pd.DataFrame, measure: str) -> pd.DataFrame:
    """The per-topic values of ``measure``: topics as rows, runs as columns
    in the order they appear."""
    sub = df[(df["measure"] == measure) & (df["topic"] != "all")]
    if sub.empty:
        if (df["measure"] == measure).any():
            raise UsageError(f"no per-topic values of {measure} to compare (evaluate with "
                             f"per-topic rows)")
        known = ", ".join(dict.fromkeys(df["measure"]))
        raise UsageError(f"measure {measure!r} is not in the results; they hold {known}")
    table = sub.pivot_table(index="topic", columns="run", values="value", aggfunc="first",
                            sort=False)
    return table[list(dict.fromkeys(sub["run"]))]


def compare_measures(df: pd.DataFrame, measures: Sequence[str], **options: Any,
                     ) -> pd.DataFrame:
    """:func:`compare` for each of ``measures``, the rows of all in one table
    (the correction applies per measure)."""
    parts = [compare(df, m, **options) for m in measures]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=COLUMNS)


def intervals(df: pd.DataFrame, measures: str | Sequence[str], *, method: str = "bca",
              confidence: float = 0.95, samples: int = BOOTSTRAP_SAMPLES, seed: int = 0,
              runs: Sequence[str] | None = None) -> pd.DataFrame:
    """Each run's mean over topics on each measure, with a bootstrap
    confidence interval (module notes).

    Parameters
    ----------
    df : pandas.DataFrame
        An evaluation with per-topic rows (``all`` rows are ignored).
    measures : str or sequence of str
        The measures, as named in ``df``.
    method : {"bca", "percentile", "none"}
        The interval (``none``: means only, NaN bounds, no resampling).
    confidence : float
        Confidence level in (0, 1).
    samples : int
        Bootstrap resamples.
    seed : int
        Seed of every interval's resamples.
    runs : sequence of str, optional
        Restrict to these runs (in this order).

    Returns
    -------
    pandas.DataFrame
        One row per measure and run, :data:`INTERVAL_COLUMNS`: the mean of
        the per-topic values, ``ci_low``, ``ci_high``, the number of topics,
        the method and the confidence level.

    Examples
    --------
    >>> rows = [("a", "AP", f"t{i}", v) for i, v in enumerate([.1, .4, .2, .9, .3])]
    >>> df = pd.DataFrame(rows, columns=["run", "measure", "topic", "value"])
    >>> ci = intervals(df, "AP", method="percentile", samples=2000)
    >>> ci[["run", "mean", "n_topics"]].values.tolist()
    [['a', 0.38, 5]]
    >>> bool(0.1 < ci.ci_low[0] < 0.38 < ci.ci_high[0] < 0.9)
    True
    """
    if method not in INTERVALS:
        raise UsageError(f"unknown confidence interval {method!r}; choose {', '.join(INTERVALS)}")
    if not 0 < confidence < 1:
        raise UsageError(f"confidence must be in (0, 1), got {confidence}")
    if samples < 1:
        raise UsageError("samples must be >= 1")
    rows = []
    for measure in [measures] if isinstance(measures, str) else measures:
        table = _per_topic(df, measure)
        names = list(runs) if runs is not None else list(table.columns)
        for run in names:
            if run not in table.columns:
                raise UsageError(f"run {run!r} is not in the results; runs: "
                                 + ", ".join(map(str, table.columns)))
            values = table[run].dropna().to_numpy(float)
            low, high = _interval(values, method, confidence, samples, seed)
            rows.append([measure, run, float(values.mean()) if len(values) else math.nan, low,
                         high, len(values), method, confidence])
    return pd.DataFrame(rows, columns=INTERVAL_COLUMNS)


def _interval(values: np.ndarray, method: str, confidence: float, samples: int,
              seed: int) -> tuple[float, float]:
    """The bootstrap interval of the mean of ``values``."""
    if method == "none" or len(values) == 0:
        return math.nan, math.nan
    if _constant(values):  # every resample has the same mean (BCa's a would be 0/0)
        return float(values.mean()), float(values.mean())
    import scipy.stats  # only here: importing it takes about 0.5 s

    data, mean = _summable(values)
    res = scipy.stats.bootstrap((data,), mean, n_resamples=samples,
                                confidence_level=confidence,
                                method="BCa" if method == "bca" else method,
                                rng=np.random.default_rng(seed))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


#: Bits to which :func:`_summable` rounds the largest per-topic value.
MEAN_BITS = 40


def _summable(values: np.ndarray) -> tuple[np.ndarray, Callable[..., Any]]:
    """``values`` as integers (multiples of one power of two, the largest
    about 2**:data:`MEAN_BITS`) and the mean of such integers, for the
    bootstrap: their sum is exact, so resamples that hold the same topics
    have the same mean to the last bit, whatever their order and however
    the CPU sums (numpy's float sums differ between CPUs in the last bit).
    BCa counts the resampled means below the mean, and with few topics many
    resamples hold each topic once: their float means fell on either side
    of it by a unit in the last place, which moved the 95% interval of 5
    topics from [0.1171, 0.2765] on one machine to [0.1247, 0.3042] on
    another.  The rounding moves a value by 2**-40 of the largest at most.

    >>> data, mean = _summable(np.array([0.1, 0.2, 0.7]))
    >>> data.dtype.kind, float(mean(data)) == float(mean(data[::-1]))
    ('i', True)
    >>> abs(float(mean(data)) - 1 / 3) < 1e-12
    True
    """
    if not np.isfinite(values).all():
        return values, np.mean
    exponent = int(np.frexp(np.max(np.abs(values)))[1])
    scale = math.ldexp(1.0, MEAN_BITS - exponent)
    data = np.rint(values * scale).astype(np.int64)

    def mean(x: np.ndarray, axis: int = -1) -> Any:
        return x.sum(axis=axis) / (x.shape[axis] * scale)

    return data, mean


def describe_test(test: str, *, correction: str, alpha: float, seed: int,
                  permutations: int, samples: int) -> str:
    """One sentence saying how :func:`compare` tested (for reports)."""
    detail = {"randomization": f", {permutations} sign vectors at most (exact "
              f"enumeration when 2^topics is not larger), seed {seed}",
              "bootstrap": f", {samples} resamples, seed {seed}", "t": ""}[test]
    return (f"Paired {test} test over topics{detail}; p corrected for the "
            f"pairs of each measure by {correction}; significant: corrected "
            f"p < {alpha}. d_z = mean difference / sd of differences.")


def _pair(measure: str, a: str, b: str, x: np.ndarray, y: np.ndarray, test: str,
          rng: np.random.Generator, permutations: int, samples: int, alpha: float,
          ) -> list[object]:
    d = x - y
    n = len(d)
    mean = float(d.mean())
    ci = (math.nan, math.nan)
    exact = True
    if test == "t":
        if abs(mean) <= _tol(d) and _constant(d):
            stat, p = 0.0, 1.0
        elif n < 2 or _constant(d):  # sd(d) = 0 or undefined (module notes)
            stat, p = (math.nan if n < 2 else math.copysign(math.inf, mean)), math.nan
        else:
            import scipy.stats  # only here: importing it takes about 0.5 s

            res = scipy.stats.ttest_rel(x, y)
            stat, p = float(res.statistic), float(res.pvalue)
            lo, hi = res.confidence_interval(1 - alpha)
            ci = (float(lo), float(hi))
    elif test == "randomization":
        stat = mean
        p, exact = sign_flip_p(d, permutations=permutations, rng=rng)
    else:
        stat = mean
        p, ci = bootstrap_p(d, samples=samples, rng=rng, alpha=alpha)
        exact = False
    if n < 2:
        effect = math.nan
    elif not _constant(d):
        effect = mean / float(d.std(ddof=1))
    else:
        effect = 0.0 if abs(mean) <= _tol(d) else math.copysign(math.inf, mean)
    wins, losses = (d < 0, d > 0) if better_of(measure) == "lower" else (d > 0, d < 0)
    return [measure, a, b, float(x.mean()), float(y.mean()), mean, test, stat, p, p, False,
            effect, ci[0], ci[1], int(wins.sum()), int(losses.sum()), int((d == 0).sum()),
            n, exact]


def _constant(d: np.ndarray) -> bool:
    """Whether all differences are equal (up to rounding of the subtraction)."""
    return float(np.ptp(d)) <= _tol(d)


def _tol(d: np.ndarray) -> float:
    """Slack for comparing means of the same numbers summed in other orders."""
    return 1e-9 * max(1.0, float(np.abs(d).max(initial=0.0)))


def sign_flip_p(d: np.ndarray, *, permutations: int = PERMUTATIONS,
                rng: np.random.Generator | None = None) -> tuple[float, bool]:
    """Two-sided p-value of the paired sign-flip test on differences ``d``.

    Returns ``(p, exact)``: exact enumeration of the ``2**n`` sign vectors
    when that is at most ``permutations``, else a seeded Monte Carlo estimate
    ``(hits + 1) / (permutations + 1)``.

    >>> sign_flip_p(np.array([1.0, 2.0, 3.0]))
    (0.25, True)
    """
    d = np.asarray(d, float)
    n = len(d)
    observed = abs(float(d.mean())) if n else 0.0
    tol = _tol(d)
    if n == 0:
        return 1.0, True
    if 2.0**n <= permutations:
        hits = 0
        total = 1 << n
        bits = np.arange(n, dtype=np.int64)
        for start in range(0, total, _CHUNK):
            codes = np.arange(start, min(total, start + _CHUNK), dtype=np.int64)
            signs = 1.0 - 2.0 * ((codes[:, None] >> bits) & 1)
            hits += int(np.count_nonzero(np.abs(signs @ d) / n >= observed - tol))
        return hits / total, True
    rng = rng if rng is not None else np.random.default_rng(0)
    hits = 0
    for start in range(0, permutations, _CHUNK):
        m = min(_CHUNK, permutations - start)
        signs = rng.integers(0, 2, size=(m, n), dtype=np.int8) * 2.0 - 1.0
        hits += int(np.count_nonzero(np.abs(signs @ d) / n >= observed - tol))
    return (hits + 1) / (permutations + 1), False


def bootstrap_p(d: np.ndarray, *, samples: int = BOOTSTRAP_SAMPLES,
                rng: np.random.Generator | None = None,
                alpha: float = 0.05) -> tuple[float, tuple[float, float]]:
    """Paired bootstrap of the mean of ``d``: two-sided p and percentile interval.

    p is NaN (undefined) when ``d`` has one value or equal non-zero values,
    1 when they are all 0 (module notes); the interval is then
    ``[mean, mean]``.

    >>> p, (lo, hi) = bootstrap_p(np.array([0.1, 0.2, 0.15, 0.3, 0.25]))
    >>> p < 0.01 and 0.1 <= lo < hi <= 0.3
    True
    >>> bootstrap_p(np.array([0.5, 0.5, 0.5]))
    (nan, (0.5, 0.5))
    """
    d = np.asarray(d, float)
    n = len(d)
    if n == 0:
        return 1.0, (math.nan, math.nan)
    mean = float(d.mean())
    if _constant(d):  # no spread: every centred resample is 0
        return (1.0 if abs(mean) <= _tol(d) else math.nan), (mean, mean)
    rng = rng if rng is not None else np.random.default_rng(0)
    centred = d - mean
    tol = _tol(d)
    means = np.empty(samples)
    hits = 0
    for start in range(0, samples, max(1, _CHUNK * 8 // max(n, 1))):
        m = min(max(1, _CHUNK * 8 // max(n, 1)), samples - start)
        idx = rng.integers(0, n, size=(m, n))
        means[start:start + m] = d[idx].mean(axis=1)
        hits += int(np.count_nonzero(np.abs(centred[idx].mean(axis=1)) >= abs(mean) - tol))
    lo, hi = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return (hits + 1) / (samples + 1), (float(lo), float(hi))


def adjust(p: np.ndarray, correction: str) -> np.ndarray:
    """p-values corrected for multiple comparisons (``holm``, ``bonferroni``, ``none``).

    Holm: sort ascending, ``p_(i) * (m - i + 1)``, made non-decreasing, capped at 1.
    A NaN p (an undefined test) stays NaN and is not counted in ``m``.

    >>> adjust(np.array([0.01, 0.04, 0.03]), "holm").round(4).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust(np.array([0.01, 0.04, 0.03]), "bonferroni").round(4).tolist()
    [0.03, 0.12, 0.09]
    >>> adjust(np.array([0.01, np.nan, 0.03]), "holm").round(4).tolist()
    [0.02, nan, 0.03]
    """
    p = np.asarray(p, float)
    tested = ~np.isnan(p)
    if not tested.all():
        out = p.copy()
        out[tested] = adjust(p[tested], correction)
        return out
    m = len(p)
    if correction == "none" or m == 0:
        return p.copy()
    if correction == "bonferroni":
        return np.asarray(np.minimum(p * m, 1.0))
    if correction != "holm":
        raise UsageError(f"unknown correction {correction!r}; choose {', '.join(CORRECTIONS)}")
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(p[order] * (m - np.arange(m)), 1.0)
    out = np.empty(m)
    out[order] = np.maximum.accumulate(scaled)
    return out


# ------------------------------------------------------------------ output
def _grid(res: pd.DataFrame, digits: int = DIGITS) -> Grid:
    """Human table of comparisons: a significant row's difference and corrected
    p in bold, the p followed by ``*``."""
    header = ["measure", "run A", "run B", "mean A", "mean B", "diff", "d_z", "W/L/T", "p",
              "p adj."]
    rows: list[list[str]] = []
    bold: set[tuple[int, int]] = set()
    for i, r in enumerate(res.to_dict("records")):
        rows.append([str(r["measure"]), str(r["run_a"]), str(r["run_b"]),
                     fixed(r["mean_a"], digits), fixed(r["mean_b"], digits),
                     fixed(r["diff"], digits, sign=True),
                     fixed(r["effect_size"], min(digits, 2)),
                     f"{r['wins']}/{r['losses']}/{r['ties']}", p_value(r["p_value"], digits),
                     p_value(r["p_adjusted"], digits) + ("*" if r["significant"] else "")])
        if r["significant"]:
            bold.add((i, 9))
            bold.add((i, 5))
    return Grid(header, rows, "lll" + "r" * 7, bold, keys=3)


def write_comparison(res: pd.DataFrame, fmt: str, out: TextIO, *, alpha: float = 0.05,
                     digits: int = DIGITS) -> None:
    """Write :func:`compare` results in ``fmt`` (table, tsv, csv, json, latex, markdown).

    tsv/csv/json carry every column (:data:`COLUMNS`, with a header) at full
    precision; the table formats show one line per pair with ``digits``
    decimals (d_z with at most 2), ``*`` after the corrected p of a
    difference significant after correction.  Numbers follow :mod:`graphprum.floats`.
    """
    if fmt in ("tsv", "csv", "json"):
        columns = list(res.columns)
        write_rows(columns, [[_plain(v) for v in row] for row in res.itertuples(index=False)],
                   fmt, out)
    elif fmt in GRID_FORMATS:
        write_grid(_grid(res, digits), fmt, out, ruled=True,
                   caption=f"* p adj. < {alpha} ({_describe(res)})")
    else:
        raise UsageError(f"unknown format {fmt!r}; choose {', '.join(FORMATS)}")


def _describe(res: pd.DataFrame) -> str:
    tests = ", ".join(dict.fromkeys(res["test"])) if len(res) else ""
    return f"paired {tests} test over topics"


def _plain(v: object) -> object:
    """numpy scalars as Python values."""
    return v.item() if isinstance(v, np.generic) else v
