"""Query-safe model selection: splitters, cross-validation, searches and learning curves over
queries."""

from ._cross_validate import cross_validate_ranking
from ._halving import RankingHalvingGridSearchCV
from ._learning_curve import learning_curve_ranking
from ._search import RankingGridSearchCV, RankingRandomizedSearchCV
from ._split import QueryKFold, StratifiedQueryKFold

__all__ = [
    "QueryKFold",
    "RankingGridSearchCV",
    "RankingHalvingGridSearchCV",
    "RankingRandomizedSearchCV",
    "StratifiedQueryKFold",
    "cross_validate_ranking",
    "learning_curve_ranking",
]
