"""The support: the rows of the ranked lists that can carry a metric term, and sums over them.

A metric's value at cut-off ``k`` is a sum of per-row terms over a query's first ``k`` rows; the
terms vanish on rows with label 0, so only the support rows are kept (positive labels, widened
to whole tied blocks under tie averaging). The running sums and the reads at each cut-off are
the compiled kernels of ``_sums``, parallel over queries.
"""

from __future__ import annotations

import weakref
from functools import cached_property

import numpy as np

from . import _sums, _threads

__all__ = ["Support", "segment_cumsum"]


def segment_cumsum(values, offsets, n_threads=1):
    """Inclusive running sums of ``values`` restarting at every segment of ``offsets``.

    ``offsets`` (``n_segments + 1`` entries, empty segments allowed) delimit the segments.
    Booleans and integers give exact int64 sums; floats are added in order from each
    segment's first row (the compiled ``segment_cumsum`` of ``_sums``).
    """
    if values.dtype == bool:
        values = np.ascontiguousarray(values).view(np.uint8)
    elif values.dtype.kind in "iub":
        values = np.ascontiguousarray(values, dtype=np.int64)
    else:
        values = np.ascontiguousarray(values, dtype=np.float64)
    offsets = np.ascontiguousarray(offsets, dtype=np.intp)
    return _sums.segment_cumsum(values, offsets, n_threads, _threads.grain())


def _sorted_in_blocks(values, first, size, n_threads=1):
    """``values`` (float64) sorted inside each block (``size`` rows from ``first``),
    ascending, in compiled threads. A new array, or ``values`` itself when no block holds two
    rows."""
    if not (size > 1).any():
        return values
    out = np.array(values, dtype=np.float64)
    _sums.sort_in_blocks(
        out,
        np.ascontiguousarray(first, dtype=np.intp),
        np.ascontiguousarray(size, dtype=np.intp),
        n_threads,
        _threads.grain(),
    )
    return out


