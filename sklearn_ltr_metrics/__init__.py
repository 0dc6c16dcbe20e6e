"""Group-aware learning-to-rank metrics, scorers and evaluation for scikit-learn.

Only the evaluation core (``evaluate`` and what it needs) is imported with the package. Every
other public name is imported on first access (PEP 562), so ``import sklearn_ltr_metrics``
does not pull in ``sklearn.model_selection``, ``scipy.stats`` or the plotting code.
"""

import importlib

from ._evaluate import CONVENTIONS, RankingEvaluation, evaluate
from ._evaluate_run import evaluate_run
from ._metrics import metric_names

__version__ = "0.1.0"

# Public name -> private module defining it, imported when the name is first used.
_LAZY = {
    "DifficultyCorrelation": "_aggregate",
    "Summary": "_aggregate",
    "coefficient_of_variation": "_aggregate",
    "difficulty_correlation": "_aggregate",
    "summarize": "_aggregate",
    "compare_systems": "_compare",
    "evaluate_dask": "_dask",
    "BM25_FEATURE": "_datasets",
    "make_ranking_data": "_datasets",
    "DataFormatError": "_io",
    "read_query_stats": "_io",
    "read_table": "_io",
    "write_query_stats": "_io",
    "write_table": "_io",
    "LambdaMARTRanker": "_lambdamart",
    "read_letor": "_letor",
    "write_letor": "_letor",
    "RankingGridSearchCV": "_model_selection",
    "RankingRandomizedSearchCV": "_model_selection",
    "cross_validate_ranking": "_model_selection",
    "plot_difficulty": "_plotting",
    "plot_heatmap": "_plotting",
    "plot_precision_at_k": "_plotting",
    "plot_precision_recall": "_plotting",
    "plot_recall_at_k": "_plotting",
    "FeatureRanker": "_rankers",
    "OracleRanker": "_rankers",
    "RandomRanker": "_rankers",
    "RankingReport": "_report",
    "make_report": "_report",
    "RankingScorer": "_scorer",
    "make_ranking_scorer": "_scorer",
    "PairedTestResult": "_stats",
    "adjust_pvalues": "_stats",
    "bootstrap_ci": "_stats",
    "cohens_d": "_stats",
    "effect_size_label": "_stats",
    "paired_test": "_stats",
    "paired_test_names": "_stats",
    "read_trec_qrels": "_trec",
    "read_trec_run": "_trec",
    "write_trec_qrels": "_trec",
    "write_trec_run": "_trec",
}


def __getattr__(name):
    """Import the module defining public ``name`` on first access and cache the value."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "BM25_FEATURE",
    "CONVENTIONS",
    "DataFormatError",
    "DifficultyCorrelation",
    "FeatureRanker",
    "LambdaMARTRanker",
    "OracleRanker",
    "PairedTestResult",
    "RandomRanker",
    "RankingEvaluation",
    "RankingGridSearchCV",
    "RankingRandomizedSearchCV",
    "RankingReport",
    "RankingScorer",
    "Summary",
    "adjust_pvalues",
    "bootstrap_ci",
    "coefficient_of_variation",
    "cohens_d",
    "compare_systems",
    "cross_validate_ranking",
    "difficulty_correlation",
    "effect_size_label",
    "evaluate",
    "evaluate_dask",
    "evaluate_run",
    "make_ranking_data",
    "make_ranking_scorer",
    "make_report",
    "metric_names",
    "paired_test",
    "paired_test_names",
    "plot_difficulty",
    "plot_heatmap",
    "plot_precision_at_k",
    "plot_precision_recall",
    "plot_recall_at_k",
    "read_letor",
    "read_query_stats",
    "read_table",
    "read_trec_qrels",
    "read_trec_run",
    "summarize",
    "write_letor",
    "write_query_stats",
    "write_table",
    "write_trec_qrels",
    "write_trec_run",
]
