"""Rankers with a ``qid``-aware scikit-learn interface: LambdaMART and baselines."""

from ._base import FeatureRanker, OracleRanker, RandomRanker
from ._lambdamart import LambdaMARTRanker

__all__ = ["FeatureRanker", "LambdaMARTRanker", "OracleRanker", "RandomRanker"]
