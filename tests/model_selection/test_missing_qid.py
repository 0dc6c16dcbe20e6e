"""``MissingQueryIdsError`` (issue 43): an ordinary ``Exception`` that still stops searches.

scikit-learn's scoring step turns a scorer's ``Exception`` into NaN (``error_score``); the
package's scorers and rankers make it raise there instead, for every kind of scoring,
``error_score``, ``n_jobs`` and routing. ``scoring=None`` with ``qid`` given to ``fit`` only,
and ``Pipeline.score(X, y, qid=qid)`` with routing off, say where ``qid`` went.
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_validate, validation_curve
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_ltr_metrics.metrics import (
    EstimatorMissingQueryIdsError,
    MissingQueryIdsError,
    make_ranking_scorer,
)
from sklearn_ltr_metrics.model_selection import QueryKFold
from sklearn_ltr_metrics.rankers import FeatureRanker

from .._data import make_data, ranker

SCORINGS = [
    None,
    make_ranking_scorer("map"),
    make_ranking_scorer(["map", "mrr"]),
    {"a": make_ranking_scorer("map"), "b": make_ranking_scorer("mrr")},
]


@pytest.fixture(scope="module")
def data():
    return make_data(n_queries=6, n_docs=10)


def test_it_is_an_ordinary_exception():
    assert issubclass(MissingQueryIdsError, Exception)
    assert issubclass(EstimatorMissingQueryIdsError, (MissingQueryIdsError, TypeError))
    try:
        QueryKFold(2).get_n_splits()
        next(QueryKFold(2).split(np.zeros((4, 1))))
    except Exception as error:  # what Optuna's catch= and user loops do
        assert isinstance(error, MissingQueryIdsError)


@pytest.mark.parametrize("error_score", [np.nan, "raise"])
@pytest.mark.parametrize("scoring", SCORINGS)
def test_qid_given_to_fit_only_stops_cross_validate(data, scoring, error_score):
    X, y, qid = data
    with pytest.raises(MissingQueryIdsError, match="found none"):
        cross_validate(
            ranker(),
            X,
            y,
            cv=GroupKFold(3),
            groups=qid,
            params={"qid": qid},
            scoring=scoring,
            error_score=error_score,
        )


@pytest.mark.parametrize("scoring", SCORINGS)
def test_a_search_of_a_baseline_is_stopped(data, scoring, n_jobs=1):
    X, y, qid = data
    refit = "a" if isinstance(scoring, dict) else ("map" if scoring is SCORINGS[2] else True)
    search = GridSearchCV(
        FeatureRanker(0),
        {"feature": [0, 1]},
        cv=GroupKFold(3),
        scoring=scoring,
        refit=refit,
        n_jobs=n_jobs,
    )
    with pytest.raises(MissingQueryIdsError):
        search.fit(X, y, groups=qid)


@pytest.mark.slow
def test_a_search_is_stopped_in_worker_processes(data):
    test_a_search_of_a_baseline_is_stopped(data, None, n_jobs=2)


def test_validation_curve_is_stopped(data):
    X, y, qid = data
    with pytest.raises(MissingQueryIdsError):
        validation_curve(
            FeatureRanker(0),
            X,
            y,
            param_name="feature",
            param_range=[0, 1],
            cv=GroupKFold(3),
            groups=qid,
        )


def test_routing_on_score_without_qid_is_stopped(data):
    X, y, qid = data
    with sklearn.config_context(enable_metadata_routing=True):
        deaf = FeatureRanker(0).set_score_request(qid=False)
        with pytest.raises(MissingQueryIdsError):
            cross_validate(deaf, X, y, cv=QueryKFold(3), params={"qid": qid})
        scorer = make_ranking_scorer("map").set_score_request(qid=False)
        with pytest.raises(MissingQueryIdsError):
            cross_validate(ranker(), X, y, cv=QueryKFold(3), params={"qid": qid}, scoring=scorer)


def test_messages_say_where_qid_went(data):
    X, y, qid = data
    with pytest.raises(MissingQueryIdsError, match="fitted with query ids"):
        cross_validate(ranker(), X, y, cv=GroupKFold(3), groups=qid, params={"qid": qid})
    pipe = make_pipeline(StandardScaler(), ranker()).fit(X, y, lambdamartranker__qid=qid)
    with pytest.raises(MissingQueryIdsError, match="the Pipeline dropped qid"):
        pipe.score(X, y, qid=qid)
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = make_pipeline(StandardScaler(), ranker()).fit(X, y, qid=qid)
        assert 0 < pipe.score(X, y, qid=qid) <= 1


def test_without_scikit_learns_scoring_step_the_error_is_raised_as_it_is(data, monkeypatch):
    # Should a scikit-learn version rename its scoring step, the scorer raises the error and
    # that version turns it into NaN with a warning naming it (never silently).
    from sklearn_ltr_metrics import _sklearn_calls

    X, y, qid = data
    monkeypatch.setattr(_sklearn_calls, "_code", lambda module, qualname: None)
    with pytest.warns(UserWarning, match="MissingQueryIdsError"):
        res = cross_validate(
            FeatureRanker(0),
            X,
            y,
            cv=GroupKFold(3),
            groups=qid,
            scoring=make_ranking_scorer("map"),
        )
    assert np.isnan(res["test_score"]).all()
    with pytest.raises(MissingQueryIdsError):
        make_ranking_scorer("map")(FeatureRanker(0).fit(X), X, y)
