"""Rankers: the shared ranker interface and the baselines a ranking study compares with.

All four are scikit-learn estimators that take per-row query ids ``qid`` in ``fit`` and
``score``, and whose ``predict(X)`` returns one score per row in the caller's row order
(higher ranks first). The query ids come either from a column of a DataFrame ``X`` (``qid``,
or the name given as ``qid_column``; the column is dropped before the model sees ``X``, so it
is never a feature and ``feature_names_in_`` leaves it out) or as ``qid=``, which ``fit`` and
``score`` request through metadata routing by default, so ``cross_validate(...,
params={"qid": qid})`` works without ``set_fit_request`` once
``sklearn.set_config(enable_metadata_routing=True)`` is on.

- :class:`LambdaMARTRanker` (in ``_lambdamart.py``) wraps :class:`lightgbm.LGBMRanker`.
- :class:`RandomRanker` gives each row a uniform pseudo-random score that depends only on the
  row's feature values and the seed: the same row scores the same in any fold or row order.
- :class:`OracleRanker` ranks by the true labels (the upper bound); it needs ``y`` at predict.
- :class:`FeatureRanker` ranks by one feature column (the BM25-style single-signal baseline).
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils import RegressorTags
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from .._doc_link import DocLinkMixin, doc_parts
from .._engine import factorize_qid
from .._leakage import remember_training_queries, warn_if_queries_leak
from .._qid import (
    DEFAULT_QID_COLUMN,
    EstimatorMissingQueryIdsError,
    missing_qid_message,
    resolve_qid,
    split_qid_column,
)
from .._random import random_seed
from .._sklearn_calls import pipeline_dropped, unscorable_or_raise
from .._validation import (
    check_1d,
    check_consistent_length,
    check_labels,
    short_repr,
)

__all__ = ["FeatureRanker", "OracleRanker", "RandomRanker"]

_SPARSE_FORMATS = ("csr", "csc")

# --------------------------------------------------------------------------------------------
# private helpers
# --------------------------------------------------------------------------------------------


#: The docstring lines the baselines share, written once: a line ``{name}`` in a docstring
#: stands for ``_DOC_PARTS[name]``, indented as that line (:func:`ranker_doc`).
_DOC_PARTS = {
    "qid_column": (
        'qid_column : str or None, default="qid"\n'
        "    The column of a DataFrame ``X`` holding the query ids: ``fit`` and ``score`` read it\n"
        "    when no ``qid`` is passed, and every method drops it before the model sees ``X``\n"
        "    (never a feature). ``None``: no column is special."
    ),
    "features_in": (
        "n_features_in_ : int\n    Number of features seen in ``fit``.\n"
        "feature_names_in_ : ndarray of shape (`n_features_in_`,)\n"
        "    Column names, when ``X`` was a DataFrame with string column names."
    ),
    "predict_X": (
        "Parameters\n----------\n"
        "X : {array-like, sparse matrix} of shape (n_samples, n_features)\n    Features.\n\n"
        "Returns\n-------\nndarray of shape (n_samples,)\n    Scores."
    ),
}


#: Fill the shared lines (``{qid_column}``, ``{features_in}``, ``{predict_X}``) of a ranker's or
#: a method's docstring, so that the rankers say the same thing in the same words.
ranker_doc = doc_parts(_DOC_PARTS)


def _splitmix64(h):
    """Return the splitmix64 finaliser of a uint64 array (wrap-around arithmetic)."""
    h = h + np.uint64(0x9E3779B97F4A7C15)
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


def _row_hashes(X, seed, *, block_elements=1 << 20):
    """Return one uint64 hash per row of ``X`` from its float64 values and ``seed``.

    Equal rows (``-0.0`` and ``0.0`` counted equal) get equal hashes whatever their position;
    sparse matrices are densified a block of rows at a time to bound memory.
    """
    n_rows, n_cols = X.shape
    col_keys = _splitmix64(np.arange(n_cols, dtype=np.uint64) + np.uint64(n_cols))
    seed_key = _splitmix64(np.array([seed % (1 << 64)], dtype=np.uint64))[0]
    out = np.empty(n_rows, dtype=np.uint64)
    step = max(1, block_elements // max(n_cols, 1))
    for start in range(0, n_rows, step):
        block = X[start : start + step]
        block = block.toarray() if sp.issparse(block) else np.asarray(block)
        # + 0.0 maps -0.0 to 0.0 so that equal values have equal bits.
        bits = np.ascontiguousarray(block, dtype=np.float64) + 0.0
        bits[np.isnan(bits)] = np.nan  # one bit pattern for every NaN
        mixed = _splitmix64(bits.view(np.uint64) ^ col_keys)
        out[start : start + step] = _splitmix64(mixed.sum(axis=1, dtype=np.uint64) ^ seed_key)
    return out


def _hash_to_unit(h):
    """Map uint64 hashes to floats uniform on [0, 1) (the top 53 bits)."""
    return (h >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


def _check_n_rows(values, n_rows, name):
    """Raise if ``values`` is not 1-D with ``n_rows`` entries (``None`` passes)."""
    if values is None:
        return None
    arr = check_1d(values, name, allow_empty=True)
    check_consistent_length(X=np.empty(n_rows), **{name: arr})
    return arr


class _RankerMixin(DocLinkMixin):
    """Shared ranking behaviour: ``qid`` routing defaults, ``score`` = mean NDCG@10, and the
    estimator type "regressor" (a ranker predicts a relevance score per row)."""

    # Metadata routing: request qid for fit and score by default (public class-attribute
    # mechanism read by sklearn.utils.metadata_routing).
    __metadata_request__fit = {"qid": True}  # noqa: RUF012
    __metadata_request__score = {"qid": True}  # noqa: RUF012

    #: Dtypes ``predict`` accepts (LambdaMART also keeps float32 for LightGBM).
    _predict_dtype: type | tuple[type, ...] = np.float64

    def __sklearn_tags__(self):
        # A ranker is a regressor of relevance: partial_dependence, VotingRegressor and
        # check_cv treat it as one (check_cv(5) then gives KFold, which splits queries: use
        # QueryKFold). Its score is NDCG@10, not R², so poor_score is set.
        tags = super().__sklearn_tags__()
        tags.estimator_type = "regressor"
        tags.regressor_tags = RegressorTags(poor_score=True)
        tags.target_tags.positive_only = True  # relevance grades are >= 0
        return tags

    def _features(self, X):
        """``X`` without its query-id column (``qid_column``), if it has one."""
        return split_qid_column(X, getattr(self, "qid_column", DEFAULT_QID_COLUMN))[0]

    def _query_ids(self, X, qid, method, *, required=True):
        """``(features, qid)``: ``X`` without its query-id column, and the query ids to use.

        A ``qid`` passed wins over the column (both must agree). With ``required`` and no query
        ids from either, raise :class:`MissingQueryIdsError` naming the three ways.
        """
        owner = f"{type(self).__name__}.{method}"
        column = getattr(self, "qid_column", DEFAULT_QID_COLUMN)
        features, qid = resolve_qid(X, qid, column, owner=owner)
        if qid is None and required:
            raise EstimatorMissingQueryIdsError(missing_qid_message(owner, X, column))
        if method == "fit":  # the training queries, for the leakage warning of scoring
            remember_training_queries(self, qid)
        return features, qid

    def _validate_predict(self, X):
        """Check that the ranker is fitted and ``X`` matches the features seen in ``fit``."""
        check_is_fitted(self)
        X = self._features(X)
        return validate_data(
            self, X, accept_sparse=_SPARSE_FORMATS, dtype=self._predict_dtype, reset=False
        )

    def _score_without_qid(self, X):
        """The error of ``score`` without query ids, saying where they were dropped."""
        owner = f"{type(self).__name__}.score"
        message = missing_qid_message(owner, X, getattr(self, "qid_column", DEFAULT_QID_COLUMN))
        if pipeline_dropped("qid"):
            message = (
                "Pipeline.score(X, y, qid=qid) got qid, but with metadata routing off "
                "scikit-learn's Pipeline passes its final step only sample_weight: the "
                "Pipeline dropped qid (sklearn.set_config(enable_metadata_routing=True) passes "
                "it on). " + message
            )
        elif getattr(self, "_ltr_training_queries", None) is not None:
            message += (
                " This ranker was fitted with query ids: with routing off, qid passed to "
                "fit (cross_validate(..., params={'qid': qid})) never reaches score."
            )
        return EstimatorMissingQueryIdsError(message)

    def score(self, X, y, qid=None, sample_weight=None):
        """Return the mean NDCG@10 over queries of this ranker's scores for ``X``.

        NDCG uses exponential gains ``2**y - 1``, the exact expectation over orderings of
        tied scores (``ties="average"``) and skips queries without a relevant row (they have
        no ideal DCG), as :func:`evaluate` does by default. This is what ``GridSearchCV`` and
        ``cross_validate`` use with ``scoring=None`` (also through a Pipeline, whose ``score``
        passes ``sample_weight``).

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Features; a DataFrame may hold the query ids in its column ``qid_column``.
        y : array-like of shape (n_samples,)
            True relevance grades (>= 0).
        qid : array-like of shape (n_samples,), default=None
            Query id of each row (requested through metadata routing by default); ``None``
            reads the column ``qid_column`` of ``X``. Without either,
            :class:`~sklearn_ltr_metrics.metrics.MissingQueryIdsError`.
        sample_weight : array-like of shape (n_samples,), default=None
            Query weights given per row: every row of a query must carry its query's weight.
            The result is then the weighted mean of NDCG@10 over queries.

        Returns
        -------
        float
            (Weighted) mean of NDCG@10 over the queries that have a relevant row.
        """
        features, qid = self._query_ids(X, qid, "score", required=False)
        if getattr(self, "predict_needs_y", False):
            y_score = self.predict(features, y=y)
        else:
            y_score = self.predict(features)
        if qid is None:
            return unscorable_or_raise(self._score_without_qid(X))
        from ..metrics import evaluate

        values = evaluate(y, y_score, qid=qid, metrics=("ndcg@10",)).per_query["ndcg@10"]
        warn_if_queries_leak(self, qid)
        if sample_weight is None:
            return float(values.mean())
        weights = _query_weights(sample_weight, qid)
        defined = ~np.isnan(values.to_numpy())
        if not (weights[defined] > 0).any():
            return float("nan")
        return float(np.average(values.to_numpy()[defined], weights=weights[defined]))


def _query_weights(sample_weight, qid):
    """One weight per query (sorted by id) from per-row weights that are constant per query."""
    w = check_1d(sample_weight, "sample_weight", dtype=np.float64)
    codes, uniques = factorize_qid(check_1d(qid, "qid"), "qid")
    check_consistent_length(qid=codes, sample_weight=w)
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("sample_weight must be finite and >= 0.")
    per_query = np.zeros(uniques.shape[0])
    per_query[codes] = w
    varies = per_query[codes] != w
    if varies.any():
        q = uniques[codes[np.flatnonzero(varies)[0]]]
        q = q.item() if isinstance(q, np.generic) else q
        raise ValueError(
            f"sample_weight differs between rows of query {q!r}; a ranking score weights "
            "queries, so give every row of a query the same weight."
        )
    return per_query


# --------------------------------------------------------------------------------------------
# baselines
# --------------------------------------------------------------------------------------------


class _BaselineRanker(_RankerMixin, BaseEstimator):
    """Common ``fit`` checks of the baselines: ``y`` and ``qid`` are optional and unused."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def fit(self, X, y=None, qid=None):
        """Check the inputs and set what the baseline needs; nothing is learned from ``y``.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Features; a DataFrame's column ``qid_column`` is dropped (never a feature).
        y : array-like of shape (n_samples,), default=None
            Ignored; accepted (and length-checked) for a uniform ranker interface.
        qid : array-like of shape (n_samples,), default=None
            Ignored; accepted (and length-checked) for a uniform ranker interface.

        Returns
        -------
        self : ranker
        """
        X, qid = self._query_ids(X, qid, "fit", required=False)
        X = validate_data(self, X, accept_sparse=_SPARSE_FORMATS, dtype=np.float64, reset=True)
        if y is not None:
            y = check_labels(column_or_1d(y, warn=True), "y", allow_negative=True)
        _check_n_rows(y, X.shape[0], "y")
        _check_n_rows(qid, X.shape[0], "qid")
        self._fit_baseline()
        return self

    def _fit_baseline(self):
        """Set the baseline's fitted attributes (after the feature checks)."""


