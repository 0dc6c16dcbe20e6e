"""Several TREC-style runs as one set of flat arrays: the shared first step of every operation.

A run is a frame with columns ``qid``, ``doc_id`` and ``score`` (as :func:`read_trec_run`
returns it). The runs are checked once and their rows laid out query after query (runs in
order within a query, rows in their run's order), by the engine's run-rows step
(:func:`~sklearn_ltr_metrics._engine.query_rows`): the query ids are coded in one pass (a run
lists a query's rows together, so only the first row of each block is hashed), then each
query's document ids are coded in a hash table of that query's documents alone, small enough
to stay in cache, and each run's rows ranked (0-based position by score descending, ties in row
order; read as they are when a run is already in rank order, as TREC files are). Every
``(qid, doc_id)`` pair any run retrieves gets one integer; the pairs of a query follow each
other, in order of first appearance.

Ids stored by Arrow (pandas' ``str`` columns) are read from their buffers, never turned into
Python objects; ids held as Python strings (object columns) are read in place, each ``str``'s
characters (all of one kind; strings of several kinds are copied into Arrow strings once) and
given back as the same objects; integer ids are read as 8-byte records, categorical ids as
their codes (or taken from each run's categories where these differ); ids of other kinds are
first coded by :func:`pandas.factorize`. Everything after (normalisations, fusion, pools)
works on the integer arrays: segment sums with :func:`numpy.bincount`, per-group extremes
with ``ufunc.at``, no Python loop over queries.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from .._engine import (
    arrow_pieces,
    code_pieces,
    gather_ids,
    id_blocks,
    object_id_runs,
    object_pieces,
    query_layout,
    query_rows,
    repeat_ids,
    take_objects,
)
from .._validation import check_columns, check_scores
from ._categories import category_form, decoded, moved_category_ids

__all__ = ["RUN_COLUMNS", "RowIds", "StackedRuns", "check_run", "check_runs", "stack_runs"]

#: The columns of a run frame, in order.
RUN_COLUMNS = ("qid", "doc_id", "score")
#: ``form`` of :func:`_row_ids` not given: found from the columns.
_FIND = object()


def check_run(run, name="run"):
    """Return the ``qid, doc_id, score`` columns of ``run``, scores as float64.

    The scores must be finite numbers; missing ids and repeated ``(qid, doc_id)`` pairs are
    refused by :func:`stack_runs`, which finds them on the coded ids at no extra cost.
    """
    frame = check_columns(run, name, RUN_COLUMNS)
    score = check_scores(frame["score"], None, f"{name}['score']")
    return frame.assign(score=np.asarray(score, dtype=np.float64))


def check_runs(runs, name="runs", *, minimum=1):
    """Return ``(names, frames)`` of ``runs``: a list of run frames or a name -> run mapping.

    Runs given as a list are named ``run0, run1, ...``. Query and document ids of runs whose
    ids are of different kinds (numbers in one, text in another) are compared as text.
    """
    if isinstance(runs, pd.DataFrame) or not isinstance(runs, (list, tuple, Mapping)):
        raise TypeError(
            f"{name} must be a list of run frames (columns qid, doc_id, score) or a dict "
            f"name -> run frame, got {type(runs).__name__}."
        )
    if isinstance(runs, Mapping):
        names, values = [str(key) for key in runs], list(runs.values())
        if len(set(names)) != len(names):
            raise ValueError(f"{name} has run names equal as text: {names!r}.")
    else:
        names, values = [f"run{i}" for i in range(len(runs))], list(runs)
    if len(values) < minimum:
        raise ValueError(f"{name} needs at least {minimum} run(s), got {len(values)}.")
    keys = list(runs) if isinstance(runs, Mapping) else range(len(values))
    frames = [check_run(run, f"{name}[{key!r}]") for key, run in zip(keys, values, strict=True)]
    for column in ("qid", "doc_id"):
        if len({frame[column].dtype.kind for frame in frames}) > 1:
            frames = [frame.astype({column: str}) for frame in frames]
    return names, frames


@dataclass(frozen=True)
class RowIds:
    """The ids of one column of the stacked runs: the column of every run, the pieces the
    engine reads them from (for the document ids, their copy in query order where the engine
    made one: runs in no query order), and how the output's ids are made (``output``):
    ``"arrow"``, new Arrow strings from the input buffers' bytes (the column's ``dtype`` in
    every run, or its categories'); ``"objects"``, the input's Python strings themselves (the
    pieces are their object arrays, or their pointers); ``"records"``, integers of the
    categories' dtype from the pieces' 8-byte records (categorical runs in no query order,
    decoded in query order: ``runs._categories``); ``"index"``, taken from :attr:`values`
    (the pieces: Arrow strings copied from the objects, or integer codes of the ids)."""

    columns: list
    pieces: object
    output: str = "index"

    @property
    def arrow(self):
        """Whether the output's ids are new Arrow strings (the input stores them so)."""
        return self.output == "arrow"

    @cached_property
    def values(self):
        """All the ids, run after run, as one pandas Index of the input's dtype."""
        return pd.Index(pd.concat(self.columns, ignore_index=True))

    def at(self, rows):
        """The ids of stacked ``rows``, as ``values.take(rows)``."""
        return self.values.take(rows)

    def take(self, rows, sizes, order, n_threads=1):
        """The ids of stacked rows ``rows[order]`` (``sizes``: the bytes of each row's id), of
        the input's dtype: Arrow strings built from the bytes of the input buffers (no Python
        object made), the input's objects (a reference each), else an Index."""
        if self.output == "arrow":
            return self._arrow(*gather_ids(self.pieces, rows, sizes, order, n_threads))
        if self.output == "objects":
            return pd.Index(take_objects(self.pieces, rows, order), dtype=object, copy=False)
        if self.output == "records":  # integer categories in query order: 8-byte records
            dtype = self.columns[0].dtype.categories.dtype
            records = self.pieces.data[0].view(np.int64)[rows[order]]
            wide = records.view(np.uint64 if dtype.kind == "u" else np.int64)
            return pd.Index(wide.astype(dtype, copy=False), copy=False)
        return self.at(rows[order])

    def repeat(self, rows, counts):
        """The id of stacked row ``rows[i]`` repeated ``counts[i]`` times, as :meth:`take`."""
        if self.output == "arrow":
            return self._arrow(*repeat_ids(self.pieces, rows, counts))
        if self.output == "objects":
            objects = take_objects(self.pieces, rows, counts=counts)
            return pd.Index(objects, dtype=object, copy=False)
        return self.at(np.repeat(rows, counts))

    def _arrow(self, offsets, data):
        """The pandas array of the Arrow ``large_string`` buffers ``offsets``, ``data``."""
        import pyarrow as pa  # installed: the ids were stored by it

        buffers = [None, pa.py_buffer(offsets), pa.py_buffer(data)]
        array = pa.Array.from_buffers(pa.large_string(), offsets.size - 1, buffers)
        dtype = self.columns[0].dtype
        if isinstance(dtype, pd.CategoricalDtype):  # each run its own: as pandas concatenates
            dtype = dtype.categories.dtype
        return pd.arrays.ArrowStringArray(array, dtype=dtype)


