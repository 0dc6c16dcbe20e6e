"""Per-query metric kernels and the metric registry.

All kernels work on :class:`RankedLists`: the rows of every query sorted by (query, rank) in
one flat array, with ``offsets`` marking each query's segment. A kernel evaluates many
``(query, k)`` pairs at once and never loops over queries in Python.

Most metrics are *prefix sums*: the value at cut-off ``k`` is the sum of a per-row term over
the first ``k`` rows. Under ``ties="average"`` the per-row term is the exact expectation of the
row's contribution over all orderings of its tied block (``TIES.md``), which keeps the same
prefix-sum structure, so tie averaging costs one segment reduction more, not a loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.special import gammaln
from scipy.stats import hypergeom

from ._grouping import size_buckets
from ._validation import unknown_name_error

__all__ = ["METRICS", "RankedLists", "metric_names"]


#: Kendall tau-b counts concordance label level by label level up to this many distinct
#: labels in the evaluated rows; beyond it (continuous labels) it calls scipy per query.
MAX_KENDALL_LEVELS = 64

#: Largest (queries x distinct gains) table the ideal DCG counts in; beyond it, it sorts.
MAX_LEVEL_TABLE = 20_000_000


def segment_cumsum(values, starts, *, overwrite=False):
    """Inclusive cumulative sums that restart at every index in ``starts``.

    ``starts`` are the first rows of non-empty segments, increasing, starting with 0. Integer
    input stays exact. Float input is corrected at every segment start, so the rounding error
    is relative to each segment's own total, not to the running total of all rows.
    """
    integer = values.dtype.kind in "iub"
    dtype = np.int64 if integer else np.float64
    owned = overwrite and values.dtype == dtype
    adjusted = values if owned else np.array(values, dtype=dtype, copy=True)
    if starts.size > 1:
        totals = np.add.reduceat(adjusted, starts)
        adjusted[starts[1:]] -= totals[:-1]
    return np.cumsum(adjusted, out=adjusted)


def _log_comb(n, k):
    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)


class RankedLists:
    """Rows of all queries in ranked order, with the quantities metric kernels need.

    Parameters
    ----------
    sizes : ndarray of int64
        Rows (documents) of each query, all >= 1.
    labels : ndarray of float64
        Graded labels of the rows in ranked order.
    relevant : ndarray of bool
        Binary relevance of the rows in ranked order.
    score_blocks : ndarray of bool
        True on rows that start a block of tied scores (and on each query's first row).
    average_ties : bool
        Whether metric terms are averaged over each tied block.
    n_pos : ndarray of float64
        Relevant documents per query (the denominators; may exceed the ranked rows).
    gains : callable
        Maps an array of labels to gains.
    ideal_qcode, ideal_labels : ndarray
        The judged labels of every query for the ideal DCG (query code of each).
    judged : ndarray of bool, optional
        Whether each ranked row has a judgment (TREC input only).
    err_max_grade : float
        Grade that gives the ERR stop probability ``1 - 2 ** -err_max_grade``.
    """

    def __init__(
        self,
        *,
        sizes,
        labels,
        relevant,
        score_blocks,
        average_ties,
        n_pos,
        gains,
        ideal_qcode,
        ideal_labels,
        judged=None,
        err_max_grade=4.0,
    ):
        self.sizes = sizes
        self.n_queries = sizes.shape[0]
        self.offsets = np.concatenate(([0], np.cumsum(sizes)))
        self.starts = self.offsets[:-1]
        self.labels = labels
        self.relevant = relevant
        self.score_blocks = score_blocks
        self.average_ties = bool(average_ties) and bool(score_blocks.sum() < labels.size)
        self.n_pos = n_pos
        self.gains = gains
        self.ideal_qcode = ideal_qcode
        self.ideal_labels = ideal_labels
        self.judged = judged
        self.err_max_grade = err_max_grade

    # -- row geometry ------------------------------------------------------------------
    @cached_property
    def row_query(self):
        return np.repeat(np.arange(self.n_queries, dtype=np.intp), self.sizes)

    @cached_property
    def position(self):
        """0-based rank of each row within its query."""
        return np.arange(self.labels.size, dtype=np.int64) - np.repeat(self.starts, self.sizes)

    @cached_property
    def block_id(self):
        return np.cumsum(self.score_blocks) - 1

    @cached_property
    def block_first_row(self):
        return np.flatnonzero(self.score_blocks)

    @cached_property
    def block_size(self):
        return np.diff(np.append(self.block_first_row, self.labels.size))

    def block_mean(self, values):
        """Mean of ``values`` over each tied block, broadcast back to rows."""
        if not self.average_ties:
            return values.astype(np.float64, copy=False)
        sums = np.add.reduceat(values.astype(np.float64, copy=False), self.block_first_row)
        return np.repeat(sums / self.block_size, self.block_size)

    @cached_property
    def discount(self):
        longest = int(self.sizes.max()) if self.sizes.size else 0
        table = 1.0 / np.log2(np.arange(2, longest + 2, dtype=np.float64))
        return table[self.position]

    @cached_property
    def _layout(self):
        """Size buckets of queries for per-query 2-D cumsums: ``(rows, mask, shape)`` each."""
        layout = []
        for width, queries in size_buckets(self.sizes):
            mask = np.arange(width)[None, :] < self.sizes[queries][:, None]
            rows = (self.starts[queries][:, None] + np.arange(width)[None, :])[mask]
            layout.append((rows, mask, (queries.size, width)))
        return layout

    def prefix(self, term, *, overwrite=True):
        """Per-query running sums of ``term`` (the caller may hand it over to be overwritten).

        Integer terms use one exact global cumsum. Float terms are summed inside each query
        only (a 2-D cumsum per size bucket of queries), so a query's values never depend on
        which other queries are evaluated with it: the same bits in memory, per partition on
        Dask, or for a subset of queries.
        """
        if term.dtype.kind in "iub":
            return segment_cumsum(term, self.starts, overwrite=overwrite)
        term = np.asarray(term, dtype=np.float64)
        n_q = self.n_queries
        if n_q and np.all(self.sizes == self.sizes[0]):
            return np.cumsum(term.reshape(n_q, -1), axis=1).reshape(-1)
        out = term if overwrite else np.empty_like(term)
        for rows, mask, shape in self._layout:
            block = np.zeros(shape)
            block[mask] = term[rows]
            out[rows] = np.cumsum(block, axis=1, out=block)[mask]
        return out

    def at(self, cumulative, pair_query, kk):
        """Prefix value of each pair at its (clipped) cut-off ``kk`` (>= 1)."""
        return cumulative[self.starts[pair_query] + kk - 1]

    # -- per-row terms -----------------------------------------------------------------
    @cached_property
    def cum_hits(self):
        if not self.average_ties:
            return self.prefix(self.relevant.astype(np.int64))
        return self.prefix(self.block_mean(self.relevant))

    @cached_property
    def row_gain(self):
        return self.gains(self.labels)

    @cached_property
    def cum_dcg(self):
        return self.prefix(self.block_mean(self.row_gain) * self.discount)

    @cached_property
    def cum_cg(self):
        return self.prefix(self.block_mean(self.row_gain), overwrite=self.average_ties)

    @cached_property
    def _block_relevant(self):
        """Per row: relevant rows in its block (r_b), relevant rows before its block (H_b)."""
        if not self.average_ties:
            rel = self.relevant.astype(np.int64)
            before = segment_cumsum(rel, self.starts) - rel
            return rel, before, np.ones_like(rel), self.position.copy()
        rel = self.relevant.astype(np.int64)
        r_block = np.add.reduceat(rel, self.block_first_row)
        before_all = segment_cumsum(rel, self.starts) - rel
        h_block = before_all[self.block_first_row]
        size = self.block_size
        start_pos = self.position[self.block_first_row]
        return (
            np.repeat(r_block, size),
            np.repeat(h_block, size),
            np.repeat(size, size),
            np.repeat(start_pos, size),
        )

    @cached_property
    def cum_ap(self):
        rank = self.position + 1.0
        if not self.average_ties:
            # A relevant row adds precision at its rank: (hits up to and including it) / rank.
            term = np.zeros(self.labels.size)
            rows = np.flatnonzero(self.relevant)
            term[rows] = self.cum_hits[rows] / rank[rows]
            return self.prefix(term)
        r_b, h_b, n_b, s_b = self._block_relevant
        numerator = (h_b + 1).astype(np.float64)
        tied = n_b > 1
        j = self.position[tied] - s_b[tied]  # 0-based position inside the block
        numerator[tied] += j * (r_b[tied] - 1) / (n_b[tied] - 1)
        return self.prefix((r_b / n_b) * numerator / rank)

    @cached_property
    def _first_relevant_law(self):
        """P(first relevant row of the query sits at this row) for rows of its first block."""
        if not self.average_ties:
            return (self.relevant & (self.cum_hits == 1)).astype(np.float64)
        r_b, h_b, n_b, s_b = self._block_relevant
        first = (h_b == 0) & (r_b > 0)
        j = (self.position - s_b + 1).astype(np.float64)
        prob = np.zeros(self.labels.size)
        valid = first & (j <= n_b - r_b + 1)
        nb, rb, jj = n_b[valid].astype(np.float64), r_b[valid].astype(np.float64), j[valid]
        prob[valid] = np.exp(_log_comb(nb - jj, rb - 1.0) - _log_comb(nb, rb))
        return prob

    @cached_property
    def first_relevant_rank(self):
        """Rank of each query's first relevant row (``inf`` if none); without tie averaging."""
        rows = np.flatnonzero(self.relevant)
        rank = np.full(self.n_queries, np.inf)
        # Assigning in reverse order leaves each query's first relevant row in place.
        rank[self.row_query[rows[::-1]]] = self.position[rows[::-1]] + 1.0
        return rank

    @cached_property
    def cum_hit_rate(self):
        return self.prefix(self._first_relevant_law, overwrite=False)

    @cached_property
    def cum_rr(self):
        return self.prefix(self._first_relevant_law / (self.position + 1.0))

    @cached_property
    def cum_judged(self):
        return self.prefix(self.block_mean(self.judged))

    @cached_property
    def cum_err(self):
        return self.prefix(_err_terms(self))

    # -- ideal DCG ---------------------------------------------------------------------
    @cached_property
    def _ideal_table(self):
        """Gains of the distinct judged labels with a positive gain (descending) and, per query,
        how many judged labels sit at each of them: ``(level_gain, counts)``.

        Small integer grades (the usual 0..4) are counted with one ``bincount``; other labels
        are ranked with ``np.unique``. ``counts`` is None when the table would be too large
        (continuous labels over many queries): ``ideal_dcg`` then sorts instead.
        """
        labels, qcode, n_q = self.ideal_labels, self.ideal_qcode, self.n_queries
        top = float(labels.max()) if labels.size else 0.0
        as_int = labels.astype(np.int64) if 0 <= top <= 65535 else None
        if (
            as_int is not None
            and n_q * (top + 1) <= MAX_LEVEL_TABLE
            and np.array_equal(as_int, labels)
        ):
            width = int(top) + 1
            counts = np.bincount(qcode * width + as_int, minlength=n_q * width).reshape(n_q, width)
            level_gain = self.gains(np.arange(width, dtype=np.float64))
            columns = np.argsort(-level_gain, kind="stable")
            columns = columns[(level_gain[columns] > 0) & (counts[:, columns].any(axis=0))]
            return level_gain[columns], counts[:, columns]
        gains = self.gains(labels)
        keep = gains > 0
        levels, level = np.unique(-gains[keep], return_inverse=True)
        if n_q * levels.size > MAX_LEVEL_TABLE:
            return -levels, None
        counts = np.bincount(qcode[keep] * levels.size + level.ravel(), minlength=n_q * levels.size)
        return -levels, counts.reshape(n_q, levels.size)

    @cached_property
    def has_positive_gain(self):
        """Whether each query has a judged label with a positive gain (ideal DCG > 0)."""
        _, counts = self._ideal_table
        if counts is not None:
            return counts.any(axis=1)
        keep = self.gains(self.ideal_labels) > 0
        return np.bincount(self.ideal_qcode[keep], minlength=self.n_queries) > 0

    def ideal_dcg(self, pair_query, pair_k):
        """DCG of the best ordering of each query's judged labels, cut at ``pair_k``."""
        level_gain, counts = self._ideal_table
        if level_gain.size == 0:
            return np.zeros(pair_query.size)
        if counts is not None:
            longest = int(counts.sum(axis=1).max())
            disc_cum = np.concatenate(([0.0], np.cumsum(1.0 / np.log2(np.arange(2, longest + 2)))))
            upper = np.cumsum(counts, axis=1)[pair_query]
            lower = upper - counts[pair_query]
            kcap = np.minimum(pair_k, longest)[:, None]
            hi = np.minimum(upper, kcap).astype(np.int64)
            lo = np.minimum(lower, kcap).astype(np.int64)
            return ((disc_cum[hi] - disc_cum[lo]) * level_gain[None, :]).sum(axis=1)
        # Many distinct gains (continuous labels): sort each query's gains instead.
        gains = self.gains(self.ideal_labels)
        keep = gains > 0
        gains, qcode = gains[keep], self.ideal_qcode[keep]
        counts_total = np.bincount(qcode, minlength=self.n_queries)
        order = np.lexsort((-gains, qcode))
        starts = np.concatenate(([0], np.cumsum(counts_total)))[:-1]
        pos = np.arange(gains.size) - np.repeat(starts, counts_total)
        cum = segment_cumsum(gains[order] / np.log2(pos + 2.0), starts[counts_total > 0])
        kk = np.minimum(pair_k, counts_total[pair_query]).astype(np.int64)
        out = np.zeros(pair_query.size)
        has = kk > 0
        out[has] = cum[starts[pair_query[has]] + kk[has] - 1]
        return out


def _err_stop_probability(labels, max_grade):
    return (np.exp2(labels) - 1.0) / np.exp2(max_grade)


def _err_terms(ctx):
    """Per-row expected ERR contribution (exact under tie averaging, TIES.md)."""
    stop = _err_stop_probability(ctx.labels, ctx.err_max_grade)
    log_keep = np.log1p(-stop)
    survive_before = np.exp(ctx.prefix(log_keep, overwrite=False) - log_keep)
    rank = ctx.position + 1.0
    if not ctx.average_ties:
        return stop * survive_before / rank
    first = ctx.block_first_row
    size = ctx.block_size
    active = np.add.reduceat((stop > 0).astype(np.int64), first)
    block_survive = survive_before[first]
    terms = np.zeros(ctx.labels.size)
    # Blocks with at most one active row have a closed form: every slot is equally likely.
    simple = (active <= 1) | (size == 1)
    mean_stop = np.add.reduceat(stop, first) / size
    simple_rows = np.repeat(simple, size)
    terms[simple_rows] = (np.repeat(block_survive * mean_stop, size) / rank)[simple_rows]
    for b in np.flatnonzero(~simple):
        lo, n = first[b], int(size[b])
        keep = 1.0 - stop[lo : lo + n]
        keep = keep[stop[lo : lo + n] > 0]
        r = keep.size
        # Normalised elementary symmetric means: E[j] = mean product over random j-subsets.
        e = np.zeros(r + 1)
        e[0] = 1.0
        for m, q in enumerate(keep, start=1):
            j = np.arange(1, m + 1)
            e[1 : m + 1] = ((m - j) * e[1 : m + 1] + j * q * e[0:m]) / m
        stop_at_ith_active = e[:-1] - e[1:]
        t = np.arange(n)[:, None]  # active rows among the earlier slots of the block
        a = np.arange(r)[None, :]
        law = hypergeom.pmf(a, n - 1, r - 1, t) if r > 1 else np.ones((n, 1))
        w = (r / n) * (law * stop_at_ith_active[None, :]).sum(axis=1)
        terms[lo : lo + n] = block_survive[b] * w / rank[lo : lo + n]
    return terms


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
    labels = ctx.labels[rows]
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
    if m > MAX_KENDALL_LEVELS:
        return _kendall_per_pair(labels, -block_start_row.astype(np.float64), seg_start, count)
    # Kendall tau-b: S = sum over rows of (earlier-block rows with a higher label) - (lower).
    starts = seg_start[count > 0]
    s_total = np.zeros(rows.size)
    first_of_block = start_in_seg + seg_start[seg]
    for v in range(m):
        is_v = (lcode == v).astype(np.int64)
        before = segment_cumsum(is_v, starts) - is_v
        before_block = before[first_of_block]
        s_total += before_block * (np.sign(v - lcode))
    s = np.bincount(seg, s_total, n_pairs)
    n0 = c * (c - 1) / 2.0
    is_first = start_in_seg == (np.arange(rows.size) - seg_start[seg])
    n1 = np.bincount(seg[is_first], (bsize * (bsize - 1) / 2.0)[is_first], n_pairs)
    n2 = np.bincount(sorted_seg[tie_first], tie_size * (tie_size - 1) / 2.0, n_pairs)
    denom = np.sqrt((n0 - n1) * (n0 - n2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, s / denom, np.nan)


def _kendall_per_pair(labels, tie_key, seg_start, count):
    """Kendall tau-b per pair with scipy: the slow path for labels with many distinct values.

    ``tie_key`` is a score proxy of each evaluated row (its tied block's first row, negated),
    equal exactly where the scores tie.
    """
    from scipy.stats import kendalltau

    out = np.full(count.size, np.nan)
    for i, (start, n) in enumerate(zip(seg_start, count, strict=True)):
        part = slice(start, start + n)
        out[i] = kendalltau(tie_key[part], labels[part]).statistic
    return out


# -- the registry ----------------------------------------------------------------------


@dataclass(frozen=True)
class Metric:
    """A registered metric.

    Attributes
    ----------
    name : str
        The canonical name.
    kernel : callable
        ``kernel(ctx, pair_query, pair_k, kk, k_eff, options) -> values``.
    graded : bool
        Uses graded labels (gains) rather than binary relevance.
    undefined : {"n_pos", "ideal", "never"}
        When the metric has no value for a query: no relevant document, an ideal DCG of 0.
    bounded : bool
        Values lie in [0, 1] (or [-1, 1] for correlations).
    takes_cutoff : bool
        Whether ``name@k`` is accepted.
    description : str
        One line for docs and ``--help``.
    """

    name: str
    kernel: object
    graded: bool
    undefined: str
    bounded: bool
    takes_cutoff: bool
    description: str


def _hits(ctx, pq, kk):
    return ctx.at(ctx.cum_hits, pq, kk).astype(np.float64)


def _precision(ctx, pq, pk, kk, k_eff, options):
    return _hits(ctx, pq, kk) / k_eff


def _recall(ctx, pq, pk, kk, k_eff, options):
    return _divide(_hits(ctx, pq, kk), ctx.n_pos[pq])


def _capped_recall(ctx, pq, pk, kk, k_eff, options):
    return _divide(_hits(ctx, pq, kk), np.minimum(k_eff, ctx.n_pos[pq]))


def _fbeta(ctx, pq, pk, kk, k_eff, options):
    beta2 = options["beta"] ** 2
    n_pos = ctx.n_pos[pq]
    return _divide(
        (1.0 + beta2) * _hits(ctx, pq, kk), np.where(n_pos > 0, beta2 * n_pos + k_eff, 0)
    )


def _hit_rate(ctx, pq, pk, kk, k_eff, options):
    if not ctx.average_ties:
        return (ctx.first_relevant_rank[pq] <= kk).astype(np.float64)
    return ctx.at(ctx.cum_hit_rate, pq, kk)


def _mrr(ctx, pq, pk, kk, k_eff, options):
    if not ctx.average_ties:
        first = ctx.first_relevant_rank[pq]
        return np.where(first <= kk, 1.0 / first, 0.0)
    return ctx.at(ctx.cum_rr, pq, kk)


def _average_precision(ctx, pq, pk, kk, k_eff, options):
    denominator = ctx.n_pos[pq]
    if options["ap_denominator"] == "min_k":
        denominator = np.minimum(denominator, k_eff)
    return _divide(ctx.at(ctx.cum_ap, pq, kk), denominator)


def _dcg(ctx, pq, pk, kk, k_eff, options):
    return ctx.at(ctx.cum_dcg, pq, kk)


def _cg(ctx, pq, pk, kk, k_eff, options):
    return ctx.at(ctx.cum_cg, pq, kk)


def _ndcg(ctx, pq, pk, kk, k_eff, options):
    # DCG and ideal DCG are summed in different orders; clip the last-bit rounding above 1.
    return np.minimum(_divide(ctx.at(ctx.cum_dcg, pq, kk), ctx.ideal_dcg(pq, pk)), 1.0)


def _err(ctx, pq, pk, kk, k_eff, options):
    return ctx.at(ctx.cum_err, pq, kk)


def _judged(ctx, pq, pk, kk, k_eff, options):
    if ctx.judged is None:
        raise ValueError(
            "metric 'judged' needs judgments separate from the ranked list; "
            "use evaluate_run(run, qrels, ...)."
        )
    return ctx.at(ctx.cum_judged, pq, kk) / kk


def _kendall_tau(ctx, pq, pk, kk, k_eff, options):
    return _rank_correlation(ctx, pq, kk, "kendall")


def _spearman(ctx, pq, pk, kk, k_eff, options):
    return _rank_correlation(ctx, pq, kk, "spearman")


def _divide(numerator, denominator):
    """numerator / denominator with NaN (undefined) where the denominator is 0."""
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.full(np.broadcast(numerator, denominator).shape, np.nan)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def _register(*metrics):
    return {m.name: m for m in metrics}


#: name -> :class:`Metric`. ``metric_names()`` lists the keys and the aliases.
METRICS = _register(
    Metric("precision", _precision, False, "never", True, True, "hits@k / k"),
    Metric("recall", _recall, False, "n_pos", True, True, "hits@k / n_pos"),
    Metric("capped_recall", _capped_recall, False, "n_pos", True, True, "hits@k / min(k, n_pos)"),
    Metric(
        "hit_rate", _hit_rate, False, "never", True, True, "1 if a relevant row is in the top k"
    ),
    Metric("mrr", _mrr, False, "never", True, True, "1 / rank of the first relevant row within k"),
    Metric(
        "average_precision",
        _average_precision,
        False,
        "n_pos",
        True,
        True,
        "mean precision at relevant ranks",
    ),
    Metric("r_precision", _precision, False, "n_pos", True, False, "precision at k = n_pos"),
    Metric("ndcg", _ndcg, True, "ideal", True, True, "DCG@k / ideal DCG@k"),
    Metric("dcg", _dcg, True, "never", False, True, "sum of gain / log2(rank + 1) over the top k"),
    Metric("cg", _cg, True, "never", False, True, "sum of gains over the top k"),
    Metric("f1", _fbeta, False, "n_pos", True, True, "harmonic mean of precision@k and recall@k"),
    Metric(
        "fbeta", _fbeta, False, "n_pos", True, True, "F-beta of precision@k and recall@k (beta=)"
    ),
    Metric("err", _err, True, "ideal", True, True, "expected reciprocal rank (cascade model)"),
    Metric(
        "kendall_tau",
        _kendall_tau,
        True,
        "never",
        True,
        True,
        "Kendall tau-b of scores vs labels in the top k",
    ),
    Metric(
        "spearman",
        _spearman,
        True,
        "never",
        True,
        True,
        "Spearman rho of scores vs labels in the top k",
    ),
    Metric(
        "judged",
        _judged,
        False,
        "never",
        True,
        True,
        "share of the top k with a judgment (evaluate_run)",
    ),
)

#: Other accepted names.
ALIASES = {"map": "average_precision"}


def metric_names():
    """The metric names accepted in metric specs (``name`` or ``name@k``).

    Returns
    -------
    list of str
        Sorted canonical names and aliases.

    Examples
    --------
    >>> from sklearn_ltr_metrics import metric_names
    >>> "ndcg" in metric_names() and "map" in metric_names()
    True
    """
    return sorted([*METRICS, *ALIASES])


def get_metric(name, *, param="metrics"):
    """The :class:`Metric` for a (possibly aliased) name, or a ``ValueError`` listing names."""
    key = str(name).strip().lower()
    key = ALIASES.get(key, key)
    if key not in METRICS:
        raise unknown_name_error("metric", name, metric_names(), param=param)
    return METRICS[key]
