"""What every plot shares: lazy matplotlib, figures or the caller's Axes, colours, plain text.

The plotting family draws tables that were computed elsewhere (``stats``, ``metrics``); it
imports only the package's shared leaves, never ``stats`` or ``report``.
"""

from __future__ import annotations

import numpy as np

from .._doc_link import doc_parts

__all__ = ["COLORS", "PLOT_EXTRA_HINT", "panels", "plain_text", "plot_doc"]

#: What a missing matplotlib says, everywhere (plots, the report, the command line).
PLOT_EXTRA_HINT = "install the 'plot' extra: pip install sklearn-ltr-metrics[plot]"

#: Colours of the strata (low, medium, high, ...) and of the systems (tab10).
COLORS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)


def _figure(n_panels, *, panel_size=(4.6, 3.6), max_cols=3, sharey=True):
    """A Figure with ``n_panels`` axes on a grid (matplotlib imported here, lazily)."""
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError(f"Plotting needs matplotlib; {PLOT_EXTRA_HINT}") from exc
    n_cols = 2 if n_panels == 4 and max_cols >= 2 else min(n_panels, max_cols)
    n_rows = -(-n_panels // n_cols)
    fig = Figure(
        figsize=(panel_size[0] * n_cols, panel_size[1] * n_rows + 0.4), layout="constrained"
    )
    axes = fig.subplots(n_rows, n_cols, sharey=sharey, squeeze=False).ravel()
    for extra in axes[n_panels:]:
        fig.delaxes(extra)
    return fig, list(axes[:n_panels])


def panels(n_panels, ax, **figure_options):
    """``(figure, axes, own)``: the caller's Axes when ``ax`` is given, else a new Figure.

    ``ax`` is one matplotlib Axes or a sequence of them, one per panel (scikit-learn's
    Display convention); ``own`` says whether the figure was made here (then the plot may
    give it a title).
    """
    if ax is None:
        fig, axes = _figure(n_panels, **figure_options)
        return fig, axes, True
    axes = list(np.ravel(np.asarray(ax, dtype=object))) if not hasattr(ax, "plot") else [ax]
    for one in axes:
        if not hasattr(one, "plot") or not hasattr(one, "figure"):
            raise TypeError(
                f"ax must be a matplotlib Axes or a sequence of them, got {type(one).__name__}."
            )
    if len(axes) != n_panels:
        raise ValueError(
            f"ax has {len(axes)} Axes but the plot draws {n_panels} panel(s) (one per system); "
            "pass that many Axes, or ax=None for a new figure."
        )
    return axes[0].figure, axes, False


def plain_text(*texts):
    """Turn mathtext off for user-supplied labels (a ``$`` in a qid stays a ``$``)."""
    for text in texts:
        text.set_parse_math(False)


def check_table(table, name, columns, hint):
    """Raise a TypeError/ValueError unless ``table`` is a DataFrame with ``columns``."""
    import pandas as pd

    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"{name} must be a DataFrame ({hint}), got {type(table).__name__}.")
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(
            f"{name} lacks the column(s) {missing!r} ({hint}); got {list(table.columns)!r}."
        )


#: The docstring lines every plot shares, written once: a line ``{name}`` in a plot's docstring
#: stands for ``_DOC_PARTS[name]``, indented as that line (:func:`plot_doc`).
_DOC_PARTS = {
    "curves": (
        "curves : DataFrame\n    The table of :func:`sklearn_ltr_metrics.stats.cutoff_curves` "
        "(a report's ``curves``)."
    ),
    "ax": "ax : matplotlib Axes, optional\n    Where to draw; default a new figure.",
    "axes": (
        "ax : matplotlib Axes or sequence of Axes, optional\n"
        "    Where to draw, one Axes per system; default a new figure."
    ),
    "one_ax": (
        "ax : matplotlib.axes.Axes, optional\n"
        "    Draw into this Axes (one system only); default a new figure."
    ),
    "title": "title : str, optional\n    Figure title; default says what is drawn.",
    "returns": "Returns\n-------\nmatplotlib.figure.Figure\n    The figure drawn.",
    "cutoff_example": """\
Examples
--------
>>> from sklearn_ltr_metrics import evaluate
>>> from sklearn_ltr_metrics.stats import cutoff_curves
>>> ev = evaluate([1, 0, 1, 0, 1, 1, 0, 0], [4, 3, 2, 1, 4, 3, 2, 1],
...               qid=[1, 1, 1, 1, 2, 2, 2, 2], metrics=["ndcg", "capped_recall", "precision"],
...               k=[1, 2, 4])""",
}


#: Fill the shared lines (``{ax}``, ``{axes}``, ``{one_ax}``, ``{curves}``, ``{title}``,
#: ``{returns}``) of a plot's docstring, so that every plot documents its common parameters in
#: the same words; ``{cutoff_example}``: the Examples section's start of the cut-off plots, the
#: evaluation they draw.
plot_doc = doc_parts(_DOC_PARTS)
