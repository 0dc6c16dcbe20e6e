"""``counterfactual_evaluate_spark``: :func:`counterfactual_evaluate` on Spark DataFrames.

The click log's lines and the scored rows are grouped by the same hash bucket of ``qid``
(``cogroup(...).applyInPandas``, as ``evaluate_run_spark`` groups a run and its judgments),
so each pandas call holds every log line and every scored row of many whole queries and
estimates them at once with :func:`counterfactual_evaluate` itself (the vectorised path:
one sort and a few ``bincount`` per call, never one call per query). Within a bucket the
scored rows are sorted by their ``row`` id and the log's ``row`` ids mapped to positions in
that order, which is the in-memory call on ``y_score[row]``.

pyspark is imported inside the functions, so importing this module needs no ``spark`` extra.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from .._click_log import LOG_COLUMNS
from .._spark import (
    BUCKET,
    PAYLOAD_SCHEMA,
    ROW_KEY,
    check_spark_columns,
    check_spark_frame,
    import_spark,
    pinned,
    raise_or_values,
    task_payload,
)
from .._validation import short_repr
from ._counterfactual import _check_estimator, _parse_metrics, counterfactual_evaluate
from ._simulate import check_propensity

__all__ = ["counterfactual_evaluate_spark"]

#: Columns of the scored rows: the row id the log's ``row`` names, its query and new score.
SCORED_COLUMNS = ("row", "qid", "score")
_COUNTS = {"n_docs": "int64", "n_pos": "int64", "n_neg": "int64", "difficulty": "float64"}


def _local_rows(log_rows, scored_rows):
    """Positions of the log's row ids among the sorted scored row ids (refused if absent)."""
    local = np.searchsorted(scored_rows, log_rows)
    clipped = np.minimum(local, max(scored_rows.size - 1, 0))
    found = (local < scored_rows.size) & (scored_rows[clipped] == log_rows)
    if not found.all():
        row = log_rows[np.flatnonzero(~found)[0]]
        raise ValueError(
            f"log names row {row!r}, which scored lacks for the line's qid; every logged row "
            "needs its score: scored must hold one (row, qid, score) line per row of the "
            "arrays the log was made from, with the same qid as the log."
        )
    return local


def _estimate_bucket(log, scored, *, metrics, propensity, estimator, clip):
    """:func:`counterfactual_evaluate` of one bucket (None when it holds no log line)."""
    if log.empty:
        return None
    scored = scored.sort_values("row", kind="stable")
    ids = scored["row"].to_numpy()
    twice = np.flatnonzero(ids[1:] == ids[:-1])
    if twice.size:
        raise ValueError(
            f"scored has row {ids[twice[0]]!r} more than once; each row id gets one score."
        )
    log = log.sort_values(ROW_KEY, kind="stable")[list(LOG_COLUMNS)]
    log = log.assign(row=_local_rows(log["row"].to_numpy(), ids))
    return counterfactual_evaluate(
        log,
        scored["score"].to_numpy(dtype=np.float64),
        scored["qid"].to_numpy(),
        metrics=metrics,
        propensity=propensity,
        estimator=estimator,
        clip=clip,
    )


def _table_bucket(log, scored, *, dtypes, **options):
    """One bucket's per-query table as rows (``qid`` a column), in the schema's dtypes."""
    evaluation = _estimate_bucket(log, scored, **options)
    if evaluation is None:
        empty = {c: pd.Series(dtype=t) for c, t in dtypes.items()}
        return pd.DataFrame({"qid": scored["qid"].iloc[:0].to_numpy(), **empty})
    return evaluation.per_query[list(dtypes)].astype(dtypes).rename_axis("qid").reset_index()


def _check_frames(log, scored, data_frame):
    """The two frames checked on the driver: types, columns and the same kind of qid."""
    hint = "for a log in memory use counterfactual_evaluate(log, y_score, qid)."
    check_spark_frame(log, "log", data_frame, hint)
    check_spark_frame(scored, "scored", data_frame, hint)
    check_spark_columns(log, "log", {c: c for c in LOG_COLUMNS}, "log.withColumnRenamed(...)")
    example = "scored.withColumnRenamed('prediction', 'score')"
    check_spark_columns(scored, "scored", {c: c for c in SCORED_COLUMNS}, example)
    kinds = {
        name: frame.schema["qid"].dataType for name, frame in (("log", log), ("scored", scored))
    }
    if kinds["log"] != kinds["scored"]:
        raise TypeError(
            f"log's qid is {kinds['log'].simpleString()} but scored's is "
            f"{kinds['scored'].simpleString()}; cast one, e.g. scored.withColumn('qid', "
            f"scored.qid.cast('{kinds['log'].simpleString()}')), so the same query meets itself."
        )


def _check_one_query_per_session(log, functions):
    """A session with lines of two queries is refused, as in memory (one small Spark job)."""
    mixed = (
        log.groupBy("session")
        .agg(functions.countDistinct("qid").alias("n"))
        .where(functions.col("n") > 1)
        .limit(1)
        .collect()
    )
    if mixed:
        raise ValueError(
            f"log's session {mixed[0]['session']!r} has lines of two queries; a session "
            "belongs to one query."
        )


