"""Issue 12's engine edges: exact integers, huge labels and cut-offs, bad query_stats and k
callables, per-query bit-identity with many grades, and the two speed cliffs."""

import time

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sklearn_ltr_metrics import evaluate

from .._reference import brute_force_average


def test_int64_scores_above_2_53_do_not_tie():
    scores = np.array([2**60, 2**60 + 1], dtype=np.int64)
    ev = evaluate([1, 0], scores, qid=[1, 1], metrics=["precision@1"], ties="stable")
    assert ev.mean("precision@1") == 0.0
    unsigned = np.array([2**63 + 5, 2**63 + 4], dtype=np.uint64)
    ev = evaluate([0, 1], unsigned, qid=[1, 1], metrics=["mrr"])
    assert ev.mean("mrr") == 0.5


def test_labels_of_1024_and_more():
    with pytest.raises(ValueError, match="overflows for the label 1024"):
        evaluate([1024, 0], [2, 1], qid=[1, 1], metrics=["ndcg@2"])
    linear = evaluate([1024, 0], [1, 2], qid=[1, 1], metrics=["ndcg@2"], gain="linear")
    assert linear.mean("ndcg@2") == pytest.approx(1 / np.log2(3))
    # binary metrics do not need gains
    assert evaluate([1024, 0], [2, 1], qid=[1, 1], metrics=["precision@1"]).mean() is not None


@pytest.mark.parametrize("k", [2**63, 10**400, "ndcg@" + "9" * 400])
def test_huge_cutoffs_are_refused_cleanly(k):
    metrics = [k] if isinstance(k, str) else ["ndcg"]
    kwargs = {} if isinstance(k, str) else {"k": k}
    with pytest.raises(ValueError, match="too large"):
        evaluate([1, 0], [2, 1], qid=[1, 1], metrics=metrics, **kwargs)


def test_largest_cutoff_is_exact_in_per_cutoff():
    ev = evaluate([1, 0], [2, 1], qid=[1, 1], metrics=["precision"], k=2**53)
    assert ev.per_cutoff["k"].iloc[0] == 2**53


def test_k_callable_returning_none():
    with pytest.raises(TypeError, match="k callable returned None"):
        evaluate([1, 0], [2, 1], qid=[1, 1], metrics=["ndcg"], k=lambda p, n: None)


@pytest.mark.parametrize(
    ("stats_table", "match"),
    [
        (pd.DataFrame({"qid": [1], "n_pos": [np.inf]}), "n_pos"),
        (pd.DataFrame({"qid": [1], "n_pos": [2.5]}), "n_pos"),
        (pd.DataFrame({"qid": [1], "n_pos": [2], "n_neg": [-1]}), "n_neg"),
        (pd.DataFrame({"qid": [1], "n_pos": ["x"]}), "n_pos"),
    ],
)
def test_bad_query_stats(stats_table, match):
    with pytest.raises((ValueError, TypeError), match=match):
        evaluate([1, 0], [2, 1], qid=[1, 1], metrics=["recall@1"], query_stats=stats_table)


def test_ndcg_bit_identical_with_many_grades():
    rng = np.random.default_rng(0)
    sizes = rng.integers(5, 80, 60)
    qid = np.repeat(np.arange(60), sizes)
    labels = rng.integers(0, 40, qid.size).astype(float)  # many grades
    labels[rng.random(qid.size) < 0.3] += 0.5  # and non-integer ones
    scores = rng.normal(size=qid.size)
    specs = ["ndcg@10", "ndcg", "dcg@5"]
    full = evaluate(labels, scores, qid=qid, metrics=specs, gain="linear").per_query
    for keep in (qid % 7 == 3, qid < 5, qid == 11):
        part = evaluate(labels[keep], scores[keep], qid=qid[keep], metrics=specs, gain="linear")
        pd.testing.assert_frame_equal(
            full.loc[part.per_query.index], part.per_query, check_exact=True
        )


def test_err_all_tied_query_of_20000_rows_is_fast_and_right():
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 5, 20_000).astype(float)
    start = time.perf_counter()
    ev = evaluate(labels, np.zeros(20_000), qid=np.zeros(20_000), metrics=["err", "err@10"])
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0, elapsed
    # With every ordering equally likely, ERR@1 is the mean stop probability.
    first = evaluate(labels, np.zeros(20_000), qid=np.zeros(20_000), metrics=["err@1"])
    assert first.mean("err@1") == pytest.approx(np.mean((2.0**labels - 1) / 16), rel=1e-12)
    assert 0 < ev.mean("err@10") <= ev.mean("err") <= 1


@pytest.mark.parametrize("seed", range(6))
def test_err_tied_blocks_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    labels = rng.integers(0, 5, n).astype(float)
    scores = rng.integers(0, 2, n).astype(float)
    for k in (None, 1, 3):
        spec = "err" if k is None else f"err@{k}"
        got = evaluate(labels, scores, qid=np.zeros(n), metrics=[spec]).mean(spec)
        assert got == pytest.approx(brute_force_average("err", labels, scores, k), rel=1e-12)


def test_kendall_with_many_distinct_labels_is_vectorised_and_right():
    rng = np.random.default_rng(2)
    sizes = rng.integers(2, 40, 300)
    qid = np.repeat(np.arange(300), sizes)
    labels = rng.random(qid.size).round(3)  # hundreds of distinct labels
    scores = rng.integers(0, 6, qid.size).astype(float)  # ties
    ev = evaluate(labels, scores, qid=qid, metrics=["kendall_tau", "kendall_tau@5"])
    for q in range(0, 300, 7):
        s, y = scores[qid == q], labels[qid == q]
        want = stats.kendalltau(s, y).statistic
        got = ev.per_query.loc[q, "kendall_tau"]
        assert (np.isnan(want) and np.isnan(got)) or got == pytest.approx(want, abs=1e-12)
