"""trec_eval's experimental gain measures that compare the ranking with the ideal one row by
row: G, ndcg_rel and Rndcg.

Each reads, at the rank of each support row, the ideal ranking's gain and cumulative gain
(from the ideal's gain levels, :meth:`~._ranked.RankedLists.ideal_dcg`). Rndcg reads the DCG
at fixed ranks and ndcg_rel has a closed tie-averaged form, and G's logarithm of the gain so
far an exact sum over the count vectors of each tied block (:mod:`._kernels_ties`), so all
three are exact under ``ties="average"``; under ``"label_ranking"`` each row reads its whole
block above it. Formulas: ``docs/conventions.rst`` ("trec_eval's other measures").
"""

from __future__ import annotations

import numpy as np

from ..._engine import segment_cumsum
from ._order import _per_query, _strict_order, through_block
from ._ties import g_points_tied, ndcg_rel_points_tied

__all__ = []


def _levels(lists):
    """The ideal's positive gain levels: gain, count, cumulative count per (query, level) run,
    each run's query and the runs' offsets."""
    gain, count, upper, offsets = lists.ideal_levels
    query = np.repeat(np.arange(lists.n_queries), np.diff(offsets))
    return gain, count, upper, query, offsets


def _run_at(lists, query, position, levels):
    """Index of the ideal's level run at each (query, 0-based rank), and whether there is one
    (False beyond the ideal's positive gains)."""
    _gain, count, upper, _query, offsets = levels
    # The ideal's ranks of every query end to end, each the index of its level run: rank p
    # of query q is read at q's first rank + p (no binary search).
    run_of_rank = np.repeat(np.arange(count.size), count.astype(np.intp))
    n_ideal = np.zeros(lists.n_queries, dtype=np.int64)
    ends = offsets[1:]
    filled = ends > offsets[:-1]
    n_ideal[filled] = upper[ends[filled] - 1]
    inside = position < n_ideal[query]
    if not run_of_rank.size:
        return np.zeros(np.shape(position), dtype=np.intp), inside
    first_rank = np.concatenate(([0], np.cumsum(n_ideal)[:-1]))
    at = first_rank[query]
    at += np.asarray(position, dtype=np.int64)
    np.minimum(at, run_of_rank.size - 1, out=at)  # rows beyond the ideal: any run, then 0
    at = run_of_rank[at]
    at[~inside] = 0
    return at, inside


def _row_gains(lists, s):
    return lists.gains(s.labels)


def _cost_at(lists, levels):
    """``cost(query, rank)``: the ideal's cumulative cost to each 0-based rank (its gains,
    at least 1 per rank, then 1 per rank past its positive gains)."""
    gain, count, upper, query, offsets = levels
    cost = np.maximum(gain, 1.0) * count
    cost_before = segment_cumsum(cost, offsets) - cost
    total_cost = np.bincount(query, weights=cost, minlength=lists.n_queries)
    total_count = np.bincount(query, weights=count, minlength=lists.n_queries)

    def at(q, position):
        """In place: few arrays of the rows' size."""
        run, inside = _run_at(lists, q, position, levels)
        m = position + 1.0
        beyond = np.subtract(m, total_count[q])  # past the ideal's positive gains
        np.add(total_cost[q], beyond, out=beyond)
        if not upper.size:  # no query has a positive gain
            return beyond
        cumulative = (upper - count).astype(np.float64)[run]
        np.subtract(m, cumulative, out=cumulative)
        np.multiply(np.maximum(gain, 1.0)[run], cumulative, out=cumulative)
        np.add(cost_before[run], cumulative, out=cumulative)
        np.copyto(cumulative, beyond, where=~inside)
        return cumulative

    return at


