"""The ``qid`` column convention on small generated data (issue 27).

Splitters, rankers and scorers read the query ids from a column of a DataFrame ``X``; rankers
never use it as a feature; anything without query ids raises ``MissingQueryIdsError`` (never
NaN scores); scorer keys are the specs asked for.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_ltr_metrics import MissingQueryIdsError, evaluate
from sklearn_ltr_metrics.metrics import make_ranking_scorer
from sklearn_ltr_metrics.model_selection import (
    QueryKFold,
    RankingGridSearchCV,
    RankingHalvingGridSearchCV,
    StratifiedQueryKFold,
    cross_validate_ranking,
)
from sklearn_ltr_metrics.rankers import (
    FeatureRanker,
    OracleRanker,
    QueryAwareRanker,
    QueryColumn,
    RandomRanker,
)

from .._data import FEATURES, make_data, ranker


@pytest.fixture(scope="module")
def data():
    X, y, qid = make_data(n_queries=12, n_docs=15)
    qid_int = np.array([int(q[1:]) for q in qid])
    frame = pd.DataFrame(X, columns=FEATURES).assign(qid=qid_int)
    return frame, X, y, qid_int


def _lgbm_ranker():
    from lightgbm import LGBMRanker

    return QueryAwareRanker(LGBMRanker(n_estimators=5, min_child_samples=5, verbose=-1))


def _xgb_ranker():
    from xgboost import XGBRanker

    return QueryAwareRanker(XGBRanker(n_estimators=5, max_depth=3, tree_method="exact", n_jobs=1))


RANKERS = {
    "lambdamart": ranker,
    "lgbm": _lgbm_ranker,
    "xgb": _xgb_ranker,
    "feature": lambda: FeatureRanker("f0"),
    "random": lambda: RandomRanker(random_state=0),
}


@pytest.mark.parametrize("name", list(RANKERS))
def test_rankers_read_the_column_and_never_use_it(data, name):
    frame, _, y, qid = data
    from_column = RANKERS[name]().fit(frame, y)
    from_array = RANKERS[name]().fit(frame[FEATURES], y, qid=qid)
    assert list(from_column.feature_names_in_) == FEATURES
    assert from_column.n_features_in_ == len(FEATURES)
    np.testing.assert_array_equal(from_column.predict(frame), from_array.predict(frame[FEATURES]))
    expected = evaluate(y, from_array.predict(frame[FEATURES]), qid=qid, metrics="ndcg@10")
    assert from_column.score(frame, y) == expected.mean("ndcg@10")


def test_oracle_reads_the_column(data):
    frame, _, y, _ = data
    oracle = OracleRanker().fit(frame)
    assert list(oracle.feature_names_in_) == FEATURES
    assert oracle.score(frame, y) == 1.0


def test_another_column_name_and_none(data):
    frame, _, y, _ = data
    renamed = frame.rename(columns={"qid": "query_id"})
    model = ranker().set_params(qid_column="query_id").fit(renamed, y)
    assert list(model.feature_names_in_) == FEATURES
    scorer = make_ranking_scorer("ndcg@10", qid_column="query_id")
    assert repr(scorer) == "make_ranking_scorer('ndcg@10', qid_column='query_id')"
    assert scorer(model, renamed, y) == model.score(renamed, y)
    folds = list(QueryKFold(3, qid_column="query_id").split(renamed))
    expected = list(QueryKFold(3).split(frame))
    for (a, b), (c, d) in zip(folds, expected, strict=True):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)
    # qid_column=None: the column is a feature like any other.
    plain = FeatureRanker("qid", qid_column=None).fit(frame)
    np.testing.assert_array_equal(plain.predict(frame), frame["qid"].to_numpy(float))


def test_a_qid_passed_must_agree_with_the_column(data):
    frame, _, y, qid = data
    ranker().fit(frame, y, qid=qid)  # the same ids: fine
    with pytest.raises(ValueError, match="X's column 'qid' holding other query ids"):
        ranker().fit(frame, y, qid=qid[::-1])


def test_splitters_read_the_column(data):
    frame, X, y, qid = data
    for splitter in (QueryKFold(3), StratifiedQueryKFold(3)):
        got = [test for _, test in splitter.split(frame, y)]
        want = [test for _, test in splitter.split(X, y, groups=qid)]
        for a, b in zip(got, want, strict=True):
            np.testing.assert_array_equal(a, b)
        for _, test in splitter.split(frame, y):
            assert not np.isin(qid[test], np.delete(qid, test)).any()


def test_scorer_reads_the_column_and_keeps_the_asked_keys(data):
    frame, _, y, qid = data
    model = ranker().fit(frame, y)
    scorer = make_ranking_scorer(["fbeta@10", "f1@10", "ndcg@10"])
    assert scorer.metrics == ("fbeta@10", "f1@10", "ndcg@10")
    values = scorer(model, frame, y)
    reference = evaluate(y, model.predict(frame), qid=qid, metrics=["f1@10", "ndcg@10"])
    assert values == {
        "fbeta@10": reference.mean("f1@10"),
        "f1@10": reference.mean("f1@10"),
        "ndcg@10": reference.mean("ndcg@10"),
    }
    table = scorer.evaluate(model, frame, y).per_query
    assert list(table.columns[-3:]) == ["fbeta@10", "f1@10", "ndcg@10"]
    assert make_ranking_scorer("fbeta", k=5, beta=2).metrics == ("fbeta@5",)


def test_refit_by_a_key_as_asked(data):
    frame, X, y, qid = data
    scorer = make_ranking_scorer(["fbeta@10", "f1@10"])
    search = GridSearchCV(
        ranker(), {"num_leaves": [3, 7]}, cv=QueryKFold(3), scoring=scorer, refit="fbeta@10"
    ).fit(frame, y)
    np.testing.assert_array_equal(
        search.cv_results_["mean_test_fbeta@10"], search.cv_results_["mean_test_f1@10"]
    )
    ours = RankingGridSearchCV(
        ranker(), {"num_leaves": [3, 7]}, cv=3, scoring=["fbeta@10", "f1@10"], refit="fbeta@10"
    ).fit(X, y, qid=qid)
    np.testing.assert_array_equal(
        search.cv_results_["mean_test_fbeta@10"], ours.cv_results_["mean_test_fbeta@10"]
    )
    res = cross_validate_ranking(ranker(), frame, y, scoring=["fbeta@10", "f1@10"], cv=3)
    assert {"test_fbeta@10", "test_f1@10"} <= set(res)
    assert {"fbeta@10", "f1@10"} <= set(res["per_query"].columns)


def test_helpers_read_the_column(data):
    frame, X, y, qid = data
    a = cross_validate_ranking(ranker(), frame, y, cv=3, scoring="map")
    b = cross_validate_ranking(ranker(), X, y, qid=qid, cv=3, scoring="map")
    np.testing.assert_array_equal(a["test_score"], b["test_score"])
    renamed = frame.rename(columns={"qid": "q"})
    c = cross_validate_ranking(
        ranker().set_params(qid_column="q"), renamed, y, cv=3, scoring="map", qid_column="q"
    )
    np.testing.assert_array_equal(c["test_score"], b["test_score"])
    search = RankingGridSearchCV(ranker(), {"num_leaves": [31]}, cv=3, scoring="map").fit(frame, y)
    assert search.cv_results_["split0_test_score"][0] == b["test_score"][0]
    halving = [
        RankingHalvingGridSearchCV(
            ranker(), {"num_leaves": [3, 7]}, cv=3, scoring="map", min_resources=4, random_state=0
        )
        for _ in range(2)
    ]
    halving[0].fit(frame, y)
    halving[1].fit(X, y, qid=qid)
    np.testing.assert_array_equal(
        halving[0].cv_results_["mean_test_score"], halving[1].cv_results_["mean_test_score"]
    )
    assert np.isfinite(halving[0].cv_results_["mean_test_score"]).all()


def _missing(call):
    with pytest.raises(MissingQueryIdsError) as info:
        call()
    text = str(info.value)
    for way in ("column of X", "enable_metadata_routing=True", "groups=qid"):
        assert way in text, text
    return text


@pytest.mark.parametrize("routing", [False, True])
def test_no_query_ids_is_one_error_never_nan(data, routing):
    _, X, y, qid = data
    scorer = make_ranking_scorer("ndcg@10")
    with sklearn.config_context(enable_metadata_routing=routing), warnings.catch_warnings():
        warnings.simplefilter("error")  # no "Scoring failed" warning either
        text = _missing(lambda: QueryKFold(3).split(X, y).__next__())
        assert f"Metadata routing is {'on' if routing else 'off'}" in text
        _missing(lambda: ranker().fit(X, y))
        _missing(lambda: cross_validate_ranking(ranker(), X, y))
        # A ranker that needs no qid to fit, scored by the search: the scorer stops the search
        # (scikit-learn's error_score=nan would otherwise give NaN scores and a "best").
        _missing(
            lambda: GridSearchCV(
                FeatureRanker(0), {"feature": [0, 1]}, cv=GroupKFold(3), scoring=scorer
            ).fit(X, y, groups=qid)
        )
        if routing:  # the same through joblib's worker processes
            _missing(
                lambda: GridSearchCV(
                    FeatureRanker(0), {"feature": [0, 1]}, cv=3, scoring=scorer, n_jobs=2
                ).fit(X, y)
            )
        if not routing:
            _missing(
                lambda: cross_validate(Ridge(), X, y, cv=GroupKFold(3), scoring=scorer, groups=qid)
            )
            # A baseline fits without query ids; the package's scorer stops the call. (Its own
            # ``score``, scikit-learn's default scoring, raises an Exception that error_score
            # turns into NaN: docs/sklearn.rst says to pass a scorer.)
            _missing(
                lambda: cross_validate(
                    FeatureRanker(0), X, y, cv=GroupKFold(3), groups=qid, scoring=scorer
                )
            )


def test_pipeline_patterns_keep_the_column(data):
    frame, _, y, qid = data
    # The reference scales a DataFrame too (scaling an array differs in the last bits).
    helper = cross_validate_ranking(
        make_pipeline(StandardScaler(), ranker()), frame[FEATURES], y, qid=qid, cv=3
    )
    kept = make_pipeline(QueryColumn(StandardScaler()), ranker())
    plain = cross_validate(kept, frame, y, cv=QueryKFold(3))
    np.testing.assert_array_equal(plain["test_score"], helper["test_score"])
    passthrough = ColumnTransformer(
        [("scale", StandardScaler(), FEATURES)],
        remainder="passthrough",
        verbose_feature_names_out=False,
    ).set_output(transform="pandas")
    plain = cross_validate(make_pipeline(passthrough, ranker()), frame, y, cv=QueryKFold(3))
    np.testing.assert_array_equal(plain["test_score"], helper["test_score"])
    # A step that drops the column: the ranker says where the ids went.
    text = _missing(lambda: make_pipeline(StandardScaler(), ranker()).fit(frame, y))
    assert "QueryColumn" in text and "passthrough" in text


def test_query_column_transforms_only_the_features(data):
    frame, X, _, qid = data
    out = QueryColumn(StandardScaler()).fit(frame).transform(frame)
    assert list(out.columns) == [*FEATURES, "qid"]
    np.testing.assert_array_equal(out["qid"].to_numpy(), qid)
    np.testing.assert_allclose(out[FEATURES].to_numpy(), StandardScaler().fit_transform(X))
    assert list(QueryColumn(StandardScaler()).fit(frame).get_feature_names_out()) == [
        *FEATURES,
        "qid",
    ]
    # Without the column it is the transformer.
    np.testing.assert_allclose(
        QueryColumn(StandardScaler()).fit_transform(X), StandardScaler().fit_transform(X)
    )


def test_pyarrow_tables(data):
    pa = pytest.importorskip("pyarrow")
    frame, _, y, _ = data
    table = pa.Table.from_pandas(frame, preserve_index=False)
    folds = [test for _, test in QueryKFold(3).split(table)]
    for a, (_, b) in zip(folds, QueryKFold(3).split(frame), strict=True):
        np.testing.assert_array_equal(a, b)
    model = ranker().fit(frame, y)
    assert make_ranking_scorer("map")(model, table, y) == make_ranking_scorer("map")(
        model, frame, y
    )


def test_bad_qid_column_is_refused(data):
    frame, _, y, _ = data
    with pytest.raises(TypeError, match=r"qid_column must be a column name \(str\) or None"):
        make_ranking_scorer("map", qid_column=1)
    with pytest.raises(TypeError, match="qid_column must be a column name"):
        next(QueryKFold(3, qid_column=["qid"]).split(frame))
    with pytest.raises(TypeError, match="qid_column must be a column name"):
        ranker().set_params(qid_column=0).fit(frame, y)
    with pytest.raises(TypeError, match="qid_column must be a column name"):
        cross_validate_ranking(ranker(), frame, y, qid_column=b"qid")


def test_searches_and_learning_curve_take_another_column_name(data):
    from sklearn_ltr_metrics.model_selection import learning_curve_ranking

    frame, X, y, qid = data
    renamed = frame.rename(columns={"qid": "q"})
    model = ranker().set_params(qid_column="q")
    search = RankingGridSearchCV(model, {"num_leaves": [31]}, cv=3, scoring="map")
    search.fit(renamed, y, qid_column="q")
    expected = cross_validate_ranking(ranker(), X, y, qid=qid, cv=3, scoring="map")
    np.testing.assert_array_equal(
        [search.cv_results_[f"split{i}_test_score"][0] for i in range(3)], expected["test_score"]
    )
    by_array = search.score(renamed[FEATURES], y, qid=qid)
    assert search.score(renamed, y, qid_column="q") == by_array
    _, _, test = learning_curve_ranking(
        model, renamed, y, train_sizes=[1.0], cv=3, scoring="map", qid_column="q"
    )
    np.testing.assert_array_equal(test[0], expected["test_score"])


def test_lambdamart_eval_set_reads_the_column(data):
    frame, X, y, qid = data
    val = np.isin(qid, np.unique(qid)[:3])
    params = {"early_stopping_rounds": 2, "n_estimators": 30, "eval_metric": "map"}
    from_column = ranker().set_params(**params)
    from_column.fit(frame[~val], y[~val], eval_set=(frame[val], y[val], None))
    by_arrays = ranker().set_params(**params)
    by_arrays.fit(X[~val], y[~val], qid=qid[~val], eval_set=(X[val], y[val], qid[val]))
    assert from_column.best_iteration_ == by_arrays.best_iteration_
    assert from_column.evals_result_ == by_arrays.evals_result_
    np.testing.assert_array_equal(from_column.predict(frame), by_arrays.predict(X))
