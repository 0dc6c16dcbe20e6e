"""Ranking searches: scikit-learn's grid and randomized searches with ``fit(X, y, qid=qid)``.

Each search runs scikit-learn's own ``fit`` on a shallow copy of itself whose ``cv`` is the
fixed list of query-safe folds and whose ``scoring`` is the ranking scorer built from a metric
spec, inside ``sklearn.config_context(enable_metadata_routing=True)``; the fitted attributes
are then copied back. The constructor's parameters are never modified, so ``get_params`` and
``clone`` see what the user gave. Unlike scikit-learn, ``error_score`` defaults to
``"raise"``, and a search whose scores are all NaN raises instead of picking a best
candidate among NaNs.
"""

from __future__ import annotations

import copy

import numpy as np
from sklearn import config_context
from sklearn.metrics import get_scorer_names
from sklearn.model_selection import GridSearchCV, RandomizedSearchCV

from .._doc_link import DocLinkMixin
from .._qid import DEFAULT_QID_COLUMN
from ..metrics import make_ranking_scorer
from ._cross_validate import example_doc, qid_codes
from ._split import query_splits

__all__ = ["QID_PARAMETERS", "RankingGridSearchCV", "RankingRandomizedSearchCV", "qid_doc"]


def _search_scoring(scoring, refit):
    """Metric specs (a str or list) -> a ranking scorer, and ``refit`` for it."""
    if isinstance(scoring, str):
        try:
            return make_ranking_scorer(scoring), refit
        except ValueError:
            if scoring in get_scorer_names():
                return scoring, refit  # a scikit-learn scorer name, e.g. "r2"
            raise
    if isinstance(scoring, (list, tuple)) and scoring and all(isinstance(s, str) for s in scoring):
        scorer = make_ranking_scorer(list(scoring))
        return scorer, (scorer.metrics[0] if refit is True else refit)
    return scoring, refit


def _check_scores(cv_results):
    """Raise if some score is NaN for every candidate (the best would be picked among NaNs)."""
    keys = [key for key in cv_results if key.startswith("mean_test_")]
    empty = [key for key in keys if np.isnan(np.asarray(cv_results[key], dtype=float)).all()]
    if empty:
        raise ValueError(
            f"Every candidate scored NaN ({', '.join(empty)}), so no best parameters can be "
            "chosen. Typical causes: error_score=np.nan hid failing fits or scorers (rerun with "
            "error_score='raise' to see the error), or no test query has a relevant row for the "
            "metric (see empty_query in make_ranking_scorer)."
        )


#: The ``qid`` and ``qid_column`` parameters of the searches' ``score`` and the halving
#: search's ``fit``, documented once (``{qid_parameters}``, :func:`qid_doc`).
QID_PARAMETERS = """qid : array-like of shape (n_samples,) or str, default=None
            Query id of every row; ``None`` reads the column ``qid_column`` of ``X``.
            A string names the column (``qid="qid"``, as ``qid_column=``).
        qid_column : str or None, default="qid"
            The column of a DataFrame ``X`` read for the query ids when ``qid`` is None."""


def qid_doc(method):
    """Fill a method's ``{qid_parameters}`` line with :data:`QID_PARAMETERS`."""
    method.__doc__ = (method.__doc__ or "").replace("{qid_parameters}", QID_PARAMETERS)
    return method


class _QuerySearchMixin(DocLinkMixin):
    """``fit(X, y, *, qid)`` with local metadata routing and query-safe folds.

    The search itself runs on a shallow copy (the *worker*) whose ``cv``, ``scoring`` and
    ``refit`` are resolved, so the user's parameters are never modified; the fitted
    attributes are then adopted.
    """

    def _worker(self):
        worker = copy.copy(self)
        worker.scoring, worker.refit = _search_scoring(self.scoring, self.refit)
        return worker

    def _adopt(self, worker):
        constructor = super().get_params(deep=False)
        for name, value in vars(worker).items():
            if name not in constructor:
                setattr(self, name, value)
        return self

    def fit(self, X, y, *, qid=None, qid_column=DEFAULT_QID_COLUMN, **params):
        """Run the search with folds that keep queries whole, routing ``qid`` everywhere.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Relevance labels.
        qid : array-like of shape (n_samples,) or str, default=None
            Query id of every row; the groups of the folds, and routed to the estimator's
            ``fit`` and to the scorers. ``None`` reads the column ``qid_column`` of a
            DataFrame ``X``.
            A string names the column (``qid="qid"``, as ``qid_column=``).
        qid_column : str or None, default="qid"
            The column of a DataFrame ``X`` read for the query ids when ``qid`` is None.
        **params : dict
            Further fit parameters, routed as scikit-learn does.

        Returns
        -------
        self : object
            The fitted search.
        """
        qid_arr, codes, uniques = qid_codes(qid, X, qid_column, owner=f"{type(self).__name__}.fit")
        if "groups" in params:
            raise ValueError(f"{type(self).__name__}.fit uses qid as the groups; drop groups=.")
        worker = self._worker()
        worker.cv = query_splits(self.cv, X, y, qid_arr, codes, uniques)
        with config_context(enable_metadata_routing=True):
            super(_QuerySearchMixin, worker).fit(X, y, qid=qid_arr, **params)
        _check_scores(worker.cv_results_)
        return self._adopt(worker)

    def get_metadata_routing(self):
        """Metadata routing of the search as scikit-learn builds it, for the ranking scoring.

        Returns
        -------
        sklearn.utils.metadata_routing.MetadataRouter
        """
        return super(_QuerySearchMixin, self._worker()).get_metadata_routing()

    @qid_doc
    def score(self, X, y, *, qid=None, qid_column=DEFAULT_QID_COLUMN, **params):
        """Score the refitted best estimator on ``X`` with the search's scoring.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        {qid_parameters}
        **params : dict
            Further metadata for the scorer.

        Returns
        -------
        float
            The refit metric's mean over queries.
        """
        qid_arr, _, _ = qid_codes(qid, X, qid_column, owner=f"{type(self).__name__}.score")
        with config_context(enable_metadata_routing=True):
            return super(_QuerySearchMixin, self._worker()).score(X, y, qid=qid_arr, **params)


