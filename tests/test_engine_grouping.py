"""Grouping rows by query and ranking them (the compiled engine), against numpy oracles."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics._engine import _rank
from sklearn_ltr_metrics._engine._grouping import group_rows
from sklearn_ltr_metrics._engine._ordering import rank_order
from sklearn_ltr_metrics._engine._rank import rank_support

from ._engine import small_grain


def lexsort_order(qid, score, tiebreak=None):
    codes, _ = pd.factorize(qid, sort=True)
    keys = [np.arange(len(qid))]  # stable among ties
    if tiebreak is not None:
        keys.append(tiebreak)
    return np.lexsort((*keys, -score, codes))


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
    yield (
        "object strings, equal but distinct objects",
        np.array(["".join(["q", str(v)]) for v in np.repeat(np.arange(50), sizes)], dtype=object),
    )
    yield "many queries", rng.permutation(np.arange(70_000).repeat(2))
    yield "negative ints, shuffled", rng.permutation(grouped - 25)
    yield "unsigned ints, shuffled", rng.permutation(grouped.astype(np.uint64) + 2**40)
    yield "sparse ints, shuffled", rng.permutation(grouped * 10**12)
    yield (
        "int8 spanning more than 127, shuffled",
        rng.permutation(grouped * 5 - 120).astype(np.int8),
    )
    yield (
        "dense uint64 across 2**63, shuffled",
        rng.permutation(grouped.astype(np.uint64) + np.uint64(2**63 - 10)),
    )
    yield (
        "uint64 at and above 2**63, shuffled",
        rng.permutation(
            grouped.astype(np.uint64) * np.uint64(2**57) + np.uint64(2**63 - 2**57 * 3)
        ),
    )


@pytest.fixture(autouse=True)
def _threads_on_small_inputs(monkeypatch):
    """Let the kernels use every thread asked for, however few rows there are."""

    small_grain(monkeypatch, 16)


@pytest.mark.parametrize(("case", "qid"), list(_cases()))
@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_rank_order_matches_lexsort(case, qid, n_threads):
    rng = np.random.default_rng(1)
    score = rng.integers(0, 6, qid.size).astype(float)  # many ties
    grouping = group_rows(qid, n_threads=n_threads)
    order = rank_order(grouping, score, stable=True, n_threads=n_threads)
    np.testing.assert_array_equal(order, lexsort_order(qid, score))
    key = rng.integers(0, 3, qid.size).astype(float)
    order = rank_order(grouping, score, tiebreak=key, n_threads=n_threads)
    np.testing.assert_array_equal(order, lexsort_order(qid, score, key))
    assert list(grouping.uniques) == sorted(set(qid.tolist()))
    np.testing.assert_array_equal(grouping.codes, pd.factorize(qid, sort=True)[0])
    rows = rng.integers(0, qid.size, 20)
    np.testing.assert_array_equal(grouping.codes_of(rows), pd.factorize(qid, sort=True)[0][rows])


def brute_force_ranks(qid, score, active, key):
    """(row, g, t, before) of the active rows in rank order, by comparing every pair."""
    order = lexsort_order(qid, score, key)
    out = []
    for r in order[active[order]]:
        same = qid == qid[r]
        tied = same & (score == score[r])
        precede = (key < key[r]) | ((key == key[r]) & (np.arange(qid.size) < r))
        out.append((r, (same & (score > score[r])).sum(), tied.sum() - 1, (tied & precede).sum()))
    return np.array(out, dtype=np.int64).reshape(-1, 4)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_rank_support_matches_brute_force(seed, n_threads):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 80, 40)
    qid = np.repeat(np.arange(40), sizes)
    if seed % 2:
        qid = rng.permutation(qid)
    score = rng.integers(0, 8 if seed < 3 else 1000, qid.size)
    score = score.astype(np.int64 if seed % 3 == 0 else np.float64)
    active = rng.random(qid.size) < (0.9 if seed == 5 else 0.3)
    key = rng.integers(0, 3, qid.size).astype(float)
    grouping = group_rows(qid)
    for tiebreak in (None, key):
        ranks = rank_support(
            grouping, score, active, tiebreak=tiebreak, tie_order=True, n_threads=n_threads
        )
        expected = brute_force_ranks(
            qid, score, active, np.zeros(qid.size) if tiebreak is None else key
        )
        found = np.column_stack((ranks.row, ranks.greater, ranks.tied, ranks.before))
        np.testing.assert_array_equal(found, expected)
        np.testing.assert_array_equal(
            ranks.counts, np.bincount(grouping.codes[active], minlength=40)
        )


@pytest.fixture(params=[True, False], ids=["wide-vectors", "narrow-vectors"])
def vector_width(request):
    """Direct counting on vectors of four (AVX2, where the CPU has it) and of two."""
    from sklearn_ltr_metrics._engine import _ranking

    _ranking.set_wide_vectors(request.param)
    yield request.param
    _ranking.set_wide_vectors(True)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_direct_counting_and_sorting_rank_alike(seed, dtype, vector_width):
    """The two per-query methods (direct counting on vectors of four or two for few active
    rows, with both ways of putting them in rank order; sort and search for many) give the
    same geometry."""
    from sklearn_ltr_metrics._engine import _ranking

    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 120, 30)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.intp)
    score = rng.integers(0, 10, offsets[-1]).astype(dtype)
    active = (rng.random(offsets[-1]) < 0.5).astype(np.uint8)
    key = rng.integers(0, 3, offsets[-1]).astype(np.float64)
    grouped = rng.permutation(offsets[-1]).astype(np.intp) if seed else None
    direct, sorted_ = (
        _ranking.rank_support(
            score,
            active,
            offsets,
            grouped=grouped,
            key=key,
            tie_order=True,
            direct_max=limit,
            grain=8,
        )
        for limit in (10**9, 0)
    )
    for a, b in zip(direct, sorted_, strict=True):
        np.testing.assert_array_equal(a, b)


def test_rank_support_without_rows_reads_the_same_labels():
    """rows=False (what the metric engine asks) leaves the input rows out and gathers the
    same labels, and the same 32-bit geometry, as rows=True; both give where each query's
    rows start (the running count)."""
    rng = np.random.default_rng(7)
    qid = rng.permutation(np.repeat(np.arange(20), 70))
    score = np.round(rng.normal(size=qid.size), 1)
    labels = rng.integers(0, 4, qid.size).astype(float)
    grouping = group_rows(qid)
    with_rows, without = (
        rank_support(grouping, score, labels > 0, labels=labels, rows=rows, n_threads=2)
        for rows in (True, False)
    )
    assert without.row is None
    np.testing.assert_array_equal(without.labels, labels[with_rows.row])
    for name in ("counts", "greater", "tied"):
        np.testing.assert_array_equal(getattr(without, name), getattr(with_rows, name))
    assert with_rows.greater.dtype == np.int32 and with_rows.tied.dtype == np.int32
    for ranks in (with_rows, without):
        np.testing.assert_array_equal(ranks.offsets, np.r_[0, np.cumsum(ranks.counts)])


def test_rank_support_refuses_a_query_longer_than_32_bit_counts():
    from sklearn_ltr_metrics._engine import _ranking

    offsets = np.array([0, 2**31], dtype=np.intp)  # the check reads the offsets alone
    with pytest.raises(ValueError, match="at most 2147483647 rows per query"):
        _ranking.rank_support(
            np.zeros(1), np.zeros(1, np.uint8), offsets, counts=np.zeros(1, np.intp)
        )


def test_rank_support_of_a_query_does_not_depend_on_the_others():
    rng = np.random.default_rng(3)
    qid = rng.permutation(np.repeat(np.arange(30), 50))
    score = np.round(rng.normal(size=qid.size), 1)
    active = rng.random(qid.size) < 0.2
    full = rank_support(group_rows(qid), score, active, n_threads=2)
    keep = qid % 3 == 0
    part = rank_support(group_rows(qid[keep]), score[keep], active[keep], n_threads=1)
    rows_kept = np.flatnonzero(keep)
    in_part = np.isin(full.row, rows_kept)
    np.testing.assert_array_equal(rows_kept[part.row], full.row[in_part])
    np.testing.assert_array_equal(part.greater, full.greater[in_part])
    np.testing.assert_array_equal(part.tied, full.tied[in_part])


def test_integer_scores_are_compared_as_integers():
    qid = np.zeros(3, dtype=int)
    for score in (
        np.array([2**60, 2**60 + 1, 2**60], dtype=np.int64),
        np.array([2**64 - 2, 2**64 - 1, 2**64 - 2], dtype=np.uint64),
    ):
        ranks = rank_support(group_rows(qid), score, np.ones(3, bool), tie_order=True)
        np.testing.assert_array_equal(ranks.row, [1, 0, 2])
        np.testing.assert_array_equal(ranks.greater, [0, 1, 1])
        np.testing.assert_array_equal(ranks.tied, [0, 1, 1])
        np.testing.assert_array_equal(ranks.before, [0, 0, 1])
        np.testing.assert_array_equal(rank_order(group_rows(qid), score), [1, 0, 2])


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


def test_group_rows_errors():
    with pytest.raises(TypeError, match="mixes value types"):
        group_rows(np.array([1, "a", "a"], dtype=object))
    with pytest.raises(ValueError, match="missing values"):
        group_rows(np.array([1.0, np.nan, np.nan]))


def test_gain_metrics_never_sort_whole_queries(monkeypatch):
    """Only the rank correlations need the full per-query order; every other metric reads
    the rank geometry of the support rows."""

    def no_full_sort(*args, **kwargs):
        raise AssertionError("a full per-query sort ran")

    monkeypatch.setattr(_rank, "rank_order", no_full_sort)
    rng = np.random.default_rng(5)
    qid = rng.permutation(np.repeat(np.arange(20), 30))
    labels = rng.integers(0, 3, qid.size).astype(float)
    scores = np.round(rng.normal(size=qid.size), 1)
    for ties in ("average", "stable", "pessimistic", "optimistic"):
        ev = evaluate(labels, scores, qid=qid, metrics=["ndcg@5", "map", "mrr", "err"], ties=ties)
        assert ev.per_query["map"].notna().all()
    with pytest.raises(AssertionError, match="full per-query sort"):
        evaluate(labels, scores, qid=qid, metrics=["kendall_tau"])


def test_object_ids_are_checked_once_per_run_of_one_object():
    """Object ids in runs of the very same object are checked on one row per run; the
    errors still name the first offending row."""
    from sklearn_ltr_metrics._engine._ranking import identity_runs

    from sklearn_ltr_metrics._validation import check_qid

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
def test_run_starts_match_numpy(monkeypatch, dtype, n_threads):
    """The compiled run finder (chunks of rows in threads, with runs crossing chunk bounds)
    lists the same starts as numpy, and the id of each run (read in its threads), and gives
    up beyond the limit."""
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


@pytest.mark.parametrize("shuffled", [False, True])
def test_an_active_rule_ranks_and_counts_as_its_mask(monkeypatch, shuffled):
    """A rule (rows above a threshold, applied by the kernels row by row) gives the counts and
    the rank geometry of the mask it stands for, in threads."""
    from sklearn_ltr_metrics._engine._grouping import active_rule

    small_grain(monkeypatch, 8)
    rng = np.random.default_rng(11)
    qid = np.repeat(np.arange(25), rng.integers(1, 90, 25))
    if shuffled:
        qid = rng.permutation(qid)
    labels = rng.integers(0, 4, qid.size).astype(float)
    score = np.round(rng.normal(size=qid.size), 1)
    for threshold, or_equal in ((0.0, False), (2.0, True), (-np.inf, True)):
        rule = active_rule(labels, threshold, or_equal)
        assert isinstance(rule, tuple)
        mask = labels >= threshold if or_equal else labels > threshold
        for n_threads in (1, 3):
            by_rule = group_rows(qid, n_threads=n_threads)
            by_mask = group_rows(qid, n_threads=n_threads)
            np.testing.assert_array_equal(by_rule.count(rule), by_mask.count(mask))
            found, expected = (
                rank_support(g, score, a, labels=labels, tie_order=True, n_threads=n_threads)
                for g, a in ((by_rule, rule), (by_mask, mask))
            )
            for name in ("counts", "row", "greater", "tied", "before", "labels"):
                np.testing.assert_array_equal(getattr(found, name), getattr(expected, name))
    # Other dtypes get the mask.
    np.testing.assert_array_equal(active_rule(np.array([0, 2, 1]), 0), [False, True, True])


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


def test_rank_support_reads_32_and_64_bit_grouped_orders_alike():
    from sklearn_ltr_metrics._engine import _ranking

    rng = np.random.default_rng(8)
    offsets = np.array([0, 50, 51, 200, 260], dtype=np.intp)
    score = np.round(rng.normal(size=260), 1)
    active = (rng.random(260) < 0.3).astype(np.uint8)
    order = rng.permutation(260)
    narrow, wide = (
        _ranking.rank_support(score, active, offsets, grouped=order.astype(dtype), grain=8)
        for dtype in (np.int32, np.intp)
    )
    for a, b in zip(narrow, wide, strict=True):
        np.testing.assert_array_equal(a, b)


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
    from sklearn_ltr_metrics._engine._ranking import identity_runs

    from sklearn_ltr_metrics._engine._factorize import factorize_qid

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


@pytest.mark.parametrize("n_threads", [1, 3])
def test_interleaved_rows_moved_into_grouped_order_rank_as_read_in_place(monkeypatch, n_threads):
    """Interleaved rows with many active ones are moved into grouped order (scores, the rule's
    values, other labels, the tie-break key) by the counting sort, then ranked in order: the
    rank geometry and the labels are those of reading the rows through the grouped order, for
    float and integer scores, with and without a key, on both ranking kernels (direct counting
    and sort-and-search: some queries have more active rows than ``DIRECT_MAX``)."""
    from sklearn_ltr_metrics._engine import _grouping, _ranking
    from sklearn_ltr_metrics._engine._grouping import active_rule

    small_grain(monkeypatch, 8)
    rng = np.random.default_rng(12)
    qid = rng.permutation(np.repeat(np.arange(40), rng.integers(1, 400, 40)))
    n = qid.size
    labels = rng.integers(0, 3, n).astype(float)
    other = rng.normal(size=n)
    key = rng.integers(0, 5, n).astype(float)
    grouping = group_rows(qid, n_threads=n_threads)
    moved = grouping.gather([labels, key.astype(np.int64)])
    np.testing.assert_array_equal(moved[0], labels[grouping.grouped])
    np.testing.assert_array_equal(moved[1], key[grouping.grouped].astype(np.int64))
    gathered = []
    real_gather = _grouping.Grouping.gather

    def spy(self, arrays):
        gathered.append(len(arrays))
        return real_gather(self, arrays)

    monkeypatch.setattr(_grouping.Grouping, "gather", spy)
    for scores in (np.round(rng.normal(size=n), 1), rng.integers(0, 6, n)):
        for lab, tiebreak, tie_order in (
            (labels, None, False),
            (other, None, True),
            (None, key, True),
            (other, key, True),  # four arrays to move: read through the grouped order
        ):
            found = {}
            for share in (0, 10**9):
                monkeypatch.setattr(_rank, "_GATHER_SHARE", share)
                g = group_rows(qid, n_threads=n_threads)
                found[share] = rank_support(
                    g,
                    scores,
                    active_rule(labels, 0.0),
                    labels=lab,
                    tiebreak=tiebreak,
                    tie_order=tie_order,
                    n_threads=n_threads,
                    rows=False,
                )
            for name in ("counts", "greater", "tied", "before", "labels"):
                np.testing.assert_array_equal(
                    getattr(found[0], name), getattr(found[10**9], name), err_msg=name
                )
    assert gathered == [2, 3, 3] * 2  # arrays moved, once a case (with the large share)
    assert grouping.count(labels > 0).max() > _ranking.DIRECT_MAX


@pytest.mark.parametrize("n_threads", [1, 3])
def test_rows_moved_into_grouped_order_are_counted_in_order(monkeypatch, n_threads):
    """Ranking interleaved rows with many active ones moves them into grouped order and
    counts the active rows there (query by query), not by a pass over the input's codes; the
    count is kept, so counting the same rule afterwards (the engine's relevant rows) reads
    nothing. Whether rows are moved is judged on a sample of the rule's first rows; the
    ranks are the same either way, even when the sample misjudges the rest."""
    from sklearn_ltr_metrics._engine import _sums
    from sklearn_ltr_metrics._engine._grouping import active_rule

    small_grain(monkeypatch, 8)
    monkeypatch.setattr(_rank, "_GATHER_SAMPLE", 100)
    rng = np.random.default_rng(21)
    qid = rng.permutation(np.repeat(np.arange(50), rng.integers(1, 80, 50)))
    score = np.round(rng.normal(size=qid.size), 1)
    labels = rng.integers(0, 3, qid.size).astype(float)
    code_counts = []
    real = _sums.code_count

    def spy(*args):
        code_counts.append(1)
        return real(*args)

    monkeypatch.setattr(_sums, "code_count", spy)
    rule = active_rule(labels, 0.0)
    g = group_rows(qid, n_threads=n_threads)
    ranks = rank_support(g, score, rule, labels=labels, rows=False, n_threads=n_threads)
    assert code_counts == []  # counted on the moved rows
    assert g.count(rule) is ranks.counts  # kept: nothing counted again
    expected = np.bincount(qid, weights=labels > 0, minlength=50).astype(np.intp)
    np.testing.assert_array_equal(ranks.counts, expected)
    # A sample that sees no active row reads the rows in place: the same ranks.
    hidden = labels.copy()
    hidden[:100] = 0.0
    found = {}
    for sample in (100, qid.size):
        monkeypatch.setattr(_rank, "_GATHER_SAMPLE", sample)
        g = group_rows(qid, n_threads=n_threads)
        found[sample] = rank_support(
            g, score, active_rule(hidden, 0.0), labels=hidden, rows=False, n_threads=n_threads
        )
    for name in ("counts", "greater", "tied", "labels", "offsets"):
        np.testing.assert_array_equal(
            getattr(found[100], name), getattr(found[qid.size], name), err_msg=name
        )


_grouping_gather = __import__(
    "sklearn_ltr_metrics._engine._grouping", fromlist=["Grouping"]
).Grouping.gather


def _one_object_per_row(ids):
    """The same string ids, each row its own object (as ``astype(str)`` or a parser builds
    them): equal ids that are distinct objects."""
    return np.array(["".join(["", str(v)]) + "" for v in ids], dtype=object)


def test_strings_built_one_object_per_row_come_in_runs_of_equal_strings():
    """``object_runs``: runs of equal ids (identity, then equality); with ``strings_only``,
    None unless every id is exactly a str (a subclass neither); None beyond the limit,
    early for rows in random order."""
    from sklearn_ltr_metrics._engine._ranking import identity_runs, object_runs

    names = np.array([f"q{i:03d}" for i in range(40)], dtype=object)
    rng = np.random.default_rng(11)
    ids = names[np.repeat(np.arange(40), rng.integers(1, 30, 40))]
    expected = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    distinct = _one_object_per_row(ids)
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
    big = _one_object_per_row(np.repeat(names, 300))
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
    distinct = _one_object_per_row(shared)
    pd.testing.assert_frame_equal(evaluate(y, s, qid=distinct, metrics=metrics).per_query, expected)
    mixed = distinct.copy()
    mixed[400] = 7
    with pytest.raises(TypeError, match="row 400 holds 7"):
        evaluate(y, s, qid=mixed, metrics=metrics)
    mixed[400] = None
    with pytest.raises(ValueError, match="first at row 400"):
        evaluate(y, s, qid=mixed, metrics=metrics)


def test_object_ids_in_random_order_are_coded_by_address_then_by_value(monkeypatch):
    """``object_codes``: one code per distinct object (by address), first appearance order;
    None beyond the limit. Factorising object ids in random order then hashes only the
    distinct objects by value: equal ids held by distinct objects are one query, the codes
    are those of the sorted ids, and ids of two kinds are still refused."""
    from sklearn_ltr_metrics._engine._ranking import object_codes

    from sklearn_ltr_metrics._engine import _factorize

    rng = np.random.default_rng(13)
    names = np.array([f"q{i:03d}" for i in range(50)], dtype=object)
    ids = names[rng.integers(0, 50, 3000)]
    ids[::7] = _one_object_per_row(ids[::7])  # equal values, other objects
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
    from sklearn_ltr_metrics._engine._ranking import record_codes

    from sklearn_ltr_metrics._engine import _factorize

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
