"""trec_eval's ``-M N``: keep only the first ``N`` rows of each query, in ranked order.

``max_docs`` (an option of :func:`check_options`) cuts every query's list after ranking, as
trec_eval does before it computes anything: the cut rows are no longer retrieved, but they
still count as judged documents (``n_pos`` and the ideal DCG keep them). Ranked order is the
tie policy's order; under ``ties="average"`` and ``"label_ranking"`` a tied block that straddles
row ``N`` has no first rows, so that cut is refused with the policies that define one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._engine import factorize_qid, tiebreak_key
from ._per_query import evaluate_arrays

__all__ = ["evaluate_first_rows", "first_rows", "ranked_order"]

#: Tie policies without an order of their own inside a tied block.
_UNORDERED_TIES = ("average", "label_ranking")


def _tiebreak(ties, y_true, doc_id, n_rows):
    """The key that orders tied rows under ``ties`` (the engine's), input order where the
    policy has none of its own."""
    key = tiebreak_key(ties, y_true, doc_id)
    return np.arange(n_rows) if key is None else key


def ranked_order(y_true, y_score, qid, doc_id, ties):
    """``(order, rank)``: the rows sorted by query (first-seen order), then in ranked order
    under ``ties`` (input order inside a tied block where the policy has none), and each
    sorted row's 0-based rank in its query."""
    y_score = np.asarray(y_score, dtype=np.float64)
    n_rows = y_score.shape[0]
    codes = pd.factorize(np.asarray(qid))[0]
    order = np.lexsort((_tiebreak(ties, y_true, doc_id, n_rows), -y_score, codes))
    sorted_codes = codes[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    sizes = np.diff(np.r_[starts, n_rows])
    return order, np.arange(n_rows) - np.repeat(starts, sizes)


def first_rows(y_true, y_score, qid, doc_id, ties, max_docs):
    """Mask of the rows among the first ``max_docs`` of their query in ranked order.

    Parameters
    ----------
    y_true, y_score : ndarray of shape (n_rows,)
        Validated labels and finite scores.
    qid : array-like of shape (n_rows,)
        Query ids (or integer codes of them).
    doc_id : array-like of shape (n_rows,) or None
        Document ids, for ``ties="trec_eval"`` and ``"doc_id"``.
    ties : str
        The tie policy that orders tied rows.
    max_docs : int
        Rows kept per query (>= 1).

    Returns
    -------
    ndarray of bool
        True for the kept rows, in input order.

    Examples
    --------
    >>> first_rows([1, 0, 0, 1], [0.9, 0.5, 0.5, 0.1], [1, 1, 1, 2], None, "stable", 2)
    array([ True,  True, False,  True])
    """
    y_score = np.asarray(y_score, dtype=np.float64)
    n_rows = y_score.shape[0]
    order, rank = ranked_order(y_true, y_score, qid, doc_id, ties)
    if ties in _UNORDERED_TIES:
        after = np.flatnonzero(rank == max_docs)  # row N + 1 of each longer query
        scores = y_score[order]
        cut = scores[after - 1] == scores[after]
        if cut.any():
            where = np.asarray(qid)[order[after[np.flatnonzero(cut)[0]]]]
            where = where.item() if isinstance(where, np.generic) else where
            raise ValueError(
                f"max_docs={max_docs} cuts a block of tied scores in query {where!r} (rows "
                f"{max_docs} and {max_docs + 1} share a score); under ties={ties!r} tied rows "
                "have no order, so which of them are the first rows is not defined. Pass "
                "ties='stable' (input order), 'trec_eval' (doc_id descending), 'pessimistic' "
                "or 'optimistic'."
            )
    keep = np.empty(n_rows, dtype=bool)
    keep[order] = rank < max_docs
    return keep


def evaluate_first_rows(
    y_true, y_score, qid, doc_id, specs, options, query_stats, n_jobs, qid_values
):
    """``max_docs`` (trec_eval -M): the first rows ranked, every row judged.

    Every query keeps at least one row, so the queries are those of the whole input.
    """
    keep = first_rows(y_true, y_score, qid, doc_id, options["ties"], options["max_docs"])
    kept_qid = qid[keep]
    if qid_values is None:
        _, uniques = factorize_qid(kept_qid)
        codes = pd.Index(uniques).get_indexer(qid)
    else:  # integer codes of the sorted ids already
        uniques, codes = qid_values, qid
    threshold = options["min_relevance"]
    is_rel = y_true >= threshold if threshold is not None else y_true > 0
    n_pos = np.bincount(codes, weights=is_rel, minlength=len(uniques))
    return evaluate_arrays(
        y_true[keep],
        y_score[keep],
        kept_qid,
        specs,
        options,
        doc_id=None if doc_id is None else doc_id[keep],
        query_stats=query_stats,
        ideal=(codes, y_true),
        n_pos_judged=n_pos,
        n_jobs=n_jobs,
        qid_values=qid_values,
    )
