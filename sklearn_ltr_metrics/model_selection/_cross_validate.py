"""``cross_validate_ranking``: query-safe cross-validation, computed table first.

scikit-learn's ``cross_validate`` fits the folds (metadata routing, parallelism, fit failures,
timing); it runs inside ``sklearn.config_context(enable_metadata_routing=True)``, so it works
whether or not the user turned routing on, and leaves the global setting unchanged (also when
it raises). The folds are computed here (an int ``cv`` is :class:`QueryKFold` over ``qid``; a
split that puts one query on both sides is rejected) and reach scikit-learn as a fixed list.

Scores are then taken from tables: each fitted fold predicts its test rows once, the scores are
evaluated per query, and ``test_<name>`` is the mean of that fold's per-query column, so
"score = mean of the per-query table" holds by construction.
"""

from __future__ import annotations

import time
import traceback
import warnings

import numpy as np
import pandas as pd
from sklearn import config_context
from sklearn.model_selection import cross_validate
from sklearn.utils.metadata_routing import MetadataRequest

from .._doc_link import doc_parts
from .._engine import factorize_qid
from .._qid import DEFAULT_QID_COLUMN, qid_of
from .._validation import short_repr, take_rows
from ..metrics import RankingScorer, make_ranking_scorer
from ._split import query_splits

__all__ = ["check_scoring", "cross_validate_ranking", "example_doc", "qid_codes"]

#: Fill a docstring's line ``{example_data}``: the Examples section's start, the rows the
#: examples rank (six queries of ten rows, three features), written once; each example picks
#: its label.
example_doc = doc_parts(
    {
        "example_data": """\
Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(60, 3))
>>> qid = np.repeat(["a", "b", "c", "d", "e", "f"], 10)"""
    }
)

_COUNTS = ["n_docs", "n_pos", "n_neg"]


def qid_codes(qid, X, qid_column=DEFAULT_QID_COLUMN, *, owner="cross_validate_ranking"):
    """``qid`` as a 1-D array with one entry per row of ``X`` (plus its codes and uniques).

    ``qid=None`` reads the column ``qid_column`` of a DataFrame ``X``, and a string ``qid``
    (``qid="qid"``) names the column to read; with neither, :class:`MissingQueryIdsError`.
    ``X`` itself is left as it is (the package's rankers drop the column; other estimators
    see it).
    """
    if isinstance(qid, str):  # a column name, as qid_column
        if qid_column not in (DEFAULT_QID_COLUMN, qid):
            raise ValueError(
                f"{owner} got qid={qid!r}, a column name, and qid_column={qid_column!r}; name "
                "the query-id column once."
            )
        qid, qid_column = None, qid
    qid_arr = qid_of(X, qid, qid_column=qid_column, owner=owner)
    codes, uniques = factorize_qid(qid_arr)
    return qid_arr, codes, uniques


def _copy(scorer, metric=None):
    """A copy of ``scorer`` built from its public attributes, requesting ``qid``."""
    return RankingScorer(
        scorer.metric if metric is None else metric,
        k=scorer.k,
        greater_is_better=scorer.greater_is_better,
        response_method=scorer.response_method,
        qid_column=scorer.qid_column,
        **scorer.options,
    )


def check_scoring(scoring):
    """``scoring`` -> ([(RankingScorer, {spec: output name})], whether it is one scorer).

    A str or a single-metric scorer is "one scorer" (scikit-learn's ``test_score``); a list
    of specs is one multi-metric scorer; a dict maps output names to single-metric scorers.
    """
    if isinstance(scoring, str):
        scoring = make_ranking_scorer(scoring)
    elif isinstance(scoring, (list, tuple)):
        scoring = make_ranking_scorer(list(scoring))
    if isinstance(scoring, RankingScorer):
        scorer = _copy(scoring)
        return [(scorer, {m: m for m in scorer.metrics})], not scorer.multimetric
    if isinstance(scoring, dict) and scoring:
        parts = []
        for name, value in scoring.items():
            if not isinstance(name, str):
                raise TypeError(f"scoring dict keys must be str names, got {name!r}.")
            if not isinstance(value, RankingScorer) or value.multimetric:
                raise TypeError(
                    f"scoring[{name!r}] must be a single-metric scorer from "
                    f"make_ranking_scorer('...'), got {short_repr(value)}; give several metrics as "
                    "a list instead, e.g. scoring=['ndcg@10', 'map']."
                )
            parts.append((_copy(value), {value.metrics[0]: name}))
        return parts, False
    raise TypeError(
        "scoring must be a metric spec such as 'ndcg@10', a list of specs, a scorer from "
        "make_ranking_scorer, or a dict name -> make_ranking_scorer('...'); got "
        f"{short_repr(scoring)}."
    )


