"""
Evaluate rankings held in Spark, and reproduce Spark's own numbers
==================================================================

Ranking logs that outgrow one machine usually live in Spark.
:func:`~sklearn_ltr_metrics.metrics.evaluate_spark` evaluates a Spark DataFrame of
(qid, label, score) rows with the package's compiled engine inside each Spark task, and gives
back the per-query table :func:`~sklearn_ltr_metrics.metrics.evaluate` gives in memory.
``conventions="spark"`` reproduces ``pyspark.ml.evaluation.RankingEvaluator``, and
:func:`~sklearn_ltr_metrics.metrics.reconcile` explains its numbers against trec_eval's.

This example needs the ``spark`` extra and Java 17, and starts a local Spark session (10-60
seconds), so the documentation build shows it without running it (its name starts with
``spark_``: see ``filename_pattern`` in ``docs/conf.py``). Run it with
``python examples/spark_evaluate.py``.
"""

# %%
# A local session whose workers run this Python
# ---------------------------------------------
# Without ``PYSPARK_PYTHON`` Spark's Python workers start the first ``python3`` on the path,
# which may lack this package, pandas or pyarrow.
import os
import sys

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")

import warnings

import numpy as np
import pandas as pd
from pyspark.sql import SparkSession

from sklearn_ltr_metrics.datasets import make_ranking_data
from sklearn_ltr_metrics.metrics import evaluate, evaluate_spark, reconcile

warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas")
spark = (
    SparkSession.builder.master("local[2]")
    .config("spark.sql.shuffle.partitions", "4")  # buckets of whole queries
    .config("spark.ui.showConsoleProgress", "false")
    .getOrCreate()
)
spark.sparkContext.setLogLevel("ERROR")

# %%
# Rows in random order, spread over partitions
# --------------------------------------------
# Graded labels, tied scores and a document id per row. Each query's rows sit in several
# partitions; ``evaluate_spark`` brings every query together in one task.
X, y, qid = make_ranking_data(50, graded=True, random_state=0)
rng = np.random.default_rng(0)
rows = pd.DataFrame(
    {
        "qid": qid,
        "doc_id": [f"d{i:05d}" for i in range(len(qid))],
        "label": y,
        "score": np.round(X[:, 0] + rng.standard_normal(len(y)), 1),
    }
).sample(frac=1.0, random_state=0)
frame = spark.createDataFrame(rows)

ev = evaluate_spark(frame, metrics=["ndcg@10", "map", "capped_recall@adaptive"])
print(ev.per_query.head())
in_memory = evaluate(
    rows["label"],
    rows["score"],
    qid=rows["qid"],
    metrics=["ndcg@10", "map", "capped_recall@adaptive"],
)
gap = (ev.per_query - in_memory.per_query).abs().max().max()
print(f"largest difference from evaluate() in memory: {gap:.1e}")

# %%
# Spark's own numbers: ``conventions="spark"``
# --------------------------------------------
# RankingEvaluator reads, per query, the predicted doc ids in ranked order and the relevant
# ids. Built here from the same rows (tied scores by doc id ascending, as ``ties="doc_id"``),
# its ndcgAtK equals ``ndcg@10`` under the preset: binary gains, queries without relevant
# documents scored 0.
from pyspark.ml.evaluation import RankingEvaluator  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

coded = frame.withColumn("doc", F.regexp_replace("doc_id", "d", "").cast("double"))
arrays = coded.groupBy("qid").agg(
    F.sort_array(F.collect_list(F.struct(-F.col("score"), F.col("doc_id"), "doc")))["doc"].alias(
        "prediction"
    ),
    F.collect_list(F.when(F.col("label") > 0, F.col("doc"))).alias("label"),
)
theirs = RankingEvaluator(metricName="ndcgAtK", k=10).evaluate(arrays)
ours = evaluate_spark(frame, metrics="ndcg@10", doc_id="doc_id", conventions="spark")
print(f"RankingEvaluator ndcgAtK: {theirs:.6f}   evaluate_spark: {ours.mean('ndcg@10'):.6f}")

# %%
# Why Spark and trec_eval disagree
# --------------------------------
# Rule by rule: the gains (binary against the label), tied scores (doc id ascending against
# descending), and the rules no option expresses, in the notes.
result = reconcile(
    rows["label"], rows["score"], rows["qid"], "ndcg@10", tools=["spark", "trec_eval"],
    doc_id=rows["doc_id"],
)  # fmt: skip
print(result.to_text())
spark.stop()