def _g(c):
    """trec_eval's G: each row's gain over ``log2(2 + ideal cost - gain so far)``, summed
    and divided by the ideal's total gain (costs: the ideal's gains, at least 1 per rank)."""
    _strict_order(c, "g", average=True, label_ranking=True)
    lists = c.lists
    s = lists.support
    levels = _levels(lists)
    gain, count, _upper, query, _offsets = levels
    cost_at = _cost_at(lists, levels)
    row_gain = _row_gains(lists, s)
    if lists.average_ties:
        total = g_points_tied(lists, s, row_gain, cost_at)
    else:  # row_gain / log2(2 + cumulative cost - gain so far), 0 without; in place
        term = cost_at(s.query, s.position)
        np.add(2.0, term, out=term)
        np.subtract(term, through_block(s, s.prefix(row_gain)), out=term)
        with np.errstate(divide="ignore", invalid="ignore"):
            np.log2(term, out=term)
            np.divide(row_gain, term, out=term)
        term[row_gain == 0] = 0.0
        total = _per_query(lists, s, term)
    ideal = np.bincount(query, weights=gain * count, minlength=lists.n_queries)
    return c.at(np.where(ideal > 0, total / np.where(ideal > 0, ideal, 1.0), 0.0))


def _ndcg_rel(c):
    """trec_eval's ndcg_rel: nDCG averaged at each row with a positive gain (the whole list's
    nDCG for the ideal's rows never retrieved), over the ideal's rows with a positive gain."""
    _strict_order(c, "ndcg_rel", average=True, label_ranking=True)
    lists = c.lists
    s = lists.support
    every = lists.every_query
    row_gain = _row_gains(lists, s)
    if lists.average_ties:
        total = ndcg_rel_points_tied(lists, s, row_gain)
    else:  # in place: few arrays of the support's size
        rank = s.position + 1.0
        term = lists.discount(rank)
        with np.errstate(divide="ignore", invalid="ignore"):
            np.divide(row_gain, term, out=term)
        term[row_gain == 0] = 0.0
        points = through_block(s, s.prefix(term))  # the DCG at each row (its block's)
        with np.errstate(divide="ignore", invalid="ignore"):
            np.divide(points, lists.ideal_dcg(s.query, rank), out=points)
        points[~(row_gain > 0)] = 0.0
        total = _per_query(lists, s, points)
    _gain, count, _upper, query, _offsets = _levels(lists)
    n_ideal = np.bincount(query, weights=count, minlength=lists.n_queries)
    n_found = _per_query(lists, s, row_gain > 0)
    whole = lists.dcg(every, lists.sizes.astype(np.int64))
    whole_ideal = lists.ideal_dcg(every, np.full(lists.n_queries, np.inf))
    with np.errstate(divide="ignore", invalid="ignore"):
        total = total + (n_ideal - n_found) * (whole / whole_ideal)
        value = np.where(total > 0, total / n_ideal, 0.0)
    return c.at(value)


def _rndcg(c):
    """trec_eval's Rndcg: the mean of nDCG at each rank where the ideal's gain changes (each
    level's last rank), plus the whole list's when it runs on past the ideal's positive
    gains by more than one row; 0 for a query without relevant documents."""
    # DCG at fixed ranks: exact under tie averaging, and under block ranks.
    _strict_order(c, "rndcg", average=True, label_ranking=True)
    lists = c.lists
    _gain, count, upper, query, _offsets = _levels(lists)
    sizes = lists.sizes
    at = upper.astype(np.float64)
    dcg = lists.dcg(query, np.minimum(upper, sizes[query]).astype(np.int64))
    points = dcg / lists.ideal_dcg(query, at)
    total = np.bincount(query, weights=points, minlength=lists.n_queries)
    n_points = np.bincount(query, minlength=lists.n_queries).astype(np.float64)
    n_ideal = np.bincount(query, weights=count, minlength=lists.n_queries)
    every = lists.every_query
    extra = (sizes > n_ideal + 1) & (n_ideal > 0)
    whole = lists.dcg(every, sizes.astype(np.int64))
    whole_ideal = lists.ideal_dcg(every, np.full(lists.n_queries, np.inf))
    with np.errstate(divide="ignore", invalid="ignore"):
        total = total + np.where(extra, whole / whole_ideal, 0.0)
        value = total / (n_points + extra)
    return c.at(np.where(lists.n_pos > 0, value, 0.0))
