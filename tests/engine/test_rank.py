"""Rank the support (``_rank.py``, ``_rank_support.pxi``) and the full per-query order
(``_ordering.py``, ``_sort.pxi``), against numpy: brute-force counts and ``np.lexsort``."""

import platform
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics._engine import _rank
from sklearn_ltr_metrics._engine._grouping import group_rows
from sklearn_ltr_metrics._engine._ordering import rank_order
from sklearn_ltr_metrics._engine._rank import rank_support

from .._engine import small_grain, spy_gather


@pytest.fixture(autouse=True)
def _threads_on_small_inputs(monkeypatch):
    """Let the kernels use every thread asked for, however few rows there are."""

    small_grain(monkeypatch, 16)


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


@pytest.fixture(
    params=[16, 8, 4, 2], ids=["float32-first", "avx512-lanes", "avx2-lanes", "two-lanes"]
)
def vector_width(request):
    """Direct counting on vectors of sixteen float32 first (AVX-512, the default where the CPU
    has it), of eight (AVX-512 on float64: every active row at once), of four (AVX2) and of
    two."""
    from sklearn_ltr_metrics._engine import _ranking

    used = _ranking.set_vector_lanes(request.param)
    assert used <= request.param
    yield used
    _ranking.set_vector_lanes()


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_direct_counting_and_sorting_rank_alike(seed, dtype, vector_width):
    """The two per-query methods (direct counting on vectors of eight, four or two for few
    active rows, with both ways of putting them in rank order; sort and search for many) give
    the same geometry. Queries of up to 300 rows, half of them active: AVX-512 counts them in
    tiles of 64 active rows, the last one under a mask."""
    from sklearn_ltr_metrics._engine import _ranking

    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 300, 30)
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


@pytest.mark.parametrize("seed", range(3))
def test_the_first_count_on_float32_is_exact(seed, vector_width):
    """With the scores' range asked (as a plain evaluate asks it), AVX-512 counts a query first
    on float32 and counts again, in float64, every row found level with another there. Scores
    that differ far below float32's precision, exact ties among them, magnitudes beyond
    float32's range (rounded to infinity) and below it (rounded to zero) rank exactly as the
    sorting method ranks them, on every path, with queries of 9 to 128 active rows (the
    float32 count's) and others."""
    from sklearn_ltr_metrics._engine import _ranking

    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 300, 40)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.intp)
    n = offsets[-1]
    base = rng.choice([1.0, -2.5, 0.0, 1e-300, -1e300, 3.0e38, 4.0e38], n)
    near = base * (1.0 + rng.integers(-2, 3, n) * 2.0**-45)  # distinct below float32's step
    score = np.where(rng.random(n) < 0.6, near, rng.standard_normal(n))
    active = (rng.random(n) < 0.35).astype(np.uint8)
    assert (np.add.reduceat(active, offsets[:-1]) > 8).sum() > 10
    direct, sorted_ = (
        _ranking.rank_support(
            score,
            active,
            offsets,
            tie_order=True,
            direct_max=limit,
            grain=8,
            score_range=True,
        )
        for limit in (10**9, 0)
    )
    for a, b in zip(direct, sorted_, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("tie_order", [False, True])
def test_listed_rows_rank_alike_untied_or_not(seed, tie_order, vector_width):
    """Rows ranked by their labels' rule with the labels and the scores' range asked (what a
    plain evaluate asks): the direct count lists the relevant rows with their scores and
    labels, and a query none of whose relevant rows is level with another row in float32 is
    placed straight from the first count (sixteen lanes). Untied scores, exact ties, scores
    that collide only in float32, NaN and infinite scores, queries of 1 to 400 rows (past the
    two words of ranks kept on the stack) and one of 300 relevant rows (grade counts past 255)
    rank, gather and count grades exactly as the sorting method does, on every path."""
    from sklearn_ltr_metrics._engine import _ranking

    rng = np.random.default_rng(seed)
    sizes = np.r_[rng.integers(1, 400, 60), 300]
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.intp)
    n = offsets[-1]
    labels = rng.choice([0.0, 0.0, 1.0, 2.0, 3.0, 7.0], n)
    labels[offsets[-2] :] = rng.integers(1, 8, sizes[-1])  # 300 relevant rows
    score = rng.standard_normal(n)
    for q, kind in zip(rng.choice(60, 12, replace=False), range(12), strict=True):
        rows = slice(offsets[q], offsets[q + 1])
        if kind < 4:  # exact ties
            score[rows] = np.round(score[rows], 1)
        elif kind < 8:  # distinct, but level in float32
            score[rows] = 1.0 + rng.integers(-2, 3, sizes[q]) * 2.0**-45
        elif kind < 10:
            score[offsets[q]] = np.nan
        else:
            score[offsets[q + 1] - 1] = -np.inf
    key = rng.integers(0, 3, n).astype(np.float64) if seed == 2 else None
    direct, sorted_ = (
        _ranking.rank_support(
            score,
            (labels, 0.0, False),
            offsets,
            key=key,
            tie_order=tie_order,
            direct_max=limit,
            grain=8,
            labels=labels,
            rows=False,
            score_range=True,
            tie_flag=True,
            grade_counts=True,
        )
        for limit in (10**9, 0)
    )
    assert direct[9] is True  # a relevant row ties (most queries' do not)
    starts, hist = direct[6], direct[10]
    finite = np.logical_and.reduceat(np.isfinite(score), offsets[:-1])
    ranked = np.repeat(finite, np.diff(starts))  # a refused query's rows are left unwritten
    for a, b in zip(direct[:6], sorted_[:6], strict=True):
        if a is not None:
            np.testing.assert_array_equal(
                a[ranked] if a.size == ranked.size else a, b[ranked] if b.size == ranked.size else b
            )
    np.testing.assert_array_equal(direct[6], sorted_[6])
    np.testing.assert_array_equal(hist[finite], sorted_[10][finite])
    for q in np.flatnonzero(finite):
        own = direct[5][starts[q] : starts[q + 1]].astype(int)
        np.testing.assert_array_equal(hist[q], np.bincount(own, minlength=8))


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
def test_interleaved_rows_moved_into_grouped_order_rank_as_read_in_place(monkeypatch, n_threads):
    """Interleaved rows with many active ones are moved into grouped order (scores, the rule's
    values, other labels, the tie-break key) by the counting sort, then ranked in order: the
    rank geometry and the labels are those of reading the rows through the grouped order, for
    float and integer scores, with and without a key, on both ranking kernels (direct counting
    and sort-and-search: some queries have more active rows than ``DIRECT_MAX``)."""
    from sklearn_ltr_metrics._engine import _ranking
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
    gathered = spy_gather(monkeypatch)
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


