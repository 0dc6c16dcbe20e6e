"""Per-query tables of several systems: alignment by query and ``compare_systems``.

Tables come from :func:`evaluate` (indexed by qid) or from :func:`cross_validate_ranking`
(``fold`` and ``qid`` columns). Queries are paired by their key, ``(fold, qid)`` or ``qid``;
the statistics themselves are the kernels of ``_stats.py``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._random import check_seed_sequence
from .._validation import (
    check_choice,
    check_columns,
    check_positive_int,
    check_probability,
    unknown_name_error,
)
from ._effects import _CORRECTIONS
from ._pairs import TEST_COLUMNS, aligned_tables, correct, paired_rows
from ._stats import _check_test, _ci, _warn, stats_doc

__all__ = ["COMPARISON_COLUMNS", "compare_systems"]


_MISMATCH = ("error", "intersect")
_INTERVAL_COLUMNS = ("system", "metric", "ci_low", "ci_high")

#: Columns of the table :func:`compare_systems` returns, in order.
COMPARISON_COLUMNS = (
    "metric",
    "system",
    "mean",
    "ci_low",
    "ci_high",
    "diff",
    *TEST_COLUMNS,
)


@stats_doc
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
    alpha=0.05,
    intervals=None,
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
    correction : {"holm", "bonferroni", "bh", "fdr_bh", "none"}, default="holm"
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
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
        Seed; each (metric, system) gets its own stream from ``SeedSequence.spawn``, so the
        table is identical for the same int.
    alpha : float, default=0.05
        Significance level: ``significant`` is ``pvalue_corrected < alpha``.
    intervals : DataFrame, optional
        Intervals already computed for the systems' means, with columns ``system, metric,
        ci_low, ci_high`` (e.g. the ``overall`` table of a report, or :func:`summarize`'s
        ``overall`` with a ``system`` column): they are used as they are instead of a new
        bootstrap, so one mean has one interval wherever it is shown. Every compared
        (system, metric) must have a row.

    Returns
    -------
    pandas.DataFrame
        One row per (metric, system), metric by metric, the baseline first, with columns:

        - ``mean``, ``ci_low``, ``ci_high``: the system's macro mean over its defined queries
          and its bootstrap percentile interval (NaN with fewer than 2 queries).
        - ``diff``: mean of the per-query differences system - baseline over queries where
          both are defined (the permutation test's statistic).
        - ``pvalue`` (raw, two-sided) and ``pvalue_corrected``; ``significant``:
          ``pvalue_corrected < alpha`` (False for the baseline and for NaN p-values).
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
    {systems_example}
    >>> tables = {
    ...     "Random": pd.DataFrame({"ndcg@10": base}, index=qid),
    ...     "LambdaMART": pd.DataFrame({"ndcg@10": base + 0.1}, index=qid),
    ... }
    >>> table = compare_systems(tables, baseline="Random", n_resamples=999, random_state=0)
    >>> table[["system", "diff", "pvalue", "magnitude", "wins"]].round(3)
           system  diff  pvalue magnitude  wins
    0      Random   0.0     NaN               0
    1  LambdaMART   0.1   0.002     large    40
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
    alpha = check_probability(alpha, "alpha")
    seeds = check_seed_sequence(random_state)

    tables, metrics, common = aligned_tables(per_query, baseline, metrics, on_mismatch, "per_query")
    systems = [baseline] + [s for s in tables if s != baseline]
    given = _given_intervals(intervals, systems, metrics)

    def mean_interval(system, metric, defined, seed):
        if given is not None:
            return given[(system, metric)]
        rng = np.random.default_rng(seed)
        return _ci(defined, None, n_bootstrap, confidence_level, "percentile", rng)

    entries = [(s, None if s == baseline else baseline) for s in systems]
    rows = paired_rows(
        tables,
        common,
        metrics,
        entries,
        test=test,
        n_resamples=n_resamples,
        seeds=seeds,
        mean_interval=mean_interval,
    )
    too_few = [(r["metric"], r["system"]) for r in rows if r.get("n", r["n_queries"]) < 2]
    if too_few:
        listed = ", ".join(f"({m!r}, {s!r})" for m, s in too_few)
        _warn(
            f"Fewer than 2 usable queries for {listed}: their interval, p-value and effect size "
            "are NaN."
        )
    table = pd.DataFrame(rows).reindex(columns=[*COMPARISON_COLUMNS, "n_queries"])
    base = (table["system"] == baseline).to_numpy()
    # The baseline's rows: no test, no effect; it ties with itself on its defined queries.
    table["diff"] = table["diff"].mask(base, 0.0)
    table["magnitude"] = table["magnitude"].mask(base, "").astype(str)
    table["ties"] = table["ties"].mask(base, table["n_queries"])
    table = table.fillna({"wins": 0, "losses": 0})
    table = correct(table, ~base, correction, alpha)[list(COMPARISON_COLUMNS)]
    return table.astype({"wins": np.int64, "ties": np.int64, "losses": np.int64})


def _given_intervals(intervals, systems, metrics):
    """(system, metric) -> (low, high) from a precomputed table, or None."""
    if intervals is None:
        return None
    table = check_columns(intervals, "intervals", _INTERVAL_COLUMNS)
    out = {
        (str(s), m): (float(lo), float(hi))
        for s, m, lo, hi in table.itertuples(index=False, name=None)
    }
    absent = [(s, m) for m in metrics for s in systems if (s, m) not in out]
    if absent:
        raise ValueError(
            f"intervals has no row for {absent[:3]!r}"
            + (f" and {len(absent) - 3} more" if len(absent) > 3 else "")
            + "; give an interval for every compared (system, metric), or intervals=None."
        )
    return out
