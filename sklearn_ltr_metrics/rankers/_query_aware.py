"""``QueryAwareRanker``: per-row ``qid`` for third-party rankers that want their own group form.

LightGBM's ``LGBMRanker`` wants rows sorted by query and ``group`` (query sizes), XGBoost's
``XGBRanker`` wants rows sorted by ``qid``, CatBoost's ``CatBoostRanker`` wants ``group_id``.
The meta-estimator sorts the rows by query id (stably), builds that form from per-row ``qid``,
fits a clone of the wrapped ranker, and predicts row by row in the caller's order, so the
wrapped ranker works in ``cross_validate``, the searches, pipelines and the package's helpers
like any other estimator.
"""

from __future__ import annotations

import inspect

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from .._engine import factorize_qid
from .._qid import DEFAULT_QID_COLUMN, is_dataframe
from .._validation import (
    check_1d,
    check_choice,
    check_consistent_length,
    check_labels,
    short_repr,
    take_rows,
)
from ._base import _RankerMixin, ranker_doc
from ._lightgbm_data import _check_sample_weight

__all__ = ["QueryAwareRanker"]

#: How the wrapped ranker's ``fit`` takes the queries, in the order ``"auto"`` tries them.
_QUERY_PARAMS = ("qid", "group_id", "group")


