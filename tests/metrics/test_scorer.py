"""make_ranking_scorer: values, repr/pickle, errors, and qid routing in every sklearn entry point.

"By hand" below means: fit a clone on the fold's training rows, predict the test rows, and call
``evaluate`` on them. The scorer's value must equal that mean exactly.
"""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import BaseEstimator, clone
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    RandomizedSearchCV,
    cross_val_predict,
    cross_validate,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_ltr_metrics import FeatureRanker, MissingQueryIdsError, OracleRanker, evaluate
from sklearn_ltr_metrics.metrics._scorer import make_ranking_scorer

from .._data import METRICS, make_data, ranker


def query_cv(n_splits=3):
    """GroupKFold that reads qid as its groups under routing: one params={'qid': qid}."""
    return GroupKFold(n_splits).set_split_request(groups="qid")


def by_hand(estimator, X, y, qid, train, test, metrics=METRICS, **params):
    model = clone(estimator).set_params(**params).fit(X[train], y[train], qid=qid[train])
    ev = evaluate(y[test], model.predict(X[test]), qid=qid[test], metrics=metrics)
    return {m: ev.mean(m) for m in metrics}


@pytest.fixture(scope="module")
def data():
    return make_data()


@pytest.fixture(scope="module")
def lgbm_data(datasets_dir):
    path = datasets_dir / "lightgbm-lambdarank" / "rank.train.qid.svm"
    X, y, qid = load_svmlight_file(str(path), query_id=True, n_features=300)
    return X.tocsr(), y.astype(int), qid


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


class CountingRanker(FeatureRanker):
    """FeatureRanker that counts its predict calls."""

    n_predict = 0

    def predict(self, X):
        type(self).n_predict += 1
        return super().predict(X)


# --------------------------------------------------------------------------------------------
# the scorer on its own
# --------------------------------------------------------------------------------------------


def test_value_is_evaluate_mean(data):
    X, y, qid = data
    model = FeatureRanker(0).fit(X)
    ev = evaluate(y, X[:, 0], qid=qid, metrics=METRICS)
    for m in METRICS:
        assert make_ranking_scorer(m)(model, X, y, qid=qid) == ev.mean(m)
    assert make_ranking_scorer(METRICS)(model, X, y, qid=qid) == {m: ev.mean(m) for m in METRICS}
    negated = make_ranking_scorer("map", greater_is_better=False)(model, X, y, qid=qid)
    assert negated == -ev.mean("map")


def test_hand_computed_tiny_case():
    # q1: relevant row ranked 2nd of 3 -> MRR 1/2; q2: relevant row first -> 1.
    X = np.array([[0.2], [0.9], [0.1], [0.8], [0.3]])
    y = np.array([1, 0, 0, 1, 0])
    qid = ["q1", "q1", "q1", "q2", "q2"]
    model = FeatureRanker(0).fit(X)
    assert make_ranking_scorer("mrr")(model, X, y, qid=qid) == 0.75
    assert make_ranking_scorer(["precision@1", "recall@2"])(model, X, y, qid=qid) == {
        "precision@1": 0.5,
        "recall@2": 1.0,
    }


def test_options_change_the_value(data):
    X, y, qid = data
    model = FeatureRanker(0).fit(X)
    exp = make_ranking_scorer("ndcg@10")(model, X, y, qid=qid)
    lin = make_ranking_scorer("ndcg@10", gain="linear")(model, X, y, qid=qid)
    ref = evaluate(y, X[:, 0], qid=qid, metrics="ndcg@10", gain="linear").mean("ndcg@10")
    assert lin == ref
    assert lin != exp
    strict = make_ranking_scorer("recall@5", min_relevance=2)(model, X, y, qid=qid)
    ref = evaluate(y, X[:, 0], qid=qid, metrics="recall@5", min_relevance=2).mean("recall@5")
    assert strict == ref


def test_k_applies_to_plain_names():
    assert make_ranking_scorer("recall", k="adaptive").metrics == ("recall@adaptive",)
    # NDCG@5 is ir_measures' alias of nDCG@5 (its own cut-off, trec_eval's gain), Ndcg ours.
    assert make_ranking_scorer(["ndcg", "Ndcg@5", "NDCG@5", "map"], k=10).metrics == (
        "ndcg@10",
        "ndcg@5",
        "NDCG@5",
        "map@10",
    )


