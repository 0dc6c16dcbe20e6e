"""ndeval's greedy ideal compiled (``_ideal.greedy_ideal_gains``, ``_greedy.pxi``), against
the vectorised reference over classes of documents (``greedy_ideal``): the same values, bit
for bit, for any number of threads; the run's lists beside it (``diversity_gains``) against
the vectorised ``list_sums``; the relevant cells and doc-id keys."""

import numpy as np
import pytest

from sklearn_ltr_metrics._engine import (
    decimal_keys,
    diversity_gains,
    greedy_ideal_gains,
    subtopic_cells,
)
from sklearn_ltr_metrics.metrics._judgments._subtopics import SubtopicJudgments, subtopic_classes
from sklearn_ltr_metrics.metrics._kernels._diversity import (
    DEPTH,
    greedy_ideal,
    ideal_sums,
    list_sums,
)

from .._engine import small_grain


def judgments(seed, n_queries, n_docs, n_sub, p):
    """Random subtopic judgments: queries interleaved, documents' pairs in random order,
    several documents with the same subtopics (ties decided by the key)."""
    rng = np.random.default_rng(seed)
    n = n_queries * n_docs
    doc_q = rng.permutation(np.repeat(np.arange(n_queries), n_docs))
    cells = np.argwhere(rng.random((n, n_sub)) < p)
    cells = cells[rng.permutation(len(cells))]
    trip_doc, sub = cells[:, 0], cells[:, 1]
    return SubtopicJudgments(
        n_queries=n_queries,
        doc_q=doc_q,
        doc_key=rng.permutation(n).astype(np.int64),
        doc_rank=np.zeros(n, dtype=np.int64),
        trip_doc=trip_doc,
        trip_qs=doc_q[trip_doc] * n_sub + sub,
        qs_query=np.repeat(np.arange(n_queries), n_sub),
    )


def compiled(j, alpha, beta, depth, n_threads=1):
    query = j.doc_q[j.trip_doc]
    key = j.doc_key[j.trip_doc]
    args = (query, j.trip_doc, key, j.trip_qs, j.n_queries, j.qs_query.size)
    return ideal_sums(*greedy_ideal_gains(*args, alpha, beta, depth, DEPTH, n_threads))


@pytest.mark.parametrize(
    "shape", [(30, 40, 3, 0.3), (8, 60, 6, 0.5), (40, 8, 1, 0.6), (3, 40, 70, 0.1)]
)
@pytest.mark.parametrize("alpha, beta", [(0.5, 0.5), (0.0, 0.8), (1.0, 0.3), (0.3, 1.0)])
def test_greedy_equals_the_class_reference_bit_for_bit(shape, alpha, beta):
    for seed in range(2):
        j = judgments(seed, *shape)
        whole = int(np.bincount(j.doc_q[j.trip_doc]).max())
        for depth in (1, 5, DEPTH, max(DEPTH, whole)):
            reference = greedy_ideal(
                subtopic_classes(j), j.n_queries, j.qs_query.size, alpha, beta, depth
            )
            got = compiled(j, alpha, beta, depth)
            for name in ("dcg", "err", "nrbp"):
                np.testing.assert_array_equal(got[name], reference[name])


def test_greedy_threads_and_empty_queries(monkeypatch):
    small_grain(monkeypatch, 4)
    j = judgments(7, 50, 30, 4, 0.1)
    one = compiled(j, 0.5, 0.5, DEPTH)
    three = compiled(j, 0.5, 0.5, DEPTH, n_threads=3)
    for name in ("dcg", "err", "nrbp"):
        np.testing.assert_array_equal(three[name], one[name])
    empty = greedy_ideal_gains(*(np.zeros(0, dtype=np.int64),) * 4, 3, 0, 0.5, 0.5, DEPTH, DEPTH)
    np.testing.assert_array_equal(empty[0], np.zeros((3, DEPTH)))
    np.testing.assert_array_equal(empty[1], np.zeros(3))


