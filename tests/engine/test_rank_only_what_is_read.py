"""Rank only what is read (issue 44): metrics that read only their top k rows, at cut-offs
known before ranking, rank only the support rows scoring at or above each query's K-th largest
score (K the largest cut-off). The values must be those of the full ranking of every support
row, bit for bit, under every tie policy and on any number of threads; what reads every
support row's label (the ideal DCG, the label checks) must still see them all.
"""

import itertools

import numpy as np
import pytest

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics._engine import _driver, _rank, _ranking

from .._engine import small_grain

#: Every metric declared ``reads="top_k"``, at small cut-offs (some queries are shorter).
TOP_K_METRICS = [
    "ndcg@5", "dcg@3", "cg@4", "precision@5", "recall@2", "capped_recall@5", "hit_rate@3",
    "mrr@4", "map@5", "f1@5", "f2@3", "err@5",
]  # fmt: skip
POLICIES = (
    "average",
    "stable",
    "pessimistic",
    "optimistic",
    "trec_eval",
    "doc_id",
    "label_ranking",
)


def _queries(rng):
    """Queries of 1-40 rows, labels 0-4, with every case the floor meets: queries shorter
    than K, ties at the K-th score, ties only below it, all-tied queries, queries without a
    relevant row, integer scores; rows in random query order."""
    sizes = rng.integers(1, 40, 80)
    qid = np.repeat(np.arange(sizes.size) * 3 + 1, sizes)
    n = qid.size
    labels = rng.choice([0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 4.0], n)
    kind = np.repeat(np.arange(sizes.size) % 5, sizes)
    scores = np.where(kind == 0, rng.standard_normal(n), np.round(rng.standard_normal(n), 1))
    low = rng.standard_normal(n)
    scores = np.where(kind == 2, np.where(low < 0.3, -1.0, low), scores)  # ties below K only
    scores = np.where(kind == 3, 0.5, scores)  # every row tied
    labels = np.where(np.repeat(np.arange(sizes.size) % 7 == 0, sizes), 0.0, labels)  # none
    order = rng.permutation(n)
    return qid[order], labels[order], scores[order], np.arange(n)[order]


def _both(labels, scores, **kwargs):
    """``per_query`` with the optimisation on, then off."""
    on = evaluate(labels, scores, **kwargs).per_query
    try:
        _driver.RANK_ONLY_WHAT_IS_READ = False
        off = evaluate(labels, scores, **kwargs).per_query
    finally:
        _driver.RANK_ONLY_WHAT_IS_READ = True
    return on, off


def _same_bits(a, b):
    assert list(a.columns) == list(b.columns)
    values_a, values_b = a.to_numpy(np.float64), b.to_numpy(np.float64)
    assert np.array_equal(values_a.view(np.int64), values_b.view(np.int64))


@pytest.fixture
def top_calls(monkeypatch):
    """The calls of :meth:`RowRanking.top_support` (the ranking of the top rows only), taken
    on these short queries too (``TOP_ROWS_PER_CUTOFF``: long queries only, by default)."""
    monkeypatch.setattr(_driver, "TOP_ROWS_PER_CUTOFF", 0)
    calls = []
    real = _rank.RowRanking.top_support

    def spy(self, *args, **kwargs):
        found = real(self, *args, **kwargs)
        if found is not None:  # None: declined (rows read at random), every row ranked
            calls.append(args[1])
        return found

    monkeypatch.setattr(_rank.RowRanking, "top_support", spy)
    return calls


@pytest.mark.parametrize("ties", POLICIES)
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_top_rows_only_equal_every_support_row(monkeypatch, top_calls, ties, n_jobs):
    small_grain(monkeypatch, 64)  # several threads on these few rows
    rng = np.random.default_rng(POLICIES.index(ties) * 2 + n_jobs)
    qid, labels, scores, doc = _queries(rng)
    for y_score in (scores, np.round(scores * 10).astype(np.int64)):
        on, off = _both(
            labels, y_score, qid=qid, metrics=TOP_K_METRICS, ties=ties, n_jobs=n_jobs,
            doc_id=doc if ties in ("trec_eval", "doc_id") else None, empty_query="skip",
        )  # fmt: skip
        _same_bits(on, off)
    assert top_calls  # the top rows only (cg@4, of its own gain, a group of its own)


