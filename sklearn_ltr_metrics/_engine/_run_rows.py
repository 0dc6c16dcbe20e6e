"""Rows of several TREC-style runs grouped by query, each query's documents coded apart.

The Python face of ``_run_rows.pxi`` and ``_fused_order.pxi`` (``_ranking``), the steps of
rank fusion (``sklearn_ltr_metrics.runs``). Ids are read as bytes where they lie, never as
Python objects: Arrow string arrays (the storage of pandas' ``str`` columns: their offsets and
data buffers, chunk by chunk) or integer codes (ids of any other kind, coded by the caller).

    ids of every run (pieces)
      |  code the query ids  id_blocks: one pass; a row equal to the one before is not hashed
      v
    query codes, blocks of equal query ids
      |  lay the queries out query_layout: blocks sorted by query (few), or the rows, ids
      |                      and scores moved into query order (gather_rows: runs in no
      |                      query order; a stable counting sort that reads them in order)
      v
      |  per query           query_rows: a small hash table of its document ids (cache
      |                      resident), each run's rows ranked; queries in threads
      v
    QueryRows: per row its run, pair, rank and score; per pair its first row
      |  the fused run       segment_order (a bucket pass per query), gather_ids (the ids'
      v                      bytes copied into new Arrow buffers)
    the fused frame's columns

Per query, everything is written at offsets fixed before the threads start: the outputs are
the same, bit for bit, for any number of threads.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _ranking, _threads

__all__ = [
    "IdPieces",
    "QueryLayout",
    "QueryRows",
    "arrow_pieces",
    "code_pieces",
    "gather_ids",
    "id_blocks",
    "move_records",
    "object_pieces",
    "query_layout",
    "query_rows",
    "repeat_ids",
    "segment_order",
    "take_objects",
]

#: Arrow types whose buffers are read directly (offsets int32 / int64, then the bytes).
_ARROW_OFFSETS = {"string": np.int32, "large_string": np.int64}

#: Rows read (from the first) to judge whether the output's ids lie far apart, and the median
#: gap between neighbours beyond which they do (:func:`gather_ids`).
_SCATTER_SAMPLE, _SCATTER_GAP = 4096, 16

#: Blocks of equal query ids beyond this share of the rows: the rows are sorted by query
#: instead of their blocks.
_MAX_BLOCK_SHARE = 1 / 8


class IdPieces(NamedTuple):
    """Ids of stacked rows, piece by piece: ``offsets[j]`` (Arrow offsets, sliced to the
    piece's rows plus one), None (8-byte records) or an int (Python strings of that kind),
    ``data[j]`` the bytes (uint8; an object array of strings), and
    ``bounds`` the first stacked row of every piece, then the total."""

    offsets: list
    data: list
    bounds: np.ndarray


def arrow_pieces(chunks):
    """The pieces of Arrow string arrays (in stacked order); None when one of them is of
    another type (``string_view``...) or holds a missing value."""
    offsets, data, sizes = [], [], []
    for chunk in chunks:
        dtype = _ARROW_OFFSETS.get(str(chunk.type))
        if dtype is None or chunk.null_count:
            return None
        _, offset_buffer, data_buffer = chunk.buffers()
        start = chunk.offset
        offsets.append(np.frombuffer(offset_buffer, dtype=dtype)[start : start + len(chunk) + 1])
        data.append(
            np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer else np.zeros(1, np.uint8)
        )
        sizes.append(len(chunk))
    return IdPieces(offsets, data, _bounds(sizes))


def object_pieces(arrays):
    """The pieces of object arrays of Python strings, read in place; None unless the first id
    is exactly a ``str``. Every id must then be a ``str`` of the first one's kind (1, 2 or 4
    bytes a character: equal ids hold equal bytes), which the steps that read them check on
    the way (:func:`id_blocks` and :func:`query_rows` give None at another id)."""
    arrays = [np.ascontiguousarray(a, dtype=object) for a in arrays]
    kind = next((_ranking.str_kind(a[:1]) for a in arrays if a.size), -1)
    if kind <= 0:
        return None
    return IdPieces([kind] * len(arrays), arrays, _bounds([a.size for a in arrays]))


def take_objects(pieces, rows, order=None, counts=None):
    """The objects of stacked rows ``rows[order]`` of :func:`object_pieces` (each ``counts[i]``
    times where given), as an object array: the input's objects, one reference each, counted
    in the order of ``rows`` (fastest where they mostly ascend)."""
    rows = np.ascontiguousarray(rows, dtype=np.intp)
    if order is not None:
        order = np.ascontiguousarray(order, dtype=np.intp)
    if counts is not None:
        counts = np.ascontiguousarray(counts, dtype=np.intp)
    return _ranking.take_objects(pieces.data, pieces.bounds, rows, order, counts)


def code_pieces(codes):
    """The pieces of integer codes (one int64 array per piece): 8-byte records."""
    codes = [np.ascontiguousarray(c, dtype=np.int64) for c in codes]
    data = [c.view(np.uint8) if c.size else np.zeros(1, np.uint8) for c in codes]
    return IdPieces([None] * len(codes), data, _bounds([c.size for c in codes]))


def _bounds(sizes):
    bounds = np.zeros(len(sizes) + 1, dtype=np.intp)
    np.cumsum(sizes, out=bounds[1:])
    return bounds


def id_blocks(pieces, breaks, give_up=False):
    """``(codes, first, starts)``: the code of every row's id (order of first appearance),
    the first row of every code, the first row of every block of equal ids (a block also
    starts at each of ``breaks``, ascending rows); None when an object id is not a ``str``
    of the first one's kind (:func:`object_pieces`). ``give_up``: ``starts`` is None where
    the blocks are too many to be of use (rows in no query order: see :func:`query_layout`),
    found as soon as they outnumber an eighth of the rows and twice the ids seen."""
    breaks = np.ascontiguousarray(breaks, dtype=np.intp)
    return _ranking.id_blocks(pieces.offsets, pieces.data, pieces.bounds, breaks, give_up)


class QueryLayout(NamedTuple):
    """Where each query's rows are: positions ``seg_start[j]:seg_stop[j]`` for ``j`` in
    ``seg_offsets[q]:seg_offsets[q + 1]``, the stacked rows themselves, or (``codes``, the
    query of each stacked row, not None) the places of the rows once :func:`query_rows` has
    moved them into query order; ``row_offsets``: where they go in the outputs, query after
    query."""

    seg_start: np.ndarray
    seg_stop: np.ndarray
    seg_offsets: np.ndarray
    codes: np.ndarray | None
    row_offsets: np.ndarray


def query_layout(codes, starts, n_queries):
    """The :class:`QueryLayout` of rows with query ``codes`` and blocks ``starts`` (as
    :func:`id_blocks` gives them; None: too many): rows of a query in stacked order."""
    n = codes.size
    if starts is not None and starts.size <= max(n * _MAX_BLOCK_SHARE, n_queries):
        block_query = codes[starts]
        lengths = np.diff(np.append(starts, n))
        order = np.argsort(block_query, kind="stable")
        seg_offsets = np.zeros(n_queries + 1, dtype=np.intp)
        np.cumsum(np.bincount(block_query, minlength=n_queries), out=seg_offsets[1:])
        sizes = np.bincount(block_query, weights=lengths, minlength=n_queries)
        seg_start = starts[order]
        seg_stop, gathered = seg_start + lengths[order], None
    else:
        sizes = np.bincount(codes, minlength=n_queries)
        gathered = np.ascontiguousarray(codes, dtype=np.intp)
    row_offsets = np.zeros(n_queries + 1, dtype=np.intp)
    np.cumsum(sizes.astype(np.intp), out=row_offsets[1:])
    if gathered is not None:
        seg_start, seg_stop = row_offsets[:-1].copy(), row_offsets[1:].copy()
        seg_offsets = np.arange(n_queries + 1, dtype=np.intp)
    return QueryLayout(seg_start, seg_stop, seg_offsets, gathered, row_offsets)


class QueryRows(NamedTuple):
    """The rows of every query (query after query, runs in order, rows in stacked order):
    run, pair code, 0-based rank in its run's ranking (None where not asked for) and score
    of each; the stacked row where
    each pair first appears; the distinct documents of each query; per query the stacked row
    of a document a run retrieved twice (-1: none); the rows of each (query, run) group,
    ``(n_queries, n_runs)``; the bytes of each pair's document id; the row of ``ids`` that
    holds each pair's document id and those ids (:class:`IdPieces`: the input's, where
    ``pair_at`` is ``pair_row``, or a copy in query order, rows in no query order)."""

    run: np.ndarray
    pair: np.ndarray
    position: np.ndarray
    score: np.ndarray
    pair_row: np.ndarray
    n_candidates: np.ndarray
    duplicate: np.ndarray
    group_rows: np.ndarray
    pair_size: np.ndarray
    pair_at: np.ndarray
    ids: IdPieces


def move_records(records, scores, layout, n_threads=1):
    """Rows in no query order (``layout.codes``) moved into query order with an int64 record
    each (``records``: one array per piece, stacked order) and their ``scores``, by the pass
    of :func:`query_rows`: ``(rows, scores, records)`` at each position, for a caller that
    turns the records into the ids :func:`query_rows` then reads as moved (``moved``)."""
    pieces = code_pieces(records)
    rows, scores, _, data = _ranking.gather_rows(
        pieces.offsets,
        pieces.data,
        pieces.bounds,
        layout.codes,
        np.ascontiguousarray(scores, dtype=np.float64),
        layout.row_offsets,
        n_threads,
        _threads.grain(),
    )
    return rows, scores, data[: 8 * rows.size].view(np.int64)


def query_rows(pieces, run_bounds, scores, layout, n_threads=1, rank=True, moved=None):
    """The :class:`QueryRows` of the rows laid out by ``layout`` (a :class:`QueryLayout`),
    their document ids in ``pieces``, runs from ``run_bounds`` (the first stacked row of each
    run, then the total), ``scores`` (float64, one per stacked row); None when an object id is
    not a ``str`` of the first one's kind (:func:`object_pieces`). ``rank`` False: no run is
    ranked (``position`` None), for callers that read no rank. Rows in no query order
    (``layout.codes``) are first moved into query order with their ids and scores (one pass
    that reads them in order): every later step reads them in order too. ``moved``: that
    move already made by the caller, ``(rows, scores, pieces)`` at each position (the rows
    and scores of :func:`move_records`, the ids in query order); ``pieces`` is then unread."""
    scores, rows = np.ascontiguousarray(scores, dtype=np.float64), None
    if moved is not None:
        rows, scores, pieces = moved
    elif layout.codes is not None:
        rows, scores, offsets, data = _ranking.gather_rows(
            pieces.offsets,
            pieces.data,
            pieces.bounds,
            layout.codes,
            scores,
            layout.row_offsets,
            n_threads,
            _threads.grain(),
        )
        kind = offsets if offsets is not None else pieces.offsets[0]  # objects: their kind
        pieces = IdPieces([kind], [data], np.array([0, rows.size], dtype=np.intp))
    out = _ranking.query_rows(
        pieces.offsets,
        pieces.data,
        pieces.bounds,
        np.ascontiguousarray(run_bounds, dtype=np.intp),
        scores,
        *layout[:3],
        rows,
        layout.row_offsets,
        n_threads,
        _threads.grain(),
        rank,
    )
    if out is None:
        return None
    out = (*out[:3], scores if out[3] is None else out[3], *out[4:])  # moved: theirs
    return QueryRows(*out[:-1], out[4] if out[-1] is None else out[-1], pieces)


def segment_order(values, offsets, n_threads=1):
    """``(order, sorted_values)``: positions sorted by segment (``offsets``), then ``values``
    descending, ties in position order (a bucket pass per segment, segments in threads), and
    the values in that order."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    offsets = np.ascontiguousarray(offsets, dtype=np.intp)
    return _ranking.score_order(values, offsets, n_threads, _threads.grain())


