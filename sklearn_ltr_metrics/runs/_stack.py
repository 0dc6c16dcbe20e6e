"""Several TREC-style runs as one set of flat arrays: the shared first step of every operation.

A run is a frame with columns ``qid``, ``doc_id`` and ``score`` (as :func:`read_trec_run`
returns it). The runs are checked once, their rows stacked, the query and document ids coded
to integers once (one hash pass each), and every ``(qid, doc_id)`` pair that any run retrieves
given one integer. Everything after (normalisations, fusion, pools) works on those integer
arrays: segment sums with :func:`numpy.bincount`, per-group extremes with ``ufunc.at``, no
Python loop over queries.

Each run's ranking (the 0-based position of a row among its query's rows, by score
descending, ties in row order) is read from the rows as they are when a run is already in
rank order (a TREC file usually is: checked in one pass), and sorted once otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from .._validation import check_columns, check_scores

__all__ = [
    "RUN_COLUMNS",
    "StackedRuns",
    "check_run",
    "check_runs",
    "grouped_order",
    "stack_runs",
]

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
    """Runs stacked into flat arrays, with coded queries, documents and pairs.

    Attributes
    ----------
    names : list of str
        The run names, in order.
    queries, documents : pandas.Index
        The distinct query and document ids, in order of first appearance.
    row_run, row_query, row_pair : ndarray of int64
        For each stacked row: its run, its query code and its ``(qid, doc_id)`` pair code.
    score : ndarray of float64
        The score of each stacked row.
    pair_query, pair_document : ndarray of int64
        The query and document code of each pair (pairs in order of first appearance).
    """

    names: list
    queries: np.ndarray
    documents: np.ndarray
    row_run: np.ndarray
    row_query: np.ndarray
    row_pair: np.ndarray
    score: np.ndarray
    pair_query: np.ndarray
    pair_document: np.ndarray

    @property
    def n_runs(self):
        return len(self.names)

    @property
    def n_pairs(self):
        return self.pair_query.size

    @property
    def n_groups(self):
        """Number of (run, query) groups: group ``g = run * n_queries + query``."""
        return self.n_runs * self.queries.size

    @cached_property
    def row_group(self):
        """The (run, query) group of each row."""
        return self.row_run * self.queries.size + self.row_query

    @cached_property
    def group_size(self):
        """Rows of each (run, query) group: how many documents a run retrieved for a query."""
        return np.bincount(self.row_group, minlength=self.n_groups)

    @cached_property
    def n_candidates(self):
        """Distinct documents any run retrieved, per query."""
        return np.bincount(self.pair_query, minlength=self.queries.size)

    @cached_property
    def position(self):
        """0-based rank of each row within its (run, query) group: score descending, ties in
        row order."""
        group = self.row_group
        starts = np.cumsum(self.group_size) - self.group_size
        if _in_rank_order(group, self.score):
            return np.arange(group.size) - starts[group]
        order = grouped_order(group, self.n_groups, self.score)
        position = np.empty(group.size, dtype=np.int64)
        position[order] = np.arange(group.size) - starts[group[order]]
        return position

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


def grouped_order(group, n_groups, score, *, ties_in_row_order=True):
    """Order of the rows by ``group``, then ``score`` descending.

    One quicksort of the scores and one radix sort of the groups (16-bit codes). Tied scores
    of a group come in row order (the stable float sort, slower, redone only when some group
    holds tied scores), or without ``ties_in_row_order`` in the quicksort's order (fixed by
    the inputs, for output rows whose order among ties changes no value).
    """
    key = group.astype(np.uint16 if n_groups <= 2**16 else np.int64)
    order = np.argsort(-score)
    order = order[np.argsort(key[order], kind="stable")]
    if not ties_in_row_order:
        return order
    ranked_score, ranked_group = score[order], group[order]
    if np.any((ranked_score[1:] == ranked_score[:-1]) & (ranked_group[1:] == ranked_group[:-1])):
        order = np.argsort(-score, kind="stable")
        order = order[np.argsort(key[order], kind="stable")]
    return order


def _in_rank_order(group, score):
    """Whether the rows are already in rank order: groups ascending, scores non-increasing
    within each group (a run listing its queries in the order they were first seen)."""
    if group.size < 2:
        return True
    same = group[1:] == group[:-1]
    return bool(np.all(group[1:] >= group[:-1]) and np.all(~same | (score[1:] <= score[:-1])))


def _raise_missing(frames, column, names, row):
    sizes = np.cumsum([len(frame) for frame in frames])
    run = int(np.searchsorted(sizes, row, side="right"))
    raise ValueError(
        f"runs[{names[run]!r}][{column!r}] has a missing value (row "
        f"{row - (sizes[run - 1] if run else 0)}); every row needs a {column}."
    )


def _codes(frames, column, names):
    """Codes and distinct values of ``column`` over all frames (one hash pass)."""
    values = pd.concat([frame[column] for frame in frames], ignore_index=True)
    codes, uniques = values.factorize()
    if (codes < 0).any():
        _raise_missing(frames, column, names, int(np.flatnonzero(codes < 0)[0]))
    return codes.astype(np.int64), uniques


def _query_codes(frames, names):
    """Codes of ``qid``: a run usually lists a query's rows together, so only the first row of
    each block is hashed (blocks found by comparing neighbours); rows in no such order are
    hashed all."""
    heads, lengths = [], []
    for frame in frames:
        qid = frame["qid"].reset_index(drop=True)
        start = np.flatnonzero((qid != qid.shift()).to_numpy())
        if start.size > len(qid) // 4:
            return _codes(frames, "qid", names)
        heads.append(qid.iloc[start])
        lengths.append(np.diff(np.r_[start, len(qid)]))
    head_codes, uniques = pd.concat(heads, ignore_index=True).factorize()
    lengths = np.concatenate(lengths).astype(np.int64)
    codes = np.repeat(head_codes.astype(np.int64), lengths)
    if (head_codes < 0).any():
        _raise_missing(frames, "qid", names, int(np.flatnonzero(codes < 0)[0]))
    return codes, uniques


def _pair_codes(query, doc, n_docs):
    """Codes of the ``(qid, doc_id)`` pairs, and the query and document of each pair.

    A document retrieved for one query only is one pair: its code needs no hashing. Only the
    rows of documents retrieved for several queries are hashed, on ``query * n_docs + doc``.
    """
    owner = np.full(n_docs, -1, dtype=np.int64)
    owner[doc] = query
    shared_doc = np.zeros(n_docs, dtype=bool)
    shared_doc[doc[owner[doc] != query]] = True
    shared = shared_doc[doc]
    ids = doc.copy()
    if shared.any():
        sub, keys = pd.factorize(query[shared] * n_docs + doc[shared])
        ids[shared] = n_docs + sub
        keys = np.asarray(keys, dtype=np.int64)
    else:
        keys = np.zeros(0, dtype=np.int64)
    used = np.zeros(n_docs + keys.size, dtype=bool)
    used[ids] = True
    dense = np.cumsum(used) - 1
    pair_doc = np.r_[np.arange(n_docs), keys % max(n_docs, 1)][used]
    pair_query = np.r_[owner, keys // max(n_docs, 1)][used]
    return dense[ids], pair_query, pair_doc


def _refuse_duplicates(stack):
    """Raise when a run retrieves a (qid, doc_id) pair twice."""
    cell = stack.row_pair * stack.n_runs + stack.row_run
    if np.unique(cell).size == cell.size:
        return
    order = np.argsort(cell, kind="stable")
    row = order[1:][cell[order][1:] == cell[order][:-1]][0]
    pair = stack.row_pair[row]
    raise ValueError(
        f"runs[{stack.names[stack.row_run[row]]!r}] retrieves document "
        f"{stack.documents[stack.pair_document[pair]]!r} twice for query "
        f"{stack.queries[stack.pair_query[pair]]!r}; each (qid, doc_id) may appear once in a "
        "run. Drop duplicates first (read_trec_run's duplicates='first' or 'last')."
    )


def stack_runs(runs, name="runs", *, minimum=1):
    """Check ``runs`` and stack them into a :class:`StackedRuns`."""
    names, frames = check_runs(runs, name, minimum=minimum)
    sizes = np.array([len(frame) for frame in frames], dtype=np.int64)
    query_codes, queries = _query_codes(frames, names)
    doc_codes, documents = _codes(frames, "doc_id", names)
    row_pair, pair_query, pair_document = _pair_codes(query_codes, doc_codes, len(documents))
    stack = StackedRuns(
        names=names,
        queries=queries,
        documents=documents,
        row_run=np.repeat(np.arange(len(frames), dtype=np.int64), sizes),
        row_query=query_codes,
        row_pair=row_pair,
        score=np.concatenate([frame["score"].to_numpy(np.float64) for frame in frames]),
        pair_query=pair_query,
        pair_document=pair_document,
    )
    if stack.present.sum() != stack.row_pair.size:
        _refuse_duplicates(stack)
    return stack
