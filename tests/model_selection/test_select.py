"""Feature selection over queries (issue 43): ``RankingRFECV`` and
``RankingSequentialFeatureSelector`` with the ``qid`` column and routing off give exactly
scikit-learn's ``RFECV`` / ``SequentialFeatureSelector`` run with metadata routing on,
``QueryKFold`` and the ranking scorer."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn
from sklearn.feature_selection import RFECV, SequentialFeatureSelector

from sklearn_ltr_metrics import MissingQueryIdsError
from sklearn_ltr_metrics.metrics import make_ranking_scorer
from sklearn_ltr_metrics.model_selection import (
    QueryKFold,
    RankingRFECV,
    RankingSequentialFeatureSelector,
)

from .._data import FEATURES, make_frame, ranker


@pytest.fixture(scope="module")
def data():
    return make_frame(n_queries=12, n_docs=12)


def test_rfecv_routing_off_equals_scikit_learn_routing_on(data):
    frame, X, y, qid = data
    got = RankingRFECV(ranker(), step=2, cv=3, scoring="ndcg@10").fit(frame, y)
    with sklearn.config_context(enable_metadata_routing=True):
        want = RFECV(ranker(), step=2, cv=QueryKFold(3), scoring=make_ranking_scorer("ndcg@10"))
        want.fit(X, y, qid=qid)
    np.testing.assert_array_equal(got.ranking_, want.ranking_)
    np.testing.assert_array_equal(
        got.cv_results_["mean_test_score"], want.cv_results_["mean_test_score"]
    )
    assert list(got.feature_names_in_) == FEATURES  # qid is never a candidate
    assert got.transform(frame).shape == (len(y), got.n_features_)
    arrays = RankingRFECV(ranker(), step=2, cv=3, scoring="ndcg@10").fit(X, y, qid=qid)
    np.testing.assert_array_equal(arrays.ranking_, want.ranking_)


def test_sequential_selection_routing_off_equals_scikit_learn_routing_on(data):
    frame, X, y, qid = data
    kwargs = {"n_features_to_select": 2, "cv": 3, "scoring": "ndcg@10"}
    got = RankingSequentialFeatureSelector(ranker(), **kwargs).fit(frame, y)
    with sklearn.config_context(enable_metadata_routing=True):
        want = SequentialFeatureSelector(
            ranker(),
            n_features_to_select=2,
            cv=QueryKFold(3),
            scoring=make_ranking_scorer("ndcg@10"),
        ).fit(X, y, qid=qid)
    np.testing.assert_array_equal(got.get_support(), want.get_support())
    assert got.transform(frame).shape == (len(y), 2)
    assert list(got.get_feature_names_out()) == [FEATURES[i] for i in want.get_support(True)]


def test_plain_rfecv_with_routing_off_is_loud(data):
    # RFECV turns X into an array: the (numeric) qid column is gone as a column.
    frame, _, y, qid = data
    numeric = frame.assign(qid=np.unique(qid, return_inverse=True)[1])
    with pytest.raises(MissingQueryIdsError):
        RFECV(ranker(), cv=QueryKFold(3)).fit(numeric, y)
