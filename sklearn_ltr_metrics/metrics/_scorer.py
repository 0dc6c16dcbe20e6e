"""``make_ranking_scorer``: query-aware scikit-learn scorers that request ``qid``.

A ranking scorer predicts once on a test fold, evaluates the scores per query with
:func:`evaluate` and returns the macro mean over queries (or a dict of means for several
metrics). It asks for ``qid`` through scikit-learn's public metadata-routing protocol (a
``get_metadata_routing`` method returning a ``MetadataRequest``), so with
``sklearn.set_config(enable_metadata_routing=True)`` a ``params={"qid": qid}`` given to
``cross_validate``, ``GridSearchCV.fit`` and friends reaches it, sliced to the fold's rows.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils.metadata_routing import UNCHANGED, MetadataRequest

from .._validation import _short
from ._evaluate import evaluate
from ._options import OPTION_KEYS, check_options
from ._registry import parse_metrics

__all__ = ["RankingScorer", "make_ranking_scorer"]

#: evaluate() options a scorer accepts (per-row inputs such as doc_id cannot be fixed at
#: construction, and query_stats belongs to one data set, not to a scorer).
_CONVENTION_OPTIONS = ("conventions", *(key for key in OPTION_KEYS if key != "default_k"))

MISSING_QID_HINT = (
    "Ranking metrics are computed per query, and a fold is never treated as one query. "
    "Either turn on metadata routing, sklearn.set_config(enable_metadata_routing=True), and "
    "pass the query ids to the model-selection call, e.g. cross_validate(..., "
    "params={'qid': qid}) or GridSearchCV(...).fit(X, y, qid=qid); or use "
    "cross_validate_ranking(estimator, X, y, qid=qid, scoring=...) (or RankingGridSearchCV), "
    "which do this for you."
)


def _final_step(estimator):
    """The last step of a Pipeline (recursively), else ``estimator`` itself."""
    steps = getattr(estimator, "steps", None)
    if isinstance(steps, list) and steps:
        return _final_step(steps[-1][1])
    return estimator


def predict_scores(estimator, X, y=None):
    """One score per row of ``X`` from ``estimator.predict``, passing labels to an oracle.

    An estimator whose (final Pipeline step's) class sets ``_ltr_needs_labels = True``
    (``OracleRanker``) gets ``predict(X, y=y)``; inside a Pipeline the earlier steps transform
    ``X`` first (``pipeline[:-1].transform``), so this works with routing on or off.
    """
    if not hasattr(estimator, "predict"):
        raise TypeError(
            f"estimator {type(estimator).__name__} has no predict method; a ranking scorer "
            "needs predict(X) returning one score per row (higher ranks first)."
        )
    if getattr(_final_step(estimator), "_ltr_needs_labels", False):
        if y is None:
            raise ValueError(
                f"{type(_final_step(estimator)).__name__} ranks by the true labels, so scoring "
                "it needs y; pass y to the scorer."
            )
        if hasattr(estimator, "steps"):
            Xt = estimator[:-1].transform(X) if len(estimator.steps) > 1 else X
            return predict_scores(estimator.steps[-1][1], Xt, y)
        y_score = estimator.predict(X, y=y)
    else:
        y_score = estimator.predict(X)
    y_score = np.asarray(y_score)
    if y_score.ndim == 2 and y_score.shape[1] == 1:
        y_score = y_score.ravel()
    return y_score


class RankingScorer:
    """A query-aware scorer: ``scorer(estimator, X, y, qid=qid)``; see :func:`make_ranking_scorer`.

    Parameters
    ----------
    metric : str or list of str
        A metric spec or a list of specs, as :func:`make_ranking_scorer` takes them.
    k : int, str or callable, optional
        Cut-off for specs given without ``@k``.
    greater_is_better : bool, default=True
        ``False`` negates the values.
    **options
        Options of :func:`evaluate` (``conventions``, ``ties``, ``gain``...).

    Attributes
    ----------
    metrics : tuple of str
        The normalised metric specs (the keys of the dict a multi-metric scorer returns and the
        columns of its per-query table).
    multimetric : bool
        Whether ``__call__`` returns a dict ``{spec: value}`` rather than a float.
    greater_is_better : bool
        ``False`` negates the values returned by ``__call__`` (scikit-learn's convention).
    options : dict
        The :func:`evaluate` options given at construction (``conventions``, ``ties``...).

    Examples
    --------
    >>> from sklearn_ltr_metrics.metrics import RankingScorer, make_ranking_scorer
    >>> scorer = make_ranking_scorer(["ndcg@10", "capped_recall@adaptive"])
    >>> isinstance(scorer, RankingScorer), scorer.metrics, scorer.multimetric
    (True, ('ndcg@10', 'capped_recall@adaptive'), True)
    """

    def __init__(self, metric, *, k=None, greater_is_better=True, **options):
        unknown = sorted(set(options) - set(_CONVENTION_OPTIONS))
        if unknown:
            raise TypeError(
                f"make_ranking_scorer got unexpected option(s) {unknown}; the evaluate options "
                f"a scorer takes are {', '.join(_CONVENTION_OPTIONS)}."
            )
        if not isinstance(greater_is_better, (bool, np.bool_)):
            raise TypeError(
                f"greater_is_better must be True or False, got {_short(greater_is_better)}."
            )
        self.multimetric = not isinstance(metric, str)
        if self.multimetric and not isinstance(metric, (list, tuple)):
            raise TypeError(
                "metric must be a metric spec string such as 'ndcg@10' or a list of them, got "
                f"{_short(metric)}."
            )
        # The one options check of evaluate: a scorer refuses exactly what evaluate refuses.
        resolved = check_options(
            options.get("conventions"),
            **{key: options[key] for key in OPTION_KEYS if key in options},
        )
        specs = parse_metrics(list(metric) if self.multimetric else metric, k, options=resolved)
        if resolved["ties"] in ("trec_eval", "doc_id"):
            raise ValueError(
                f"ties={resolved['ties']!r} (also set by conventions='trec_eval') breaks ties by "
                "doc_id, which a scorer does not receive; pass ties='average' or 'stable' "
                "explicitly, or evaluate TREC runs with evaluate_run."
            )
        self._metric = tuple(metric) if self.multimetric else metric
        self._k = k
        self.metrics = tuple(spec.column for spec in specs)
        self.greater_is_better = bool(greater_is_better)
        self.options = dict(options)
        self._qid_request = True

    # -- scikit-learn metadata routing (public protocol: get_metadata_routing) --------------

    def get_metadata_routing(self):
        """Return the metadata this scorer requests: ``qid`` for ``score``.

        Returns
        -------
        sklearn.utils.metadata_routing.MetadataRequest
            ``score`` requests ``qid`` (``True`` by default; see :meth:`set_score_request`).
        """
        request = MetadataRequest(owner=self)
        request.score.add_request(param="qid", alias=self._qid_request)
        return request

    def set_score_request(self, *, qid=UNCHANGED):
        """Change how ``qid`` is requested under metadata routing.

        Parameters
        ----------
        qid : bool, str, None or UNCHANGED
            ``True`` (default): request ``qid``; a str: read the query ids from metadata of
            that name (an alias, e.g. ``"query_id"``); ``False``: do not request it (the scorer
            then raises); ``None``: error if passed.

        Returns
        -------
        self : RankingScorer
        """
        if qid is not UNCHANGED:
            MetadataRequest(owner=self).score.add_request(param="qid", alias=qid)  # validates
            self._qid_request = qid
        return self

    # -- scoring --------------------------------------------------------------------------

    def evaluate(self, estimator, X, y_true, *, qid):
        """Predict on ``X`` once and evaluate every metric of this scorer per query.

        Parameters
        ----------
        estimator : fitted estimator with ``predict``
        X : array-like of shape (n_samples, n_features)
        y_true : array-like of shape (n_samples,)
            Relevance labels.
        qid : array-like of shape (n_samples,)
            Query id of every row.

        Returns
        -------
        RankingEvaluation
            Its ``per_query`` table holds one column per entry of :attr:`metrics`; the
            scorer's value is ``.mean(metric)`` (not negated).
        """
        if qid is None:
            raise TypeError(f"{self!r} needs qid, the query id of every row. {MISSING_QID_HINT}")
        if y_true is None:
            raise TypeError(f"{self!r} needs y, the relevance labels of the rows.")
        y_score = predict_scores(estimator, X, y_true)
        metric = list(self._metric) if self.multimetric else self._metric
        return evaluate(y_true, y_score, qid=qid, metrics=metric, k=self._k, **self.options)

    def __call__(self, estimator, X, y_true, qid=None):
        """Score ``estimator`` on ``X``: the macro mean over queries of each metric.

        Parameters
        ----------
        estimator : fitted estimator with ``predict``
        X : array-like of shape (n_samples, n_features)
        y_true : array-like of shape (n_samples,)
        qid : array-like of shape (n_samples,)
            Query id of every row; required (routed by scikit-learn when metadata routing is
            on).

        Returns
        -------
        float or dict
            A float for a single metric; ``{spec: float}`` for a multi-metric scorer. NaN (with
            a ``RuntimeWarning``) when every query is undefined for a metric. Negated when
            ``greater_is_better=False``.
        """
        evaluation = self.evaluate(estimator, X, y_true, qid=qid)
        sign = 1.0 if self.greater_is_better else -1.0
        values = {m: sign * evaluation.mean(m) for m in self.metrics}
        return values if self.multimetric else values[self.metrics[0]]

    # -- display and pickling -----------------------------------------------------------

    def __repr__(self):
        simple_k = self._k is None or isinstance(self._k, (numbers.Integral, str))
        if simple_k:
            metric = list(self.metrics) if self.multimetric else self.metrics[0]
            args = [repr(metric)]
        else:
            metric = list(self._metric) if self.multimetric else self._metric
            args = [repr(metric), f"k={self._k!r}"]
        if not self.greater_is_better:
            args.append("greater_is_better=False")
        args += [f"{key}={value!r}" for key, value in self.options.items()]
        text = f"make_ranking_scorer({', '.join(args)})"
        if self._qid_request is not True:
            text += f".set_score_request(qid={self._qid_request!r})"
        return text


def make_ranking_scorer(metric, *, k=None, greater_is_better=True, **conventions):
    """Make a query-aware scorer for scikit-learn model selection.

    The scorer is called as ``scorer(estimator, X, y, qid=qid)``: it predicts once, evaluates
    the scores per query with :func:`evaluate` and returns the macro mean over queries with a
    defined value, i.e. exactly ``evaluate(y, estimator.predict(X), qid=qid,
    metrics=[...]).mean(spec)``. It requests ``qid`` through metadata routing, so with
    ``sklearn.set_config(enable_metadata_routing=True)`` and ``params={"qid": qid}`` (or
    ``fit(X, y, qid=qid)`` for a search) scikit-learn hands each fold's query ids to it.
    Without ``qid`` it raises a ``TypeError`` saying how to pass them; it never treats a fold
    as one query.

    Parameters
    ----------
    metric : str or list of str
        A metric spec (``"ndcg@10"``, ``"recall@adaptive"``, ``"map"``) or a list of specs. A
        list gives a multi-metric scorer that predicts once and returns ``{spec: value}``;
        ``cross_validate`` reports ``test_<spec>`` and a search takes ``refit=<spec>``. The
        keys are the normalised specs (lower case, ``k`` applied), listed in
        ``scorer.metrics``.
    k : int, str or callable, optional
        Cut-off for specs given without ``@k`` (``make_ranking_scorer("recall", k="adaptive")``
        is ``make_ranking_scorer("recall@adaptive")``).
    greater_is_better : bool, default=True
        ``False`` negates the values, as :func:`sklearn.metrics.make_scorer` does.
    **conventions
        Options of :func:`evaluate`: ``conventions``, ``ties``, ``gain``, ``min_relevance``,
        ``empty_query``, ``ap_denominator``, ``beta``, ``err_max_grade``. They and the metric
        names are checked here, so a typo fails at construction. ``ties="trec_eval"`` needs
        document ids and is not available in a scorer.

    Returns
    -------
    RankingScorer
        A picklable callable with a readable repr, ``.metrics``, ``.evaluate(estimator, X, y,
        qid=...)`` (the per-query evaluation behind the value) and ``set_score_request``.

    Notes
    -----
    - A query with no relevant row is left out of the mean (``empty_query="skip"``, the
      default); if every query of a fold is, the value is NaN with a ``RuntimeWarning``.
    - An estimator whose final step sets ``_ltr_needs_labels = True`` (``OracleRanker``) is
      called as ``predict(X, y=y)`` with the fold's labels.
    - Without routing, ``cross_validate`` and the searches call the scorer without ``qid``.
      With their default ``error_score=np.nan`` the error becomes a warning ("Scoring failed")
      and NaN scores; use ``error_score="raise"`` or :func:`cross_validate_ranking`.
    - For plain ``cross_validate``/``GridSearchCV`` keep queries whole with a group splitter
      that reads ``qid`` as its groups: ``cv=GroupKFold(5).set_split_request(groups="qid")``
      (or pass ``params={"qid": qid, "groups": qid}`` with ``cv=GroupKFold(5)``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ltr_metrics import FeatureRanker, make_ranking_scorer
    >>> X = np.array([[3.0], [1.0], [2.0], [0.5], [0.9]])
    >>> y = np.array([1, 0, 0, 0, 1])
    >>> qid = np.array(["a", "a", "a", "b", "b"])
    >>> ranker = FeatureRanker(0).fit(X)
    >>> scorer = make_ranking_scorer("recall", k="adaptive")
    >>> scorer
    make_ranking_scorer('recall@adaptive')
    >>> scorer(ranker, X, y, qid=qid)
    1.0
    >>> both = make_ranking_scorer(["precision@1", "mrr"])
    >>> both(ranker, X, y, qid=qid)
    {'precision@1': 1.0, 'mrr': 1.0}

    In model selection (metadata routing on, one ``qid`` array for splitter, ranker and
    scorer):

    >>> import sklearn
    >>> from sklearn.model_selection import GroupKFold, cross_validate
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     cv = GroupKFold(2).set_split_request(groups="qid")
    ...     res = cross_validate(ranker, X, y, cv=cv, scoring=scorer, params={"qid": qid})
    >>> res["test_score"]
    array([1., 1.])
    """
    return RankingScorer(metric, k=k, greater_is_better=greater_is_better, **conventions)
