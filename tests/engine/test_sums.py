"""The metric stage of the engine: sums over the support read per pair or from running sums.

``evaluate`` reads each (query, cut-off) pair's sums straight from the support rows when a
query has few cut-offs (nothing written per row), and from running sums of every support row
when it has many. Both add the same terms in the same order, so they must agree bit for bit,
for every tie policy, gain and kind of label.
"""

import numpy as np
import pytest

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics._engine import _ranked, _sums

METRICS = [
    "ndcg@3",
    "ndcg",
    "dcg@5",
    "precision@2",
    "recall@7",
    "capped_recall@adaptive",
    "map",
    "map@4",
    "mrr",
    "hit_rate@3",
    "err@5",
    "f1@3",
    "r_precision",
]


def _data(labels_kind, seed=0):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 90, 60)
    qid = rng.permutation(np.repeat(np.arange(sizes.size), sizes))
    labels = rng.choice([0, 0, 0, 1, 2, 3, 4], qid.size).astype(np.float64)
    if labels_kind == "fractional":
        labels = labels * 0.75
    elif labels_kind == "large grades":
        labels = labels * 20_000  # integers, beyond MAX_INT_LABEL: per-row gains
    scores = np.round(rng.normal(size=qid.size), 1)  # ties inside queries
    return labels, scores, qid


@pytest.mark.parametrize("labels_kind", ["grades", "fractional", "large grades"])
@pytest.mark.parametrize("ties", ["average", "stable", "pessimistic", "label_ranking"])
@pytest.mark.parametrize("gain", ["exponential", "linear", "mapping"])
def test_per_pair_reads_equal_running_sums(monkeypatch, labels_kind, ties, gain):
    labels, scores, qid = _data(labels_kind)
    if labels_kind == "large grades" and gain == "exponential":
        gain = "linear"  # 2**80000 overflows: refused, tested elsewhere
    if gain == "mapping":
        gain = {float(v): 2.0 * v + 1 for v in np.unique(labels)}
    options = {"metrics": METRICS, "ties": ties, "gain": gain, "err_max_grade": labels.max()}
    monkeypatch.setattr(_ranked, "FEW_PAIRS_PER_QUERY", 10**6)
    per_pair = evaluate(labels, scores, qid=qid, **options)
    monkeypatch.setattr(_ranked, "FEW_PAIRS_PER_QUERY", 0)
    running = evaluate(labels, scores, qid=qid, **options)
    np.testing.assert_array_equal(per_pair.per_query.to_numpy(), running.per_query.to_numpy())


def test_pair_sums_kernel_against_numpy():
    """Each kind of sum, read at cut-offs before, inside and past every query's rows."""
    rng = np.random.default_rng(4)
    sizes = rng.integers(0, 12, 40)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.intp)
    n = offsets[-1]
    # Non-decreasing positions inside each query, as under every tie policy.
    position = np.concatenate([np.sort(rng.integers(0, 30, k)) for k in sizes]).astype(np.int32)
    flag = (rng.random(n) < 0.6).astype(np.uint8)
    term = rng.normal(size=n)
    labels = rng.integers(0, 5, n).astype(np.float64)
    gain_of = 2.0 ** np.arange(5) - 1
    discount = np.log2(np.arange(31) + 2.0)
    pair_query = np.repeat(np.arange(sizes.size), 4).astype(np.intp)
    kk = np.tile([0, 3, 10, 40], sizes.size).astype(np.int64)

    def expected(values):
        out = []
        for q, k in zip(pair_query, kk, strict=True):
            rows = np.arange(offsets[q], offsets[q + 1])
            out.append(np.sum(values(rows)[position[rows] < k]))
        return np.array(out, dtype=np.float64)

    def precision(rows):
        hits = np.cumsum(flag[rows])
        return np.where(flag[rows] == 1, hits / (position[rows] + 1.0), 0.0)

    common = (pair_query, kk, offsets, position)
    cases = [
        (_sums.COUNT, {"flag": flag}, lambda r: flag[r]),
        (_sums.TERM, {"term": term}, lambda r: term[r]),
        (
            _sums.DISCOUNTED,
            {"labels": labels, "gain_of": gain_of, "discount": discount},
            lambda r: gain_of[labels[r].astype(int)] / discount[position[r]],
        ),
        (
            _sums.DISCOUNTED,
            {"term": term, "discount": discount},
            lambda r: term[r] / discount[position[r]],
        ),
        (_sums.PRECISION, {"flag": flag}, precision),
        # No flag: every row is flagged (the support is exactly the relevant rows).
        (_sums.COUNT, {"flag": None}, lambda r: np.ones(r.size)),
        (_sums.PRECISION, {}, lambda r: np.arange(1, r.size + 1) / (position[r] + 1.0)),
    ]
    for what, arrays, values in cases:
        for n_threads in (1, 3):
            got = _sums.support_sums(
                what, offsets, position, pair_query, kk, n_threads=n_threads, grain=1, **arrays
            )
            np.testing.assert_allclose(got, expected(values), rtol=1e-12, atol=0)
            # Running sums of every row, read at the same cut-offs: the same bits.
            running = _sums.support_sums(
                what, offsets, position, n_threads=n_threads, grain=1, **arrays
            )
            read = _sums.lookup(running, offsets, position, pair_query, kk, n_threads, 1)
            np.testing.assert_array_equal(read, got)
    # Running sums restart at every query and read the same values.
    running = _sums.segment_cumsum(term, offsets, 3, 1)
    np.testing.assert_allclose(
        _sums.lookup(running, offsets, position, *common[:2], 3, 1), expected(lambda r: term[r])
    )


