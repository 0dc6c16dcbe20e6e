"""Per-query columns in one compiled pass each (``_query_columns.pxi``), against the numpy
steps and the (query, level) runs they replace: the same bits, on one thread and on several.
"""

import numpy as np
import pytest

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics._engine import _ideal, _ranked, _sums

from .._engine import small_grain

LEVEL_OF = np.array([-1, 1, 2, 1, 0], dtype=np.intp)  # grades 1 and 3: one level
LEVEL_GAIN = np.array([7.0, 3.0, 1.0])


def _same_bits(a, b):
    assert a.dtype == b.dtype == np.float64
    np.testing.assert_array_equal(a.view(np.int64), b.view(np.int64))


@pytest.mark.parametrize("n_threads", [1, 3])
def test_ideal_dcg_of_counts_is_that_of_the_levels(n_threads):
    """The ideal DCG read from the grade counts is ``ideal_dcg`` of ``ideal_levels``' runs,
    bit for bit, at any cut-off (fractional, past the longest query, ``inf``, one broadcast
    cut-off), with the discounts' sums running past the largest count."""
    rng = np.random.default_rng(3)
    n_q = 50
    counts = rng.integers(0, 6, (n_q, 8)).astype(np.int32)
    counts[:, 5:] = 0  # grades from 5 on: none (the ranking counts grades below 8)
    counts[rng.random(n_q) < 0.2, 1:] = 0  # queries with no grade of positive gain
    counts[3] = 0
    dummy_labels, offsets = np.zeros(1), np.zeros(n_q + 1, dtype=np.intp)
    gain, count, upper, runs = _sums.ideal_levels(
        dummy_labels, offsets, LEVEL_OF, LEVEL_GAIN, n_threads, 1, grade_counts=counts
    )
    longest = int(upper.max())
    disc_cum = np.concatenate(([0.0], np.cumsum(1.0 / np.log2(np.arange(2, longest + 40)))))
    pair_query = np.repeat(np.arange(n_q, dtype=np.intp), 6)
    pair_k = np.tile([1.0, 2.5, 3.0, 7.0, 200.0, np.inf], n_q)
    exact = disc_cum[: longest + 1]
    want = _sums.ideal_dcg(gain, count, upper, runs, pair_query, pair_k, exact, n_threads, 1)
    got = _sums.ideal_dcg_of_counts(
        counts, LEVEL_OF, LEVEL_GAIN, pair_query, pair_k, disc_cum, n_threads, 1
    )
    _same_bits(got, want)
    every = np.arange(n_q, dtype=np.intp)
    ten = np.broadcast_to(np.float64(10.0), (n_q,))
    want = _sums.ideal_dcg(gain, count, upper, runs, every, np.full(n_q, 10.0), exact)
    got = _sums.ideal_dcg_of_counts(counts, LEVEL_OF, LEVEL_GAIN, every, ten, disc_cum)
    _same_bits(got, want)
    has_gain = _sums.positive_gain_of_counts(counts, LEVEL_OF, n_threads, 1).view(bool)
    np.testing.assert_array_equal(has_gain, np.diff(runs) > 0)
    assert not has_gain[3]


@pytest.mark.parametrize("n_threads", [1, 3])
def test_columns_are_the_numpy_steps(n_threads):
    """Counts as float64 and the other rows, the table's n_neg and difficulty, a metric's
    values filled where undefined (twice), MRR's reciprocal ranks within the cut-off."""
    rng = np.random.default_rng(4)
    n = 257
    sizes = rng.integers(1, 100, n).astype(np.intp)
    counted = (sizes * rng.random(n)).astype(np.intp)
    pos, neg = _sums.count_columns(sizes, counted, n_threads, 8)
    _same_bits(pos, counted.astype(np.float64))
    _same_bits(neg, sizes - counted.astype(np.float64))
    n_neg_int, difficulty = _sums.table_counts(neg, pos, n_threads, 8)
    np.testing.assert_array_equal(n_neg_int, neg.astype(np.int64))
    assert n_neg_int.dtype == np.int64
    with np.errstate(divide="ignore", invalid="ignore"):
        _same_bits(difficulty, np.where(pos > 0, neg / pos, np.nan))
    values, undefined = rng.random(n), rng.random(n) < 0.3
    for fill in (np.nan, 0.0, 1.0):
        first, second = _sums.filled_copies(values, undefined.view(np.uint8), fill, n_threads, 8)
        _same_bits(first, np.where(undefined, fill, values))
        _same_bits(second, first)
        assert not np.shares_memory(first, second)
    rank = np.where(rng.random(n) < 0.2, np.inf, rng.integers(1, 60, n).astype(np.float64))
    kk = rng.integers(1, 80, n).astype(np.int64)
    want = np.reciprocal(rank)
    want[~(rank <= kk)] = 0.0
    _same_bits(_sums.reciprocal_within(rank, kk, n_threads, 8), want)


def _graded(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 40, 120)
    qid = np.repeat(np.arange(sizes.size), sizes)
    y = rng.choice([0, 0, 0, 1, 2, 3, 4], qid.size).astype(np.float64)
    y[qid % 7 == 0] = 0.0  # queries with no relevant row: undefined nDCG, recall, MAP, MRR
    return qid, y, np.round(rng.normal(size=qid.size), 1)  # tied scores


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("gain", ["exponential", "linear"])
def test_evaluate_reads_the_ideal_from_the_grade_counts_as_from_the_levels(
    monkeypatch, n_jobs, gain
):
    """``evaluate``'s nDCG from the grade counts is that of the (query, level) runs, and its
    undefined queries (no positive gain) the same, under every ``empty_query`` fill."""
    small_grain(monkeypatch, 16)
    qid, y, s = _graded(n_jobs)
    metrics = ["ndcg@3", "ndcg@10", "ndcg", "mrr", "map", "recall@5", "precision@5"]
    for empty_query in ("skip", "zero", "one"):
        options = {"gain": gain, "empty_query": empty_query, "n_jobs": n_jobs}
        counted = evaluate(y, s, qid=qid, metrics=metrics, **options).per_query
        with monkeypatch.context() as patch:
            patch.setattr(_ideal.IdealGains, "_grade_counts", None)  # the runs' path
            from_runs = evaluate(y, s, qid=qid, metrics=metrics, **options).per_query
        for column in metrics:
            _same_bits(counted[column].to_numpy(), from_runs[column].to_numpy())
        assert counted["ndcg@3"].isna().any() == (empty_query == "skip")


def test_every_query_is_one_shared_read_only_index():
    """The pairs of one cut-off per query: ``0 .. n - 1``, read only, views of one array
    kept between evaluations (a fresh one past the limit)."""
    small, large = _ranked.query_index(5), _ranked.query_index(1000)
    np.testing.assert_array_equal(small, np.arange(5))
    np.testing.assert_array_equal(large, np.arange(1000))
    assert not small.flags.writeable and not large.flags.writeable
    assert np.shares_memory(_ranked.query_index(7), _ranked.query_index(900))
    beyond = _ranked.query_index(_ranked.SHARED_INDEX_LIMIT + 1)
    assert beyond.shape == (_ranked.SHARED_INDEX_LIMIT + 1,) and beyond[-1] == beyond.size - 1
