"""Query ids, read from every form: the one module that reads them and words every message.

The forms: an array (:func:`check_qid`: one kind of id, none missing), the ``qid`` argument
or routed metadata, scikit-learn's ``groups`` (routing off) and a column of ``X``
(:func:`qid_of` tries them in that order and checks one id per row of ``X``).

Query ids as a column of ``X``: the convention every family reads (XGBoost's ``qid`` column).

When ``X`` is a DataFrame (pandas; polars and pyarrow tables too) with a column named ``qid``
(or the name given as ``qid_column=``), splitters, rankers and scorers take the query ids from
that column whenever no ``qid`` (or ``groups``) is passed, and rankers drop it before the model
sees ``X``. The column travels with ``X`` through every fold, so plain scikit-learn
(``cross_validate``, ``GridSearchCV``, ``permutation_importance``...) needs neither metadata
routing nor ``groups=``.

Anything that still finds no query ids raises :class:`MissingQueryIdsError`, whose message
names the three ways to pass them (:func:`missing_qid_message`).
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from ._engine import all_strings, id_runs, object_id_runs
from ._validation import check_1d, short_repr

__all__ = [
    "DEFAULT_QID_COLUMN",
    "EstimatorMissingQueryIdsError",
    "MissingQueryIdsError",
    "check_qid",
    "check_qid_column",
    "check_qid_length",
    "check_qid_runs",
    "column_qid",
    "frame_columns",
    "is_dataframe",
    "missing_qid_message",
    "n_rows",
    "qid_of",
    "required_qid",
    "resolve_qid",
    "split_qid_column",
]

#: The name of the query-id column read by default (XGBoost's convention).
DEFAULT_QID_COLUMN = "qid"


class MissingQueryIdsError(Exception):
    """No query ids reached a splitter, ranker or scorer that needs them.

    An ordinary :class:`Exception` (``except Exception`` catches it: user loops, Optuna's
    ``catch=``, test harnesses), which still stops scikit-learn's searches and
    ``cross_validate`` instead of becoming NaN scores: their scoring step turns every
    ``Exception`` of a scorer into ``error_score`` (NaN by default) with a warning, so inside
    that step the package's scorers and rankers hand it a value whose unwrapping raises this
    error outside the step's ``try`` (see ``docs/sklearn.rst``, "No query ids: one error, never
    NaN"). A missing ``qid`` is a set-up error, the same in every fold.

    Examples
    --------
    >>> from sklearn_ltr_metrics import MissingQueryIdsError
    >>> issubclass(MissingQueryIdsError, Exception)
    True
    """


class EstimatorMissingQueryIdsError(MissingQueryIdsError, TypeError):
    """:class:`MissingQueryIdsError` raised by a ranker's ``fit``, ``predict`` or ``score``.

    It is also a :class:`TypeError` (an :class:`Exception`): scikit-learn's estimator checks
    (``check_estimator(..., expected_failed_checks=...)``) catch it as the expected failure of
    a check that calls ``fit(X, y)`` without query ids, and a search or ``cross_validate``
    whose every fit fails this way raises scikit-learn's "All the fits failed" error with this
    message, so no NaN score is ranked. ``except MissingQueryIdsError`` catches both kinds.

    Examples
    --------
    >>> from sklearn_ltr_metrics.metrics import EstimatorMissingQueryIdsError, MissingQueryIdsError
    >>> issubclass(EstimatorMissingQueryIdsError, (MissingQueryIdsError, TypeError))
    True
    """


# Shown (and pickled, e.g. by joblib's workers) under their public home.
MissingQueryIdsError.__module__ = "sklearn_ltr_metrics.metrics"
EstimatorMissingQueryIdsError.__module__ = "sklearn_ltr_metrics.metrics"


def check_qid_column(qid_column, name="qid_column"):
    """``qid_column`` checked: a column name (str) or ``None`` (the convention switched off)."""
    if qid_column is None or isinstance(qid_column, str):
        return qid_column
    raise TypeError(
        f"{name} must be a column name (str) or None (never read query ids from X), got "
        f"{short_repr(qid_column)}."
    )


def _frame_kind(X):
    """``"pandas"``, ``"polars"``, ``"pyarrow"`` for a table of those libraries, else None."""
    if isinstance(X, pd.DataFrame):
        return "pandas"
    module = type(X).__module__.partition(".")[0]
    if module == "polars" and hasattr(X, "columns") and hasattr(X, "get_column"):
        return "polars"
    if module == "pyarrow" and hasattr(X, "column_names") and hasattr(X, "drop_columns"):
        return "pyarrow"
    return None


def frame_columns(X):
    """The column names of a DataFrame ``X`` as a list, or ``None`` when ``X`` has none."""
    kind = _frame_kind(X)
    if kind is None:
        return None
    return list(X.column_names if kind == "pyarrow" else X.columns)


def _column_name(columns, qid_column):
    """The name of the query-id column among ``columns``, or ``None``.

    ``qid_column`` itself, else the one column named ``<step>__<qid_column>``: scikit-learn's
    ``ColumnTransformer`` prefixes the names of the columns it passes through
    (``remainder__qid``) unless ``verbose_feature_names_out=False``.
    """
    if qid_column in columns:
        return qid_column
    suffix = f"__{qid_column}"
    prefixed = [c for c in columns if isinstance(c, str) and c.endswith(suffix)]
    if len(prefixed) > 1:
        raise ValueError(
            f"X has no column {qid_column!r} but several ending in {suffix!r} ({prefixed}), "
            "so the query ids are ambiguous: pass the column through once, or give the "
            "ColumnTransformer verbose_feature_names_out=False to keep the name "
            f"{qid_column!r}."
        )
    return prefixed[0] if prefixed else None


def column_qid(X, qid_column=DEFAULT_QID_COLUMN):
    """The values of ``X``'s query-id column (no copy of ``X``), or ``None`` without one.

    The column is ``qid_column``, or the one column ``<step>__<qid_column>`` when ``X`` has
    no ``qid_column`` (``remainder__qid``, as a ``ColumnTransformer`` with
    ``remainder="passthrough"`` and default names gives it).

    Examples
    --------
    >>> import pandas as pd
    >>> column_qid(pd.DataFrame({"bm25": [3.0, 1.0], "qid": ["a", "b"]})).tolist()
    ['a', 'b']
    >>> column_qid(pd.DataFrame({"scale__bm25": [0.5, -0.5], "remainder__qid": [4, 4]})).tolist()
    [4, 4]
    """
    kind = _frame_kind(X)
    if qid_column is None or kind is None:
        return None
    qid_column = _column_name(frame_columns(X), qid_column)
    if qid_column is None:
        return None
    if kind == "pandas":
        return X[qid_column].to_numpy()
    if kind == "polars":
        return X.get_column(qid_column).to_numpy()
    return X.column(qid_column).to_numpy()


def split_qid_column(X, qid_column=DEFAULT_QID_COLUMN):
    """``(features, qid)``: ``X`` without its query-id column, and that column's values.

    ``(X, None)`` when ``X`` is no DataFrame, has no such column, or ``qid_column`` is
    ``None``. ``X`` itself is never modified.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"bm25": [3.0, 1.0], "qid": [7, 7]})
    >>> features, qid = split_qid_column(X)
    >>> list(features.columns), qid.tolist()
    (['bm25'], [7, 7])
    >>> split_qid_column(X.to_numpy())[1] is None
    True
    """
    qid = column_qid(X, qid_column)
    if qid is None:
        return X, None
    qid_column = _column_name(frame_columns(X), qid_column)
    kind = _frame_kind(X)
    if kind == "pandas":
        return X.drop(columns=[qid_column]), qid
    if kind == "polars":
        return X.drop(qid_column), qid
    return X.drop_columns([qid_column]), qid


def _same_ids(a, b):
    """Whether two per-row id arrays are equal row by row (any dtypes)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    try:
        return bool(np.all(a == b))
    except (TypeError, ValueError):
        return False


