"""Input checks shared by every public entry point, with one error format.

Every error names the parameter, shows the offending value with ``!r`` and says what is
allowed and how to fix it. ``TypeError`` is for the wrong kind of object, ``ValueError`` for a
bad value. Nothing here modifies its input: arrays are converted (which may copy) but never
written to.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from ._engine import range_and_counts, value_range

__all__ = [
    "check_1d",
    "check_choice",
    "check_consistent_length",
    "check_label_runs",
    "check_labels",
    "check_n_jobs",
    "check_numbers",
    "check_positive_int",
    "check_probability",
    "check_scores",
    "check_scores_later",
    "refuse_duplicates",
]

#: Largest integer magnitude that float64 holds exactly (every integer up to it is exact).
_EXACT_FLOAT_INT = 2**53


def short_repr(value, limit=60):
    """Return ``repr(value)`` cut to ``limit`` characters for error messages.

    numpy scalars are shown as the Python values they hold (``'a'``, not ``np.str_('a')``).
    """
    if isinstance(value, np.generic):
        value = value.item()
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_1d(values, name, *, dtype=None, allow_empty=False):
    """Convert ``values`` to a one-dimensional numpy array without modifying it.

    Parameters
    ----------
    values : array-like
        A list, numpy array, pandas Series or Index.
    name : str
        Parameter name used in error messages.
    dtype : dtype, optional
        Target dtype (``float`` for scores and labels). ``None`` keeps the input's dtype.
    allow_empty : bool, default=False
        Whether a zero-length input is accepted.

    Returns
    -------
    numpy.ndarray
        A 1-D array. It may share memory with ``values``; callers never write to it.
    """
    if values is None:
        raise TypeError(
            f"{name} is required, got None; pass a 1-D array-like with one entry per row."
        )
    if isinstance(values, (str, bytes)) or np.isscalar(values):
        raise TypeError(
            f"{name} must be a 1-D array-like (list, numpy array, pandas Series), "
            f"got a scalar {short_repr(values)}."
        )
    if isinstance(values, pd.DataFrame):
        if values.shape[1] != 1:
            raise ValueError(
                f"{name} must be 1-D, got a DataFrame with {values.shape[1]} columns; "
                f"select one column, e.g. df[{short_repr(values.columns[0])}]."
            )
        values = values.iloc[:, 0]
    if isinstance(values, (pd.Series, pd.Index)):
        if dtype is not None:
            try:
                arr = values.to_numpy(dtype=dtype)
            except (TypeError, ValueError) as exc:
                raise TypeError(
                    f"{name} must hold numbers, got dtype {values.dtype}: {exc}"
                ) from None
        else:
            arr = values.to_numpy()
    else:
        try:
            arr = np.asarray(values, dtype=dtype)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must hold numbers convertible to {dtype}: {exc}") from None
    if arr.ndim != 1:
        if arr.ndim == 2 and 1 in arr.shape:
            hint = " Use .ravel() if it is a single column or row."
        else:
            hint = ""
        raise ValueError(f"{name} must be 1-D, got an array of shape {arr.shape}.{hint}")
    if not allow_empty and arr.shape[0] == 0:
        raise ValueError(f"{name} is empty; pass at least one row.")
    return arr


def check_consistent_length(**arrays):
    """Raise ``ValueError`` naming every length when the arrays differ in length.

    Keyword names are the parameter names; ``None`` values are ignored.
    """
    lengths = {name: len(arr) for name, arr in arrays.items() if arr is not None}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{name} has {n}" for name, n in lengths.items())
        raise ValueError(f"Inputs must have one entry per row, but {detail} entries.")


def _all_finite(arr, n_threads=1):
    """Whether a float array holds no NaN or infinity (``min`` and ``max`` propagate NaN, and
    an infinity is the minimum or the maximum): one compiled pass (``value_range``)."""
    if not arr.size:
        return True
    low, high = value_range(arr, n_threads)
    return bool(np.isfinite(low) and np.isfinite(high))


def _first(mask):
    return int(np.flatnonzero(mask)[0])


def _numbers(values, name):
    """``values`` as a 1-D numpy array of real numbers (bool, int, uint or float dtype).

    Refuses, with a ``TypeError`` naming ``name``, what is not a real number: complex numbers
    (the imaginary part would be lost), dates and durations (they would be taken as integer
    nanoseconds), strings and bytes (even numeric ones: convert them on purpose, e.g. with
    ``pd.to_numeric``). Missing values (``None``, ``pd.NA``, ``NaN``) come back as NaN. Integers
    are kept as integers; Python integers beyond int64 become an object array of ints.
    """
    dtype = getattr(values, "dtype", None)
    nullable_number = isinstance(dtype, pd.api.extensions.ExtensionDtype) and (
        pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype)
    )
    if isinstance(values, (pd.Series, pd.Index)) and nullable_number:
        if values.isna().any() or not pd.api.types.is_integer_dtype(dtype):
            values = values.to_numpy(dtype=np.float64, na_value=np.nan)
        else:
            values = values.to_numpy(dtype=dtype.numpy_dtype)
    arr = check_1d(values, name)
    kind = arr.dtype.kind
    if kind in "biuf":
        return arr
    if kind == "O":
        inferred = pd.api.types.infer_dtype(arr, skipna=True)
        missing = pd.isna(arr)
        if inferred in ("integer", "boolean") and not missing.any():
            as_list = arr.tolist()
            try:
                return np.asarray(as_list) if inferred == "integer" else arr.astype(bool)
            except OverflowError:  # pragma: no cover - numpy gives object arrays instead
                return arr
        if inferred in ("integer", "floating", "mixed-integer-float", "boolean", "decimal"):
            out = np.full(arr.shape[0], np.nan)
            out[~missing] = arr[~missing].astype(np.float64)
            return out
        if inferred == "empty":
            return np.full(arr.shape[0], np.nan)
        bad = ~missing & ~np.array(
            [
                isinstance(v, numbers.Real) and not isinstance(v, (np.datetime64, np.timedelta64))
                for v in arr
            ]
        )
        first = _first(bad) if bad.any() else 0
        raise TypeError(
            f"{name} must hold numbers (real ones), got {type(arr[first]).__name__} "
            f"{short_repr(arr[first])} at row {first}; convert the values to numbers first, "
            "e.g. with pd.to_numeric."
        )
    what, fix = {
        "c": ("complex numbers", "their imaginary part would be lost; pass .real on purpose"),
        "M": ("dates (datetime64)", "convert them to numbers on purpose"),
        "m": ("durations (timedelta64)", "convert them to numbers on purpose"),
        "U": ("strings", "convert them on purpose, e.g. with pd.to_numeric"),
        "S": ("bytes", "convert them on purpose, e.g. with pd.to_numeric"),
    }.get(kind, (f"values of dtype {arr.dtype}", "convert them to float first"))
    example = f" (e.g. {short_repr(arr[0])})" if arr.size else ""
    raise TypeError(f"{name} must hold numbers (real ones), got {what}{example}; {fix}.")


def _is_integer_array(arr):
    return arr.dtype.kind in "iu" or (
        arr.dtype == object and pd.api.types.infer_dtype(arr, skipna=False) == "integer"
    )


def _too_big_for_float(arr):
    """Whether an integer array holds a value float64 cannot represent exactly."""
    if arr.dtype == object:
        return any(abs(v) > _EXACT_FLOAT_INT for v in arr)
    if not arr.size:
        return False
    return int(arr.max()) > _EXACT_FLOAT_INT or int(arr.min()) < -_EXACT_FLOAT_INT


def check_numbers(values, name):
    """Convert real numbers to float64, refusing complex numbers, dates, strings and bytes.

    Parameters
    ----------
    values : array-like
        Numbers: bool, int, float (numpy, pandas, nullable pandas dtypes or Python lists).
    name : str
        Parameter name for error messages.

    Returns
    -------
    numpy.ndarray of float64
        Missing values are NaN; the caller decides whether NaN is allowed.

    Raises
    ------
    TypeError
        Complex numbers, dates, durations, strings, bytes or other objects.

    Examples
    --------
    >>> check_numbers([1, 0, 2], "y_true")
    array([1., 0., 2.])
    >>> try:
    ...     check_numbers(np.array([1 + 2j]), "y_true")
    ... except TypeError as err:
    ...     print(str(err)[:57])
    y_true must hold numbers (real ones), got complex numbers
    """
    arr = _numbers(values, name)
    if arr.dtype == object:
        return arr.astype(np.float64)
    return arr.astype(np.float64, copy=False)


def check_scores(y_score, qid_values=None, name="y_score", *, n_threads=1):
    """Convert scores to float64 and reject NaN and infinity.

    Integer scores beyond 2**53, which float64 cannot hold exactly (two of them could become
    one tie), are replaced by their dense ranks: every metric depends on scores only through
    their order within a query, which the ranks keep exactly. The error for NaN gives how many
    scores are not finite and the first query id holding one.
    """
    arr, refuse_nonfinite = check_scores_later(y_score, qid_values, name, n_threads=n_threads)
    refuse_nonfinite()
    return arr


def check_scores_later(y_score, qid_values=None, name="y_score", *, n_threads=1):
    """:func:`check_scores` in two steps, for a caller that reads every score anyway:
    ``(scores, check)``, the scores converted (integers beyond 2**53 ranked) and ``check()``,
    which raises :func:`check_scores`' error for NaN or infinite scores (one pass over them).
    The caller must call ``check`` unless it has seen every score finite."""
    arr = _numbers(y_score, name)
    if _is_integer_array(arr) and _too_big_for_float(arr):
        arr = np.unique(arr, return_inverse=True)[1].astype(np.float64)
    else:
        arr = arr.astype(np.float64, copy=False)  # read-only from here on: no copy needed

    def check():
        if _all_finite(arr, n_threads):
            return
        bad = ~np.isfinite(arr)
        first = _first(bad)
        where = (
            f" (first in query {short_repr(qid_values[first])}, row {first})"
            if qid_values is not None and first < len(qid_values)
            else f" (first at row {first})"
        )
        raise ValueError(
            f"{name} has {int(bad.sum())} NaN or infinite value(s){where}; "
            "replace them (e.g. with the lowest finite score) before evaluating."
        )

    return arr, check


def check_labels(y_true, name="y_true", *, allow_negative=False, n_threads=1):
    """Convert relevance labels to float64 and reject NaN and (unless allowed) negatives.

    Integer labels beyond 2**53 (float64 cannot hold them exactly) are refused.
    """
    labels, _ = check_label_runs(
        y_true, None, name, allow_negative=allow_negative, n_threads=n_threads
    )
    return labels


def check_label_runs(y_true, runs, name="y_true", *, allow_negative=False, n_threads=1):
    """:func:`check_labels`, and the rows with a label > 0 in each run of rows beginning at
    ``runs`` (intp starts, or None), counted in the same pass over the labels: ``(labels,
    counts)``, counts None without runs (or without rows)."""
    arr = _numbers(y_true, name)
    if _is_integer_array(arr) and _too_big_for_float(arr):
        raise ValueError(
            f"{name} has labels beyond 2**53 (largest {short_repr(max(arr.tolist(), key=abs))}), "
            "which float64 cannot hold exactly; relevance grades are small numbers such as 0..4."
        )
    arr = arr.astype(np.float64, copy=False)  # read-only from here on: no copy needed
    if not arr.size:
        return arr, None
    counts = None
    if runs is not None and arr.flags.c_contiguous and runs.size and runs[-1] < arr.shape[0]:
        low, high, counts = range_and_counts(arr, runs, n_threads)
    else:
        low, high = value_range(arr, n_threads)
    if not (np.isfinite(low) and np.isfinite(high)):
        first = _first(~np.isfinite(arr))
        raise ValueError(
            f"{name} has NaN or infinite labels (first at row {first}: {arr[first].item()!r}); "
            "labels must be finite relevance grades such as 0..4."
        )
    if not allow_negative and low < 0:
        first = _first(arr < 0)
        raise ValueError(
            f"{name} has negative labels (first at row {first}: {arr[first].item()!r}); "
            "relevance grades must be >= 0. Map judged-non-relevant grades such as -1 to 0 first."
        )
    return arr, counts


def check_n_jobs(n_jobs):
    """Threads for ``n_jobs`` (scikit-learn's convention: None is 1, -1 every core)."""
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(
            f"n_jobs={n_jobs!r} is not valid; use None or 1 for one thread, a positive int, "
            "or -1 for every core."
        )
    cores = os.cpu_count() or 1
    return int(n_jobs) if n_jobs > 0 else max(1, cores + 1 + int(n_jobs))


def check_choice(value, name, choices: Sequence):
    """Return ``value`` if it is one of ``choices``, else raise naming the valid ones."""
    hashable = isinstance(value, (str, bool, numbers.Number)) or value is None
    if hashable and value in choices:
        return value
    raise ValueError(
        f"{name}={short_repr(value)} is not valid; choose one of {', '.join(map(repr, choices))}."
    )


def check_positive_int(value, name, *, minimum=1):
    """Return ``value`` as int if it is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= {minimum}, got {short_repr(value)}.")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    return int(value)


def check_probability(value, name, *, open_interval=True):
    """Return ``value`` as float if it lies in (0, 1) (or [0, 1] when not ``open_interval``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number in (0, 1), got {short_repr(value)}.")
    value = float(value)
    ok = 0.0 < value < 1.0 if open_interval else 0.0 <= value <= 1.0
    if not ok:
        bounds = "(0, 1)" if open_interval else "[0, 1]"
        raise ValueError(f"{name} must be in {bounds}, got {value!r}; e.g. 0.95 for 95 %.")
    return value


def unknown_name_error(kind: str, name, valid: Iterable[str], *, param: str):
    """Build the ``ValueError`` for an unknown registry name, suggesting close matches."""
    import difflib

    valid = sorted(valid)
    close = difflib.get_close_matches(str(name), valid, n=3)
    hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
    return ValueError(
        f"{param}={short_repr(name)} is not a known {kind}.{hint} Valid names: {', '.join(valid)}."
    )


def take_rows(X, indices):
    """Return the rows of ``X`` at integer positions ``indices``, keeping the container type.

    A small stand-in for scikit-learn's private ``_safe_indexing`` (rows only): pandas objects
    use ``.iloc``, sparse matrices and arrays are indexed directly (after conversion to CSR
    when their format has no row indexing, e.g. COO), lists and tuples give a list, and any
    other array-like (numpy, polars...) is indexed with ``X[indices]``.

    Examples
    --------
    >>> import numpy as np
    >>> take_rows([10, 20, 30], np.array([2, 0]))
    [30, 10]
    >>> take_rows(np.arange(6).reshape(3, 2), [2, 0]).tolist()
    [[4, 5], [0, 1]]
    """
    indices = np.asarray(indices, dtype=np.intp)
    if isinstance(X, (pd.DataFrame, pd.Series)):
        return X.iloc[indices]
    if isinstance(X, (list, tuple)):
        return [X[i] for i in indices]
    if hasattr(X, "tocsr") and hasattr(X, "format"):  # scipy.sparse, without importing it
        if X.format not in ("csr", "csc", "lil", "dok"):
            X = X.tocsr()
        return X[indices]
    return X[indices]


def check_columns(frame, name, columns):
    """Return ``frame[columns]``; a clear error when ``frame`` is no DataFrame or lacks one.

    Parameters
    ----------
    frame : pandas.DataFrame
    name : str
        Parameter name for error messages.
    columns : sequence of str
        Required column names.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(
            f"{name} must be a pandas DataFrame with columns {list(columns)}, got "
            f"{type(frame).__name__}."
        )
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{name} lacks column(s) {missing}; it has {list(frame.columns)}. Rename them, e.g. "
            f"{name}.rename(columns={{...}})."
        )
    return frame[list(columns)]


def float_values(values, name, *, allow_empty=True):
    """1-D float64 array of ``values``; pandas missing values (``pd.NA``) become NaN."""
    if isinstance(values, (pd.Series, pd.Index)):
        try:
            values = values.to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must hold numbers, got dtype {values.dtype}: {exc}") from None
    arr = check_1d(values, name, dtype=np.float64, allow_empty=allow_empty)
    if np.isinf(arr).any():
        raise ValueError(
            f"{name} has {int(np.isinf(arr).sum())} infinite value(s); per-query values must be "
            "finite numbers or NaN (NaN marks a query where the metric is undefined)."
        )
    return arr


def refuse_duplicates(frame, columns, message):
    """Raise ``ValueError`` when two rows of ``frame`` share ``columns``: ``message`` formatted
    with the first repeated row's values (each ``{column}`` shown as its repr)."""
    repeated = frame.duplicated(columns)
    if repeated.any():
        first = frame[repeated].iloc[0]
        raise ValueError(message.format(**{c: repr(first[c]) for c in columns}))