@pytest.mark.parametrize("n_threads", [1, 3])
def test_argsort_per_query_matches_lexsort(n_threads):
    """The full per-query sort of ``_sort.pxi`` (the benchmark's sort floor): descending score,
    then the key, then input order, inside each contiguous query, as ``np.lexsort``."""
    from sklearn_ltr_metrics._engine import _ranking

    rng = np.random.default_rng(8)
    sizes = rng.integers(1, 60, 40)
    qid = np.repeat(np.arange(sizes.size), sizes)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.intp)
    for scores in (np.round(rng.normal(size=qid.size), 1), rng.integers(0, 5, qid.size)):
        scores = scores.astype(np.float64) if scores.dtype.kind == "f" else scores
        key = rng.integers(0, 3, qid.size).astype(np.float64)
        for k in (None, key):
            got = _ranking.argsort_per_query(scores, offsets, k, n_threads, 8)
            tiebreak = np.zeros(qid.size) if k is None else k
            want = np.lexsort((np.arange(qid.size), tiebreak, -scores, qid))
            np.testing.assert_array_equal(got, want)


def test_vector_lanes_follow_the_cpu():
    """set_vector_lanes picks the widest vectors the CPU has, at most those asked for: 16 (the
    first count on float32) and 8 lanes where it has AVX-512F (so that the tests above run
    those paths here), 2 always."""
    from sklearn_ltr_metrics._engine import _ranking

    cpuinfo = Path("/proc/cpuinfo")
    flags = cpuinfo.read_text() if sys.platform.startswith("linux") else ""
    try:
        assert _ranking.set_vector_lanes(2) == 2
        assert _ranking.set_vector_lanes(4) in (2, 4)
        widest = _ranking.set_vector_lanes(8)
        first32 = _ranking.set_vector_lanes()
        if " avx512f" in flags and platform.machine() == "x86_64":
            assert (widest, first32) == (8, 16)
    finally:
        _ranking.set_vector_lanes()


