"""Interleaving: one shown list per session made from two rankings, vectorised over sessions.

Each method builds the lists of every session at once, one rank (or one draw) at a time: a
loop over the ``top_k`` positions of the list, each step a numpy operation on all sessions.
There is no Python loop per session or per query.

- ``"team_draft"`` (Radlinski, Kurup and Joachims, CIKM 2008): rounds in which the team with
  fewer picks (a coin flip when equal) adds its highest-ranked document not yet shown.
- ``"balanced"`` (Joachims, KDD 2003): the two rankings are merged alternately from their
  tops, a coin deciding which one starts; a document already shown is skipped.
- ``"probabilistic"`` (Hofmann, Whiteson and de Rijke, CIKM 2011): each ranking becomes a
  distribution ``P(d) ~ 1 / rank(d)**tau`` over the query's documents; each rank draws a
  ranking with a fair coin and a document from its distribution over the documents not yet
  shown.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from .._random import check_random_state
from .._validation import check_1d, check_choice, check_consistent_length, check_positive_int
from ._simulate import ranked_rows

__all__ = ["interleave", "interleaving_method_names"]

#: The interleaving methods, with their paper.
_METHODS = {
    "balanced": "Joachims (2003): alternate from the tops, a coin picks who starts",
    "probabilistic": "Hofmann et al. (2011): softmax rankings, P(d) ~ rank(d)**-tau",
    "team_draft": "Radlinski et al. (2008): teams draft their best remaining document",
}
#: Hofmann et al.'s softmax exponent.
DEFAULT_TAU = 3.0


def interleaving_method_names():
    """The names :func:`interleave` and :func:`interleaving_outcome` take as ``method``.

    Returns
    -------
    list of str
        The interleaving methods, sorted.

    Examples
    --------
    >>> interleaving_method_names()
    ['balanced', 'probabilistic', 'team_draft']
    """
    return sorted(_METHODS)


def check_tau(tau):
    if isinstance(tau, bool) or not isinstance(tau, numbers.Real) or not 0 < tau < np.inf:
        raise ValueError(f"tau must be a finite number > 0, got {tau!r}; Hofmann et al. use 3.")
    return float(tau)


def full_ranks(score, qid, name):
    """Every row's 1-based rank in its query under ``score`` (ties: row index), with the
    query codes and the ranked rows."""
    order, codes, uniques, starts, sizes = ranked_rows(check_1d(score, name), qid)
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size) - np.repeat(starts, sizes) + 1
    return rank, order, codes, uniques, starts, sizes


def _ranking_matrix(order, starts, sizes, session_query, width):
    """The first ``width`` rows of each session's ranking, -1 past the query's end."""
    column = np.arange(width)
    index = np.minimum(starts[:, None] + column, order.size - 1)
    matrix = np.where(column < sizes[:, None], order[index], -1)
    return matrix[session_query]


def _next_unshown(matrix, pointer, shown, turn):
    """Advance each session's ``pointer`` (where ``turn``) past rows already ``shown``."""
    rows = np.arange(matrix.shape[0])
    width = matrix.shape[1]
    while True:
        candidate = matrix[rows, np.minimum(pointer, width - 1)]
        seen = turn & (pointer < width) & (shown == candidate[:, None]).any(axis=1)
        if not seen.any():
            return candidate
        pointer[seen] += 1


def _team_draft(ra, rb, length, k, rng):
    n = ra.shape[0]
    shown = np.full((n, k), -1, dtype=np.int64)
    team = np.zeros((n, k), dtype=bool)  # True: team a
    pa, pb = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    na, nb = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    for j in range(k):  # ranks of the list, each step over all sessions
        active = j < length
        a_turn = (na < nb) | ((na == nb) & (rng.random(n) < 0.5))
        cand_a = _next_unshown(ra, pa, shown, active & a_turn)
        cand_b = _next_unshown(rb, pb, shown, active & ~a_turn)
        shown[:, j] = np.where(active, np.where(a_turn, cand_a, cand_b), -1)
        team[:, j] = a_turn
        pa += active & a_turn
        pb += active & ~a_turn
        na += active & a_turn
        nb += active & ~a_turn
    return shown, team


def _balanced(ra, rb, length, k, rng):
    n = ra.shape[0]
    shown = np.full((n, k), -1, dtype=np.int64)
    team = np.zeros((n, k), dtype=bool)
    a_first = rng.random(n) < 0.5
    ka, kb = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    filled = np.zeros(n, dtype=np.int64)
    rows = np.arange(n)
    width = ra.shape[1]
    while (filled < length).any():  # at most 2 * top_k steps, each over all sessions
        active = filled < length
        a_turn = (ka < kb) | ((ka == kb) & a_first)
        pointer = np.where(a_turn, ka, kb)
        matrix_row = np.where(
            a_turn, ra[rows, np.minimum(ka, width - 1)], rb[rows, np.minimum(kb, width - 1)]
        )
        valid = active & (pointer < width) & (matrix_row >= 0)
        new = valid & ~(shown == matrix_row[:, None]).any(axis=1)
        slot = np.minimum(filled, k - 1)
        shown[rows[new], slot[new]] = matrix_row[new]
        team[rows[new], slot[new]] = a_turn[new]
        filled += new
        ka += active & a_turn
        kb += active & ~a_turn
    return shown, team


