"""``make_ranking_scorer``: query-aware scikit-learn scorers.

A ranking scorer predicts once on a test fold, evaluates the scores per query with
:func:`evaluate` and returns the macro mean over queries (or a dict of means for several
metrics). It finds the query ids in one of two places: a ``qid`` column of a DataFrame ``X``
(the name is ``qid_column``), which travels with ``X`` through every fold with routing off;
or a ``qid`` passed to it, which it requests through scikit-learn's public metadata-routing
protocol (``get_metadata_routing``), so with ``sklearn.set_config(enable_metadata_routing=True)``
a ``params={"qid": qid}`` given to ``cross_validate``, ``GridSearchCV.fit`` and friends reaches
it, sliced to the fold's rows.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils.metadata_routing import UNCHANGED, MetadataRequest

from .._label_map import check_label_map, map_labels
from .._leakage import warn_if_queries_leak
from .._qid import (
    DEFAULT_QID_COLUMN,
    EstimatorMissingQueryIdsError,
    MissingQueryIdsError,
    check_qid_column,
    required_qid,
)
from .._sklearn_calls import unscorable_or_raise
from .._table import COUNT_COLUMNS
from .._validation import short_repr
from ._evaluate import evaluate
from ._evaluation import RankingEvaluation
from ._names._beyond import refuse_in_scorer, split_beyond
from ._options import OPTION_KEYS, check_doc_id, check_options
from ._registry import metric_list, parse_metrics

__all__ = [
    "EstimatorMissingQueryIdsError",
    "MissingQueryIdsError",
    "RankingScorer",
    "make_ranking_scorer",
]

#: evaluate() options a scorer accepts (per-row inputs such as doc_id cannot be fixed at
#: construction, and query_stats belongs to one data set, not to a scorer).
_CONVENTION_OPTIONS = (
    "conventions",
    *(key for key in OPTION_KEYS if key != "default_k"),
    "label_map",
)

#: The response methods a scorer tries, in order, when none is given (as in scikit-learn's
#: ``make_scorer(response_method=...)``, with ``decision_function`` first).
DEFAULT_RESPONSE_METHOD = ("decision_function", "predict_proba", "predict")
_RESPONSE_METHODS = frozenset(DEFAULT_RESPONSE_METHOD)


def _final_step(estimator):
    """The last step of a Pipeline (recursively), else ``estimator`` itself."""
    steps = getattr(estimator, "steps", None)
    if isinstance(steps, list) and steps:
        return _final_step(steps[-1][1])
    return estimator


def check_response_method(response_method):
    """``response_method`` as a tuple of method names (``None``: the default order)."""
    if response_method is None:
        return DEFAULT_RESPONSE_METHOD
    methods = (response_method,) if isinstance(response_method, str) else response_method
    if not isinstance(methods, (list, tuple)) or not methods:
        raise TypeError(
            "response_method must be None, a method name or a non-empty list of them, got "
            f"{short_repr(response_method)}."
        )
    for method in methods:
        if method not in _RESPONSE_METHODS:
            raise ValueError(
                f"response_method={response_method!r} names {method!r}; use "
                f"{', '.join(map(repr, DEFAULT_RESPONSE_METHOD))} or a list of them."
            )
    return tuple(methods)


def _as_scores(raw, method, classes, label_map=None):
    """One score per row from the output of ``method`` (see :func:`predict_scores`)."""
    raw = np.asarray(raw)
    if raw.ndim == 2 and raw.shape[1] == 1:
        return raw.ravel()
    grades = None
    if label_map is not None and classes is not None and method != "predict":
        # A classifier of labels such as ESCI's letters: its classes through label_map.
        grades = map_labels(classes, label_map, "the classifier's classes_").astype(np.float64)
    if raw.ndim == 1:
        if grades is not None and grades.shape[0] == 2 and grades[1] < grades[0]:
            return -raw  # the margin of classes_[1], the lower grade
        return raw
    if raw.ndim == 2 and method == "predict_proba" and grades is not None:
        return raw @ grades  # the expected grade
    if raw.ndim == 2 and method == "predict_proba":
        if raw.shape[1] == 2:
            return raw[:, 1]
        grades = np.arange(raw.shape[1]) if classes is None else np.asarray(classes)
        if grades.shape[0] != raw.shape[1] or not np.issubdtype(grades.dtype, np.number):
            raise TypeError(
                f"predict_proba gives {raw.shape[1]} class columns but the classes "
                f"{short_repr(classes)} are not numeric grades, so no expected grade can rank the "
                "rows; train on numeric relevance labels or pass another response_method."
            )
        return raw @ grades.astype(np.float64)
    raise ValueError(
        f"{method} returned an array of shape {raw.shape}; a ranking needs one score per row. "
        "For a multi-class classifier use response_method='predict_proba' (the expected grade)."
    )


def predict_scores(estimator, X, y=None, response_method=None, label_map=None):
    """One score per row of ``X``: the estimator's first available response method.

    ``response_method`` (default ``("decision_function", "predict_proba", "predict")``) lists
    the methods tried in order. ``predict_proba`` gives the positive class's probability for
    two classes and the expected grade ``sum_c p_c * c`` for more; the default order skips a
    multi-class ``decision_function`` (one column per class). An estimator whose (final
    Pipeline step's) class sets ``predict_needs_y = True`` (``OracleRanker``) gets
    ``predict(X, y=y)``; inside a Pipeline the earlier steps transform ``X`` first. With
    ``label_map``, a classifier's ``classes_`` are labels it maps to grades: ``predict_proba``
    gives the expected grade (two classes too) and a binary margin points to the higher grade.
    """
    methods = check_response_method(response_method)
    final = _final_step(estimator)
    if getattr(final, "predict_needs_y", False) and "predict" in methods:
        if y is None:
            raise ValueError(
                f"{type(final).__name__} ranks by the true labels, so scoring it needs y; "
                "pass y to the scorer."
            )
        if hasattr(estimator, "steps"):
            Xt = estimator[:-1].transform(X) if len(estimator.steps) > 1 else X
            return predict_scores(estimator.steps[-1][1], Xt, y, "predict")
        return _as_scores(estimator.predict(X, y=y), "predict", None)
    classes = getattr(estimator, "classes_", None)
    n_classes = 0 if classes is None else len(classes)
    for method in methods:
        if not hasattr(estimator, method):
            continue
        if method == "decision_function" and n_classes > 2 and response_method is None:
            continue  # one margin per class is not one score per row
        return _as_scores(getattr(estimator, method)(X), method, classes, label_map)
    others = f" (nor {' or '.join(methods[:-1])})" if len(methods) > 1 else ""
    raise TypeError(
        f"estimator {type(estimator).__name__} has no {methods[-1]} method{others}; a ranking "
        "scorer needs one score per row (higher ranks first), e.g. from predict(X)."
    )


class RankingScorer:
    """A query-aware scorer: ``scorer(estimator, X, y, qid=qid)``; see :func:`make_ranking_scorer`.

    The constructor arguments are kept as public attributes, so a scorer can be rebuilt or
    inspected without private state: ``RankingScorer(s.metric, k=s.k,
    greater_is_better=s.greater_is_better, response_method=s.response_method,
    qid_column=s.qid_column, **s.options)`` is an equal scorer.

    Parameters
    ----------
    metric : str or list of str
        A metric spec or a list of specs, as :func:`make_ranking_scorer` takes them.
    k : int, str or callable, optional
        Cut-off for specs given without ``@k``.
    greater_is_better : bool, default=True
        ``False`` negates the values.
    response_method : str, tuple of str or None, default=None
        The estimator's method giving the scores, as :func:`make_ranking_scorer` takes it.
    qid_column : str or None, default="qid"
        The column of a DataFrame ``X`` holding the query ids, read when no ``qid`` is passed.
    **options
        Options of :func:`evaluate` (``conventions``, ``ties``, ``gain``...).

    Attributes
    ----------
    metric : str or tuple of str
        The metric spec(s) as given (a tuple for a multi-metric scorer).
    k : int, str, list, callable or None
        The cut-off given for specs without ``@k``.
    metrics : tuple of str
        The keys of the dict a multi-metric scorer returns and the metric columns of its
        per-query table: each spec as asked, lower case, with ``k`` applied to a spec given
        without ``@`` (``["fbeta@10", "f1@10"]`` keeps both keys, although they are one
        metric; a spec repeated is kept once).
    multimetric : bool
        Whether ``__call__`` returns a dict ``{spec: value}`` rather than a float.
    greater_is_better : bool
        ``False`` negates the values returned by ``__call__`` (scikit-learn's convention).
    response_method : str, tuple of str or None
        As given; ``None`` tries ``decision_function``, ``predict_proba``, then ``predict``.
    qid_column : str or None
        The query-id column read from a DataFrame ``X`` when no ``qid`` is passed.
    options : dict
        The :func:`evaluate` options given at construction (``conventions``, ``ties``...).

    Examples
    --------
    >>> from sklearn_ltr_metrics.metrics import RankingScorer, make_ranking_scorer
    >>> scorer = make_ranking_scorer(["ndcg@10", "capped_recall@adaptive"])
    >>> isinstance(scorer, RankingScorer), scorer.metrics, scorer.multimetric
    (True, ('ndcg@10', 'capped_recall@adaptive'), True)
    """

    def __init__(
        self,
        metric,
        *,
        k=None,
        greater_is_better=True,
        response_method=None,
        qid_column=DEFAULT_QID_COLUMN,
        **options,
    ):
        unknown = sorted(set(options) - set(_CONVENTION_OPTIONS))
        if unknown:
            raise TypeError(
                f"make_ranking_scorer got unexpected option(s) {unknown}; the evaluate options "
                f"a scorer takes are {', '.join(_CONVENTION_OPTIONS)}."
            )
        if not isinstance(greater_is_better, (bool, np.bool_)):
            raise TypeError(
                f"greater_is_better must be True or False, got {short_repr(greater_is_better)}."
            )
        check_response_method(response_method)
        check_label_map(options.get("label_map"))
        self.multimetric = not isinstance(metric, str)
        if self.multimetric:
            try:
                metric = metric_list(metric)  # a set in sorted order, a generator read once
            except TypeError:
                raise TypeError(
                    "metric must be a metric spec string such as 'ndcg@10' or a list (tuple, "
                    f"set, any iterable) of them, got {short_repr(metric)}."
                ) from None
        # The one options check of evaluate: a scorer refuses exactly what evaluate refuses.
        resolved = check_options(
            options.get("conventions"),
            **{key: options[key] for key in OPTION_KEYS if key in options},
        )
        entries = list(metric) if self.multimetric else [metric]
        # Every entry checked, errors as evaluate's.
        # Diversity, fairness: inputs a scorer does not receive (refused); exposure: parsed.
        beyond = refuse_in_scorer(entries, k)
        specs = [] if beyond is None else beyond[0]
        others = entries if beyond is None else beyond[1]
        specs += parse_metrics(others, k, options=resolved) if others else []
        if not self.multimetric and len(specs) > 1:
            raise ValueError(
                f"metric={metric!r} stands for {len(specs)} measures "
                f"({', '.join(spec.column for spec in specs)}); a single-metric scorer scores "
                "one: pass one of them, or a list for a multi-metric scorer."
            )
        self._columns = _keyed_columns(entries, k, resolved)
        # A scorer receives no document ids.
        check_doc_id(
            resolved["ties"],
            None,
            fix="a scorer receives no doc ids: pass ties='average' or 'stable' explicitly, or "
            "evaluate TREC runs with evaluate_run",
        )
        self.metric = tuple(metric) if self.multimetric else metric
        self.k = k
        self.metrics = tuple(self._columns)
        self.greater_is_better = bool(greater_is_better)
        self.response_method = (
            response_method
            if response_method is None or isinstance(response_method, str)
            else tuple(response_method)
        )
        self.qid_column = check_qid_column(qid_column)
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

    def predict_scores(self, estimator, X, y_true=None):
        """One score per row of ``X`` from the estimator's response method (one call).

        Parameters
        ----------
        estimator : fitted estimator
        X : array-like of shape (n_samples, n_features)
        y_true : array-like of shape (n_samples,), optional
            Passed to an estimator that ranks by the labels (``OracleRanker``).

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        label_map = self.options.get("label_map")
        grades = None if y_true is None else map_labels(y_true, label_map)
        return predict_scores(estimator, X, grades, self.response_method, label_map)

    def evaluate_scores(self, y_true, y_score, *, qid):
        """Evaluate given scores per query with this scorer's metrics and options.

        Parameters
        ----------
        y_true, y_score, qid : array-like of shape (n_samples,)

        Returns
        -------
        RankingEvaluation
            One column per entry of :attr:`metrics`; the scorer's value is ``.mean(spec)``
            (not negated).
        """
        metric = list(self.metric) if self.multimetric else self.metric
        evaluation = evaluate(y_true, y_score, qid=qid, metrics=metric, k=self.k, **self.options)
        return _rekey(evaluation, self._columns)

    def evaluate(self, estimator, X, y_true, *, qid=None):
        """Predict on ``X`` once and evaluate every metric of this scorer per query.

        Parameters
        ----------
        estimator : fitted estimator with ``predict``
        X : array-like or DataFrame of shape (n_samples, n_features)
            Given to the estimator as it is (a package ranker drops the query-id column).
        y_true : array-like of shape (n_samples,)
            Relevance labels.
        qid : array-like of shape (n_samples,), default=None
            Query id of every row; ``None`` reads the column ``qid_column`` of ``X``.

        Returns
        -------
        RankingEvaluation
            Its ``per_query`` table holds one column per entry of :attr:`metrics`; the
            scorer's value is ``.mean(metric)`` (not negated).
        """
        qid = required_qid(X, qid, self.qid_column, owner=repr(self))
        if y_true is None:
            raise TypeError(f"{self!r} needs y, the relevance labels of the rows.")
        evaluation = self.evaluate_scores(
            y_true, self.predict_scores(estimator, X, y_true), qid=qid
        )
        warn_if_queries_leak(estimator, qid)  # a splitter that split queries (KFold, cv=5)
        return evaluation

    def __call__(self, estimator, X, y_true, qid=None):
        """Score ``estimator`` on ``X``: the macro mean over queries of each metric.

        Parameters
        ----------
        estimator : fitted estimator
        X : array-like or DataFrame of shape (n_samples, n_features)
        y_true : array-like of shape (n_samples,)
        qid : array-like of shape (n_samples,), default=None
            Query id of every row (routed by scikit-learn when metadata routing is on);
            ``None`` reads the column ``qid_column`` of a DataFrame ``X``. Without either,
            :class:`MissingQueryIdsError` (never a NaN score).

        Returns
        -------
        float or dict
            A float for a single metric; ``{spec: float}`` for a multi-metric scorer. NaN (with
            a ``RuntimeWarning``) when every query is undefined for a metric. Negated when
            ``greater_is_better=False``.
        """
        try:
            evaluation = self.evaluate(estimator, X, y_true, qid=qid)
        except MissingQueryIdsError as error:
            # Raised; inside scikit-learn's scoring step, which would turn it into NaN, a
            # value that raises it there (_sklearn_calls).
            return unscorable_or_raise(error)
        sign = 1.0 if self.greater_is_better else -1.0
        values = {key: sign * evaluation.mean(key) for key in self.metrics}
        return values if self.multimetric else values[self.metrics[0]]

    # -- display and pickling -----------------------------------------------------------

    def __repr__(self):
        simple_k = self.k is None or isinstance(self.k, (numbers.Integral, str))
        if simple_k:
            metric = list(self.metrics) if self.multimetric else self.metrics[0]
            args = [repr(metric)]
        else:
            metric = list(self.metric) if self.multimetric else self.metric
            args = [repr(metric), f"k={self.k!r}"]
        if not self.greater_is_better:
            args.append("greater_is_better=False")
        if self.response_method is not None:
            method = self.response_method
            args.append(
                f"response_method={list(method) if isinstance(method, tuple) else method!r}"
            )
        if self.qid_column != DEFAULT_QID_COLUMN:
            args.append(f"qid_column={self.qid_column!r}")
        args += [f"{key}={value!r}" for key, value in self.options.items()]
        text = f"make_ranking_scorer({', '.join(args)})"
        if self._qid_request is not True:
            text += f".set_score_request(qid={self._qid_request!r})"
        return text


def _keyed_columns(entries, k, options):
    """``{key: metric column}``: each spec as asked (lower case, ``k`` applied) -> its column.

    Two keys may share a column (``"fbeta@10"`` and ``"f1@10"`` are one metric with
    ``beta=1``); the user gets both keys, computed once.
    """
    columns = {}
    for entry in entries:
        beyond = split_beyond([entry], k)
        specs = beyond[0] if beyond else parse_metrics(entry, k, options=options)
        if len(specs) > 1:  # a name that stands for several measures (P.5,10, all_trec)
            columns.update((spec.column, spec.column) for spec in specs)
            continue
        (spec,) = specs
        # A name kept as typed (another tool's spelling: "nDCG@10", "P_5") keys as typed.
        key = entry.strip() if spec.column == entry.strip() else entry.strip().lower()
        label = spec.column.partition("@")[2]
        if "@" not in key and label:
            key = f"{key}@{label}"
        columns.setdefault(key, spec.column)
    return columns


def _rekey(evaluation, columns):
    """``evaluation`` with its metric columns named by the scorer's keys (a copy if renamed)."""
    if all(key == column for key, column in columns.items()):
        return evaluation
    table = evaluation.per_query
    counts = table[[c for c in table.columns if c in COUNT_COLUMNS]]
    per_query = counts.assign(**{key: table[column] for key, column in columns.items()})
    parts = {key: evaluation._cutoff_parts[column] for key, column in columns.items()}
    return RankingEvaluation(per_query, parts, evaluation.conventions)


def make_ranking_scorer(
    metric,
    *,
    k=None,
    greater_is_better=True,
    response_method=None,
    qid_column=DEFAULT_QID_COLUMN,
    **conventions,
):
    """Make a query-aware scorer for scikit-learn model selection.

    The scorer is called as ``scorer(estimator, X, y, qid=qid)``: it predicts once, evaluates
    the scores per query with :func:`evaluate` and returns the macro mean over queries with a
    defined value, i.e. exactly ``evaluate(y, estimator.predict(X), qid=qid,
    metrics=[...]).mean(spec)``. Called without ``qid``, it reads the query ids from the
    ``qid`` column of a DataFrame ``X`` (the recommended form: nothing to route). It also
    requests ``qid`` through metadata routing, so with
    ``sklearn.set_config(enable_metadata_routing=True)`` and ``params={"qid": qid}`` (or
    ``fit(X, y, qid=qid)`` for a search) scikit-learn hands each fold's query ids to it.
    Without either it raises :class:`~sklearn_ltr_metrics.metrics.MissingQueryIdsError`
    saying how to pass them; it never treats a fold as one query.

    Parameters
    ----------
    metric : str or iterable of str
        A metric spec (``"ndcg@10"``, ``"recall@adaptive"``, ``"map"``) or a list of specs (a
        tuple, a generator; a ``set`` in sorted order). A list gives a multi-metric scorer
        that predicts once and returns ``{spec: value}``; ``cross_validate`` reports
        ``test_<spec>`` and a search takes ``refit=<spec>``. The keys are the normalised
        specs (lower case, ``k`` applied), listed in ``scorer.metrics``. The diversity
        measures and ``awrf`` are refused (a label per subtopic, a group per row: inputs a
        scorer does not receive; see the diversity page); ``ee_loss`` and the other expected
        exposure measures are taken.
    k : int, str or callable, optional
        Cut-off for specs given without ``@k`` (``make_ranking_scorer("recall", k="adaptive")``
        is ``make_ranking_scorer("recall@adaptive")``).
    greater_is_better : bool, default=True
        ``False`` negates the values, as :func:`sklearn.metrics.make_scorer` does.
    response_method : str or list of str, default=None
        Which estimator method gives the scores, as in :func:`sklearn.metrics.make_scorer`:
        the first one the estimator has is used. ``None`` means ``["decision_function",
        "predict_proba", "predict"]``, so a classifier is ranked by its margins or
        probabilities, never by hard labels. ``predict_proba`` gives the positive class's
        probability for two classes and the expected grade ``sum_c p_c * c`` for graded
        (multi-class) labels; by default a multi-class ``decision_function`` (one column per
        class) is skipped for ``predict_proba``. Rankers and regressors only have ``predict``.
    qid_column : str or None, default="qid"
        The column of a DataFrame ``X`` holding the query ids, read when the scorer is called
        without ``qid`` (XGBoost's convention; pandas, pyarrow and polars tables). ``None``:
        never read ``X``. ``X`` reaches the estimator with the column; the package's rankers
        drop it.
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
    - An estimator whose final step sets ``predict_needs_y = True`` (``OracleRanker``) is
      called as ``predict(X, y=y)`` with the fold's labels.
    - With routing off, the recommended form is a DataFrame ``X`` with a ``qid`` column
      (``qid_column``): the scorer reads it from each fold's rows of ``X``, as
      ``cv=QueryKFold(5)`` and the package's rankers do, so plain ``cross_validate`` and
      ``GridSearchCV`` need nothing routed.
    - Without ``qid`` and without the column it raises
      :class:`~sklearn_ltr_metrics.metrics.MissingQueryIdsError`; inside scikit-learn's
      ``cross_validate`` and searches too, whatever ``error_score``: never a warning and NaN
      scores among which a search would pick a best candidate.

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

    The query ids as a column of ``X`` (the ranker drops it; the scorer reads it):

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"f0": X[:, 0], "qid": qid})
    >>> scorer(FeatureRanker("f0").fit(frame), frame, y)
    1.0

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
    return RankingScorer(
        metric,
        k=k,
        greater_is_better=greater_is_better,
        response_method=response_method,
        qid_column=qid_column,
        **conventions,
    )
