"""Tests of the summary of one system: means, strata, dispersion, difficulty, warning signs."""

import math
import statistics
from itertools import permutations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sklearn_ltr_metrics.stats import (
    bootstrap_ci,
    coefficient_of_variation,
    difficulty_correlation,
    summarize,
)


def _table():
    # 8 queries; n_pos on the stratum boundaries 10/11 and 50/51; one query without relevant
    # documents (recall undefined, precision defined).
    return pd.DataFrame(
        {
            "n_docs": [20, 30, 60, 70, 100, 120, 200, 10],
            "n_pos": [1, 10, 11, 50, 51, 5, 80, 0],
            "n_neg": [19, 20, 49, 20, 49, 115, 120, 10],
            "recall@10": [1.0, 0.4, 0.5, 0.2, 0.1, 0.0, 0.05, np.nan],
            "precision@10": [0.1, 0.4, 0.5, 1.0, 1.0, 0.0, 0.5, 0.0],
        },
        index=pd.Index([3, 5, 8, 13, 21, 34, 55, 89], name="qid"),
    )


def test_overall_by_hand():
    table = _table()
    summary = summarize(table, random_state=0, n_resamples=200)
    row = summary.overall.set_index("metric").loc["recall@10"]
    x = [1.0, 0.4, 0.5, 0.2, 0.1, 0.0, 0.05]
    w = [1, 10, 11, 50, 51, 5, 80]
    assert (row.n_queries, row.n_skipped) == (7, 1)
    assert row.macro == pytest.approx(statistics.mean(x))
    assert row.weighted == pytest.approx(sum(a * b for a, b in zip(x, w, strict=True)) / sum(w))
    # gMAP-style geometric mean: the 0.0 is floored at 1e-5
    assert row.geometric == pytest.approx(
        math.exp(statistics.mean(math.log(max(v, 1e-5)) for v in x))
    )
    assert row["std"] == pytest.approx(statistics.stdev(x))
    assert row.cv == pytest.approx(statistics.stdev(x) / statistics.mean(x))
    assert row.ci_low < row.macro < row.ci_high
    assert row.weighted_ci_low < row.weighted < row.weighted_ci_high
    assert list(summary.overall.columns) == [
        "metric", "n_queries", "n_skipped", "macro", "weighted", "geometric", "ci_low",
        "ci_high", "weighted_ci_low", "weighted_ci_high", "std", "cv",
    ]  # fmt: skip
    # precision is defined on the n_pos = 0 query, which has weight 0 in the weighted mean
    prec = summary.overall.set_index("metric").loc["precision@10"]
    assert (prec.n_queries, prec.n_skipped) == (8, 0)


def test_interval_is_query_bootstrap_of_the_column():
    # Same algorithm and stream family as bootstrap_ci: widths agree within Monte-Carlo error.
    rng = np.random.default_rng(0)
    n = 400
    table = pd.DataFrame(
        {"n_pos": rng.integers(1, 30, n), "n_neg": rng.integers(1, 100, n), "ap": rng.beta(2, 5, n)}
    )
    row = summarize(table, strata=None, n_resamples=2000, random_state=0).overall.iloc[0]
    low, high = bootstrap_ci(table["ap"], n_resamples=2000, random_state=1)
    assert row.ci_low == pytest.approx(low, abs=0.003)
    assert row.ci_high == pytest.approx(high, abs=0.003)
    wlow, whigh = bootstrap_ci(
        table["ap"], weights=table["n_pos"], n_resamples=2000, random_state=1
    )
    assert row.weighted_ci_low == pytest.approx(wlow, abs=0.004)
    assert row.weighted_ci_high == pytest.approx(whigh, abs=0.004)


def test_strata_default_boundaries():
    strata = summarize(_table(), random_state=0, n_resamples=100).strata
    recall = strata[strata.metric == "recall@10"].set_index("stratum")
    assert list(recall.index) == ["low", "medium", "high"]
    # low: n_pos 1, 10, 5; medium: 11, 50; high: 51, 80; n_pos = 0 in none
    assert list(recall.n_queries) == [3, 2, 2]
    np.testing.assert_allclose(recall["mean"], [(1.0 + 0.4 + 0.0) / 3, 0.35, 0.075])
    precision = strata[strata.metric == "precision@10"]
    assert precision.n_queries.sum() == 7  # the n_pos = 0 query belongs to no stratum