def repeat_ids(pieces, rows, counts):
    """The id of stacked row ``rows[q]`` repeated ``counts[q]`` times, ``q`` in order, as
    the buffers of an Arrow ``large_string`` array: ``(offsets, data)``."""
    rows = np.ascontiguousarray(rows, dtype=np.intp)
    counts = np.ascontiguousarray(counts, dtype=np.intp)
    return _ranking.repeat_ids(pieces.offsets, pieces.data, pieces.bounds, rows, counts)


def gather_ids(pieces, rows, sizes, order=None, n_threads=1):
    """The ids of stacked rows ``rows[order]`` (their ``sizes`` in bytes, one per row of
    ``rows``) as the buffers of an Arrow ``large_string`` array: ``(offsets, data)`` (int64,
    uint8), bytes copied in threads, no Python object made. Read in the order of ``rows``:
    fastest when ``rows`` mostly ascend and ``order`` (a permutation, None: the identity)
    moves entries only a little."""
    rows = np.ascontiguousarray(rows, dtype=np.intp)
    sizes = np.ascontiguousarray(sizes, dtype=np.int64)
    order = np.arange(rows.size) if order is None else np.ascontiguousarray(order, np.intp)
    # Rows far apart (runs in random row order: a query's rows lie anywhere, even where they
    # ascend), judged on the first few thousand: their ids are asked for ahead.
    head = rows[: _SCATTER_SAMPLE + 1]
    scattered = head.size > 1 and np.median(np.abs(np.diff(head))) > _SCATTER_GAP
    return _ranking.gather_ids(
        pieces.offsets,
        pieces.data,
        pieces.bounds,
        rows,
        sizes,
        order,
        n_threads,
        _threads.grain(),
        scattered,
    )
