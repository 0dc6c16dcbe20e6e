"""Tests of the statistics layer: bootstrap, paired tests, effect sizes, corrections, comparison.

Each statistic is checked against scipy on the same numbers or against a hand computation;
never against itself.
"""

import statistics

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sklearn_ltr_metrics import (
    adjust_pvalues,
    bootstrap_ci,
    cohens_d,
    compare_systems,
    effect_size_label,
    paired_test,
    paired_test_names,
)
from sklearn_ltr_metrics.stats._compare import COMPARISON_COLUMNS


def _mean_diff(x, y, axis=-1):
    return np.mean(x - y, axis=axis)


@pytest.fixture
def values():
    return np.random.default_rng(0).beta(2, 3, size=300)


@pytest.fixture
def pair():
    rng = np.random.default_rng(1)
    a = rng.uniform(0, 1, 12)
    b = np.clip(a - rng.normal(0.08, 0.15, 12), 0, 1)
    return a, b


# ----------------------------------------------------------------------------- bootstrap


def test_bootstrap_percentile_agrees_with_scipy(values):
    low, high = bootstrap_ci(values, n_resamples=5000, random_state=0)
    ref = stats.bootstrap((values,), np.mean, method="percentile", n_resamples=5000, rng=0)
    # Monte-Carlo tolerance: the interval is about 0.05 wide.
    assert low == pytest.approx(ref.confidence_interval.low, abs=0.003)
    assert high == pytest.approx(ref.confidence_interval.high, abs=0.003)


def test_bootstrap_bca_agrees_with_scipy():
    skewed = np.random.default_rng(3).exponential(0.2, size=150)
    low, high = bootstrap_ci(skewed, n_resamples=5000, method="bca", random_state=0)
    ref = stats.bootstrap((skewed,), np.mean, method="BCa", n_resamples=5000, rng=0)
    assert low == pytest.approx(ref.confidence_interval.low, abs=0.004)
    assert high == pytest.approx(ref.confidence_interval.high, abs=0.004)
    # BCa moves the interval of a right-skewed mean to the right of the percentile one.
    _, phigh = bootstrap_ci(skewed, n_resamples=5000, random_state=0)
    assert high > phigh


def test_bootstrap_confidence_level_widens(values):
    narrow = bootstrap_ci(values, confidence_level=0.5, random_state=0)
    wide = bootstrap_ci(values, confidence_level=0.99, random_state=0)
    assert wide[0] < narrow[0] < narrow[1] < wide[1]


def test_bootstrap_is_quantiles_of_query_resample_means():
    # The exact algorithm: resample query indices with replacement, average, take quantiles.
    x = np.array([0.1, 0.4, 0.35, 0.8, 0.0, 1.0, 0.55])
    low, high = bootstrap_ci(x, n_resamples=300, random_state=7)
    idx = np.random.default_rng(7).integers(0, x.size, size=(300, x.size))
    expected = np.quantile(x[idx].mean(axis=1), [0.025, 0.975])
    np.testing.assert_allclose((low, high), expected, rtol=1e-12)


def test_bootstrap_weighted_resamples_queries_not_weight_units():
    # Two queries, weights 1 and 3: a resample holds query 0 twice, query 1 twice or both, so
    # the weighted mean is 0, 1 or 0.75. Replicating rows (0, 1, 1, 1) would give other values.
    low, high = bootstrap_ci(
        [0.0, 1.0], weights=[1, 3], n_resamples=2000, confidence_level=0.5, random_state=0
    )
    assert {low, high} <= {0.0, 0.75, 1.0}
    # A heavy query is one query: its CI is wider than the one of its value repeated as rows.
    rng = np.random.default_rng(5)
    x = rng.uniform(size=20)
    w = np.ones(20)
    w[0] = 100
    by_query = bootstrap_ci(x, weights=w, random_state=0)
    by_rows = bootstrap_ci(np.repeat(x, w.astype(int)), random_state=0)
    assert by_query[1] - by_query[0] > 2 * (by_rows[1] - by_rows[0])