@dataclass(frozen=True)
class StackedRuns:
    """Runs stacked into flat arrays, rows query after query, with coded pairs.

    Attributes
    ----------
    names : list of str
        The run names, in order.
    query_ids, document_ids : RowIds
        The query and document id of every row of the runs, run after run.
    query_row : ndarray of intp
        For each query code, the row of the runs where it first appears (queries in order of
        first appearance).
    row_offsets : ndarray of intp
        Where each query's rows start (``n_queries + 1``): rows are query after query.
    row_run, row_pair, position : ndarray of intp
        For each row: its run, its ``(qid, doc_id)`` pair code and its 0-based rank in its
        run's ranking of the query (score descending, ties in row order; ``position`` None
        when stacked with ``rank=False``).
    score : ndarray of float64
        The score of each row.
    pair_row : ndarray of intp
        For each pair, the row of the runs where it first appears;
        the pairs of a query follow each other (``pair_offsets``).
    pair_at : ndarray of intp
        For each pair, the row of ``document_ids.pieces`` holding its id: ``pair_row``, or
        its place in their copy in query order (runs in no query order, ids read by the
        engine: the output's ids are then read in order too).
    n_candidates : ndarray of intp
        Distinct documents any run retrieved, per query.
    pair_size : ndarray of int64
        For each pair, the bytes of its document id (as the engine read them).
    query_run_rows : ndarray of intp, shape (n_queries, n_runs)
        Rows of each (query, run) group: how many documents a run retrieved for a query. The
        rows of a group follow each other (a segment), groups query after query, runs in order.
    """

    names: list
    query_ids: RowIds
    query_row: np.ndarray
    document_ids: RowIds
    row_offsets: np.ndarray
    row_run: np.ndarray
    row_pair: np.ndarray
    position: np.ndarray
    score: np.ndarray
    pair_row: np.ndarray
    n_candidates: np.ndarray
    pair_size: np.ndarray
    query_run_rows: np.ndarray
    pair_at: np.ndarray

    @cached_property
    def queries(self):
        """The distinct query ids, by code."""
        return self.query_ids.at(self.query_row)

    @property
    def n_queries(self):
        return self.query_row.size

    @property
    def n_runs(self):
        return len(self.names)

    @property
    def n_pairs(self):
        return self.pair_row.size

    @property
    def n_groups(self):
        """Number of (run, query) groups: group ``g = run * n_queries + query``."""
        return self.n_runs * self.n_queries

    @cached_property
    def row_query(self):
        """The query code of each row."""
        return np.repeat(np.arange(self.n_queries), np.diff(self.row_offsets))

    @cached_property
    def pair_offsets(self):
        """Where each query's pairs start (``n_queries + 1``)."""
        return np.concatenate(([0], np.cumsum(self.n_candidates))).astype(np.intp)

    @cached_property
    def pair_query(self):
        """The query code of each pair."""
        return np.repeat(np.arange(self.n_queries), self.n_candidates)

    @cached_property
    def row_group(self):
        """The (run, query) group of each row."""
        return self.row_run * self.n_queries + self.row_query

    @cached_property
    def group_size(self):
        """Rows of each (run, query) group: how many documents a run retrieved for a query."""
        return self.query_run_rows.T.ravel()

    @cached_property
    def _segments(self):
        sizes = self.query_run_rows.ravel()
        kept = np.flatnonzero(sizes)
        query, run = np.divmod(kept, self.n_runs)
        starts = np.cumsum(sizes[kept]) - sizes[kept]
        return starts, run * self.n_queries + query, sizes[kept]

    @property
    def segment_start(self):
        """The first row of each non-empty group's segment (in row order)."""
        return self._segments[0]

    @property
    def segment_group(self):
        """The (run, query) group of each segment."""
        return self._segments[1]

    def per_row(self, group_values):
        """``group_values`` (one per group) repeated on each row of its group."""
        return np.repeat(group_values[self.segment_group], self._segments[2])

    def group_reduce(self, ufunc, values, initial):
        """``ufunc`` reduced over each group's rows of ``values`` (``initial`` for an empty
        group): one ``reduceat`` over the segments."""
        out = np.full(self.n_groups, initial, dtype=np.float64)
        if self.segment_start.size:
            out[self.segment_group] = ufunc.reduceat(values, self.segment_start)
        return out

    def matrix(self, values, fill):
        """``(n_pairs, n_runs)`` matrix of per-row ``values``; ``fill`` where a run lacks a pair."""
        out = np.full((self.n_pairs, self.n_runs), fill, dtype=np.float64)
        out[self.row_pair, self.row_run] = values
        return out

    @cached_property
    def present(self):
        """``(n_pairs, n_runs)`` mask: which run retrieved which pair."""
        out = np.zeros((self.n_pairs, self.n_runs), dtype=bool)
        out[self.row_pair, self.row_run] = True
        return out

    def pair_ids(self, order, n_threads=1):
        """``(qid, doc_id)`` of the pairs in ``order`` (a permutation of the pair codes that
        keeps each query's pairs together), as pandas arrays of the input's kind."""
        # A query's pairs stay together: its id repeated.
        return (
            self.query_ids.repeat(self.query_row, self.n_candidates),
            self.document_ids.take(self.pair_at, self.pair_size, order, n_threads),
        )


