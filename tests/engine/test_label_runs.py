"""The check of the labels counts the relevant rows of each run of query ids in its own pass
(issue 44): the counts must be numpy's, on any number of threads and vector width, and the
engine must take them in place of its own count when the runs are the queries."""

import itertools

import numpy as np
import pytest

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics._engine import _sums, id_runs, range_and_counts

from .._engine import small_grain, vector_lanes

METRICS = ["ndcg@10", "precision@10", "recall@100", "map", "mrr"]


def _reference(values, starts):
    bounds = np.append(starts, values.size)
    counts = np.array([np.count_nonzero(values[a:b] > 0) for a, b in itertools.pairwise(bounds)])
    return values.min(), values.max(), counts


@pytest.mark.parametrize("lanes", [8, 4, 2])
@pytest.mark.parametrize("rows_per_thread", [64, 1 << 17])
def test_range_and_counts_are_numpys(monkeypatch, lanes, rows_per_thread):
    small_grain(monkeypatch, rows_per_thread)
    vector_lanes(lanes)
    try:
        rng = np.random.default_rng(0)
        # Runs of 1 to 5,000 rows: blocks of one run longer than the block, and of many.
        sizes = np.concatenate([rng.integers(1, 30, 200), rng.integers(2000, 5000, 3), [1, 1]])
        values = rng.integers(0, 4, sizes.sum()).astype(float) * (rng.random(sizes.sum()) < 0.3)
        values[::97] = -0.5
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.intp)
        low, high, counts = range_and_counts(values, starts, 2)
        ref = _reference(values, starts)
        assert (low, high) == ref[:2]
        np.testing.assert_array_equal(counts, ref[2])
        values[len(values) // 2] = np.nan
        low, high, counts = range_and_counts(values, starts, 2)
        assert np.isnan(low) and np.isnan(high)
    finally:
        vector_lanes(8)


def test_id_runs_of_grouped_and_shuffled_ids():
    qid = np.repeat([5, 3, 9, 1], [3, 1, 4, 2])
    np.testing.assert_array_equal(id_runs(qid), [0, 3, 4, 8])
    np.testing.assert_array_equal(id_runs(qid.astype(np.float64)), [0, 3, 4, 8])
    assert id_runs(np.array([1, 2, 1, 2, 1, 2])) is None  # more runs than half the rows
    assert id_runs(qid.astype(str)) is None  # not fixed-width: the grouping's own paths


@pytest.mark.parametrize("order", ["grouped", "runs_reordered", "shuffled"])
def test_evaluate_counts_the_relevant_rows_once(monkeypatch, order):
    """Grouped rows: the count of the relevant rows comes from the labels' check (the
    engine's own count is never called); other layouts count as before. Same values."""
    rng = np.random.default_rng(1)
    sizes = rng.integers(20, 60, 40)
    qid = np.repeat(np.arange(40) * 3 + 7, sizes)
    y = (rng.random(qid.size) < 0.2) * rng.integers(1, 4, qid.size).astype(float)
    s = y + rng.standard_normal(qid.size)
    expected = evaluate(y, s, qid=qid, metrics=METRICS)
    if order == "runs_reordered":
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        runs = [np.arange(a, a + n) for a, n in zip(starts, sizes, strict=True)]
        perm = np.concatenate(runs[::-1])
        qid, y, s = qid[perm], y[perm], s[perm]
    elif order == "shuffled":
        perm = rng.permutation(qid.size)
        qid, y, s = qid[perm], y[perm], s[perm]
    if order == "grouped":

        def refuse(*args, **kwargs):
            raise AssertionError("the relevant rows were counted a second time")

        monkeypatch.setattr(_sums, "segment_count", refuse)
    got = evaluate(y, s, qid=qid, metrics=METRICS)
    np.testing.assert_array_equal(got.per_query.to_numpy(), expected.per_query.to_numpy())


def test_label_errors_unchanged_with_runs():
    qid = np.repeat([1, 2], 3)
    with pytest.raises(ValueError, match=r"y_true has negative labels \(first at row 4: -1.0\)"):
        evaluate([0, 1, 0, 0, -1, 1], np.arange(6.0), qid=qid)
    with pytest.raises(ValueError, match=r"NaN or infinite labels \(first at row 1"):
        evaluate([0, np.nan, 0, 0, 1, 1], np.arange(6.0), qid=qid)
    with pytest.raises(ValueError, match="one entry per row"):
        evaluate([0, 1, 0, 0, 1, 1, 1], np.arange(7.0), qid=qid)