def at_1_and_3(n_pos, n_neg):
    return [1, 3]


@pytest.mark.parametrize("k", [[1, 3], at_1_and_3])
def test_list_and_callable_k(data, k):
    X, y, qid = data
    model = FeatureRanker(0).fit(X)
    scorer = make_ranking_scorer(["recall", "precision"], k=k)
    ev = evaluate(y, X[:, 0], qid=qid, metrics=["recall", "precision"], k=k)
    assert scorer(model, X, y, qid=qid) == {m: ev.mean(m) for m in ev.metrics}
    assert list(scorer(model, X, y, qid=qid)) == list(scorer.metrics)


def test_repr_is_readable_and_round_trips():
    cases = [
        (make_ranking_scorer("recall", k="adaptive"), "make_ranking_scorer('recall@adaptive')"),
        (make_ranking_scorer(["ndcg@10", "map"]), "make_ranking_scorer(['ndcg@10', 'map'])"),
        (
            make_ranking_scorer("map", greater_is_better=False, conventions="lightgbm"),
            "make_ranking_scorer('map', greater_is_better=False, conventions='lightgbm')",
        ),
        (
            make_ranking_scorer("ndcg@5").set_score_request(qid="query_id"),
            "make_ranking_scorer('ndcg@5').set_score_request(qid='query_id')",
        ),
    ]
    for scorer, text in cases:
        assert repr(scorer) == text
        assert repr(eval(text)) == text
    with_list_k = make_ranking_scorer("recall", k=[1, 3])
    assert repr(with_list_k) == "make_ranking_scorer('recall', k=[1, 3])"


def test_pickle_round_trip(data):
    X, y, qid = data
    model = FeatureRanker(1).fit(X)
    scorer = make_ranking_scorer(METRICS, empty_query="zero", gain="linear")
    copy = pickle.loads(pickle.dumps(scorer))
    assert repr(copy) == repr(scorer)
    assert copy(model, X, y, qid=qid) == scorer(model, X, y, qid=qid)


def test_multimetric_predicts_once(data):
    X, y, qid = data
    model = CountingRanker(0).fit(X)
    CountingRanker.n_predict = 0
    make_ranking_scorer(["ndcg@10", "map", "mrr", "precision@5", "recall@10", "err@10"])(
        model, X, y, qid=qid
    )
    assert CountingRanker.n_predict == 1


def test_all_queries_undefined_is_nan_with_warning():
    X = np.array([[1.0], [2.0], [3.0], [4.0]])
    model = FeatureRanker(0).fit(X)
    with pytest.warns(RuntimeWarning, match="Every query is undefined"):
        value = make_ranking_scorer("recall@2")(model, X, [0, 0, 0, 0], qid=[1, 1, 2, 2])
    assert np.isnan(value)


def test_oracle_gets_the_labels(data):
    X, y, qid = data
    oracle = OracleRanker().fit(X)
    scorer = make_ranking_scorer(["ndcg@10", "map"])
    # The oracle's tied labels make NDCG 1 up to rounding of the tie-averaged DCG.
    perfect = {"ndcg@10": pytest.approx(1.0, abs=1e-12), "map": 1.0}
    assert scorer(oracle, X, y, qid=qid) == perfect
    pipe = make_pipeline(StandardScaler(), OracleRanker()).fit(X, y)
    assert scorer(pipe, X, y, qid=qid) == perfect


def test_string_qids_pandas_and_row_order(data):
    X, y, qid = data
    model = FeatureRanker(2).fit(X)
    scorer = make_ranking_scorer(METRICS)
    expected = scorer(model, X, y, qid=qid)
    order = np.argsort(qid, kind="stable")
    index = np.arange(len(y))[::-1] * 7
    got = scorer(
        model,
        pd.DataFrame(X[order], index=index),
        pd.Series(y[order], index=index),
        qid=pd.Series(qid[order], index=index, dtype="string"),
    )
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)


# --------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------


