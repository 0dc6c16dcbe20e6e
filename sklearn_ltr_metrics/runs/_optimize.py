"""Choosing fusion weights (or ``k``, ``phi``...) by cross-validation over queries.

Tuning the weights on the queries one then reports is the classic way to overstate a fusion:
the best of many settings, measured on the data that chose it, is biased upwards. Here every
setting is fused and evaluated once per query (fusion is per query, so nothing leaks between
queries); each fold then chooses the setting with the best mean on its training queries and
is scored on its held-out queries. The cross-validated value (every query scored by a setting
chosen without it) is reported beside the in-sample value of the setting chosen on all queries.
"""

from __future__ import annotations

import itertools
import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import check_positive_int
from ..metrics import evaluate_run
from ..model_selection import QueryKFold
from ._fusion import fuse, fusion_params, get_fusion_method
from ._stack import check_runs

__all__ = ["FusionOptimization", "default_grid", "optimize_fusion"]

#: Default values searched per parameter (``weights``: every split of 1 in steps of 0.1).
_DEFAULT_VALUES = {
    "k": [1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100],
    "gamma": [round(g, 2) for g in np.arange(0.0, 1.01, 0.1)],
    "sigma": [0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0],
    "phi": [round(p, 2) for p in np.arange(0.1, 0.96, 0.05)],
}


def default_grid(method, n_runs, *, step=0.1):
    """The settings :func:`optimize_fusion` tries for ``method`` by default.

    Weights: every vector of ``n_runs`` multiples of ``step`` summing to 1 (as ranx's
    optimisation); ``k``, ``gamma``, ``sigma``, ``phi``: a fixed list of values.

    Examples
    --------
    >>> from sklearn_ltr_metrics.runs._optimize import default_grid
    >>> default_grid("wsum", 2, step=0.5)
    [{'weights': (0.0, 1.0)}, {'weights': (0.5, 0.5)}, {'weights': (1.0, 0.0)}]
    """
    params = fusion_params(method)
    if not params:
        raise ValueError(
            f"method={method!r} has no parameter to optimise; choose one of the methods with "
            "weights, k, gamma, sigma or phi (e.g. 'wsum', 'rrf')."
        )
    (name,) = params
    if name != "weights":
        return [{name: value} for value in _DEFAULT_VALUES[name]]
    n_steps = round(1 / step)
    grid = [
        {"weights": tuple(round(c * step, 10) for c in combo)}
        for combo in itertools.product(range(n_steps + 1), repeat=n_runs)
        if sum(combo) == n_steps
    ]
    return grid


@dataclass(frozen=True)
class FusionOptimization:
    """What :func:`optimize_fusion` found.

    Attributes
    ----------
    method, metric : str
    best_params : dict
        The setting with the best mean over all queries (to use from now on).
    in_sample : float
        Its mean over all queries: tuned on the very queries it is measured on (optimistic).
    cross_validated : float
        The mean over queries of each query's value under the setting its training folds
        chose: the honest estimate of what choosing a setting this way delivers.
    folds : DataFrame
        Per fold: ``fold, params, n_train, n_test, train, test`` (the chosen setting, its
        mean on the training and on the test queries).
    settings : DataFrame
        Every setting tried, with its mean over all queries (``params, mean``).
    per_query : Series
        The cross-validated value of each query (index ``qid``).

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_ltr_metrics.runs import optimize_fusion
    >>> qid, doc = ["1", "1", "2", "2", "3", "3"], ["a", "b", "a", "b", "a", "b"]
    >>> qrels = pd.DataFrame({"qid": qid, "doc_id": doc, "label": [1, 0, 0, 1, 1, 0]})
    >>> good = pd.DataFrame({"qid": qid, "doc_id": doc, "score": [2.0, 1, 1, 2, 2, 1]})
    >>> bad = good.assign(score=[1.0, 2, 2, 1, 1, 2])
    >>> grid = {"weights": [(1, 0), (0, 1)]}
    >>> optimize_fusion([good, bad], qrels, metric="mrr", cv=3, grid=grid)
    FusionOptimization(method='wsum', metric='mrr', best_params={'weights': (1, 0)}, \
in_sample=1.0000, cross_validated=1.0000)
    """

    method: str
    metric: str
    best_params: dict
    in_sample: float
    cross_validated: float
    folds: pd.DataFrame
    settings: pd.DataFrame
    per_query: pd.Series

    def __repr__(self):
        return (
            f"FusionOptimization(method={self.method!r}, metric={self.metric!r}, "
            f"best_params={self.best_params!r}, in_sample={self.in_sample:.4f}, "
            f"cross_validated={self.cross_validated:.4f})"
        )


