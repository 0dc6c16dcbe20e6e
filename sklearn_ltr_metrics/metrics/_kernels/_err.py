"""ERR's per-row terms, exact under tie averaging (closed form: ``docs/conventions.rst``)."""

from __future__ import annotations

import numpy as np

__all__ = ["block_stop_law", "err_terms"]

#: Survival products below this share of a block's mean stop probability are left out.
_RELATIVE_TOL = 1e-18


def _log_comb_row(n, upto):
    """log C(n, i) for i = 0..upto (-inf beyond n)."""
    out = np.full(upto + 1, -np.inf)
    top = min(upto, n)
    j = np.arange(1, top + 1, dtype=np.float64)
    # A running sum of log((n - j + 1) / j): small terms, so small i (the weights that matter
    # most) are exact to rounding, with no cancellation between huge log-factorials.
    out[0] = 0.0
    out[1 : top + 1] = np.cumsum(np.log((n - j + 1.0) / j))
    return out


def _hypergeometric_mix(first, n_first, second_size, values, tol, longest):
    """``mix[m] = sum_a C(n_first, a) C(second_size, m - a) / C(n_first + second_size, m)
    * values[a]`` for m = 0.. while it stays above ``tol`` (at most ``longest`` + 1 entries).

    The mean over random m-subsets of a pool made of two parts, when the first part's mean
    over its own random a-subsets is ``values[a]`` and the second part's is ``first**b``.
    """
    total = n_first + second_size
    a = np.arange(values.size)
    log_first = _log_comb_row(n_first, values.size - 1)
    log_second = _log_comb_row(second_size, longest)
    log_total = _log_comb_row(total, longest)
    log_power = np.log(first) * np.arange(longest + 1) if first < 1.0 else np.zeros(longest + 1)
    out = []
    chunk = 512
    for lo in range(0, longest + 1, chunk):
        m = np.arange(lo, min(longest + 1, lo + chunk))
        b = m[:, None] - a[None, :]
        inside = (b >= 0) & (b <= second_size)
        bb = np.where(inside, b, 0)
        log_w = np.where(
            inside,
            log_first[None, :] + (log_second + log_power)[bb] - log_total[m][:, None],
            -np.inf,
        )
        part = np.exp(log_w) @ values
        out.append(part)
        if part[-1] < tol:
            break
    mix = np.concatenate(out)
    below = np.flatnonzero(mix < tol)
    return mix[: below[0] + 1] if below.size else mix


def block_stop_law(keep_active, n, tol):
    """P(the user stops at each position of a block of ``n`` rows in uniformly random order).

    ``keep_active`` holds the continue probabilities (1 - stop) of the block's active rows;
    its other rows never stop the user. Position t is reached with probability ``e_t``, the
    mean survival product over a random t-subset of the block's rows, so the law is
    ``e_t - e_{t+1}``. ``e`` is built one class of equal continue probability at a time (a
    class alone gives ``q**a``), mixing classes by the hypergeometric law of how many rows of
    a random subset fall in each, and cut where it falls below ``tol``.
    """
    values, counts = np.unique(keep_active, return_counts=True)
    pool, size = np.ones(1), 0
    log_tol = np.log(tol)
    # Classes, then the inactive rows (continue probability 1).
    classes = [*zip(values.tolist(), counts.tolist(), strict=True), (1.0, n - keep_active.size)]
    for q, c in classes:
        if c == 0:
            continue
        depth = c if q >= 1.0 else min(c, int(log_tol / np.log(q)) + 1)
        pool = _hypergeometric_mix(q, size, c, pool, tol, min(size + c, pool.size - 1 + depth))
        size += c
    e = np.zeros(n + 1)
    e[: pool.size] = pool[: n + 1]
    return e[:n] - e[1:]


def _err_stop_probability(labels, max_grade):
    """(2**label - 1) / 2**max_grade, computed without overflow; 0 for labels <= 0."""
    labels = np.maximum(labels, 0.0)
    return np.exp2(labels - max_grade) - np.exp2(-max_grade)


def err_terms(support):
    """Expected ERR contribution of each support row (exact under ties, docs/conventions.rst)."""
    ctx = support.ctx
    stop = _err_stop_probability(support.labels, ctx.err_max_grade)
    if stop.size == 0:
        return stop
    log_keep = np.log1p(-stop)
    # Rows outside the support have label 0: they never stop the user, so skipping them
    # leaves the survival product exact.
    survive_before = np.exp(support.prefix(log_keep) - log_keep)
    rank = support.position + 1.0
    if not ctx.average_ties:
        return stop * survive_before / rank
    first, size = support.block_first, support.block_size
    active = np.add.reduceat((stop > 0).astype(np.int64), first)
    block_survive = survive_before[first]
    terms = np.zeros(stop.size)
    # Blocks with at most one active row have a closed form: every slot is equally likely.
    simple = (active <= 1) | (size == 1)
    mean_stop = np.add.reduceat(stop, first) / size
    simple_rows = np.repeat(simple, size)
    terms[simple_rows] = (np.repeat(block_survive * mean_stop, size) / rank)[simple_rows]
    for b in np.flatnonzero(~simple):
        lo, n = first[b], int(size[b])
        block_stop = stop[lo : lo + n]
        keep = 1.0 - block_stop[block_stop > 0]
        # Survival below this share of the block's mean stop probability is dropped: what it
        # carries is below a float's resolution of the block's contribution.
        tol = _RELATIVE_TOL * mean_stop[b] / n
        law = block_stop_law(keep, n, tol)
        terms[lo : lo + n] = block_survive[b] * law / rank[lo : lo + n]
    return terms
