"""Query-safe model selection: ``cross_validate_ranking`` and the ranking searches.

Both run scikit-learn's own ``cross_validate`` / ``GridSearchCV`` / ``RandomizedSearchCV``
inside ``sklearn.config_context(enable_metadata_routing=True)``, so they work whether or not the
user turned routing on, and leave the global setting unchanged (also when they raise). They
compute the folds themselves: an int ``cv`` means ``GroupKFold`` over ``qid``; a group
splitter gets ``groups=qid``; a split that puts one query on both sides is rejected. The folds
then reach scikit-learn as a fixed list of ``(train, test)`` indices, and ``qid`` is routed
to the estimator's ``fit`` (when it requests it) and to every scorer.
"""

from __future__ import annotations

import inspect
import numbers
import warnings

import numpy as np
import pandas as pd
from sklearn import config_context
from sklearn.model_selection import GridSearchCV, GroupKFold, RandomizedSearchCV, cross_validate
from sklearn.utils.metadata_routing import get_routing_for_object

from .._grouping import factorize_qid
from .._validation import _short, check_1d, check_positive_int, take_rows
from ..metrics._scorer import RankingScorer, make_ranking_scorer

__all__ = ["RankingGridSearchCV", "RankingRandomizedSearchCV", "cross_validate_ranking"]


def _n_rows(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)


def _check_qid(qid, X):
    """``qid`` as a 1-D array with one entry per row of ``X`` (plus its codes and uniques)."""
    if qid is None:
        raise TypeError(
            "qid is required: pass qid=..., the query id of every row of X (ranking metrics "
            "and query-safe folds are computed per query)."
        )
    qid_arr = check_1d(qid, "qid")
    n_rows = _n_rows(X)
    if qid_arr.shape[0] != n_rows:
        raise ValueError(
            f"qid has {qid_arr.shape[0]} entries but X has {n_rows} rows; pass one query id per "
            "row of X."
        )
    codes, uniques = factorize_qid(qid_arr)
    return qid_arr, codes, uniques


def _query_splits(cv, X, y, qid_arr, codes, uniques):
    """Materialise the folds of ``cv`` and reject any that leak a query across train and test.

    An int ``cv`` is ``GroupKFold(n_splits=cv)`` over ``qid`` (deterministic, no shuffling);
    a splitter is called as ``cv.split(X, y, groups=qid)`` when it uses groups (its metadata
    request or signature says so), else ``cv.split(X, y)``; an iterable of ``(train, test)``
    index pairs is used as given.
    """
    if cv is None:
        cv = 5
    if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        cv = GroupKFold(n_splits=check_positive_int(cv, "cv", minimum=2))
    if isinstance(cv, (str, bytes)) or not (hasattr(cv, "split") or hasattr(cv, "__iter__")):
        raise TypeError(
            f"cv must be an int (that many GroupKFold folds over qid), a scikit-learn splitter "
            f"or an iterable of (train, test) index arrays, got {_short(cv)}."
        )
    if hasattr(cv, "split"):
        splits = cv.split(X, y, groups=qid_arr) if _takes_groups(cv) else cv.split(X, y)
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
                "(GroupKFold over qid) or a group splitter such as GroupKFold(5) or "
                "GroupShuffleSplit, which receive qid as groups."
            )
        folds.append((train, test))
    if not folds:
        raise ValueError(f"cv {_short(cv)} produced no split.")
    return folds


def _takes_groups(cv):
    """Whether ``cv.split`` uses ``groups`` (by its metadata request, else its signature)."""
    if hasattr(cv, "get_metadata_routing"):
        return "groups" in get_routing_for_object(cv).split.requests
    try:
        return "groups" in inspect.signature(cv.split).parameters
    except (TypeError, ValueError):
        return False


def _as_multimetric(scorer):
    """A copy of a RankingScorer that returns a dict keyed by spec and requests ``qid``."""
    metric = list(scorer._metric) if scorer.multimetric else [scorer._metric]
    return RankingScorer(
        metric, k=scorer._k, greater_is_better=scorer.greater_is_better, **scorer.options
    )


