"""Group-aware ranking metrics: the engine, its registry, TREC evaluation, scorers and Dask.

Every metric is computed per query from flat, row-aligned arrays ``(y_true, y_score, qid)``
and returned in one per-query table (:class:`RankingEvaluation`).
"""

from .._lazy import attach

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._agreement": ("rank_agreement",),
        "._distributed._dask": ("evaluate_dask",),
        "._evaluate": ("evaluate",),
        "._evaluate_run": ("evaluate_run",),
        "._evaluation": ("RankingEvaluation",),
        "._options": ("CONVENTIONS", "convention_options"),
        "._pr_curves": ("precision_recall_curves",),
        "._reconcile._reconcile": ("Reconciliation", "reconcile", "reconcile_run"),
        "._pr_points": ("precision_recall_points",),
        "._registry": ("describe_metric", "get_metric", "metric_names"),
        "._scorer": (
            "EstimatorMissingQueryIdsError",
            "MissingQueryIdsError",
            "RankingScorer",
            "make_ranking_scorer",
        ),
        "._reconcile._which": ("which_convention",),
    },
)
