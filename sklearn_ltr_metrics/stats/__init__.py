"""Statistics over queries: bootstrap intervals, paired tests, effect sizes, summaries.

Randomness follows the package's one policy: every ``random_state`` accepts ``None``, a
non-negative int, a :class:`numpy.random.Generator` or a :class:`numpy.random.RandomState`.
"""

from .._lazy import attach

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._ceiling": ("ceiling_check",),
        "._compare": ("compare_systems",),
        "._compare_all": ("PairwiseComparison", "compare_all", "pairwise_test_names"),
        "._curves": ("cutoff_curves",),
        "._difficulty": (
            "DifficultyCorrelation",
            "data_characteristics",
            "difficulty_correlation",
            "difficulty_ranges",
            "format_imbalance",
        ),
        "._gate": ("GateResult", "regression_gate"),
        "._planning": ("detectable_difference", "paired_power", "required_queries"),
        "._effects": ("adjust_pvalues", "cohens_d", "correction_names", "effect_size_label"),
        "._stages": ("stage_table",),
        "._stats": ("PairedTestResult", "bootstrap_ci", "paired_test", "paired_test_names"),
        "._summary": ("Summary", "coefficient_of_variation", "summarize"),
    },
)
