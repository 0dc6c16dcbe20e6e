"""LambdaMARTRanker: early stopping on the user's validation set monitored with the package's
metrics, missing values and categorical columns as LightGBM takes them, feature names kept."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.datasets import load_svmlight_file

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics.metrics import MissingQueryIdsError, make_ranking_scorer
from sklearn_ltr_metrics.model_selection import cross_validate_ranking
from sklearn_ltr_metrics.rankers import LambdaMARTRanker

from .._data import make_data

# Real and generated queries without relevant documents are left out of the means on
# purpose here; DroppedQueriesWarning itself is tested in tests/metrics.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn_ltr_metrics.metrics.DroppedQueriesWarning")


@pytest.fixture(scope="module")
def mq2008(datasets_dir):
    """Train on Fold1 vali.txt; validate on half of test.txt's queries, test on the rest."""
    folder = datasets_dir / "mq2008-fold1"
    X, y, qid = load_svmlight_file(str(folder / "vali.txt"), query_id=True, n_features=46)
    X_o, y_o, q_o = load_svmlight_file(str(folder / "test.txt"), query_id=True, n_features=46)
    val = np.isin(q_o, np.unique(q_o)[::2])
    return (
        (X.toarray(), y.astype(int), qid),
        (X_o.toarray()[val], y_o[val].astype(int), q_o[val]),
        (X_o.toarray()[~val], y_o[~val].astype(int), q_o[~val]),
    )


def test_early_stopping_on_a_user_validation_set(mq2008):
    (X, y, qid), (X_val, y_val, q_val), _ = mq2008
    perm = np.random.default_rng(0).permutation(len(y_val))  # rows in any order
    model = LambdaMARTRanker(
        n_estimators=300, learning_rate=0.1, early_stopping_rounds=20, random_state=0
    ).fit(X, y, qid=qid, eval_set=[(X_val[perm], y_val[perm], q_val[perm])])
    assert 0 < model.best_iteration_ < 300
    assert model.n_iter_ == model.best_iteration_
    # LightGBM's own NDCG@10 (empty queries score 1), recorded every round; training stopped
    # 20 rounds after the best one.
    history = model.evals_result_["valid_0"]["ndcg@10"]
    assert len(history) == model.best_iteration_ + 20
    assert model.best_score_ == history[model.best_iteration_ - 1] == max(history)


@pytest.mark.parametrize(
    "eval_metric",
    [
        "ndcg@10",
        "capped_recall@adaptive",
        make_ranking_scorer("ndcg@5", conventions="trec_eval", ties="stable"),
    ],
    ids=repr,
)
def test_early_stopping_monitors_the_package_metric(mq2008, eval_metric):
    (X, y, qid), (X_val, y_val, q_val), _ = mq2008
    model = LambdaMARTRanker(
        n_estimators=150, early_stopping_rounds=10, eval_metric=eval_metric, random_state=0
    ).fit(X, y, qid=qid, eval_set=(X_val, y_val, q_val))
    scorer = eval_metric if not isinstance(eval_metric, str) else make_ranking_scorer(eval_metric)
    spec = scorer.metrics[0]
    history = model.evals_result_["valid_0"][spec]
    assert model.best_score_ == max(history)
    # The monitored value is exactly evaluate() on the validation predictions at that round.
    expected = scorer.evaluate_scores(y_val, model.predict(X_val), qid=q_val).mean(spec)
    assert model.best_score_ == pytest.approx(expected, abs=1e-12)
    for round_ in (1, model.best_iteration_ - 1):
        scores = model.booster_.predict(X_val, num_iteration=round_)
        value = scorer.evaluate_scores(y_val, scores, qid=q_val).mean(spec)
        assert history[round_ - 1] == pytest.approx(value, abs=1e-12)


def test_eval_set_without_early_stopping_only_records(mq2008):
    (X, y, qid), (X_val, y_val, q_val), (X_te, _, _) = mq2008
    plain = LambdaMARTRanker(n_estimators=15, random_state=0).fit(X, y, qid=qid)
    recorded = LambdaMARTRanker(n_estimators=15, random_state=0, eval_metric="map").fit(
        X, y, qid=qid, eval_set=(X_val, y_val, q_val)
    )
    assert recorded.best_iteration_ is None and recorded.n_iter_ == 15
    assert len(recorded.evals_result_["valid_0"]["map"]) == 15
    np.testing.assert_array_equal(recorded.predict(X_te), plain.predict(X_te))


