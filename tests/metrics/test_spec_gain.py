"""CG sums the labels (the methodology's CG), and a graded metric's gain may be set per spec."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate, evaluate_run, make_ranking_scorer

LABELS = [3, 2, 1, 2, 3]
SCORES = [5, 4, 3, 2, 1]


def _row(metrics, **options):
    return evaluate(LABELS, SCORES, qid=[0] * 5, metrics=metrics, **options).per_query.iloc[0]


def test_methodologys_cg_is_the_sum_of_the_labels():
    assert _row(["cg@5"])["cg@5"] == 11.0  # 3 + 2 + 1 + 2 + 3
    assert _row(["cg@3"])["cg@3"] == 6.0


def test_dcg_and_ndcg_keep_their_gain():
    row = _row(["dcg@5", "cg@5"])
    expected = sum((2.0**g - 1) / np.log2(i + 2) for i, g in enumerate(LABELS))
    assert row["dcg@5"] == pytest.approx(expected)
    assert row["cg@5"] == 11.0


def test_one_call_mixes_gains_in_the_spec():
    specs = [
        "cg@5",
        "cg(gain=exponential)@5",
        "ndcg@5",
        "ndcg(gain=linear)@5",
        "dcg(gain=linear)@5",
    ]
    row = _row(specs)
    assert row["cg(gain=exponential)@5"] == 21.0  # 7 + 3 + 1 + 3 + 7
    for spec in ("ndcg(gain=linear)@5", "dcg(gain=linear)@5"):
        plain = spec.replace("(gain=linear)", "")
        assert row[spec] == _row([plain], gain="linear")[plain]
    assert row["ndcg@5"] == _row(["ndcg@5"], gain="exponential")["ndcg@5"]
    assert list(row.index[4:]) == specs  # the columns keep the specs, in order


def test_the_calls_gain_applies_to_cg_when_given():
    assert _row(["cg@5"], gain="exponential")["cg@5"] == 21.0
    assert _row(["cg@5"], gain={0: 0, 1: 1, 2: 5, 3: 10})["cg@5"] == 31.0
    assert _row(["cg(gain=linear)@5"], gain="exponential")["cg(gain=linear)@5"] == 11.0


def test_run_and_scorer_follow_the_same_rule():
    run = pd.DataFrame({"qid": "q", "doc_id": list("abcde"), "score": SCORES})
    qrels = pd.DataFrame({"qid": "q", "doc_id": list("abcde"), "label": LABELS})
    table = evaluate_run(run, qrels, metrics=["cg@5", "cg(gain=exponential)@5"]).per_query
    assert table[["cg@5", "cg(gain=exponential)@5"]].iloc[0].tolist() == [11.0, 21.0]
    scorer = make_ranking_scorer("cg(gain=exponential)@5")

    class Fixed:
        def predict(self, X):
            return np.asarray(SCORES, float)

    assert scorer(Fixed(), np.zeros((5, 1)), np.asarray(LABELS), qid=np.zeros(5)) == 21.0


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("map(gain=linear)", "only \\['cg', 'dcg', 'ndcg'\\]"),
        ("cg(gain=quadratic)@5", "gain='quadratic'"),
    ],
)
def test_bad_spec_gains_are_refused(spec, match):
    with pytest.raises(ValueError, match=match):
        _row([spec])
