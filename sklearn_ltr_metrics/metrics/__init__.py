"""Group-aware ranking metrics: the engine, its registry, TREC evaluation, scorers and Dask.

Every metric is computed per query from flat, row-aligned arrays ``(y_true, y_score, qid)``
and returned in one per-query table (:class:`RankingEvaluation`).
"""

from .._lazy import attach
from ._evaluate import CONVENTIONS, RankingEvaluation, evaluate
from ._evaluate_run import evaluate_run
from ._metrics import metric_names

__getattr__, __dir__ = attach(
    __name__,
    {
        "RankingScorer": "._scorer",
        "make_ranking_scorer": "._scorer",
        "evaluate_dask": "._dask",
        "precision_recall_curves": "._pr_curves",
    },
)

__all__ = [
    "CONVENTIONS",
    "RankingEvaluation",
    "RankingScorer",
    "evaluate",
    "evaluate_dask",
    "evaluate_run",
    "make_ranking_scorer",
    "metric_names",
    "precision_recall_curves",
]
