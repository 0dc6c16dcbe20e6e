"""Ranked lists: every query's rows in rank order, the support rows and their prefix sums.

All kernels work on :class:`RankedLists`: the rows of every query sorted by (query, rank) in
one flat array, with ``offsets`` marking each query's segment. A kernel evaluates many
``(query, k)`` pairs at once and never loops over queries in Python.

Every metric is a *prefix sum*: its value at cut-off ``k`` is the sum of a per-row term over
the first ``k`` rows (divided by a per-query denominator). The terms vanish on rows with label
0, so they live on the :class:`Support` only (rows with a positive label; 2 % of the rows in
the methodology's data), and each cut-off is read with a binary search of its query's support
(compiled kernels of ``_sums``, parallel over queries, nothing written per row when a query has
few cut-offs). Under
``ties="average"`` a term is the exact expectation of the row's contribution over all
orderings of its tied block (closed forms in ``docs/conventions.rst``), spread over the whole
block, which keeps the same prefix-sum structure: tie averaging costs a segment reduction, not
sampling.

What a kernel needs of each support row is its query, its rank position, its tied block
(start and size) and its label: any ranking machinery that supplies those can feed the
kernels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from . import _sums, _threads
from ._grouping import active_rule
from ._ideal import Grades, IdealGains
from ._ordering import FullOrder
from ._support import Support

__all__ = ["Judgments", "ListOptions", "RankedLists", "support_rule"]

#: Up to this many (query, cut-off) pairs per query, sums are read per pair (each pair re-reads
#: its rows, nothing is written per row); more pairs share running sums of every support row.
#: The pairs are counted over every call for the same sum (all_trec asks hits at 9 cut-offs
#: for P, 10 for Rprec_mult, ...), so a sum asked again and again is computed once.
FEW_PAIRS_PER_QUERY = 8

#: :attr:`RankedLists.every_query` is a read-only view of one array of indices 0, 1, ...
#: kept between evaluations up to this many queries (8 MB): a fresh one would be written
#: in one thread, its pages first touched there, at every evaluation (0.4 ms of page faults
#: for 100,000 queries on the development machine; little beside an evaluation beyond).
SHARED_INDEX_LIMIT = 1 << 20
_shared_index = np.arange(0, dtype=np.intp)


def query_index(n):
    """The indices ``0 .. n - 1`` (intp), read-only: a view of one array kept between calls
    (grown on demand) up to ``SHARED_INDEX_LIMIT``, a fresh array beyond."""
    global _shared_index
    if n > SHARED_INDEX_LIMIT:
        return np.arange(n, dtype=np.intp)
    index = _shared_index  # read once: another thread may replace it meanwhile
    if n > index.shape[0]:
        index = np.arange(min(max(n, 2 * index.shape[0]), SHARED_INDEX_LIMIT), dtype=np.intp)
        index.flags.writeable = False
        _shared_index = index
    return index[:n]


@dataclass(frozen=True)
class ListOptions:
    """The options the ranked lists read (checked by the caller).

    Attributes
    ----------
    gains : Gain
        Maps an array of labels to gains (:func:`make_gain`).
    average_ties : bool
        Whether metric terms are averaged over each tied block (``ties="average"``).
    threshold_ties : bool
        Whether every row of a tied block takes the block's last rank (``ties="label_ranking"``).
    threshold : float or None
        Rows with ``label >= threshold`` are relevant (``label > 0`` when None).
    log_base : float
        Base of the DCG discount ``1 / log_base(rank + 1)``.
    err_max_grade : float
        Grade that gives the ERR stop probability ``1 - 2 ** -err_max_grade``.
    row_terms : dict
        Per-row terms the metrics family defines, by name: ``name -> f(support)`` giving one
        float per support row (``"err"``: ERR's terms). The engine sums them over the support
        (:meth:`RankedLists.term_sums`) and knows nothing of their formulas.
    """

    gains: object
    average_ties: bool = False
    threshold_ties: bool = False
    threshold: float | None = None
    log_base: float = 2.0
    err_max_grade: float = 4.0
    row_terms: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Judgments:
    """Judgments given apart from the ranked rows (TREC input); the defaults: none, the ranked
    rows are the judged documents.

    Attributes
    ----------
    labels : ndarray or None
        The judged labels of every query, for the ideal DCG.
    codes_of : callable or None
        Maps indices of ``labels`` to their query codes.
    judged : ndarray of bool or None
        Whether each ranked row has a judgment, in input order.
    """

    labels: np.ndarray | None = None
    codes_of: object = None
    judged: np.ndarray | None = None


def _log_comb(n, k):
    from scipy.special import gammaln

    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)


def _of_order(name, doc):
    """A read-only property reading ``self.order.<name>`` (the full ranked lists, sorted on
    first use: only the rank correlations ask for them)."""
    return property(lambda self: getattr(self.order, name), doc=doc)


def support_rule(y_true, gains, positive):
    """The rows of the support, as the kernels read them (:func:`active_rule`): every row
    under a gain mapping that scores label 0, else ``positive``, the caller's rule of the
    rows with ``y_true > 0`` (the same object, so its count is shared)."""
    if gains.scores_nonpositive:
        return active_rule(y_true, -np.inf, or_equal=True)
    return positive


class RankedLists:
    """The ranked lists of all queries, with the quantities metric kernels need.

    Nothing here sorts whole queries: the metric terms read the rank geometry of their support
    rows (:class:`Support`, from ``ranking.support``); only the rank correlations ask for the
    full ranked order (:class:`~._ordering.FullOrder`, sorted on first use). What the labels
    alone give is held apart (:class:`~._ideal.Grades`, :class:`~._ideal.IdealGains`).

    Parameters
    ----------
    ranking : RowRanking
        How the rows rank (``support(active)`` and the lazy full ``order``), grouped by query.
    support_ranks : SupportRanks
        The ranks of the rows of :func:`support_rule`, with their labels: the caller ranks
        them first (rows moved into query order are counted then).
    y_true : ndarray of float64
        Graded labels of the rows, in input order.
    y_score : ndarray
        Scores of the rows, in input order (read only for the full ranked order's ties).
    n_pos : ndarray of float64
        Relevant documents per query (the denominators; may exceed the ranked rows).
    options : ListOptions
    judgments : Judgments, optional
        Judgments apart from the ranked rows (TREC input).
    support_labels : SupportLabels, optional
        The labels of every support row when ``support_ranks`` holds only those that can rank
        within the cut-offs read (:meth:`RowRanking.top_support`): the ideal DCG and the
        label checks read them all. None: ``support_ranks`` holds every support row.
    """

    def __init__(
        self,
        ranking,
        support_ranks,
        *,
        y_true,
        y_score,
        n_pos,
        options,
        judgments=None,
        support_labels=None,
    ):
        judgments = Judgments() if judgments is None else judgments
        self.ranking = ranking
        self.sizes = ranking.grouping.sizes
        self.n_queries = self.sizes.shape[0]
        self.n_threads = ranking.n_threads
        self.y_true = y_true
        self.y_score = y_score
        self.n_pos = n_pos
        self.options = options
        self.gains = options.gains
        self.threshold = options.threshold
        self.err_max_grade = options.err_max_grade
        self.row_terms = dict(options.row_terms)
        self.ideal_labels = judgments.labels
        self.ideal_codes_of = judgments.codes_of
        self.judged = judgments.judged
        self._support_ranks = support_ranks
        self.order = FullOrder(ranking, y_true, y_score)
        every_label = support_ranks if support_labels is None else support_labels
        self.grades = Grades(every_label, options.gains, self.n_threads)
        self.ideal = IdealGains(
            self.grades, options.log_base, self.n_queries, judgments.labels, judgments.codes_of
        )
        self._running = {}  # name -> running sums over its support (many cut-offs)
        self._pairs_read = {}  # name -> pairs read per pair so far (FEW_PAIRS_PER_QUERY)
        # Averaging (or block ranks) only matter when some support rows tie.
        tied = self._any_tied(support_ranks) or (
            self.judged is not None and self._any_tied(self._judged_ranks)
        )
        self.average_ties = bool(options.average_ties) and bool(tied)
        self.threshold_ties = bool(options.threshold_ties) and bool(tied)

    @property
    def grain(self):
        """Rows per thread of the compiled kernels (the engine's one grain, ``_threads``)."""
        return _threads.grain()

    @cached_property
    def every_query(self):
        """The pairs of one cut-off per query, in query order: ``arange(n_queries)``, read
        only (:func:`query_index`)."""
        return query_index(self.n_queries)

    @cached_property
    def longest(self):
        """Rows of the longest query (0 without queries)."""
        return int(self.sizes.max()) if self.sizes.size else 0

    def at(self, values, pair_query):
        """``values[pair_query]``, per-query values read at each pair: ``values`` itself
        (read only) when the pairs are :attr:`every_query`."""
        return values if pair_query is self.every_query else values[pair_query]

    # -- the full ranked lists (correlations only): :class:`FullOrder`, sorted on first use
    starts = _of_order("starts", "First row of each query in ranked order: the grouping's own.")
    labels = _of_order("labels", "Labels of every row in ranked order.")
    score_blocks = _of_order("score_blocks", "True on rows that start a block of tied scores.")
    block_first_row = _of_order("block_first_row", "Ranked position of each tied block's start.")
    block_size = _of_order("block_size", "Rows in each tied block.")

    def _any_tied(self, ranks):
        """Whether a row of these support ranks ties with another row: as the ranking found
        it, else read from the tie counts (in threads)."""
        if ranks.any_tied is not None:
            return ranks.any_tied
        tied = np.ascontiguousarray(ranks.tied, dtype=np.int32)
        return _sums.any_nonzero(tied, self.n_threads, self.grain)

    def is_relevant(self, labels):
        return labels >= self.threshold if self.threshold is not None else labels > 0

    # -- the support and the per-row terms on it -----------------------------------------
    @property
    def largest_label(self):
        """The largest label of the support rows (:attr:`Grades.largest`)."""
        return self.grades.largest

    def _few_pairs(self, n_pairs):
        """Whether sums are read per pair (each pair re-reads its rows) rather than by running
        sums of every support row: few cut-offs per query, as in a plain ``evaluate``."""
        return n_pairs <= FEW_PAIRS_PER_QUERY * max(self.n_queries, 1)

    @cached_property
    def _judged_ranks(self):
        return self.ranking.support(self.judged, labels=self.y_true)

    @cached_property
    def support(self):
        return Support(self, self._support_ranks)

    @cached_property
    def _relevant_flag(self):
        """Which support rows are relevant, as the sums kernels read it (uint8); None when
        all are: the support is then the positive rows themselves (no tie averaging widens
        it, no threshold above 0, no gain mapping that scores label 0)."""
        every = not self.average_ties and self.threshold is None
        if every and not self.gains.scores_nonpositive:
            return None
        return np.ascontiguousarray(self.support.relevant).view(np.uint8)

    def _support_sums(self, name, what, pair_query, kk, arrays_of, support=None):
        """A compiled sum over the support at each pair's cut-off: ``what`` (a kind of
        ``support_sums`` of ``_sums``) over the arrays ``arrays_of(support)``.

        With few pairs per query each pair reads its rows; with many (counted over the calls
        for ``name``), the running sums of every support row are computed once (cached under
        ``name``) and read at each cut-off. Both add the same terms in the same order: the
        same values, bit for bit.
        """
        s = self.support if support is None else support
        pair_query = np.ascontiguousarray(pair_query, dtype=np.intp)
        kk = np.ascontiguousarray(kk, dtype=np.int64)
        if name not in self._running:
            # Per pair when few (nothing written per row), else every row's running sum.
            read = self._pairs_read.get(name, 0) + pair_query.size
            self._pairs_read[name] = read
            pairs = (pair_query, kk) if self._few_pairs(read) else (None, None)
            sums = _sums.support_sums(
                what,
                s.offsets,
                s.position,
                *pairs,
                n_threads=self.n_threads,
                grain=self.grain,
                **arrays_of(s),
            )
            if pairs[0] is not None:
                return sums
            self._running[name] = sums
        return s.at(self._running[name], pair_query, kk)

    def term_sums_of(self, name, term_of, pair_query, kk, support=None):
        """:meth:`_support_sums` of a per-row term computed in numpy (``term_of(support)``)."""

        def arrays_of(s):
            return {"term": np.ascontiguousarray(term_of(s), dtype=np.float64)}

        return self._support_sums(name, _sums.TERM, pair_query, kk, arrays_of, support)

    def hits(self, pair_query, kk):
        if not self.average_ties:
            flag = {"flag": self._relevant_flag}
            return self._support_sums("hits", _sums.COUNT, pair_query, kk, lambda s: flag)
        # Tie averaging: each relevant row's hit is spread over its tied block.
        return self.term_sums_of("hits", lambda s: s.block_mean(s.relevant), pair_query, kk)

    @cached_property
    def _discount_table(self):
        """The DCG discount's denominator at every 0-based position a row can take (up to
        the longest query: no pass over the support's positions)."""
        return self.discount(np.arange(max(self.longest, 1)) + 1.0)

    def _support_gains(self, s):
        """Gains of the support rows (averaged over tied blocks where ties are averaged)."""
        gain_of = self.grades.gain_of
        if gain_of is None:
            return s.block_mean(self.gains(s.labels))
        # Small grades: each row's gain looked up (the formula's value at its grade).
        return s.block_mean(gain_of[s.labels.astype(np.intp)])

    def dcg(self, pair_query, kk, *, discounted=True):
        if not discounted:
            return self.term_sums_of("cg", self._support_gains, pair_query, kk)

        def arrays_of(s):
            gain_of = None if self.average_ties else self.grades.gain_of
            if gain_of is not None:  # gains looked up per grade in the compiled pass
                gains = {"labels": s.labels, "gain_of": gain_of}
            else:
                gains = {"term": np.ascontiguousarray(self._support_gains(s), dtype=np.float64)}
            return {"discount": self._discount_table, **gains}

        return self._support_sums("dcg", _sums.DISCOUNTED, pair_query, kk, arrays_of)

    def average_precision_sum(self, pair_query, kk):
        if not self.average_ties and not self.threshold_ties:
            # Precision at each relevant row, summed in the compiled pass.
            flag = {"flag": self._relevant_flag}
            return self._support_sums("ap", _sums.PRECISION, pair_query, kk, lambda s: flag)

        def term(s):
            rank = s.position + 1.0
            if not self.average_ties:
                hits = s.prefix(s.relevant)
                if self.threshold_ties:
                    # Precision at a tied row counts its whole block: take the block's last.
                    hits = hits[np.searchsorted(s.rank_rows, s.rank_rows, side="right") - 1]
                return np.where(s.relevant, hits / rank, 0.0)
            return s.tied_precision()

        return self.term_sums_of("ap", term, pair_query, kk)

    @cached_property
    def _first_relevant_law(self):
        """P(the query's first relevant row sits at this support row) (docs/conventions.rst)."""
        s = self.support
        prob = np.zeros(s.position.size)
        if not self.average_ties:
            r_b, h_b, n_b, s_b = s.block_relevant
            rows = np.flatnonzero((h_b == 0) & (r_b > 0))
            n_b, r_b, j = n_b[rows], r_b[rows], s.position[rows] - s_b[rows] + 1
        else:
            # One block a query can hold its first relevant row: the first with a relevant
            # row (no relevant row before it); the law is spread over that block's rows.
            rows, n_b, r_b, j = s.first_relevant_block_rows()
        j = j.astype(np.float64)
        valid = j <= n_b - r_b + 1
        rows, jj = rows[valid], j[valid]
        nb, rb = n_b[valid].astype(np.float64), r_b[valid].astype(np.float64)
        prob[rows] = np.exp(_log_comb(nb - jj, rb - 1.0) - _log_comb(nb, rb))
        return prob

    @cached_property
    def first_relevant_rank(self):
        """Rank of each query's first relevant row (``inf`` if none); without tie averaging."""
        s = self.support  # no flag: every support row is relevant, each query's first one
        return _sums.first_position(
            self._relevant_flag, s.position, s.offsets, self.n_threads, self.grain, shift=1.0
        )

    def reciprocal_first(self, pair_query, kk):
        """``1 / first_relevant_rank`` of each pair's query where that rank is inside the
        pair's cut-off ``kk``, else 0 (without tie averaging): one compiled pass."""
        return _sums.reciprocal_within(
            np.ascontiguousarray(self.at(self.first_relevant_rank, pair_query)),
            np.ascontiguousarray(kk, dtype=np.int64),
            self.n_threads,
            self.grain,
        )

    def hit_probability(self, pair_query, kk):
        return self.term_sums_of("hit", lambda s: self._first_relevant_law, pair_query, kk)

    def reciprocal_rank(self, pair_query, kk):
        def term(s):
            return self._first_relevant_law / (s.position + 1.0)

        return self.term_sums_of("rr", term, pair_query, kk)

    def term_sums(self, name, pair_query, kk):
        """Sums at each pair's cut-off of the per-row term ``row_terms[name]`` (given by the
        metrics family, e.g. ERR's), over the support."""
        return self.term_sums_of(name, self.row_terms[name], pair_query, kk)

    def err(self, pair_query, kk):
        return self.term_sums("err", pair_query, kk)

    @cached_property
    def _judged_support(self):
        return Support(self, self._judged_ranks)

    def judged_count(self, pair_query, kk):
        def term(s):
            return s.block_mean(s.member)

        return self.term_sums_of("judged", term, pair_query, kk, support=self._judged_support)

    # -- ideal DCG: :class:`IdealGains` ---------------------------------------------------
    def discount(self, rank):
        """The DCG discount's denominator ``log_base(rank + 1)`` of 1-based ``rank``."""
        return self.ideal.discount(rank)

    @property
    def ideal_levels(self):
        """Each query's gain levels (:attr:`IdealGains.levels`)."""
        return self.ideal.levels

    @property
    def has_positive_gain(self):
        """Whether each query has a judged label with a positive gain (ideal DCG > 0)."""
        return self.ideal.has_positive_gain

    def ideal_dcg(self, pair_query, pair_k):
        """DCG of the best ordering of each query's judged labels, cut at ``pair_k``."""
        return self.ideal.dcg(pair_query, pair_k)