class _FitOnly:
    """The scorer scikit-learn runs in each fold: it accepts ``qid`` and scores nothing.

    The scores come from the per-query tables computed afterwards, from one predict per fold.
    """

    def get_metadata_routing(self):
        request = MetadataRequest(owner=self)
        request.score.add_request(param="qid", alias=True)
        return request

    def __call__(self, estimator, X, y, qid=None):
        return 0.0


def _evaluate_rows(estimator, X, y, qid_arr, rows, parts):
    """Predict ``rows`` once per response method and evaluate them with every scorer."""
    X_rows, y_rows, qid_rows = take_rows(X, rows), take_rows(y, rows), qid_arr[rows]
    y_rows = np.asarray(y_rows)
    scores = {}
    evaluations = []
    for scorer, _ in parts:
        key = scorer.response_method
        if key not in scores:
            scores[key] = scorer.predict_scores(estimator, X_rows, y_rows)
        evaluations.append(scorer.evaluate_scores(y_rows, scores[key], qid=qid_rows))
    return evaluations


def _values(evaluations, parts):
    """``{name: signed mean}`` of every score (the mean of its per-query column)."""
    values = {}
    for evaluation, (scorer, names) in zip(evaluations, parts, strict=True):
        sign = 1.0 if scorer.greater_is_better else -1.0
        for spec, name in names.items():
            values[name] = sign * evaluation.mean(spec)
    return values


def _tables(fold, evaluations, parts):
    """The fold's per-query table and per-(query, metric, k) table, columns named by score."""
    per_query = [evaluations[0].per_query[_COUNTS]]
    per_cutoff = []
    for evaluation, (_, names) in zip(evaluations, parts, strict=True):
        per_query.append(evaluation.per_query[list(names)].rename(columns=names))
        cut = evaluation.per_cutoff
        cut = cut[cut["metric"].isin(list(names))]
        per_cutoff.append(cut.assign(metric=cut["metric"].map(names)))
    per_query = pd.concat(per_query, axis=1).reset_index()
    per_query.insert(0, "fold", fold)
    per_cutoff = pd.concat(per_cutoff, ignore_index=True)
    per_cutoff.insert(0, "fold", fold)
    return per_query, per_cutoff


def _score_failed(error_score):
    warnings.warn(
        "Scoring failed. The score on this train-test partition will be set to "
        f"{error_score!r}, and the fold has no rows in per_query. Details:\n"
        f"{traceback.format_exc()}",
        UserWarning,
        stacklevel=3,
    )


