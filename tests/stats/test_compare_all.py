"""compare_all: every pair of systems, checked against ranx's compare and scipy's tests."""

import functools
import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sklearn_ltr_metrics.stats import (
    PairwiseComparison,
    adjust_pvalues,
    compare_all,
    compare_systems,
    pairwise_test_names,
)

N_QUERIES = 30
SYSTEMS = ("bm25", "ltr", "ltr_big")


def _tables(seed=0, n=N_QUERIES, shifts=(0.0, 0.05, 0.12)):
    rng = np.random.default_rng(seed)
    qid = pd.Index([f"q{i}" for i in range(n)], name="qid")
    base = rng.uniform(0.2, 0.7, n)
    return {
        name: pd.DataFrame({"ndcg@10": np.clip(base + rng.normal(shift, 0.1, n), 0, 1)}, index=qid)
        for name, shift in zip(SYSTEMS, shifts, strict=True)
    }


@pytest.fixture(scope="module")
def ranx_study():
    """Three runs judged by ranx; ranx's own per-query values and its compare() for 3 tests."""
    ranx = pytest.importorskip("ranx")
    rng = np.random.default_rng(7)
    qrels = {
        f"q{i}": {f"d{j}": int(rng.integers(1, 3)) for j in range(int(rng.integers(2, 8)))}
        for i in range(N_QUERIES)
    }
    runs = []
    for s, name in enumerate(SYSTEMS):
        run = {
            q: {f"d{j}": float(rng.normal(0.4 * s * (j < len(qrels[q])), 1)) for j in range(15)}
            for q in qrels
        }
        runs.append(ranx.Run(run, name=name))
    qrels = ranx.Qrels(qrels)

    @functools.cache
    def report(test):  # ranx's fisher test runs 20,000 permutations: only the test that asks
        return ranx.compare(
            qrels, runs, ["ndcg@10"], stat_test=test, n_permutations=20000, max_p=0.05
        )

    for run in runs:  # ranx keeps each query's value in run.scores
        ranx.evaluate(qrels, run, ["ndcg@10"])
    tables = {
        run.name: pd.DataFrame({"ndcg@10": pd.Series(run.scores["ndcg@10"])}).rename_axis("qid")
        for run in runs
    }
    return tables, report


def _ranx_p(report, a, b):
    return float(report.comparisons[frozenset([a, b])]["ndcg@10"]["p_value"])


# ranx's numba kernels emit a type-safety warning while compiling (third-party code).
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize(("ours", "theirs"), [("t", "student"), ("tukey", "tukey")])
def test_exact_tests_equal_ranx_compare(ranx_study, ours, theirs):
    tables, report = ranx_study
    table = compare_all(tables, "ndcg@10", test=ours, correction="none").table
    assert len(table) == 3
    for row in table.itertuples():
        expected = _ranx_p(report(theirs), row.system_a, row.system_b)
        np.testing.assert_allclose(row.pvalue, expected, rtol=1e-10, atol=1e-14)
        assert row.pvalue_corrected == row.pvalue
    # Their differences are not all alike: a real check, not three equal p-values.
    assert table["pvalue"].max() - table["pvalue"].min() > 1e-3


@pytest.mark.slow  # ranx's 20,000 permutations run as plain Python under NUMBA_DISABLE_JIT
def test_permutation_equals_ranx_fisher_within_monte_carlo_error(ranx_study):
    tables, report = ranx_study
    n = 20000
    result = compare_all(tables, "ndcg@10", n_resamples=n, correction="none", random_state=0)
    table = result.table
    assert table["pvalue"].between(0.01, 0.99).any()  # one pair is not a sure thing
    for row in table.itertuples():
        expected = _ranx_p(report("fisher"), row.system_a, row.system_b)
        p = (row.pvalue + expected) / 2
        se = np.sqrt(2 * max(p * (1 - p), 1 / n) / n)  # both are Monte-Carlo estimates
        assert abs(row.pvalue - expected) <= 4 * se + 1e-4, (row.system_a, row.system_b)


def test_tukey_equals_scipy_on_the_queries_every_system_has():
    tables = _tables(1)
    tables["ltr"].iloc[[2, 5], 0] = np.nan  # Tukey: only queries where all have a value
    result = compare_all(tables, test="tukey", correction="none", confidence_level=0.9)
    keep = ~np.isnan(tables["ltr"]["ndcg@10"].to_numpy())
    samples = [tables[s]["ndcg@10"].to_numpy()[keep] for s in SYSTEMS]
    ref = stats.tukey_hsd(*samples)
    ci = ref.confidence_interval(0.9)
    for row in result.table.itertuples():
        i, j = SYSTEMS.index(row.system_a), SYSTEMS.index(row.system_b)
        assert row.pvalue == pytest.approx(ref.pvalue[i, j], rel=1e-12)
        assert (row.ci_low, row.ci_high) == pytest.approx((ci.low[i, j], ci.high[i, j]))
        assert row.diff == pytest.approx(samples[i].mean() - samples[j].mean())
        assert row.n_queries == N_QUERIES - 2


