"""
Cross-validate LambdaMART against baselines and write the report
================================================================

Each ranker is cross-validated with
:func:`~sklearn_ltr_metrics.model_selection.cross_validate_ranking` (group folds over the query
ids, so a query is never on both sides of a split), which returns scikit-learn's result plus a
per-query table. :func:`~sklearn_ltr_metrics.report.make_report` turns the tables into the
methodology's report: means with bootstrap intervals over queries, strata by the number of
relevant documents, correlations with difficulty, warning signs, and paired tests against the
BM25 baseline with effect sizes.

The headline metric is ``capped_recall@adaptive``, the methodology's Recall@K: hits in the top
K divided by ``min(K, n_pos)``, averaged over the query's adaptive cut-offs (see
:doc:`/methodology`).

Run it (about 30 seconds): ``python examples/cross_validation_report.py [OUTPUT_DIR]``
(without a directory the report goes to a temporary one; an existing report is replaced).
"""

# %%
# Cross-validate three rankers
# ----------------------------
import sys
import tempfile
from pathlib import Path

from sklearn_ltr_metrics.datasets import BM25_FEATURE, make_ranking_data
from sklearn_ltr_metrics.model_selection import cross_validate_ranking
from sklearn_ltr_metrics.rankers import (
    FeatureRanker,
    LambdaMARTRanker,
    OracleRanker,
    RandomRanker,
)
from sklearn_ltr_metrics.report import make_report

X, y, qid = make_ranking_data(60, random_state=0)  # 60 queries in the methodology's shape
metrics = ["capped_recall@adaptive", "ndcg@10", "recall@adaptive", "map", "mrr"]

rankers = {
    "BM25": FeatureRanker(BM25_FEATURE),
    "Random": RandomRanker(random_state=0),
    "LambdaMART": LambdaMARTRanker(n_estimators=50, random_state=0),
    "Oracle": OracleRanker(),  # ranks by the labels: the ceiling, 1.0 on Recall@K
}
results = {}
for name, ranker in rankers.items():
    results[name] = cross_validate_ranking(ranker, X, y, qid=qid, scoring=metrics, cv=5)
    print(f"{name:>10}: ndcg@10 per fold {results[name]['test_ndcg@10'].round(3)}")

# One row per (fold, test query), and one per (fold, test query, metric, cut-off):
results["LambdaMART"]["per_query"].head()

# %%
# The report: one computation, several renderings
# -----------------------------------------------
report = make_report(
    results,  # the cross-validation results themselves: per-query and per-cut-off tables
    baseline="BM25",
    upper_bounds="Oracle",  # no "drops on hard queries" warning for the ceiling
    random_state=0,
    title="LambdaMART against baselines (5-fold group CV)",
)
print(report.to_text())

# %%
# The primary table as a DataFrame
# --------------------------------
report.overall.round(4)

# %%
# Recall@K against K, per stratum
# -------------------------------
# The methodology's Recall@K (``capped_recall``) at every cut-off of the queries, averaged
# per stratum of ``n_pos``: the Oracle stays at 1, the other rankers show where they lose
# relevant documents.
fig = report.plot_recall_at_k()

# %%
# Per-query values against difficulty
# ------------------------------------
# Difficulty is ``n_neg / n_pos``: queries with few relevant documents among many candidates
# are the hard ones. A metric that drops as difficulty grows is a warning sign.
fig = report.plot_difficulty("capped_recall@adaptive")

# %%
# Every query, every metric
# -------------------------
fig = report.plot_heatmap()

# %%
# Write the report directory
# --------------------------
# ``per_query.csv``, ``per_cutoff.csv``, ``summary.md``, ``summary.json``, a self-contained
# ``report.html`` and ``plots/*.png``, built beside the target and renamed into place (all or
# nothing).
output = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp()) / "cv_report"
written = report.write(output, force=True)
print(f"written to {written.name}/:", sorted(p.name for p in written.iterdir()))
