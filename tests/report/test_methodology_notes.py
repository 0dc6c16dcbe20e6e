"""The methodology's imbalance ratio (1:N) and its note: Recall@K is Precision@K for K <= n_pos."""

import numpy as np
import pytest

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics.report import make_report
from sklearn_ltr_metrics.stats import format_imbalance


def test_imbalance_ratio_prints_as_the_methodology_does():
    # the methodology's two examples: 3 relevant among 4966 candidates, 120 among 630
    assert format_imbalance((4966 - 3) / 3) == "1:1654"
    assert format_imbalance((630 - 120) / 120) == "1:4.25"
    assert format_imbalance(float("nan")) == "n/a"
    with pytest.raises(ValueError, match="ratio must be >= 0"):
        format_imbalance(-1.0)
    with pytest.raises(TypeError, match="ratio must be a number"):
        format_imbalance("1:4")


def _two_systems():
    rng = np.random.default_rng(0)
    n_pos = np.r_[rng.integers(3, 11, 8), rng.integers(11, 40, 8)]
    qid = np.repeat(np.arange(16), n_pos + 60)
    y = np.concatenate([np.r_[np.ones(p), np.zeros(60)] for p in n_pos])
    metrics = ["capped_recall@adaptive", "precision@adaptive"]
    good = evaluate(y, y + rng.normal(0, 0.8, y.size), qid=qid, metrics=metrics)
    weak = evaluate(y, rng.normal(size=y.size), qid=qid, metrics=metrics)
    return {"good": good, "weak": weak}


def test_report_says_recall_equals_precision_where_it_happens():
    systems = _two_systems()
    report = make_report(systems, n_resamples=50, n_permutations=50, random_state=0)
    cut = systems["good"].per_cutoff
    recall = cut[cut["metric"] == "capped_recall@adaptive"].reset_index(drop=True)
    precision = cut[cut["metric"] == "precision@adaptive"].reset_index(drop=True)
    n_pos = systems["good"].per_query["n_pos"].reindex(recall["qid"]).to_numpy()
    within = recall["k"].to_numpy() <= n_pos
    # the methodology's claim, checked on the numbers themselves
    np.testing.assert_allclose(recall["value"][within], precision["value"][within])
    assert not np.allclose(recall["value"][~within], precision["value"][~within])
    note = report.settings["recall_is_precision"]
    assert f"Here {within.sum()} of {len(recall)} (query, cut-off) pairs" in note
    for text in (report.to_text(), report.to_markdown(), report.to_html()):
        assert "Recall@K equals Precision@K" in text and f"Here {within.sum()} of" in text
    # the imbalance ratio row prints as 1:N
    assert "1:" in report.to_text().split("n_neg/n_pos", 1)[1].splitlines()[0]


def test_no_note_without_capped_recall():
    rng = np.random.default_rng(1)
    y = (rng.random(60) < 0.3).astype(float)
    ev = evaluate(y, rng.normal(size=60), qid=np.repeat(np.arange(6), 10), metrics=["map"])
    report = make_report({"a": ev}, n_resamples=20, random_state=0)
    assert report.settings["recall_is_precision"] is None
    assert "Recall@K equals Precision@K" not in report.to_text()


def test_planning_sentence_rounds_as_its_column_and_says_when_nothing_is_detectable():
    import pandas as pd

    index = pd.Index([1, 2, 3, 4], name="qid")
    counts = {"n_pos": [3, 4, 5, 6], "n_neg": 50}
    systems = {
        "a": pd.DataFrame({**counts, "ndcg@10": [0.0, 1.0, 0.1, 0.9]}, index=index),
        "b": pd.DataFrame({**counts, "ndcg@10": [1.0, 0.0, 0.9, 0.2]}, index=index),
    }
    report = make_report(systems, n_resamples=20, n_permutations=20, random_state=0)
    plan = report.planning.set_index("power")
    text = report.to_text()
    for power, row in plan.iterrows():
        if row["detectable_diff"] > 1:  # nDCG lies in [0, 1]: no difference can be seen
            assert (
                f"no difference in ndcg@10 is detectable with {row['n_queries']} queries at "
                f"power {power:g}" in text
            )
        else:
            assert f"differences below {row['detectable_diff']:.4f} ndcg@10" in text
    assert (plan["detectable_diff"] > 1).any()  # 3 noisy queries: the case is exercised
