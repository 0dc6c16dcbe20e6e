"""Group-aware learning-to-rank metrics, scorers and evaluation for scikit-learn.

The public API lives in families, each a subpackage imported on first use, the way
scikit-learn organises its own:

- :mod:`sklearn_ltr_metrics.metrics`: ``evaluate``, ``evaluate_run``, the metric registry,
  scorers and Dask evaluation;
- :mod:`sklearn_ltr_metrics.model_selection`: query-safe cross-validation and searches;
- :mod:`sklearn_ltr_metrics.rankers`: LambdaMART and the baselines;
- :mod:`sklearn_ltr_metrics.stats`: bootstrap intervals, paired tests, effect sizes, summaries;
- :mod:`sklearn_ltr_metrics.report` and :mod:`sklearn_ltr_metrics.plotting`;
- :mod:`sklearn_ltr_metrics.io` (TREC, LETOR, tables) and :mod:`sklearn_ltr_metrics.datasets`.

Only the evaluation core (``evaluate`` and what it needs) is imported with the package. The
other families, and every public name the top level re-exports from them, are imported on first
access (PEP 562), so ``import sklearn_ltr_metrics`` does not pull in ``sklearn.model_selection``,
``scipy.stats`` or the plotting code.
"""

from ._lazy import attach
from .metrics import (  # noqa: F401 (re-exported through __all__)
    CONVENTIONS,
    RankingEvaluation,
    evaluate,
    evaluate_run,
    metric_names,
)

__version__ = "0.1.0"

#: The public families, and the names the top level re-exports from each (the one list).
_FAMILIES = {
    "metrics": (
        "CONVENTIONS",
        "RankingEvaluation",
        "RankingScorer",
        "convention_options",
        "describe_metric",
        "evaluate",
        "evaluate_dask",
        "evaluate_run",
        "make_ranking_scorer",
        "metric_names",
        "precision_recall_curves",
        "rank_agreement",
    ),
    "model_selection": (
        "QueryKFold",
        "RankingGridSearchCV",
        "RankingHalvingGridSearchCV",
        "RankingRandomizedSearchCV",
        "StratifiedQueryKFold",
        "cross_validate_ranking",
        "learning_curve_ranking",
    ),
    "rankers": (
        "FeatureRanker",
        "LambdaMARTRanker",
        "OracleRanker",
        "QueryAwareRanker",
        "RandomRanker",
    ),
    "stats": (
        "DifficultyCorrelation",
        "PairedTestResult",
        "Summary",
        "adjust_pvalues",
        "bootstrap_ci",
        "coefficient_of_variation",
        "cohens_d",
        "compare_systems",
        "correction_names",
        "cutoff_curves",
        "data_characteristics",
        "difficulty_correlation",
        "difficulty_ranges",
        "effect_size_label",
        "paired_test",
        "paired_test_names",
        "stage_table",
        "summarize",
    ),
    "report": ("RankingReport", "make_report"),
    "plotting": (
        "plot_difficulty",
        "plot_heatmap",
        "plot_metric_at_k",
        "plot_precision_at_k",
        "plot_precision_recall",
        "plot_recall_at_k",
    ),
    "io": (
        "DataFormatError",
        "read_letor",
        "read_query_stats",
        "read_scores",
        "read_table",
        "read_trec_qrels",
        "read_trec_run",
        "write_letor",
        "write_query_stats",
        "write_table",
        "write_trec_qrels",
        "write_trec_run",
    ),
    "datasets": ("BM25_FEATURE", "make_ranking_data"),
}

_EAGER = ("CONVENTIONS", "RankingEvaluation", "evaluate", "evaluate_run", "metric_names")

#: Public name -> family module, imported when the name is first used.
_LAZY = {
    name: f".{family}"
    for family, names in _FAMILIES.items()
    for name in names
    if name not in _EAGER
}
_LAZY.update({family: f".{family}" for family in _FAMILIES if family != "metrics"})

_getattr, __dir__ = attach(__name__, _LAZY)


def __getattr__(name):
    """Import a family, or the family defining public ``name``, on first access."""
    if name in _FAMILIES and name != "metrics":
        import importlib

        return importlib.import_module(f".{name}", __name__)
    return _getattr(name)


__all__ = sorted({name for names in _FAMILIES.values() for name in names})
