"""Plots of per-query evaluations: metric@K curves per stratum, difficulty, heatmap, PR curve.

Every function returns a :class:`matplotlib.figure.Figure` built directly (no ``pyplot``: no
global figure registry, no GUI backend, nothing to close); save it with ``fig.savefig(...)``.
matplotlib is imported inside the functions, so the package works without it; a missing
matplotlib raises ``ImportError`` saying to install the ``plot`` extra.

The functions draw data, they do not evaluate. They accept what :func:`evaluate` and
:func:`cross_validate_ranking` return (a ``RankingEvaluation`` or a per-query DataFrame, or a
dict system name -> one of those), or the tables a :class:`RankingReport` has computed once
(``report.curves``, ``report.difficulty``), which is how the report calls them.

User-supplied text (system names, query ids) is drawn with mathtext off, so a ``$`` in a
name is shown as it is.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._table import metric_columns, named_systems, query_frame

__all__ = [
    "plot_difficulty",
    "plot_heatmap",
    "plot_precision_at_k",
    "plot_precision_recall",
    "plot_recall_at_k",
]

PLOT_EXTRA_HINT = "install the 'plot' extra: pip install sklearn-ltr-metrics[plot]"

#: Colours of the strata (low, medium, high, ...) and of the systems (tab10).
_COLORS = (
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
#: Above this many queries the heatmap hides the query-id tick labels.
_MAX_QUERY_LABELS = 40


def _figure(n_panels=1, *, panel_size=(4.6, 3.6), max_cols=3, sharey=True):
    """A Figure with ``n_panels`` axes on a grid (matplotlib imported here, lazily)."""
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - exercised by monkeypatching in tests
        raise ImportError(f"Plotting needs matplotlib; {PLOT_EXTRA_HINT}") from exc
    n_cols = 2 if n_panels == 4 and max_cols >= 2 else min(n_panels, max_cols)
    n_rows = -(-n_panels // n_cols)
    fig = Figure(
        figsize=(panel_size[0] * n_cols, panel_size[1] * n_rows + 0.4), layout="constrained"
    )
    axes = fig.subplots(n_rows, n_cols, sharey=sharey, squeeze=False).ravel()
    for ax in axes[n_panels:]:
        fig.delaxes(ax)
    return fig, list(axes[:n_panels])


def _plain_text(*texts):
    """Turn mathtext off for user-supplied labels (a ``$`` in a qid stays a ``$``)."""
    for text in texts:
        text.set_parse_math(False)


def _curves(data, strata):
    """A curve table (columns system, metric, stratum, k, mean...) from what the user gave."""
    if isinstance(data, pd.DataFrame) and {"stratum", "k", "mean"} <= set(data.columns):
        return data
    from ..stats._curves import cutoff_curves

    systems = named_systems(data, "data")
    for name, value in systems.items():
        if not hasattr(value, "per_cutoff"):
            raise TypeError(
                f"data[{name!r}] must be an evaluation from evaluate()/evaluate_run() (it has "
                f"per_cutoff), or pass report.curves; got {type(value).__name__}."
            )
    return cutoff_curves(
        {n: v.per_cutoff for n, v in systems.items()},
        {n: v.per_query for n, v in systems.items()},
        strata=strata,
    )


def _plot_at_k(data, metric, *, strata, title):
    curves = _curves(data, strata)
    curves = curves[curves["metric"] == metric]
    if curves.empty:
        raise ValueError(
            f"No {metric}@K values to plot; evaluate {metric!r} at a few cut-offs, e.g. "
            f"evaluate(..., metrics=['{metric}'], k=[1, 5, 10, 20, 50, 100])."
        )
    systems = list(dict.fromkeys(curves["system"]))
    fig, axes = _figure(len(systems))
    for ax, system in zip(axes, systems, strict=True):
        part = curves[curves["system"] == system]
        strata_labels = [s for s in dict.fromkeys(part["stratum"]) if s != "all"]
        for i, stratum in enumerate([*strata_labels, "all"]):
            line = part[part["stratum"] == stratum].sort_values("k")
            if line.empty:
                continue
            n = int(line["n_queries"].max())
            style = (
                {"color": "black", "linestyle": "--", "linewidth": 1.5}
                if stratum == "all"
                else {"color": _COLORS[i % len(_COLORS)], "linewidth": 2}
            )
            ax.plot(
                line["k"],
                line["mean"],
                marker="o",
                markersize=4,
                **style,
                label=f"{stratum} (n={n})",
            )
        ax.set_xscale("log")
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("cut-off K (log scale)")
        ax.grid(True, which="major", alpha=0.3)
        if len(systems) > 1 or system != "system":
            _plain_text(ax.set_title(system))
        legend = ax.legend(title="stratum (by n_pos)", fontsize="small", loc="best")
        _plain_text(*legend.get_texts())
    for ax in axes:
        if ax.get_subplotspec().is_first_col():
            ax.set_ylabel(f"mean {metric}@K")
    fig.suptitle(title or f"{metric}@K by query stratum")
    return fig


def plot_recall_at_k(data, *, strata=(10, 50), title=None):
    """Mean recall@K against K, one line per query stratum (and all queries), per system.

    Parameters
    ----------
    data : RankingEvaluation, dict of str to RankingEvaluation, or DataFrame
        Evaluations holding recall at several cut-offs (``metrics=["recall"], k=[1, 5, 50]``),
        or the ``curves`` table of a :class:`RankingReport`. One panel per system.
    strata : sequence of int or dict, default=(10, 50)
        Strata on ``n_pos``, as in :func:`summarize` (ignored for a curves table).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from sklearn_ltr_metrics import evaluate
    >>> ev = evaluate([1, 0, 1, 0, 1, 1, 0, 0], [4, 3, 2, 1, 4, 3, 2, 1],
    ...               qid=[1, 1, 1, 1, 2, 2, 2, 2], metrics=["recall"], k=[1, 2, 4])
    >>> fig = plot_recall_at_k(ev)
    >>> len(fig.axes), fig.axes[0].get_ylabel()
    (1, 'mean recall@K')
    """
    return _plot_at_k(data, "recall", strata=strata, title=title)


def plot_precision_at_k(data, *, strata=(10, 50), title=None):
    """Mean precision@K against K, one line per query stratum (and all queries), per system.

    Parameters
    ----------
    data : RankingEvaluation, dict of str to RankingEvaluation, or DataFrame
        Evaluations holding precision at several cut-offs (``metrics=["precision"],
        k=[1, 5, 50]``), or the ``curves`` table of a :class:`RankingReport`. One panel per
        system.
    strata : sequence of int or dict, default=(10, 50)
        Strata on ``n_pos``, as in :func:`summarize` (ignored for a curves table).
    title : str, optional
        Title of the figure.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per system.

    Examples
    --------
    >>> from sklearn_ltr_metrics import evaluate
    >>> ev = evaluate([1, 0, 1, 0, 1, 1, 0, 0], [4, 3, 2, 1, 4, 3, 2, 1],
    ...               qid=[1, 1, 1, 1, 2, 2, 2, 2], metrics=["precision"], k=[1, 2, 4])
    >>> fig = plot_precision_at_k({"BM25": ev, "copy": ev})
    >>> [ax.get_title() for ax in fig.axes]
    ['BM25', 'copy']
    """
    return _plot_at_k(data, "precision", strata=strata, title=title)


def plot_difficulty(per_query, *, metric=None, difficulty=None, title=None):
    """Per-query metric against difficulty ``n_neg / n_pos`` (log scale), one colour per system.

    Parameters
    ----------
    per_query : DataFrame, RankingEvaluation, or dict of str to one of those
        Per-query tables with ``n_pos`` and ``n_neg`` (or ``n_docs``); queries with
        ``n_pos == 0`` or an undefined value are not drawn.
    metric : str, optional
        Metric column; default the first metric column of the first table.
    difficulty : DataFrame, optional
        Precomputed Spearman correlations (columns ``system, metric, spearman_rho, pvalue``,
        as ``RankingReport.difficulty``) shown in the legend; computed here when omitted.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"n_pos": [1, 5, 20], "n_neg": [100, 100, 100],
    ...                       "map": [0.2, 0.5, 0.7]}, index=pd.Index([1, 2, 3], name="qid"))
    >>> fig = plot_difficulty(table)
    >>> fig.axes[0].get_xscale(), fig.axes[0].get_ylabel()
    ('log', 'map')
    """
    from ..stats._summary import difficulty_correlation

    tables = {
        n: query_frame(t, f"per_query[{n!r}]", counts=True)
        for n, t in named_systems(per_query, "per_query").items()
    }
    first = next(iter(tables.values()))
    metric = metric if metric is not None else metric_columns(first, None, "per_query")[0]
    fig, (ax,) = _figure(1, panel_size=(6.4, 4.4))
    for i, (system, frame) in enumerate(tables.items()):
        metric_columns(frame, [metric], f"per_query[{system!r}]")
        keep = (frame["n_pos"] > 0) & frame[metric].notna()
        x = frame.loc[keep, "n_neg"] / frame.loc[keep, "n_pos"]
        y = frame.loc[keep, metric].astype(float)
        if difficulty is not None:
            row = difficulty[(difficulty["system"] == system) & (difficulty["metric"] == metric)]
            rho, p = (
                (row["spearman_rho"].iloc[0], row["pvalue"].iloc[0])
                if len(row)
                else (np.nan, np.nan)
            )
        else:
            corr = difficulty_correlation(frame, metric)
            rho, p = corr.spearman_rho, corr.pvalue
        name = "" if system == "system" and len(tables) == 1 else f"{system}: "
        label = f"{name}Spearman rho = {rho:.2f} (p = {p:.2g})"
        ax.scatter(x, y, s=14, alpha=0.6, color=_COLORS[i % len(_COLORS)], label=label)
    ax.set_xscale("log")
    ax.set_xlabel("difficulty n_neg / n_pos (log scale)")
    ax.set_ylabel(metric)
    ax.grid(True, alpha=0.3)
    legend = ax.legend(fontsize="small", loc="best")
    _plain_text(*legend.get_texts())
    fig.suptitle(title or f"{metric} against query difficulty")
    return fig


def plot_heatmap(per_query, *, metrics=None, title=None):
    """Per-query metric values as a heatmap: queries (rows, easiest first) x metrics, per system.

    Parameters
    ----------
    per_query : DataFrame, RankingEvaluation, or dict of str to one of those
        Per-query tables; one panel per system.
    metrics : list of str, optional
        Metric columns (default: every metric column of the first table). Values are drawn
        on a 0-1 scale; undefined values are grey.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"n_pos": [1, 5], "n_neg": [10, 10], "map": [0.2, 0.9],
    ...                       "mrr": [0.5, 1.0]}, index=pd.Index(["a", "b"], name="qid"))
    >>> fig = plot_heatmap(table)
    >>> len(fig.axes)  # the panel and its colour bar
    2
    """
    tables = {
        n: query_frame(t, f"per_query[{n!r}]", counts=True)
        for n, t in named_systems(per_query, "per_query").items()
    }
    metrics = metric_columns(next(iter(tables.values())), metrics, "per_query")
    n_queries = max(len(f) for f in tables.values())
    height = float(np.clip(0.12 * n_queries, 2.5, 9.0))
    width = max(2.2, 0.55 * len(metrics) + 1.4)
    fig, axes = _figure(len(tables), panel_size=(width, height), max_cols=4)
    image = None
    for ax, (system, frame) in zip(axes, tables.items(), strict=True):
        metric_columns(frame, metrics, f"per_query[{system!r}]")
        with np.errstate(divide="ignore", invalid="ignore"):
            difficulty = frame["n_neg"] / frame["n_pos"].where(frame["n_pos"] > 0)
        order = np.argsort(difficulty.to_numpy(dtype=float), kind="stable")
        values = frame[metrics].to_numpy(dtype=float)[order]
        cmap = _cmap()
        image = ax.imshow(
            np.ma.masked_invalid(values),
            aspect="auto",
            cmap=cmap,
            vmin=0,
            vmax=1,
            interpolation="nearest",
        )
        ax.set_xticks(range(len(metrics)), metrics, rotation=45, ha="right", fontsize="small")
        if len(frame) <= _MAX_QUERY_LABELS:
            ax.set_yticks(
                range(len(frame)),
                frame["qid"].astype(str).to_numpy()[order],
                fontsize="x-small",
                parse_math=False,
            )
        else:
            ax.set_yticks([])
        if len(tables) > 1 or system != "system":
            _plain_text(ax.set_title(system))
    axes[0].set_ylabel("queries, easiest (low n_neg/n_pos) first")
    fig.colorbar(image, ax=axes, shrink=0.8, label="value (grey: undefined)")
    fig.suptitle(title or "Per-query values")
    return fig


def _cmap():
    from matplotlib import colormaps

    return colormaps["viridis"].with_extremes(bad="#d9d9d9")


def plot_precision_recall(data, *, stratum="all", title=None):
    """Mean precision@K against mean recall@K over the cut-offs K, one line per system.

    Each point is one cut-off K (labelled), averaged over the queries of ``stratum``.

    Parameters
    ----------
    data : RankingEvaluation, dict of str to RankingEvaluation, or DataFrame
        Evaluations holding both recall and precision at the same several cut-offs, or the
        ``curves`` table of a :class:`RankingReport`.
    stratum : str, default="all"
        ``"all"`` queries or one stratum label (``"low"``, ``"medium"``, ``"high"``).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from sklearn_ltr_metrics import evaluate
    >>> ev = evaluate([1, 0, 1, 0, 1, 1, 0, 0], [4, 3, 2, 1, 4, 3, 2, 1],
    ...               qid=[1, 1, 1, 1, 2, 2, 2, 2], metrics=["recall", "precision"], k=[1, 2, 4])
    >>> fig = plot_precision_recall(ev)
    >>> fig.axes[0].get_xlabel()
    'mean recall@K'
    """
    curves = _curves(data, (10, 50))
    curves = curves[curves["stratum"] == stratum]
    wide = curves.pivot_table(index=["system", "k"], columns="metric", values="mean", sort=False)
    if not {"recall", "precision"} <= set(wide.columns):
        raise ValueError(
            "A precision-recall curve needs both recall and precision at the same cut-offs, "
            "e.g. evaluate(..., metrics=['recall', 'precision'], k=[1, 5, 10, 20, 50])."
        )
    wide = wide.dropna(subset=["recall", "precision"])
    fig, (ax,) = _figure(1, panel_size=(5.6, 4.4))
    for i, system in enumerate(dict.fromkeys(wide.index.get_level_values("system"))):
        part = wide.loc[system].sort_index()
        color = _COLORS[i % len(_COLORS)]
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
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("mean recall@K")
    ax.set_ylabel("mean precision@K")
    ax.grid(True, alpha=0.3)
    legend = ax.legend(fontsize="small", loc="best")
    _plain_text(*legend.get_texts())
    scope = "all queries" if stratum == "all" else f"stratum {stratum}"
    fig.suptitle(title or f"Precision-recall over cut-offs K ({scope}; points labelled by K)")
    return fig