@pytest.mark.parametrize(
    "options",
    [{"min_relevance": 2}, {"gain": "linear"}, {"gain": {0: 0.5, 1: 1.0, 2: 3.0, 3: 3.5, 4: 9.0}}],
)
def test_thresholds_and_gains(top_calls, options):
    qid, labels, scores, _ = _queries(np.random.default_rng(7))
    on, off = _both(
        labels, scores, qid=qid, metrics=["ndcg@5", "precision@4", "recall@6"], **options
    )
    _same_bits(on, off)
    assert len(top_calls) == 1


def test_interleaved_rows_in_few_queries_rank_every_support_row(top_calls):
    """Rows in random query order with few queries holding a support row are read at random
    by the full ranking (no move into grouped order): the top rows are not ranked apart."""
    rng = np.random.default_rng(9)
    qid = rng.permutation(np.repeat(np.arange(400), 100))
    labels = (rng.random(qid.size) < 0.001).astype(float)
    scores = rng.standard_normal(qid.size)
    on, off = _both(labels, scores, qid=qid, metrics=["ndcg@5", "recall@5"], empty_query="zero")
    _same_bits(on, off)
    assert not top_calls


@pytest.mark.parametrize("ties", ["average", "stable", "label_ranking"])
def test_per_query_cutoffs_take_each_query_s_largest(top_calls, ties):
    """Strategies of the counts (adaptive, percentile, capped) and R-precision's own cut-off
    (n_pos) are known before ranking once the relevant rows are counted: each query ranks
    its rows within its own largest cut-off."""
    qid, labels, scores, _ = _queries(np.random.default_rng(11))
    for metrics, k in [(["ndcg", "capped_recall"], "adaptive"), (["precision"], "percentile"),
                       (["recall", "r_precision"], "capped"), (["r_precision"], None)]:  # fmt: skip
        on, off = _both(labels, scores, qid=qid, metrics=metrics, k=k, ties=ties)
        _same_bits(on, off)
    assert len(top_calls) == 4
    n_pos = np.bincount(np.unique(qid, return_inverse=True)[1], weights=labels > 0)
    assert np.array_equal(top_calls[-1], np.maximum(n_pos, 1))  # R-precision's k = n_pos


def test_cutoff_lists_take_their_largest(top_calls):
    qid, labels, scores, _ = _queries(np.random.default_rng(8))
    on, off = _both(labels, scores, qid=qid, metrics=["ndcg", "precision"], k=[2, 6])
    _same_bits(on, off)
    assert [int(k.max()) for k in top_calls] == [6]


def test_ranks_only_the_top_support_rows(monkeypatch):
    """On long queries a cut-off-only set ranks fewer rows than the support; one metric that
    reads more (MAP over the whole list) ranks every support row; a callable cut-off and
    short queries (fewer than ``TOP_ROWS_PER_CUTOFF`` rows per unit of K) too."""
    ranked = []
    for name in ("support", "top_support"):
        real = getattr(_rank.RowRanking, name)

        def spy(self, *args, real=real, **kwargs):
            found = real(self, *args, **kwargs)
            ranks = found[0] if isinstance(found, tuple) else found
            ranked.append(int(ranks.greater.size))
            return found

        monkeypatch.setattr(_rank.RowRanking, name, spy)
    rng = np.random.default_rng(3)
    qid = np.repeat(np.arange(20), 300)
    labels = rng.integers(0, 3, qid.size).astype(float)
    scores = rng.standard_normal(qid.size)
    support = int(np.count_nonzero(labels))
    evaluate(labels, scores, qid=qid, metrics=["ndcg@10", "precision@10", "recall@10"])
    assert ranked[-1] <= 20 * 10 < support
    evaluate(labels, scores, qid=qid, metrics=["ndcg@10", "precision@10", "map"])
    assert ranked[-1] == support
    evaluate(labels, scores, qid=qid, metrics=["ndcg"], k="adaptive")  # k up to n_pos
    assert ranked[-1] == support
    evaluate(labels, scores, qid=qid, metrics=["ndcg"], k=lambda n_pos, n_neg: 3)
    assert ranked[-1] == support  # a callable is called once, after the ranking
    evaluate(labels, scores, qid=qid, metrics=["ndcg@20"])  # 300 rows < 20 x 20
    assert ranked[-1] == support


