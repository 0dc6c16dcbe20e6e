"""Tests of the rankers: scikit-learn contract, LightGBM data, bad input, model selection."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import lightgbm
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import sklearn
from scipy import stats
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.metrics import ndcg_score
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_validate
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_ltr_metrics import (
    FeatureRanker,
    LambdaMARTRanker,
    MissingQueryIdsError,
    OracleRanker,
    RandomRanker,
    evaluate,
)
from sklearn_ltr_metrics.rankers import QueryAwareRanker, expected_failed_checks
from sklearn_ltr_metrics.rankers._lambdamart import LIGHTGBM_MAX_QUERY_SIZE

from ..conftest import SHARED, missing_data

REPO = Path(__file__).resolve().parents[2]
LGBM_DATA = SHARED / "lightgbm-lambdarank"


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def make_data(n_queries=30, n_features=5, seed=0):
    """Small synthetic ranking data: integer labels 0..3 that follow a linear signal."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(8, 20, size=n_queries)
    qid = np.repeat(np.arange(100, 100 + n_queries), sizes)
    X = rng.normal(size=(qid.size, n_features))
    signal = X @ np.linspace(1.0, 0.2, n_features) + 0.5 * rng.normal(size=qid.size)
    y = np.digitize(signal, [-0.5, 0.5, 1.5]).astype(np.int64)
    return X, y, qid


def ndcg10_reference(y, score, qid):
    """Mean NDCG@10 (gains 2**y - 1, tie-averaged) over queries with a relevant row.

    Computed with scikit-learn's ``ndcg_score`` (linear gains, so it is given 2**y - 1),
    independent of the package's own ``evaluate``.
    """
    values = []
    for q in np.unique(qid):
        rows = qid == q
        if y[rows].max() <= 0:
            continue
        if rows.sum() == 1:
            values.append(1.0)
            continue
        gains = (2.0 ** y[rows] - 1.0)[None, :]
        values.append(ndcg_score(gains, score[rows][None, :], k=10))
    return float(np.mean(values))


def random_ndcg10_expectation(y, qid, k=10):
    """Expected NDCG@k of a uniformly random ordering, per query, averaged (closed form)."""
    values = []
    for q in np.unique(qid):
        gains = 2.0 ** y[qid == q] - 1.0
        if gains.max() <= 0:
            continue
        discounts = 1.0 / np.log2(np.arange(2, gains.size + 2))
        cut = min(k, gains.size)
        ideal = np.sort(gains)[::-1][:cut] @ discounts[:cut]
        values.append(gains.mean() * discounts[:cut].sum() / ideal)
    return float(np.mean(values))


class _SingleQueryLambdaMART(LambdaMARTRanker):
    """Test-only adapter: treats all rows as one query when ``qid`` is missing.

    scikit-learn's common checks call ``fit(X, y)`` and ``score(X, y)`` without ``qid``, which
    the real estimator refuses. This adapter lets the rest of the contract (pickling, dtypes,
    sparse input, NaN checks, sample weights, idempotence...) be checked on the real code.
    """

    def fit(self, X, y, qid=None, sample_weight=None):
        if qid is None and y is not None:
            qid = np.zeros(np.asarray(y).shape[0])
        if y is not None and np.issubdtype(np.asarray(y).dtype, np.floating):
            y = np.rint(y)  # the regressor checks give continuous targets; grades are integers
        return super().fit(X, y, qid=qid, sample_weight=sample_weight)

    def score(self, X, y, qid=None, sample_weight=None):
        if qid is None:
            qid = np.zeros(np.asarray(y).shape[0])
        return super().score(X, y, qid=qid, sample_weight=sample_weight)


# --------------------------------------------------------------------------------------------
# scikit-learn common checks
# --------------------------------------------------------------------------------------------


def _expected_failed_checks(estimator):
    # The package's own list (the one users pass to check_estimator); the single-query
    # subclass supplies qid itself, so it fails nothing.
    if isinstance(estimator, _SingleQueryLambdaMART):
        return {}
    return expected_failed_checks(estimator)


