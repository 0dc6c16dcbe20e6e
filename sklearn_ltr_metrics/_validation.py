"""Input checks shared by every public entry point, with one error format.

Every error names the parameter, shows the offending value with ``!r`` and says what is
allowed and how to fix it. ``TypeError`` is for the wrong kind of object, ``ValueError`` for a
bad value. Nothing here modifies its input: arrays are converted (which may copy) but never
written to.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "check_1d",
    "check_choice",
    "check_consistent_length",
    "check_labels",
    "check_positive_int",
    "check_probability",
    "check_scores",
]


def _short(value, limit=60):
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
            f"got a scalar {_short(values)}."
        )
    if isinstance(values, pd.DataFrame):
        if values.shape[1] != 1:
            raise ValueError(
                f"{name} must be 1-D, got a DataFrame with {values.shape[1]} columns; "
                f"select one column, e.g. df[{_short(values.columns[0])}]."
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


def check_scores(y_score, qid_values=None, name="y_score"):
    """Convert scores to float64 and reject NaN and infinity.

    The error gives how many scores are not finite and the first query id holding one.
    """
    arr = check_1d(y_score, name, dtype=np.float64)
    bad = ~np.isfinite(arr)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        where = (
            f" (first in query {_short(qid_values[first])}, row {first})"
            if qid_values is not None
            else f" (first at row {first})"
        )
        raise ValueError(
            f"{name} has {int(bad.sum())} NaN or infinite value(s){where}; "
            "replace them (e.g. with the lowest finite score) before evaluating."
        )
    return arr


def check_labels(y_true, name="y_true", *, allow_negative=False):
    """Convert relevance labels to float64 and reject NaN and (unless allowed) negatives."""
    arr = check_1d(y_true, name, dtype=np.float64)
    if np.isnan(arr).any() or np.isinf(arr).any():
        first = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise ValueError(
            f"{name} has NaN or infinite labels (first at row {first}: {arr[first].item()!r}); "
            "labels must be finite relevance grades such as 0..4."
        )
    if not allow_negative and (arr < 0).any():
        first = int(np.flatnonzero(arr < 0)[0])
        raise ValueError(
            f"{name} has negative labels (first at row {first}: {arr[first].item()!r}); "
            "relevance grades must be >= 0. Map judged-non-relevant grades such as -1 to 0 first."
        )
    return arr


def check_choice(value, name, choices: Sequence):
    """Return ``value`` if it is one of ``choices``, else raise naming the valid ones."""
    hashable = isinstance(value, (str, bool, numbers.Number)) or value is None
    if hashable and value in choices:
        return value
    raise ValueError(
        f"{name}={_short(value)} is not valid; choose one of {', '.join(map(repr, choices))}."
    )


def check_positive_int(value, name, *, minimum=1):
    """Return ``value`` as int if it is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= {minimum}, got {_short(value)}.")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    return int(value)


def check_probability(value, name, *, open_interval=True):
    """Return ``value`` as float if it lies in (0, 1) (or [0, 1] when not ``open_interval``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number in (0, 1), got {_short(value)}.")
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
        f"{param}={_short(name)} is not a known {kind}.{hint} Valid names: {', '.join(valid)}."
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
