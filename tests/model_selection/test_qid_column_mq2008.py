"""Plain scikit-learn on MQ2008 with the query ids as a ``qid`` column of X (issue 27).

Every scikit-learn tool, given a DataFrame with a ``qid`` column and nothing routed, gives
the numbers of the routed helpers (``cross_validate_ranking`` and ``RankingGridSearchCV`` on
an array with ``qid=``), for LambdaMARTRanker and QueryAwareRanker around LGBMRanker and
XGBRanker, with metadata routing off and on. The reference is always computed on the plain
array with ``qid=`` passed explicitly, never from the column. Kept cheap: vali.txt of Fold1,
6 features, 5 trees, 3 folds.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.datasets import load_svmlight_file
from sklearn.experimental import enable_halving_search_cv  # noqa: F401 (enables the import)
from sklearn.feature_selection import RFECV, SequentialFeatureSelector
from sklearn.inspection import permutation_importance
from sklearn.model_selection import (
    GridSearchCV,
    HalvingGridSearchCV,
    RandomizedSearchCV,
    cross_val_predict,
    cross_val_score,
    cross_validate,
    learning_curve,
    validation_curve,
)

from sklearn_ltr_metrics import MissingQueryIdsError, evaluate
from sklearn_ltr_metrics.metrics import make_ranking_scorer
from sklearn_ltr_metrics.model_selection import (
    QueryKFold,
    RankingGridSearchCV,
    RankingRandomizedSearchCV,
    cross_validate_ranking,
)
from sklearn_ltr_metrics.rankers import LambdaMARTRanker, QueryAwareRanker

from ..conftest import missing_data

# Real and generated queries without relevant documents are left out of the means on
# purpose here; DroppedQueriesWarning itself is tested in tests/metrics.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn_ltr_metrics.metrics.DroppedQueriesWarning")

METRICS = ["ndcg@10", "map"]
N_FEATURES = 6
CV = 3


def _lambdamart():
    return LambdaMARTRanker(n_estimators=5, num_leaves=7, random_state=0)


def _lgbm():
    from lightgbm import LGBMRanker

    return QueryAwareRanker(
        LGBMRanker(n_estimators=5, num_leaves=7, verbose=-1, random_state=0, n_jobs=1)
    )


def _xgb():
    from xgboost import XGBRanker

    return QueryAwareRanker(
        XGBRanker(
            n_estimators=5,
            max_depth=3,
            learning_rate=0.1,
            tree_method="exact",  # 8x faster than "hist" on 2.7k rows
            random_state=0,
            n_jobs=1,
        )
    )


#: name -> (estimator factory, the prefix of its own parameters).
RANKERS = {
    "lambdamart": (_lambdamart, ""),
    "lgbm": (_lgbm, "estimator__"),
    "xgb": (_xgb, "estimator__"),
}


@pytest.fixture(scope="module")
def mq2008(datasets_dir):
    path = datasets_dir / "mq2008-fold1" / "vali.txt"
    if not path.is_file():
        pytest.skip(missing_data("mq2008-fold1/vali.txt (LETOR 4.0 MQ2008, Fold1)"))
    X, y, qid = load_svmlight_file(str(path), query_id=True, n_features=46)
    X = X[:, :N_FEATURES].toarray()
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(N_FEATURES)]).assign(qid=qid)
    return frame, X, y.astype(int), qid


# Metadata routing off in the default run, on in the slow run (tests/model_selection/test_select.py
# checks that both routes give the same numbers on generated data in the default run).
@pytest.fixture(
    params=[False, pytest.param(True, marks=pytest.mark.slow)], ids=["routing_off", "routing_on"]
)
def routing(request):
    with sklearn.config_context(enable_metadata_routing=request.param):
        yield request.param


# LambdaMART in the default run; the wrapped LGBMRanker and XGBRanker (the same routes through
# scikit-learn) in the slow run.
@pytest.fixture(
    params=[
        name if name == "lambdamart" else pytest.param(name, marks=pytest.mark.slow)
        for name in RANKERS
    ]
)
def ranker(request):
    return request.param


_REFERENCE = {}


def reference(name, X, y, qid, **params):
    """``cross_validate_ranking`` on the array with qid= (cached per ranker and params)."""
    if params.get("learning_rate") == 0.1:  # every factory's own learning rate
        del params["learning_rate"]
    key = (name, tuple(sorted(params.items())))
    if key not in _REFERENCE:
        make, prefix = RANKERS[name]
        est = make().set_params(**{prefix + k: v for k, v in params.items()})
        _REFERENCE[key] = cross_validate_ranking(est, X, y, qid=qid, scoring=METRICS, cv=CV)
    return _REFERENCE[key]


def _assert_finite(values):
    values = np.asarray(values, dtype=float)
    assert np.isfinite(values).all(), values


def test_cross_validate(mq2008, ranker, routing):
    frame, X, y, qid = mq2008
    plain = cross_validate(
        RANKERS[ranker][0](), frame, y, cv=QueryKFold(CV), scoring=make_ranking_scorer(METRICS)
    )
    ref = reference(ranker, X, y, qid)
    for m in METRICS:
        _assert_finite(plain[f"test_{m}"])
        np.testing.assert_array_equal(plain[f"test_{m}"], ref[f"test_{m}"])
    assert 0.5 < ref["test_ndcg@10"].mean() < 0.9


def test_cross_val_score(mq2008, ranker, routing):
    frame, X, y, qid = mq2008
    plain = cross_val_score(
        RANKERS[ranker][0](), frame, y, cv=QueryKFold(CV), scoring=make_ranking_scorer("map")
    )
    _assert_finite(plain)
    np.testing.assert_array_equal(plain, reference(ranker, X, y, qid)["test_map"])


def test_cross_val_predict_and_evaluate(mq2008, ranker, routing):
    frame, X, y, qid = mq2008
    pred = cross_val_predict(RANKERS[ranker][0](), frame, y, cv=QueryKFold(CV))
    ref = reference(ranker, X, y, qid)
    for i, (_, test) in enumerate(QueryKFold(CV).split(X, groups=qid)):
        values = evaluate(y[test], pred[test], qid=qid[test], metrics=METRICS).mean()
        for m in METRICS:
            assert values[m] == ref[f"test_{m}"][i]


def _split_scores(cv_results, metric, candidate):
    return np.array([cv_results[f"split{i}_test_{metric}"][candidate] for i in range(CV)])


def test_grid_search(mq2008, ranker, routing):
    frame, X, y, qid = mq2008
    make, prefix = RANKERS[ranker]
    grid = {prefix + "learning_rate": [0.1, 0.3]}
    plain = GridSearchCV(
        make(), grid, cv=QueryKFold(CV), scoring=make_ranking_scorer(METRICS), refit="ndcg@10"
    ).fit(frame, y)
    ours = RankingGridSearchCV(make(), grid, cv=CV, scoring=METRICS, refit="ndcg@10").fit(
        X, y, qid=qid
    )
    for m in METRICS:
        _assert_finite(plain.cv_results_[f"mean_test_{m}"])
        np.testing.assert_array_equal(
            plain.cv_results_[f"mean_test_{m}"], ours.cv_results_[f"mean_test_{m}"]
        )
        np.testing.assert_array_equal(
            _split_scores(plain.cv_results_, m, 0), reference(ranker, X, y, qid)[f"test_{m}"]
        )
    assert plain.best_params_ == ours.best_params_
    assert plain.score(frame, y) == ours.score(X, y, qid=qid)


def test_randomized_search(mq2008, ranker, routing):
    frame, X, y, qid = mq2008
    make, prefix = RANKERS[ranker]
    dists = {prefix + "learning_rate": [0.05, 0.1, 0.3]}
    kwargs = {"n_iter": 2, "random_state": 0, "scoring": "ndcg@10"}
    ours = RankingRandomizedSearchCV(make(), dists, cv=CV, **kwargs).fit(X, y, qid=qid)
    kwargs["scoring"] = make_ranking_scorer("ndcg@10")
    plain = RandomizedSearchCV(make(), dists, cv=QueryKFold(CV), **kwargs).fit(frame, y)
    _assert_finite(plain.cv_results_["mean_test_score"])
    assert plain.cv_results_["params"] == ours.cv_results_["params"]
    np.testing.assert_array_equal(
        plain.cv_results_["mean_test_score"], ours.cv_results_["mean_test_score"]
    )
    assert plain.best_params_ == ours.best_params_


def test_halving_grid_search_over_trees(mq2008, ranker, routing):
    # scikit-learn's default resource (rows) would cut queries; trees keep them whole.
    frame, X, y, qid = mq2008
    make, prefix = RANKERS[ranker]
    plain = HalvingGridSearchCV(
        make(),
        {prefix + "learning_rate": [0.1, 0.3]},
        resource=prefix + "n_estimators",
        min_resources=2,
        max_resources=4,
        factor=2,
        cv=QueryKFold(CV),
        scoring=make_ranking_scorer("ndcg@10"),
    ).fit(frame, y)
    results = plain.cv_results_
    _assert_finite(results["mean_test_score"])
    assert list(results["n_resources"]) == [2, 2, 4]
    for row, params in enumerate(results["params"]):
        own = {key.removeprefix(prefix): value for key, value in params.items()}
        ref = reference(ranker, X, y, qid, **own)
        np.testing.assert_array_equal(_split_scores(results, "score", row), ref["test_ndcg@10"])


def test_validation_curve(mq2008, ranker, routing):
    frame, X, y, qid = mq2008
    make, prefix = RANKERS[ranker]
    _, test = validation_curve(
        make(),
        frame,
        y,
        param_name=prefix + "learning_rate",
        param_range=[0.1, 0.3],
        cv=QueryKFold(CV),
        scoring=make_ranking_scorer("ndcg@10"),
    )
    _assert_finite(test)
    for row, rate in enumerate([0.1, 0.3]):
        ref = reference(ranker, X, y, qid, learning_rate=rate)
        np.testing.assert_array_equal(test[row], ref["test_ndcg@10"])


def test_learning_curve(mq2008, ranker, routing):
    frame, X, y, qid = mq2008
    make, _ = RANKERS[ranker]
    sizes, _, test = learning_curve(
        make(),
        frame,
        y,
        train_sizes=[0.5, 1.0],
        cv=QueryKFold(CV),
        scoring=make_ranking_scorer("ndcg@10"),
    )
    _assert_finite(test)
    # scikit-learn trains on the first n rows of each training fold: the same splits, given
    # to the helper as index pairs, give the same numbers.
    folds = list(QueryKFold(CV).split(X, groups=qid))
    for row, n in enumerate(sizes):
        splits = [(train[:n], test_rows) for train, test_rows in folds]
        ref = cross_validate_ranking(make(), X, y, qid=qid, cv=splits, scoring="ndcg@10")
        np.testing.assert_array_equal(test[row], ref["test_score"])
    # (At 1.0, n is the first fold's training size, so larger folds are cut too.)


def test_permutation_importance(mq2008, ranker, routing):
    frame, X, y, qid = mq2008
    make, _ = RANKERS[ranker]
    scorer = make_ranking_scorer("ndcg@10")
    plain = permutation_importance(
        make().fit(frame, y), frame, y, scoring=scorer, n_repeats=2, random_state=0
    )
    routed = permutation_importance(
        make().fit(X, y, qid=qid),
        X,
        y,
        scoring=partial(scorer, qid=qid),
        n_repeats=2,
        random_state=0,
    )
    # The last column is qid itself: permuting it scrambles the queries (documented).
    assert plain.importances.shape == (N_FEATURES + 1, 2)
    _assert_finite(plain.importances)
    np.testing.assert_array_equal(plain.importances[:N_FEATURES], routed.importances)
    assert routed.importances_mean.max() > 0


def _importance_getter(ranker):
    return "auto" if ranker == "lambdamart" else "estimator_.feature_importances_"


def test_rfecv(mq2008, ranker, routing):
    frame, X, y, qid = mq2008
    make, _ = RANKERS[ranker]
    rfecv = RFECV(
        make(),
        min_features_to_select=N_FEATURES - 1,
        cv=QueryKFold(CV),
        scoring=make_ranking_scorer("ndcg@10"),
        importance_getter=_importance_getter(ranker),
    )
    if not routing:
        # RFECV turns X into an array before splitting, so the column is gone: a clear
        # error, never NaN scores.
        with pytest.raises(MissingQueryIdsError, match=r"QueryKFold\.split needs the query id"):
            rfecv.fit(frame, y)
        with pytest.raises(MissingQueryIdsError, match=r"\.fit needs the query id"):
            rfecv.fit(X, y, groups=qid)
        return
    rfecv.fit(X, y, qid=qid)
    results = rfecv.cv_results_
    _assert_finite(results["mean_test_score"])
    every = list(results["n_features"]).index(N_FEATURES)
    np.testing.assert_array_equal(
        _split_scores(results, "score", every), reference(ranker, X, y, qid)["test_ndcg@10"]
    )


def test_sequential_feature_selector(mq2008, ranker, routing):
    frame, X, y, qid = mq2008
    make, _ = RANKERS[ranker]
    sfs = SequentialFeatureSelector(
        make(), n_features_to_select=1, cv=QueryKFold(CV), scoring=make_ranking_scorer("map")
    )
    if not routing:
        with pytest.raises(MissingQueryIdsError, match=r"QueryKFold\.split needs the query id"):
            sfs.fit(frame, y)
        return
    sfs.fit(X[:, :3], y, qid=qid)
    means = [
        cross_validate_ranking(make(), X[:, [j]], y, qid=qid, cv=CV, scoring="map")[
            "test_score"
        ].mean()
        for j in range(3)
    ]
    assert np.isfinite(means).all()
    assert sfs.get_support(indices=True).tolist() == [int(np.argmax(means))]