@pytest.mark.parametrize("or_equal", [False, True])
def test_threshold_rule_lists_the_same_rows_as_its_mask(or_equal, vector_width):
    """A threshold rule (listed eight rows at a time on AVX-512, with a masked tail) ranks the
    very rows its mask does, on every vector width; queries of 1 to 40 rows."""
    from sklearn_ltr_metrics._engine import _ranking

    rng = np.random.default_rng(11)
    sizes = rng.integers(1, 40, 50)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.intp)
    labels = rng.integers(0, 3, offsets[-1]).astype(np.float64)
    score = np.round(rng.normal(size=offsets[-1]), 1)
    mask = (labels >= 1 if or_equal else labels > 1).astype(np.uint8)
    by_rule, by_mask = (
        _ranking.rank_support(score, active, offsets, tie_order=True, labels=labels, grain=8)
        for active in ((labels, 1.0, or_equal), mask)
    )
    for a, b in zip(by_rule, by_mask, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("integral", [True, False])
def test_label_stats_found_while_gathering(integral):
    """rank_support finds the gathered labels' largest and whether all are grades as it
    gathers them: the same as a pass over them (``_sums.value_range``/``all_integral``)."""
    from sklearn_ltr_metrics._engine import _ranking, _sums

    rng = np.random.default_rng(5)
    sizes = rng.integers(0, 50, 40)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.intp)
    labels = rng.integers(0, 5, offsets[-1]).astype(np.float64)
    if not integral:
        labels[rng.integers(0, labels.size)] = 2.5
    score = rng.normal(size=offsets[-1])
    out = _ranking.rank_support(score, (labels, 0.0, False), offsets, labels=labels, grain=8)
    gathered, stats = out[5], out[7]
    assert stats == (
        _sums.value_range(gathered)[1],
        _sums.all_integral(gathered, 65535),
    )
    assert stats[1] is bool((labels[labels > 0] % 1 == 0).all()) is integral
    assert _ranking.rank_support(score, (labels, 9.0, False), offsets, labels=labels)[7] is None
    assert _ranking.rank_support(score, (labels, 0.0, False), offsets)[7] is None


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
@pytest.mark.parametrize("rows", [True, False])
def test_rows_listed_with_their_labels_rank_as_gathered(dtype, rows, vector_width):
    """Where the support's rule is a threshold on the labels themselves, AVX-512 lists each
    query's active rows with their scores and labels in one pass (and finds the labels'
    largest and whether all are grades there); the other widths list, then gather. Both give
    the same outputs: queries of 1-300 rows (few active rows placed by comparing them, many
    through the bitmap of their ranks), tied scores, labels that are not grades (2.5, above
    the grade limit) or are, and every tie count."""
    from sklearn_ltr_metrics._engine import _ranking

    rng = np.random.default_rng(11)
    sizes = rng.integers(1, 300, 60)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.intp)
    score = rng.integers(0, 40, offsets[-1]).astype(dtype)
    for labels in (
        rng.integers(0, 5, offsets[-1]).astype(np.float64),
        np.where(rng.random(offsets[-1]) < 0.02, 2.5, rng.integers(0, 3, offsets[-1])),
        np.where(rng.random(offsets[-1]) < 0.02, 70000.0, rng.integers(0, 3, offsets[-1])),
    ):

        def rank(labels=labels):
            return _ranking.rank_support(
                score, (labels, 0.0, False), offsets, labels=labels, rows=rows,
                tie_order=True, grain=8,
            )  # fmt: skip

        found = rank()
        _ranking.set_vector_lanes(2)
        expected = rank()
        _ranking.set_vector_lanes(vector_width)
        assert found[7] == expected[7]
        for a, b in zip(found[:7], expected[:7], strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("direct_max", [10**9, 0])
def test_the_tie_flag_is_read_off_the_ranking(direct_max, vector_width):
    """``tie_flag=True`` reports whether an active row ties with another row, as the tie
    counts say, on both per-query methods: scores of few levels (ties) and continuous ones
    (none), with the tuple otherwise unchanged."""
    from sklearn_ltr_metrics._engine import _ranking

    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 200, 40)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.intp)
    active = (rng.random(offsets[-1]) < 0.3).astype(np.uint8)
    for score in (rng.integers(0, 50, offsets[-1]).astype(float), rng.normal(size=offsets[-1])):
        plain = _ranking.rank_support(score, active, offsets, direct_max=direct_max, grain=8)
        flagged = _ranking.rank_support(
            score, active, offsets, direct_max=direct_max, grain=8, tie_flag=True
        )
        assert len(plain) == 8 and len(flagged) == 10 and flagged[8] is None
        assert flagged[9] is bool((plain[3] != 0).any())
        for a, b in zip(plain, flagged[:8], strict=True):
            np.testing.assert_array_equal(a, b)
    assert flagged[9] is False and plain[3].size


