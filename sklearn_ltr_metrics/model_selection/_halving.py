"""``RankingHalvingGridSearchCV``: successive halving whose resource is whole queries.

scikit-learn's ``HalvingGridSearchCV`` with ``resource="n_samples"`` subsamples rows, which
cuts queries into pieces (and its default resources train on a handful of rows). Here the
resource is the number of training queries: scikit-learn's own halving runs over a private
wrapper whose ``n_queries`` parameter is the resource, and whose ``fit`` keeps that many whole
queries of the fold's training rows (in one seeded order, so smaller sets are nested in larger
ones). Results are then reported in the wrapped estimator's own parameter names.
"""

from __future__ import annotations

import inspect

import numpy as np
from sklearn import config_context
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.experimental import enable_halving_search_cv  # noqa: F401 (enables the import)
from sklearn.model_selection import HalvingGridSearchCV
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._engine import factorize_qid
from .._qid import DEFAULT_QID_COLUMN
from .._random import random_seed
from .._validation import check_1d, short_repr, take_rows
from ._cross_validate import qid_codes
from ._search import _check_scores, _QuerySearchMixin, qid_doc
from ._split import query_splits

__all__ = ["RankingHalvingGridSearchCV"]

_PREFIX = "estimator__"
_RESOURCE = "n_queries"


def _fit_takes(estimator, name):
    try:
        return name in inspect.signature(estimator.fit).parameters
    except (TypeError, ValueError):
        return False


def _inner_has(method):
    return lambda self: hasattr(self.estimator, method)


class _QuerySubsample(MetaEstimatorMixin, BaseEstimator):
    """Fit ``estimator`` on ``n_queries`` whole queries of the rows given to ``fit``."""

    __metadata_request__fit = {"qid": True}  # noqa: RUF012
    __metadata_request__score = {"qid": True}  # noqa: RUF012

    def __init__(self, estimator, n_queries=None, seed=0):
        self.estimator = estimator
        self.n_queries = n_queries
        self.seed = seed

    def fit(self, X, y, qid=None):
        qid = check_1d(qid, "qid")
        codes, uniques = factorize_qid(qid, "qid")
        n = uniques.shape[0] if self.n_queries is None else min(int(self.n_queries), len(uniques))
        # A seeded rank per query id (not per position), so nested sets across sizes.
        keys = np.random.default_rng(self.seed).permutation(uniques.shape[0])
        kept = np.argsort(keys, kind="stable")[:n]
        rows = np.flatnonzero(np.isin(codes, kept))
        kwargs = {"qid": qid[rows]} if _fit_takes(self.estimator, "qid") else {}
        self.estimator_ = clone(self.estimator).fit(
            take_rows(X, rows), take_rows(np.asarray(y), rows), **kwargs
        )
        return self

    def predict(self, X):
        check_is_fitted(self)
        return self.estimator_.predict(X)

    @available_if(_inner_has("decision_function"))
    def decision_function(self, X):
        check_is_fitted(self)
        return self.estimator_.decision_function(X)

    @available_if(_inner_has("predict_proba"))
    def predict_proba(self, X):
        check_is_fitted(self)
        return self.estimator_.predict_proba(X)

    @property
    def classes_(self):
        return self.estimator_.classes_

    def score(self, X, y, qid=None, sample_weight=None):
        kwargs = {} if sample_weight is None else {"sample_weight": sample_weight}
        return self.estimator_.score(X, y, qid=qid, **kwargs)


def _unprefix(params):
    return {
        key[len(_PREFIX) :] if key.startswith(_PREFIX) else key: value
        for key, value in params.items()
        if key != _RESOURCE
    }