def counterfactual_evaluate_spark(
    log,
    scored,
    *,
    metrics=("dcg@10",),
    propensity,
    estimator="ips",
    clip=None,
    collect=True,
):
    """Estimate a new ranking's metric per query from a click log held in Spark.

    The Spark counterpart of :func:`counterfactual_evaluate`: the log's lines and the
    scored rows of each query are brought into one task (grouped by a hash bucket of
    ``qid``, many whole queries per task), where :func:`counterfactual_evaluate` estimates
    them, so each query's values are those of the in-memory call on the same rows.

    Parameters
    ----------
    log : pyspark.sql.DataFrame
        A click log with columns ``session, qid, row, rank, click`` (other columns are
        ignored), lines in any order and partitioning.
    scored : pyspark.sql.DataFrame
        The new ranking: columns ``row`` (the id the log's ``row`` names, one line per id),
        ``qid`` (same Spark type as the log's) and ``score``; every row of each query, shown
        or not (the new ranks are taken among them). In memory this is
        ``y_score[row]`` and ``qid[row]``.
    metrics, propensity, estimator, clip
        As in :func:`counterfactual_evaluate`; checked on the driver before any task runs.
    collect : bool, default=True
        Gather the result on the driver as a :class:`RankingEvaluation`. With ``False``,
        return the per-query table as a lazy Spark DataFrame (columns ``qid``, ``n_docs``,
        ``n_pos``, ``n_neg``, ``difficulty`` and the metrics, in no particular order).

    Returns
    -------
    RankingEvaluation or pyspark.sql.DataFrame
        As from :func:`counterfactual_evaluate` (one row per query with sessions, sorted by
        ``qid``; ``conventions`` with the total ``n_sessions``), or the Spark table.

    Notes
    -----
    The estimate of a query reads only its own lines and rows, so the buckets are
    independent; line order does not matter (tied scores get the mean weight of their
    ranks). A session with lines of two queries is refused on the driver (one extra small
    Spark job); a task's ``ValueError`` or ``TypeError`` (a logged row without a score, a
    rank deeper than ``propensity``) is raised again on the driver with its message when
    ``collect=True``, and surfaces inside Spark's error when the table is computed
    otherwise.

    Examples
    --------
    ``spark`` is a ``SparkSession`` (see the Spark page of the user guide).

    >>> from sklearn_ltr_metrics.clicks import counterfactual_evaluate_spark
    >>> log = spark.createDataFrame(
    ...     [(0, 7, 0, 1, False), (0, 7, 1, 2, True)],
    ...     "session long, qid long, row long, rank long, click boolean")
    >>> scored = spark.createDataFrame([(0, 7, 0.1), (1, 7, 0.9)],
    ...                                "row long, qid long, score double")
    >>> counterfactual_evaluate_spark(log, scored, metrics=["dcg@10"],
    ...                               propensity=[1.0, 0.5]).per_query
         n_docs  n_pos  n_neg  difficulty  dcg@10
    qid
    7         2      1      1         1.0     2.0
    """
    data_frame, functions = import_spark("counterfactual_evaluate_spark")
    _check_frames(log, scored, data_frame)
    if not isinstance(collect, bool):
        raise TypeError(f"collect must be True or False, got {short_repr(collect)}.")
    specs = _parse_metrics(metrics)
    estimator, clip = _check_estimator(estimator, clip)
    check_propensity(propensity, 1)
    _check_one_query_per_session(log, functions)
    options = {"metrics": metrics, "propensity": propensity, "estimator": estimator}
    options["clip"] = clip
    grouped = (
        pinned(log, list(LOG_COLUMNS), "qid", functions)
        .groupBy(BUCKET)
        .cogroup(pinned(scored, list(SCORED_COLUMNS), "qid", functions).groupBy(BUCKET))
    )
    if not collect:
        dtypes = {**_COUNTS, **{column: "float64" for column, _, _ in specs}}
        fields = [f"`{c}` {'long' if t == 'int64' else 'double'}" for c, t in dtypes.items()]
        schema = ", ".join([f"`qid` {log.schema['qid'].dataType.simpleString()}", *fields])
        return grouped.applyInPandas(partial(_table_bucket, dtypes=dtypes, **options), schema)

    def bucket(log_part, scored_part):
        return task_payload(partial(_estimate_bucket, **options), log_part, scored_part)

    evaluations = raise_or_values(grouped.applyInPandas(bucket, PAYLOAD_SCHEMA).collect())
    if not evaluations:
        raise ValueError("log has no lines; counterfactual_evaluate_spark needs at least one.")
    from ..metrics import RankingEvaluation

    evaluation = RankingEvaluation.concat(evaluations)
    evaluation.conventions["n_sessions"] = sum(e.conventions["n_sessions"] for e in evaluations)
    return evaluation