@pytest.mark.parametrize("metric", ["err@3", "ndcg@3"])
def test_labels_beyond_k_are_still_checked(top_calls, metric):
    """A label no metric can score is refused even on a row ranked far beyond K."""
    qid = np.repeat([1, 2], 30)
    labels = np.zeros(60)
    scores = -np.arange(60.0)
    labels[[0, 29]] = [1.0, 9.0 if metric.startswith("err") else 5000.0]  # 29: ranked last
    with pytest.raises(ValueError, match="err_max_grade" if metric.startswith("err") else "gain"):
        evaluate(labels, scores, qid=qid, metrics=[metric])
    assert top_calls


def test_ideal_reads_every_relevant_row(top_calls):
    """nDCG's ideal counts the relevant rows beyond K: a query whose top K holds one of its
    two relevant rows scores below 1."""
    qid = np.zeros(30, dtype=int)
    labels = np.zeros(30)
    labels[[0, 29]] = 1.0
    scores = -np.arange(30.0)
    table = evaluate(labels, scores, qid=qid, metrics=["ndcg@3", "recall@3"]).per_query
    assert table["recall@3"].iloc[0] == 0.5
    assert table["ndcg@3"].iloc[0] == pytest.approx(1.0 / (1.0 + 1.0 / np.log2(3.0)))
    assert top_calls


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
@pytest.mark.parametrize("k", [1, 3, 12, 40])
def test_compiled_top_rows_against_a_sort(dtype, k):
    """The compiled ranking of the top rows: the support rows at or above the k-th largest
    score of their query (and maybe some below it: the floor is at or below it), each with
    the g, t and tie-break count of the full ranking; every support row's label apart."""
    rng = np.random.default_rng(k)
    sizes = rng.integers(1, 300, 40)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.intp)
    n = int(offsets[-1])
    scores = np.round(rng.standard_normal(n) * 4, 1).astype(dtype)
    labels = rng.integers(0, 3, n).astype(np.float64)
    rule = (labels, 0.0, False)
    counts = np.add.reduceat(labels > 0, offsets[:-1]).astype(np.intp)
    full = _ranking.rank_support(scores, rule, offsets, counts=counts, rows=True, tie_order=True)
    queries = np.repeat(np.arange(sizes.size), full[0])
    kth = np.array(
        [np.sort(scores[a:b])[::-1][min(k, b - a) - 1] for a, b in itertools.pairwise(offsets)]
    )
    must = scores[full[1]] >= kth[queries]
    for grouped in (None, np.arange(n, dtype=np.intp)):
        (top, _, g, t, before, lab, starts, _), every = _ranking.top_support(
            scores, rule, offsets, counts, np.full(sizes.size, k), labels,
            grouped=grouped, tie_order=True, n_threads=2, grain=64,
        )  # fmt: skip
        assert np.array_equal(every, labels[labels > 0])
        # Each query's ranked rows are the first top[q] of its full ranking.
        keep = np.arange(queries.size) - full[6][queries] < top[queries]
        assert np.all(keep[must])
        assert np.array_equal(g, full[2][keep]) and np.array_equal(t, full[3][keep])
        assert np.array_equal(before, full[4][keep])
        assert np.array_equal(lab, labels[full[1][keep]])
        assert np.array_equal(starts, np.concatenate(([0], np.cumsum(top))))


def test_compiled_top_rows_end_on_nan_scores():
    """A NaN score leaves the floor meaningless but the ranking ends, and the range it finds
    says NaN (the caller refuses the scores)."""
    scores = np.full(200, np.nan)
    scores[::3] = 1.0
    labels = np.ones(200)
    offsets = np.array([0, 200], dtype=np.intp)
    for k in (2, 150):
        found, _ = _ranking.top_support(
            scores, (labels, 0.0, False), offsets, [200], [k], labels, score_range=True
        )
        assert np.isnan(found[8][0])
    with pytest.raises(ValueError, match="y_score"):
        evaluate(labels, scores, qid=np.zeros(200), metrics=["ndcg@2"])
