"""One query's precision-recall curve as the IR texts draw it: raw points, interpolated steps."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ._common import COLORS, check_table, panels, plain_text, plot_doc

__all__ = ["plot_query_precision_recall"]

_HINT = "the table of sklearn_ltr_metrics.metrics.precision_recall_points"
_COLUMNS = ("qid", "recall", "precision", "interpolated")


def _systems(points):
    if isinstance(points, Mapping):
        if not points:
            raise ValueError("points is empty; pass at least one system's table.")
        tables = {str(name): table for name, table in points.items()}
    else:
        tables = {"": points}
    for name, table in tables.items():
        check_table(table, f"points[{name!r}]" if name else "points", _COLUMNS, _HINT)
    return tables


@plot_doc
def plot_query_precision_recall(points, *, qid=None, ax=None, title=None):
    """One query's precision-recall curve: the raw points and the interpolated curve.

    Each relevant document found gives a marker at (recall, precision) there; the
    interpolated precision (the highest precision at any recall at least as large) is drawn
    as a step line through them, down to 0 past the last recall reached. Several systems on
    the same query are drawn in one panel, one colour each.

    Parameters
    ----------
    points : DataFrame or dict of str to DataFrame
        The table of :func:`~sklearn_ltr_metrics.metrics.precision_recall_points`, or a dict
        system -> such a table.
    qid : object, optional
        The query to draw; default the first query of the (first) table.
    {ax}
    title : str, optional
        Figure title; default names the query.

    {returns}

    Examples
    --------
    >>> from sklearn_ltr_metrics.metrics import precision_recall_points
    >>> pts = precision_recall_points([1, 0, 1, 0], [4, 3, 2, 1], qid=["a"] * 4, n_pos={"a": 3})
    >>> fig = plot_query_precision_recall({"BM25": pts}, qid="a")
    >>> fig.axes[0].get_xlabel()
    'recall'
    """
    tables = _systems(points)
    if qid is None:
        first = next(iter(tables.values()))
        if first.empty:
            raise ValueError("points has no point (no relevant document was retrieved).")
        qid = first["qid"].iloc[0]
    fig, (one,), own = panels(1, ax, panel_size=(5.6, 4.4))
    for i, (system, table) in enumerate(tables.items()):
        part = table[table["qid"] == qid].sort_values("recall")
        color = COLORS[i % len(COLORS)]
        recall = part["recall"].to_numpy()
        interpolated = part["interpolated"].to_numpy()
        # Steps: interpolated precision holds from the previous recall up to each point.
        x = np.repeat(np.r_[0.0, recall], 2)[1:-1] if recall.size else np.array([])
        y = np.repeat(interpolated, 2)
        label = system or "interpolated"
        one.plot(x, y, color=color, label=f"{label} (interpolated)" if system else label)
        if recall.size and recall[-1] < 1:
            one.plot([recall[-1], recall[-1], 1.0], [interpolated[-1], 0.0, 0.0], color=color)
        one.plot(
            recall,
            part["precision"].to_numpy(),
            linestyle="none",
            marker="o",
            markersize=5,
            color=color,
            label=f"{system} (at each relevant document)" if system else "raw points",
        )
    one.set_xlabel("recall")
    one.set_ylabel("precision")
    one.set_xlim(0, 1.02)
    one.set_ylim(0, 1.02)
    one.grid(True, alpha=0.3)
    legend = one.legend(fontsize="small", loc="best")
    plain_text(*legend.get_texts())
    default = f"Precision-recall of query {qid}"
    if own:
        plain_text(fig.suptitle(title or default))
    elif title:
        plain_text(one.set_title(title))
    return fig