@ranker_doc
class RandomRanker(_BaselineRanker):
    """Uniform random ranking that is a fixed function of each row and the seed.

    The score of a row is a uniform [0, 1) value computed from a hash (splitmix64) of the row's
    feature values and the seed. Within a query of distinct rows this gives a uniformly random
    ordering, yet the same row gets the same score in every fold, subset and row order.
    Identical rows get identical scores (a tie).

    Parameters
    ----------
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        The package's random-state policy: an int is used as the seed directly, so results
        are reproducible; ``None`` (fresh entropy), a Generator or a RandomState draws a seed
        at ``fit`` (a seeded Generator or RandomState reproducibly).
    {qid_column}

    Attributes
    ----------
    seed_ : int
        The seed used by ``predict``.
    {features_in}

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ltr_metrics import RandomRanker
    >>> X = np.array([[1.0, 2.0], [3.0, 4.0], [1.0, 2.0]])
    >>> ranker = RandomRanker(random_state=0).fit(X)
    >>> s = ranker.predict(X)
    >>> bool(s[0] == s[2]), bool(0 <= s.min() and s.max() < 1)
    (True, True)
    >>> bool(ranker.predict(X[::-1])[0] == s[2])
    True
    """

    def __init__(self, random_state=None, *, qid_column=DEFAULT_QID_COLUMN):
        self.random_state = random_state
        self.qid_column = qid_column

    def _fit_baseline(self):
        # Fix the seed: the given int, or one drawn now (the package's random-state policy).
        self.seed_ = random_seed(self.random_state)

    @ranker_doc
    def predict(self, X):
        """Return a uniform [0, 1) score per row, a function of the row and ``seed_``.

        {predict_X}
        """
        X = self._validate_predict(X)
        return _hash_to_unit(_row_hashes(X, self.seed_))


