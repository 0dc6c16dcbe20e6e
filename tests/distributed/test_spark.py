"""Spark: ``evaluate_spark``, ``evaluate_run_spark`` and ``fuse_spark`` against the in-memory
functions on the same rows, on the shared ``local[2]`` session (``spark``, conftest.py).

Every frame comes in random order and is spread over several partitions, so queries straddle
partitions and reach the tasks in shuffled order; each Spark call is one job, and the suite
keeps their number small (a job costs about a second on two loaded cores).
"""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from sklearn_ltr_metrics import evaluate, evaluate_run, make_ranking_data
from sklearn_ltr_metrics.metrics import evaluate_run_spark, evaluate_spark
from sklearn_ltr_metrics.runs import fuse, fuse_spark

#: Every family of the engine: cut-off, graded, cascade, trec_eval's, adaptive cut-offs.
METRICS = [
    "ndcg@10",
    "map",
    "recall@adaptive",
    "capped_recall@adaptive",
    "err@10",
    "precision@5",
    "mrr",
    "rbp",
    "r_precision",
    "dcg@3",
    "success@1",
    "f1@5",
]


def _scored_rows(qid_kind="int", n_queries=40, seed=1):
    """Graded rows in random order: short queries, a query without relevant rows, and many
    tied scores (rounded)."""
    X, y, qid = make_ranking_data(
        n_queries, n_pos_range=(1, 10), n_neg_range=(1, 25), graded=True, random_state=seed
    )
    rng = np.random.default_rng(seed)
    score = np.round(X[:, 0] + 0.5 * rng.standard_normal(y.size), 1)
    frame = pd.DataFrame({"qid": qid, "label": y, "score": score})
    frame.loc[frame["qid"] == 3, "label"] = 0.0  # no relevant row: undefined or scored 0
    frame["doc"] = rng.permutation(len(frame)).astype(str)
    if qid_kind == "str":
        frame["qid"] = "q" + frame["qid"].astype(str)
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _on_spark(spark, frame, n_partitions=3):
    """``frame`` as a Spark DataFrame over several partitions, and its rows in Spark's order
    (the order ``ties="stable"`` follows).

    The order of rows out of a shuffle (``repartition``) changes from one computation to the
    next; ``localCheckpoint`` keeps the shuffled rows, so every job reads them in one order.
    """
    sdf = spark.createDataFrame(frame).repartition(n_partitions).localCheckpoint()
    return sdf, sdf.toPandas()


def _assert_same(got, expected):
    assert_frame_equal(got.per_query, expected.per_query, check_exact=False, rtol=0, atol=1e-12)
    assert_frame_equal(got.per_cutoff, expected.per_cutoff, check_exact=False, rtol=0, atol=1e-12)
    assert got.n_skipped == expected.n_skipped
    assert got.conventions == expected.conventions


@pytest.mark.parametrize(
    ("qid_kind", "options"),
    [
        ("int", {"ties": "stable"}),
        ("str", {"conventions": "trec_eval", "k": [3, 10]}),
        ("int", {"conventions": "spark", "empty_query": "skip", "query_stats": True}),
    ],
    ids=["stable", "trec_eval", "spark"],
)
def test_evaluate_spark_equals_evaluate(spark, qid_kind, options):
    rows = _scored_rows(qid_kind)
    sdf, held = _on_spark(spark, rows)
    assert not held["qid"].is_monotonic_increasing  # queries straddle the partitions
    metrics = METRICS if "k" not in options else ["ndcg", "precision", "map"]
    if options.get("query_stats"):  # more relevant documents than the rows hold
        options = {**options, "query_stats": pd.DataFrame({"qid": [0, 1], "n_pos": [30, 40]})}
    doc_id = None if options.get("ties") == "stable" else "doc"

    got = evaluate_spark(sdf, metrics=metrics, doc_id=doc_id, **options)

    expected = evaluate(
        held["label"],
        held["score"],
        qid=held["qid"],
        metrics=metrics,
        doc_id=None if doc_id is None else held[doc_id],
        **options,
    )
    _assert_same(got, expected)
    assert len(got.per_query) == rows["qid"].nunique()
    if "conventions" not in options:  # query 3 has no relevant row: skipped, as in memory
        assert got.n_skipped["map"] == 1 and np.isnan(got.per_query.loc[3, "map"])


def test_evaluate_spark_collect_false_is_the_per_query_table(spark):
    rows = _scored_rows(n_queries=12).rename(columns={"qid": "query", "label": "rel"})
    sdf, held = _on_spark(spark, rows, n_partitions=2)

    table = evaluate_spark(sdf, metrics=["ndcg@5", "map"], qid="query", label="rel", collect=False)

    assert type(table).__name__ == "DataFrame" and hasattr(table, "toPandas")
    got = table.toPandas().set_index("query").sort_index()
    expected = evaluate(held["rel"], held["score"], qid=held["query"], metrics=["ndcg@5", "map"])
    assert_frame_equal(got, expected.per_query.rename_axis("query"), atol=1e-12, rtol=0)


def test_evaluate_spark_errors_name_the_fix(spark):
    rows = _scored_rows(n_queries=6)
    sdf = spark.createDataFrame(rows)
    with pytest.raises(TypeError, match=r"pyspark.sql.DataFrame, got DataFrame.*evaluate\("):
        evaluate_spark(rows)
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['relevance'\].*'label'"):
        evaluate_spark(sdf, label="relevance")
    with pytest.raises(TypeError, match=r"unexpected option\(s\) \['tie'\]"):
        evaluate_spark(sdf, tie="stable")
    with pytest.raises(ValueError, match=r"ndgc"):
        evaluate_spark(sdf, metrics="ndgc@10")
    with pytest.raises(ValueError, match=r"ties='doc_id'.*breaks ties by doc_id; pass doc_id='"):
        evaluate_spark(sdf, conventions="spark")
    with pytest.raises(TypeError, match=r"collect must be True or False"):
        evaluate_spark(sdf, collect="yes")
    # An error inside a task comes back with its own type and message.
    bad = rows.assign(score=rows["score"].where(rows["qid"] != 4, np.nan))
    with pytest.raises(ValueError, match=r"NaN or infinite value\(s\) \(first in query 4"):
        evaluate_spark(spark.createDataFrame(bad), metrics="map")


