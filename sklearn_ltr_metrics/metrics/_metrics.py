"""Per-query metric kernels and the metric registry.

All kernels work on :class:`RankedLists`: the rows of every query sorted by (query, rank) in
one flat array, with ``offsets`` marking each query's segment. A kernel evaluates many
``(query, k)`` pairs at once and never loops over queries in Python.

Every metric is a *prefix sum*: its value at cut-off ``k`` is the sum of a per-row term over
the first ``k`` rows (divided by a per-query denominator). The terms vanish on rows with label
0, so they live on the :class:`Support` only (rows with a positive label; 2 % of the rows in
the methodology's data), and a cut-off is looked up with one ``searchsorted``. Under
``ties="average"`` a term is the exact expectation of the row's contribution over all
orderings of its tied block (closed forms: ``docs/conventions.rst``, "Exact tie averaging"),
spread over the whole block, which keeps the same prefix-sum structure: tie averaging costs a
segment reduction, not sampling.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .._grouping import size_buckets
from .._validation import unknown_name_error

__all__ = ["METRICS", "RankedLists", "metric_names"]


#: Kendall tau-b counts concordance label level by label level up to this many distinct
#: labels in the evaluated rows; beyond it (continuous labels) it calls scipy per query.
MAX_KENDALL_LEVELS = 64

#: Largest (queries x distinct gains) table the ideal DCG counts in; beyond it, it sorts.
MAX_LEVEL_TABLE = 20_000_000


def segment_cumsum(values, starts):
    """Inclusive cumulative sums that restart at every index in ``starts``.

    ``starts`` are the first rows of non-empty segments, increasing, starting with 0. Integer
    input stays exact. Float input is corrected at every segment start, so the rounding error
    is relative to each segment's own total, not to the running total of all rows.
    """
    dtype = np.int64 if values.dtype.kind in "iub" else np.float64
    adjusted = np.array(values, dtype=dtype, copy=True)
    if starts.size > 1:
        totals = np.add.reduceat(adjusted, starts)
        adjusted[starts[1:]] -= totals[:-1]
    return np.cumsum(adjusted, out=adjusted)


def _log_comb(n, k):
    from scipy.special import gammaln

    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)


class Support:
    """The rows of the ranked lists that can carry a non-zero metric term, and their geometry.

    Every metric of the registry sums per-row terms that vanish on rows with label 0 (no
    relevance, no gain, no stop probability), except where tie averaging spreads a relevant
    row's term over its whole tied block. So the terms only need the *support*: the rows with
    a positive label, widened to whole tied blocks under ``ties="average"``. In the
    methodology's data that is 2 % of the rows, and every kernel works on it alone.

    Attributes
    ----------
    rows : ndarray of intp
        Indices of the support rows in the ranked (sorted) order, increasing.
    query, position : ndarray
        Query code and 0-based rank of each support row.
    offsets : ndarray
        Start of each query's run in the support arrays (``n_queries + 1`` entries).
    """

    def __init__(self, ctx, active):
        self.ctx = ctx
        rows = np.flatnonzero(active)
        if ctx.average_ties:
            # Widen to whole tied blocks: the term of a tied row is spread over its block.
            blocks = np.unique(ctx.block_of(rows))
            first, size = ctx.block_first_row[blocks], ctx.block_size[blocks]
            local_first = np.cumsum(np.append(0, size[:-1])) if size.size else size
            rows = np.repeat(first - local_first, size) + np.arange(size.sum())
            self.block_first = local_first
            self.block_size = size
            self.block_start = first - ctx.starts[ctx.query_of(first)]
        self.rows = rows
        self.query = ctx.query_of(rows)
        self.position = rows - ctx.starts[self.query]
        self.sizes = np.bincount(self.query, minlength=ctx.n_queries)
        self.offsets = np.concatenate(([0], np.cumsum(self.sizes)))

    @cached_property
    def _layout(self):
        layout = []
        for width, queries in size_buckets(self.sizes):
            mask = np.arange(width)[None, :] < self.sizes[queries][:, None]
            rows = (self.offsets[queries][:, None] + np.arange(width)[None, :])[mask]
            layout.append((rows, mask, (queries.size, width)))
        return layout

    def prefix(self, term):
        """Running sums of ``term`` inside each query's support rows.

        Integer terms use one exact global cumsum. Float terms are summed inside each query
        only (a 2-D cumsum per size bucket of queries), so a query's values never depend on
        which other queries are evaluated with it.
        """
        if term.dtype.kind in "iub":
            return segment_cumsum(term, self.offsets[:-1][self.sizes > 0])
        term = np.asarray(term, dtype=np.float64)
        out = np.empty_like(term)
        for rows, mask, shape in self._layout:
            block = np.zeros(shape)
            block[mask] = term[rows]
            out[rows] = np.cumsum(block, axis=1, out=block)[mask]
        return out

    def at(self, cumulative, pair_query, kk):
        """Prefix value of each pair at its cut-off: the sum over its top ``kk`` rows."""
        end = np.searchsorted(self.rows, self.ctx.starts[pair_query] + kk)
        inside = end > self.offsets[pair_query]
        if cumulative.size == 0:
            return np.zeros(pair_query.size)
        return np.where(inside, cumulative[np.maximum(end - 1, 0)], 0)

    def block_mean(self, values):
        """Mean of ``values`` over each tied block, broadcast back to the support rows."""
        values = np.asarray(values, dtype=np.float64)
        if not self.ctx.average_ties or values.size == 0:
            return values
        sums = np.add.reduceat(values, self.block_first)
        return np.repeat(sums / self.block_size, self.block_size)

    @cached_property
    def relevant(self):
        return self.ctx.is_relevant(self.ctx.labels[self.rows])

    @cached_property
    def block_relevant(self):
        """Per support row: relevant rows in its block (r_b), relevant rows before the block
        in its query (H_b), block size (n_b) and block start position (s_b)."""
        rel = self.relevant.astype(np.int64)
        before = self.prefix(rel) - rel
        if not self.ctx.average_ties:
            return rel, before, np.ones_like(rel), self.position
        size = self.block_size
        r_block = np.add.reduceat(rel, self.block_first) if rel.size else rel
        h_block = before[self.block_first]
        return (
            np.repeat(r_block, size),
            np.repeat(h_block, size),
            np.repeat(size, size),
            np.repeat(self.block_start, size),
        )


class RankedLists:
    """Rows of all queries in ranked order, with the quantities metric kernels need.

    Parameters
    ----------
    sizes : ndarray of int64
        Rows (documents) of each query, all >= 1.
    labels : ndarray of float64
        Graded labels of the rows in ranked order.
    sorted_scores : callable
        Returns the scores in ranked order (called only when tied blocks are needed).
    average_ties : bool
        Whether metric terms are averaged over each tied block (``ties="average"``).
    threshold : float or None
        Rows with ``label >= threshold`` are relevant (``label > 0`` when None).
    n_pos : ndarray of float64
        Relevant documents per query (the denominators; may exceed the ranked rows).
    gains : callable
        Maps an array of labels to gains.
    ideal_labels : ndarray
        The judged labels of every query, for the ideal DCG.
    ideal_codes_of : callable
        Maps indices of ``ideal_labels`` to their query codes.
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
        sorted_scores,
        average_ties,
        threshold,
        n_pos,
        gains,
        ideal_codes_of,
        ideal_labels,
        judged=None,
        err_max_grade=4.0,
    ):
        self.sizes = sizes
        self.n_queries = sizes.shape[0]
        self.offsets = np.concatenate(([0], np.cumsum(sizes)))
        self.starts = self.offsets[:-1]
        self.labels = labels
        self._sorted_scores = sorted_scores
        self.threshold = threshold
        self.n_pos = n_pos
        self.gains = gains
        self.ideal_codes_of = ideal_codes_of
        self.ideal_labels = ideal_labels
        self.judged = judged
        self.err_max_grade = err_max_grade
        self._prefixes = {}  # metric term name -> prefix sums over its support
        # Averaging only matters when some scores tie.
        self.average_ties = bool(average_ties) and not self.score_blocks.all()

    def is_relevant(self, labels):
        return labels >= self.threshold if self.threshold is not None else labels > 0

    # -- geometry of the full ranked lists (tied blocks; correlations) -------------------
    @cached_property
    def score_blocks(self):
        """True on rows that start a block of tied scores (and on each query's first row)."""
        scores = self._sorted_scores()
        blocks = np.ones(scores.size, dtype=bool)
        np.not_equal(scores[1:], scores[:-1], out=blocks[1:])
        blocks[self.starts[self.sizes > 0]] = True
        return blocks

    @cached_property
    def block_first_row(self):
        return np.flatnonzero(self.score_blocks)

    @cached_property
    def block_size(self):
        return np.diff(np.append(self.block_first_row, self.labels.size))

    def block_of(self, rows):
        """Index of the tied block holding each of ``rows``."""
        return np.searchsorted(self.block_first_row, rows, side="right") - 1

    def query_of(self, rows):
        """Query code of each of ``rows``."""
        return np.searchsorted(self.offsets, rows, side="right") - 1

    # -- the support and the per-row terms on it -----------------------------------------
    @cached_property
    def support(self):
        if self.gains(np.zeros(1))[0] != 0:  # a gain mapping that scores label 0
            return Support(self, np.ones(self.labels.size, dtype=bool))
        return Support(self, self.labels > 0)

    def _prefix_at(self, name, term_of, pair_query, kk, support=None):
        """Cached prefix sums of a support term, looked up at each pair's cut-off."""
        support = self.support if support is None else support
        if name not in self._prefixes:
            self._prefixes[name] = support.prefix(term_of(support))
        return support.at(self._prefixes[name], pair_query, kk)

    def hits(self, pair_query, kk):
        def term(s):
            return (
                s.relevant.astype(np.int64) if not self.average_ties else s.block_mean(s.relevant)
            )

        return self._prefix_at("hits", term, pair_query, kk).astype(np.float64)

    def dcg(self, pair_query, kk, *, discounted=True):
        def term(s):
            gain = s.block_mean(self.gains(self.labels[s.rows]))
            return gain / np.log2(s.position + 2.0) if discounted else gain

        return self._prefix_at("dcg" if discounted else "cg", term, pair_query, kk)

    def average_precision_sum(self, pair_query, kk):
        def term(s):
            rank = s.position + 1.0
            if not self.average_ties:
                hits = s.prefix(s.relevant.astype(np.int64))
                return np.where(s.relevant, hits / rank, 0.0)
            r_b, h_b, n_b, s_b = s.block_relevant
            numerator = (h_b + 1).astype(np.float64)
            tied = n_b > 1
            j = s.position[tied] - s_b[tied]  # 0-based position inside the block
            numerator[tied] += j * (r_b[tied] - 1) / (n_b[tied] - 1)
            return (r_b / n_b) * numerator / rank

        return self._prefix_at("ap", term, pair_query, kk)

    @cached_property
    def _first_relevant_law(self):
        """P(the query's first relevant row sits at this support row) (docs/conventions.rst)."""
        s = self.support
        r_b, h_b, n_b, s_b = s.block_relevant
        first = (h_b == 0) & (r_b > 0)
        j = (s.position - s_b + 1).astype(np.float64)
        prob = np.zeros(s.rows.size)
        valid = first & (j <= n_b - r_b + 1)
        nb, rb, jj = n_b[valid].astype(np.float64), r_b[valid].astype(np.float64), j[valid]
        prob[valid] = np.exp(_log_comb(nb - jj, rb - 1.0) - _log_comb(nb, rb))
        return prob

    @cached_property
    def first_relevant_rank(self):
        """Rank of each query's first relevant row (``inf`` if none); without tie averaging."""
        s = self.support
        rows = np.flatnonzero(s.relevant)[::-1]
        rank = np.full(self.n_queries, np.inf)
        # Assigning in reverse order leaves each query's first relevant row in place.
        rank[s.query[rows]] = s.position[rows] + 1.0
        return rank

    def hit_probability(self, pair_query, kk):
        return self._prefix_at("hit", lambda s: self._first_relevant_law, pair_query, kk)

    def reciprocal_rank(self, pair_query, kk):
        def term(s):
            return self._first_relevant_law / (s.position + 1.0)

        return self._prefix_at("rr", term, pair_query, kk)

    def err(self, pair_query, kk):
        return self._prefix_at("err", _err_terms, pair_query, kk)

    @cached_property
    def _judged_support(self):
        return Support(self, self.judged)

    def judged_count(self, pair_query, kk):
        def term(s):
            return s.block_mean(self.judged[s.rows])

        return self._prefix_at("judged", term, pair_query, kk, support=self._judged_support)

    # -- ideal DCG ---------------------------------------------------------------------
    @cached_property
    def _ideal_table(self):
        """Gains of the distinct judged labels with a positive gain (descending) and, per query,
        how many judged labels sit at each of them: ``(level_gain, counts)``.

        Small integer grades (the usual 0..4) are counted with one ``bincount``; other labels
        are ranked with ``np.unique``. ``counts`` is None when the table would be too large
        (continuous labels over many queries): ``ideal_dcg`` then sorts instead.
        """
        labels, n_q = self.ideal_labels, self.n_queries
        if self.gains(np.zeros(1))[0] <= 0:
            # Label 0 adds nothing to an ideal DCG: count the positive labels only.
            rows = np.flatnonzero(labels > 0)
        else:
            rows = np.arange(labels.size)
        labels, qcode = labels[rows], self.ideal_codes_of(rows)
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
        return np.bincount(self.ideal_codes_of(np.flatnonzero(keep)), minlength=self.n_queries) > 0

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
        gains, qcode = gains[keep], self.ideal_codes_of(np.flatnonzero(keep))
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


