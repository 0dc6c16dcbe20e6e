"""Plots of per-query and per-cut-off tables (matplotlib, the ``plot`` extra)."""

from ._plots import (
    plot_difficulty,
    plot_heatmap,
    plot_precision_at_k,
    plot_precision_recall,
    plot_recall_at_k,
)

__all__ = [
    "plot_difficulty",
    "plot_heatmap",
    "plot_precision_at_k",
    "plot_precision_recall",
    "plot_recall_at_k",
]
