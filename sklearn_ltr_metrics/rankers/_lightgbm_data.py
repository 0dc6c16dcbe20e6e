"""LightGBM's side of LambdaMART: data checks, query blocks, validation sets, metrics.

Everything ``LambdaMARTRanker`` needs to hand its rows to :class:`lightgbm.LGBMRanker`
(imported lazily by the caller): label and weight checks, LightGBM's gain table, the
held-out queries for early stopping, DataFrames with categorical columns, and the package's
metrics as a LightGBM evaluation function. LightGBM's ``group`` sizes exist only here and in
the ranker.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._engine import factorize_qid
from .._qid import (
    EstimatorMissingQueryIdsError,
    check_qid_length,
    is_dataframe,
    missing_qid_message,
)
from .._random import check_random_state
from .._validation import (
    check_1d,
    check_consistent_length,
    check_positive_int,
    check_probability,
    short_repr,
)

__all__ = ["LIGHTGBM_MAX_QUERY_SIZE"]


#: LightGBM refuses queries with more rows than this (both ranking objectives, LightGBM 4.x:
#: "Number of rows ... exceeds upper limit of 10000 for a query").
LIGHTGBM_MAX_QUERY_SIZE = 10_000
#: LightGBM's default ``label_gain`` has this many entries (labels 0..30).
_LIGHTGBM_DEFAULT_GAIN_LEVELS = 31
_OBJECTIVES = ("lambdarank", "rank_xendcg")


# --------------------------------------------------------------------------------------------
# private helpers
# --------------------------------------------------------------------------------------------


def _factorize_qid(qid, n_rows, *, owner):
    """Return ``(codes, uniques)`` for per-row query ids, codes ordered by sorted query id.

    Query ids may be of any hashable type and need not be sorted or contiguous.
    """
    if qid is None:  # the package's one missing-qid error type and message
        how = "pass eval_set=(X_val, y_val, qid_val)" if owner == "eval_set" else None
        raise EstimatorMissingQueryIdsError(missing_qid_message(owner, how=how))
    qid_arr = check_qid_length(check_1d(qid, "qid"), n_rows)
    codes, uniques = factorize_qid(qid_arr, "qid")
    return codes, np.asarray(uniques)


def _check_sample_weight(sample_weight, n_rows):
    """Return ``sample_weight`` as float64, finite, >= 0 and not all zero."""
    w = check_1d(sample_weight, "sample_weight", dtype=np.float64)
    check_consistent_length(X=np.empty(n_rows), sample_weight=w)
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError(
            "sample_weight must be finite and >= 0; got NaN, infinite or negative weights."
        )
    if not (w > 0).any():
        raise ValueError("sample_weight is zero for every row; give some rows positive weight.")
    return w


def _check_integer_labels(y):
    """Return the largest label after checking LightGBM can use ``y`` (non-negative integers)."""
    frac = y != np.floor(y)
    if frac.any():
        first = int(np.flatnonzero(frac)[0])
        raise ValueError(
            f"y has non-integer labels (first at row {first}: {y[first]!r}); LightGBM's ranking "
            "objectives need integer relevance grades 0, 1, 2, ... Round or bin the labels "
            "first, e.g. np.rint(y) or np.digitize(y, bins)."
        )
    return int(y.max())


def _label_gain(label_gain, max_label):
    """Return the ``label_gain`` list to pass to LightGBM, or ``None`` for its default."""
    if label_gain is None:
        if max_label < _LIGHTGBM_DEFAULT_GAIN_LEVELS:
            return None
        if max_label >= 1023:
            raise ValueError(
                f"y has labels up to {max_label}; the default gains 2**label - 1 overflow "
                "beyond 1022. Pass label_gain=[...] with one gain per label, or rescale y."
            )
        return [float(2.0**i - 1.0) for i in range(max_label + 1)]
    gains = check_1d(label_gain, "label_gain", dtype=np.float64)
    if not np.isfinite(gains).all() or (gains < 0).any():
        raise ValueError("label_gain must hold finite gains >= 0, one per label 0, 1, 2, ...")
    if gains.shape[0] <= max_label:
        raise ValueError(
            f"label_gain has {gains.shape[0]} entries (labels 0..{gains.shape[0] - 1}) but y has "
            f"labels up to {max_label}; give one gain per label 0..{max_label}."
        )
    return gains.tolist()


def _check_eval_at(eval_at):
    """Return ``eval_at`` as a tuple of positive ints."""
    if isinstance(eval_at, numbers.Integral) and not isinstance(eval_at, bool):
        eval_at = (eval_at,)
    if isinstance(eval_at, (str, bytes)) or not hasattr(eval_at, "__iter__"):
        raise TypeError(f"eval_at must be an int or a sequence of ints, got {short_repr(eval_at)}.")
    values = tuple(check_positive_int(k, "eval_at") for k in eval_at)
    if not values:
        raise ValueError("eval_at is empty; give at least one cut-off, e.g. eval_at=(10,).")
    return values


def _hold_out_queries(n_queries, validation_fraction, random_state):
    """Return a boolean mask of the queries held out for early stopping (at least one each)."""
    fraction = check_probability(validation_fraction, "validation_fraction")
    n_val = int(np.ceil(fraction * n_queries))
    if n_queries < 2 or n_val >= n_queries:
        raise ValueError(
            "early stopping needs whole queries for both training and validation, but there "
            f"are {n_queries} queries and validation_fraction={validation_fraction!r}; use more "
            "queries, a smaller fraction, or early_stopping_rounds=None."
        )
    mask = np.zeros(n_queries, dtype=bool)
    mask[check_random_state(random_state).permutation(n_queries)[:n_val]] = True
    return mask


def _for_lightgbm(X):
    """Return ``X`` in a form LightGBM reads: sparse input as a CSR ``spmatrix``.

    LightGBM does not know scipy's sparse *arrays* (``csr_array``), and warns when it converts
    other sparse formats itself.
    """
    if sp.issparse(X):
        return sp.csr_matrix(X)
    return X


def _eval_data_kwargs(lgb, X_val, y_val):
    """Validation data for ``LGBMRanker.fit``: ``eval_X``/``eval_y`` where LightGBM has them.

    LightGBM 4.7 deprecates ``eval_set`` in favour of ``eval_X`` and ``eval_y``; older 4.x
    releases only know ``eval_set``.
    """
    import inspect

    if "eval_X" in inspect.signature(lgb.LGBMRanker.fit).parameters:
        return {"eval_X": (X_val,), "eval_y": (y_val,)}
    return {"eval_set": [(X_val, y_val)]}


#: Characters LightGBM refuses in feature names (it stores them in JSON).
_LIGHTGBM_NAME_CHARS = frozenset('",:[]{}')


def _categorical_columns(X):
    """Names of a DataFrame's pandas categorical columns (empty for anything else)."""
    if not is_dataframe(X):
        return []
    return [c for c, dtype in X.dtypes.items() if isinstance(dtype, pd.CategoricalDtype)]


