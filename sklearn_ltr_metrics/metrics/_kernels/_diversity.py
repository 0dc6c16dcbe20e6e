"""ndeval's intent-aware diversity measures, vectorised over all queries at once.

The input is the relevant ``(document, subtopic)`` pairs of every ranked list, flat: for each
pair its query, its 1-based rank and its ``(query, subtopic)`` code ``qs``. A pair's gain is
``(1 - alpha) ** c``, ``c`` the number of pairs of the same ``qs`` ranked above it (how many
times the subtopic is already covered); every sum below is a ``np.bincount`` over the pairs,
with one sort of the pairs by ``(qs, rank)``. The formulas, after ndeval 4.5
(``trec-web-2014/src/eval/ndeval.c``), with ``S`` the subtopics of the query with at least
one relevant document and ``D = DEPTH = 20``:

- ``alpha_DCG@k = sum_{i<=k} gain_i / log2(i + 1)``, divided for ``k >= 2`` by the same sum
  for a list covering every subtopic at every rank (``S * (1 - alpha)**(i-1)`` at rank ``i``);
  ndeval leaves ``k = 1`` undivided. ``alpha_nDCG@k``: over the greedy ideal's sum.
- ``ERR_IA@k``: the same with ``1 / i`` for the discount (and the same normalisation);
  ``nERR_IA@k`` over the ideal's.
- ``P_IA@k = (relevant pairs in the top k) / (k * S)``; ``StRecall@k = (subtopics covered in
  the top k) / S``.
- ``NRBP = (1 - (1 - alpha) * beta) / S * sum_i gain_i * beta**(i-1)`` over the whole list;
  ``nNRBP`` over the ideal's (NaN when ``S = 0``: 0/0, as ndeval).
- ``AP_IA = mean over the S subtopics of (sum over its relevant ranks i of hits_s(i) / i) /
  n_rel_s``.

The greedy ideal (:func:`greedy_ideal`) loops over ranks (at most ``D`` unless nNRBP asks
for the whole ideal list), each step vectorised over every query: the reference of the
engine's compiled ``greedy_ideal_gains`` (one query per thread, the same values bit for bit),
which the entry points use, and the path for whole ideal lists too long for it.
"""

from __future__ import annotations

from functools import partial

import numpy as np

__all__ = [
    "DEPTH",
    "coverage_counts",
    "greedy_ideal",
    "ideal_sums",
    "list_sums",
    "ndeval_values",
    "order_by",
]

#: ndeval's depth: the largest cut-off of the cut-off measures.
DEPTH = 20


def coverage_counts(qs, rank):
    """Per pair, the pairs of the same ``qs`` ranked above it (``c``; ranks distinct)."""
    n = qs.size
    order = np.lexsort((rank, qs))
    sorted_qs = qs[order]
    first = np.ones(n, dtype=bool)
    first[1:] = sorted_qs[1:] != sorted_qs[:-1]
    position = np.arange(n)
    start = np.maximum.accumulate(np.where(first, position, 0))
    c = np.empty(n, dtype=np.int64)
    c[order] = position - start
    return c


def _discounts(depth):
    """ndeval's discount of ranks 1..depth: ``log(2) / log(rank + 1)``."""
    return np.log(2.0) / np.log(np.arange(depth) + 2.0)


def _running(sums):
    """``np.cumsum(sums, axis=1)`` in place (``sums``: a fresh 2-D float array), column by
    column: the same additions in the same order (the same bits), each a vector over the
    queries; numpy's accumulation along a short last axis costs 3-4x more."""
    for i in range(1, sums.shape[1]):
        np.add(sums[:, i - 1], sums[:, i], out=sums[:, i])
    return sums


def _running_copy(per_rank):
    """:func:`_running` of a copy (the caller's array left as it is)."""
    return _running(np.array(per_rank, dtype=np.float64))


def _running_column(values, col, scale=None, op=None):
    """Column ``col`` of :func:`_running` of ``op(values, scale)`` (``scale`` per rank
    column; None: ``values``), summed column by column without the whole sums: the same
    products and additions, in the same order (the same bits)."""
    total = np.array(values[:, 0] if op is None else op(values[:, 0], scale[0]), dtype=float)
    for i in range(1, col + 1):
        total += values[:, i] if op is None else op(values[:, i], scale[i])
    return total


def _cutoff_sums(query, rank, weight, n_queries, depth):
    """``(n_queries, depth)``: the sum of ``weight`` over the pairs ranked at or above k."""
    top = rank <= depth
    cells = np.bincount(
        query[top] * depth + (rank[top] - 1), weights=weight[top], minlength=n_queries * depth
    )
    return _running(cells.reshape(n_queries, depth))