def test_missing_qid_says_how_to_pass_it(data):
    X, y, _ = data
    model = FeatureRanker(0).fit(X)
    with pytest.raises(MissingQueryIdsError) as info:
        make_ranking_scorer("ndcg@10")(model, X, y)
    text = str(info.value)
    assert "needs the query id of every row" in text
    assert "a DataFrame with a column 'qid'" in text
    assert "sklearn.set_config(enable_metadata_routing=True)" in text
    assert "params={'qid': qid}" in text
    assert "cross_validate_ranking" in text


def test_missing_qid_without_routing_in_cross_validate(data):
    X, y, qid = data
    scorer = make_ranking_scorer("ndcg@10")
    with pytest.raises(MissingQueryIdsError, match="enable_metadata_routing=True"):
        cross_validate(
            Ridge(), X, y, groups=qid, cv=GroupKFold(3), scoring=scorer, error_score="raise"
        )
    # Even with scikit-learn's default error_score=nan the error stops the call: never a
    # warning and NaN scores, never a number computed as if the fold were one query.
    with pytest.raises(MissingQueryIdsError, match="groups=qid"):
        cross_validate(Ridge(), X, y, groups=qid, cv=GroupKFold(3), scoring=scorer)


def test_metric_typo_fails_at_construction():
    with pytest.raises(ValueError, match=r"Did you mean 'ndcg'.*Valid names: .*map"):
        make_ranking_scorer("ndgc@10")
    with pytest.raises(ValueError, match="not a known metric"):
        make_ranking_scorer(["map", "recal@5"])


def test_bad_options_fail_at_construction():
    with pytest.raises(TypeError, match=r"unexpected option.*'tie'"):
        make_ranking_scorer("map", tie="stable")
    with pytest.raises(ValueError, match="conventions='trec'"):
        make_ranking_scorer("map", conventions="trec")
    with pytest.raises(ValueError, match="ties='random'"):
        make_ranking_scorer("map", ties="random")
    with pytest.raises(ValueError, match="gain="):
        make_ranking_scorer("ndcg", gain="log")
    with pytest.raises(ValueError, match="doc_id"):
        make_ranking_scorer("map", conventions="trec_eval")
    with pytest.raises(ValueError, match="not a valid cut-off"):
        make_ranking_scorer("recall", k="adaptiv")
    with pytest.raises(TypeError, match="metric spec string"):
        make_ranking_scorer({"ndcg@10": 1})  # a mapping (a set is a list of specs: issue 43)
    with pytest.raises(TypeError, match="greater_is_better"):
        make_ranking_scorer("map", greater_is_better="yes")
    with pytest.raises(ValueError, match="beta"):
        make_ranking_scorer("fbeta@5", beta=-1)


def test_estimator_without_predict(data):
    X, y, qid = data

    class NoPredict(BaseEstimator):
        def fit(self, X, y=None):
            return self

    with pytest.raises(TypeError, match="NoPredict has no predict method"):
        make_ranking_scorer("map")(NoPredict().fit(X), X, y, qid=qid)


def test_wrong_qid_length(data):
    X, y, qid = data
    with pytest.raises(ValueError, match=f"qid has {len(y) - 1}"):
        make_ranking_scorer("map")(FeatureRanker(0).fit(X), X, y, qid=qid[:-1])


# --------------------------------------------------------------------------------------------
# metadata routing
# --------------------------------------------------------------------------------------------


def test_requests_qid_through_public_api():
    from sklearn.utils.metadata_routing import get_routing_for_object

    scorer = make_ranking_scorer("map")
    request = get_routing_for_object(scorer)
    assert request.consumes("score", ["qid", "sample_weight"]) == {"qid"}
    scorer.set_score_request(qid="query_id")
    assert get_routing_for_object(scorer).consumes("score", ["qid", "query_id"]) == {"query_id"}
    with pytest.raises(ValueError, match="alias"):
        scorer.set_score_request(qid="not an identifier")


def test_cross_validate_matches_by_hand(data, routing):
    X, y, qid = data
    scorer = make_ranking_scorer(METRICS)
    res = cross_validate(
        ranker(), X, y, cv=query_cv(), scoring=scorer, params={"qid": qid}, return_indices=True
    )
    for i, (train, test) in enumerate(zip(*res["indices"].values(), strict=True)):
        assert not set(qid[train]) & set(qid[test])
        expected = by_hand(ranker(), X, y, qid, train, test)
        assert {m: res[f"test_{m}"][i] for m in METRICS} == expected


