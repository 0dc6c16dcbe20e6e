"""Summary of one system's per-query table: means, strata, dispersion, difficulty, warning signs.

Everything is computed once into tidy DataFrames (:class:`Summary`); reports only render them.
The methodology's warning signs are returned as data (``Summary.warnings``), not emitted as
Python warnings.
"""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._random import check_seed_sequence
from .._table import count_values, keyed_table, metric_columns, metric_values
from .._validation import check_positive_int, check_probability, float_values
from ._difficulty import _difficulty
from ._stats import _ci, _warn, stats_doc

__all__ = ["Summary", "coefficient_of_variation", "summarize"]

#: The methodology's strata of queries by their number of relevant documents, as it labels
#: them (the default ``strata="methodology"``): inclusive ``(low, high)`` bounds on ``n_pos``.
METHODOLOGY_STRATA = {"Low (3-10)": (3, 10), "Medium (11-50)": (11, 50), "High (51+)": (51, np.inf)}
#: Row of ``Summary.strata`` counting the queries (with relevant documents) in no stratum.
OUTSIDE_STRATA = "outside the strata"

#: Warning sign "high_cv": coefficient of variation above this value.
CV_THRESHOLD = 0.5
#: Warning sign "difficulty_bias": Spearman rho < 0 with a p-value below this level.
DIFFICULTY_ALPHA = 0.05
#: Warning sign "stratum_gap": largest minus smallest stratum mean above this (absolute) value.
STRATUM_GAP_THRESHOLD = 0.2
#: Strata need at least this many queries to take part in the "stratum_gap" sign.
MIN_STRATUM_QUERIES = 2
#: Floor of the geometric mean, as gMAP: exp(mean(log(max(x, 1e-5)))).
GEOMETRIC_FLOOR = 1e-5

_OVERALL_COLUMNS = [
    "metric", "n_queries", "n_skipped", "macro", "weighted", "geometric", "ci_low", "ci_high",
    "weighted_ci_low", "weighted_ci_high", "std", "cv",
]  # fmt: skip
_STRATA_COLUMNS = ["metric", "stratum", "n_queries", "mean", "ci_low", "ci_high"]
_DIFFICULTY_COLUMNS = ["metric", "spearman_rho", "pvalue", "n"]
_WARNING_COLUMNS = ["metric", "kind", "message", "value"]


@stats_doc
@dataclass(frozen=True)
class Summary:
    """Result of :func:`summarize`: tidy tables, computed once.

    Attributes
    ----------
    overall : pandas.DataFrame
        One row per metric: ``metric, n_queries, n_skipped, macro, weighted, geometric,
        ci_low, ci_high`` (macro mean's interval), ``weighted_ci_low, weighted_ci_high``,
        ``std`` (``ddof=1``) and ``cv``.
    strata : pandas.DataFrame
        One row per (metric, stratum): ``metric, stratum, n_queries, mean, ci_low, ci_high``.
    difficulty : pandas.DataFrame
        One row per metric: ``metric, spearman_rho, pvalue, n``.
    warnings : pandas.DataFrame
        The methodology's warning signs: ``metric, kind, message, value`` with ``kind`` in
        ``"high_cv"``, ``"difficulty_bias"``, ``"stratum_gap"``. Empty when there are none.
    strata_bins : dict
        Stratum label -> inclusive ``(low, high)`` bounds on ``n_pos`` (``high`` may be inf).
    confidence_level : float
        Confidence level of every interval.
    n_resamples : int
        Bootstrap resamples (of queries) behind every interval.

    Examples
    --------
    {per_query_table}
    >>> from sklearn_ltr_metrics.stats import summarize
    >>> summary = summarize(table, n_resamples=200, random_state=0)
    >>> summary.overall[["metric", "macro", "cv"]].round(3)
      metric  macro     cv
    0    map   0.35  0.369
    >>> summary.strata_bins
    {'Low (3-10)': (3, 10), 'Medium (11-50)': (11, 50), 'High (51+)': (51, inf)}
    """

    overall: pd.DataFrame
    strata: pd.DataFrame
    difficulty: pd.DataFrame
    warnings: pd.DataFrame
    strata_bins: dict
    confidence_level: float
    n_resamples: int


def _cv(x):
    """std(ddof=1) / |mean| of finite ``x``; NaN for fewer than 2 values or a zero mean."""
    if x.shape[0] < 2:
        return float("nan")
    mean = x.mean()
    return float(x.std(ddof=1) / abs(mean)) if mean != 0 else float("nan")


