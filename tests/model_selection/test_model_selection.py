"""cross_validate_ranking and the ranking searches: same numbers as routed scikit-learn,
query-safe folds, per-query tables, the user's config left alone, and clear errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import BaseEstimator, clone
from sklearn.datasets import load_svmlight_file
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    GroupShuffleSplit,
    KFold,
    RandomizedSearchCV,
    cross_validate,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_ltr_metrics import FeatureRanker, MissingQueryIdsError, OracleRanker, evaluate
from sklearn_ltr_metrics.metrics._scorer import make_ranking_scorer
from sklearn_ltr_metrics.model_selection import (
    RankingGridSearchCV,
    RankingRandomizedSearchCV,
    cross_validate_ranking,
)

from .._data import METRICS, make_data, ranker


def routing_is_on():
    return sklearn.get_config()["enable_metadata_routing"]


def routed_reference(estimator, X, y, qid, metrics=METRICS, **kwargs):
    """Plain scikit-learn cross_validate with routing and GroupKFold(3) reading qid."""
    with sklearn.config_context(enable_metadata_routing=True):
        return cross_validate(
            estimator,
            X,
            y,
            cv=GroupKFold(3).set_split_request(groups="qid"),
            scoring=make_ranking_scorer(metrics),
            params={"qid": qid},
            **kwargs,
        )


@pytest.fixture(scope="module")
def data():
    return make_data()


@pytest.fixture(scope="module")
def helper_result(data):
    X, y, qid = data
    return cross_validate_ranking(ranker(), X, y, qid=qid, scoring=METRICS, cv=3)


# --------------------------------------------------------------------------------------------
# cross_validate_ranking
# --------------------------------------------------------------------------------------------


def test_helper_without_routing_equals_routed_sklearn_and_by_hand(data, helper_result):
    X, y, qid = data
    assert not routing_is_on()
    ref = routed_reference(ranker(), X, y, qid, return_indices=True)
    for m in METRICS:
        np.testing.assert_array_equal(helper_result[f"test_{m}"], ref[f"test_{m}"])
    for i, (train, test) in enumerate(zip(*ref["indices"].values(), strict=True)):
        model = ranker().fit(X[train], y[train], qid=qid[train])
        ev = evaluate(y[test], model.predict(X[test]), qid=qid[test], metrics=METRICS)
        assert {m: helper_result[f"test_{m}"][i] for m in METRICS} == {
            m: ev.mean(m) for m in METRICS
        }
    assert not routing_is_on()
    assert set(helper_result) == {"fit_time", "score_time", "per_query", "per_cutoff"} | {
        f"test_{m}" for m in METRICS
    }


def test_int_cv_is_group_kfold_over_qid(data):
    X, y, qid = data
    res = cross_validate_ranking(
        FeatureRanker(0), X, y, qid=qid, scoring="map", cv=4, return_indices=True
    )
    expected = list(GroupKFold(4).split(X, y, groups=qid))
    assert len(res["indices"]["test"]) == 4
    for (train, test), got_train, got_test in zip(
        expected, res["indices"]["train"], res["indices"]["test"], strict=True
    ):
        np.testing.assert_array_equal(train, got_train)
        np.testing.assert_array_equal(test, got_test)
        assert not set(qid[train]) & set(qid[test])


def test_per_query_table(data, helper_result):
    X, y, qid = data
    table = helper_result["per_query"]
    assert list(table.columns) == ["fold", "qid", "n_docs", "n_pos", "n_neg", *METRICS]
    # Every query is tested exactly once, with all its rows.
    assert sorted(table["qid"]) == sorted(np.unique(qid))
    assert (table["n_docs"] == 30).all()
    assert (table["n_pos"] + table["n_neg"] == table["n_docs"]).all()
    for fold, rows in table.groupby("fold"):
        for m in METRICS:
            assert rows[m].mean() == pytest.approx(
                helper_result[f"test_{m}"][fold], rel=1e-12, abs=1e-12
            )
    # The per-query values are those of evaluate() on that query's rows.
    first = table.iloc[0]
    fold_rows = np.isin(qid, table.loc[table["fold"] == first["fold"], "qid"])
    model = ranker().fit(X[~fold_rows], y[~fold_rows], qid=qid[~fold_rows])
    ev = evaluate(y[fold_rows], model.predict(X[fold_rows]), qid=qid[fold_rows], metrics=METRICS)
    for m in METRICS:
        assert first[m] == ev.per_query.loc[first["qid"], m]


def test_n_jobs_does_not_change_results(data, helper_result):
    X, y, qid = data
    res = cross_validate_ranking(ranker(), X, y, qid=qid, scoring=METRICS, cv=3, n_jobs=2)
    for m in METRICS:
        np.testing.assert_array_equal(res[f"test_{m}"], helper_result[f"test_{m}"])
    pd.testing.assert_frame_equal(res["per_query"], helper_result["per_query"])


@pytest.mark.parametrize("global_routing", [False, True])
def test_global_config_unchanged(data, global_routing):
    X, y, qid = data
    with sklearn.config_context(enable_metadata_routing=global_routing):
        cross_validate_ranking(FeatureRanker(0), X, y, qid=qid, cv=3)
        assert routing_is_on() is global_routing
        # A failure inside the routed call (LightGBM refuses non-integer labels).
        with pytest.raises(ValueError, match="non-integer labels"):
            cross_validate_ranking(ranker(), X, y + 0.5, qid=qid, cv=3)
        assert routing_is_on() is global_routing
    assert not routing_is_on()


def test_scoring_forms(data):
    X, y, qid = data
    model = FeatureRanker(0)
    single = cross_validate_ranking(model, X, y, qid=qid, scoring="ndcg@5", cv=3)
    scorer = cross_validate_ranking(
        model, X, y, qid=qid, scoring=make_ranking_scorer("ndcg", k=5), cv=3
    )
    named = cross_validate_ranking(
        model,
        X,
        y,
        qid=qid,
        scoring={"top5": make_ranking_scorer("ndcg@5"), "ap": make_ranking_scorer("map")},
        cv=3,
    )
    np.testing.assert_array_equal(single["test_ndcg@5"], scorer["test_ndcg@5"])
    np.testing.assert_array_equal(single["test_ndcg@5"], named["test_top5"])
    assert list(named["per_query"].columns[-2:]) == ["top5", "ap"]
    # greater_is_better=False: test_ is negated, the per-query table keeps the metric values.
    neg = cross_validate_ranking(
        model, X, y, qid=qid, scoring=make_ranking_scorer("map", greater_is_better=False), cv=3
    )
    np.testing.assert_array_equal(-neg["test_map"], named["test_ap"])
    np.testing.assert_array_equal(neg["per_query"]["map"], named["per_query"]["ap"])


def test_other_group_splitter_and_train_scores(data):
    X, y, qid = data
    cv = GroupShuffleSplit(n_splits=2, test_size=0.3, random_state=0)
    res = cross_validate_ranking(
        FeatureRanker(1),
        X,
        y,
        qid=qid,
        scoring=["map"],
        cv=cv,
        return_train_score=True,
        return_estimator=True,
    )
    assert res["train_map"].shape == res["test_map"].shape == (2,)
    assert len(res["estimator"]) == 2
    train, _ = next(cv.split(X, y, groups=qid))
    ev = evaluate(y[train], X[train, 1], qid=qid[train], metrics="map")
    assert res["train_map"][0] == ev.mean("map")


def test_pandas_inputs_and_row_order(data, helper_result):
    X, y, qid = data
    order = np.argsort(qid, kind="stable")[::-1]
    index = pd.Index(np.arange(len(y)) * 3 + 11)
    res = cross_validate_ranking(
        ranker(),
        pd.DataFrame(X[order], columns=[f"f{i}" for i in range(5)], index=index),
        pd.Series(y[order], index=index),
        qid=pd.Series(qid[order], index=index, dtype="string"),
        scoring=METRICS,
        cv=3,
    )
    # GroupKFold assigns whole queries by size and id, and LambdaMARTRanker does not depend
    # on row order: the same queries land in the same folds with the same values.
    for m in METRICS:
        np.testing.assert_array_equal(res[f"test_{m}"], helper_result[f"test_{m}"])
    pd.testing.assert_frame_equal(
        res["per_query"].astype({"qid": str}), helper_result["per_query"].astype({"qid": str})
    )


def test_pipeline_with_ranker(data):
    X, y, qid = data
    pipe = make_pipeline(StandardScaler(), ranker())
    res = cross_validate_ranking(pipe, X, y, qid=qid, scoring=METRICS, cv=3)
    ref = routed_reference(pipe, X, y, qid)
    for m in METRICS:
        np.testing.assert_array_equal(res[f"test_{m}"], ref[f"test_{m}"])


def test_oracle(data):
    X, y, qid = data
    res = cross_validate_ranking(OracleRanker(), X, y, qid=qid, scoring=["map", "mrr"], cv=3)
    np.testing.assert_array_equal(res["test_map"], 1.0)
    assert (res["per_query"]["mrr"] == 1.0).all()


def test_error_score_number_drops_failed_folds(data):
    X, y, qid = data

    class FailsOnQ00(FeatureRanker):
        def fit(self, X, y=None, qid=None):
            if qid is not None and "q00" in set(qid):
                raise ValueError("boom")
            return super().fit(X, y, qid)

    with pytest.warns(FitFailedWarning, match="boom"):
        res = cross_validate_ranking(
            FailsOnQ00(0), X, y, qid=qid, scoring="map", cv=3, error_score=np.nan
        )
    ok = ~np.isnan(res["test_map"])
    assert ok.sum() == 1
    assert set(res["per_query"]["fold"]) == {int(np.flatnonzero(ok)[0])}


def test_lightgbm_example(datasets_dir):
    path = datasets_dir / "lightgbm-lambdarank" / "rank.train.qid.svm"
    X, y, qid = load_svmlight_file(str(path), query_id=True, n_features=300)
    X, y = X.tocsr(), y.astype(int)
    metrics = ["ndcg@10", "map"]
    res = cross_validate_ranking(ranker(), X, y, qid=qid, scoring=metrics, cv=3, n_jobs=2)
    ref = routed_reference(ranker(), X, y, qid, metrics)
    for m in metrics:
        np.testing.assert_array_equal(res[f"test_{m}"], ref[f"test_{m}"])
    assert res["per_query"]["qid"].nunique() == 201


# --------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------


def test_wrong_qid_length(data):
    X, y, qid = data
    with pytest.raises(ValueError, match=r"qid has 1199 entries but X has 1200 rows"):
        cross_validate_ranking(FeatureRanker(0), X, y, qid=qid[:-1])


def test_missing_qid(data):
    X, y, _ = data
    with pytest.raises(MissingQueryIdsError, match="cross_validate_ranking needs the query id"):
        cross_validate_ranking(FeatureRanker(0), X, y, qid=None)
    with pytest.raises(MissingQueryIdsError, match="X is a ndarray"):
        cross_validate_ranking(FeatureRanker(0), X, y)


def test_leaking_splitter_is_rejected(data):
    X, y, qid = data
    with pytest.raises(ValueError, match=r"cv split 0 puts \d+ queries in both train and test"):
        cross_validate_ranking(FeatureRanker(0), X, y, qid=qid, cv=KFold(3))
    with pytest.raises(ValueError, match=r"KFold ignores queries; use an int cv"):
        cross_validate_ranking(FeatureRanker(0), X, y, qid=qid, cv=KFold(3, shuffle=True))
    # a hand-made split leaking one query
    rows = np.flatnonzero(qid == "q07")
    test = np.r_[np.flatnonzero(qid == "q01"), rows[:3]]
    train = np.setdiff1d(np.arange(len(y)), test)
    with pytest.raises(ValueError, match=r"puts 1 query .*'q07'"):
        cross_validate_ranking(FeatureRanker(0), X, y, qid=qid, cv=[(train, test)])


def test_metric_typo(data):
    X, y, qid = data
    with pytest.raises(ValueError, match="Did you mean 'ndcg'"):
        cross_validate_ranking(FeatureRanker(0), X, y, qid=qid, scoring=["map", "ndgc@10"])


def test_bad_scoring_and_cv(data):
    X, y, qid = data
    with pytest.raises(TypeError, match="scoring must be"):
        cross_validate_ranking(FeatureRanker(0), X, y, qid=qid, scoring=None)
    with pytest.raises(TypeError, match=r"scoring\['x'\] must be a single-metric scorer"):
        cross_validate_ranking(FeatureRanker(0), X, y, qid=qid, scoring={"x": "map"})
    with pytest.raises(TypeError, match="cv must be"):
        cross_validate_ranking(FeatureRanker(0), X, y, qid=qid, cv="five")
    with pytest.raises(ValueError, match="cv must be an integer >= 2"):
        cross_validate_ranking(FeatureRanker(0), X, y, qid=qid, cv=1)
    with pytest.raises(ValueError, match="params may not contain"):
        cross_validate_ranking(FeatureRanker(0), X, y, qid=qid, params={"groups": qid})


def test_estimator_without_predict(data):
    X, y, qid = data

    class Transformer(BaseEstimator):
        def fit(self, X, y=None):
            return self

    with pytest.raises(TypeError, match="needs fit and predict"):
        cross_validate_ranking(Transformer(), X, y, qid=qid)


# --------------------------------------------------------------------------------------------
# searches
# --------------------------------------------------------------------------------------------


def test_grid_search_equals_routed_grid_search(data):
    X, y, qid = data
    scoring = make_ranking_scorer(METRICS)
    grid = {"learning_rate": [0.05, 0.3]}
    search = RankingGridSearchCV(ranker(), grid, scoring=scoring, refit="map", cv=3)
    assert search.fit(X, y, qid=qid) is search
    assert not routing_is_on()
    with sklearn.config_context(enable_metadata_routing=True):
        cv = GroupKFold(3).set_split_request(groups="qid")
        ref = GridSearchCV(ranker(), grid, scoring=scoring, refit="map", cv=cv)
        ref.fit(X, y, qid=qid)
    for m in METRICS:
        for i in range(3):
            key = f"split{i}_test_{m}"
            np.testing.assert_array_equal(search.cv_results_[key], ref.cv_results_[key])
    assert search.best_params_ == ref.best_params_
    assert search.best_score_ == ref.best_score_
    # The constructor's cv is untouched; the search clones and scores without global routing.
    assert search.get_params()["cv"] == 3
    assert clone(search).get_params()["cv"] == 3
    expected = evaluate(y, search.best_estimator_.predict(X), qid=qid, metrics="map")
    assert search.score(X, y, qid=qid) == expected.mean("map")


def test_grid_search_rejects_leaks_and_restores_cv(data):
    X, y, qid = data
    search = RankingGridSearchCV(
        FeatureRanker(0), {"feature": [0, 1]}, scoring=make_ranking_scorer("map"), cv=KFold(3)
    )
    with pytest.raises(ValueError, match="in both train and test"):
        search.fit(X, y, qid=qid)
    assert isinstance(search.cv, KFold)
    with pytest.raises(ValueError, match="qid has 10 entries"):
        search.fit(X, y, qid=qid[:10])
    with pytest.raises(MissingQueryIdsError, match=r"RankingGridSearchCV\.fit needs the query"):
        search.fit(X, y)


def test_grid_search_default_cv_and_scoring(data):
    X, y, qid = data
    # cv=None -> 5 group folds; scoring=None -> the ranker's own score (NDCG@10, wants qid).
    search = RankingGridSearchCV(FeatureRanker(0), {"feature": [0, 3]}).fit(X, y, qid=qid)
    assert search.n_splits_ == 5
    assert search.best_params_ == {"feature": 0}


def test_randomized_search_equals_routed_sklearn(data):
    X, y, qid = data
    kwargs = {
        "param_distributions": {"feature": [0, 1, 2, 3, 4]},
        "n_iter": 3,
        "random_state": 0,
        "scoring": make_ranking_scorer(["ndcg@10", "mrr"]),
        "refit": "ndcg@10",
    }
    search = RankingRandomizedSearchCV(FeatureRanker(0), cv=3, **kwargs).fit(X, y, qid=qid)
    with sklearn.config_context(enable_metadata_routing=True):
        cv = GroupKFold(3).set_split_request(groups="qid")
        ref = RandomizedSearchCV(FeatureRanker(0), cv=cv, **kwargs).fit(X, y, qid=qid)
    assert search.cv_results_["params"] == ref.cv_results_["params"]
    for key in ("mean_test_ndcg@10", "split2_test_mrr"):
        np.testing.assert_array_equal(search.cv_results_[key], ref.cv_results_[key])
    assert search.best_params_ == ref.best_params_
    assert not routing_is_on()


def test_nested_search_in_helper(data):
    X, y, qid = data
    inner = RankingGridSearchCV(
        FeatureRanker(0),
        {"feature": [0, 1]},
        scoring=make_ranking_scorer(["map", "mrr"]),
        refit="map",
        cv=2,
    )
    res = cross_validate_ranking(
        inner, X, y, qid=qid, scoring=["map"], cv=3, return_estimator=True, return_indices=True
    )
    assert not routing_is_on()
    for i, (est, train) in enumerate(zip(res["estimator"], res["indices"]["train"], strict=True)):
        # The inner search got the outer training rows and their qid.
        manual = clone(inner).fit(X[train], y[train], qid=qid[train])
        for key in ("mean_test_map", "split1_test_mrr"):
            np.testing.assert_array_equal(est.cv_results_[key], manual.cv_results_[key])
        assert est.best_params_ == manual.best_params_ == {"feature": 0}
        test = res["indices"]["test"][i]
        expected = evaluate(y[test], X[test, 0], qid=qid[test], metrics="map").mean("map")
        assert res["test_map"][i] == expected


def test_no_private_sklearn_imports():
    import ast
    import inspect as inspect_module

    from sklearn_ltr_metrics.metrics import _scorer
    from sklearn_ltr_metrics.model_selection import _search as _model_selection

    for module in (_scorer, _model_selection):
        tree = ast.parse(inspect_module.getsource(module))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module.startswith("sklearn"):
                parts = node.module.split(".")
                assert not any(p.startswith("_") for p in parts), node.module


# --------------------------------------------------------------------------------------------
# table first: one predict per fold, per-cutoff table, scikit-learn's single-score keys
# --------------------------------------------------------------------------------------------


class CountingRanker(FeatureRanker):
    """FeatureRanker that counts its predict calls."""

    n_predict = 0

    def predict(self, X):
        type(self).n_predict += 1
        return super().predict(X)


def test_one_predict_per_fold(data):
    X, y, qid = data
    named = {"top5": make_ranking_scorer("ndcg@5"), "ap": make_ranking_scorer("map")}
    for scoring in (METRICS, named, "mrr"):
        CountingRanker.n_predict = 0
        res = cross_validate_ranking(CountingRanker(0), X, y, qid=qid, scoring=scoring, cv=4)
        assert CountingRanker.n_predict == 4
        assert len(res["fit_time"]) == 4
    CountingRanker.n_predict = 0
    cross_validate_ranking(CountingRanker(0), X, y, qid=qid, cv=4, return_train_score=True)
    assert CountingRanker.n_predict == 8


def test_per_cutoff_table(data, helper_result):
    X, y, qid = data
    cut = helper_result["per_cutoff"]
    assert list(cut.columns) == ["fold", "qid", "metric", "k", "value"]
    assert set(cut["metric"]) == set(METRICS)
    # The same rows as evaluate(...).per_cutoff of each fold, plus the fold.
    fold = 1
    test_queries = helper_result["per_query"].query("fold == @fold")["qid"]
    rows = np.isin(qid, test_queries)
    model = ranker().fit(X[~rows], y[~rows], qid=qid[~rows])
    ev = evaluate(y[rows], model.predict(X[rows]), qid=qid[rows], metrics=METRICS)
    got = cut[cut["fold"] == fold].drop(columns="fold").reset_index(drop=True)
    pd.testing.assert_frame_equal(got, ev.per_cutoff)
    # Each (fold, query, metric) mean over cut-offs is the per-query value.
    by_query = cut.groupby(["fold", "qid", "metric"])["value"].mean().unstack("metric")
    table = helper_result["per_query"].set_index(["fold", "qid"])[METRICS]
    pd.testing.assert_frame_equal(
        by_query.loc[table.index, METRICS], table, check_names=False, atol=1e-12
    )


def test_per_cutoff_for_the_oracle_and_dict_names(data):
    X, y, qid = data
    res = cross_validate_ranking(
        OracleRanker(),
        X,
        y,
        qid=qid,
        scoring={"R@K": make_ranking_scorer("capped_recall@adaptive")},
        cv=3,
    )
    cut = res["per_cutoff"]
    assert set(cut["metric"]) == {"R@K"}
    defined = cut["value"].dropna()
    assert len(defined) > 3 * 40 and (defined == 1.0).all()
    np.testing.assert_array_equal(res["test_R@K"], 1.0)


def test_single_scorer_gives_test_score(data):
    X, y, qid = data
    res = cross_validate_ranking(
        FeatureRanker(0), X, y, qid=qid, scoring="map", cv=3, return_train_score=True
    )
    np.testing.assert_array_equal(res["test_score"], res["test_map"])
    np.testing.assert_array_equal(res["train_score"], res["train_map"])
    assert "test_score" not in cross_validate_ranking(
        FeatureRanker(0), X, y, qid=qid, scoring=["map"], cv=3
    )


# --------------------------------------------------------------------------------------------
# searches: metric specs, no silent NaN, the constructor left alone
# --------------------------------------------------------------------------------------------


def test_search_takes_metric_specs(data):
    X, y, qid = data
    grid = {"feature": [0, 1]}
    single = RankingGridSearchCV(FeatureRanker(0), grid, scoring="map", cv=3).fit(X, y, qid=qid)
    by_scorer = RankingGridSearchCV(
        FeatureRanker(0), grid, scoring=make_ranking_scorer("map"), cv=3
    ).fit(X, y, qid=qid)
    np.testing.assert_array_equal(
        single.cv_results_["mean_test_score"], by_scorer.cv_results_["mean_test_score"]
    )
    several = RankingGridSearchCV(FeatureRanker(0), grid, scoring=["mrr", "map"], cv=3)
    several.fit(X, y, qid=qid)
    np.testing.assert_array_equal(
        several.cv_results_["mean_test_map"], single.cv_results_["mean_test_score"]
    )
    assert several.refit is True and several.scoring == ["mrr", "map"]
    assert several.best_index_ == np.argmax(several.cv_results_["mean_test_mrr"])
    expected = evaluate(y, X[:, 0], qid=qid, metrics=["map", "mrr"])
    assert single.score(X, y, qid=qid) == expected.mean("map")
    assert several.score(X, y, qid=qid) == expected.mean("mrr")
    # nested in the helper, whose routing asks the search what it needs
    nested = cross_validate_ranking(single, X, y, qid=qid, scoring="map", cv=2)
    assert np.isfinite(nested["test_score"]).all()
    with pytest.raises(ValueError, match="Did you mean 'ndcg'"):
        RankingGridSearchCV(FeatureRanker(0), grid, scoring="ndgc@10").fit(X, y, qid=qid)


def test_search_defaults_to_raise_and_keeps_its_parameters(data):
    X, y, qid = data
    assert RankingGridSearchCV(FeatureRanker(0), {}).error_score == "raise"
    assert RankingRandomizedSearchCV(FeatureRanker(0), {}).error_score == "raise"
    cv = GroupKFold(3)
    search = RankingGridSearchCV(ranker(), {"num_leaves": [3, 7]}, scoring="map", cv=cv)
    with pytest.raises(ValueError, match="non-integer labels"):
        search.fit(X, y + 0.5, qid=qid)
    assert search.cv is cv and search.scoring == "map"
    assert not hasattr(search, "cv_results_")


def test_search_with_only_nan_scores_raises(data):
    X, y, qid = data
    search = RankingGridSearchCV(FeatureRanker(0), {"feature": [0, 1]}, scoring="map", cv=3)
    with (
        pytest.warns(RuntimeWarning, match="Every query is undefined"),
        pytest.warns(UserWarning, match="test scores are non-finite"),
        pytest.raises(ValueError, match=r"Every candidate scored NaN \(mean_test_score\)"),
    ):
        search.fit(X, np.zeros_like(y), qid=qid)
    assert not hasattr(search, "best_params_")
