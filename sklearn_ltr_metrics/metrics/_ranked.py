"""Ranked lists: every query's rows in rank order, the support rows and their prefix sums.

All kernels work on :class:`RankedLists`: the rows of every query sorted by (query, rank) in
one flat array, with ``offsets`` marking each query's segment. A kernel evaluates many
``(query, k)`` pairs at once and never loops over queries in Python.

Every metric is a *prefix sum*: its value at cut-off ``k`` is the sum of a per-row term over
the first ``k`` rows (divided by a per-query denominator). The terms vanish on rows with label
0, so they live on the :class:`Support` only (rows with a positive label; 2 % of the rows in
the methodology's data), and a cut-off is looked up with one ``searchsorted``. Under
``ties="average"`` a term is the exact expectation of the row's contribution over all
orderings of its tied block (closed forms in ``docs/conventions.rst``), spread over the whole
block, which keeps the same prefix-sum structure: tie averaging costs a segment reduction, not
sampling.

What a kernel needs of each support row is its query, its rank position, its tied block
(start and size) and its label: any ranking machinery that supplies those can feed the
kernels.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from .._grouping import size_buckets
from ._err import err_terms

__all__ = ["RankedLists", "Support", "segment_cumsum"]

#: Largest (queries x distinct gains) table the ideal DCG counts in; beyond it, it sorts.
MAX_LEVEL_TABLE = 20_000_000
#: Integer labels up to this value are looked up in a table rather than sorted.
MAX_INT_LABEL = 65535


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
    query, position : ndarray
        Query code and 0-based rank of each support row (under ``ties="label_ranking"``,
        the last rank of its tied block).
    labels : ndarray of float64
        Label of each support row (0 on the rows that only fill a tied block).
    member : ndarray of bool
        Whether the row is one of the active rows the support was built from (False on the
        rows that only fill a tied block).
    offsets : ndarray
        Start of each query's run in the support arrays (``n_queries + 1`` entries).

    Notes
    -----
    The support is built from :class:`SupportRanks`: per active row, how many rows of its
    query score higher (``g``), tie with it (``t``) and precede it on the tie-break. Its rank
    is ``g`` plus the tie-break count; its tied block starts at ``g`` and holds ``t + 1`` rows.
    Under tie averaging the block is widened to all its rows, the active ones first and then
    label-0 fillers: the terms of a block's positions do not depend on which row sits where.
    """

    def __init__(self, ctx, ranks):
        self.ctx = ctx
        n_active = ranks.row.size
        query = np.repeat(np.arange(ctx.n_queries), ranks.counts)
        labels = ctx.y_true[ranks.row]
        greater, tied = ranks.greater, ranks.tied
        if ctx.average_ties:
            # Widen to whole tied blocks: the term of a tied row is spread over its block.
            new = np.ones(n_active, dtype=bool)
            new[1:] = (query[1:] != query[:-1]) | (greater[1:] != greater[:-1])
            first = np.flatnonzero(new)
            members = np.diff(np.append(first, n_active))
            size = tied[first] + 1
            local_first = np.concatenate(([0], np.cumsum(size)[:-1])) if size.size else size
            block = np.repeat(np.arange(first.size), size)
            within = np.arange(block.size) - local_first[block]
            self.member = within < members[block]
            self.labels = np.zeros(block.size)
            self.labels[self.member] = labels
            self.query = query[first][block]
            self.position = greater[first][block] + within
            self.block_first = local_first
            self.block_size = size
            self.block_start = greater[first]
        else:
            self.member = np.ones(n_active, dtype=bool)
            self.labels = labels
            self.query = query
            if ctx.threshold_ties:
                # Every row of a tied block sits at the block's last rank.
                self.position = greater + tied
            elif ranks.before is not None:
                self.position = greater + ranks.before
            else:
                self.position = greater  # no ties among these rows
        #: Where each row's term starts counting: a cut-off k includes it when k > position.
        self.rank_rows = ctx.starts[self.query] + self.position
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
        end = np.searchsorted(self.rank_rows, self.ctx.starts[pair_query] + kk)
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
        return self.ctx.is_relevant(self.labels)

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
    """The ranked lists of all queries, with the quantities metric kernels need.

    Nothing here sorts whole queries: the metric terms read the rank geometry of their support
    rows (:class:`Support`, from ``ranking.support``); only the rank correlations ask for the
    full ranked order (``labels``, tied blocks), which ``ranking.order`` sorts on first use.

    Parameters
    ----------
    sizes : ndarray of int64
        Rows (documents) of each query, all >= 1.
    ranking : RowRanking
        How the rows rank (``support(active)`` and the lazy full ``order``).
    y_true : ndarray of float64
        Graded labels of the rows, in input order.
    y_score : ndarray
        Scores of the rows, in input order (read only for the full ranked order's ties).
    average_ties : bool
        Whether metric terms are averaged over each tied block (``ties="average"``).
    threshold_ties : bool
        Whether every row of a tied block takes the block's last rank (``ties="label_ranking"``).
    threshold : float or None
        Rows with ``label >= threshold`` are relevant (``label > 0`` when None).
    n_pos : ndarray of float64
        Relevant documents per query (the denominators; may exceed the ranked rows).
    gains : Gain
        Maps an array of labels to gains (:func:`make_gain`).
    log_base : float
        Base of the DCG discount ``1 / log_base(rank + 1)``.
    ideal_labels : ndarray
        The judged labels of every query, for the ideal DCG.
    ideal_codes_of : callable
        Maps indices of ``ideal_labels`` to their query codes.
    judged : ndarray of bool, optional
        Whether each row has a judgment, in input order (TREC input only).
    err_max_grade : float
        Grade that gives the ERR stop probability ``1 - 2 ** -err_max_grade``.
    """

    def __init__(
        self,
        *,
        sizes,
        ranking,
        y_true,
        y_score,
        average_ties,
        threshold,
        n_pos,
        gains,
        threshold_ties=False,
        log_base=2.0,
        ideal_codes_of,
        ideal_labels,
        judged=None,
        err_max_grade=4.0,
    ):
        self.sizes = sizes
        self.n_queries = sizes.shape[0]
        self.offsets = np.concatenate(([0], np.cumsum(sizes)))
        self.starts = self.offsets[:-1]
        self.ranking = ranking
        self.y_true = y_true
        self.y_score = y_score
        self.threshold = threshold
        self.n_pos = n_pos
        self.gains = gains
        self.log_base = float(log_base)
        self.ideal_codes_of = ideal_codes_of
        self.ideal_labels = ideal_labels
        self.judged = judged
        self.err_max_grade = err_max_grade
        self._prefixes = {}  # metric term name -> prefix sums over its support
        # Averaging (or block ranks) only matter when some support rows tie.
        tied = self._support_ranks.tied.any() or (
            judged is not None and self._judged_ranks.tied.any()
        )
        self.average_ties = bool(average_ties) and bool(tied)
        self.threshold_ties = bool(threshold_ties) and bool(tied)

    def is_relevant(self, labels):
        return labels >= self.threshold if self.threshold is not None else labels > 0

    # -- the full ranked lists (correlations only): sorted on first use -------------------
    @cached_property
    def labels(self):
        """Labels of every row in ranked order."""
        return self.y_true[self.ranking.order]

    @cached_property
    def score_blocks(self):
        """True on rows that start a block of tied scores (and on each query's first row)."""
        scores = self.y_score[self.ranking.order]
        blocks = np.ones(scores.size, dtype=bool)
        np.not_equal(scores[1:], scores[:-1], out=blocks[1:])
        blocks[self.starts[self.sizes > 0]] = True
        return blocks

    @cached_property
    def block_first_row(self):
        return np.flatnonzero(self.score_blocks)

    @cached_property
    def block_size(self):
        return np.diff(np.append(self.block_first_row, self.y_true.size))

    # -- the support and the per-row terms on it -----------------------------------------
    @cached_property
    def _support_ranks(self):
        if self.gains.scores_nonpositive:  # a gain mapping that scores label 0
            return self.ranking.support(np.ones(self.y_true.size, dtype=bool))
        return self.ranking.support(self.y_true > 0)

    @cached_property
    def _judged_ranks(self):
        return self.ranking.support(self.judged)

    @cached_property
    def support(self):
        return Support(self, self._support_ranks)

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
            gain = s.block_mean(self.gains(s.labels))
            return gain / self.discount(s.position + 1.0) if discounted else gain

        return self._prefix_at("dcg" if discounted else "cg", term, pair_query, kk)

    def average_precision_sum(self, pair_query, kk):
        def term(s):
            rank = s.position + 1.0
            if not self.average_ties:
                hits = s.prefix(s.relevant.astype(np.int64))
                if self.threshold_ties:
                    # Precision at a tied row counts its whole block: take the block's last.
                    hits = hits[np.searchsorted(s.rank_rows, s.rank_rows, side="right") - 1]
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
        prob = np.zeros(s.position.size)
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
        return self._prefix_at("err", err_terms, pair_query, kk)

    @cached_property
    def _judged_support(self):
        return Support(self, self._judged_ranks)

    def judged_count(self, pair_query, kk):
        def term(s):
            return s.block_mean(s.member)

        return self._prefix_at("judged", term, pair_query, kk, support=self._judged_support)

    # -- ideal DCG ---------------------------------------------------------------------
    def discount(self, rank):
        """The DCG discount's denominator ``log_base(rank + 1)`` of 1-based ``rank``."""
        rank1 = np.asarray(rank, dtype=np.float64) + 1.0
        if self.log_base == 2.0:
            return np.log2(rank1)
        return np.log(rank1) / np.log(self.log_base)

    @cached_property
    def _ideal_levels(self):
        """Each query's distinct positive gains among its judged labels, and their counts.

        Returns ``(gain, count, upper, offsets)``: per (query, level) run, queries in order and
        gains descending inside a query, the gain, how many judged labels have it, and how many
        have at least that gain (``upper``); ``offsets`` delimit each query's runs. The runs
        of a query depend on its own labels only, so its ideal DCG does too.
        """
        labels, n_q = self.ideal_labels, self.n_queries
        if self.gains.scores_nonpositive:
            rows = np.arange(labels.size)
        else:
            rows = np.flatnonzero(labels > 0)
        labels = labels[rows]
        as_int = labels.astype(np.int64) if labels.size and labels.min() >= 0 else None
        if as_int is not None and labels.max() <= MAX_INT_LABEL and np.array_equal(as_int, labels):
            # Small integer grades: the gains of the labels present, looked up per row.
            present = np.flatnonzero(np.bincount(as_int))
            present_gain = self.gains(present.astype(np.float64))
            neg_levels, present_level = np.unique(-present_gain, return_inverse=True)
            lookup = np.zeros(int(present[-1]) + 1, dtype=np.intp)
            lookup[present] = present_level.ravel()
            level, distinct = lookup[as_int], -neg_levels
        else:
            neg_levels, level = np.unique(-self.gains(labels), return_inverse=True)
            level, distinct = level.ravel(), -neg_levels
        keep = distinct[level] > 0
        width = max(distinct.size, 1)
        keys = self.ideal_codes_of(rows[keep]).astype(np.int64) * width + level[keep]
        if n_q * width <= MAX_LEVEL_TABLE:
            counts = np.bincount(keys, minlength=n_q * width)
            keys = np.flatnonzero(counts)
            counts = counts[keys]
        else:
            keys, counts = np.unique(keys, return_counts=True)
        query = keys // width
        per_query = np.bincount(query, minlength=n_q)
        offsets = np.concatenate(([0], np.cumsum(per_query)))
        upper = segment_cumsum(counts, offsets[:-1][per_query > 0])
        return distinct[keys % width], counts, upper, offsets

    @cached_property
    def has_positive_gain(self):
        """Whether each query has a judged label with a positive gain (ideal DCG > 0)."""
        offsets = self._ideal_levels[3]
        return np.diff(offsets) > 0

    def ideal_dcg(self, pair_query, pair_k):
        """DCG of the best ordering of each query's judged labels, cut at ``pair_k``.

        Per pair, a sum over its query's gain levels (in descending order) of the gain times
        the discounts of the ranks that level fills: the terms and their order depend on the
        query alone, so the value is the same whatever other queries are evaluated with it.
        """
        gain, count, upper, offsets = self._ideal_levels
        out = np.zeros(pair_query.size)
        if gain.size == 0:
            return out
        n_levels = np.diff(offsets)[pair_query]
        has = n_levels > 0
        longest = int(upper[offsets[1:][offsets[1:] > offsets[:-1]] - 1].max())
        disc_cum = np.concatenate(
            ([0.0], np.cumsum(1.0 / self.discount(np.arange(1, longest + 1))))
        )
        seg = np.repeat(np.arange(pair_query.size), n_levels)
        seg_start = np.concatenate(([0], np.cumsum(n_levels)))[:-1]
        run = np.repeat(offsets[pair_query] - seg_start, n_levels) + np.arange(seg.size)
        kcap = np.minimum(pair_k, longest)[seg]
        hi = np.minimum(upper[run], kcap).astype(np.int64)
        lo = np.minimum(upper[run] - count[run], kcap).astype(np.int64)
        terms = gain[run] * (disc_cum[hi] - disc_cum[lo])
        out[has] = np.add.reduceat(terms, seg_start[has])
        return out
