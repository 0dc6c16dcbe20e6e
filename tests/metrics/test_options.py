"""One options check for every entry point, the presets table and the metric registry."""

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate, evaluate_run, make_ranking_scorer
from sklearn_ltr_metrics.metrics import (
    CONVENTIONS,
    convention_options,
    describe_metric,
    metric_names,
)
from sklearn_ltr_metrics.metrics._registry import METRICS, Metric

Y, S, Q = [1, 0, 2], [0.3, 0.2, 0.1], [1, 1, 1]

BAD_OPTIONS = [
    ({"beta": -1}, ValueError, "beta=-1 must be a finite number > 0"),
    ({"beta": math.nan}, ValueError, "beta=nan"),
    ({"beta": math.inf}, ValueError, "beta=inf"),
    ({"beta": None}, TypeError, "beta must be a number, got None"),
    ({"beta": "2"}, TypeError, "beta must be a number, got '2'"),
    ({"err_max_grade": math.nan}, ValueError, "err_max_grade=nan"),
    ({"err_max_grade": "4"}, TypeError, "err_max_grade must be a number, got '4'"),
    ({"err_max_grade": 0}, ValueError, "err_max_grade=0"),
    ({"min_relevance": math.nan}, ValueError, "min_relevance=nan"),
    ({"min_relevance": -1}, ValueError, "min_relevance=-1"),
    ({"min_relevance": "1"}, TypeError, "min_relevance must be a number"),
    ({"log_base": 1}, ValueError, "log_base=1"),
    ({"log_base": math.nan}, ValueError, "log_base=nan"),
    ({"ties": "random"}, ValueError, "ties='random' is not valid"),
    ({"ap_denominator": "k"}, ValueError, "ap_denominator='k' is not valid"),
    ({"precision_denominator": "n"}, ValueError, "precision_denominator='n' is not valid"),
    ({"gain": {}}, ValueError, "gain={} is empty"),
    ({"gain": {0: 0, 1: -5, 2: 1}}, ValueError, "gains must be finite numbers >= 0"),
    ({"gain": {0: 0, 1: math.nan, 2: 1}}, ValueError, "gains must be finite numbers >= 0"),
    ({"gain": {"0": 0, "1": 1}}, TypeError, "gain mapping keys must be numbers"),
    ({"gain": "exp"}, ValueError, "gain='exp' is not valid"),
    ({"conventions": ["trec_eval"]}, TypeError, "conventions must be a preset name"),
    ({"conventions": "trec"}, ValueError, "not a preset"),
]


@pytest.mark.parametrize(("options", "error", "match"), BAD_OPTIONS)
def test_evaluate_and_scorer_refuse_the_same_options(options, error, match):
    with pytest.raises(error, match=match):
        evaluate(Y, S, qid=Q, metrics=["f1@2", "err@2", "ndcg@2"], **options)
    with pytest.raises(error, match=match):
        make_ranking_scorer(["f1@2", "err@2", "ndcg@2"], **options)


@pytest.mark.parametrize(("options", "error", "match"), BAD_OPTIONS)
def test_evaluate_run_refuses_the_same_options(options, error, match):
    run = pd.DataFrame({"qid": "1", "doc_id": ["a", "b", "c"], "score": S})
    qrels = pd.DataFrame({"qid": "1", "doc_id": ["a", "b", "c"], "label": Y})
    options = {"conventions": None, **options}
    with pytest.raises(error, match=match):
        evaluate_run(run, qrels, metrics=["f1@2", "err@2", "ndcg@2"], **options)


def test_presets_are_complete_tables_of_every_convention_option():
    keys = set(convention_options())
    for name, preset in CONVENTIONS.items():
        assert set(preset) == keys, name
    described = convention_options()
    assert described["ap_denominator"]["presets"]["lightgbm"] == "min_k"
    assert described["ties"]["default"] == "average"
    assert "retrieved" in described["ap_denominator"]["choices"]


def test_registry_entries_are_keyword_only_and_frozen():
    with pytest.raises(TypeError):
        Metric("x", None, "y")
    entry = METRICS["ndcg"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.name = "other"
    assert entry.value_range == (0.0, 1.0) and entry.ideal == 1.0 and entry.graded
    assert METRICS["dcg"].value_range[1] == math.inf
    assert METRICS["kendall_tau"].value_range == (-1.0, 1.0)
    assert not METRICS["r_precision"].takes_cutoff
    assert METRICS["err"].max_label == "err_max_grade"
    for name in metric_names():
        assert describe_metric(name).split(":")[0] in METRICS


def test_recall_description_points_to_capped_recall():
    text = describe_metric("recall")
    assert "hits@k / n_pos" in text and "capped_recall" in text
    assert "hits@k / min(k, n_pos)" in describe_metric("capped_recall")


def test_r_precision_ignores_the_default_k():
    ev = evaluate(Y, S, qid=Q, metrics=["ndcg", "r_precision"], k=10)
    assert list(ev.metrics) == ["ndcg@10", "r_precision"]
    # n_pos = 2: the top 2 hold one relevant row
    assert ev.per_query["r_precision"].iloc[0] == 0.5


def test_metric_with_own_cutoff_refuses_at_k_with_its_description():
    with pytest.raises(ValueError, match=r"takes no '@k' \(precision at k = n_pos"):
        evaluate(Y, S, qid=Q, metrics=["r_precision@3"])


def test_scorer_uses_the_same_options_as_evaluate():
    scorer = make_ranking_scorer("precision@5", precision_denominator="min_k_n_docs")
    assert scorer.options == {"precision_denominator": "min_k_n_docs"}


def test_default_options_are_unchanged():
    ev = evaluate(Y, S, qid=Q, metrics=["ndcg@2"])
    assert ev.conventions["gain"] == "exponential"
    assert ev.conventions["log_base"] == 2.0
    assert ev.conventions["beta"] == 1.0
    expected = (1.0 + 0.0) / (3.0 + 1.0 / np.log2(3))
    assert ev.per_query["ndcg@2"].iloc[0] == pytest.approx(expected)
