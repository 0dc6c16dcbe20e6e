"""The engine behind ``evaluate`` and ``evaluate_run``: validated arrays to the per-query table.

It groups the rows and ranks their support, builds the :class:`RankedLists`, evaluates every
metric spec over all ``(query, cut-off)`` pairs at once and applies the undefined-query rule
read from each metric's registry entry.
"""

from __future__ import annotations

import numbers
import os

import numpy as np
import pandas as pd

from .._factorize import _sums  # the compiled engine (checked there)
from .._grouping import RowRanking, active_rule, group_rows
from .._table import difficulty_values
from .._validation import _value_range
from ._cutoffs import cutoff_pairs
from ._evaluation import RankingEvaluation
from ._kernels import KernelContext
from ._options import make_gain
from ._ranked import RankedLists, support_rule

__all__ = ["check_n_jobs", "evaluate_arrays"]


def check_n_jobs(n_jobs):
    """Threads for ``n_jobs`` (scikit-learn's convention: None is 1, -1 every core)."""
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(
            f"n_jobs={n_jobs!r} is not valid; use None or 1 for one thread, a positive int, "
            "or -1 for every core."
        )
    cores = os.cpu_count() or 1
    return int(n_jobs) if n_jobs > 0 else max(1, cores + 1 + int(n_jobs))


def _float_copy(values, n_threads):
    """A float64 copy of per-query ``values`` (float64 or int64), written in threads: with a
    million queries, serial copies are a share of an evaluation that shows at 16 threads."""
    if values.ndim == 1 and values.dtype in (np.float64, np.int64):
        return _sums.as_float64(np.ascontiguousarray(values), n_threads)
    return values.astype(np.float64)


def _count_column(values, name, *, integral=True):
    """A query_stats count column as float64, NaN for absent queries; refuse bad counts."""
    bad = ~np.isnan(values) & ~(np.isfinite(values) & (values >= 0))
    if integral:
        bad |= np.isfinite(values) & (values != np.floor(values))
    if bad.any():
        raise ValueError(
            f"query_stats[{name!r}] has {int(bad.sum())} invalid value(s) (first "
            f"{values[np.flatnonzero(bad)[0]].item()!r}); counts must be finite integers >= 0."
        )
    return values


def _check_query_stats(query_stats, uniques):
    """Map a query_stats table onto the sorted unique qids: (n_pos, n_neg) arrays or NaN."""
    if not isinstance(query_stats, pd.DataFrame):
        raise TypeError(
            "query_stats must be a pandas DataFrame indexed by qid (or with a 'qid' or 'query_id' "
            f"column) holding n_pos (and optionally n_neg), got {type(query_stats).__name__}."
        )
    table = query_stats
    for key in ("qid", "query_id"):
        if key in table.columns:
            table = table.set_index(key)
            break
    if "n_pos" not in table.columns:
        raise ValueError(f"query_stats needs an 'n_pos' column; it has {list(table.columns)}.")
    index = pd.Index(uniques)
    try:
        aligned = table.reindex(index)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"query_stats ids cannot be matched to qid: {exc}") from None
    out = []
    for name in ("n_pos", "n_neg"):
        if name not in aligned:
            out.append(None)
            continue
        try:
            values = aligned[name].to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError):
            raise TypeError(
                f"query_stats[{name!r}] must hold numbers, got dtype {aligned[name].dtype}."
            ) from None
        out.append(_count_column(values, name))
    return out[0], out[1]


def _row_ranking(grouping, y_true, y_score, ties, doc_id, n_threads):
    """How the rows rank under the tie policy (:class:`RowRanking`: support ranks, lazy order)."""
    tiebreak = None
    if ties in ("trec_eval", "doc_id"):
        if doc_id is None:
            raise ValueError(
                f"ties={ties!r} (also set by conventions='trec_eval') breaks ties by doc_id; "
                "pass doc_id=..., or choose another ties= policy."
            )
        _, doc_rank = np.unique(np.asarray(doc_id).astype(str), return_inverse=True)
        # trec_eval: doc ids in descending order; "doc_id": ascending.
        tiebreak = -doc_rank.ravel() if ties == "trec_eval" else doc_rank.ravel()
    elif ties in ("pessimistic", "optimistic"):
        tiebreak = y_true if ties == "pessimistic" else -y_true
    return RowRanking(
        grouping, y_score, tiebreak=tiebreak, tie_order=ties != "average", n_threads=n_threads
    )


