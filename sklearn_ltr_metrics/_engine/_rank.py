"""Rank the support: where each active row of a query ranks, without sorting the query.

The metric terms need, for the few rows that carry them (the support), how many rows of their
query score higher, how many tie and where tie-breaking puts them (:func:`rank_support`, the
compiled ``rank_support`` of ``_ranking``). :class:`RowRanking` holds one tie policy's ranking
of the rows: the support ranks on demand, and the full per-query order (:func:`rank_order`,
``_ordering.py``) only for the rank correlations. Rows come grouped by query
(:class:`~._grouping.Grouping`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property, partial

import numpy as np

from . import _ranking, _sums, _threads
from ._grouping import _compiled_active, _rule_mask
from ._ordering import rank_order, score_keys

__all__ = ["MAX_INT_LABEL", "RowRanking", "SupportLabels", "SupportRanks", "rank_support"]

#: Integer labels up to this value are grades: looked up in per-grade tables rather than
#: sorted (``_ideal.Grades``); the ranking checks it while it gathers the labels.
MAX_INT_LABEL = 65535


def _tie_key(tiebreak):
    return None if tiebreak is None else np.ascontiguousarray(tiebreak, dtype=np.float64)


@dataclass(frozen=True)
class SupportRanks:
    """Rank geometry of the active rows of every query (:func:`rank_support`).

    Arrays run over the active rows, queries in code order and each query's rows in rank order
    (descending score, then the tie-break key, then input order).

    Attributes
    ----------
    counts : ndarray of intp
        Active rows of each query.
    row : ndarray of intp or None
        Input row index (None when not asked for).
    greater : ndarray of int32
        Rows of the query (active or not) scoring strictly higher: the tied block's start.
    tied : ndarray of int32
        Other rows of the query with an equal score: the tied block holds ``tied + 1`` rows.
    before : ndarray of int32 or None
        Rows of the tied block that the tie-break puts before the row (None unless asked).
    labels : ndarray of float64 or None
        The ``labels`` passed to :func:`rank_support`, read at each active row (or None).
    offsets : ndarray of intp
        Where each query's active rows start in these arrays, and their total at the end
        (``n_queries + 1`` values; read only).
    label_stats : tuple or None
        ``(largest, grades)`` of ``labels``: the largest, and whether all are integers in
        ``[0, MAX_INT_LABEL]``, found while they were gathered (None without labels or rows).
    score_range : tuple or None
        ``(smallest, largest)`` score, both NaN when a score is NaN or infinite (then the
        queries holding one are left unranked); None unless asked for.
    any_tied : bool or None
        Whether an active row ties with another row of its query, found as the ranks were
        written (None where not known: read :attr:`tied`).
    grade_counts : ndarray or None
        Per query, how many of its active rows hold each label ``0..GRADES_COUNTED - 1``
        (int32, ``(n_queries, GRADES_COUNTED)``), counted as the labels were gathered: in
        use when :attr:`label_stats` says every label is a grade below ``GRADES_COUNTED``
        (else zeros where a query's labels are not). None where not counted.

    The counts are 32-bit: a query holds at most ``2**31 - 1`` rows (a longer one is refused).
    """

    counts: np.ndarray
    row: np.ndarray | None
    greater: np.ndarray
    tied: np.ndarray
    before: np.ndarray | None
    labels: np.ndarray | None
    offsets: np.ndarray
    label_stats: tuple | None = None
    score_range: tuple | None = None
    any_tied: bool | None = None
    grade_counts: np.ndarray | None = None


@dataclass(frozen=True)
class SupportLabels:
    """The labels of every support row, for what reads them all whatever their ranks (the
    ideal DCG, the label checks: :class:`~._ideal.Grades`), when only some rows are ranked
    (:meth:`RowRanking.top_support`). Attributes as :class:`SupportRanks`'s, queries in code
    order and input order inside a query (no reader depends on the order inside a query).
    """

    counts: np.ndarray
    labels: np.ndarray
    offsets: np.ndarray
    label_stats: tuple | None = None


#: Interleaved rows are moved into grouped order before ranking when the queries that hold an
#: active row are expected to hold at least one row in ``_GATHER_SHARE``; else read through the
#: grouped order. Reading through it costs a random read of every row of such a query (its
#: score and its mask), moving them a scatter of every row: measured (issue 44, CPU time,
#: loaded 2-core machine) on the methodology's shape (2 % active, every query holding some) the
#: move took rows in random order from 3.5-4.1x to 1.12-1.16x the move floor (33M and 8M
#: rows); with 0.1 % active on 100-row queries (a tenth of the rows in such queries) reading in
#: place stayed cheaper (25 against 41 ms on 1M rows). Web rows (40 % active) are moved, as
#: before.
_GATHER_SHARE = 4


def _many_active(rule, sizes):
    """Whether the queries holding an active row are expected to hold at least one row in
    ``_GATHER_SHARE`` (``sizes``: rows of each query), with the share of active rows judged on
    the rule's first ``_GATHER_SAMPLE`` rows (rows in random order are a fair sample of
    themselves) and a query of n rows holding one with probability ``1 - (1 - share)**n``. It
    only picks how rows are read: the ranks are the same bits either way."""
    values = rule[0][:_GATHER_SAMPLE]
    active = np.count_nonzero(_rule_mask(values, *rule[1:]))
    if active == 0:
        return False
    sizes = np.asarray(sizes, dtype=np.float64)
    held = np.ones_like(sizes)  # P(a query holds one): 1 when every sampled row is active
    if active < values.size:
        held = -np.expm1(sizes * np.log1p(-active / values.size))
    return float(sizes @ held) * _GATHER_SHARE >= sizes.sum()


#: Rows of the sample that :func:`_many_active` reads.
_GATHER_SAMPLE = 1 << 16


def _kernel_order(grouped):
    """A grouped order as the kernels read it: int32 (the counting sort's, while rows fit in
    32 bits) or intp indices."""
    return grouped if grouped.dtype == np.int32 else grouped.astype(np.intp, copy=False)


def rank_support(
    grouping,
    y_score,
    active,
    *,
    tiebreak=None,
    tie_order=False,
    n_threads=1,
    labels=None,
    rows=True,
    score_range=False,
):
    """Per query, how many rows score higher than each active row, tie with it, or precede it.

    This is all that the metric terms need of the ranking (``docs/conventions.rst``). Per query
    of n rows with p active ones, each active row counts the rows above and level with it
    (O(n p) on vectors, for p up to ``_ranking.DIRECT_MAX``), or the p active scores are sorted
    and every row finds by binary search which of them it outranks, ties or precedes on the
    tie-break (O(n log p)).
    Queries run in parallel threads with no shared state, so the result is the same, bit for
    bit, for any ``n_threads`` and for any set of other queries.

    Parameters
    ----------
    grouping : Grouping
        The rows grouped by query.
    y_score : ndarray
        Scores in input order (float or integer, compared exactly).
    active : ndarray of bool or tuple
        The rows to rank: a mask in input order, or an :func:`active_rule`.
    tiebreak : ndarray, optional
        Tie-break key inside tied blocks, ascending, before input order.
    tie_order : bool, default=False
        Also count, for each active row, the tied rows that precede it (``before``).
    n_threads : int, default=1
    labels : ndarray of float64, optional
        Values (in input order) to read at each active row, in the threads that rank them.
    rows : bool, default=True
        Also return the input row of each active row (``SupportRanks.row``); the metric
        engine reads only ``labels`` and leaves it out (8 bytes less written per row).

    score_range : bool, default=False
        Also find the smallest and largest score (``SupportRanks.score_range``): read query by
        query as the ranking reads the scores, in grouped order (rows read through the grouped
        order: one pass of its own). For a caller that leaves the check of the scores to the
        ranking; a NaN or infinite score leaves its query unranked.

    Returns
    -------
    SupportRanks
    """
    rule = _compiled_active(active)
    scores, key = score_keys(y_score), _tie_key(tiebreak)
    labels = None if labels is None else np.ascontiguousarray(labels, dtype=np.float64)
    rank = partial(
        _rank_grouped,
        grouping,
        tie_order=tie_order or tiebreak is not None,
        n_threads=n_threads,
        rows=rows,
        score_range=score_range,
    )
    movable = grouping.interleaved and not rows and isinstance(rule, tuple)
    if movable and _many_active(rule, grouping.sizes):
        # Rows of interleaved queries, most of them in queries holding an active row: the
        # scores, the rule's values, the labels and the key (each distinct array once) are
        # moved into grouped order in one scatter (8-24 bytes a row), then ranked as grouped
        # rows, read in order. When most queries hold no active row, reading the rows of the
        # others at random through the grouped order costs less than moving every row.
        arrays = (scores, rule[0], labels, key)
        carry = list({id(a): a for a in arrays if a is not None}.values())
        if len(carry) <= 3:
            moved = dict(zip(map(id, carry), grouping.gather(carry), strict=True))
            scores, values, labels, key = (None if a is None else moved[id(a)] for a in arrays)
            moved_rule = (values, *rule[1:])
            # Counted on the moved rows, in order (unless counted before), and kept.
            counts = grouping.count(active, moved=moved_rule)
            return rank(scores, moved_rule, key, labels, counts=counts)
    # Active rows per query: a sequential read (not through the grouped order), and no work
    # at all when the same mask was counted before (the relevant rows, for the table).
    counts = grouping.count(active)
    grouped = grouping.grouped
    if grouped is not None and isinstance(rule, tuple):
        # Rows read through the grouped order are read at random: a one-byte mask costs less
        # to read so than the 8-byte values the rule compares.
        rule = _rule_mask(*rule).view(np.uint8)
    order = None if grouped is None else _kernel_order(grouped)
    return rank(scores, rule, key, labels, order, counts=counts)


def _rank_grouped(
    grouping,
    scores,
    rule,
    key,
    labels,
    grouped=None,
    *,
    counts,
    tie_order,
    n_threads,
    rows,
    score_range,
):
    """The compiled ranking of :func:`rank_support` (rows read through ``grouped`` if given:
    then the range of the scores, when asked, is one pass of its own, before the ranking)."""
    if score_range and (grouped is not None or scores.dtype != np.float64):
        found = tuple(map(float, _scan_range(scores, n_threads)))
        if not np.isfinite(found).all():  # nothing ranked: the caller refuses the scores
            return _unranked(grouping.n_groups, found)
        ranks = _rank_grouped(
            grouping, scores, rule, key, labels, grouped, counts=counts, tie_order=tie_order,
            n_threads=n_threads, rows=rows, score_range=False,
        )  # fmt: skip
        return replace(ranks, score_range=found)
    return SupportRanks(
        *_ranking.rank_support(
            scores,
            rule,
            grouping.offsets.astype(np.intp, copy=False),
            grouped=grouped,
            key=key,
            tie_order=tie_order,
            n_threads=n_threads,
            grain=_threads.grain(),
            counts=counts,
            labels=labels,
            rows=rows,
            grade_limit=MAX_INT_LABEL,
            score_range=score_range,
            tie_flag=True,
            grade_counts=labels is not None,
        )
    )


def _scan_range(scores, n_threads):
    """``(min, max)`` of non-empty scores (NaN when one is NaN), one pass of its own."""
    if scores.dtype == np.float64:
        return _sums.value_range(scores, n_threads, _threads.grain())
    return scores.min(), scores.max()


def _unranked(n_queries, score_range):
    """The :class:`SupportRanks` of scores that are refused: no active row ranked."""
    none = np.zeros(0, dtype=np.int32)
    counts = np.zeros(n_queries, dtype=np.intp)
    offsets = np.zeros(n_queries + 1, dtype=np.intp)
    return SupportRanks(counts, None, none, none, None, None, offsets, None, score_range)


class RowRanking:
    """How the rows of every query rank under one tie-break, computed only as far as asked.

    Metric terms need the rank geometry of a few rows (:meth:`support`, O(n log p) per
    query); only the rank correlations need the full per-query order (:attr:`order`, a sort).

    ``grouping``, ``y_score``, ``tiebreak`` and ``n_threads`` are :func:`rank_support`'s;
    ``tie_order``: whether the order inside tied blocks matters (every policy but tie
    averaging and block ranks), so that :meth:`support` also counts the tied rows before each
    row (always, with a ``tiebreak``).
    """

    def __init__(self, grouping, y_score, *, tiebreak=None, tie_order=False, n_threads=1):
        self.grouping = grouping
        self.y_score = y_score
        self.tiebreak = tiebreak
        self.tie_order = tie_order or tiebreak is not None
        self.n_threads = n_threads

    def support(self, active, labels=None, score_range=False):
        """:class:`SupportRanks` of the ``active`` rows (a boolean mask in input order, or an
        :func:`active_rule`), with ``labels`` read at each of them when given; without their
        input rows (``row`` is None: the metrics read labels, not rows). ``score_range``: as
        :func:`rank_support`'s."""
        return rank_support(
            self.grouping,
            self.y_score,
            active,
            tiebreak=self.tiebreak,
            tie_order=self.tie_order,
            n_threads=self.n_threads,
            labels=labels,
            rows=False,
            score_range=score_range,
        )

    def top_support(self, active, k, labels, score_range=False):
        """``(SupportRanks, SupportLabels)``: the ranks of the ``active`` rows that can rank
        within each query's first ``k`` rows (int64, one per query), each the same bits as
        :meth:`support` gives it, and the ``labels`` of every active row, for what reads them
        all (issue 44: rank only what is read; the compiled ``top_support`` of ``_ranking``).

        Per query, a floor at or below its ``k``-th largest score is found in O(n) on
        vectors; a row scoring below it has ``k`` rows above it, so it ranks beyond ``k``
        under every tie policy. The active rows at or above the floor are ranked among the
        rows at or above it alone (every row above or level with them is one of those).
        ``score_range``: as :func:`rank_support`'s. None for interleaved rows that
        :func:`rank_support` would not move into grouped order (few queries hold an active
        row): read at random, every row of a query twice, they cost more than its ranking.
        """
        grouping, rule = self.grouping, _compiled_active(active)
        scores, key = score_keys(self.y_score), _tie_key(self.tiebreak)
        labels = np.ascontiguousarray(labels, dtype=np.float64)
        if grouping.interleaved:
            arrays = (scores, rule[0], labels, key) if isinstance(rule, tuple) else ()
            carry = list({id(a): a for a in arrays if a is not None}.values())
            if not carry or len(carry) > 3 or not _many_active(rule, grouping.sizes):
                return None
            # Moved into grouped order in one scatter, as rank_support moves them.
            moved = dict(zip(map(id, carry), grouping.gather(carry), strict=True))
            scores, values, labels, key = (None if a is None else moved[id(a)] for a in arrays)
            rule = (values, *rule[1:])
            counts = grouping.count(active, moved=rule)  # kept for the table, as there
        else:
            counts = grouping.count(active)  # kept: the relevant rows, counted for the table
        return self._top_ranked(scores, rule, key, labels, counts, k, score_range)

    def _top_ranked(self, scores, rule, key, labels, counts, k, score_range):
        """:meth:`top_support` of rows read in grouped order, or through it."""
        grouping = self.grouping
        grouped = None if grouping.interleaved else grouping.grouped
        offsets = grouping.offsets.astype(np.intp, copy=False)
        every = SupportLabels(counts, *self._top_labels(counts))
        found = None
        if score_range and (grouped is not None or scores.dtype != np.float64):
            found = tuple(map(float, _scan_range(scores, self.n_threads)))
            if not np.isfinite(found).all():  # nothing ranked: the caller refuses the scores
                return _unranked(grouping.n_groups, found), every
        ranked, every_label = _ranking.top_support(
            scores, rule, offsets, counts, k, labels,
            grouped=None if grouped is None else _kernel_order(grouped), key=key,
            tie_order=self.tie_order, n_threads=self.n_threads, grain=_threads.grain(),
            score_range=score_range and found is None,
        )  # fmt: skip
        ranks = SupportRanks(*ranked)
        if found is not None:
            ranks = replace(ranks, score_range=found)
        # The labels' largest and whether all are grades: found by Grades on first use.
        return ranks, replace(every, labels=every_label)

    @staticmethod
    def _top_labels(counts):
        """``(labels, offsets)`` placeholders of :class:`SupportLabels`: where each query's
        support rows start (the running sum of ``counts``)."""
        offsets = np.zeros(counts.size + 1, dtype=np.intp)
        np.cumsum(counts, out=offsets[1:])
        return None, offsets

    @cached_property
    def order(self):
        """Every row in ranked order: by query code, descending score, tie-break, input order."""
        return rank_order(
            self.grouping,
            self.y_score,
            stable=self.tie_order,
            tiebreak=self.tiebreak,
            n_threads=self.n_threads,
        )