def ranked_judgments(seed, n_queries, n_docs, n_sub, p):
    """:func:`judgments` with each query's documents ranked (distinct ranks, some 0)."""
    j = judgments(seed, n_queries, n_docs, n_sub, p)
    rng = np.random.default_rng(seed + 100)
    rank = np.zeros(j.doc_q.size, dtype=np.int64)
    for q in range(n_queries):
        docs = np.flatnonzero(j.doc_q == q)
        rank[docs] = rng.permutation(docs.size) + 1
        rank[docs[rng.random(docs.size) < 0.2]] = 0  # not retrieved
    return j, rank


@pytest.mark.parametrize("shape", [(30, 40, 3, 0.3), (8, 60, 6, 0.5), (3, 40, 70, 0.1)])
@pytest.mark.parametrize("alpha", [0.5, 0.0, 1.0, 0.3])
def test_diversity_gains_equal_the_vectorised_lists(monkeypatch, shape, alpha):
    small_grain(monkeypatch, 4)
    j, rank = ranked_judgments(3, *shape)
    query = j.doc_q[j.trip_doc]
    args = (query, j.trip_doc, j.doc_key[j.trip_doc], j.trip_qs, rank[j.trip_doc])
    sizes = (j.n_queries, j.qs_query.size, alpha, 0.5)
    one = diversity_gains(*args, *sizes, DEPTH, DEPTH)
    three = diversity_gains(*args, *sizes, DEPTH, DEPTH, n_threads=3)
    for a, b in zip(one, three, strict=True):
        np.testing.assert_array_equal(a, b)
    ideal = compiled(j, alpha, 0.5, DEPTH)
    np.testing.assert_array_equal(ideal_sums(one.ideal, one.ideal_nrbp)["dcg"], ideal["dcg"])
    pairs = rank[j.trip_doc] > 0
    reference = list_sums(query[pairs], rank[j.trip_doc][pairs], j.trip_qs[pairs],
                          j.n_queries, alpha, 0.5)  # fmt: skip
    run = ideal_sums(one.run, None, count=one.pairs, new=one.new)
    for name in ("dcg", "err"):
        np.testing.assert_allclose(run[name], reference[name], rtol=1e-13, atol=1e-15)
    for name in ("count", "new"):
        np.testing.assert_array_equal(run[name], reference[name])
    none = diversity_gains(*args, *sizes, 0, DEPTH)  # depth 0: no ideal, the same run
    np.testing.assert_array_equal(none.ideal, 0.0)
    np.testing.assert_array_equal(none.run, one.run)


def test_subtopic_cells_and_decimal_keys():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 3, (50, 7)).astype(float)
    for rel in (1.0, 2.0, 5.0):
        rows, cols, valid = subtopic_cells(labels, rel)
        want = np.nonzero(labels >= rel)
        np.testing.assert_array_equal(rows, want[0])
        np.testing.assert_array_equal(cols, want[1])
        assert valid
    for bad in (-1.0, np.nan, np.inf):
        broken = labels.copy()
        broken[3, 2] = bad
        assert not subtopic_cells(broken, 1.0)[2]
    assert subtopic_cells(np.zeros((0, 3)), 1.0)[2]
    ids = np.r_[0, 9, 10, 12, 123, 13, 99_999, 10**16 + 7, rng.integers(0, 10**9, 40)]
    order = np.argsort(decimal_keys(ids), kind="stable")
    strings = ids.astype(str)
    np.testing.assert_array_equal(strings[order], np.sort(strings))


@pytest.fixture(params=[0, 4, 8], ids=["portable", "avx2", "avx512"])
def cell_lanes(request):
    """Each path of ``subtopic_cells`` (``_cells.h``) the CPU has; the default restored."""
    from sklearn_ltr_metrics._engine import _ranking

    used = _ranking.set_cell_vectors(request.param)
    if used != request.param:
        _ranking.set_cell_vectors(8)
        pytest.skip(f"the CPU has no {request.param}-lane vectors")
    yield used
    _ranking.set_cell_vectors(8)