def required_qid(X, qid, qid_column=DEFAULT_QID_COLUMN, *, owner):
    """The query ids of ``X``'s rows: ``qid`` when given, else ``X``'s column ``qid_column``.

    The one place that decides where query ids come from for a splitter, a scorer and the
    helpers: with neither, :class:`MissingQueryIdsError` naming the three ways (``owner`` is
    who needs them).
    """
    if qid is None:
        qid = column_qid(X, check_qid_column(qid_column))
    if qid is None:
        raise MissingQueryIdsError(missing_qid_message(owner, X, qid_column))
    return qid


def resolve_qid(X, qid, qid_column=DEFAULT_QID_COLUMN, *, owner):
    """``(features, qid)``: the query-id column dropped from ``X``, and the query ids to use.

    A ``qid`` passed explicitly wins; when ``X`` also has the column, both must agree row by
    row (else ``ValueError``). ``qid`` is ``None`` when neither gives query ids.
    """
    features, column = split_qid_column(X, check_qid_column(qid_column))
    if column is None or qid is None:
        return features, (column if qid is None else qid)
    if not _same_ids(qid, column):
        raise ValueError(
            f"{owner} got qid={short_repr(qid)} and X's column {qid_column!r} holding other query "
            "ids; pass the query ids once (the column, or qid=...), or name another column "
            "with qid_column=..."
        )
    return features, qid