def test_all_integral():
    assert _sums.all_integral(np.array([0.0, 3.0, 65535.0]), 65535)
    for bad in ([0.5], [-1.0], [65536.0], [np.nan], [np.inf]):
        assert not _sums.all_integral(np.array(bad), 65535)
    # In threads, a bad label in any chunk counts.
    grades = np.tile([0.0, 1.0, 2.0], 100)
    for n_threads in (1, 3):
        assert _sums.all_integral(grades, 2, n_threads, 8)
        for where in (0, 150, 299):
            spoiled = grades.copy()
            spoiled[where] = 1.5
            assert not _sums.all_integral(spoiled, 2, n_threads, 8)


def test_any_nonzero_in_chunks():
    values = np.zeros(1000, dtype=np.int32)
    for n_threads in (1, 3):
        assert not _sums.any_nonzero(values, n_threads, 8)
        for where in (0, 333, 999):  # in any chunk
            spoiled = values.copy()
            spoiled[where] = -2
            assert _sums.any_nonzero(spoiled, n_threads, 8)
    assert not _sums.any_nonzero(np.zeros(0, dtype=np.int32))


def test_divide_or_nan_and_float_copies_in_threads():
    """The compiled per-query division gives numpy's quotients, bit for bit, and NaN wherever
    the denominator is not above 0 (0, negative, NaN); the threaded float64 copy gives
    ``astype``'s values. The same for any number of threads."""
    from sklearn_ltr_metrics._table import divide_or_nan

    rng = np.random.default_rng(5)
    numerator = rng.normal(size=1000) * 10.0 ** rng.integers(-300, 300, 1000)
    denominator = rng.normal(size=1000) * 10.0 ** rng.integers(-300, 300, 1000)
    denominator[::7], denominator[::11] = 0.0, np.nan
    with np.errstate(all="ignore"):
        want = np.where(denominator > 0, numerator / denominator, np.nan)
    counts = rng.integers(-(2**53), 2**53, 1000)
    for n_threads in (1, 3):
        got = _sums.divide_or_nan(numerator, denominator, n_threads, 8)
        np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))
        np.testing.assert_array_equal(divide_or_nan(numerator, denominator, n_threads), want)
        for values in (counts, numerator):
            copy = _sums.as_float64(values, n_threads, 8)
            assert copy.dtype == np.float64 and copy is not values
            np.testing.assert_array_equal(copy, values.astype(np.float64))
    # Other shapes broadcast, as numpy does.
    np.testing.assert_array_equal(
        divide_or_nan([[2.0], [4.0]], [1.0, 0.0]), [[2, np.nan], [4, np.nan]]
    )
    assert np.isnan(divide_or_nan(1.0, 0.0)) and divide_or_nan(3, 2.0) == 1.5


def test_sort_in_blocks_orders_each_block_alone():
    """Each block is sorted ascending in place, -0.0 before 0.0; blocks of one row, empty
    blocks and the rows between blocks are left as they are; the same in threads."""
    rng = np.random.default_rng(8)
    size = rng.integers(0, 9, 300).astype(np.intp)
    first = (np.cumsum(size) - size + np.arange(300)).astype(np.intp)  # a gap row after each
    values = np.round(rng.normal(size=int(first[-1] + size[-1] + 1)), 1)
    values[::13] = -0.0
    for n_threads in (1, 3):
        got = values.copy()
        _sums.sort_in_blocks(got, first, size, n_threads, 8)
        want = values.copy()
        for lo, m in zip(first, size, strict=True):
            block = want[lo : lo + m]
            want[lo : lo + m] = block[np.lexsort((~np.signbit(block), block))]
        np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))