@pytest.mark.parametrize(
    ("test", "reference"),
    [
        ("t", lambda a, b: stats.ttest_rel(a, b).pvalue),
        ("wilcoxon", lambda a, b: stats.wilcoxon(a, b).pvalue),
        ("sign", lambda a, b: stats.binomtest(int((a > b).sum()), len(a), 0.5).pvalue),
        (
            "permutation",  # 12 queries: exact enumeration, as scipy's
            lambda a, b: (
                stats.permutation_test(
                    (a, b),
                    lambda x, y, axis: np.mean(x - y, axis=axis),
                    permutation_type="samples",
                    n_resamples=np.inf,
                ).pvalue
            ),
        ),
    ],
)
def test_each_pair_is_paired_over_the_queries_both_have(test, reference):
    tables = _tables(2, n=12)
    tables["ltr"] = tables["ltr"].iloc[3:]  # ltr lacks 3 queries
    tables["ltr_big"].iloc[0, 0] = np.nan  # and ltr_big one value
    table = compare_all(tables, test=test, correction="holm").table
    for row in table.itertuples():
        a, b = tables[row.system_a]["ndcg@10"], tables[row.system_b]["ndcg@10"]
        both = pd.concat([a, b], axis=1, join="inner").dropna().to_numpy()
        assert row.n_queries == len(both)
        assert row.diff == pytest.approx(np.mean(both[:, 0] - both[:, 1]))
        assert row.mean_a == pytest.approx(both[:, 0].mean())
        assert row.pvalue == pytest.approx(reference(both[:, 0], both[:, 1]), rel=1e-9)
    assert table["n_queries"].tolist() == [9, 11, 9]
    assert table["pvalue_corrected"].tolist() == pytest.approx(
        adjust_pvalues(table["pvalue"], method="holm").tolist()
    )


def test_corrections_over_the_pairs_and_significance():
    tables = _tables(3, n=60, shifts=(0.0, 0.0, 0.1))
    raw = compare_all(tables, test="t", correction="none").table["pvalue"].to_numpy()
    m = raw.size
    bonferroni = compare_all(tables, test="t", correction="bonferroni").table
    np.testing.assert_allclose(bonferroni["pvalue_corrected"], np.minimum(raw * m, 1))
    order = np.argsort(raw)
    holm = np.maximum.accumulate(np.minimum((m - np.arange(m)) * raw[order], 1))
    got = compare_all(tables, test="t", correction="holm").table["pvalue_corrected"]
    np.testing.assert_allclose(got.to_numpy()[order], holm)
    bh = compare_all(tables, test="t", correction="bh", alpha=0.01).table
    assert (bh["significant"] == (bh["pvalue_corrected"] < 0.01)).all()
    assert bh["significant"].any() and not bh["significant"].all()


def test_matrix_view_and_the_baseline_face_agree():
    tables = _tables(4, n=40)
    result = compare_all(tables, test="t", correction="none", random_state=0)
    assert isinstance(result, PairwiseComparison)
    diff = result.matrix(value="diff")
    assert list(diff.index) == list(SYSTEMS) == list(diff.columns)
    np.testing.assert_allclose(diff.to_numpy(), -diff.to_numpy().T)  # antisymmetric, NaN diag
    p = result.matrix()
    np.testing.assert_allclose(p.to_numpy(), p.to_numpy().T)
    sig = result.matrix(value="significant")
    assert sig.dtypes.eq(bool).all() and not np.diag(sig.to_numpy()).any()
    # Against one baseline, the same pairs give compare_systems's numbers.
    base = compare_systems(tables, baseline="bm25", test="t", correction="none")
    for system in SYSTEMS[1:]:
        row = base[base["system"] == system].iloc[0]
        assert diff.loc[system, "bm25"] == pytest.approx(row["diff"])
        assert p.loc[system, "bm25"] == pytest.approx(row["pvalue"])
        assert result.matrix(value="effect_size").loc[system, "bm25"] == pytest.approx(
            row["effect_size"]
        )


def test_seeded_and_deterministic():
    tables = _tables(5, n=40)
    one = compare_all(tables, n_resamples=500, n_bootstrap=200, random_state=3).table
    two = compare_all(tables, n_resamples=500, n_bootstrap=200, random_state=3).table
    pd.testing.assert_frame_equal(one, two)
    # the interval is a bootstrap of the mean paired difference
    assert (one["ci_low"] < one["diff"]).all() and (one["diff"] < one["ci_high"]).all()


def test_errors_name_the_parameter():
    tables = _tables()
    with pytest.raises(ValueError, match="test"):
        compare_all(tables, test="anova")
    with pytest.raises(ValueError, match="correction"):
        compare_all(tables, correction="sidak")
    with pytest.raises(ValueError, match="at least 2 systems"):
        compare_all({"bm25": tables["bm25"]})
    with pytest.raises(TypeError, match="mapping"):
        compare_all([tables["bm25"], tables["ltr"]])
    with pytest.raises(ValueError, match="value"):
        compare_all(tables, test="t").matrix(value="mean")
    assert pairwise_test_names() == ["permutation", "sign", "t", "tukey", "wilcoxon"]
    assert list(itertools.combinations(SYSTEMS, 2)) == [
        tuple(r) for r in compare_all(tables, test="t").table[["system_a", "system_b"]].values
    ]