def test_bootstrap_weighted_mean_interval_contains_weighted_mean():
    rng = np.random.default_rng(2)
    x = rng.uniform(size=200)
    w = rng.integers(1, 50, size=200)
    low, high = bootstrap_ci(x, weights=w, random_state=0)
    assert low < np.average(x, weights=w) < high
    # Unit weights are the macro mean.
    assert bootstrap_ci(x, weights=np.ones(200), random_state=0) == pytest.approx(
        bootstrap_ci(x, random_state=0), abs=1e-12
    )


def test_bootstrap_reproducible_and_seed_dependent(values):
    first = bootstrap_ci(values, random_state=42)
    assert bootstrap_ci(values, random_state=42) == first
    assert bootstrap_ci(values, random_state=np.random.default_rng(42)) == first
    assert bootstrap_ci(values, random_state=43) != first


def test_bootstrap_drops_nan_with_weights_and_does_not_mutate():
    x = np.array([0.2, np.nan, 0.5, 0.9, 0.4, np.nan, 0.7])
    w = np.array([1.0, 5.0, 2.0, 3.0, 1.0, 9.0, 4.0])
    x_copy, w_copy = x.copy(), w.copy()
    keep = ~np.isnan(x)
    got = bootstrap_ci(x, weights=w, random_state=0)
    assert got == bootstrap_ci(x[keep], weights=w[keep], random_state=0)
    np.testing.assert_array_equal(x, x_copy)
    np.testing.assert_array_equal(w, w_copy)
    series = pd.Series(x, index=list("abcdefg"))
    assert bootstrap_ci(series, weights=w, random_state=0) == got


def test_bootstrap_constant_values_zero_width():
    assert bootstrap_ci([0.3] * 50, random_state=0) == (0.3, 0.3)
    assert bootstrap_ci([0.3, 0.3], method="bca") == (0.3, 0.3)


@pytest.mark.parametrize("data", [[0.5], [np.nan, np.nan], [0.1, np.nan], []])
def test_bootstrap_fewer_than_two_values_warns_nan(data):
    with pytest.warns(RuntimeWarning, match="at least 2"):
        low, high = bootstrap_ci(data)
    assert np.isnan(low) and np.isnan(high)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n_resamples": 0}, ValueError, "n_resamples"),
        ({"n_resamples": 10.5}, TypeError, "n_resamples"),
        ({"confidence_level": 1.0}, ValueError, "confidence_level"),
        ({"confidence_level": 0}, ValueError, "confidence_level"),
        ({"confidence_level": "95%"}, TypeError, "confidence_level"),
        ({"method": "basic"}, ValueError, "method"),
        ({"random_state": "seed"}, TypeError, "random_state"),
        ({"random_state": -1}, ValueError, "random_state"),
        ({"weights": [1, 2]}, ValueError, "weights"),
        ({"weights": [1, -2, 1]}, ValueError, "weights"),
        ({"weights": [0, 0, 0]}, ValueError, "weights sum to 0"),
    ],
)
def test_bootstrap_bad_parameters(kwargs, error, match):
    with pytest.raises(error, match=match):
        bootstrap_ci([0.1, 0.2, 0.3], **kwargs)


def test_bootstrap_bad_values():
    with pytest.raises(ValueError, match="infinite"):
        bootstrap_ci([0.1, np.inf, 0.3])
    with pytest.raises(TypeError, match="values"):
        bootstrap_ci(0.5)
    with pytest.raises(ValueError, match="1-D"):
        bootstrap_ci(np.ones((3, 3)))


# ----------------------------------------------------------------------------- paired tests


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_permutation_exact_matches_scipy(pair, alternative):
    a, b = pair
    got = paired_test(a, b, alternative=alternative)
    ref = stats.permutation_test(
        (a, b),
        _mean_diff,
        permutation_type="samples",
        alternative=alternative,
        vectorized=True,
        n_resamples=np.inf,
    )
    assert got.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert got.pvalue == ref.pvalue  # exact enumeration of 2**12 flips: same count
    assert got.n == 12 and got.test == "permutation" and got.alternative == alternative