@pytest.mark.parametrize("direct_max", [10**9, 0])
def test_grade_counts_are_counted_as_the_labels_are_gathered(direct_max, vector_width):
    """``grade_counts=True`` counts each query's gathered labels of each grade below
    ``GRADES_COUNTED`` (a bincount of its labels) on both per-query methods and every vector
    width; a query whose labels are not all such grades keeps zeros (the label statistics
    then say so), and the ideal DCG levels from the counts equal those from the labels."""
    from sklearn_ltr_metrics._engine import _ranking, _sums

    rng = np.random.default_rng(13)
    sizes = rng.integers(1, 150, 50)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.intp)
    labels = rng.integers(0, 6, offsets[-1]).astype(np.float64)
    labels[offsets[7] : offsets[8]] = np.where(labels[offsets[7] : offsets[8]] > 0, 9.0, 0.0)
    labels[offsets[9]] = 2.5
    score = rng.normal(size=offsets[-1])
    out = _ranking.rank_support(
        score, (labels, 0.0, False), offsets, labels=labels, direct_max=direct_max, grain=8,
        grade_counts=True,
    )  # fmt: skip
    counts, gathered, starts, hist = out[0], out[5], out[6], out[10]
    assert out[8] is None and out[9] is None and hist.shape == (50, _ranking.GRADES_COUNTED)
    for q in range(50):
        own = gathered[starts[q] : starts[q + 1]]
        if q in (7, 9) and own.size:
            assert not hist[q].any()
        else:
            expected = np.bincount(own.astype(int), minlength=_ranking.GRADES_COUNTED)
            np.testing.assert_array_equal(hist[q], expected)
    clean = np.setdiff1d(np.arange(50), [7, 9])
    keep = np.concatenate([np.arange(starts[q], starts[q + 1]) for q in clean])
    sub_offsets = np.concatenate(([0], np.cumsum(counts[clean]))).astype(np.intp)
    level_of = np.array([-1, 4, 3, 2, 1, 0, -1, -1], dtype=np.intp)
    gains = np.array([31.0, 15.0, 7.0, 3.0, 1.0])
    from_labels = _sums.ideal_levels(gathered[keep], sub_offsets, level_of, gains)
    from_counts = _sums.ideal_levels(
        gathered[keep], sub_offsets, level_of, gains, grade_counts=np.ascontiguousarray(hist[clean])
    )
    for a, b in zip(from_labels, from_counts, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(("query_rows", "moved"), [(2000, True), (20, False)])
def test_few_active_rows_are_moved_when_most_queries_hold_one(monkeypatch, query_rows, moved):
    """Interleaved rows with 1 % active are moved into grouped order when their queries are
    long (nearly every query holds an active row, whose rows would all be read at random) and
    read in place when they are short (most queries hold none and are never read); the ranks
    are the same bits either way."""
    from sklearn_ltr_metrics._engine._grouping import active_rule

    rng = np.random.default_rng(5)
    qid = rng.permutation(np.repeat(np.arange(40_000 // query_rows), query_rows))
    score = np.round(rng.normal(size=qid.size), 2)
    labels = (rng.random(qid.size) < 0.01).astype(float)
    calls = spy_gather(monkeypatch)
    found, chosen = {}, _rank._GATHER_SHARE
    for share in (chosen, 0):  # the engine's choice, then always in place
        monkeypatch.setattr(_rank, "_GATHER_SHARE", share)
        g = group_rows(qid)
        found[share] = rank_support(g, score, active_rule(labels, 0.0), labels=labels, rows=False)
    assert calls == ([2] if moved else [])
    for name in ("counts", "greater", "tied", "labels", "offsets"):
        np.testing.assert_array_equal(
            getattr(found[chosen], name), getattr(found[0], name), err_msg=name
        )
