"""Count per query (``_counts.py``; the compiled ``segment_count``, ``code_count`` and
``divide_or_nan`` of ``_sums``), against numpy: ``np.bincount`` and plain division."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics._engine._counts import divide_or_nan, query_counts
from sklearn_ltr_metrics._engine._grouping import active_rule, group_rows

from .._engine import small_grain, vector_lanes


@pytest.fixture(params=[8, 2], ids=["avx512-lanes", "two-lanes"])
def lanes(request):
    """The compiled counts on vectors of eight (AVX-512, where the CPU has it) and of two."""
    yield vector_lanes(request.param)
    vector_lanes()


@pytest.mark.parametrize("shuffled", [False, True])
@pytest.mark.parametrize("n_threads", [1, 3])
def test_query_counts_match_bincount(monkeypatch, shuffled, n_threads, lanes):
    """Relevant rows counted per query (grouped rows: eight at once on AVX-512)."""
    small_grain(monkeypatch, 8)
    rng = np.random.default_rng(3)
    qid = np.repeat(np.arange(40), rng.integers(1, 30, 40))
    qid = rng.permutation(qid) if shuffled else qid
    labels = rng.integers(0, 3, qid.size).astype(np.float64)
    grouping = group_rows(qid, n_threads=n_threads)
    counts = query_counts(grouping, active_rule(labels, 0.0), n_threads=n_threads)
    want_pos = np.bincount(qid, weights=labels > 0, minlength=40)
    np.testing.assert_array_equal(counts.counted, want_pos)
    np.testing.assert_array_equal(counts.n_pos, want_pos)
    np.testing.assert_array_equal(counts.n_neg, np.bincount(qid, minlength=40) - want_pos)
    assert counts.n_pos_column.dtype == np.int64


def test_query_stats_add_documents_the_ranker_did_not_score():
    qid = np.array([7, 7, 7, 9, 9])
    labels = np.array([1.0, 0.0, 1.0, 0.0, 0.0])
    grouping = group_rows(qid)
    stats = pd.DataFrame({"qid": [9, 7, 5], "n_pos": [4, np.nan, 1], "n_neg": [10, 3, 0]})
    counts = query_counts(grouping, active_rule(labels, 0.0), query_stats=stats)
    np.testing.assert_array_equal(counts.n_pos, [2, 4])  # NaN keeps the count
    np.testing.assert_array_equal(counts.n_neg, [3, 10])
    np.testing.assert_array_equal(counts.n_pos_column, [2, 4])
    with pytest.raises(ValueError, match="n_pos can only add"):
        query_counts(grouping, active_rule(labels, 0.0), query_stats=stats.assign(n_pos=1))


@pytest.mark.parametrize("n_threads", [1, 3])
def test_divide_or_nan_matches_numpy(n_threads):
    rng = np.random.default_rng(1)
    numerator = rng.normal(size=1000)
    denominator = rng.integers(-2, 4, 1000).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        want = np.where(denominator > 0, numerator / denominator, np.nan)
    np.testing.assert_array_equal(divide_or_nan(numerator, denominator, n_threads), want)
