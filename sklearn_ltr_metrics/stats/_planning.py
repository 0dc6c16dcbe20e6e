"""Planning a study: how many queries a paired comparison needs, and what it can detect.

Topic set size design for the paired t-test (Sakai, "Topic set size design", Information
Retrieval Journal 19(3), 2016, section 3; the noncentral-t power of Cohen, *Statistical Power
Analysis for the Behavioral Sciences*, 1988): with ``sigma_d`` the standard deviation of the
per-query differences between two systems, a two-sided paired t-test at level ``alpha`` on
``n`` queries rejects a true mean difference ``delta`` with probability

    power(n, delta) = P(|T'| >= t_{1 - alpha/2, n - 1}),  T' ~ noncentral t(df = n - 1,
                                                          nc = sqrt(n) * delta / sigma_d).

``required_queries`` is the smallest ``n >= 2`` with ``power(n, min_diff) >= power``;
``detectable_difference`` the ``delta`` with ``power(n, delta) = power``. ``sigma_d`` is
estimated from a pilot: ``2 * s_E**2`` with ``s_E**2`` the residual variance of the two-way
(query x system) ANOVA without replication over two or more systems (for two systems exactly
the variance of the differences), or ``2 * s**2`` from one system's variance (two
uncorrelated systems; positively correlated systems, the usual case, need fewer queries).
The sign-flip permutation test on the mean difference has the t-test's power asymptotically
(Lehmann & Romano, *Testing Statistical Hypotheses*, 15.2), so ``test="permutation"`` plans
with the same formula; the tests check both by simulation.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from scipy import optimize, stats

from .._table import named_systems
from .._validation import check_choice, check_positive_int, check_probability
from ._pairs import aligned_tables
from ._stats import stats_doc

__all__ = ["detectable_difference", "paired_power", "required_queries"]

_PLANNED_TESTS = ("t", "permutation")
#: Largest number of queries ``required_queries`` searches (a tiny difference asks for more).
MAX_QUERIES = 10**7


def _power(n, delta, sd, alpha):
    """Two-sided paired t-test power on ``n`` queries (noncentral t), vectorised over n."""
    n = np.asarray(n, dtype=np.float64)
    df = n - 1
    crit = stats.t.ppf(1 - alpha / 2, df)
    nc = np.sqrt(n) * abs(delta) / sd
    # P(T' <= -crit | nc) written as P(T' >= crit | -nc): scipy's nct.cdf far in the lower
    # tail can return NaN (e.g. df=79, nc=sqrt(80)), its sf there does not.
    return stats.nct.sf(crit, df, nc) + stats.nct.sf(crit, df, -nc)


def _pilot_sd(per_query, metric):
    """(sigma_d estimate, number of queries) of a pilot: one system's table or several."""
    systems = named_systems(per_query, "per_query")
    tables, metrics, keys = aligned_tables(
        systems, next(iter(systems)), metric, "error", "per_query"
    )
    if len(metrics) != 1:
        raise ValueError(
            f"metric must name one metric column; the pilot has {metrics!r}: pass metric=..."
        )
    values = pd.DataFrame({s: tables[s][metrics[0]].reindex(keys) for s in tables}).dropna()
    n, k = values.shape
    if n < 3:
        raise ValueError(
            f"The pilot has {n} queries with a {metrics[0]!r} value for every system; at least "
            "3 are needed to estimate the variance of the differences."
        )
    x = values.to_numpy(dtype=np.float64)
    if k == 1:
        variance = 2.0 * x[:, 0].var(ddof=1)
    else:  # residual of the two-way ANOVA without replication (Sakai's V_E)
        resid = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0) + x.mean()
        variance = 2.0 * (resid**2).sum() / ((n - 1) * (k - 1))
    if not variance > 0:
        raise ValueError(
            f"The pilot's {metrics[0]!r} differences have zero variance; any difference is "
            "detected with 2 queries and no planning is needed."
        )
    return float(np.sqrt(variance)), n


def _check_plan(metric, alpha, power, test):
    if metric is not None and not isinstance(metric, str):
        raise TypeError(f"metric must be one metric column name or None, got {metric!r}.")
    alpha = check_probability(alpha, "alpha")
    power = check_probability(power, "power")
    if power <= alpha:
        raise ValueError(f"power must be above alpha ({alpha!r}), got {power!r}.")
    return alpha, power, check_choice(test, "test", _PLANNED_TESTS)