def _raise_missing(frames, column, names, row):
    sizes = np.cumsum([len(frame) for frame in frames])
    run = int(np.searchsorted(sizes, row, side="right"))
    raise ValueError(
        f"runs[{names[run]!r}][{column!r}] has a missing value (row "
        f"{row - (sizes[run - 1] if run else 0)}); every row needs a {column}."
    )


def _arrow_chunks(frames, column):
    """The Arrow arrays (chunks) of ``column`` in every frame, run after run; None unless
    every frame stores it in Arrow strings (pandas' ``str`` dtype with pyarrow)."""
    chunks, dtype = [], frames[0][column].dtype
    if not (isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow"):
        return None
    import pyarrow as pa  # installed: pandas stores these strings with it

    for frame in frames:
        if frame[column].dtype != dtype:
            return None
        array = pa.array(frame[column].array)
        chunks.extend(array.chunks if isinstance(array, pa.ChunkedArray) else [array])
    return chunks


def _object_string_chunks(frames, column):
    """Arrow arrays of ``column`` where every run holds it as Python strings (object dtype,
    every id a ``str``: pyarrow infers ``string`` for nothing else), their bytes copied once by
    pyarrow so that the engine codes them by their bytes, as Arrow columns, and no Python
    object is hashed; None otherwise (other kinds, a missing id, no pyarrow)."""
    if any(frame[column].dtype != object for frame in frames):
        return None
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - pandas' own string storage brings it
        return None
    chunks = []
    for frame in frames:
        try:
            array = pa.array(frame[column].to_numpy(), from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # mixed kinds: coded by value
            return None
        pieces = array.chunks if isinstance(array, pa.ChunkedArray) else [array]
        if array.type not in (pa.string(), pa.large_string()) or array.null_count:
            return None
        chunks.extend(pieces)
    return chunks


def _row_ids(frames, column, names, codes=None, *, objects=True, form=_FIND):
    """The :class:`RowIds` of ``column``: Arrow buffers where every run stores it in Arrow
    strings, the Python strings themselves where every run holds them in an object column
    (``objects``; the first id a ``str``: the steps that read them check that all are, of one
    kind), else the integer codes ``codes(values)`` (by default :func:`pandas.factorize`'s);
    a missing id is refused naming its run and row. Strings of two kinds (Latin-1 ids beside
    others) are copied into Arrow strings (``codes`` None, or rows in random order) and given
    back as the input's objects. ``form``: the columns' :func:`category_form` where the caller
    has it."""
    ids = RowIds([frame[column] for frame in frames], None)
    records = _integer_records(ids.columns)
    if records is not None:  # integers: coded by their 8 bytes, exactly, no hashing first
        return RowIds(ids.columns, code_pieces(records))
    form = category_form(ids.columns) if form is _FIND else form
    if form == "codes":  # one set of categories: the ids are their codes
        return RowIds(ids.columns, code_pieces([c.cat.codes.to_numpy() for c in ids.columns]))
    if form == "decode":  # each run's ids taken from its categories (as pandas concatenates)
        frames = [f.assign(**{column: decoded(f[column])}) for f in frames]
        return _row_ids(frames, column, names, codes, objects=objects)
    chunks = _arrow_chunks(frames, column)
    if objects and chunks is None and all(c.dtype == object for c in ids.columns):
        pieces = object_pieces([c.to_numpy() for c in ids.columns])
        if pieces is not None:
            return RowIds(ids.columns, pieces, "objects")
    output = "index" if chunks is None else "arrow"
    if chunks is None and (codes is None or _object_runs(ids.values) is None):
        # Document ids, or query ids in no blocks (rows in random order): by their bytes.
        chunks = _object_string_chunks(frames, column)
    pieces = None if chunks is None else arrow_pieces(chunks)
    if pieces is not None:
        return RowIds(ids.columns, pieces, output)
    found = (codes or pd.factorize)(ids.values)[0]
    if (found < 0).any():
        _raise_missing(frames, column, names, int(np.flatnonzero(found < 0)[0]))
    return RowIds(ids.columns, code_pieces([found]))


def _integer_records(columns):
    """The ids of ``columns`` as int64 arrays (one per run) when every column holds integers
    (numpy's, or pandas' nullable and Arrow integers without a missing value), else None.
    Unsigned ids are viewed as int64 (their 8 bytes unchanged): equal ids, equal records.
    ``check_runs`` has made the columns all signed or all unsigned (else text), so casting
    the narrower ones to 64 bits keeps distinct ids distinct."""
    dtypes = [column.dtype for column in columns]
    if not all(dtype.kind in "iu" for dtype in dtypes):
        return None
    if any(
        not isinstance(dtype, np.dtype) and column.hasnans
        for dtype, column in zip(dtypes, columns, strict=True)
    ):
        return None  # a missing id: refused by the general path, naming its row
    records = []
    for dtype, column in zip(dtypes, columns, strict=True):
        wide = np.uint64 if dtype.kind == "u" else np.int64
        records.append(column.to_numpy(wide).view(np.int64))
    return records


def _object_runs(values):
    """Starts of the runs of one object (or of equal strings) of object ids, found by the
    engine's compiled scan of their addresses; None for other dtypes, or beyond a run per four
    rows (ids in no blocks). A run lists its query's rows with one id object, as a parser or
    ``np.repeat`` builds them."""
    if values.dtype != object:
        return None
    return object_id_runs(np.ascontiguousarray(values.to_numpy()), len(values) // 4)


def _head_codes(values):
    """Codes of query ids: a run usually lists a query's rows together, so only the first row
    of each block is hashed (blocks found by comparing neighbours, or for object ids by their
    addresses: runs of equal ids held by distinct objects get one code each the same); ids in
    no such order are hashed all. Codes in order of first appearance, -1 for a missing id."""
    ids = pd.Series(values, copy=False)
    start = _object_runs(values)
    if start is None:
        start = np.flatnonzero((ids != ids.shift()).to_numpy())
    if start.size > len(ids) // 4:
        return pd.factorize(values)
    head_codes, uniques = pd.factorize(ids.iloc[start])
    return np.repeat(head_codes, np.diff(np.append(start, len(ids)))), uniques


def _query_codes(frames, names, run_bounds):
    """``(ids, codes, first, starts)``: the :class:`RowIds` of the query ids, the code of
    every row (in order of first appearance), the first row of every code and where each
    block of equal query ids starts (a run starts one)."""
    ids = _row_ids(frames, "qid", names, codes=_head_codes)
    blocks = id_blocks(ids.pieces, run_bounds[:-1], give_up=True)
    if blocks is None:  # an object id that is not a str of the first one's kind
        ids = _row_ids(frames, "qid", names, codes=_head_codes, objects=False)
        blocks = id_blocks(ids.pieces, run_bounds[:-1], give_up=True)
    return ids, *blocks


def _document_rows(frames, names, run_bounds, scores, layout, n_threads, rank):
    """``(ids, rows, pair_at)``: the :class:`RowIds` of the document ids, the rows of every
    query (:func:`query_rows`), each query's documents coded, and the row of ``ids.pieces``
    holding each pair's id (their copy in query order where the engine made one and the
    output's ids are read from the pieces)."""
    columns = [frame["doc_id"] for frame in frames]
    form = category_form(columns)
    moved = moved_category_ids(columns, scores, layout, n_threads) if form == "decode" else None
    if moved is not None:  # each run's categories, decoded in query order
        rows = query_rows(None, run_bounds, scores, layout, n_threads, rank, moved=moved[0])
        if rows is not None:
            return RowIds(columns, rows.ids, moved[1]), rows, rows.pair_at
    ids = _row_ids(frames, "doc_id", names, form=form)
    rows = query_rows(ids.pieces, run_bounds, scores, layout, n_threads, rank)
    if rows is None:  # an object id that is not a str of the first one's kind
        ids = _row_ids(frames, "doc_id", names, objects=False, form=form)
        rows = query_rows(ids.pieces, run_bounds, scores, layout, n_threads, rank)
    if rows.ids is ids.pieces or ids.output == "index":
        return ids, rows, rows.pair_row
    return RowIds(ids.columns, rows.ids, ids.output), rows, rows.pair_at


def _refuse_duplicates(stack, duplicate, run_bounds):
    """Raise when a run retrieves a (qid, doc_id) pair twice (``duplicate``: per query, the
    row of the runs where that happens, or -1)."""
    found = np.flatnonzero(duplicate >= 0)
    if found.size == 0:
        return
    query, row = found[0], duplicate[found[0]]
    run = int(np.searchsorted(run_bounds, row, side="right")) - 1
    document = stack.document_ids.at([row])[0]
    raise ValueError(
        f"runs[{stack.names[run]!r}] retrieves document {document!r} twice for query "
        f"{stack.queries[query]!r}; each (qid, doc_id) may appear once in a run. Drop "
        "duplicates first (read_trec_run's duplicates='first' or 'last')."
    )


def stack_runs(runs, name="runs", *, minimum=1, n_threads=1, rank=True):
    """Check ``runs`` and stack them into a :class:`StackedRuns` (in ``n_threads`` threads);
    ``rank`` False: no run is ranked (``position`` None), for callers that read no rank
    (each run's rows in no rank order are not sorted)."""
    names, frames = check_runs(runs, name, minimum=minimum)
    run_bounds = np.zeros(len(frames) + 1, dtype=np.intp)
    np.cumsum([len(frame) for frame in frames], out=run_bounds[1:])
    query_ids, query_codes, query_row, starts = _query_codes(frames, names, run_bounds)
    scores = np.concatenate([frame["score"].to_numpy(np.float64) for frame in frames])
    layout = query_layout(query_codes, starts, query_row.size)
    document_ids, rows, pair_at = _document_rows(
        frames, names, run_bounds, scores, layout, n_threads, rank
    )
    stack = StackedRuns(
        names=names,
        query_ids=query_ids,
        query_row=query_row,
        document_ids=document_ids,
        row_offsets=layout.row_offsets,
        row_run=rows.run,
        row_pair=rows.pair,
        position=rows.position,
        score=rows.score,
        pair_row=rows.pair_row,
        n_candidates=rows.n_candidates,
        pair_size=rows.pair_size,
        query_run_rows=rows.group_rows,
        pair_at=pair_at,
    )
    _refuse_duplicates(stack, rows.duplicate, run_bounds)
    return stack