@parametrize_with_checks(
    [
        LambdaMARTRanker(n_estimators=5),
        _SingleQueryLambdaMART(n_estimators=5),
        RandomRanker(random_state=0),
        OracleRanker(),
        FeatureRanker(0),
    ],
    expected_failed_checks=_expected_failed_checks,
    xfail_strict=True,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# --------------------------------------------------------------------------------------------
# LightGBM's LambdaRank example data (Yahoo! LTR sample)
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lgbm_data():
    from sklearn.datasets import load_svmlight_file

    train, test = LGBM_DATA / "rank.train.qid.svm", LGBM_DATA / "rank.test.qid.svm"
    if not (train.exists() and test.exists()):
        pytest.skip(missing_data("lightgbm-lambdarank/rank.*.qid.svm (LightGBM's example)"))
    X_tr, y_tr, q_tr = load_svmlight_file(str(train), query_id=True, n_features=300)
    X_te, y_te, q_te = load_svmlight_file(str(test), query_id=True, n_features=300)
    return X_tr, y_tr, q_tr, X_te, y_te, q_te


@pytest.fixture(scope="module")
def lgbm_model(lgbm_data):
    X_tr, y_tr, q_tr, *_ = lgbm_data
    return LambdaMARTRanker(n_estimators=100).fit(X_tr, y_tr, qid=q_tr)


@pytest.mark.slow
def test_lambdamart_matches_lightgbm_quality(lgbm_data, lgbm_model):
    import lightgbm as lgb

    X_tr, y_tr, q_tr, X_te, y_te, q_te = lgbm_data
    ours = ndcg10_reference(y_te, lgbm_model.predict(X_te), q_te)
    # LightGBM itself on the original group layout (rows already grouped by query).
    groups = np.unique(q_tr, return_counts=True)[1]
    reference = lgb.LGBMRanker(n_estimators=100, verbose=-1).fit(X_tr, y_tr, group=groups)
    theirs = ndcg10_reference(y_te, reference.predict(X_te), q_te)
    assert theirs == pytest.approx(0.736, abs=0.005)  # SOURCE.md baseline
    assert ours >= 0.70
    assert abs(ours - theirs) < 0.05
    assert lgbm_model.n_iter_ == 100
    assert lgbm_model.best_iteration_ is None
    assert lgbm_model.feature_importances_.shape == (300,)


@pytest.mark.slow
def test_lambdamart_shuffled_training_rows_same_model(lgbm_data, lgbm_model):
    X_tr, y_tr, q_tr, X_te, y_te, q_te = lgbm_data
    perm = np.random.default_rng(7).permutation(y_tr.size)
    shuffled = LambdaMARTRanker(n_estimators=100).fit(X_tr[perm], y_tr[perm], qid=q_tr[perm])
    before, after = lgbm_model.predict(X_te), shuffled.predict(X_te)
    # Rows are put in a canonical order before LightGBM sees them: the same model.
    np.testing.assert_allclose(after, before, rtol=0, atol=1e-12)
    assert ndcg10_reference(y_te, after, q_te) == pytest.approx(
        ndcg10_reference(y_te, before, q_te), abs=1e-12
    )


@pytest.mark.slow
def test_baselines_on_lightgbm_data(lgbm_data):
    X_tr, y_tr, q_tr, X_te, y_te, q_te = lgbm_data
    oracle = OracleRanker().fit(X_tr, y_tr, qid=q_tr)
    assert ndcg10_reference(y_te, oracle.predict(X_te, y=y_te), q_te) == pytest.approx(1.0)

    expected = random_ndcg10_expectation(y_te, q_te)
    # Tie-averaged NDCG of a constant score is the same expectation (sklearn's tie rule).
    constant = ndcg10_reference(y_te, np.zeros(y_te.size), q_te)
    assert constant == pytest.approx(expected, abs=1e-12)
    seeds = [
        ndcg10_reference(y_te, RandomRanker(random_state=s).fit(X_tr).predict(X_te), q_te)
        for s in range(8)
    ]
    assert np.mean(seeds) == pytest.approx(expected, abs=0.03)
    assert np.std(seeds) > 0  # the seed matters

    # One feature alone is a weak ranker, between random and the model.
    feature = FeatureRanker(int(np.argmax(np.asarray(X_tr.sum(axis=0)).ravel())))
    single = ndcg10_reference(y_te, feature.fit(X_tr).predict(X_te), q_te)
    assert 0.4 < single < 1.0


@pytest.mark.slow
# LightGBM's example files number their queries from 1 in both files: the ids coincide, the
# queries do not, which the leakage check (same id, other rows) cannot tell apart.
@pytest.mark.filterwarnings("ignore::sklearn_ltr_metrics.model_selection.QueryLeakageWarning")
def test_lightgbm_data_scores_via_evaluate(lgbm_data, lgbm_model):
    from sklearn_ltr_metrics import evaluate

    _, _, _, X_te, y_te, q_te = lgbm_data
    ours = lgbm_model.score(X_te, y_te, qid=q_te)
    assert ours == pytest.approx(ndcg10_reference(y_te, lgbm_model.predict(X_te), q_te))
    assert OracleRanker().fit(X_te).score(X_te, y_te, qid=q_te) == pytest.approx(1.0)
    constant = evaluate(y_te, np.zeros(y_te.size), qid=q_te, metrics=["ndcg@10"]).mean("ndcg@10")
    assert constant == pytest.approx(random_ndcg10_expectation(y_te, q_te), abs=1e-12)


# --------------------------------------------------------------------------------------------
# LambdaMART behaviour
# --------------------------------------------------------------------------------------------


def test_lambdamart_row_order_and_query_layout():
    X, y, qid = make_data()
    base = LambdaMARTRanker(n_estimators=10, random_state=0).fit(X, y, qid=qid)
    scores = base.predict(X)
    perm = np.random.default_rng(1).permutation(y.size)
    # predict keeps the caller's order
    np.testing.assert_array_equal(base.predict(X[perm]), scores[perm])
    # unsorted, interleaved queries with string ids give the same model
    shuffled = LambdaMARTRanker(n_estimators=10, random_state=0).fit(
        X[perm], y[perm], qid=pd.Series(qid[perm]).map("q{}".format)
    )
    np.testing.assert_allclose(shuffled.predict(X), scores, rtol=0, atol=1e-12)
    # the model learns: better than random on training data
    assert ndcg10_reference(y, scores, qid) > random_ndcg10_expectation(y, qid) + 0.1


def test_lambdamart_fitted_attributes_and_dataframe():
    X, y, qid = make_data()
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    model = LambdaMARTRanker(n_estimators=7, num_leaves=5).fit(df, y, qid=qid)
    assert model.n_features_in_ == 5
    np.testing.assert_array_equal(model.feature_names_in_, df.columns.to_numpy())
    assert model.booster_.current_iteration() == 7
    assert model.n_iter_ == 7
    assert model.model_.get_params()["num_leaves"] == 5
    assert model.feature_importances_.sum() > 0
    assert clone(model).get_params()["num_leaves"] == 5
    # sparse input (matrix or array) gives the same scores as dense
    plain = LambdaMARTRanker(n_estimators=7, num_leaves=5).fit(X, y, qid=qid)
    np.testing.assert_allclose(plain.predict(X), model.predict(df), atol=1e-12)
    np.testing.assert_allclose(plain.predict(sp.csr_matrix(X)), plain.predict(X), atol=1e-12)
    np.testing.assert_allclose(plain.predict(sp.csc_array(X)), plain.predict(X), atol=1e-12)
    from_sparse = LambdaMARTRanker(n_estimators=7, num_leaves=5).fit(sp.csr_array(X), y, qid=qid)
    np.testing.assert_allclose(from_sparse.predict(X), plain.predict(X), atol=1e-12)


def test_lambdamart_labels_above_31_get_default_gains():
    X, y, qid = make_data()
    y_big = y * 13  # labels up to 39: beyond LightGBM's 31 default gain levels
    model = LambdaMARTRanker(n_estimators=3).fit(X, y_big, qid=qid)
    gains = model.model_.get_params()["label_gain"]
    assert len(gains) == 40
    assert gains[39] == 2.0**39 - 1
    # float labels that are whole numbers are fine
    LambdaMARTRanker(n_estimators=3).fit(X, y.astype(float), qid=qid)


def test_lambdamart_xendcg_and_extra_params():
    X, y, qid = make_data()
    model = LambdaMARTRanker(
        n_estimators=5, objective="rank_xendcg", lgbm_params={"min_split_gain": 0.0}
    ).fit(X, y, qid=qid)
    assert model.model_.get_params()["objective"] == "rank_xendcg"
    assert model.model_.get_params()["min_split_gain"] == 0.0
    truncated = LambdaMARTRanker(n_estimators=5, lambdarank_truncation_level=3).fit(X, y, qid=qid)
    assert truncated.model_.get_params()["lambdarank_truncation_level"] == 3


def test_lambdamart_sample_weight():
    X, y, qid = make_data()
    plain = LambdaMARTRanker(n_estimators=5).fit(X, y, qid=qid)
    ones = LambdaMARTRanker(n_estimators=5).fit(X, y, qid=qid, sample_weight=np.ones(y.size))
    np.testing.assert_allclose(ones.predict(X), plain.predict(X), atol=1e-12)
    weighted = np.where(qid < 110, 5.0, 1.0)
    heavy = LambdaMARTRanker(n_estimators=5).fit(X, y, qid=qid, sample_weight=weighted)
    assert not np.allclose(heavy.predict(X), plain.predict(X))


def test_lambdamart_early_stopping_holds_out_queries():
    X, y, qid = make_data(n_queries=60)
    model = LambdaMARTRanker(
        n_estimators=200, early_stopping_rounds=5, validation_fraction=0.2, random_state=0
    ).fit(X, y, qid=qid)
    assert model.best_iteration_ is not None
    assert 0 < model.best_iteration_ < 200
    assert model.n_iter_ == model.best_iteration_
    result = model.model_.evals_result_["valid_0"]
    assert set(result) == {"ndcg@10"}
    np.testing.assert_allclose(
        model.predict(X), model.booster_.predict(X, num_iteration=model.best_iteration_)
    )
    again = LambdaMARTRanker(
        n_estimators=200, early_stopping_rounds=5, validation_fraction=0.2, random_state=0
    ).fit(sp.csr_array(X), y, qid=qid)
    assert again.best_iteration_ == model.best_iteration_
    np.testing.assert_allclose(again.predict(X), model.predict(X), atol=1e-12)


# --------------------------------------------------------------------------------------------
# baselines
# --------------------------------------------------------------------------------------------


def test_random_ranker_is_a_function_of_row_and_seed():
    X, _, _ = make_data(n_queries=200)
    ranker = RandomRanker(random_state=3).fit(X[:50])
    scores = ranker.predict(X)
    assert ranker.seed_ == 3
    # the same row, the same score, in any subset or order
    np.testing.assert_array_equal(ranker.predict(X[::-1]), scores[::-1])
    np.testing.assert_array_equal(ranker.predict(X[10:20]), scores[10:20])
    np.testing.assert_array_equal(RandomRanker(random_state=3).fit(X).predict(X), scores)
    # -0.0 and 0.0 are the same value
    Z = np.zeros((2, 3))
    Z[1, 1] = -0.0
    z = ranker.fit(Z).predict(Z)
    assert z[0] == z[1]
    # uniform on [0, 1): a deterministic sample, so a fixed p-value
    assert scores.min() >= 0 and scores.max() < 1
    assert stats.kstest(scores, "uniform").pvalue > 0.01
    other = RandomRanker(random_state=4).fit(X).predict(X)
    assert abs(stats.spearmanr(scores, other).statistic) < 0.1


def test_random_ranker_none_draws_a_seed():
    X = np.arange(20.0).reshape(10, 2)
    a = RandomRanker().fit(X)
    b = RandomRanker().fit(X)
    assert isinstance(a.seed_, int)
    assert a.seed_ != b.seed_
    assert not np.array_equal(a.predict(X), b.predict(X))
    with pytest.raises(ValueError, match="random_state must be a non-negative integer"):
        RandomRanker(random_state=-1).fit(X)


def test_rankers_follow_the_random_state_policy():
    X, y, qid = make_data()
    for kind in (np.random.default_rng, np.random.RandomState):
        a = RandomRanker(random_state=kind(3)).fit(X)
        b = RandomRanker(random_state=kind(3)).fit(X)
        assert a.seed_ == b.seed_
        np.testing.assert_array_equal(a.predict(X), b.predict(X))
        params = {"n_estimators": 5, "subsample": 0.5, "subsample_freq": 1}
        c = LambdaMARTRanker(random_state=kind(3), **params).fit(X, y, qid=qid)
        d = LambdaMARTRanker(random_state=kind(3), **params).fit(X, y, qid=qid)
        np.testing.assert_array_equal(c.predict(X), d.predict(X))
    with pytest.raises(TypeError, match="random_state must be None, a non-negative int"):
        RandomRanker(random_state="seed").fit(X)


def test_random_ranker_sparse_equals_dense():
    X, _, _ = make_data()
    X[X < 0] = 0.0
    ranker = RandomRanker(random_state=1).fit(X)
    np.testing.assert_array_equal(ranker.predict(sp.csr_matrix(X)), ranker.predict(X))


def test_oracle_ranker():
    X, y, qid = make_data()
    oracle = OracleRanker().fit(X, y, qid=qid)
    out = oracle.predict(X, y=list(y))
    np.testing.assert_array_equal(out, y.astype(float))
    assert out.dtype == np.float64
    assert OracleRanker.predict_needs_y is True
    with pytest.raises(ValueError, match=r"true labels.*predict\(X, y=y_true\)"):
        oracle.predict(X)
    with pytest.raises(ValueError, match="one entry per row"):
        oracle.predict(X, y=y[:-1])
    with pytest.raises(ValueError, match="NaN"):
        oracle.predict(X, y=np.where(y > 2, np.nan, y))


def test_feature_ranker():
    X = pd.DataFrame({"bm25": [3.0, 1.0, 2.0], "pagerank": [0.1, 0.9, 0.5]})
    by_name = FeatureRanker("pagerank").fit(X)
    assert by_name.feature_index_ == 1
    np.testing.assert_array_equal(by_name.predict(X), [0.1, 0.9, 0.5])
    np.testing.assert_array_equal(FeatureRanker(0, ascending=True).fit(X).predict(X), [-3, -1, -2])
    sparse = sp.csr_matrix(X.to_numpy())
    np.testing.assert_array_equal(FeatureRanker(0).fit(sparse).predict(sparse), [3.0, 1.0, 2.0])


# --------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------


def test_lambdamart_missing_or_bad_qid():
    X, y, qid = make_data()
    with pytest.raises(MissingQueryIdsError, match=r"LambdaMARTRanker\.fit needs the query id"):
        LambdaMARTRanker(n_estimators=2).fit(X, y)
    with pytest.raises(ValueError, match=r"qid has \d+ entries"):
        LambdaMARTRanker(n_estimators=2).fit(X, y, qid=qid[:-3])
    with pytest.raises(ValueError, match="qid has missing values"):
        LambdaMARTRanker(n_estimators=2).fit(X, y, qid=np.where(qid == 100, np.nan, qid))


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        (lambda y: np.where(y == 3, np.nan, y), "y has NaN"),
        (lambda y: y - 1, "y has negative labels"),
        (lambda y: y + 0.5, "y has non-integer labels.*LightGBM.*integer"),
    ],
    ids=["nan", "negative", "non-integer"],
)
def test_lambdamart_bad_labels(labels, message):
    X, y, qid = make_data()
    with pytest.raises(ValueError, match=message):
        LambdaMARTRanker(n_estimators=2).fit(X, labels(y.astype(float)), qid=qid)


