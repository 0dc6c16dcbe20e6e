"""Counterfactual evaluation: a new ranking's metric estimated from logged clicks.

Joachims et al. (WSDM 2017) and Agarwal et al. (SIGIR 2019): for a metric that is a sum of
rank weights over relevant documents, ``M(q) = sum_d rel(d) * lambda(rank_new(d))``, each
logged click is reweighted by the inverse of the examination probability of the rank it was
clicked at. Per query, the estimate is the mean over its sessions of

    S_s = sum over clicked d in s of lambda(rank_new(d)) / propensity[rank_logged(d) - 1]

Everything is vectorised: the new ranks of all rows come from one sort, the session sums
from one ``np.bincount`` and the query means from another.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._click_log import check_click_log, check_rows_in
from .._engine import difficulty_values
from .._validation import check_1d, check_choice, check_consistent_length, short_repr
from ._simulate import check_propensity, ranked_rows

__all__ = ["counterfactual_evaluate", "counterfactual_metric_names"]

_ESTIMATORS = ("ips", "snips", "clipped_ips")
#: ``clipped_ips``'s default floor of the propensities (inverse weights at most 10).
DEFAULT_CLIP = 0.1


def _dcg_weight(ranks, k):
    return np.where(ranks <= k, 1.0 / np.log2(1.0 + ranks), 0.0)


def _precision_weight(ranks, k):
    return np.where(ranks <= k, 1.0 / k, 0.0)


def _arp_weight(ranks, k):
    return ranks.astype(np.float64)


#: Metric name -> (rank weight lambda(r, k), whether it takes a cut-off, in words).
_METRICS = {
    "dcg": (_dcg_weight, True, "lambda(r) = 1 / log2(1 + r) for r <= k, else 0"),
    "precision": (_precision_weight, True, "lambda(r) = 1 / k for r <= k, else 0"),
    "arp": (_arp_weight, False, "lambda(r) = r: the summed rank of relevant documents"),
}


def counterfactual_metric_names():
    """The metric names :func:`counterfactual_evaluate` takes, each with its rank weight.

    Returns
    -------
    dict of str to str
        Metric name -> its rank weight ``lambda(r)``, in words.

    Examples
    --------
    >>> counterfactual_metric_names()["dcg"]
    'lambda(r) = 1 / log2(1 + r) for r <= k, else 0'
    """
    return {name: about for name, (_, _, about) in sorted(_METRICS.items())}


def _parse_metrics(metrics):
    """``[(column, weight function, k)]``; ``k`` is inf for the whole list."""
    if isinstance(metrics, str):
        metrics = [metrics]
    if not isinstance(metrics, (list, tuple)) or not metrics:
        raise TypeError(
            f"metrics must be a metric spec or a non-empty list of them, got "
            f"{short_repr(metrics)}; e.g. metrics=['dcg@10', 'precision@5']."
        )
    specs = []
    for spec in metrics:
        if not isinstance(spec, str):
            raise TypeError(f"metrics entries must be strings like 'dcg@10', got {spec!r}.")
        name, sep, k_text = spec.strip().lower().partition("@")
        if name not in _METRICS:
            raise ValueError(
                f"metrics entry {spec!r} cannot be estimated from clicks; choose among "
                f"{', '.join(sorted(_METRICS))} (with @k where they take one). Metrics that "
                "are not a sum of rank weights (ndcg, map, mrr) need judgments, not clicks."
            )
        weight, takes_k, _ = _METRICS[name]
        k = np.inf
        if sep:
            if not takes_k or not k_text.isdigit() or int(k_text) < 1:
                raise ValueError(
                    f"metrics entry {spec!r}: {name!r} "
                    + (
                        "takes a positive integer cut-off, e.g. 'dcg@10'."
                        if takes_k
                        else "takes no cut-off."
                    )
                )
            k = int(k_text)
        elif name == "precision":
            raise ValueError("metrics entry 'precision' needs a cut-off, e.g. 'precision@10'.")
        specs.append((f"{name}@{k}" if sep else name, weight, k))
    return specs


def _expected_weights(scores, codes, order, starts, sizes, weight, k):
    """Every row's rank weight under the new ranking, averaged over its tied block (the
    expectation over the orderings of tied rows, as :func:`evaluate`'s ``ties="average"``)."""
    n_rows = scores.size
    position = np.arange(n_rows) - np.repeat(starts, sizes) + 1  # rank in sorted order
    cumulative = np.r_[0.0, np.cumsum(weight(np.arange(1, max(sizes.max(), 1) + 1), k))]
    s, c = scores[order], codes[order]
    new_block = np.r_[True, (s[1:] != s[:-1]) | (c[1:] != c[:-1])]
    block = np.cumsum(new_block) - 1
    first = position[new_block]
    last = np.r_[position[np.flatnonzero(new_block)[1:] - 1], position[-1]]
    mean = (cumulative[last] - cumulative[first - 1]) / (last - first + 1)
    out = np.empty(n_rows)
    out[order] = mean[block]
    return out


