"""Condorcet fusion by Copeland's rule: pairwise majority votes, all queries at once.

For two candidates ``x`` and ``y`` of a query, each run votes (with its weight) for the one
it ranks higher; a run that retrieved only one of them votes for that one, a run that
retrieved neither does not vote. ``x`` beats ``y`` when it gets more votes; Copeland's count
of ``x`` is its wins plus half its ties. The candidates are ranked by that count (ties in order
of first appearance) and scored ``n_candidates - position``, as ranx scores its Condorcet
order. When the majority relation has no cycle this is the one order every comparison-based
sort returns, ranx's included.

Every pair of candidates of a query is compared, so the work is ``sum(n_candidates**2)``:
done in blocks of about :data:`PAIRS_PER_BLOCK` comparisons (a loop over blocks of rows, not
over queries; a query larger than a block spans several).
"""

from __future__ import annotations

import itertools

import numpy as np

__all__ = ["PAIRS_PER_BLOCK", "copeland_scores"]

#: Comparisons done at once (bounds the memory of a block to a few hundred MB with 10 runs).
PAIRS_PER_BLOCK = 2_000_000


def _block_wins(position, weights, start, size, query, lo, hi):
    """Copeland counts of the rows ``lo:hi`` (rows sorted by query) against their query."""
    lengths = size[query[lo:hi]]
    xs = np.repeat(np.arange(lo, hi), lengths)
    first = np.cumsum(lengths) - lengths
    ys = np.repeat(start[query[lo:hi]] - first, lengths) + np.arange(lengths.sum())
    px, py = position[xs], position[ys]
    votes_x = ((px < py) * weights).sum(axis=1)
    votes_y = ((py < px) * weights).sum(axis=1)
    points = (votes_x > votes_y) + 0.5 * ((votes_x == votes_y) & (xs != ys))
    return np.bincount(xs - lo, weights=points, minlength=hi - lo)


def copeland_scores(stack, position, weights):
    """Fused Condorcet score of each pair: ``n_candidates - position`` in Copeland's order.

    Parameters
    ----------
    stack : StackedRuns
    position : ndarray of shape (n_pairs, n_runs)
        Each run's 0-based rank of each pair, ``inf`` where it did not retrieve it.
    weights : ndarray of shape (n_runs,)
        Vote of each run.
    """
    order = np.argsort(stack.pair_query, kind="stable")
    query = stack.pair_query[order]
    ranks = position[order]
    size = stack.n_candidates
    start = np.cumsum(size) - size
    work = np.cumsum(size[query])
    cuts = np.searchsorted(work, np.arange(PAIRS_PER_BLOCK, work[-1], PAIRS_PER_BLOCK))
    bounds = np.unique(np.concatenate(([0], cuts + 1, [query.size])).clip(0, query.size))
    copeland = np.concatenate(
        [
            _block_wins(ranks, weights, start, size, query, lo, hi)
            for lo, hi in itertools.pairwise(bounds)
        ]
    )
    ranked = np.lexsort((np.arange(query.size), -copeland, query))
    place = np.empty(query.size, dtype=np.int64)
    place[ranked] = np.arange(query.size) - start[query[ranked]]
    fused = np.empty(query.size, dtype=np.float64)
    fused[order] = size[query] - place
    return fused
