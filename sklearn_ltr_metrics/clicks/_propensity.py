"""Position bias: the examination probability per rank, from randomized or ordinary logs.

Three estimators, each vectorised over every line of the log at once (``np.bincount`` over
ranks and sessions):

- ``"randomization"`` (RandTop-k logs): clicks at rank ``r`` over clicks at rank 1, over the
  sessions that show rank ``r``;
- ``"swap"`` (RandPair logs, Joachims et al. WSDM 2017): the click-through rate of the
  document originally at rank 1 when swapped to rank ``r``, over its rate when left at rank 1,
  over the sessions that show rank ``r``;
- ``"em"`` (Wang et al. WSDM 2018): expectation-maximisation of the position-based model on
  ordinary logs in which documents appear at several ranks, on the log's sufficient
  statistics (impressions and clicks per (document, rank)), so an iteration costs the number
  of distinct (document, rank) pairs, not the number of lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._click_log import check_click_log
from .._validation import check_choice, check_positive_int

__all__ = ["PropensityEstimate", "estimate_propensity"]

_ASSUMPTIONS = {
    "randomization": (
        "position-based model; each session shows its top k in a uniformly random order "
        "(RandTop-k), so every rank sees the same documents in expectation"
    ),
    "swap": (
        "position-based model; each session swaps rank 1 with a uniformly drawn rank "
        "(RandPair) and names the document originally at rank 1 in 'top_row'"
    ),
    "em": (
        "position-based model (click = examined and attracted, independent); each "
        "(query, document) has one attraction, identified because documents appear at "
        "several ranks across sessions"
    ),
}


_REGRESSION_ASSUMPTION = (
    "position-based model (click = examined and attracted, independent); the attraction is "
    "a logistic function of the document's features X (regression EM)"
)


@dataclass(frozen=True)
class PropensityEstimate:
    """Examination probability per rank, normalised to 1 at rank 1.

    Attributes
    ----------
    propensity : ndarray of shape (max_rank,)
        ``propensity[r-1]``: the examination probability at rank ``r`` over that at rank 1.
        NaN where the log cannot tell (no click at rank 1 among the sessions used).
    method : str
        The estimator: ``"randomization"``, ``"swap"`` or ``"em"``.
    assumption : str
        What the estimate assumes about users and the log, in words.
    n_impressions : ndarray of shape (max_rank,)
        Lines of the log used at each rank.
    n_clicks : ndarray of shape (max_rank,)
        Their clicks.
    n_iter : int
        EM iterations run (0 for the other methods).
    converged : bool
        Whether EM met its tolerance (True for the closed-form methods).
    ranks : ndarray of shape (max_rank,)
        The ranks 1..max_rank.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_ltr_metrics.clicks import estimate_propensity
    >>> log = pd.DataFrame({"session": [0, 0, 1, 1], "qid": [1, 1, 1, 1], "row": [0, 1, 1, 0],
    ...                     "rank": [1, 2, 1, 2], "click": [1, 1, 1, 0]})
    >>> est = estimate_propensity(log)
    >>> est
    PropensityEstimate(method='randomization', propensity=[1.000, 0.500])
    >>> est.ranks.tolist(), est.n_clicks.tolist()
    ([1, 2], [2, 1])
    """

    propensity: np.ndarray
    method: str
    assumption: str
    n_impressions: np.ndarray
    n_clicks: np.ndarray
    n_iter: int = 0
    converged: bool = True
    ranks: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "ranks", np.arange(1, self.propensity.shape[0] + 1))

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.propensity, dtype=dtype)

    def __repr__(self):
        values = ", ".join(f"{p:.3f}" for p in self.propensity[:5])
        more = ", ..." if self.propensity.shape[0] > 5 else ""
        return f"PropensityEstimate(method={self.method!r}, propensity=[{values}{more}])"


def _ratio(numerator, denominator):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / np.maximum(denominator, 1e-300), np.nan)


def _log_column(frame, column, missing):
    """The log's ``column`` as an array; a ``ValueError`` saying ``missing`` without it."""
    if column not in frame.columns:
        raise ValueError(missing)
    return frame[column].to_numpy()


def _dense_sessions(session):
    """Dense session codes (0, 1, ...) in the order of the session ids."""
    if session.size and (np.diff(session) >= 0).all():
        return np.cumsum(np.r_[0, session[1:] != session[:-1]])
    return np.unique(session, return_inverse=True)[1]


def _session_lengths(sessions, rank):
    """The deepest rank of every (dense) session: one ``reduceat`` when lines come grouped by
    session (as simulated logs do), else an unbuffered maximum."""
    if sessions.size and (np.diff(sessions) >= 0).all():
        starts = np.flatnonzero(np.r_[True, sessions[1:] != sessions[:-1]])
        return np.maximum.reduceat(rank, starts)
    length = np.zeros(sessions.max() + 1, dtype=np.int64)
    np.maximum.at(length, sessions, rank)
    return length


