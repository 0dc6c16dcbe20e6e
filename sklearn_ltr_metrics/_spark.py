"""Spark glue shared by the families' Spark adapters (``evaluate_spark``, ``fuse_spark``...).

Every adapter works the same way: the rows a function needs are selected, each row's position
in the input is pinned in a column (``monotonically_increasing_id``, before any shuffle), the
rows are grouped by a hash bucket of ``qid`` (``groupBy(bucket).applyInPandas``: one pandas
call per bucket, every query whole in exactly one bucket, many queries per call), and each
call sorts its rows back into input order and runs the in-memory function on them. A task's
``ValueError`` or ``TypeError`` travels back pickled and is raised again on the driver with
its own message, instead of a Java stack trace.

pyspark is imported inside the functions, so importing this module needs no ``spark`` extra.
"""

from __future__ import annotations

import pickle

from ._validation import short_repr

__all__ = [
    "BUCKET",
    "ROW_KEY",
    "SPARK_HINT",
    "absent_query",
    "bucket_count",
    "check_spark_columns",
    "check_spark_frame",
    "import_spark",
    "pinned",
    "raise_or_values",
    "task_payload",
]

SPARK_HINT = (
    "install the 'spark' extra: pip install sklearn-ltr-metrics[spark] (pyspark 4, which "
    "needs Java 17; set PYSPARK_PYTHON to this environment's Python)"
)
#: Column carrying each row's position in the input through the shuffle.
ROW_KEY = "__sklearn_ltr_row__"
#: Column holding each row's query bucket (the group of one pandas call).
BUCKET = "__sklearn_ltr_bucket__"
#: Schema of the tasks whose results are gathered on the driver: one pickled value per bucket.
PAYLOAD_SCHEMA = "payload binary"


def import_spark(entry):
    """``(pyspark.sql.DataFrame, pyspark.sql.functions)``, or an ImportError naming the extra."""
    try:
        from pyspark.sql import DataFrame, functions
    except ImportError as exc:
        raise ImportError(f"{entry} needs pyspark; {SPARK_HINT}") from exc
    return DataFrame, functions


def check_spark_frame(frame, name, data_frame_type, hint):
    """Raise TypeError unless ``frame`` is a Spark DataFrame (``hint``: what to do instead)."""
    if not isinstance(frame, data_frame_type):
        raise TypeError(
            f"{name} must be a pyspark.sql.DataFrame, got {type(frame).__name__}; {hint}"
        )


def check_spark_columns(frame, name, columns, example):
    """Check that every named column (``{parameter: column or None}``) is in ``frame``."""
    for param, value in columns.items():
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{param} must be a column name (str), got {short_repr(value)}.")
    have = list(frame.columns)
    missing = [c for c in columns.values() if c is not None and c not in have]
    if missing:
        raise ValueError(
            f"{name} lacks column(s) {missing}; it has columns {have}. Pass the right names, "
            f"e.g. {example}, or rename the columns."
        )
    return [c for c in columns.values() if c is not None]


def bucket_count(frame):
    """Buckets of queries: the session's ``spark.sql.shuffle.partitions`` (when a number),
    else its default parallelism; at least 1."""
    session = frame.sparkSession
    value = session.conf.get("spark.sql.shuffle.partitions", None)
    try:
        return max(int(value), 1)
    except (TypeError, ValueError):  # "auto" on some platforms
        return max(int(session.sparkContext.defaultParallelism), 1)


def pinned(frame, columns, qid, functions, n_buckets=None):
    """``columns`` of ``frame``, each row's input position (``ROW_KEY``) and query bucket."""
    n_buckets = bucket_count(frame) if n_buckets is None else n_buckets
    bucket = functions.pmod(functions.hash(functions.col(qid)), functions.lit(n_buckets))
    return (
        frame.select(*columns)
        .withColumn(ROW_KEY, functions.monotonically_increasing_id())
        .withColumn(BUCKET, bucket)
    )


def task_payload(compute, *args):
    """Run ``compute(*args)`` in a task: its value, or its ValueError/TypeError, pickled."""
    import pandas as pd

    try:
        result = ("ok", compute(*args))
    except (ValueError, TypeError) as exc:
        result = ("error", exc)
    return pd.DataFrame({"payload": [pickle.dumps(result)]})


def raise_or_values(rows):
    """The values of the tasks' payload rows; the first task error is raised again here."""
    values = []
    for row in rows:
        kind, value = pickle.loads(row["payload"])
        if kind == "error":
            raise value
        if value is not None:
            values.append(value)
    return values


def absent_query(*columns):
    """A query id found in none of ``columns`` (pandas Series of one kind), of their kind: a
    stand-in query for a task that the in-memory function would otherwise refuse (a run with
    no row in the task's bucket), dropped from the task's result."""
    import pandas as pd

    ids = pd.concat(columns, ignore_index=True)
    if ids.dtype.kind in "iuf":
        return (ids.max() + 1) if len(ids) else 0
    taken = set(ids.astype(str))
    candidate = "__sklearn_ltr_absent__"
    while candidate in taken:
        candidate += "_"
    return candidate
