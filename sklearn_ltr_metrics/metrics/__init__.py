"""Group-aware ranking metrics: the engine, its registry, TREC evaluation, scorers and Dask.

Every metric is computed per query from flat, row-aligned arrays ``(y_true, y_score, qid)``
and returned in one per-query table (:class:`RankingEvaluation`).
"""

from .._lazy import attach
from ._evaluate import evaluate
from ._evaluate_run import evaluate_run
from ._evaluation import RankingEvaluation
from ._options import CONVENTIONS, convention_options
from ._registry import describe_metric, metric_names

__getattr__, __dir__ = attach(
    __name__,
    {
        "RankingScorer": "._scorer",
        "make_ranking_scorer": "._scorer",
        "evaluate_dask": "._dask",
        "precision_recall_curves": "._pr_curves",
        "rank_agreement": "._agreement",
    },
)

__all__ = [
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
]
