"""Position bias: each estimator against its formula, and the truth within 10 % at ranks 1-5."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics.clicks import PropensityEstimate, estimate_propensity, simulate

from ._clicks_data import ranking_data

TRUTH = 1.0 / np.arange(1, 11)


def test_randomization_formula_on_a_tiny_log():
    # Session 0 shows 3 ranks, session 1 shows 2: rank 3 is compared to the clicks at rank 1
    # of session 0 only.
    log = pd.DataFrame(
        {
            "session": [0, 0, 0, 1, 1],
            "qid": [1, 1, 1, 2, 2],
            "row": [0, 1, 2, 3, 4],
            "rank": [1, 2, 3, 1, 2],
            "click": [1, 0, 1, 1, 1],
        }
    )
    est = estimate_propensity(log)
    np.testing.assert_allclose(est.propensity, [1.0, 0.5, 1.0])
    assert est.n_impressions.tolist() == [2, 2, 1] and est.n_clicks.tolist() == [2, 1, 1]
    assert "RandTop-k" in est.assumption and np.asarray(est).shape == (3,)


def test_swap_formula_on_a_tiny_log():
    # The top document (row 0) is clicked 2 times out of 2 at rank 1, 1 time out of 2 at rank 2.
    log = pd.DataFrame(
        {
            "session": np.repeat(np.arange(4), 2),
            "qid": 1,
            "row": [0, 1, 0, 1, 1, 0, 1, 0],
            "rank": [1, 2] * 4,
            "click": [1, 0, 1, 1, 0, 1, 0, 0],
            "top_row": 0,
        }
    )
    np.testing.assert_allclose(estimate_propensity(log, method="swap").propensity, [1.0, 0.5])
    with pytest.raises(ValueError, match="top_row"):
        estimate_propensity(log.drop(columns="top_row"), method="swap")


@pytest.mark.parametrize("randomize", ["top_k", "pairs"])
def test_randomized_logs_recover_the_propensity(randomize):
    y, score, qid = ranking_data(n_queries=300, n_docs=12)
    # some short queries: their sessions only count at the ranks they show
    keep = ~((qid % 5 == 0) & (np.arange(qid.size) % 12 >= 4))
    log = simulate(
        y[keep], score[keep], qid[keep], n_sessions=150, randomize=randomize, random_state=0
    )
    method = "randomization" if randomize == "top_k" else "swap"
    est = estimate_propensity(log, method=method, max_rank=5)
    assert isinstance(est, PropensityEstimate) and est.method == method
    np.testing.assert_allclose(est.propensity, TRUTH[:5], rtol=0.1)


def test_em_on_logs_of_several_rankers():
    y, _, qid = ranking_data(n_queries=300, n_docs=10)
    rng = np.random.default_rng(1)
    logs = []
    for i in range(4):
        score = y + rng.normal(0, 2.0, y.size)
        log = simulate(y, score, qid, n_sessions=40, random_state=i)
        logs.append(log.assign(session=log["session"] + i * 10**6))
    est = estimate_propensity(pd.concat(logs, ignore_index=True), method="em")
    assert est.converged and est.n_iter > 1
    np.testing.assert_allclose(est.propensity[:5], TRUTH[:5], rtol=0.1)
    assert "position-based" in est.assumption


def test_estimate_propensity_refuses():
    log = simulate([1, 0], [1, 0], [0, 0], random_state=0)
    with pytest.raises(ValueError, match="method='em' only"):
        estimate_propensity(log, X=np.ones((2, 1)))
    with pytest.raises(ValueError, match="rows"):
        estimate_propensity(log, method="em", X=np.ones((1, 1)))
    with pytest.raises(ValueError, match="method='ips'"):
        estimate_propensity(log, method="ips")
    with pytest.raises(ValueError, match="lacks column"):
        estimate_propensity(log.drop(columns="click"))
    with pytest.raises(ValueError, match="twice"):
        estimate_propensity(pd.concat([log, log]))
    with pytest.raises(ValueError, match="two queries"):
        estimate_propensity(log.assign(qid=[0, 1]))
    with pytest.raises(ValueError, match=">= 1"):
        estimate_propensity(log.assign(rank=[0, 1]))
    with pytest.raises(TypeError, match="integers"):
        estimate_propensity(log.assign(row=[0.5, 1.0]))


@pytest.mark.slow
def test_regression_em_identifies_a_single_logger():
    # One deterministic logging ranker shows each document at one rank only: per-document EM
    # cannot separate position from attraction, regression EM (attraction = logistic(X))
    # can (Wang et al. 2018).
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(600), 10)
    X = rng.normal(size=(qid.size, 2))
    attraction = 1 / (1 + np.exp(-(2 * X[:, 0] - 1)))
    grade = np.minimum((attraction * 100).astype(int), 99)  # 100 grades, click_prob per grade
    score = X[:, 0] + rng.normal(0, 0.5, qid.size)
    log = simulate(
        grade, score, qid, n_sessions=20, click_prob=(np.arange(100) + 0.5) / 100, random_state=0
    )
    est = estimate_propensity(log, method="em", X=X, tol=1e-4)
    np.testing.assert_allclose(est.propensity[:5], TRUTH[:5], rtol=0.1)
    assert "regression" in est.assumption
    per_document = estimate_propensity(log, method="em", tol=1e-4)
    assert np.abs(per_document.propensity[1:5] / TRUTH[1:5] - 1).max() > 0.2
