"""Exact expectations over the orders of tied blocks, for the measures whose term at a row
reads how many rows of each kind sit above it (infAP, G, bpm); with the cap and the chunks that
compat's and the interpolated precision's forms share.

Put the ``n`` rows of a tied block in a uniformly random order. The rows placed before a
position form a count vector ``x`` (``x_k`` rows of kind ``k``, ``t = sum x`` of them), with
probability ``prod_k C(n_k, x_k) / C(n, t)`` (multivariate hypergeometric), and the next row is
of kind ``k`` with probability ``(n_k - x_k) / (n - t)``. So the expected sum over the block of
a term ``A_k(x)`` of a row of kind ``k`` placed after ``x`` is::

    E = sum_x prod_k C(n_k, x_k) / C(n, t) * sum_k (n_k - x_k) / (n - t) * A_k(x)

a sum over the ``prod_k (n_k + 1)`` count vectors of each block, all blocks of all queries at
once (no loop per query or block). Rows whose kind carries no term and enters only through the
position (``fillers``: unjudged rows for infAP) are summed out in closed form when the term is
``A_k(x) h(j)``, ``j`` the row's 0-based rank: ``sum_d C(z, d) h(s + t + d) / (C(n, t + d)
(n - t - d))`` per ``t``, in log space (the binomials overflow for large blocks). A block with
more than :data:`MAX_BLOCK_STATES` count vectors is refused with a message naming ``ties=``.
Formulas: ``docs/conventions.rst`` ("Exact tie averaging: the closed forms").
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "MAX_BLOCK_STATES",
    "check_states",
    "chunks",
    "expected_block_sums",
    "refuse_costly_blocks",
    "special",
    "value_kinds",
]

#: The most count vectors (``prod_k (n_k + 1)`` over the kinds of its rows) one tied block may
#: have under ``ties="average"`` for the measures of this module; a larger block is refused.
MAX_BLOCK_STATES = 2_000_000
#: Count vectors enumerated at once (blocks are taken in chunks of about this many).
_CHUNK_STATES = 1 << 20


def refuse_costly_blocks(cost, limit, block):
    """Refuse under ``ties="average"`` a tied block whose exact expectation costs more than
    ``limit`` (``cost``: one per block); ``block(worst)`` says which block and what it costs.
    The message offers the tie policies that need no enumeration."""
    cost = np.asarray(cost, dtype=np.float64)
    if cost.size and cost.max() > limit:
        raise ValueError(
            f"{block(int(np.argmax(cost)))}, more than {limit:,}; break the ties in the scores "
            "or pass ties='stable', 'pessimistic', 'optimistic', 'doc_id', 'trec_eval' or "
            "'label_ranking'."
        )


def check_states(name, n_rows, n_states):
    """Refuse blocks (``n_rows`` each) with more than :data:`MAX_BLOCK_STATES` states."""
    n_states = np.asarray(n_states, dtype=np.float64)
    refuse_costly_blocks(
        n_states,
        MAX_BLOCK_STATES,
        lambda worst: (
            f"metric {name!r} under ties='average' has a tied block of {int(n_rows[worst])} "
            f"rows whose orders have {int(n_states[worst]):,} states (count vectors of row "
            "kinds, or rank pairs) for its exact expectation to enumerate"
        ),
    )


def chunks(sizes):
    """Consecutive ranges of blocks holding about :data:`_CHUNK_STATES` count vectors each."""
    chunk = (np.cumsum(sizes) - sizes) // _CHUNK_STATES
    edges = np.concatenate(([0], np.flatnonzero(np.diff(chunk)) + 1, [sizes.size]))
    return list(zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True))


def _log_position_table(n, z, start, log_h):
    """``log V(t) = log sum_d C(z, d) h(start + t + d) / (C(n, t + d) (n - t - d))`` for
    ``t = 0 .. n - z - 1`` of every block, flattened, with each block's offset."""
    width = n - z  # t takes 0 .. n - z - 1 (a next row of a counted kind must remain)
    per_block = width * (z + 1)
    block = np.repeat(np.arange(n.size), per_block)
    local = np.arange(block.size) - np.repeat(np.cumsum(per_block) - per_block, per_block)
    zz = z[block]
    t, d = local // (zz + 1), local % (zz + 1)
    nn, td = n[block], t + d
    f = _log_factorials(int(n.max()))
    with np.errstate(divide="ignore"):
        value = f[zz] - f[d] - f[zz - d] + log_h(start[block] + td.astype(np.float64))
        value -= f[nn] - f[td] - f[nn - td] + np.log(nn - td)
    # A log-sum-exp over d in each (block, t) segment.
    first = np.flatnonzero(d == 0)
    top = np.maximum.reduceat(value, first) if first.size else value[:0]
    top = np.where(np.isfinite(top), top, 0.0)
    total = np.add.reduceat(np.exp(value - np.repeat(top, zz[first] + 1)), first)
    with np.errstate(divide="ignore"):
        table = np.log(total) + top
    offsets = np.concatenate(([0], np.cumsum(width)))
    return table, offsets