def test_permutation_exact_ignores_seed(pair):
    a, b = pair
    assert paired_test(a, b, random_state=0) == paired_test(a, b, random_state=1)


def test_permutation_monte_carlo_close_to_scipy_and_seeded():
    rng = np.random.default_rng(4)
    a = rng.uniform(size=60)
    b = np.clip(a - rng.normal(0.03, 0.12, size=60), 0, 1)
    got = paired_test(a, b, n_resamples=20000, random_state=0)
    ref = stats.permutation_test(
        (a, b),
        _mean_diff,
        permutation_type="samples",
        vectorized=True,
        n_resamples=20000,
        rng=0,
    )
    assert got.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert got.pvalue == pytest.approx(ref.pvalue, abs=0.01)
    assert paired_test(a, b, n_resamples=2000, random_state=3) == paired_test(
        a, b, n_resamples=2000, random_state=3
    )
    assert (
        paired_test(a, b, n_resamples=2000, random_state=3).pvalue
        != paired_test(a, b, n_resamples=2000, random_state=4).pvalue
    )
    # The Monte-Carlo p-value is never 0: (count + 1) / (n_resamples + 1).
    far = paired_test(a + 1, a, n_resamples=99, random_state=0)
    assert far.pvalue == pytest.approx(2 / 100)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_sign_test_matches_binomtest(alternative):
    a = np.array([0.5, 0.6, 0.7, 0.2, 0.9, 0.4, 0.3, 0.8, 0.6, 0.5])
    b = np.array([0.4, 0.6, 0.5, 0.3, 0.1, 0.4, 0.2, 0.7, 0.5, 0.2])
    got = paired_test(a, b, test="sign", alternative=alternative)
    # 7 wins, 1 loss, 2 ties (dropped)
    assert (got.wins, got.ties, got.losses) == (7, 2, 1)
    assert got.statistic == 7
    assert got.pvalue == stats.binomtest(7, 8, 0.5, alternative=alternative).pvalue


@pytest.mark.parametrize(
    ("alternative", "with_zeros"),
    [
        *((alt, False) for alt in ("two-sided", "greater", "less")),
        ("two-sided", True),
        # With zero differences scipy's wilcoxon runs a permutation test (about 1 s a call).
        *(pytest.param(alt, True, marks=pytest.mark.slow) for alt in ("greater", "less")),
    ],
)
def test_wilcoxon_and_t_match_scipy(pair, alternative, with_zeros):
    a, b = pair
    if with_zeros:
        b = b.copy()
        b[:3] = a[:3]
    got = paired_test(a, b, test="wilcoxon", alternative=alternative)
    ref = stats.wilcoxon(a, b, alternative=alternative)
    assert (got.statistic, got.pvalue) == (ref.statistic, ref.pvalue)
    got = paired_test(a, b, test="t", alternative=alternative)
    ref = stats.ttest_rel(a, b, alternative=alternative)
    assert (got.statistic, got.pvalue) == (ref.statistic, ref.pvalue)


@pytest.mark.parametrize("test", ["permutation", "sign", "wilcoxon", "t"])
def test_all_zero_differences_give_pvalue_one(test):
    a = [0.2, 0.5, 0.5, 0.9]
    result = paired_test(a, list(a), test=test)
    assert result.pvalue == 1.0
    assert result.statistic == 0.0
    assert (result.wins, result.ties, result.losses) == (0, 4, 0)


@pytest.mark.parametrize("test", ["permutation", "sign", "wilcoxon", "t"])
def test_rounding_noise_counts_as_ties(test):
    a = np.array([0.2, 0.5, 0.5, 0.9, 0.0])
    noisy = a + np.array([1e-16, -2e-16, 0.0, 1e-13, -1e-16])
    result = paired_test(a, noisy, test=test)
    assert (result.pvalue, result.ties) == (1.0, 5)
    b = np.array([0.1, 0.5, 0.35, 0.62, 0.13])
    ref = paired_test(b, a, test=test)
    assert paired_test(b, noisy, test=test).pvalue == pytest.approx(ref.pvalue)