def _check_scoring(scoring):
    """``scoring`` -> (what to give cross_validate, [(RankingScorer, {spec: output name})])."""
    if isinstance(scoring, (str, list, tuple)):
        scoring = make_ranking_scorer(list(scoring) if not isinstance(scoring, str) else [scoring])
    if isinstance(scoring, RankingScorer):
        scorer = _as_multimetric(scoring)
        return scorer, [(scorer, {m: m for m in scorer.metrics})]
    if isinstance(scoring, dict) and scoring:
        copies = {}
        for name, value in scoring.items():
            if not isinstance(name, str):
                raise TypeError(f"scoring dict keys must be str names, got {name!r}.")
            if not isinstance(value, RankingScorer) or value.multimetric:
                raise TypeError(
                    f"scoring[{name!r}] must be a single-metric scorer from "
                    f"make_ranking_scorer('...'), got {_short(value)}; give several metrics as "
                    "a list instead, e.g. scoring=['ndcg@10', 'map']."
                )
            copies[name] = RankingScorer(
                value._metric,
                k=value._k,
                greater_is_better=value.greater_is_better,
                **value.options,
            )
        return copies, [(s, {s.metrics[0]: name}) for name, s in copies.items()]
    raise TypeError(
        "scoring must be a metric spec such as 'ndcg@10', a list of specs, a scorer from "
        "make_ranking_scorer, or a dict name -> make_ranking_scorer('...'); got "
        f"{_short(scoring)}."
    )


def _fold_table(fold, estimator, X, y, qid_arr, test, parts):
    """Per-query table of one test fold (one predict per scorer, as the scorers do)."""
    X_test, y_test = take_rows(X, test), take_rows(y, test)
    tables = []
    for i, (scorer, names) in enumerate(parts):
        ev = scorer.evaluate(estimator, X_test, y_test, qid=qid_arr[test])
        columns = (["n_docs", "n_pos", "n_neg"] if i == 0 else []) + list(names)
        tables.append(ev.per_query[columns].rename(columns=names))
    table = pd.concat(tables, axis=1).reset_index()
    table.insert(0, "fold", fold)
    return table


