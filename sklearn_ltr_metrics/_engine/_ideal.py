"""The support's grades and the ideal DCG: what the labels alone give, before any rank.

:class:`Grades` holds the labels of the support rows (the positive rows, every row under a gain
mapping that scores label 0) and what they allow: the largest label, whether they are small
integer grades, the gain of every grade. :class:`IdealGains` holds the judged labels of every
query (the support's, or the separate judgments of TREC input) as gain levels, and the DCG of
their best ordering at any cut-off. Neither reads a rank: :class:`~._ranked.RankedLists`
holds one of each beside the support's ranks. :func:`greedy_ideal_gains` is the diversity
measures' ideal (ndeval's greedy list over subtopics; ``_greedy.pxi`` in ``_ranking``): it
orders the relevant ``(document, subtopic)`` pairs by query, document and subtopic (a no-op
check when they already are) and runs one query per thread, the same bit for bit for any
number of threads.
"""

from __future__ import annotations

from functools import cached_property
from typing import NamedTuple

import numpy as np

from . import _ranking, _sums, _threads
from ._rank import MAX_INT_LABEL  # the ranking checks the grades as it gathers them
from ._support import segment_cumsum

__all__ = [
    "MAX_INT_LABEL",
    "MAX_LEVEL_TABLE",
    "DiversityGains",
    "Grades",
    "IdealGains",
    "cell_judgments",
    "cell_pairs",
    "decimal_keys",
    "decimal_keys_at",
    "diversity_gains",
    "greedy_ideal_gains",
    "rows_by_support",
    "subtopic_cells",
]

#: Largest (queries x distinct gains) table the ideal DCG counts in; beyond it, it sorts.
MAX_LEVEL_TABLE = 20_000_000


class Grades:
    """The labels of the support rows (``support_ranks.labels``, float64, in the support's
    order) and what they allow, each computed on first use (compiled, in threads)."""

    def __init__(self, support_ranks, gains, n_threads):
        self.ranks = support_ranks
        self.gains = gains
        self.n_threads = n_threads

    @property
    def labels(self):
        return self.ranks.labels

    @property
    def _stats(self):
        """``(largest, grades)`` of the labels when the ranking found them (or None)."""
        return getattr(self.ranks, "label_stats", None)

    @cached_property
    def largest(self):
        """The largest label of the support rows, 0.0 when there are none: the largest label
        when it is positive, and any labels <= 0 pass the label checks as 0 does."""
        if not self.labels.size:
            return 0.0
        if self._stats is not None:  # found by the ranking, while it gathered the labels
            return self._stats[0]
        return float(_sums.value_range(self.labels, self.n_threads, _threads.grain())[1])

    @cached_property
    def top(self):
        """The largest label when all are integers in ``[0, MAX_INT_LABEL]`` (small grades,
        the usual case: per-grade tables replace per-row work), else None."""
        labels = self.labels
        if not labels.size:
            return None
        if self._stats is not None:  # found by the ranking, while it gathered the labels
            grades = self._stats[1]
        else:
            grades = _sums.all_integral(labels, MAX_INT_LABEL, self.n_threads, _threads.grain())
        return int(self.largest) if grades else None

    def counted(self, top):
        """Each query's support rows of each grade ``0..top`` as the ranking counted them
        (``SupportRanks.grade_counts``), or None where it did not (grades from ``top`` on)."""
        counts = getattr(self.ranks, "grade_counts", None)
        return counts if counts is not None and top < counts.shape[1] else None

    @cached_property
    def gain_of(self):
        """Gain of every grade 0..top, where the labels are small grades and the gain is a
        formula (a mapping only knows its own labels); else None."""
        if self.top is None or self.gains.kind == "mapping":
            return None
        return self.gains(np.arange(self.top + 1.0))


