"""The input checks done inside the passes that read the rows anyway (issue 44).

The check of the labels counts the relevant rows of each run of query ids in its own pass: the
counts must be numpy's, on any number of threads and vector width, and the engine must take
them in place of its own count when the runs are the queries. The check of the scores is left
to the ranking, which finds their range as it counts: every NaN or infinite score must still be
refused with the check's own message, wherever it lies and however the rows are read.
"""

import itertools

import numpy as np
import pytest

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics._engine import _ranking, _sums, id_runs, range_and_counts
from sklearn_ltr_metrics._validation import check_scores

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
        vector_lanes()


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


def _queries(rng, n_queries=30):
    """Queries of 5-300 rows: some without a relevant row, one with 200 relevant rows (ranked
    by sorting, beyond the direct count), the rest a few relevant rows."""
    sizes = rng.integers(5, 300, n_queries)
    sizes[3] = 400
    qid = np.repeat(np.arange(n_queries), sizes)
    y = (rng.random(qid.size) < 0.05).astype(float)
    y[qid == 1] = 0.0
    y[qid == 2] = 0.0
    start = int(np.flatnonzero(qid == 3)[0])
    y[start : start + 200] = 1.0
    return qid, y, y + rng.standard_normal(qid.size)


@pytest.mark.parametrize("lanes", [8, 2])
@pytest.mark.parametrize("layout", ["grouped", "shuffled", "few_active_shuffled"])
def test_every_nonfinite_score_is_refused(monkeypatch, lanes, layout):
    """A NaN or an infinity in any query (ranked directly, by sorting, or holding no relevant
    row) is refused with check_scores' message, on one or several threads."""
    small_grain(monkeypatch, 256)
    vector_lanes(lanes)
    try:
        rng = np.random.default_rng(3)
        qid, y, s = _queries(rng)
        if layout == "few_active_shuffled":
            y[y > 0] = 0.0
            y[np.flatnonzero(qid == 5)[:2]] = 1.0  # rows read in place, not moved
        for query in (0, 1, 3, 29):
            for bad in (np.nan, np.inf, -np.inf):
                scores = s.copy()
                scores[np.flatnonzero(qid == query)[-1]] = bad
                q, yy, ss = qid, y, scores
                if layout != "grouped":
                    perm = rng.permutation(qid.size)
                    q, yy, ss = qid[perm], y[perm], scores[perm]
                with pytest.raises(ValueError) as expected:
                    check_scores(ss, q)
                for n_jobs in (1, 2):
                    with pytest.raises(ValueError) as got:
                        evaluate(yy, ss, qid=q, metrics=METRICS, n_jobs=n_jobs)
                    assert str(got.value) == str(expected.value)
    finally:
        vector_lanes()


@pytest.mark.parametrize("lanes", [8, 4, 2])
def test_score_range_of_the_ranking_is_numpys(lanes):
    """The range the ranking finds as it counts equals numpy's, on every vector width."""
    vector_lanes(lanes)
    try:
        rng = np.random.default_rng(4)
        qid, y, s = _queries(rng)
        offsets = np.append(np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]]), qid.size)
        found = _ranking.rank_support(s, (y, 0.0, False), offsets.astype(np.intp), score_range=True)
        assert found[-1] == (s.min(), s.max())
    finally:
        vector_lanes()


def test_every_thread_keeps_its_own_flags(monkeypatch):
    """Each chunk's range and NaN flag are its own (a variable shared by the threads lost
    another thread's NaN or minimum now and then): a NaN or a negative value in any chunk is
    found on every one of many calls on four threads."""
    small_grain(monkeypatch, 16)
    starts = np.arange(0, 4096, 64, dtype=np.intp)
    for trial in range(2000):
        values = np.ones(4096)
        where = (trial * 613) % 4096
        values[where] = np.nan if trial % 2 else -1.0
        low, _ = _sums.value_range(values, 4, 16)
        found = range_and_counts(values, starts, 4)
        if trial % 2:
            assert np.isnan(low) and np.isnan(found[0])
        else:
            assert low == -1.0 and found[0] == -1.0 and found[1] == 1.0
