"""The ceiling rule of a retrieval pipeline: reranking reorders, it never changes the set.

A reranking stage reorders the top ``depth`` documents of the stage it reranks; the set of
those documents is its input's, so its Recall@depth must equal its input's on every query. A
stage declared as a reranking whose Recall@depth differs (on some query) has brought in or
dropped documents: it is not the reranking it claims to be, or its depth is not the one
evaluated, and the stage table reads it as a warning sign.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._table import common_keys, keyed_table, metric_values
from .._validation import check_positive_int

__all__ = ["CEILING_COLUMNS", "ceiling_check"]

#: Columns of the table :func:`ceiling_check` returns, in order.
CEILING_COLUMNS = (
    "stage",
    "reranks",
    "metric",
    "n_queries",
    "mean",
    "input_mean",
    "n_changed",
    "max_abs_diff",
    "kept",
)


def _check_reranks(reranks, names):
    if not isinstance(reranks, Mapping):
        raise TypeError(
            "reranks must be a mapping stage -> the stage it reranks, e.g. "
            f"{{'cross-encoder': 'hybrid'}}; got {type(reranks).__name__}."
        )
    pairs = {str(stage): str(source) for stage, source in reranks.items()}
    for stage, source in pairs.items():
        for value, what in ((stage, "a stage"), (source, "the stage it reranks")):
            if value not in names:
                raise ValueError(
                    f"reranks names {value!r} as {what}, which is not one of the stages {names!r}."
                )
        if stage == source:
            raise ValueError(f"reranks declares {stage!r} as a reranking of itself.")
    return pairs


def ceiling_check(per_query_by_stage, reranks, *, depth=100, tol=1e-12):
    """Check the ceiling rule: each reranking stage keeps its input's Recall@depth per query.

    Parameters
    ----------
    per_query_by_stage : mapping of str to DataFrame
        Stage name -> that stage's per-query table (as for :func:`stage_table`); the
        tables of the stages named in ``reranks`` need a ``recall@{depth}`` column.
    reranks : mapping of str to str
        Reranking stage -> the stage it reranks (its input), e.g.
        ``{"cross-encoder": "hybrid", "LLM": "cross-encoder"}``.
    depth : int, default=100
        The reranking depth: the Recall@depth that must not change.
    tol : float, default=1e-12
        Per-query differences up to ``tol`` count as equal.

    Returns
    -------
    DataFrame
        One row per reranking stage, columns ``stage, reranks, metric, n_queries, mean,
        input_mean, n_changed, max_abs_diff, kept``: the means of ``recall@{depth}`` of the
        stage and of its input on their common queries, how many queries differ and by how
        much at most, and ``kept`` (True when no query differs).

    Examples
    --------
    >>> import pandas as pd
    >>> qid = pd.Index(["q1", "q2", "q3"], name="qid")
    >>> stages = {
    ...     "hybrid": pd.DataFrame({"recall@100": [0.8, 0.5, 1.0]}, index=qid),
    ...     "cross-encoder": pd.DataFrame({"recall@100": [0.8, 0.5, 1.0]}, index=qid),
    ...     "LLM": pd.DataFrame({"recall@100": [0.8, 0.6, 1.0]}, index=qid),
    ... }
    >>> ceiling_check(stages, {"cross-encoder": "hybrid", "LLM": "cross-encoder"})[
    ...     ["stage", "reranks", "n_changed", "max_abs_diff", "kept"]]
               stage        reranks  n_changed  max_abs_diff   kept
    0  cross-encoder         hybrid          0           0.0   True
    1            LLM  cross-encoder          1           0.1  False
    """
    if not isinstance(per_query_by_stage, Mapping):
        raise TypeError(
            "per_query_by_stage must be a mapping stage name -> per-query table, got "
            f"{type(per_query_by_stage).__name__}."
        )
    depth = check_positive_int(depth, "depth")
    tables = {str(name): table for name, table in per_query_by_stage.items()}
    pairs = _check_reranks(reranks, list(tables))
    metric = f"recall@{depth}"
    rows = []
    for stage, source in pairs.items():
        keyed = {
            name: keyed_table(tables[name], f"per_query_by_stage[{name!r}]")
            for name in (source, stage)
        }
        for name, table in keyed.items():
            if metric not in table.columns:
                raise ValueError(
                    f"per_query_by_stage[{name!r}] has no {metric!r} column, which the ceiling "
                    f"check of {stage!r} needs; evaluate the stages with metrics including "
                    f"{metric!r} (or pass the depth the stages were reranked to)."
                )
        keys = common_keys(keyed, source, "intersect")
        after = metric_values(keyed[stage].reindex(keys), metric)
        before = metric_values(keyed[source].reindex(keys), metric)
        diff = np.abs(np.nan_to_num(after, nan=-1.0) - np.nan_to_num(before, nan=-1.0))
        changed = diff > tol
        rows.append(
            {
                "stage": stage,
                "reranks": source,
                "metric": metric,
                "n_queries": len(keys),
                "mean": float(np.nanmean(after)) if len(after) else np.nan,
                "input_mean": float(np.nanmean(before)) if len(before) else np.nan,
                "n_changed": int(changed.sum()),
                "max_abs_diff": float(diff.max()) if diff.size else 0.0,
                "kept": not changed.any(),
            }
        )
    return pd.DataFrame(rows, columns=list(CEILING_COLUMNS))
