"""Stacking with the package's splitters (issue 43): query-safe inner folds.

scikit-learn's ``StackingRegressor`` gives its splitter a ``random_state`` when it has none;
``QueryKFold`` without shuffling takes it as scikit-learn's ``KFold`` does (checked at
construction, ignored afterwards), so the stack equals one built by hand from
``cross_val_predict`` over the same query folds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import clone
from sklearn.ensemble import StackingRegressor
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import cross_val_predict

from sklearn_ltr_metrics.model_selection import QueryKFold, StratifiedQueryKFold
from sklearn_ltr_metrics.rankers import FeatureRanker, LambdaMARTRanker

from .._data import make_data, ranker

FEATURES = [f"f{i}" for i in range(5)]


@pytest.fixture(scope="module")
def data():
    X, y, qid = make_data(n_queries=12, n_docs=15)
    return pd.DataFrame(X, columns=FEATURES).assign(qid=qid), X, y, qid


def _bases():
    return [("lambdamart", ranker()), ("bm25", FeatureRanker(0))]


def _by_hand(final, X, y, cv, **params):
    """A query-safe stack built by hand: out-of-fold predictions, then the final model."""
    meta = np.column_stack(
        [cross_val_predict(clone(est), X, y, cv=cv, params=params) for _, est in _bases()]
    )
    final = clone(final).fit(meta, y, **params)
    fitted = [clone(est).fit(X, y, **params) for _, est in _bases()]
    return final.predict(np.column_stack([est.predict(X) for est in fitted]))


@pytest.mark.parametrize("cv", [QueryKFold(3), StratifiedQueryKFold(3)])
def test_stacking_routing_off_equals_a_query_safe_stack_by_hand(data, cv):
    frame, _, y, _ = data
    stack = StackingRegressor(_bases(), final_estimator=LinearRegression(), cv=cv)
    got = stack.fit(frame, y).predict(frame)
    np.testing.assert_array_equal(got, _by_hand(LinearRegression(), frame, y, cv))


def test_stacking_routing_on_equals_a_query_safe_stack_by_hand(data):
    # Under routing scikit-learn passes every fit parameter to the final estimator too, so
    # the final model takes qid: a ranker over the base rankers' scores.
    _, X, y, qid = data
    final = LambdaMARTRanker(n_estimators=5, min_child_samples=5, random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        stack = StackingRegressor(_bases(), final_estimator=final, cv=QueryKFold(3))
        got = stack.fit(X, y, qid=qid).predict(X)
        want = _by_hand(final, X, y, QueryKFold(3), qid=qid)
    np.testing.assert_array_equal(got, want)


def test_random_state_without_shuffle_is_refused_at_construction():
    with pytest.raises(ValueError, match="no effect without shuffling"):
        QueryKFold(3, random_state=0)
    with pytest.raises(ValueError, match="no effect without shuffling"):
        StratifiedQueryKFold(3, random_state=0)
    cv = QueryKFold(3)
    cv.random_state = np.random.RandomState(0)  # what StackingRegressor does
    qid = np.repeat(np.arange(6), 2)
    folds = [test.tolist() for _, test in cv.split(np.zeros((12, 1)), qid=qid)]
    assert folds == [test.tolist() for _, test in QueryKFold(3).split(np.zeros((12, 1)), qid=qid)]
