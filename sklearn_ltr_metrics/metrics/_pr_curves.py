"""Precision-recall curves as the IR texts draw them: per query, interpolated, averaged.

For one query with ``n_pos`` relevant documents, each relevant document found at rank ``r``
as the ``j``-th relevant one gives a point ``(recall = j / n_pos, precision = j / r)``. The
*interpolated* precision at a recall level ``R`` is the highest precision at any recall
``>= R`` (0 when the ranking never reaches ``R``); it is a non-increasing step function of
``R``. Averaging it over queries at fixed recall levels gives the curve of trec_eval's
``iprec_at_recall`` (11 levels 0.0, 0.1, ..., 1.0) or, at every recall level any query
reaches, the full curve.

Computed for all queries at once: one grouped sort, cumulative counts of relevant documents,
a reverse running maximum per query (offset per query, so one ``maximum.accumulate`` serves
every query) and one gather per (query, level). No Python loop over queries.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from .._engine import group_rows, rank_order
from .._qid import check_qid
from .._validation import check_choice, check_consistent_length, check_labels, check_scores
from ._pr_points import ROWS_PARAMETERS

__all__ = ["PR_CURVE_COLUMNS", "precision_recall_curves"]

PR_CURVE_COLUMNS = ["recall", "precision", "n_queries"]
_TIES = ("stable", "pessimistic", "optimistic")
#: Guard against ``0.3 * 10 = 3.0000000000000004`` when a level is turned into a count.
_EPS = 1e-9
#: ``recall_rounding`` -> how ``level * n_pos`` becomes the count of relevant documents a level
#: reads: exactly (the first point with recall >= level), trec_eval 10's nearest (C's lround),
#: or trec_eval 9's ``+ 0.9`` then truncation (pytrec_eval, ir_measures' IPrec).
_ROUNDING = {
    "exact": lambda x: np.ceil(x - _EPS),
    "trec_eval": lambda x: np.floor(x + 0.5),
    "trec_eval_9": lambda x: np.floor(x + 0.9),
}


def _levels(recall_levels, recall_points):
    if isinstance(recall_levels, str):
        if recall_levels != "all":
            raise ValueError(
                f"recall_levels must be an int >= 2, a list of levels in [0, 1] or 'all', "
                f"got {recall_levels!r}."
            )
        return np.unique(np.concatenate(([0.0], recall_points)))
    if isinstance(recall_levels, numbers.Integral) and not isinstance(recall_levels, bool):
        if recall_levels < 2:
            raise ValueError(f"recall_levels must be >= 2 levels, got {recall_levels!r}.")
        # i / (n - 1): the double nearest each level (0.7, not linspace's 0.7000000000000001),
        # as trec_eval parses its levels.
        return np.arange(int(recall_levels)) / (int(recall_levels) - 1.0)
    try:
        levels = np.asarray(recall_levels, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"recall_levels must be an int, a list of numbers or 'all', got {recall_levels!r}."
        ) from None
    if levels.ndim != 1 or levels.size == 0 or not np.all((levels >= 0) & (levels <= 1)):
        raise ValueError(
            f"recall_levels must be a non-empty list of numbers in [0, 1], got {recall_levels!r}."
        )
    return np.unique(levels)


def precision_recall_curves(
    y_true,
    y_score,
    *,
    qid,
    recall_levels=11,
    ties="pessimistic",
    min_relevance=None,
    recall_rounding="exact",
):
    """Interpolated precision at recall levels, averaged over queries (the IR texts' curve).

    Parameters
    ----------
    {rows_parameters}
    recall_levels : int, sequence of float or "all", default=11
        Where the interpolated precision is read: ``n`` equally spaced levels from 0 to 1
        (11: the levels of trec_eval's ``iprec_at_recall_0.00`` ... ``_1.00``; its values
        with ``recall_rounding="trec_eval"``), given levels in [0, 1], or ``"all"``: every
        recall level some query reaches (``j / n_pos``), plus 0.
    ties : {"pessimistic", "optimistic", "stable"}, default="pessimistic"
        Order of tied scores: relevant rows last (the lower bound, default), first (the upper
        bound) or in input order. (The package's ``"average"`` has no closed form for an
        interpolated curve.)
    min_relevance : float, optional
        Label threshold for relevance (default: any label > 0).
    recall_rounding : {"exact", "trec_eval", "trec_eval_9"}, default="exact"
        Which point a level reads. ``"exact"``: the first point with recall >= level, the
        ``ceil(level * n_pos)``-th relevant document (the textbook curve). trec_eval reads
        the ``floor(level * n_pos + 0.5)``-th (trec_eval 10) or ``floor(level * n_pos +
        0.9)``-th (``"trec_eval_9"``: pytrec_eval and ir_measures' IPrec): for 3 relevant
        documents at level 0.7, the 3rd exactly, the 2nd for both trec_eval versions
        (``0.7 * 3 = 2.0999...`` in floating point), so the values differ there.

    Returns
    -------
    DataFrame
        One row per recall level: ``recall``, ``precision`` (the mean over queries of the
        interpolated precision at that level) and ``n_queries`` (queries averaged: those
        with at least one relevant row; queries without one have no curve and are left out).

    Examples
    --------
    Query a finds its 2 relevant documents at ranks 1 and 3: points (0.5, 1) and (1, 2/3).
    Query b finds its one at rank 2: point (1, 1/2). Interpolated, a is 1 up to recall 0.5
    and 2/3 above; b is 1/2 everywhere. The mean: 0.75 up to 0.5, then 7/12.

    >>> from sklearn_ltr_metrics.metrics import precision_recall_curves
    >>> y = [1, 0, 1, 0, 0, 1]
    >>> s = [6, 5, 4, 3, 2, 1]
    >>> qid = ["a", "a", "a", "a", "b", "b"]
    >>> precision_recall_curves(y, s, qid=qid, recall_levels=[0, 0.5, 1]).round(4)
       recall  precision  n_queries
    0     0.0     0.7500          2
    1     0.5     0.7500          2
    2     1.0     0.5833          2
    >>> precision_recall_curves(y, s, qid=qid)["precision"].round(3).tolist()
    [0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.583, 0.583, 0.583, 0.583, 0.583]
    """
    ties = check_choice(ties, "ties", _TIES)
    rounding = _ROUNDING[check_choice(recall_rounding, "recall_rounding", tuple(_ROUNDING))]
    qid_values = check_qid(qid)
    y_true = check_labels(y_true)
    y_score = check_scores(y_score, qid_values)
    check_consistent_length(y_true=y_true, y_score=y_score, qid=qid_values)
    if min_relevance is not None and (
        isinstance(min_relevance, bool)
        or not isinstance(min_relevance, numbers.Real)
        or not np.isfinite(min_relevance)
    ):
        raise ValueError(f"min_relevance must be a finite number or None, got {min_relevance!r}.")

    grouping = group_rows(qid_values)
    if ties == "stable":
        order = rank_order(grouping, y_score, stable=True)
    else:
        key = y_true if ties == "pessimistic" else -y_true
        order = rank_order(grouping, y_score, tiebreak=key)
    relevant = (y_true >= min_relevance) if min_relevance is not None else (y_true > 0)
    ranked_relevant = relevant[order]
    offsets = grouping.offsets
    n_q = grouping.n_groups
    codes = np.repeat(np.arange(n_q), grouping.sizes)  # code of each ranked row
    rows = np.flatnonzero(ranked_relevant)  # ranked positions of relevant rows
    q = codes[rows]
    rank = rows - offsets[q] + 1
    n_pos = np.bincount(q, minlength=n_q)
    first = np.concatenate(([0], np.cumsum(n_pos)))  # where each query's points start
    j = np.arange(rows.size) - first[q] + 1
    precision = j / rank
    recall = j / n_pos[q]
    # Interpolated precision: running maximum from the last point of each query backwards.
    # Offsets grow along the reversed order, so no maximum leaks from one query to another.
    offset = 2.0 * (n_q - q[::-1])
    interp = (np.maximum.accumulate(precision[::-1] + offset) - offset)[::-1]

    levels = _levels(recall_levels, recall)
    has_curve = n_pos > 0
    pos = n_pos[has_curve]
    start = first[:-1][has_curve]
    # The point a level reads: the ceil(level * n_pos)-th relevant document, exactly.
    need = np.maximum(rounding(levels[None, :] * pos[:, None]), 1).astype(np.int64)
    reached = need <= pos[:, None]
    index = np.where(reached, start[:, None] + need - 1, 0)
    values = np.where(reached, interp[index] if interp.size else 0.0, 0.0)
    n_queries = int(has_curve.sum())
    mean = values.mean(axis=0) if n_queries else np.full(levels.size, np.nan)
    return pd.DataFrame(
        {"recall": levels, "precision": mean, "n_queries": np.full(levels.size, n_queries)},
        columns=PR_CURVE_COLUMNS,
    )


precision_recall_curves.__doc__ = (precision_recall_curves.__doc__ or "").replace(
    "{rows_parameters}", ROWS_PARAMETERS
)
