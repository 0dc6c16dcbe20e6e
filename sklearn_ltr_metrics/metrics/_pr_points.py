"""Raw precision-recall points per query: one point at each relevant document's rank.

The IR texts draw a query's precision-recall curve from its ranking: the ``j``-th relevant
document found at rank ``r`` gives the point ``(recall = j / n_pos, precision = j / r)``, and
the *interpolated* precision at that recall is the highest precision at any recall at least
as large (a non-increasing step function). :func:`precision_recall_curves` averages the
interpolated curve over queries at fixed recall levels; this module keeps the raw points of
every query, beside their interpolated precision, for drawing one query (or several systems
on one query). Its ``interpolated`` column is the textbook value at each point's own recall;
trec_eval's ``iprec_at_recall`` reads it at fixed levels with its own rounding of
``level * n_pos`` (:func:`precision_recall_curves`' ``recall_rounding``).

``n_pos`` may come from outside the ranking (the qrels, or a query-stats file): relevant
documents the ranking never retrieved then keep recall below 1, as trec_eval reads a run.
All queries at once: one sort, a cumulative count, a reverse running maximum per query.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._validation import (
    check_1d,
    check_choice,
    check_consistent_length,
    check_labels,
    check_scores,
)

__all__ = ["PR_POINT_COLUMNS", "ROWS_PARAMETERS", "precision_recall_points"]

#: Columns of the table :func:`precision_recall_points` returns.
PR_POINT_COLUMNS = ["qid", "rank", "recall", "precision", "interpolated"]
_TIES = ("pessimistic", "optimistic", "stable")
#: The rows both precision-recall tables read, documented once (``{rows_parameters}``).
ROWS_PARAMETERS = """y_true : array-like of shape (n_rows,)
        Relevance labels; a row is relevant when ``y_true > 0`` (``>= min_relevance``).
    y_score : array-like of shape (n_rows,)
        Scores; higher ranks first.
    qid : array-like of shape (n_rows,)
        Query id of each row; rows need not be grouped."""


def _external_n_pos(n_pos, uniques, found):
    """Per-query ``n_pos`` from a mapping/Series ``qid -> n_pos``, checked against ``found``."""
    if not isinstance(n_pos, (Mapping, pd.Series)):
        raise TypeError(
            "n_pos must be None, a dict or a pandas Series qid -> number of relevant documents "
            f"(e.g. from the qrels), got {type(n_pos).__name__}."
        )
    values = pd.Series(n_pos).reindex(pd.Index(uniques))
    if values.isna().any():
        missing = list(pd.Index(uniques)[values.isna().to_numpy()][:5])
        raise ValueError(f"n_pos has no count for queries {missing!r}; give every query one.")
    values = values.to_numpy(dtype=np.float64)
    short = values < found
    if short.any():
        q = pd.Index(uniques)[short][0]
        raise ValueError(
            f"n_pos[{q!r}] = {values[short][0]:g} is fewer than the {int(found[short][0])} "
            "relevant documents the ranking holds for that query."
        )
    return values


def precision_recall_points(
    y_true, y_score, *, qid, n_pos=None, ties="pessimistic", min_relevance=None
):
    """Raw precision-recall points of every query, with their interpolated precision.

    Parameters
    ----------
    {rows_parameters}
    n_pos : dict or Series of qid -> int, optional
        Relevant documents per query, retrieved or not (from the qrels or
        :func:`~sklearn_ltr_metrics.io.read_query_stats`); default: the relevant rows.
    ties : {"pessimistic", "optimistic", "stable"}, default="pessimistic"
        Order of tied scores: relevant rows last, first, or in input order.
    min_relevance : float, optional
        Label threshold for relevance.

    Returns
    -------
    DataFrame
        One row per relevant row of the ranking, columns ``qid, rank, recall, precision,
        interpolated``, queries in order of first appearance, points by rank. A query without
        a relevant row has no point.

    Examples
    --------
    Relevant documents at ranks 1 and 3, and a third one the ranking missed (``n_pos=3``):

    >>> from sklearn_ltr_metrics.metrics import precision_recall_points
    >>> precision_recall_points([1, 0, 1, 0], [4, 3, 2, 1], qid=["a"] * 4, n_pos={"a": 3})
      qid  rank    recall  precision  interpolated
    0   a     1  0.333333   1.000000      1.000000
    1   a     3  0.666667   0.666667      0.666667
    """
    ties = check_choice(ties, "ties", _TIES)
    qid_values = check_1d(qid, "qid")
    y_true = check_labels(y_true)
    y_score = check_scores(y_score, qid_values)
    check_consistent_length(y_true=y_true, y_score=y_score, qid=qid_values)
    if min_relevance is not None and (
        isinstance(min_relevance, bool) or not isinstance(min_relevance, numbers.Real)
    ):
        raise TypeError(f"min_relevance must be a number or None, got {min_relevance!r}.")
    relevant = y_true >= min_relevance if min_relevance is not None else y_true > 0
    codes, uniques = pd.factorize(qid_values)
    tiebreak = {
        "pessimistic": relevant.astype(np.int8),
        "optimistic": -relevant.astype(np.int8),
        "stable": np.arange(codes.size),
    }[ties]
    order = np.lexsort((tiebreak, -y_score, codes))
    sizes = np.bincount(codes, minlength=len(uniques))
    starts = np.cumsum(sizes) - sizes
    ranked = np.flatnonzero(relevant[order])
    q = codes[order][ranked]
    rank = ranked - starts[q] + 1
    found = np.bincount(q, minlength=len(uniques))
    first = np.cumsum(found) - found
    j = np.arange(ranked.size) - first[q] + 1
    total = found.astype(np.float64) if n_pos is None else _external_n_pos(n_pos, uniques, found)
    precision = j / rank
    # Reverse running maximum per query: offsets grow along the reversed order, so no maximum
    # leaks from one query into the one before it (precision lies in [0, 1]).
    offset = 2.0 * (len(uniques) - q[::-1])
    interpolated = (np.maximum.accumulate(precision[::-1] + offset) - offset)[::-1]
    return pd.DataFrame(
        {
            "qid": np.asarray(uniques, dtype=object)[q] if q.size else np.array([], object),
            "rank": rank.astype(np.int64),
            "recall": j / total[q],
            "precision": precision,
            "interpolated": interpolated,
        },
        columns=PR_POINT_COLUMNS,
    )


precision_recall_points.__doc__ = (precision_recall_points.__doc__ or "").replace(
    "{rows_parameters}", ROWS_PARAMETERS
)