@pytest.mark.slow  # n_jobs=2: joblib's worker processes
def test_cross_validate_groups_pattern_and_n_jobs(data, routing):
    X, y, qid = data
    scorer = make_ranking_scorer(METRICS)
    one = cross_validate(ranker(), X, y, cv=query_cv(), scoring=scorer, params={"qid": qid})
    # The documented alternative: plain GroupKFold, qid passed twice.
    two = cross_validate(
        ranker(),
        X,
        y,
        cv=GroupKFold(3),
        scoring=scorer,
        params={"qid": qid, "groups": qid},
        n_jobs=2,
    )
    for m in METRICS:
        np.testing.assert_array_equal(one[f"test_{m}"], two[f"test_{m}"])


def test_scorer_alias(data, routing):
    X, y, qid = data
    scorer = make_ranking_scorer("map").set_score_request(qid="query_id")
    model = ranker().set_fit_request(qid="query_id")
    cv = GroupKFold(3).set_split_request(groups="query_id")
    res = cross_validate(model, X, y, cv=cv, scoring=scorer, params={"query_id": qid})
    ref = cross_validate(
        ranker(), X, y, cv=query_cv(), scoring=make_ranking_scorer("map"), params={"qid": qid}
    )
    np.testing.assert_array_equal(res["test_score"], ref["test_score"])


@pytest.mark.parametrize("dict_scoring", [False, True])
def test_grid_search_multimetric_refit_by_name(data, routing, dict_scoring):
    X, y, qid = data
    if dict_scoring:
        scoring = {m: make_ranking_scorer(m) for m in METRICS}
    else:
        scoring = make_ranking_scorer(METRICS)
    grid = {"learning_rate": [0.05, 0.3]}
    search = GridSearchCV(ranker(), grid, scoring=scoring, refit="map", cv=query_cv())
    search.fit(X, y, qid=qid)
    folds = list(GroupKFold(3).split(X, y, groups=qid))
    for c, params in enumerate(search.cv_results_["params"]):
        for i, (train, test) in enumerate(folds):
            expected = by_hand(ranker(), X, y, qid, train, test, **params)
            for m in METRICS:
                assert search.cv_results_[f"split{i}_test_{m}"][c] == expected[m]
    best = int(np.argmax(search.cv_results_["mean_test_map"]))
    assert search.best_index_ == best
    assert search.best_score_ == search.cv_results_["mean_test_map"][best]
    refit = clone(ranker()).set_params(**search.best_params_).fit(X, y, qid=qid)
    expected = evaluate(y, refit.predict(X), qid=qid, metrics="map").mean("map")
    assert search.score(X, y, qid=qid) == expected


def test_grid_search_single_metric(data, routing):
    X, y, qid = data
    search = GridSearchCV(
        ranker(), {"num_leaves": [4, 15]}, scoring=make_ranking_scorer("ndcg@10"), cv=query_cv()
    ).fit(X, y, qid=qid)
    train, test = next(GroupKFold(3).split(X, y, groups=qid))
    expected = by_hand(ranker(), X, y, qid, train, test, ["ndcg@10"], num_leaves=4)
    assert search.cv_results_["split0_test_score"][0] == expected["ndcg@10"]


def test_randomized_search(data, routing):
    X, y, qid = data
    search = RandomizedSearchCV(
        ranker(),
        {"learning_rate": [0.05, 0.1, 0.3]},
        n_iter=2,
        random_state=0,
        scoring=make_ranking_scorer(METRICS),
        refit="ndcg@10",
        cv=query_cv(),
    ).fit(X, y, qid=qid)
    params = search.cv_results_["params"][0]
    train, test = next(GroupKFold(3).split(X, y, groups=qid))
    expected = by_hand(ranker(), X, y, qid, train, test, **params)
    assert search.cv_results_["split0_test_recall@adaptive"][0] == expected["recall@adaptive"]