def _check_labels_for(specs, options, gains, top_ranked, ideal_labels, n_threads=1):
    """Refuse labels a requested metric cannot score (err above err_max_grade, huge gains).

    ``top_ranked`` is the largest label of the ranked rows (:attr:`RankedLists.largest_label`);
    ``ideal_labels`` the judged labels when they are other rows (TREC input), else None.
    """
    top = top_ranked
    if ideal_labels is not None and ideal_labels.size:
        top = max(top, float(_value_range(ideal_labels, n_threads)[1]))
    for spec in specs:
        metric = spec.metric
        if metric.max_label is not None and top_ranked > options[metric.max_label]:
            raise ValueError(
                f"{metric.name} needs labels <= {metric.max_label}={options[metric.max_label]:g}, "
                f"but the labels go up to {top_ranked:g}; pass {metric.max_label}=<your top grade>."
            )
        if metric.graded and metric.max_label is None:
            gains.check_labels(top)


def _clipped(pair_k, pair_size, cutoff, size_float=None):
    """``(kk, k_eff)`` of the pairs: the rows inside each pair's cut-off, and the cut-off a
    denominator uses (the list's length for the whole list). ``cutoff`` is the rule the pairs
    come from: an int or None (the whole list) are worked in integers, with the same values.
    ``size_float``: ``pair_size`` as float64, given for the whole list (one pair per query,
    the caller's copy, read only).
    """
    if cutoff is None:
        return pair_size.astype(np.int64, copy=False), size_float
    if isinstance(cutoff, int):
        return np.minimum(pair_size, cutoff).astype(np.int64, copy=False), pair_k
    kk = np.minimum(pair_k, pair_size).astype(np.int64)
    return kk, np.where(np.isinf(pair_k), pair_size, pair_k)