def _numeric_view(frame):
    """A float64 array of a DataFrame for hashing rows: categories by their codes, NaN kept."""
    columns = []
    for name, dtype in frame.dtypes.items():
        column = frame[name]
        if isinstance(dtype, pd.CategoricalDtype):
            codes = column.cat.codes.to_numpy(dtype=np.float64)
            codes[codes < 0] = np.nan
            columns.append(codes)
        elif pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
            columns.append(column.to_numpy(dtype=np.float64, na_value=np.nan))
        else:
            raise TypeError(
                f"column {name!r} of X has dtype {dtype}; LambdaMARTRanker takes numeric, "
                "boolean and pandas categorical columns. Encode text columns first, e.g. "
                "X[col].astype('category')."
            )
    return np.column_stack(columns) if columns else np.empty((len(frame), 0))


def _check_eval_set(eval_set):
    """``eval_set`` as one ``(X_val, y_val, qid_val)`` tuple."""
    if isinstance(eval_set, list) and len(eval_set) == 1:
        eval_set = eval_set[0]
    if not isinstance(eval_set, tuple) or len(eval_set) != 3:
        raise TypeError(
            "eval_set must be one validation set (X_val, y_val, qid_val), or a list holding "
            f"one, got {short_repr(eval_set)}."
        )
    return eval_set


def _package_eval_metric(eval_metric, qid_sorted):
    """A LightGBM ``eval_metric`` callable computing one of the package's metrics per query."""
    from ..metrics import RankingScorer, make_ranking_scorer

    scorer = eval_metric if isinstance(eval_metric, RankingScorer) else None
    if scorer is None:
        if not isinstance(eval_metric, str):
            raise TypeError(
                "eval_metric must be None (LightGBM's NDCG@eval_at[0]), a metric spec such as "
                "'ndcg@10' or a single-metric make_ranking_scorer(...), got "
                f"{short_repr(eval_metric)}."
            )
        scorer = make_ranking_scorer(eval_metric)
    if scorer.multimetric:
        raise ValueError(
            f"eval_metric={scorer!r} has several metrics; early stopping monitors one."
        )
    spec = scorer.metrics[0]

    def package_metric(y_true, y_pred):
        value = scorer.evaluate_scores(y_true, y_pred, qid=qid_sorted).mean(spec)
        return spec, value, scorer.greater_is_better

    return package_metric
