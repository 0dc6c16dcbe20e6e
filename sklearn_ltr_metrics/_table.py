"""The per-query table: the one data structure everything downstream reads.

A per-query table has one row per query. Its *key* is ``qid`` (the index of
``evaluate(...).per_query``) or ``(fold, qid)`` (the ``per_query`` of
``cross_validate_ranking``, with both as columns). Its *count* columns are ``n_docs``,
``n_pos``, ``n_neg`` and ``difficulty`` (``n_neg / n_pos``, NaN when ``n_pos`` is 0); every
other numeric column is a *metric* column. This module owns
those rules: the statistics, the report, the plots and the command line import them from here
and never re-parse a table themselves.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ._engine import difficulty_values, divide_or_nan
from ._validation import float_values

__all__ = [
    "COUNT_COLUMNS",
    "KEY_COLUMNS",
    "RESERVED_COLUMNS",
    "SINGLE_SYSTEM",
    "common_keys",
    "count_values",
    "difficulty_values",
    "divide_or_nan",
    "keyed_table",
    "metric_columns",
    "metric_values",
    "named_systems",
    "query_frame",
]

#: Columns that identify a query (``fold`` only in cross-validation tables).
KEY_COLUMNS = ("fold", "qid")
#: Columns that count a query's documents (``difficulty`` = ``n_neg / n_pos``).
COUNT_COLUMNS = ("n_docs", "n_pos", "n_neg", "difficulty")
#: Columns of a per-query table that are never metrics.
RESERVED_COLUMNS = COUNT_COLUMNS + KEY_COLUMNS


def _per_query_of(table):
    """An evaluation's ``per_query`` table; anything else as it is."""
    if isinstance(table, pd.DataFrame):
        return table
    return getattr(table, "per_query", table)


def _query_columns(table, name):
    """``table`` (or an evaluation's ``per_query``) with ``qid`` (and ``fold``) as columns and
    a fresh RangeIndex (a MultiIndex's levels as they are); a TypeError naming ``name`` for
    anything but a DataFrame."""
    table = _per_query_of(table)
    if not isinstance(table, pd.DataFrame):
        raise TypeError(
            f"{name} must be a per-query DataFrame (evaluate(...).per_query, or the "
            f"'per_query' of cross_validate_ranking) or an evaluation, got {type(table).__name__}."
        )
    if "qid" in table.columns:
        return table.reset_index(drop=True)
    if isinstance(table.index, pd.MultiIndex):
        return table.reset_index()
    # evaluate's table: the index holds the query ids, whatever its name.
    return table.reset_index(names="qid")


def keyed_table(table, name):
    """Return a copy of a per-query table indexed by its query key, (fold, qid) or qid.

    Accepts the table of ``evaluate`` (indexed by qid) and of ``cross_validate_ranking`` (a
    ``fold`` column, ``qid`` as a column), or an evaluation (its ``per_query``). Duplicate
    keys are an error.
    """
    df = _query_columns(table, name)
    if "qid" not in df.columns:  # a MultiIndex without a qid level
        raise ValueError(
            f"{name} has a MultiIndex {list(_per_query_of(table).index.names)!r} without a "
            "'qid' level; index it by qid (or by fold and qid)."
        )
    keys = ["fold", "qid"] if "fold" in df.columns else ["qid"]
    df = df.set_index(keys)
    if df.index.has_duplicates:
        dup = df.index[df.index.duplicated()][0]
        hint = "" if "fold" in keys else " If it comes from cross-validation, keep its fold column."
        raise ValueError(
            f"{name} has {int(df.index.duplicated().sum())} duplicated query key(s) "
            f"{tuple(keys)} (first {dup!r}); a per-query table has one row per query.{hint}"
        )
    return df


#: Name given to a single, unnamed system's table.
SINGLE_SYSTEM = "system"


def named_systems(data, what):
    """``data`` -> dict system name -> object; a single object is called ``"system"``."""
    if isinstance(data, Mapping):
        if not data:
            raise ValueError(f"{what} is empty; pass at least one system's table.")
        names = [str(name) for name in data]
        if len(set(names)) != len(names):
            raise ValueError(f"{what} has system names that are equal as text: {names!r}.")
        return dict(zip(names, data.values(), strict=True))
    return {SINGLE_SYSTEM: data}


def query_frame(table, name, *, counts=False):
    """A per-query table with ``qid`` (and ``fold``) as columns and a fresh RangeIndex.

    ``table`` is a DataFrame from :func:`evaluate` (indexed by qid) or from
    :func:`cross_validate_ranking` (``fold``, ``qid`` columns), or an evaluation with a
    ``per_query`` attribute. With ``counts=True`` the result also has ``n_pos`` and ``n_neg``
    (``n_neg`` derived from ``n_docs`` when missing).
    """
    frame = _query_columns(table, name)
    if counts:
        n_pos, n_neg = count_values(frame, name)
        if "n_neg" not in frame.columns:
            frame = frame.assign(n_neg=frame["n_docs"] - frame["n_pos"])
        if "difficulty" not in frame.columns:
            frame = frame.assign(difficulty=difficulty_values(n_pos, n_neg))
    return frame