class Support:
    """The rows of the ranked lists that can carry a non-zero metric term, and their geometry.

    Every metric of the registry sums per-row terms that vanish on rows with label 0 (no
    relevance, no gain, no stop probability), except where tie averaging spreads a relevant
    row's term over its whole tied block. So the terms only need the *support*: the rows with
    a positive label, widened to whole tied blocks under ``ties="average"``. In the
    methodology's data that is 2 % of the rows, and every kernel works on it alone.

    Attributes
    ----------
    query, position : ndarray
        Query code and 0-based rank of each support row (under ``ties="label_ranking"``,
        the last rank of its tied block).
    labels : ndarray of float64
        Label of each support row (0 on the rows that only fill a tied block).
    member : ndarray of bool
        Whether the row is one of the active rows the support was built from (False on the
        rows that only fill a tied block).
    offsets : ndarray
        Start of each query's run in the support arrays (``n_queries + 1`` entries).

    Notes
    -----
    The support is built from :class:`SupportRanks`: per active row, how many rows of its
    query score higher (``g``), tie with it (``t``) and precede it on the tie-break. Its rank
    is ``g`` plus the tie-break count; its tied block starts at ``g`` and holds ``t + 1`` rows.
    Under tie averaging the block is widened to all its rows, the active ones first and then
    label-0 fillers: the terms of a block's positions do not depend on which row sits where.
    """

    def __init__(self, ctx, ranks):
        # The ranked lists hold their support (a cached property): a weak reference back, so
        # that no cycle keeps both, and the ranking's arrays, alive until the next garbage
        # collection (their pages are written again by the next ranking: ``_written``).
        self.ctx = weakref.proxy(ctx)
        labels = ranks.labels
        greater, tied = ranks.greater, ranks.tied
        if ctx.average_ties or ctx.threshold_ties:
            grain = _threads.grain()
            first, members, block_offsets = _sums.tie_blocks(
                ranks.offsets, greater, ctx.n_threads, grain
            )
            # Where a row sits in its tied block changes no term under these policies: the
            # labels are put in one order inside each block (ascending), so that the sums
            # over a block, added in floating point, do not depend on the rows' input order.
            labels = _sorted_in_blocks(labels, first, members, ctx.n_threads)
        if ctx.average_ties:
            # Widen to whole tied blocks: the term of a tied row is spread over its block
            # (compiled, in threads over queries: ``widen_tied_blocks``).
            (
                self.labels,
                self.member,
                self.query,
                self.position,
                self.block_first,
                self.block_size,
                self.block_start,
                self.sizes,
            ) = _sums.widen_tied_blocks(
                first, members, block_offsets, greater, tied, labels, ctx.n_threads, grain
            )
            self.block_offsets = block_offsets
        else:
            self.labels = labels
            self.sizes = ranks.counts
            if ctx.threshold_ties:
                # Every row of a tied block sits at the block's last rank.
                self.position = greater + tied
            elif ranks.before is not None and _sums.any_nonzero(
                ranks.before, ctx.n_threads, _threads.grain()
            ):
                self.position = greater + ranks.before
            else:
                self.position = greater  # no ties among these rows
        # int32, as the ranking writes it (a query holds fewer than 2**31 rows).
        self.position = np.ascontiguousarray(self.position, dtype=np.int32)
        if self.sizes is ranks.counts:
            self.offsets = ranks.offsets  # the ranking's own (read only)
        else:
            self.offsets = np.zeros(ctx.n_queries + 1, dtype=np.intp)
            np.cumsum(self.sizes, out=self.offsets[1:])

    @cached_property
    def member(self):
        """Without tie averaging every support row is an active row (built on first use)."""
        return np.ones(self.position.size, dtype=bool)

    @cached_property
    def query(self):
        """Query code of each support row."""
        return np.repeat(np.arange(self.ctx.n_queries), self.sizes)

    @cached_property
    def rank_rows(self):
        """Where each row's term starts counting in the ranked lists: its query's first row
        plus its position (a cut-off k includes it when k > position)."""
        return self.ctx.starts[self.query] + self.position

    def prefix(self, term):
        """Running sums of ``term`` inside each query's support rows (compiled, in threads).

        Integer terms stay exact int64. Float terms are added in rank order from each query's
        first row, so a query's values never depend on which other queries are evaluated with
        it, nor on the number of threads.
        """
        return segment_cumsum(term, self.offsets, self.ctx.n_threads)

    def at(self, cumulative, pair_query, kk):
        """Prefix value of each pair at its cut-off: the sum over its top ``kk`` rows."""
        return _sums.lookup(
            cumulative,
            self.offsets,
            self.position,
            np.ascontiguousarray(pair_query, dtype=np.intp),
            np.ascontiguousarray(kk, dtype=np.int64),
            self.ctx.n_threads,
            _threads.grain(),
        )

    def block_mean(self, values):
        """Mean of ``values`` over each tied block, broadcast back to the support rows."""
        values = np.asarray(values, dtype=np.float64)
        if not self.ctx.average_ties or values.size == 0:
            return values
        return _sums.block_mean(
            np.ascontiguousarray(values),
            self.block_first,
            self.block_size,
            self.ctx.n_threads,
            _threads.grain(),
        )

    @cached_property
    def _block_hits(self):
        """The relevant rows of each tied block (compiled, once for every term that reads
        them)."""
        return _sums.block_hits(
            np.ascontiguousarray(self.relevant).view(np.uint8),
            self.block_first,
            self.block_size,
            self.ctx.n_threads,
            _threads.grain(),
        )

    def _over_blocks(self, kernel, *args):
        """``kernel`` (of ``_sums``) of the blocks' relevant rows, the tied blocks (their
        offsets per query, first rows and sizes) and ``args``, in threads."""
        blocks = (self.block_offsets, self.block_first, self.block_size)
        return kernel(self._block_hits, *blocks, *args, self.ctx.n_threads, _threads.grain())

    def tied_precision(self):
        """Average precision's term at each support row under tie averaging (compiled)."""
        return self._over_blocks(_sums.tied_precision, self.block_start, self.position)

    def first_relevant_block_rows(self):
        """Under tie averaging, the rows of each query's first block holding a relevant row:
        ``(rows, n, r, j)``, per row its index, its block's size and relevant rows, and its
        1-based place in the block."""
        block, r = _sums.first_relevant_blocks(
            self._block_hits, self.block_offsets, self.ctx.n_threads, _threads.grain()
        )
        found = block >= 0
        block, r = block[found], r[found]
        size = self.block_size[block].astype(np.intp)
        starts = np.repeat(self.block_first[block] - np.cumsum(size) + size, size)
        rows = starts + np.arange(size.sum())
        n_b = np.repeat(self.block_size[block], size)
        return rows, n_b, np.repeat(r, size), rows - np.repeat(self.block_first[block], size) + 1

    @cached_property
    def relevant(self):
        return self.ctx.is_relevant(self.labels)

    @cached_property
    def block_relevant(self):
        """Per support row: relevant rows in its block (r_b), relevant rows before the block
        in its query (H_b), block size (n_b) and block start position (s_b)."""
        if not self.ctx.average_ties:
            rel = self.relevant.astype(np.int64)
            return rel, self.prefix(rel) - rel, np.ones_like(rel), self.position
        return self._over_blocks(_sums.block_relevant, self.block_start)
