"""bpref, binG and ndcg_rel under ``ties="average"``: their exact expectation over the orders
of each tied block.

Both score a relevant row by the non-relevant rows above it (bpref: the judged non-relevant
ones; binG: all of them). In a tied block holding ``m`` such rows, the number of them a given
relevant row of the block finds above it is uniform on ``0..m`` (its place among those ``m``
rows is uniform; the block's other rows do not matter), so its expected term is the mean of
the term at ``a, a+1, ..., a+m``, ``a`` the rows of that kind in the blocks above. Both means
are read from closed forms or a prefix table: no sampling, no loop per query.
infAP and G read several dependent counts of the rows above a row (relevant, judged, pooled
rows; the gain so far): their expectations sum over the count vectors of each block
(:func:`~._kernels_blocks.expected_block_sums`). Formulas: ``docs/conventions.rst`` ("trec_eval's
other measures").
"""

from __future__ import annotations

import numpy as np

from ._blocks import expected_block_sums, value_kinds

__all__ = ["bin_g_tied", "bpref_tied", "g_points_tied", "infap_tied", "ndcg_rel_points_tied"]


def _blocks(s, counted=None):
    """Per tied block of the support ``s``: its query, relevant rows ``r``, size, and the rows
    of the kind counted above a relevant row in the block (``m``) and in the query's blocks
    above it (``a``). ``counted`` flags those rows; None counts every non-relevant row (the
    support then misses some of the rows above: they are counted from the block's rank)."""
    first, size = s.block_first, s.block_size
    query = s.query[first]
    rel = (s.relevant & s.member).astype(np.int64)
    r = np.add.reduceat(rel, first) if rel.size else rel
    if counted is None:
        a = s.block_start - (s.prefix(rel) - rel)[first] if rel.size else rel
        return query, r, size - r, a
    counted = counted.astype(np.int64)
    m = np.add.reduceat(counted, first) if counted.size else counted
    a = (s.prefix(counted) - counted)[first] if counted.size else counted
    return query, r, m, a


def _min_sum(y, cap):
    """``sum_{x=0}^{y-1} min(x, cap)``."""
    below = np.minimum(y, cap + 1.0)
    return below * (below - 1.0) / 2.0 + cap * np.maximum(y - cap - 1.0, 0.0)


def _per_relevant(lists, query, r, mean):
    total = np.bincount(query, weights=r * mean, minlength=lists.n_queries)
    n_pos = lists.n_pos
    return np.where(n_pos > 0, total / np.where(n_pos > 0, n_pos, 1.0), 0.0)


def bpref_tied(lists, s, counted, n_nonrel):
    """Per query bpref, each relevant row's term averaged over the orders of its block.

    ``s`` is the support of the judged rows with ``counted`` flagging the judged non-relevant
    ones, or, with ``counted=None``, the ranked support of flat arrays where every row is
    judged. ``n_nonrel``: the judged non-relevant documents of each query.
    """
    query, r, m, a = _blocks(s, counted)
    n_rel = lists.n_pos[query]
    bound = np.minimum(n_nonrel[query], n_rel)
    sums = _min_sum(a + m + 1.0, n_rel) - _min_sum(a, n_rel)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(bound > 0, 1.0 - sums / ((m + 1.0) * bound), 1.0)
    return _per_relevant(lists, query, r, mean)


def bin_g_tied(lists):
    """Per query binG, each relevant row's term averaged over the orders of its block."""
    query, r, m, a = _blocks(lists.support)
    longest = int(lists.sizes.max(initial=0)) + 2
    table = np.concatenate(([0.0], np.cumsum(1.0 / np.log2(2.0 + np.arange(longest)))))
    mean = (table[(a + m + 1).astype(np.int64)] - table[a.astype(np.int64)]) / (m + 1.0)
    return _per_relevant(lists, query, r, mean)


