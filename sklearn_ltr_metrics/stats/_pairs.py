"""The paired-comparison core: systems' per-query tables, paired over the queries they share.

Every comparison of systems in this family is one call of :func:`paired_rows`:
:func:`compare_systems` (each system against a baseline), :func:`stage_table` (each stage
against the one before it) and :func:`compare_all` (every pair). A face decides which pairs
to compare and which columns to show; the core aligns the tables on their shared query keys,
gives each (metric, entry) its own random stream, and computes per pair the mean difference,
the paired test, the pooled Cohen's d, its label, the wins / ties / losses and, on request, a
bootstrap interval of the system's mean or of the mean difference. :func:`correct` applies one
multiple-comparison correction to the compared rows of the result.
"""

from __future__ import annotations

import numpy as np

from .._table import common_keys, keyed_table, metric_columns, metric_values
from ._effects import _cohens_d, adjust_pvalues, effect_size_label
from ._stats import _ci, _paired

__all__ = ["TEST_COLUMNS", "aligned_tables", "correct", "paired_rows"]

#: The columns every table of the paired core ends with: the test of each pair, its
#: correction, the effect size and the per-query wins, ties and losses.
TEST_COLUMNS = (
    "pvalue",
    "pvalue_corrected",
    "significant",
    "effect_size",
    "magnitude",
    "wins",
    "ties",
    "losses",
)


def aligned_tables(per_query, reference, metrics, on_mismatch, what):
    """(keyed tables, metric columns, shared query keys) of a mapping name -> per-query table.

    ``reference`` names the table whose metric columns are the default and whose key order is
    kept; every table must have the metrics; ``on_mismatch`` is :func:`common_keys`'s, or
    None for no shared keys (each pair finds its own: the keys are None).
    """
    tables = {name: keyed_table(table, f"{what}[{name!r}]") for name, table in per_query.items()}
    metrics = metric_columns(tables[reference], metrics, f"{what}[{reference!r}]")
    for name, table in tables.items():
        if name != reference:
            metric_columns(table, metrics, f"{what}[{name!r}]")
    if on_mismatch is None:
        return tables, metrics, None
    return tables, metrics, common_keys(tables, reference, on_mismatch)


def _pair_stats(x, y, test, alternative, n_resamples, rng):
    """diff, p-value, effect size and wins/ties/losses of ``x`` against ``y`` (NaN pairs out)."""
    keep = ~(np.isnan(x) | np.isnan(y))
    d = _cohens_d(x[keep], y[keep], paired=False)
    res = _paired(x, y, test, alternative, n_resamples, rng)
    nan = float("nan")
    return {
        "n": res.n,
        "pair_mean": float(x[keep].mean()) if res.n else nan,
        "partner_mean": float(y[keep].mean()) if res.n else nan,
        "diff": res.mean_difference,
        "pvalue": res.pvalue,
        "effect_size": d,
        "magnitude": effect_size_label(d),
        "wins": res.wins,
        "ties": res.ties,
        "losses": res.losses,
    }


def _diff_interval(x, y, n_bootstrap, confidence_level, seed):
    keep = ~(np.isnan(x) | np.isnan(y))
    d = x[keep] - y[keep]
    rng = np.random.default_rng(seed)
    return _ci(d, None, n_bootstrap, confidence_level, "percentile", rng)


def paired_rows(
    tables,
    keys,
    metrics,
    entries,
    *,
    test,
    n_resamples,
    seeds,
    mean_interval=None,
    diff_interval=None,
    alternative="two-sided",
):
    """One dict per (metric, entry): the system's own mean and, with a partner, the pair's stats.

    Parameters
    ----------
    tables : dict of str to DataFrame
        Keyed per-query tables (:func:`aligned_tables`).
    keys : Index
        The shared query keys every statistic is computed on.
    metrics : list of str
        Metric columns, compared metric by metric.
    entries : list of (str, str or None)
        ``(system, partner)`` in output order; ``partner=None`` gives the system's own row
        (mean, count) without a comparison.
    test : str or None
        Paired test (:func:`paired_test`); None leaves ``pvalue`` NaN.
    n_resamples : int
        Sign flips of the Monte-Carlo permutation test.
    seeds : numpy.random.SeedSequence
        One child per (metric, entry), in order. Without intervals the child seeds the test;
        with one it is split in two: (interval, test).
    mean_interval : callable, optional
        ``f(system, metric, defined_values, seed) -> (low, high)``: the interval of the
        system's mean, in ``ci_low``/``ci_high``.
    diff_interval : (int, float), optional
        ``(n_bootstrap, confidence_level)``: a percentile bootstrap interval of the mean
        difference over the pairs, in ``ci_low``/``ci_high`` of compared rows.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        Alternative of the test: ``"less"``, the system tends to be below its partner.

    Returns
    -------
    list of dict
        Keys ``metric, system, partner, n_queries, mean`` (over the system's defined queries),
        ``ci_low, ci_high`` when an interval is asked for, and for compared rows ``n`` (pairs
        with both values), ``pair_mean, partner_mean`` (the two means over those pairs),
        ``diff, pvalue, effect_size, magnitude, wins, ties, losses``.
    """
    split = mean_interval is not None or diff_interval is not None
    children = iter(seeds.spawn(len(metrics) * len(entries)))
    names = dict.fromkeys(name for entry in entries for name in entry if name is not None)
    rows = []
    for metric in metrics:
        values = {name: metric_values(tables[name].reindex(keys), metric) for name in names}
        for system, partner in entries:
            child = next(children)
            ci_seed, test_seed = child.spawn(2) if split else (None, child)
            x = values[system]
            defined = x[~np.isnan(x)]
            row = {
                "metric": metric,
                "system": system,
                "partner": partner,
                "n_queries": int(defined.size),
                "mean": float(defined.mean()) if defined.size else float("nan"),
            }
            if mean_interval is not None:
                row["ci_low"], row["ci_high"] = mean_interval(system, metric, defined, ci_seed)
            if partner is not None:
                y = values[partner]
                rng = np.random.default_rng(test_seed)
                row.update(_pair_stats(x, y, test, alternative, n_resamples, rng))
                if diff_interval is not None:
                    row["ci_low"], row["ci_high"] = _diff_interval(x, y, *diff_interval, ci_seed)
            rows.append(row)
    return rows


def correct(table, compared, correction, alpha):
    """``table`` with ``pvalue_corrected`` (over the ``compared`` rows together) and
    ``significant`` (``pvalue_corrected < alpha``; False elsewhere and for NaN)."""
    table = table.copy()
    table.loc[compared, "pvalue_corrected"] = adjust_pvalues(
        table.loc[compared, "pvalue"].to_numpy(dtype=np.float64), method=correction
    )
    table["significant"] = (table["pvalue_corrected"] < alpha).to_numpy()
    return table
