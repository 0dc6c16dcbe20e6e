"""Rankers with a ``qid``-aware scikit-learn interface: LambdaMART, baselines, and
``QueryAwareRanker`` for third-party rankers (LightGBM, XGBoost, CatBoost)."""

from ._base import FeatureRanker, OracleRanker, RandomRanker
from ._lambdamart import LambdaMARTRanker
from ._query_aware import QueryAwareRanker

__all__ = ["FeatureRanker", "LambdaMARTRanker", "OracleRanker", "QueryAwareRanker", "RandomRanker"]
