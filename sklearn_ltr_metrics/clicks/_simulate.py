"""Click simulators: the position-based, cascade and dynamic Bayesian network models.

Every step is vectorised over all sessions at once: the shown lists are built with
``np.repeat`` from each query's ranked rows, the interventions (RandTop-k, RandPair) permute
inside sessions with one sort, and the cascade-type models find each session's stopping rank
with one ``np.minimum.reduceat``. There is no Python loop per session or per query.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from .._click_log import check_click_log, check_rows_in
from .._engine import group_rows, rank_order
from .._random import check_random_state
from .._validation import (
    check_1d,
    check_choice,
    check_consistent_length,
    check_labels,
    check_positive_int,
    short_repr,
)

__all__ = ["click_model_names", "simulate", "simulate_clicks"]

#: The click models: name -> what the user does, in words.
_MODELS = {
    "pbm": "position-based model: click = examined (propensity[rank-1]) and attracted",
    "cascade": "cascade model (Craswell et al. 2008): top-down, stop after the first click",
    "dbn": "dynamic Bayesian network (Chapelle and Zhang 2009): satisfaction and gamma",
}
_RANDOMIZE = (None, "top_k", "pairs")
#: Attraction of a label-0 document under the default ``click_prob`` (click noise).
DEFAULT_NOISE = 0.1
#: Continuation probability of the DBN model after a non-satisfying step.
DEFAULT_GAMMA = 0.9


def click_model_names():
    """The names :func:`simulate` takes as ``model``.

    Returns
    -------
    list of str
        The click models, sorted.

    Examples
    --------
    >>> click_model_names()
    ['cascade', 'dbn', 'pbm']
    """
    return sorted(_MODELS)


# --------------------------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------------------------


def _integer_labels(y_true, name="y_true"):
    labels = check_labels(y_true, name)
    if labels.size and (labels != np.floor(labels)).any():
        first = int(np.flatnonzero(labels != np.floor(labels))[0])
        raise ValueError(
            f"{name} must hold integer grades 0, 1, 2, ... (click probabilities are given per "
            f"grade), got {labels[first]!r} at row {first}; round or bin the labels first."
        )
    return labels.astype(np.int64)


def default_click_prob(max_label):
    """``click_prob[l] = 0.1 + 0.9 * (2**l - 1) / (2**max_label - 1)`` (0.1 for every grade
    when ``max_label`` is 0): label 0 is clicked when examined 10 % of the time, the top
    grade always."""
    grades = np.arange(max_label + 1, dtype=np.float64)
    if max_label == 0:
        return np.full(1, DEFAULT_NOISE)
    return DEFAULT_NOISE + (1 - DEFAULT_NOISE) * (2**grades - 1) / (2.0**max_label - 1)


def default_satisfaction_prob(max_label):
    """``satisfaction_prob[l] = (2**l - 1) / 2**max_label`` (ERR's stopping probability)."""
    grades = np.arange(max_label + 1, dtype=np.float64)
    return (2**grades - 1) / 2.0**max_label


def per_grade(values, max_label, name, default):
    """A probability per grade 0..max_label, from a sequence, a mapping or the default."""
    if values is None:
        return default(max_label)
    if isinstance(values, dict):
        missing = [g for g in range(max_label + 1) if g not in values]
        if missing:
            raise ValueError(
                f"{name} has no probability for grade(s) {missing}; give one for every grade "
                f"0..{max_label}."
            )
        values = [values[g] for g in range(max_label + 1)]
    probs = check_1d(values, name, dtype=np.float64)
    if probs.shape[0] <= max_label:
        raise ValueError(
            f"{name} has {probs.shape[0]} entries but the labels go up to {max_label}; give one "
            f"probability per grade 0..{max_label}."
        )
    if not ((probs >= 0) & (probs <= 1)).all():
        raise ValueError(f"{name} must hold probabilities in [0, 1], got {short_repr(values)}.")
    return probs


def check_propensity(propensity, top_k, name="propensity"):
    """Examination probability per rank 1..top_k: ``1/rank`` by default, else checked."""
    if propensity is None:
        return 1.0 / np.arange(1, top_k + 1)
    probs = check_1d(getattr(propensity, "propensity", propensity), name, dtype=np.float64)
    if probs.shape[0] < top_k:
        raise ValueError(
            f"{name} has {probs.shape[0]} entries but ranks go down to {top_k}; give one "
            "examination probability per rank 1..top_k."
        )
    if not ((probs > 0) & (probs <= 1)).all():
        raise ValueError(
            f"{name} must hold examination probabilities in (0, 1], got {short_repr(probs)}."
        )
    return probs


def _check_gamma(gamma):
    if isinstance(gamma, bool) or not isinstance(gamma, numbers.Real) or not 0 <= gamma <= 1:
        raise ValueError(f"gamma must be a probability in [0, 1], got {short_repr(gamma)}.")
    return float(gamma)


# --------------------------------------------------------------------------------------------
# Shown lists
# --------------------------------------------------------------------------------------------


def ranked_rows(y_score, qid):
    """Rows sorted by query, then score descending (ties: row index): ``(order, codes,
    uniques, starts, sizes)``, codes ordered like the sorted query ids."""
    scores = check_1d(y_score, "y_score", dtype=np.float64)
    if not np.isfinite(scores).all():
        raise ValueError("y_score must be finite; replace NaN and infinite scores first.")
    qid_arr = check_1d(qid, "qid")
    check_consistent_length(y_score=scores, qid=qid_arr)
    # The engine's grouping and compiled stable ranking (no comparison sort of all rows).
    grouping = group_rows(qid_arr, "qid")
    order = np.asarray(rank_order(grouping, scores, stable=True), dtype=np.int64)
    codes = np.asarray(grouping.codes, dtype=np.int64)
    uniques, sizes = grouping.uniques, np.asarray(grouping.sizes, dtype=np.int64)
    starts = np.asarray(grouping.offsets[:-1], dtype=np.int64)
    return order, codes, np.asarray(uniques), starts, sizes


def _shuffle_sessions(row, first, length, rng):
    """``row`` with each session's lines in a uniformly random order: sessions of one length
    at a time (at most ``top_k`` lengths), each a matrix whose rows are permuted at once."""
    row = row.copy()
    for n_lines in np.unique(length):
        lines = first[length == n_lines][:, None] + np.arange(n_lines)
        perm = np.argsort(rng.random(lines.shape), axis=1)
        row[lines] = row[np.take_along_axis(lines, perm, axis=1)]
    return row


def _shown_lists(order, starts, sizes, top_k, n_sessions, randomize, rng):
    """``(session_query, session, rank, row, top_row)`` of ``n_sessions`` sessions per query."""
    shown = np.minimum(sizes, top_k)
    n_queries = sizes.shape[0]
    session_query = np.repeat(np.arange(n_queries), n_sessions)
    length = shown[session_query]
    session = np.repeat(np.arange(session_query.size, dtype=np.int64), length)
    first = np.cumsum(length) - length
    position = np.arange(session.size, dtype=np.int64) - np.repeat(first, length)
    row = order[np.repeat(starts[session_query], length) + position]
    top_row = None
    if randomize == "top_k":
        row = _shuffle_sessions(row, first, length, rng)
    elif randomize == "pairs":
        # Swap rank 1 with a rank drawn uniformly from 1..length (1: no swap).
        top_row = np.repeat(row[first], length)
        swap = first + (rng.random(length.size) * length).astype(np.int64)
        row[first], row[swap] = row[swap], row[first].copy()
    return session_query, session, position + 1, row, top_row


# --------------------------------------------------------------------------------------------
# Clicks
# --------------------------------------------------------------------------------------------


def _click_kernel(session, rank, label, model, params, rng):
    """Clicks of lines sorted by (session, rank); ``session`` dense and non-decreasing."""
    attract = params["click_prob"][label]
    if model == "pbm":
        return rng.random(label.size) < params["propensity"][rank - 1] * attract
    attracted = rng.random(label.size) < attract
    if model == "cascade":
        stop = attracted
    else:
        satisfied = rng.random(label.size) < params["satisfaction_prob"][label]
        stop = (attracted & satisfied) | (rng.random(label.size) >= params["gamma"])
    # Each session stops at its first stopping line; lines after it are not examined.
    index = np.arange(label.size)
    starts = np.flatnonzero(np.r_[True, session[1:] != session[:-1]])
    first_stop = np.minimum.reduceat(np.where(stop, index, label.size), starts)
    lengths = np.diff(np.r_[starts, label.size])
    examined = index <= np.repeat(first_stop, lengths)
    return attracted & examined


def _click_params(model, labels, top_k, propensity, click_prob, satisfaction_prob, gamma):
    model = check_choice(model, "model", tuple(_MODELS))
    max_label = int(labels.max()) if labels.size else 0
    params = {"click_prob": per_grade(click_prob, max_label, "click_prob", default_click_prob)}
    if model == "pbm":
        params["propensity"] = check_propensity(propensity, top_k)
    elif propensity is not None:
        raise ValueError(
            f"propensity applies to model='pbm' only; model={model!r} examines top-down "
            "(pass propensity=None)."
        )
    if model == "dbn":
        params["satisfaction_prob"] = per_grade(
            satisfaction_prob, max_label, "satisfaction_prob", default_satisfaction_prob
        )
        params["gamma"] = _check_gamma(DEFAULT_GAMMA if gamma is None else gamma)
    elif satisfaction_prob is not None or gamma is not None:
        raise ValueError(
            f"satisfaction_prob and gamma apply to model='dbn' only, not model={model!r}."
        )
    return model, params


_PARAMETERS_DOC = """model : {"pbm", "cascade", "dbn"}, default="pbm"
        - ``"pbm"``: the position-based model. A document shown at rank ``r`` is examined
          with probability ``propensity[r-1]`` and, examined, clicked with probability
          ``click_prob[label]``, independently of the other documents.
        - ``"cascade"`` (Craswell et al. 2008): the user examines top-down, clicks an
          examined document with probability ``click_prob[label]`` and stops after the
          first click.
        - ``"dbn"`` (Chapelle and Zhang 2009): top-down; an examined document is clicked
          with probability ``click_prob[label]``; after a click the user is satisfied (and
          stops) with probability ``satisfaction_prob[label]``; otherwise the user goes on
          to the next rank with probability ``gamma``.
    propensity : array-like of shape (>= top_k,), default=None
        Examination probability per rank 1, 2, ... (``"pbm"`` only; refused by the
        others). ``None``: ``1 / rank``. A :class:`PropensityEstimate` is accepted.
    click_prob : array-like or dict, default=None
        Attraction (click probability of an examined document) per grade 0..max. ``None``:
        ``0.1 + 0.9 * (2**label - 1) / (2**max_label - 1)`` with ``max_label`` the largest
        grade of ``y_true``: a non-relevant document is clicked 10 % of the time.
    satisfaction_prob : array-like or dict, default=None
        ``"dbn"`` only: satisfaction after a click, per grade. ``None``:
        ``(2**label - 1) / 2**max_label`` (ERR's stopping probability).
    gamma : float, default=None
        ``"dbn"`` only: continuation probability (``None``: 0.9).
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        Seed of every draw: the same seed gives the same log."""


def simulate(
    y_true,
    y_score,
    qid,
    *,
    model="pbm",
    n_sessions=1,
    top_k=10,
    propensity=None,
    click_prob=None,
    satisfaction_prob=None,
    gamma=None,
    randomize=None,
    random_state=None,
):
    """Simulate a click log: users issuing each query ``n_sessions`` times and clicking.

    Each session shows the query's ``top_k`` rows ranked by ``y_score`` (ties broken by the
    row index), possibly randomised (``randomize``), and the user clicks as the click
    ``model`` says, with the relevance ``y_true`` of the rows shown. All sessions are drawn
    at once (vectorised: no Python loop per session or per query).

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
        Integer relevance grades 0, 1, 2, ... of every row.
    y_score : array-like of shape (n_rows,)
        The logging ranker's scores (higher is shown first).
    qid : array-like of shape (n_rows,)
        Query id of every row (rows in any order).
    n_sessions : int, default=1
        Sessions per query.
    top_k : int, default=10
        Documents shown per session (all of a query's rows when it has fewer).
    randomize : {None, "top_k", "pairs"}, default=None
        The intervention that identifies position bias. ``"top_k"`` (RandTop-k) shows the top
        ``k`` in a uniformly random order in each session; ``"pairs"`` (RandPair, Joachims et
        al. 2017) swaps rank 1 with a rank drawn uniformly from 1..k (1: no swap) and names
        the document originally at rank 1 in the column ``top_row``.
    {click_model_parameters}

    Returns
    -------
    pandas.DataFrame
        The click log (:mod:`sklearn_ltr_metrics.clicks`' schema): ``session`` (0, 1, ...,
        query by query in sorted order), ``qid``, ``row``, ``rank``, ``click`` (bool), and
        ``top_row`` with ``randomize="pairs"``; sorted by session and rank.

    Examples
    --------
    >>> from sklearn_ltr_metrics.clicks import simulate
    >>> log = simulate([2, 0, 1, 0], [0.9, 0.1, 0.5, 0.3], ["q", "q", "q", "q"],
    ...                n_sessions=2, top_k=3, random_state=0)
    >>> log[["session", "row", "rank"]].to_numpy().tolist()
    [[0, 0, 1], [0, 2, 2], [0, 3, 3], [1, 0, 1], [1, 2, 2], [1, 3, 3]]
    >>> log["click"].dtype
    dtype('bool')
    """
    top_k = check_positive_int(top_k, "top_k")
    n_sessions = check_positive_int(n_sessions, "n_sessions")
    randomize = check_choice(randomize, "randomize", _RANDOMIZE)
    labels = _integer_labels(y_true)
    order, _, uniques, starts, sizes = ranked_rows(y_score, qid)
    check_consistent_length(y_true=labels, y_score=order)
    model, params = _click_params(
        model, labels, top_k, propensity, click_prob, satisfaction_prob, gamma
    )
    rng = check_random_state(random_state)
    session_query, session, rank, row, top_row = _shown_lists(
        order, starts, sizes, top_k, n_sessions, randomize, rng
    )
    click = _click_kernel(session, rank, labels[row], model, params, rng)
    log = pd.DataFrame(
        {
            "session": session,
            "qid": uniques[session_query][session],
            "row": row,
            "rank": rank,
            "click": click,
        }
    )
    if top_row is not None:
        log["top_row"] = top_row
    return log


def simulate_clicks(
    shown,
    y_true,
    *,
    model="pbm",
    propensity=None,
    click_prob=None,
    satisfaction_prob=None,
    gamma=None,
    random_state=None,
):
    """Simulate the clicks on given shown lists (an interleaving, a logging policy's lists).

    Parameters
    ----------
    shown : pandas.DataFrame
        Shown lists with the click-log columns ``session``, ``qid``, ``row``, ``rank`` (a
        ``click`` column, if any, is replaced), e.g. the frame of :func:`interleave`.
    y_true : array-like of shape (n_rows,)
        Integer relevance grades of the rows ``shown["row"]`` indexes.
    {click_model_parameters}

    Returns
    -------
    pandas.DataFrame
        ``shown`` sorted by session and rank, with the column ``click`` (bool).

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_ltr_metrics.clicks import simulate_clicks
    >>> shown = pd.DataFrame({"session": [0, 0], "qid": [1, 1], "row": [1, 0], "rank": [1, 2]})
    >>> simulate_clicks(shown, [1, 0], model="cascade", click_prob=[0.0, 1.0],
    ...                 random_state=0)["click"].tolist()  # row 1 (grade 0) is never clicked
    [False, True]
    >>> simulate_clicks(shown, [1, 1], model="cascade", click_prob=[0.0, 1.0],
    ...                 random_state=0)["click"].tolist()  # the user stops after a click
    [True, False]
    """
    log = check_click_log(shown, "shown", click=False)
    labels = _integer_labels(y_true)
    check_rows_in(log["row"], labels.size, "shown", "y_true")
    top_k = int(log["rank"].max())
    model, params = _click_params(
        model, labels, top_k, propensity, click_prob, satisfaction_prob, gamma
    )
    order = np.lexsort((log["rank"], log["session"]))
    session = log["session"][order]
    dense = np.cumsum(np.r_[0, session[1:] != session[:-1]])
    click = _click_kernel(
        dense,
        log["rank"][order],
        labels[log["row"][order]],
        model,
        params,
        check_random_state(random_state),
    )
    out = shown.iloc[order].reset_index(drop=True)
    out["click"] = click
    return out


for _function in (simulate, simulate_clicks):
    _function.__doc__ = (_function.__doc__ or "").replace(
        "{click_model_parameters}", _PARAMETERS_DOC
    )
