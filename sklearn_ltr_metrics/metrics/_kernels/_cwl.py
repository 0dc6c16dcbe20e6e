"""C/W/L user-model measures as cwl_eval computes them (ir_measures' SDCG, INSQ, INST, NERR).

A user reads rank ``i`` and goes on with probability ``C(i)``; the weight of rank ``i`` is
``W(i) = prod_{j<i} C(j) / sum_t prod_{j<t} C(j)`` over cwl_eval's depth of ``DEPTH`` ranks
(the list padded with gain 0), and the measure is the expected utility ``sum_i W(i) g_i``,
with ``g`` the label clipped to ``[0, max_rel]`` over ``max_rel``. Formulas:
``docs/conventions.rst`` ("User models").

SDCG and INSQ have static weights: a sum of per-row terms over the support, exact under
``ties="average"``; so is BPM (a sum over the count vectors of the block where the user stops,
:mod:`._kernels_blocks`). INST and the NERR family continue by the gain seen so far and divide
by the expected depth, a ratio of two sums over the order: computed on a strict order over the
ranked rows, with the padding after the list in closed form (trigamma, digamma and geometric
sums). With gains 0 or 1 a NERR measure is a function of the rank of the first row with a gain,
averaged from that rank's law under ties; INST, and NERR with graded gains, are refused under
tied rows of positive gain with ``ties="average"`` or ``"label_ranking"``.
"""

from __future__ import annotations

import numpy as np

from ..._engine import segment_cumsum
from ._blocks import expected_block_sums, special, value_kinds
from ._order import _strict_order

__all__ = ["DEPTH"]

#: cwl_eval's depth (``max_n``): rankings are cut, or padded with gain 0, to this many ranks.
DEPTH = 1000


def _gain(labels, options):
    top = options["max_rel"]
    return np.clip(np.nan_to_num(labels, neginf=0.0), 0.0, top) / top


def _static(c, name, weight, depth):
    """``sum_i W(i) g_i`` for weights that do not depend on the gains: ``weight(rank)``
    (1-based ranks, unnormalised), normalised over ``depth`` ranks."""
    lists = c.lists
    ranks = np.arange(1.0, DEPTH + 1.0)
    table = weight(ranks)
    total = np.cumsum(table)

    def term(s):
        position = np.minimum(s.position, DEPTH - 1)
        inside = s.position < DEPTH
        return np.where(inside, s.block_mean(_gain(s.labels, c.options)) * table[position], 0.0)

    kk = np.minimum(c.kk, DEPTH)
    value = lists.term_sums_of(f"{name}_{sorted(c.options.items())!r}", term, c.query, kk)
    return value / total[np.minimum(depth, DEPTH).astype(np.int64) - 1]


def _sdcg(c):
    """cwl_eval's scaled DCG at k: ``sum_{i<=k} g_i / log2(i+1)`` over the discounts."""
    depth = np.where(np.isinf(c.k), DEPTH, c.k)
    return _static(c, "sdcg", lambda r: 1.0 / np.log2(r + 1.0), depth)


def _insq(c):
    """INSQ: ``C(i) = ((i + 2T - 1) / (i + 2T))**2``, so ``W(i)`` is proportional to
    ``(2T / (i - 1 + 2T))**2``."""
    t2 = 2.0 * c.options["T"]
    return _static(c, "insq", lambda r: (t2 / (r - 1.0 + t2)) ** 2, np.full(c.kk.size, DEPTH))


# -- adaptive: the continuation depends on the gains seen ----------------------------------


def _ranked_gains(lists, options):
    """Every ranked row within cwl_eval's depth: query, 1-based rank and gain, with the
    offsets of each query's rows."""
    order_labels = lists.labels
    starts = lists.starts
    sizes = lists.sizes
    query = np.repeat(np.arange(lists.n_queries), sizes)
    rank = np.arange(order_labels.size) - np.repeat(starts, sizes) + 1.0
    keep = rank <= DEPTH
    query, rank, labels = query[keep], rank[keep], order_labels[keep]
    counts = np.bincount(query, minlength=lists.n_queries)
    offsets = np.concatenate(([0], np.cumsum(counts)))
    return query, rank, _gain(labels, options), offsets


