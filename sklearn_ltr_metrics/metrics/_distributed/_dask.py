"""``evaluate_dask``: the per-query table of a Dask DataFrame, larger than memory if need be.

Every query must live in exactly one partition; then each partition is an independent
in-memory problem, evaluated by :func:`evaluate` itself (the same validation and metric
kernels, so every metric, cut-off strategy and convention works), and the partitions' tables
are concatenated and sorted by ``qid``. Partitions are aligned on query boundaries without a
shuffle when ``qid`` is the frame's index and its divisions are known (``set_index("qid")``,
``read_parquet(..., index="qid", calculate_divisions=True)``); otherwise the rows are
shuffled by ``qid`` first.

dask is imported inside :func:`evaluate_dask`, so importing this module (and the package) does
not need the ``dask`` extra.

Searches on a cluster need nothing from this module: ``cross_validate_ranking`` and the
ranking searches run unchanged under ``joblib.parallel_backend("dask")``. ``LambdaMARTRanker``
passes its ``n_jobs`` to LightGBM explicitly (``None`` means one thread), so each Dask worker
thread runs one single-threaded fit and workers never oversubscribe their cores; see
``docs/dask.rst``.
"""

from __future__ import annotations

import inspect

import numpy as np

from ..._qid import check_qid
from ..._validation import short_repr
from .._evaluate import evaluate
from .._evaluation import RankingEvaluation
from .._names._beyond import split_beyond
from .._options import OPTION_KEYS, check_doc_id, check_options
from .._registry import metric_list, parse_metrics

__all__ = ["evaluate_dask"]

DASK_HINT = "install the 'dask' extra: pip install sklearn-ltr-metrics[dask]"

#: evaluate() keyword options a Dask evaluation forwards (per-row inputs come from columns).
_OPTIONS = tuple(
    name
    for name, p in inspect.signature(evaluate).parameters.items()
    if p.kind is inspect.Parameter.KEYWORD_ONLY
    and name not in ("qid", "metrics", "doc_id", "group", "sample")
)
#: Column carrying each row's global position through a shuffle (bits: partition | row).
_ROW_KEY = "__sklearn_ltr_row__"
_ROW_BITS = 40


def _import_dask():
    try:
        import dask
        import dask.dataframe as dd
    except ImportError as exc:
        raise ImportError(f"evaluate_dask needs dask[dataframe]; {DASK_HINT}") from exc
    return dask, dd


def _with_row_key(part, partition_info=None):
    """``part`` plus a column of global row positions: partition number, then row."""
    number = 0 if partition_info is None else partition_info["number"]
    key = (np.int64(number) << np.int64(_ROW_BITS)) + np.arange(len(part), dtype=np.int64)
    return part.assign(**{_ROW_KEY: key})


def _evaluate_partition(part, qid, label, score, columns, metrics, options):
    """Evaluate one partition (all rows of its queries) with :func:`evaluate`; None if empty.
    ``label``: a column, or a list of them (one per subtopic: a 2-D ``y_true``); ``columns``:
    the ``doc_id``, ``group`` and ``sample`` column names (or None)."""
    if len(part) == 0:
        return None
    if _ROW_KEY in part.columns:
        part = part.sort_values(_ROW_KEY, kind="stable")
    qid_values = part.index if qid is None else part[qid]
    y_true = part[label] if isinstance(label, str) else part[label].to_numpy(dtype=np.float64)
    per_row = {name: None if c is None else part[c] for name, c in columns.items()}
    return evaluate(y_true, part[score], qid=qid_values, metrics=metrics, **per_row, **options)


def _combine(results):
    """One :class:`RankingEvaluation` from the partitions' evaluations, ordered by sorted qid."""
    results = [r for r in results if r is not None]
    if not results:
        raise ValueError("frame has no rows; evaluate_dask needs at least one row.")
    # Each partition checked its own ids; ids of different kinds may sit in different ones.
    ids = np.concatenate([r.per_query.index.to_numpy(dtype=object) for r in results])
    check_qid(ids, "qid")
    try:
        return RankingEvaluation.concat(results)
    except ValueError as err:
        raise ValueError(
            f"{err} Here it appears in more than one partition, so its rows were evaluated "
            "as separate lists. With aligned=True every query must live in one partition; "
            "use aligned=None (the default) to shuffle by qid when the partitions are not "
            "aligned."
        ) from None


