"""Every pair of systems compared: the significance matrix (``compare_all``).

A third face of the paired-comparison core (``_pairs.py``): each pair of systems is paired over
the queries both have, tested (permutation, t, Wilcoxon, sign) or all systems at once with
Tukey's HSD (``scipy.stats.tukey_hsd``, over the queries every system has), and the p-values
are corrected over the pairs.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._random import check_seed_sequence
from .._table import named_systems
from .._validation import check_positive_int, check_probability, unknown_name_error
from ._effects import _CORRECTIONS
from ._pairs import TEST_COLUMNS, aligned_tables, correct, paired_rows
from ._stats import _PAIRED_TESTS, stats_doc

__all__ = ["PAIRWISE_COLUMNS", "PairwiseComparison", "compare_all", "pairwise_test_names"]

#: Columns of :attr:`PairwiseComparison.table`, in order.
PAIRWISE_COLUMNS = (
    "metric",
    "system_a",
    "system_b",
    "n_queries",
    "mean_a",
    "mean_b",
    "diff",
    "ci_low",
    "ci_high",
    *TEST_COLUMNS,
)
_MATRIX_VALUES = ("diff", "pvalue", "pvalue_corrected", "significant", "effect_size")


def pairwise_test_names():
    """Names accepted by ``compare_all(test=...)``: the paired tests and ``"tukey"``.

    Returns
    -------
    list of str
        The tests, sorted.

    Examples
    --------
    >>> pairwise_test_names()
    ['permutation', 'sign', 't', 'tukey', 'wilcoxon']
    """
    return sorted([*_PAIRED_TESTS, "tukey"])


@dataclass(frozen=True)
class PairwiseComparison:
    """Result of :func:`compare_all`: one row per (metric, pair of systems).

    Attributes
    ----------
    table : pandas.DataFrame
        The tidy table, columns :data:`PAIRWISE_COLUMNS`: ``diff`` is the mean of
        ``system_a - system_b`` over the ``n_queries`` queries both have, ``ci_low, ci_high``
        its interval, ``pvalue`` the raw two-sided p-value, ``pvalue_corrected`` and
        ``significant`` (``pvalue_corrected < alpha``), the pooled Cohen's d and its label,
        and the queries ``system_a`` wins, ties and loses.
    systems : tuple of str
        The systems, in the order given (the matrix's order).
    metrics : tuple of str
        The metrics compared.
    test, correction : str
        The test and the correction used.
    alpha : float
        The significance level.

    Examples
    --------
    >>> import pandas as pd
    >>> qid = pd.Index(range(6), name="qid")
    >>> tables = {name: pd.DataFrame({"map": values}, index=qid) for name, values in {
    ...     "A": [.2, .3, .4, .5, .2, .3], "B": [.4, .5, .6, .7, .5, .5],
    ...     "C": [.2, .3, .5, .5, .2, .4]}.items()}
    >>> result = compare_all(tables, test="t")
    >>> result.matrix(value="diff").round(3)
    system_b      A      B      C
    system_a
    A           NaN -0.217 -0.033
    B         0.217    NaN  0.183
    C         0.033 -0.183    NaN
    """

    table: pd.DataFrame
    systems: tuple
    metrics: tuple
    test: str
    correction: str
    alpha: float

    def matrix(self, metric=None, *, value="pvalue_corrected"):
        """The systems x systems view of one column of :attr:`table`.

        Parameters
        ----------
        metric : str, optional
            Which metric; default the first compared.
        value : {"pvalue_corrected", "pvalue", "diff", "significant", "effect_size"}
            The cell's value. ``diff`` and ``effect_size`` read row minus column (the sign
            flips across the diagonal); p-values and ``significant`` are symmetric.

        Returns
        -------
        pandas.DataFrame
            Square, indexed by ``system_a`` (rows) and ``system_b`` (columns) in the systems'
            order; the diagonal is NaN (``False`` for ``significant``).
        """
        if metric is None:
            metric = self.metrics[0]
        if metric not in self.metrics:
            raise unknown_name_error("metric", metric, self.metrics, param="metric")
        if value not in _MATRIX_VALUES:
            raise unknown_name_error("matrix value", value, _MATRIX_VALUES, param="value")
        rows = self.table[self.table["metric"] == metric]
        flip = -1.0 if value in ("diff", "effect_size") else 1.0
        forward = rows.set_index(["system_a", "system_b"])[value].astype(np.float64)
        backward = flip * forward
        backward.index = backward.index.swaplevel()
        cells = pd.concat([forward, backward]).unstack()
        cells = cells.reindex(index=list(self.systems), columns=list(self.systems))
        cells.index.name, cells.columns.name = "system_a", "system_b"
        if value == "significant":
            return cells.fillna(0.0).astype(bool)
        return cells


def _check_options(test, correction, n_resamples, n_bootstrap, confidence_level, alpha):
    if not isinstance(test, str) or test not in pairwise_test_names():
        raise unknown_name_error("pairwise test", test, pairwise_test_names(), param="test")
    if correction is not None and (
        not isinstance(correction, str) or correction not in _CORRECTIONS
    ):
        raise unknown_name_error("correction", correction, _CORRECTIONS, param="correction")
    check_positive_int(n_resamples, "n_resamples")
    check_positive_int(n_bootstrap, "n_bootstrap")
    check_probability(confidence_level, "confidence_level")
    check_probability(alpha, "alpha")


def _union_keys(tables):
    """Every query key of any system, the first system's order first."""
    keys = None
    for name, table in tables.items():
        if keys is not None and table.index.nlevels != keys.nlevels:
            raise ValueError(
                f"System {name!r} has a different query key from the others: one table has a "
                "fold column (cross-validation) and another does not; compare like with like."
            )
        keys = table.index if keys is None else keys.union(table.index, sort=False)
    return keys


