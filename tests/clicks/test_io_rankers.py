"""Click logs on disk, and the rankers' ``position``."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator

from sklearn_ltr_metrics import LambdaMARTRanker, QueryAwareRanker
from sklearn_ltr_metrics.clicks import simulate
from sklearn_ltr_metrics.io import DataFormatError, read_click_log, write_click_log

from ._clicks_data import ranking_data


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_click_log_round_trip(tmp_path, suffix):
    y, score, qid = ranking_data(n_queries=4, n_docs=5)
    log = simulate(y, score, qid, n_sessions=3, randomize="pairs", random_state=0)
    path = tmp_path / f"log{suffix}"
    write_click_log(log, path)
    back = read_click_log(path)
    pd.testing.assert_frame_equal(back, log, check_dtype=False)
    assert back["click"].dtype == bool and back["rank"].dtype == np.int64
    with pytest.raises(FileExistsError):
        write_click_log(log, path)


def test_click_log_files_are_checked(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("session,qid,row,rank,click\n0,a,1,1,2\n")
    with pytest.raises(DataFormatError, match="click"):
        read_click_log(path)
    path.write_text("session,qid,row,rank\n0,a,1,1\n")
    with pytest.raises(DataFormatError, match="lacks the click-log column"):
        read_click_log(path)
    path.write_text("session,qid,row,rank,click\n0,a,1,1,0\n0,a,2,1,1\n")
    with pytest.raises(ValueError, match="twice"):
        read_click_log(path)
    with pytest.raises(ValueError, match="lacks column"):
        write_click_log(pd.DataFrame({"session": [0]}), tmp_path / "x.csv")


def _click_training_data():
    y, score, qid = ranking_data(n_queries=60, n_docs=10, seed=3)
    X = np.column_stack([y + np.random.default_rng(0).normal(0, 1, y.size), score])
    log = simulate(y, score, qid, n_sessions=1, random_state=0)
    return X[log["row"]], log["click"].astype(int).to_numpy(), log["qid"], log["rank"]


def test_lambdamart_position_changes_the_model():
    X, clicks, qid, rank = _click_training_data()
    params = {"n_estimators": 20, "min_child_samples": 5, "random_state": 0}
    naive = LambdaMARTRanker(**params).fit(X, clicks, qid=qid)
    debiased = LambdaMARTRanker(**params).fit(X, clicks, qid=qid, position=rank)
    assert not np.allclose(naive.predict(X), debiased.predict(X))
    assert debiased.n_iter_ == 20 and debiased.feature_importances_.shape == (2,)
    # rows in any order: the positions travel with them
    perm = np.random.default_rng(1).permutation(len(clicks))
    shuffled = LambdaMARTRanker(**params).fit(
        X[perm], clicks[perm], qid=qid.to_numpy()[perm], position=rank.to_numpy()[perm]
    )
    np.testing.assert_allclose(shuffled.predict(X), debiased.predict(X))
    regularized = LambdaMARTRanker(**params, lambdarank_position_bias_regularization=5.0)
    assert not np.allclose(
        regularized.fit(X, clicks, qid=qid, position=rank).predict(X), debiased.predict(X)
    )
    stopped = LambdaMARTRanker(**params, early_stopping_rounds=3).fit(
        X, clicks, qid=qid, position=rank
    )
    assert stopped.best_iteration_ is not None and "valid_0" in stopped.evals_result_


def test_lambdamart_position_refusals():
    X, clicks, qid, rank = _click_training_data()
    with pytest.raises(ValueError, match="objective='lambdarank' only"):
        LambdaMARTRanker(objective="rank_xendcg").fit(X, clicks, qid=qid, position=rank)
    with pytest.raises(ValueError, match="applies only"):
        LambdaMARTRanker(lambdarank_position_bias_regularization=1.0).fit(X, clicks, qid=qid)
    with pytest.raises(ValueError, match="integers >= 0"):
        LambdaMARTRanker().fit(X, clicks, qid=qid, position=rank - 5)


class _Recorder(BaseEstimator):
    """A stand-in XGBoost ranker recording the rows it is given."""

    def __init__(self, lambdarank_unbiased=True):
        self.lambdarank_unbiased = lambdarank_unbiased

    def fit(self, X, y, qid=None):
        self.X_, self.qid_ = np.asarray(X), np.asarray(qid)
        return self

    def predict(self, X):
        return np.zeros(len(X))


def test_query_aware_ranker_sorts_rows_by_qid_then_position():
    X = np.arange(6.0).reshape(-1, 1)
    qid = np.array([2, 1, 2, 1, 2, 1])
    position = np.array([3, 2, 1, 1, 2, 3])
    model = QueryAwareRanker(_Recorder()).fit(X, np.zeros(6), qid=qid, position=position)
    assert model.estimator_.X_.ravel().tolist() == [3, 1, 5, 2, 4, 0]
    with pytest.raises(ValueError, match="lambdarank_unbiased=True"):
        QueryAwareRanker(_Recorder(False)).fit(X, np.zeros(6), qid=qid, position=position)


def test_xgboost_unbiased_lambdarank_accepts_position():
    xgboost = pytest.importorskip("xgboost")
    X, clicks, qid, rank = _click_training_data()
    params = {"n_estimators": 5, "lambdarank_unbiased": True, "n_jobs": 1}
    model = QueryAwareRanker(xgboost.XGBRanker(**params))
    scores = model.fit(X, clicks, qid=qid, position=rank).predict(X)
    assert scores.shape == (len(clicks),) and np.isfinite(scores).all()


def test_lambdamart_reads_positions_from_a_column():
    X, clicks, qid, rank = _click_training_data()
    frame = pd.DataFrame(
        {"f0": X[:, 0], "f1": X[:, 1], "qid": qid.to_numpy(), "position": rank.to_numpy()}
    )
    params = {"n_estimators": 10, "min_child_samples": 5, "random_state": 0}
    given = LambdaMARTRanker(**params).fit(X, clicks, qid=qid, position=rank)
    model = LambdaMARTRanker(**params, position_column="position").fit(frame, clicks)
    assert list(model.feature_names_in_) == ["f0", "f1"]
    np.testing.assert_allclose(model.predict(frame), given.predict(X))
    with pytest.raises(ValueError, match="once"):
        model.fit(frame, clicks, position=rank)
    # without position_column, a 'position' column is an ordinary feature
    plain = LambdaMARTRanker(**params).fit(frame, clicks)
    assert "position" in list(plain.feature_names_in_)


def test_position_is_routed_metadata():
    import lightgbm
    import sklearn
    from sklearn.model_selection import GroupKFold, cross_validate

    X, clicks, qid, rank = _click_training_data()
    model = LambdaMARTRanker(n_estimators=5, min_child_samples=5, random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        result = cross_validate(
            model,
            X,
            clicks,
            cv=GroupKFold(3),
            return_estimator=True,
            params={"qid": qid, "groups": qid, "position": rank},
        )
    assert all(isinstance(m.model_, lightgbm.Booster) for m in result["estimator"])
