"""Bootstrap confidence intervals of a run's mean (graphprum.significance.intervals)
against a bootstrap written here: the same resamples (one generator seeded
by the seed, ``integers(0, n, (B, n))``), the percentile interval by numpy's
quantiles, and BCa by Efron & Tibshirani (1993), §14.3, eqs. 14.10-14.15,
with the standard library's normal distribution."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest

from graphprum.errors import UsageError
from graphprum.significance import intervals

B = 4000


def frame(values: dict[str, list[float]], measure: str = "AP") -> pd.DataFrame:
    rows = [(run, measure, f"q{i}", float(v)) for run, vals in values.items()
            for i, v in enumerate(vals)]
    rows += [(run, measure, "all", float(np.mean(vals))) for run, vals in values.items()]
    return pd.DataFrame(rows, columns=["run", "measure", "topic", "value"])


def resampled_means(x: np.ndarray, seed: int) -> np.ndarray:
    idx = np.random.default_rng(seed).integers(0, len(x), (B, len(x)))
    return x[idx].mean(axis=1)


def percentile_by_hand(x: np.ndarray, level: float, seed: int) -> tuple[float, float]:
    means = resampled_means(x, seed)
    lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)


def bca_by_hand(x: np.ndarray, level: float, seed: int) -> tuple[float, float]:
    normal = NormalDist()
    means = resampled_means(x, seed)
    theta = float(x.mean())
    z0 = normal.inv_cdf(float(np.count_nonzero(means < theta)) / B)  # eq. 14.14
    n = len(x)
    jack = np.array([(x.sum() - x[i]) / (n - 1) for i in range(n)])  # theta_(i)
    d = jack.mean() - jack
    a = float((d**3).sum() / (6 * (d**2).sum() ** 1.5))  # eq. 14.15
    bounds = []
    for q in ((1 - level) / 2, (1 + level) / 2):
        z = normal.inv_cdf(q)
        bounds.append(normal.cdf(z0 + (z0 + z) / (1 - a * (z0 + z))))  # eq. 14.10
    lo, hi = np.quantile(means, bounds)
    return float(lo), float(hi)


@pytest.fixture
def skewed() -> dict[str, np.ndarray]:
    """Per-topic values as a measure gives them: many near 0, a few near 1 (distinct)."""
    rng = np.random.default_rng(5)
    return {"bm25": rng.beta(0.6, 2.5, 40), "sections": rng.beta(1.5, 1.5, 25)}


@pytest.mark.parametrize("level", [0.95, 0.9])
def test_percentile_interval_is_the_bootstrap_by_hand(skewed, level: float) -> None:
    got = intervals(frame(skewed), "AP", method="percentile", confidence=level, samples=B,
                    seed=3)
    for row in got.itertuples():
        x = skewed[row.run]
        assert row.mean == pytest.approx(x.mean(), abs=1e-15)
        assert (row.ci_low, row.ci_high) == pytest.approx(percentile_by_hand(x, level, 3),
                                                          abs=1e-12)
        assert (row.n_topics, row.method, row.confidence) == (len(x), "percentile", level)


@pytest.mark.parametrize("level", [0.95, 0.9])
def test_bca_interval_is_efron_and_tibshirani_by_hand(skewed, level: float) -> None:
    got = intervals(frame(skewed), "AP", method="bca", confidence=level, samples=B, seed=11)
    for row in got.itertuples():
        x = skewed[row.run]
        assert (row.ci_low, row.ci_high) == pytest.approx(bca_by_hand(x, level, 11),
                                                          abs=1e-12)
        # BCa moves the interval with the skew: not the percentile interval
        assert (row.ci_low, row.ci_high) != pytest.approx(percentile_by_hand(x, level, 11),
                                                          abs=1e-6)


def test_a_run_interval_depends_on_the_seed_alone(skewed) -> None:
    both = intervals(frame(skewed), "AP", samples=B, seed=2)
    alone = intervals(frame({"sections": skewed["sections"]}), "AP", samples=B, seed=2)
    pd.testing.assert_frame_equal(both[both.run == "sections"].reset_index(drop=True), alone)
    other = intervals(frame(skewed), "AP", samples=B, seed=3)
    assert not np.allclose(both.ci_low, other.ci_low)


def test_degenerate_values_give_the_mean_and_none_gives_no_interval() -> None:
    got = intervals(frame({"flat": [0.25] * 6, "one": [0.75]}), "AP")
    assert got[["run", "mean", "ci_low", "ci_high"]].values.tolist() == \
        [["flat", 0.25, 0.25, 0.25], ["one", 0.75, 0.75, 0.75]]
    none = intervals(frame({"a": [0.1, 0.5, 0.9]}), "AP", method="none")
    assert none["mean"].tolist() == pytest.approx([0.5]) and none["ci_low"].isna().all()


def test_bad_requests_are_usage_errors() -> None:
    df = frame({"a": [0.1, 0.5]})
    for kwargs, match in (({"method": "basic"}, "unknown confidence interval 'basic'"),
                          ({"confidence": 1.0}, "confidence must be in"),
                          ({"samples": 0}, "samples must be"),
                          ({"runs": ["b"]}, "run 'b' is not in the results")):
        with pytest.raises(UsageError, match=match):
            intervals(df, "AP", **kwargs)
    with pytest.raises(UsageError, match="'P@5' is not in the results"):
        intervals(df, "P@5")


def exact_bca(x: np.ndarray, level: float, seed: int, samples: int) -> tuple[float, float]:
    """BCa as :func:`bca_by_hand`, with every mean an exact fraction, so that
    resamples holding the same topics tie exactly with the mean (counted
    half below it, as scipy counts ties)."""
    from fractions import Fraction

    normal = NormalDist()
    exact = [Fraction(float(v)) for v in x]
    n = len(x)
    idx = np.random.default_rng(seed).integers(0, n, (samples, n))
    sums = [sum((exact[i] for i in row), Fraction(0)) for row in idx.tolist()]
    theta = sum(exact, Fraction(0))
    below = sum(1 for s in sums if s < theta) + sum(1 for s in sums if s == theta) / 2
    z0 = normal.inv_cdf(below / samples)
    jack = np.array([float((theta - e) / (n - 1)) for e in exact])
    d = jack.mean() - jack
    a = float((d**3).sum() / (6 * (d**2).sum() ** 1.5))
    means = np.array([float(s / n) for s in sums])
    bounds = [normal.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))
              for z in (normal.inv_cdf((1 - level) / 2), normal.inv_cdf((1 + level) / 2))]
    lo, hi = np.quantile(means, bounds)
    return float(lo), float(hi)


def test_few_topics_tie_with_the_mean_exactly_on_every_machine() -> None:
    # PRUM per topic of docs/python.md's run: 5 topics, so about 4% of the
    # resamples hold each topic once; summed in floats, their means fell on
    # either side of the mean by a unit in the last place, depending on the
    # CPU, and BCa's interval moved from [0.1171, 0.2765] to [0.1247, 0.3042]
    x = np.array([0.3475708100562095, 0.16988305020755506, 0.13068791809044872,
                  0.07757554434392101, 0.16883654894604894])
    got = intervals(frame({"bm25": x}), "AP", seed=0)
    want = exact_bca(x, 0.95, 0, 10_000)
    assert (got.ci_low[0], got.ci_high[0]) == pytest.approx(want, abs=1e-9)