def test_lambdamart_bad_parameters():
    X, y, qid = make_data()
    with pytest.raises(ValueError, match="objective='ndcg' is not valid"):
        LambdaMARTRanker(objective="ndcg").fit(X, y, qid=qid)
    with pytest.raises(ValueError, match=r"label_gain has 3 entries.*labels up to 3"):
        LambdaMARTRanker(label_gain=[0, 1, 3]).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="lgbm_params repeats 'num_leaves'"):
        LambdaMARTRanker(lgbm_params={"num_leaves": 4}).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="eval_at must be an integer >= 1"):
        LambdaMARTRanker(eval_at=(0,)).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="sample_weight must be finite and >= 0"):
        LambdaMARTRanker().fit(X, y, qid=qid, sample_weight=-np.ones(y.size))
    with pytest.raises(ValueError, match="y has labels up to 2000"):
        LambdaMARTRanker().fit(X, np.where(y == 3, 2000, y), qid=qid)
    with pytest.raises(ValueError, match=r"early stopping needs whole queries.*2 queries"):
        LambdaMARTRanker(early_stopping_rounds=3, validation_fraction=0.9).fit(
            X[qid < 102], y[qid < 102], qid=qid[qid < 102]
        )


def test_lambdamart_query_too_large():
    n = LIGHTGBM_MAX_QUERY_SIZE + 1
    X = np.arange(n + 2, dtype=float)[:, None]
    y = np.arange(n + 2) % 3
    qid = np.array(["big"] * n + ["small"] * 2)
    with pytest.raises(ValueError, match=r"qid 'big' has 10001 rows.*at most 10000 rows"):
        LambdaMARTRanker().fit(X, y, qid=qid)


