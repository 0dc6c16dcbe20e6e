"""``evaluate``: flat, row-aligned arrays to the per-query table; the conventions presets."""

from __future__ import annotations

import numbers
import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from .._grouping import factorize_qid, group_rows, rank_order
from .._validation import (
    check_1d,
    check_choice,
    check_consistent_length,
    check_labels,
    check_qid,
    check_scores,
)
from ._cutoffs import cutoff_label, cutoff_pairs, parse_cutoff
from ._metrics import RankedLists, get_metric

__all__ = ["CONVENTIONS", "RankingEvaluation", "evaluate"]

DEFAULT_METRICS = ("ndcg@10", "precision@10", "recall@10", "map", "mrr")

TIES = ("average", "stable", "pessimistic", "optimistic", "trec_eval")
EMPTY_QUERY = ("skip", "zero", "one", "error")
AP_DENOMINATOR = ("n_pos", "min_k")

#: Conventions presets: name -> options. ``None`` is the package's own default.
CONVENTIONS = {
    None: {
        "ties": "average",
        "gain": "exponential",
        "empty_query": "skip",
        "min_relevance": None,
        "ap_denominator": "n_pos",
    },
    "trec_eval": {
        "ties": "trec_eval",
        "gain": "linear",
        "empty_query": "zero",
        "min_relevance": 1,
        "ap_denominator": "n_pos",
    },
    "lightgbm": {
        "ties": "stable",
        "gain": "exponential",
        "empty_query": "one",
        "min_relevance": None,
        "ap_denominator": "min_k",
    },
    "sklearn": {
        "ties": "average",
        "gain": "linear",
        "empty_query": "zero",
        "min_relevance": None,
        "ap_denominator": "n_pos",
    },
}


@dataclass(frozen=True)
class _Spec:
    column: str
    metric: object
    k: object


def parse_metrics(metrics, k=None):
    """Metric specs (``"ndcg@10"``, ``"recall@adaptive"``...) -> list of :class:`_Spec`.

    ``k`` applies to names given without ``@``.
    """
    if metrics is None:
        metrics = DEFAULT_METRICS
    if isinstance(metrics, str):
        metrics = [metrics]
    if not isinstance(metrics, (list, tuple)) or not metrics:
        raise TypeError(
            f"metrics must be a metric spec string or a non-empty list of them, got {metrics!r}; "
            "e.g. metrics=['ndcg@10', 'recall@adaptive']."
        )
    default_k = parse_cutoff(k) if k is not None else None
    specs, seen = [], set()
    for raw in metrics:
        if not isinstance(raw, str):
            raise TypeError(f"metrics entries must be strings like 'ndcg@10', got {raw!r}.")
        name, sep, k_text = raw.strip().lower().partition("@")
        metric = get_metric(name)
        if sep:
            if not k_text:
                raise ValueError(f"metrics entry {raw!r} has '@' but no cut-off; e.g. 'ndcg@10'.")
            parsed = parse_cutoff(k_text, source=f" in metric {raw!r}")
        else:
            parsed = default_k
        if parsed is not None and not metric.takes_cutoff:
            raise ValueError(
                f"metric {metric.name!r} has its own cut-off (k = n_pos) and takes no '@k': "
                f"use {metric.name!r} instead of {raw!r}."
            )
        label = cutoff_label(parsed)
        column = name if label is None else f"{name}@{label}"
        if column not in seen:
            seen.add(column)
            specs.append(_Spec(column, metric, parsed))
    return specs


def resolve_conventions(conventions, **overrides):
    """The options of a preset with explicit (non-None) keyword arguments applied on top."""
    if conventions is not None and conventions not in CONVENTIONS:
        names = ", ".join(repr(c) for c in CONVENTIONS if c is not None)
        raise ValueError(
            f"conventions={conventions!r} is not a preset; choose None or one of {names}."
        )
    options = dict(CONVENTIONS[conventions])
    for key, value in overrides.items():
        if value is not None:
            options[key] = value
    check_choice(options["ties"], "ties", TIES)
    check_choice(options["empty_query"], "empty_query", EMPTY_QUERY)
    check_choice(options["ap_denominator"], "ap_denominator", AP_DENOMINATOR)
    threshold = options["min_relevance"]
    if threshold is not None and (
        isinstance(threshold, bool) or not isinstance(threshold, numbers.Real) or threshold <= 0
    ):
        raise ValueError(
            f"min_relevance={threshold!r} must be a number > 0 (rows with y_true >= min_relevance "
            "are relevant), or None for y_true > 0."
        )
    options["conventions"] = conventions
    return options


