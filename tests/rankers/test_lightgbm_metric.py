"""Early stopping on the package's metrics (issue 43).

``as_lightgbm_metric`` in ``LGBMRanker.fit(eval_metric=...)`` with ``eval_group`` (and as
``lightgbm.train``'s ``feval``) records exactly ``evaluate`` on the eval set every round;
``LambdaMARTRanker`` monitors by default the package's ndcg@10, the metric it is scored with.
"""

from __future__ import annotations

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.model_selection import cross_validate

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics.metrics import as_lightgbm_metric, make_ranking_scorer
from sklearn_ltr_metrics.model_selection import QueryKFold
from sklearn_ltr_metrics.rankers import LambdaMARTRanker

from .._data import make_data

# Real and generated queries without relevant documents are left out of the means on
# purpose here; DroppedQueriesWarning itself is tested in tests/metrics.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn_ltr_metrics.metrics.DroppedQueriesWarning")


@pytest.fixture(scope="module")
def data():
    X, y, qid = make_data(n_queries=30, n_docs=12)
    order = np.argsort(qid, kind="stable")  # LightGBM wants each query's rows together
    X, y, qid = X[order], y[order], qid[order]
    y[qid == "q29"] = 0  # a validation query without a relevant row
    val = np.isin(qid, np.unique(qid)[-8:])
    sizes = lambda q: np.unique(q, return_counts=True)[1]  # noqa: E731
    return (X[~val], y[~val], qid[~val], sizes(qid[~val])), (
        X[val],
        y[val],
        qid[val],
        sizes(qid[val]),
    )


def _per_round(model_predict, X_val, y_val, q_val, spec, rounds, **options):
    return [
        evaluate(
            y_val, model_predict(X_val, num_iteration=i), qid=q_val, metrics=spec, **options
        ).mean(spec)
        for i in rounds
    ]


@pytest.mark.parametrize(("spec", "options"), [("ndcg@10", {}), ("map", {"ties": "stable"})])
def test_lgbm_ranker_records_evaluate_on_the_eval_set(data, spec, options):
    (X, y, _, sizes), (X_val, y_val, q_val, val_sizes) = data
    model = lgb.LGBMRanker(n_estimators=8, min_child_samples=5, metric="None", verbose=-1)
    eval_data = {"eval_X": (X_val,), "eval_y": (y_val,)}  # LightGBM >= 4.7's eval_set
    model.fit(
        X,
        y,
        group=sizes,
        eval_group=[val_sizes],
        **eval_data,
        eval_metric=as_lightgbm_metric(spec, **options),
    )
    history = model.evals_result_["valid_0"][spec]
    want = _per_round(model.predict, X_val, y_val, q_val, spec, range(1, 9), **options)
    np.testing.assert_allclose(history, want, rtol=0, atol=1e-12)


def test_lightgbm_train_feval_and_early_stopping(data):
    (X, y, _, sizes), (X_val, y_val, q_val, val_sizes) = data
    train = lgb.Dataset(X, y, group=sizes)
    valid = lgb.Dataset(X_val, y_val, group=val_sizes, reference=train)
    metric = as_lightgbm_metric("ndcg@5")
    result = {}
    booster = lgb.train(
        {"objective": "lambdarank", "metric": "None", "verbose": -1, "min_data_in_leaf": 5},
        train,
        num_boost_round=60,
        valid_sets=[valid],
        feval=metric.feval,
        callbacks=[lgb.early_stopping(3, verbose=False), lgb.record_evaluation(result)],
    )
    history = result["valid_0"]["ndcg@5"]
    assert booster.best_iteration == int(np.argmax(history)) + 1
    best = _per_round(booster.predict, X_val, y_val, q_val, "ndcg@5", [booster.best_iteration])
    assert history[booster.best_iteration - 1] == pytest.approx(best[0], abs=1e-12)


def test_as_lightgbm_metric_refuses_what_it_cannot_compute():
    with pytest.raises(ValueError, match="several metrics"):
        as_lightgbm_metric(make_ranking_scorer(["map", "mrr"]))
    with pytest.raises(TypeError, match="one metric spec"):
        as_lightgbm_metric(["map"])
    with pytest.raises(ValueError, match="eval_group"):
        as_lightgbm_metric("map")(np.ones(3), np.ones(3), None, None)
    with pytest.raises(ValueError, match="unequal weights"):
        as_lightgbm_metric("map")(np.ones(3), np.ones(3), np.array([1.0, 2.0, 1.0]), [3])


def test_lambdamart_monitors_the_package_ndcg_by_default(data):
    (X, y, q, _), (X_val, y_val, q_val, _) = data
    fit = {"qid": q, "eval_set": (X_val, y_val, q_val)}
    model = LambdaMARTRanker(n_estimators=8, min_child_samples=5, random_state=0).fit(X, y, **fit)
    history = model.evals_result_["valid_0"]["ndcg@10"]
    want = _per_round(model.booster_.predict, X_val, y_val, q_val, "ndcg@10", range(1, 9))
    np.testing.assert_allclose(history, want, rtol=0, atol=1e-12)
    own = LambdaMARTRanker(
        n_estimators=8, min_child_samples=5, random_state=0, eval_metric="lightgbm"
    ).fit(X, y, **fit)
    # LightGBM's own NDCG scores the query without a relevant row 1: other values.
    assert not np.allclose(own.evals_result_["valid_0"]["ndcg@10"], history)


def test_lambdamart_early_stopping_in_plain_scikit_learn(data):
    (X, y, q, _), _ = data
    frame = pd.DataFrame(X).rename(columns=str).assign(qid=q)
    model = LambdaMARTRanker(
        n_estimators=40, early_stopping_rounds=3, min_child_samples=5, random_state=0
    )
    off = cross_validate(model, frame, y, cv=QueryKFold(3), return_estimator=True)
    with sklearn.config_context(enable_metadata_routing=True):
        on = cross_validate(model, X, y, cv=QueryKFold(3), params={"qid": q}, return_estimator=True)
    np.testing.assert_array_equal(off["test_score"], on["test_score"])
    for est in off["estimator"]:
        assert set(est.evals_result_["valid_0"]) == {"ndcg@10"}
