"""trec_eval's experimental gain measures that compare the ranking with the ideal one row by
row: G, ndcg_rel and Rndcg.

Each reads, at the rank of each support row, the ideal ranking's gain and cumulative gain
(from the ideal's gain levels, :meth:`~._ranked.RankedLists.ideal_dcg`). Rndcg reads the DCG
at fixed ranks and ndcg_rel has a closed tie-averaged form (:mod:`._kernels_ties`), so both
are exact under ``ties="average"``; G's logarithm of the gain so far needs a strict order
(refused under tied relevant rows with ``ties="average"``). Formulas: ``docs/conventions.rst``
("trec_eval's other measures").
"""

from __future__ import annotations

import numpy as np

from .._engine import segment_cumsum
from ._kernels_order import _per_query, _strict_order
from ._kernels_ties import ndcg_rel_points_tied

__all__ = []


def _levels(lists):
    """The ideal's positive gain levels: gain, count, cumulative count per (query, level) run,
    each run's query and the runs' offsets."""
    gain, count, upper, offsets = lists.ideal_levels
    query = np.repeat(np.arange(lists.n_queries), np.diff(offsets))
    return gain, count, upper, query, offsets


def _run_at(lists, s, levels):
    """Index of the ideal's level run at each support row's rank, and whether there is one
    (False beyond the ideal's positive gains)."""
    _gain, count, upper, _query, offsets = levels
    # The ideal's ranks of every query end to end, each the index of its level run: a
    # support row at position p of query q reads rank p of q's (no binary search).
    run_of_rank = np.repeat(np.arange(count.size), count.astype(np.intp))
    n_ideal = np.zeros(lists.n_queries, dtype=np.int64)
    ends = offsets[1:]
    filled = ends > offsets[:-1]
    n_ideal[filled] = upper[ends[filled] - 1]
    inside = s.position < n_ideal[s.query]
    if not run_of_rank.size:
        return np.zeros(s.position.size, dtype=np.intp), inside
    first_rank = np.concatenate(([0], np.cumsum(n_ideal)[:-1]))
    at = first_rank[s.query]
    at += s.position
    np.minimum(at, run_of_rank.size - 1, out=at)  # rows beyond the ideal: any run, then 0
    at = run_of_rank[at]
    at[~inside] = 0
    return at, inside


def _row_gains(lists, s):
    return lists.gains(s.labels)


def _g(c):
    """trec_eval's G: each row's gain over ``log2(2 + ideal cost - gain so far)``, summed
    and divided by the ideal's total gain (costs: the ideal's gains, at least 1 per rank)."""
    _strict_order(c, "g")
    lists = c.lists
    s = lists.support
    levels = _levels(lists)
    gain, count, upper, query, offsets = levels
    cost = np.maximum(gain, 1.0) * count
    cost_before = segment_cumsum(cost, offsets) - cost
    total_cost = np.bincount(query, weights=cost, minlength=lists.n_queries)
    total_count = np.bincount(query, weights=count, minlength=lists.n_queries)
    run, inside = _run_at(lists, s, levels)
    m = s.position + 1.0
    # cost_before + max(gain, 1) * (m - (upper - count)) at each row's run, and beyond the
    # ideal's runs total_cost + (m - total_count): in place, few arrays of the support's size.
    cumulative_cost = (upper - count).astype(np.float64)[run]
    np.subtract(m, cumulative_cost, out=cumulative_cost)
    np.multiply(np.maximum(gain, 1.0)[run], cumulative_cost, out=cumulative_cost)
    np.add(cost_before[run], cumulative_cost, out=cumulative_cost)
    beyond = np.subtract(m, total_count[s.query])
    np.add(total_cost[s.query], beyond, out=beyond)
    np.copyto(cumulative_cost, beyond, where=~inside)
    del beyond, m
    row_gain = _row_gains(lists, s)
    term = cumulative_cost  # row_gain / log2(2 + cumulative cost - gain so far), 0 without
    np.add(2.0, term, out=term)
    np.subtract(term, s.prefix(row_gain), out=term)
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
    _strict_order(c, "ndcg_rel", average=True)
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
        points = s.prefix(term)  # the DCG at each row
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
    _strict_order(c, "rndcg", average=True)  # DCG at fixed ranks: exact under tie averaging
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