def _err_terms(support):
    """Expected ERR contribution of each support row (exact under ties, docs/conventions.rst)."""
    ctx = support.ctx
    stop = _err_stop_probability(ctx.labels[support.rows], ctx.err_max_grade)
    if stop.size == 0:
        return stop
    log_keep = np.log1p(-stop)
    # Rows outside the support have label 0: they never stop the user, so skipping them
    # leaves the survival product exact.
    survive_before = np.exp(support.prefix(log_keep) - log_keep)
    rank = support.position + 1.0
    if not ctx.average_ties:
        return stop * survive_before / rank
    first, size = support.block_first, support.block_size
    active = np.add.reduceat((stop > 0).astype(np.int64), first)
    block_survive = survive_before[first]
    terms = np.zeros(stop.size)
    # Blocks with at most one active row have a closed form: every slot is equally likely.
    simple = (active <= 1) | (size == 1)
    mean_stop = np.add.reduceat(stop, first) / size
    simple_rows = np.repeat(simple, size)
    terms[simple_rows] = (np.repeat(block_survive * mean_stop, size) / rank)[simple_rows]
    if not simple.all():
        from scipy.stats import hypergeom
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
        law = hypergeom.pmf(a, n - 1, r - 1, t)
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
    return ctx.hits(pq, kk)


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
    return ctx.hit_probability(pq, kk)