def _run_and_qrels(n_queries=15, seed=2):
    rows = _scored_rows("str", n_queries=n_queries, seed=seed)
    run = rows[["qid", "doc", "score"]].rename(columns={"doc": "doc_id"})
    run = run[run.index % 7 != 0]  # some judged documents not retrieved
    unjudged = pd.DataFrame({"qid": ["q77"] * 2, "doc_id": ["u", "v"], "score": [1.0, 0.5]})
    run = pd.concat([run, unjudged], ignore_index=True)  # a query without judgments
    run["tag"] = [f"t{i}" for i in range(len(run))]  # run_id: the tag of the last row
    qrels = rows[["qid", "doc", "label"]].rename(columns={"doc": "doc_id"})
    qrels = qrels[qrels.index % 5 != 0]  # some retrieved documents unjudged
    extra = pd.DataFrame({"qid": ["q98", "q99"], "doc_id": ["x", "y"], "label": [1.0, 0.0]})
    return run, pd.concat([qrels, extra], ignore_index=True)  # two queries the run misses


@pytest.mark.filterwarnings("ignore::sklearn_ltr_metrics.metrics.DroppedQueriesWarning")
@pytest.mark.parametrize(
    "options",
    [{"missing_queries": "zero", "unjudged": "remove"}, {"conventions": None, "ties": "doc_id"}],
)
def test_evaluate_run_spark_equals_evaluate_run(spark, options):
    run, qrels = _run_and_qrels()
    srun, held_run = _on_spark(spark, run, 3)
    sqrels, held_qrels = _on_spark(spark, qrels, 2)
    metrics = ["map", "ndcg@10", "P_5", "recall_100", "relstring.5"]

    got = evaluate_run_spark(srun, sqrels, metrics=metrics, **options)

    expected = evaluate_run(held_run, held_qrels, metrics=metrics, **options)
    _assert_same(got, expected)
    assert_frame_equal(got.strings, expected.strings)
    assert got.run_id == expected.run_id == held_run["tag"].iloc[-1]
    assert ("q99" in got.per_query.index) == (options.get("missing_queries") == "zero")


@pytest.mark.parametrize(("method", "params"), [("rrf", {}), ("wsum", {"weights": [1.0, 2.0]})])
def test_fuse_spark_equals_fuse(spark, method, params):
    rows = _scored_rows("str", n_queries=10, seed=3)
    first = rows[["qid", "doc", "score"]].rename(columns={"doc": "doc_id"})
    second = first.sample(frac=0.6, random_state=0).assign(score=lambda f: -f["score"])
    second = second[second["qid"] != "q2"]  # a query only the first run retrieved
    runs = [_on_spark(spark, first, 2)[0], spark.createDataFrame(second)]
    held = [run.toPandas() for run in runs]

    got = fuse_spark(runs, method, **params).toPandas()

    expected = fuse(held, method, **params)
    key = ["qid", "doc_id"]
    got = got.sort_values(key, ignore_index=True)
    expected = expected.sort_values(key, ignore_index=True)
    assert_frame_equal(got, expected, check_dtype=False, atol=1e-12, rtol=0)


def test_fuse_spark_checks_on_the_driver(spark):
    run = spark.createDataFrame(pd.DataFrame({"qid": ["a"], "doc_id": ["x"], "score": [1.0]}))
    with pytest.raises(ValueError, match=r"at least two runs"):
        fuse_spark([run])
    with pytest.raises(TypeError, match=r"runs\[1\] must be a pyspark.sql.DataFrame"):
        fuse_spark([run, run.toPandas()])
    with pytest.raises(ValueError, match=r"rrff|method"):
        fuse_spark([run, run], "rrff")


@pytest.mark.slow  # 10M rows through a local[2] session: minutes
def test_evaluate_spark_ten_million_rows_in_random_order(spark):
    n_rows, n_queries = 10_000_000, 100_000
    rng = np.random.default_rng(0)
    rows = pd.DataFrame(
        {
            "qid": rng.integers(0, n_queries, n_rows),  # every query spread over the frame
            "label": rng.integers(0, 3, n_rows).astype(np.float64),
            "score": np.round(rng.random(n_rows), 2),  # many ties
        }
    )
    sdf = spark.createDataFrame(rows)  # partitions are slices: Spark's order is the frame's
    metrics = ["ndcg@10", "map", "recall@adaptive"]

    got = evaluate_spark(sdf, metrics=metrics, ties="stable")

    expected = evaluate(
        rows["label"], rows["score"], qid=rows["qid"], metrics=metrics, ties="stable"
    )
    _assert_same(got, expected)
    assert len(got.per_query) == n_queries


def test_importing_the_package_does_not_import_pyspark():
    code = (
        "import sys, sklearn_ltr_metrics, sklearn_ltr_metrics.metrics._distributed._spark, "
        "sklearn_ltr_metrics.runs._spark; "
        "assert 'pyspark' not in sys.modules, sorted(m for m in sys.modules if 'spark' in m)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_missing_pyspark_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspark", None)
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)
    with pytest.raises(ImportError, match=r"pip install sklearn-ltr-metrics\[spark\].*Java 17"):
        evaluate_spark(pd.DataFrame({"qid": [1], "label": [1], "score": [0.5]}))
