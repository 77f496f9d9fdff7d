"""Paired significance tests (graphprum.significance) against independent computations."""

from __future__ import annotations

import io
import itertools
import json
import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from graphprum.errors import UsageError
from graphprum.significance import adjust, bootstrap_p, compare, sign_flip_p, write_comparison


def frame(values: dict[str, list[float]], measure: str = "AP") -> pd.DataFrame:
    rows = [(run, measure, f"q{i}", float(v)) for run, vals in values.items()
            for i, v in enumerate(vals)]
    for run, vals in values.items():
        rows.append((run, measure, "all", float(np.mean(vals))))
    return pd.DataFrame(rows, columns=["run", "measure", "topic", "value"])


def enumerate_sign_flip(d: list[float]) -> float:
    """Every sign vector, one by one, in plain Python."""
    obs = abs(sum(d))
    hits = total = 0
    for signs in itertools.product((1, -1), repeat=len(d)):
        s = sum(si * di for si, di in zip(signs, d, strict=True))
        hits += abs(s) >= obs - 1e-12
        total += 1
    return hits / total


def integer_sign_flip(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Counts of each value of sum(s_i * d_i) over all sign vectors, by convolution."""
    d = np.abs(d.astype(np.int64))
    total = int(d.sum())
    counts = np.zeros(2 * total + 1, dtype=object)  # exact big integers
    counts[total] = 1
    for di in d:
        nxt = np.zeros_like(counts)
        if di == 0:
            nxt = counts * 2
        else:
            nxt[di:] += counts[:len(counts) - di]
            nxt[:len(counts) - di] += counts[di:]
        counts = nxt
    return counts, np.arange(-total, total + 1)


def test_t_test_matches_scipy() -> None:
    rng = np.random.default_rng(1)
    a = rng.uniform(0, 1, 30)
    b = np.clip(a - 0.05 + rng.normal(0, 0.1, 30), 0, 1)
    res = compare(frame({"A": a, "B": b}), "AP", test="t", correction="none")
    ref = scipy.stats.ttest_rel(a, b)
    row = res.iloc[0]
    assert row.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert row.p_value == pytest.approx(ref.pvalue, rel=1e-12)
    assert row.p_adjusted == row.p_value
    assert row["diff"] == pytest.approx(np.mean(a - b))
    d = a - b
    assert row.effect_size == pytest.approx(d.mean() / d.std(ddof=1))
    # the t confidence interval written out by hand
    half = scipy.stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / math.sqrt(len(d))
    assert (row.ci_low, row.ci_high) == pytest.approx((d.mean() - half, d.mean() + half))
    assert row.wins == int((d > 0).sum()) and row.losses == int((d < 0).sum())
    assert row.n_topics == 30


def test_t_test_constant_differences() -> None:
    res = compare(frame({"A": [0.5, 0.5, 0.5], "B": [0.5, 0.5, 0.5]}), "AP", test="t")
    assert res.iloc[0].p_value == 1.0 and res.iloc[0].effect_size == 0.0
    assert res.iloc[0].ties == 3
    # sd(d) = 0: t = mean / 0 (scipy: inf, p 0), which rests on an estimated variance of 0;
    # undefined here (module notes), as scipy's p is on one topic
    res = compare(frame({"A": [0.6, 0.7, 0.8], "B": [0.5, 0.6, 0.7]}), "AP", test="t")
    assert math.isnan(res.iloc[0].p_value) and res.iloc[0].effect_size == math.inf


# the differences: one topic; equal non-zero; equal and 0
FEW = [([1.0], [0.5]), ([1.0, 1.0, 1.0], [0.5, 0.5, 0.5]), ([0.6, 0.7, 0.8], [0.5, 0.6, 0.7]),
       ([0.3], [0.3]), ([0.2, 0.4], [0.2, 0.4])]


@pytest.mark.parametrize(("a", "b"), FEW)
def test_no_spread_leaves_t_and_bootstrap_undefined_and_randomization_exact(a, b) -> None:
    """On one topic or equal differences, the t and bootstrap tests have no spread to test
    with (before: bootstrap p = 1/(B+1), 'significant' from one topic; t p = 0 on equal
    differences); the randomization test's exact p is 2 / 2^n, by enumeration."""
    d = (np.array(a) - np.array(b)).tolist()
    zero = all(abs(x) < 1e-12 for x in d)
    if len(a) == 1:  # scipy's t test on one topic: no p-value either
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert math.isnan(scipy.stats.ttest_rel(a, b).pvalue)
    for test in ("t", "bootstrap"):
        notes: list[str] = []
        row = compare(frame({"A": a, "B": b}), "AP", test=test, samples=500,
                      warn=notes.append).iloc[0]
        assert not row.significant
        if zero:  # the runs agree on every topic: p = 1 whatever the test
            assert row.p_value == 1.0 and not notes
        else:
            assert math.isnan(row.p_value) and math.isnan(row.p_adjusted)
            assert len(notes) == 1 and f"{test} test is undefined" in notes[0]
            assert "AP" in notes[0] and "randomization" in notes[0]
    row = compare(frame({"A": a, "B": b}), "AP", test="randomization").iloc[0]
    assert row.p_value == pytest.approx(enumerate_sign_flip(d)) and row.exact
    assert row.p_value == (1.0 if zero else 2 / 2 ** len(d))


def test_an_undefined_test_is_left_out_of_the_correction() -> None:
    """Holm over the pairs with a p-value, as R's p.adjust does with NA."""
    rng = np.random.default_rng(3)
    base = rng.uniform(0.2, 0.6, 6)
    df = frame({"base": base, "up": base + 0.1, "noisy": base + rng.normal(0.1, 0.05, 6),
                "other": base + rng.normal(0.05, 0.1, 6)})
    res = compare(df, "AP", test="t", baseline="base").set_index("run_a")
    assert math.isnan(res.loc["up", "p_value"]) and math.isnan(res.loc["up", "p_adjusted"])
    raw = [res.loc[r, "p_value"] for r in ("noisy", "other")]
    ref = [scipy.stats.ttest_rel(df[(df.run == r) & (df.topic != "all")].value,
                                 base).pvalue for r in ("noisy", "other")]
    assert raw == pytest.approx(ref, rel=1e-12)
    assert [res.loc[r, "p_adjusted"] for r in ("noisy", "other")] == pytest.approx(
        holm_by_definition(raw))
    p = adjust(np.array([0.01, np.nan, 0.04, 0.02]), "bonferroni")
    assert math.isnan(p[1]) and p[[0, 2, 3]].tolist() == pytest.approx([0.03, 0.12, 0.06])


@pytest.mark.parametrize("n", [1, 5, 10, 12])
def test_randomization_exact_equals_enumeration(n: int) -> None:
    rng = np.random.default_rng(n)
    a = rng.uniform(0, 1, n)
    b = rng.uniform(0, 1, n)
    res = compare(frame({"A": a, "B": b}), "AP", test="randomization")
    assert bool(res.iloc[0].exact)
    assert res.iloc[0].p_value == pytest.approx(enumerate_sign_flip(list(a - b)), abs=1e-15)


def test_randomization_matches_scipy_permutation_test() -> None:
    rng = np.random.default_rng(7)
    a = rng.uniform(0, 1, 9)
    b = rng.uniform(0, 1, 9)
    ref = scipy.stats.permutation_test(
        (a, b), lambda x, y: np.mean(x - y), permutation_type="samples",
        n_resamples=np.inf, alternative="two-sided")
    p, exact = sign_flip_p(a - b)
    assert exact and p == pytest.approx(ref.pvalue, rel=1e-12)


def test_randomization_with_ties_in_the_null_distribution() -> None:
    # d = (1, 1, 1, 1): sums +-4 twice of 16 -> p = 2/16; d = (1,1,0,0): sums +-2 -> 8/16
    assert sign_flip_p(np.array([0.1, 0.1, 0.1, 0.1])) == (0.125, True)
    assert sign_flip_p(np.array([0.1, 0.1, 0.0, 0.0])) == (0.5, True)
    assert sign_flip_p(np.zeros(5)) == (1.0, True)


def _exact_integer_p(d: np.ndarray) -> float:
    counts, sums = integer_sign_flip(d)
    obs = abs(int(d.sum()))
    return float(counts[np.abs(sums) >= obs].sum() / counts.sum())


def test_randomization_exact_at_17_topics_and_monte_carlo_beyond() -> None:
    rng = np.random.default_rng(3)
    d17 = rng.integers(-3, 6, 17)
    p, exact = sign_flip_p(d17 / 10.0)
    assert exact and p == pytest.approx(_exact_integer_p(d17), abs=1e-15)
    # 24 topics: 2**24 > default permutations -> Monte Carlo, seeded
    d24 = rng.integers(-4, 6, 24)
    p_mc, exact = sign_flip_p(d24 / 10.0, rng=np.random.default_rng(0))
    assert not exact
    truth = _exact_integer_p(d24)
    se = math.sqrt(truth * (1 - truth) / 2**17)
    assert abs(p_mc - truth) < 5 * se + 1e-5
    # fixed seed: compare() is reproducible, other seeds give other estimates
    df = frame({"A": d24 / 10.0, "B": np.zeros(24)})
    p1 = compare(df, "AP", test="randomization", seed=5).iloc[0].p_value
    p2 = compare(df, "AP", test="randomization", seed=5).iloc[0].p_value
    assert p1 == p2
    # fewer permutations: still Monte Carlo with (hits + 1) / (B + 1)
    p_small = compare(df, "AP", test="randomization", permutations=99).iloc[0].p_value
    assert (p_small * 100) == pytest.approx(round(p_small * 100))


def test_bootstrap_against_independent_simulation() -> None:
    rng = np.random.default_rng(11)
    d = rng.normal(0.03, 0.1, 25)
    p, (lo, hi) = bootstrap_p(d, samples=20000, rng=np.random.default_rng(1))
    # independent: resample topic by topic with the standard library RNG
    import random

    r = random.Random(5)
    centred = d - d.mean()
    hits = 0
    boots = []
    trials = 4000
    for _ in range(trials):
        idx = [r.randrange(len(d)) for _ in range(len(d))]
        hits += abs(sum(centred[i] for i in idx) / len(d)) >= abs(d.mean())
        boots.append(sum(d[i] for i in idx) / len(d))
    p_ref = hits / trials
    assert abs(p - p_ref) < 5 * math.sqrt(p_ref * (1 - p_ref) / trials) + 0.005
    lo_ref, hi_ref = np.quantile(boots, [0.025, 0.975])
    sd = d.std() / math.sqrt(len(d))
    assert abs(lo - lo_ref) < 0.25 * sd and abs(hi - hi_ref) < 0.25 * sd
    # and close to the normal-theory interval
    assert lo == pytest.approx(d.mean() - 1.96 * sd, abs=0.3 * sd)


def test_bootstrap_in_compare_detects_clear_difference() -> None:
    a = np.linspace(0.3, 0.9, 20)
    res = compare(frame({"A": a, "B": a - 0.1 - 0.01 * np.sin(np.arange(20))}), "AP",
                  test="bootstrap", samples=2000)
    row = res.iloc[0]
    assert row.p_value == pytest.approx(1 / 2001) and row.significant
    assert row.ci_low < row["diff"] < row.ci_high and not row.exact


def holm_by_definition(p: list[float]) -> list[float]:
    """Holm adjusted p_(i) = max_{j <= i} min(1, (m - j + 1) p_(j)), from the definition."""
    m = len(p)
    ranked = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    for pos, i in enumerate(ranked):
        out[i] = max(min(1.0, (m - j) * p[ranked[j]]) for j in range(pos + 1))
    return out


def test_holm_and_bonferroni() -> None:
    rng = np.random.default_rng(2)
    for _ in range(50):
        p = rng.uniform(0, 0.3, rng.integers(1, 8)).tolist()
        assert adjust(np.array(p), "holm").tolist() == pytest.approx(holm_by_definition(p))
        assert adjust(np.array(p), "bonferroni").tolist() == pytest.approx(
            [min(1.0, x * len(p)) for x in p])
        assert adjust(np.array(p), "none").tolist() == p


def test_pairs_baseline_and_correction() -> None:
    rng = np.random.default_rng(4)
    base = rng.uniform(0.2, 0.6, 15)
    # good: not base + 0.2 exactly, where the t test is undefined (sd of the differences 0)
    good = base + 0.2 + np.linspace(-0.01, 0.01, 15)
    df = frame({"base": base, "good": good, "same": base + rng.normal(0, 0.01, 15),
                "other": rng.uniform(0, 1, 15)})
    allpairs = compare(df, "AP", test="t", correction="bonferroni")
    assert list(zip(allpairs.run_a, allpairs.run_b, strict=True)) == [
        ("base", "good"), ("base", "same"), ("base", "other"), ("good", "same"),
        ("good", "other"), ("same", "other")]
    assert np.allclose(allpairs.p_adjusted, np.minimum(allpairs.p_value * 6, 1))
    vs = compare(df, "AP", test="t", baseline="base")
    assert list(vs.run_a) == ["good", "same", "other"] and set(vs.run_b) == {"base"}
    assert vs.set_index("run_a").loc["good", "significant"]
    assert vs.set_index("run_a").loc["good", "diff"] == pytest.approx(0.2)
    sub = compare(df, "AP", runs=["good", "base"])
    assert list(zip(sub.run_a, sub.run_b, strict=True)) == [("good", "base")]


def test_missing_topics_use_shared_ones_and_warn() -> None:
    df = frame({"A": [0.1, 0.2, 0.3, 0.4], "B": [0.0, 0.1, 0.2, 0.3]})
    df = df[~((df.run == "B") & (df.topic == "q3"))]
    notes: list[str] = []
    res = compare(df, "AP", warn=notes.append)
    assert res.iloc[0].n_topics == 3 and res.iloc[0].mean_a == pytest.approx(0.2)
    assert notes and "3 shared topics of 4" in notes[0]


def test_bad_requests_are_usage_errors() -> None:
    df = frame({"A": [0.1, 0.2], "B": [0.2, 0.3]})
    with pytest.raises(UsageError, match="measure 'P@10' is not in the results"):
        compare(df, "P@10")
    with pytest.raises(UsageError, match="unknown test"):
        compare(df, "AP", test="wilcoxon")
    with pytest.raises(UsageError, match="unknown correction"):
        compare(df, "AP", correction="bh")
    with pytest.raises(UsageError, match="run 'C' is not in the results"):
        compare(df, "AP", baseline="C")
    with pytest.raises(UsageError, match="at least two runs"):
        compare(frame({"A": [0.1, 0.2]}), "AP")
    with pytest.raises(UsageError, match="per-topic"):
        compare(df[df.topic == "all"], "AP")


def test_comparison_formats_round_trip() -> None:
    rng = np.random.default_rng(9)
    df = frame({"A": rng.uniform(0, 1, 12), "B": rng.uniform(0, 1, 12),
                "C": rng.uniform(0, 1, 12)})
    res = compare(df, "AP", test="randomization")
    numeric = ["mean_a", "mean_b", "diff", "statistic", "p_value", "p_adjusted", "effect_size"]
    for fmt, read in (("tsv", lambda s: pd.read_csv(io.StringIO(s), sep="\t")),
                      ("csv", lambda s: pd.read_csv(io.StringIO(s))),
                      ("json", lambda s: pd.DataFrame(json.loads(s)))):
        out = io.StringIO()
        write_comparison(res, fmt, out)
        back = read(out.getvalue())
        assert list(back.columns) == list(res.columns)
        for c in numeric:
            assert back[c].tolist() == res[c].tolist(), (fmt, c)  # exact: full precision
        assert back["significant"].tolist() == res["significant"].tolist()
        assert back["run_a"].tolist() == res["run_a"].tolist()
    # the CI of a randomization test is NaN: JSON has null there, never NaN
    out = io.StringIO()
    write_comparison(res, "json", out)
    assert "NaN" not in out.getvalue() and json.loads(out.getvalue())[0]["ci_low"] is None


def test_comparison_table_marks_significance() -> None:
    a = np.linspace(0.2, 0.8, 12)
    res = compare(frame({"A": a + 0.2, "B": a, "C": a + np.tile([0.01, -0.01], 6)}), "AP",
                  test="randomization", baseline="B")
    out = io.StringIO()
    write_comparison(res, "markdown", out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("| measure | run A | run B |")
    # A vs B: 12 wins of 12, exact p = 2 / 4096, Holm x 2; `*` escaped for markdown
    assert lines[2].endswith("| 12/0/0 | 0.0005 | **0.0010\\*** |")
    assert lines[3].endswith("0 |") and "*" not in lines[3]  # C vs B: not significant
    out = io.StringIO()
    write_comparison(res, "table", out)
    assert "p adj. < 0.05" in out.getvalue()


def test_the_comparison_table_ends_with_its_last_column() -> None:
    """No empty column after p adj. (issue 41): the header's last cell is
    'p adj.', and no line ends in a column rule."""
    a = np.linspace(0.2, 0.8, 12)
    res = compare(frame({"A": a + 0.2, "B": a}), "AP")
    for fmt in ("table", "markdown", "latex"):
        out = io.StringIO()
        write_comparison(res, fmt, out)
        text = out.getvalue()
        assert all(not line.rstrip().endswith(("┃", "│", "| |", "&")) for line in
                   text.splitlines()), text
    header = text.splitlines()[2]
    assert header.endswith(r"p adj. \\"), header


@pytest.mark.parametrize(("measure", "a_wins"), [("AP", [1]), ("ESL(tau=5)", [0, 2, 3])])
def test_a_win_is_a_better_value_in_the_measures_direction(measure, a_wins) -> None:
    """Wins of run A are topics where A is better: higher AP, lower ESL
    (before, 'A is higher' counted as a win for ESL too)."""
    a, b = [1.0, 4.0, 2.0, 6.0], [3.0, 2.0, 5.0, 7.0]
    row = compare(frame({"A": a, "B": b}, measure), measure, test="t", correction="none").iloc[0]
    assert (row.wins, row.losses, row.ties) == (len(a_wins), 4 - len(a_wins), 0)
    better = [i for i in range(4) if (a[i] > b[i]) == (measure == "AP")]
    assert better == a_wins


def test_the_reports_summary_marks_the_best_mean_in_the_measures_direction() -> None:
    """The HTML report bolds the lowest ESL, the highest AP, and no count."""
    from graphprum.html_report import summary_table

    df = pd.concat([frame({"A": [1.0, 2.0], "B": [3.0, 5.0]}, "ESL(tau=5)"),
                    frame({"A": [0.5, 0.7], "B": [0.1, 0.2]}, "AP"),
                    frame({"A": [9.0, 9.0], "B": [8.0, 9.0]}, "num_ret")])
    html = summary_table(df)
    cells = re.findall(r'<td class="([^"]*)"[^>]*>([^<]*)<', html)
    best = [v for c, v in cells if "best" in c]
    assert best == ["1.5000", "0.6000"], cells
