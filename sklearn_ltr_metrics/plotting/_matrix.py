"""The significance matrix of every pair of systems, as a heatmap with significance marks."""

from __future__ import annotations

import numpy as np

from ._common import check_table, panels, plain_text, plot_doc

__all__ = ["plot_significance_matrix"]

_COLUMNS = ("metric", "system_a", "system_b", "diff", "significant")


def _square(rows, systems):
    """(diff, significant) systems x systems arrays: row minus column, NaN on the diagonal."""
    index = {s: i for i, s in enumerate(systems)}
    diff = np.full((len(systems), len(systems)), np.nan)
    marks = np.zeros(diff.shape, dtype=bool)
    for a, b, d, sig in zip(
        rows["system_a"], rows["system_b"], rows["diff"], rows["significant"], strict=True
    ):
        i, j = index[a], index[b]
        diff[i, j], diff[j, i] = d, -d
        marks[i, j] = marks[j, i] = bool(sig)
    return diff, marks


@plot_doc
def plot_significance_matrix(table, *, metric=None, ax=None, title=None):
    """Every pair of systems: mean difference (row - column), ``*`` where significant.

    Parameters
    ----------
    table : DataFrame
        The tidy table of :func:`sklearn_ltr_metrics.stats.compare_all` (its ``table``):
        columns ``metric, system_a, system_b, diff, significant``.
    metric : str, optional
        Which metric; default the first in the table.
    {ax}
    {title}

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn: a diverging colour scale centred on 0 (row better in red), each
        cell labelled with the difference and ``*`` when the corrected p-value is below
        alpha.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"metric": ["map"] * 3, "system_a": ["A", "A", "B"],
    ...                       "system_b": ["B", "C", "C"], "diff": [-0.2, 0.01, 0.21],
    ...                       "significant": [True, False, True]})
    >>> fig = plot_significance_matrix(table)
    >>> len(fig.axes)  # the matrix and its colour bar
    2
    """
    hint = "the table of stats.compare_all(...)"
    check_table(table, "table", _COLUMNS, hint)
    if table.empty:
        raise ValueError(f"table is empty; pass {hint} with at least one pair.")
    metric = table["metric"].iloc[0] if metric is None else metric
    rows = table[table["metric"] == metric]
    if rows.empty:
        found = list(dict.fromkeys(table["metric"]))
        raise ValueError(f"metric {metric!r} is not in the table; it holds {found!r}.")
    systems = list(dict.fromkeys([*rows["system_a"], *rows["system_b"]]))
    diff, marks = _square(rows, systems)
    size = max(3.2, 0.75 * len(systems) + 1.8)
    fig, (one,), own = panels(1, ax, panel_size=(size + 0.8, size))
    bound = float(np.nanmax(np.abs(diff))) if np.isfinite(diff).any() else 1.0
    image = one.imshow(
        np.ma.masked_invalid(diff), cmap="RdBu_r", vmin=-bound, vmax=bound, interpolation="nearest"
    )
    for i in range(len(systems)):
        for j in range(len(systems)):
            if i != j and np.isfinite(diff[i, j]):
                label = f"{diff[i, j]:+.3f}" + ("*" if marks[i, j] else "")
                dark = abs(diff[i, j]) > 0.6 * bound  # white text on the deep colours
                cell = one.text(
                    j,
                    i,
                    label,
                    ha="center",
                    va="center",
                    fontsize="small",
                    color="white" if dark else "black",
                )
                plain_text(cell)
    labels = [str(s) for s in systems]
    one.set_xticks(range(len(systems)), labels, rotation=45, ha="right", parse_math=False)
    one.set_yticks(range(len(systems)), labels, parse_math=False)
    one.set_xlabel("column system")
    one.set_ylabel("row system")
    fig.colorbar(image, ax=one, label=f"mean {metric}: row - column")
    if own:
        fig.suptitle(title or f"Every pair on {metric} (* significant after correction)")
    return fig