class _LazySums(dict):
    """A dict whose missing keys are computed on first reading (``makers``): each measure
    reads only the sums it needs; :meth:`at` reads one rank's column, from ``columns`` (a
    maker of one column) when the whole sums were not formed."""

    def __init__(self, makers, columns=None, **items):
        super().__init__(**items)
        self._makers = makers
        self._columns = columns or {}

    def __missing__(self, key):
        if key not in self._makers:
            raise KeyError(key)
        value = self[key] = self._makers[key]()
        return value

    def at(self, key, col):
        """``self[key][:, col]``: the cumulative sum to rank ``col + 1`` of every query."""
        if key not in self and key in self._columns:
            return self._columns[key](col)
        return self[key][:, col]


def list_sums(query, rank, qs, n_queries, alpha, beta, depth=DEPTH):
    """The unnormalised sums of one set of ranked lists (a run, or the ideal lists).

    Returns
    -------
    dict
        ``dcg``, ``err``, ``count`` (relevant pairs), ``new`` (subtopics first covered):
        ``(n_queries, depth)`` cumulative over ranks; ``nrbp``: per query, over the whole
        list; ``c``: per pair, the coverage count. Each sum is computed when first read.
    """
    c = coverage_counts(qs, rank)
    gain = np.power(1.0 - alpha, c) if alpha != 0 else np.ones(c.size)

    def sums(weight):
        return _cutoff_sums(query, rank, weight, n_queries, depth)

    makers = {
        "dcg": lambda: sums(gain * _discounts(depth)[np.minimum(rank, depth) - 1]),
        "err": lambda: sums(gain / rank),
        "count": lambda: sums(np.ones(c.size)),
        "new": lambda: sums((c == 0).astype(np.float64)),
        "nrbp": lambda: np.bincount(
            query, weights=gain * np.power(beta, rank - 1.0), minlength=n_queries
        ),
    }
    return _LazySums(makers, c=c)


def greedy_ideal(classes, n_queries, n_qs, alpha, beta, depth):
    """The sums of ndeval's greedy ideal lists, ranked to ``depth``.

    Rank after rank, every query takes the unranked document maximising the sum over its
    relevant subtopics ``s`` of ``(1 - alpha) ** (times s is covered)``, ties to the greatest
    doc_id (ndeval's ``strcmp``). Documents with the same subtopics score the same at every
    rank, so they form one class (``classes``, :func:`subtopic_classes`): a class is scored
    once per rank, and when it wins, its next document (greatest key first) is taken; ties
    between classes go to the greater key of their next documents. The pairs of a class are
    in subtopic order, so each score sums its terms in ndeval's order; the winner's score is
    the ideal list's gain at that rank. The loop runs over ranks, each over every query.

    Returns
    -------
    dict
        ``dcg``, ``err``: ``(n_queries, DEPTH)`` cumulative sums; ``nrbp``: per query, over
        the ``depth`` ranks.
    """
    query, count, keys, start, pair_class, pair_qs = classes
    n_classes = query.size
    gains = np.zeros((n_queries, DEPTH))
    nrbp = np.zeros(n_queries)
    if n_classes:
        gain = np.ones(n_qs)
        taken = np.zeros(n_classes, dtype=np.int64)
        limit = np.minimum(count, depth)
        starts = np.flatnonzero(np.r_[True, query[1:] != query[:-1]])
        segment = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, n_classes]))
        pair_start = np.r_[0, np.cumsum(np.bincount(pair_class, minlength=n_classes))]
        closed = limit == 0
        decay = 1.0
        for step in range(depth):
            score = np.bincount(pair_class, weights=gain[pair_qs], minlength=n_classes)
            score[closed] = -1.0
            best = np.maximum.reduceat(score, starts)
            candidates = np.flatnonzero((score == best[segment]) & ~closed)
            if candidates.size == 0:
                break
            picked = _break_ties(candidates, segment, keys, start + taken)
            taken[picked] += 1
            closed[picked[taken[picked] >= limit[picked]]] = True
            q, value = query[picked], score[picked]
            if step < DEPTH:
                gains[q, step] = value
            nrbp[q] += value * decay
            decay *= beta
            lengths = pair_start[picked + 1] - pair_start[picked]
            offsets = np.repeat(pair_start[picked] - np.cumsum(np.r_[0, lengths[:-1]]), lengths)
            gain[pair_qs[offsets + np.arange(lengths.sum())]] *= 1.0 - alpha
    return ideal_sums(gains, nrbp)


