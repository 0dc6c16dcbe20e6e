"""``evaluate_spark`` and ``evaluate_run_spark``: per-query tables of Spark DataFrames.

The rows are grouped by a hash bucket of ``qid`` (``groupBy(bucket).applyInPandas``; for a
run and its judgments ``cogroup``), so each pandas call holds every row of many whole
queries and evaluates them at once with :func:`evaluate` (or :func:`evaluate_run`) itself:
the same validation and compiled kernels, so every metric, cut-off and preset works. Each
row's input position is pinned before the shuffle and restored inside the call, so
``ties="stable"`` ranks tied rows in input order, as in memory.

pyspark is imported inside the functions, so importing this module (and the package) does not
need the ``spark`` extra.
"""

from __future__ import annotations

import inspect
from functools import partial

import numpy as np
import pandas as pd

from ..._spark import (
    BUCKET,
    PAYLOAD_SCHEMA,
    ROW_KEY,
    absent_query,
    check_spark_columns,
    check_spark_frame,
    import_spark,
    pinned,
    raise_or_values,
    task_payload,
)
from ..._validation import check_choice, short_repr
from .._evaluate import evaluate
from .._evaluate_run import evaluate_run
from .._evaluation import RankingEvaluation
from .._options import OPTION_KEYS, check_doc_id, check_options
from .._registry import parse_metrics

__all__ = ["evaluate_run_spark", "evaluate_spark"]

#: evaluate() keyword options evaluate_spark forwards (per-row inputs come from columns).
_OPTIONS = tuple(
    name
    for name, p in inspect.signature(evaluate).parameters.items()
    if p.kind is inspect.Parameter.KEYWORD_ONLY and name not in ("qid", "metrics", "doc_id")
)
_PANDAS_HINT = (
    "for data in memory use evaluate(df[label], df[score], qid=df[qid]), or make one with "
    "spark.createDataFrame(df)."
)
#: Spark SQL type of each per-query column kind (numpy dtype kind).
_SPARK_TYPES = {"i": "long", "u": "long", "f": "double", "b": "boolean"}


def _check_options(options, metrics, doc_id, *, entry="evaluate_spark"):
    """Validate the options on the driver, before any task runs."""
    forwarded = _OPTIONS if entry == "evaluate_spark" else _RUN_OPTIONS
    unknown = sorted(set(options) - set(forwarded))
    if unknown:
        raise TypeError(
            f"{entry} got unexpected option(s) {unknown}; the options it forwards are "
            f"{', '.join(forwarded)} (per-row inputs are column names)."
        )
    preset = options.get("conventions", None if entry == "evaluate_spark" else "trec_eval")
    resolved = check_options(preset, **{key: options[key] for key in OPTION_KEYS if key in options})
    if entry == "evaluate_spark":
        fix = "pass doc_id='<column name>', or choose another ties= policy"
        check_doc_id(resolved["ties"], doc_id, fix=fix)
    for key, allowed in (
        ("missing_queries", ("skip", "zero")),
        ("unjudged", ("nonrelevant", "remove")),
    ):
        if key in options:
            check_choice(options[key], key, allowed)
    # evaluate_run also gives trec_eval's strings (relstring) and judgment measures (prefs),
    # which it checks itself in each task
    if entry == "evaluate_spark":
        parse_metrics(metrics, options.get("k"), options=resolved)


def _evaluate_bucket(part, qid, label, score, doc_id, metrics, options):
    """:func:`evaluate` of one bucket's rows (every row of its queries) in input order."""
    part = part.sort_values(ROW_KEY, kind="stable")
    return evaluate(
        part[label],
        part[score],
        qid=part[qid],
        metrics=metrics,
        doc_id=None if doc_id is None else part[doc_id],
        **options,
    )


def _table_schema(frame, qid, metrics, options):
    """The per-query table's Spark schema and pandas dtypes (from a two-row probe)."""
    probe_options = {
        key: value
        for key, value in options.items()
        if key not in ("query_stats", "gain", "err_max_grade", "n_jobs")
    }
    probe = evaluate(
        [1, 0], [1.0, 0.0], qid=[0, 0], metrics=metrics, doc_id=["a", "b"], **probe_options
    ).per_query
    dtypes = {c: probe[c].dtype for c in probe.columns}
    fields = [f"`{qid}` {frame.schema[qid].dataType.simpleString()}"]
    fields += [f"`{c}` {_SPARK_TYPES[dtype.kind]}" for c, dtype in dtypes.items()]
    return ", ".join(fields), dtypes


