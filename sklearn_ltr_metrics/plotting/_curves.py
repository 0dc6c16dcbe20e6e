"""Curves: any metric@K against K per query stratum, and precision-recall curves per system.

The inputs are tables computed elsewhere: :func:`sklearn_ltr_metrics.stats.cutoff_curves`
(``system, metric, spec, stratum, k, mean, n_queries``) and
:func:`sklearn_ltr_metrics.metrics.precision_recall_curves` (``recall, precision,
n_queries``). Nothing here averages or tests: the functions only draw.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import pandas as pd

from ._common import COLORS, check_table, panels, plain_text, plot_doc

if TYPE_CHECKING:
    from collections.abc import Sequence

    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "plot_metric_at_k",
    "plot_precision_at_k",
    "plot_precision_recall",
    "plot_recall_at_k",
]

_CURVE_COLUMNS = ("system", "metric", "stratum", "k", "mean", "n_queries")
_CURVE_HINT = (
    "the table of sklearn_ltr_metrics.stats.cutoff_curves(per_cutoff, per_query), "
    "or a report's .curves"
)
_PR_HINT = (
    "the table of sklearn_ltr_metrics.metrics.precision_recall_curves, a dict system -> such "
    "a table, or a cutoff_curves table with recall and precision"
)


def _curve_table(curves):
    if not isinstance(curves, pd.DataFrame):
        raise TypeError(
            f"curves must be a DataFrame ({_CURVE_HINT}), got {type(curves).__name__}; for an "
            "evaluation ev, pass stats.cutoff_curves(ev.per_cutoff, ev.per_query)."
        )
    check_table(curves, "curves", _CURVE_COLUMNS, _CURVE_HINT)
    return curves


@plot_doc
def plot_metric_at_k(
    curves: pd.DataFrame,
    *,
    metric: str = "capped_recall",
    ax: Axes | Sequence[Axes] | None = None,
    title: str | None = None,
) -> Figure:
    """Mean metric@K against K, one line per query stratum (and all queries), per system.

    Parameters
    ----------
    curves : DataFrame
        The table of :func:`sklearn_ltr_metrics.stats.cutoff_curves` (a report's ``curves``):
        columns ``system, metric, stratum, k, mean, n_queries``. One panel per system.
    metric : str, default="capped_recall"
        Which metric of the table to draw: any metric evaluated at several cut-offs.
        ``"capped_recall"`` is the methodology's Recall@K, hits / min(K, n_pos).
    {axes}
    title : str, optional
        Figure title (of the first Axes when ``ax`` is given); default says what is drawn.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn (the one holding ``ax`` when given).

    {cutoff_example}
    >>> fig = plot_metric_at_k(cutoff_curves(ev.per_cutoff, ev.per_query), metric="ndcg")
    >>> len(fig.axes), fig.axes[0].get_ylabel()
    (1, 'mean ndcg@K')
    """
    curves = _curve_table(curves)
    if not isinstance(metric, str):
        raise TypeError(f"metric must be a metric name (str), got {metric!r}.")
    part = curves[curves["metric"] == metric]
    if part.empty:
        found = sorted(set(curves["metric"]))
        raise ValueError(
            f"No {metric}@K values to plot; the curves hold {found!r}. Evaluate {metric!r} at "
            f"a few cut-offs, e.g. evaluate(..., metrics=['{metric}'], k=[1, 5, 10, 20, 50, "
            "100]), or pass metric= one of those."
        )
    systems = list(dict.fromkeys(part["system"]))
    fig, axes, own = panels(len(systems), ax)
    for one, system in zip(axes, systems, strict=True):
        _draw_strata(one, part[part["system"] == system])
        if len(systems) > 1 or system != "system":
            plain_text(one.set_title(system))
    for one in axes:
        spec = one.get_subplotspec()
        if spec is None or spec.is_first_col():
            one.set_ylabel(f"mean {metric}@K")
    if own:
        fig.suptitle(title or f"{metric}@K by query stratum")
    elif title:
        axes[0].set_title(title)
    return fig


def _draw_strata(ax, part):
    labels = [s for s in dict.fromkeys(part["stratum"]) if s != "all"]
    for i, stratum in enumerate([*labels, "all"]):
        line = part[part["stratum"] == stratum].sort_values("k")
        if line.empty:
            continue
        style = (
            {"color": "black", "linestyle": "--", "linewidth": 1.5}
            if stratum == "all"
            else {"color": COLORS[i % len(COLORS)], "linewidth": 2}
        )
        n = int(line["n_queries"].max())
        ax.plot(
            line["k"], line["mean"], marker="o", markersize=4, **style, label=f"{stratum} (n={n})"
        )
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("cut-off K (log scale)")
    ax.grid(True, which="major", alpha=0.3)
    # Beside the panel, never on it: a perfect ranking's lines run along the top at 1.0 and a
    # poor one's along the bottom, so no corner inside is always free.
    legend = ax.legend(
        title="stratum (by n_pos)", fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1)
    )
    plain_text(*legend.get_texts())


@plot_doc
def plot_recall_at_k(
    curves: pd.DataFrame,
    *,
    metric: str | None = None,
    ax: Axes | Sequence[Axes] | None = None,
    title: str | None = None,
) -> Figure:
    """Recall@K against K per query stratum: :func:`plot_metric_at_k` for a recall metric.

    Parameters
    ----------
    {curves}
    metric : str, optional
        Default ``"capped_recall"`` (the methodology's Recall@K, 1.0 for a perfect ranking at
        every K) when the table has it, else ``"recall"`` (hits / n_pos).
    {axes}
    {title}

    {returns}

    {cutoff_example}
    >>> fig = plot_recall_at_k(cutoff_curves(ev.per_cutoff, ev.per_query))
    >>> fig.axes[0].get_ylabel()
    'mean capped_recall@K'
    """
    curves = _curve_table(curves)
    if metric is None:
        metric = "capped_recall" if (curves["metric"] == "capped_recall").any() else "recall"
    return plot_metric_at_k(curves, metric=metric, ax=ax, title=title)


@plot_doc
def plot_precision_at_k(
    curves: pd.DataFrame, *, ax: Axes | Sequence[Axes] | None = None, title: str | None = None
) -> Figure:
    """Precision@K against K per query stratum: :func:`plot_metric_at_k` for precision.

    Parameters
    ----------
    {curves}
    {axes}
    {title}

    {returns}

    {cutoff_example}
    >>> curves = cutoff_curves({"BM25": ev.per_cutoff, "copy": ev.per_cutoff},
    ...                        {"BM25": ev.per_query, "copy": ev.per_query})
    >>> [ax.get_title() for ax in plot_precision_at_k(curves).axes]
    ['BM25', 'copy']
    """
    return plot_metric_at_k(curves, metric="precision", ax=ax, title=title)


def _pr_tables(curves):
    """System name -> ``recall, precision`` table (PR tables), or None for a curves table."""
    if isinstance(curves, Mapping):
        out = {}
        for name, table in curves.items():
            check_table(table, f"curves[{name!r}]", ("recall", "precision"), _PR_HINT)
            out[str(name)] = table
        if not out:
            raise ValueError("curves is empty; pass at least one system's table.")
        return out
    if not isinstance(curves, pd.DataFrame):
        raise TypeError(f"curves must be a DataFrame ({_PR_HINT}), got {type(curves).__name__}.")
    if {"stratum", "k", "mean"} <= set(curves.columns):
        return None
    check_table(curves, "curves", ("recall", "precision"), _PR_HINT)
    if "system" in curves.columns:
        return {str(s): t for s, t in curves.groupby("system", sort=False)}
    return {"system": curves}


@plot_doc
def plot_precision_recall(
    curves: pd.DataFrame | Mapping[str, pd.DataFrame],
    *,
    stratum: str = "all",
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """Precision against recall, one line per system.

    Two kinds of table are drawn:

    - the interpolated precision-recall curve of the IR texts, from
      :func:`sklearn_ltr_metrics.metrics.precision_recall_curves` (``recall, precision``
      columns; several systems as a dict system -> table, or a ``system`` column);
    - mean precision@K against mean recall@K over the cut-offs K (each point labelled by its
      K), from a :func:`sklearn_ltr_metrics.stats.cutoff_curves` table holding ``recall`` and
      ``precision`` at the same cut-offs, for the queries of ``stratum``.

    Parameters
    ----------
    curves : DataFrame or dict of str to DataFrame
        One of the two tables above (or a dict system -> precision-recall table).
    stratum : str, default="all"
        For a ``cutoff_curves`` table: ``"all"`` queries or one stratum label.
    {ax}
    {title}

    {returns}

    Examples
    --------
    >>> from sklearn_ltr_metrics.metrics import precision_recall_curves
    >>> pr = precision_recall_curves([1, 0, 1, 0, 1, 1, 0, 0], [4, 3, 2, 1, 4, 3, 2, 1],
    ...                              qid=[1, 1, 1, 1, 2, 2, 2, 2])
    >>> fig = plot_precision_recall({"BM25": pr})
    >>> fig.axes[0].get_xlabel()
    'recall'
    """
    tables = _pr_tables(curves)
    fig, (one,), own = panels(1, ax, panel_size=(5.6, 4.4))
    if tables is None:
        scope = "all queries" if stratum == "all" else f"stratum {stratum}"
        _draw_cutoff_pr(one, curves, stratum)
        default = f"Precision-recall over cut-offs K ({scope}; points labelled by K)"
    else:
        for i, (system, table) in enumerate(tables.items()):
            table = table.sort_values("recall")
            one.plot(
                table["recall"],
                table["precision"],
                marker="o" if len(table) <= 21 else None,
                markersize=4,
                color=COLORS[i % len(COLORS)],
                label=system,
            )
        one.set_xlabel("recall")
        one.set_ylabel("interpolated precision (mean over queries)")
        default = "Interpolated precision-recall curve"
    one.set_xlim(0, 1.02)
    one.set_ylim(0, 1.02)
    one.grid(True, alpha=0.3)
    legend = one.legend(fontsize="small", loc="best")
    plain_text(*legend.get_texts())
    if own:
        fig.suptitle(title or default)
    elif title:
        one.set_title(title)
    return fig


def _draw_cutoff_pr(ax, curves, stratum):
    curves = curves[curves["stratum"] == stratum]
    wide = curves.pivot_table(index=["system", "k"], columns="metric", values="mean", sort=False)
    if not {"recall", "precision"} <= set(wide.columns):
        raise ValueError(
            "A precision-recall curve over cut-offs needs both recall and precision at the "
            "same cut-offs, e.g. evaluate(..., metrics=['recall', 'precision'], "
            "k=[1, 5, 10, 20, 50]); or draw metrics.precision_recall_curves."
        )
    wide = wide.dropna(subset=["recall", "precision"])
    for i, system in enumerate(dict.fromkeys(wide.index.get_level_values("system"))):
        part = wide.loc[system].sort_index()
        color = COLORS[i % len(COLORS)]
        ax.plot(part["recall"], part["precision"], marker="o", color=color, label=system)
        for k, row in part.iterrows():
            ax.annotate(
                f"{k}",
                (row["recall"], row["precision"]),
                textcoords="offset points",
                xytext=(4, 3),
                fontsize="x-small",
                color=color,
            )
    ax.set_xlabel("mean recall@K")
    ax.set_ylabel("mean precision@K")