class IdealGains:
    """The ideal DCG of every query: its judged labels' gain levels and the discounts they fill.

    Parameters
    ----------
    grades : Grades
        The support's labels: the judged documents when ``judged_labels`` is None.
    log_base : float
        Base of the DCG discount ``1 / log_base(rank + 1)``.
    n_queries : int
    judged_labels : ndarray or None
        The judged labels of every query (TREC input), or None.
    judged_codes_of : callable or None
        Maps indices of ``judged_labels`` to their query codes.
    """

    def __init__(self, grades, log_base, n_queries, judged_labels=None, judged_codes_of=None):
        self.grades = grades
        self.gains = grades.gains
        self.log_base = float(log_base)
        self.n_queries = n_queries
        self.judged_labels = judged_labels
        self.judged_codes_of = judged_codes_of

    def discount(self, rank):
        """The DCG discount's denominator ``log_base(rank + 1)`` of 1-based ``rank``."""
        rank1 = np.asarray(rank, dtype=np.float64) + 1.0
        if self.log_base == 2.0:
            return np.log2(rank1)
        return np.log(rank1) / np.log(self.log_base)

    @cached_property
    def levels(self):
        """Each query's distinct positive gains among its judged labels, and their counts.

        Returns ``(gain, count, upper, offsets)``: per (query, level) run, queries in order and
        gains descending inside a query, the gain, how many judged labels have it, and how many
        have at least that gain (``upper``); ``offsets`` delimit each query's runs. The runs
        of a query depend on its own labels only, so its ideal DCG does too.
        """
        grades = self.grades
        if self._level_map is not None:
            # The judged labels are the ranked rows' small integer grades, and the gain is a
            # formula (defined on every grade): grades of equal gain are one level, levels in
            # descending gain, and the runs of each query are counted from its support rows
            # (compiled, in threads; the support is in query order).
            level_of, level_gain, top = self._level_map
            return _sums.ideal_levels(
                grades.labels,
                grades.ranks.offsets,
                level_of,
                level_gain,
                grades.n_threads,
                _threads.grain(),
                grade_counts=grades.counted(top),
            )
        return self._counted_levels()

    @cached_property
    def _level_map(self):
        """``(level_of, level_gain, top)`` where the judged labels are the ranked rows' small
        integer grades (``0..top``) and the gain a formula: each grade's level (-1: no
        positive gain) and each level's gain, descending; else None (:attr:`levels` counts
        the labels' gains)."""
        n_q, grades = self.n_queries, self.grades
        top = grades.top if self.judged_labels is None else None
        if top is None or grades.gain_of is None or n_q * (top + 1) > MAX_LEVEL_TABLE:
            return None
        neg_levels, level_of = np.unique(-grades.gain_of, return_inverse=True)
        level_of = level_of.ravel().astype(np.intp)
        positive = -neg_levels > 0  # a prefix: the levels run in descending gain
        level_of[~positive[level_of]] = -1
        return level_of, -neg_levels[positive], top

    @cached_property
    def _grade_counts(self):
        """``(counts, level_of, level_gain)`` where the ranking counted each query's grades
        (:meth:`Grades.counted`) and :attr:`_level_map` applies: the ideal DCG and the
        queries with a positive gain are then read from the counts, and no (query, level)
        runs are written unless a kernel asks for :attr:`levels`; else None."""
        if self._level_map is None:
            return None
        level_of, level_gain, top = self._level_map
        counts = self.grades.counted(top)
        return None if counts is None else (counts, level_of, level_gain)

    def _counted_levels(self):
        """:attr:`levels` of any labels: counted in a (query, level) table, else sorted."""
        n_q = self.n_queries
        labels, codes_of = self._rows()
        neg_levels, level = np.unique(-self.gains(labels), return_inverse=True)
        level, distinct = level.ravel(), -neg_levels
        width = max(distinct.size, 1)
        if n_q * width <= MAX_LEVEL_TABLE:
            keys = codes_of(np.arange(level.size)).astype(np.int64) * width + level
            table = np.bincount(keys, minlength=n_q * width).reshape(n_q, width)
            table[:, distinct <= 0] = 0  # levels without gain do not count
            keys = np.flatnonzero(table)
            counts = table.ravel()[keys]
        else:
            keep = np.flatnonzero(distinct[level] > 0)
            keys = codes_of(keep).astype(np.int64) * width + level[keep]
            keys, counts = np.unique(keys, return_counts=True)
        query = keys // width
        per_query = np.bincount(query, minlength=n_q)
        offsets = np.concatenate(([0], np.cumsum(per_query)))
        upper = segment_cumsum(counts, offsets)
        return distinct[keys % width], counts, upper, offsets

    def _rows(self):
        """The judged labels that can have a gain, and a map of their indices to query codes."""
        if self.judged_labels is None:
            # The ranked rows are the judged documents: the support rows (positive labels,
            # or every row for a gain mapping that scores label 0), in query order.
            counts = self.grades.ranks.counts

            def support_codes(index):
                return np.repeat(np.arange(self.n_queries), counts)[index]

            return self.grades.labels, support_codes
        labels = self.judged_labels
        rows = None if self.gains.scores_nonpositive else np.flatnonzero(labels > 0)

        def codes_of(index):
            return self.judged_codes_of(index if rows is None else rows[index])

        return (labels if rows is None else labels[rows]), codes_of

    @cached_property
    def has_positive_gain(self):
        """Whether each query has a judged label with a positive gain (ideal DCG > 0)."""
        if self._grade_counts is not None:  # from the ranking's grade counts
            counts, level_of, _ = self._grade_counts
            found = _sums.positive_gain_of_counts(
                counts, level_of, self.grades.n_threads, _threads.grain()
            )
            return found.view(bool)
        offsets = self.levels[3]  # a query's runs: its levels with a positive gain
        return np.not_equal(offsets[1:], offsets[:-1])

    def dcg(self, pair_query, pair_k):
        """DCG of the best ordering of each query's judged labels, cut at ``pair_k``.

        Per pair, a sum over its query's gain levels (in descending order) of the gain times
        the discounts of the ranks that level fills: the terms and their order depend on the
        query alone, so the value is the same whatever other queries are evaluated with it
        (compiled, parallel over pairs: ``ideal_dcg`` of ``_sums``).
        """
        if self._grade_counts is not None:
            # From the ranking's grade counts: the same levels, terms and order. A query's
            # count of labels with a gain is at most its support rows: the discounts' sums
            # run that far (the same prefix as up to the largest count).
            counts, level_of, level_gain = self._grade_counts
            support_rows = self.grades.ranks.counts
            return _sums.ideal_dcg_of_counts(
                counts,
                level_of,
                level_gain,
                np.ascontiguousarray(pair_query, dtype=np.intp),
                np.asarray(pair_k, dtype=np.float64),  # a broadcast cut-off read in place
                self._discount_sums(int(support_rows.max()) if support_rows.size else 0),
                self.grades.n_threads,
                _threads.grain(),
            )
        gain, count, upper, offsets = self.levels
        if gain.size == 0:
            return np.zeros(pair_query.size)
        # ``upper`` grows inside each query: its largest value is the longest query's count.
        disc_cum = self._discount_sums(int(upper.max()))
        return _sums.ideal_dcg(
            np.ascontiguousarray(gain, dtype=np.float64),
            np.ascontiguousarray(count, dtype=np.int64),
            np.ascontiguousarray(upper, dtype=np.int64),
            np.ascontiguousarray(offsets, dtype=np.intp),
            np.ascontiguousarray(pair_query, dtype=np.intp),
            np.ascontiguousarray(pair_k, dtype=np.float64),
            disc_cum,
            self.grades.n_threads,
            _threads.grain(),
        )

    def _discount_sums(self, longest):
        """The running sums of the discounts' reciprocals over ranks ``1..longest``, from 0."""
        return np.concatenate(([0.0], np.cumsum(1.0 / self.discount(np.arange(1, longest + 1)))))


