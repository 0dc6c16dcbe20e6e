"""The report's figures: its ``plot_*`` methods (public plotting functions) on its tables."""

from __future__ import annotations

import io

from ..plotting._common import PLOT_EXTRA_HINT
from ._write import PLOT_NAMES

__all__ = ["CAPTIONS", "report_figures", "report_pngs"]

#: What each figure of a report shows (its caption in report.html).
CAPTIONS = {
    "recall_at_k": (
        "Recall@K against the cut-off K (log scale), one line per stratum of queries by n_pos "
        "and a dashed line for all queries, one panel per system. Recall@K is the "
        "methodology's capped recall, hits / min(K, n_pos), so a perfect ranking is at 1.0 "
        "for every K; n is the number of queries behind each line."
    ),
    "precision_at_k": (
        "Precision@K against the cut-off K (log scale), per stratum of queries by n_pos and "
        "for all queries (dashed), one panel per system."
    ),
    "precision_recall": (
        "Precision against recall, one line per system: the interpolated precision-recall "
        "curve averaged over queries when one was given, else mean precision@K against mean "
        "recall@K over the cut-offs K (points labelled by K)."
    ),
    "difficulty": (
        "Each query's value of the headline metric against its difficulty n_neg / n_pos "
        "(log scale), one colour per system; the legend gives Spearman's rho and its p-value."
    ),
    "heatmap": (
        "Every metric of every query (rows, easiest first by n_neg / n_pos) on a 0-1 colour "
        "scale, one panel per system; grey cells are undefined values."
    ),
    "significance_matrix": (
        "Every pair of systems on the headline metric: the mean per-query difference row minus "
        "column over the queries both have (red: the row system is better), * where the "
        "corrected p-value of the paired test is below alpha."
    ),
}


def report_figures(report):
    """Plot name -> Figure, or -> the reason it was not drawn. ImportError without matplotlib."""
    try:
        from matplotlib.figure import Figure  # noqa: F401 (only: is matplotlib there?)
    except ImportError as exc:
        raise ImportError(f"Plotting needs matplotlib; {PLOT_EXTRA_HINT}") from exc
    # The matrix exists with three or more systems only; below that it is no omission.
    names = [n for n in PLOT_NAMES if n != "significance_matrix" or report.matrix is not None]
    draw = {name: getattr(report, f"plot_{name}") for name in names}
    out = {}
    for name in names:
        try:
            out[name] = draw[name]()
        except ValueError as exc:
            out[name] = str(exc)
    return out


def report_pngs(report):
    """(plot name -> PNG bytes or the reason it was not drawn, note when matplotlib is missing)."""
    try:
        figures = report_figures(report)
    except ImportError as exc:
        return {}, str(exc)
    images = {}
    for name, fig in figures.items():
        if isinstance(fig, str):
            images[name] = fig
            continue
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=100)
        images[name] = buffer.getvalue()
    return images, None