def make_gain(gain):
    """Gain function from ``"exponential"``, ``"linear"`` or a mapping label -> gain."""
    if isinstance(gain, str):
        if gain == "exponential":
            return lambda labels: np.exp2(labels) - 1.0
        if gain == "linear":
            return lambda labels: np.asarray(labels, dtype=np.float64)
    elif isinstance(gain, Mapping):
        keys = np.array(sorted(float(key) for key in gain), dtype=np.float64)
        values = np.array([float(gain[key]) for key in sorted(gain, key=float)])

        def mapped(labels):
            idx = np.clip(np.searchsorted(keys, labels), 0, max(keys.size - 1, 0))
            known = (keys.size > 0) & (keys[idx] == labels)
            if not np.all(known):
                missing = np.unique(labels[~known])[:5]
                raise ValueError(
                    f"gain mapping has no entry for label(s) {missing.tolist()}; add them to the "
                    f"mapping (it has {keys.tolist()})."
                )
            return values[idx]

        return mapped
    raise ValueError(
        f"gain={gain!r} is not valid; use 'exponential' (2**label - 1), 'linear' (label), or a "
        "mapping label -> gain such as {0: 0, 1: 1, 2: 3}."
    )


class RankingEvaluation:
    """Per-query (and per-cut-off) metric values of one ranked evaluation.

    Attributes
    ----------
    per_query : pandas.DataFrame
        Indexed by ``qid`` (sorted); columns ``n_docs``, ``n_pos``, ``n_neg`` and one column per
        metric spec. NaN marks a query for which the metric is undefined (skipped).
    per_cutoff : pandas.DataFrame
        Long table with columns ``qid``, ``metric``, ``k``, ``value``: every (query, cut-off)
        value. ``k`` is ``<NA>`` for the whole list.
    metrics : tuple of str
        The metric columns.
    conventions : dict
        The options used (preset name, ties, gain, empty_query, min_relevance, ...).
    n_skipped : dict
        Metric -> number of queries left out of averages (undefined values).
    """

    def __init__(self, per_query, cutoff_parts, conventions):
        self.per_query = per_query
        self._cutoff_parts = cutoff_parts
        self.metrics = tuple(c for c in per_query.columns if c not in ("n_docs", "n_pos", "n_neg"))
        self.conventions = dict(conventions)
        self.n_skipped = {m: int(per_query[m].isna().sum()) for m in self.metrics}

    @cached_property
    def per_cutoff(self):
        frames = []
        for column, (qids, ks, values) in self._cutoff_parts.items():
            k = pd.array(np.where(np.isinf(ks), 0, ks).astype(np.int64), dtype="Int64")
            k[np.isinf(ks)] = pd.NA
            frames.append(pd.DataFrame({"qid": qids, "metric": column, "k": k, "value": values}))
        return pd.concat(frames, ignore_index=True)

    @classmethod
    def concat(cls, evaluations):
        """One evaluation from evaluations of disjoint sets of queries (same metrics).

        Queries come out sorted, and each query's cut-offs in their order, as :func:`evaluate`
        gives them. A query found in two of the evaluations is a ``ValueError``.
        """
        evaluations = list(evaluations)
        first = evaluations[0]
        per_query = pd.concat([e.per_query for e in evaluations])
        if not per_query.index.is_unique:
            dup = per_query.index[per_query.index.duplicated()][0]
            raise ValueError(
                f"query {dup!r} appears in more than one of the evaluations combined; "
                "each query must be evaluated once, with all of its rows."
            )
        per_query = per_query.sort_index(kind="stable")
        per_query.index.name = "qid"
        parts = {}
        for column in first.metrics:
            pieces = [e._cutoff_parts[column] for e in evaluations]
            qids = np.concatenate([p[0] for p in pieces])
            order = np.argsort(factorize_qid(qids)[0], kind="stable")
            parts[column] = tuple(np.concatenate([p[i] for p in pieces])[order] for i in range(3))
        return cls(per_query, parts, first.conventions)

    def mean(self, metric=None):
        """Macro mean over queries with a defined value.

        Parameters
        ----------
        metric : str, optional
            A metric column. ``None`` returns a Series with every metric.

        Returns
        -------
        float or pandas.Series
            NaN (with a ``RuntimeWarning``) when every query is skipped.
        """
        if metric is None:
            return pd.Series({m: self.mean(m) for m in self.metrics}, dtype=np.float64)
        if metric not in self.metrics:
            raise ValueError(
                f"metric={metric!r} was not evaluated; available: {list(self.metrics)}."
            )
        values = self.per_query[metric].to_numpy(dtype=np.float64)
        defined = values[~np.isnan(values)]
        if defined.size == 0:
            warnings.warn(
                f"Every query is undefined for {metric!r} (e.g. no relevant document); the mean is "
                "NaN. Use empty_query='zero' to count such queries as 0.",
                RuntimeWarning,
                stacklevel=2,
            )
            return float("nan")
        return float(defined.mean())

    def __repr__(self):
        means = ", ".join(f"{m}={v:.4f}" for m, v in self._quiet_means().items())
        return f"RankingEvaluation(n_queries={len(self.per_query)}, {means})"

    def _quiet_means(self):
        table = self.per_query[list(self.metrics)]
        return table.mean(skipna=True)


