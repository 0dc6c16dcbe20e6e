"""Query difficulty: the data's characteristics, correlations and metric by difficulty range.

Difficulty is ``n_neg / n_pos`` (non-relevant per relevant document, :mod:`.._table`): the
higher, the harder a query is to rank well. Everything here reads per-query tables through
``_table`` and returns tidy DataFrames or small result objects.
"""

from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._table import (
    count_values,
    difficulty_values,
    keyed_table,
    metric_columns,
    metric_values,
)
from ._stats import stats_doc

__all__ = [
    "CHARACTERISTICS_COLUMNS",
    "DIFFICULTY_RANGE_COLUMNS",
    "EXACT_SPEARMAN_MAX_N",
    "DifficultyCorrelation",
    "data_characteristics",
    "difficulty_correlation",
    "difficulty_ranges",
    "format_imbalance",
]

#: Up to this many queries the difficulty correlation's p-value is exact (all n! pairings).
EXACT_SPEARMAN_MAX_N = 8
#: Default edges of the difficulty ranges: [0, 1), [1, 10), [10, 100), [100, 1000), 1000+.
DIFFICULTY_EDGES = (1, 10, 100, 1000)

CHARACTERISTICS_COLUMNS = ["quantity", "n_queries", "min", "max", "median", "mean", "std"]
DIFFICULTY_RANGE_COLUMNS = ["metric", "range", "low", "high", "n_queries", "mean"]


@stats_doc
@dataclass(frozen=True)
class DifficultyCorrelation:
    """Spearman correlation of a metric with query difficulty ``n_neg / n_pos``.

    ``n`` queries took part (metric defined and ``n_pos > 0``); ``spearman_rho`` and
    ``pvalue`` are NaN when fewer than 3 did or either side is constant. ``exact`` says
    whether the p-value is exact (every pairing enumerated, ``n <= 8``) or the t
    approximation of :func:`scipy.stats.spearmanr`.

    Examples
    --------
    {per_query_table}
    >>> from sklearn_ltr_metrics.stats import difficulty_correlation
    >>> result = difficulty_correlation(table, "map")
    >>> result.metric, round(result.spearman_rho, 3), result.n, result.exact
    ('map', -0.8, 4, True)
    """

    metric: str
    spearman_rho: float
    pvalue: float
    n: int
    exact: bool = False


def _ranks(values):
    return stats.rankdata(values, axis=-1)


def _rho(rx, ry):
    """Pearson correlation of rank vectors (rows of ``ry`` may be many permutations)."""
    cx = rx - rx.mean()
    cy = ry - ry.mean(axis=-1, keepdims=True)
    return (cy @ cx) / np.sqrt((cx @ cx) * (cy * cy).sum(axis=-1))


def _exact_spearman_pvalue(x, y):
    """Two-sided p-value of Spearman's rho over all ``n!`` pairings of ``x`` with ``y``."""
    rx, ry = _ranks(x), _ranks(y)
    observed = abs(_rho(rx, ry[None, :])[0])
    perms = np.array(list(itertools.permutations(range(x.shape[0]))), dtype=np.intp)
    null = np.abs(_rho(rx, ry[perms]))
    # The same relative tolerance as scipy.stats.permutation_test: ties of the statistic count.
    gamma = abs(np.finfo(np.float64).eps * 100 * observed)
    return float(np.count_nonzero(null >= observed - gamma) / null.size)


def _difficulty(x, n_pos, n_neg):
    """(rho, pvalue, n, exact) of Spearman(x, n_neg / n_pos) over defined x and n_pos > 0."""
    keep = ~np.isnan(x) & (n_pos > 0)
    n = int(keep.sum())
    x, diff = x[keep], n_neg[keep] / n_pos[keep]
    if n < 3 or np.ptp(x) == 0 or np.ptp(diff) == 0:
        return float("nan"), float("nan"), n, False
    rho = float(stats.spearmanr(x, diff).statistic)
    if n <= EXACT_SPEARMAN_MAX_N:
        return rho, _exact_spearman_pvalue(x, diff), n, True
    return rho, float(stats.spearmanr(x, diff).pvalue), n, False