def _pair_order(query, doc, qs):
    """A permutation grouping the pairs by query, then document, in ``qs`` order within a
    document: None when they already are (the flat arrays' pairs, queries in code order),
    else the one sorting them by ``(query, doc, qs)``."""
    step = (doc[1:] > doc[:-1]) | ((doc[1:] == doc[:-1]) & (qs[1:] > qs[:-1]))
    if (query[1:] >= query[:-1]).all() and step.all():
        return None
    keys = (qs, doc, query)  # the last key major
    bits = [max(int(k.max()).bit_length(), 1) for k in keys]
    if sum(bits) > 62:
        return np.lexsort(keys)
    packed = np.zeros(query.size, dtype=np.int64)
    for key, width in zip(reversed(keys), reversed(bits), strict=True):
        packed = (packed << width) | key.astype(np.int64, copy=False)
    return np.argsort(packed, kind="stable")


def _grouped_pairs(query, doc, key, qs, n_queries, *more, ordered=False):
    """The pairs as the compiled greedy reads them: grouped by query, document and ``qs``
    (sorted only when they are not; ``ordered``: the caller knows they are, not checked),
    and the offsets of each query's pairs."""
    query = np.asarray(query, dtype=np.intp)
    doc, qs = np.asarray(doc, dtype=np.intp), np.asarray(qs, dtype=np.intp)
    arrays = [doc, np.asarray(key, dtype=np.int64), qs, *more]
    if query.size and not ordered:
        order = _pair_order(query, doc, qs)
        if order is not None:
            query, arrays = query[order], [a[order] for a in arrays]
    offsets = np.zeros(n_queries + 1, dtype=np.intp)
    np.cumsum(np.bincount(query, minlength=n_queries), out=offsets[1:])
    return offsets, arrays


