"""Group-aware learning-to-rank metrics, scorers and evaluation for scikit-learn."""

from ._aggregate import (
    DifficultyCorrelation,
    Summary,
    coefficient_of_variation,
    difficulty_correlation,
    summarize,
)
from ._compare import compare_systems
from ._dask import evaluate_dask
from ._datasets import BM25_FEATURE, make_ranking_data
from ._evaluate import CONVENTIONS, RankingEvaluation, evaluate, evaluate_run
from ._io import (
    DataFormatError,
    read_query_stats,
    read_table,
    write_query_stats,
    write_table,
)
from ._lambdamart import LambdaMARTRanker
from ._letor import read_letor, write_letor
from ._metrics import metric_names
from ._model_selection import (
    RankingGridSearchCV,
    RankingRandomizedSearchCV,
    cross_validate_ranking,
)
from ._plotting import (
    plot_difficulty,
    plot_heatmap,
    plot_precision_at_k,
    plot_precision_recall,
    plot_recall_at_k,
)
from ._rankers import FeatureRanker, OracleRanker, RandomRanker
from ._report import RankingReport, make_report
from ._scorer import RankingScorer, make_ranking_scorer
from ._stats import (
    PairedTestResult,
    adjust_pvalues,
    bootstrap_ci,
    cohens_d,
    effect_size_label,
    paired_test,
    paired_test_names,
)
from ._trec import read_trec_qrels, read_trec_run, write_trec_qrels, write_trec_run

__version__ = "0.1.0"

__all__ = [
    "BM25_FEATURE",
    "CONVENTIONS",
    "DataFormatError",
    "DifficultyCorrelation",
    "FeatureRanker",
    "LambdaMARTRanker",
    "OracleRanker",
    "PairedTestResult",
    "RandomRanker",
    "RankingEvaluation",
    "RankingGridSearchCV",
    "RankingRandomizedSearchCV",
    "RankingReport",
    "RankingScorer",
    "Summary",
    "adjust_pvalues",
    "bootstrap_ci",
    "coefficient_of_variation",
    "cohens_d",
    "compare_systems",
    "cross_validate_ranking",
    "difficulty_correlation",
    "effect_size_label",
    "evaluate",
    "evaluate_dask",
    "evaluate_run",
    "make_ranking_data",
    "make_ranking_scorer",
    "make_report",
    "metric_names",
    "paired_test",
    "paired_test_names",
    "plot_difficulty",
    "plot_heatmap",
    "plot_precision_at_k",
    "plot_precision_recall",
    "plot_recall_at_k",
    "read_letor",
    "read_query_stats",
    "read_table",
    "read_trec_qrels",
    "read_trec_run",
    "summarize",
    "write_letor",
    "write_query_stats",
    "write_table",
    "write_trec_qrels",
    "write_trec_run",
]