@ranker_doc
class OracleRanker(_BaselineRanker):
    """The perfect ranking: scores are the true labels (the upper bound of every metric).

    ``predict(X, y=y_true)`` returns ``y_true`` as float scores. Without ``y`` it raises a
    ``ValueError``: the oracle needs the labels. The package's scorers,
    ``cross_validate_ranking`` and ``evaluate`` paths recognise the oracle (class attribute
    ``predict_needs_y = True``) and pass the labels themselves, as does ``score``.

    Parameters
    ----------
    {qid_column}

    Attributes
    ----------
    predict_needs_y : bool
        ``True`` (a class attribute): ``predict`` ranks by the labels it is given. Any
        estimator that sets it gets ``predict(X, y=y)`` from the package's scorers.
    {features_in}

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ltr_metrics import OracleRanker
    >>> X = np.zeros((3, 2))
    >>> OracleRanker().fit(X).predict(X, y=[2, 0, 1])
    array([2., 0., 1.])
    """

    predict_needs_y = True

    def __init__(self, *, qid_column=DEFAULT_QID_COLUMN):
        self.qid_column = qid_column

    def predict(self, X, y=None):
        """Return the true labels ``y`` as scores, in the rows' order.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Features (checked, otherwise unused).
        y : array-like of shape (n_samples,)
            The true relevance labels of these rows. Required.

        Returns
        -------
        ndarray of shape (n_samples,)
            ``y`` as float64.
        """
        X = self._validate_predict(X)
        if y is None:
            raise ValueError(
                "OracleRanker ranks rows by their true labels, so predict needs them: call "
                "predict(X, y=y_true). The package's scorers (make_ranking_scorer), "
                "cross_validate_ranking and evaluate paths pass the labels automatically; "
                "plain scikit-learn code that calls predict(X) cannot use the oracle."
            )
        y = check_labels(y, "y", allow_negative=True)
        check_consistent_length(X=np.empty(X.shape[0]), y=y)
        return y.copy()