def _at_least(values_by_length, max_rank):
    """``out[r-1]``: the sum of ``values_by_length[L]`` over lengths ``L >= r``."""
    padded = np.zeros(max(values_by_length.shape[0], max_rank + 1))
    padded[: values_by_length.shape[0]] = values_by_length
    return np.cumsum(padded[::-1])[::-1][1 : max_rank + 1]


def _randomization(log, keep, max_rank):
    """Clicks at rank r over clicks at rank 1, both over the sessions showing rank r."""
    sessions = _dense_sessions(log["session"])
    length = _session_lengths(sessions, log["rank"])
    at_one = log["rank"] == 1
    first_clicks = np.bincount(
        length[sessions[at_one]], weights=log["click"][at_one], minlength=max_rank + 1
    )
    rank = log["rank"][keep] - 1
    n_clicks = np.bincount(rank, weights=log["click"][keep], minlength=max_rank)
    return _ratio(n_clicks, _at_least(first_clicks, max_rank))


def _swap(log, frame, keep, max_rank):
    """The top document's click rate at rank r over its rate at rank 1 (sessions of >= r)."""
    top_row = _log_column(
        frame,
        "top_row",
        "method='swap' needs a RandPair log with the column 'top_row' (the document the "
        "logging ranker had at rank 1), as simulate(..., randomize='pairs') writes it.",
    )
    sessions = _dense_sessions(log["session"])
    length = _session_lengths(sessions, log["rank"])
    is_top = (log["row"] == top_row) & keep
    rank = log["rank"][is_top] - 1
    clicks = log["click"][is_top].astype(np.float64)
    shown = np.bincount(rank, minlength=max_rank).astype(np.float64)
    n_clicks = np.bincount(rank, weights=clicks, minlength=max_rank)
    at_one = rank == 0
    lengths = length[sessions[is_top][at_one]]
    one_shown = _at_least(np.bincount(lengths, minlength=max_rank + 1), max_rank)
    one_clicks = _at_least(np.bincount(lengths, weights=clicks[at_one]), max_rank)
    propensity = _ratio(_ratio(n_clicks, shown), _ratio(one_clicks, one_shown))
    return propensity, shown, n_clicks


