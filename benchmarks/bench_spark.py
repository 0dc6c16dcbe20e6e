"""``evaluate_spark`` against Spark's own ``RankingEvaluator`` on the same Spark DataFrame.

One frame of (qid, doc_id, label, score) rows in random order is built and cached. Spark's
evaluator needs one row per query with two arrays (the doc ids by score, the relevant ids):
building them (a group-by with sorted ``collect_list``) is timed once, as users pay it, then
the arrays are cached. Both sides are warmed up, then timed as the median of ``--repeat``
runs of the same metrics: ``ndcg@k``, ``precision@k``, ``recall@k``, ``map@k`` and ``map``
(RankingEvaluator: one job per metric; ours: one job for all five, ``conventions="spark"``).
The script checks that the means agree (1e-9) before printing the ratio.

    python benchmarks/bench_spark.py                   # 2M rows, 20k queries, local[*]
    python benchmarks/bench_spark.py --rows 200000     # quick

Needs the ``spark`` extra and Java 17. Printed, not committed.
"""

import argparse
import os
import statistics
import sys
import time
import warnings

import numpy as np
import pandas as pd

METRICS = {
    "ndcgAtK": "ndcg@{k}",
    "precisionAtK": "precision@{k}",
    "recallAtK": "recall@{k}",
    "meanAveragePrecisionAtK": "map@{k}",
    "meanAveragePrecision": "map",
}


def _session(master, partitions):
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")]))
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master(master)
        .config("spark.sql.shuffle.partitions", str(partitions))
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "4g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _rows(n_rows, n_queries, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "qid": rng.integers(0, n_queries, n_rows),
            "doc_id": rng.integers(0, 10**9, n_rows).astype(str),
            "label": (rng.random(n_rows) < 0.1).astype(np.float64),
            "score": np.round(rng.random(n_rows), 4),
        }
    )


def _arrays(frame):
    """RankingEvaluator's input: doc ids by score desc (ties by doc id), relevant ids."""
    from pyspark.sql import functions as F

    # doc ids as doubles (RankingEvaluator's arrays are numeric): a code per (qid, doc_id)
    coded = frame.withColumn("doc", F.xxhash64("qid", "doc_id").cast("double"))
    ranked = F.sort_array(F.collect_list(F.struct(-F.col("score"), F.col("doc_id"), "doc")))
    relevant = F.collect_list(F.when(F.col("label") > 0, F.col("doc")))
    return coded.groupBy("qid").agg(ranked["doc"].alias("prediction"), relevant.alias("label"))


def _median_time(run, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        value = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--partitions", type=int, default=16)
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=FutureWarning)  # pyspark 4 on pandas 3

    from pyspark.ml.evaluation import RankingEvaluator

    from sklearn_ltr_metrics.metrics import evaluate_spark

    spark = _session(args.master, args.partitions)
    rows = _rows(args.rows, args.queries)
    frame = spark.createDataFrame(rows).repartition(args.partitions).cache()
    frame.count()

    start = time.perf_counter()
    arrays = _arrays(frame).cache()
    arrays.count()
    build = time.perf_counter() - start

    specs = [spec.format(k=args.k) for spec in METRICS.values()]
    evaluators = [RankingEvaluator(metricName=name, k=args.k) for name in METRICS]

    def theirs():
        return [e.evaluate(arrays) for e in evaluators]

    def ours():
        # the arrays rank tied scores by doc_id text ascending, as ties="doc_id" (the preset)
        ev = evaluate_spark(frame, metrics=specs, doc_id="doc_id", conventions="spark")
        return [ev.mean(spec) for spec in specs]

    theirs(), ours()  # warm up: Python workers, JIT, caches
    t_theirs, means_theirs = _median_time(theirs, args.repeat)
    t_ours, means_ours = _median_time(ours, args.repeat)
    print(f"{args.rows:,} rows, {args.queries:,} queries, {args.master}, k={args.k}")
    for spec, a, b in zip(specs, means_ours, means_theirs, strict=True):
        flag = "" if abs(a - b) <= 1e-9 else "   <- DIFFERS"
        print(f"  {spec:<14} ours {a:.6f}  RankingEvaluator {b:.6f}{flag}")
    print(
        f"RankingEvaluator, 5 metrics on cached arrays: {t_theirs:.3f} s (median of {args.repeat})"
    )
    print(f"building and caching its array columns:      {build:.3f} s (once)")
    print(f"evaluate_spark, the same 5 metrics:           {t_ours:.3f} s (median of {args.repeat})")
    print(f"ratio ours / RankingEvaluator: {t_ours / t_theirs:.2f} "
          f"(with the arrays' build: {t_ours / (t_theirs + build):.2f})")  # fmt: skip
    spark.stop()


if __name__ == "__main__":
    main()
