"""The compatibility measure (Clarke, Vtyurina and Smucker): rank-biased overlap of the ranking
with an ideal ranking, as ir_measures' ``Compat`` computes it.

The ideal ranking holds the judged documents with a label above 0, by label (descending),
then by the run's score (descending; 0 for a document the run did not retrieve), then in the
order the ranking gives them. With ``depth = max(retrieved, ideal documents)`` and
``A_d``, ``B_d`` the first ``d`` documents of both::

    RBO = sum_{d=1}^{depth} p**(d-1) |A_d & B_d| / d  /  sum_{d=1}^{depth} p**(d-1)

A document in both lists counts at every depth from ``m = max(its two ranks)``, so RBO is a sum
over the retrieved relevant rows of the tail ``S(m) = sum_{d>=m} p**(d-1) / d``: vectorised
over all queries. ``normalize=True`` divides by the RBO of the ideal ranking with itself.
Formulas: ``docs/conventions.rst`` ("User models").
"""

from __future__ import annotations

import numpy as np

from .._engine import active_rule, segment_cumsum
from ._kernels_order import _strict_order
from ._kernels_trec import cached

__all__ = []


def _retrieved(lists):
    """The retrieved rows with a label above 0: query, 1-based rank, label and score."""

    def compute():
        rule = active_rule(lists.y_true, 0.0)
        by_label = lists.ranking.support(rule, labels=lists.y_true)
        by_score = lists.ranking.support(rule, labels=lists.y_score)
        before = 0 if by_label.before is None else by_label.before
        rank = by_label.greater.astype(np.float64) + before + 1.0
        query = np.repeat(np.arange(lists.n_queries), by_label.counts)
        return query, rank, by_label.labels, by_score.labels

    return cached(lists, "compat_rows", compute)


def _ideal_ranks(lists, query, rank, labels, scores):
    """Each retrieved relevant row's rank in the ideal ranking, and the ideal's length."""
    n_q = lists.n_queries
    if lists.ideal_labels is not None:
        judged = lists.ideal_labels
        codes = lists.ideal_codes_of(np.arange(judged.size))
        keep = judged > 0
        judged, codes = judged[keep], codes[keep]
    else:
        judged, codes = labels, query
    levels, level = np.unique(judged, return_inverse=True)
    width = max(levels.size, 1)
    every = np.bincount(codes * width + level.ravel(), minlength=n_q * width)
    level_of = np.searchsorted(levels, labels)
    seen = np.bincount(query * width + level_of, minlength=n_q * width)
    missing = every - seen  # relevant judged documents the run did not retrieve
    key = np.repeat(np.arange(n_q * width), missing)
    all_query = np.concatenate((query, key // width))
    all_label = np.concatenate((labels, levels[key % width] if levels.size else key * 0.0))
    all_score = np.concatenate((scores, np.zeros(key.size)))
    all_tie = np.concatenate((rank, np.full(key.size, np.inf)))
    order = np.lexsort((all_tie, -all_score, -all_label, all_query))
    n_ideal = np.bincount(all_query, minlength=n_q)
    starts = np.concatenate(([0], np.cumsum(n_ideal)))[:-1]
    position = np.empty(order.size)
    position[order] = np.arange(order.size) - starts[all_query[order]] + 1.0
    return position[: query.size], n_ideal


def _compat(c):
    _strict_order(c, "compat")
    lists = c.lists
    p, normalize = c.options["p"], c.options["normalize"]
    query, rank, labels, scores = _retrieved(lists)
    ideal_rank, n_ideal = _ideal_ranks(lists, query, rank, labels, scores)
    depth = np.maximum(lists.sizes, n_ideal).astype(np.int64)
    offsets = np.concatenate(([0], np.cumsum(depth)))
    d = np.arange(offsets[-1]) - np.repeat(offsets[:-1], depth) + 1.0
    weight = np.power(p, d - 1.0) / d
    running = segment_cumsum(weight, offsets)
    total = np.bincount(
        np.repeat(np.arange(lists.n_queries), depth), weights=weight, minlength=lists.n_queries
    )

    def tail(q, m):
        """sum_{d >= m} p**(d-1) / d of query q (m >= 1; 0 beyond the depth)."""
        m = m.astype(np.int64)
        inside = m <= depth[q]
        upto = np.where(m >= 2, running[np.maximum(offsets[q] + m - 2, 0)], 0.0)
        return np.where(inside, total[q] - upto, 0.0)

    overlap = np.bincount(
        query, weights=tail(query, np.maximum(rank, ideal_rank)), minlength=lists.n_queries
    )
    norm = (1.0 - np.power(p, depth)) / (1.0 - p)
    every = np.arange(lists.n_queries)
    best = (1.0 - np.power(p, n_ideal)) / (1.0 - p) + n_ideal * tail(every, n_ideal + 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = overlap / norm
        if normalize:
            value = np.where(best > 0, overlap / best, value)
    return c.at(np.where(depth > 0, value, 0.0))
