"""The scikit-learn estimator checks each ranker is expected to fail, and why.

scikit-learn's common checks (:func:`sklearn.utils.estimator_checks.check_estimator`,
:func:`~sklearn.utils.estimator_checks.parametrize_with_checks`) call ``fit(X, y)``,
``predict(X)`` and ``score(X, y)`` on generic regression data. A ranker cannot pass some of
them by design: LambdaMART and QueryAwareRanker learn from pairs within a query and refuse to
guess the queries when ``qid`` is missing, ``score`` is a per-query NDCG@10 that needs
``qid``, and the oracle ranks by the true labels that ``predict(X)`` is not given. Every
other check passes. :func:`expected_failed_checks` returns those checks in the form both
scikit-learn functions take (check name -> reason), so a user's own test of a ranker, or of a
subclass, reports only the failures that are news.
"""

from __future__ import annotations

from ._base import FeatureRanker, OracleRanker, RandomRanker
from ._lambdamart import LambdaMARTRanker
from ._query_aware import QueryAwareRanker

__all__ = ["expected_failed_checks"]

_FIT_NEEDS_QID = (
    "the check calls fit(X, y) without qid; {name} learns from pairs of rows within a query "
    "and refuses to guess the queries (pass qid=, one query id per row)"
)
_SCORE_NEEDS_QID = (
    "the check calls score(X, y) without qid; a ranker's score is the mean NDCG@10 over "
    "queries, which needs qid"
)
_ORACLE_NEEDS_Y = (
    "the check calls predict(X) without y; OracleRanker ranks by the true labels "
    "(predict(X, y=y)), it is the ceiling of an evaluation, not a model"
)
_PAIRWISE_WEIGHTS = (
    "the wrapped ranker's objective works on pairs within a query: a row weight of 2 is not "
    "the same as a repeated row, which also adds pairs"
)

#: Checks that call score(X, y) without qid (every ranker fails them).
_SCORE_CHECKS = ("check_fit_score_takes_y", "check_pipeline_consistency")

#: Checks that call predict(X) on a fitted estimator and compare its output (the oracle's
#: predict needs y).
_PREDICT_CHECKS = (
    "check_dict_unchanged",
    "check_dtype_object",
    "check_estimator_sparse_array",
    "check_estimator_sparse_matrix",
    "check_estimators_dtypes",
    "check_estimators_pickle",
    "check_f_contiguous_array_estimator",
    "check_fit_idempotent",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_regressor_data_not_an_array",
    "check_regressors_int",
    "check_regressors_train",
    "check_supervised_y_2d",
)

#: Checks that call fit(X, y) without qid (the learning rankers refuse).
_FIT_CHECKS = (
    *_SCORE_CHECKS,
    *_PREDICT_CHECKS,
    "check_all_zero_sample_weights_error",
    "check_dont_overwrite_parameters",
    "check_estimator_sparse_tag",
    "check_estimators_fit_returns_self",
    "check_estimators_overwrite_params",
    "check_fit2d_1feature",
    "check_fit2d_1sample",
    "check_fit2d_predict1d",
    "check_fit_check_is_fitted",
    "check_n_features_in",
    "check_n_features_in_after_fitting",
    "check_positive_only_tag_during_fit",
    "check_readonly_memmap_input",
    "check_regressors_no_decision_function",
    "check_sample_weight_equivalence_on_dense_data",
    "check_sample_weight_equivalence_on_sparse_data",
    "check_sample_weights_list",
    "check_sample_weights_not_an_array",
    "check_sample_weights_not_overwritten",
    "check_sample_weights_pandas_series",
    "check_sample_weights_shape",
)

#: Checks that compare a weight of 2 with a repeated row (fail with a pairwise objective).
_WEIGHT_CHECKS = (
    "check_sample_weight_equivalence_on_dense_data",
    "check_sample_weight_equivalence_on_sparse_data",
)


def _learning_ranker(estimator):
    name = type(estimator).__name__
    failed = dict.fromkeys(_FIT_CHECKS, _FIT_NEEDS_QID.format(name=name))
    if isinstance(estimator, QueryAwareRanker):
        failed.update(dict.fromkeys(_WEIGHT_CHECKS, _PAIRWISE_WEIGHTS))
    return failed