def test_feature_ranker_bad_feature():
    X = pd.DataFrame({"bm25": [3.0, 1.0], "pagerank": [0.1, 0.9]})
    with pytest.raises(ValueError, match=r"feature='tfidf' is not a column.*'bm25', 'pagerank'"):
        FeatureRanker("tfidf").fit(X)
    with pytest.raises(ValueError, match=r"feature=2 is out of range.*in 0\.\.1"):
        FeatureRanker(2).fit(X)
    with pytest.raises(ValueError, match=r"feature=-1 is out of range"):
        FeatureRanker(-1).fit(X)
    with pytest.raises(ValueError, match="feature='bm25' is a column name, but X has no"):
        FeatureRanker("bm25").fit(X.to_numpy())
    with pytest.raises(TypeError, match="feature must be a column index"):
        FeatureRanker(1.0).fit(X)


@pytest.mark.parametrize(
    "ranker",
    [LambdaMARTRanker(), RandomRanker(), OracleRanker(), FeatureRanker(0)],
    ids=lambda r: type(r).__name__,
)
def test_predict_before_fit(ranker):
    with pytest.raises(NotFittedError):
        ranker.predict(np.zeros((3, 2)))


def test_score_without_qid_explains_routing():
    X, y, _ = make_data()
    model = FeatureRanker(0).fit(X)
    with pytest.raises(
        MissingQueryIdsError, match=r"score needs the query id.*enable_metadata_rout"
    ):
        model.score(X, y)


