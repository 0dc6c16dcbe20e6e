"""rank_agreement against hand-computed values and a plain pairwise reference; F1 and F-beta
named by their beta; the difficulty column."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from sklearn_ltr_metrics import evaluate, rank_agreement
from sklearn_ltr_metrics._table import COUNT_COLUMNS

FIRST = [6, 5, 4, 3, 2, 1]  # a..f ranked a, b, c, d, e, f
SECOND = [5, 4, 3, 6, 2, 1]  # ranked d, a, b, c, e, f


@pytest.mark.parametrize(("k", "expected"), [(3, 0.5), (6, 0.2), (None, 0.2), (1, 1.0)])
def test_kendall_distance_of_the_contract_example(k, expected):
    table = rank_agreement(FIRST, SECOND, qid=[1] * 6, k=k)
    assert table["kendall"].iloc[0] == pytest.approx(expected)
    assert list(table.columns) == ["n_items", "kendall"]


def test_same_and_reversed_orders():
    scores = np.arange(10.0)
    assert rank_agreement(scores, scores, qid=[0] * 10)["kendall"].iloc[0] == 0.0
    assert rank_agreement(scores, -scores, qid=[0] * 10)["kendall"].iloc[0] == 1.0
    rho = rank_agreement(scores, -scores, qid=[0] * 10, method="spearman")["spearman"]
    assert rho.iloc[0] == pytest.approx(-1.0)


def reference(a, b, k):
    """Plain pairwise definition, one query."""
    n = len(a)
    pos_a = np.argsort(np.argsort(-a, kind="stable"), kind="stable")
    pos_b = np.argsort(np.argsort(-b, kind="stable"), kind="stable")
    items = [i for i in range(n) if k is None or pos_a[i] < k or pos_b[i] < k]
    pairs = list(itertools.combinations(items, 2))
    if not pairs:
        return math.nan, math.nan
    discordant = sum((a[i] - a[j]) * (b[i] - b[j]) < 0 for i, j in pairs)
    constant = len(set(a[items])) < 2 or len(set(b[items])) < 2
    rho = math.nan if constant else stats.spearmanr(a[items], b[items]).statistic
    return discordant / len(pairs), rho


@pytest.mark.parametrize("k", [None, 1, 3, 5])
def test_matches_pairwise_reference_over_many_queries(k):
    rng = np.random.default_rng(k or 0)
    sizes = rng.integers(1, 25, 40)
    qid = np.repeat(np.arange(40), sizes)
    a = rng.integers(0, 6, qid.size).astype(float)  # ties in both
    b = a + rng.integers(-2, 3, qid.size)
    order = rng.permutation(qid.size)  # rows need not be grouped
    kendall = rank_agreement(a[order], b[order], qid=qid[order], k=k)
    spearman = rank_agreement(a[order], b[order], qid=qid[order], k=k, method="spearman")
    for q in range(40):
        # top-k sets take ties in input row order: the reference sees the same rows in order
        rows = order[qid[order] == q]
        want_tau, want_rho = reference(a[rows], b[rows], k)
        got_tau = kendall.loc[q, "kendall"]
        got_rho = spearman.loc[q, "spearman"]
        assert (math.isnan(want_tau) and math.isnan(got_tau)) or got_tau == pytest.approx(want_tau)
        assert (math.isnan(want_rho) and math.isnan(got_rho)) or got_rho == pytest.approx(want_rho)


def test_bad_arguments():
    with pytest.raises(ValueError, match="method='tau' is not valid"):
        rank_agreement(FIRST, SECOND, qid=[1] * 6, method="tau")
    with pytest.raises(ValueError, match="score_a has 6, score_b has 5"):
        rank_agreement(FIRST, SECOND[:5], qid=[1] * 6)
    with pytest.raises(ValueError, match="k=0"):
        rank_agreement(FIRST, SECOND, qid=[1] * 6, k=0)


def test_f1_stays_f1_and_fbeta_names_its_beta():
    # ranked: rel, non, rel, non ; n_pos = 3 (one relevant row unranked via query_stats)
    y, s = [1, 0, 1, 0, 1], [5, 4, 3, 2, 1]
    ev = evaluate(y, s, qid=[0] * 5, metrics=["f1@2", "fbeta@2", "f2@2"], beta=2)
    assert ev.metrics == ("f1@2", "f2@2")
    precision, recall = 1 / 2, 1 / 3
    f1 = 2 * precision * recall / (precision + recall)
    f2 = 5 * precision * recall / (4 * precision + recall)
    assert ev.mean("f1@2") == pytest.approx(f1)
    assert ev.mean("f2@2") == pytest.approx(f2)
    half = evaluate(y, s, qid=[0] * 5, metrics=["f0.5@2"])
    assert half.mean("f0.5@2") == pytest.approx(
        1.25 * precision * recall / (0.25 * precision + recall)
    )
    with pytest.raises(ValueError, match="beta must be > 0"):
        evaluate(y, s, qid=[0] * 5, metrics=["f0@2"])


def test_difficulty_column():
    ev = evaluate([1, 0, 0, 0, 0, 0], [1, 2, 3, 1, 2, 3], qid=[1, 1, 1, 2, 2, 2], metrics=["map"])
    table = ev.per_query
    assert list(table.columns[:4]) == ["n_docs", "n_pos", "n_neg", "difficulty"]
    assert table.loc[1, "difficulty"] == 2.0
    assert math.isnan(table.loc[2, "difficulty"])  # no relevant row: undefined
    assert "difficulty" in COUNT_COLUMNS
    assert ev.metrics == ("map",)
