"""Statistics on per-query tables: bootstrap intervals, paired tests, effect sizes, corrections.

Every function here works on *per-query* values (one number per query, as in the per-query
table of :func:`evaluate` or of :func:`cross_validate_ranking`), so resampling and pairing are
always over queries, never over rows. The summary of one system (means, strata, difficulty) lives
in ``_summary.py``, effect sizes and corrections in ``_effects.py``, and the comparison of
several systems' tables in ``_pairs.py`` (the one paired-comparison core) with its faces
``_compare.py`` and ``_stages.py``; they build on the kernels of this module.

Conventions shared by every function:

- NaN marks a query for which a metric is undefined (for example no relevant document); it is
  dropped before any statistic (for paired inputs the whole pair is dropped) and counted.
- Randomness comes only from ``random_state``, under the package's one policy
  (``sklearn_ltr_metrics._random``): ``None``, a non-negative int, a
  :class:`numpy.random.Generator` or a :class:`numpy.random.RandomState`. Runs with the same
  int are identical. Functions that need several independent streams spawn them from one
  :class:`numpy.random.SeedSequence`.
- Paired differences with ``|a - b| <= TIE_TOLERANCE`` (1e-12) are float rounding: ties.
- Fewer than 2 usable values make an interval or a test undefined: the result is NaN and a
  ``RuntimeWarning`` says why. Nothing else here emits warnings.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special, stats

from .._doc_link import doc_parts
from .._random import check_random_state
from .._validation import (
    check_choice,
    check_positive_int,
    check_probability,
    float_values,
    unknown_name_error,
)

__all__ = [
    "PairedTestResult",
    "bootstrap_ci",
    "paired_test",
    "paired_test_names",
]

#: Fill a docstring's line ``{per_query_table}`` (the per-query table of the examples: four
#: queries of 1 to 8 relevant documents and their ``map``), ``{systems_example}`` (the
#: baseline's values on 40 queries the comparisons' examples build systems from) or
#: ``{pilot_example}`` (the pilot the planning examples start from: two systems, 60 queries),
#: written once.
stats_doc = doc_parts(
    {
        "per_query_table": """\
>>> import pandas as pd
>>> table = pd.DataFrame({"n_pos": [1, 2, 4, 8], "n_neg": [20, 20, 20, 20],
...                       "map": [0.2, 0.3, 0.5, 0.4]})""",
        "systems_example": """\
>>> import numpy as np, pandas as pd
>>> rng = np.random.default_rng(0)
>>> qid = pd.Index(range(40), name="qid")
>>> base = rng.uniform(0.2, 0.6, 40)""",
        "pilot_example": """\