def test_t_test_constant_nonzero_differences():
    a = np.array([0.3, 0.5, 0.7])
    assert paired_test(a + 0.25, a, test="t").statistic == np.inf
    assert paired_test(a + 0.25, a, test="t").pvalue == 0.0
    assert paired_test(a + 0.25, a, test="t", alternative="less").pvalue == 1.0
    assert paired_test(a - 0.25, a, test="t", alternative="less").pvalue == 0.0


@pytest.mark.parametrize("test", ["permutation", "sign", "wilcoxon", "t"])
def test_paired_test_drops_nan_pairs(pair, test):
    a, b = pair
    a_nan, b_nan = a.copy(), b.copy()
    a_nan[0] = np.nan
    b_nan[5] = np.nan
    keep = np.ones(12, dtype=bool)
    keep[[0, 5]] = False
    got = paired_test(a_nan, b_nan, test=test, random_state=0)
    assert got.n == 10
    assert got == paired_test(a[keep], b[keep], test=test, random_state=0)
    assert np.isnan(a_nan[0])  # input untouched


def test_paired_test_aligns_series_on_index(pair):
    a, b = pair
    qids = [f"q{i}" for i in range(12)]
    sa = pd.Series(a, index=qids)
    sb = pd.Series(b, index=qids).iloc[::-1]  # same queries, another order
    assert paired_test(sa, sb) == paired_test(a, b)
    with pytest.raises(ValueError, match="same queries"):
        paired_test(sa, pd.Series(b, index=[f"x{i}" for i in range(12)]))


def test_paired_test_fewer_than_two_pairs_warns():
    with pytest.warns(RuntimeWarning, match="at least 2 pairs"):
        result = paired_test([0.1, np.nan], [0.2, 0.3])
    assert result.n == 1 and np.isnan(result.pvalue) and np.isnan(result.statistic)


