"""Per-query tables of several systems: alignment by query and ``compare_systems``.

Tables come from :func:`evaluate` (indexed by qid) or from :func:`cross_validate_ranking`
(``fold`` and ``qid`` columns). Queries are paired by their key, ``(fold, qid)`` or ``qid``;
the statistics themselves are the kernels of ``_stats.py``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ._stats import (
    _CORRECTIONS,
    _check_test,
    _ci,
    _cohens_d,
    _float_values,
    _paired,
    _seed_sequence,
    _warn,
    adjust_pvalues,
    effect_size_label,
)
from ._validation import check_choice, check_positive_int, check_probability, unknown_name_error

__all__ = ["COMPARISON_COLUMNS", "compare_systems"]

#: Columns of a per-query table that are never metrics.
RESERVED_COLUMNS = ("n_docs", "n_pos", "n_neg", "fold", "qid")

_MISMATCH = ("error", "intersect")

#: Columns of the table :func:`compare_systems` returns, in order.
COMPARISON_COLUMNS = (
    "metric",
    "system",
    "mean",
    "ci_low",
    "ci_high",
    "diff",
    "pvalue",
    "pvalue_corrected",
    "effect_size",
    "magnitude",
    "wins",
    "ties",
    "losses",
)


def _keyed_table(table, name):
    """Return a copy of a per-query table indexed by its query key, (fold, qid) or qid.

    Accepts the table of ``evaluate`` (indexed by qid) and of ``cross_validate_ranking`` (a
    ``fold`` column, ``qid`` as a column). Duplicate keys are an error.
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(
            f"{name} must be a pandas DataFrame of per-query values (the per_query table of "
            f"evaluate or cross_validate_ranking), got {type(table).__name__}."
        )
    if "qid" in table.columns:
        df = table.copy()
    elif isinstance(table.index, pd.MultiIndex):
        df = table.reset_index()
        if "qid" not in df.columns:
            raise ValueError(
                f"{name} has a MultiIndex {list(table.index.names)!r} without a 'qid' level; "
                "index it by qid (or by fold and qid)."
            )
    else:
        # evaluate's table: the index holds the query ids, whatever its name.
        df = table.reset_index(names="qid")
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
    table = getattr(table, "per_query", table)
    if not isinstance(table, pd.DataFrame):
        raise TypeError(
            f"{name} must be a per-query DataFrame (evaluate(...).per_query, or the "
            f"'per_query' of cross_validate_ranking) or an evaluation, got {type(table).__name__}."
        )
    if "qid" in table.columns:
        frame = table.reset_index(drop=True)
    elif isinstance(table.index, pd.MultiIndex):
        frame = table.reset_index()
    else:
        frame = table.reset_index(names="qid")
    if counts:
        if "n_pos" not in frame.columns:
            raise ValueError(f"{name} needs an 'n_pos' column; it has {list(frame.columns)}.")
        if "n_neg" not in frame.columns:
            if "n_docs" not in frame.columns:
                raise ValueError(f"{name} needs an 'n_neg' or 'n_docs' column for difficulty.")
            frame = frame.assign(n_neg=frame["n_docs"] - frame["n_pos"])
    return frame


def _metric_columns(table, metrics, name):
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


def _column(table, metric, name="per_query"):
    """Float values of a metric column (``pd.NA`` becomes NaN), checked finite-or-NaN."""
    return _float_values(table[metric], f"{name}[{metric!r}]")


def _common_keys(tables, baseline, on_mismatch):
    """Query keys shared by all systems (baseline order); raise on a mismatch unless asked."""
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