def test_nested_cv(data, routing):
    X, y, qid = data
    scorer = make_ranking_scorer(["ndcg@10", "map"])
    inner = GridSearchCV(
        ranker(), {"learning_rate": [0.05, 0.3]}, scoring=scorer, refit="ndcg@10", cv=query_cv()
    )
    res = cross_validate(
        inner,
        X,
        y,
        cv=query_cv(),
        scoring=scorer,
        params={"qid": qid},
        return_indices=True,
        return_estimator=True,
    )
    train, test = res["indices"]["train"][0], res["indices"]["test"][0]
    # The inner search saw only the outer training queries, split into whole queries.
    fitted = res["estimator"][0]
    manual = clone(inner).fit(X[train], y[train], qid=qid[train])
    assert fitted.best_params_ == manual.best_params_
    ev = evaluate(y[test], manual.predict(X[test]), qid=qid[test], metrics="ndcg@10")
    assert res["test_ndcg@10"][0] == ev.mean("ndcg@10")


def test_pipeline_routes_qid_to_the_ranker(data, routing):
    X, y, qid = data
    pipe = make_pipeline(StandardScaler(), ranker())
    scorer = make_ranking_scorer(METRICS)
    res = cross_validate(
        pipe, X, y, cv=query_cv(), scoring=scorer, params={"qid": qid}, return_indices=True
    )
    train, test = res["indices"]["train"][1], res["indices"]["test"][1]
    with sklearn.config_context(enable_metadata_routing=False):  # old-style step params
        manual = clone(pipe).fit(X[train], y[train], lambdamartranker__qid=qid[train])
    ev = evaluate(y[test], manual.predict(X[test]), qid=qid[test], metrics=METRICS)
    assert {m: res[f"test_{m}"][1] for m in METRICS} == {m: ev.mean(m) for m in METRICS}