def _where_x_stands(X, qid_column):
    """A sentence on why ``X`` gave no query ids (no columns, or not that column)."""
    if qid_column is None:
        return "qid_column=None: X's columns are never read for query ids."
    columns = frame_columns(X)
    if columns is None:
        return (
            f"X is a {type(X).__name__}, which has no named columns. In a Pipeline, an "
            f"earlier step may have turned the DataFrame into an array without the "
            f"{qid_column!r} column: wrap that step in QueryColumn(...), or use "
            "ColumnTransformer(..., remainder='passthrough', verbose_feature_names_out=False)"
            ".set_output(transform='pandas'). "
            "RFECV and SequentialFeatureSelector turn X into an array: run them with "
            "metadata routing on and fit(X, y, qid=qid)."
        )
    shown = ", ".join(map(repr, columns[:8])) + (" ..." if len(columns) > 8 else "")
    return f"X has no column {qid_column!r} (its columns: {shown})."


def missing_qid_message(owner, X=None, qid_column=DEFAULT_QID_COLUMN, *, how=None):
    """The one message for a missing ``qid``: the three ways to pass the query ids.

    ``how`` replaces the three ways where the ids have one place only (LightGBM's
    ``eval_set=(X_val, y_val, qid_val)``).

    Examples
    --------
    >>> import numpy as np
    >>> print(missing_qid_message("QueryKFold.split", np.zeros((2, 1))))  # doctest: +ELLIPSIS
    QueryKFold.split needs the query id of every row (qid) and found none. ...
    """
    if how is not None:
        return f"{owner} needs qid, one query id per row, and found none; {how}."
    from sklearn import get_config

    routing = "on" if get_config()["enable_metadata_routing"] else "off"
    where = "" if X is None else " " + _where_x_stands(X, qid_column)
    name = DEFAULT_QID_COLUMN if qid_column is None else qid_column
    return (
        f"{owner} needs the query id of every row (qid) and found none.{where} Pass them in one "
        f"of three ways: (1) as a column of X (recommended, no routing needed): a DataFrame with "
        f"a column {name!r}, which splitters, rankers and scorers read and rankers never use "
        "as a feature (another name: qid_column=...); (2) with metadata routing, "
        "sklearn.set_config(enable_metadata_routing=True), then cross_validate(..., "
        "params={'qid': qid}) or SearchCV(...).fit(X, y, qid=qid); (3) groups=qid, which "
        "reaches only the splitter (QueryKFold, GroupKFold), never a ranker or a scorer. "
        f"Metadata routing is {routing} now. The package's cross_validate_ranking and "
        "Ranking*SearchCV take qid=qid directly."
    )