def _check_options(options, metrics, doc_id, label=None, group=None):
    """Validate the evaluate options on the client, before any partition is computed."""
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise TypeError(
            f"evaluate_dask got unexpected option(s) {unknown}; the options of evaluate it "
            f"forwards are {', '.join(_OPTIONS)} (per-row inputs are column names: qid, label, "
            "score, doc_id)."
        )
    resolved = check_options(
        options.get("conventions"),
        **{key: options[key] for key in OPTION_KEYS if key in options},
    )
    check_doc_id(
        resolved["ties"], doc_id, fix="pass doc_id='<column name>', or choose another ties= policy"
    )
    metrics = None if metrics is None else metric_list(metrics)
    split = None if metrics is None else split_beyond(metrics, options.get("k"))
    if split is None:
        parse_metrics(metrics, options.get("k"), options=resolved)
        return
    if split[1]:
        parse_metrics(split[1], options.get("k"), options=resolved)
    _check_beyond(split[0], label, group)


def _check_beyond(specs, label, group):
    """The diversity measures read a label per subtopic (``label=[columns]``); the fairness
    measures a group per row (``group=``): refused here, naming the metric, when absent."""
    for spec in specs:
        if spec.family == "diversity" and isinstance(label, str):
            raise ValueError(
                f"metrics entry {spec.column!r} reads one label per subtopic; pass "
                "label=[<one column per subtopic>] (0 where a row is not relevant to it), "
                "as evaluate's y_true of shape (n_rows, n_subtopics)."
            )
        if spec.family == "fairness" and group is None:
            raise ValueError(
                f"metrics entry {spec.column!r} reads a group per row; pass "
                "group='<column name>' (rows without a group: missing values)."
            )


def _check_columns(frame, qid, label, score, extra):
    """Where each input lives: ``(qid column or None for the index, value columns)``;
    ``label`` a column name or a list of them, ``extra`` the optional per-row columns."""
    labels = label if isinstance(label, (list, tuple)) else [label]
    if not labels or not all(isinstance(c, str) for c in labels):
        raise TypeError(
            "label must be a column name (str), or a list of column names (one per subtopic, "
            f"for the diversity measures), got {short_repr(label)}."
        )
    for name, value in (("qid", qid), ("score", score), *extra.items()):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name} must be a column name (str), got {short_repr(value)}.")
    columns = list(frame.columns)
    index_name = frame.index.name
    use_index = qid not in columns and qid == index_name
    needed = [*labels, score] + [c for c in extra.values() if c is not None]
    if not use_index:
        needed.insert(0, qid)
    missing = [c for c in needed if c not in columns]
    if missing:
        index_note = f" and an index named {index_name!r}" if index_name is not None else ""
        raise ValueError(
            f"frame lacks column(s) {missing}; it has columns {columns}{index_note}. Pass the "
            "right names, e.g. evaluate_dask(frame, qid='query_id', label='rel', "
            "score='pred'), or rename the columns."
        )
    return (None if use_index else qid), needed


