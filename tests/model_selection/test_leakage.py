"""The query-leakage warning (issue 43): raised for KFold / cv=5, never for QueryKFold.

The package's rankers remember their training queries and its scorers (and the rankers' own
``score``) the queries they score; a test fold sharing split queries with training warns
``QueryLeakageWarning`` once per search, naming ``QueryKFold``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.model_selection import GridSearchCV, KFold, cross_validate, learning_curve

from sklearn_ltr_metrics.metrics import make_ranking_scorer
from sklearn_ltr_metrics.model_selection import QueryKFold, QueryLeakageWarning
from sklearn_ltr_metrics.rankers import FeatureRanker

from .._data import make_data, ranker

FEATURES = [f"f{i}" for i in range(5)]


@pytest.fixture(scope="module")
def data():
    X, y, qid = make_data(n_queries=12, n_docs=15)
    return pd.DataFrame(X, columns=FEATURES).assign(qid=qid), X, y, qid


def _leak_warnings(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        call()
    return [w for w in caught if issubclass(w.category, QueryLeakageWarning)]


@pytest.mark.parametrize("scoring", [None, make_ranking_scorer(["ndcg@10", "map"])])
@pytest.mark.parametrize("cv", [KFold(3), 3])
def test_a_row_splitter_warns_once_per_search(data, cv, scoring):
    frame, _, y, _ = data
    search = GridSearchCV(FeatureRanker(0), {"feature": [0, 1]}, cv=cv, scoring=scoring)
    found = _leak_warnings(
        lambda: (
            search.fit(frame, y)
            if scoring is None
            else search.set_params(refit="map").fit(frame, y)
        )
    )
    assert len(found) == 1  # 2 candidates x 3 folds, one warning
    assert "QueryKFold" in str(found[0].message)
    assert found[0].filename == __file__  # attributed to the caller's line


@pytest.mark.parametrize("scoring", [None, make_ranking_scorer("ndcg@10")])
def test_query_folds_never_warn(data, scoring):
    frame, X, y, qid = data
    calls = [
        lambda: cross_validate(
            ranker(), frame, y, cv=QueryKFold(3), scoring=scoring, return_train_score=True
        ),
        lambda: learning_curve(
            ranker(), frame, y, cv=QueryKFold(3), scoring=scoring, train_sizes=[0.5, 1.0]
        ),
    ]
    for call in calls:
        assert _leak_warnings(call) == []
    with sklearn.config_context(enable_metadata_routing=True):
        routed = lambda: cross_validate(  # noqa: E731
            ranker(),
            X,
            y,
            cv=QueryKFold(3),
            scoring=scoring or make_ranking_scorer("map"),
            params={"qid": qid},
            return_train_score=True,
        )
        assert _leak_warnings(routed) == []


def test_routing_on_with_kfold_warns(data):
    _, X, y, qid = data
    with sklearn.config_context(enable_metadata_routing=True):
        found = _leak_warnings(
            lambda: cross_validate(
                ranker(), X, y, cv=KFold(3), scoring=make_ranking_scorer("map"), params={"qid": qid}
            )
        )
    assert len(found) == 1


def test_scored_values_are_unchanged_by_the_check(data):
    frame, _, y, _ = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", QueryLeakageWarning)
        res = cross_validate(FeatureRanker(0), frame, y, cv=KFold(3))
    assert np.isfinite(res["test_score"]).all()
