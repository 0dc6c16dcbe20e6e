"""The interpolated precision (iprec_at_recall, 11pt_avg) under ``ties="average"``: the exact
expectation of a running maximum, from its distribution function.

At a recall level the value is ``max(overall, M)``, ``M = max_{i >= c} i / rank_i`` over the
relevant rows from the ``c``-th on. Tied blocks order their rows independently, so ``P(M <=
v)`` is the product over the blocks of ``P(every relevant row i >= c of the block has i / rank_i
<= v)``. For each value ``v = i / q`` a block can give (its breakpoints, compared as fractions
of integers) one walk up the block from its last row (row ``p`` of the ``p`` left is relevant
with probability ``(r - k) / p`` after ``k`` relevant rows below it) gathers, for every ``k``,
the probability that the block's last ``k`` relevant rows all stay at or below ``v``: every cut
``c`` reads its own ``k`` from the same walks. All blocks and breakpoints walk at once (a loop
over the rows of the longest block). The expectation sums ``max(overall, v)`` times the jumps of
the product. A block whose walks take more than :data:`MAX_PATH_WORK` steps times states is
refused with a message naming ``ties=``. Formulas: ``docs/conventions.rst`` ("Exact tie
averaging: the closed forms").
"""

from __future__ import annotations

import numpy as np

from ..._engine import segment_cumsum
from ._blocks import chunks, refuse_costly_blocks

__all__ = ["MAX_PATH_WORK", "iprec_tied"]

#: The most (breakpoint, count) states times rows that one tied block's walks may take.
MAX_PATH_WORK = 50_000_000


def _blocks(lists):
    """Tied blocks holding relevant rows: their query, relevant rows ``r``, relevant rows
    above ``h``, size ``n`` and start ``s`` (in query order)."""
    s = lists.support
    rel = (s.relevant & s.member).astype(np.int64)
    first = s.block_first
    r = np.add.reduceat(rel, first) if rel.size else rel
    h = (s.prefix(rel) - rel)[first] if rel.size else rel
    query = s.query[first] if rel.size else rel
    keep = r > 0
    return query[keep], r[keep], h[keep], s.block_size[keep], s.block_start[keep]


def _group_blocks(lists, blocks, g_query, g_c1):
    """The blocks of each group (a query at a cut ``c1``) that hold its ``c1``-th relevant
    row or later ones: per such block, its group and its index in ``blocks``."""
    per_query = np.bincount(blocks[0], minlength=lists.n_queries)
    offsets = np.cumsum(per_query) - per_query
    count = per_query[g_query]
    group = np.repeat(np.arange(g_query.size), count)
    index = np.arange(group.size) - np.repeat(np.cumsum(count) - count, count)
    index += offsets[g_query][group]
    _query, r, h, _n, _s = blocks
    keep = h[index] + r[index] >= g_c1[group]
    return group[keep], index[keep]


def _breakpoints(r, h, n, s):
    """Every value ``i / (s + p)`` a block can give (``i`` its ``j``-th relevant row, ``p`` a
    1-based position of the block that row can take), but those below the block's least
    maximum ``(h + r) / (s + n)`` (where every ``P(M_b <= v)`` is 0): per pair, its block,
    ``i`` and the rank ``s + p``."""
    width = n - r + 1
    pairs = r * width
    block = np.repeat(np.arange(r.size), pairs)
    local = np.arange(block.size) - np.repeat(np.cumsum(pairs) - pairs, pairs)
    i = h[block] + 1 + local // width[block]
    rank = s[block] + (i - h[block]) + local % width[block]
    keep = i * (s + n)[block] >= (h + r)[block] * rank
    return block[keep], i[keep], rank[keep]


