"""The order of a run's rows for the measures beyond relevance, and the judgments of the
diversity measures as flat pairs (:mod:`._diversity`'s input).

Rows are ranked by the engine's compiled sort (query, then descending score, input order
inside ties); only the rows of tied blocks are then reordered by doc_id (``ties="doc_id"``:
ascending, pyndeval's order; ``"trec_eval"``: descending), so a run without ties costs one
sort.
"""

from __future__ import annotations

import numpy as np

from ..._engine import group_rows, rank_order

__all__ = ["DIVERSITY_TIES", "doc_keys", "rank_rows", "tied_blocks"]

#: The tie policies the order-based measures take.
DIVERSITY_TIES = ("doc_id", "trec_eval", "stable")


def doc_keys(doc_id):
    """Integer keys ordered like the ids' strings (ndeval compares doc ids with strcmp)."""
    strings = np.asarray(doc_id).astype(str)
    return np.unique(strings, return_inverse=True)[1].ravel()


def tied_blocks(codes, scores):
    """Per ranked row, the first row of its tied block (same query, same score)."""
    n = codes.size
    new = np.ones(n, dtype=bool)
    new[1:] = (codes[1:] != codes[:-1]) | (scores[1:] != scores[:-1])
    return np.maximum.accumulate(np.where(new, np.arange(n), 0))


def rank_rows(codes, y_score, doc_id, ties, n_threads=1):
    """``(order, rank)``: rows in ranked order and each row's 1-based rank in its query.

    ``codes`` are dense query codes (0..n_queries-1); ``ties`` one of ``DIVERSITY_TIES``.
    """
    if ties not in DIVERSITY_TIES:
        raise ValueError(
            f"ties={ties!r} has no exact form for these measures (their gains depend on the "
            "order inside a tied block); pass ties='doc_id' (score descending, then doc_id "
            "ascending: pyndeval's order, the default), 'trec_eval' (doc_id descending) or "
            "'stable' (input order)."
        )
    if ties != "stable" and doc_id is None:
        raise ValueError(
            f"ties={ties!r} breaks tied scores by doc_id; pass doc_id=..., or ties='stable' "
            "(input order)."
        )
    grouping = group_rows(codes, n_threads=n_threads)
    order = rank_order(grouping, y_score, stable=True, n_threads=n_threads)
    sorted_codes = codes[order]
    scores = np.asarray(y_score)[order]
    first = tied_blocks(sorted_codes, scores)
    if ties != "stable":
        in_block = np.zeros(order.size, dtype=bool)
        in_block[1:] = first[1:] != np.arange(1, order.size)
        in_block[first[in_block]] = True
        rows = np.flatnonzero(in_block)
        if rows.size:
            key = doc_keys(np.asarray(doc_id)[order[rows]])
            key = -key if ties == "trec_eval" else key
            order[rows] = order[rows][np.lexsort((key, first[rows]))]
    starts = np.zeros(grouping.n_groups + 1, dtype=np.int64)
    np.cumsum(np.bincount(codes, minlength=grouping.n_groups), out=starts[1:])
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size) - starts[sorted_codes] + 1
    return order, rank
