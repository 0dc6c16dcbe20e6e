"""Feature selection over queries: scikit-learn's ``RFECV`` and ``SequentialFeatureSelector``
with ``fit(X, y, qid=qid)``, routing on or off.

scikit-learn's selectors turn ``X`` into an array before they split it, so a ``qid`` column
never reaches the ranker or the scorer, and with metadata routing off no ``qid`` can be
passed at all: there is no routing-free recipe with them. These subclasses take the query ids
(``qid=``, or the column of a DataFrame ``X``, dropped before selection so it is never a
feature), fix the folds to query-safe ones and run scikit-learn's own ``fit`` on a shallow
copy inside ``sklearn.config_context(enable_metadata_routing=True)``, routing ``qid`` to the
ranker's ``fit`` and to the scorer, as the package's searches do.
"""

from __future__ import annotations

import copy

from sklearn import config_context
from sklearn.feature_selection import RFECV, SequentialFeatureSelector

from .._doc_link import DocLinkMixin
from .._qid import DEFAULT_QID_COLUMN, split_qid_column
from ._cross_validate import qid_codes
from ._search import _search_scoring
from ._split import query_splits

__all__ = ["RankingRFECV", "RankingSequentialFeatureSelector"]

#: The data and ranker the selectors' examples start from, written once: a docstring's
#: ``{selection_example}`` line.
_SELECTION_EXAMPLE = """>>> import pandas as pd
    >>> from sklearn_ltr_metrics.datasets import make_ranking_data
    >>> from sklearn_ltr_metrics.model_selection import (
    ...     RankingRFECV, RankingSequentialFeatureSelector)
    >>> from sklearn_ltr_metrics.rankers import LambdaMARTRanker
    >>> X, y, qid = make_ranking_data(12, n_features=4, n_pos_range=(3, 10),
    ...                               n_neg_range=(20, 40), random_state=0)
    >>> frame = pd.DataFrame(X, columns=["a", "b", "c", "d"]).assign(qid=qid)
    >>> ranker = LambdaMARTRanker(n_estimators=5, min_child_samples=5, random_state=0)"""


class _QuerySelectorMixin(DocLinkMixin):
    """``fit(X, y, *, qid)``: query-safe folds and ``qid`` routed, on a shallow copy."""

    def fit(self, X, y, *, qid=None, qid_column=DEFAULT_QID_COLUMN, **params):
        """Select features with folds that keep queries whole, routing ``qid`` everywhere.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            Features; a DataFrame's column ``qid_column`` gives the query ids when ``qid`` is
            None and is never a candidate feature.
        y : array-like of shape (n_samples,)
            Relevance labels.
        qid : array-like of shape (n_samples,) or str, default=None
            Query id of every row (a string names the column of ``X``, as ``qid_column``).
        qid_column : str or None, default="qid"
            The column of a DataFrame ``X`` holding the query ids.
        **params : dict
            Further fit parameters, routed as scikit-learn does.

        Returns
        -------
        self : object
            The fitted selector.
        """
        owner = f"{type(self).__name__}.fit"
        qid_arr, codes, uniques = qid_codes(qid, X, qid_column, owner=owner)
        if "groups" in params:
            raise ValueError(f"{owner} uses qid as the groups; drop groups=.")
        features, _ = split_qid_column(X, qid if isinstance(qid, str) else qid_column)
        worker = copy.copy(self)
        worker.scoring, _ = _search_scoring(self.scoring, True)
        worker.cv = query_splits(self.cv, X, y, qid_arr, codes, uniques)
        with config_context(enable_metadata_routing=True):
            super(_QuerySelectorMixin, worker).fit(features, y, qid=qid_arr, **params)
        constructor = self.get_params(deep=False)
        for name, value in vars(worker).items():
            if name not in constructor:
                setattr(self, name, value)
        self.qid_column_ = qid if isinstance(qid, str) else qid_column
        return self

    def transform(self, X):
        """Keep the selected features of ``X`` (its query-id column dropped first).

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)

        Returns
        -------
        array or DataFrame of shape (n_samples, n_selected_features)
        """
        return super().transform(split_qid_column(X, getattr(self, "qid_column_", None))[0])


