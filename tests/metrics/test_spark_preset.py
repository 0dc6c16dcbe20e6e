"""``conventions="spark"`` and ``gain="binary"`` on hand-computed cases (no Spark needed;
``tests/distributed/test_spark_conventions.py`` checks the preset against Spark itself)."""

import numpy as np
import pytest

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics.metrics import CONVENTIONS, reconcile

# Query a, ranked under ties="doc_id" (ascending): w (0.9), x and y tied (0.5) as x then y,
# z (0.1); labels in that order 0, 2, 0, 1. Query b has no relevant document.
LABELS = [2, 0, 1, 0, 0, 0]
SCORES = [0.5, 0.5, 0.1, 0.9, 0.3, 0.2]
QID = ["a", "a", "a", "a", "b", "b"]
DOC_ID = ["x", "y", "z", "w", "x", "y"]


def test_spark_preset_by_hand():
    ev = evaluate(
        LABELS,
        SCORES,
        qid=QID,
        doc_id=DOC_ID,
        metrics=["precision@5", "recall@2", "ndcg@3", "map", "map@2"],
        conventions="spark",
    )
    a = ev.per_query.loc["a"]
    assert a["precision@5"] == 2 / 5  # hits / k, also for a list of 4
    assert a["recall@2"] == 1 / 2
    # binary gains: the relevant rows at ranks 2 and 4, the ideal list 1, 1
    idcg = 1 + 1 / np.log2(3)
    assert a["ndcg@3"] == pytest.approx((1 / np.log2(3)) / idcg, abs=1e-15)
    assert a["map"] == pytest.approx((1 / 2 + 2 / 4) / 2, abs=1e-15)
    assert a["map@2"] == pytest.approx((1 / 2) / min(2, 2), abs=1e-15)
    # no relevant document: 0, and counted in the mean
    assert (ev.per_query.loc["b", list(ev.metrics)] == 0).all()
    assert ev.mean("map") == pytest.approx(0.25, abs=1e-15)
    assert CONVENTIONS["spark"]["ties"] == "doc_id"


def test_binary_gain_follows_min_relevance():
    ev = evaluate(
        LABELS, SCORES, qid=QID, doc_id=DOC_ID, metrics=["ndcg@3"], ties="doc_id",
        gain="binary", min_relevance=2,
    )  # fmt: skip
    # only x (label 2, rank 2) is relevant: DCG 1/log2(3), ideal 1
    assert ev.per_query.loc["a", "ndcg@3"] == pytest.approx(1 / np.log2(3), abs=1e-15)
    linear = evaluate(LABELS, SCORES, qid=QID, doc_id=DOC_ID, metrics=["ndcg@3"],
                      ties="doc_id", gain="linear")  # fmt: skip
    assert linear.per_query.loc["a", "ndcg@3"] != ev.per_query.loc["a", "ndcg@3"]


def test_reconcile_names_sparks_rules_against_trec_eval():
    result = reconcile(LABELS, SCORES, QID, "ndcg@3", tools=["spark", "trec_eval"], doc_id=DOC_ID)
    assert set(result.attribution["option"]) >= {"ties", "gain"}
    notes = " ".join(result.notes)
    assert "graded labels are dropped" in notes and "gain='binary'" in notes
    assert "repeated in a prediction array" in notes and "duplicate" in notes
    other = reconcile(LABELS, SCORES, QID, "ndcg@3", tools=["lightgbm", "trec_eval"],
                      doc_id=DOC_ID)  # fmt: skip
    assert not any("spark" in note for note in other.notes)
