"""The Python face of the greedy ideal kernel (``_greedy.pxi`` in ``_ranking``).

ndeval's greedy ideal list of every query, from the relevant ``(document, subtopic)`` pairs
of the judged documents: :func:`greedy_ideal_gains` orders the pairs by query, document and
subtopic (a no-op check when they already are, as the flat arrays give them) and runs one
query per thread. The values are the same, bit for bit, for any number of threads.
"""

from __future__ import annotations

import numpy as np

from . import _ranking

__all__ = ["greedy_ideal_gains"]

#: Pairs per thread below which the kernel runs on fewer threads (the engine's grain).
_ROWS_PER_THREAD = _ranking.MIN_ROWS_PER_THREAD


def _pair_order(query, doc, qs):
    """A permutation grouping the pairs by query, then document, in ``qs`` order within a
    document: None when they already are (the flat arrays' pairs, queries in code order),
    else the one sorting them by ``(query, doc, qs)``."""
    step = (doc[1:] > doc[:-1]) | ((doc[1:] == doc[:-1]) & (qs[1:] > qs[:-1]))
    if (query[1:] >= query[:-1]).all() and step.all():
        return None
    keys = (qs, doc, query)  # the last key major
    bits = [max(int(k.max()).bit_length(), 1) for k in keys]
    if sum(bits) > 62:
        return np.lexsort(keys)
    packed = np.zeros(query.size, dtype=np.int64)
    for key, width in zip(reversed(keys), reversed(bits), strict=True):
        packed = (packed << width) | key.astype(np.int64, copy=False)
    return np.argsort(packed, kind="stable")


def greedy_ideal_gains(
    query, doc, key, qs, n_queries, n_qs, alpha, beta, depth, width, n_threads=1
):
    """``(gains, nrbp)`` of ndeval's greedy ideal of every query, to ``depth`` ranks.

    Parameters
    ----------
    query, doc, qs : ndarray of int
        Per relevant pair: its query code (``< n_queries``), its document (any integer, the
        same for the pairs of one document) and its ``(query, subtopic)`` code (``< n_qs``).
    key : ndarray of int64
        Per pair, its document's tie-break key: ties go to the greatest.
    alpha, beta : float
        ndeval's redundancy and patience parameters.
    depth, width : int
        The ranks taken; the ranks whose gains are returned.

    Returns
    -------
    gains : ndarray of shape (n_queries, width)
        The ideal list's gain at each rank (0 past its end).
    nrbp : ndarray of shape (n_queries,)
        ``sum_i gain_i * beta**(i-1)`` over the first ``depth`` ranks.
    """
    query = np.asarray(query, dtype=np.intp)
    doc, qs = np.asarray(doc, dtype=np.intp), np.asarray(qs, dtype=np.intp)
    key = np.asarray(key, dtype=np.int64)
    if query.size:
        order = _pair_order(query, doc, qs)
        if order is not None:
            query, doc, key, qs = query[order], doc[order], key[order], qs[order]
    offsets = np.zeros(n_queries + 1, dtype=np.intp)
    np.cumsum(np.bincount(query, minlength=n_queries), out=offsets[1:])
    return _ranking.greedy_ideal_gains(
        offsets,
        doc,
        key,
        qs,
        n_qs,
        float(alpha),
        float(beta),
        int(depth),
        int(width),
        n_threads,
        _ROWS_PER_THREAD,
    )