def _tukey(tables, keys, metric, systems, confidence_level):
    """(complete-case keys, {(a, b): (pvalue, low, high)}) of Tukey's HSD over every system."""
    values = pd.DataFrame({s: tables[s][metric].reindex(keys) for s in systems}).dropna()
    if len(values) < 2:
        return values.index, {}
    result = stats.tukey_hsd(*(values[s].to_numpy(dtype=np.float64) for s in systems))
    interval = result.confidence_interval(confidence_level)
    out = {}
    for (i, a), (j, b) in itertools.combinations(enumerate(systems), 2):
        p = float(result.pvalue[i, j])
        out[(a, b)] = (p, float(interval.low[i, j]), float(interval.high[i, j]))
    return values.index, out


def _tukey_rows(tables, keys, metrics, pairs, systems, confidence_level, seeds):
    """The core's rows for Tukey's HSD: pairs on the complete-case queries, scipy's p and CI."""
    rows = []
    for metric, seed in zip(metrics, seeds.spawn(len(metrics)), strict=True):
        complete, tukey = _tukey(tables, keys, metric, systems, confidence_level)
        found = paired_rows(tables, complete, [metric], pairs, test=None, n_resamples=1, seeds=seed)
        for row in found:
            p, low, high = tukey.get((row["system"], row["partner"]), (np.nan,) * 3)
            rows.append({**row, "pvalue": p, "ci_low": low, "ci_high": high})
    return rows