class RankingRFECV(_QuerySelectorMixin, RFECV):
    """Recursive feature elimination over queries: :class:`sklearn.feature_selection.RFECV`
    with ``fit(X, y, qid=qid)``.

    Takes :class:`~sklearn.feature_selection.RFECV`'s parameters; ``cv`` is an int (that many
    :class:`QueryKFold` folds), a splitter or folds, each checked to keep queries whole, and
    ``scoring`` a metric spec such as ``"ndcg@10"`` (or a scorer). The ranker needs
    ``feature_importances_`` or ``coef_`` (``LambdaMARTRanker`` has them). A ``qid`` column
    of ``X`` is read and never eliminated; ``transform`` drops it.

    Parameters
    ----------
    estimator : estimator
        The ranker (or any estimator taking ``qid`` in ``fit``) whose importances rank the
        features.
    step : int or float, default=1
        Features removed at each iteration (a count, or a fraction when below 1).
    min_features_to_select : int, default=1
        The fewest features kept.
    cv : int, splitter or iterable, default=None
        ``None``: ``QueryKFold(5)``; an int: that many :class:`QueryKFold` folds; a splitter or
        folds, checked to keep every query whole.
    scoring : str, list of str, callable or None, default=None
        A metric spec (``"ndcg@10"``) made into a ranking scorer, a scorer, or ``None`` (the
        estimator's ``score``, NDCG@10 for the package's rankers).
    verbose : int, default=0
        Verbosity, as scikit-learn's.
    n_jobs : int, default=None
        Folds run in parallel, as scikit-learn's.
    importance_getter : str or callable, default="auto"
        Where the importances are read (``coef_`` or ``feature_importances_``).

    Attributes
    ----------
    n_features_ : int
        The number of features selected.
    ranking_ : ndarray of shape (n_features,)
        The rank of each feature (1: selected).
    support_ : ndarray of shape (n_features,)
        The mask of the selected features.
    cv_results_ : dict
        The cross-validated scores per number of features, as scikit-learn's.
    feature_names_in_ : ndarray
        The candidate features (the query-id column left out).

    Examples
    --------
    {selection_example}
    >>> selector = RankingRFECV(ranker, cv=3, scoring="ndcg@10").fit(frame, y)
    >>> kept = selector.transform(frame)
    >>> bool(kept.shape[1] == selector.n_features_), "qid" in selector.feature_names_in_
    (True, False)
    """


class RankingSequentialFeatureSelector(_QuerySelectorMixin, SequentialFeatureSelector):
    """Sequential feature selection over queries:
    :class:`sklearn.feature_selection.SequentialFeatureSelector` with ``fit(X, y, qid=qid)``.

    Takes :class:`~sklearn.feature_selection.SequentialFeatureSelector`'s parameters; ``cv``
    and ``scoring`` as :class:`RankingRFECV`. A ``qid`` column of ``X`` is read and never a
    candidate; ``transform`` drops it.

    Parameters
    ----------
    estimator : estimator
        The ranker (or any estimator taking ``qid`` in ``fit``) fitted on each candidate set.
    n_features_to_select : "auto", int or float, default="auto"
        How many features to select, as scikit-learn's.
    tol : float, default=None
        The score gain that stops an ``"auto"`` selection, as scikit-learn's.
    direction : {"forward", "backward"}, default="forward"
        Add or remove features.
    scoring : str, list of str, callable or None, default=None
        As :class:`RankingRFECV`'s.
    cv : int, splitter or iterable, default=5
        As :class:`RankingRFECV`'s (an int: that many :class:`QueryKFold` folds).
    n_jobs : int, default=None
        Candidates evaluated in parallel, as scikit-learn's.

    Attributes
    ----------
    n_features_to_select_ : int
        The number of features selected.
    support_ : ndarray of shape (n_features,)
        The mask of the selected features.
    feature_names_in_ : ndarray
        The candidate features (the query-id column left out).

    Examples
    --------
    {selection_example}
    >>> selector = RankingSequentialFeatureSelector(
    ...     ranker, n_features_to_select=2, cv=3, scoring="ndcg@10").fit(frame, y)
    >>> selector.transform(frame).shape[1], list(selector.get_feature_names_out())
    (2, ['a', 'b'])
    """


for _selector in (RankingRFECV, RankingSequentialFeatureSelector):
    _selector.__doc__ = (_selector.__doc__ or "").replace("{selection_example}", _SELECTION_EXAMPLE)