# --------------------------------------------------------------------------------------------
# X's rows, and the query ids of every form for them
# --------------------------------------------------------------------------------------------


def n_rows(X):
    """The number of rows of ``X`` (an array, a DataFrame or a sequence)."""
    return X.shape[0] if hasattr(X, "shape") else len(X)


def is_dataframe(X):
    """Whether ``X`` is a pandas DataFrame (or quacks like one: ``iloc`` and ``columns``)."""
    return hasattr(X, "iloc") and hasattr(X, "columns")


def check_qid_length(qid, n_rows):
    """Raise ``ValueError`` unless ``qid`` (1-D) holds one query id per row of ``X``."""
    if qid.shape[0] != n_rows:
        raise ValueError(
            f"qid has {qid.shape[0]} entries but X has {n_rows} rows; pass one query id per "
            "row of X."
        )
    return qid


def qid_of(X, qid=None, groups=None, qid_column=DEFAULT_QID_COLUMN, *, owner):
    """The query ids of ``X``'s rows from any form, as a 1-D array with one id per row.

    ``qid`` (an argument, or routed metadata) wins over ``groups`` (scikit-learn's name with
    metadata routing off), which wins over ``X``'s column ``qid_column``; with none,
    :class:`MissingQueryIdsError` (:func:`missing_qid_message`).

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"bm25": [3.0, 1.0, 2.0], "qid": [7, 7, 8]})
    >>> qid_of(X, owner="QueryKFold.split").tolist()
    [7, 7, 8]
    >>> qid_of(X, groups=["a", "a", "b"], owner="QueryKFold.split").tolist()
    ['a', 'a', 'b']
    """
    ids = qid if qid is not None else groups
    ids = check_1d(required_qid(X, ids, qid_column, owner=owner), "qid")
    return check_qid_length(ids, n_rows(X))


# --------------------------------------------------------------------------------------------
# the array form: one kind of id, none missing
# --------------------------------------------------------------------------------------------


def _qid_kind(value):
    """The kind of a query id for the one-kind rule: ints and floats are both numbers."""
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, numbers.Real) and not isinstance(value, (np.datetime64, np.timedelta64)):
        return "number"
    if isinstance(value, str):
        return "str"
    return type(value).__name__


def check_qid(qid, name="qid"):
    """Query ids as a 1-D numpy array of one kind, without missing values.

    Query ids may be of any hashable type (int, float, str, bytes, tuples, dates...), but all
    of one kind: ``[1, "a", 1]`` is refused rather than turned into strings (which would make
    ``1`` and ``"1"`` one query), and ``b"q0"`` is never merged with ``"q0"``. Ints and floats
    count as one kind (numbers), as pandas groups them. Missing ids (``None``, ``NaN``,
    ``pd.NA``, ``NaT``) are refused: every row needs a query.

    Parameters
    ----------
    qid : array-like
        A list, tuple, numpy array, pandas Series, Index or Categorical.
    name : str, default="qid"
        Parameter name for error messages.

    Returns
    -------
    numpy.ndarray
        The ids; a list of one scalar kind becomes the array numpy makes of it (``int64``,
        ``float64``, ``<U``...), object arrays stay object arrays.

    Raises
    ------
    TypeError
        Ids of more than one kind, or unhashable ids.
    ValueError
        A missing id (naming its row), a 2-D input or an empty one.

    Examples
    --------
    >>> check_qid(["q1", "q1", "q2"])
    array(['q1', 'q1', 'q2'], dtype='<U2')
    >>> try:
    ...     check_qid([1, "a", 1])
    ... except TypeError as err:
    ...     print(str(err)[:48])
    qid mixes value types (number, str): row 0 holds
    """
    return check_qid_runs(qid, name)[0]