def coefficient_of_variation(values):
    """Coefficient of variation across queries: ``std(x, ddof=1) / |mean(x)|``.

    NaN values (undefined queries) are dropped. The result is NaN when fewer than 2 values are
    left or the mean is 0. The methodology reads a value above 0.5 as a warning sign: the
    average hides very different per-query behaviour.

    Parameters
    ----------
    values : array-like of shape (n_queries,)
        Per-query values of one metric.

    Returns
    -------
    float
        The coefficient of variation, or NaN.

    Examples
    --------
    >>> round(coefficient_of_variation([0.2, 0.4, 0.6, float("nan")]), 3)
    0.5
    """
    x = float_values(values, "values")
    return _cv(x[~np.isnan(x)])


def _check_strata(strata):
    """Stratum label -> inclusive (low, high) bounds on n_pos."""
    if strata is None:
        return {}
    if isinstance(strata, str):
        if strata != "methodology":
            raise ValueError(
                f"strata={strata!r} is not a known set of strata; pass 'methodology' (the "
                "default), a sequence of n_pos upper bounds such as (10, 50), a dict "
                "label -> (low, high), or None."
            )
        return dict(METHODOLOGY_STRATA)
    if isinstance(strata, Mapping):
        bins = {}
        for label, bounds in strata.items():
            try:
                lo, hi = bounds
            except (TypeError, ValueError):
                raise TypeError(
                    f"strata[{label!r}] must be a (low, high) pair of n_pos bounds, got {bounds!r}."
                ) from None
            hi = np.inf if hi is None else hi
            if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in (lo, hi)):
                raise TypeError(f"strata[{label!r}] bounds must be numbers, got {bounds!r}.")
            if not 0 <= lo <= hi:
                raise ValueError(f"strata[{label!r}] needs 0 <= low <= high, got {bounds!r}.")
            bins[str(label)] = (lo, float(hi) if hi == np.inf else hi)
        ordered = sorted(bins.items(), key=lambda item: item[1][0])
        for (la, (_, ha)), (lb, (lob, _)) in itertools.pairwise(ordered):
            if lob <= ha:
                raise ValueError(f"strata {la!r} and {lb!r} overlap; each query has one stratum.")
        if not bins:
            raise ValueError("strata is empty; pass None for no strata.")
        return bins
    try:
        edges = list(strata)
    except TypeError:
        raise TypeError(
            f"strata must be a sequence of n_pos upper bounds such as (10, 50), a dict "
            f"label -> (low, high), or None; got {strata!r}."
        ) from None
    if not edges or not all(
        isinstance(e, numbers.Integral) and not isinstance(e, bool) for e in edges
    ):
        raise TypeError(f"strata must hold integer n_pos upper bounds, got {strata!r}.")
    if edges[0] < 1 or any(b <= a for a, b in itertools.pairwise(edges)):
        raise ValueError(f"strata bounds must be increasing integers >= 1, got {strata!r}.")
    lows = [1] + [int(e) + 1 for e in edges]
    highs = [int(e) for e in edges] + [np.inf]
    ranges = [f"{lo}-{hi}" for lo, hi in zip(lows[:-1], highs[:-1], strict=True)]
    ranges.append(f"{lows[-1]}+")
    names = {2: ["Low", "High"], 3: ["Low", "Medium", "High"]}.get(len(lows))
    labels = ranges if names is None else [f"{n} ({r})" for n, r in zip(names, ranges, strict=True)]
    return dict(zip(labels, zip(lows, highs, strict=True), strict=True))