class DiversityGains(NamedTuple):
    """:func:`diversity_gains`'s answer: per query, the greedy ideal list's gains at ranks
    ``1..width`` and its NRBP sum; the run's gain, relevant pairs and newly covered subtopics
    at ranks ``1..width``."""

    ideal: np.ndarray
    ideal_nrbp: np.ndarray
    run: np.ndarray
    pairs: np.ndarray
    new: np.ndarray


def diversity_gains(
    query,
    doc,
    key,
    qs,
    rank,
    n_queries,
    n_qs,
    alpha,
    beta,
    depth,
    width,
    n_threads=1,
    ordered=False,
    *,
    offsets=None,
    counts=True,
):
    """The run's list and the greedy ideal's of every query, in one compiled pass over each
    query's pairs (one query per thread, the same bits for any number of threads).

    The arguments are those of :func:`greedy_ideal_gains`, with ``rank``: per pair, its
    document's 1-based rank in the run (distinct in a query; 0 when not retrieved); a
    ``depth`` of 0 leaves the ideal out (zeros); ``ordered``: the pairs are known to be grouped
    (:func:`_grouped_pairs`). At each rank the run's gain is the sum over
    its document's pairs of ``(1 - alpha) ** (times the subtopic is covered above)``, added
    in subtopic order as the ideal's, so a run ranked as the ideal has the ideal's sums.
    ``offsets`` (where each query's pairs start, and their total): the pairs are grouped
    (``query`` is not read) and ``key`` and ``rank`` are per document, read at ``doc``
    (:func:`cell_pairs`' form: no per-pair copy). ``counts=False``: the run's relevant pairs
    and new subtopics are not counted (``pairs`` and ``new`` are None).

    Returns
    -------
    DiversityGains
    """
    rank = np.asarray(rank, dtype=np.int64)
    by_doc = offsets is not None
    if by_doc:
        offsets = np.asarray(offsets, dtype=np.intp)
        arrays = (np.asarray(doc, dtype=np.intp), np.asarray(key, dtype=np.int64))
        arrays += (np.asarray(qs, dtype=np.intp), rank)
    else:
        offsets, arrays = _grouped_pairs(query, doc, key, qs, n_queries, rank, ordered=ordered)
    settings = _greedy_settings(n_qs, alpha, beta, depth, width, n_threads)
    lists = _ranking.diversity_gains(offsets, *arrays, *settings, by_doc=by_doc, counts=counts)
    return DiversityGains(*lists)


def decimal_keys(ids):
    """Integer keys that order non-negative integer ids below ``10**17`` as their decimal
    strings (ndeval compares doc ids with ``strcmp``): the digits aligned to the left, then
    the length (``"12" < "123" < "13"``); one compiled pass, no string written."""
    return _ranking.decimal_keys(np.ascontiguousarray(ids, dtype=np.int64))


def decimal_keys_at(ids, rows):
    """:func:`decimal_keys` of ``ids[rows]`` (int64 ids) read in place, or None when one of
    them is negative or ``>= 10**17``."""
    return _ranking.decimal_keys_at(
        np.ascontiguousarray(ids, dtype=np.int64), np.ascontiguousarray(rows, dtype=np.intp)
    )


