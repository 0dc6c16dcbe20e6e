"""QueryKFold and StratifiedQueryKFold: whole queries, routing on and off, clear errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.linear_model import Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    cross_val_predict,
    cross_validate,
)

from sklearn_ltr_metrics import FeatureRanker, MissingQueryIdsError, evaluate
from sklearn_ltr_metrics.metrics import make_ranking_scorer
from sklearn_ltr_metrics.model_selection import (
    QueryKFold,
    StratifiedQueryKFold,
    cross_validate_ranking,
)

from .._data import make_data, ranker


@pytest.fixture(scope="module")
def data():
    return make_data(n_queries=24, n_docs=12)


def _test_queries(cv, X, y, qid):
    return [sorted(set(qid[test])) for _, test in cv.split(X, y, qid=qid)]


@pytest.mark.parametrize(
    "cv",
    [
        QueryKFold(4),
        QueryKFold(4, shuffle=True, random_state=0),
        StratifiedQueryKFold(4),
        StratifiedQueryKFold(4, shuffle=True, random_state=1),
    ],
    ids=repr,
)
def test_every_query_is_tested_once_and_never_split(data, cv):
    X, y, qid = data
    seen = []
    for train, test in cv.split(X, y, qid=qid):
        assert not set(qid[train]) & set(qid[test])
        assert len(train) + len(test) == len(qid)
        seen.extend(set(qid[test]))
    assert sorted(seen) == sorted(set(qid))
    assert cv.get_n_splits() == 4


def test_unshuffled_folds_are_group_kfold(data):
    X, y, qid = data
    ours = list(QueryKFold(5).split(X, y, qid=qid))
    theirs = list(GroupKFold(5).split(X, y, groups=qid))
    for (a_train, a_test), (b_train, b_test) in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a_train, b_train)
        np.testing.assert_array_equal(a_test, b_test)
    # groups= (routing off) and qid= (routing on) give the same folds
    by_groups = list(QueryKFold(5).split(X, y, groups=qid))
    np.testing.assert_array_equal(by_groups[2][1], ours[2][1])


def test_shuffle_is_seeded_and_balances_query_counts(data):
    X, y, qid = data
    a = _test_queries(QueryKFold(4, shuffle=True, random_state=0), X, y, qid)
    b = _test_queries(QueryKFold(4, shuffle=True, random_state=0), X, y, qid)
    c = _test_queries(QueryKFold(4, shuffle=True, random_state=1), X, y, qid)
    assert a == b
    assert a != c
    assert [len(t) for t in a] == [6, 6, 6, 6]
    with pytest.raises(ValueError, match="no effect without shuffling"):
        list(QueryKFold(4, random_state=0).split(X, y, qid=qid))


def test_stratified_deals_queries_by_n_pos():
    # n_pos per query: q0..q7 = 0, 0, 1, 1, 2, 2, 3, 3 -> each of 2 folds gets one of each.
    qid = np.repeat([f"q{i}" for i in range(8)], 4)
    y = np.zeros(32, dtype=int)
    for i, n_pos in enumerate([0, 0, 1, 1, 2, 2, 3, 3]):
        y[4 * i : 4 * i + n_pos] = 1
    X = np.zeros((32, 1))
    folds = _test_queries(StratifiedQueryKFold(2), X, y, qid)
    assert folds == [["q0", "q2", "q4", "q6"], ["q1", "q3", "q5", "q7"]]
    for _, test in StratifiedQueryKFold(2, shuffle=True, random_state=3).split(X, y, qid=qid):
        n_pos = pd.Series(y[test] > 0).groupby(qid[test]).sum()
        assert sorted(n_pos) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="needs y"):
        list(StratifiedQueryKFold(2).split(X, qid=qid))


def test_too_many_splits_and_bad_parameters(data):
    X, y, qid = data
    with pytest.raises(ValueError, match="n_splits=30 is more than the 24 queries"):
        list(QueryKFold(30).split(X, y, qid=qid))
    with pytest.raises(ValueError, match="n_splits"):
        QueryKFold(1).get_n_splits()
    with pytest.raises(TypeError, match="shuffle must be True or False"):
        list(QueryKFold(3, shuffle="yes").split(X, y, qid=qid))
    with pytest.raises(ValueError, match="qid has 10 entries"):
        list(QueryKFold(3).split(X, y, qid=qid[:10]))


# --------------------------------------------------------------------------------------------
# plain scikit-learn
# --------------------------------------------------------------------------------------------


def test_routing_on_needs_no_groups_and_matches_the_helper(data):
    X, y, qid = data
    metrics = ["ndcg@5", "map"]
    with sklearn.config_context(enable_metadata_routing=True):
        plain = cross_validate(
            ranker(),
            X,
            y,
            cv=QueryKFold(3),
            scoring=make_ranking_scorer(metrics),
            params={"qid": qid},
        )
    helper = cross_validate_ranking(ranker(), X, y, qid=qid, scoring=metrics, cv=3)
    for m in metrics:
        np.testing.assert_array_equal(plain[f"test_{m}"], helper[f"test_{m}"])


def test_routing_on_grid_search_fit_with_qid_only(data):
    X, y, qid = data
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            FeatureRanker(0),
            {"feature": [0, 1]},
            cv=QueryKFold(3),
            scoring=make_ranking_scorer("map"),
        ).fit(X, y, qid=qid)
    assert search.best_params_ == {"feature": 0}
    test = next(QueryKFold(3).split(X, y, qid=qid))[1]
    expected = evaluate(y[test], X[test, 0], qid=qid[test], metrics="map").mean("map")
    assert search.cv_results_["split0_test_score"][0] == expected


def test_routing_off_groups_reach_the_splitter(data):
    X, y, qid = data
    assert not sklearn.get_config()["enable_metadata_routing"]
    predictions = cross_val_predict(Ridge(), X, y, cv=QueryKFold(3), groups=qid)
    manual = np.empty(len(y))
    for train, test in QueryKFold(3).split(X, y, qid=qid):
        manual[test] = Ridge().fit(X[train], y[train]).predict(X[test])
    np.testing.assert_allclose(predictions, manual)


@pytest.mark.parametrize("routing", [False, True])
def test_missing_qid_explains_routing(data, routing):
    X, y, _ = data
    with (
        sklearn.config_context(enable_metadata_routing=routing),
        pytest.raises(MissingQueryIdsError, match=r"QueryKFold\.split needs the query id") as info,
    ):
        cross_validate(Ridge(), X, y, cv=QueryKFold(3), scoring=make_ranking_scorer("map"))
    text = str(info.value)
    assert f"Metadata routing is {'on' if routing else 'off'} now" in text
    assert "params={'qid': qid}" in text
    assert "sklearn.set_config(enable_metadata_routing=True)" in text
    assert "a DataFrame with a column 'qid'" in text
    assert "cross_validate_ranking" in text


def test_requests_qid_and_groups_for_split():
    from sklearn.utils.metadata_routing import get_routing_for_object

    requests = get_routing_for_object(QueryKFold()).split.requests
    assert requests == {"qid": True, "groups": True}
    with sklearn.config_context(enable_metadata_routing=True):
        aliased = QueryKFold().set_split_request(qid="query_id")
    assert get_routing_for_object(aliased).split.requests["qid"] == "query_id"