>>> import numpy as np, pandas as pd
>>> rng = np.random.default_rng(0)
>>> base = rng.uniform(0.2, 0.8, 60)
>>> pilot = {"bm25": pd.DataFrame({"ndcg@10": base}),
...          "ltr": pd.DataFrame({"ndcg@10": base + rng.normal(0.01, 0.05, 60)})}""",
    }
)

#: Number of queries up to which the permutation test enumerates all 2**n sign flips.
EXACT_PERMUTATION_MAX_N = 16

#: Per-query differences ``|a - b|`` up to this are float rounding (e.g. 1e-16 from expected
#: values over ties): they count as ties, and every test sees an exact zero.
TIE_TOLERANCE = 1e-12

# Entries (resamples x queries) drawn at once: about 2 MB of indices per chunk, small enough to
# stay in cache (faster than larger chunks) and to bound memory for any number of queries.
_CHUNK_ENTRIES = 1 << 18

_ALTERNATIVES = ("two-sided", "greater", "less")
_CI_METHODS = ("percentile", "bca")


# --------------------------------------------------------------------------------------------
# Shared input handling
# --------------------------------------------------------------------------------------------


def _warn(message):
    warnings.warn(message, RuntimeWarning, stacklevel=3)


# --------------------------------------------------------------------------------------------
# Bootstrap
# --------------------------------------------------------------------------------------------


def _bootstrap_means(x, w, n_resamples, rng):
    """Means (weighted when ``w`` is given) of ``n_resamples`` query resamples of ``x``.

    Vectorised: each chunk draws a (resamples, n) index matrix and averages its rows. A
    resample whose weights sum to 0 has an undefined weighted mean (NaN).
    """
    n = x.shape[0]
    out = np.empty(n_resamples)
    chunk = max(1, _CHUNK_ENTRIES // n)
    wx = None if w is None else w * x
    for start in range(0, n_resamples, chunk):
        stop = min(start + chunk, n_resamples)
        idx = rng.integers(0, n, size=(stop - start, n))
        if w is None:
            out[start:stop] = x[idx].mean(axis=1)
        else:
            den = w[idx].sum(axis=1)
            num = wx[idx].sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[start:stop] = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return out


def _weighted_mean(x, w):
    if w is None:
        return float(np.mean(x))
    total = w.sum()
    return float(np.dot(w, x) / total) if total > 0 else float("nan")


def _bca_levels(x, w, dist, alpha):
    """BCa quantile levels (Efron & Tibshirani 14.3), as ``scipy.stats.bootstrap`` computes them."""
    theta = _weighted_mean(x, w)
    z0 = special.ndtri(((dist < theta).sum() + (dist <= theta).sum()) / (2.0 * dist.size))
    # Jackknife estimates of the (weighted) mean without each query, in closed form.
    n = x.shape[0]
    if w is None:
        jack = (x.sum() - x) / (n - 1)
    else:
        rest = w.sum() - w
        with np.errstate(invalid="ignore", divide="ignore"):
            jack = (np.dot(w, x) - w * x) / rest
    u = jack.mean() - jack
    den = np.sum(u**2)
    accel = np.sum(u**3) / (6.0 * den**1.5) if den > 0 else 0.0
    z = special.ndtri(np.array([alpha / 2, 1 - alpha / 2]))
    levels = special.ndtr(z0 + (z0 + z) / (1 - accel * (z0 + z)))
    return levels


def _ci(x, w, n_resamples, confidence_level, method, rng):
    """Interval of the (weighted) mean of finite ``x``; trusts its inputs, never warns.

    Returns (nan, nan) for fewer than 2 values and (c, c) for constant values.
    """
    if x.shape[0] < 2:
        return (float("nan"), float("nan"))
    if np.ptp(x) == 0:
        return (float(x[0]), float(x[0]))
    dist = _bootstrap_means(x, w, n_resamples, rng)
    dist = dist[~np.isnan(dist)]
    if dist.size == 0:
        return (float("nan"), float("nan"))
    alpha = 1.0 - confidence_level
    if method == "bca":
        levels = _bca_levels(x, w, dist, alpha)
        if not np.all(np.isfinite(levels)):
            return (float("nan"), float("nan"))
    else:
        levels = np.array([alpha / 2, 1 - alpha / 2])
    low, high = np.quantile(dist, levels)
    return (float(low), float(high))


def bootstrap_ci(
    values,
    *,
    weights=None,
    n_resamples=1000,
    confidence_level=0.95,
    method="percentile",
    random_state=None,
):
    """Bootstrap confidence interval of the (weighted) mean of per-query values.

    Queries are resampled with replacement (one value per query, never rows), the mean of each
    resample is computed with matrix operations in memory-bounded chunks, and the interval is
    read from the quantiles of those means.

    Parameters
    ----------
    values : array-like of shape (n_queries,)
        One value per query, e.g. a metric column of a per-query table. NaN marks an undefined
        query and is dropped (with its weight) before resampling. Infinite values are an error.
    weights : array-like of shape (n_queries,), optional
        Non-negative weight per query (e.g. ``n_pos`` for the weighted mean). A resample whose
        weights sum to 0 has no mean and is left out of the quantiles.
    n_resamples : int, default=1000
        Number of bootstrap resamples (>= 1).
    confidence_level : float, default=0.95
        Coverage of the interval, in (0, 1).
    method : {"percentile", "bca"}, default="percentile"
        ``"percentile"`` reads the alpha/2 and 1 - alpha/2 quantiles of the resampled means
        (the methodology's method, as ``scipy.stats.bootstrap(method="percentile")``);
        ``"bca"`` applies the bias-corrected and accelerated levels (Efron & Tibshirani),
        with the jackknife acceleration computed in closed form.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
        Seed of the resampling; the same int gives the same interval.

    Returns
    -------
    (low, high) : tuple of float
        The interval. ``(c, c)`` when every value equals ``c``. ``(nan, nan)`` with a
        ``RuntimeWarning`` when fewer than 2 values are left after dropping NaN, and when the
        bootstrap distribution is degenerate (BCa levels not finite; every resample of zero
        total weight).

    See Also
    --------
    scipy.stats.bootstrap : the general (slower) reference this function agrees with.

    Examples
    --------
    >>> import numpy as np
    >>> values = np.linspace(0.0, 1.0, 101)
    >>> low, high = bootstrap_ci(values, random_state=0)
    >>> bool(low < 0.5 < high), round(high - low, 1)
    (True, 0.1)
    >>> bootstrap_ci([0.25, 0.25, np.nan])  # constant values: a zero-width interval
    (0.25, 0.25)
    """
    x = float_values(values, "values")
    method = check_choice(method, "method", _CI_METHODS)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    confidence_level = check_probability(confidence_level, "confidence_level")
    rng = check_random_state(random_state)
    w = None
    if weights is not None:
        w = float_values(weights, "weights")
        if w.shape != x.shape:
            raise ValueError(
                f"weights must have one entry per value, but values has {x.shape[0]} and "
                f"weights has {w.shape[0]} entries."
            )
        if np.isnan(w).any() or (w < 0).any():
            raise ValueError(
                "weights must be finite and non-negative (e.g. n_pos per query); found "
                f"{int(np.isnan(w).sum())} NaN and {int((w < 0).sum())} negative weight(s)."
            )
    keep = ~np.isnan(x)
    x = x[keep]
    if w is not None:
        w = w[keep]
        if x.size and w.sum() == 0:
            raise ValueError(
                "weights sum to 0 over the queries with a value; the weighted mean is undefined. "
                "Use weights=None for the macro mean."
            )
    if x.shape[0] < 2:
        _warn(
            f"bootstrap_ci needs at least 2 non-NaN values, got {x.shape[0]}; returning (nan, nan)."
        )
        return (float("nan"), float("nan"))
    low, high = _ci(x, w, n_resamples, confidence_level, method, rng)
    if np.isnan(low):
        _warn(
            "The bootstrap distribution is degenerate (BCa levels are not finite, or every "
            "resample has zero total weight); returning (nan, nan). Try method='percentile'."
        )
    return (low, high)


# --------------------------------------------------------------------------------------------
# Paired tests
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairedTestResult:
    """Result of :func:`paired_test`.

    Attributes
    ----------
    test : str
        The test used.
    statistic : float
        Mean difference ``a - b`` (permutation), number of wins of ``a`` (sign),
        scipy's ``W`` (wilcoxon) or ``t`` (t).
    pvalue : float
        The p-value for ``alternative``.
    n : int
        Number of pairs used (pairs with a NaN on either side are dropped).
    alternative : str
        ``"two-sided"``, ``"greater"`` (``a`` tends to be larger) or ``"less"``.
    mean_difference : float
        Mean of ``a - b`` over the pairs used.
    wins, ties, losses : int
        Pairs where ``a > b``, ``a == b`` and ``a < b``.

    Examples
    --------
    >>> from sklearn_ltr_metrics.stats import paired_test
    >>> result = paired_test([0.9, 0.8, 0.7, 0.9, 0.6, 0.8], [0.7, 0.8, 0.5, 0.6, 0.6, 0.5])
    >>> result.test, result.n, (result.wins, result.ties, result.losses)
    ('permutation', 6, (4, 2, 0))
    >>> round(result.mean_difference, 4), result.pvalue
    (0.1667, 0.125)
    """

    test: str
    statistic: float
    pvalue: float
    n: int
    alternative: str
    mean_difference: float
    wins: int
    ties: int
    losses: int


def _permutation_null(d, n_resamples, rng):
    """Null distribution of the mean difference under random sign flips; exact when small.

    Returns ``(null, exact)``. All 2**n flips are enumerated when ``n <= 16`` or when
    ``n_resamples >= 2**n`` (as scipy does); otherwise ``n_resamples`` random flips.
    """
    n = d.shape[0]
    exact = n <= EXACT_PERMUTATION_MAX_N or (n < 63 and n_resamples >= 2**n)
    total = 2**n if exact else n_resamples
    null = np.empty(total)
    chunk = max(1, _CHUNK_ENTRIES // n)
    powers = np.arange(n, dtype=np.int64)
    total_d = d.sum()
    for start in range(0, total, chunk):
        stop = min(start + chunk, total)
        if exact:
            rows = np.arange(start, stop, dtype=np.int64)
            bits = ((rows[:, None] >> powers) & 1).astype(np.float64)
        else:
            packed = rng.integers(0, 256, size=(stop - start, (n + 7) // 8), dtype=np.uint8)
            bits = np.unpackbits(packed, axis=1, count=n).astype(np.float64)
        # A sign s = 2 * bit - 1, so sum(s * d) = 2 * (bits @ d) - sum(d).
        null[start:stop] = (2.0 * (bits @ d) - total_d) / n
    return null, exact


def _permutation_kernel(a, b, d, alternative, n_resamples, rng):
    observed = float(d.mean())
    null, exact = _permutation_null(d, n_resamples, rng)
    # p-values exactly as scipy.stats.permutation_test computes them (tolerance and +1).
    adjustment = 0 if exact else 1
    gamma = abs(np.finfo(np.float64).eps * 100 * observed)
    less = (np.count_nonzero(null <= observed + gamma) + adjustment) / (null.size + adjustment)
    greater = (np.count_nonzero(null >= observed - gamma) + adjustment) / (null.size + adjustment)
    pvalue = {"less": less, "greater": greater, "two-sided": 2 * min(less, greater)}[alternative]
    return observed, float(min(max(pvalue, 0.0), 1.0))


def _sign_kernel(a, b, d, alternative, n_resamples, rng):
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    result = stats.binomtest(wins, wins + losses, 0.5, alternative=alternative)
    return float(wins), float(result.pvalue)


def _wilcoxon_kernel(a, b, d, alternative, n_resamples, rng):
    result = stats.wilcoxon(a, b, alternative=alternative)
    return float(result.statistic), float(result.pvalue)


def _t_kernel(a, b, d, alternative, n_resamples, rng):
    mean = d.mean()
    if np.max(np.abs(d - mean)) <= 10 * np.finfo(np.float64).eps * abs(mean):
        # Constant non-zero differences (up to rounding): zero variance, so t is +-inf (scipy
        # warns about precision loss and returns NaN or a rounding artefact).
        statistic = float(np.copysign(np.inf, d[0]))
        agrees = {"two-sided": True, "greater": d[0] > 0, "less": d[0] < 0}[alternative]
        return statistic, 0.0 if agrees else 1.0
    result = stats.ttest_rel(a, b, alternative=alternative)
    return float(result.statistic), float(result.pvalue)


_PAIRED_TESTS = {
    "permutation": _permutation_kernel,
    "sign": _sign_kernel,
    "wilcoxon": _wilcoxon_kernel,
    "t": _t_kernel,
}


def paired_test_names():
    """Names accepted by ``paired_test(test=...)`` and ``compare_systems(test=...)``.

    Returns
    -------
    list of str
        The paired tests, sorted.

    Examples
    --------
    >>> paired_test_names()
    ['permutation', 'sign', 't', 'wilcoxon']
    """
    return sorted(_PAIRED_TESTS)


def _check_test(test):
    if not isinstance(test, str) or test not in _PAIRED_TESTS:
        raise unknown_name_error("paired test", test, _PAIRED_TESTS, param="test")
    return test


def _paired(a, b, test, alternative, n_resamples, rng):
    """Run one test on aligned float arrays (NaN pairs still present); never warns.

    ``test=None`` counts the pairs, wins, ties and losses only (NaN statistic and p-value).
    """
    keep = ~(np.isnan(a) | np.isnan(b))
    a, b = a[keep], b[keep]
    d = a - b
    tiny = np.abs(d) <= TIE_TOLERANCE
    if tiny.any():
        d = np.where(tiny, 0.0, d)
        b = np.where(tiny, a, b)
    n = int(d.shape[0])
    wins, ties, losses = int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum())
    mean_diff = float(d.mean()) if n else float("nan")
    if n < 2 or test is None:  # None: the counts alone (a face brings its own p-value)
        statistic, pvalue = float("nan"), float("nan")
    elif ties == n:
        # Identical values on every query: no evidence of a difference.
        statistic, pvalue = 0.0, 1.0
    else:
        statistic, pvalue = _PAIRED_TESTS[test](a, b, d, alternative, n_resamples, rng)
    return PairedTestResult(
        test=test,
        statistic=statistic,
        pvalue=pvalue,
        n=n,
        alternative=alternative,
        mean_difference=mean_diff,
        wins=wins,
        ties=ties,
        losses=losses,
    )


def _align_pair(a, b, names=("a", "b")):
    """Float arrays of ``a`` and ``b``, aligned on the index when both are Series."""
    na, nb = names
    if isinstance(a, pd.Series) and isinstance(b, pd.Series) and not a.index.equals(b.index):
        if a.index.has_duplicates or b.index.has_duplicates:
            raise ValueError(
                f"{na} and {nb} are Series with different, duplicated indexes; they cannot be "
                "aligned on queries. Pass arrays in the same query order instead."
            )
        only_a = a.index.difference(b.index)
        only_b = b.index.difference(a.index)
        if len(only_a) or len(only_b):
            raise ValueError(
                f"{na} and {nb} must hold the same queries: {len(only_a)} index label(s) of "
                f"{na} are not in {nb} and {len(only_b)} of {nb} are not in {na}. Keep the "
                f"common queries, e.g. {na}, {nb} = {na}.align({nb}, join='inner')."
            )
        b = b.reindex(a.index)
    xa = float_values(a, na)
    xb = float_values(b, nb)
    if xa.shape != xb.shape:
        raise ValueError(
            f"{na} and {nb} must have one value per query each, but {na} has {xa.shape[0]} and "
            f"{nb} has {xb.shape[0]} values."
        )
    return xa, xb


def paired_test(
    a, b, *, test="permutation", alternative="two-sided", n_resamples=10000, random_state=None
):
    """Paired significance test of two systems' per-query values on the same queries.

    Parameters
    ----------
    a, b : array-like of shape (n_queries,)
        Per-query values of two systems, in the same query order. When both are pandas Series
        they are aligned on their index, which must hold the same labels. Pairs with NaN on
        either side are dropped.
    test : {"permutation", "sign", "wilcoxon", "t"}, default="permutation"
        - ``"permutation"``: randomisation test flipping the sign of each per-query difference
          ``a - b``; statistic = mean difference. Exact (all ``2**n`` flips) when ``n <= 16``
          or ``n_resamples >= 2**n``, else Monte-Carlo with ``n_resamples`` flips and the
          ``(count + 1) / (n_resamples + 1)`` p-value. The p-value is computed as
          ``scipy.stats.permutation_test(..., permutation_type="samples")`` does on the mean
          difference, and is identical to it whenever scipy enumerates too
          (``n_resamples >= 2**n``).
        - ``"sign"``: ``scipy.stats.binomtest`` of wins against losses (ties dropped);
          statistic = number of wins of ``a``.
        - ``"wilcoxon"``: ``scipy.stats.wilcoxon(a, b)`` (zero differences dropped).
        - ``"t"``: ``scipy.stats.ttest_rel(a, b)``.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        ``"greater"``: ``a`` tends to be larger than ``b``.
    n_resamples : int, default=10000
        Random sign flips of the Monte-Carlo permutation test (ignored by other tests).
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
        Seed of the Monte-Carlo permutation test.

    Returns
    -------
    PairedTestResult
        ``statistic``, ``pvalue``, ``test``, ``n`` (pairs used), ``alternative``,
        ``mean_difference`` and ``wins``/``ties``/``losses`` (``|a - b| <= 1e-12`` is a tie).

    Notes
    -----
    Differences with ``|a - b| <= 1e-12`` (``TIE_TOLERANCE``) are float rounding, not a
    difference: they are ties for every test (Wilcoxon and the sign test drop them).
    Edge cases, identical for every test: when all differences are 0 the result is
    ``statistic=0.0, pvalue=1.0`` (no warning: identical systems are a valid outcome); with
    fewer than 2 pairs the statistic and p-value are NaN and a ``RuntimeWarning`` is emitted.
    For ``"t"``, constant non-zero differences have zero variance: ``statistic=+-inf`` and
    ``pvalue=0.0`` (1.0 for the one-sided alternative pointing the other way).

    Examples
    --------
    >>> a = [0.9, 0.8, 0.7, 0.9, 0.6, 0.8]
    >>> b = [0.7, 0.8, 0.5, 0.6, 0.6, 0.5]
    >>> result = paired_test(a, b)  # 6 queries: exact enumeration of 64 sign flips
    >>> round(result.statistic, 3), round(result.pvalue, 4), result.n
    (0.167, 0.125, 6)
    >>> round(paired_test(a, b, test="sign").pvalue, 4)
    0.125
    """
    test = _check_test(test)
    alternative = check_choice(alternative, "alternative", _ALTERNATIVES)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    rng = check_random_state(random_state)
    xa, xb = _align_pair(a, b)
    result = _paired(xa, xb, test, alternative, n_resamples, rng)
    if result.n < 2:
        _warn(
            f"paired_test needs at least 2 pairs without NaN, got {result.n}; "
            "statistic and pvalue are NaN."
        )
    return result
