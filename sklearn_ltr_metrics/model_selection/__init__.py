"""Query-safe model selection: cross-validation and hyper-parameter searches over queries."""

from ._search import RankingGridSearchCV, RankingRandomizedSearchCV, cross_validate_ranking

__all__ = ["RankingGridSearchCV", "RankingRandomizedSearchCV", "cross_validate_ranking"]
