"""``conventions="spark"`` against Spark's own ``pyspark.ml.evaluation.RankingEvaluator``.

Generated rankings with graded labels (Spark reads relevant ids only), queries shorter than
the cut-off, queries without a relevant document and tied scores (ranked by doc id
ascending on both sides). Spark returns means only, so the means are compared (1e-9).
"""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics.metrics import evaluate_spark

#: RankingEvaluator's metric name -> the package's spec at cut-off k (None: the whole list).
SPARK_METRICS = {
    "precisionAtK": "precision@{k}",
    "recallAtK": "recall@{k}",
    "ndcgAtK": "ndcg@{k}",
    "meanAveragePrecisionAtK": "map@{k}",
    "meanAveragePrecision": "map",
}
CUTOFFS = (1, 3, 10)


def _rows(n_queries=60, seed=0):
    """One row per (query, document): 1 to 14 documents, labels 0-2, integer scores (ties);
    every seventh query has no relevant document."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 15, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    label = rng.choice([0.0, 0.0, 1.0, 2.0], qid.size)
    label[qid % 7 == 0] = 0.0
    doc_id = np.concatenate([rng.permutation(100)[:size] for size in sizes]).astype(np.int64)
    score = rng.integers(0, 4, qid.size).astype(np.float64)
    return pd.DataFrame({"qid": qid, "doc_id": doc_id, "label": label, "score": score})


def _spark_arrays(rows):
    """Spark's input: per query, the doc ids by score descending (ties by doc id ascending as
    text, as ``ties="doc_id"`` compares them), and the ids of its relevant documents (an empty
    array when it has none)."""
    ranked = rows.assign(text=rows["doc_id"].astype(str)).sort_values(
        ["qid", "score", "text"], ascending=[True, False, True]
    )
    prediction = ranked.groupby("qid")["doc_id"].agg(lambda ids: [float(i) for i in ids])
    relevant = (
        rows[rows["label"] > 0].groupby("qid")["doc_id"].agg(lambda ids: [float(i) for i in ids])
    )
    relevant = relevant.reindex(prediction.index).apply(
        lambda ids: ids if isinstance(ids, list) else []
    )
    return pd.DataFrame({"prediction": prediction.to_list(), "label": relevant.to_list()})


@pytest.fixture(scope="module")
def rankings(spark):
    rows = _rows()
    arrays = spark.createDataFrame(
        _spark_arrays(rows), "prediction array<double>, label array<double>"
    ).cache()
    assert arrays.count() == rows["qid"].nunique()
    yield rows, arrays
    arrays.unpersist()


@pytest.mark.filterwarnings("ignore::sklearn_ltr_metrics.metrics.DroppedQueriesWarning")
def test_spark_preset_equals_ranking_evaluator(rankings):
    from pyspark.ml.evaluation import RankingEvaluator

    rows, arrays = rankings
    sizes = rows.groupby("qid").size()
    assert (sizes < 3).any() and (sizes < 10).sum() > 10  # short queries
    assert (rows.groupby("qid")["label"].max() == 0).sum() >= 5  # queries without relevant
    specs = {(name, k): spec.format(k=k) for name, spec in SPARK_METRICS.items() for k in CUTOFFS}
    ev = evaluate(
        rows["label"],
        rows["score"],
        qid=rows["qid"],
        doc_id=rows["doc_id"],
        metrics=sorted(set(specs.values())),
        conventions="spark",
    )
    for (name, k), spec in specs.items():
        if name == "meanAveragePrecision" and k != CUTOFFS[0]:
            continue
        theirs = RankingEvaluator(metricName=name, k=k).evaluate(arrays)
        ours = ev.mean(spec)
        assert ours == pytest.approx(theirs, abs=1e-9), (name, k, ours, theirs)
    # The preset's rules matter here: the package's defaults give other numbers.
    default = evaluate(rows["label"], rows["score"], qid=rows["qid"], metrics=["ndcg@3"])
    assert abs(default.mean("ndcg@3") - ev.mean("ndcg@3")) > 1e-3


def test_evaluate_spark_with_the_spark_preset(spark, rankings):
    rows, _ = rankings
    frame = spark.createDataFrame(rows.sample(frac=1.0, random_state=0))
    got = evaluate_spark(
        frame, metrics=["ndcg@3", "precision@10", "map"], doc_id="doc_id", conventions="spark"
    )
    expected = evaluate(
        rows["label"],
        rows["score"],
        qid=rows["qid"],
        doc_id=rows["doc_id"],
        metrics=["ndcg@3", "precision@10", "map"],
        conventions="spark",
    )
    # ties="doc_id" does not read row order: the shuffled rows give the same table
    pd.testing.assert_frame_equal(got.per_query, expected.per_query, atol=1e-12, rtol=0)
    assert got.per_query[list(got.metrics)].notna().all().all()  # no relevant row: 0