def _check_n_jobs(n_jobs):
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
    n_pos = aligned["n_pos"].to_numpy(dtype=np.float64)
    n_neg = aligned["n_neg"].to_numpy(dtype=np.float64) if "n_neg" in aligned else None
    if np.any(n_pos[~np.isnan(n_pos)] < 0):
        raise ValueError("query_stats n_pos has negative counts; counts must be >= 0.")
    return n_pos, n_neg


def _evaluate_arrays(
    y_true,
    y_score,
    qid,
    specs,
    options,
    *,
    doc_id=None,
    beta=1.0,
    err_max_grade=4.0,
    query_stats=None,
    ideal=None,
    n_pos_judged=None,
    judged=None,
    n_jobs=None,
):
    """The engine behind ``evaluate`` and ``evaluate_run`` (inputs already validated)."""
    n_threads = _check_n_jobs(n_jobs)
    grouping = group_rows(qid)
    uniques, n_q = grouping.uniques, grouping.n_groups
    ties = options["ties"]
    if ties == "trec_eval":
        if doc_id is None:
            raise ValueError(
                "ties='trec_eval' (also set by conventions='trec_eval') breaks ties by doc_id; "
                "pass doc_id=..., or choose another ties= policy."
            )
        _, doc_rank = np.unique(np.asarray(doc_id).astype(str), return_inverse=True)
        order = rank_order(grouping, y_score, tiebreak=-doc_rank.ravel())
    elif ties in ("pessimistic", "optimistic"):
        key = y_true if ties == "pessimistic" else -y_true
        order = rank_order(grouping, y_score, tiebreak=key)
    else:
        order = rank_order(grouping, y_score, stable=ties == "stable", n_threads=n_threads)

    sizes = grouping.sizes
    labels = y_true[order]
    threshold = options["min_relevance"]
    is_relevant = (y_true >= threshold) if threshold is not None else (y_true > 0)
    counted_pos = np.bincount(grouping.codes_of(np.flatnonzero(is_relevant)), minlength=n_q)
    counted_pos = counted_pos.astype(np.float64)
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

    if ideal is None:
        ideal_codes_of, ideal_labels = grouping.codes_of, y_true
    else:
        ideal_codes, ideal_labels = ideal
        ideal_codes_of = ideal_codes.__getitem__
    gains = make_gain(options["gain"])
    ctx = RankedLists(
        sizes=sizes,
        labels=labels,
        sorted_scores=lambda: y_score[order],
        average_ties=ties == "average",
        threshold=threshold,
        n_pos=n_pos.astype(np.float64),
        gains=gains,
        ideal_codes_of=ideal_codes_of,
        ideal_labels=ideal_labels,
        judged=None if judged is None else judged[order],
        err_max_grade=float(err_max_grade),
    )
    kernel_options = {"beta": float(beta), "ap_denominator": options["ap_denominator"]}
    columns, cutoff_parts = {}, {}
    for spec in specs:
        metric = spec.metric
        if metric.name == "r_precision":
            pair_query = np.arange(n_q, dtype=np.intp)
            pair_k = np.maximum(n_pos, 1).astype(np.float64)
        else:
            pair_query, pair_k = cutoff_pairs(spec.k, n_pos, n_neg)
        pair_size = sizes[pair_query]
        kk = np.minimum(pair_k, pair_size).astype(np.int64)
        k_eff = np.where(np.isinf(pair_k), pair_size, pair_k)
        if metric.name == "err" and labels.size and labels.max() > err_max_grade:
            raise ValueError(
                f"err needs labels <= err_max_grade={err_max_grade!r}, but y_true has "
                f"{labels.max().item()!r}; pass err_max_grade=<your top grade>."
            )
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.asarray(
                metric.kernel(ctx, pair_query, pair_k, kk, k_eff, kernel_options), dtype=np.float64
            )
        if metric.undefined == "n_pos":
            undefined = n_pos == 0
        elif metric.undefined == "ideal":
            undefined = ~ctx.has_positive_gain
        else:
            undefined = None
        if undefined is not None and undefined.any():
            policy = options["empty_query"]
            if policy == "error":
                bad = uniques[undefined][:5].tolist()
                raise ValueError(
                    f"{int(undefined.sum())} queries have no relevant document, so {spec.column!r} "
                    f"is undefined for them (e.g. {bad}); pass empty_query='skip', 'zero' or 'one'."
                )
            fill = {"skip": np.nan, "zero": 0.0, "one": 1.0}[policy]
            values = np.where(undefined[pair_query], fill, values)
        counts = np.bincount(pair_query, minlength=n_q)
        with np.errstate(invalid="ignore"):
            columns[spec.column] = np.bincount(pair_query, weights=values, minlength=n_q) / counts
        cutoff_parts[spec.column] = (uniques[pair_query], pair_k, values)

    per_query = pd.DataFrame(
        {
            "n_docs": sizes.astype(np.int64),
            "n_pos": n_pos.astype(np.int64),
            "n_neg": np.asarray(n_neg).astype(np.int64),
            **columns,
        },
        index=pd.Index(uniques, name="qid"),
    )
    return RankingEvaluation(per_query, cutoff_parts, options)