def summarize(
    per_query,
    *,
    metrics=None,
    strata="methodology",
    n_resamples=1000,
    confidence_level=0.95,
    random_state=None,
    upper_bound=False,
):
    """Summarise one system's per-query table: means, intervals, strata, difficulty, warnings.

    Parameters
    ----------
    per_query : DataFrame
        The ``per_query`` table of ``evaluate`` (indexed by ``qid``) or of
        ``cross_validate_ranking`` (``fold`` and ``qid`` columns), with ``n_pos`` and
        ``n_neg`` (or ``n_docs``) columns. NaN in a metric column marks an undefined query:
        left out of every statistic and counted in ``n_skipped``.
    metrics : str or list of str, optional
        Metric columns. Default: every numeric column except ``n_docs, n_pos, n_neg, fold, qid``.
    strata : "methodology", sequence of int, dict or None, default="methodology"
        Strata on ``n_pos``. ``"methodology"``: the methodology's own,
        ``"Low (3-10)"``, ``"Medium (11-50)"``,
        ``"High (51+)"``. A sequence gives inclusive upper bounds from 1: ``(10, 50)`` means
        ``"Low (1-10)"``, ``"Medium (11-50)"``, ``"High (51+)"`` (one bound: ``"Low (1-10)"``,
        ``"High (11+)"``; three or more: labels such as ``"1-5"``, ``"21+"``). A dict maps a
        label to inclusive ``(low, high)`` bounds (``high`` may be None for open-ended).
        Queries with relevant documents in no stratum (1-2 relevant documents under the
        methodology's strata) are counted in a last row ``"outside the strata"``, present only
        when there are such queries. None: no strata.
    n_resamples : int, default=1000
        Bootstrap resamples (of queries) for every interval.
    confidence_level : float, default=0.95
        Coverage of every interval.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
        Seed; each metric and stratum gets its own stream (``SeedSequence.spawn``).
    upper_bound : bool, default=False
        The table is an upper bound (an oracle ranking by the true labels): a correlation of
        its values with difficulty is the metric's own ceiling, not a weakness of a ranker,
        so the ``difficulty_bias`` sign is not raised (the correlation is still reported).

    Returns
    -------
    Summary
        ``overall``: macro mean, weighted mean (by ``n_pos``), geometric mean
        (``exp(mean(log(max(x, 1e-5))))``, as gMAP), percentile bootstrap intervals of the
        macro and weighted means, ``std`` (``ddof=1``) and ``cv = std / |macro|``.
        ``strata``: per stratum, the number of defined queries, the macro mean and its interval
        (NaN interval with fewer than 2 queries, no warning). ``difficulty``: Spearman rho with
        ``n_neg / n_pos`` (see :func:`difficulty_correlation`). ``warnings``: the warning signs
        ``high_cv`` (cv > 0.5), ``difficulty_bias`` (rho < 0 and p < 0.05, never for an
        ``upper_bound``) and ``stratum_gap``
        (largest minus smallest mean among strata with >= 2 queries above 0.2).

    Warns
    -----
    RuntimeWarning
        Once, naming the metrics with fewer than 2 defined queries (their intervals, std and
        cv are NaN).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame(
    ...     {"n_pos": [1, 4, 5, 20, 30, 60], "n_neg": [50, 40, 30, 20, 10, 5],
    ...      "map": [0.1, 0.2, 0.3, 0.5, 0.6, 0.9]},
    ...     index=pd.Index([1, 2, 3, 4, 5, 6], name="qid"))
    >>> summary = summarize(table, n_resamples=200, random_state=0)
    >>> summary.overall[["metric", "n_queries", "macro", "weighted", "cv"]].round(3)
      metric  n_queries  macro  weighted     cv
    0    map          6  0.433     0.703  0.679
    >>> summary.strata[["stratum", "n_queries", "mean"]].round(3)
                  stratum  n_queries  mean
    0          Low (3-10)          2  0.25
    1      Medium (11-50)          2  0.55
    2          High (51+)          1  0.90
    3  outside the strata          1  0.10
    >>> summarize(table, strata=(10, 50), n_resamples=200).strata["stratum"].tolist()
    ['Low (1-10)', 'Medium (11-50)', 'High (51+)']
    >>> summary.warnings["kind"].tolist()
    ['high_cv', 'difficulty_bias', 'stratum_gap']
    """
    df = keyed_table(per_query, "per_query")
    metrics = metric_columns(df, metrics, "per_query")
    bins = _check_strata(strata)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    confidence_level = check_probability(confidence_level, "confidence_level")
    if not isinstance(upper_bound, (bool, np.bool_)):
        raise TypeError(f"upper_bound must be True or False, got {upper_bound!r}.")
    seeds = check_seed_sequence(random_state)
    n_pos, n_neg = count_values(df, "per_query")

    overall, strata_rows, difficulty, signs, too_few = [], [], [], [], []
    for metric, seed in zip(metrics, seeds.spawn(len(metrics)), strict=True):
        rngs = [np.random.default_rng(s) for s in seed.spawn(3 + len(bins))]
        x_all = metric_values(df, metric)
        defined = ~np.isnan(x_all)
        x, w = x_all[defined], n_pos[defined]
        if x.shape[0] < 2:
            too_few.append(metric)
        skipped = int((~defined).sum())
        row = _overall_row(metric, x, w, skipped, rngs[:2], n_resamples, confidence_level)
        overall.append(row)
        rows, means = _strata_rows(metric, x, w, bins, rngs[2:], n_resamples, confidence_level)
        strata_rows += rows
        rho, pvalue, n_diff, _ = _difficulty(x_all, n_pos, n_neg)
        difficulty.append((metric, rho, pvalue, n_diff))
        signs += _warning_signs(metric, row[-1], rho, pvalue, means, upper_bound)
    if too_few:
        _warn(
            f"Fewer than 2 defined queries for {', '.join(map(repr, too_few))}: intervals, std "
            "and cv are NaN."
        )
    return Summary(
        overall=pd.DataFrame(overall, columns=_OVERALL_COLUMNS),
        strata=pd.DataFrame(strata_rows, columns=_STRATA_COLUMNS),
        difficulty=pd.DataFrame(difficulty, columns=_DIFFICULTY_COLUMNS),
        warnings=pd.DataFrame(signs, columns=_WARNING_COLUMNS).astype({"value": np.float64}),
        strata_bins=bins,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
    )