class RankingHalvingGridSearchCV(_QuerySearchMixin, HalvingGridSearchCV):
    """Successive halving over a grid, with whole queries as the resource.

    Every iteration trains the surviving candidates on ``n_resources_[i]`` whole queries of
    each fold's training rows (never a subset of a query's rows), keeps the best
    ``1 / factor`` of them, and multiplies the queries by ``factor``; the best candidate is
    then refitted on all the rows. ``fit(X, y, qid=qid)`` works with metadata routing on or off,
    as :class:`RankingGridSearchCV`: an int ``cv`` is :class:`QueryKFold`, ``scoring`` takes
    metric specs, ``error_score`` defaults to ``"raise"`` and all-NaN scores raise.

    Parameters
    ----------
    estimator : estimator
        A ranker (or Pipeline, or any estimator the scorers take).
    param_grid : dict or list of dicts
        As in ``GridSearchCV``, in the estimator's own parameter names.
    factor : int or float, default=3
        Candidates kept per iteration: ``1 / factor``; queries grow by ``factor``.
    max_resources : int or "auto", default="auto"
        Most training queries per fold; ``"auto"``: the fewest training queries of any fold.
    min_resources : int, "exhaust" or "smallest", default="exhaust"
        Training queries of the first iteration; ``"exhaust"`` chooses it so that the last
        iteration uses ``max_resources``, ``"smallest"`` starts from 1 query.
    aggressive_elimination : bool, default=False
    cv : int, splitter or iterable, default=5
    scoring : str, list of str, RankingScorer, dict or None, default=None
        As in :class:`RankingGridSearchCV` (``None``: the estimator's ``score``).
    refit : bool or str, default=True
    error_score : "raise" or float, default="raise"
    return_train_score : bool, default=True
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        Which queries make the smaller training sets (the package's random-state policy).
    n_jobs : int, default=None
    verbose : int, default=0

    Attributes
    ----------
    cv_results_ : dict
        scikit-learn's halving results; ``params`` and the ``param_*`` keys in the estimator's
        names, ``n_resources`` in queries.
    best_params_, best_score_, best_index_, best_estimator_
        As in scikit-learn; ``best_estimator_`` is refitted on every row.
    n_resources_, n_candidates_, n_iterations_, min_resources_, max_resources_
        The schedule, in queries.

    Examples
    --------
    >>> from sklearn_ltr_metrics.datasets import make_ranking_data
    >>> from sklearn_ltr_metrics.model_selection import RankingHalvingGridSearchCV
    >>> from sklearn_ltr_metrics.rankers import FeatureRanker
    >>> X, y, qid = make_ranking_data(18, n_pos_range=(2, 6), n_neg_range=(10, 20),
    ...                               random_state=0)
    >>> search = RankingHalvingGridSearchCV(
    ...     FeatureRanker(0), {"feature": [0, 1, 2, 3]}, scoring="ndcg@10", cv=3,
    ...     random_state=0).fit(X, y, qid=qid)
    >>> search.n_resources_
    [4, 12]
    >>> search.best_params_
    {'feature': 0}
    """

    def __init__(
        self,
        estimator,
        param_grid,
        *,
        factor=3,
        max_resources="auto",
        min_resources="exhaust",
        aggressive_elimination=False,
        cv=5,
        scoring=None,
        refit=True,
        error_score="raise",
        return_train_score=True,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        super().__init__(
            estimator,
            param_grid,
            factor=factor,
            resource=_RESOURCE,
            max_resources=max_resources,
            min_resources=min_resources,
            aggressive_elimination=aggressive_elimination,
            cv=cv,
            scoring=scoring,
            refit=refit,
            error_score=error_score,
            return_train_score=return_train_score,
            random_state=random_state,
            n_jobs=n_jobs,
            verbose=verbose,
        )

    def get_params(self, deep=True):
        """Get the parameters (``resource`` is fixed to whole queries and not one of them).

        Parameters
        ----------
        deep : bool, default=True

        Returns
        -------
        dict
        """
        params = super().get_params(deep=deep)
        params.pop("resource", None)
        return params

    @qid_doc
    def fit(self, X, y, *, qid=None, qid_column=DEFAULT_QID_COLUMN, **params):
        """Run successive halving over whole queries, then refit the best on every row.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        {qid_parameters}
        **params : dict
            Not supported beyond ``qid`` (the wrapper fits the estimator on a subset of rows).

        Returns
        -------
        self : RankingHalvingGridSearchCV
        """
        if params:
            raise TypeError(
                f"RankingHalvingGridSearchCV.fit takes no fit parameters besides qid, got "
                f"{sorted(params)}."
            )
        qid_arr, codes, uniques = qid_codes(qid, X, qid_column, owner=f"{type(self).__name__}.fit")
        folds = query_splits(self.cv, X, y, qid_arr, codes, uniques)
        n_max = min(np.unique(codes[train]).shape[0] for train, _ in folds)
        worker = self._worker()
        worker.cv = folds
        worker.estimator = _QuerySubsample(self.estimator, seed=random_seed(self.random_state))
        grids = self.param_grid if isinstance(self.param_grid, list) else [self.param_grid]
        if not all(isinstance(g, dict) for g in grids):
            raise TypeError(
                f"param_grid must be a dict or a list of dicts, got {short_repr(grids)}."
            )
        worker.param_grid = [{_PREFIX + k: v for k, v in g.items()} for g in grids]
        if self.max_resources == "auto":
            worker.max_resources = n_max
        elif isinstance(self.max_resources, int) and self.max_resources > n_max:
            raise ValueError(
                f"max_resources={self.max_resources} is more than the {n_max} training queries "
                "of the smallest fold; lower it or use 'auto'."
            )
        worker.random_state = None
        with config_context(enable_metadata_routing=True):
            HalvingGridSearchCV.fit(worker, X, y, qid=qid_arr)
        _check_scores(worker.cv_results_)
        results = dict(worker.cv_results_)
        results["params"] = [_unprefix(p) for p in results["params"]]
        for key in list(results):
            if key.startswith("param_"):
                name = key[len("param_") :]
                value = results.pop(key)
                if name != _RESOURCE:
                    results["param_" + _unprefix({name: None}).popitem()[0]] = value
        worker.cv_results_ = results
        if hasattr(worker, "best_params_"):
            worker.best_params_ = _unprefix(worker.best_params_)
        if hasattr(worker, "best_estimator_"):
            best = clone(self.estimator).set_params(**worker.best_params_)
            kwargs = {"qid": qid_arr} if _fit_takes(best, "qid") else {}
            with config_context(enable_metadata_routing=True):
                worker.best_estimator_ = best.fit(X, y, **kwargs)
        return self._adopt(worker)