@pytest.mark.parametrize("width", [1, 3, 5, 8, 9, 17, 70])
def test_subtopic_cells_every_path(cell_lanes, width):
    """The vector paths (AVX2, AVX-512F) find the cells of the portable loop and np.nonzero,
    in row-major order, whatever the width (blocks of 2,048 rows, vector tails, rows spanning
    vectors), and refuse a negative, NaN or infinite label wherever it is."""
    rng = np.random.default_rng(width)
    n = 5000 if width < 20 else 700
    labels = rng.integers(0, 3, (n, width)) * (rng.random((n, width)) < 0.3).astype(float)
    labels[rng.random(n) < 0.02] = 2.5  # whole rows relevant
    for rel in (0.5, 1.0, 2.0, 3.0):
        rows, cols, valid = subtopic_cells(labels, rel)
        want = np.nonzero(labels >= rel)
        np.testing.assert_array_equal(rows, want[0])
        np.testing.assert_array_equal(cols, want[1])
        assert valid
    full = np.ones((n, width))  # every cell: the output grows past its first guess
    rows, cols, _ = subtopic_cells(full, 1.0)
    np.testing.assert_array_equal(rows, np.repeat(np.arange(n), width))
    for bad in (-1.0, -0.0 - 1e-300, np.nan, np.inf, -np.inf):
        for at in (0, labels.size // 2, labels.size - 1):  # in a vector, or in the tail
            broken = labels.copy()
            broken.flat[at] = bad
            assert not subtopic_cells(broken, 1.0)[2]
    np.testing.assert_array_equal(
        subtopic_cells(labels[:3], 1.0)[0], np.nonzero(labels[:3] >= 1)[0]
    )


def test_cell_judgments():
    """The judged documents of the cells, in one compiled pass: as numpy forms them."""
    from sklearn_ltr_metrics._engine import cell_judgments

    rng = np.random.default_rng(3)
    labels = (rng.random((400, 6)) < 0.1).astype(float)
    codes = np.repeat(np.arange(40), 10)
    rows, cols, _ = subtopic_cells(labels, 1.0)
    docs, doc_q, trip_doc, trip_qs = cell_judgments(rows, cols, codes, 6)
    np.testing.assert_array_equal(docs, np.unique(rows))
    np.testing.assert_array_equal(doc_q, codes[docs])
    np.testing.assert_array_equal(docs[trip_doc], rows)
    np.testing.assert_array_equal(trip_qs, codes[rows] * 6 + cols)
    empty = cell_judgments(rows[:0], cols[:0], codes, 6)
    assert all(a.size == 0 for a in empty)


@pytest.mark.parametrize("width", [1, 5, 9, 70])
def test_cell_pairs_equal_the_cells_then_their_judgments(cell_lanes, width):
    """Rows in whole query runs: the one-pass judgments (``cell_pairs``) are those of
    ``subtopic_cells`` then ``cell_judgments``, with each query's pair offsets and counts,
    whatever the vector path, across blocks of rows, past the outputs' first guess, with
    queries of no relevant cell and labels refused wherever they are."""
    from sklearn_ltr_metrics._engine import cell_judgments, cell_pairs

    rng = np.random.default_rng(width)
    sizes = rng.integers(0, 40, 400 if width < 20 else 60)
    sizes[::7] = 0  # queries without rows
    offsets = np.r_[0, np.cumsum(sizes)]
    codes = np.repeat(np.arange(sizes.size), sizes)
    n = codes.size
    mixed = rng.integers(0, 3, (n, width)) * (rng.random((n, width)) < 0.2).astype(float)
    for labels in (mixed, np.ones((n, width))):  # every cell: the pairs grow past n
        for rel in (1.0, 2.0):
            got = cell_pairs(labels, rel, offsets)
            rows, cols, valid = subtopic_cells(labels, rel)
            want = cell_judgments(rows, cols, codes, width)
            for a, b in zip(got[:4], want, strict=True):
                np.testing.assert_array_equal(a, b)
            doc_q, trip_doc, trip_qs = want[1], want[2], want[3]
            pairs = np.bincount(doc_q[trip_doc], minlength=sizes.size)
            np.testing.assert_array_equal(got[4], np.r_[0, np.cumsum(pairs)])
            np.testing.assert_array_equal(got[5], np.bincount(doc_q, minlength=sizes.size))
            np.testing.assert_array_equal(
                got[6], np.bincount(trip_qs, minlength=sizes.size * width)
            )
            assert got[7] is True and valid
    broken = mixed.copy()
    broken.flat[mixed.size // 2] = np.nan
    assert cell_pairs(broken, 1.0, offsets)[-1] is False
    empty = cell_pairs(np.zeros((0, width)), 1.0, np.zeros(1, dtype=np.intp))
    assert all(a.size == 0 for a in empty[:4]) and empty[4].tolist() == [0]


def test_rows_by_support_equals_the_scatter_of_every_row():
    """The ranks of the active rows of whole query runs, mapped from the support query by
    query (``rows_by_support``): those of the rank array of every row, ties included."""
    from sklearn_ltr_metrics._engine import group_rows, rank_support, rows_by_support

    rng = np.random.default_rng(11)
    sizes = rng.integers(0, 30, 200)
    codes = np.repeat(np.arange(sizes.size), sizes)
    score = rng.integers(0, 5, codes.size).astype(float)  # many ties
    active = rng.random(codes.size) < 0.3
    grouping = group_rows(codes)
    support = rank_support(grouping, score, active, tie_order=True)
    rows = np.flatnonzero(active)
    rank = np.zeros(codes.size, dtype=np.int64)
    rank[support.row] = support.greater + support.before + 1
    got = rows_by_support(support, support.before, rows)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, rank[rows])


@pytest.mark.parametrize("counts", [True, False])
def test_diversity_gains_read_per_document(counts):
    """Pairs grouped with their offsets, keys and ranks per document (the flat arrays'
    form): the lists of the per-pair form, bit for bit; the run's counts left out on ask."""
    j, rank = ranked_judgments(5, 30, 40, 4, 0.3)
    query = j.doc_q[j.trip_doc]
    order = np.lexsort((j.trip_qs, j.trip_doc, query))  # grouped: query, document, qs
    j_doc, j_qs = j.trip_doc[order], j.trip_qs[order]
    sizes = (j.n_queries, j.qs_query.size, 0.5, 0.5, DEPTH, DEPTH)
    want = diversity_gains(query, j.trip_doc, j.doc_key[j.trip_doc], j.trip_qs,
                           rank[j.trip_doc], *sizes)  # fmt: skip
    offsets = np.r_[0, np.cumsum(np.bincount(query, minlength=j.n_queries))]
    got = diversity_gains(None, j_doc, j.doc_key, j_qs, rank, *sizes, offsets=offsets,
                          counts=counts)  # fmt: skip
    for name in ("ideal", "ideal_nrbp", "run"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
    for name in ("pairs", "new"):
        if counts:
            np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
        else:
            assert getattr(got, name) is None


def test_decimal_keys_read_at_rows():
    """Doc-id keys of the rows taken in place (``decimal_keys_at``, ``doc_keys(ids, rows)``):
    those of the gathered ids; an id negative or past 10**17 falls back to the strings'
    order."""
    from sklearn_ltr_metrics._engine import decimal_keys_at
    from sklearn_ltr_metrics.metrics._kernels._rank_order import doc_keys

    rng = np.random.default_rng(4)
    ids = np.r_[0, 9, 10, 12, 123, 13, 99_999, 10**16 + 7, rng.integers(0, 10**9, 40)]
    rows = rng.permutation(ids.size)[:30]
    np.testing.assert_array_equal(decimal_keys_at(ids, rows), decimal_keys(ids[rows]))
    np.testing.assert_array_equal(doc_keys(ids, rows), decimal_keys(ids[rows]))
    assert decimal_keys_at(ids, rows[:0]).size == 0
    for bad in (-5, 10**17):
        more = np.r_[ids, bad]
        taken = np.r_[rows, ids.size]
        assert decimal_keys_at(more, taken) is None
        order = np.argsort(doc_keys(more, taken), kind="stable")
        strings = more[taken].astype(str)
        np.testing.assert_array_equal(strings[order], np.sort(strings))
