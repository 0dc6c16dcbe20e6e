"""Metric kernels: per ``(query, cut-off)`` pair values from :class:`RankedLists`.

A kernel is ``kernel(ctx, pair_query, pair_k, kk, k_eff, options) -> values``: ``pair_k`` the
requested cut-off (``inf`` for the whole list), ``kk`` the rows actually inside it, ``k_eff``
the cut-off a denominator uses, ``options`` the resolved options (:mod:`._options`).
"""

from __future__ import annotations

import numpy as np

from .._engine import discordant_pairs, segment_cumsum
from .._table import divide_or_nan

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
        mx = np.bincount(seg, score_rank, n_pairs) / c
        my = np.bincount(seg, label_rank, n_pairs) / c
        dx, dy = score_rank - mx[seg], label_rank - my[seg]
        sxy = np.bincount(seg, dx * dy, n_pairs)
        sxx = np.bincount(seg, dx * dx, n_pairs)
        syy = np.bincount(seg, dy * dy, n_pairs)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where((sxx > 0) & (syy > 0), sxy / np.sqrt(sxx * syy), np.nan)
    levels, lcode = np.unique(labels, return_inverse=True)
    m = levels.size
    n0 = c * (c - 1) / 2.0
    is_first = start_in_seg == (np.arange(rows.size) - seg_start[seg])
    n1 = np.bincount(seg[is_first], (bsize * (bsize - 1) / 2.0)[is_first], n_pairs)
    n2 = np.bincount(sorted_seg[tie_first], tie_size * (tie_size - 1) / 2.0, n_pairs)
    if m > MAX_KENDALL_LEVELS:
        # Many distinct labels: S = (pairs untied in both) - 2 * discordant pairs, with the
        # discordant pairs counted by a merge over all pairs' rows at once.
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
        s = (n0 - n1 - n2 + n3) - 2.0 * discordant_pairs(seg, score, labels, n_pairs)
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


def _hits(ctx, pq, kk):
    return ctx.hits(pq, kk)


def _precision(ctx, pq, pk, kk, k_eff, options):
    if options["precision_denominator"] == "min_k_n_docs":
        k_eff = np.minimum(k_eff, ctx.at(ctx.sizes, pq))
    return _hits(ctx, pq, kk) / k_eff


def _recall(ctx, pq, pk, kk, k_eff, options):
    return _divide(ctx, _hits(ctx, pq, kk), ctx.at(ctx.n_pos, pq))


def _capped_recall(ctx, pq, pk, kk, k_eff, options):
    return _divide(ctx, _hits(ctx, pq, kk), np.minimum(k_eff, ctx.at(ctx.n_pos, pq)))


def _f1(ctx, pq, pk, kk, k_eff, options):
    return _fbeta(ctx, pq, pk, kk, k_eff, {**options, "beta": 1.0})


def _fbeta(ctx, pq, pk, kk, k_eff, options):
    beta2 = options["beta"] ** 2
    n_pos = ctx.at(ctx.n_pos, pq)
    return _divide(
        ctx, (1.0 + beta2) * _hits(ctx, pq, kk), np.where(n_pos > 0, beta2 * n_pos + k_eff, 0)
    )


def _hit_rate(ctx, pq, pk, kk, k_eff, options):
    if not ctx.average_ties:
        return (ctx.at(ctx.first_relevant_rank, pq) <= kk).astype(np.float64)
    return ctx.hit_probability(pq, kk)


def _mrr(ctx, pq, pk, kk, k_eff, options):
    if not ctx.average_ties:
        first = ctx.at(ctx.first_relevant_rank, pq)
        value = np.reciprocal(first, dtype=np.float64)
        value[~(first <= kk)] = 0.0  # no relevant row inside the cut-off
        return value
    return ctx.reciprocal_rank(pq, kk)


def _average_precision(ctx, pq, pk, kk, k_eff, options):
    denominator = ctx.at(ctx.n_pos, pq)
    if options["ap_denominator"] == "min_k":
        denominator = np.minimum(denominator, k_eff)
    elif options["ap_denominator"] == "retrieved":
        # The relevant rows retrieved in the top k (torchmetrics' top_k); 0 when none is.
        hits = _hits(ctx, pq, kk)
        value = _divide(ctx, ctx.average_precision_sum(pq, kk), hits)
        return np.where(hits > 0, value, np.where(denominator > 0, 0.0, np.nan))
    return _divide(ctx, ctx.average_precision_sum(pq, kk), denominator)


def _dcg(ctx, pq, pk, kk, k_eff, options):
    return ctx.dcg(pq, kk)


def _cg(ctx, pq, pk, kk, k_eff, options):
    return ctx.dcg(pq, kk, discounted=False)


def _ndcg(ctx, pq, pk, kk, k_eff, options):
    # DCG and ideal DCG are summed in different orders; clip the last-bit rounding above 1.
    return np.minimum(_divide(ctx, ctx.dcg(pq, kk), ctx.ideal_dcg(pq, pk)), 1.0)


def _err(ctx, pq, pk, kk, k_eff, options):
    return ctx.err(pq, kk)


def _judged(ctx, pq, pk, kk, k_eff, options):
    return ctx.judged_count(pq, kk) / kk


def _kendall_tau(ctx, pq, pk, kk, k_eff, options):
    return _rank_correlation(ctx, pq, kk, "kendall")


def _spearman(ctx, pq, pk, kk, k_eff, options):
    return _rank_correlation(ctx, pq, kk, "spearman")


def _divide(ctx, numerator, denominator):
    """numerator / denominator with NaN (undefined) where the denominator is not above 0
    (:func:`~sklearn_ltr_metrics._table.divide_or_nan`, in the evaluation's threads)."""
    return divide_or_nan(numerator, denominator, ctx.n_threads)


def _lrap(ctx, pq, pk, kk, k_eff, options):
    """Label ranking average precision (scikit-learn's): every row of a tied block sits at the
    block's last rank, whatever ``ties=`` says; 1 for a query without relevant rows."""
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
    return ctx.at(value, pq)