def test_strata_custom_bins():
    table = _table()
    one = summarize(table, strata=(10,), n_resamples=50, random_state=0)
    assert one.strata_bins == {"low": (1, 10), "high": (11, np.inf)}
    many = summarize(table, strata=[5, 10, 50], n_resamples=50, random_state=0)
    assert list(many.strata_bins) == ["1-5", "6-10", "11-50", "51+"]
    custom = summarize(
        table, strata={"few": (0, 10), "many": (11, None)}, n_resamples=50, random_state=0
    )
    prec = custom.strata[custom.strata.metric == "precision@10"]
    assert list(prec.n_queries) == [4, 4]  # the n_pos = 0 query is in "few" here
    none = summarize(table, strata=None, n_resamples=50, random_state=0)
    assert none.strata.empty and list(none.strata.columns) == [
        "metric",
        "stratum",
        "n_queries",
        "mean",
        "ci_low",
        "ci_high",
    ]


@pytest.mark.parametrize(
    ("strata", "error"),
    [
        ((50, 10), ValueError),
        ((0, 10), ValueError),
        ((10.5,), TypeError),
        ((), TypeError),
        ("low", TypeError),
        (5, TypeError),
        ({"a": (0, 10), "b": (10, 20)}, ValueError),
        ({"a": (10, 5)}, ValueError),
        ({"a": 3}, TypeError),
    ],
)
def test_strata_bad(strata, error):
    with pytest.raises(error, match="strata"):
        summarize(_table(), strata=strata)