def test_optional_heavy_packages_are_imported_lazily():
    code = (
        "import sys, sklearn_ltr_metrics; "
        "heavy = [m for m in ('lightgbm', 'matplotlib', 'dask', 'distributed') "
        "if m in sys.modules]; "
        "assert not heavy, f'imported at package import: {heavy}'"
    )
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)


# --------------------------------------------------------------------------------------------
# model selection with metadata routing
# --------------------------------------------------------------------------------------------


def test_qid_is_requested_by_default():
    with sklearn.config_context(enable_metadata_routing=True):
        for ranker in (LambdaMARTRanker(), RandomRanker(), OracleRanker(), FeatureRanker(0)):
            routing = ranker.get_metadata_routing()
            assert routing.fit.requests["qid"] is True
            assert routing.score.requests["qid"] is True
            assert "qid" not in routing.predict.requests


def _manual_cv_scores(estimator, X, y, qid, cv):
    scores = []
    for train, test in cv.split(X, y, groups=qid):
        fitted = clone(estimator).fit(X[train], y[train], qid=qid[train])
        scores.append(ndcg10_reference(y[test], fitted.predict(X[test]), qid[test]))
    return np.array(scores)


def test_cross_validate_with_routing():
    X, y, qid = make_data()
    cv = GroupKFold(3)
    model = LambdaMARTRanker(n_estimators=5, num_leaves=7)
    with sklearn.config_context(enable_metadata_routing=True):
        result = cross_validate(model, X, y, cv=cv, params={"qid": qid, "groups": qid})
    expected = _manual_cv_scores(model, X, y, qid, cv)
    np.testing.assert_allclose(result["test_score"], expected, atol=1e-12)


