"""Tests of the synthetic data generator: shape, determinism, validation, baseline ordering."""

import time

import numpy as np
import pytest
from sklearn.metrics import ndcg_score

from sklearn_ltr_metrics.datasets._generate import BM25_FEATURE, make_ranking_data

SMALL = {"n_pos_range": (3, 30), "n_neg_range": (200, 600)}


def per_query(qid):
    """Row slices of each query (rows are grouped by query)."""
    bounds = np.flatnonzero(np.diff(qid)) + 1
    starts = np.r_[0, bounds]
    ends = np.r_[bounds, len(qid)]
    return [slice(a, b) for a, b in zip(starts, ends, strict=True)]


def mean_ndcg(y, score, qid, k=10):
    """Mean of scikit-learn's per-query NDCG@k (an independent reference)."""
    return np.mean([ndcg_score(y[s][None], score[s][None], k=k) for s in per_query(qid)])


def mean_recall(y, score, qid, k=10):
    values = []
    for s in per_query(qid):
        top = np.argsort(-score[s], kind="stable")[:k]
        values.append((y[s][top] > 0).sum() / (y[s] > 0).sum())
    return np.mean(values)


def test_shapes_dtypes_and_grouping():
    X, y, qid = make_ranking_data(20, n_features=7, random_state=0)
    assert X.shape == (len(y), 7) and X.dtype == np.float64
    assert y.dtype == np.float64 and qid.dtype == np.int64
    assert set(np.unique(y)) == {0.0, 1.0}
    np.testing.assert_array_equal(np.unique(qid), np.arange(20))
    assert np.all(np.diff(qid) >= 0)  # grouped, in id order
    n_pos = np.bincount(qid, weights=y > 0)
    n_neg = np.bincount(qid) - n_pos
    assert n_pos.min() >= 3 and n_pos.max() <= 120
    assert n_neg.min() >= 510 and n_neg.max() <= 4966


def test_size_medians_match_methodology():
    _, y, qid = make_ranking_data(2000, n_features=1, random_state=1)
    n_pos = np.bincount(qid, weights=y > 0)
    n_neg = np.bincount(qid) - n_pos
    assert 28 * 0.8 <= np.median(n_pos) <= 28 * 1.2
    assert 1400 * 0.8 <= np.median(n_neg) <= 1400 * 1.2
    assert (n_pos.min(), n_pos.max(), n_neg.min(), n_neg.max()) == (3, 120, 510, 4966)
    # Few queries pile up on the bounds.
    assert np.mean(n_pos == 120) < 0.02 and np.mean(n_neg == 4966) < 0.02


def test_custom_range_median_defaults_to_geometric_middle():
    _, y, qid = make_ranking_data(400, n_features=1, n_neg_range=(50, 200), random_state=0)
    n_neg = np.bincount(qid) - np.bincount(qid, weights=y > 0)
    assert n_neg.min() >= 50 and n_neg.max() <= 200
    assert 85 <= np.median(n_neg) <= 115  # sqrt(50 * 200) = 100
    _, y, qid = make_ranking_data(400, n_features=1, median_pos=10, random_state=0)
    assert 8 <= np.median(np.bincount(qid, weights=y > 0)) <= 12


def test_deterministic_for_a_seed():
    first = make_ranking_data(5, graded=True, random_state=42, **SMALL)
    second = make_ranking_data(5, graded=True, random_state=42, **SMALL)
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)
    other = make_ranking_data(5, graded=True, random_state=43, **SMALL)
    assert not np.array_equal(first[0][:50], other[0][:50])
    from_state = make_ranking_data(5, random_state=np.random.RandomState(42), **SMALL)
    np.testing.assert_array_equal(from_state[0], make_ranking_data(5, random_state=42, **SMALL)[0])
    generator = make_ranking_data(5, random_state=np.random.default_rng(0), **SMALL)
    assert generator[0].shape[1] == 10


def test_graded_labels():
    _, y, qid = make_ranking_data(30, graded=True, random_state=0, **SMALL)
    assert set(np.unique(y)) == {0.0, 1.0, 2.0, 3.0, 4.0}
    grades = y[y > 0]
    assert np.mean(grades == 1) > np.mean(grades == 4)
    n_pos = np.bincount(qid, weights=y > 0)
    assert n_pos.min() >= 3 and n_pos.max() <= 30


def test_bm25_feature_shape():
    X, y, _ = make_ranking_data(30, random_state=0, **SMALL)
    bm25 = X[:, BM25_FEATURE]
    assert BM25_FEATURE == 0
    assert bm25.min() == 0.0
    assert np.mean(bm25[y == 0] == 0) > 0.7  # most non-relevant documents do not match
    assert np.mean(bm25[y > 0] > 0) > 0.8
    assert np.median(bm25[(y > 0) & (bm25 > 0)]) > np.median(bm25[(y == 0) & (bm25 > 0)])


