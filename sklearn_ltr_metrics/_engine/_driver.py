"""The driver: validated flat arrays to the per-query table, one named step after another.

:func:`evaluate_arrays` reads top to bottom in the order data flows::

    group the rows      group_rows (ids coded, rows grouped by query)
    rank                _row_ranking (the tie policy's ranking, computed as far as asked)
    rank the support    _support_ranks (the rows that can carry a metric term, ranked first)
    count per query     query_counts (relevant rows, n_pos / n_neg, query_stats)
    ranked lists        _ranked_lists (what the metric kernels read: RankedLists)
    check the labels    _check_labels_for (what a requested metric cannot score)
    per metric          _metric_column: cut-offs -> _clip -> _kernel_values -> _undefined_filled
                        -> _query_means
    table               _table_of (count columns and metric columns, indexed by qid)

Every step works on all queries at once; none loops over queries in Python.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache as computed_once
from functools import partial

import numpy as np
import pandas as pd

from . import _sums, _threads
from ._counts import divide_or_nan, float_copy, query_counts, table_counts
from ._cutoffs import STRATEGIES, cutoff_pairs
from ._grouping import active_rule, group_rows
from ._rank import RowRanking
from ._ranked import Judgments, ListOptions, RankedLists, support_rule
from ._scans import value_range

__all__ = ["InputScans", "KernelContext", "evaluate_arrays", "read_cutoff", "tiebreak_key"]


@dataclass(frozen=True)
class InputScans:
    """What the input checks found in their passes over the rows, for the engine to take
    rather than find again (each None where not found).

    Attributes
    ----------
    runs : ndarray of intp or None
        Where each run of equal query ids starts (of one object, for object ids).
    run_heads : ndarray or None
        The id of each run (``qid[runs]``), when the check read them (fixed-width ids).
    run_counts : ndarray of intp or None
        The rows with a label above 0 in each run, counted by the check of the labels (taken
        when the runs are the queries).
    check_scores : callable or None
        The check of the scores, left to the ranking (which reads every score): called, and
        raising its error, when the ranking finds a NaN or an infinite score.
    """

    runs: np.ndarray | None = None
    run_heads: np.ndarray | None = None
    run_counts: np.ndarray | None = None
    check_scores: Callable[[], None] | None = None


@dataclass(frozen=True)
class KernelContext:
    """What a kernel reads: the ranked lists, the ``(query, cut-off)`` pairs and the options.

    Attributes
    ----------
    lists : RankedLists
        The ranked lists of every query (:mod:`._ranked`).
    query : ndarray of intp
        The query code of each pair (``lists.every_query`` for one pair per query).
    k : ndarray of float64
        The requested cut-off of each pair (``inf`` for the whole list).
    kk : ndarray of int64
        The rows actually inside each pair's cut-off.
    k_eff : ndarray of float64
        The cut-off a denominator uses (the list's length for the whole list): read from
        ``k_eff_of``.
    k_eff_of : ndarray of float64 or callable
        ``k_eff``, or a function that returns it, called when a kernel reads it (the whole
        list's lengths as float64 are then written only when a kernel reads them).
    options : dict
        The resolved options (:func:`~._options.check_options`) and the spec's parameters.
    """

    lists: object
    query: np.ndarray
    k: np.ndarray
    kk: np.ndarray
    k_eff_of: np.ndarray | Callable[[], np.ndarray]
    options: dict

    @property
    def k_eff(self):
        """The cut-off a denominator uses, per pair (float64)."""
        return self.k_eff_of() if callable(self.k_eff_of) else self.k_eff_of

    def at(self, values):
        """Per-query ``values`` read at each pair (no gather for one pair per query)."""
        return self.lists.at(values, self.query)

    def divide(self, numerator, denominator):
        """numerator / denominator per pair, NaN where the denominator is not above 0."""
        return divide_or_nan(numerator, denominator, self.lists.n_threads)

    def hits(self):
        """Relevant rows inside each pair's cut-off (their expectation under tie averaging)."""
        return self.lists.hits(self.query, self.kk)

    @property
    def n_pos(self):
        """Relevant documents of each pair's query."""
        return self.at(self.lists.n_pos)

    def with_options(self, **values):
        """The same pairs with some options replaced."""
        return KernelContext(
            self.lists, self.query, self.k, self.kk, self.k_eff_of, {**self.options, **values}
        )


def evaluate_arrays(
    y_true,
    y_score,
    qid,
    specs,
    options,
    *,
    gains,
    row_terms=None,
    doc_id=None,
    query_stats=None,
    ideal=None,
    n_pos_judged=None,
    judged=None,
    n_threads=1,
    scans=None,
    qid_values=None,
    shared=None,
):
    """The per-query table of validated arrays: ``(per_query, cutoff_parts)``.

    ``specs`` are the metric specs (each ``spec.metric`` a registry entry with its kernel),
    ``options`` the checked options, ``gains`` the gain mapping of ``options["gain"]`` and
    ``row_terms`` the per-row terms the metrics family defines (:class:`RankedLists`).
    ``ideal`` is ``(codes, labels)`` of every judged document (TREC input), ``n_pos_judged``
    the relevant judged documents per query, ``judged`` whether each row has a judgment.
    ``scans``: what the input checks found in their passes (:class:`InputScans`), taken
    rather than found again. ````qid_values``:
    ``qid`` holds integer codes of these sorted ids (``coded_qid``). ``shared``: a dict that
    the calls of one evaluation on the very same arrays pass each (the groups of metrics
    whose names imply other options): the grouping, the ranking of each tie policy, the
    support ranks and the counts are then computed once for all of them.

    ``per_query`` is the DataFrame of count and metric columns indexed by qid;
    ``cutoff_parts`` maps each metric column to ``(qids, pair_k, values)`` of its pairs.
    """
    once, scans = _Once(shared), scans or InputScans()
    ties, threshold = options["ties"], options["min_relevance"]
    grouping = once(
        "grouping",
        group_rows,
        qid,
        n_threads=n_threads,
        runs=scans.runs,
        values=qid_values,
        heads=scans.run_heads,
    )
    ranking = once(
        ("ranking", ties), _row_ranking, grouping, y_true, y_score, ties, doc_id, n_threads
    )
    # The support is ranked first: rows in random query order moved into grouped order are
    # then counted in order, and the relevant rows, when they are the support, are not
    # counted again.
    positive, is_relevant = _relevance_rules(y_true, threshold)
    if scans.run_counts is not None:
        grouping.take_run_counts(positive, scans.run_counts)
    counts_of = computed_once(
        partial(
            once,
            ("counts", threshold),
            query_counts,
            grouping,
            is_relevant,
            n_pos_judged=n_pos_judged,
            query_stats=query_stats,
            n_threads=n_threads,
        )
    )  # counted after the ranking, unless per-query cut-offs are read (read_cutoff)
    support = _ranked_support(
        once,
        ranking,
        specs,
        counts_of,
        support_rule(y_true, gains, positive),
        y_true,
        key=("support", ties, gains.scores_nonpositive, threshold),
        score_range=scans.check_scores is not None,
    )
    found = support[0].score_range
    if scans.check_scores is not None and not np.isfinite(found or np.nan).all():
        scans.check_scores()  # raises the check's error (a NaN or infinite score)
    counts = counts_of()
    del is_relevant
    ctx = _ranked_lists(
        ranking, support, counts, y_true, y_score, options, gains, ideal, judged, row_terms
    )
    _check_labels_for(specs, options, gains, ctx.largest_label, ctx.ideal_labels, n_threads)
    cache = {"undefined": {}}  # what every metric shares: the undefined queries, sizes as float
    columns, cutoff_parts = {}, {}
    for spec in specs:
        column, cutoff_parts[spec.column] = _metric_column(spec, ctx, counts, options, cache)
        columns[spec.column] = column
    return _table_of(grouping, counts, columns, n_threads), cutoff_parts


class _Once:
    """``once(key, func, *args, **kwargs)``: ``func(*args, **kwargs)``, computed once per key
    in the ``shared`` dict of an evaluation's calls (every time without one)."""

    def __init__(self, shared):
        self.shared = shared

    def holds(self, key):
        """Whether ``key`` was computed by an earlier call of the evaluation."""
        return self.shared is not None and key in self.shared

    def __call__(self, key, func, *args, **kwargs):
        if self.shared is None:
            return func(*args, **kwargs)
        if key not in self.shared:
            self.shared[key] = func(*args, **kwargs)
        return self.shared[key]


def tiebreak_key(ties, y_true, doc_id):
    """The key that orders tied rows under ``ties`` (smaller first), or None where the policy
    keeps input order (``stable``) or has no order inside a tied block (``average``,
    ``label_ranking``)."""
    if ties in ("trec_eval", "doc_id"):
        if doc_id is None:
            raise ValueError(
                f"ties={ties!r} (also set by conventions='trec_eval') breaks ties by doc_id; "
                "pass doc_id=..., or choose another ties= policy."
            )
        _, doc_rank = np.unique(np.asarray(doc_id).astype(str), return_inverse=True)
        # trec_eval: doc ids in descending order; "doc_id": ascending.
        return -doc_rank.ravel() if ties == "trec_eval" else doc_rank.ravel()
    if ties in ("pessimistic", "optimistic"):
        y_true = np.asarray(y_true, dtype=np.float64)
        return y_true if ties == "pessimistic" else -y_true
    return None


def _row_ranking(grouping, y_true, y_score, ties, doc_id, n_threads):
    """How the rows rank under the tie policy (:class:`RowRanking`: support ranks, lazy order)."""
    return RowRanking(
        grouping,
        y_score,
        tiebreak=tiebreak_key(ties, y_true, doc_id),
        tie_order=ties != "average",
        n_threads=n_threads,
    )


#: Whether a group of metric specs that read only their top k ranks only the support rows
#: that can land there (issue 44); False ranks every support row (tests compare the two).
RANK_ONLY_WHAT_IS_READ = True
#: ... when the queries average at least this many rows per unit of the largest cut-off K.
#: Ranking every support row counts each against its whole query on vectors, so it is cheap
#: on short queries; ranking the top rows costs a few passes over each query. Measured (issue
#: 44, CPU time, loaded 2-core machine, rank_support against top_support): web queries of 100
#: rows at K = 3, 5, 10, 20 gave 1.36x, 1.17x, 0.93x, 0.46x; the methodology's (1,650 rows on
#: average) at K = 10, 20, 50, 100, 200 gave 1.33x, 1.57x, 1.71x, 0.87x, 0.75x.
TOP_ROWS_PER_CUTOFF = 20


def read_cutoff(specs, sizes, counts_of):
    """``(k, name)``: the largest cut-off the ``specs`` read in each query (int64, one per
    query) and a key naming it, when each spec reads only its top k rows
    (``metric.reads == "top_k"``) at cut-offs known before ranking: an int, a list of ints, a
    strategy of the counts (``"adaptive"``...) or the metric's own (R-precision's n_pos),
    ``counts_of()`` giving the counts then. ``(None, None)`` when one reads more (MAP, MRR
    over the whole list, a callable cut-off), or when the queries (``sizes``: rows of each
    query) average fewer than ``TOP_ROWS_PER_CUTOFF`` rows per unit of the cut-offs: every
    support row is then ranked."""
    if not RANK_ONLY_WHAT_IS_READ or not sizes.size:
        return None, None
    top, rules = 0, []
    for spec in specs:
        metric, k = spec.metric, spec.k
        if getattr(metric, "reads", None) != "top_k":
            return None, None
        ks = k if isinstance(k, tuple) else (k,)
        if metric.own_cutoff is not None or (isinstance(k, str) and k in STRATEGIES):
            rules.append(metric.own_cutoff or STRATEGIES[k])
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in ks):
            top = max(top, *ks)
        else:
            return None, None  # the whole list, or a callable (called once, after ranking)
    k = np.full(sizes.shape, float(top))
    if rules:
        counts = counts_of()
        for rule in rules:
            values = np.asarray(rule(counts.n_pos, counts.n_neg), dtype=np.float64)
            k = np.maximum(k, values.max(axis=1) if values.ndim == 2 else values)
    if not np.isfinite(k).all() or sizes.mean() < TOP_ROWS_PER_CUTOFF * k.mean():
        return None, None
    name = top if not rules else ("per query", top, *(r.__name__ for r in rules))
    return np.maximum(np.ceil(k), 1.0).astype(np.int64), name


def _ranked_support(once, ranking, specs, counts_of, support, labels, *, key, score_range):
    """``(SupportRanks, SupportLabels or None)`` of the ``support`` rule: every support row
    ranked, or only those that can rank within each query's cut-off (:func:`read_cutoff`),
    with every support row's label apart (:meth:`RowRanking.top_support`, which may decline:
    then every row is ranked). Computed once per ``key[:3]`` (``("support", ties,
    scores_nonpositive)``) and cut-off; per-query cut-offs also per ``key[3]``, the relevance
    threshold of the counts they read."""
    k, name = read_cutoff(specs, ranking.grouping.sizes, counts_of)
    if once.holds((*key[:3], None)):
        k, name = None, None  # every support row ranked for another group of specs: it serves
    if isinstance(name, tuple):
        name = (*name, key[3])

    def rank():
        found = None if k is None else ranking.top_support(support, k, labels, score_range)
        if found is None:  # None: rows read at random, where ranking all costs less
            return ranking.support(support, labels=labels, score_range=score_range), None
        return found

    return once((*key[:3], name), rank)


def _relevance_rules(y_true, threshold):
    """The positive and the relevant rows, as rules the kernels apply row by row (no masks);
    the very same rule when the relevant rows are the positive ones."""
    positive = active_rule(y_true, 0.0)
    is_relevant = active_rule(y_true, threshold, True) if threshold is not None else positive
    return positive, is_relevant


def _ranked_lists(
    ranking, support, counts, y_true, y_score, options, gains, ideal, judged, row_terms
):
    """The :class:`RankedLists` every metric kernel reads; ``support`` is
    ``(SupportRanks, SupportLabels or None)`` (:func:`_ranked_support`)."""
    ties = options["ties"]
    judgments = Judgments(judged=judged)
    if ideal is not None:  # judged documents apart from the ranked rows (TREC input)
        ideal_codes, ideal_labels = ideal
        judgments = Judgments(ideal_labels, ideal_codes.__getitem__, judged)
    list_options = ListOptions(
        gains,
        average_ties=ties == "average",
        threshold_ties=ties == "label_ranking",
        threshold=options["min_relevance"],
        log_base=options["log_base"],
        err_max_grade=options["err_max_grade"],
        row_terms=dict(row_terms or {}),
    )
    n_pos = np.asarray(counts.n_pos, dtype=np.float64)
    return RankedLists(
        ranking,
        support[0],
        y_true=y_true,
        y_score=y_score,
        n_pos=n_pos,
        options=list_options,
        judgments=judgments,
        support_labels=support[1],
    )


def _check_labels_for(specs, options, gains, top_ranked, ideal_labels, n_threads=1):
    """Refuse labels a requested metric cannot score (err above err_max_grade, huge gains).

    ``top_ranked`` is the largest label of the ranked rows (:attr:`RankedLists.largest_label`);
    ``ideal_labels`` the judged labels when they are other rows (TREC input), else None.
    """
    top = top_ranked
    if ideal_labels is not None and ideal_labels.size:
        top = max(top, float(value_range(ideal_labels, n_threads)[1]))
    for spec in specs:
        metric = spec.metric
        if metric.max_label is not None and top_ranked > options[metric.max_label]:
            raise ValueError(
                f"{metric.name} needs labels <= {metric.max_label}={options[metric.max_label]:g}, "
                f"but the labels go up to {top_ranked:g}; pass {metric.max_label}=<your top grade>."
            )
        if metric.graded and metric.max_label is None:
            gains.check_labels(top)


def _metric_column(spec, ctx, counts, options, cache):
    """One metric's per-query column and its pairs: cut-offs -> rows inside them -> the
    kernel -> the undefined queries filled -> the mean of each query's pairs."""
    metric = spec.metric
    if metric.needs_judgments and ctx.judged is None:
        raise ValueError(
            f"metric {metric.name!r} needs judgments separate from the ranked list "
            f"({metric.description}); use evaluate_run(run, qrels, ...)."
        )
    cutoff, pair_query, pair_k = _pairs_of(spec, counts)
    # None: one pair per query, in query order; nothing is then gathered per pair.
    one_per_query = pair_query is None
    pair_query = ctx.every_query if one_per_query else pair_query
    kk, k_eff = _clip(ctx, cutoff, pair_query, pair_k, one_per_query, cache)
    kernel_options = {**options, **dict(spec.params)}
    values = _kernel_values(metric, ctx, pair_query, pair_k, kk, k_eff, kernel_options)
    undefined = _undefined_queries(metric, ctx, counts, cache)
    column = None
    if undefined is not None:
        values, column = _undefined_filled(
            values, undefined, spec, ctx, pair_query, one_per_query, options
        )
    if column is None:
        column = _query_means(values, pair_query, one_per_query, ctx)
    qids = ctx.ranking.grouping.uniques
    return column, (qids if one_per_query else qids[pair_query], pair_k, values)


def _pairs_of(spec, counts):
    """``(cutoff, pair_query, pair_k)``: the cut-off rule and its ``(query, k)`` pairs
    (``pair_query`` None: one pair per query, in query order)."""
    metric = spec.metric
    if metric.own_cutoff is not None:  # the metric's own cut-off (R-precision: n_pos)
        cutoff = metric.own_cutoff
        return cutoff, None, np.asarray(cutoff(counts.n_pos, counts.n_neg), dtype=np.float64)
    return (spec.k, *cutoff_pairs(spec.k, counts.n_pos, counts.n_neg))


def _clip(ctx, cutoff, pair_query, pair_k, one_per_query, cache):
    """``(kk, k_eff)`` of the pairs (:func:`_clipped`). With one pair per query, the rows
    inside an int cut-off are clipped once for every metric at that cut-off (the sizes
    themselves when no query is longer), and the whole list's k as float64 (``k_eff``, a
    function) is copied once, when a kernel first reads it."""
    sizes = ctx.sizes
    if not one_per_query:
        return _clipped(pair_k, sizes[pair_query], cutoff)
    if cutoff is None:

        def sizes_float():
            if "sizes_float" not in cache:
                cache["sizes_float"] = float_copy(sizes, ctx.n_threads)  # the whole list's k
            return cache["sizes_float"]

        return _clipped(pair_k, sizes, cutoff, sizes_float)
    if isinstance(cutoff, int):
        key = ("rows within", cutoff)
        if key not in cache:
            within = sizes if cutoff >= ctx.longest else None  # min(size, k) is the size
            cache[key] = _clipped(pair_k, sizes, cutoff, within=within)[0]
        return cache[key], pair_k
    return _clipped(pair_k, sizes, cutoff)


def _clipped(pair_k, pair_size, cutoff, size_float=None, within=None):
    """``(kk, k_eff)`` of the pairs: the rows inside each pair's cut-off, and the cut-off a
    denominator uses (the list's length for the whole list). ``cutoff`` is the rule the pairs
    come from: an int or None (the whole list) are worked in integers, with the same values.
    ``size_float``: ``pair_size`` as float64 (or a function giving it), given for the whole
    list (one pair per query, the caller's copy, read only). ``within``: the rows inside an
    int cut-off when the caller knows them (``pair_size`` itself when no list is longer).
    """
    if cutoff is None:
        return pair_size.astype(np.int64, copy=False), size_float
    if isinstance(cutoff, int):
        within = np.minimum(pair_size, cutoff) if within is None else within
        return within.astype(np.int64, copy=False), pair_k
    kk = np.minimum(pair_k, pair_size).astype(np.int64)
    return kk, np.where(np.isinf(pair_k), pair_size, pair_k)


def _kernel_values(metric, ctx, pair_query, pair_k, kk, k_eff, kernel_options):
    """The metric's kernel over every pair at once (the registry's ``metric.kernel``)."""
    context = KernelContext(ctx, pair_query, pair_k, kk, k_eff, kernel_options)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = metric.kernel(context)
    return np.asarray(values, dtype=np.float64)


def _undefined_queries(metric, ctx, counts, cache):
    """The mask of the queries where ``metric`` is undefined (no relevant document, or no
    positive gain: its registry entry says which), None when there are none. Shared by the
    metrics of one kind of undefined query."""
    kind = metric.undefined
    if kind == "never":
        return None
    known = cache["undefined"]
    if kind not in known:
        undefined = counts.n_pos == 0 if kind == "n_pos" else ~ctx.has_positive_gain
        known[kind] = undefined if undefined.any() else None
    return known[kind]


def _undefined_filled(values, undefined, spec, ctx, pair_query, one_per_query, options):
    """``(values, column)``: ``values`` with the undefined queries' pairs set as
    ``empty_query`` says, and with one pair per query the table's column, a copy of them
    (both written in one compiled pass, in threads); else None for the column."""
    policy = options["empty_query"]
    if policy == "error":
        bad = ctx.ranking.grouping.uniques[undefined][:5].tolist()
        raise ValueError(
            f"{int(undefined.sum())} queries have no relevant document, so {spec.column!r} "
            f"is undefined for them (e.g. {bad}); pass empty_query='skip', 'zero' or 'one'."
        )
    fill = {"skip": np.nan, "zero": 0.0, "one": 1.0}[policy]
    if one_per_query and values.shape == undefined.shape:
        flags = np.ascontiguousarray(undefined, dtype=bool).view(np.uint8)
        values = np.ascontiguousarray(values, dtype=np.float64)
        return _sums.filled_copies(values, flags, fill, ctx.n_threads, _threads.grain())
    return np.where(undefined if one_per_query else undefined[pair_query], fill, values), None


def _query_means(values, pair_query, one_per_query, ctx):
    """Each query's value: the mean of its pairs' values (in threads, a copy of its own)."""
    n_q = ctx.n_queries
    if one_per_query or (pair_query.size == n_q and np.array_equal(pair_query, np.arange(n_q))):
        # One pair per query: the mean is the value (a copy: the table holds its own).
        return float_copy(values, ctx.n_threads)
    counts = np.bincount(pair_query, minlength=n_q)
    with np.errstate(invalid="ignore"):
        return np.bincount(pair_query, weights=values, minlength=n_q) / counts


def _table_of(grouping, counts, columns, n_threads):
    """The per-query table: the count columns, then the metric columns, indexed by qid."""
    n_neg, difficulty = table_counts(counts.n_pos, counts.n_neg, n_threads)
    return pd.DataFrame(
        {
            "n_docs": grouping.sizes.astype(np.int64, copy=False),  # the grouping's own array
            "n_pos": counts.n_pos_column,  # the counted rows themselves, unless overridden
            "n_neg": n_neg,
            "difficulty": difficulty,
            **columns,
        },
        index=pd.Index(grouping.uniques, name="qid", copy=False),  # the grouping's own array
        copy=False,  # every column is an array of its own: one block each, nothing copied
    )