def test_grid_search_with_routing():
    X, y, qid = make_data()
    cv = GroupKFold(3)
    grid = {"num_leaves": [3, 7], "n_estimators": [3, 8]}
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(LambdaMARTRanker(), grid, cv=cv).fit(X, y, qid=qid, groups=qid)
    assert search.best_params_["num_leaves"] in (3, 7)
    best = LambdaMARTRanker(**search.best_params_)
    expected = _manual_cv_scores(best, X, y, qid, cv).mean()
    assert search.best_score_ == pytest.approx(expected, abs=1e-12)
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    assert search.best_estimator_.n_features_in_ == X.shape[1]


# --------------------------------------------------------------------------------------------
# score(sample_weight), Pipeline.score, and the estimator type "regressor"
# --------------------------------------------------------------------------------------------


def test_score_with_query_weights():
    X, y, qid = make_data()
    model = FeatureRanker(0).fit(X)
    per_query = evaluate(y, X[:, 0], qid=qid, metrics="ndcg@10").per_query["ndcg@10"]
    weights = np.where(per_query.index.to_numpy() % 2 == 0, 3.0, 1.0)
    row_weights = weights[np.searchsorted(per_query.index.to_numpy(), qid)]
    expected = np.average(per_query.to_numpy(), weights=weights)
    assert model.score(X, y, qid=qid, sample_weight=row_weights) == pytest.approx(expected)
    assert model.score(X, y, qid=qid, sample_weight=np.ones(len(y))) == model.score(X, y, qid=qid)
    bad = row_weights.copy()
    bad[0] += 1
    with pytest.raises(ValueError, match=r"sample_weight differs between rows of query 100"):
        model.score(X, y, qid=qid, sample_weight=bad)