def _squared(rank, b):
    return 2.0 * np.log((rank + b - 1.0) / (rank + b))


def _adaptive(c, log_c, tail):
    """Expected utility for ``log C(rank, cumulative gain, gain)``; ``tail(P, n, cg)`` sums
    ``prod_{j<t} C(j)`` over the padded ranks ``t = n+1 .. DEPTH`` from ``P`` at ``n+1``."""
    lists = c.lists
    query, rank, gain, offsets = _ranked_gains(lists, c.options)
    cg = segment_cumsum(gain, offsets)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_cont = log_c(rank, cg, gain)
    # prod_{j<i} C(j): the running sum of log C before each row, restarted per query.
    running = segment_cumsum(np.where(np.isneginf(log_cont), -1e300, log_cont), offsets)
    before = np.concatenate(([0.0], running[:-1]))
    first = offsets[:-1][np.diff(offsets) > 0]
    before[first] = 0.0
    prob = np.exp(before)
    n_q = lists.n_queries
    numerator = np.bincount(query, weights=prob * gain, minlength=n_q)
    examined = np.bincount(query, weights=prob, minlength=n_q)
    n = np.diff(offsets).astype(np.float64)
    last = np.maximum(offsets[1:] - 1, 0)
    has = n > 0
    after = np.where(has, np.exp(running[last]) if running.size else 1.0, 1.0)
    total_cg = np.where(has, cg[last] if cg.size else 0.0, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        examined = examined + np.where(n < DEPTH, tail(after, n, total_cg), 0.0)
        return c.at(numerator / examined)


def _inst(c):
    """INST: ``C(i) = ((i + T + T_i - 1) / (i + T + T_i))**2``, ``T_i = T - (gain so far)``."""
    _strict_order(c, "inst")
    t = c.options["T"]
    polygamma = special("polygamma")

    def tail(after, n, cg):
        b = 2.0 * t - cg
        return after * (n + b) ** 2 * (polygamma(1, n + b) - polygamma(1, DEPTH + b))

    return _adaptive(c, lambda rank, cg, g: _squared(rank, 2.0 * t - cg), tail)


def _nerr11(c):
    """NERR eq. 11: INSQ's continuation times ``1 - g_i``."""
    b = 2.0 * c.options["T"]
    polygamma = special("polygamma")
    law = _first_gain(c, "nerr11")
    if law is not None:  # W(f) / sum_{t<=f} W(t), W(t) = (b / (t - 1 + b))**2
        return _by_first_gain(
            c, law, lambda f, q: (f - 1.0 + b) ** -2 / (polygamma(1, b) - polygamma(1, f + b))
        )

    def tail(after, n, cg):
        return after * (n + b) ** 2 * (polygamma(1, n + b) - polygamma(1, DEPTH + b))

    return _adaptive(c, lambda rank, cg, g: _squared(rank, b) + np.log1p(-g), tail)


def _nerr10(c):
    """NERR eq. 10: ``C(i) = p (1 - g_i)``."""
    p = c.options["p"]
    law = _first_gain(c, "nerr10")
    if law is not None:  # p**(f-1) / sum_{t<=f} p**(t-1)
        return _by_first_gain(
            c, law, lambda f, q: 1.0 / f if p == 1.0 else p ** (f - 1.0) * (1 - p) / (1 - p**f)
        )

    def tail(after, n, cg):
        return after * (1.0 - p ** (DEPTH - n)) / (1.0 - p)

    return _adaptive(c, lambda rank, cg, g: np.log(p) + np.log1p(-g), tail)


def _nerr8(c):
    """NERR eq. 8 at k: ``C(i) = 1 - g_i`` before rank k, 0 from rank k."""
    k = _cut(c)
    law = _first_gain(c, "nerr8")
    if law is not None:  # the reciprocal rank at k
        return _by_first_gain(c, law, lambda f, q: (f <= k[q]) / f)

    def log_c(rank, cg, g):
        return np.where(rank < k[_query_of(c, rank)], np.log1p(-g), -np.inf)

    def tail(after, n, cg):
        return after * np.maximum(k - n, 0.0)

    return _adaptive(c, log_c, tail)


def _nerr9(c):
    """NERR eq. 9 at k: ``C(i) = (i / (i + 1)) (1 - g_i)`` before rank k, 0 from rank k."""
    k = _cut(c)
    psi = special("psi")
    law = _first_gain(c, "nerr9")
    if law is not None:  # (1 / f) / sum_{t<=f} 1 / t, at k
        return _by_first_gain(c, law, lambda f, q: (f <= k[q]) / (f * (psi(f + 1.0) - psi(1.0))))

    def log_c(rank, cg, g):
        value = np.log(rank / (rank + 1.0)) + np.log1p(-g)
        return np.where(rank < k[_query_of(c, rank)], value, -np.inf)

    def tail(after, n, cg):
        # prod_{j=n+1}^{t-1} j / (j + 1) = (n + 1) / t, for t = n+1 .. k.
        return after * np.where(k > n, (n + 1.0) * (psi(k + 1.0) - psi(n + 1.0)), 0.0)

    return _adaptive(c, log_c, tail)


def _first_gain(c, name):
    """The law of the rank ``f`` of each query's first row with a gain, where the gains are
    0 or 1 (every positive label at least ``max_rel``; the default ``max_rel=1`` makes every
    gain so): the NERR measures are then functions of ``f`` alone (the user stops there), so
    their expectation over the orders of a tied block reads the law of ``f`` (that of the
    reciprocal rank), and under ``ties="label_ranking"`` ``f`` is its block's last rank.
    Returns ``(query, f, P(f))`` per candidate row, None on a strict order; graded gains
    under these policies are refused (a ratio of two sums over the order)."""
    lists = c.lists
    if not (lists.average_ties or lists.threshold_ties):
        return None
    s = lists.support
    gain = _gain(s.labels, c.options)
    if ((gain > 0) & (gain < 1)).any():
        _strict_order(c, name)  # refuses: graded gains continue past a row with a gain
    hit = (gain > 0) & s.member
    if lists.threshold_ties:
        rows = np.flatnonzero(hit)
        query, first = np.unique(s.query[rows], return_index=True)
        return query, s.position[rows[first]] + 1.0, np.ones(query.size)
    first, size = s.block_first, s.block_size
    hits = hit.astype(np.int64)
    r = np.add.reduceat(hits, first) if hits.size else hits
    above = (s.prefix(hits) - hits)[first] if hits.size else hits
    block = np.repeat(np.arange(first.size), size)
    rows = np.flatnonzero(((above == 0) & (r > 0))[block])
    n, r = size[block[rows]].astype(np.float64), r[block[rows]].astype(np.float64)
    j = (s.position[rows] - s.block_start[block[rows]] + 1).astype(np.float64)
    rows, n, r, j = (a[j <= n - r + 1] for a in (rows, n, r, j))
    # P(the block's first row with a gain is its j-th) = C(n - j, r - 1) / C(n, r).
    prob = np.exp(_log_comb(n - j, r - 1.0) - _log_comb(n, r))
    return s.query[rows], s.position[rows] + 1.0, prob


def _log_comb(n, k):
    gammaln = special("gammaln")
    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)