def _table_bucket(part, *, qid, dtypes, **kwargs):
    """One bucket's per-query table as rows (the qid a column), in the schema's dtypes."""
    table = _evaluate_bucket(part, qid, **kwargs).per_query.astype(dtypes)
    return table.rename_axis(qid).reset_index()


def _combine(results, entry):
    """One :class:`RankingEvaluation` from the buckets' evaluations, ordered by sorted qid."""
    if not results:
        raise ValueError(f"frame has no rows; {entry} needs at least one row.")
    return RankingEvaluation.concat(results)


def evaluate_spark(
    frame,
    *,
    metrics=None,
    qid="qid",
    label="label",
    score="score",
    doc_id=None,
    collect=True,
    **options,
):
    """Evaluate a ranking per query from a Spark DataFrame of (qid, label, score) rows.

    The rows may come in any order and partitioning. They are grouped by a hash bucket of
    ``qid`` (``spark.sql.shuffle.partitions`` buckets), and each bucket, every row of many
    whole queries, is evaluated in one pandas call by :func:`evaluate` itself, so the result
    is the one ``evaluate`` gives on the same rows in memory: same queries, counts, values
    and undefined (NaN) values.

    Parameters
    ----------
    frame : pyspark.sql.DataFrame
        One row per (query, document).
    metrics : str or list of str, optional
        Metric specs, as in :func:`evaluate` (default: its default metrics).
    qid, label, score : str, default="qid", "label", "score"
        Names of the query-id, relevance-label and score columns.
    doc_id : str, optional
        Name of a document-id column; needed by ``ties="trec_eval"`` and ``"doc_id"``
        (``conventions="trec_eval"``, ``"spark"``).
    collect : bool, default=True
        Gather the per-query results on the driver as a :class:`RankingEvaluation`. With
        ``False``, return the per-query table as a lazy Spark DataFrame (one row per query,
        columns ``qid``, the counts and the metrics, in no particular order), for more
        queries than the driver holds.
    **options
        The other options of :func:`evaluate`: ``k``, ``conventions``, ``ties``, ``gain``,
        ``min_relevance``, ``empty_query``, ``ap_denominator``, ``precision_denominator``,
        ``log_base``, ``max_docs``, ``beta``, ``err_max_grade``, ``query_stats``,
        ``n_jobs`` (threads in each task). They are checked before anything runs.

    Returns
    -------
    RankingEvaluation or pyspark.sql.DataFrame
        As from :func:`evaluate` (``per_query`` indexed by sorted ``qid``, ``per_cutoff``,
        ``mean()``), or with ``collect=False`` the per-query table as a Spark DataFrame.

    Notes
    -----
    A shuffle does not keep row order, so each row's position in ``frame`` is pinned first
    (``monotonically_increasing_id``) and every bucket's rows are put back in that order:
    ``ties="stable"`` ranks tied rows in the order of ``frame`` (the order ``toPandas()``
    gives), as in memory. That order is only defined when ``frame`` itself is deterministic
    (read from files, or sorted); a frame whose rows come out of a shuffle may be reordered
    when Spark recomputes it, and then prefer a ties policy that does not read row order.

    A task's ``ValueError`` or ``TypeError`` (a NaN score, a label a metric cannot score) is
    raised again on the driver with its message when ``collect=True``; with
    ``collect=False`` it surfaces when the table is computed, inside Spark's error.

    Examples
    --------
    ``spark`` is a ``SparkSession`` (:ref:`spark` sets one up). Queries ``a`` and ``b`` are
    gathered from both partitions, and the table is the in-memory one:

    >>> import pandas as pd
    >>> from sklearn_ltr_metrics import evaluate, evaluate_spark
    >>> rows = pd.DataFrame({"qid": ["a", "b", "a", "b", "a"], "label": [1, 0, 0, 2, 0],
    ...                      "score": [0.9, 0.8, 0.9, 0.7, 0.1]})
    >>> frame = spark.createDataFrame(rows).repartition(2)
    >>> ev = evaluate_spark(frame, metrics=["precision@1", "ndcg@10"])
    >>> ev.per_query
         n_docs  n_pos  n_neg  difficulty  precision@1   ndcg@10
    qid
    a         3      1      2         2.0          0.5  0.815465
    b         2      1      1         1.0          0.0  0.630930
    >>> frame = spark.createDataFrame(
    ...     [("a", 1, 0.9), ("b", 0, 0.8), ("a", 0, 0.9), ("b", 2, 0.7), ("a", 0, 0.1)],
    ...     "qid string, label long, score double")
    >>> table = evaluate_spark(frame, metrics=["precision@1"], collect=False)
    >>> table.orderBy("qid").toPandas()
      qid  n_docs  n_pos  n_neg  difficulty  precision@1
    0   a       3      1      2         2.0          0.5
    1   b       2      1      1         1.0          0.0
    """
    data_frame, functions = import_spark("evaluate_spark")
    check_spark_frame(frame, "frame", data_frame, _PANDAS_HINT)
    if not isinstance(collect, bool):
        raise TypeError(f"collect must be True or False, got {short_repr(collect)}.")
    _check_options(options, metrics, doc_id)
    columns = check_spark_columns(
        frame,
        "frame",
        {"qid": qid, "label": label, "score": score, "doc_id": doc_id},
        "evaluate_spark(frame, qid='query_id', label='rel', score='pred')",
    )
    grouped = pinned(frame, columns, qid, functions).groupBy(BUCKET)
    call = {"qid": qid, "label": label, "score": score, "doc_id": doc_id}
    call.update(metrics=metrics, options=options)
    if not collect:
        schema, dtypes = _table_schema(frame, qid, metrics, options)
        return grouped.applyInPandas(partial(_table_bucket, dtypes=dtypes, **call), schema)

    def bucket(part):
        return task_payload(partial(_evaluate_bucket, **call), part)

    rows = grouped.applyInPandas(bucket, PAYLOAD_SCHEMA).collect()
    return _combine(raise_or_values(rows), "evaluate_spark")


