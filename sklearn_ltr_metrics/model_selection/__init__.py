"""Query-safe model selection: splitters, cross-validation and searches over queries."""

from ._cross_validate import cross_validate_ranking
from ._search import RankingGridSearchCV, RankingRandomizedSearchCV
from ._split import QueryKFold, StratifiedQueryKFold

__all__ = [
    "QueryKFold",
    "RankingGridSearchCV",
    "RankingRandomizedSearchCV",
    "StratifiedQueryKFold",
    "cross_validate_ranking",
]
