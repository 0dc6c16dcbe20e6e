"""Grouping rows by query and ranking them, against np.lexsort as the oracle."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics._grouping import group_rows, rank_order


def lexsort_order(qid, score):
    codes, _ = pd.factorize(qid, sort=True)
    return np.lexsort((np.arange(len(qid)), -score, codes))  # stable among ties


def _cases():
    rng = np.random.default_rng(0)
    sizes = rng.integers(1, 40, 50)
    grouped = np.repeat(np.arange(50), sizes)
    yield "grouped sorted ints", grouped
    names = np.array([f"q{i:02d}" for i in rng.permutation(50)])
    yield "grouped strings out of order", np.repeat(names, sizes)
    yield "interleaved", rng.permutation(grouped)
    yield "one query", np.zeros(30, dtype=int)
    yield "object strings", np.repeat(names, sizes).astype(object)
    yield "many queries (two radix passes)", rng.permutation(np.arange(70_000).repeat(2))
    yield "negative ints, shuffled", rng.permutation(grouped - 25)
    yield "unsigned ints, shuffled", rng.permutation(grouped.astype(np.uint64) + 2**40)
    yield "sparse ints, shuffled", rng.permutation(grouped * 10**12)


@pytest.mark.parametrize(("case", "qid"), list(_cases()))
@pytest.mark.parametrize("n_threads", [1, 2])
def test_rank_order_matches_lexsort(case, qid, n_threads):
    rng = np.random.default_rng(1)
    score = rng.integers(0, 6, qid.size).astype(float)  # many ties
    grouping = group_rows(qid)
    order = rank_order(grouping, score, stable=True, n_threads=n_threads)
    np.testing.assert_array_equal(order, lexsort_order(qid, score))
    assert list(grouping.uniques) == sorted(set(qid.tolist()))
    np.testing.assert_array_equal(grouping.codes, pd.factorize(qid, sort=True)[0])
    rows = rng.integers(0, qid.size, 20)
    np.testing.assert_array_equal(grouping.codes_of(rows), pd.factorize(qid, sort=True)[0][rows])


def test_group_rows_errors():
    with pytest.raises(TypeError, match="mixes value types"):
        group_rows(np.array([1, "a", "a"], dtype=object))
    with pytest.raises(ValueError, match="missing values"):
        group_rows(np.array([1.0, np.nan, np.nan]))