def _check_estimator(estimator, clip):
    estimator = check_choice(estimator, "estimator", _ESTIMATORS)
    if estimator != "clipped_ips":
        if clip is not None:
            raise ValueError(
                f"clip={clip!r} applies to estimator='clipped_ips' only, not {estimator!r}."
            )
        return estimator, None
    clip = DEFAULT_CLIP if clip is None else clip
    if isinstance(clip, bool) or not isinstance(clip, (int, float)) or not 0 < clip <= 1:
        raise ValueError(f"clip must be a propensity floor in (0, 1], got {short_repr(clip)}.")
    return estimator, float(clip)


def _check_log_rows(log, qid_arr, n_rows):
    """The log's arrays, its rows checked against the arrays ``qid`` describes."""
    arrays = check_click_log(log)
    check_rows_in(arrays["row"], n_rows, "log", "y_score")
    if not (qid_arr[arrays["row"]] == arrays["qid"]).all():
        line = int(np.flatnonzero(qid_arr[arrays["row"]] != arrays["qid"])[0])
        row = int(arrays["row"][line])
        logged, actual = arrays["qid"][line : line + 1].tolist()[0], qid_arr[row : row + 1]
        raise ValueError(
            f"log line {line} names qid {logged!r} but its row {row} has qid "
            f"{actual.tolist()[0]!r}; the log's rows must index the arrays (y_score, qid) the "
            "log was made from."
        )
    return arrays


def _per_query_counts(codes, uniques, present, row, click):
    """The count columns of the per-query table, for the queries with sessions."""
    n_docs = np.bincount(codes, minlength=uniques.size)[present]
    clicked = np.zeros(codes.size, dtype=bool)
    clicked[row[click]] = True  # rows clicked at least once
    n_pos = np.bincount(codes[clicked], minlength=uniques.size)[present]
    n_neg = n_docs - n_pos
    return pd.DataFrame(
        {
            "n_docs": n_docs,
            "n_pos": n_pos,
            "n_neg": n_neg,
            "difficulty": difficulty_values(n_pos, n_neg),
        },
        index=pd.Index(uniques[present], name="qid"),
    )


