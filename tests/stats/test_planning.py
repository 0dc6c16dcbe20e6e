"""Study planning: required_queries and detectable_difference, checked by simulation.

The check the issue asks for: draw paired samples with the pilot's estimated variance and the
planned number of queries; the test must reject at the requested power, within Monte-Carlo
error. The t-test is simulated with scipy's ttest_1samp, the permutation test with
paired_test (itself checked against scipy.stats.permutation_test in test_stats.py).
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sklearn_ltr_metrics.stats import (
    detectable_difference,
    paired_power,
    paired_test,
    required_queries,
)

ALPHA = 0.05


def _pilot(seed=0, n=80, sd=0.08):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.2, 0.8, n)
    qid = pd.Index(range(n), name="qid")
    return {
        "bm25": pd.DataFrame({"ndcg@10": base}, index=qid),
        "ltr": pd.DataFrame({"ndcg@10": base + rng.normal(0.0, sd, n)}, index=qid),
    }


def _sd(pilot):
    return float((pilot["ltr"]["ndcg@10"] - pilot["bm25"]["ndcg@10"]).std(ddof=1))


def _t_rejections(n, delta, sd, reps, seed):
    d = np.random.default_rng(seed).normal(delta, sd, size=(reps, n))
    return float(np.mean(stats.ttest_1samp(d, 0.0, axis=1).pvalue < ALPHA))


def _permutation_rejections(n, delta, sd, reps, seed):
    rng = np.random.default_rng(seed)
    d = rng.normal(delta, sd, size=(reps, n))
    zeros = np.zeros(n)
    return float(
        np.mean(
            [paired_test(row, zeros, n_resamples=400, random_state=rng).pvalue < ALPHA for row in d]
        )
    )


def _within(rate, power, reps, slack=0.0):
    se = np.sqrt(power * (1 - power) / reps)
    return abs(rate - power) <= 3.5 * se + slack


@pytest.mark.parametrize("power", [0.8, 0.9])
def test_required_queries_reaches_the_power_by_simulation_t(power):
    pilot = _pilot()
    sd, min_diff = _sd(pilot), 0.04
    n = required_queries(pilot, "ndcg@10", min_diff=min_diff, alpha=ALPHA, power=power)
    reps = 4000
    at_n = _t_rejections(n, min_diff, sd, reps, seed=1)
    one_fewer = _t_rejections(n - 1, min_diff, sd, reps, seed=2)
    # n reaches the power and is the smallest that does, within Monte-Carlo error (one more
    # query raises the power by about 0.01 here).
    assert at_n >= power - 3.5 * np.sqrt(power * (1 - power) / reps)
    assert one_fewer <= power + 3.5 * np.sqrt(power * (1 - power) / reps)
    assert _within(at_n, power, reps, slack=0.02)


@pytest.mark.parametrize("power", [0.8, 0.9])
def test_detectable_difference_is_detected_at_the_power_by_simulation_t(power):
    pilot = _pilot(3)
    sd = _sd(pilot)
    delta = detectable_difference(pilot, "ndcg@10", alpha=ALPHA, power=power)
    reps = 4000
    assert _within(_t_rejections(80, delta, sd, reps, seed=4), power, reps)
    # half the difference is detected far less often
    assert _t_rejections(80, delta / 2, sd, reps, seed=5) < power - 0.3


@pytest.mark.parametrize("power", [0.8, 0.9])
def test_planning_holds_for_the_permutation_test_by_simulation(power):
    pilot = _pilot(6, n=40)
    sd, min_diff = _sd(pilot), 0.05
    n = required_queries(pilot, "ndcg@10", min_diff=min_diff, power=power, test="permutation")
    delta = detectable_difference(pilot, "ndcg@10", power=power, test="permutation")
    reps = 600
    assert _within(_permutation_rejections(n, min_diff, sd, reps, seed=7), power, reps, 0.02)
    assert _within(_permutation_rejections(40, delta, sd, reps, seed=8), power, reps)


def test_sigma_d_from_one_system_and_from_several():
    pilot = _pilot(9)
    sd = _sd(pilot)
    # two systems: sigma_d is the sd of the differences, so power matches paired_power
    n = required_queries(pilot, "ndcg@10", min_diff=0.03)
    assert paired_power(n, 0.03, sd) >= 0.8 > paired_power(n - 1, 0.03, sd)
    # one system: sqrt(2) times its sd (two uncorrelated systems)
    one = pilot["bm25"]
    s1 = np.sqrt(2) * one["ndcg@10"].std(ddof=1)
    n1 = required_queries(one, "ndcg@10", min_diff=0.03)
    assert paired_power(n1, 0.03, s1) >= 0.8 > paired_power(n1 - 1, 0.03, s1)
    # three systems: the residual variance of the query x system two-way ANOVA
    rng = np.random.default_rng(10)
    three = dict(pilot, ltr2=pilot["bm25"] + rng.normal(0, 0.05, (80, 1)))
    x = pd.concat([t["ndcg@10"] for t in three.values()], axis=1).to_numpy()
    resid = x - x.mean(1, keepdims=True) - x.mean(0) + x.mean()
    s3 = np.sqrt(2 * (resid**2).sum() / (79 * 2))
    delta = detectable_difference(three, "ndcg@10", n_queries=200)
    assert paired_power(200, delta, s3) == pytest.approx(0.8, abs=1e-9)


def test_paired_power_against_the_normal_approximation_for_large_n():
    # for large n the noncentral t is the normal: Phi(sqrt(n) delta / sd - z_{1-alpha/2})
    n, delta, sd = 4000, 0.01, 0.2
    approx = stats.norm.cdf(np.sqrt(n) * delta / sd - stats.norm.ppf(0.975))
    assert paired_power(n, delta, sd) == pytest.approx(approx, abs=2e-3)


def test_planning_errors():
    pilot = _pilot()
    with pytest.raises(ValueError, match="min_diff"):
        required_queries(pilot, "ndcg@10", min_diff=0)
    with pytest.raises(ValueError, match="test"):
        required_queries(pilot, "ndcg@10", min_diff=0.1, test="wilcoxon")
    with pytest.raises(ValueError, match="power"):
        detectable_difference(pilot, "ndcg@10", power=0.01)
    with pytest.raises(ValueError, match="3 are needed"):
        detectable_difference({k: v.iloc[:2] for k, v in pilot.items()}, "ndcg@10")
    same = {"a": pilot["bm25"], "b": pilot["bm25"]}
    with pytest.raises(ValueError, match="zero variance"):
        detectable_difference(same, "ndcg@10")
    with pytest.raises(ValueError, match="metric"):
        detectable_difference(pilot["bm25"].assign(map=0.5))
