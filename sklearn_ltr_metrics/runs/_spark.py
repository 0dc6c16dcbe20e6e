"""``fuse_spark``: :func:`fuse` on runs held as Spark DataFrames, whole queries per task.

The runs' rows are tagged with their run, their input position pinned, and grouped by a hash
bucket of ``qid`` (``groupBy(bucket).applyInPandas``): each pandas call holds every run's rows
of many whole queries, puts each run back in its input order, and fuses them with
:func:`fuse` itself (the same methods, normalisations and parameters, checked on the driver
first). The fused run stays a Spark DataFrame: it has as many rows as the runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

from .._spark import (
    BUCKET,
    ROW_KEY,
    absent_query,
    check_spark_columns,
    check_spark_frame,
    import_spark,
    pinned,
)
from .._validation import short_repr
from ._fusion import check_fusion_params, fuse, get_fusion_method
from ._normalize import check_norm

__all__ = ["fuse_spark"]

#: Column naming each row's run inside the tasks.
_RUN = "__sklearn_ltr_run__"


def _named_runs(runs, data_frame):
    """``(names, frames)`` of a list or dict of Spark DataFrames (at least two)."""
    if isinstance(runs, Mapping):
        names, frames = [str(name) for name in runs], list(runs.values())
    elif isinstance(runs, (list, tuple)):
        names, frames = None, list(runs)
    else:
        raise TypeError(
            f"runs must be a list or a dict of Spark DataFrames, got {short_repr(runs)}."
        )
    if len(frames) < 2:
        raise ValueError(f"fuse_spark needs at least two runs, got {len(frames)}.")
    hint = "for runs in memory use runs.fuse(runs)."
    for i, frame in enumerate(frames):
        label = f"runs[{names[i]!r}]" if names else f"runs[{i}]"
        check_spark_frame(frame, label, data_frame, hint)
        check_spark_columns(
            frame,
            label,
            {"qid": "qid", "doc_id": "doc_id", "score": "score"},
            "run.withColumnRenamed('query', 'qid')",
        )
    return names, frames


def _fuse_bucket(part, *, names, n_runs, schema_dtypes, method, norm, params):
    """:func:`fuse` of one bucket: every run's rows of its queries, each in input order."""
    part = part.sort_values([_RUN, ROW_KEY], kind="stable")
    pieces = [
        part.loc[part[_RUN] == i, ["qid", "doc_id", "score"]].reset_index(drop=True)
        for i in range(n_runs)
    ]
    # A run without rows in this bucket retrieved nothing for its queries; fuse refuses an
    # empty run, so it retrieves one document for a stand-in query, dropped after fusion.
    absent = absent_query(part["qid"])
    stand_in = part[["qid", "doc_id", "score"]].iloc[:1].assign(qid=absent, score=0.0)
    pieces = [piece if len(piece) else stand_in for piece in pieces]
    runs = pieces if names is None else dict(zip(names, pieces, strict=True))
    fused = fuse(runs, method, norm=norm, **params)
    return fused[fused["qid"] != absent].astype(schema_dtypes)


def fuse_spark(runs, method="rrf", *, norm="min-max", **params):
    """Fuse runs held as Spark DataFrames into one, query by query, with :func:`fuse`.

    Each query's rows from every run are brought into one task, where :func:`fuse` fuses
    many whole queries at once; the fused scores are those :func:`fuse` gives on the same
    runs in memory.

    Parameters
    ----------
    runs : list or dict of pyspark.sql.DataFrame
        At least two runs with columns ``qid``, ``doc_id``, ``score`` (the same types in
        every run). A dict names the runs, for ``weights={name: weight}``.
    method : str, default="rrf"
        A name of :func:`fusion_method_names`.
    norm : str or None, default="min-max"
        The normalisation of score-based methods (see :func:`fuse`).
    **params
        The method's parameters (:func:`fusion_params`), checked on the driver.

    Returns
    -------
    pyspark.sql.DataFrame
        The fused run, lazy: columns ``qid``, ``doc_id``, ``score`` (double), in no
        particular row order (sort it, or let evaluation rank it).

    Notes
    -----
    Each run's rows keep their input order inside a query (their positions are pinned
    before the shuffle), so ties inside a run are broken as :func:`fuse` breaks them in
    memory. A task's error (a document retrieved twice by one run) surfaces when the result
    is computed, inside Spark's error.

    Examples
    --------
    ``spark`` is a ``SparkSession`` (see the Spark page of the user guide).

    >>> from sklearn_ltr_metrics.runs import fuse_spark
    >>> schema = "qid string, doc_id string, score double"
    >>> bm25 = spark.createDataFrame(
    ...     [("q1", "a", 9.0), ("q1", "b", 7.0), ("q1", "c", 1.0)], schema)
    >>> dense = spark.createDataFrame(
    ...     [("q1", "c", 0.9), ("q1", "a", 0.8), ("q1", "d", 0.1)], schema)
    >>> fused = fuse_spark([bm25, dense], "rrf", k=60)
    >>> fused.orderBy("score", ascending=False).toPandas().round(5)
      qid doc_id    score
    0  q1      a  0.03252
    1  q1      c  0.03227
    2  q1      b  0.01613
    3  q1      d  0.01587
    """
    data_frame, functions = import_spark("fuse_spark")
    names, frames = _named_runs(runs, data_frame)
    spec = get_fusion_method(method)
    check_norm(norm)
    check_fusion_params(spec, params, names or [f"run_{i}" for i in range(len(frames))])
    tagged = [
        frame.select("qid", "doc_id", "score").withColumn(_RUN, functions.lit(i))
        for i, frame in enumerate(frames)
    ]
    union = tagged[0]
    for frame in tagged[1:]:
        union = union.unionByName(frame)
    rows = pinned(union, ["qid", "doc_id", "score", _RUN], "qid", functions)
    types = {field.name: field.dataType.simpleString() for field in union.schema.fields}
    schema = f"qid {types['qid']}, doc_id {types['doc_id']}, score double"
    task = partial(
        _fuse_bucket,
        names=names,
        n_runs=len(frames),
        schema_dtypes={"score": "float64"},
        method=method,
        norm=norm,
        params=params,
    )
    return rows.groupBy(BUCKET).applyInPandas(task, schema)