def expected_block_sums(counts, term, name, *, fillers=None, starts=None, log_h=None):
    """Expected sum of the terms of each block's rows over the orders of the block.

    Parameters
    ----------
    counts : ndarray of int, shape (n_blocks, n_kinds)
        Rows of each kind in each block.
    term : callable
        ``term(k, x, block, t)``: the term ``A_k(x)`` of a row of kind ``k`` placed after the
        count vectors ``x`` (shape ``(n, n_kinds)``) of the blocks ``block``, ``t = x.sum(1)``;
        None when rows of kind ``k`` carry no term.
    name : str
        The metric, for the refusal of a block with too many count vectors.
    fillers, starts, log_h : ndarray, ndarray, callable, optional
        Rows of each block that carry no term and count only in the position (default none),
        the 0-based rank of each block's first row, and ``log h(rank)``: the term is then
        ``A_k(x) h(j)`` at the row's rank ``j``. Without fillers and ``log_h``, ``h = 1``.

    Returns
    -------
    ndarray of float64, shape (n_blocks,)
    """
    counts = np.asarray(counts, dtype=np.int64)
    n_blocks = counts.shape[0]
    out = np.zeros(n_blocks)
    if n_blocks == 0:
        return out
    z = np.zeros(n_blocks, dtype=np.int64) if fillers is None else np.asarray(fillers, np.int64)
    n = counts.sum(axis=1) + z
    radix = counts + 1
    n_states = np.prod(radix.astype(np.float64), axis=1) * np.maximum(z + 1, 1)
    check_states(name, n, n_states)
    if log_h is None and z.any():
        log_h = np.zeros_like
    if log_h is None:
        table, table_offsets = None, None
    else:
        start = np.zeros(n_blocks, np.int64) if starts is None else np.asarray(starts, np.int64)
        table, table_offsets = _log_position_table(n, z, start, log_h)
    states = np.prod(radix, axis=1)
    for span in chunks(states):
        _add_chunk(out, counts, n, z, states, span, term, table, table_offsets)
    return out


def _add_chunk(out, counts, n, z, states, span, term, table, table_offsets):
    """Add the expected terms of the blocks ``span = (lo, hi)`` to ``out``."""
    lo, hi = span
    size = states[lo:hi]
    block = np.repeat(np.arange(lo, hi), size)
    local = np.arange(block.size) - np.repeat(np.cumsum(size) - size, size)
    have = np.repeat(counts[lo:hi], size, axis=0)  # rows of each kind, per state
    x = np.empty_like(have)
    for k in range(have.shape[1]):  # the mixed-radix digits of each state's index
        radix = have[:, k] + 1
        x[:, k] = local % radix
        local //= radix
    t = x.sum(axis=1)
    nn = n[block]
    keep = np.flatnonzero(t < nn - z[block])
    block, x, have, t, nn = block[keep], x[keep], have[keep], t[keep], nn[keep]
    left = have - x
    log_fact = _log_factorials(int(n[lo:hi].max()))
    log_weight = (log_fact[have] - log_fact[x] - log_fact[left]).sum(axis=1)
    if table is None:
        # P(the first t rows are x) / (n - t): the next row's kind probability's denominator.
        log_weight -= log_fact[nn] - log_fact[t] - log_fact[nn - t] + np.log(nn - t)
    else:
        log_weight += table[table_offsets[block] + t]
    weight = np.exp(log_weight)
    for k in range(have.shape[1]):
        rows = np.flatnonzero(left[:, k] > 0)
        values = term(k, x[rows], block[rows], t[rows]) if rows.size else None
        if values is None:  # no row of this kind carries a term
            continue
        value = weight[rows] * left[rows, k] * values
        out += np.bincount(block[rows], weights=value, minlength=out.size)


def special(name):
    """The function ``name`` of :mod:`scipy.special`, imported on first use: the import takes
    a fifth of a second or more, as long as a plain ``evaluate`` of a million rows, and only
    the tie-averaged and user-model measures read it.

    >>> float(special("gammaln")(4.0))  # log(3!)
    1.791759469228055
    """
    import scipy.special

    return getattr(scipy.special, name)


def _log_factorials(top):
    """``log(i!)`` for ``i = 0 .. top``."""
    return special("gammaln")(np.arange(top + 1, dtype=np.float64) + 1.0)


def value_kinds(values, first, size):
    """The kinds of the rows of each block by equal value: ``(counts, kind_values)``, both of
    shape ``(n_blocks, most kinds in a block)`` (counts 0 and value 0 past a block's kinds).
    ``first`` and ``size`` delimit the blocks, in order, over all of ``values``."""
    if not size.size:
        return np.zeros((0, 1), np.int64), np.zeros((0, 1))
    block = np.repeat(np.arange(size.size), size)
    values = values[np.lexsort((values, block))]
    new = np.ones(values.size, dtype=bool)
    new[1:] = (values[1:] != values[:-1]) | (block[1:] != block[:-1])
    kind_first = np.flatnonzero(new)
    kind_block = block[kind_first]
    kind_size = np.diff(np.append(kind_first, values.size))
    per_block = np.bincount(kind_block, minlength=size.size)
    column = np.arange(kind_first.size) - np.repeat(np.cumsum(per_block) - per_block, per_block)
    counts = np.zeros((size.size, int(per_block.max())), dtype=np.int64)
    kind_values = np.zeros(counts.shape)
    counts[kind_block, column] = kind_size
    kind_values[kind_block, column] = values[kind_first]
    return counts, kind_values