def compare_systems(
    per_query,
    *,
    baseline,
    metrics=None,
    test="permutation",
    correction="holm",
    n_resamples=10000,
    n_bootstrap=1000,
    confidence_level=0.95,
    on_mismatch="error",
    random_state=None,
):
    """Compare several systems with a baseline on the same queries, in one tidy table.

    Parameters
    ----------
    per_query : mapping of str to DataFrame
        System name -> its per-query table: the ``per_query`` of ``evaluate`` (indexed by
        ``qid``) or the per-query table of ``cross_validate_ranking`` (``fold`` and ``qid``
        columns). Queries are paired on their key, ``(fold, qid)`` or ``qid``.
    baseline : str
        Name of the reference system (a key of ``per_query``).
    metrics : str or list of str, optional
        Metric columns to compare. Default: the baseline's numeric columns other than
        ``n_docs``, ``n_pos``, ``n_neg``, ``fold``, ``qid``; every system must have them.
    test : {"permutation", "sign", "wilcoxon", "t"}, default="permutation"
        Paired test of each system against the baseline (see :func:`paired_test`), two-sided.
    correction : {"holm", "bh", "fdr_bh", "none"}, default="holm"
        Multiple-comparison correction, applied across all (system, metric) comparisons
        together (see :func:`adjust_pvalues`).
    n_resamples : int, default=10000
        Sign flips of the Monte-Carlo permutation test.
    n_bootstrap : int, default=1000
        Resamples of the percentile bootstrap interval of each system's mean.
    confidence_level : float, default=0.95
        Coverage of the intervals.
    on_mismatch : {"error", "intersect"}, default="error"
        What to do when the systems' query keys differ: raise a ``ValueError`` naming the
        systems and the counts, or keep only the queries every system has.
    random_state : None, int or numpy.random.Generator, default=None
        Seed; each (metric, system) gets its own stream from ``SeedSequence.spawn``, so the
        table is identical for the same int.

    Returns
    -------
    pandas.DataFrame
        One row per (metric, system), metric by metric, the baseline first, with columns:

        - ``mean``, ``ci_low``, ``ci_high``: the system's macro mean over its defined queries
          and its bootstrap percentile interval (NaN with fewer than 2 queries).
        - ``diff``: mean of the per-query differences system - baseline over queries where
          both are defined (the permutation test's statistic).
        - ``pvalue`` (raw, two-sided) and ``pvalue_corrected``.
        - ``effect_size``: the methodology's pooled Cohen's d of system vs baseline over the
          same pairs (:func:`cohens_d`); ``magnitude``: its label (:func:`effect_size_label`).
        - ``wins``, ``ties``, ``losses``: queries where the system is above, equal to and below
          the baseline.

        The baseline's own row has ``diff=0.0``, NaN ``pvalue``, ``pvalue_corrected`` and
        ``effect_size``, ``magnitude=""``, and ``wins=0, ties=n, losses=0`` where ``n`` is the
        number of queries where the baseline is defined.

    Warns
    -----
    RuntimeWarning
        Once, listing the (metric, system) pairs with fewer than 2 usable queries (their
        interval, p-value and effect size are NaN).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> qid = pd.Index(range(30), name="qid")
    >>> base = rng.uniform(0.2, 0.8, 30)
    >>> tables = {
    ...     "Random": pd.DataFrame({"ndcg@10": base}, index=qid),
    ...     "LambdaMART": pd.DataFrame({"ndcg@10": base + 0.1}, index=qid),
    ... }
    >>> table = compare_systems(tables, baseline="Random", n_resamples=999, random_state=0)
    >>> table[["system", "diff", "pvalue", "magnitude", "wins"]].round(3)
           system  diff  pvalue magnitude  wins
    0      Random   0.0     NaN               0
    1  LambdaMART   0.1   0.002     large    30
    """
    if not isinstance(per_query, Mapping):
        raise TypeError(
            "per_query must be a mapping of system name -> per-query DataFrame, "
            f"got {type(per_query).__name__}."
        )
    if not per_query:
        raise ValueError("per_query is empty; pass at least the baseline's per-query table.")
    if baseline not in per_query:
        raise unknown_name_error("system", baseline, map(str, per_query), param="baseline")
    test = _check_test(test)
    if not isinstance(correction, str) or correction not in _CORRECTIONS:
        raise unknown_name_error("correction", correction, _CORRECTIONS, param="correction")
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    n_bootstrap = check_positive_int(n_bootstrap, "n_bootstrap")
    confidence_level = check_probability(confidence_level, "confidence_level")
    on_mismatch = check_choice(on_mismatch, "on_mismatch", _MISMATCH)
    seeds = _seed_sequence(random_state)

    tables = {s: _keyed_table(df, f"per_query[{s!r}]") for s, df in per_query.items()}
    metrics = _metric_columns(tables[baseline], metrics, f"per_query[{baseline!r}]")
    for system, df in tables.items():
        _metric_columns(df, metrics, f"per_query[{system!r}]")
    common = _common_keys(tables, baseline, on_mismatch)
    systems = [baseline] + [s for s in tables if s != baseline]

    rows, too_few = [], []
    children = iter(seeds.spawn(len(metrics) * len(systems)))
    for metric in metrics:
        values = {s: _column(tables[s].reindex(common), metric) for s in systems}
        base = values[baseline]
        for system in systems:
            ci_seed, test_seed = next(children).spawn(2)
            x = values[system]
            defined = x[~np.isnan(x)]
            mean = float(defined.mean()) if defined.size else float("nan")
            rng = np.random.default_rng(ci_seed)
            low, high = _ci(defined, None, n_bootstrap, confidence_level, "percentile", rng)
            row = {"metric": metric, "system": system, "mean": mean, "ci_low": low, "ci_high": high}
            if system == baseline:
                if defined.size < 2:
                    too_few.append((metric, system))
                rows.append({**row, "diff": 0.0, "magnitude": "", "ties": int(defined.size)})
                continue
            res = _paired(x, base, test, "two-sided", n_resamples, np.random.default_rng(test_seed))
            keep = ~(np.isnan(x) | np.isnan(base))
            d = _cohens_d(x[keep], base[keep], paired=False)
            if res.n < 2:
                too_few.append((metric, system))
            rows.append(
                {
                    **row,
                    "diff": res.mean_difference,
                    "pvalue": res.pvalue,
                    "effect_size": d,
                    "magnitude": effect_size_label(d),
                    "wins": res.wins,
                    "ties": res.ties,
                    "losses": res.losses,
                }
            )
    if too_few:
        listed = ", ".join(f"({m!r}, {s!r})" for m, s in too_few)
        _warn(
            f"Fewer than 2 usable queries for {listed}: their interval, p-value and effect size "
            "are NaN."
        )
    table = pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))
    # The baseline's rows: no test, no effect; it ties with itself on its defined queries.
    table = table.fillna({"wins": 0, "losses": 0})
    compared = (table["system"] != baseline).to_numpy()
    table.loc[compared, "pvalue_corrected"] = adjust_pvalues(
        table.loc[compared, "pvalue"].to_numpy(), method=correction
    )
    return table.astype({"wins": np.int64, "ties": np.int64, "losses": np.int64})