def _arrivals(r, h, n, s, i0, q0):
    """Per pair, ``A[k]`` (``k = 0 .. r``, flattened): the probability that the last ``k``
    relevant rows of the block (the relevant rows ``h + r - k + 1 .. h + r``) all have
    ``i / rank <= i0 / q0``. The walk runs from the block's last row up: row ``p`` (of ``p``
    left) is relevant with probability ``(r - k) / p`` after ``k`` relevant rows below it;
    ``A[k]`` gathers the mass that reaches ``k`` without a violation, whatever comes after."""
    by_size = np.argsort(-n, kind="stable")  # the pairs still walking at step p: a prefix
    r, h, n, s, i0, q0 = (a[by_size] for a in (r, h, n, s, i0, q0))
    states = r + 1
    offsets = np.cumsum(states) - states
    pair = np.repeat(np.arange(r.size), states)
    k = np.arange(pair.size) - offsets[pair]
    prob = np.where(k == 0, 1.0, 0.0)
    arrived = prob.copy()
    left = (r[pair] - k).astype(np.float64)  # relevant rows still to place above
    # The placed row is relevant row i = h + r - k, allowed at rank s + p when i q0 <= i0
    # (s + p): from step p >= ceil(i q0 / i0) - s on.
    first = -((-(h[pair] + r[pair] - k) * q0[pair]) // i0[pair]) - s[pair]
    walking = np.searchsorted(-n, -np.arange(int(n.max()) + 1), side="right")
    for p in range(int(n.max()), 0, -1):
        end = offsets[walking[p]] if walking[p] < r.size else prob.size
        now = prob[:end]
        moving = now * left[:end] / p
        now -= moving
        moving *= first[:end] <= p
        now[1:] += moving[:-1]  # k = r never moves on: no mass crosses into the next pair
        arrived[1:end] += moving[:-1]
    return _unsort(arrived, states, by_size)


def _unsort(values, states, by_size):
    """Per-pair segments of ``values`` (``states`` long each, pairs in ``by_size`` order) put
    back in the original order of the pairs."""
    back = np.argsort(by_size)
    sizes = states[back]
    starts = (np.cumsum(states) - states)[back]
    index = (
        np.repeat(starts, sizes)
        + np.arange(sizes.sum())
        - np.repeat(np.cumsum(sizes) - sizes, sizes)
    )
    return values[index]


def _laws(r, h, n, s):
    """Per breakpoint pair of every block: its block, ``i0`` and ``q0`` (its value is
    ``i0 / q0``), and the arrivals ``A`` of :func:`_arrivals` with each pair's offset."""
    block, i0, q0 = _breakpoints(r, h, n, s)
    counts = np.bincount(block, minlength=r.size)
    work = counts * (r + 1) * n
    refuse_costly_blocks(
        work,
        MAX_PATH_WORK,
        lambda worst: (
            f"the interpolated precision under ties='average' has a tied block of "
            f"{int(n[worst])} rows with {int(r[worst])} relevant ones, whose exact expectation "
            f"takes {int(work[worst]):,} steps"
        ),
    )
    states = r[block] + 1
    state_offsets = np.cumsum(states) - states
    arrivals = np.empty(states.sum())
    pair_offsets = np.concatenate(([0], np.cumsum(counts)))
    for lo, hi in chunks(counts * (r + 1)):
        a, b = pair_offsets[lo], pair_offsets[hi]
        if a == b:
            continue
        blk = block[a:b]
        part = _arrivals(r[blk], h[blk], n[blk], s[blk], i0[a:b], q0[a:b])
        arrivals[state_offsets[a] : state_offsets[a] + part.size] = part
    return block, i0 / q0, arrivals, state_offsets, pair_offsets


def iprec_tied(lists, cuts):
    """The interpolated precision at the ``cut``-th relevant row of each query (``cuts`` of
    shape ``(n_levels, n_queries)``, as ``_iprec_at`` computes them), averaged over the orders
    of each tied block; every cut reads the same walks of a block."""
    s = lists.support
    rel = (s.relevant & s.member).astype(np.float64)
    rel_ret = np.bincount(s.query, weights=rel, minlength=lists.n_queries)
    overall = rel_ret / lists.sizes
    inside = (cuts <= rel_ret) & (rel_ret > 0)
    c1 = np.maximum(cuts, 1)
    out = np.where(cuts == 0, overall, 0.0)
    level, query = np.nonzero(inside)
    if not query.size:
        return out
    width = int(c1.max()) + 1
    keys, group_of = np.unique(query * width + c1[level, query], return_inverse=True)
    g_query, g_c1 = keys // width, keys % width
    blocks = _blocks(lists)
    group, index = _group_blocks(lists, blocks, g_query, g_c1)
    used, index = np.unique(index, return_inverse=True)
    _q, r, h, n, start = (b[used] for b in blocks)
    _pair_block, value, arrivals, state_offsets, pair_offsets = _laws(r, h, n, start)
    # Each (group, block): the block's pairs, reading A at the rows from the group's cut on.
    count = np.diff(pair_offsets)[index]
    member = np.repeat(np.arange(index.size), count)
    pair = np.arange(member.size) - np.repeat(np.cumsum(count) - count, count)
    pair += pair_offsets[index][member]
    b = index[member]
    k = np.minimum(r[b], h[b] + r[b] - g_c1[group[member]] + 1)
    law = arrivals[state_offsets[pair] + k]
    expected = _expected_maximum(g_query.size, group, member, value[pair], law, overall[g_query])
    out[level, query] = expected[group_of.ravel()]
    return out


def _expected_maximum(n_groups, query, block, value, law, overall):
    """``E[max(overall, M)]`` per group (``query``: the group of each block), ``P(M <= v)``
    the product over its blocks of their step functions ``law`` (each 0 below its smallest
    value): the product is kept as a count of zero factors and the sum of the logs of the
    others, both running over the values."""
    if not block.size:
        return np.zeros(n_groups)
    order = np.lexsort((value, block))
    block, value, law = block[order], value[order], law[order]
    previous = np.concatenate(([0.0], law[:-1]))
    previous[np.flatnonzero(np.diff(np.append(-1, block)))] = 0.0  # each block starts at 0
    with np.errstate(divide="ignore"):
        d_zero = (law == 0).astype(np.int64) - (previous == 0)
        d_log = np.where(law > 0, np.log(law), 0.0) - np.where(previous > 0, np.log(previous), 0)
    pair_query = query[block]
    order = np.lexsort((value, pair_query))
    pair_query, value = pair_query[order], value[order]
    # Running sums restarted at each group (added from its first pair: a group's value does
    # not depend on the other groups).
    offsets = np.concatenate(([0], np.cumsum(np.bincount(pair_query, minlength=n_groups))))
    zeros = segment_cumsum(d_zero[order], offsets)
    zeros += np.bincount(query, minlength=n_groups)[pair_query]
    logs = segment_cumsum(d_log[order], offsets)
    # The distribution function after the last pair of each (query, value).
    last = np.append((pair_query[1:] != pair_query[:-1]) | (value[1:] != value[:-1]), True)
    q, v = pair_query[last], value[last]
    cdf = np.where(zeros[last] == 0, np.exp(logs[last]), 0.0)
    before = np.concatenate(([0.0], cdf[:-1]))
    before[np.flatnonzero(np.diff(np.append(-1, q)))] = 0.0
    jumps = np.maximum(v, overall[q]) * (cdf - before)
    return np.bincount(q, weights=jumps, minlength=n_groups)