def _sufficient_statistics(row, rank, click, max_rank):
    """Impressions and clicks per distinct (document, rank): ``(doc, rank0, n, k, n_docs)``."""
    key = row.astype(np.int64) * max_rank + (rank - 1)
    pairs, inverse = np.unique(key, return_inverse=True)
    n = np.bincount(inverse).astype(np.float64)
    k = np.bincount(inverse, weights=click)
    doc_ids, doc = np.unique(pairs // max_rank, return_inverse=True)
    return doc, pairs % max_rank, n, k, doc_ids


def _attraction_regression(features):
    """Regression EM's M-step (Wang et al. 2018): a logistic regression of the attraction on
    the documents' features, fitted to the posterior attractions as soft labels (each
    document twice: label 1 weighted by its expected attracted impressions, label 0 by the
    rest), warm-started from the previous iteration."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(max_iter=1000, warm_start=True)
    stacked = np.vstack([features, features])
    labels = np.r_[np.ones(len(features)), np.zeros(len(features))]

    def fit(attracted, n_doc):
        weights = np.r_[attracted, np.maximum(n_doc - attracted, 0.0)]
        model.fit(stacked, labels, sample_weight=weights)
        return model.predict_proba(features)[:, 1]

    return fit


def _em(row, rank, click, max_rank, max_iter, tol, X=None):
    """EM of the position-based model ``P(click) = theta[rank] * gamma[doc]`` (Wang et al.
    2018): posteriors of examination and attraction for the unclicked impressions, then
    per-rank means and per-document means (or, with ``X``, a regression on the features)."""
    doc, rank0, n, k, doc_rows = _sufficient_statistics(row, rank, click, max_rank)
    n_docs = doc_rows.size
    fit_gamma = None if X is None else _attraction_regression(X[doc_rows])
    n_rank = np.bincount(rank0, weights=n, minlength=max_rank)
    n_doc = np.bincount(doc, weights=n, minlength=n_docs)
    theta = np.full(max_rank, 0.5)
    gamma = np.full(n_docs, 0.5)
    unclicked = n - k
    converged, n_iter = False, 0
    while n_iter < max_iter:  # iterations, not queries: each vectorised over every pair
        n_iter += 1
        pe, pg = theta[rank0], gamma[doc]
        denom = np.maximum(1 - pe * pg, 1e-12)
        examined = k + unclicked * pe * (1 - pg) / denom
        attracted = k + unclicked * (1 - pe) * pg / denom
        new_theta = np.bincount(rank0, weights=examined, minlength=max_rank) / np.maximum(n_rank, 1)
        attracted_sum = np.bincount(doc, weights=attracted, minlength=n_docs)
        gamma = attracted_sum / n_doc if fit_gamma is None else fit_gamma(attracted_sum, n_doc)
        # The model is identified up to a scale: converge on theta relative to rank 1.
        step = np.max(np.abs(new_theta / new_theta[0] - theta / theta[0]))
        theta = new_theta
        if step < tol:
            converged = True
            break
    theta = np.where(n_rank > 0, theta, np.nan)
    return _ratio(theta, np.full(max_rank, theta[0])), n_iter, converged


def _check_features(X, method, row):
    """``X`` as a finite 2-D float array with a row for every logged ``row`` (or None)."""
    if X is None:
        return None
    if method != "em":
        raise ValueError(
            f"X applies to method='em' only (regression EM), not method={method!r}; pass X=None."
        )
    from sklearn.utils import check_array

    features = check_array(X, dtype=np.float64, input_name="X")
    if features.shape[0] <= row.max():
        raise ValueError(
            f"X has {features.shape[0]} rows but the log's 'row' goes up to {int(row.max())}; "
            "X must hold the features of the rows the log indexes."
        )
    return features


def estimate_propensity(
    log, *, method="randomization", max_rank=None, X=None, max_iter=1000, tol=1e-6
):
    """Estimate the examination probability per rank from a click log (position bias).

    Parameters
    ----------
    log : pandas.DataFrame
        A click log (``session, qid, row, rank, click``; :mod:`sklearn_ltr_metrics.clicks`).
    method : {"randomization", "swap", "em"}, default="randomization"
        - ``"randomization"``: for a RandTop-k log (``simulate(..., randomize="top_k")``):
          ``propensity[r-1] = C_r / C_1(r)`` with ``C_r`` the clicks at rank ``r`` and
          ``C_1(r)`` the clicks at rank 1 *of the sessions that show rank r*. A query with
          fewer than ``k`` rows shows fewer ranks; its sessions count at the ranks they show
          only, so shorter (and often easier) queries do not bias the deep ranks.
        - ``"swap"``: for a RandPair log (``randomize="pairs"``, with its ``top_row``
          column): the click-through rate of the document the logging ranker put at rank 1,
          shown at rank ``r``, over its rate when left at rank 1, both over the sessions that
          show rank ``r`` (Joachims et al. 2017).
        - ``"em"``: EM under the position-based model (Wang et al. 2018) on ordinary logs:
          ``P(click | document d at rank r) = theta_r * gamma_d`` with one ``gamma`` per
          (query, document) (per ``row``); it needs documents shown at several ranks, e.g.
          logs of several rankers. Converges to a local optimum from ``theta = gamma = 0.5``.
    max_rank : int, optional
        Estimate ranks 1..max_rank (lines below are not used). ``None``: the deepest rank.
    X : array-like of shape (n_rows, n_features), default=None
        ``"em"`` only: the features of the rows the log's ``row`` indexes, for regression EM
        (Wang et al. 2018): the attraction is a logistic regression on ``X`` refitted in
        each M-step (soft labels: the posterior attractions), so documents shown at a single
        rank inform the estimate through their features. ``None``: one attraction per
        document.
    max_iter : int, default=1000
        EM iterations at most.
    tol : float, default=1e-6
        EM stops when no rank's examination changes by more than ``tol``.

    Returns
    -------
    PropensityEstimate
        ``propensity`` (rank 1 first, normalised to 1 at rank 1), the ``method``, the
        ``assumption`` it rests on, and the impressions and clicks used per rank.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ltr_metrics.clicks import estimate_propensity, simulate
    >>> rng = np.random.default_rng(0)
    >>> qid = np.repeat(np.arange(50), 10)
    >>> y, score = rng.integers(0, 3, 500), rng.random(500)
    >>> log = simulate(y, score, qid, n_sessions=400, top_k=5, randomize="top_k",
    ...                random_state=0)
    >>> est = estimate_propensity(log, method="randomization")
    >>> est.propensity.round(2)  # the truth: 1/rank
    array([1.  , 0.5 , 0.33, 0.25, 0.2 ])
    >>> est.method
    'randomization'
    """
    method = check_choice(method, "method", tuple(_ASSUMPTIONS))
    arrays = check_click_log(log)
    features = _check_features(X, method, arrays["row"])
    deepest = int(arrays["rank"].max())
    max_rank = deepest if max_rank is None else check_positive_int(max_rank, "max_rank")
    keep = arrays["rank"] <= max_rank
    rank0 = arrays["rank"][keep] - 1
    click = arrays["click"][keep].astype(np.float64)
    n_impressions = np.bincount(rank0, minlength=max_rank)[:max_rank]
    n_clicks = np.bincount(rank0, weights=click, minlength=max_rank)[:max_rank]
    n_iter, converged = 0, True
    if method == "randomization":
        propensity = _randomization(arrays, keep, max_rank)
    elif method == "swap":
        propensity, n_impressions, n_clicks = _swap(arrays, log, keep, max_rank)
    else:
        max_iter = check_positive_int(max_iter, "max_iter")
        propensity, n_iter, converged = _em(
            arrays["row"][keep],
            arrays["rank"][keep],
            click,
            max_rank,
            max_iter,
            float(tol),
            features,
        )
    return PropensityEstimate(
        propensity=propensity,
        method=method,
        assumption=_ASSUMPTIONS[method] if features is None else _REGRESSION_ASSUMPTION,
        n_impressions=np.asarray(n_impressions, dtype=np.int64),
        n_clicks=np.asarray(n_clicks, dtype=np.int64),
        n_iter=n_iter,
        converged=converged,
    )