def cross_validate_ranking(
    estimator,
    X,
    y,
    *,
    qid,
    scoring="ndcg@10",
    cv=5,
    n_jobs=None,
    verbose=0,
    params=None,
    pre_dispatch="2*n_jobs",
    return_train_score=False,
    return_estimator=False,
    return_indices=False,
    return_per_query=True,
    error_score="raise",
):
    """Cross-validate a ranker with folds that keep queries whole and query-aware scores.

    Runs :func:`sklearn.model_selection.cross_validate` with metadata routing enabled locally
    (the global setting is left as it was, also on error): ``qid`` reaches the estimator's
    ``fit`` (if it requests it, as the package's rankers do) and every scorer, sliced to each
    fold's rows.

    Parameters
    ----------
    estimator : estimator with ``fit`` and ``predict``
        A ranker, or a Pipeline ending in one. ``OracleRanker`` is scored with the fold's
        labels.
    X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Relevance labels.
    qid : array-like of shape (n_samples,)
        Query id of every row (int, str...). Rows need not be sorted or grouped.
    scoring : str, list of str, RankingScorer or dict, default="ndcg@10"
        A metric spec, a list of specs (one multi-metric scorer: one ``predict`` per fold), a
        scorer from :func:`make_ranking_scorer`, or a dict ``name -> make_ranking_scorer(spec)``
        (one ``predict`` per entry). Results are keyed by spec (``test_ndcg@10``) or by the
        dict's names.
    cv : int, splitter or iterable, default=5
        An int means ``GroupKFold(n_splits=cv)`` over ``qid`` (never plain ``KFold``). A
        group splitter (``GroupKFold``, ``GroupShuffleSplit``, ``LeaveOneGroupOut``...) gets
        ``groups=qid``; other splitters are used as they are; an iterable gives ``(train,
        test)`` indices. A split with a query on both sides raises ``ValueError``.
    n_jobs : int, default=None
        Folds fitted in parallel (joblib); results do not depend on it.
    verbose : int, default=0
    params : dict, default=None
        Further fit parameters (e.g. ``sample_weight``), routed as scikit-learn does. ``qid``
        is passed by this function and must not be repeated here.
    pre_dispatch : int or str, default="2*n_jobs"
    return_train_score, return_estimator, return_indices : bool, default=False
        As in :func:`~sklearn.model_selection.cross_validate`.
    return_per_query : bool, default=True
        Add ``"per_query"``: a DataFrame with columns ``fold``, ``qid``, ``n_docs``, ``n_pos``,
        ``n_neg`` and one column per score name, holding every test query of every fold. Its
        column means per fold equal ``test_<name>`` (up to the sign for
        ``greater_is_better=False``, which ``test_`` applies and the table does not).
    error_score : "raise" or float, default="raise"
        Raise on a failing fit or score (scikit-learn's default would turn errors into NaN).
        With a number, a failing fold gets that score and no rows in ``per_query``.

    Returns
    -------
    dict
        scikit-learn's ``cross_validate`` result (``fit_time``, ``score_time``,
        ``test_<name>``...) plus ``per_query`` when ``return_per_query``.

    Notes
    -----
    scikit-learn cannot carry per-query values out of a scorer (it runs in worker processes
    when ``n_jobs > 1`` and must return numbers), so ``per_query`` is computed in the calling
    process from the fitted estimator of each fold: one more ``predict`` per test fold. With a
    deterministic ``predict`` its per-fold means are exactly ``test_<name>``; a warning says
    when they differ. ``n_pos`` and ``n_neg`` follow the first scorer's conventions.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ltr_metrics import cross_validate_ranking, FeatureRanker
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2))
    >>> y = (X[:, 0] > 0.5).astype(int)
    >>> qid = np.repeat(["a", "b", "c", "d", "e", "f"], 10)
    >>> res = cross_validate_ranking(
    ...     FeatureRanker(0), X, y, qid=qid, scoring=["ndcg@5", "mrr"], cv=3
    ... )
    >>> res["test_mrr"]
    array([1., 1., 1.])
    >>> res["per_query"][["fold", "qid", "n_pos", "mrr"]].head(3)
       fold qid  n_pos  mrr
    0     0   c      3  1.0
    1     0   f      5  1.0
    2     1   b      2  1.0
    """
    if not hasattr(estimator, "fit") or not hasattr(estimator, "predict"):
        raise TypeError(
            f"estimator {type(estimator).__name__} needs fit and predict methods; a ranker's "
            "predict(X) returns one score per row."
        )
    qid_arr, codes, uniques = _check_qid(qid, X)
    params = {} if params is None else dict(params)
    clash = sorted({"qid", "groups"} & set(params))
    if clash:
        raise ValueError(
            f"params may not contain {clash}: cross_validate_ranking passes qid itself (and "
            "uses it as the splitter's groups)."
        )
    to_sklearn, parts = _check_scoring(scoring)
    folds = _query_splits(cv, X, y, qid_arr, codes, uniques)
    with config_context(enable_metadata_routing=True):
        result = cross_validate(
            estimator,
            X,
            y,
            cv=folds,
            scoring=to_sklearn,
            n_jobs=n_jobs,
            verbose=verbose,
            params={**params, "qid": qid_arr},
            pre_dispatch=pre_dispatch,
            return_train_score=return_train_score,
            return_estimator=return_estimator or return_per_query,
            return_indices=return_indices,
            error_score=error_score,
        )
        if return_per_query:
            result["per_query"] = _per_query(result, X, y, qid_arr, folds, parts, error_score)
    if not return_estimator:
        result.pop("estimator", None)
    return result


def _per_query(result, X, y, qid_arr, folds, parts, error_score):
    """Concatenated per-query tables of the test folds, checked against ``test_<name>``."""
    names = [name for _, mapping in parts for name in mapping.values()]
    tables = []
    for fold, ((_, test), estimator) in enumerate(zip(folds, result["estimator"], strict=True)):
        if error_score == "raise":
            table = _fold_table(fold, estimator, X, y, qid_arr, test, parts)
        else:
            try:
                table = _fold_table(fold, estimator, X, y, qid_arr, test, parts)
            except Exception:  # the fit or score failed; scikit-learn already warned
                continue
        for name, scorer in ((n, s) for s, mapping in parts for n in mapping.values()):
            values = table[name].to_numpy(dtype=np.float64)
            defined = values[~np.isnan(values)]
            mean = defined.mean() if defined.size else np.nan
            sign = 1.0 if scorer.greater_is_better else -1.0
            reported = result[f"test_{name}"][fold]
            if not (np.isnan(mean) and np.isnan(reported)) and not np.isclose(
                sign * mean, reported, rtol=1e-12, atol=1e-12
            ):
                warnings.warn(
                    f"per_query of fold {fold} averages to {sign * mean!r} for {name!r} but the "
                    f"scorer gave {reported!r}: the estimator's predict is not deterministic.",
                    RuntimeWarning,
                    stacklevel=3,
                )
        tables.append(table)
    columns = ["fold", "qid", "n_docs", "n_pos", "n_neg", *names]
    if not tables:
        return pd.DataFrame(columns=columns)
    return pd.concat(tables, ignore_index=True)[columns]