def test_rows_shuffled_within_queries():
    _, y, qid = make_ranking_data(200, n_features=1, random_state=0, **SMALL)
    first_rows = np.r_[0, np.flatnonzero(np.diff(qid)) + 1]
    share_relevant = np.mean(y > 0)
    # If relevant rows came first, every query's first row would be relevant.
    assert np.mean(y[first_rows] > 0) < 3 * share_relevant


def test_return_frame_matches_arrays():
    X, y, qid = make_ranking_data(3, n_features=4, random_state=5, **SMALL)
    frame = make_ranking_data(3, n_features=4, random_state=5, return_frame=True, **SMALL)
    assert frame.columns.tolist() == ["bm25", "f1", "f2", "f3", "qid", "label"]
    np.testing.assert_array_equal(frame[["bm25", "f1", "f2", "f3"]].to_numpy(), X)
    np.testing.assert_array_equal(frame["label"].to_numpy(), y)
    np.testing.assert_array_equal(frame["qid"].to_numpy(), qid)


def test_single_feature():
    X, _, _ = make_ranking_data(2, n_features=1, random_state=0, **SMALL)
    assert X.shape[1] == 1 and X.min() >= 0


@pytest.mark.parametrize(
    ("kwargs", "error", "fragment"),
    [
        ({"n_queries": 0}, ValueError, "n_queries must be an integer >= 1"),
        ({"n_queries": 2.5}, TypeError, "n_queries"),
        ({"n_features": 0}, ValueError, "n_features"),
        ({"n_pos_range": (5, 2)}, ValueError, r"n_pos_range must satisfy 1 <= low <= high"),
        ({"n_pos_range": (0, 2)}, ValueError, "n_pos_range"),
        ({"n_neg_range": (1.5, 9)}, TypeError, "n_neg_range must be a pair of integers"),
        ({"n_neg_range": 10}, TypeError, "n_neg_range"),
        ({"median_pos": 200}, ValueError, r"median_pos=200 must lie inside its range \(3, 120\)"),
        ({"median_neg": "1400"}, TypeError, "median_neg"),
        ({"graded": "yes"}, TypeError, "graded"),
        # the package's random-state policy (_random.py): the wrong kind, a bad value
        ({"random_state": "seed"}, TypeError, "random_state must be None, a non-negative int"),
        ({"random_state": -1}, ValueError, "random_state must be a non-negative integer seed"),
    ],
)
def test_parameter_validation(kwargs, error, fragment):
    with pytest.raises(error, match=fragment):
        make_ranking_data(**{"n_queries": 2, **kwargs})


def test_fast_at_methodology_size():
    make_ranking_data(2, random_state=0)  # imports and warm-up
    start = time.perf_counter()
    X, _, _ = make_ranking_data(200, random_state=0)
    elapsed = time.perf_counter() - start
    assert X.shape[0] > 200_000
    assert elapsed < 2.0  # about 0.1-0.3 s; a per-query Python loop would be far slower


def test_baselines_order_random_bm25_oracle():
    X, y, qid = make_ranking_data(60, random_state=0, **SMALL)
    rng = np.random.default_rng(0)
    random_ndcg = mean_ndcg(y, rng.random(len(y)), qid)
    bm25_ndcg = mean_ndcg(y, X[:, BM25_FEATURE], qid)
    oracle_ndcg = mean_ndcg(y, y, qid)
    assert random_ndcg < 0.15
    assert bm25_ndcg > random_ndcg + 0.3
    assert bm25_ndcg < oracle_ndcg - 0.2 and oracle_ndcg == pytest.approx(1.0)
    assert mean_recall(y, X[:, BM25_FEATURE], qid) > 3 * mean_recall(y, rng.random(len(y)), qid)


def test_lambdamart_beats_bm25():
    lightgbm = pytest.importorskip(
        "lightgbm",
        reason="lightgbm is missing: a dependency of the package (pip install -e .)",
    )
    X, y, qid = make_ranking_data(60, random_state=3, **SMALL)
    train, test = qid < 30, qid >= 30
    model = lightgbm.LGBMRanker(n_estimators=50, n_jobs=1, random_state=0, verbose=-1)
    model.fit(X[train], y[train], group=np.bincount(qid[train]))
    learned = mean_ndcg(y[test], model.predict(X[test]), qid[test])
    bm25 = mean_ndcg(y[test], X[test, BM25_FEATURE], qid[test])
    assert learned > bm25 + 0.05