@example_doc
def cross_validate_ranking(
    estimator,
    X,
    y,
    *,
    qid=None,
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
    qid_column=DEFAULT_QID_COLUMN,
):
    """Cross-validate a ranker with folds that keep queries whole and query-aware scores.

    Fits with :func:`sklearn.model_selection.cross_validate` under metadata routing enabled
    locally (the global setting is left as it was, also on error): ``qid`` reaches the
    estimator's ``fit`` (if it requests it, as the package's rankers do), sliced to each
    fold's rows. Each fitted fold then predicts its test rows once; the scores are evaluated
    per query and every ``test_<name>`` is the mean of that fold's per-query column.

    Parameters
    ----------
    estimator : estimator
        A ranker, a regressor or classifier, or a Pipeline or search ending in one. Scores come
        from its response method (see ``response_method`` of :func:`make_ranking_scorer`);
        ``OracleRanker`` is given the fold's labels.
    X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Relevance labels.
    qid : array-like of shape (n_samples,) or str, default=None
        Query id of every row (int, str...). Rows need not be sorted or grouped. ``None``
        reads the column ``qid_column`` of a DataFrame ``X`` (which stays in ``X``: the
        package's rankers drop it before fitting, other estimators see it as a feature); a
        string names that column (``qid="qid"``, as ``qid_column=``).
    scoring : str, list of str, RankingScorer or dict, default="ndcg@10"
        A metric spec, a list of specs (one multi-metric scorer), a scorer from
        :func:`make_ranking_scorer`, or a dict ``name -> make_ranking_scorer(spec)``. One
        prediction per fold serves them all (one per distinct ``response_method``). Results are
        keyed by spec (``test_ndcg@10``) or by the dict's names; a single scorer (a str or a
        single-metric scorer) also gives ``test_score``, as scikit-learn does.
    cv : int, splitter or iterable, default=5
        An int means :class:`QueryKFold` with that many folds over ``qid`` (the folds of
        ``GroupKFold``; never plain ``KFold``). A splitter reading ``qid`` or ``groups``
        (:class:`QueryKFold`, :class:`StratifiedQueryKFold`, ``GroupKFold``,
        ``GroupShuffleSplit``...) gets the query ids; other splitters are used as they are; an
        iterable gives ``(train, test)`` indices. A split with a query on both sides raises
        ``ValueError``.
    n_jobs : int, default=None
        Folds fitted in parallel (joblib); results do not depend on it.
    verbose : int, default=0
        Passed to ``cross_validate`` (its printed scores are placeholders; the scores are
        computed afterwards).
    params : dict, default=None
        Further fit parameters (e.g. ``sample_weight``), routed as scikit-learn does. ``qid``
        is passed by this function and must not be repeated here.
    pre_dispatch : int or str, default="2*n_jobs"
    return_train_score, return_estimator, return_indices : bool, default=False
        As in :func:`~sklearn.model_selection.cross_validate` (train scores cost one more
        predict per fold).
    return_per_query : bool, default=True
        Add the tables behind the scores: ``"per_query"``, a DataFrame with columns ``fold``,
        ``qid``, ``n_docs``, ``n_pos``, ``n_neg`` and one column per score name, and
        ``"per_cutoff"``, a long DataFrame with columns ``fold``, ``qid``, ``metric``, ``k``,
        ``value`` (``evaluate(...).per_cutoff`` of every fold, ``metric`` holding the score
        name): every value at every cut-off, e.g. for Recall@K curves.
    error_score : "raise" or float, default="raise"
        Raise on a failing fit or score (scikit-learn's default would turn errors into NaN).
        With a number, a failing fold gets that score (with a warning) and no rows in the
        tables.
    qid_column : str or None, default="qid"
        The column of a DataFrame ``X`` read for the query ids when ``qid`` is None.

    Returns
    -------
    dict
        ``fit_time``, ``score_time`` (predict and evaluate), ``test_<name>`` (and
        ``train_<name>``, ``estimator``, ``indices`` when asked; ``test_score`` for a single
        scorer), ``per_query`` and ``per_cutoff``. The per-fold column means of
        ``per_query`` equal ``test_<name>`` (up to the sign for ``greater_is_better=False``,
        which ``test_`` applies and the table does not).

    {example_data}
    >>> from sklearn_ltr_metrics import cross_validate_ranking, FeatureRanker
    >>> y = (X[:, 0] > 0.5).astype(int)
    >>> res = cross_validate_ranking(
    ...     FeatureRanker(0), X, y, qid=qid, scoring=["ndcg@5", "mrr"], cv=3
    ... )
    >>> res["test_mrr"]
    array([1., 1., 1.])
    >>> res["per_query"][["fold", "qid", "n_pos", "mrr"]].head(3)
       fold qid  n_pos  mrr
    0     0   c      3  1.0
    1     0   f      3  1.0
    2     1   b      5  1.0
    >>> res["per_cutoff"].head(2)
       fold qid  metric  k  value
    0     0   c  ndcg@5  5    1.0
    1     0   f  ndcg@5  5    1.0
    """
    qid_arr, codes, uniques, params = _check_inputs(estimator, X, qid, qid_column, params)
    parts, single = check_scoring(scoring)
    folds = query_splits(cv, X, y, qid_arr, codes, uniques)
    with config_context(enable_metadata_routing=True):
        fitted = cross_validate(
            estimator,
            X,
            y,
            cv=folds,
            scoring=_FitOnly(),
            n_jobs=n_jobs,
            verbose=verbose,
            params={**params, "qid": qid_arr},
            pre_dispatch=pre_dispatch,
            return_estimator=True,
            return_indices=return_indices,
            error_score="raise" if isinstance(error_score, str) else np.nan,
        )
    scored = _score_folds(
        fitted, folds, (X, y, qid_arr), parts, error_score, return_per_query, return_train_score
    )
    result = {"fit_time": fitted["fit_time"], "score_time": scored["score_time"]}
    if return_estimator:
        result["estimator"] = fitted["estimator"]
    if return_indices:
        result["indices"] = fitted["indices"]
    names = [name for _, mapping in parts for name in mapping.values()]
    prefixes = ("test", "train") if return_train_score else ("test",)
    for prefix in prefixes:
        if single:
            result[f"{prefix}_score"] = scored[prefix][names[0]]
        for name in names:
            result[f"{prefix}_{name}"] = scored[prefix][name]
    if return_per_query:
        result["per_query"] = _concat(scored["per_query"], ["fold", "qid", *_COUNTS, *names])
        result["per_cutoff"] = _concat(
            scored["per_cutoff"], ["fold", "qid", "metric", "k", "value"]
        )
    return result