def test_oracle_in_cross_validate(data, routing):
    X, y, qid = data
    res = cross_validate(
        OracleRanker(),
        X,
        y,
        cv=query_cv(),
        scoring=make_ranking_scorer(["ndcg@10", "map"]),
        params={"qid": qid},
    )
    np.testing.assert_allclose(res["test_ndcg@10"], 1.0, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(res["test_map"], 1.0)


def test_cross_val_predict(data, routing):
    X, y, qid = data
    pred = cross_val_predict(ranker(), X, y, cv=query_cv(), params={"qid": qid})
    for train, test in GroupKFold(3).split(X, y, groups=qid):
        model = ranker().fit(X[train], y[train], qid=qid[train])
        np.testing.assert_array_equal(pred[test], model.predict(X[test]))


def test_routing_without_qid_raises(data, routing):
    X, y, _ = data
    with pytest.raises(MissingQueryIdsError, match="needs the query id"):
        cross_validate(Ridge(), X, y, cv=3, scoring=make_ranking_scorer("map"), error_score="raise")


# --------------------------------------------------------------------------------------------
# real data: LightGBM's lambdarank example
# --------------------------------------------------------------------------------------------


# A query of LightGBM's example has no relevant document: the scorer's mean leaves it out
# (empty_query="skip") and says so.
@pytest.mark.filterwarnings("ignore::sklearn_ltr_metrics.metrics.DroppedQueriesWarning")
@pytest.mark.slow  # real data end to end, in joblib's worker processes
def test_lightgbm_example_cross_validate_and_grid_search(lgbm_data, routing):
    X, y, qid = lgbm_data
    scorer = make_ranking_scorer(["ndcg@5", "ndcg@10", "map"])
    res = cross_validate(
        ranker(),
        X,
        y,
        cv=query_cv(),
        scoring=scorer,
        params={"qid": qid},
        return_indices=True,
        n_jobs=2,
    )
    folds = list(zip(res["indices"]["train"], res["indices"]["test"], strict=True))
    for i, (train, test) in enumerate(folds):
        assert not set(qid[train]) & set(qid[test])
        expected = by_hand(ranker(), X, y, qid, train, test, list(scorer.metrics))
        assert {m: res[f"test_{m}"][i] for m in scorer.metrics} == expected
    search = GridSearchCV(
        ranker(), {"num_leaves": [7, 31]}, scoring=scorer, refit="ndcg@10", cv=query_cv()
    ).fit(X, y, qid=qid)
    for i, (train, test) in enumerate(folds):
        expected = by_hand(ranker(), X, y, qid, train, test, ["ndcg@10"], num_leaves=31)
        assert search.cv_results_[f"split{i}_test_ndcg@10"][1] == expected["ndcg@10"]


# --------------------------------------------------------------------------------------------
# response_method, public attributes, the routing-aware message
# --------------------------------------------------------------------------------------------


def test_classifiers_are_ranked_by_probabilities(data):
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import LinearSVC

    X, y, qid = data
    graded = LogisticRegression(max_iter=500).fit(X, y)  # 4 classes: the expected grade
    expected = evaluate(y, graded.predict_proba(X) @ graded.classes_, qid=qid, metrics="ndcg@10")
    scorer = make_ranking_scorer("ndcg@10")
    assert scorer(graded, X, y, qid=qid) == expected.mean("ndcg@10")
    hard = make_ranking_scorer("ndcg@10", response_method="predict")(graded, X, y, qid=qid)
    assert hard == evaluate(y, graded.predict(X), qid=qid, metrics="ndcg@10").mean("ndcg@10")
    assert hard < expected.mean("ndcg@10")
    binary = LogisticRegression().fit(X, y > 1)  # two classes: decision_function first
    margins = evaluate(y, binary.decision_function(X), qid=qid, metrics="map").mean("map")
    assert make_ranking_scorer("map")(binary, X, y, qid=qid) == margins
    proba = make_ranking_scorer("map", response_method="predict_proba")
    assert proba(binary, X, y, qid=qid) == pytest.approx(margins, abs=1e-12)
    svm = LinearSVC().fit(X, y > 1)  # no predict_proba
    assert make_ranking_scorer("map")(svm, X, y, qid=qid) == evaluate(
        y, svm.decision_function(X), qid=qid, metrics="map"
    ).mean("map")
    # a multi-class decision_function asked for explicitly is one column per class
    with pytest.raises(ValueError, match="one score per row"):
        make_ranking_scorer("map", response_method="decision_function")(graded, X, y, qid=qid)


def test_response_method_errors_and_repr(data):
    X, y, qid = data
    with pytest.raises(ValueError, match="response_method='predict_log_proba'"):
        make_ranking_scorer("map", response_method="predict_log_proba")
    with pytest.raises(TypeError, match="response_method must be"):
        make_ranking_scorer("map", response_method=3)
    with pytest.raises(TypeError, match="FeatureRanker has no predict_proba method"):
        make_ranking_scorer("map", response_method="predict_proba")(
            FeatureRanker(0).fit(X), X, y, qid=qid
        )
    scorer = make_ranking_scorer("map", response_method=["predict_proba", "predict"])
    assert (
        repr(scorer) == "make_ranking_scorer('map', response_method=['predict_proba', 'predict'])"
    )
    assert repr(eval(repr(scorer))) == repr(scorer)


def test_public_attributes_rebuild_the_scorer(data):
    X, y, qid = data
    scorer = make_ranking_scorer(
        ["recall", "map"], k=[1, 3], greater_is_better=False, gain="linear"
    )
    assert scorer.metric == ("recall", "map")
    assert scorer.k == [1, 3]
    assert scorer.response_method is None
    assert scorer.options == {"gain": "linear"}
    rebuilt = make_ranking_scorer(
        list(scorer.metric),
        k=scorer.k,
        greater_is_better=scorer.greater_is_better,
        response_method=scorer.response_method,
        **scorer.options,
    )
    model = FeatureRanker(0).fit(X)
    assert rebuilt(model, X, y, qid=qid) == scorer(model, X, y, qid=qid)
    assert repr(rebuilt) == repr(scorer)


@pytest.mark.parametrize("routing", [False, True])
def test_missing_qid_message_names_the_routing_state(data, routing):
    X, y, _ = data
    with (
        sklearn.config_context(enable_metadata_routing=routing),
        pytest.raises(MissingQueryIdsError, match="needs the query id") as info,
    ):
        make_ranking_scorer("map")(FeatureRanker(0).fit(X), X, y)
    assert f"Metadata routing is {'on' if routing else 'off'} now" in str(info.value)