def _by_first_gain(c, law, value):
    """``E[value(f)]`` per query (0 without a gain in cwl_eval's depth)."""
    query, f, prob = law
    inside = f <= DEPTH
    query, f, prob = query[inside], f[inside], prob[inside]
    total = np.bincount(query, weights=prob * value(f, query), minlength=c.lists.n_queries)
    return c.at(total)


def _cut(c):
    """The cut-off of each query (one pair per query: these measures take one ``@k``)."""
    if c.query.size != c.lists.n_queries:
        raise ValueError(
            "the NERR measures at k take one cut-off per query (an int or a per-query "
            "strategy), not a list of cut-offs; give one spec per cut-off, e.g. 'nerr8@10'."
        )
    k = np.where(np.isinf(c.k), DEPTH, c.k)
    out = np.full(c.lists.n_queries, float(DEPTH))
    out[c.query] = np.minimum(k, DEPTH)
    return out


def _query_of(c, rank):
    lists = c.lists
    sizes = np.minimum(lists.sizes, DEPTH)
    return np.repeat(np.arange(lists.n_queries), sizes)


def _bpm(c):
    """The bejeweled player model (static): the user reads to rank ``L``, the first rank where
    the gain so far reaches ``T`` or the rank ``k`` (the cost bound), and the value is the gain
    of the first ``L`` rows over ``L``."""
    _strict_order(c, "bpm", average=True, label_ranking=True)
    lists = c.lists
    k = np.where(np.isinf(c.k), DEPTH, np.minimum(c.k, DEPTH))
    name = f"bpm_{c.options['max_rel']!r}"
    if lists.average_ties:
        return _bpm_tied(c, k, name)
    s = lists.support
    gain = _gain(s.labels, c.options)
    # Under ties="label_ranking" each row sits at its block's last rank: the first row that
    # reaches T gives its block's last rank, wherever it sits in the block.
    so_far = s.prefix(gain)
    reached = np.flatnonzero(so_far >= c.options["T"])
    first_rank = np.full(lists.n_queries, np.inf)
    queries, first = np.unique(s.query[reached], return_index=True)
    first_rank[queries] = s.position[reached[first]] + 1.0
    depth = np.minimum(k, c.at(first_rank))
    kk = np.minimum(depth, c.at(lists.sizes)).astype(np.int64)
    total = lists.term_sums_of(name, lambda s: _gain(s.labels, c.options), c.query, kk)
    return total / depth