def test_pipeline_score_with_routing():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y, qid = make_data()
    pipe = make_pipeline(StandardScaler(), LambdaMARTRanker(n_estimators=5))
    with sklearn.config_context(enable_metadata_routing=True):
        pipe.fit(X, y, qid=qid)
        value = pipe.score(X, y, qid=qid)
        cv = cross_validate(pipe, X, y, cv=GroupKFold(3), params={"qid": qid, "groups": qid})
    assert value == pipe[-1].score(pipe[0].transform(X), y, qid=qid)
    assert np.isfinite(cv["test_score"]).all()


def test_rankers_are_regressors_of_relevance():
    from sklearn.base import is_regressor
    from sklearn.ensemble import VotingRegressor
    from sklearn.inspection import partial_dependence
    from sklearn.model_selection import KFold, check_cv

    X, y, qid = make_data()
    for model in (LambdaMARTRanker(), RandomRanker(), OracleRanker(), FeatureRanker(0)):
        assert is_regressor(model)
    # check_cv treats a ranker as a regressor: an int means KFold, which ignores queries (use
    # QueryKFold, or cross_validate_ranking, whose int cv is query-safe).
    assert isinstance(check_cv(5, y, classifier=False), KFold)
    lambdamart = LambdaMARTRanker(n_estimators=5, min_child_samples=5).fit(X, y, qid=qid)
    pd_result = partial_dependence(lambdamart, X, features=[0], grid_resolution=5)
    manual = []
    for value in pd_result["grid_values"][0]:
        X_fixed = X.copy()
        X_fixed[:, 0] = value
        manual.append(lambdamart.predict(X_fixed).mean())
    np.testing.assert_allclose(pd_result["average"][0], manual)
    with sklearn.config_context(enable_metadata_routing=True):
        vote = VotingRegressor(
            [("lm", LambdaMARTRanker(n_estimators=5)), ("f", FeatureRanker(0))]
        ).fit(X, y, qid=qid)
    lm = LambdaMARTRanker(n_estimators=5).fit(X, y, qid=qid)
    np.testing.assert_allclose(vote.predict(X), (lm.predict(X) + X[:, 0]) / 2)


# --------------------------------------------------------------------------------------------
# expected_failed_checks: the list users pass to check_estimator
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "estimator",
    [
        LambdaMARTRanker(n_estimators=5),
        QueryAwareRanker(lightgbm.LGBMRanker(n_estimators=3, verbose=-1)),
        RandomRanker(random_state=0),
        OracleRanker(),
        FeatureRanker(0),
    ],
    ids=lambda est: type(est).__name__,
)
def test_check_estimator_with_expected_failures_reports_no_failure(estimator):
    # What the docs tell users to run: every check either passes or is an expected failure,
    # and every expected failure really fails (the list holds nothing stale).
    from sklearn.utils.estimator_checks import check_estimator

    expected = expected_failed_checks(estimator)
    results = check_estimator(
        estimator, expected_failed_checks=expected, on_fail=None, on_skip=None
    )
    status = {r["check_name"]: r["status"] for r in results}
    assert "failed" not in status.values(), status
    assert {name for name, s in status.items() if s == "xfail"} == set(expected)
    owner = type(estimator).__name__
    assert all(
        reason.startswith(f"scikit-learn's {name} cannot apply to {owner}: ")
        and ("the check calls " in reason or "the wrapped ranker's objective" in reason)
        for name, reason in expected.items()
    )


def test_expected_failed_checks_refuses_other_estimators():
    from sklearn.linear_model import Ridge

    with pytest.raises(TypeError, match="Ridge"):
        expected_failed_checks(Ridge())
    # A subclass gets its base class's list, its reasons naming the subclass.
    subclass = expected_failed_checks(_SingleQueryLambdaMART())
    assert subclass.keys() == expected_failed_checks(LambdaMARTRanker()).keys()
    assert "_SingleQueryLambdaMART learns from pairs" in subclass["check_fit2d_1sample"]
