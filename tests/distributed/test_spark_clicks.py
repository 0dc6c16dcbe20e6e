"""Spark: ``counterfactual_evaluate_spark`` against the in-memory ``counterfactual_evaluate`` on
the same log, on the shared ``local[2]`` session (``spark``, conftest.py).

The log and the scored rows come in random order over several partitions, so queries straddle
partitions; the row ids are not positions (Spark names rows by id), the in-memory call gets the
same rows as arrays indexed by position.
"""

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from sklearn_ltr_metrics.clicks import (
    counterfactual_evaluate,
    counterfactual_evaluate_spark,
    estimate_propensity,
    simulate,
)

METRICS = ["dcg@5", "dcg", "precision@3", "arp"]


def _click_data(seed=0):
    """Queries of 1 to 12 rows, a randomised log, new scores with many ties."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(30), rng.integers(1, 13, 30))
    y = rng.integers(0, 3, qid.size)
    log = simulate(y, y + rng.normal(0, 1.5, qid.size), qid, n_sessions=20, top_k=5,
                   randomize="top_k", random_state=seed)  # fmt: skip
    new = np.round(y + rng.normal(0, 1.0, qid.size))  # ties
    return log[["session", "qid", "row", "rank", "click"]], new, qid


def _frames(spark, log, new, qid, seed=0):
    """Log and scored rows as shuffled Spark DataFrames over three partitions; row ids 7r+3."""
    scored = pd.DataFrame({"row": np.arange(qid.size) * 7 + 3, "qid": qid, "score": new})
    log = log.assign(row=log["row"] * 7 + 3)
    return tuple(
        spark.createDataFrame(frame.sample(frac=1.0, random_state=seed)).repartition(3)
        for frame in (log, scored)
    )


@pytest.mark.parametrize(
    ("estimator", "clip"), [("ips", None), ("snips", None), ("clipped_ips", 0.3)]
)
def test_equals_counterfactual_evaluate(spark, estimator, clip):
    log, new, qid = _click_data()
    propensity = estimate_propensity(log)
    expected = counterfactual_evaluate(
        log, new, qid, metrics=METRICS, propensity=propensity, estimator=estimator, clip=clip
    )
    log_sdf, scored_sdf = _frames(spark, log, new, qid)
    got = counterfactual_evaluate_spark(
        log_sdf, scored_sdf, metrics=METRICS, propensity=propensity, estimator=estimator, clip=clip
    )
    assert len(expected.per_query) > 20
    assert_frame_equal(got.per_query, expected.per_query, check_exact=False, rtol=0, atol=1e-12)
    assert_frame_equal(got.per_cutoff, expected.per_cutoff, check_exact=False, rtol=0, atol=1e-12)
    assert got.conventions == expected.conventions
    if estimator == "snips":  # the lazy table: the same per-query values
        table = counterfactual_evaluate_spark(
            log_sdf, scored_sdf, metrics=METRICS, propensity=propensity, estimator=estimator,
            collect=False,
        ).toPandas()  # fmt: skip
        table = table.set_index("qid").sort_index()
        assert_frame_equal(
            table, expected.per_query, check_exact=False, rtol=0, atol=1e-12, check_names=False
        )


def test_refusals(spark):
    log, new, qid = _click_data(seed=1)
    log_sdf, scored_sdf = _frames(spark, log, new, qid)
    prop = np.ones(5)
    with pytest.raises(TypeError, match=r"pyspark\.sql\.DataFrame"):
        counterfactual_evaluate_spark(log, scored_sdf, propensity=prop)
    with pytest.raises(ValueError, match="clipped_ips"):
        counterfactual_evaluate_spark(log_sdf, scored_sdf, propensity=prop, clip=0.2)
    with pytest.raises(TypeError, match="qid"):
        counterfactual_evaluate_spark(
            log_sdf, scored_sdf.withColumn("qid", scored_sdf.qid.cast("string")), propensity=prop
        )
    with pytest.raises(ValueError, match="lacks column"):
        counterfactual_evaluate_spark(log_sdf, scored_sdf.drop("score"), propensity=prop)
    # a logged row without a score: the task's error, raised again on the driver
    missing = scored_sdf.where(scored_sdf.row != int(log["row"].iloc[0]) * 7 + 3)
    with pytest.raises(ValueError, match="scored lacks"):
        counterfactual_evaluate_spark(log_sdf, missing, propensity=prop)
    mixed = log_sdf.withColumn("session", log_sdf.session * 0)
    with pytest.raises(ValueError, match="two queries"):
        counterfactual_evaluate_spark(mixed, scored_sdf, propensity=prop)
