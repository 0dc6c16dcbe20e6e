"""Query-safe model selection: splitters, cross-validation, searches and learning curves over
queries."""

from .._lazy import attach

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._cross_validate": ("cross_validate_ranking",),
        "._halving": ("RankingHalvingGridSearchCV",),
        "._learning_curve": ("learning_curve_ranking",),
        "._search": ("RankingGridSearchCV", "RankingRandomizedSearchCV"),
        "._select": ("RankingRFECV", "RankingSequentialFeatureSelector"),
        "._skops": ("skops_trusted_types",),
        "._split": ("QueryKFold", "QueryLeakageWarning", "StratifiedQueryKFold"),
    },
)