@example_doc
class RankingGridSearchCV(_QuerySearchMixin, GridSearchCV):
    """:class:`~sklearn.model_selection.GridSearchCV` for rankers: ``fit(X, y, qid=qid)``.

    Same parameters and attributes as ``GridSearchCV``, except:

    - ``scoring`` also takes metric specs: ``"ndcg@10"`` (a single scorer: ``mean_test_score``
      as scikit-learn gives it) or a list ``["ndcg@10", "map"]`` (one multi-metric scorer, one
      predict per fold; ``refit=True`` then refits by the first spec). Scorers from
      :func:`make_ranking_scorer`, dicts of them, scikit-learn scorer names and ``None`` (the
      estimator's own ``score``, NDCG@10 for the package's rankers) work as in scikit-learn.
    - ``cv``: an int (or ``None``: 5) means :class:`QueryKFold` over ``qid``; a splitter
      reading ``qid`` or ``groups`` gets the query ids; a split that leaks a query raises.
    - ``error_score`` defaults to ``"raise"``, and a search where some score is NaN for every
      candidate raises ``ValueError`` instead of choosing among NaNs.
    - ``fit`` and ``score`` take ``qid``; metadata routing is enabled for the call only (the
      global setting is unchanged) and ``qid`` reaches the estimator's ``fit`` and every
      scorer. The constructor's ``cv`` and ``scoring`` are never modified.

    {example_data}
    >>> from sklearn_ltr_metrics import FeatureRanker, RankingGridSearchCV
    >>> y = (X[:, 1] > 0.5).astype(int)
    >>> search = RankingGridSearchCV(
    ...     FeatureRanker(0), {"feature": [0, 1]}, scoring=["ndcg@5", "map"], refit="map", cv=3
    ... ).fit(X, y, qid=qid)
    >>> search.best_params_
    {'feature': 1}
    >>> search.cv_results_["mean_test_map"].round(3).tolist()
    [0.626, 1.0]
    """

    def __init__(
        self,
        estimator,
        param_grid,
        *,
        scoring=None,
        n_jobs=None,
        refit=True,
        cv=None,
        verbose=0,
        pre_dispatch="2*n_jobs",
        error_score="raise",
        return_train_score=False,
    ):
        super().__init__(
            estimator,
            param_grid,
            scoring=scoring,
            n_jobs=n_jobs,
            refit=refit,
            cv=cv,
            verbose=verbose,
            pre_dispatch=pre_dispatch,
            error_score=error_score,
            return_train_score=return_train_score,
        )


@example_doc
class RankingRandomizedSearchCV(_QuerySearchMixin, RandomizedSearchCV):
    """:class:`~sklearn.model_selection.RandomizedSearchCV` for rankers: ``fit(X, y, qid=qid)``.

    Same parameters and attributes as ``RandomizedSearchCV``; ``scoring``, ``cv``,
    ``error_score="raise"``, the NaN check, ``fit`` and ``score`` behave as in
    :class:`RankingGridSearchCV`.

    {example_data}
    >>> from sklearn_ltr_metrics import FeatureRanker, RankingRandomizedSearchCV
    >>> y = (X[:, 2] > 0.5).astype(int)
    >>> search = RankingRandomizedSearchCV(
    ...     FeatureRanker(0),
    ...     {"feature": [0, 1, 2]},
    ...     n_iter=3,
    ...     scoring="ndcg@5",
    ...     cv=3,
    ...     random_state=0,
    ... ).fit(X, y, qid=qid)
    >>> search.best_params_
    {'feature': 2}
    >>> float(search.cv_results_["mean_test_score"].max())
    1.0
    """

    def __init__(
        self,
        estimator,
        param_distributions,
        *,
        n_iter=10,
        scoring=None,
        n_jobs=None,
        refit=True,
        cv=None,
        verbose=0,
        pre_dispatch="2*n_jobs",
        random_state=None,
        error_score="raise",
        return_train_score=False,
    ):
        super().__init__(
            estimator,
            param_distributions,
            n_iter=n_iter,
            scoring=scoring,
            n_jobs=n_jobs,
            refit=refit,
            cv=cv,
            verbose=verbose,
            pre_dispatch=pre_dispatch,
            random_state=random_state,
            error_score=error_score,
            return_train_score=return_train_score,
        )
