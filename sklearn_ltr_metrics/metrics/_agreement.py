"""``rank_agreement``: how much two rankings of the same rows agree, per query.

Two systems (or a system and a reference) score the same rows. Per query, the items compared
are the union of both top-``k`` sets; ``"kendall"`` is the normalised Kendall tau distance
between the two orders of those items, ``"spearman"`` Spearman's rho between their scores.
Everything is vectorised over queries: one grouped sort per system, then segment reductions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._engine import discordant_pairs, group_rows, parse_cutoff, rank_order
from .._qid import check_qid
from .._validation import check_1d, check_consistent_length, check_scores

__all__ = ["rank_agreement"]

METHODS = ("kendall", "spearman")


def _positions(grouping, score):
    """0-based rank of every row inside its query (input order among tied scores)."""
    order = rank_order(grouping, score, stable=True)
    codes = grouping.codes_of(order)
    position = np.empty(score.size, dtype=np.int64)
    position[order] = np.arange(score.size) - grouping.offsets[codes]
    return position


def _segment_starts(seg, n_seg):
    counts = np.bincount(seg, minlength=n_seg)
    return np.concatenate(([0], np.cumsum(counts)))[:-1], counts


def _average_ranks(seg, values, n_seg):
    """Average (tie-aware) rank of each value inside its segment."""
    order = np.lexsort((values, seg))
    sorted_values, sorted_seg = values[order], seg[order]
    new = np.ones(values.size, dtype=bool)
    new[1:] = (sorted_values[1:] != sorted_values[:-1]) | (sorted_seg[1:] != sorted_seg[:-1])
    first = np.flatnonzero(new)
    size = np.diff(np.append(first, values.size))
    starts, _ = _segment_starts(seg, n_seg)
    position = np.arange(values.size) - starts[sorted_seg]
    ranks = np.empty(values.size)
    ranks[order] = np.repeat(position[first] + (size + 1) / 2.0, size)
    return ranks


def _spearman(seg, a, b, n_seg):
    ra, rb = _average_ranks(seg, a, n_seg), _average_ranks(seg, b, n_seg)
    count = np.bincount(seg, minlength=n_seg).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        da = ra - (np.bincount(seg, ra, n_seg) / count)[seg]
        db = rb - (np.bincount(seg, rb, n_seg) / count)[seg]
        sab = np.bincount(seg, da * db, n_seg)
        saa = np.bincount(seg, da * da, n_seg)
        sbb = np.bincount(seg, db * db, n_seg)
        return np.where((saa > 0) & (sbb > 0), sab / np.sqrt(saa * sbb), np.nan)


def rank_agreement(score_a, score_b, *, qid, k=None, method="kendall"):
    """Agreement of two rankings of the same rows, per query.

    For each query the items compared are the union of the two top-``k`` sets (every row
    when ``k`` is None). ``"kendall"`` is the normalised Kendall tau distance: the pairs of
    those items that the two rankings order in opposite ways, divided by all their pairs
    ``n (n - 1) / 2`` (0: the same order, 1: reversed). An item outside one ranking's top
    ``k`` keeps its place further down that ranking. ``"spearman"`` is Spearman's rho between
    the two systems' scores of those items (average ranks for ties).

    Parameters
    ----------
    score_a, score_b : array-like of shape (n_rows,)
        The two systems' scores of the same rows; higher ranks first.
    qid : array-like of shape (n_rows,)
        Query id of every row.
    k : int, optional
        Depth of the rankings compared (``None``: the whole lists).
    method : {"kendall", "spearman"}, default="kendall"
        The measure of agreement.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``qid`` (sorted), with the column ``n_items`` (the items compared) and one
        column named after ``method``. NaN where it is undefined: fewer than two items (both),
        or scores constant over the items (``"spearman"``).

    Notes
    -----
    Top-``k`` sets take tied scores in input row order. A pair tied in either ranking is
    never discordant, so two rankings that differ only inside tied blocks are at distance 0.
    Average the column for the mean agreement over queries.

    Examples
    --------
    The rankings [a, b, c, d, e, f] and [d, a, b, c, e, f]: at k=3 the items compared are
    a, b, c (top 3 of the first) and d (top 3 of the second), and d jumps over the three
    others, so 3 of the 6 pairs are discordant; at k=6, 3 of 15:

    >>> from sklearn_ltr_metrics.metrics import rank_agreement
    >>> first = [6, 5, 4, 3, 2, 1]       # scores of a..f ranking a, b, c, d, e, f
    >>> second = [5, 4, 3, 6, 2, 1]      # ranking d, a, b, c, e, f
    >>> rank_agreement(first, second, qid=[1] * 6, k=3)
         n_items  kendall
    qid
    1          4      0.5
    >>> float(rank_agreement(first, second, qid=[1] * 6, k=6)["kendall"].iloc[0])
    0.2
    >>> float(rank_agreement(first, second, qid=[1] * 6, method="spearman")["spearman"].iloc[0])
    0.657143
    """
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(
            f"method={method!r} is not valid; choose one of {', '.join(map(repr, METHODS))}."
        )
    k = parse_cutoff(k, source=" (rank_agreement)") if k is not None else None
    if k is not None and not isinstance(k, int):
        raise TypeError(f"k={k!r} must be an int >= 1 or None for rank_agreement.")
    qid_arr = check_qid(qid, "qid")
    check_consistent_length(
        score_a=check_1d(score_a, "score_a"), score_b=check_1d(score_b, "score_b"), qid=qid_arr
    )
    # Exact: integer scores beyond 2**53 become their ranks, never ties.
    a = check_scores(score_a, qid_arr, name="score_a")
    b = check_scores(score_b, qid_arr, name="score_b")
    grouping = group_rows(qid_arr)
    n_q = grouping.n_groups
    codes = grouping.codes_of(np.arange(a.size))
    if k is None:
        keep = np.ones(a.size, dtype=bool)
    else:
        keep = (_positions(grouping, a) < k) | (_positions(grouping, b) < k)
    seg, a_kept, b_kept = codes[keep], a[keep], b[keep]
    n_items = np.bincount(seg, minlength=n_q)
    if method == "kendall":
        pairs = n_items * (n_items - 1) / 2.0
        # Higher score ranks first: order by descending a, count inversions of descending b.
        discordant = discordant_pairs(seg, -a_kept, -b_kept, n_q)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = np.where(pairs > 0, discordant / pairs, np.nan)
    else:
        value = _spearman(seg, a_kept, b_kept, n_q)
    return pd.DataFrame(
        {"n_items": n_items.astype(np.int64), method: value},
        index=pd.Index(grouping.uniques, name="qid"),
    )