def ndcg_rel_points_tied(lists, s, row_gain):
    """Per query ``sum over rows with a positive gain of DCG(rank) / ideal DCG(rank)``,
    averaged over the orders of each tied block.

    In a block of ``n`` ranks ``p``, with ``D`` the DCG above it, ``d(p)`` the discount and
    ``I(p)`` the ideal DCG at ``p``, a row's rank is uniform and a pair of its rows takes a
    uniform pair of distinct ranks, so the expected sum is ``k D mean(1/I) + G+ mean(d/I) +
    (k G - G+) C`` with ``k`` the rows of positive gain, ``G+`` their gains, ``G`` every gain
    of the block and ``C = sum_{p<q} d(p) / I(q) / (n (n-1))``.
    """
    first, size = s.block_first, s.block_size
    if not size.size:
        return np.zeros(lists.n_queries)
    disc = 1.0 / lists.discount(s.position + 1.0)
    inv_ideal = 1.0 / lists.ideal_dcg(s.query, s.position + 1.0)
    # The expected DCG above a block: every block above it at its mean gain on every rank.
    weighted = s.block_mean(row_gain) * disc
    above = (s.prefix(weighted) - weighted)[first]
    positive = row_gain > 0
    k = np.add.reduceat(positive.astype(np.float64), first)
    gain_pos = np.add.reduceat(np.where(positive, row_gain, 0.0), first)
    gain_all = np.add.reduceat(row_gain, first)
    mean_inv = np.add.reduceat(inv_ideal, first) / size
    mean_ratio = np.add.reduceat(disc * inv_ideal, first) / size
    cum = s.prefix(disc) - disc  # discounts above each rank in its query
    in_block = cum - np.repeat(cum[first], size)
    pairs = np.add.reduceat(in_block * inv_ideal, first)
    with np.errstate(invalid="ignore", divide="ignore"):
        pair_mean = np.where(size > 1, pairs / (size * (size - 1.0)), 0.0)
    points = k * above * mean_inv + gain_pos * mean_ratio + (k * gain_all - gain_pos) * pair_mean
    return np.bincount(s.query[first], weights=points, minlength=lists.n_queries)


def _exclusive_at(s, flags, first):
    """The sum of ``flags`` over each block's rows above it in its query."""
    flags = flags.astype(np.int64) if flags.dtype == bool else flags
    return (s.prefix(flags) - flags)[first]


def infap_tied(lists, s, kinds, epsilon):
    """Per query infAP, averaged over the orders of each tied block.

    ``kinds``: the relevant, judged non-relevant and pooled (judged, without a grade) rows of
    the support ``s``; its other rows (unjudged) count in the ranks only. ``kinds[1]`` None:
    every row is judged, the rows of a block and above it that are not relevant are the
    judged non-relevant ones. A relevant row's term ``(1 + (J + P) (R + eps) / (J + 2 eps))
    / (j + 1)`` reads the relevant (``R``), judged (``J``) and pooled (``P``) rows above it and
    its rank ``j``.
    """
    first = s.block_first
    every = kinds[1] is None
    kinds = (kinds[0], ~kinds[0] if every else kinds[1], kinds[2])
    counts = np.stack([np.add.reduceat(f.astype(np.int64), first) for f in kinds], axis=1)
    keep = counts[:, 0] > 0
    fillers = (s.block_size - counts.sum(axis=1))[keep]
    rel, nonrel, pool = (_exclusive_at(s, f, first)[keep] for f in kinds)
    if every:  # the rows above a block outside the support are judged non-relevant too
        nonrel = s.block_start[keep] - rel
    query = s.query[first][keep]

    def term(k, x, block, t):
        if k:
            return None
        rel_above = rel[block] + x[:, 0]
        judged = rel_above + nonrel[block] + x[:, 1]
        pooled = pool[block] + x[:, 2]
        return 1.0 + (judged + pooled) * (rel_above + epsilon) / (judged + 2.0 * epsilon)

    expected = expected_block_sums(
        counts[keep],
        term,
        "infap",
        fillers=fillers,
        starts=s.block_start[keep],
        log_h=lambda j: -np.log1p(j),
    )
    return _per_relevant(lists, query, np.ones(query.size), expected)


def g_points_tied(lists, s, row_gain, cost_at):
    """Per query ``sum g / log2(2 + cost(rank) - gain so far)`` of trec_eval's G, averaged
    over the orders of each tied block (``cost_at(query, rank)``: the ideal's cost to the
    0-based ``rank``)."""
    first = s.block_first
    counts, gains = value_kinds(row_gain, first, s.block_size)
    keep = ((gains != 0) & (counts > 0)).any(axis=1)
    counts, gains = counts[keep], gains[keep]
    before = _exclusive_at(s, np.asarray(row_gain, dtype=np.float64), first)[keep]
    query, start, size = s.query[first][keep], s.block_start[keep], s.block_size[keep]
    # The ideal's cost at every rank of each block, read by offset (not searched per state).
    offsets = np.cumsum(size) - size
    rank = np.arange(size.sum()) - np.repeat(offsets - start, size)
    costs = cost_at(np.repeat(query, size), rank)

    def term(k, x, block, t):
        g = gains[block, k]
        if not g.any():
            return None
        so_far = before[block] + (x * gains[block]).sum(axis=1) + g
        cost = costs[offsets[block] + t]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(g != 0, g / np.log2(2.0 + cost - so_far), 0.0)

    expected = expected_block_sums(counts, term, "g")
    return np.bincount(query, weights=expected, minlength=lists.n_queries)
