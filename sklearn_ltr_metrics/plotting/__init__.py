"""Plots of precomputed tables (matplotlib, the ``plot`` extra).

Every function draws a table computed elsewhere (metric@K curves from
:func:`sklearn_ltr_metrics.stats.cutoff_curves`, precision-recall curves from
:func:`sklearn_ltr_metrics.metrics.precision_recall_curves`, per-query tables), takes an
optional ``ax`` (draw into the caller's matplotlib Axes, scikit-learn's Display style, or
make a new figure) and returns the :class:`matplotlib.figure.Figure`. Figures are built
without ``pyplot`` (no global registry, no GUI backend); save them with ``fig.savefig``.
User-supplied text (system names, query ids) is drawn with mathtext off.
"""

from .._lazy import attach

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._curves": (
            "plot_metric_at_k",
            "plot_precision_at_k",
            "plot_precision_recall",
            "plot_recall_at_k",
        ),
        "._matrix": ("plot_significance_matrix",),
        "._pr_points": ("plot_query_precision_recall",),
        "._queries": ("plot_difficulty", "plot_heatmap"),
    },
)