def _baseline_ranker(estimator):
    failed = dict.fromkeys(_SCORE_CHECKS, _SCORE_NEEDS_QID)
    if isinstance(estimator, OracleRanker):
        failed.update(dict.fromkeys(_PREDICT_CHECKS, _ORACLE_NEEDS_Y))
    return failed


#: Ranker class -> the function giving its expected failures (looked up along the MRO, so a
#: subclass gets its base's list).
_EXPECTED = {
    LambdaMARTRanker: _learning_ranker,
    QueryAwareRanker: _learning_ranker,
    OracleRanker: _baseline_ranker,
    RandomRanker: _baseline_ranker,
    FeatureRanker: _baseline_ranker,
}


def expected_failed_checks(estimator):
    """The scikit-learn estimator checks a ranker is expected to fail, with the reason of each.

    Pass the result as ``expected_failed_checks=`` to
    :func:`sklearn.utils.estimator_checks.check_estimator` or
    :func:`~sklearn.utils.estimator_checks.parametrize_with_checks`: the checks listed are
    then reported as expected failures (``"xfail"``), and any other failure is news. The
    failures come from the checks' generic data, not from the rankers: the checks call
    ``fit(X, y)`` and ``score(X, y)`` without query ids, which LambdaMART, QueryAwareRanker
    and every ranker's per-query ``score`` refuse, and ``predict(X)`` without the labels the
    oracle ranks by. Everything else, including cloning, parameters, input validation and
    pickling of the baselines, passes.

    Parameters
    ----------
    estimator : estimator instance
        A ranker of this package (:class:`LambdaMARTRanker`, :class:`QueryAwareRanker`,
        :class:`RandomRanker`, :class:`OracleRanker` or :class:`FeatureRanker`, or a
        subclass of one, which gets its base class's list). ``FeatureRanker`` is listed for
        ``feature=0``, the column every check's data has.

    Returns
    -------
    dict of str to str
        Check name (as scikit-learn names it, e.g. ``"check_fit2d_1sample"``) -> why the
        ranker fails it, naming the check (``"scikit-learn's check_fit2d_1sample cannot apply
        to LambdaMARTRanker: ..."``).

    Raises
    ------
    TypeError
        If ``estimator`` is not a ranker of this package (its expected failures are not
        known here).

    See Also
    --------
    sklearn.utils.estimator_checks.check_estimator : Runs the checks.

    Examples
    --------
    >>> from sklearn.utils.estimator_checks import check_estimator
    >>> from sklearn_ltr_metrics.rankers import FeatureRanker, expected_failed_checks
    >>> failed = expected_failed_checks(FeatureRanker(0))
    >>> sorted(failed)
    ['check_fit_score_takes_y', 'check_pipeline_consistency']
    >>> print(failed["check_fit_score_takes_y"])  # doctest: +ELLIPSIS
    scikit-learn's check_fit_score_takes_y cannot apply to FeatureRanker: the check calls ...
    >>> results = check_estimator(
    ...     FeatureRanker(0), expected_failed_checks=failed, on_fail=None, on_skip=None
    ... )
    >>> [r["check_name"] for r in results if r["status"] == "failed"]
    []
    >>> sorted(r["check_name"] for r in results if r["status"] == "xfail")
    ['check_fit_score_takes_y', 'check_pipeline_consistency']
    """
    for cls in type(estimator).__mro__:
        if cls in _EXPECTED:
            # Each reason names its check, as pytest's xfail line shows it alone.
            return {
                name: f"scikit-learn's {name} cannot apply to {type(estimator).__name__}: {why}"
                for name, why in _EXPECTED[cls](estimator).items()
            }
    known = ", ".join(cls.__name__ for cls in _EXPECTED)
    raise TypeError(
        f"estimator must be a ranker of sklearn_ltr_metrics ({known}) or a subclass of one, "
        f"got {type(estimator).__name__}; other estimators have no known list of expected "
        "failures."
    )
