"""Query-safe splitters: ``QueryKFold`` and ``StratifiedQueryKFold``.

Both are scikit-learn cross-validators that read per-row query ids and keep every query
whole. They find them, in this order, as ``qid`` (requested through metadata routing, so
``cross_validate(..., cv=QueryKFold(5), params={"qid": qid})`` needs no ``groups``), as
``groups`` (what scikit-learn passes with routing off), or in the ``qid`` column of a DataFrame
``X`` (name: ``qid_column``), which needs neither.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.model_selection import BaseCrossValidator, GroupKFold

from .._engine import factorize_qid
from .._qid import DEFAULT_QID_COLUMN, qid_of
from .._random import check_random_state
from .._validation import check_1d, check_consistent_length, check_positive_int, short_repr

__all__ = ["QueryKFold", "StratifiedQueryKFold", "check_query_cv", "query_splits"]


class _QuerySplitter(BaseCrossValidator):
    """Shared ``split``: resolve ``qid`` (or ``groups``), assign whole queries to folds."""

    # Metadata routing: request qid (and groups, its routing-off name) for split.
    __metadata_request__split = {"qid": True, "groups": True}  # noqa: RUF012

    def __init__(
        self, n_splits=5, *, shuffle=False, random_state=None, qid_column=DEFAULT_QID_COLUMN
    ):
        self.n_splits = n_splits
        self.shuffle = shuffle
        self.random_state = random_state
        self.qid_column = qid_column

    def get_n_splits(self, X=None, y=None, groups=None, qid=None):
        """Return the number of folds, ``n_splits``.

        Parameters
        ----------
        X, y, groups, qid : object
            Ignored; accepted for compatibility.

        Returns
        -------
        int
        """
        return check_positive_int(self.n_splits, "n_splits", minimum=2)

    def split(self, X, y=None, groups=None, qid=None):
        """Yield ``(train, test)`` row indices; every query lies wholly on one side.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows; a DataFrame's column ``qid_column`` gives the query ids when neither ``qid``
            nor ``groups`` is passed.
        y : array-like of shape (n_samples,), default=None
            Relevance labels (required by :class:`StratifiedQueryKFold`).
        groups : array-like of shape (n_samples,), default=None
            Query ids, as scikit-learn passes them with metadata routing off (``groups=qid``).
        qid : array-like of shape (n_samples,), default=None
            Query id of every row (routed as ``qid`` when metadata routing is on). Takes
            precedence over ``groups``, which takes precedence over the column.

        Yields
        ------
        train, test : ndarray of int
        """
        n_splits = self.get_n_splits()
        if not isinstance(self.shuffle, (bool, np.bool_)):
            raise TypeError(f"shuffle must be True or False, got {short_repr(self.shuffle)}.")
        if not self.shuffle and self.random_state is not None:
            raise ValueError(
                f"random_state={short_repr(self.random_state)} has no effect without shuffling; "
                "pass shuffle=True or leave random_state=None."
            )
        ids = qid_of(X, qid, groups, self.qid_column, owner=f"{type(self).__name__}.split")
        codes, uniques = factorize_qid(ids, "qid")
        if uniques.shape[0] < n_splits:
            raise ValueError(
                f"n_splits={n_splits} is more than the {uniques.shape[0]} queries; every fold "
                "needs at least one whole query. Use fewer splits."
            )
        fold_of_query = self._assign(codes, uniques.shape[0], y, X)
        fold = fold_of_query[codes]
        rows = np.arange(codes.shape[0])
        for i in range(n_splits):
            test = fold == i
            yield rows[~test], rows[test]

    def _rng(self):
        return check_random_state(self.random_state)


class QueryKFold(_QuerySplitter):
    """K-fold over queries: each query's rows go to exactly one test fold.

    Without shuffling the folds are those of :class:`sklearn.model_selection.GroupKFold`
    over ``qid`` (queries assigned largest first to the fold with the fewest rows, so folds
    hold about the same number of rows); with ``shuffle=True`` the queries are permuted
    (``random_state``) and dealt into folds of nearly equal query counts.

    The query ids come from a ``qid`` column of a DataFrame ``X`` (routing off or on, nothing
    to pass), or as ``qid`` under metadata routing (``cross_validate(..., cv=QueryKFold(5),
    params={"qid": qid})``), or as ``groups=qid`` with routing off.

    Parameters
    ----------
    n_splits : int, default=5
        Number of folds, at least 2 and at most the number of queries.
    shuffle : bool, default=False
        Permute the queries before dealing them into folds.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        Seed of the permutation when ``shuffle=True``, the package's random-state policy
        (``None``: fresh entropy, a new permutation per ``split``).
    qid_column : str or None, default="qid"
        The column of a DataFrame ``X`` read for the query ids when neither ``qid`` nor
        ``groups`` is passed; ``None``: never read ``X``.

    See Also
    --------
    StratifiedQueryKFold : folds with the same mix of queries by number of relevant rows.

    Examples
    --------
    >>> import numpy as np
    >>> import sklearn
    >>> from sklearn.model_selection import cross_validate
    >>> from sklearn_ltr_metrics.model_selection import QueryKFold
    >>> from sklearn_ltr_metrics.metrics import make_ranking_scorer
    >>> from sklearn_ltr_metrics.rankers import FeatureRanker
    >>> X = np.array([[3.0], [1.0], [2.0], [0.5], [0.9], [0.1]])
    >>> y = np.array([1, 0, 0, 0, 1, 0])
    >>> qid = np.array(["a", "a", "a", "b", "b", "b"])
    >>> [qid[test].tolist() for _, test in QueryKFold(2).split(X, qid=qid)]
    [['b', 'b', 'b'], ['a', 'a', 'a']]
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     res = cross_validate(
    ...         FeatureRanker(0), X, y, cv=QueryKFold(2),
    ...         scoring=make_ranking_scorer("mrr"), params={"qid": qid},
    ...     )
    >>> res["test_score"]
    array([1., 1.])
    """

    def _assign(self, codes, n_queries, y, X):
        if not self.shuffle:
            folds = GroupKFold(n_splits=self.n_splits).split(
                np.empty((codes.shape[0], 0)), groups=codes
            )
            fold_of_query = np.empty(n_queries, dtype=np.intp)
            for i, (_, test) in enumerate(folds):
                fold_of_query[codes[test]] = i
            return fold_of_query
        order = self._rng().permutation(n_queries)
        fold_of_query = np.empty(n_queries, dtype=np.intp)
        for i, chunk in enumerate(np.array_split(order, self.n_splits)):
            fold_of_query[chunk] = i
        return fold_of_query


class StratifiedQueryKFold(_QuerySplitter):
    """K-fold over queries, stratified by each query's number of relevant rows (``n_pos``).

    Queries are sorted by ``n_pos`` (rows with ``y > 0``; ties by query id, or at random when
    ``shuffle=True``) and dealt to the folds in turn, so every fold gets the same mix of
    easy and hard queries, including queries without a relevant row (which most metrics
    skip). Each query lies wholly in one test fold. ``y`` is required.

    Routing as :class:`QueryKFold`: ``qid`` is requested through metadata routing, and
    ``groups=qid`` is accepted with routing off.

    Parameters
    ----------
    n_splits : int, default=5
        Number of folds, at least 2 and at most the number of queries.
    shuffle : bool, default=False
        Break ties between queries of equal ``n_pos`` at random instead of by query id.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        Seed of the tie-breaking permutation when ``shuffle=True`` (the package's policy).
    qid_column : str or None, default="qid"
        The column of a DataFrame ``X`` read for the query ids when neither ``qid`` nor
        ``groups`` is passed; ``None``: never read ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ltr_metrics.model_selection import StratifiedQueryKFold
    >>> qid = np.repeat(["a", "b", "c", "d"], 3)
    >>> y = np.array([1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0])  # n_pos: a 2, b 0, c 3, d 1
    >>> X = np.zeros((12, 1))
    >>> for _, test in StratifiedQueryKFold(2).split(X, y, qid=qid):
    ...     print(sorted(set(qid[test].tolist())))
    ['a', 'b']
    ['c', 'd']
    """

    def _assign(self, codes, n_queries, y, X):
        if y is None:
            raise ValueError(
                "StratifiedQueryKFold.split needs y, the relevance labels, to count each "
                "query's relevant rows; pass y (cross_validate and the searches do)."
            )
        y = check_1d(y, "y")
        check_consistent_length(qid=codes, y=y)
        n_pos = np.bincount(codes, weights=np.asarray(y, dtype=np.float64) > 0, minlength=n_queries)
        tiebreak = self._rng().permutation(n_queries) if self.shuffle else np.arange(n_queries)
        order = np.lexsort((tiebreak, n_pos))
        fold_of_query = np.empty(n_queries, dtype=np.intp)
        fold_of_query[order] = np.arange(n_queries) % self.n_splits
        return fold_of_query


def check_query_cv(cv):
    """``cv`` as a splitter: ``None`` -> ``QueryKFold(5)``, an int -> ``QueryKFold(cv)``."""
    if cv is None:
        cv = 5
    if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        return QueryKFold(n_splits=check_positive_int(cv, "cv", minimum=2))
    if isinstance(cv, (str, bytes)) or not (hasattr(cv, "split") or hasattr(cv, "__iter__")):
        raise TypeError(
            f"cv must be an int (that many QueryKFold folds over qid), a scikit-learn splitter "
            f"or an iterable of (train, test) index arrays, got {short_repr(cv)}."
        )
    return cv


def _reads(request):
    """Whether a metadata request value means "pass it" (True or an alias, not a sentinel)."""
    return request is True or (isinstance(request, str) and not request.startswith("$"))


def _split_params(cv):
    """Which of ``qid`` / ``groups`` ``cv.split`` reads (its metadata request, else signature)."""
    import inspect

    if hasattr(cv, "get_metadata_routing"):
        from sklearn.utils.metadata_routing import get_routing_for_object

        requests = get_routing_for_object(cv).split.requests
        return {name for name in ("qid", "groups") if _reads(requests.get(name))}
    try:
        parameters = inspect.signature(cv.split).parameters
    except (TypeError, ValueError):
        return set()
    return {name for name in ("qid", "groups") if name in parameters}


def query_splits(cv, X, y, qid_arr, codes, uniques):
    """Materialise the folds of ``cv`` and reject any that leak a query across train and test.

    An int ``cv`` is ``QueryKFold(n_splits=cv)``; a splitter is called with ``qid=qid`` and/or
    ``groups=qid`` when it reads them (its metadata request or signature says so), else
    ``cv.split(X, y)``; an iterable of ``(train, test)`` index pairs is used as given.
    """
    cv = check_query_cv(cv)
    if hasattr(cv, "split"):
        reads = _split_params(cv)
        splits = cv.split(X, y, **dict.fromkeys(reads, qid_arr))
        cv_name = type(cv).__name__
    else:
        splits, cv_name = cv, "The given split"
    folds = []
    for i, (train, test) in enumerate(splits):
        train, test = np.asarray(train), np.asarray(test)
        if train.dtype == bool:
            train = np.flatnonzero(train)
        if test.dtype == bool:
            test = np.flatnonzero(test)
        shared = np.intersect1d(codes[train], codes[test])
        if shared.size:
            raise ValueError(
                f"cv split {i} puts {shared.size} quer{'y' if shared.size == 1 else 'ies'} in "
                f"both train and test (e.g. qid {uniques[shared[0]]!r}), which leaks the query "
                f"into its own evaluation. {cv_name} ignores queries; use an int cv "
                "(QueryKFold over qid), QueryKFold, StratifiedQueryKFold or a group splitter "
                "such as GroupKFold(5) or GroupShuffleSplit, which receive qid as groups."
            )
        folds.append((train, test))
    if not folds:
        raise ValueError(f"cv {short_repr(cv)} produced no split.")
    return folds