def _check_grid(grid, method, n_runs):
    if grid is None:
        return default_grid(method, n_runs)
    if isinstance(grid, dict):
        keys = list(grid)
        return [
            dict(zip(keys, values, strict=True)) for values in itertools.product(*grid.values())
        ]
    if not isinstance(grid, (list, tuple)) or not all(isinstance(g, dict) for g in grid):
        raise TypeError(
            "grid must be a dict parameter -> list of values, or a list of parameter dicts, "
            f"got {type(grid).__name__}."
        )
    if not grid:
        raise ValueError("grid is empty; give at least one setting.")
    return list(grid)


def _values_per_setting(runs, qrels, method, norm, metric, grid):
    """(n_settings, n_queries) values of ``metric``, and the query ids."""
    columns = []
    for params in grid:
        fused = fuse(runs, method, norm=norm, **params)
        table = evaluate_run(fused, qrels, metrics=[metric]).per_query
        columns.append(table.iloc[:, -1].rename(len(columns)))
    values = pd.concat(columns, axis=1)
    return values.to_numpy().T, values.index


def optimize_fusion(
    runs, qrels, *, method="wsum", metric="ndcg@10", cv=5, grid=None, norm="min-max"
):
    """Choose a fusion's parameters by cross-validation over queries.

    Parameters
    ----------
    runs : list of DataFrame or dict of str to DataFrame
        The runs to fuse (columns ``qid``, ``doc_id``, ``score``).
    qrels : DataFrame
        Judgments (``qid``, ``doc_id``, ``label``).
    method : str, default="wsum"
        A fusion method with a parameter (see :func:`fuse`).
    metric : str, default="ndcg@10"
        The metric to maximise (any of :func:`metric_names`, evaluated as
        :func:`evaluate_run` does).
    cv : int or splitter, default=5
        Folds over queries: an int gives :class:`~sklearn_ltr_metrics.model_selection.QueryKFold`
        with that many folds; or any splitter whose ``split(X, qid=...)`` keeps queries whole.
    grid : dict or list of dict, optional
        Settings to try: a dict parameter -> values (every combination), or a list of
        parameter dicts. Default: :func:`default_grid` (weights summing to 1 in steps of
        0.1; a list of ``k``, ``gamma``, ``sigma`` or ``phi`` values).
    norm : str, default="min-max"
        Normalisation (see :func:`fuse`).

    Returns
    -------
    FusionOptimization

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from sklearn_ltr_metrics.runs import optimize_fusion
    >>> rng = np.random.default_rng(0)
    >>> qid = np.repeat([f"q{i}" for i in range(20)], 10)
    >>> doc = np.tile([f"d{i}" for i in range(10)], 20)
    >>> label = rng.integers(0, 2, qid.size)
    >>> qrels = pd.DataFrame({"qid": qid, "doc_id": doc, "label": label})
    >>> score = label + rng.normal(0, 0.5, qid.size)
    >>> good = pd.DataFrame({"qid": qid, "doc_id": doc, "score": score})
    >>> noise = good.assign(score=rng.normal(size=qid.size))
    >>> grid = {"weights": [(1, 0), (0, 1), (0.5, 0.5)]}
    >>> result = optimize_fusion([good, noise], qrels, method="wsum", grid=grid, cv=4)
    >>> result.best_params
    {'weights': (1, 0)}
    >>> result.cross_validated <= result.in_sample
    True
    """
    spec = get_fusion_method(method)
    names, frames = check_runs(runs, "runs", minimum=2)
    grid = _check_grid(grid, spec.name, len(frames))
    splitter = (
        QueryKFold(check_positive_int(cv, "cv", minimum=2))
        if isinstance(cv, numbers.Integral)
        else cv
    )
    if not hasattr(splitter, "split"):
        raise TypeError(f"cv must be an int or a splitter with split(), got {cv!r}.")
    runs = dict(zip(names, frames, strict=True))
    values, queries = _values_per_setting(runs, qrels, spec.name, norm, metric, grid)
    means = np.nanmean(values, axis=1)
    best = int(np.nanargmax(means))
    chosen = np.full(queries.size, -1)
    folds = []
    ids = queries.to_numpy()
    for fold, (train, test) in enumerate(splitter.split(np.zeros((ids.size, 1)), qid=ids)):
        train_means = np.nanmean(values[:, train], axis=1)
        pick = int(np.nanargmax(train_means))
        chosen[test] = pick
        folds.append(
            {
                "fold": fold,
                "params": grid[pick],
                "n_train": train.size,
                "n_test": test.size,
                "train": train_means[pick],
                "test": float(np.nanmean(values[pick, test])),
            }
        )
    per_query = pd.Series(values[chosen, np.arange(ids.size)], index=queries, name=metric)
    return FusionOptimization(
        method=spec.name,
        metric=metric,
        best_params=grid[best],
        in_sample=float(means[best]),
        cross_validated=float(np.nanmean(per_query.to_numpy())),
        folds=pd.DataFrame(folds),
        settings=pd.DataFrame({"params": grid, "mean": means}),
        per_query=per_query,
    )