def _bpm_tied(c, k, name):
    """bpm under ``ties="average"``. The blocks above the first block whose rows can reach
    ``T`` (``b``) are read whole, so the gain before ``b`` is fixed: where ``b`` starts before
    the cut-off ``k``, the user stops at one row of ``b`` (its gain reaches ``T``, or its rank
    is ``k``) and the value is the expectation over the count vectors of the rows above it in
    ``b`` (:func:`~._kernels_blocks.expected_block_sums`); elsewhere it stops at ``k``, and the
    value, the expected gain of the first ``k`` rows over ``k``, is linear in the rows."""
    lists, t = c.lists, c.options["T"]
    s = lists.support
    gain = _gain(s.labels, c.options)
    first = s.block_first
    before = (s.prefix(gain) - gain)[first]
    block_query = s.query[first]
    reaches = np.flatnonzero(before + np.add.reduceat(gain, first) >= t) if first.size else first
    stop_block = np.full(lists.n_queries, -1)
    queries, at = np.unique(block_query[reaches], return_index=True)
    stop_block[queries] = reaches[at]
    pair_block = stop_block[c.query]
    inside = pair_block >= 0
    inside[inside] = s.block_start[pair_block[inside]] < k[inside]
    kk = np.minimum(k, c.at(lists.sizes)).astype(np.int64)
    total = lists.term_sums_of(f"{name}_average", lambda s: s.block_mean(gain), c.query, kk)
    value = total / k
    blocks = pair_block[inside]
    counts, gains = value_kinds(gain, first, s.block_size)
    counts, gains = counts[blocks], gains[blocks]
    cg, start, cut = before[blocks], s.block_start[blocks], k[inside]

    def term(kind, x, row, placed):
        g = gains[row, kind]
        gained = cg[row] + (x * gains[row]).sum(axis=1)
        stopped = ((x * (gains[row] > 0)).sum(axis=1) > 0) & (gained >= t)
        rank = start[row] + placed + 1.0
        stops = ((g > 0) & (gained + g >= t)) | (rank == cut[row])
        return np.where(~stopped & (rank <= cut[row]) & stops, (gained + g) / rank, 0.0)

    value[inside] = expected_block_sums(counts, term, "bpm")
    return value