def evaluate_dask(
    frame,
    *,
    metrics=None,
    qid="qid",
    label="label",
    score="score",
    doc_id=None,
    group=None,
    sample=None,
    aligned=None,
    **options,
):
    """Evaluate a ranking per query from a Dask DataFrame of (qid, label, score) rows.

    Each query is evaluated inside one partition by :func:`evaluate`, so the result (its
    ``per_query`` and ``per_cutoff`` tables) is the one ``evaluate`` gives on the same rows in
    memory. Only the per-query results, one row per query, are gathered on the client.

    Parameters
    ----------
    frame : dask.dataframe.DataFrame
        One row per (query, document). ``qid`` may be a column or the index.
    metrics : str or list of str, optional
        Metric specs, as in :func:`evaluate` (default: its default metrics).
    qid, label, score : str, default="qid", "label", "score"
        Names of the query-id column (or of the index), the relevance labels and the scores.
        ``label`` may be a list of columns, one per subtopic (a row's label for each, 0
        where not relevant): the diversity measures (``alpha_nDCG@k``, ``ERR_IA@k``...)
        read them as :func:`evaluate`'s ``y_true`` of shape ``(n_rows, n_subtopics)``, the
        other metrics the largest of them.
    doc_id : str, optional
        Name of a document-id column; needed by ``ties="trec_eval"`` and by the diversity
        measures' default order (score, then doc_id: pyndeval's).
    group, sample : str, optional
        Names of the columns :func:`evaluate` takes as ``group=`` (the fairness measures,
        ``awrf``) and ``sample=`` (several sampled rankings per query, for the expected
        exposure measures).
    aligned : bool, optional
        Whether every query already lives in exactly one partition. ``None`` (default): yes
        when there is one partition, or when ``qid`` is the index and the divisions are known
        (``set_index(qid)``); otherwise the rows are shuffled by ``qid`` first. ``True``: use
        the partitions as they are, e.g. parquet files written query by query (a query found
        in two partitions raises ``ValueError``). ``False``: always shuffle.
    **options
        The other options of :func:`evaluate`: ``k``, ``conventions``, ``ties``, ``gain``,
        ``min_relevance``, ``empty_query``, ``ap_denominator``, ``beta``, ``err_max_grade``,
        ``query_stats``. They are checked before anything is computed.

    Returns
    -------
    RankingEvaluation
        As from :func:`evaluate`: ``per_query`` indexed by sorted ``qid``, ``per_cutoff``,
        ``mean()``, ``conventions``, ``n_skipped``.

    Notes
    -----
    The work runs on dask's current scheduler: a ``distributed.Client`` when one is active,
    else the local threaded scheduler. Row numbers in input errors (e.g. NaN scores) count
    from the start of the partition; the query id they give is global.

    Examples
    --------
    Queries ``a`` and ``b`` straddle the two partitions; they are shuffled by ``qid`` and the
    table equals the in-memory one:

    >>> import dask.dataframe as dd
    >>> import pandas as pd
    >>> from sklearn_ltr_metrics import evaluate, evaluate_dask
    >>> df = pd.DataFrame({
    ...     "qid": ["a", "b", "a", "b", "a", "b"],
    ...     "label": [1, 0, 0, 2, 0, 0],
    ...     "score": [0.9, 0.8, 0.9, 0.7, 0.1, 0.3],
    ... })
    >>> ev = evaluate_dask(dd.from_pandas(df, npartitions=2),
    ...                    metrics=["precision@1", "recall@adaptive", "ndcg@10"])
    >>> ev.per_query
         n_docs  n_pos  n_neg  difficulty  precision@1  recall@adaptive   ndcg@10
    qid
    a         3      1      2         2.0          0.5             0.75  0.815465
    b         3      1      2         2.0          0.0             0.50  0.630930
    >>> in_memory = evaluate(df["label"], df["score"], qid=df["qid"],
    ...                      metrics=["precision@1", "recall@adaptive", "ndcg@10"])
    >>> pd.testing.assert_frame_equal(ev.per_query, in_memory.per_query)
    """
    dask, dd = _import_dask()
    if not isinstance(frame, dd.DataFrame):
        raise TypeError(
            f"frame must be a dask DataFrame, got {type(frame).__name__}; for data in memory "
            "use evaluate(df[label], df[score], qid=df[qid]), or wrap it with "
            "dask.dataframe.from_pandas."
        )
    if aligned not in (None, True, False):
        raise ValueError(f"aligned={aligned!r} must be None (detect), True or False.")
    _check_options(options, metrics, doc_id, label, group)
    per_row = {"doc_id": doc_id, "group": group, "sample": sample}
    qid_column, needed = _check_columns(frame, qid, label, score, per_row)
    label = list(label) if isinstance(label, (list, tuple)) else label
    frame = frame[needed]
    if aligned is None:
        aligned = frame.npartitions == 1 or (qid_column is None and frame.known_divisions)
    if not aligned:
        # A shuffle may deliver a partition's rows in any order, but ties="stable" ranks tied
        # rows by input order (and float sums follow row order), so every row carries its
        # global position (partition number, row in partition) and is put back in that order.
        frame = frame.map_partitions(_with_row_key)
        by = {"on_index": True} if qid_column is None else {"on": qid_column}
        frame = frame.shuffle(**by)
    if options.get("query_stats") is not None:
        options = {**options, "query_stats": dask.delayed(options["query_stats"])}
    tasks = [
        dask.delayed(_evaluate_partition)(part, qid_column, label, score, per_row, metrics, options)
        for part in frame.to_delayed()
    ]
    results = dask.compute(*tasks)
    return _combine(results)