# --------------------------------------------------------------------------------------------
# evaluate_run_spark
# --------------------------------------------------------------------------------------------

#: evaluate_run() keyword options evaluate_run_spark forwards.
_RUN_OPTIONS = tuple(
    name
    for name, p in inspect.signature(evaluate_run).parameters.items()
    if p.kind is inspect.Parameter.KEYWORD_ONLY
) + tuple(name for name in _OPTIONS if name in ("query_stats", "n_jobs") or name in OPTION_KEYS)


def _evaluate_run_bucket(run, qrels, run_columns, metrics, options):
    """:func:`evaluate_run` of one bucket: the run's and the judgments' rows of its queries.

    Returns ``(evaluation or None, (position, tag) of the bucket's last run row)``: None when
    the bucket has nothing to evaluate; the run's last row anywhere gives ``run_id``.
    """
    run = run.sort_values(ROW_KEY, kind="stable")
    qrels = qrels.sort_values(ROW_KEY, kind="stable")
    last = (-1, None)
    if len(run):
        last = (int(run[ROW_KEY].iloc[-1]), run["tag"].iloc[-1] if "tag" in run else None)
    shared = run["qid"].isin(pd.Index(qrels["qid"].unique())).any()
    if qrels.empty or (not shared and options.get("missing_queries", "skip") == "skip"):
        return None, last
    sentinel = None
    if not shared:  # missing_queries="zero": judged queries the run never retrieved score 0
        sentinel = absent_query(run["qid"], qrels["qid"])
        doc = qrels["doc_id"].iloc[0]  # any id: the sentinel query is judged on it alone
        row = {"qid": sentinel, "doc_id": doc, "score": 0.0, "tag": ""}
        run = pd.DataFrame({c: [row[c]] for c in run_columns})
        qrels = pd.concat([qrels, pd.DataFrame({"qid": [sentinel], "doc_id": [doc], "label": [0]})])
    evaluation = evaluate_run(
        run[run_columns], qrels.drop(columns=[ROW_KEY, BUCKET], errors="ignore"),
        metrics=metrics, **options,
    )  # fmt: skip
    if sentinel is not None:
        keep = evaluation.per_query.index != sentinel
        evaluation = _without_query(evaluation, keep, sentinel)
    return evaluation, last


