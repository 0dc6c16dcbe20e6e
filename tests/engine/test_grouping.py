"""Group the rows (``_grouping.py``, ``_runs.pxi``, ``_counting_sort.pxi``) and count per
query (``segment_count``, ``code_count``), against numpy: runs of ``np.diff``, a stable
``np.argsort`` and ``np.bincount``."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics._engine._grouping import group_rows

from .._engine import one_object_per_row, small_grain, vector_lanes


@pytest.fixture(params=[8, 2], ids=["avx512-lanes", "two-lanes"])
def lanes(request):
    """The compiled scans on vectors of eight (AVX-512, where the CPU has it) and of two."""
    yield vector_lanes(request.param)
    vector_lanes()


@pytest.fixture(autouse=True)
def _threads_on_small_inputs(monkeypatch):
    """Let the kernels use every thread asked for, however few rows there are."""

    small_grain(monkeypatch, 16)


def test_group_rows_errors():
    with pytest.raises(TypeError, match="mixes value types"):
        group_rows(np.array([1, "a", "a"], dtype=object))
    with pytest.raises(ValueError, match="missing values"):
        group_rows(np.array([1.0, np.nan, np.nan]))


def test_object_ids_are_checked_once_per_run_of_one_object():
    """Object ids in runs of the very same object are checked on one row per run; the
    errors still name the first offending row."""
    from sklearn_ltr_metrics._engine._ranking import identity_runs
    from sklearn_ltr_metrics._qid import check_qid

    ids = np.array(["a", "b", "c"], dtype=object)[np.repeat([0, 1, 2, 0], 25)]
    np.testing.assert_array_equal(identity_runs(ids, 10), [0, 25, 50, 75])
    assert identity_runs(ids, 3) is None  # more runs than asked: check every row
    read_only = ids.copy()
    read_only.flags.writeable = False
    np.testing.assert_array_equal(identity_runs(read_only, 10), [0, 25, 50, 75])
    for missing in (None, np.nan, pd.NA):
        bad = ids.copy()
        bad[60:] = missing
        with pytest.raises(ValueError, match="first at row 60"):
            check_qid(bad)
    mixed = ids.copy()
    mixed[80:] = 7
    with pytest.raises(TypeError, match="row 80 holds 7"):
        check_qid(mixed)
    assert check_qid(ids) is ids


@pytest.mark.parametrize("shuffled", [False, True])
def test_count_per_query_in_threads(monkeypatch, shuffled):
    """Rows per query where a mask holds, for grouped and interleaved rows, in threads."""

    small_grain(monkeypatch, 8)
    rng = np.random.default_rng(7)
    qid = np.repeat(np.arange(30), rng.integers(1, 20, 30))
    if shuffled:
        qid = rng.permutation(qid)
    mask = rng.random(qid.size) < 0.4
    expected = np.bincount(qid[mask], minlength=30)
    for n_threads in (1, 3):
        grouping = group_rows(qid, n_threads=n_threads)
        np.testing.assert_array_equal(grouping.count(mask), expected)
        assert grouping.count(mask) is grouping.count(mask)  # the same mask: counted once
        np.testing.assert_array_equal(
            grouping.count(~mask), np.bincount(qid, minlength=30) - expected
        )


@pytest.mark.parametrize(
    "dtype", [np.int32, np.uint32, np.int64, np.uint64, np.float64, np.int16, ">i8"]
)
@pytest.mark.parametrize("n_threads", [1, 3])
def test_run_starts_match_numpy(monkeypatch, dtype, n_threads, lanes):
    """The compiled run finder (chunks of rows in threads, with runs crossing chunk bounds;
    64-bit ids eight neighbours at once on AVX-512) lists the same starts as numpy, and the id
    of each run (read in its threads), and gives up beyond the limit."""
    from sklearn_ltr_metrics._engine import _grouping

    small_grain(monkeypatch, 8)
    rng = np.random.default_rng(0)
    ids = np.repeat(rng.integers(0, 50, 400), rng.integers(1, 30, 400)).astype(dtype)
    if np.dtype(dtype).kind == "u":  # ids beyond the signed range of the same width
        ids = ids + np.array(2 ** (8 * np.dtype(dtype).itemsize - 1), dtype=dtype)
    expected = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    np.testing.assert_array_equal(_grouping._run_starts(ids, ids.size, n_threads), expected)
    starts, heads = _grouping._runs(ids, ids.size, n_threads)
    np.testing.assert_array_equal(starts, expected)
    assert heads.dtype == ids.dtype
    np.testing.assert_array_equal(heads, ids[expected])
    assert _grouping._run_starts(ids, expected.size - 1, n_threads) is None
    assert _grouping._run_starts(ids[:0], 0, n_threads).size == 0
    # Float ids compare as numbers: -0.0 and 0.0 are one id.
    floats = np.array([0.0, -0.0, 1.0, 1.0])
    np.testing.assert_array_equal(_grouping._run_starts(floats, 4, n_threads), [0, 2])


def test_dense_ids_group_without_a_code_per_row():
    """Dense integer ids keep ``(ids, low, code_of)`` instead of a code per row: the counting
    sort (32-bit indices) and the counts read codes through the table, and the codes built on
    demand are those of the sort."""
    from sklearn_ltr_metrics._engine import _ranking, _sums

    rng = np.random.default_rng(4)
    qid = rng.permutation(np.repeat(np.arange(100, 160, 2), rng.integers(1, 40, 30)))
    grouping = group_rows(qid, n_threads=2)
    spec = grouping._kernel_codes
    assert isinstance(spec, tuple)
    codes = np.searchsorted(np.unique(qid), qid).astype(np.intp)
    mask = (rng.random(qid.size) < 0.3).view(np.uint8)
    for n_threads in (1, 3):
        by_table, _ = _ranking.counting_sort(spec, 30, n_threads, 8, grouping.sizes)
        by_codes, _ = _ranking.counting_sort(codes, 30, n_threads, 8)
        assert by_table.dtype == np.int32
        np.testing.assert_array_equal(by_table, np.argsort(codes, kind="stable"))
        np.testing.assert_array_equal(by_table, by_codes)
        np.testing.assert_array_equal(
            _sums.code_count(spec, mask, 30, n_threads, 8),
            _sums.code_count(codes, mask, 30, n_threads, 8),
        )
    np.testing.assert_array_equal(grouping.codes_of(np.arange(5)), codes[:5])
    np.testing.assert_array_equal(grouping.codes, codes)


@pytest.mark.parametrize("n_threads", [1, 3])
def test_run_finder_gives_up_early_on_rows_in_random_order(monkeypatch, n_threads):
    """Rows in random order stop the run finder after a few blocks of rows (their starts come
    faster than the limit allows), and the grouping it falls back to is the same; a dense
    patch of short runs inside grouped rows is tolerated (the pace has a block of slack)."""
    from sklearn_ltr_metrics._engine import _grouping

    small_grain(monkeypatch, 8)
    rng = np.random.default_rng(3)
    sizes = rng.integers(20, 60, 4000)
    grouped = np.repeat(np.arange(sizes.size), sizes)
    shuffled = rng.permutation(grouped)
    assert _grouping._run_starts(shuffled, shuffled.size // 2, n_threads) is None
    expected = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
    np.testing.assert_array_equal(
        _grouping._run_starts(grouped, grouped.size // 2, n_threads), expected
    )
    # Rows in random order first give up at once, though the rows after them would keep the
    # total under the limit: None, the grouping then factorises every row.
    head = np.concatenate(
        (rng.permutation(20_000), np.repeat(np.arange(10**5, 10**5 + 100), 10_000))
    )
    assert _grouping._ranking.run_starts(head, head.size // 2, 1, 8) is None
    # Runs of 1-6 rows: more starts than a first attempt has slots for; the second finds
    # them all, exactly.
    short = np.repeat(np.arange(60_000), rng.integers(1, 7, 60_000))
    np.testing.assert_array_equal(
        _grouping._run_starts(short, short.size // 2, n_threads),
        np.flatnonzero(np.r_[True, short[1:] != short[:-1]]),
    )
    # 3,000 one-row queries in the middle of grouped rows: still found, exactly.
    patch = np.concatenate((grouped[:50_000], np.arange(10**6, 10**6 + 3000), grouped[50_000:]))
    starts = _grouping._run_starts(patch, patch.size // 2, n_threads)
    np.testing.assert_array_equal(starts, np.flatnonzero(np.r_[True, patch[1:] != patch[:-1]]))
    # Either way the groups are those of the ids.
    for ids in (shuffled, grouped, patch):
        g = group_rows(ids, n_threads=n_threads)
        uniques, sizes_ = np.unique(ids, return_counts=True)
        np.testing.assert_array_equal(g.uniques, uniques)
        np.testing.assert_array_equal(g.sizes, sizes_)
        order = np.arange(ids.size) if g.grouped is None else g.grouped
        np.testing.assert_array_equal(order, np.argsort(ids, kind="stable"))


@pytest.mark.parametrize("n_threads", [1, 3])
def test_object_ids_in_runs_of_one_object_are_grouped_by_value(monkeypatch, n_threads):
    """Object ids: runs of one object are found in threads over the addresses; adjacent runs
    of equal ids held by distinct objects merge into one query; sorted distinct ids are coded
    by position (no hashing), and the codes are those of the sorted unique ids either way."""
    from sklearn_ltr_metrics._engine._factorize import factorize_qid
    from sklearn_ltr_metrics._engine._ranking import identity_runs

    small_grain(monkeypatch, 8)
    names = np.array([f"q{i:03d}" for i in range(40)], dtype=object)
    rng = np.random.default_rng(5)
    sizes = rng.integers(1, 30, 40)
    ids = names[np.repeat(np.arange(40), sizes)]
    expected = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    np.testing.assert_array_equal(identity_runs(ids, ids.size, n_threads, 8), expected)
    # The same ids, each query split into two runs of distinct (equal) string objects.
    split = ids.copy()
    for start, size in zip(expected, sizes, strict=True):
        half = start + size // 2
        split[half : start + size] = "".join(["q", str(split[start])[1:]])
    g = group_rows(split, n_threads=n_threads)
    assert g.grouped is None  # grouped and sorted: no row moves
    np.testing.assert_array_equal(g.sizes, sizes)
    np.testing.assert_array_equal(g.uniques, names)
    codes, uniques = factorize_qid(names)
    np.testing.assert_array_equal(codes, np.arange(40))
    assert uniques is not names and list(uniques) == list(names)
    backwards = names[::-1].copy()
    codes, uniques = factorize_qid(backwards)
    np.testing.assert_array_equal(codes, np.arange(40)[::-1])
    np.testing.assert_array_equal(uniques, names)


def test_evaluate_finds_the_runs_of_object_ids_once(monkeypatch):
    """The runs of one object found while checking object ids are those the grouping uses."""
    from sklearn_ltr_metrics import evaluate
    from sklearn_ltr_metrics._engine import _ranking

    calls = []
    real = _ranking.identity_runs

    def spy(*args):
        calls.append(args[1])
        return real(*args)

    monkeypatch.setattr(_ranking, "identity_runs", spy)
    qid = np.array(["a", "b", "c"], dtype=object)[np.repeat([0, 1, 2], 10)]
    y = np.tile([1.0, 0.0], 15)
    s = np.arange(30.0)
    per_query = evaluate(y, s, qid=qid, metrics=["ndcg@5"]).per_query
    assert len(calls) == 1
    strings = evaluate(y, s, qid=qid.astype(str), metrics=["ndcg@5"]).per_query
    pd.testing.assert_frame_equal(per_query, strings, check_index_type=False)


def test_strings_built_one_object_per_row_come_in_runs_of_equal_strings():
    """``object_runs``: runs of equal ids (identity, then equality); with ``strings_only``,
    None unless every id is exactly a str (a subclass neither); None beyond the limit,
    early for rows in random order."""
    from sklearn_ltr_metrics._engine._ranking import identity_runs, object_runs

    names = np.array([f"q{i:03d}" for i in range(40)], dtype=object)
    rng = np.random.default_rng(11)
    ids = names[np.repeat(np.arange(40), rng.integers(1, 30, 40))]
    expected = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    distinct = one_object_per_row(ids)
    assert len({id(v) for v in distinct}) == distinct.size
    assert identity_runs(distinct, distinct.size // 4) is None
    np.testing.assert_array_equal(
        object_runs(distinct, strings_only=True, limit=distinct.size), expected
    )
    assert object_runs(distinct, strings_only=True, limit=39) is None  # more runs than asked
    assert object_runs(np.empty(0, dtype=object), 3).size == 0
    for other in (np.str_("q000"), 7, None, b"q000"):
        bad = distinct.copy()
        bad[len(bad) // 2] = other
        assert object_runs(bad, strings_only=True, limit=bad.size) is None
    big = one_object_per_row(np.repeat(names, 300))
    assert (
        object_runs(big[rng.permutation(big.size)], strings_only=True, limit=big.size // 4) is None
    )
    read_only = distinct.copy()
    read_only.flags.writeable = False
    np.testing.assert_array_equal(
        object_runs(read_only, strings_only=True, limit=distinct.size), expected
    )
    # Without strings_only: any objects, by Python's equality (1 == 1.0), one run each.
    numbers = np.array([1000 + int(v) for v in np.repeat([3, 1, 2], 4)], dtype=object)
    numbers[5] = float(numbers[5])
    assert object_runs(numbers, strings_only=True, limit=12) is None
    np.testing.assert_array_equal(object_runs(numbers, 12), [0, 4, 8])
    assert object_runs(distinct[rng.permutation(distinct.size)], distinct.size // 4) is None


@pytest.mark.parametrize("order", ["grouped", "split", "shuffled"])
def test_strings_built_one_object_per_row_evaluate_as_shared_strings(order):
    """Ids built one object per row give the same table as the same ids sharing objects; a
    row of another kind or a missing id among them is still refused, naming its row."""
    rng = np.random.default_rng(12)
    names = np.array([f"q{i:02d}" for i in range(20)], dtype=object)
    codes = np.repeat(np.arange(20), 30)
    if order == "split":
        codes = np.concatenate((codes[:15], codes[45:], codes[15:45]))
    elif order == "shuffled":
        codes = rng.permutation(codes)
    shared = names[codes]
    y = rng.integers(0, 3, codes.size).astype(float)
    s = rng.integers(0, 5, codes.size).astype(float)
    metrics = ["ndcg@5", "map", "recall@10"]
    expected = evaluate(y, s, qid=shared, metrics=metrics).per_query
    distinct = one_object_per_row(shared)
    pd.testing.assert_frame_equal(evaluate(y, s, qid=distinct, metrics=metrics).per_query, expected)
    mixed = distinct.copy()
    mixed[400] = 7
    with pytest.raises(TypeError, match="row 400 holds 7"):
        evaluate(y, s, qid=mixed, metrics=metrics)
    mixed[400] = None
    with pytest.raises(ValueError, match="first at row 400"):
        evaluate(y, s, qid=mixed, metrics=metrics)
