"""Plain scikit-learn recipes with the ``qid`` column (issue 43), routing off and on.

A ``ColumnTransformer`` passing the column through under its default name
(``remainder__qid``), the helpers' ``qid="qid"``, and ``Pipeline.score`` with ``qid``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.compose import ColumnTransformer
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_ltr_metrics.metrics import make_ranking_scorer
from sklearn_ltr_metrics.model_selection import QueryKFold, cross_validate_ranking
from sklearn_ltr_metrics.rankers import QueryColumn

from .._data import make_data, ranker

FEATURES = [f"f{i}" for i in range(5)]


@pytest.fixture(scope="module")
def data():
    X, y, qid = make_data(n_queries=12, n_docs=15)
    return pd.DataFrame(X, columns=FEATURES).assign(qid=qid), X, y, qid


def _scale(**names):
    return ColumnTransformer(
        [("scale", StandardScaler(), FEATURES)], remainder="passthrough", **names
    ).set_output(transform="pandas")


@pytest.mark.parametrize("names", [{}, {"verbose_feature_names_out": False}])
def test_column_transformer_recipe_equals_query_column(data, names):
    frame, _, y, _ = data
    scorer = make_ranking_scorer("ndcg@10")
    want = cross_validate(
        make_pipeline(QueryColumn(StandardScaler()), ranker()),
        frame,
        y,
        cv=QueryKFold(3),
        scoring=scorer,
    )["test_score"]
    pipe = make_pipeline(_scale(**names), ranker())
    got = cross_validate(pipe, frame, y, cv=QueryKFold(3), scoring=scorer)["test_score"]
    np.testing.assert_array_equal(got, want)
    search = GridSearchCV(pipe, {"lambdamartranker__num_leaves": [3, 7]}, cv=QueryKFold(3))
    fitted = search.fit(frame, y).best_estimator_[-1]
    assert "qid" not in "".join(fitted.feature_names_in_)  # never a feature


def test_column_transformer_recipe_routing_on(data):
    _, X, y, qid = data
    scale = ColumnTransformer([("scale", StandardScaler(), list(range(5)))])
    with sklearn.config_context(enable_metadata_routing=True):
        got = cross_validate(
            make_pipeline(scale, ranker()),
            X,
            y,
            cv=QueryKFold(3),
            params={"qid": qid},
            scoring=make_ranking_scorer("ndcg@10"),
        )["test_score"]
    want = cross_validate_ranking(
        make_pipeline(scale, ranker()), X, y, qid=qid, cv=3, scoring="ndcg@10"
    )["test_score"]
    np.testing.assert_array_equal(got, want)


def test_two_prefixed_columns_are_ambiguous(data):
    frame, _, y, _ = data
    twice = frame.rename(columns={"qid": "a__qid"}).assign(b__qid=frame["qid"])
    with pytest.raises(ValueError, match="verbose_feature_names_out=False"):
        ranker().fit(twice, y)


def test_helpers_read_the_column_named_by_a_string_qid(data):
    from sklearn_ltr_metrics.model_selection import RankingGridSearchCV, learning_curve_ranking

    frame, X, y, qid = data
    want = cross_validate_ranking(ranker(), X, y, qid=qid, cv=3)["test_score"]
    got = cross_validate_ranking(ranker(), frame, y, qid="qid", cv=3)["test_score"]
    np.testing.assert_array_equal(got, want)
    renamed = frame.rename(columns={"qid": "query_id"})
    other = cross_validate_ranking(
        ranker().set_params(qid_column="query_id"), renamed, y, qid="query_id", cv=3
    )["test_score"]
    np.testing.assert_array_equal(other, want)
    search = RankingGridSearchCV(ranker(), {"num_leaves": [3, 7]}, cv=3)
    assert search.fit(frame, y, qid="qid").best_params_ == search.fit(X, y, qid=qid).best_params_
    sizes, _, scores = learning_curve_ranking(ranker(), frame, y, qid="qid", train_sizes=[4], cv=3)
    assert sizes.tolist() == [4] and scores.shape == (1, 3)
    with pytest.raises(ValueError, match="name the query-id column once"):
        cross_validate_ranking(ranker(), frame, y, qid="qid", qid_column="query_id")
