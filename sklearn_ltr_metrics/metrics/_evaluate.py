"""``evaluate``: flat, row-aligned arrays to the per-query table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._engine import InputScans, coded_qid
from .._label_map import map_labels
from .._qid import check_qid_runs
from .._validation import (
    check_1d,
    check_consistent_length,
    check_label_runs,
    check_n_jobs,
    check_scores_later,
)
from ._evaluation import RankingEvaluation
from ._judgments._beyond import evaluate_with_beyond
from ._names._beyond import split_beyond
from ._names._foreign import merge_columns, option_groups
from ._options import CONVENTIONS, check_doc_id, check_options
from ._per_query import evaluate_arrays
from ._registry import metric_list, parse_metrics
from ._truncate import evaluate_first_rows

if TYPE_CHECKING:
    from collections.abc import Mapping

    import pandas as pd
    from numpy.typing import ArrayLike

    from .._typing import Cutoff, Gain, MetricSpecs

__all__ = ["CONVENTIONS", "RankingEvaluation", "evaluate"]


def evaluate(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    qid: ArrayLike,
    metrics: MetricSpecs = None,
    k: Cutoff = None,
    conventions: str | None = None,
    ties: str | None = None,
    gain: Gain = None,
    min_relevance: float | None = None,
    empty_query: str | None = None,
    ap_denominator: str | None = None,
    precision_denominator: str | None = None,
    log_base: float | None = None,
    max_docs: int | None = None,
    beta: float = 1.0,
    err_max_grade: float = 4,
    query_stats: pd.DataFrame | None = None,
    doc_id: ArrayLike | None = None,
    n_jobs: int | None = None,
    group: ArrayLike | None = None,
    sample: ArrayLike | None = None,
    label_map: Mapping | None = None,
) -> RankingEvaluation:
    """Evaluate a ranking per query from flat, row-aligned arrays.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,) or (n_rows, n_subtopics)
        Graded relevance labels (>= 0). The diversity measures (``alpha_ndcg@20``...,
        :doc:`/diversity`) take one column per subtopic: the label of every row for every
        subtopic (0 where not relevant); the other metrics then see each row's largest.
    y_score : array-like of shape (n_rows,)
        Scores of the ranker; higher ranks first. Must be finite.
    qid : array-like of shape (n_rows,)
        Query id of every row (int, str, categorical...). Rows need not be sorted or grouped.
    metrics : str or iterable of str, default=("ndcg@10", "precision@10", "recall@10", "map", \
"mrr")
        Metric specs ``name`` or ``name@k``, one column each in the order given (a list, a
        tuple, a generator; a ``set``, which has no order, in sorted order); ``k`` is an int
        or ``"adaptive"``, ``"percentile"``, ``"capped"``. See :func:`metric_names` and
        :func:`describe_metric`. ``recall`` is hits / n_pos (the IR recall): with per-query
        cut-offs such as ``k="adaptive"`` use ``capped_recall`` (hits / min(k, n_pos)), the
        methodology's Recall@K, which a perfect ranking scores 1. ``f1`` is always F1;
        ``f2``, ``f0.5``... (or ``fbeta`` with ``beta=``, whose column is named ``f<beta>``)
        is F-beta.
    k : int, list of int, str or callable, optional
        Cut-off for the specs given without ``@k`` (``None``: the whole list, or the preset's
        ``default_k``: 32 for ``"xgboost"``). A cut-off is at most 2**53. Metrics with their
        own cut-off (``r_precision``, ``lrap``) ignore it.
    conventions : {None, "trec_eval", "lightgbm", "sklearn", "ranx", "ir_measures", \
"xgboost", "torchmetrics", "spark"}, default=None
        A preset of the options below (``CONVENTIONS``; ``docs/migration.rst`` goes tool by
        tool). Explicit options override it.
    ties : {"average", "stable", "pessimistic", "optimistic", "trec_eval", "doc_id", \
"label_ranking"}, optional
        Tied scores: exact expectation over orderings (default), input order, relevant last or
        first, doc_id descending (trec_eval) or ascending (``"doc_id"``; both need
        ``doc_id``), or every row of a tied block at the block's last rank
        (``"label_ranking"``, scikit-learn's label ranking rule).
    gain : {"exponential", "linear", "binary"} or mapping, optional
        DCG gain: ``2**label - 1`` (default), ``label``, 1 for every relevant row
        (``"binary"``: ``y_true > 0``, or ``>= min_relevance``), or a mapping label -> gain.
    min_relevance : float, optional
        Rows with ``y_true >= min_relevance`` are relevant for binary metrics (default: > 0).
    empty_query : {"skip", "zero", "one", "error"}, optional
        Value of a metric undefined for a query (no relevant document; ideal DCG of 0).
        ``"skip"`` (default) keeps NaN in ``per_query`` and leaves the query out of averages.
    ap_denominator : {"n_pos", "min_k", "retrieved"}, optional
        Average precision divides by ``n_pos`` (default, trec_eval), ``min(n_pos, k)``
        (LightGBM, XGBoost) or the relevant rows retrieved in the top ``k`` (torchmetrics'
        ``top_k``; 0 when none is; under ``ties="average"`` the ratio of the expected sum to
        the expected hits).
    precision_denominator : {"k", "min_k_n_docs"}, optional
        Precision@k divides by ``k`` (default, trec_eval) or ``min(k, n_docs)`` (XGBoost's
        ``pre@k``, torchmetrics' ``adaptive_k``).
    log_base : float, optional
        Base of the DCG discount ``1 / log_base(rank + 1)`` (default 2; scikit-learn's
        ``dcg_score(log_base=...)``). nDCG does not depend on it.
    max_docs : int, optional
        Evaluate only the first ``max_docs`` rows of each query in ranked order (trec_eval's
        ``-M``); the rows cut still count in ``n_pos`` and the ideal DCG. Under
        ``ties="average"`` a tied block straddling the cut is refused.
    beta : float, default=1.0
        Beta of the ``fbeta`` metric (a finite number > 0); ``f1`` ignores it.
    err_max_grade : float, default=4
        ERR's stop probability is ``(2**label - 1) / 2**err_max_grade`` (gdeval's convention);
        a larger label is refused.
    query_stats : pandas.DataFrame, optional
        Per-query ``n_pos`` (and ``n_neg``) overriding the counts from ``y_true``, indexed by qid
        or with a ``qid``/``query_id`` column. Queries not in the table keep their counts.
    doc_id : array-like of shape (n_rows,), optional
        Document ids; needed by ``ties="trec_eval"`` and ``ties="doc_id"``.
    n_jobs : int, optional
        Threads for sorting large inputs (``None``: 1, ``-1``: every core). The result is the
        same, bit for bit, for any number.
    group : array-like of shape (n_rows,), optional
        The group of every row (None or NaN: none), for ``awrf`` and ``ndcg_awrf``
        (:doc:`/diversity`).
    sample : array-like of shape (n_rows,), optional
        Which sampled ranking of its query each row belongs to, for the expected-exposure
        measures (``ee_loss``...): each sample ranks the query's documents (matched by
        ``doc_id``) and the exposures average over the samples.
    label_map : mapping, optional
        Labels as people have them to relevance grades: ESCI's
        ``{"E": 3, "S": 2, "C": 1, "I": 0}``, ``{"Perfect": 4, "Good": 2, ...}``. ``y_true``
        then holds those labels; every one must be a key (else ``ValueError`` listing the
        missing ones). The result is that of the grades.

    Returns
    -------
    RankingEvaluation
        ``per_query`` (with the counts ``n_docs``, ``n_pos``, ``n_neg`` and ``difficulty`` =
        ``n_neg / n_pos``, NaN when ``n_pos`` is 0), ``per_cutoff``, ``mean()``,
        ``conventions``, ``n_skipped``. Integer scores are compared exactly (int64 and uint64
        above 2**53 included); a query's values are the same, bit for bit, whatever other
        queries are evaluated with it.

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
         n_docs  n_pos  n_neg  difficulty  precision@1  recall@adaptive   ndcg@10
    qid
    q1        3      1      2         2.0          0.5             0.75  0.815465
    q2        2      1      1         1.0          1.0              1.0  1.000000
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
    if metrics is not None:
        metrics = metric_list(metrics)  # any iterable, read once (a set in sorted order)
    y_true = map_labels(y_true, label_map)
    beyond = split_beyond(metrics, k)  # diversity, expected exposure, fairness
    if beyond is not None or group is not None or sample is not None:
        return evaluate_with_beyond(
            y_true, y_score, qid, beyond, evaluate, k=k,
            conventions=conventions, ties=ties, gain=gain, min_relevance=min_relevance,
            empty_query=empty_query, ap_denominator=ap_denominator,
            precision_denominator=precision_denominator, log_base=log_base,
            max_docs=max_docs, beta=beta, err_max_grade=err_max_grade,
            query_stats=query_stats, doc_id=doc_id, n_jobs=n_jobs, group=group, sample=sample,
        )  # fmt: skip
    options = check_options(
        conventions, ties=ties, gain=gain, min_relevance=min_relevance, empty_query=empty_query,
        ap_denominator=ap_denominator, precision_denominator=precision_denominator,
        log_base=log_base, max_docs=max_docs, beta=beta, err_max_grade=err_max_grade,
    )  # fmt: skip
    specs = parse_metrics(metrics, k, options=options, explicit_gain=gain is not None)
    n_threads = check_n_jobs(n_jobs)
    coded = coded_qid(qid)
    if coded is None:
        qid_arr, qid_runs, run_heads = check_qid_runs(qid, "qid", n_threads, heads=True)
        qid_values, qid_shown = None, qid_arr
    else:
        # pandas categorical or string ids: integer codes of the sorted ids, made by pandas
        # (no Python object per row); the ids themselves name the queries of the table.
        (qid_arr, qid_values), qid_runs, run_heads = coded, None, None
        qid_shown = getattr(qid, "array", qid)
    # The relevant rows of each run of ids, counted as the labels are checked (one read; a
    # length that differs from the ids' is refused below, before the counts are read).
    y_true_arr, run_counts = check_label_runs(y_true, qid_runs, n_threads=n_threads)
    # Exact: integer scores beyond 2**53 become their ranks. NaN and infinity are refused by
    # the ranking, which reads every score (and calls the check when it finds one), unless
    # only the first rows of each query are evaluated.
    y_score_arr, check_y_score = check_scores_later(y_score, qid_shown, n_threads=n_threads)
    if options["max_docs"] is not None:
        check_y_score()
        check_y_score = None  # checked here: the ranking has nothing left to check
    doc_arr = None if doc_id is None else check_1d(doc_id, "doc_id")
    check_consistent_length(y_true=y_true_arr, y_score=y_score_arr, qid=qid_arr, doc_id=doc_arr)
    groups = option_groups(specs, options)
    # Groups of names that imply other options (trec_eval's ndcg: gain="linear") rank the
    # same arrays: the engine groups and ranks them once for all of them.
    shared: dict | None = {} if len(groups) > 1 else None
    parts = [
        _evaluate_group(
            y_true_arr,
            y_score_arr,
            qid_arr,
            group,
            group_options,
            doc_id=doc_arr,
            query_stats=query_stats,
            n_jobs=n_jobs,
            scans=InputScans(qid_runs, run_heads, run_counts, check_y_score),
            qid_values=qid_values,
            shared=shared,
        )
        for group, group_options in groups
    ]
    return (
        parts[0]
        if len(parts) == 1
        else merge_columns(parts, options, [spec.column for spec in specs])
    )


def _evaluate_group(
    y_true, y_score, qid, specs, options, *, doc_id, query_stats, n_jobs, shared, **ids
):
    """The evaluation of the specs that share ``options``: trec_eval's ``-M`` first (only the
    first ``max_docs`` rows of each query, :func:`evaluate_first_rows`) when it is set.
    ``shared``: the engine's memo of the evaluation's groups (the same arrays)."""
    check_doc_id(options["ties"], doc_id)  # names may imply ties="doc_id" (ir_measures')
    if options["max_docs"] is not None:
        return evaluate_first_rows(
            y_true, y_score, qid, doc_id, specs, options, query_stats, n_jobs, ids["qid_values"]
        )
    return evaluate_arrays(
        y_true,
        y_score,
        qid,
        specs,
        options,
        doc_id=doc_id,
        query_stats=query_stats,
        n_jobs=n_jobs,
        shared=shared,
        **ids,
    )