def _exact_spearman(x, y):
    """Exact two-sided p of Spearman's rho: scipy's rho over every pairing (the reference)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    observed = abs(stats.spearmanr(x, y).statistic)
    null = [abs(stats.spearmanr(x, y[list(p)]).statistic) for p in permutations(range(len(y)))]
    return float(np.mean(np.asarray(null) >= observed - 1e-12))


def test_difficulty_matches_spearmanr():
    table = _table()
    got = summarize(table, n_resamples=50, random_state=0).difficulty.set_index("metric")
    keep = table["n_pos"] > 0
    x = table.loc[keep, "recall@10"]
    difficulty = table.loc[keep, "n_neg"] / table.loc[keep, "n_pos"]
    ref = stats.spearmanr(x, difficulty)
    exact = _exact_spearman(x, difficulty)  # 7 queries: the p-value is exact
    row = got.loc["recall@10"]
    assert (row.spearman_rho, row.n) == (ref.statistic, 7)
    assert row.pvalue == pytest.approx(exact, rel=1e-12)
    single = difficulty_correlation(table, "recall@10")
    assert (single.spearman_rho, single.n, single.exact) == (ref.statistic, 7, True)
    assert single.pvalue == pytest.approx(exact, rel=1e-12)


def test_difficulty_pvalue_exact_for_tiny_samples_and_t_above():
    # Three queries in reversed order: rho = -1, and 2 of the 3! = 6 pairings reach |rho| = 1.
    three = pd.DataFrame({"n_pos": [1, 2, 4], "n_neg": [8, 8, 8], "m": [0.1, 0.5, 0.9]})
    result = difficulty_correlation(three, "m")
    assert result.spearman_rho == -1.0 and result.pvalue == pytest.approx(1 / 3)
    assert result.pvalue == pytest.approx(_exact_spearman([0.1, 0.5, 0.9], [8, 4, 2]))
    # With ties among the values, the exact test still agrees with scipy's.
    tied = pd.DataFrame(
        {"n_pos": [1, 2, 3, 4, 5], "n_neg": [9, 9, 9, 9, 9], "m": [0.1, 0.2, 0.2, 0.5, 0.4]}
    )
    got = difficulty_correlation(tied, "m")
    ref = _exact_spearman([0.1, 0.2, 0.2, 0.5, 0.4], [9, 4.5, 3, 2.25, 1.8])
    assert got.pvalue == pytest.approx(ref, rel=1e-12) and got.exact
    # Nine queries and more: the t approximation of scipy.stats.spearmanr.
    rng = np.random.default_rng(0)
    nine = pd.DataFrame(
        {"n_pos": np.arange(1, 10), "n_neg": np.full(9, 30), "m": rng.uniform(size=9)}
    )
    got = difficulty_correlation(nine, "m")
    ref = stats.spearmanr(nine["m"], nine["n_neg"] / nine["n_pos"])
    assert (got.spearman_rho, got.pvalue, got.exact) == (ref.statistic, ref.pvalue, False)


def test_difficulty_from_n_docs_and_degenerate():
    table = _table().drop(columns="n_neg")
    ref = difficulty_correlation(_table(), "precision@10")
    got = difficulty_correlation(table, "precision@10")
    assert (got.spearman_rho, got.n) == (ref.spearman_rho, 7)
    flat = pd.DataFrame({"n_pos": [1, 2, 3, 4], "n_neg": [4, 4, 4, 4], "m": [0.5] * 4})
    flat_result = difficulty_correlation(flat, "m")  # constant metric: NaN, no warning
    assert np.isnan(flat_result.spearman_rho) and flat_result.n == 4
    with pytest.raises(ValueError, match="n_pos"):
        difficulty_correlation(flat.drop(columns="n_pos"), "m")


def test_warning_signs():
    summary = summarize(_table(), n_resamples=50, random_state=0)
    kinds = summary.warnings.groupby("metric")["kind"].apply(list).to_dict()
    # recall@10: cv > 0.5 and a gap of 0.39 between strata; precision: cv > 0.5, lower on
    # harder queries (significantly), and medium/high strata (0.75) against low (~0.17).
    assert kinds["recall@10"] == ["high_cv", "stratum_gap"]
    assert kinds["precision@10"] == ["high_cv", "difficulty_bias", "stratum_gap"]
    table = _table().iloc[:7]
    ref = stats.spearmanr(table["precision@10"], table["n_neg"] / table["n_pos"])
    assert ref.statistic < 0 and ref.pvalue < 0.05
    bias = summary.warnings.query("kind == 'difficulty_bias'")["value"]
    assert bias.iloc[0] == ref.statistic
    gap = summary.warnings.query("metric == 'recall@10' and kind == 'stratum_gap'")["value"]
    assert gap.iloc[0] == pytest.approx((1.0 + 0.4 + 0.0) / 3 - 0.075)
    assert list(summary.warnings.columns) == ["metric", "kind", "message", "value"]


def test_difficulty_bias_sign_and_no_signs():
    n = 40
    n_pos = np.arange(1, n + 1)
    table = pd.DataFrame({"n_pos": n_pos, "n_neg": np.full(n, 100), "m": 0.5 + n_pos / 200})
    kinds = summarize(table, strata=None, n_resamples=50, random_state=0).warnings["kind"]
    assert list(kinds) == ["difficulty_bias"]  # easier queries (more n_pos) score higher
    calm = table.assign(m=0.6 + 0.01 * np.sin(n_pos))
    calm_warnings = summarize(calm, n_resamples=50, random_state=0).warnings
    assert calm_warnings.empty and list(calm_warnings.columns) == [
        "metric",
        "kind",
        "message",
        "value",
    ]


def test_cross_validation_table_and_determinism():
    table = _table().reset_index()
    table.insert(0, "fold", [0, 0, 0, 0, 1, 1, 1, 1])
    table["qid"] = [1, 2, 3, 4, 1, 2, 3, 4]  # the same qid in two folds: distinct queries
    first = summarize(table, n_resamples=100, random_state=3)
    assert list(first.overall.metric) == ["recall@10", "precision@10"]
    assert first.overall.n_queries.tolist() == [7, 8]
    again = summarize(table, n_resamples=100, random_state=3)
    pd.testing.assert_frame_equal(first.overall, again.overall)
    pd.testing.assert_frame_equal(first.strata, again.strata)
    other = summarize(table, n_resamples=100, random_state=4)
    assert not np.allclose(first.overall.ci_low, other.overall.ci_low)


def test_input_not_mutated_and_metric_selection():
    table = _table()
    before = table.copy()
    summary = summarize(table, metrics="precision@10", n_resamples=50, random_state=0)
    pd.testing.assert_frame_equal(table, before)
    assert summary.overall.metric.tolist() == ["precision@10"]
    with pytest.raises(ValueError, match="'ndcg' is not a column"):
        summarize(table, metrics=["ndcg"])


def test_too_few_queries_warns():
    table = _table().assign(**{"recall@10": [np.nan] * 7 + [0.5]})
    with pytest.warns(RuntimeWarning, match="recall@10"):
        summary = summarize(table, n_resamples=50, random_state=0)
    row = summary.overall.set_index("metric").loc["recall@10"]
    assert row.n_queries == 1 and row.macro == 0.5
    assert np.isnan(row.ci_low) and np.isnan(row["std"]) and np.isnan(row.cv)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"n_resamples": 0}, ValueError),
        ({"confidence_level": 1.5}, ValueError),
        ({"random_state": 1.5}, TypeError),
    ],
)
def test_summarize_bad_parameters(kwargs, error):
    with pytest.raises(error):
        summarize(_table(), **kwargs)


def test_summarize_bad_tables():
    with pytest.raises(TypeError, match="DataFrame"):
        summarize([0.1, 0.2])
    with pytest.raises(ValueError, match="n_pos"):
        summarize(_table().drop(columns="n_pos"))
    with pytest.raises(ValueError, match="non-negative counts"):
        summarize(_table().assign(n_pos=-1))


def test_coefficient_of_variation():
    assert coefficient_of_variation([0.2, 0.4, 0.6, np.nan]) == pytest.approx(
        statistics.stdev([0.2, 0.4, 0.6]) / 0.4
    )
    assert np.isnan(coefficient_of_variation([0.3]))
    assert np.isnan(coefficient_of_variation([-0.5, 0.5]))