class _QuerySearchMixin:
    """``fit(X, y, *, qid)`` with local metadata routing and query-safe folds."""

    def fit(self, X, y, *, qid=None, **params):
        """Run the search with folds that keep queries whole, routing ``qid`` everywhere.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Relevance labels.
        qid : array-like of shape (n_samples,)
            Query id of every row; the groups of the folds, and routed to the estimator's
            ``fit`` and to the scorers.
        **params : dict
            Further fit parameters, routed as scikit-learn does.

        Returns
        -------
        self : object
            The fitted search.
        """
        qid_arr, codes, uniques = _check_qid(qid, X)
        if "groups" in params:
            raise ValueError(f"{type(self).__name__}.fit uses qid as the groups; drop groups=.")
        folds = _query_splits(self.cv, X, y, qid_arr, codes, uniques)
        original_cv = self.cv
        # The folds reach the parent class as a fixed list; the constructor's cv is restored
        # afterwards, so get_params() and clone() are unaffected.
        self.cv = folds
        try:
            with config_context(enable_metadata_routing=True):
                super().fit(X, y, qid=qid_arr, **params)
        finally:
            self.cv = original_cv
        return self

    def score(self, X, y, *, qid=None, **params):
        """Score the refitted best estimator on ``X`` with the search's scoring.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        qid : array-like of shape (n_samples,)
            Query id of every row.
        **params : dict
            Further metadata for the scorer.

        Returns
        -------
        float
            The refit metric's mean over queries.
        """
        qid_arr, _, _ = _check_qid(qid, X)
        with config_context(enable_metadata_routing=True):
            return super().score(X, y, qid=qid_arr, **params)


class RankingGridSearchCV(_QuerySearchMixin, GridSearchCV):
    """:class:`~sklearn.model_selection.GridSearchCV` for rankers: ``fit(X, y, qid=qid)``.

    Same parameters and attributes as ``GridSearchCV``. The differences are all in ``fit``
    and ``score``, which take ``qid``: metadata routing is enabled for the call only (the
    global setting is unchanged), an int ``cv`` (or ``None``: 5) means ``GroupKFold`` over
    ``qid``, another splitter is called with ``groups=qid``, a split that leaks a query
    raises ``ValueError``, and ``qid`` reaches the estimator's ``fit`` and every scorer. Use
    ``scoring=make_ranking_scorer([...])`` for several metrics from one ``predict`` per fold
    and ``refit="<spec>"`` to pick the best by one of them.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ltr_metrics import FeatureRanker, make_ranking_scorer, RankingGridSearchCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2))
    >>> y = (X[:, 1] > 0.5).astype(int)
    >>> qid = np.repeat(np.arange(6), 10)
    >>> search = RankingGridSearchCV(
    ...     FeatureRanker(0),
    ...     {"feature": [0, 1]},
    ...     scoring=make_ranking_scorer(["ndcg@5", "map"]),
    ...     refit="map",
    ...     cv=3,
    ... ).fit(X, y, qid=qid)
    >>> search.best_params_
    {'feature': 1}
    >>> search.cv_results_["mean_test_map"].round(3).tolist()
    [0.67, 1.0]
    """


class RankingRandomizedSearchCV(_QuerySearchMixin, RandomizedSearchCV):
    """:class:`~sklearn.model_selection.RandomizedSearchCV` for rankers: ``fit(X, y, qid=qid)``.

    Same parameters and attributes as ``RandomizedSearchCV``; ``fit`` and ``score`` take
    ``qid`` and behave as in :class:`RankingGridSearchCV` (local metadata routing, ``GroupKFold``
    over ``qid`` for an int ``cv``, leaking splits rejected).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ltr_metrics import (
    ...     FeatureRanker,
    ...     make_ranking_scorer,
    ...     RankingRandomizedSearchCV,
    ... )
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3))
    >>> y = (X[:, 2] > 0.5).astype(int)
    >>> qid = np.repeat(np.arange(6), 10)
    >>> search = RankingRandomizedSearchCV(
    ...     FeatureRanker(0),
    ...     {"feature": [0, 1, 2]},
    ...     n_iter=3,
    ...     scoring=make_ranking_scorer("ndcg@5"),
    ...     cv=3,
    ...     random_state=0,
    ... ).fit(X, y, qid=qid)
    >>> search.best_params_
    {'feature': 2}
    """
