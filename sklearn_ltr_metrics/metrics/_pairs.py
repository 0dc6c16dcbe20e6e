"""Discordant pairs per segment, vectorised over all segments (Kendall's tau and distance)."""

from __future__ import annotations

import numpy as np

__all__ = ["discordant_pairs"]


def _segment_starts(seg, n_seg):
    counts = np.bincount(seg, minlength=n_seg)
    return np.concatenate(([0], np.cumsum(counts)))[:-1], counts


def discordant_pairs(seg, a, b, n_seg):
    """Per segment, the pairs ordered strictly one way by ``a`` and strictly the other by ``b``.

    Rows are sorted by (segment, a, b); the discordant pairs are then the strict inversions
    of ``b``, counted by a bottom-up merge over all segments at once (one sort per level).
    """
    order = np.lexsort((b, a, seg))
    seg, b = seg[order], b[order]
    starts, counts = _segment_starts(seg, n_seg)
    index = np.arange(seg.size) - starts[seg]
    _, b_rank = np.unique(b, return_inverse=True)
    b_rank = b_rank.ravel()
    out = np.zeros(n_seg)
    width = 1
    longest = int(counts.max()) if counts.size else 0
    while width < longest:
        block = index // (2 * width)
        right = (index // width) % 2 == 1
        # Inside each (segment, block): sort by value, left half first among equal values.
        merged = np.lexsort((right, b_rank, block, seg))
        key = seg[merged] * (longest + 1) + block[merged]
        new = np.ones(merged.size, dtype=bool)
        new[1:] = key[1:] != key[:-1]
        first = np.flatnonzero(new)
        is_left = (~right[merged]).astype(np.int64)
        left_total = np.add.reduceat(is_left, first) if first.size else is_left
        left_seen = np.cumsum(is_left)
        block_start = np.repeat(first, np.diff(np.append(first, merged.size)))
        before = left_seen - np.where(block_start > 0, left_seen[block_start - 1], 0)
        # A right element is out of order with every left element sorted after it.
        greater = np.repeat(left_total, np.diff(np.append(first, merged.size))) - before
        out += np.bincount(
            seg[merged], weights=np.where(right[merged], greater, 0), minlength=n_seg
        )
        width *= 2
    return out
