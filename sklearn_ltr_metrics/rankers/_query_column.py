"""``QueryColumn``: a transformer step of a Pipeline that keeps the query-id column of ``X``.

A ``StandardScaler`` (or any transformer) in front of a ranker would scale the ``qid`` column
with the features and return an array without column names, so the ranker at the end of the
Pipeline could no longer find the query ids. ``QueryColumn(StandardScaler())`` transforms every
other column and puts the query-id column back, unchanged, in a pandas DataFrame.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, MetaEstimatorMixin, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted, validate_data

from .._qid import DEFAULT_QID_COLUMN, check_qid_column, frame_columns, split_qid_column
from .._validation import short_repr

__all__ = ["QueryColumn"]


def _feature_names(transformer, features, n_columns):
    """Output column names: the transformer's ``get_feature_names_out``, else ``x0, x1...``."""
    columns = frame_columns(features)
    try:
        names = transformer.get_feature_names_out(columns)
    except (AttributeError, TypeError, ValueError):
        names = None
    if names is None or len(names) != n_columns:
        return [f"x{i}" for i in range(n_columns)]
    return [str(name) for name in names]


class QueryColumn(MetaEstimatorMixin, TransformerMixin, BaseEstimator):
    """Transform the features of ``X`` and keep its query-id column beside them.

    The Pipeline pattern of the ``qid`` column convention: ``make_pipeline(QueryColumn(
    StandardScaler()), LambdaMARTRanker())`` scales the features, never the query ids, and
    hands the ranker a pandas DataFrame that still holds the ``qid`` column, which the ranker
    reads and drops. Without the column in ``X`` (an array, or routing passing ``qid``), it is
    the wrapped transformer, output as it gives it.

    Parameters
    ----------
    transformer : transformer
        Applied (a clone, fitted) to every column except the query-id column.
    qid_column : str, default="qid"
        The query-id column kept unchanged.

    Attributes
    ----------
    transformer_ : transformer
        The fitted clone of ``transformer``.
    has_qid_column_ : bool
        Whether ``X`` had the query-id column at ``fit``.
    n_features_in_ : int
        Number of columns seen in ``fit``, the query-id column included.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Column names, when ``X`` was a DataFrame with string column names (``qid`` included).

    See Also
    --------
    sklearn.compose.ColumnTransformer : the same with ``remainder="passthrough"``,
        ``verbose_feature_names_out=False`` and ``.set_output(transform="pandas")``.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_ltr_metrics.rankers import QueryColumn
    >>> X = pd.DataFrame({"bm25": [1.0, 3.0, 2.0, 4.0], "qid": [7, 7, 8, 8]})
    >>> QueryColumn(StandardScaler()).fit_transform(X).round(3)
        bm25  qid
    0 -1.342    7
    1  0.447    7
    2 -0.447    8
    3  1.342    8
    """

    def __init__(self, transformer, *, qid_column=DEFAULT_QID_COLUMN):
        self.transformer = transformer
        self.qid_column = qid_column

    def fit(self, X, y=None, **fit_params):
        """Fit a clone of ``transformer`` on every column of ``X`` except the query ids.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Features, with the query-id column ``qid_column`` when a DataFrame.
        y : array-like of shape (n_samples,), default=None
            Passed to the transformer's ``fit``.
        **fit_params : dict
            Passed to the transformer's ``fit``.

        Returns
        -------
        self : QueryColumn
        """
        if not (hasattr(self.transformer, "fit") and hasattr(self.transformer, "transform")):
            raise TypeError(
                f"transformer must have fit and transform, got {short_repr(self.transformer)}."
            )
        column = check_qid_column(self.qid_column)
        validate_data(self, X, skip_check_array=True, reset=True)
        features, qid = split_qid_column(X, column)
        self.transformer_ = clone(self.transformer).fit(features, y, **fit_params)
        self.has_qid_column_ = qid is not None
        return self

    def transform(self, X):
        """Transform the features; return a DataFrame with the query-id column put back.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Features, with the query-id column ``qid_column`` when a DataFrame.

        Returns
        -------
        DataFrame or array-like
            The transformed features and, last, the query-id column unchanged (a pandas
            DataFrame, on ``X``'s index for a pandas ``X``); without that column in ``X``,
            the transformer's output as it is.
        """
        check_is_fitted(self)
        validate_data(self, X, skip_check_array=True, reset=False)
        features, qid = split_qid_column(X, self.qid_column)
        out = self.transformer_.transform(features)
        if qid is None:
            return out
        if not isinstance(out, pd.DataFrame):
            dense = out.toarray() if sp.issparse(out) else np.asarray(out)
            index = X.index if isinstance(X, pd.DataFrame) else None
            names = _feature_names(self.transformer_, features, dense.shape[1])
            out = pd.DataFrame(dense, columns=names, index=index)
        if self.qid_column in out.columns:
            raise ValueError(
                f"{type(self.transformer_).__name__} outputs a column named "
                f"{self.qid_column!r}, the query-id column QueryColumn puts back; rename one."
            )
        return out.assign(**{self.qid_column: qid})

    def get_feature_names_out(self, input_features=None):
        """Names of the output columns: the transformer's, then the query-id column.

        Parameters
        ----------
        input_features : array-like of str, default=None
            Ignored; the names seen in ``fit`` are used.

        Returns
        -------
        ndarray of str
        """
        check_is_fitted(self)
        names = list(self.transformer_.get_feature_names_out())
        return np.asarray(
            [*names, self.qid_column] if self.has_qid_column_ else names, dtype=object
        )