@stats_doc
def difficulty_correlation(per_query, metric):
    """Spearman correlation of a metric with difficulty ``n_neg / n_pos`` across queries.

    Parameters
    ----------
    per_query : DataFrame
        Per-query table with ``n_pos`` and ``n_neg`` (or ``n_docs``) columns.
    metric : str
        Metric column.

    Returns
    -------
    DifficultyCorrelation
        ``spearman_rho`` as :func:`scipy.stats.spearmanr` gives it over queries with a defined
        value and ``n_pos > 0``, and their number ``n``. The two-sided p-value is exact for
        up to 8 queries (the share of the ``n!`` pairings of the two columns whose
        ``|rho|`` is at least the observed one: 3 queries in reversed order give 1/3, not
        the 0 of the t approximation) and :func:`scipy.stats.spearmanr`'s t approximation
        above. NaN (no warning) when fewer than 3 queries remain or either side is constant.
        A significantly negative rho is a warning sign: the metric favours easy queries.

    Examples
    --------
    {per_query_table}
    >>> difficulty_correlation(table, "map").spearman_rho
    -0.8
    >>> three = pd.DataFrame({"n_pos": [1, 2, 4], "n_neg": [8, 8, 8], "map": [0.1, 0.5, 0.9]})
    >>> result = difficulty_correlation(three, "map")
    >>> result.spearman_rho, round(result.pvalue, 4), result.exact
    (-1.0, 0.3333, True)
    """
    df = keyed_table(per_query, "per_query")
    if not isinstance(metric, str):
        raise TypeError(f"metric must be a column name (str), got {metric!r}.")
    metric_columns(df, [metric], "per_query")
    n_pos, n_neg = count_values(df, "per_query")
    rho, pvalue, n, exact = _difficulty(metric_values(df, metric), n_pos, n_neg)
    return DifficultyCorrelation(metric=metric, spearman_rho=rho, pvalue=pvalue, n=n, exact=exact)


def _describe(name, values):
    if values.size == 0:
        return (name, 0, *([float("nan")] * 5))
    std = float(values.std(ddof=1)) if values.size >= 2 else float("nan")
    return (
        name,
        int(values.size),
        float(values.min()),
        float(values.max()),
        float(np.median(values)),
        float(values.mean()),
        std,
    )


def format_imbalance(ratio, *, decimals=None):
    """The imbalance ratio ``n_neg / n_pos`` as the methodology prints it: ``"1:N"``.

    Parameters
    ----------
    ratio : float
        Non-relevant documents per relevant one (the difficulty, e.g. the ``n_neg/n_pos`` row
        of :func:`data_characteristics`).
    decimals : int, optional
        Decimals of ``N``. None: none from 10 up, else up to 2 (trailing zeros dropped).

    Returns
    -------
    str
        ``"1:1655"``, ``"1:4.25"``; ``"n/a"`` for NaN (no relevant document).

    Examples
    --------
    >>> format_imbalance(4963 / 3), format_imbalance(510 / 120), format_imbalance(2.0)
    ('1:1654', '1:4.25', '1:2')
    >>> format_imbalance(1654.33, decimals=1)
    '1:1654.3'
    """
    if isinstance(ratio, bool) or not isinstance(ratio, numbers.Real):
        raise TypeError(f"ratio must be a number (n_neg / n_pos), got {ratio!r}.")
    if decimals is not None and (
        isinstance(decimals, bool) or not isinstance(decimals, numbers.Integral) or decimals < 0
    ):
        raise ValueError(f"decimals must be None or an integer >= 0, got {decimals!r}.")
    value = float(ratio)
    if math.isnan(value):
        return "n/a"
    if value < 0:
        raise ValueError(f"ratio must be >= 0 (n_neg / n_pos), got {ratio!r}.")
    if decimals is None:
        text = f"{value:.0f}" if value >= 10 else f"{value:.2f}".rstrip("0").rstrip(".")
    else:
        text = f"{value:.{decimals}f}"
    return f"1:{text}"


def data_characteristics(per_query):
    """The data-characteristics table: how many relevant and other documents queries have.

    Parameters
    ----------
    per_query : DataFrame or evaluation
        A per-query table with ``n_pos`` and ``n_neg`` (or ``n_docs``) columns: the
        ``per_query`` of ``evaluate`` or of ``cross_validate_ranking`` (one row per query and
        fold), or an evaluation.

    Returns
    -------
    DataFrame
        One row per quantity: ``n_pos`` (relevant documents), ``n_neg`` (the others),
        ``total`` (``n_pos + n_neg``) and ``n_neg/n_pos`` (difficulty, over queries with
        ``n_pos > 0``), with columns ``quantity, n_queries, min, max, median, mean, std``
        (``std`` with ``ddof=1``, NaN for fewer than 2 queries). :func:`format_imbalance`
        prints the ``n_neg/n_pos`` values as the methodology's imbalance ratio ``"1:N"``.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"n_pos": [1, 5, 20, 0], "n_neg": [99, 95, 180, 50]})
    >>> data_characteristics(table)[["quantity", "min", "max", "median", "mean"]].round(2)
          quantity  min    max  median   mean
    0        n_pos  0.0   20.0     3.0   6.50
    1        n_neg  50.0  180.0    97.0  106.00
    2        total  50.0  200.0   100.0  112.50
    3  n_neg/n_pos  9.0   99.0    19.0  42.33
    >>> ratio = data_characteristics(table).set_index("quantity").loc["n_neg/n_pos", "median"]
    >>> format_imbalance(ratio)
    '1:19'
    """
    df = keyed_table(getattr(per_query, "per_query", per_query), "per_query")
    n_pos, n_neg = count_values(df, "per_query")
    difficulty = difficulty_values(n_pos, n_neg)
    rows = [
        _describe("n_pos", n_pos),
        _describe("n_neg", n_neg),
        _describe("total", n_pos + n_neg),
        _describe("n_neg/n_pos", difficulty[~np.isnan(difficulty)]),
    ]
    table = pd.DataFrame(rows, columns=CHARACTERISTICS_COLUMNS)
    return table.astype({"n_queries": np.int64})


