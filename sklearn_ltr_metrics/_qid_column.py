"""Query ids as a column of ``X``: the convention every family reads (XGBoost's ``qid`` column).

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

import numpy as np
import pandas as pd

from ._validation import short_repr

__all__ = [
    "DEFAULT_QID_COLUMN",
    "EstimatorMissingQueryIdsError",
    "MissingQueryIdsError",
    "check_qid_column",
    "column_qid",
    "frame_columns",
    "missing_qid_message",
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


def missing_qid_message(owner, X=None, qid_column=DEFAULT_QID_COLUMN):
    """The one message for a missing ``qid``: the three ways to pass the query ids.

    Examples
    --------
    >>> import numpy as np
    >>> print(missing_qid_message("QueryKFold.split", np.zeros((2, 1))))  # doctest: +ELLIPSIS
    QueryKFold.split needs the query id of every row (qid) and found none. ...
    """
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