def test_first_position_flagged_or_every_row():
    """First flagged position of each segment plus the shift, inf where none (empty segments
    too); no flag takes each segment's first row. The same in threads."""
    rng = np.random.default_rng(4)
    sizes = rng.integers(0, 6, 200)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.intp)
    position = rng.integers(0, 50, offsets[-1]).astype(np.int32)
    flag = (rng.random(offsets[-1]) < 0.3).astype(np.uint8)
    want_flag, want_every = np.full(sizes.size, np.inf), np.full(sizes.size, np.inf)
    for q in range(sizes.size):
        rows = np.arange(offsets[q], offsets[q + 1])
        if rows.size:
            want_every[q] = position[rows[0]] + 1.0
        if flag[rows].any():
            want_flag[q] = position[rows[flag[rows] == 1][0]] + 1.0
    for n_threads in (1, 3):
        got = _sums.first_position(flag, position, offsets, n_threads, 8, shift=1.0)
        np.testing.assert_array_equal(got, want_flag)
        got = _sums.first_position(None, position, offsets, n_threads, 8, shift=1.0)
        np.testing.assert_array_equal(got, want_every)
    np.testing.assert_array_equal(_sums.first_position(flag, position, offsets), want_flag - 1)


@pytest.fixture(params=[8, 2], ids=["avx512-lanes", "two-lanes"])
def scan_lanes(request):
    """The scans on vectors of eight (AVX-512, where the CPU has it) and of two."""
    yield _sums.set_vector_lanes(request.param)
    _sums.set_vector_lanes(8)


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 33, 64, 65, 1000])
def test_value_range_in_one_pass(n, scan_lanes):
    """The compiled range (vectors of eight or two, four accumulators, chunks in threads) is
    numpy's, and NaN wherever a NaN hides, in the vector body or the tail."""
    values = np.random.default_rng(n).normal(size=n)
    for n_threads in (1, 3):
        assert _sums.value_range(values, n_threads, 2) == (values.min(), values.max())
        for where in {0, n // 2, n - 1}:
            spoiled = values.copy()
            spoiled[where] = np.nan
            assert np.isnan(_sums.value_range(spoiled, n_threads, 2)).all()
            spoiled[where] = -np.inf
            assert _sums.value_range(spoiled, n_threads, 2)[0] == -np.inf


def test_ideal_levels_kernel_against_numpy():
    """Runs of the ideal DCG from grades: levels merge grades of equal gain (descending),
    grades without gain are left out, empty segments have no runs."""
    rng = np.random.default_rng(5)
    sizes = rng.integers(0, 12, 40)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.intp)
    labels = rng.integers(0, 5, offsets[-1]).astype(np.float64)
    grade_gain = np.array([0.0, 3.0, 1.0, 3.0, 7.0])  # grades 1 and 3: one level
    level_gain = np.array([7.0, 3.0, 1.0])
    level_of = np.array([-1, 1, 2, 1, 0], dtype=np.intp)
    for n_threads in (1, 3):
        gain, count, upper, runs = _sums.ideal_levels(
            labels, offsets, level_of, level_gain, n_threads, 1
        )
        for q in range(sizes.size):
            mine = labels[offsets[q] : offsets[q + 1]]
            expected = [(g, np.sum(grade_gain[mine.astype(int)] == g)) for g in level_gain]
            expected = [(g, c) for g, c in expected if c]
            span = slice(runs[q], runs[q + 1])
            found = list(zip(gain[span], count[span], strict=True))
            assert found == expected
            np.testing.assert_array_equal(
                upper[span], np.cumsum([c for _, c in expected], dtype=int)
            )


@pytest.mark.parametrize("n", [0, 1, 7, 1000])
def test_stream_rows_reads_every_row_once(n):
    """The benchmark's streaming floor: the XOR of every 8-byte value of three arrays, in
    threads, is numpy's ``bitwise_xor.reduce`` of them."""
    rng = np.random.default_rng(n)
    ids = rng.integers(-(2**40), 2**40, n)
    labels, scores = rng.random(n), rng.normal(size=n)
    want = np.bitwise_xor.reduce(
        np.concatenate([ids, labels.view(np.int64), scores.view(np.int64)]), initial=0
    )
    for n_threads in (1, 3):
        got = _sums.stream_rows(ids, labels.view(np.int64), scores.view(np.int64), n_threads, 2)
        assert got == want