def paired_power(n_queries, difference, sd, *, alpha=0.05):
    """Power of a two-sided paired t-test on ``n_queries`` queries (noncentral t).

    Parameters
    ----------
    n_queries : int
        Number of queries (>= 2).
    difference : float
        The true mean difference between the two systems.
    sd : float
        Standard deviation of the per-query differences (> 0).
    alpha : float, default=0.05
        Significance level.

    Returns
    -------
    float
        The probability that the test rejects.

    Examples
    --------
    >>> round(paired_power(50, 0.02, 0.05), 3)  # effect 0.4 sd: the normal approximation says 0.81
    0.792
    """
    n = check_positive_int(n_queries, "n_queries")
    if n < 2:
        raise ValueError(f"n_queries must be at least 2, got {n_queries!r}.")
    for name, value in (("difference", difference), ("sd", sd)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
            raise TypeError(f"{name} must be a finite real number, got {value!r}.")
    if not sd > 0:
        raise ValueError(f"sd must be above 0, got {sd!r}.")
    return float(_power(n, difference, sd, check_probability(alpha, "alpha")))


@stats_doc
def required_queries(per_query, metric=None, *, min_diff, alpha=0.05, power=0.8, test="t"):
    """Queries needed to detect a mean difference ``min_diff`` (topic set size design).

    Parameters
    ----------
    per_query : DataFrame or mapping of str to DataFrame
        The pilot: one system's per-query table (``evaluate(...).per_query``), or system
        name -> table for two or more systems on the same queries (queries where a system
        has no value are left out).
    metric : str, optional
        The metric column; may be left out when the pilot has one metric column.
    min_diff : float
        The smallest mean difference worth detecting (> 0), in the metric's units.
    alpha : float, default=0.05
        Level of the two-sided test.
    power : float, default=0.8
        Wanted probability of detecting ``min_diff`` (above ``alpha``).
    test : {"t", "permutation"}, default="t"
        The paired test planned for; both use the paired t-test's power (see
        :doc:`/methodology`, "Planning a study").

    Returns
    -------
    int
        The smallest ``n`` whose power reaches ``power``, with ``sigma_d`` from the pilot:
        ``sqrt(2 V_E)`` (residual variance of the query x system ANOVA) for two or more
        systems, ``sqrt(2) s`` for one.

    Examples
    --------
    {pilot_example}
    >>> required_queries(pilot, "ndcg@10", min_diff=0.02)
    53
    """
    alpha, power, test = _check_plan(metric, alpha, power, test)
    if isinstance(min_diff, bool) or not isinstance(min_diff, numbers.Real) or not min_diff > 0:
        raise ValueError(f"min_diff must be a number above 0, got {min_diff!r}.")
    sd, _ = _pilot_sd(per_query, metric)
    # Sakai's normal approximation as the start, then the exact noncentral-t search.
    z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)
    n = max(2, int(np.floor((z * sd / min_diff) ** 2 + stats.norm.ppf(1 - alpha / 2) ** 2 / 2)))
    if n > MAX_QUERIES:
        raise ValueError(
            f"Detecting {min_diff!r} needs more than {MAX_QUERIES} queries (sigma_d={sd:.4g}); "
            "ask for a larger min_diff."
        )
    while n > 2 and _power(n - 1, min_diff, sd, alpha) >= power:
        n -= 1
    while _power(n, min_diff, sd, alpha) < power:
        n += 1
    return int(n)


@stats_doc
def detectable_difference(
    per_query, metric=None, *, n_queries=None, alpha=0.05, power=0.8, test="t"
):
    """The smallest mean difference a study detects with probability ``power``.

    Parameters
    ----------
    per_query : DataFrame or mapping of str to DataFrame
        The pilot, as in :func:`required_queries`.
    metric : str, optional
        The metric column; may be left out when the pilot has one metric column.
    n_queries : int, optional
        Queries of the planned study; default the pilot's (its queries with every value).
    alpha : float, default=0.05
        Level of the two-sided test.
    power : float, default=0.8
        Wanted probability of detecting the difference.
    test : {"t", "permutation"}, default="t"
        The paired test planned for (see :func:`required_queries`).

    Returns
    -------
    float
        ``delta`` with ``power(n_queries, delta) = power``: smaller true differences are
        detected less often than ``power``.

    Examples
    --------
    {pilot_example}
    >>> round(detectable_difference(pilot, "ndcg@10"), 4)  # with the pilot's 60 queries
    0.0187
    >>> round(detectable_difference(pilot, "ndcg@10", n_queries=53), 4)
    0.02
    """
    alpha, power, test = _check_plan(metric, alpha, power, test)
    sd, n = _pilot_sd(per_query, metric)
    if n_queries is not None:
        n = check_positive_int(n_queries, "n_queries")
        if n < 2:
            raise ValueError(f"n_queries must be at least 2, got {n_queries!r}.")
    high = sd
    while _power(n, high, sd, alpha) < power:
        high *= 2.0
    return float(optimize.brentq(lambda d: _power(n, d, sd, alpha) - power, 0.0, high, xtol=1e-12))