def _check_edges(bins):
    try:
        edges = [float(e) for e in bins]
    except (TypeError, ValueError):
        raise TypeError(
            f"bins must be a sequence of increasing positive numbers (difficulty edges such "
            f"as (1, 10, 100, 1000)), got {bins!r}."
        ) from None
    if any(isinstance(e, bool) or not isinstance(e, numbers.Real) for e in bins):
        raise TypeError(f"bins must hold numbers, got {bins!r}.")
    if (
        not edges
        or any(not math.isfinite(e) or e <= 0 for e in edges)
        or any(b <= a for a, b in itertools.pairwise(edges))
    ):
        raise ValueError(
            f"bins must be increasing, finite, positive difficulty edges, got {bins!r}; "
            "e.g. bins=(1, 10, 100, 1000)."
        )
    return [0.0, *edges, math.inf]


def _range_label(low, high):
    fmt = "{:g}".format
    if low == 0:
        return f"< {fmt(high)}"
    if math.isinf(high):
        return f">= {fmt(low)}"
    return f"{fmt(low)}-{fmt(high)}"


def difficulty_ranges(per_query, *, metrics=None, bins=DIFFICULTY_EDGES):
    """Mean metric by range of difficulty ``n_neg / n_pos``: the struggling query ranges.

    A worst-10 list names single queries; this table shows which *kind* of query a system
    struggles with: queries are put in ranges of difficulty and each range gets its number
    of queries and the mean of each metric.

    Parameters
    ----------
    per_query : DataFrame or evaluation
        A per-query table with ``n_pos`` and ``n_neg`` (or ``n_docs``) columns.
    metrics : str or list of str, optional
        Metric columns; default every metric column.
    bins : sequence of float, default=(1, 10, 100, 1000)
        Increasing edges; the ranges are ``[0, e1)``, ``[e1, e2)``, ..., ``[e_last, inf)``.
        Queries with ``n_pos == 0`` (no difficulty) are left out.

    Returns
    -------
    DataFrame
        One row per (metric, non-empty range), ranges from easiest to hardest, with columns
        ``metric, range, low, high, n_queries, mean`` (``n_queries``: queries of the range
        where the metric is defined; ``low`` inclusive, ``high`` exclusive).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"n_pos": [10, 5, 2, 1], "n_neg": [5, 20, 60, 500],
    ...                       "map": [0.9, 0.7, 0.5, 0.1]})
    >>> difficulty_ranges(table)[["range", "n_queries", "mean"]]
          range  n_queries  mean
    0       < 1          1   0.9
    1      1-10          1   0.7
    2    10-100          1   0.5
    3  100-1000          1   0.1
    """
    df = keyed_table(getattr(per_query, "per_query", per_query), "per_query")
    metrics = metric_columns(df, metrics, "per_query")
    edges = _check_edges(bins)
    n_pos, n_neg = count_values(df, "per_query")
    difficulty = difficulty_values(n_pos, n_neg)
    which = np.searchsorted(edges, difficulty, side="right") - 1  # NaN lands past the end
    rows = []
    for metric in metrics:
        x = metric_values(df, metric)
        for i, (low, high) in enumerate(itertools.pairwise(edges)):
            values = x[(which == i) & ~np.isnan(difficulty)]
            values = values[~np.isnan(values)]
            if values.size:
                rows.append(
                    (metric, _range_label(low, high), low, high, int(values.size), values.mean())
                )
    return pd.DataFrame(rows, columns=DIFFICULTY_RANGE_COLUMNS).astype(
        {"low": np.float64, "high": np.float64, "n_queries": np.int64, "mean": np.float64}
    )
