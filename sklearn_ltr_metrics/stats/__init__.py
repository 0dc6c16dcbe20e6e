"""Statistics over queries: bootstrap intervals, paired tests, effect sizes, summaries.

Randomness follows the package's one policy: every ``random_state`` accepts ``None``, a
non-negative int, a :class:`numpy.random.Generator` or a :class:`numpy.random.RandomState`.
"""

from ._compare import compare_systems
from ._curves import cutoff_curves
from ._difficulty import (
    DifficultyCorrelation,
    data_characteristics,
    difficulty_correlation,
    difficulty_ranges,
)
from ._effects import adjust_pvalues, cohens_d, correction_names, effect_size_label
from ._stages import stage_table
from ._stats import PairedTestResult, bootstrap_ci, paired_test, paired_test_names
from ._summary import Summary, coefficient_of_variation, summarize

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
    "data_characteristics",
    "difficulty_correlation",
    "difficulty_ranges",
    "effect_size_label",
    "paired_test",
    "paired_test_names",
    "stage_table",
    "summarize",
]
