"""Other tools' names carry their tool's meaning or are refused with the name that does."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate, evaluate_run
from sklearn_ltr_metrics.metrics import DroppedQueriesWarning


def _frame(qid, docs, column, values):
    return pd.DataFrame({"qid": qid, "doc_id": docs, column: values})


def test_accuracy_is_ir_measures_pairwise_accuracy():
    # The example: the non-relevant document first, so no pair is in order.
    qrels = _frame("q", ["r", "n"], "label", [1, 0])
    run = _frame("q", ["n", "r"], "score", [2.0, 1.0])
    table = evaluate_run(run, qrels, metrics=["Accuracy", "Accuracy@1"]).per_query
    assert table.loc["q", "Accuracy"] == 0.0
    assert np.isnan(table.loc["q", "Accuracy@1"])  # no pair in the top 1: left out


def test_pairwise_accuracy_under_tie_averaging_is_the_mean_over_orderings():
    import itertools

    y = np.array([1, 0, 2, 0, 1, 0.0])
    s = np.array([3, 3, 3, 1, 1, 0.0])
    got = evaluate(y, s, qid=np.zeros(6), metrics="pairwise_accuracy", ties="average")
    values = []
    for first in itertools.permutations([0, 1, 2]):
        for second in itertools.permutations([3, 4]):
            rel = y[[*first, *second, 5]] > 0
            above = np.cumsum(~rel)[rel].sum()
            values.append(1 - above / (rel.sum() * (~rel).sum()))
    assert got.per_query["pairwise_accuracy"].iloc[0] == pytest.approx(np.mean(values))


def test_lower_case_accuracy_is_refused_with_both_meanings():
    with pytest.raises(ValueError, match=r"hit_rate.*'Accuracy'"):
        evaluate(np.array([1, 0.0]), np.array([1, 0.0]), qid=np.zeros(2), metrics="accuracy@1")


@pytest.mark.parametrize(
    ("name", "fix"),
    [
        ("pre@10", "precision@k with conventions='xgboost'"),
        ("ndcg@10-", "ndcg@10 with empty_query='zero'"),
        ("ndcg_score", "conventions='sklearn'"),
        ("hits@5", "ranx's hits"),
        ("ndcg_burges@5", "gain='exponential'"),
        ("retrieval_map", "conventions='torchmetrics'"),
        ("recip_rank@5", "mrr@k"),
        ("rbp.95", r"rbp.p=0.95"),
    ],
)
def test_other_tools_spellings_are_refused_with_the_package_name(name, fix):
    with pytest.raises(ValueError, match=fix.replace("(", r"\(").replace(".", r"\.")):
        evaluate(np.array([1, 0.0]), np.array([1, 0.0]), qid=np.zeros(2), metrics=name)


def test_ir_measures_preset_scores_a_missing_judged_query_zero():
    # The issue's example: AP 0.5 on q1, q2 judged but not retrieved: ir_measures' mean 0.25.
    qrels = _frame(["q1", "q1", "q2"], ["a", "b", "a"], "label", [1, 0, 1])
    run = _frame("q1", ["a", "b"], "score", [1.0, 2.0])
    ir = evaluate_run(run, qrels, metrics=["AP", "NumRel", "Accuracy"], conventions="ir_measures")
    assert ir.per_query["AP"].to_dict() == {"q1": 0.5, "q2": 0.0}
    assert ir.per_query.loc["q2", "NumRel"] == 0  # ir_measures fills 0, num_rel included
    assert np.isnan(ir.per_query.loc["q2", "Accuracy"])  # its Accuracy leaves it out
    with pytest.warns(DroppedQueriesWarning, match="1 of 2 judged queries.*'zero'"):
        trec = evaluate_run(run, qrels, metrics=["map"])
    assert list(trec.per_query.index) == ["q1"]  # trec_eval without -c leaves it out, said
    c = evaluate_run(run, qrels, metrics=["num_rel"], missing_queries="zero")
    assert c.per_query.loc["q2", "num_rel"] == 1  # trec_eval -c: an empty ranking


def test_ir_measures_aliases_and_parameters():
    qrels = _frame("q", ["a", "b", "c"], "label", [2, 0, 1])
    run = _frame("q", ["b", "a", "c", "x"], "score", [4.0, 3.0, 2.0, 1.0])
    names = ["RPrec", "Rprec", "NumQ", "SetRelP", "SetP(relative=True)", "MAP", "AP"]
    names += ["nDCG(gains={0:0,1:1,2:5})", "ndcg.0=0,1=1,2=5", "NDCG@3", "nDCG@3"]
    table = evaluate_run(run, qrels, metrics=names).per_query.iloc[0]
    assert table["RPrec"] == table["Rprec"] and table["MAP"] == table["AP"]
    assert table["NumQ"] == 1 and table["SetRelP"] == table["SetP(relative=True)"]
    assert table["nDCG(gains={0:0,1:1,2:5})"] == table["ndcg_0=0,1=1,2=5"]
    assert table["NDCG@3"] == table["nDCG@3"]


def test_trec_eval_rbp_defaults_to_its_persistence_and_rescales_gains():
    # Graded judgments 0..3: trec_eval's gain is label / 3; p = 0.9 by default.
    qrels = _frame("t", ["a", "b", "c", "z"], "label", [1, 0, 3, -1])
    run = _frame("t", ["a", "b", "c"], "score", [3.0, 2.0, 1.0])
    table = evaluate_run(run, qrels, metrics=["rbp", "rbp.p=0.8", "RBP"]).per_query
    assert table.loc["t", "rbp"] == pytest.approx(0.1 * (1 / 3 + 0.81 * 1))
    assert table.loc["t", "RBP"] == pytest.approx(0.2 * (1 / 3 + 0.64 * 1))


def test_trec_eval_families_under_its_conventions():
    qrels = _frame("t", ["a", "b"], "label", [1, 0])
    run = _frame("t", ["a", "b"], "score", [2.0, 1.0])
    trec = evaluate_run(run, qrels, metrics=["recall", "success"]).per_query
    assert {"recall_5", "recall_1000", "success_1", "success_10"} <= set(trec.columns)
    own = evaluate_run(run, qrels, metrics=["recall", "success"], conventions=None).per_query
    assert {"recall", "success"} <= set(own.columns)


def test_pairwise_accuracy_extends_a_cut_off_inside_a_tied_block():
    # One non-relevant row first, then five tied rows (one relevant): @3 cuts the block, so
    # it reads the whole block, as the rank correlations do: 1 - (1 + 4 / 2) / (1 * 5).
    y = np.array([0, 0, 0, 0, 0, 1.0])
    s = np.array([0, 0, 0, 0, 1, 0.0])
    table = evaluate(y, s, qid=np.zeros(6), metrics="pairwise_accuracy@3", ties="average")
    assert table.per_query["pairwise_accuracy@3"].iloc[0] == pytest.approx(0.4)
