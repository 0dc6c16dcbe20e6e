"""Whole queries as the resource: the halving search, the learning curve, and the
permutation-importance recipe of docs/sklearn.rst."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.inspection import permutation_importance

from sklearn_ltr_metrics import MissingQueryIdsError, evaluate
from sklearn_ltr_metrics.metrics import make_ranking_scorer
from sklearn_ltr_metrics.model_selection import (
    QueryKFold,
    RankingGridSearchCV,
    RankingHalvingGridSearchCV,
    learning_curve_ranking,
)
from sklearn_ltr_metrics.rankers import FeatureRanker

from .._data import make_data, ranker


@pytest.fixture(scope="module")
def data():
    return make_data(n_queries=36, n_docs=10)


class RecordingRanker(FeatureRanker):
    """FeatureRanker that records the queries and rows of every fit (class-level log)."""

    fits = []  # noqa: RUF012

    def fit(self, X, y=None, qid=None):
        type(self).fits.append((np.asarray(qid), X.shape[0]))
        return super().fit(X, y, qid)


# --------------------------------------------------------------------------------------------
# halving
# --------------------------------------------------------------------------------------------


def test_halving_trains_on_whole_queries(data):
    X, y, qid = data
    RecordingRanker.fits = []
    search = RankingHalvingGridSearchCV(
        RecordingRanker(0), {"feature": [0, 1, 2, 3]}, scoring="ndcg@10", cv=3, random_state=0
    ).fit(X, y, qid=qid)
    assert search.max_resources_ == 24  # training queries of a fold
    assert search.n_resources_ == [8, 24]
    assert search.n_candidates_ == [4, 2]
    sizes = {len(np.unique(q)) for q, _ in RecordingRanker.fits}
    assert sizes == {8, 24, 36}  # 36: the final refit on every row
    for fitted_qid, n_rows in RecordingRanker.fits:
        # never a piece of a query: each fitted query has all of its 10 rows
        assert n_rows == 10 * len(np.unique(fitted_qid))
    assert search.best_params_ == {"feature": 0}
    assert search.cv_results_["params"][0] == {"feature": 0}
    assert "param_feature" in search.cv_results_
    assert not any("estimator__" in key for key in search.cv_results_)
    assert search.best_estimator_.n_features_in_ == 5
    assert isinstance(search.best_estimator_, RecordingRanker)
    assert search.score(X, y, qid=qid) == evaluate(y, X[:, 0], qid=qid, metrics="ndcg@10").mean(
        "ndcg@10"
    )


def test_halving_last_iteration_equals_a_grid_search(data):
    X, y, qid = data
    grid = {"num_leaves": [3, 7, 15]}
    halving = RankingHalvingGridSearchCV(
        ranker(), grid, scoring="map", cv=3, factor=3, min_resources=24, random_state=0
    ).fit(X, y, qid=qid)
    # one iteration with every training query: exactly a grid search
    assert halving.n_resources_ == [24]
    grid_search = RankingGridSearchCV(ranker(), grid, scoring="map", cv=3).fit(X, y, qid=qid)
    np.testing.assert_allclose(
        halving.cv_results_["mean_test_score"], grid_search.cv_results_["mean_test_score"]
    )
    assert clone(halving).get_params()["min_resources"] == 24
    assert "resource" not in halving.get_params()


# --------------------------------------------------------------------------------------------
# learning curve
# --------------------------------------------------------------------------------------------


def test_learning_curve_over_whole_queries(data):
    X, y, qid = data
    sizes, train, test, table = learning_curve_ranking(
        ranker(), X, y, qid=qid, train_sizes=[3, 12, 24], cv=3, return_per_query=True
    )
    assert sizes.tolist() == [3, 12, 24]
    assert train.shape == test.shape == (3, 3)
    # The largest size is plain 3-fold cross-validation.
    folds = list(QueryKFold(3).split(X, y, qid=qid))
    for i, (tr, te) in enumerate(folds):
        model = ranker().fit(X[tr], y[tr], qid=qid[tr])
        expected = evaluate(y[te], model.predict(X[te]), qid=qid[te], metrics="ndcg@10")
        assert test[2, i] == expected.mean("ndcg@10")
    # The smallest: the fold's first 3 training queries in id order, all of their rows.
    tr, te = folds[0]
    first = np.unique(qid[tr])[:3]
    rows = np.isin(qid, first)
    model = ranker().fit(X[rows], y[rows], qid=qid[rows])
    expected = evaluate(y[te], model.predict(X[te]), qid=qid[te], metrics="ndcg@10")
    assert test[0, 0] == expected.mean("ndcg@10")
    assert set(table["n_train_queries"]) == {3, 12, 24}
    assert set(table["fold"]) == {0, 1, 2}
    means = table.groupby(["n_train_queries", "fold"])["ndcg@10"].mean().unstack()
    np.testing.assert_allclose(means.to_numpy(), test)


def test_learning_curve_fractions_shuffle_and_errors(data):
    X, y, qid = data
    sizes, _, a = learning_curve_ranking(
        FeatureRanker(0),
        X,
        y,
        qid=qid,
        train_sizes=[0.5, 1.0],
        cv=3,
        shuffle=True,
        random_state=0,
    )
    assert sizes.tolist() == [12, 24]
    _, _, b = learning_curve_ranking(
        FeatureRanker(0),
        X,
        y,
        qid=qid,
        train_sizes=[0.5, 1.0],
        cv=3,
        shuffle=True,
        random_state=np.random.default_rng(0),
    )
    assert a.shape == b.shape == (2, 3)
    with pytest.raises(ValueError, match=r"must lie in 1\.\.24"):
        learning_curve_ranking(FeatureRanker(0), X, y, qid=qid, train_sizes=[30], cv=3)
    with pytest.raises(ValueError, match=r"must lie in \(0, 1\]"):
        learning_curve_ranking(FeatureRanker(0), X, y, qid=qid, train_sizes=[1.5], cv=3)
    with pytest.raises(TypeError, match="one metric"):
        learning_curve_ranking(FeatureRanker(0), X, y, qid=qid, scoring=["map", "mrr"], cv=3)


# --------------------------------------------------------------------------------------------
# the permutation-importance recipe (docs/sklearn.rst)
# --------------------------------------------------------------------------------------------


def test_permutation_importance_recipe(data):
    X, y, qid = data  # labels follow feature 0
    X = np.column_stack([X, np.ones(len(y))])  # a constant column: permuting it changes nothing
    model = ranker().fit(X, y, qid=qid)
    scorer = make_ranking_scorer("ndcg@10")
    result = permutation_importance(
        model, X, y, scoring=partial(scorer, qid=qid), n_repeats=3, random_state=0
    )
    assert int(np.argmax(result.importances_mean)) == 0
    assert result.importances_mean[0] > 0.2
    # importance = score with qid bound - score with the column permuted: exactly 0 here
    np.testing.assert_array_equal(result.importances[5], 0.0)
    # the same scorer without qid refuses to treat the data as one query
    with pytest.raises(MissingQueryIdsError, match="needs the query id"):
        permutation_importance(model, X, y, scoring=scorer, n_repeats=1, random_state=0)
