"""Discordant pairs per segment, vectorised over all segments (Kendall's tau and distance)."""

from __future__ import annotations

import numpy as np

__all__ = ["discordant_pairs"]


def discordant_pairs(seg, a, b, n_seg):
    """Per segment, the pairs ordered strictly one way by ``a`` and strictly the other by ``b``.

    Rows are sorted by (segment, a, b); the discordant pairs are then the strict inversions
    of ``b``, counted by a bottom-up merge sort over all segments at once: at each level, one
    sort of integer keys (block, value, half) counts, for every element of a block's right
    half, the elements of its left half with a strictly larger value. O(n log^2 n) in total,
    no loop over segments.
    """
    order = np.lexsort((b, a, seg))
    seg = seg[order]
    counts = np.bincount(seg, minlength=n_seg)
    starts = np.concatenate(([0], np.cumsum(counts)))[:-1]
    index = np.arange(seg.size) - starts[seg]
    _, b_rank = np.unique(b[order], return_inverse=True)
    b_rank = b_rank.ravel().astype(np.int64)
    n_values = int(b_rank.max()) + 1 if b_rank.size else 1
    out = np.zeros(n_seg)
    width = 1
    longest = int(counts.max()) if counts.size else 0
    while width < longest:
        # A block of 2 * width rows of one segment, numbered globally (increasing).
        block = starts[seg] + index // (2 * width)
        right = ((index // width) % 2).astype(np.int64)
        # Sort by (block, value, half): among equal values the left half comes first, so
        # the left elements after a right element are strictly larger.
        merged = np.argsort((block * n_values + b_rank) * 2 + right, kind="stable")
        block_m = block[merged]
        new = np.ones(merged.size, dtype=bool)
        new[1:] = block_m[1:] != block_m[:-1]
        first = np.flatnonzero(new)
        lengths = np.diff(np.append(first, merged.size))
        is_left = 1 - right[merged]
        left_seen = np.cumsum(is_left)
        before_block = np.repeat(np.where(first > 0, left_seen[first - 1], 0), lengths)
        left_total = np.repeat(np.add.reduceat(is_left, first), lengths)
        greater = left_total - (left_seen - before_block)
        counted = np.where(right[merged] == 1, greater, 0)
        out += np.bincount(seg[merged], weights=counted, minlength=n_seg)
        width *= 2
    return out