def check_qid_runs(qid, name="qid", n_threads=1, heads=False):
    """:func:`check_qid`, and the starts of the runs of its ids: in object ids, of the very
    same object (addresses compared in threads), or else of equal ids when every id is a
    ``str`` (the engine's ``object_id_runs``); in 32/64-bit integer and float ids, of equal
    ids (``id_runs``); None for other ids, or when there are none or too many. The grouping
    then need not find them again, and the check of the labels counts the relevant rows of
    each run as it reads them. ``heads``: a third item, the id of each run where the same
    pass read it (32/64-bit integer and float ids), else None."""
    arr, found = _qid_runs(qid, name, n_threads)
    starts, run_heads = found if isinstance(found, tuple) else (found, None)
    return (arr, starts, run_heads) if heads else (arr, starts)


def _qid_runs(qid, name, n_threads):
    """:func:`check_qid_runs`: ``(arr, runs)``, runs as ``(starts, heads)`` for fixed-width
    ids (read in one pass), as starts or None for other ids."""
    if isinstance(qid, (list, tuple)):
        arr = np.fromiter(qid, dtype=object, count=len(qid))
        if any(isinstance(v, (list, np.ndarray)) for v in arr[:1]):
            check_1d(qid, name)  # raises the 1-D error (or converts nested lists)
        converted = True
    else:
        arr = check_1d(qid, name)
        converted = False
    if arr.shape[0] == 0:
        check_1d(arr, name)  # raises "is empty"
    if arr.dtype.kind in "fmM":
        missing = np.isnan(arr) if arr.dtype.kind == "f" else np.isnat(arr)
        if missing.any():
            _raise_missing_qid(arr, missing, name)
        return arr, id_runs(arr, n_threads, heads=True)
    if arr.dtype != object:
        return arr, id_runs(arr, n_threads, heads=True)
    # One row per run of the very same object has every id object there is: check those.
    # Strings built one object per row: runs of equal strings, when every id is a str.
    ids = np.ascontiguousarray(arr)
    runs = object_id_runs(ids, arr.shape[0] // 4, n_threads)
    if runs is None and not converted and all_strings(ids):
        return arr, None  # rows in random order, every id a str: none missing, one kind
    sample = arr if runs is None else arr[runs]
    if runs is not None and not converted and all_strings(sample):
        return arr, runs  # one object per run, every one a str: none missing, one kind
    if pd.isna(sample).any():
        _raise_missing_qid(arr, pd.isna(arr), name)
    inferred = pd.api.types.infer_dtype(sample, skipna=False)
    if inferred.startswith("mixed") and inferred != "mixed-integer-float":
        kinds = [_qid_kind(v) for v in sample]
        if len(set(kinds)) > 1:
            second = next(i for i, k in enumerate(kinds) if k != kinds[0])
            second = second if runs is None else int(runs[second])
            raise TypeError(
                f"{name} mixes value types ({', '.join(sorted(set(kinds)))}): row 0 holds "
                f"{short_repr(arr[0])}, row {second} holds {short_repr(arr[second])}; query ids "
                "must all be of one kind. Convert them on purpose first, e.g. "
                f"{name} = [str(q) for q in {name}]."
            )
        try:
            hash(arr[0])
        except TypeError:
            raise TypeError(
                f"{name} must hold hashable query ids, got {type(arr[0]).__name__} "
                f"{short_repr(arr[0])} at row 0; use ints or strings."
            ) from None
        return arr, runs
    if converted and inferred in ("string", "integer", "floating", "mixed-integer-float"):
        return np.asarray(arr.tolist()), None
    if converted and inferred == "boolean":
        return arr.astype(bool), None
    return arr, runs


def _raise_missing_qid(arr, missing, name):
    first = int(np.flatnonzero(missing)[0])
    raise ValueError(
        f"{name} has missing values ({int(missing.sum())}, first at row {first}: "
        f"{short_repr(arr[first])}); every row needs a query id. Drop those rows or give them ids."
    )
