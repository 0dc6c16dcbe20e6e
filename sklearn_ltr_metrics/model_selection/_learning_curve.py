"""``learning_curve_ranking``: a learning curve whose resource is whole queries.

scikit-learn's ``learning_curve`` trains on the first ``n`` rows of each training fold, which
cuts queries into pieces (a query's remaining documents silently vanish). Here the training
sets are made of whole queries: for each fold and each size, ``n`` of the fold's training
queries with all their rows. Every (size, fold) pair then runs as one split of
:func:`cross_validate_ranking`, so scores come from per-query tables, one predict per split.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._qid import DEFAULT_QID_COLUMN
from .._random import check_random_state
from .._validation import short_repr
from ._cross_validate import check_scoring, cross_validate_ranking, qid_codes
from ._split import query_splits

__all__ = ["learning_curve_ranking"]


def _query_counts(train_sizes, n_max):
    """``train_sizes`` (fractions in (0, 1] or counts) as sorted unique query counts."""
    sizes = np.asarray(train_sizes)
    if sizes.ndim != 1 or sizes.size == 0:
        raise ValueError(
            f"train_sizes must be a non-empty 1-D list of fractions or query counts, got "
            f"{short_repr(train_sizes)}."
        )
    if np.issubdtype(sizes.dtype, np.floating):
        if not ((sizes > 0) & (sizes <= 1)).all():
            raise ValueError(
                f"train_sizes given as fractions must lie in (0, 1], got {sizes.tolist()}."
            )
        counts = np.maximum(1, np.floor(sizes * n_max).astype(int))
    elif np.issubdtype(sizes.dtype, np.integer):
        if not ((sizes >= 1) & (sizes <= n_max)).all():
            raise ValueError(
                f"train_sizes given as query counts must lie in 1..{n_max} (the fewest "
                f"training queries of a fold), got {sizes.tolist()}."
            )
        counts = sizes.astype(int)
    else:
        raise TypeError(f"train_sizes must hold floats or ints, got {short_repr(train_sizes)}.")
    return np.unique(counts)


def learning_curve_ranking(
    estimator,
    X,
    y,
    *,
    qid=None,
    train_sizes=(0.1, 0.325, 0.55, 0.775, 1.0),
    scoring="ndcg@10",
    cv=5,
    shuffle=False,
    random_state=None,
    n_jobs=None,
    params=None,
    return_per_query=False,
    qid_column=DEFAULT_QID_COLUMN,
):
    """Learning curve over training queries: scores against the number of whole queries.

    For every fold of ``cv`` (query-safe, as in :func:`cross_validate_ranking`) and every
    size ``n``, the estimator is fitted on ``n`` of the fold's training queries, with all of
    their rows, and scored per query on the fold's test queries (and on the ``n`` training
    queries).

    Parameters
    ----------
    estimator : estimator
        A ranker (or Pipeline, or any estimator :func:`cross_validate_ranking` takes).
    X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    qid : array-like of shape (n_samples,), default=None
        Query id of every row; ``None`` reads the column ``qid_column`` of a DataFrame ``X``.
    train_sizes : array-like of float or int, default=(0.1, 0.325, 0.55, 0.775, 1.0)
        Fractions (floats in (0, 1]) of the fewest training queries of any fold, or numbers of
        queries (ints). Duplicates after rounding are dropped.
    scoring : str or RankingScorer, default="ndcg@10"
        One metric spec or a single-metric scorer from :func:`make_ranking_scorer`.
    cv : int, splitter or iterable, default=5
        As in :func:`cross_validate_ranking` (an int is :class:`QueryKFold`).
    shuffle : bool, default=False
        ``False`` takes a fold's training queries in sorted id order (as scikit-learn takes
        the first rows); ``True`` in an order drawn with ``random_state``, the same for every
        size, so the training sets are nested.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        The package's random-state policy; used when ``shuffle=True``.
    n_jobs : int, default=None
        (size, fold) fits run in parallel.
    params : dict, default=None
        Further fit parameters, as in :func:`cross_validate_ranking`.
    return_per_query : bool, default=False
        Also return the per-query test table, with a column ``n_train_queries``.
    qid_column : str or None, default="qid"
        The column of a DataFrame ``X`` read for the query ids when ``qid`` is None.

    Returns
    -------
    train_sizes_abs : ndarray of shape (n_sizes,)
        Numbers of training queries.
    train_scores, test_scores : ndarray of shape (n_sizes, n_folds)
        Mean over queries of the metric, on the training queries and on the test fold.
    per_query : pandas.DataFrame
        Only with ``return_per_query=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ltr_metrics.datasets import make_ranking_data
    >>> from sklearn_ltr_metrics.model_selection import learning_curve_ranking
    >>> from sklearn_ltr_metrics.rankers import LambdaMARTRanker
    >>> X, y, qid = make_ranking_data(12, n_pos_range=(2, 6), n_neg_range=(10, 20),
    ...                               random_state=0)
    >>> sizes, train, test = learning_curve_ranking(
    ...     LambdaMARTRanker(n_estimators=5, min_child_samples=3), X, y, qid=qid,
    ...     train_sizes=[2, 4, 8], cv=3)
    >>> sizes.tolist(), test.shape
    ([2, 4, 8], (3, 3))
    """
    if not check_scoring(scoring)[1]:
        raise TypeError(
            "scoring must be one metric (a spec or a single-metric scorer), got "
            f"{short_repr(scoring)}."
        )
    qid_arr, codes, uniques = qid_codes(qid, X, qid_column, owner="learning_curve_ranking")
    folds = query_splits(cv, X, y, qid_arr, codes, uniques)
    if not isinstance(shuffle, (bool, np.bool_)):
        raise TypeError(f"shuffle must be True or False, got {short_repr(shuffle)}.")
    rank = np.arange(uniques.shape[0])
    if shuffle:
        rank = np.empty_like(rank)
        rank[check_random_state(random_state).permutation(uniques.shape[0])] = np.arange(
            uniques.shape[0]
        )
    fold_queries = []
    for train, _ in folds:
        queries = np.unique(codes[train])
        fold_queries.append(queries[np.argsort(rank[queries], kind="stable")])
    n_max = min(len(q) for q in fold_queries)
    if isinstance(train_sizes, numbers.Number):
        train_sizes = [train_sizes]
    counts = _query_counts(train_sizes, n_max)
    splits = []
    for n in counts:
        for (train, test), queries in zip(folds, fold_queries, strict=True):
            keep = np.isin(codes[train], queries[:n])
            splits.append((train[keep], test))
    result = cross_validate_ranking(
        estimator,
        X,
        y,
        qid=qid_arr,
        scoring=scoring,
        cv=splits,
        n_jobs=n_jobs,
        params=params,
        return_train_score=True,
        return_per_query=return_per_query,
    )
    shape = (counts.shape[0], len(folds))
    out = (counts, result["train_score"].reshape(shape), result["test_score"].reshape(shape))
    if not return_per_query:
        return out
    table = result["per_query"]
    n_train = np.repeat(counts, len(folds))[table["fold"].to_numpy()]
    table = table.assign(fold=table["fold"] % len(folds), n_train_queries=n_train)
    return (*out, table)
