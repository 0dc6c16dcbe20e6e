"""The click pipeline end to end on MQ2008's labels (LETOR 4.0, fold 1)."""

import numpy as np
import pytest

from sklearn_ltr_metrics import LambdaMARTRanker, evaluate
from sklearn_ltr_metrics.clicks import counterfactual_evaluate, estimate_propensity, simulate
from sklearn_ltr_metrics.io import read_letor


@pytest.fixture(scope="module")
def mq2008(datasets_dir):
    folder = datasets_dir / "mq2008-fold1"
    if not (folder / "vali.txt").is_file():
        pytest.skip(f"MQ2008 is absent from {folder} (see ../shared/datasets/README.md)")
    return read_letor(folder / "vali.txt"), read_letor(folder / "test.txt")


@pytest.mark.slow
def test_click_pipeline_on_mq2008(mq2008):
    (X, y, qid), (X_test, y_test, qid_test) = mq2008
    y, y_test = y.astype(int), y_test.astype(int)
    rng = np.random.default_rng(0)
    # a weak logging ranker: one feature, noisy
    logging = X[:, 0] + rng.normal(0, 0.5, y.size)
    logging_test = X_test[:, 0] + rng.normal(0, 0.5, y_test.size)
    # position bias from a RandTop-k log of the training queries
    randomized = simulate(y, logging, qid, n_sessions=100, randomize="top_k", random_state=0)
    propensity = estimate_propensity(randomized)
    np.testing.assert_allclose(propensity.propensity[:5], 1 / np.arange(1, 6), rtol=0.1)
    # naive and debiased LambdaMART on an ordinary click log
    log = simulate(y, logging, qid, n_sessions=10, random_state=1)
    params = {"n_estimators": 30, "min_child_samples": 20, "random_state": 0}
    rows, clicks = log["row"].to_numpy(), log["click"].astype(int).to_numpy()
    naive = LambdaMARTRanker(**params).fit(X[rows], clicks, qid=log["session"])
    debiased = LambdaMARTRanker(**params).fit(
        X[rows], clicks, qid=log["session"], position=log["rank"]
    )
    # evaluation from a click log of the test queries
    test_log = simulate(y_test, logging_test, qid_test, n_sessions=300, random_state=2)
    shown = np.zeros(y_test.size, dtype=bool)
    shown[test_log["row"].unique()] = True
    attraction = 0.1 + 0.9 * (2.0**y_test - 1) / 3
    gain = np.where(shown, np.round(attraction * 1e6), 0).astype(np.int64)
    rows = {}
    for name, score in {
        "logging": logging_test,
        "naive": naive.predict(X_test),
        "debiased": debiased.predict(X_test),
    }.items():
        truth = evaluate(gain, score, qid=qid_test, metrics=["dcg@10"], gain="linear")
        ips = counterfactual_evaluate(test_log, score, qid_test, propensity=propensity)
        click = counterfactual_evaluate(test_log, score, qid_test, propensity=np.ones(10))
        rows[name] = (truth.mean("dcg@10") / 1e6, ips.mean("dcg@10"), click.mean("dcg@10"))
    for truth, ips, _ in rows.values():
        assert abs(ips - truth) < 0.06 * truth  # IPS tracks the label-based value
    # the naive click metric overstates the logging ranker's lead (its own top ranks
    # collected the clicks); IPS does not
    for other in ("naive", "debiased"):
        true_ratio = rows["logging"][0] / rows[other][0]
        assert rows["logging"][2] / rows[other][2] > 1.15 * true_ratio
        assert abs(rows["logging"][1] / rows[other][1] - true_ratio) < 0.05 * true_ratio
