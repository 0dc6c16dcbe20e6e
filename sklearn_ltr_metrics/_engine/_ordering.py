"""The full per-query order of rows: by query, then descending score (then a tie-break key);
and the discordant pairs of two orders (Kendall's tau and distance).

Only the rank correlations and the curves need every row in order; the metrics read the rank
geometry of a few rows instead (``_grouping.rank_support``). Rows come grouped by query from
:mod:`._grouping` (a :class:`~._grouping.Grouping`).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

__all__ = ["FullOrder", "discordant_pairs", "rank_order", "score_keys", "size_buckets"]


def size_buckets(sizes, growth=1.25):
    """Group query indices by padded width so padding wastes at most ``growth - 1``."""
    width = np.ceil(growth ** np.ceil(np.log(np.maximum(sizes, 1)) / np.log(growth))).astype(
        np.int64
    )
    width = np.maximum(width, sizes)
    order = np.argsort(width, kind="stable")
    widths, starts = np.unique(width[order], return_index=True)
    bounds = np.append(starts, order.size)
    return [(int(w), order[bounds[i] : bounds[i + 1]]) for i, w in enumerate(widths)]


#: Rows sorted per task when the sort runs in threads: big enough to amortise the dispatch,
#: small enough to balance two cores.
_ROWS_PER_TASK = 1 << 20


def _sort_tasks(sizes, offsets):
    """Split the size buckets into tasks of at most about ``_ROWS_PER_TASK`` rows.

    Each task is ``(width, queries)``: queries of one padded width, sorted together.
    """
    tasks = []
    for width, queries in size_buckets(sizes):
        per_task = max(1, _ROWS_PER_TASK // width)
        for lo in range(0, queries.size, per_task):
            tasks.append((width, queries[lo : lo + per_task]))
    return tasks


def score_keys(y_score):
    """Scores as float64 or int64 arrays the kernels compare exactly.

    Integer scores stay integers (int64 above 2**53 must not tie as floats would); unsigned 64-bit
    scores are shifted by 2**63 into int64, which keeps their order.
    """
    arr = np.ascontiguousarray(y_score)
    if arr.dtype.kind == "u" and arr.dtype.itemsize == 8:
        return (arr ^ np.uint64(1 << 63)).view(np.int64)
    if arr.dtype.kind in "iub":
        return arr.astype(np.int64, copy=False)
    return arr.astype(np.float64, copy=False)


def rank_order(grouping, y_score, *, stable=False, tiebreak=None, n_threads=1):
    """Row order sorted by query code, then descending score.

    Parameters
    ----------
    grouping : Grouping
        The rows grouped by query (:func:`group_rows`).
    y_score : ndarray
        Scores; higher ranks first (float or integer, compared exactly).
    stable : bool, default=False
        Keep input row order among tied scores (otherwise the order inside a tied block is
        arbitrary, which the ``"average"`` tie policy does not depend on).
    tiebreak : ndarray, optional
        Secondary key sorted ascending inside tied blocks (then input order).
    n_threads : int, default=1
        Threads sorting the size buckets; the order is the same for any number.

    Returns
    -------
    ndarray of intp
        Row indices in ranked order.

    Notes
    -----
    Rows are first grouped by query (free when they already are), then each bucket of
    queries of similar size is sorted as one padded 2-D array along its rows. Sorting many
    short rows is several times faster than one global sort of all scores, and the Python
    loop runs over size buckets (a few dozen), never over queries. numpy releases the GIL
    while it sorts and gathers, so buckets sort in parallel threads; every task writes its own
    rows of the result, so the order never depends on the threads. (numpy's sort is vectorised
    and beats a scalar compiled sort; the engine only needs this full sort for the rank
    correlations and tie-breaking policies, see :func:`rank_support`.)
    """
    scores = score_keys(y_score)
    # Descending order as an ascending sort: negate floats, complement integers (exact, and
    # no overflow at the int64 minimum).
    neg = np.negative(scores) if scores.dtype.kind == "f" else np.invert(scores)
    if tiebreak is not None:
        return np.lexsort((tiebreak, neg, grouping.codes))
    grouped, sizes, offsets = grouping.grouped, grouping.sizes, grouping.offsets
    if grouped is not None:
        neg = neg[grouped]
    out = np.empty(scores.size, dtype=np.intp)
    # Integer padding can equal a real key: a stable sort keeps the real rows (first) in front.
    kind = "stable" if stable or neg.dtype.kind != "f" else "quicksort"
    pad = np.inf if neg.dtype.kind == "f" else np.iinfo(np.int64).max

    def sort_task(task):
        width, queries = task
        starts = offsets[queries]
        q_sizes = sizes[queries]
        if np.all(q_sizes == width) and np.all(np.diff(queries) == 1):
            # Consecutive queries of one size (e.g. a uniform data set): sort a reshaped
            # view instead of a padded copy.
            lo, hi = starts[0], starts[0] + width * queries.size
            within = np.argsort(neg[lo:hi].reshape(-1, width), axis=1, kind=kind)
            within += starts[:, None]
            ranked = within.reshape(-1)
            out[lo:hi] = ranked if grouped is None else grouped[ranked]
            return
        mask = np.arange(width)[None, :] < q_sizes[:, None]
        rows = (starts[:, None] + np.arange(width)[None, :])[mask]
        block = np.full((queries.size, width), pad, dtype=neg.dtype)
        block[mask] = neg[rows]
        within = np.argsort(block, axis=1, kind=kind)
        del block
        within += starts[:, None]
        ranked = within[mask]
        out[rows] = ranked if grouped is None else grouped[ranked]

    tasks = _sort_tasks(sizes, offsets)
    if n_threads > 1 and len(tasks) > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=n_threads) as pool:
            list(pool.map(sort_task, tasks))
    else:
        for task in tasks:
            sort_task(task)
    return out


class FullOrder:
    """Every row of every query in ranked order, with its labels and tied blocks: what the rank
    correlations and the curves read, sorted on first use (``ranking.order``).

    Parameters
    ----------
    ranking : RowRanking
        How the rows rank (its ``order`` and its ``grouping``).
    y_true, y_score : ndarray
        Labels and scores of the rows, in input order.
    """

    def __init__(self, ranking, y_true, y_score):
        self.ranking = ranking
        self.y_true = y_true
        self.y_score = y_score

    @property
    def starts(self):
        """First row of each query in ranked order: the grouping's own offsets."""
        return self.ranking.grouping.offsets[:-1]

    @cached_property
    def labels(self):
        """Labels of every row in ranked order."""
        return self.y_true[self.ranking.order]

    @cached_property
    def score_blocks(self):
        """True on rows that start a block of tied scores (and on each query's first row)."""
        scores = self.y_score[self.ranking.order]
        blocks = np.ones(scores.size, dtype=bool)
        np.not_equal(scores[1:], scores[:-1], out=blocks[1:])
        blocks[self.starts[self.ranking.grouping.sizes > 0]] = True
        return blocks

    @cached_property
    def block_first_row(self):
        return np.flatnonzero(self.score_blocks)

    @cached_property
    def block_size(self):
        return np.diff(np.append(self.block_first_row, self.y_true.size))


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
