"""cross_validate_ranking output alone feeds the report: per_query and per_cutoff of every
ranker, the oracle included (issue 14, item 4)."""

from __future__ import annotations

import numpy as np
import pytest

from sklearn_ltr_metrics.datasets import make_ranking_data
from sklearn_ltr_metrics.model_selection import cross_validate_ranking
from sklearn_ltr_metrics.rankers import FeatureRanker, LambdaMARTRanker, OracleRanker

pytest.importorskip(
    "matplotlib",
    reason="matplotlib is missing: the 'plot' extra has it (pip install -e '.[plot]')",
)


def test_report_from_cross_validation_tables():
    from sklearn_ltr_metrics.report import make_report

    X, y, qid = make_ranking_data(12, n_pos_range=(3, 15), n_neg_range=(20, 40), random_state=0)
    scoring = ["capped_recall@adaptive", "ndcg@10"]
    results = {
        name: cross_validate_ranking(model, X, y, qid=qid, scoring=scoring, cv=3)
        for name, model in {
            "Oracle": OracleRanker(),
            "BM25": FeatureRanker(0),
            "LambdaMART": LambdaMARTRanker(n_estimators=5, min_child_samples=5, random_state=0),
        }.items()
    }
    for result in results.values():
        cut = result["per_cutoff"]
        assert list(cut.columns) == ["fold", "qid", "metric", "k", "value"]
        # every query of every fold, each with the adaptive cut-offs of its n_pos
        assert cut["qid"].nunique() == 12
    oracle = results["Oracle"]["per_cutoff"]
    assert (oracle.loc[oracle["metric"] == "capped_recall@adaptive", "value"] == 1.0).all()
    report = make_report(
        {"BM25": results["BM25"], "Oracle": results["Oracle"], "LambdaMART": results["LambdaMART"]},
        n_resamples=50,
        n_permutations=50,
        random_state=0,
    )
    overall = report.overall.set_index(["system", "metric"])["macro"]
    assert overall["Oracle", "capped_recall@adaptive"] == 1.0
    for name, result in results.items():
        assert overall[name, "ndcg@10"] == pytest.approx(result["per_query"]["ndcg@10"].mean())
    curves = report.curves
    oracle_curve = curves[
        (curves["system"] == "Oracle") & (curves["spec"] == "capped_recall@adaptive")
    ]
    assert len(oracle_curve) > 0
    np.testing.assert_allclose(oracle_curve["mean"], 1.0)