def count_values(table, name="per_query"):
    """``n_pos`` and ``n_neg`` of every query as float arrays (``n_neg`` from ``n_docs``).

    Raises a ``ValueError`` naming the table when ``n_pos`` is missing, when neither ``n_neg``
    nor ``n_docs`` is there, or when a count is negative or NaN.
    """
    if "n_pos" not in table.columns:
        raise ValueError(
            f"{name} needs an 'n_pos' column (relevant documents per query), as in the "
            f"per-query table of evaluate; got columns {list(table.columns)!r}."
        )
    n_pos = float_values(table["n_pos"], f"{name}['n_pos']")
    if "n_neg" in table.columns:
        n_neg = float_values(table["n_neg"], f"{name}['n_neg']")
    elif "n_docs" in table.columns:
        n_neg = float_values(table["n_docs"], f"{name}['n_docs']") - n_pos
    else:
        raise ValueError(
            f"{name} needs an 'n_neg' or an 'n_docs' column for difficulty; got columns "
            f"{list(table.columns)!r}."
        )
    for col, values in (("n_pos", n_pos), ("n_neg", n_neg)):
        if np.isnan(values).any() or (values < 0).any():
            raise ValueError(f"{name}[{col!r}] must hold non-negative counts without NaN.")
    return n_pos, n_neg


def metric_columns(table, metrics, name):
    """Metric columns to use: ``metrics`` (checked) or every numeric non-reserved column."""
    if metrics is None:
        cols = [
            c
            for c in table.columns
            if c not in RESERVED_COLUMNS and pd.api.types.is_numeric_dtype(table[c])
        ]
        if not cols:
            raise ValueError(
                f"{name} has no metric column (numeric columns other than "
                f"{', '.join(RESERVED_COLUMNS)}); got columns {list(table.columns)!r}."
            )
        return cols
    if isinstance(metrics, str):
        metrics = [metrics]
    try:
        metrics = list(metrics)
    except TypeError:
        raise TypeError(
            f"metrics must be a column name or a list of them, got {metrics!r}."
        ) from None
    if not metrics:
        raise ValueError("metrics is empty; pass None for every metric column or some names.")
    if len(set(metrics)) != len(metrics):
        raise ValueError(f"metrics has duplicated names: {metrics!r}.")
    for m in metrics:
        if m not in table.columns:
            available = [c for c in table.columns if c not in RESERVED_COLUMNS]
            raise ValueError(f"metric {m!r} is not a column of {name}; available: {available!r}.")
        if not pd.api.types.is_numeric_dtype(table[m]):
            raise TypeError(f"column {m!r} of {name} must be numeric, got dtype {table[m].dtype}.")
    return metrics


def metric_values(table, metric, name="per_query"):
    """Float values of a metric column (``pd.NA`` becomes NaN), checked finite-or-NaN."""
    return float_values(table[metric], f"{name}[{metric!r}]")


def common_keys(tables, baseline, on_mismatch="error"):
    """Align several systems: the query keys every table has, in the baseline's order.

    ``tables`` maps system name -> a table from :func:`keyed_table`. With
    ``on_mismatch="error"`` systems evaluated on different queries are a ``ValueError``
    naming the systems and the counts; with ``"intersect"`` the shared keys are kept.
    """
    base = tables[baseline].index
    problems = []
    common = base
    for system, df in tables.items():
        if system == baseline:
            continue
        if df.index.nlevels != base.nlevels:
            raise ValueError(
                f"Systems {baseline!r} and {system!r} have different query keys: one table has a "
                "fold column (cross-validation) and the other does not; compare like with like."
            )
        if df.index.equals(base):
            continue
        extra = len(df.index.difference(base))
        missing = len(base.difference(df.index))
        if extra or missing:
            problems.append(
                f"{system!r} has {extra} quer{'y' if extra == 1 else 'ies'} not in {baseline!r} "
                f"and lacks {missing} of its {len(base)}"
            )
        common = common[common.isin(df.index)]
    if problems and on_mismatch == "error":
        raise ValueError(
            "Systems were evaluated on different query sets: "
            + "; ".join(problems)
            + ". Evaluate them on the same queries, or pass on_mismatch='intersect' to compare "
            "on the queries they share."
        )
    if len(common) == 0:
        raise ValueError(
            "The systems share no query key; check that qid (and fold) use the same ids."
        )
    return common