def _overall_row(metric, x, w, n_skipped, rngs, n_resamples, confidence_level):
    """One metric's row of ``Summary.overall`` from its defined values and their n_pos."""
    n = int(x.shape[0])
    macro = float(x.mean()) if n else float("nan")
    weighted = float(np.dot(w, x) / w.sum()) if w.sum() > 0 else float("nan")
    geometric = float(np.exp(np.log(np.maximum(x, GEOMETRIC_FLOOR)).mean())) if n else np.nan
    std = float(x.std(ddof=1)) if n >= 2 else float("nan")
    ci = _ci(x, None, n_resamples, confidence_level, "percentile", rngs[0])
    wci = _ci(x, w, n_resamples, confidence_level, "percentile", rngs[1])
    return (metric, n, n_skipped, macro, weighted, geometric, *ci, *wci, std, _cv(x))


def _strata_rows(metric, x, w, bins, rngs, n_resamples, confidence_level):
    """(rows of ``Summary.strata``, stratum -> mean of the strata large enough for a gap)."""
    rows, means = [], {}
    for (label, (lo, hi)), rng in zip(bins.items(), rngs[: len(bins)], strict=True):
        xs = x[(w >= lo) & (w <= hi)]
        mean = float(xs.mean()) if xs.size else float("nan")
        low, high = _ci(xs, None, n_resamples, confidence_level, "percentile", rng)
        rows.append((metric, label, int(xs.size), mean, low, high))
        if xs.size >= MIN_STRATUM_QUERIES:
            means[label] = mean
    inside = np.zeros(w.shape[0], dtype=bool)
    for lo, hi in bins.values():
        inside |= (w >= lo) & (w <= hi)
    outside = x[~inside & (w > 0)]
    if bins and outside.size:
        low, high = _ci(outside, None, n_resamples, confidence_level, "percentile", rngs[-1])
        rows.append((metric, OUTSIDE_STRATA, int(outside.size), float(outside.mean()), low, high))
    return rows, means


def _warning_signs(metric, cv, rho, pvalue, means, upper_bound):
    """The methodology's warning signs of one metric, as ``(metric, kind, message, value)``."""
    signs = []
    if cv > CV_THRESHOLD:
        signs.append(
            (
                metric,
                "high_cv",
                f"{metric}: coefficient of variation {cv:.2f} > {CV_THRESHOLD}; the mean "
                "hides very different per-query behaviour.",
                cv,
            )
        )
    if rho < 0 and pvalue < DIFFICULTY_ALPHA and not upper_bound:
        signs.append(
            (
                metric,
                "difficulty_bias",
                f"{metric}: Spearman rho {rho:.2f} with difficulty n_neg/n_pos "
                f"(p={pvalue:.3g}); the metric drops on hard queries.",
                rho,
            )
        )
    if len(means) >= 2:
        hi_label, lo_label = max(means, key=means.get), min(means, key=means.get)
        gap = means[hi_label] - means[lo_label]
        if gap > STRATUM_GAP_THRESHOLD:
            signs.append(
                (
                    metric,
                    "stratum_gap",
                    f"{metric}: stratum {hi_label!r} mean {means[hi_label]:.2f} vs "
                    f"{lo_label!r} {means[lo_label]:.2f} (gap {gap:.2f} > "
                    f"{STRATUM_GAP_THRESHOLD}).",
                    gap,
                )
            )
    return signs