@ranker_doc
class QueryAwareRanker(_RankerMixin, MetaEstimatorMixin, BaseEstimator):
    """Give a third-party ranker per-row query ids: ``fit(X, y, qid=qid)``, rows in any order.

    ``fit`` sorts the rows by query id (stably: rows of a query keep their order), passes the
    queries in the form the wrapped ranker's ``fit`` takes, and fits a clone of it;
    ``predict`` scores each row in the caller's order (these rankers score rows
    independently, so ``predict`` needs no ``qid``). ``fit`` and ``score`` request ``qid``
    through metadata routing, and ``score`` is the package's mean NDCG@10 over queries (not
    the wrapped ranker's own ``score``, which may treat all rows as one query).

    Parameters
    ----------
    estimator : estimator
        The ranker to wrap, e.g. ``lightgbm.LGBMRanker()``, ``xgboost.XGBRanker()`` or
        ``catboost.CatBoostRanker()``. Its parameters are reachable as
        ``estimator__<name>`` in searches.
    query_param : {"auto", "qid", "group_id", "group"}, default="auto"
        How the wrapped ``fit`` takes the queries: ``"qid"`` (per-row ids of the sorted rows,
        XGBoost), ``"group_id"`` (the same, CatBoost), ``"group"`` (the sizes of the
        consecutive queries, LightGBM). ``"auto"`` takes the first of these that the wrapped
        ``fit`` has as a parameter.
    qid_column : str or None, default="qid"
        The column of a DataFrame ``X`` holding the query ids: ``fit`` and ``score`` read it
        when no ``qid`` is passed, and every method drops it before the wrapped ranker sees
        ``X`` (so XGBoost never reads it itself and no model uses it as a feature). ``None``:
        no column is special.

    Attributes
    ----------
    estimator_ : estimator
        The fitted clone of ``estimator``.
    query_param_ : str
        The form used.
    {features_in}

    Notes
    -----
    ``X`` reaches the wrapped ranker as given (a DataFrame stays a DataFrame, so LightGBM's
    categorical columns and feature names work); arrays are checked for a numeric dtype and a
    2-D shape. NaN is passed through: LightGBM, XGBoost and CatBoost treat it as missing.
    Further keyword arguments of ``fit`` go to the wrapped ``fit`` unchanged (rows of
    ``eval_set`` are not reordered: give them sorted by query as the wrapped ranker wants).
    CatBoost is not installed in this project's test environment; ``group_id`` is tested with
    a stand-in estimator that records what it receives.

    Examples
    --------
    >>> import numpy as np
    >>> from lightgbm import LGBMRanker
    >>> from sklearn_ltr_metrics.rankers import QueryAwareRanker
    >>> X = np.array([[0.0], [2.0], [1.0], [0.5], [2.5], [1.5]])
    >>> y = np.array([0, 2, 1, 0, 2, 1])
    >>> qid = np.array([1, 1, 1, 2, 2, 2])
    >>> order = np.array([3, 0, 5, 1, 4, 2])  # rows need not be sorted by query
    >>> model = QueryAwareRanker(
    ...     LGBMRanker(n_estimators=5, min_child_samples=1, verbose=-1)
    ... ).fit(X[order], y[order], qid=qid[order])
    >>> model.query_param_
    'group'
    >>> scores = model.predict(X)
    >>> bool(scores[1] > scores[2] > scores[0])
    True
    >>> model.score(X, y, qid=qid)
    1.0
    """

    def __init__(self, estimator, *, query_param="auto", qid_column=DEFAULT_QID_COLUMN):
        self.estimator = estimator
        self.query_param = query_param
        self.qid_column = qid_column

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # the wrapped rankers treat NaN as missing
        tags.input_tags.sparse = True
        return tags

    def _query_param(self):
        param = check_choice(self.query_param, "query_param", ("auto", *_QUERY_PARAMS))
        if param != "auto":
            return param
        try:
            names = inspect.signature(self.estimator.fit).parameters
        except (TypeError, ValueError, AttributeError):
            names = {}
        for name in _QUERY_PARAMS:
            if name in names:
                return name
        raise TypeError(
            f"{type(self.estimator).__name__}.fit takes none of {list(_QUERY_PARAMS)}, so "
            "QueryAwareRanker cannot pass it the queries; wrap a ranker such as LGBMRanker, "
            "XGBRanker or CatBoostRanker, or set query_param explicitly."
        )

    def _check_X(self, X, *, reset):
        if is_dataframe(X):
            validate_data(self, X, skip_check_array=True, reset=reset)
            return X
        X = validate_data(
            self, X, accept_sparse=("csr", "csc"), ensure_all_finite="allow-nan", reset=reset
        )
        return sp.csr_matrix(X) if sp.issparse(X) else X  # LightGBM knows no sparse arrays

    # Metadata routing: position (XGBoost's unbiased lambdarank) is requested with qid.
    __metadata_request__fit = {"qid": True, "position": True}  # noqa: RUF012

    def fit(self, X, y, qid=None, sample_weight=None, position=None, **fit_params):
        """Sort the rows by query, build the wrapped ranker's query form, and fit a clone.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Features; a DataFrame's column ``qid_column`` is dropped (never a feature).
        y : array-like of shape (n_samples,)
            Relevance grades.
        qid : array-like of shape (n_samples,), default=None
            Query id of every row (any hashable ids, rows in any order); ``None`` reads the
            column ``qid_column`` of ``X``. Without either,
            :class:`~sklearn_ltr_metrics.metrics.MissingQueryIdsError`.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-row weights, reordered with the rows.
        position : array-like of shape (n_samples,), default=None
            The rank each row was shown at when its click label was logged, for XGBoost's
            unbiased lambdarank (``XGBRanker(lambdarank_unbiased=True)``; any other wrapped
            ranker refuses it). XGBoost reads a row's position as its order inside its query
            group, so the rows are sorted by (qid, position) (ties: input order); only the
            order matters, not the values. XGBoost learns biases for the first 32 positions
            only (deeper rows share the last), and not with distributed training.
        **fit_params : dict
            Passed to the wrapped ``fit`` unchanged.

        Returns
        -------
        self : QueryAwareRanker
        """
        if not hasattr(self.estimator, "fit") or not hasattr(self.estimator, "predict"):
            raise TypeError(
                "estimator must be a ranker with fit and predict, got "
                f"{short_repr(self.estimator)}."
            )
        param = self._query_param()
        features, qid = self._query_ids(X, qid, "fit", required=False)
        features = self._check_X(features, reset=True)
        n_rows = features.shape[0]
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None."
            )
        y = check_labels(column_or_1d(y, warn=True), "y")
        if qid is None:
            self._query_ids(X, qid, "fit")  # raises MissingQueryIdsError, naming the ways
        X = features
        qid = check_1d(qid, "qid")
        check_consistent_length(X=np.empty(n_rows), y=y, qid=qid)
        codes, _ = factorize_qid(qid, "qid")
        order = np.argsort(codes, kind="stable")
        if position is not None:
            order = np.lexsort(
                (np.arange(n_rows), _unbiased_position(self, position, n_rows), codes)
            )
        sorted_codes = codes[order]
        queries = {
            "qid": sorted_codes,
            "group_id": sorted_codes,
            "group": np.bincount(sorted_codes),
        }
        kwargs = {param: queries[param], **fit_params}
        if sample_weight is not None:
            kwargs["sample_weight"] = _check_sample_weight(sample_weight, n_rows)[order]
        self.estimator_ = clone(self.estimator).fit(take_rows(X, order), y[order], **kwargs)
        self.query_param_ = param
        return self

    def predict(self, X):
        """Return the wrapped ranker's score of every row, in the given row order.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            Scores (higher ranks first).
        """
        check_is_fitted(self)
        X = self._check_X(self._features(X), reset=False)
        return np.asarray(self.estimator_.predict(X), dtype=np.float64).reshape(-1)


def _unbiased_position(ranker, position, n_rows):
    """``position`` as numbers, for a wrapped ranker that learns position bias (XGBoost)."""
    try:
        unbiased = ranker.estimator.get_params().get("lambdarank_unbiased", False)
    except AttributeError:
        unbiased = False
    if not unbiased:
        raise ValueError(
            f"position= needs a wrapped ranker that learns position bias from the rows' order, "
            f"XGBRanker(lambdarank_unbiased=True); {type(ranker.estimator).__name__} does not "
            "(for LightGBM use LambdaMARTRanker.fit(..., position=...))."
        )
    values = check_1d(position, "position", dtype=np.float64)
    check_consistent_length(X=np.empty(n_rows), position=values)
    if not np.isfinite(values).all():
        raise ValueError("position must be finite (the rank each row was shown at).")
    return values
