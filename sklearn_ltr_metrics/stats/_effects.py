"""Effect sizes (Cohen's d and its label) and multiple-comparison corrections."""

from __future__ import annotations

import numbers

import numpy as np

from .._validation import float_values, unknown_name_error
from ._stats import _align_pair, _warn

__all__ = [
    "EFFECT_SIZE_BOUNDS",
    "adjust_pvalues",
    "cohens_d",
    "correction_names",
    "effect_size_label",
]

#: Upper bounds of the small / medium labels of :func:`effect_size_label` (the methodology's).
EFFECT_SIZE_BOUNDS = (0.2, 0.5)


def _cohens_d(a, b, paired):
    """Cohen's d of finite arrays; NaN when a sample has fewer than 2 values. Never warns."""
    if paired:
        d = a - b
        if d.shape[0] < 2:
            return float("nan")
        num, den = d.mean(), d.std(ddof=1)
    else:
        na, nb = a.shape[0], b.shape[0]
        if na < 2 or nb < 2:
            return float("nan")
        num = a.mean() - b.mean()
        pooled = ((na - 1) * a.var(ddof=1) + (nb - 1) * b.var(ddof=1)) / (na + nb - 2)
        den = np.sqrt(pooled)
    if den <= 10 * np.finfo(np.float64).eps * abs(num):
        # Zero spread (up to rounding, e.g. differences 0.2 computed as 0.7 - 0.5 and 0.8 - 0.6).
        return 0.0 if num == 0 else float(np.copysign(np.inf, num))
    return float(num / den)


def cohens_d(a, b, *, paired=False):
    """Cohen's d of ``a`` against ``b``: pooled (the methodology's) or paired d_z.

    Parameters
    ----------
    a, b : array-like
        Per-query values of two systems.
    paired : bool, default=False
        ``False``: ``d = (mean(a) - mean(b)) / s_pooled`` with
        ``s_pooled = sqrt(((n_a - 1) var(a) + (n_b - 1) var(b)) / (n_a + n_b - 2))``
        (``var`` with ``ddof=1``), which for equal sizes (two systems on the same queries) is
        the methodology's ``sqrt((var(a) + var(b)) / 2)``. NaN are dropped from each sample.
        ``True``: ``d_z = mean(a - b) / std(a - b, ddof=1)``; ``a`` and ``b`` are aligned
        (Series on their index) and pairs with a NaN are dropped.

    Returns
    -------
    float
        The effect size, positive when ``a`` is larger. A zero denominator (up to rounding:
        below ``10 * eps * |numerator|``) gives 0.0 when the numerator is 0, else ``+inf`` or
        ``-inf``. NaN with a ``RuntimeWarning`` when a sample
        (or the differences) has fewer than 2 values.

    See Also
    --------
    effect_size_label : small / medium / large.

    Examples
    --------
    >>> a = [0.9, 0.8, 0.7, 0.9, 0.6, 0.8]
    >>> b = [0.7, 0.8, 0.5, 0.6, 0.6, 0.5]
    >>> round(cohens_d(a, b), 3), round(cohens_d(a, b, paired=True), 3)
    (1.426, 1.22)
    """
    if not isinstance(paired, (bool, np.bool_)):
        raise TypeError(f"paired must be True or False, got {paired!r}.")
    if paired:
        xa, xb = _align_pair(a, b)
        keep = ~(np.isnan(xa) | np.isnan(xb))
        xa, xb = xa[keep], xb[keep]
        enough = xa.shape[0] >= 2
    else:
        xa = float_values(a, "a")
        xb = float_values(b, "b")
        xa, xb = xa[~np.isnan(xa)], xb[~np.isnan(xb)]
        enough = min(xa.shape[0], xb.shape[0]) >= 2
    if not enough:
        _warn("cohens_d needs at least 2 non-NaN values per sample; returning nan.")
        return float("nan")
    return _cohens_d(xa, xb, bool(paired))


def effect_size_label(d):
    """Magnitude label of an effect size, with the methodology's bounds 0.2 and 0.5.

    Parameters
    ----------
    d : float
        An effect size such as Cohen's d (:func:`cohens_d`); its sign does not matter.

    Returns
    -------
    str
        ``"small"`` when ``|d| < 0.2``, ``"medium"`` when ``0.2 <= |d| < 0.5``, ``"large"``
        when ``|d| >= 0.5``, and ``""`` for NaN (no comparison, e.g. the baseline's own row).

    Examples
    --------
    >>> [effect_size_label(d) for d in (0.1, -0.2, 0.49, -1.3, float("nan"))]
    ['small', 'medium', 'medium', 'large', '']
    """
    if isinstance(d, bool) or not isinstance(d, numbers.Real):
        raise TypeError(f"d must be a real number, got {d!r}.")
    size = abs(float(d))
    if np.isnan(size):
        return ""
    small, medium = EFFECT_SIZE_BOUNDS
    if size < small:
        return "small"
    return "medium" if size < medium else "large"


def _holm(p):
    m = p.size
    order = np.argsort(p, kind="stable")
    adjusted = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def _bh(p):
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, m + 1)
    adjusted = np.minimum.accumulate(scaled[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def _bonferroni(p):
    return np.minimum(p * p.size, 1.0)


_CORRECTIONS = {
    "holm": _holm,
    "bonferroni": _bonferroni,
    "bh": _bh,
    "fdr_bh": _bh,
    "none": np.copy,
}


def correction_names():
    """Names accepted by ``adjust_pvalues(method=...)`` and ``compare_systems(correction=...)``.

    Returns
    -------
    list of str
        The corrections, sorted.

    Examples
    --------
    >>> from sklearn_ltr_metrics.stats import correction_names
    >>> correction_names()
    ['bh', 'bonferroni', 'fdr_bh', 'holm', 'none']
    """
    return sorted(_CORRECTIONS)


def adjust_pvalues(pvalues, *, method="holm"):
    """Adjust p-values for multiple comparisons.

    Parameters
    ----------
    pvalues : array-like of shape (m,)
        Raw p-values in [0, 1]. NaN entries (comparisons that could not be made) stay NaN and
        do not count in ``m``.
    method : {"holm", "bonferroni", "bh", "fdr_bh", "none"}, default="holm"
        ``"holm"``: Holm's step-down family-wise correction,
        ``p_(i) -> max_{j <= i} min(1, (m - j + 1) p_(j))``. ``"bonferroni"``: the
        single-step family-wise correction ``p -> min(1, m p)``.
        ``"bh"`` (alias ``"fdr_bh"``): Benjamini-Hochberg false discovery rate,
        ``p_(i) -> min_{j >= i} min(1, m p_(j) / j)``. ``"none"``: unchanged.

    Returns
    -------
    numpy.ndarray of shape (m,)
        Adjusted p-values in the input order.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.5]).tolist()
    [0.04, 0.09, 0.09, 0.5]
    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.5], method="bh").round(4).tolist()
    [0.04, 0.0533, 0.0533, 0.5]
    """
    if not isinstance(method, str) or method not in _CORRECTIONS:
        raise unknown_name_error("correction", method, _CORRECTIONS, param="method")
    p = float_values(pvalues, "pvalues")
    finite = ~np.isnan(p)
    if ((p[finite] < 0) | (p[finite] > 1)).any():
        raise ValueError(
            f"pvalues must lie in [0, 1] (or be NaN), got values from {p[finite].min()!r} "
            f"to {p[finite].max()!r}."
        )
    out = np.full(p.shape, np.nan)
    out[finite] = _CORRECTIONS[method](p[finite])
    return out
