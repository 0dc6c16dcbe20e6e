"""Per-query plots: a metric against difficulty, and every metric as a heatmap.

They read per-query tables through the package's table contract (``_table``: counts,
difficulty, metric columns) and draw them; correlations shown in a legend are the ones
given (``difficulty=``, e.g. a report's ``difficulty`` table), never computed here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._table import SINGLE_SYSTEM, metric_columns, named_systems, query_frame
from ._common import COLORS, panels, plain_text, plot_doc

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_difficulty", "plot_heatmap"]

#: Above this many queries the heatmap hides the query-id tick labels.
MAX_QUERY_LABELS = 40


def _tables(per_query):
    return {
        n: query_frame(t, f"per_query[{n!r}]", counts=True)
        for n, t in named_systems(per_query, "per_query").items()
    }


def _legend_label(system, n_systems, difficulty, metric):
    name = "" if system == SINGLE_SYSTEM and n_systems == 1 else system
    if difficulty is None:
        return name or None
    row = difficulty[(difficulty["system"] == system) & (difficulty["metric"] == metric)]
    if row.empty:
        return name or None
    rho, p = row["spearman_rho"].iloc[0], row["pvalue"].iloc[0]
    return f"{name + ': ' if name else ''}Spearman rho = {rho:.2f} (p = {p:.2g})"


@plot_doc
def plot_difficulty(
    per_query: Any,
    *,
    metric: str | None = None,
    difficulty: pd.DataFrame | None = None,
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """Per-query metric against difficulty ``n_neg / n_pos`` (log scale), one colour per system.

    Parameters
    ----------
    per_query : DataFrame, RankingEvaluation, or dict of str to one of those
        Per-query tables with ``n_pos`` and ``n_neg`` (or ``n_docs``); queries with
        ``n_pos == 0`` or an undefined value are not drawn.
    metric : str, optional
        Metric column; default the first metric column of the first table.
    difficulty : DataFrame, optional
        Spearman correlations computed beforehand (columns ``system, metric, spearman_rho,
        pvalue``: a report's ``difficulty`` table, or rows of
        :func:`sklearn_ltr_metrics.stats.difficulty_correlation`), shown in the legend.
        A single table's system is called ``"system"``.
    {ax}
    {title}

    {returns}

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"n_pos": [1, 5, 20], "n_neg": [100, 100, 100],
    ...                       "map": [0.2, 0.5, 0.7]}, index=pd.Index([1, 2, 3], name="qid"))
    >>> fig = plot_difficulty(table)
    >>> fig.axes[0].get_xscale(), fig.axes[0].get_ylabel()
    ('log', 'map')
    """
    tables = _tables(per_query)
    first = next(iter(tables.values()))
    metric = metric if metric is not None else metric_columns(first, None, "per_query")[0]
    fig, (one,), own = panels(1, ax, panel_size=(6.4, 4.4))
    labelled = False
    for i, (system, frame) in enumerate(tables.items()):
        metric_columns(frame, [metric], f"per_query[{system!r}]")
        keep = frame["difficulty"].notna() & frame[metric].notna()
        label = _legend_label(system, len(tables), difficulty, metric)
        labelled = labelled or label is not None
        one.scatter(
            frame.loc[keep, "difficulty"],
            frame.loc[keep, metric].astype(float),
            s=14,
            alpha=0.6,
            color=COLORS[i % len(COLORS)],
            label=label,
        )
    one.set_xscale("log")
    one.set_xlabel("difficulty n_neg / n_pos (log scale)")
    one.set_ylabel(metric)
    one.grid(True, alpha=0.3)
    if labelled:
        legend = one.legend(fontsize="small", loc="best")
        plain_text(*legend.get_texts())
    if own:
        fig.suptitle(title or f"{metric} against query difficulty")
    elif title:
        one.set_title(title)
    return fig


@plot_doc
def plot_heatmap(
    per_query: Any,
    *,
    metrics: Sequence[str] | None = None,
    ax: Axes | Sequence[Axes] | None = None,
    title: str | None = None,
) -> Figure:
    """Per-query metric values as a heatmap: queries (rows, easiest first) x metrics, per system.

    Parameters
    ----------
    per_query : DataFrame, RankingEvaluation, or dict of str to one of those
        Per-query tables; one panel per system.
    metrics : list of str, optional
        Metric columns (default: every metric column of the first table). Values are drawn
        on a 0-1 scale; undefined values are grey.
    {axes}
    {title}

    {returns}

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"n_pos": [1, 5], "n_neg": [10, 10], "map": [0.2, 0.9],
    ...                       "mrr": [0.5, 1.0]}, index=pd.Index(["a", "b"], name="qid"))
    >>> fig = plot_heatmap(table)
    >>> len(fig.axes)  # the panel and its colour bar
    2
    """
    tables = _tables(per_query)
    metrics = metric_columns(next(iter(tables.values())), metrics, "per_query")
    n_queries = max(len(f) for f in tables.values())
    height = float(np.clip(0.12 * n_queries, 2.5, 9.0))
    width = max(2.2, 0.55 * len(metrics) + 1.4)
    fig, axes, own = panels(len(tables), ax, panel_size=(width, height), max_cols=4)
    from matplotlib import colormaps

    cmap = colormaps["viridis"].with_extremes(bad="#d9d9d9")
    image = None
    for one, (system, frame) in zip(axes, tables.items(), strict=True):
        metric_columns(frame, metrics, f"per_query[{system!r}]")
        order = np.argsort(frame["difficulty"].to_numpy(dtype=float), kind="stable")
        values = frame[metrics].to_numpy(dtype=float)[order]
        image = one.imshow(
            np.ma.masked_invalid(values),
            aspect="auto",
            cmap=cmap,
            vmin=0,
            vmax=1,
            interpolation="nearest",
        )
        one.set_xticks(range(len(metrics)), metrics, rotation=45, ha="right", fontsize="small")
        if len(frame) <= MAX_QUERY_LABELS:
            one.set_yticks(
                range(len(frame)),
                frame["qid"].astype(str).to_numpy()[order],
                fontsize="x-small",
                parse_math=False,
            )
        else:
            one.set_yticks([])
        if len(tables) > 1 or system != SINGLE_SYSTEM:
            plain_text(one.set_title(system))
    axes[0].set_ylabel("queries, easiest (low n_neg/n_pos) first")
    fig.colorbar(image, ax=axes, shrink=0.8, label="value (grey: undefined)")
    if own:
        fig.suptitle(title or "Per-query values")
    return fig