def evaluate_arrays(
    y_true,
    y_score,
    qid,
    specs,
    options,
    *,
    doc_id=None,
    query_stats=None,
    ideal=None,
    n_pos_judged=None,
    judged=None,
    n_jobs=None,
    qid_runs=None,
    qid_values=None,
):
    """The engine behind ``evaluate`` and ``evaluate_run`` (inputs and options validated).

    ``options`` is the dict of :func:`check_options`. ``ideal`` is ``(codes, labels)`` of every
    judged document (TREC input), ``n_pos_judged`` the relevant judged documents per query,
    ``judged`` whether each row has a judgment. ``qid_runs``: the runs of one object that
    the check of object ids found (:func:`~sklearn_ltr_metrics._validation._check_qid_runs`).
    ``qid_values``: ``qid`` holds integer codes of these sorted ids (pandas categorical or
    string ids, :func:`~sklearn_ltr_metrics._factorize.coded_qid`).
    """
    n_threads = check_n_jobs(n_jobs)
    grouping = group_rows(qid, n_threads=n_threads, runs=qid_runs, values=qid_values)
    uniques, n_q = grouping.uniques, grouping.n_groups
    ties = options["ties"]
    ranking = _row_ranking(grouping, y_true, y_score, ties, doc_id, n_threads)

    sizes = grouping.sizes
    threshold = options["min_relevance"]
    gains = make_gain(options["gain"])
    # The positive and the relevant rows, as rules the kernels apply row by row (no masks).
    positive = active_rule(y_true, 0.0)
    is_relevant = active_rule(y_true, threshold, True) if threshold is not None else positive
    # The support is ranked first: rows in random query order moved into grouped order are
    # then counted in order, and the relevant rows, when they are the support, are not
    # counted again.
    support_ranks = ranking.support(support_rule(y_true, gains, positive), labels=y_true)
    counted = grouping.count(is_relevant)  # intp
    counted_pos = _float_copy(counted, n_threads)
    del is_relevant
    n_pos = counted_pos if n_pos_judged is None else n_pos_judged
    n_neg = sizes - counted_pos
    if query_stats is not None:
        override_pos, override_neg = _check_query_stats(query_stats, uniques)
        bad = ~np.isnan(override_pos) & (override_pos < counted_pos)
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"query_stats gives n_pos={override_pos[first]:g} for query "
                f"{uniques[first]!r}, but "
                f"y_true has {counted_pos[first]:g} relevant rows there; n_pos can only add "
                "relevant documents the ranker did not score."
            )
        n_pos = np.where(np.isnan(override_pos), n_pos, override_pos)
        if override_neg is not None:
            n_neg = np.where(np.isnan(override_neg), n_neg, override_neg)

    if ideal is None:  # the ranked rows are the judged documents
        ideal_codes_of, ideal_labels = None, None
    else:
        ideal_codes, ideal_labels = ideal
        ideal_codes_of = ideal_codes.__getitem__
    ctx = RankedLists(
        sizes=sizes,
        ranking=ranking,
        y_true=y_true,
        y_score=y_score,
        average_ties=ties == "average",
        threshold_ties=ties == "label_ranking",
        threshold=threshold,
        n_pos=np.asarray(n_pos, dtype=np.float64),
        gains=gains,
        log_base=options["log_base"],
        ideal_codes_of=ideal_codes_of,
        ideal_labels=ideal_labels,
        judged=judged,
        err_max_grade=options["err_max_grade"],
        support_ranks=support_ranks,
    )
    _check_labels_for(specs, options, gains, ctx.largest_label, ideal_labels, n_threads)
    columns, cutoff_parts = {}, {}
    undefined_of = {}  # kind of undefined query -> its mask, None when no query is undefined
    every_query = ctx.every_query  # the pairs of one cut-off per query (read only)
    sizes_float = None
    for spec in specs:
        metric = spec.metric
        if metric.needs_judgments and judged is None:
            raise ValueError(
                f"metric {metric.name!r} needs judgments separate from the ranked list "
                f"({metric.description}); use evaluate_run(run, qrels, ...)."
            )
        if metric.own_cutoff is not None:
            cutoff = metric.own_cutoff
            pair_query, pair_k = None, np.asarray(cutoff(n_pos, n_neg), dtype=np.float64)
        else:
            cutoff = spec.k
            pair_query, pair_k = cutoff_pairs(cutoff, n_pos, n_neg)
        # None: one pair per query, in query order; nothing is then gathered per pair.
        one_per_query = pair_query is None
        pair_query = every_query if one_per_query else pair_query
        if one_per_query:
            if cutoff is None and sizes_float is None:
                sizes_float = _float_copy(sizes, n_threads)  # the whole list's k, for every metric
            kk, k_eff = _clipped(pair_k, sizes, cutoff, sizes_float)
        else:
            kk, k_eff = _clipped(pair_k, sizes[pair_query], cutoff)
        pairs = KernelContext(ctx, pair_query, pair_k, kk, k_eff, {**options, **dict(spec.params)})
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.asarray(metric.kernel(pairs), dtype=np.float64)
        if metric.undefined != "never" and metric.undefined not in undefined_of:
            undefined = n_pos == 0 if metric.undefined == "n_pos" else ~ctx.has_positive_gain
            undefined_of[metric.undefined] = undefined if undefined.any() else None
        undefined = undefined_of.get(metric.undefined)
        if undefined is not None:
            policy = options["empty_query"]
            if policy == "error":
                bad = uniques[undefined][:5].tolist()
                raise ValueError(
                    f"{int(undefined.sum())} queries have no relevant document, so {spec.column!r} "
                    f"is undefined for them (e.g. {bad}); pass empty_query='skip', 'zero' or 'one'."
                )
            fill = {"skip": np.nan, "zero": 0.0, "one": 1.0}[policy]
            values = np.where(undefined if one_per_query else undefined[pair_query], fill, values)
        if one_per_query or (pair_query.size == n_q and np.array_equal(pair_query, np.arange(n_q))):
            # One pair per query: the mean is the value (a copy: the table holds its own).
            columns[spec.column] = _float_copy(values, n_threads)
        else:
            counts = np.bincount(pair_query, minlength=n_q)
            with np.errstate(invalid="ignore"):
                mean = np.bincount(pair_query, weights=values, minlength=n_q) / counts
            columns[spec.column] = mean
        qids = uniques if one_per_query else uniques[pair_query]
        cutoff_parts[spec.column] = (qids, pair_k, values)

    per_query = pd.DataFrame(
        {
            "n_docs": sizes.astype(np.int64, copy=False),  # the grouping's own array
            # The counted rows themselves when nothing overrides them (no copy).
            "n_pos": (counted if n_pos is counted_pos else n_pos).astype(np.int64, copy=False),
            "n_neg": np.asarray(n_neg).astype(np.int64),
            "difficulty": difficulty_values(n_pos, n_neg, n_threads),
            **columns,
        },
        index=pd.Index(uniques, name="qid", copy=False),  # the grouping's own array
        copy=False,  # every column is an array of its own: one block each, nothing copied
    )
    return RankingEvaluation(per_query, cutoff_parts, options)