def _probabilistic(rank_a, rank_b, order, starts, sizes, session_query, length, k, tau, rng):
    """Draws of Hofmann et al.: columns are each query's rows in a's order."""
    width = int(sizes.max())
    docs = _ranking_matrix(order, starts, sizes, session_query, width)
    exists = docs >= 0
    safe = np.where(exists, docs, 0)
    weight_a = np.where(exists, rank_a[safe].astype(np.float64) ** -tau, 0.0)
    weight_b = np.where(exists, rank_b[safe].astype(np.float64) ** -tau, 0.0)
    n = docs.shape[0]
    rows = np.arange(n)
    shown = np.full((n, k), -1, dtype=np.int64)
    team = np.zeros((n, k), dtype=bool)
    for j in range(k):
        active = j < length
        a_turn = rng.random(n) < 0.5
        weight = np.where(a_turn[:, None], weight_a, weight_b)
        cumulative = np.cumsum(weight, axis=1)
        target = rng.random(n) * cumulative[:, -1]
        column = np.minimum((cumulative <= target[:, None]).sum(axis=1), width - 1)
        shown[:, j] = np.where(active, docs[rows, column], -1)
        team[:, j] = a_turn
        weight_a[rows[active], column[active]] = 0.0
        weight_b[rows[active], column[active]] = 0.0
    return shown, team


def interleave(
    score_a,
    score_b,
    qid,
    *,
    method="team_draft",
    top_k=10,
    n_sessions=1,
    tau=DEFAULT_TAU,
    random_state=None,
):
    """Interleave two rankings of the same rows: one shown list per query and session.

    Parameters
    ----------
    score_a, score_b : array-like of shape (n_rows,)
        The two rankers' scores of every row (higher first; ties broken by row index).
    qid : array-like of shape (n_rows,)
        Query id of every row.
    method : {"team_draft", "balanced", "probabilistic"}, default="team_draft"
        - ``"team_draft"`` (Radlinski et al. 2008): in each round a coin decides which team
          picks first; each team adds its highest-ranked row not yet shown. The team with
          fewer picks always picks next, so the teams differ by at most one at every prefix.
        - ``"balanced"`` (Joachims 2003): a coin decides which ranking starts; the list takes
          rows alternately from the top of ``a`` and of ``b``, skipping rows already shown.
          Its outcome has no teams; ``team`` records the ranking whose turn added the row.
        - ``"probabilistic"`` (Hofmann et al. 2011): each rank flips a fair coin for a
          ranking and draws a row with probability proportional to ``rank**-tau`` among the
          rows not yet shown (all of the query's rows, not only its top ``top_k``).
    top_k : int, default=10
        Length of each shown list (the query's rows when it has fewer).
    n_sessions : int, default=1
        Lists (sessions) per query, each drawn independently.
    tau : float, default=3.0
        ``"probabilistic"`` only: the softmax exponent (Hofmann et al. use 3).
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        Seed of the coins and draws.

    Returns
    -------
    pandas.DataFrame
        Columns ``session`` (0, 1, ... query by query), ``qid``, ``rank`` (1-based), ``row``
        and ``team`` (``"a"`` or ``"b"``), sorted by session and rank: the shown part of a
        click log (add clicks with :func:`simulate_clicks`, then credit them with
        :func:`interleaving_outcome`).

    Examples
    --------
    >>> from sklearn_ltr_metrics.clicks import interleave
    >>> shown = interleave([3, 2, 1, 0], [0, 1, 2, 3], [1, 1, 1, 1], top_k=4, random_state=0)
    >>> shown[["rank", "row", "team"]].to_numpy().tolist()
    [[1, 3, 'b'], [2, 0, 'a'], [3, 1, 'a'], [4, 2, 'b']]
    """
    method = check_choice(method, "method", tuple(_METHODS))
    top_k = check_positive_int(top_k, "top_k")
    n_sessions = check_positive_int(n_sessions, "n_sessions")
    tau = check_tau(tau)
    rank_a, order_a, _, uniques, starts, sizes = full_ranks(score_a, qid, "score_a")
    rank_b, order_b, _, _, _, _ = full_ranks(score_b, qid, "score_b")
    check_consistent_length(score_a=rank_a, score_b=rank_b)
    rng = check_random_state(random_state)
    session_query = np.repeat(np.arange(sizes.size), n_sessions)
    length = np.minimum(sizes, top_k)[session_query]
    if method == "probabilistic":
        shown, team = _probabilistic(
            rank_a, rank_b, order_a, starts, sizes, session_query, length, top_k, tau, rng
        )
    else:
        width = int(min(2 * top_k, sizes.max()))
        ra = _ranking_matrix(order_a, starts, sizes, session_query, width)
        rb = _ranking_matrix(order_b, starts, sizes, session_query, width)
        build = _team_draft if method == "team_draft" else _balanced
        shown, team = build(ra, rb, length, top_k, rng)
    keep = np.arange(top_k) < length[:, None]
    session = np.repeat(np.arange(session_query.size, dtype=np.int64), length)
    return pd.DataFrame(
        {
            "session": session,
            "qid": uniques[session_query][session],
            "rank": np.nonzero(keep)[1].astype(np.int64) + 1,
            "row": shown[keep],
            "team": np.where(team[keep], "a", "b"),
        }
    )
