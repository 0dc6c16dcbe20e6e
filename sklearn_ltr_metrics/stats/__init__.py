"""Statistics over queries: bootstrap intervals, paired tests, effect sizes, summaries."""

from ._compare import compare_systems
from ._curves import cutoff_curves
from ._stats import (
    PairedTestResult,
    adjust_pvalues,
    bootstrap_ci,
    cohens_d,
    correction_names,
    effect_size_label,
    paired_test,
    paired_test_names,
)
from ._summary import (
    DifficultyCorrelation,
    Summary,
    coefficient_of_variation,
    difficulty_correlation,
    summarize,
)

__all__ = [
    "DifficultyCorrelation",
    "PairedTestResult",
    "Summary",
    "adjust_pvalues",
    "bootstrap_ci",
    "coefficient_of_variation",
    "cohens_d",
    "compare_systems",
    "correction_names",
    "cutoff_curves",
    "difficulty_correlation",
    "effect_size_label",
    "paired_test",
    "paired_test_names",
    "summarize",
]
