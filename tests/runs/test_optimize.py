"""``optimize_fusion``: the cross-validated value is that of settings chosen without the query."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics.metrics import evaluate_run
from sklearn_ltr_metrics.model_selection import QueryKFold
from sklearn_ltr_metrics.runs import fuse, optimize_fusion


def data(seed=0, n_queries=12, n_docs=15):
    rng = np.random.default_rng(seed)
    qid = np.repeat([f"q{i:02d}" for i in range(n_queries)], n_docs)
    doc = np.tile([f"d{i}" for i in range(n_docs)], n_queries)
    label = rng.integers(0, 3, qid.size)
    qrels = pd.DataFrame({"qid": qid, "doc_id": doc, "label": label})
    runs = {
        name: pd.DataFrame(
            {"qid": qid, "doc_id": doc, "score": label * w + rng.normal(size=qid.size)}
        )
        for name, w in (("bm25", 0.6), ("dense", 0.4), ("noise", 0.0))
    }
    return runs, qrels


def test_cross_validated_value_equals_a_refit_on_each_fold():
    runs, qrels = data()
    grid = {"weights": [(1, 0, 0), (0, 1, 0), (0.5, 0.5, 0), (0.2, 0.2, 0.6)]}
    settings = [{"weights": w} for w in grid["weights"]]
    result = optimize_fusion(runs, qrels, method="wsum", metric="ndcg@5", cv=3, grid=grid)
    queries = np.array(sorted(qrels["qid"].unique()))
    per_query = {}
    # Independently: fuse only each fold's training queries to choose, then its test queries.
    for train, test in QueryKFold(3).split(np.zeros((queries.size, 1)), qid=queries):

        def mean_on(subset, params):
            part = {n: r[r["qid"].isin(subset)] for n, r in runs.items()}
            fused = fuse(part, "wsum", **params)
            return evaluate_run(fused, qrels[qrels["qid"].isin(subset)], metrics=["ndcg@5"])

        scores = [mean_on(queries[train], p).mean()["ndcg@5"] for p in settings]
        chosen = settings[int(np.argmax(scores))]
        per_query.update(mean_on(queries[test], chosen).per_query["ndcg@5"].to_dict())
    expected = np.mean(list(per_query.values()))
    assert result.cross_validated == pytest.approx(expected, abs=1e-12)
    full = [
        evaluate_run(fuse(runs, "wsum", **p), qrels, metrics=["ndcg@5"]).mean().iloc[0]
        for p in settings
    ]
    assert result.in_sample == pytest.approx(max(full), abs=1e-12)
    assert result.best_params == settings[int(np.argmax(full))]
    assert result.cross_validated <= result.in_sample
    assert len(result.folds) == 3 and set(result.folds.columns) >= {"params", "train", "test"}


def test_default_grids_and_refusals():
    runs, qrels = data(1, n_queries=6)
    result = optimize_fusion(runs, qrels, method="rrf", metric="map", cv=2)
    assert len(result.settings) == 12 and "k" in result.best_params
    with pytest.raises(ValueError, match="no parameter to optimise"):
        optimize_fusion(runs, qrels, method="sum")
    with pytest.raises(TypeError, match="grid must be"):
        optimize_fusion(runs, qrels, method="rrf", grid="k")
