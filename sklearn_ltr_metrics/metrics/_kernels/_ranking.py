"""Metric kernels: per ``(query, cut-off)`` pair values from :class:`RankedLists`.

A kernel is ``kernel(c) -> values``, one value per pair, where ``c`` is a
:class:`KernelContext`: the ranked lists of every query, the ``(query, cut-off)`` pairs and
the resolved options (:mod:`._options`).
"""

from __future__ import annotations

import numpy as np

from ..._engine import KernelContext, discordant_pairs, segment_cumsum
from ..._table import divide_or_nan

__all__ = ["KernelContext"]


#: Kendall tau-b counts concordance label level by label level up to this many distinct
#: labels in the evaluated rows; beyond it (continuous labels) it counts discordant pairs
#: with a merge over all queries at once (O(n log^2 n), no loop per query).
MAX_KENDALL_LEVELS = 64


# -- correlations over the top k -------------------------------------------------------


def _rank_correlation(ctx, pair_query, kk, method):
    """Kendall tau-b or Spearman rho between scores and labels over each pair's top k.

    The top k is extended to the end of a tied block that straddles the cut-off, so the
    result does not depend on the order of tied rows.
    """
    block_end = np.repeat(ctx.block_first_row + ctx.block_size, ctx.block_size)
    last_row = ctx.starts[pair_query] + kk - 1
    count = block_end[last_row] - ctx.starts[pair_query]
    seg = np.repeat(np.arange(pair_query.size), count)
    seg_start = np.concatenate(([0], np.cumsum(count)))[:-1]
    rows = np.repeat(ctx.starts[pair_query] - seg_start, count) + np.arange(count.sum())
    # Judged non-relevant (negative) and unjudged rows rank with label 0.
    labels = np.maximum(ctx.labels[rows], 0.0)
    # Blocks inside the subset: the global blocks, complete by construction.
    block_start_row = np.repeat(ctx.block_first_row, ctx.block_size)[rows]
    start_in_seg = block_start_row - np.repeat(ctx.starts[pair_query], count)
    bsize = np.repeat(ctx.block_size, ctx.block_size)[rows]
    n_pairs, n_rows = pair_query.size, rows.size
    c = count.astype(np.float64)
    # Average label ranks inside each pair's rows: one sort by (pair, label).
    order = np.lexsort((labels, seg))
    sorted_labels, sorted_seg = labels[order], seg[order]
    new = np.ones(n_rows, dtype=bool)
    new[1:] = (sorted_labels[1:] != sorted_labels[:-1]) | (sorted_seg[1:] != sorted_seg[:-1])
    tie_first = np.flatnonzero(new)
    tie_size = np.diff(np.append(tie_first, n_rows))
    position = np.arange(n_rows) - seg_start[sorted_seg]
    label_rank = np.empty(n_rows)
    label_rank[order] = np.repeat(position[tie_first] + (tie_size + 1) / 2.0, tie_size)
    if method == "spearman":
        score_rank = -(start_in_seg + (bsize - 1) / 2.0)
        return _pearson(seg, score_rank, label_rank, c)
    levels, lcode = np.unique(labels, return_inverse=True)
    m = levels.size
    n0 = c * (c - 1) / 2.0
    is_first = start_in_seg == (np.arange(rows.size) - seg_start[seg])
    n1 = np.bincount(seg[is_first], (bsize * (bsize - 1) / 2.0)[is_first], n_pairs)
    n2 = np.bincount(sorted_seg[tie_first], tie_size * (tie_size - 1) / 2.0, n_pairs)
    if m > MAX_KENDALL_LEVELS:
        s = _kendall_s_by_merge(seg, block_start_row, labels, n_pairs, n0 - n1 - n2)
    else:
        # Kendall tau-b: S = sum over rows of (earlier-block rows with a higher label) - (lower).
        seg_offsets = np.append(seg_start, n_rows)
        s_total = np.zeros(rows.size)
        first_of_block = start_in_seg + seg_start[seg]
        for v in range(m):
            is_v = lcode == v
            before = segment_cumsum(is_v, seg_offsets) - is_v
            before_block = before[first_of_block]
            s_total += before_block * (np.sign(v - lcode))
        s = np.bincount(seg, s_total, n_pairs)
    denom = np.sqrt((n0 - n1) * (n0 - n2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, s / denom, np.nan)


def _pearson(seg, x, y, count):
    """Pearson's correlation of ``x`` and ``y`` within each segment (NaN where either is
    constant): Spearman's rho of the average ranks."""
    n_pairs = count.size
    dx = x - (np.bincount(seg, x, n_pairs) / count)[seg]
    dy = y - (np.bincount(seg, y, n_pairs) / count)[seg]
    sxy = np.bincount(seg, dx * dy, n_pairs)
    sxx = np.bincount(seg, dx * dx, n_pairs)
    syy = np.bincount(seg, dy * dy, n_pairs)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((sxx > 0) & (syy > 0), sxy / np.sqrt(sxx * syy), np.nan)


def _kendall_s_by_merge(seg, block_start_row, labels, n_pairs, untied_one_way):
    """Kendall's S with many distinct labels: (pairs untied in both) - 2 * discordant pairs,
    the discordant pairs counted by a merge over all pairs' rows at once.

    ``untied_one_way`` is ``n0 - n1 - n2``; the pairs tied in both (``n3``) are added here.
    """
    n_rows = seg.size
    score = -block_start_row.astype(np.float64)
    joint = np.lexsort((labels, score, seg))
    key_seg, key_score, key_label = seg[joint], score[joint], labels[joint]
    new = np.ones(n_rows, dtype=bool)
    new[1:] = (
        (key_seg[1:] != key_seg[:-1])
        | (key_score[1:] != key_score[:-1])
        | (key_label[1:] != key_label[:-1])
    )
    first = np.flatnonzero(new)
    size = np.diff(np.append(first, n_rows)).astype(np.float64)
    n3 = np.bincount(key_seg[first], size * (size - 1) / 2.0, n_pairs)
    return (untied_one_way + n3) - 2.0 * discordant_pairs(seg, score, labels, n_pairs)


def _precision(c):
    k_eff = c.k_eff
    if c.options["precision_denominator"] == "min_k_n_docs":
        k_eff = np.minimum(k_eff, c.at(c.lists.sizes))
    hits = c.hits()  # a new array, the kernel's own: divided in place
    return np.divide(hits, k_eff, out=hits)


def _recall(c):
    return c.divide(c.hits(), c.n_pos)


def _capped_recall(c):
    return c.divide(c.hits(), np.minimum(c.k_eff, c.n_pos))


def _f1(c):
    return _fbeta(c.with_options(beta=1.0))


def _fbeta(c):
    beta2 = c.options["beta"] ** 2
    n_pos = c.n_pos
    return c.divide((1.0 + beta2) * c.hits(), np.where(n_pos > 0, beta2 * n_pos + c.k_eff, 0))


def _hit_rate(c):
    lists = c.lists
    if not lists.average_ties:
        return (c.at(lists.first_relevant_rank) <= c.kk).astype(np.float64)
    return lists.hit_probability(c.query, c.kk)


def _mrr(c):
    lists = c.lists
    if not lists.average_ties:  # 0 where no relevant row is inside the cut-off
        return lists.reciprocal_first(c.query, c.kk)
    return lists.reciprocal_rank(c.query, c.kk)


def _average_precision(c):
    denominator = c.n_pos
    sums = c.lists.average_precision_sum(c.query, c.kk)
    if c.options["ap_denominator"] == "min_k":
        denominator = np.minimum(denominator, c.k_eff)
    elif c.options["ap_denominator"] == "retrieved":
        # The relevant rows retrieved in the top k (torchmetrics' top_k); 0 when none is.
        hits = c.hits()
        value = c.divide(sums, hits)
        return np.where(hits > 0, value, np.where(denominator > 0, 0.0, np.nan))
    return c.divide(sums, denominator)


def _dcg(c):
    return c.lists.dcg(c.query, c.kk)


def _cg(c):
    return c.lists.dcg(c.query, c.kk, discounted=False)


def _ndcg(c):
    # DCG and ideal DCG are summed in different orders; clip the last-bit rounding above 1.
    ratio = c.divide(_dcg(c), c.lists.ideal_dcg(c.query, c.k))  # a new array: clipped in place
    return np.minimum(ratio, 1.0, out=ratio)


def _err(c):
    return c.lists.err(c.query, c.kk)


def _judged(c):
    return c.lists.judged_count(c.query, c.kk) / c.kk


def _pairwise_accuracy(c):
    """ir_measures' Accuracy: the share of the (relevant, non-relevant) pairs of the top k
    ranked in that order (unjudged rows are non-relevant); NaN without such a pair.

    ``1 - S / (R * N)``: R relevant and N non-relevant rows in the top k, S the non-relevant
    rows above each relevant one, summed. Under ``ties="average"`` the top k is extended to the
    end of a tied block that straddles the cut-off (as the rank correlations do), so R and N
    do not depend on the order of tied rows and a relevant row's term is its expected count,
    ``s_b - h_b + (n_b - r_b) / 2`` (a tied non-relevant row is above it half the time): the
    exact mean over the orderings of the tied rows.
    """
    lists = c.lists
    if lists.threshold_ties:
        raise ValueError(
            "metric 'pairwise_accuracy' has no form under ties='label_ranking'; pass "
            "ties='average', 'stable', 'trec_eval', 'doc_id', 'pessimistic' or 'optimistic'."
        )

    def term(s):
        r_b, h_b, n_b, s_b = s.block_relevant
        above = (s_b - h_b) + (n_b - r_b) / 2.0
        return s.block_mean(np.where(s.relevant, above, 0.0))

    kk = c.kk
    if lists.average_ties:  # to the end of the tied block at the cut-off
        block_end = np.repeat(lists.block_first_row + lists.block_size, lists.block_size)
        start = lists.starts[c.query]
        kk = block_end[start + kk - 1] - start
    below = lists.term_sums_of("pairwise_accuracy", term, c.query, kk)
    hits = lists.hits(c.query, kk)
    return 1.0 - c.divide(below, hits * (kk - hits))


def _num_queries(c):
    return np.ones(c.query.size)


def _kendall_tau(c):
    return _rank_correlation(c.lists, c.query, c.kk, "kendall")


def _spearman(c):
    return _rank_correlation(c.lists, c.query, c.kk, "spearman")


def _divide(ctx, numerator, denominator):
    """numerator / denominator with NaN (undefined) where the denominator is not above 0
    (:func:`~sklearn_ltr_metrics._table.divide_or_nan`, in the evaluation's threads)."""
    return divide_or_nan(numerator, denominator, ctx.n_threads)


def _lrap(c):
    """Label ranking average precision (scikit-learn's): every row of a tied block sits at the
    block's last rank, whatever ``ties=`` says; 1 for a query without relevant rows."""
    ctx = c.lists
    ranks = ctx.ranking.support(ctx.is_relevant(ctx.y_true))
    query = np.repeat(np.arange(ctx.n_queries), ranks.counts)
    greater = ranks.greater
    block_end = (greater + ranks.tied + 1).astype(np.float64)
    # Relevant rows (in rank order) of the query ranked at or before the end of each row's
    # block: the index, in the query, of the block's last relevant row, plus 1.
    last = np.ones(greater.size, dtype=bool)
    last[:-1] = (query[1:] != query[:-1]) | (greater[1:] != greater[:-1])
    last_index = np.flatnonzero(last)
    block_of_row = np.searchsorted(last_index, np.arange(greater.size))
    query_start = np.concatenate(([0], np.cumsum(ranks.counts)))[:-1]
    through = last_index[block_of_row] + 1 - query_start[query]
    total = np.bincount(query, weights=through / block_end, minlength=ctx.n_queries)
    n_rel = ranks.counts
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(n_rel > 0, total / n_rel, 1.0)
    return c.at(value)