def test_eval_set_through_routing_and_errors():
    X, y, qid = make_data(n_queries=20, n_docs=10)
    val = np.isin(qid, np.unique(qid)[:5])
    model = LambdaMARTRanker(n_estimators=50, early_stopping_rounds=3, min_child_samples=5)
    eval_set = [(X[val], y[val], qid[val])]
    with sklearn.config_context(enable_metadata_routing=True):
        routed = model.set_fit_request(eval_set=True, qid=True)
        res = cross_validate_ranking(
            routed,
            X[~val],
            y[~val],
            qid=qid[~val],
            cv=3,
            params={"eval_set": eval_set},
            return_estimator=True,
        )
    assert all(est.best_iteration_ is not None for est in res["estimator"])
    with pytest.raises(TypeError, match=r"eval_set must be one validation set"):
        LambdaMARTRanker().fit(X, y, qid=qid, eval_set=[(X, y, qid), (X, y, qid)])
    with pytest.raises(MissingQueryIdsError, match="eval_set needs qid"):
        LambdaMARTRanker().fit(X, y, qid=qid, eval_set=(X, y, None))
    with pytest.raises(ValueError, match="has several metrics"):
        LambdaMARTRanker(eval_metric=make_ranking_scorer(["map", "mrr"])).fit(X, y, qid=qid)
    with pytest.raises(TypeError, match="eval_metric must be"):
        LambdaMARTRanker(eval_metric=3).fit(X, y, qid=qid)


def test_missing_values_categorical_columns_and_feature_names():
    X, y, qid = make_data(n_queries=30, n_docs=12)
    frame = pd.DataFrame(X, columns=["bm25", "pagerank", "tf", "idf", "len"])
    frame.loc[frame.index[::7], "tf"] = np.nan
    frame["colour"] = pd.Categorical(np.where(y > 1, "red", np.where(y > 0, "blue", "grey")))
    model = LambdaMARTRanker(n_estimators=20, min_child_samples=5).fit(frame, y, qid=qid)
    assert model.booster_.feature_name() == list(frame.columns)
    assert model.categorical_features_ == ["colour"]
    scores = model.predict(frame)
    assert np.isfinite(scores).all()
    # The categorical column carries the labels: it must be used, and rank well.
    assert model.feature_importances_[5] > 0
    assert evaluate(y, scores, qid=qid, metrics="ndcg@10").mean("ndcg@10") > 0.95
    # Same model whatever the row order, also with NaN and categories.
    perm = np.random.default_rng(1).permutation(len(y))
    shuffled = LambdaMARTRanker(n_estimators=20, min_child_samples=5).fit(
        frame.iloc[perm], y[perm], qid=qid[perm]
    )
    np.testing.assert_array_equal(shuffled.predict(frame), scores)
    with pytest.raises(TypeError, match="fitted on a DataFrame with categorical columns"):
        model.predict(frame.to_numpy()[:, :5])
    # Numeric DataFrames keep their names too; NaN in a plain array is accepted.
    numeric = LambdaMARTRanker(n_estimators=5).fit(frame.iloc[:, :5], y, qid=qid)
    assert numeric.booster_.feature_name() == ["bm25", "pagerank", "tf", "idf", "len"]
    X_nan = X.copy()
    X_nan[::5, 0] = np.nan
    assert np.isfinite(LambdaMARTRanker(n_estimators=5).fit(X_nan, y, qid=qid).predict(X_nan)).all()
    with pytest.raises(ValueError, match="infinity"):
        LambdaMARTRanker(n_estimators=5).fit(np.where(np.isnan(X_nan), np.inf, X_nan), y, qid=qid)
    with pytest.raises(TypeError, match="column 'name' of X has dtype"):
        LambdaMARTRanker(n_estimators=5).fit(frame.assign(name="doc"), y, qid=qid)