@stats_doc
def compare_all(
    per_query,
    metrics=None,
    *,
    test="permutation",
    correction=None,
    alpha=0.05,
    n_resamples=10000,
    n_bootstrap=1000,
    confidence_level=0.95,
    random_state=None,
):
    """Compare every pair of systems on the queries they share: the significance matrix.

    Parameters
    ----------
    per_query : mapping of str to DataFrame
        System name -> its per-query table (``evaluate(...).per_query``, indexed by ``qid``,
        or a ``cross_validate_ranking`` table with ``fold`` and ``qid``), at least 2 systems.
        Each pair is paired over the query keys both tables have (with a value on both sides).
    metrics : str or list of str, optional
        Metric columns; default every metric column of the first system's table.
    test : {"permutation", "t", "wilcoxon", "sign", "tukey"}, default="permutation"
        The paired tests of :func:`paired_test` run on each pair (two-sided; the permutation
        test flips signs, exactly for up to 16 queries or when ``n_resamples >= 2**n``, else
        ``n_resamples`` seeded random flips), or ``"tukey"``: Tukey's HSD across all systems
        at once (``scipy.stats.tukey_hsd`` on the queries where every system has a value; its
        p-values already hold the family-wise rate over the pairs, and ``ci_low``/``ci_high``
        are its simultaneous intervals).
    correction : {"holm", "bonferroni", "bh", "fdr_bh", "none"} or None, default=None
        Correction over every (metric, pair) together (:func:`adjust_pvalues`). None:
        ``"holm"`` for the paired tests, ``"none"`` for ``"tukey"``, whose p-values already
        hold the family-wise rate (pass a correction to correct several metrics again).
    alpha : float, default=0.05
        ``significant`` is ``pvalue_corrected < alpha``.
    n_resamples : int, default=10000
        Sign flips of the Monte-Carlo permutation test.
    n_bootstrap : int, default=1000
        Resamples of the percentile bootstrap interval of each pair's mean difference.
    confidence_level : float, default=0.95
        Coverage of the intervals.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
        Seed; each (metric, pair) has its own stream, so the same int gives the same table.

    Returns
    -------
    PairwiseComparison
        ``table`` (tidy, one row per metric and pair ``system_a < system_b`` in the given
        order) and ``matrix(metric, value=...)`` (systems x systems).

    Examples
    --------
    {systems_example}
    >>> tables = {"BM25": pd.DataFrame({"ndcg@10": base}, index=qid),
    ...           "LTR": pd.DataFrame({"ndcg@10": base + rng.normal(0.1, 0.05, 40)}, index=qid),
    ...           "LTR2": pd.DataFrame({"ndcg@10": base + rng.normal(0.1, 0.05, 40)}, index=qid)}
    >>> result = compare_all(tables, n_resamples=2000, random_state=0)
    >>> result.table[["system_a", "system_b", "diff", "significant"]].round(3)
      system_a system_b   diff  significant
    0     BM25      LTR -0.115         True
    1     BM25     LTR2 -0.100         True
    2      LTR     LTR2  0.015        False
    >>> result.matrix(value="significant").loc["LTR", "BM25"]
    np.True_
    """
    if not isinstance(per_query, Mapping):
        raise TypeError(
            "per_query must be a mapping of system name -> per-query DataFrame, "
            f"got {type(per_query).__name__}."
        )
    per_query = named_systems(per_query, "per_query")
    if len(per_query) < 2:
        raise ValueError(f"compare_all needs at least 2 systems, got {list(per_query)!r}.")
    _check_options(test, correction, n_resamples, n_bootstrap, confidence_level, alpha)
    if correction is None:
        correction = "none" if test == "tukey" else "holm"
    seeds = check_seed_sequence(random_state)
    systems = list(per_query)
    tables, metrics, _ = aligned_tables(per_query, systems[0], metrics, None, "per_query")
    keys = _union_keys(tables)
    pairs = list(itertools.combinations(systems, 2))
    if test == "tukey":
        rows = _tukey_rows(tables, keys, metrics, pairs, systems, confidence_level, seeds)
    else:
        rows = paired_rows(
            tables,
            keys,
            metrics,
            pairs,
            test=test,
            n_resamples=n_resamples,
            seeds=seeds,
            diff_interval=(n_bootstrap, confidence_level),
        )
    return PairwiseComparison(
        table=_pairwise_table(rows, correction, alpha),
        systems=tuple(systems),
        metrics=tuple(metrics),
        test=test,
        correction=correction,
        alpha=float(alpha),
    )


def _pairwise_table(rows, correction, alpha):
    table = pd.DataFrame(rows).rename(
        columns={"system": "system_a", "partner": "system_b", "n": "pairs"}
    )
    table["mean_a"], table["mean_b"] = table["pair_mean"], table["partner_mean"]
    table["n_queries"] = table["pairs"]
    table = correct(table, np.ones(len(table), dtype=bool), correction, alpha)
    return table[list(PAIRWISE_COLUMNS)].astype(
        {"n_queries": np.int64, "wins": np.int64, "ties": np.int64, "losses": np.int64}
    )
