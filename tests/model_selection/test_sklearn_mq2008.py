"""Plain scikit-learn on real data (LETOR 4.0 MQ2008, Fold1 vali.txt): the done-when checks.

QueryKFold in plain ``cross_validate`` and ``GridSearchCV`` gives the numbers of
``cross_validate_ranking``; routing off is an error that says what to do, never NaN; a
Pipeline with ``scoring=None`` scores; a classifier is ranked by its probabilities.
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_ltr_metrics import MissingQueryIdsError, evaluate
from sklearn_ltr_metrics.metrics import make_ranking_scorer
from sklearn_ltr_metrics.model_selection import (
    QueryKFold,
    RankingGridSearchCV,
    cross_validate_ranking,
)
from sklearn_ltr_metrics.rankers import LambdaMARTRanker

# Real and generated queries without relevant documents are left out of the means on
# purpose here; DroppedQueriesWarning itself is tested in tests/metrics.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn_ltr_metrics.metrics.DroppedQueriesWarning")

METRICS = ["ndcg@10", "map"]


@pytest.fixture(scope="module")
def mq2008(datasets_dir):
    X, y, qid = load_svmlight_file(
        str(datasets_dir / "mq2008-fold1" / "vali.txt"), query_id=True, n_features=46
    )
    return X.toarray(), y.astype(int), qid


def small_lambdamart(**params):
    return LambdaMARTRanker(n_estimators=20, num_leaves=7, random_state=0, **params)


@pytest.mark.slow  # real data end to end: cross-validation and a grid search
def test_plain_cross_validate_and_grid_search_equal_the_helper(mq2008):
    X, y, qid = mq2008
    helper = cross_validate_ranking(small_lambdamart(), X, y, qid=qid, scoring=METRICS, cv=5)
    grid = {"learning_rate": [0.1, 0.3]}  # candidate 0 is the default
    with sklearn.config_context(enable_metadata_routing=True):
        plain = cross_validate(
            small_lambdamart(),
            X,
            y,
            cv=QueryKFold(5),
            scoring=make_ranking_scorer(METRICS),
            params={"qid": qid},
        )
        search = GridSearchCV(
            small_lambdamart(),
            grid,
            cv=QueryKFold(5),
            scoring=make_ranking_scorer(METRICS),
            refit="ndcg@10",
        ).fit(X, y, qid=qid)
    ours = RankingGridSearchCV(
        small_lambdamart(), grid, cv=5, scoring=METRICS, refit="ndcg@10"
    ).fit(X, y, qid=qid)
    for m in METRICS:
        np.testing.assert_array_equal(plain[f"test_{m}"], helper[f"test_{m}"])
        for i in range(5):
            key = f"split{i}_test_{m}"
            assert search.cv_results_[key][0] == helper[f"test_{m}"][i]
            np.testing.assert_array_equal(search.cv_results_[key], ours.cv_results_[key])
    assert 0.6 < helper["test_ndcg@10"].mean() < 0.9
    assert search.best_params_ == ours.best_params_


def test_routing_off_is_an_error_that_says_what_to_do(mq2008):
    X, y, qid = mq2008
    assert not sklearn.get_config()["enable_metadata_routing"]
    expected = r"QueryKFold\.split needs the query id.*Metadata routing is off"
    with pytest.raises(MissingQueryIdsError, match=expected):
        cross_validate(
            small_lambdamart(),
            X,
            y,
            cv=QueryKFold(5),
            scoring=make_ranking_scorer("ndcg@10"),
            params={"qid": qid},
        )
    with pytest.raises(MissingQueryIdsError, match=expected):
        GridSearchCV(small_lambdamart(), {"num_leaves": [3, 7]}, cv=QueryKFold(5)).fit(
            X, y, qid=qid
        )
    # The package's helpers need no routing at all.
    res = cross_validate_ranking(small_lambdamart(), X, y, qid=qid, cv=QueryKFold(5))
    assert np.isfinite(res["test_score"]).all()


def test_pipeline_with_default_scoring_scores(mq2008):
    X, y, qid = mq2008
    pipe = make_pipeline(StandardScaler(), small_lambdamart())
    grid = {"lambdamartranker__num_leaves": [3, 7]}
    ours = RankingGridSearchCV(pipe, grid, cv=3).fit(X, y, qid=qid)
    with sklearn.config_context(enable_metadata_routing=True):
        plain = GridSearchCV(pipe, grid, cv=QueryKFold(3)).fit(X, y, qid=qid)
    helper = cross_validate_ranking(
        pipe.set_params(lambdamartranker__num_leaves=3), X, y, qid=qid, cv=3
    )
    for search in (ours, plain):
        assert np.isfinite(search.cv_results_["mean_test_score"]).all()
        assert search.cv_results_["split1_test_score"][0] == helper["test_score"][1]
    np.testing.assert_array_equal(
        ours.cv_results_["mean_test_score"], plain.cv_results_["mean_test_score"]
    )


def test_classifier_is_ranked_by_its_probabilities(mq2008):
    X, y, qid = mq2008
    clf = make_pipeline(StandardScaler(), LogisticRegression(C=0.1, max_iter=1000))
    by_default = cross_validate_ranking(clf, X, y, qid=qid, cv=3, return_estimator=True)
    hard = cross_validate_ranking(
        clf, X, y, qid=qid, cv=3, scoring=make_ranking_scorer("ndcg@10", response_method="predict")
    )
    # Labels 0/1/2: the score is the expected grade under predict_proba.
    for i, (model, test) in enumerate(
        zip(by_default["estimator"], QueryKFold(3).split(X, y, qid=qid), strict=True)
    ):
        rows = test[1]
        expected_grade = model.predict_proba(X[rows]) @ model.classes_
        value = evaluate(y[rows], expected_grade, qid=qid[rows], metrics="ndcg@10")
        assert by_default["test_score"][i] == value.mean("ndcg@10")
    assert by_default["test_score"].mean() > hard["test_score"].mean() + 0.1
    assert by_default["test_score"].mean() > 0.65
