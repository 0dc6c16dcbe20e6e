"""The order of a run's rows for the measures beyond relevance, and the judgments of the
diversity measures as flat pairs (:mod:`._diversity`'s input).

Rows are ranked by the engine's compiled sort (query, then descending score, input order
inside ties); only the rows of tied blocks are then reordered by doc_id (``ties="doc_id"``:
ascending, pyndeval's order; ``"trec_eval"``: descending), so a run without ties costs one
sort.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..._engine import (
    decimal_keys,
    decimal_keys_at,
    group_rows,
    rank_order,
    rank_support,
    rows_by_support,
)

__all__ = [
    "DIVERSITY_TIES",
    "average_ranks",
    "doc_keys",
    "rank_active",
    "rank_rows",
    "tied_blocks",
]

#: The tie policies the order-based measures take.
DIVERSITY_TIES = ("doc_id", "trec_eval", "stable")


def doc_keys(doc_id, rows=None):
    """Integer keys ordered like the ids' strings (ndeval compares doc ids with strcmp).

    Non-negative integer ids are ordered as their decimal strings without writing them: by
    the digits aligned to the left, then by length ("12" < "123" < "13"); other ids by the
    rank of their string. ``rows``: the keys of ``doc_id[rows]`` (int64 ids read in place).
    """
    ids = np.asarray(doc_id)
    if rows is not None and ids.dtype == np.int64 and ids.ndim == 1:
        keys = decimal_keys_at(ids, rows)  # None: an id negative or past 10**17
        if keys is not None:
            return keys
    if rows is not None:
        ids = ids[rows]
    if ids.dtype.kind in "iu" and ids.size and ids.min() >= 0 and ids.max() < 10**17:
        return decimal_keys(ids)  # compiled; < 2 * 10**18: int64, no sort needed
    strings = ids.astype(str)
    return np.unique(strings, return_inverse=True)[1].ravel()


def tied_blocks(codes, scores):
    """Per ranked row, the first row of its tied block (same query, same score)."""
    n = codes.size
    new = np.ones(n, dtype=bool)
    new[1:] = (codes[1:] != codes[:-1]) | (scores[1:] != scores[:-1])
    return np.maximum.accumulate(np.where(new, np.arange(n), 0))


def _check_ties(ties, doc_id):
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


def rank_active(codes, y_score, active, doc_id, ties, n_threads=1, rows=None, grouping=None):
    """The 1-based rank of every active row (0 for the others; only at ``rows``, the active
    rows ascending, when given), without sorting a query: the engine's compiled
    :func:`rank_support` counts the rows above each active row; only the tied blocks holding
    an active row are then ordered by doc_id. ``codes`` may be None when ``grouping`` holds
    the queries as whole runs in code order (then repeated from the runs' sizes if a tied
    block needs them)."""
    _check_ties(ties, doc_id)
    if grouping is None:
        grouping = group_rows(codes, n_threads=n_threads)
    support = rank_support(grouping, y_score, active, tie_order=True, n_threads=n_threads)
    within = support.before
    tied = support.tied > 0
    if ties != "stable" and tied.any():
        if codes is None:
            codes = np.repeat(np.arange(grouping.n_groups), grouping.sizes)
        scores = np.asarray(y_score)
        tied_rows = support.row[tied]
        blocks = pd.MultiIndex.from_arrays([codes[tied_rows], scores[tied_rows]]).unique()
        members = np.flatnonzero(pd.MultiIndex.from_arrays([codes, scores]).isin(blocks))
        block, _ = pd.MultiIndex.from_arrays([codes[members], scores[members]]).factorize()
        key = doc_keys(np.asarray(doc_id)[members])
        order = np.lexsort((-key if ties == "trec_eval" else key, block))
        sorted_block = block[order]
        position = np.arange(order.size)
        first = np.maximum.accumulate(
            np.where(np.r_[True, sorted_block[1:] != sorted_block[:-1]], position, 0)
        )
        place = np.empty(members.size, dtype=np.int64)
        place[order] = position - first
        at = np.full(codes.size, -1, dtype=np.int64)
        at[members] = place
        within[tied] = at[tied_rows]
    if rows is not None and not grouping.interleaved and grouping.grouped is None:
        # Whole runs in code order: the rows' blocks are the support's, mapped query by query.
        return rows_by_support(support, within, rows)
    # 32 bits: a query holds fewer than 2**31 rows (rank_support's counts are 32-bit too),
    # and the scratch of every row costs half as much to write.
    n_rows = np.asarray(y_score).shape[0]
    rank = np.zeros(n_rows, dtype=np.int32 if rows is not None else np.int64)
    rank[support.row] = support.greater + within + 1
    return rank if rows is None else rank[rows].astype(np.int64)


def average_ranks(codes, y_score, active, n_threads=1):
    """``(rank, block)``: the first rank of each active row's tied block and the block's
    size (0 for the other rows; ``active=None``: every row), for ``ties="average"``."""
    grouping = group_rows(codes, n_threads=n_threads)
    rows = np.ones(codes.size, dtype=bool) if active is None else active
    support = rank_support(grouping, y_score, rows, n_threads=n_threads)
    rank = np.zeros(codes.size, dtype=np.int64)
    block = np.zeros(codes.size, dtype=np.int64)
    rank[support.row] = support.greater.astype(np.int64) + 1
    block[support.row] = support.tied.astype(np.int64) + 1
    return rank, block


def rank_rows(codes, y_score, doc_id, ties, n_threads=1):
    """``(order, rank)``: rows in ranked order and each row's 1-based rank in its query.

    ``codes`` are dense query codes (0..n_queries-1); ``ties`` one of ``DIVERSITY_TIES``.
    """
    _check_ties(ties, doc_id)
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