def _check_inputs(estimator, X, qid, qid_column, params):
    """The estimator checked, the query ids (argument or column) and the fit params."""
    if not hasattr(estimator, "fit") or not any(
        hasattr(estimator, m) for m in ("predict", "decision_function", "predict_proba")
    ):
        raise TypeError(
            f"estimator {type(estimator).__name__} needs fit and predict methods; a ranker's "
            "predict(X) returns one score per row."
        )
    qid_arr, codes, uniques = qid_codes(qid, X, qid_column)
    params = {} if params is None else dict(params)
    clash = sorted({"qid", "groups"} & set(params))
    if clash:
        raise ValueError(
            f"params may not contain {clash}: cross_validate_ranking passes qid itself (and "
            "uses it as the splitter's groups)."
        )
    return qid_arr, codes, uniques, params


def _score_folds(fitted, folds, data, parts, error_score, return_per_query, return_train_score):
    """Every fitted fold predicts its test rows once; scores and tables from per-query tables.

    ``data`` is ``(X, y, qid)``. Returns ``{"test": {name: values}, "train": ...,
    "score_time": ..., "per_query": [tables], "per_cutoff": [tables]}``; a fold whose fit or
    scoring failed gets ``error_score`` (scoring failures raise when it is ``"raise"``).
    """
    names = [name for _, mapping in parts for name in mapping.values()]
    n_folds = len(folds)
    out = {
        "test": {name: np.full(n_folds, np.nan) for name in names},
        "train": {name: np.full(n_folds, np.nan) for name in names},
        "score_time": np.zeros(n_folds),
        "per_query": [],
        "per_cutoff": [],
    }
    for fold, ((train_rows, test_rows), model) in enumerate(
        zip(folds, fitted["estimator"], strict=True)
    ):
        if np.isnan(fitted["test_score"][fold]):  # the fit failed; scikit-learn warned
            for values in (out["test"], out["train"]):
                for name in names:
                    values[name][fold] = error_score
            continue
        start = time.perf_counter()
        try:
            evaluations = _evaluate_rows(model, *data, test_rows, parts)
            fold_values = _values(evaluations, parts)
        except Exception:
            if error_score == "raise":
                raise
            _score_failed(error_score)
            for name in names:
                out["test"][name][fold] = error_score
            continue
        out["score_time"][fold] = time.perf_counter() - start
        for name, value in fold_values.items():
            out["test"][name][fold] = value
        if return_per_query:
            table, cut = _tables(fold, evaluations, parts)
            out["per_query"].append(table)
            out["per_cutoff"].append(cut)
        if return_train_score:
            train_values = _values(_evaluate_rows(model, *data, train_rows, parts), parts)
            for name, value in train_values.items():
                out["train"][name][fold] = value
    return out


def _concat(tables, columns):
    if not tables:
        return pd.DataFrame(columns=columns)
    return pd.concat(tables, ignore_index=True)[columns]