def test_paired_test_bad_input():
    with pytest.raises(ValueError, match="permutation"):
        paired_test([1, 2], [1, 2], test="ttest")
    with pytest.raises(ValueError, match="alternative"):
        paired_test([1, 2], [1, 2], alternative="bigger")
    with pytest.raises(ValueError, match="has 3 and b has 2"):
        paired_test([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="n_resamples"):
        paired_test([1, 2], [1, 2], n_resamples=0)
    assert paired_test_names() == ["permutation", "sign", "t", "wilcoxon"]


# ----------------------------------------------------------------------------- effect sizes


def test_cohens_d_by_hand():
    a = [0.9, 0.8, 0.7, 0.9, 0.6, 0.8]
    b = [0.7, 0.8, 0.5, 0.6, 0.6, 0.5]
    pooled = ((statistics.variance(a) + statistics.variance(b)) / 2) ** 0.5
    assert cohens_d(a, b) == pytest.approx((statistics.mean(a) - statistics.mean(b)) / pooled)
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    assert cohens_d(a, b, paired=True) == pytest.approx(
        statistics.mean(diffs) / statistics.stdev(diffs)
    )
    assert cohens_d(b, a) == pytest.approx(-cohens_d(a, b))


def test_cohens_d_unequal_sizes_and_nan():
    a = [1.0, 2.0, 3.0, np.nan]
    b = [2.0, 4.0, 6.0, 8.0]
    pooled = ((2 * statistics.variance(a[:3]) + 3 * statistics.variance(b)) / 5) ** 0.5
    assert cohens_d(a, b) == pytest.approx((2.0 - 5.0) / pooled)
    # paired: the pair with a NaN is dropped
    diffs = [-1.0, -2.0, -3.0]
    assert cohens_d(a, b, paired=True) == pytest.approx(
        statistics.mean(diffs) / statistics.stdev(diffs)
    )


def test_cohens_d_zero_denominator():
    assert cohens_d([0.5, 0.5], [0.5, 0.5]) == 0.0
    assert cohens_d([0.7, 0.7], [0.5, 0.5]) == np.inf
    assert cohens_d([0.5, 0.5], [0.7, 0.7]) == -np.inf
    assert cohens_d([0.7, 0.8], [0.5, 0.6], paired=True) == np.inf


def test_cohens_d_bad_input():
    with pytest.warns(RuntimeWarning, match="at least 2"):
        assert np.isnan(cohens_d([0.5], [0.1, 0.2]))
    with pytest.raises(ValueError, match="has 3 and b has 2"):
        cohens_d([1, 2, 3], [1, 2], paired=True)
    with pytest.raises(TypeError, match="paired"):
        cohens_d([1, 2], [1, 2], paired="yes")


@pytest.mark.parametrize(
    ("d", "label"),
    [
        (0.0, "small"),
        (0.1999, "small"),
        (-0.2, "medium"),
        (0.4999, "medium"),
        (0.5, "large"),
        (-3.0, "large"),
        (np.inf, "large"),
        (np.nan, ""),
    ],
)
def test_effect_size_label(d, label):
    assert effect_size_label(d) == label


def test_effect_size_label_type():
    with pytest.raises(TypeError, match="d must be"):
        effect_size_label("large")


# ----------------------------------------------------------------------------- corrections


def test_holm_by_hand():
    p = [0.01, 0.04, 0.03, 0.005]
    # sorted: 0.005*4=0.02, 0.01*3=0.03, 0.03*2=0.06, 0.04*1=0.04 -> running max 0.06
    np.testing.assert_allclose(adjust_pvalues(p), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(adjust_pvalues([0.5, 0.4]), [0.8, 0.8])
    np.testing.assert_allclose(adjust_pvalues([0.6, 0.9]), [1.0, 1.0])


def test_bh_by_hand_and_scipy():
    p = np.array([0.01, 0.04, 0.03, 0.005, 0.2])
    # sorted: 0.005*5/1=0.025, 0.01*5/2=0.025, 0.03*5/3=0.05, 0.04*5/4=0.05, 0.2*5/5=0.2
    np.testing.assert_allclose(adjust_pvalues(p, method="bh"), [0.025, 0.05, 0.05, 0.025, 0.2])
    rng = np.random.default_rng(0)
    p = rng.uniform(size=40) ** 3
    np.testing.assert_allclose(adjust_pvalues(p, method="fdr_bh"), stats.false_discovery_control(p))


def test_adjust_pvalues_nan_none_and_errors():
    got = adjust_pvalues([0.01, np.nan, 0.04])
    np.testing.assert_allclose(got, [0.02, np.nan, 0.04])
    p = np.array([0.3, 0.1])
    np.testing.assert_array_equal(adjust_pvalues(p, method="none"), p)
    assert adjust_pvalues([]).shape == (0,)
    with pytest.raises(ValueError, match="sidak"):
        adjust_pvalues([0.1], method="sidak")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        adjust_pvalues([0.1, 1.5])


# ----------------------------------------------------------------------------- compare_systems


def _tables(n=30, seed=0):
    rng = np.random.default_rng(seed)
    qid = pd.Index(np.arange(100, 100 + n), name="qid")
    n_pos = rng.integers(1, 60, n)
    base = rng.uniform(0.1, 0.7, n)
    counts = {"n_docs": n_pos + 40, "n_pos": n_pos, "n_neg": np.full(n, 40)}

    def table(ndcg, ap):
        return pd.DataFrame({**counts, "ndcg@10": ndcg, "map": ap}, index=qid)

    return {
        "Random": table(base, base / 2),
        "LambdaMART": table(np.clip(base + rng.normal(0.15, 0.1, n), 0, 1), base / 2 + 0.01),
        "FeatureRanker": table(np.clip(base + rng.normal(0.0, 0.1, n), 0, 1), base / 2),
    }


def test_compare_systems_table():
    tables = _tables()
    got = compare_systems(tables, baseline="Random", test="t", random_state=0, n_bootstrap=200)
    assert list(got.columns) == list(COMPARISON_COLUMNS)
    assert list(got["metric"]) == ["ndcg@10"] * 3 + ["map"] * 3
    assert list(got["system"]) == ["Random", "LambdaMART", "FeatureRanker"] * 2
    for _, row in got.iterrows():
        x = tables[row.system][row.metric].to_numpy()
        base = tables["Random"][row.metric].to_numpy()
        assert row["mean"] == pytest.approx(x.mean())
        assert row.ci_low < row["mean"] < row.ci_high or row.ci_low == row.ci_high
        if row.system == "Random":
            assert (row["diff"], row.magnitude, row.wins, row.ties, row.losses) == (
                0.0,
                "",
                0,
                30,
                0,
            )
            assert np.isnan(row.pvalue) and np.isnan(row.effect_size)
            continue
        assert row["diff"] == pytest.approx((x - base).mean())
        ref = paired_test(x, base, test="t")
        assert row.pvalue == ref.pvalue
        assert row.effect_size == pytest.approx(cohens_d(x, base))
        assert row.magnitude == effect_size_label(row.effect_size)
        assert (row.wins, row.ties, row.losses) == (
            (x > base).sum(),
            (x == base).sum(),
            (x < base).sum(),
        )
    compared = got["system"] != "Random"
    np.testing.assert_allclose(
        got.loc[compared, "pvalue_corrected"], adjust_pvalues(got.loc[compared, "pvalue"])
    )
    # map of FeatureRanker equals the baseline on every query: p = 1, no effect
    row = got[(got.metric == "map") & (got.system == "FeatureRanker")].iloc[0]
    assert (row.pvalue, row.effect_size, row.ties) == (1.0, 0.0, 30)
    assert got.dtypes["wins"] == np.int64


def test_compare_systems_permutation_matches_paired_test():
    tables = _tables(n=14)  # 14 queries: exact permutation test, seed-free
    got = compare_systems(
        tables,
        baseline="Random",
        metrics="ndcg@10",
        correction="bh",
        n_bootstrap=100,
        random_state=0,
    )
    row = got[got.system == "LambdaMART"].iloc[0]
    ref = paired_test(tables["LambdaMART"]["ndcg@10"], tables["Random"]["ndcg@10"])
    assert row.pvalue == ref.pvalue and row["diff"] == pytest.approx(ref.statistic)


def test_compare_systems_deterministic():
    tables = _tables()
    kw = {"baseline": "Random", "n_resamples": 500, "n_bootstrap": 200}
    first = compare_systems(tables, random_state=0, **kw)
    pd.testing.assert_frame_equal(first, compare_systems(tables, random_state=0, **kw))
    other = compare_systems(tables, random_state=1, **kw)
    assert not np.allclose(first["ci_low"], other["ci_low"])


def test_compare_systems_pairs_by_qid_not_position():
    tables = _tables()
    shuffled = dict(tables)
    shuffled["LambdaMART"] = tables["LambdaMART"].sample(frac=1.0, random_state=0)
    kw = {"baseline": "Random", "test": "wilcoxon", "n_bootstrap": 100, "random_state": 0}
    pd.testing.assert_frame_equal(compare_systems(tables, **kw), compare_systems(shuffled, **kw))


def test_compare_systems_mismatch_and_intersect():
    tables = _tables()
    tables["LambdaMART"] = tables["LambdaMART"].iloc[3:]
    with pytest.raises(ValueError, match=r"'LambdaMART' has 0 queries not in 'Random' and lacks 3"):
        compare_systems(tables, baseline="Random")
    got = compare_systems(
        tables,
        baseline="Random",
        test="t",
        on_mismatch="intersect",
        n_bootstrap=100,
        random_state=0,
    )
    trimmed = {name: df.iloc[3:] for name, df in _tables().items()}
    expected = compare_systems(
        trimmed, baseline="Random", test="t", n_bootstrap=100, random_state=0
    )
    pd.testing.assert_frame_equal(got, expected)
    assert (got.loc[got.system == "Random", "ties"] == 27).all()


def test_compare_systems_cross_validation_tables():
    # Cross-validation tables: a fold column, qid as a column, the same qid in two folds.
    tables = _tables(n=20)
    cv = {}
    for name, df in tables.items():
        long = df.reset_index()
        long.insert(0, "fold", np.repeat([0, 1], 10))
        long["qid"] = np.tile(np.arange(10), 2)
        cv[name] = long
    got = compare_systems(cv, baseline="Random", test="t", n_bootstrap=100, random_state=0)
    plain = compare_systems(tables, baseline="Random", test="t", n_bootstrap=100, random_state=0)
    pd.testing.assert_frame_equal(got, plain)
    with pytest.raises(ValueError, match="fold column"):
        compare_systems(
            {"Random": cv["Random"], "LambdaMART": tables["LambdaMART"]}, baseline="Random"
        )


def test_compare_systems_nan_queries_are_skipped():
    tables = _tables()
    for df in tables.values():
        df.loc[df.index[:4], "ndcg@10"] = np.nan  # undefined for every system (n_pos = 0)
    got = compare_systems(
        tables, baseline="Random", metrics=["ndcg@10"], test="t", n_bootstrap=100, random_state=0
    )
    assert (got["wins"] + got["ties"] + got["losses"] == 26).all()
    x = tables["LambdaMART"]["ndcg@10"].to_numpy()[4:]
    base = tables["Random"]["ndcg@10"].to_numpy()[4:]
    row = got[got.system == "LambdaMART"].iloc[0]
    assert row.pvalue == stats.ttest_rel(x, base).pvalue
    assert row["mean"] == pytest.approx(x.mean())


def test_compare_systems_does_not_mutate():
    tables = _tables()
    before = {name: df.copy() for name, df in tables.items()}
    compare_systems(tables, baseline="Random", n_resamples=100, n_bootstrap=50, random_state=0)
    for name, df in tables.items():
        pd.testing.assert_frame_equal(df, before[name])


def test_compare_systems_all_nan_metric_warns():
    tables = _tables(n=5)
    for df in tables.values():
        df["map"] = np.nan
    with pytest.warns(RuntimeWarning, match="Fewer than 2 usable queries"):
        got = compare_systems(tables, baseline="Random", n_bootstrap=50, random_state=0)
    assert got.loc[got.metric == "map", "pvalue"].isna().all()
    assert got.loc[got.metric == "map", "pvalue_corrected"].isna().all()


def test_compare_systems_bad_input():
    tables = _tables(n=5)
    with pytest.raises(ValueError, match="LambdaMART"):
        compare_systems(tables, baseline="Lambdamart")
    with pytest.raises(TypeError, match="mapping"):
        compare_systems([tables["Random"]], baseline="Random")
    with pytest.raises(ValueError, match="'recall' is not a column"):
        compare_systems(tables, baseline="Random", metrics=["recall"])
    with pytest.raises(ValueError, match="on_mismatch"):
        compare_systems(tables, baseline="Random", on_mismatch="union")
    with pytest.raises(ValueError, match="correction"):
        compare_systems(tables, baseline="Random", correction="sidak")
    with pytest.raises(ValueError, match="n_bootstrap"):
        compare_systems(tables, baseline="Random", n_bootstrap=0)
    with pytest.raises(TypeError, match="DataFrame"):
        compare_systems({"Random": tables["Random"], "x": [1, 2]}, baseline="Random")
    dup = pd.concat([tables["Random"], tables["Random"].iloc[:1]])
    with pytest.raises(ValueError, match="duplicated query key"):
        compare_systems({"Random": dup}, baseline="Random")