def ideal_sums(gains, nrbp, **counts):
    """:func:`greedy_ideal`'s answer from the ideal lists' gains at ranks ``1..DEPTH``
    (``(n_queries, DEPTH)``) and their NRBP sums; ``counts`` (``count``, ``new``: per rank)
    are summed over ranks too. Each sum is computed when first read."""
    ranks = np.arange(1.0, DEPTH + 1.0)
    makers = {
        "dcg": lambda: _running(gains * _discounts(DEPTH)),
        "err": lambda: _running(gains / ranks),
    }
    columns = {
        "dcg": partial(_running_column, gains, scale=_discounts(DEPTH), op=np.multiply),
        "err": partial(_running_column, gains, scale=ranks, op=np.divide),
    }
    for name, per_rank in counts.items():
        makers[name] = partial(_running_copy, per_rank)
        columns[name] = partial(_running_column, per_rank)
    return _LazySums(makers, columns, nrbp=nrbp)


def order_by(*keys):
    """``np.lexsort(keys)`` (the last key major) for non-negative integer keys; one sort of
    a packed int64 key when their bits fit in 62."""
    bits = [max(int(k.max()).bit_length(), 1) if k.size else 1 for k in keys]
    if sum(bits) > 62 or any(k.size and k.min() < 0 for k in keys):
        return np.lexsort(keys)
    packed = np.zeros(keys[0].size, dtype=np.int64)
    for key, width in zip(reversed(keys), reversed(bits), strict=True):
        packed = (packed << width) | key.astype(np.int64)
    return np.argsort(packed, kind="stable")


def _break_ties(candidates, segment, keys, next_doc):
    """One candidate class per query: where several tie, the one whose next document has
    the greatest key (ndeval: the greatest doc_id). Only the tied queries are looked at."""
    seg = segment[candidates]
    tied = np.r_[seg[1:] == seg[:-1], False] | np.r_[False, seg[1:] == seg[:-1]]
    if not tied.any():
        return candidates
    some = candidates[tied]
    key = keys[next_doc[some]]
    order = order_by(key.max() - key, segment[some])
    some, some_seg = some[order], segment[some][order]
    winners = some[np.r_[True, some_seg[1:] != some_seg[:-1]]]
    return np.sort(np.r_[candidates[~tied], winners])


def _ideal_ideal(n_sub, alpha, depth, per_rank):
    """ndeval's normaliser: the cumulative sum of a list that covers every subtopic at every
    rank, ``S * (1 - alpha)**(i-1) * per_rank(i)``, per query (``(n_queries, depth)``)."""
    decay = np.cumprod(np.r_[1.0, np.full(depth - 1, 1.0 - alpha)])
    return n_sub[:, None] * np.cumsum(decay * per_rank)


def _divide(num, den):
    """``num / den``, 0 where ``den`` is 0 (ndeval's value for a query without subtopics)."""
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


def ndeval_values(run, ideal, n_sub, n_rel_qs, qs_query, measure, k, alpha, beta):
    """One measure's value per query from :func:`list_sums` of the run and the ideal.

    ``run`` also carries ``query``, ``rank`` and ``qs`` of its pairs (for AP_IA); ``n_sub``
    is S per query; ``n_rel_qs`` the relevant documents of each ``qs`` (``qs_query`` its
    query).
    """
    n_sub = n_sub.astype(np.float64)
    col = None if k is None else k - 1
    ranks = np.arange(1.0, DEPTH + 1.0)
    if measure in ("alpha_dcg", "err_ia"):
        key, per_rank = ("dcg", _discounts(DEPTH)) if measure == "alpha_dcg" else ("err", 1 / ranks)
        raw = run.at(key, col)
        if k == 1:
            return np.where(n_sub > 0, raw, 0.0)
        return _divide(raw, _ideal_ideal(n_sub, alpha, DEPTH, per_rank)[:, col])
    if measure in ("alpha_ndcg", "nerr_ia"):
        key = "dcg" if measure == "alpha_ndcg" else "err"
        raw = run.at(key, col)
        return np.where(raw != 0, _divide(raw, ideal.at(key, col)), 0.0)
    if measure == "p_ia":
        return _divide(run.at("count", col), k * n_sub)
    if measure == "strecall":
        return _divide(run.at("new", col), n_sub)
    if measure in ("nrbp", "nnrbp"):
        scale = (1.0 - (1.0 - alpha) * beta) / np.where(n_sub > 0, n_sub, 1.0)
        value = np.where(n_sub > 0, run["nrbp"] * scale, 0.0)
        if measure == "nrbp":
            return value
        best = np.where(n_sub > 0, ideal["nrbp"] * scale, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return value / best  # 0 / 0 = NaN without subtopics, as ndeval
    if measure == "ap_ia":
        per_pair = (run["c"] + 1.0) / run["rank"]
        per_qs = np.bincount(run["qs"], weights=per_pair, minlength=n_rel_qs.size)
        ratio = _divide(per_qs, n_rel_qs.astype(np.float64))
        return _divide(np.bincount(qs_query, weights=ratio, minlength=n_sub.size), n_sub)
    raise ValueError(f"unknown diversity measure {measure!r}")
