"""ERR's per-row terms, exact under tie averaging (closed form: ``docs/conventions.rst``)."""

from __future__ import annotations

import numpy as np

__all__ = ["err_terms"]


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
    if not simple.all():
        from scipy.stats import hypergeom
    for b in np.flatnonzero(~simple):
        lo, n = first[b], int(size[b])
        keep = 1.0 - stop[lo : lo + n]
        keep = keep[stop[lo : lo + n] > 0]
        r = keep.size
        # Normalised elementary symmetric means: E[j] = mean product over random j-subsets.
        e = np.zeros(r + 1)
        e[0] = 1.0
        for m, q in enumerate(keep, start=1):
            j = np.arange(1, m + 1)
            e[1 : m + 1] = ((m - j) * e[1 : m + 1] + j * q * e[0:m]) / m
        stop_at_ith_active = e[:-1] - e[1:]
        t = np.arange(n)[:, None]  # active rows among the earlier slots of the block
        a = np.arange(r)[None, :]
        law = hypergeom.pmf(a, n - 1, r - 1, t)
        w = (r / n) * (law * stop_at_ith_active[None, :]).sum(axis=1)
        terms[lo : lo + n] = block_survive[b] * w / rank[lo : lo + n]
    return terms
