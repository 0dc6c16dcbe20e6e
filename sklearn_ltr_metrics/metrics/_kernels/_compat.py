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
Under ``ties="average"`` the rows of one label tied in the ranking share their ideal ranks in
the ranking's order, so each such group sums its tails over the order statistics of its
positions in the block; under ``"label_ranking"`` each row takes its block's last rank and its
group's last ideal rank. Formulas: ``docs/conventions.rst`` ("User models").
"""

from __future__ import annotations

import numpy as np

from ..._engine import active_rule, segment_cumsum
from ._blocks import check_states, chunks, special
from ._order import _strict_order
from ._trec import cached

__all__ = []


def _retrieved(lists):
    """The retrieved rows with a label above 0: query, 1-based rank, label, score, and the
    start and size of their tied block."""

    def compute():
        rule = active_rule(lists.y_true, 0.0)
        by_label = lists.ranking.support(rule, labels=lists.y_true)
        by_score = lists.ranking.support(rule, labels=lists.y_score)
        before = 0 if by_label.before is None else by_label.before
        rank = by_label.greater.astype(np.float64) + before + 1.0
        query = np.repeat(np.arange(lists.n_queries), by_label.counts)
        start, size = by_label.greater.astype(np.int64), by_label.tied.astype(np.int64) + 1
        return query, rank, by_label.labels, by_score.labels, start, size

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
    _strict_order(c, "compat", average=True, label_ranking=True)
    lists = c.lists
    p, normalize = c.options["p"], c.options["normalize"]
    query, rank, labels, scores, start, size = _retrieved(lists)
    unordered = lists.average_ties or lists.threshold_ties
    if unordered:  # the rows of a tied block share its first rank in the ideal's sort
        rank = start + 1.0
    ideal_rank, n_ideal = _ideal_ranks(lists, query, rank, labels, scores)
    depth = np.maximum(lists.sizes, n_ideal).astype(np.int64)
    tail = _tail(lists, p, depth)
    if unordered:
        overlap = _tied_overlap(lists, tail, query, labels, start, size, ideal_rank)
    else:
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


def _tail(lists, p, depth):
    """``tail(q, m) = sum_{d >= m} p**(d-1) / d`` of query ``q`` (``m >= 1``; 0 beyond its
    depth)."""
    offsets = np.concatenate(([0], np.cumsum(depth)))
    d = np.arange(offsets[-1]) - np.repeat(offsets[:-1], depth) + 1.0
    weight = np.power(p, d - 1.0) / d
    running = segment_cumsum(weight, offsets)
    total = np.bincount(
        np.repeat(np.arange(lists.n_queries), depth), weights=weight, minlength=lists.n_queries
    )

    def tail(q, m):
        m = m.astype(np.int64)
        inside = m <= depth[q]
        upto = np.where(m >= 2, running[np.maximum(offsets[q] + m - 2, 0)], 0.0)
        return np.where(inside, total[q] - upto, 0.0)

    return tail


def _tied_overlap(lists, tail, query, labels, start, size, ideal_rank):
    """The overlap under ``ties="average"`` or ``"label_ranking"``: per group of retrieved rows
    with one label in one tied block (``g`` rows, ideal ranks ``f .. f + g - 1`` in the order
    the ranking gives them), the ``i``-th of them in the ranking sits at the block's ``i``-th
    smallest of ``g`` uniformly random positions (average), or every row at the block's last
    rank and its group's last ideal rank (label_ranking)."""
    key = np.lexsort((labels, start, query))
    q, s, lab = query[key], start[key], labels[key]
    new = np.ones(key.size, dtype=bool)
    new[1:] = (q[1:] != q[:-1]) | (s[1:] != s[:-1]) | (lab[1:] != lab[:-1])
    first = np.flatnonzero(new)
    g = np.diff(np.append(first, key.size))
    q, s, n = q[first], s[first], size[key][first]
    f = np.minimum.reduceat(ideal_rank[key], first) if first.size else ideal_rank[:0]
    if lists.threshold_ties:
        terms = g * tail(q, np.maximum(s + n, f + g - 1.0))
    else:
        terms = _order_statistic_sums(tail, q, s, n, g, f)
    return np.bincount(q, weights=terms, minlength=lists.n_queries)


def _order_statistic_sums(tail, q, s, n, g, f):
    """``sum_i sum_p P(p_(i) = p) tail(s + p + 1 v f + i - 1)`` per group, ``p_(i)`` the
    ``i``-th smallest of ``g`` distinct uniform positions ``0 .. n - 1``:
    ``P(p_(i) = p) = C(p, i - 1) C(n - 1 - p, g - i) / C(n, g)``."""
    width = n - g + 1  # p - (i - 1) takes 0 .. n - g
    pairs = g * width
    check_states("compat", n, pairs)
    out = np.zeros(g.size)
    for lo, hi in chunks(pairs):
        group = np.repeat(np.arange(lo, hi), pairs[lo:hi])
        local = np.arange(group.size) - np.repeat(
            np.cumsum(pairs[lo:hi]) - pairs[lo:hi], pairs[lo:hi]
        )
        i = local // width[group] + 1
        p = local % width[group] + i - 1
        nn, gg = n[group].astype(np.float64), g[group].astype(np.float64)
        log_p = (
            _log_comb(p.astype(np.float64), i - 1.0)
            + _log_comb(nn - 1.0 - p, gg - i)
            - _log_comb(nn, gg)
        )
        m = np.maximum(s[group] + p + 1.0, f[group] + i - 1.0)
        out += np.bincount(group, weights=np.exp(log_p) * tail(q[group], m), minlength=g.size)
    return out


def _log_comb(n, k):
    gammaln = special("gammaln")
    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)