def subtopic_cells(labels, rel):
    """``(rows, columns, valid)``: the cells of the 2-D ``labels`` at or above ``rel`` in
    row-major order (``np.nonzero(labels >= rel)``), and whether every label is finite and
    >= 0, in one compiled pass with no mask written."""
    labels = np.ascontiguousarray(labels, dtype=np.float64)
    return _ranking.subtopic_cells(labels, float(rel))


def cell_judgments(rows, cols, codes, width):
    """``(docs, doc_q, trip_doc, trip_qs)`` of the relevant cells ``(rows, cols)`` of
    :func:`subtopic_cells` (rows ascending) and the rows' query ``codes``: the distinct rows,
    their queries, and per cell its row's index in ``docs`` and its ``(query, subtopic)``
    code ``codes[row] * width + col``; one compiled pass."""
    return _ranking.cell_judgments(
        np.ascontiguousarray(rows, dtype=np.intp),
        np.ascontiguousarray(cols, dtype=np.intp),
        np.ascontiguousarray(codes, dtype=np.intp),
        int(width),
    )


def cell_pairs(labels, rel, offsets):
    """``(docs, doc_q, trip_doc, trip_qs, pair_offsets, n_rel, n_rel_qs, valid)``:
    :func:`cell_judgments` of :func:`subtopic_cells` for rows grouped by query in code order
    (``offsets``: each query's first row, and the number of rows), with where each query's
    pairs start, the documents of each query and of each ``(query, subtopic)`` code, and
    whether every label is finite and >= 0; one compiled pass by blocks of rows, no array of
    every cell's row and column written."""
    labels = np.ascontiguousarray(labels, dtype=np.float64)
    offsets = np.ascontiguousarray(offsets, dtype=np.intp)
    return _ranking.cell_pairs(labels, float(rel), offsets)


def rows_by_support(support, value_before, rows):
    """The 1-based rank, ``greater + before + 1``, of each of ``rows`` (ascending, each
    query's block in code order: the support's own rows) from :func:`rank_support`'s arrays
    (``value_before``: the tie-break counts to add, ``support.before`` or a corrected copy),
    as int64; one compiled pass, through a scratch of one query's rows."""
    return _ranking.rows_by_support(
        support.row.astype(np.intp, copy=False),
        support.greater.astype(np.int32, copy=False),
        np.asarray(value_before).astype(np.int32, copy=False),
        support.offsets.astype(np.intp, copy=False),
        np.ascontiguousarray(rows, dtype=np.intp),
    )


def greedy_ideal_gains(
    query, doc, key, qs, n_queries, n_qs, alpha, beta, depth, width, n_threads=1
):
    """``(gains, nrbp)`` of ndeval's greedy ideal of every query, to ``depth`` ranks.

    Parameters
    ----------
    query, doc, qs : ndarray of int
        Per relevant pair: its query code (``< n_queries``), its document (any integer, the
        same for the pairs of one document) and its ``(query, subtopic)`` code (``< n_qs``).
    key : ndarray of int64
        Per pair, its document's tie-break key: ties go to the greatest.
    alpha, beta : float
        ndeval's redundancy and patience parameters.
    depth, width : int
        The ranks taken; the ranks whose gains are returned.

    Returns
    -------
    gains : ndarray of shape (n_queries, width)
        The ideal list's gain at each rank (0 past its end).
    nrbp : ndarray of shape (n_queries,)
        ``sum_i gain_i * beta**(i-1)`` over the first ``depth`` ranks.
    """
    offsets, (doc, key, qs) = _grouped_pairs(query, doc, key, qs, n_queries)
    settings = _greedy_settings(n_qs, alpha, beta, depth, width, n_threads)
    return _ranking.greedy_ideal_gains(offsets, doc, key, qs, *settings)


def _greedy_settings(n_qs, alpha, beta, depth, width, n_threads):
    """The arguments of the compiled greedy functions after their arrays, in their types."""
    return n_qs, float(alpha), float(beta), int(depth), int(width), n_threads, _threads.grain()