def counterfactual_evaluate(
    log, y_score, qid, *, metrics=("dcg@10",), propensity, estimator="ips", clip=None
):
    """Estimate a new ranking's metric per query from logged clicks (off-policy evaluation).

    Per query, the mean over its sessions of
    ``S_s = sum over clicked d of lambda(rank_new(d)) / p(rank_logged(d))`` (Joachims et al.
    WSDM 2017; Agarwal et al. SIGIR 2019), with ``lambda`` the metric's rank weight,
    ``rank_new(d)`` the 1-based rank of ``d`` among all of its query's rows under ``y_score``
    (tied rows get the mean weight of their tied ranks) and ``p`` the propensity of the rank
    the click was logged at.

    Parameters
    ----------
    log : pandas.DataFrame
        A click log (``session, qid, row, rank, click``); its ``row`` indexes ``y_score``.
    y_score : array-like of shape (n_rows,)
        The new ranking's scores of every row (all rows, shown or not).
    qid : array-like of shape (n_rows,)
        Query id of every row; the log's ``qid`` must agree with ``qid[row]``.
    metrics : str or list of str, default=("dcg@10",)
        ``"dcg@k"`` (``lambda(r) = 1/log2(1+r)`` for ``r <= k``), ``"dcg"`` (no cut-off),
        ``"precision@k"`` (``1/k`` for ``r <= k``) and ``"arp"`` (``lambda(r) = r``: the
        summed rank of relevant documents, Joachims et al.'s loss; lower is better). The
        gain is the user's click probability when examining, not a judged grade.
    propensity : array-like or PropensityEstimate
        Examination probability per rank 1, 2, ... down to the deepest logged rank (e.g.
        :func:`estimate_propensity`'s result). Required: there is no neutral default.
    estimator : {"ips", "snips", "clipped_ips"}, default="ips"
        - ``"ips"``: the mean of ``S_s`` over the query's sessions.
        - ``"clipped_ips"``: the same with every propensity ``p`` replaced by
          ``max(p, clip)``: bounded weights, biased towards 0 at ranks below the clip.
        - ``"snips"``: self-normalised: ``mean(S_s) / mean(W_s)`` with the session's weight
          ``W_s = sum over clicked d of 1 / p(rank_logged(d))``; that is the ``1/p``-weighted
          mean of ``lambda`` over the query's clicks. It estimates
          ``sum_d a_d lambda(d) / sum_d a_d`` (the weight of the average attractive document;
          consistent, not unbiased), does not depend on the scale of the propensities
          (relative ones, 1 at rank 1, suffice), and is NaN for a query without clicks.
    clip : float, default=None
        ``clipped_ips``'s floor in (0, 1] (``None``: 0.1, weights at most 10); refused by the
        other estimators.

    Returns
    -------
    RankingEvaluation
        One row per query with sessions (queries without sessions are left out), indexed by
        ``qid``: ``n_docs`` (rows of the query in ``y_score``), ``n_pos`` (rows clicked at
        least once), ``n_neg``, ``difficulty`` and one column per metric, so
        :mod:`~sklearn_ltr_metrics.stats` and :mod:`~sklearn_ltr_metrics.report` work on it.
        ``conventions`` records the estimator, the clip, the propensity's method and the
        number of sessions.

    Notes
    -----
    If clicks follow the position-based model, ``propensity`` holds the true examination
    probabilities (positive at every logged rank) and every session of a query shows the
    same set of documents (in any order), IPS is unbiased for
    ``sum over shown d of P(click on d | examined) * lambda(rank_new(d))``. Documents never
    shown contribute nothing: the estimate cannot credit a ranking for relevant documents the
    logging policy never showed. With propensities normalised to 1 at rank 1 (as
    :func:`estimate_propensity` gives them) IPS is that value times the true examination
    probability at rank 1; SNIPS does not depend on it.

    Examples
    --------
    One session, the document of row 1 clicked at logged rank 2 (propensity 0.5); the new
    ranking puts it first, so its DCG weight is 1 and IPS gives 1 / 0.5:

    >>> import pandas as pd
    >>> from sklearn_ltr_metrics.clicks import counterfactual_evaluate
    >>> log = pd.DataFrame({"session": [0, 0], "qid": [7, 7], "row": [0, 1],
    ...                     "rank": [1, 2], "click": [False, True]})
    >>> ev = counterfactual_evaluate(log, [0.1, 0.9], [7, 7], metrics=["dcg@10"],
    ...                              propensity=[1.0, 0.5])
    >>> ev.per_query
         n_docs  n_pos  n_neg  difficulty  dcg@10
    qid
    7         2      1      1         1.0     2.0
    """
    specs = _parse_metrics(metrics)
    estimator, clip = _check_estimator(estimator, clip)
    scores = check_1d(y_score, "y_score", dtype=np.float64)
    qid_arr = check_1d(qid, "qid")
    check_consistent_length(y_score=scores, qid=qid_arr)
    arrays = _check_log_rows(log, qid_arr, scores.size)
    prop = check_propensity(propensity, int(arrays["rank"].max()))
    if clip is not None:
        prop = np.maximum(prop, clip)
    order, codes, uniques, starts, sizes = ranked_rows(scores, qid_arr)
    from ._propensity import _dense_sessions

    session = _dense_sessions(arrays["session"])
    line_query = codes[arrays["row"]]
    session_query = np.empty(session.max() + 1, dtype=np.int64)
    session_query[session] = line_query
    present = np.flatnonzero(np.bincount(session_query, minlength=uniques.size))
    query_of = np.searchsorted(present, session_query)
    n_sessions = np.bincount(query_of, minlength=present.size)
    click = arrays["click"]
    inverse = 1.0 / prop[arrays["rank"][click] - 1]
    clicked_session = query_of[session[click]]
    denominator = (
        np.bincount(clicked_session, weights=inverse, minlength=present.size)
        if estimator == "snips"
        else n_sessions.astype(np.float64)
    )
    table = _per_query_counts(codes, uniques, present, arrays["row"], click)
    parts = {}
    for column, weight, k in specs:
        lam = _expected_weights(scores, codes, order, starts, sizes, weight, k)
        total = np.bincount(
            clicked_session, weights=lam[arrays["row"][click]] * inverse, minlength=present.size
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.where(denominator > 0, total / np.maximum(denominator, 1e-300), np.nan)
        table[column] = values
        parts[column] = (table.index.to_numpy(), np.full(present.size, float(k)), values)
    conventions = {
        "estimator": estimator,
        "clip": clip,
        "propensity": getattr(propensity, "method", "given"),
        "n_sessions": int(n_sessions.sum()),
    }
    from ..metrics import RankingEvaluation

    return RankingEvaluation(table, parts, conventions)
