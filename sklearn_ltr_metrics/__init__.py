"""Group-aware learning-to-rank metrics, scorers and evaluation for scikit-learn."""

from ._evaluate import CONVENTIONS, RankingEvaluation, evaluate, evaluate_run
from ._metrics import metric_names
from ._rankers import FeatureRanker, LambdaMARTRanker, OracleRanker, RandomRanker

__version__ = "0.1.0"

__all__ = [
    "CONVENTIONS",
    "FeatureRanker",
    "LambdaMARTRanker",
    "OracleRanker",
    "RandomRanker",
    "RankingEvaluation",
    "evaluate",
    "evaluate_run",
    "metric_names",
]