def _without_query(evaluation, keep, sentinel):
    """``evaluation`` without the sentinel query's row."""
    parts = {
        column: tuple(part[np.asarray(part[0] != sentinel)] for part in value)
        for column, value in evaluation._cutoff_parts.items()
    }
    return RankingEvaluation(
        evaluation.per_query[keep],
        parts,
        evaluation.conventions,
        strings=evaluation.strings[keep],
        run_id=evaluation.run_id,
    )


def evaluate_run_spark(run, qrels, *, metrics=None, **options):
    """Evaluate a TREC-style run against judgments, both Spark DataFrames.

    The run's and the judgments' rows are grouped by the same hash bucket of ``qid``
    (``cogroup``), and each bucket, every row of many whole queries, is evaluated in one
    pandas call by :func:`evaluate_run` itself, so the result is the one ``evaluate_run``
    gives on the same rows in memory (trec_eval's rules, ``missing_queries``, ``unjudged``,
    ``relstring``, ``run_id``).

    Parameters
    ----------
    run : pyspark.sql.DataFrame
        Columns ``qid``, ``doc_id``, ``score``, and optionally ``tag``.
    qrels : pyspark.sql.DataFrame
        Columns ``qid``, ``doc_id``, ``label`` (and ``jg``, ``jsg`` where present).
    metrics : str or list of str, optional
        Metric specs, as in :func:`evaluate_run`.
    **options
        The other options of :func:`evaluate_run` (``k``, ``missing_queries``,
        ``unjudged``, ``conventions``, ``ties``, ``gain``, ...), checked before anything runs.

    Returns
    -------
    RankingEvaluation
        As from :func:`evaluate_run`: ``per_query`` indexed by sorted ``qid``.

    Notes
    -----
    The positions of the run's and the judgments' rows are pinned before the shuffle, so a
    document judged twice keeps its last judgment and ``run_id`` is the tag of the run's last
    row, as in memory.

    Examples
    --------
    >>> from sklearn_ltr_metrics import evaluate_run_spark
    >>> run = spark.createDataFrame(
    ...     [("1", "a", 3.0), ("1", "b", 2.0), ("1", "c", 1.0)],
    ...     "qid string, doc_id string, score double")
    >>> qrels = spark.createDataFrame(
    ...     [("1", "b", 1), ("1", "z", 1), ("1", "a", 0)],
    ...     "qid string, doc_id string, label long")
    >>> evaluate_run_spark(run, qrels, metrics=["recall@3"]).per_query
         n_docs  n_pos  n_neg  difficulty  recall@3
    qid
    1         3      2      2         1.0       0.5
    """
    data_frame, functions = import_spark("evaluate_run_spark")
    hint = "for frames in memory use evaluate_run(run, qrels)."
    check_spark_frame(run, "run", data_frame, hint)
    check_spark_frame(qrels, "qrels", data_frame, hint)
    _check_options(options, metrics, None, entry="evaluate_run_spark")
    names = {"qid": "qid", "doc_id": "doc_id", "score": "score"}
    if "tag" in run.columns:
        names["tag"] = "tag"
    example = "run.withColumnRenamed('query', 'qid')"
    run_columns = check_spark_columns(run, "run", names, example)
    judgments = [c for c in ("qid", "doc_id", "label", "jg", "jsg") if c in qrels.columns]
    check_spark_columns(qrels, "qrels", {c: c for c in ("qid", "doc_id", "label")}, example)
    run_rows = pinned(run, run_columns, "qid", functions)
    qrels_rows = pinned(qrels, judgments, "qid", functions)

    def bucket(run_part, qrels_part):
        return task_payload(
            _evaluate_run_bucket, run_part, qrels_part, run_columns, metrics, options
        )

    rows = (
        run_rows.groupBy(BUCKET)
        .cogroup(qrels_rows.groupBy(BUCKET))
        .applyInPandas(bucket, PAYLOAD_SCHEMA)
        .collect()
    )
    results = raise_or_values(rows)
    evaluations = [evaluation for evaluation, _ in results if evaluation is not None]
    if not evaluations:
        raise ValueError("run and qrels share no query; check that their qid values match.")
    evaluation = _combine(evaluations, "evaluate_run_spark")
    tag = max((last for _, last in results), key=lambda last: last[0])[1]
    evaluation.run_id = None if tag is None else str(tag)
    return evaluation