def _mrr(ctx, pq, pk, kk, k_eff, options):
    if not ctx.average_ties:
        first = ctx.first_relevant_rank[pq]
        return np.where(first <= kk, 1.0 / first, 0.0)
    return ctx.reciprocal_rank(pq, kk)


def _average_precision(ctx, pq, pk, kk, k_eff, options):
    denominator = ctx.n_pos[pq]
    if options["ap_denominator"] == "min_k":
        denominator = np.minimum(denominator, k_eff)
    return _divide(ctx.average_precision_sum(pq, kk), denominator)


def _dcg(ctx, pq, pk, kk, k_eff, options):
    return ctx.dcg(pq, kk)


def _cg(ctx, pq, pk, kk, k_eff, options):
    return ctx.dcg(pq, kk, discounted=False)


def _ndcg(ctx, pq, pk, kk, k_eff, options):
    # DCG and ideal DCG are summed in different orders; clip the last-bit rounding above 1.
    return np.minimum(_divide(ctx.dcg(pq, kk), ctx.ideal_dcg(pq, pk)), 1.0)


def _err(ctx, pq, pk, kk, k_eff, options):
    return ctx.err(pq, kk)


def _judged(ctx, pq, pk, kk, k_eff, options):
    if ctx.judged is None:
        raise ValueError(
            "metric 'judged' needs judgments separate from the ranked list; "
            "use evaluate_run(run, qrels, ...)."
        )
    return ctx.judged_count(pq, kk) / kk


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
