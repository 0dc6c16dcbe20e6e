"""The stage table follows a branching pipeline: each stage against the stages it was built from."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics.stats import paired_test, stage_table


def _stages():
    rng = np.random.default_rng(0)
    qid = pd.Index(range(30), name="qid")
    bm25 = rng.uniform(0.1, 0.6, 30)
    dense = np.clip(bm25 + rng.normal(0.05, 0.1, 30), 0, 1)
    hybrid = np.clip(np.maximum(bm25, dense) + 0.02, 0, 1)
    rerank = np.clip(hybrid + rng.normal(0.03, 0.05, 30), 0, 1)
    values = {"bm25": bm25, "dense": dense, "hybrid": hybrid, "rerank": rerank}
    return {name: pd.DataFrame({"ndcg@10": v}, index=qid) for name, v in values.items()}


def test_each_stage_is_tested_against_its_inputs():
    stages = _stages()
    inputs = {"hybrid": ["bm25", "dense"], "rerank": "hybrid"}
    table = stage_table(stages, metrics=["ndcg@10"], test="t", inputs=inputs)
    pairs = list(zip(table["stage"], table["previous"], strict=True))
    assert pairs == [("bm25", ""), ("dense", ""), ("hybrid", "bm25"), ("hybrid", "dense"),
                     ("rerank", "hybrid")]  # fmt: skip
    for row in table.iloc[2:].itertuples():
        a, b = stages[row.stage]["ndcg@10"], stages[row.previous]["ndcg@10"]
        assert row.diff == pytest.approx((a - b).mean())
        assert row.pvalue == pytest.approx(paired_test(a, b, test="t").pvalue)
        assert (row.wins, row.losses) == (int((a > b).sum()), int((a < b).sum()))
    # a source is never compared, even when it follows another source
    assert np.isnan(table.loc[table["stage"] == "dense", "pvalue"]).all()


def test_a_chain_is_the_default_and_equals_the_same_inputs():
    stages = _stages()
    chain = stage_table(stages, metrics=["ndcg@10"], random_state=0)
    explicit = stage_table(
        stages,
        metrics=["ndcg@10"],
        random_state=0,
        inputs={"dense": "bm25", "hybrid": "dense", "rerank": "hybrid"},
    )
    pd.testing.assert_frame_equal(chain, explicit)


@pytest.mark.parametrize(
    ("inputs", "error", "match"),
    [
        ({"hybrid": ["rerank"]}, ValueError, "must be a stage listed before 'hybrid'"),
        ({"hybrid": ["sparse"]}, ValueError, "names 'sparse'"),
        ({"fusion": "bm25"}, ValueError, "not one of"),
        ({"hybrid": []}, TypeError, "non-empty list"),
        (["hybrid"], TypeError, "inputs must be a mapping"),
    ],
)
def test_bad_inputs_are_refused(inputs, error, match):
    with pytest.raises(error, match=match):
        stage_table(_stages(), metrics=["ndcg@10"], inputs=inputs)
