"""``as_lightgbm_metric``: one of the package's metrics as a LightGBM evaluation function.

LightGBM's scikit-learn API calls an ``eval_metric`` callable of four parameters as
``func(y_true, y_pred, weight, group)``, ``group`` being the sizes of the eval set's queries
(rows of a query contiguous, as ``eval_group`` gives them); its ``lightgbm.train`` calls a
``feval`` as ``func(preds, eval_data)``. Both compute the metric per query with
:func:`evaluate` and return ``(name, value, is_higher_better)``, so early stopping monitors
exactly the number ``evaluate`` gives on the eval set.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..._validation import short_repr
from .._evaluation import DroppedQueriesWarning

__all__ = ["LightGBMMetric", "as_lightgbm_metric"]


def _query_ids(group, n_rows):
    """Per-row query ids ``0, 0, ..., 1, ...`` from LightGBM's query sizes."""
    sizes = np.asarray(group, dtype=np.int64).ravel()
    if (sizes < 0).any() or sizes.sum() != n_rows:
        raise ValueError(
            f"LightGBM gave query sizes summing to {int(sizes.sum())} for {n_rows} rows; pass "
            "eval_group with one size per query of the eval set, in row order."
        )
    return np.repeat(np.arange(sizes.shape[0]), sizes)


class LightGBMMetric:
    """A package metric LightGBM can monitor; made by :func:`as_lightgbm_metric`.

    Call it as LightGBM's scikit-learn API does, ``metric(y_true, y_pred, weight, group)``,
    or pass :meth:`feval` to ``lightgbm.train(..., feval=metric.feval)``.

    Attributes
    ----------
    scorer : RankingScorer
        The single-metric scorer whose :meth:`~RankingScorer.evaluate_scores` computes the
        value (its metric, ``k`` and options).
    name : str
        The name LightGBM records (``evals_result_`` key): the metric spec, e.g. ``"ndcg@10"``.
    """

    def __init__(self, scorer):
        self.scorer = scorer
        self.name = scorer.metrics[0]
        self._warned = False  # the eval set's dropped queries are said once, not every round

    def _value(self, y_true, y_pred, weight, group):
        if group is None:
            raise ValueError(
                f"{self!r} needs the eval set's queries: pass eval_group=[sizes] to "
                "LGBMRanker.fit (or group= to the lightgbm.Dataset)."
            )
        if weight is not None and np.unique(np.asarray(weight)).shape[0] > 1:
            raise ValueError(
                f"{self!r} computes the unweighted mean over queries, as evaluate does; the eval "
                "set has unequal weights (eval_sample_weight): drop them for this metric."
            )
        y_pred = np.asarray(y_pred, dtype=np.float64)
        qid = _query_ids(group, y_pred.shape[0])
        with warnings.catch_warnings():
            if self._warned:
                warnings.simplefilter("ignore", DroppedQueriesWarning)
            self._warned = True
            value = self.scorer.evaluate_scores(y_true, y_pred, qid=qid).mean(self.name)
        return self.name, float(value), self.scorer.greater_is_better

    def __call__(self, y_true, y_pred, weight, group):
        """``(name, value, is_higher_better)`` for LightGBM's scikit-learn ``eval_metric``."""
        return self._value(y_true, y_pred, weight, group)

    def feval(self, preds, eval_data):
        """``(name, value, is_higher_better)`` for ``lightgbm.train(feval=...)``."""
        return self._value(
            eval_data.get_label(), preds, eval_data.get_weight(), eval_data.get_group()
        )

    def __repr__(self):
        return f"as_lightgbm_metric({self.scorer!r})"


def as_lightgbm_metric(metric, *, k=None, **options):
    """A package metric as a LightGBM evaluation function, for early stopping on it.

    The result, given as ``LGBMRanker.fit(..., eval_metric=...)`` with ``eval_set`` and
    ``eval_group``, computes the metric per query exactly as :func:`evaluate` does on the
    eval set (its conventions: queries without a relevant row are skipped, ties averaged),
    where LightGBM's own ``ndcg`` scores such a query 1. Pass ``metric="None"`` to the model
    to monitor only this one.

    Parameters
    ----------
    metric : str or RankingScorer
        One metric spec (``"ndcg@10"``, ``"map"``, ``"capped_recall@adaptive"``), or a
        single-metric :func:`make_ranking_scorer`.
    k : int, str or callable, optional
        Cut-off for a spec given without ``@k``.
    **options
        Options of :func:`evaluate` (``conventions``, ``ties``, ``gain``...), as
        :func:`make_ranking_scorer` takes them.

    Returns
    -------
    LightGBMMetric
        ``metric(y_true, y_pred, weight, group)`` for the scikit-learn API, ``metric.feval``
        for ``lightgbm.train``; both return ``(name, value, is_higher_better)``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ltr_metrics import evaluate
    >>> from sklearn_ltr_metrics.metrics import as_lightgbm_metric
    >>> ndcg = as_lightgbm_metric("ndcg@10")
    >>> y, scores, sizes = np.array([1, 0, 0, 1, 2]), np.array([.9, .8, .1, .2, .7]), [3, 2]
    >>> ndcg(y, scores, None, sizes)
    ('ndcg@10', 1.0, True)
    >>> evaluate(y, scores, qid=[0, 0, 0, 1, 1], metrics="ndcg@10").mean("ndcg@10")
    1.0

    With LightGBM (``eval_group`` gives the eval set's query sizes):

    .. code-block:: python

        model = LGBMRanker(metric="None", early_stopping_round=20)
        model.fit(X, y, group=sizes, eval_X=(X_val,), eval_y=(y_val,), eval_group=[val_sizes],
                  eval_metric=as_lightgbm_metric("ndcg@10"))  # LightGBM < 4.7: eval_set=
    """
    from .._scorer import RankingScorer, make_ranking_scorer

    if isinstance(metric, RankingScorer):
        if k is not None or options:
            raise TypeError(
                "as_lightgbm_metric got a scorer and k or options: the scorer carries its own; "
                "pass a metric spec with them instead."
            )
        scorer = metric
    elif isinstance(metric, str):
        scorer = make_ranking_scorer(metric, k=k, **options)
    else:
        raise TypeError(
            "metric must be one metric spec such as 'ndcg@10' or a single-metric "
            f"make_ranking_scorer(...), got {short_repr(metric)}."
        )
    if scorer.multimetric:
        raise ValueError(f"{scorer!r} has several metrics; LightGBM monitors one per function.")
    return LightGBMMetric(scorer)
