"""Counterfactual evaluation: the estimators' formulas, and IPS against the truth."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import RankingEvaluation
from sklearn_ltr_metrics.clicks import counterfactual_evaluate, estimate_propensity, simulate
from sklearn_ltr_metrics.stats import compare_systems, paired_test

from ._clicks_data import ranking_data


def _log():
    # q 1: session 0 clicks row 2 at rank 2 and row 0 at rank 3; session 1 clicks nothing.
    return pd.DataFrame(
        {
            "session": [0, 0, 0, 1, 1, 1],
            "qid": [1, 1, 1, 1, 1, 1],
            "row": [1, 2, 0, 0, 1, 2],
            "rank": [1, 2, 3, 1, 2, 3],
            "click": [0, 1, 1, 0, 0, 0],
        }
    )


def test_estimators_by_hand():
    score = [0.3, 0.2, 0.9]  # new ranks: row 2 -> 1, row 0 -> 2, row 1 -> 3
    prop = [1.0, 0.5, 0.25]
    s0 = 1 / 0.5 + (1 / np.log2(3)) / 0.25  # session 0's sum; session 1's is 0
    ev = counterfactual_evaluate(
        _log(), score, [1, 1, 1], metrics=["dcg@10", "precision@1"], propensity=prop
    )
    assert isinstance(ev, RankingEvaluation)
    np.testing.assert_allclose(ev.per_query.loc[1, "dcg@10"], s0 / 2)
    np.testing.assert_allclose(ev.per_query.loc[1, "precision@1"], (1 / 0.5) / 2)
    assert ev.per_query.loc[1, ["n_docs", "n_pos", "n_neg"]].tolist() == [3, 2, 1]
    snips = counterfactual_evaluate(_log(), score, [1, 1, 1], propensity=prop, estimator="snips")
    np.testing.assert_allclose(snips.per_query.loc[1, "dcg@10"], s0 / (1 / 0.5 + 1 / 0.25))
    clipped = counterfactual_evaluate(
        _log(), score, [1, 1, 1], propensity=prop, estimator="clipped_ips", clip=0.5
    )
    np.testing.assert_allclose(
        clipped.per_query.loc[1, "dcg@10"], (1 / 0.5 + (1 / np.log2(3)) / 0.5) / 2
    )
    arp = counterfactual_evaluate(_log(), score, [1, 1, 1], metrics="arp", propensity=prop)
    np.testing.assert_allclose(arp.per_query.loc[1, "arp"], (1 / 0.5 + 2 / 0.25) / 2)
    assert ev.conventions["estimator"] == "ips" and ev.conventions["n_sessions"] == 2


def test_ties_take_the_mean_weight_and_unlogged_queries_are_left_out():
    log = _log()
    ev = counterfactual_evaluate(
        log, [1.0, 1.0, 1.0, 5.0], [1, 1, 1, 2], metrics=["dcg@2"], propensity=[1.0, 0.5, 0.25]
    )
    mean_weight = (1 + 1 / np.log2(3)) / 3  # three tied rows share ranks 1..3 (dcg@2)
    np.testing.assert_allclose(
        ev.per_query["dcg@2"].to_numpy(), [(mean_weight / 0.5 + mean_weight / 0.25) / 2]
    )
    assert ev.per_query.index.tolist() == [1]


def _truth(y, score, qid, shown_rows, k):
    """sum over shown d of click_prob[label] * lambda(rank_new(d)), per query."""
    attraction = 0.1 + 0.9 * (2.0**y - 1) / 3.0
    out = {}
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        rank = np.empty(rows.size, dtype=int)
        rank[np.argsort(-score[rows], kind="stable")] = np.arange(1, rows.size + 1)
        lam = np.where(rank <= k, 1 / np.log2(1 + rank), 0.0)
        shown = np.isin(rows, shown_rows)
        out[q] = float((attraction[rows] * lam * shown).sum())
    return pd.Series(out)


def test_ips_is_within_monte_carlo_error_of_the_truth_and_naive_is_not():
    y, score, qid = ranking_data(n_queries=40, n_docs=15)
    log = simulate(y, score, qid, n_sessions=400, top_k=10, random_state=0)
    new = y + np.random.default_rng(5).normal(0, 0.7, y.size)
    truth = _truth(y, new, qid, log["row"].unique(), 10).mean()
    ips = counterfactual_evaluate(log, new, qid, propensity=1 / np.arange(1, 11))
    # the standard error of the mean from the per-session sums, by resampling whole queries
    per_query = ips.per_query["dcg@10"]
    se = per_query.std() / np.sqrt(len(per_query))
    assert abs(ips.mean("dcg@10") - truth) < 0.05 * truth
    assert abs(ips.mean("dcg@10") - truth) < 4 * se + 0.02 * truth
    naive = counterfactual_evaluate(log, new, qid, propensity=np.ones(10))
    assert abs(naive.mean("dcg@10") - truth) > 0.3 * truth


def test_evaluation_feeds_the_statistics():
    y, score, qid = ranking_data(n_queries=30, n_docs=10)
    log = simulate(y, score, qid, n_sessions=50, randomize="top_k", random_state=0)
    prop = estimate_propensity(log)
    good = counterfactual_evaluate(log, y + 0.1 * score, qid, propensity=prop)
    bad = counterfactual_evaluate(log, -score, qid, propensity=prop)
    assert good.conventions["propensity"] == "randomization"
    result = paired_test(good.per_query["dcg@10"], bad.per_query["dcg@10"])
    assert result.wins > result.losses and result.pvalue < 0.01
    table = compare_systems({"good": good, "bad": bad}, baseline="bad", random_state=0)
    good_row = table.set_index("system").loc["good"]
    assert (
        good_row["wins"] == 30 and good_row["mean"] > table.set_index("system").loc["bad", "mean"]
    )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"metrics": ["ndcg@10"]}, "judgments"),
        ({"metrics": ["precision"]}, "cut-off"),
        ({"metrics": ["arp@3"]}, "no cut-off"),
        ({"estimator": "dr"}, "estimator"),
        ({"clip": 0.2}, "clipped_ips"),
        ({"estimator": "clipped_ips", "clip": 0.0}, "clip"),
        ({"propensity": [1.0, 0.5]}, "rank"),
    ],
)
def test_counterfactual_refuses(kwargs, match):
    args = {"propensity": [1.0, 0.5, 0.25], **kwargs}
    with pytest.raises(ValueError, match=match):
        counterfactual_evaluate(_log(), [0.1, 0.2, 0.3], [1, 1, 1], **args)


def test_log_must_match_the_arrays():
    with pytest.raises(ValueError, match="has qid 2"):
        counterfactual_evaluate(_log(), [0.1, 0.2, 0.3], [2, 2, 2], propensity=[1, 1, 1])
    with pytest.raises(ValueError, match="indexes row 2"):
        counterfactual_evaluate(_log(), [0.1, 0.2], [1, 1], propensity=[1, 1, 1])


def test_the_order_of_the_log_lines_changes_nothing():
    y, score, qid = ranking_data(n_queries=20, n_docs=10)
    log = simulate(y, score, qid, n_sessions=30, randomize="top_k", random_state=0)
    shuffled = log.sample(frac=1, random_state=1)
    shuffled["session"] = shuffled["session"] * 7 + 3  # any integer session ids
    for method in ("randomization", "em"):
        np.testing.assert_allclose(
            estimate_propensity(shuffled, method=method).propensity,
            estimate_propensity(log, method=method).propensity,
        )
    new = y + 0.3 * score
    for estimator in ("ips", "snips", "clipped_ips"):
        a = counterfactual_evaluate(
            log, new, qid, propensity=1 / np.arange(1, 11), estimator=estimator
        )
        b = counterfactual_evaluate(
            shuffled, new, qid, propensity=1 / np.arange(1, 11), estimator=estimator
        )
        pd.testing.assert_frame_equal(a.per_query, b.per_query)
