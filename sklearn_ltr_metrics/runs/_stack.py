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
Python objects; ids of other kinds are first coded by :func:`pandas.factorize`. Everything
after (normalisations, fusion, pools) works on the integer arrays: segment sums with
:func:`numpy.bincount`, per-group extremes with ``ufunc.at``, no Python loop over queries.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from .._engine import arrow_pieces, code_pieces, id_blocks, query_layout, query_rows
from .._validation import check_columns, check_scores

__all__ = ["RUN_COLUMNS", "StackedRuns", "check_run", "check_runs", "stack_runs"]

#: The columns of a run frame, in order.
RUN_COLUMNS = ("qid", "doc_id", "score")


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
class StackedRuns:
    """Runs stacked into flat arrays, rows query after query, with coded pairs.

    Attributes
    ----------
    names : list of str
        The run names, in order.
    queries : pandas array
        The distinct query ids, in order of first appearance (their codes).
    documents : pandas array
        The document id of every row of the runs, run after run (read through ``pair_row``).
    row_offsets : ndarray of intp
        Where each query's rows start (``n_queries + 1``): rows are query after query.
    row_run, row_pair, position : ndarray of intp
        For each row: its run, its ``(qid, doc_id)`` pair code and its 0-based rank in its
        run's ranking of the query (score descending, ties in row order).
    score : ndarray of float64
        The score of each row.
    pair_row : ndarray of intp
        For each pair, the row of the runs (index of ``documents``) where it first appears;
        the pairs of a query follow each other (``pair_offsets``).
    n_candidates : ndarray of intp
        Distinct documents any run retrieved, per query.
    """

    names: list
    queries: object
    documents: object
    row_offsets: np.ndarray
    row_run: np.ndarray
    row_pair: np.ndarray
    position: np.ndarray
    score: np.ndarray
    pair_row: np.ndarray
    n_candidates: np.ndarray

    @property
    def n_runs(self):
        return len(self.names)

    @property
    def n_pairs(self):
        return self.pair_row.size

    @property
    def n_groups(self):
        """Number of (run, query) groups: group ``g = run * n_queries + query``."""
        return self.n_runs * len(self.queries)

    @cached_property
    def row_query(self):
        """The query code of each row."""
        return np.repeat(np.arange(len(self.queries)), np.diff(self.row_offsets))

    @cached_property
    def pair_offsets(self):
        """Where each query's pairs start (``n_queries + 1``)."""
        return np.concatenate(([0], np.cumsum(self.n_candidates))).astype(np.intp)

    @cached_property
    def pair_query(self):
        """The query code of each pair."""
        return np.repeat(np.arange(len(self.queries)), self.n_candidates)

    @cached_property
    def row_group(self):
        """The (run, query) group of each row."""
        return self.row_run * len(self.queries) + self.row_query

    @cached_property
    def group_size(self):
        """Rows of each (run, query) group: how many documents a run retrieved for a query."""
        return np.bincount(self.row_group, minlength=self.n_groups)

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

    def pair_documents(self, pairs):
        """The document ids of ``pairs`` (pair codes), as a pandas array."""
        return self.documents.take(self.pair_row[pairs])


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
    chunks = []
    for frame in frames:
        dtype = frame[column].dtype
        if not (isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow"):
            return None
        import pyarrow as pa  # installed: pandas stores these strings with it

        array = pa.array(frame[column].array)
        chunks.extend(array.chunks if isinstance(array, pa.ChunkedArray) else [array])
    return chunks


def _pieces(frames, column, names, codes=None):
    """``(pieces, values)``: the ids of ``column`` as the engine reads them (Arrow buffers, or
    integer codes for ids of other kinds: ``codes(values)``, by default those of
    :func:`pandas.factorize`) and all of them, run after run, as one pandas array."""
    values = pd.concat([frame[column] for frame in frames], ignore_index=True).array
    chunks = _arrow_chunks(frames, column)
    pieces = None if chunks is None else arrow_pieces(chunks)
    if pieces is None:
        codes, missing = (codes or pd.factorize)(values)[0], None
        if (codes < 0).any():
            missing = int(np.flatnonzero(codes < 0)[0])
            _raise_missing(frames, column, names, missing)
        pieces = code_pieces([codes])
    return pieces, values


def _head_codes(values):
    """Codes of query ids: a run usually lists a query's rows together, so only the first row
    of each block is hashed (blocks found by comparing neighbours); ids in no such order are
    hashed all. Codes in order of first appearance, -1 for a missing id."""
    ids = pd.Series(values, copy=False)
    start = np.flatnonzero((ids != ids.shift()).to_numpy())
    if start.size > len(ids) // 4:
        return pd.factorize(values)
    head_codes, uniques = pd.factorize(ids.iloc[start])
    return np.repeat(head_codes, np.diff(np.append(start, len(ids)))), uniques


def _query_codes(frames, names, run_bounds):
    """``(codes, starts, queries)``: the query code of every row (in order of first
    appearance), where each block of equal query ids starts (a run starts one) and the ids."""
    pieces, values = _pieces(frames, "qid", names, codes=_head_codes)
    codes, first, starts = id_blocks(pieces, run_bounds[:-1])
    return codes, starts, values.take(first)


def _refuse_duplicates(stack, duplicate, run_bounds):
    """Raise when a run retrieves a (qid, doc_id) pair twice (``duplicate``: per query, the
    row of the runs where that happens, or -1)."""
    found = np.flatnonzero(duplicate >= 0)
    if found.size == 0:
        return
    query, row = found[0], duplicate[found[0]]
    run = int(np.searchsorted(run_bounds, row, side="right")) - 1
    raise ValueError(
        f"runs[{stack.names[run]!r}] retrieves document {stack.documents[row]!r} twice for "
        f"query {stack.queries[query]!r}; each (qid, doc_id) may appear once in a run. Drop "
        "duplicates first (read_trec_run's duplicates='first' or 'last')."
    )


def stack_runs(runs, name="runs", *, minimum=1, n_threads=1):
    """Check ``runs`` and stack them into a :class:`StackedRuns` (in ``n_threads`` threads)."""
    names, frames = check_runs(runs, name, minimum=minimum)
    run_bounds = np.zeros(len(frames) + 1, dtype=np.intp)
    np.cumsum([len(frame) for frame in frames], out=run_bounds[1:])
    query_codes, starts, queries = _query_codes(frames, names, run_bounds)
    doc_pieces, documents = _pieces(frames, "doc_id", names)
    scores = np.concatenate([frame["score"].to_numpy(np.float64) for frame in frames])
    layout = query_layout(query_codes, starts, len(queries), n_threads)
    rows = query_rows(doc_pieces, run_bounds, scores, layout, n_threads)
    stack = StackedRuns(
        names=names,
        queries=queries,
        documents=documents,
        row_offsets=layout.row_offsets,
        row_run=rows.run,
        row_pair=rows.pair,
        position=rows.position,
        score=rows.score,
        pair_row=rows.pair_row,
        n_candidates=rows.n_candidates,
    )
    _refuse_duplicates(stack, rows.duplicate, run_bounds)
    return stack
