"""Done-when of issue 14: the methodology's tables and Recall@K curves from cross-validation.

The primary table, the strata table and the Recall@K-vs-K curves are reproduced from the
output of ``cross_validate_ranking`` alone (its per-query and per-cut-off tables), with the
Oracle at 1.0 on Recall@K (``capped_recall``, hits / min(K, n_pos)).
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import GroupKFold

from sklearn_ltr_metrics.datasets import BM25_FEATURE, make_ranking_data
from sklearn_ltr_metrics.model_selection import cross_validate_ranking
from sklearn_ltr_metrics.rankers import FeatureRanker, OracleRanker
from sklearn_ltr_metrics.report import make_report

METRICS = ["capped_recall@adaptive", "precision@adaptive", "recall@adaptive", "ndcg@10"]
STRATA = {"low": (1, 10), "medium": (11, 50), "high": (51, np.inf)}


def _cross_validate(ranker, X, y, qid, folds):
    # Only what cross_validate_ranking returns: per_query and per_cutoff, oracle included.
    return cross_validate_ranking(ranker, X, y, qid=qid, scoring=METRICS, cv=folds)


@pytest.fixture(scope="module")
def results():
    X, y, qid = make_ranking_data(45, random_state=0)
    folds = list(GroupKFold(n_splits=3).split(X, y, groups=qid))
    return {
        "BM25": _cross_validate(FeatureRanker(BM25_FEATURE), X, y, qid, folds),
        "Oracle": _cross_validate(OracleRanker(), X, y, qid, folds),
    }


@pytest.fixture(scope="module")
def report(results):
    return make_report(results, n_resamples=200, n_permutations=200, random_state=0)


def test_primary_table_from_cross_validation(results, report):
    assert report.systems == ("BM25", "Oracle") and report.settings["headline"] == METRICS[0]
    for system, result in results.items():
        table = result["per_query"]
        rows = report.overall[report.overall["system"] == system].set_index("metric")
        for metric in METRICS:
            x = table[metric].to_numpy(dtype=float)
            row = rows.loc[metric]
            assert row["n_queries"] == 45
            assert row["macro"] == pytest.approx(x.mean())
            assert row["weighted"] == pytest.approx(np.average(x, weights=table["n_pos"]))
            assert row["geometric"] == pytest.approx(np.exp(np.log(np.maximum(x, 1e-5)).mean()))
            assert row["cv"] == pytest.approx(x.std(ddof=1) / x.mean()) or x.std() == 0
            assert row["ci_low"] <= row["macro"] <= row["ci_high"]
    oracle = report.overall[report.overall["system"] == "Oracle"].set_index("metric")
    headline = oracle.loc["capped_recall@adaptive"]
    assert (headline["macro"], headline["ci_low"], headline["ci_high"]) == (1.0, 1.0, 1.0)
    assert oracle.loc["recall@adaptive", "macro"] < 1.0  # hits / n_pos: not the headline


def test_strata_table_from_cross_validation(results, report):
    for system, result in results.items():
        table = result["per_query"]
        strata = report.strata[report.strata["system"] == system]
        for label, (low, high) in STRATA.items():
            inside = table[(table["n_pos"] >= low) & (table["n_pos"] <= high)]
            for metric in METRICS:
                row = strata[(strata["stratum"] == label) & (strata["metric"] == metric)].iloc[0]
                assert row["n_queries"] == len(inside)
                if len(inside):
                    assert row["mean"] == pytest.approx(inside[metric].mean())
    assert set(report.stratum_sizes["n_queries"]) != {0}


def test_recall_at_k_curves_from_cross_validation(results, report):
    curves = report.curves[report.curves["metric"] == "capped_recall"]
    assert report.settings["recall_metric"] == "capped_recall"
    oracle = curves[curves["system"] == "Oracle"]
    assert len(oracle) > 5 and (oracle["mean"] == 1.0).all()  # 1.0 at every K and stratum
    result = results["BM25"]
    cut = result["per_cutoff"]
    cut = cut[cut["metric"] == "capped_recall@adaptive"]
    n_pos = result["per_query"].set_index(["fold", "qid"])["n_pos"]
    cut = cut.assign(n_pos=n_pos.reindex(pd.MultiIndex.from_frame(cut[["fold", "qid"]])).values)
    bm25 = curves[curves["system"] == "BM25"]
    for label, (low, high) in STRATA.items():
        inside = cut[(cut["n_pos"] >= low) & (cut["n_pos"] <= high)]
        for row in bm25[bm25["stratum"] == label].itertuples():
            assert row.mean == pytest.approx(inside[inside["k"] == row.k]["value"].mean())
    # Every (query, K) of the per-cut-off table is in per_cutoff.csv and in the plots.
    pytest.importorskip(
        "matplotlib",
        reason="matplotlib is missing: the 'plot' extra has it (pip install -e '.[plot]')",
    )
    fig = report.plot_recall_at_k()
    assert fig.axes[0].get_ylabel() == "mean capped_recall@K"
    for line in fig.axes[1].get_lines():  # the Oracle's panel
        assert set(line.get_ydata()) == {1.0}


def test_the_report_writes_every_file_and_no_false_alarm(tmp_path, results, report):
    pytest.importorskip(
        "matplotlib",
        reason="matplotlib is missing: the 'plot' extra has it (pip install -e '.[plot]')",
    )
    target = report.write(tmp_path / "rep")
    plots = sorted(p.name for p in (target / "plots").iterdir())
    assert len(plots) == 5 and report.omissions == ()
    per_cutoff = pd.read_csv(target / "per_cutoff.csv")
    assert {"system", "fold", "qid", "metric", "k", "value"} <= set(per_cutoff.columns)
    assert len(per_cutoff) == sum(len(r["per_cutoff"]) for r in results.values())
    per_query = pd.read_csv(target / "per_query.csv")
    assert "difficulty" in per_query.columns
    np.testing.assert_allclose(per_query["difficulty"], per_query["n_neg"] / per_query["n_pos"])
    # The Oracle is an upper bound: no "drops on hard queries" sign for it.
    oracle_signs = report.warnings[report.warnings["system"] == "Oracle"]
    assert "difficulty_bias" not in oracle_signs["kind"].tolist()
    assert report.settings["upper_bounds"] == ["Oracle"]
    text = report.to_text()
    for needle in ("Data characteristics", "Struggling query ranges", "gMAP", "alpha=0.05"):
        assert needle in text
