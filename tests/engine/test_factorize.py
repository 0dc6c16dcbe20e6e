"""Code the ids (``_factorize.py``, ``_codes.pxi``), against ``pandas.factorize``."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate

from .._engine import one_object_per_row, small_grain


@pytest.fixture(autouse=True)
def _threads_on_small_inputs(monkeypatch):
    """Let the kernels use every thread asked for, however few rows there are."""

    small_grain(monkeypatch, 16)


def test_narrow_and_huge_integer_ids_in_unsorted_rows():
    # issue 12: int8 ids spanning more than 127 overflowed; uint64 ids >= 2**63 raised.
    y, s = [1, 0, 1], [1, 2, 3]
    ev = evaluate(y, s, qid=np.array([100, -100, 100], dtype=np.int8), metrics=["mrr"])
    assert list(ev.per_query.index) == [-100, 100]
    np.testing.assert_array_equal(ev.per_query["n_docs"], [1, 2])
    np.testing.assert_allclose(ev.per_query["mrr"].to_numpy(), [0.0, 1.0])
    big = np.array([2**63 + 5, 3, 2**63 + 5], dtype=np.uint64)
    ev = evaluate(y, s, qid=big, metrics=["mrr"])
    assert list(ev.per_query.index) == [3, 2**63 + 5]
    np.testing.assert_allclose(ev.per_query["mrr"].to_numpy(), [0.0, 1.0])


def test_object_ids_in_random_order_are_coded_by_address_then_by_value(monkeypatch):
    """``object_codes``: one code per distinct object (by address), first appearance order;
    None beyond the limit. Factorising object ids in random order then hashes only the
    distinct objects by value: equal ids held by distinct objects are one query, the codes
    are those of the sorted ids, and ids of two kinds are still refused."""
    from sklearn_ltr_metrics._engine import _factorize
    from sklearn_ltr_metrics._engine._ranking import object_codes

    rng = np.random.default_rng(13)
    names = np.array([f"q{i:03d}" for i in range(50)], dtype=object)
    ids = names[rng.integers(0, 50, 3000)]
    ids[::7] = one_object_per_row(ids[::7])  # equal values, other objects
    codes, first = object_codes(ids, ids.size)
    assert all(a is b for a, b in zip(ids[first][codes], ids, strict=True))
    assert len({id(v) for v in ids[first]}) == first.size
    np.testing.assert_array_equal(first, np.sort(first))
    assert object_codes(ids, 10) is None
    assert object_codes(np.empty(0, dtype=object), 5)[1].size == 0
    monkeypatch.setattr(_factorize, "_OBJECT_CODES_MIN_ROWS", 16)
    codes, uniques = _factorize.factorize_qid(ids)
    np.testing.assert_array_equal(uniques, names)
    np.testing.assert_array_equal(uniques[codes], ids.astype(str))
    mixed = ids.copy()
    mixed[5] = 7
    with pytest.raises(TypeError, match="mixes value types"):
        _factorize.factorize_qid(mixed)


def test_object_ids_in_random_order_evaluate_as_int_ids():
    """Enough rows for the address coding: the same table as the int codes of the ids."""
    rng = np.random.default_rng(14)
    codes = rng.integers(0, 60, 6000)
    names = np.array([f"q{i:02d}" for i in range(60)], dtype=object)
    y = rng.integers(0, 3, codes.size).astype(float)
    s = rng.random(codes.size)
    metrics = ["ndcg@10", "map"]
    by_name = evaluate(y, s, qid=names[codes], metrics=metrics).per_query
    by_code = evaluate(y, s, qid=codes, metrics=metrics).per_query
    np.testing.assert_array_equal(by_name.index.to_numpy(), names)
    pd.testing.assert_frame_equal(by_name.reset_index(drop=True), by_code.reset_index(drop=True))


def test_fixed_width_string_ids_are_coded_by_their_bytes(monkeypatch):
    """``record_codes``: one code per distinct record of a numpy ``U`` array, first appearance
    order; None beyond the limit or for one id per row. Factorising such ids in random order
    (compiled, by their bytes) gives exactly pandas' codes and sorted uniques, of the ids'
    dtype: unicode, the empty string and trailing NULs (numpy's padding) included."""
    from sklearn_ltr_metrics._engine import _factorize
    from sklearn_ltr_metrics._engine._ranking import record_codes

    rng = np.random.default_rng(15)
    names = np.array(
        ["q", "", "é", "ab", "ab\x00", "x" * 19, "Z", "ü1"] + [f"n{i}" for i in range(900)]
    )
    ids = names[rng.integers(0, names.size, 20000)]
    codes, first = record_codes(ids, ids.size)
    np.testing.assert_array_equal(ids[first][codes], ids)
    assert np.unique(ids[first]).size == first.size  # "ab" and "ab\x00" are one id
    np.testing.assert_array_equal(first, np.sort(first))
    assert record_codes(ids, 10) is None
    assert record_codes(np.array([f"d{i}" for i in range(70000)]), 70000) is None  # one per row
    assert record_codes(np.array([], dtype="<U3"), 5)[1].size == 0
    want_codes, want_uniques = pd.factorize(ids, sort=True)
    for qid in (ids, ids.astype("<U40")):  # padding of another width
        got_codes, got_uniques = _factorize.factorize_qid(qid)
        np.testing.assert_array_equal(got_codes, want_codes)
        np.testing.assert_array_equal(got_uniques, want_uniques)
        assert got_uniques.dtype == qid.dtype and got_codes.dtype == np.intp
    # Few rows go to pandas directly, with the same result; sorted distinct ids are their
    # own uniques.
    monkeypatch.setattr(_factorize, "_OBJECT_CODES_MIN_ROWS", 1 << 30)
    np.testing.assert_array_equal(_factorize.factorize_qid(ids)[0], want_codes)
    got_codes, got_uniques = _factorize.factorize_qid(want_uniques)
    np.testing.assert_array_equal(got_codes, np.arange(want_uniques.size))
    np.testing.assert_array_equal(got_uniques, want_uniques)
    assert got_uniques.dtype == want_uniques.dtype


def test_fixed_width_string_ids_in_random_order_evaluate_as_object_ids():
    rng = np.random.default_rng(16)
    names = np.array([f"q{i:03d}" for i in range(300)])
    ids = names[rng.integers(0, 300, 9000)]
    y = rng.integers(0, 3, ids.size).astype(float)
    s = np.round(rng.random(ids.size), 2)
    metrics = ["ndcg@10", "map", "mrr"]
    fixed = evaluate(y, s, qid=ids, metrics=metrics).per_query
    objects = evaluate(y, s, qid=ids.astype(object), metrics=metrics).per_query
    pd.testing.assert_frame_equal(fixed, objects, check_exact=True)