@ranker_doc
class FeatureRanker(_BaselineRanker):
    """Rank by one feature column, e.g. BM25 in LETOR data (the single-signal baseline).

    Parameters
    ----------
    feature : int or str
        Column to rank by: an int is a position ``0 .. n_features - 1`` (always, even for a
        DataFrame); a str is a column name and needs ``X`` to be a DataFrame with string
        column names at ``fit``.
    ascending : bool, default=False
        ``False``: larger values rank first. ``True``: smaller values rank first (the
        scores are the negated column), e.g. for a distance.
    {qid_column}

    Attributes
    ----------
    feature_index_ : int
        Position of the column in ``X``.
    {features_in}

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_ltr_metrics import FeatureRanker
    >>> X = pd.DataFrame({"bm25": [3.0, 1.0, 2.0], "pagerank": [0.1, 0.9, 0.5]})
    >>> FeatureRanker("bm25").fit(X).predict(X)
    array([3., 1., 2.])
    >>> FeatureRanker(1, ascending=True).fit(X).predict(X)
    array([-0.1, -0.9, -0.5])
    """

    def __init__(self, feature, ascending=False, *, qid_column=DEFAULT_QID_COLUMN):
        self.feature = feature
        self.ascending = ascending
        self.qid_column = qid_column

    def _fit_baseline(self):
        # Find the column to rank by.
        feature, n_features = self.feature, self.n_features_in_
        if isinstance(feature, numbers.Integral) and not isinstance(feature, bool):
            if not 0 <= feature < n_features:
                raise ValueError(
                    f"feature={feature!r} is out of range: X has {n_features} columns, so a "
                    f"column index must be in 0..{n_features - 1}."
                )
            self.feature_index_ = int(feature)
        elif isinstance(feature, str):
            names = getattr(self, "feature_names_in_", None)
            if names is None:
                raise ValueError(
                    f"feature={feature!r} is a column name, but X has no string column names; "
                    "fit on a pandas DataFrame with that column or pass an integer index "
                    f"0..{n_features - 1}."
                )
            hits = np.flatnonzero(names == feature)
            if hits.size == 0:
                shown = ", ".join(map(repr, names[:30])) + (" ..." if len(names) > 30 else "")
                raise ValueError(
                    f"feature={feature!r} is not a column of X; available columns: {shown}."
                )
            self.feature_index_ = int(hits[0])
        else:
            raise TypeError(
                f"feature must be a column index (int) or a column name (str), got "
                f"{short_repr(feature)}."
            )
        if not isinstance(self.ascending, (bool, np.bool_)):
            raise TypeError(f"ascending must be True or False, got {short_repr(self.ascending)}.")

    @ranker_doc
    def predict(self, X):
        """Return the chosen column (negated when ``ascending``) as scores.

        {predict_X}
        """
        X = self._validate_predict(X)
        column = X[:, self.feature_index_]
        column = column.toarray().ravel() if sp.issparse(column) else np.array(column)
        return -column if self.ascending else column
