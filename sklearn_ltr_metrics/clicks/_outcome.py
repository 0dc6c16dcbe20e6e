"""Interleaving outcomes: each session's clicks credited as its method's paper does, then
aggregated per query into two paired columns for :mod:`sklearn_ltr_metrics.stats`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._click_log import check_click_log, check_rows_in
from .._validation import check_choice, short_repr
from ._interleave import _METHODS, DEFAULT_TAU, check_tau, full_ranks
from ._propensity import _dense_sessions, _log_column

__all__ = ["interleaving_outcome"]


def _team_credit(frame, arrays, session, n):
    team = _log_column(
        frame,
        "team",
        "method='team_draft' needs the log's column 'team' ('a' or 'b'), as interleave writes it.",
    )
    bad = ~np.isin(team, ["a", "b"])
    if bad.any():
        raise ValueError(f"log['team'] must hold 'a' or 'b', got {short_repr(team[bad][0])}.")
    click = arrays["click"]
    a = np.bincount(session, weights=click & (team == "a"), minlength=n)
    b = np.bincount(session, weights=click & (team == "b"), minlength=n)
    return a, b


def _balanced_credit(arrays, session, n, rank_a, rank_b):
    """Joachims (2003): with ``l`` the lowest clicked row and ``k = min(rank_a(l),
    rank_b(l))``, each ranking gets the clicks on rows of its own top ``k``."""
    click, row = arrays["click"], arrays["row"]
    depth = np.where(click, arrays["rank"], 0)
    lowest = np.full(n, -1)
    np.maximum.at(lowest, session, depth)
    is_lowest = click & (depth == lowest[session])
    cutoff = np.zeros(n, dtype=np.int64)
    cutoff[session[is_lowest]] = np.minimum(rank_a, rank_b)[row[is_lowest]]
    a = np.bincount(session, weights=click & (rank_a[row] <= cutoff[session]), minlength=n)
    b = np.bincount(session, weights=click & (rank_b[row] <= cutoff[session]), minlength=n)
    return a, b


def _assignment_probability(arrays, session, rank, sizes_of_row, tau):
    """Per line, the probability of drawing its row from a ranking given the rows shown
    above it in the session: ``rank(d)**-tau`` over the weight of the rows left."""
    order = np.lexsort((arrays["rank"], session))
    weight = rank[arrays["row"]].astype(np.float64) ** -tau
    max_size = int(sizes_of_row.max())
    total = np.cumsum(np.arange(1, max_size + 1, dtype=np.float64) ** -tau)
    w = weight[order]
    s = session[order]
    before = np.cumsum(w) - w
    first = np.r_[True, s[1:] != s[:-1]]
    before -= np.repeat(before[first], np.diff(np.r_[np.flatnonzero(first), s.size]))
    out = np.empty_like(weight)
    out[order] = w / (total[sizes_of_row[arrays["row"]][order] - 1] - before)
    return out


def _probabilistic_credit(arrays, session, n, rank_a, rank_b, sizes_of_row, tau):
    """Hofmann et al. (2011): the posterior of the team assignments given the list factorises
    over ranks, so the number of clicks credited to ``a`` is a Poisson-binomial variable; the
    credits are P(a gets more clicks) and P(b gets more)."""
    p_a = _assignment_probability(arrays, session, rank_a, sizes_of_row, tau)
    p_b = _assignment_probability(arrays, session, rank_b, sizes_of_row, tau)
    click = arrays["click"]
    pi = (p_a / (p_a + p_b))[click]
    clicked_session = session[click]
    order = np.argsort(clicked_session, kind="stable")
    pi, clicked_session = pi[order], clicked_session[order]
    n_clicks = np.bincount(clicked_session, minlength=n)
    width = int(n_clicks.max()) if n_clicks.size else 0
    slot = np.arange(pi.size) - np.repeat(np.cumsum(n_clicks) - n_clicks, n_clicks)
    matrix = np.zeros((n, width))
    matrix[clicked_session, slot] = pi
    dist = np.zeros((n, width + 1))
    dist[:, 0] = 1.0
    for j in range(width):  # clicks of a session, each step over all sessions
        p = matrix[:, j : j + 1]
        step = dist * (1 - p)
        step[:, 1:] += dist[:, :-1] * p
        dist = np.where((j < n_clicks)[:, None], step, dist)
    count = np.arange(width + 1)
    a = (dist * (2 * count[None, :] > n_clicks[:, None])).sum(axis=1)
    b = (dist * (2 * count[None, :] < n_clicks[:, None])).sum(axis=1)
    return a, b


def interleaving_outcome(
    log, *, method="team_draft", score_a=None, score_b=None, qid=None, tau=DEFAULT_TAU
):
    """Credit each session's clicks to the two interleaved rankers and aggregate per query.

    Parameters
    ----------
    log : pandas.DataFrame
        A click log of interleaved lists: :func:`interleave`'s frame with a ``click`` column
        (e.g. from :func:`simulate_clicks`).
    method : {"team_draft", "balanced", "probabilistic"}, default="team_draft"
        The method that made the lists; each credits clicks as its paper does:

        - ``"team_draft"`` (Radlinski et al. 2008): each ranker gets the clicks on its team's
          rows (the log's ``team``).
        - ``"balanced"`` (Joachims 2003): with ``l`` the lowest-ranked clicked row and
          ``k = min(rank_a(l), rank_b(l))``, each ranker gets the clicks on rows of its own
          top ``k``.
        - ``"probabilistic"`` (Hofmann et al. 2011): the outcome marginalised over every team
          assignment that could have produced the list (``tau`` as in :func:`interleave`):
          the credits are the posterior probabilities that ``a``, resp. ``b``, gets more
          clicks. The posterior factorises over ranks, so this is exact (a Poisson-binomial
          distribution), not a sum over ``2**k`` assignments.
    score_a, score_b, qid : array-like of shape (n_rows,), optional
        The rankings interleaved; needed by ``"balanced"`` and ``"probabilistic"``.
    tau : float, default=3.0
        ``"probabilistic"``'s softmax exponent.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``qid`` (queries of the log): ``n_sessions``; ``a`` and ``b``, the mean
        over the query's sessions of each ranker's credit; ``wins``, ``ties`` and ``losses``,
        the sessions in which ``a``'s credit is larger, equal or smaller. A session without
        clicks credits 0 to both: it is a tie, and counts in the means. Per-query ``a`` and
        ``b`` are paired values: ``paired_test(out["a"], out["b"], test="sign")`` gives the
        queries' wins, ties and losses and the sign test, and ``paired_power`` its power.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_ltr_metrics.clicks import interleaving_outcome
    >>> log = pd.DataFrame({"session": [0, 0, 1, 1], "qid": [5, 5, 5, 5],
    ...                     "row": [0, 1, 1, 0], "rank": [1, 2, 1, 2],
    ...                     "team": ["a", "b", "b", "a"], "click": [1, 0, 1, 1]})
    >>> interleaving_outcome(log)
         n_sessions    a    b  wins  ties  losses
    qid
    5             2  1.0  0.5     1     1       0
    """
    method = check_choice(method, "method", tuple(_METHODS))
    arrays = check_click_log(log)
    session = _dense_sessions(arrays["session"])
    n = int(session.max()) + 1
    if method == "team_draft":
        a, b = _team_credit(log, arrays, session, n)
    else:
        if score_a is None or score_b is None or qid is None:
            raise ValueError(
                f"method={method!r} needs the interleaved rankings: pass score_a=, score_b= "
                "and qid= (the arrays the log's rows index)."
            )
        rank_a, _, codes, _, _, sizes = full_ranks(score_a, qid, "score_a")
        rank_b = full_ranks(score_b, qid, "score_b")[0]
        check_rows_in(arrays["row"], rank_a.size, "log", "score_a")
        if method == "balanced":
            a, b = _balanced_credit(arrays, session, n, rank_a, rank_b)
        else:
            sizes_of_row = sizes[codes]
            a, b = _probabilistic_credit(
                arrays, session, n, rank_a, rank_b, sizes_of_row, check_tau(tau)
            )
    session_query = np.empty(n, dtype=np.int64)
    session_query[session] = arrays["qid_codes"]
    n_queries = arrays["qid_values"].size
    n_sessions = np.bincount(session_query, minlength=n_queries)
    present = n_sessions > 0

    def per_query(values):
        return np.bincount(session_query, weights=values, minlength=n_queries)[present]

    diff = a - b
    tol = 1e-12
    out = pd.DataFrame(
        {
            "n_sessions": n_sessions[present],
            "a": per_query(a) / n_sessions[present],
            "b": per_query(b) / n_sessions[present],
            "wins": per_query(diff > tol).astype(np.int64),
            "ties": per_query(np.abs(diff) <= tol).astype(np.int64),
            "losses": per_query(diff < -tol).astype(np.int64),
        },
        index=pd.Index(arrays["qid_values"][present], name="qid"),
    )
    return out