def evaluate(
    y_true,
    y_score,
    *,
    qid,
    metrics=None,
    k=None,
    conventions=None,
    ties=None,
    gain=None,
    min_relevance=None,
    empty_query=None,
    ap_denominator=None,
    beta=1.0,
    err_max_grade=4,
    query_stats=None,
    doc_id=None,
    n_jobs=None,
):
    """Evaluate a ranking per query from flat, row-aligned arrays.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
        Graded relevance labels (>= 0).
    y_score : array-like of shape (n_rows,)
        Scores of the ranker; higher ranks first. Must be finite.
    qid : array-like of shape (n_rows,)
        Query id of every row (int, str, categorical...). Rows need not be sorted or grouped.
    metrics : str or list of str, default=("ndcg@10", "precision@10", "recall@10", "map", "mrr")
        Metric specs ``name`` or ``name@k``; ``k`` is an int or ``"adaptive"``,
        ``"percentile"``, ``"capped"``. See :func:`metric_names`.
    k : int, list of int, str or callable, optional
        Cut-off for the specs given without ``@k`` (``None``: the whole list).
    conventions : {None, "trec_eval", "lightgbm", "sklearn"}, default=None
        A preset of the options below. Explicit options override it.
    ties : {"average", "stable", "pessimistic", "optimistic", "trec_eval"}, optional
        Tied scores: exact expectation over orderings (default), input order, relevant last or
        first, or doc_id descending (trec_eval; needs ``doc_id``).
    gain : {"exponential", "linear"} or mapping, optional
        DCG gain: ``2**label - 1`` (default), ``label``, or a mapping label -> gain.
    min_relevance : float, optional
        Rows with ``y_true >= min_relevance`` are relevant for binary metrics (default: > 0).
    empty_query : {"skip", "zero", "one", "error"}, optional
        Value of a metric undefined for a query (no relevant document; ideal DCG of 0).
        ``"skip"`` (default) keeps NaN in ``per_query`` and leaves the query out of averages.
    ap_denominator : {"n_pos", "min_k"}, optional
        Average precision divides by ``n_pos`` (default, trec_eval) or ``min(n_pos, k)``
        (LightGBM).
    beta : float, default=1.0
        Beta of the ``fbeta`` metric.
    err_max_grade : float, default=4
        ERR's stop probability is ``(2**label - 1) / 2**err_max_grade`` (gdeval's convention).
    query_stats : pandas.DataFrame, optional
        Per-query ``n_pos`` (and ``n_neg``) overriding the counts from ``y_true``, indexed by qid
        or with a ``qid``/``query_id`` column. Queries not in the table keep their counts.
    doc_id : array-like of shape (n_rows,), optional
        Document ids; needed by ``ties="trec_eval"``.
    n_jobs : int, optional
        Threads for sorting large inputs (``None``: 1, ``-1``: every core). The result is the
        same, bit for bit, for any number.

    Returns
    -------
    RankingEvaluation
        ``per_query``, ``per_cutoff``, ``mean()``, ``conventions``, ``n_skipped``.

    Examples
    --------
    Two queries; ``q1``'s scores tie between a relevant and a non-relevant row, so precision@1
    is the expected value over both orderings. ``recall@adaptive`` averages recall at the
    query's own cut-offs ([1, 3] for a query with one relevant row):

    >>> from sklearn_ltr_metrics import evaluate
    >>> ev = evaluate(
    ...     y_true=[1, 0, 0, 1, 0],
    ...     y_score=[0.9, 0.9, 0.1, 0.8, 0.3],
    ...     qid=["q1", "q1", "q1", "q2", "q2"],
    ...     metrics=["precision@1", "recall@adaptive", "ndcg@10"],
    ... )
    >>> ev.per_query
         n_docs  n_pos  n_neg  precision@1  recall@adaptive   ndcg@10
    qid
    q1        3      1      2          0.5             0.75  0.815465
    q2        2      1      1          1.0              1.0  1.000000
    >>> round(ev.mean("precision@1"), 4)
    0.75

    A cut-off beyond the list uses the whole list, and precision still divides by ``k``;
    a query without relevant rows is skipped for recall-type metrics:

    >>> ev = evaluate(
    ...     [1, 0, 0, 0], [3, 2, 2, 1], qid=[1, 1, 2, 2], metrics=["precision@5", "recall@5"]
    ... )
    >>> ev.per_query[["precision@5", "recall@5"]]
         precision@5  recall@5
    qid
    1            0.2       1.0
    2            0.0       NaN
    >>> ev.n_skipped["recall@5"]
    1
    """
    options = resolve_conventions(
        conventions,
        ties=ties,
        gain=gain,
        min_relevance=min_relevance,
        empty_query=empty_query,
        ap_denominator=ap_denominator,
    )
    specs = parse_metrics(metrics, k)
    qid_arr = check_qid(qid, "qid")
    y_true_arr = check_labels(y_true)
    y_score_arr = check_scores(y_score, qid_arr)
    doc_arr = None if doc_id is None else check_1d(doc_id, "doc_id")
    check_consistent_length(y_true=y_true_arr, y_score=y_score_arr, qid=qid_arr, doc_id=doc_arr)
    return _evaluate_arrays(
        y_true_arr,
        y_score_arr,
        qid_arr,
        specs,
        options,
        doc_id=doc_arr,
        beta=beta,
        err_max_grade=err_max_grade,
        query_stats=query_stats,
        n_jobs=n_jobs,
    )
