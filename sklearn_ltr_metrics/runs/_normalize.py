"""Score normalisations before fusion, per (run, query), with ranx's formulas and names.

Each normalisation maps the scores a run gives one query's documents; all (run, query)
groups at once, from the stacked rows (:mod:`._stack`), where each group's rows follow each
other: group extremes and sums with one ``ufunc.reduceat`` over the segments. The formulas
are ranx's (``ranx/normalization``), guards included: every denominator is at least
``1e-9``, so a query whose documents share one score normalises to 0 under ``min-max`` and
``sum`` rather than to NaN.

``borda`` is the one normalisation that looks across runs: a document a run did not retrieve
for a query gets a score too, ``0.5 - (n_run - 1) / (2 * n_candidates)``, so after it every
run "retrieved" every candidate (which changes what ``mnz``, ``anz``, ``med`` count).
"""

from __future__ import annotations

import numpy as np

from .._validation import unknown_name_error

__all__ = ["DENOMINATOR_FLOOR", "check_norm", "normalization_names", "normalize"]

#: ranx's floor on every denominator (``max(denominator, 1e-9)``).
DENOMINATOR_FLOOR = 1e-9


def _reduce(ufunc, stack, initial):
    return stack.group_reduce(ufunc, stack.score, initial)


def _group_sum(stack, values):
    return stack.group_reduce(np.add, values, 0.0)


def _min_max(stack):
    low = _reduce(np.minimum, stack, np.inf)
    high = _reduce(np.maximum, stack, -np.inf)
    scale = np.maximum(high - low, DENOMINATOR_FLOOR)
    values = stack.score - stack.per_row(low)
    values /= stack.per_row(scale)  # in place: one array fewer
    return values, None


def _max(stack):
    high = _reduce(np.maximum, stack, -np.inf)
    return stack.score / stack.per_row(np.maximum(high, DENOMINATOR_FLOOR)), None


def _sum(stack):
    low = _reduce(np.minimum, stack, np.inf)
    low = np.where(np.isfinite(low), low, 0.0)
    total = _group_sum(stack, stack.score) - low * stack.group_size
    return (stack.score - stack.per_row(low)) / stack.per_row(
        np.maximum(total, DENOMINATOR_FLOOR)
    ), None


def _zmuv(stack):
    n = np.maximum(stack.group_size, 1)
    centred = stack.score - stack.per_row(_group_sum(stack, stack.score) / n)
    std = np.sqrt(_group_sum(stack, centred * centred) / n)
    centred /= stack.per_row(np.maximum(std, DENOMINATOR_FLOOR))
    return centred, None


def _rank(stack):
    return 1.0 - stack.position / stack.per_row(stack.group_size.astype(np.float64)), None


def _borda(stack):
    n_candidates = np.tile(stack.n_candidates, stack.n_runs).astype(np.float64)
    values = 1.0 - stack.position / stack.per_row(n_candidates)
    with np.errstate(divide="ignore", invalid="ignore"):
        pad = 0.5 - (stack.group_size - 1) / (2.0 * n_candidates)
    return values, pad


def _none(stack):
    return stack.score, None


#: Normalisation name -> function of the stacked runs returning ``(values, pad)``: the
#: normalised score of each row and, for ``borda`` only, the score of a document a run did not
#: retrieve, per (run, query) group (``None`` otherwise).
_NORMALIZATIONS = {
    "min-max": _min_max,
    "max": _max,
    "sum": _sum,
    "zmuv": _zmuv,
    "rank": _rank,
    "borda": _borda,
    "none": _none,
}
#: Other spellings users of ranx type.
_ALIASES = {"min_max": "min-max", "minmax": "min-max", None: "none"}


def normalization_names():
    """The names of the score normalisations :func:`fuse` accepts.

    Returns
    -------
    list of str
        Sorted names (``"min_max"`` is accepted for ``"min-max"``, ``None`` for ``"none"``).

    Examples
    --------
    >>> from sklearn_ltr_metrics.runs import normalization_names
    >>> normalization_names()
    ['borda', 'max', 'min-max', 'none', 'rank', 'sum', 'zmuv']
    """
    return sorted(_NORMALIZATIONS)


def check_norm(norm):
    """Return the canonical name of normalisation ``norm``, or raise naming the valid ones."""
    if not (norm is None or isinstance(norm, str)):
        raise TypeError(f"norm must be a string or None, got {type(norm).__name__}: {norm!r}.")
    name = _ALIASES.get(norm, norm)
    if name not in _NORMALIZATIONS:
        raise unknown_name_error("normalization", norm, _NORMALIZATIONS, param="norm")
    return name


def normalize(stack, norm):
    """``(values, pad)`` of the stacked runs under normalisation ``norm`` (a checked name)."""
    return _NORMALIZATIONS[norm](stack)
