"""Group the rows by query: the runs of equal ids, their codes, and the rows in query order.

This is the only place where rows are grouped by query. Query ids are coded (``_factorize.py``:
a lookup table for dense integers, hashing otherwise); rows whose queries come in whole runs
are grouped by their runs alone, and interleaved rows with a stable counting sort of the codes:
O(n), in threads (the compiled ``counting_sort`` of ``_ranking``). :class:`Grouping` also
counts the active rows of every query (the compiled ``segment_count``/``code_count``).
Ranking the rows is the next step (``_rank.py``).
"""

from __future__ import annotations

import numpy as np

from . import _ranking, _sums, _threads
from ._factorize import QueryRuns, _factorize, _strictly_increasing, factorize_qid

__all__ = ["Grouping", "QueryRuns", "active_rule", "group_rows", "id_runs"]


def active_rule(values, threshold, or_equal=False):
    """The rows with ``values > threshold`` (``>=`` with ``or_equal``), as the compiled
    kernels read them: the rule ``(values, threshold, or_equal)`` for float64 values, which
    they apply row by row with no mask written; a boolean mask for other dtypes.

    ``threshold=-inf, or_equal=True`` makes every row active.
    """
    if values.dtype == np.float64 and values.ndim == 1 and values.flags.c_contiguous:
        return (values, float(threshold), bool(or_equal))
    return _rule_mask(values, threshold, or_equal)


def _rule_mask(values, threshold, or_equal):
    """The boolean mask of the rows a rule makes active."""
    return values >= threshold if or_equal else values > threshold


def _compiled_active(active):
    """``active`` (a boolean mask or an :func:`active_rule`) as the kernels take it."""
    if isinstance(active, tuple):
        return active
    return np.ascontiguousarray(active, dtype=bool).view(np.uint8)


def _same_active(a, b):
    """Whether two masks or rules are the very same (identity of the arrays read)."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return a[0] is b[0] and a[1:] == b[1:]
    return a is b


class Grouping:
    """Rows grouped by query.

    Attributes
    ----------
    uniques : ndarray
        The sorted unique query ids; query code ``c`` is ``uniques[c]``.
    sizes, offsets : ndarray
        Rows of each query, and where each query starts in grouped order.
    grouped : ndarray of intp or None
        Input row indices in grouped order (queries in code order, input order inside a
        query); None when the input rows already are in that order.
    interleaved : bool
        Whether the queries' rows are interleaved in the input (not whole runs); ``grouped``
        is then built on first use, by a stable counting sort of the codes.
    """

    def __init__(
        self, uniques, sizes, grouped, codes=None, *, interleaved=False, n_threads=1, offsets=None
    ):
        self.uniques = uniques
        self.n_groups = uniques.shape[0]
        self.sizes = sizes
        if offsets is None:  # else the caller's: 0, then the running sum of ``sizes``
            offsets = np.zeros(uniques.shape[0] + 1, dtype=np.result_type(sizes, np.intp))
            np.cumsum(sizes, out=offsets[1:])
        self.offsets = offsets
        self._grouped = grouped
        self._codes = codes
        self.interleaved = interleaved
        self._n_threads = n_threads
        self._counted = None  # (mask, counts) of the last count

    @property
    def grouped(self):
        if self.interleaved and self._grouped is None:
            self._grouped = self._counting_sort()[0]
        return self._grouped

    def gather(self, arrays):
        """``arrays`` (float64 or int64, in input order; at most three) moved into grouped
        order by one scatter of the counting sort, in threads, without row indices: kernels
        then read them in order, not at random through :attr:`grouped`. Interleaved rows only.
        """
        return self._counting_sort(carry=arrays, index=False)[1]

    def _counting_sort(self, **options):
        """The compiled stable counting sort of the codes (``_ranking.counting_sort``)."""
        return _ranking.counting_sort(
            self._kernel_codes,
            self.n_groups,
            self._n_threads,
            _threads.grain(),
            self.sizes,
            **options,
        )

    @property
    def codes(self):
        """Query code of every input row (built on first use when rows came grouped, or as
        ids mapped by a table)."""
        if self._codes is None:
            self._codes = self.codes_of(np.arange(self.offsets[-1]))
        elif isinstance(self._codes, tuple):
            ids, low, code_of = self._codes
            self._codes = code_of[ids - low]
        return self._codes

    @property
    def _kernel_codes(self):
        """The codes as the compiled kernels read them: an intp array, or ``(ids, low,
        code_of)`` for dense integer ids (no code written per row)."""
        if isinstance(self._codes, tuple):
            return self._codes
        return np.ascontiguousarray(self.codes, dtype=np.intp)

    def count(self, active, moved=None):
        """Active rows of each group, as intp: ``active`` is a boolean mask in input order,
        or an :func:`active_rule` (the rows above a threshold, no mask written). ``moved``:
        the same rule over its values moved into grouped order (:meth:`gather`), counted in
        order, query by query.

        Compiled, in threads. The last count is kept: asking again for the very same mask
        object or rule (the relevant rows, counted for the table and for the ranking) costs
        nothing; the engine never changes an array it has counted.
        """
        if self._counted is not None and _same_active(self._counted[0], active):
            return self._counted[1]
        rule = _compiled_active(active)
        if moved is not None or (self._codes is None and self._grouped is None):
            # Rows in grouped order (as they came, or moved there): a count per group.
            offsets = self.offsets.astype(np.intp, copy=False)
            counted = rule if moved is None else _compiled_active(moved)
            counts = _sums.segment_count(counted, offsets, self._n_threads, _threads.grain())
        else:
            codes = self._kernel_codes
            counts = _sums.code_count(codes, rule, self.n_groups, self._n_threads, _threads.grain())
        self._counted = (active, counts)
        return counts

    def take_run_counts(self, active, counts):
        """Keep ``counts``, the ``active`` rows of each run of equal ids that this grouping
        was built from (counted by the caller in a pass of its own over the same rows), as
        the count of ``active`` (:meth:`count`), when those runs are its queries in order
        (rows grouped as they came: one count a query); else do nothing."""
        in_order = self._grouped is None and self._codes is None and not self.interleaved
        if in_order and counts.shape[0] == self.n_groups:
            self._counted = (active, counts)

    def codes_of(self, rows):
        """Query codes of some input rows."""
        if isinstance(self._codes, tuple):
            ids, low, code_of = self._codes
            return code_of[ids[rows] - low]
        if self._codes is not None:
            return self._codes[rows]
        # Codes are only left unbuilt when the input rows are already grouped in code order.
        return np.searchsorted(self.offsets, rows, side="right") - 1


#: Fixed-width ids whose equality is that of their bits (or of float64), as the compiled
#: run finder reads them.
_RUN_ID_VIEWS = {("i", 4): np.int32, ("u", 4): np.int32, ("i", 8): np.int64, ("u", 8): np.int64}


def _run_starts(qid, limit, n_threads):
    """Start of every run of equal ids, or None beyond ``limit`` runs (compiled, in threads,
    for 32/64-bit integer and float64 ids; numpy for other dtypes). Object ids give the runs of
    the very same object, which may split a run of equal ids in two (``group_rows`` merges
    them), or else, for ids built one object per row, the runs of equal ids."""
    runs = _runs(qid, limit, n_threads)
    return None if runs is None else runs[0]


def fixed_width_runs(qid, limit, n_threads):
    """``(starts, heads)`` of the runs of equal 32/64-bit integer or float64 ids (the compiled
    run finder, in threads), or None for other dtypes and beyond ``limit`` runs."""
    kind = (qid.dtype.kind, qid.dtype.itemsize)
    if kind not in _RUN_ID_VIEWS and qid.dtype != np.float64:
        return None
    ids = np.ascontiguousarray(qid)
    ids = ids.view(_RUN_ID_VIEWS[kind]) if kind in _RUN_ID_VIEWS else ids
    runs = _ranking.run_starts(ids, limit, n_threads, _threads.grain(), heads=True)
    return None if runs is None else (runs[0], runs[1].view(qid.dtype))


def id_runs(ids, n_threads=1, heads=False):
    """Starts of the runs of equal fixed-width ids (integers and floats, compared as the
    grouping compares them), as intp; None for other dtypes, or beyond half as many runs as
    rows (rows in random order: the grouping then factorises every row). ``heads``: the pair
    ``(starts, ids[starts])`` (or None), the id of each run read in the same pass, for the
    grouping (:func:`group_rows`), which then does not gather them again."""
    found = fixed_width_runs(ids, ids.shape[0] // 2, n_threads)
    return found if heads or found is None else found[0]


def _runs(qid, limit, n_threads):
    """``(starts, heads)``: :func:`_run_starts` and the id of each run (read in the same
    threads for fixed-width ids), or None beyond ``limit`` runs."""
    kind = (qid.dtype.kind, qid.dtype.itemsize)
    if kind in _RUN_ID_VIEWS or qid.dtype == np.float64:
        return fixed_width_runs(qid, limit, n_threads)
    if qid.dtype == object:
        # Runs of the very same object first (addresses compared in threads, nothing written
        # per row); adjacent runs of equal ids are merged by their codes (group_rows).
        ids = np.ascontiguousarray(qid)
        starts = _ranking.identity_runs(ids, limit, n_threads, _threads.grain())
        if starts is None:  # ids built one object per row: runs of equal ids
            starts = _ranking.object_runs(ids, limit)
    else:
        change = np.empty(qid.shape[0], dtype=bool)
        change[:1] = True
        np.not_equal(qid[1:], qid[:-1], out=change[1:])
        starts = np.flatnonzero(change) if np.count_nonzero(change) <= limit else None
    return None if starts is None else (starts, qid[starts])


def group_rows(qid, name="qid", n_threads=1, runs=None, values=None, heads=None):
    """Group rows by query id, cheaply when each query's rows are already contiguous.

    Only the first id of every run of equal ids is factorised; per-row codes are built only
    when the runs do not each hold a whole query, and then rows are grouped by a stable
    counting sort of the codes in ``n_threads`` threads (the same order for any number).
    ``runs``: the starts of the runs of ids when the caller has them (the check of the ids
    finds them): of one object (or of equal strings) for object ids, of equal ids for
    fixed-width ids. ``values``: ``qid`` holds integer
    codes ordered like these sorted ids, which name the groups (:attr:`Grouping.uniques`).
    """
    grouping = _group_rows(qid, name, n_threads, runs, heads)
    if values is not None:
        grouping.uniques = values[grouping.uniques]
    return grouping


def _group_rows(qid, name, n_threads, runs, heads=None):
    """:func:`group_rows` of the ids themselves (or of their :class:`QueryRuns`)."""
    if isinstance(qid, QueryRuns):
        whole = _group_runs(qid.starts, qid.codes, np.arange(qid.n_codes), qid.n_rows, n_threads)
        return whole if whole is not None else _group_rows(qid.ids(), name, n_threads, None)
    n = qid.shape[0]
    # Runs are worth factorising only when they are few (contiguous queries); shuffled rows
    # make nearly every row a run, and then one factorisation of all rows is cheaper (and the
    # run starts are not even listed).
    # Runs found by the check of the ids are not looked for again (nor their ids read again,
    # at random in the rows, when the check read them).
    if runs is not None:
        found = (runs, qid[runs] if heads is None else heads)
    else:
        found = _runs(qid, n // 2, n_threads)
    if found is not None:
        run_start, heads = found
        if heads.dtype.kind in "iuU" and heads.size and _strictly_increasing(heads):
            # Distinct ids in sorted order (rows grouped and sorted): each run is a whole
            # query, in code order. ``heads`` is this call's own array (gathered here, or
            # read by the run finder): the uniques themselves, as factorize_qid's copy.
            return _runs_in_order(run_start, heads, n, n_threads)
        run_codes, uniques = factorize_qid(heads, name)
        if qid.dtype == object:
            # Runs of one object each: equal ids in adjacent runs (distinct objects) are one.
            head = np.concatenate(([True], run_codes[1:] != run_codes[:-1]))
            if not head.all():
                run_start, run_codes = run_start[head], run_codes[head]
        whole = _group_runs(run_start, run_codes, uniques, n, n_threads)
        if whole is not None:
            return whole
    codes, uniques, sizes = _factorize(qid, name, n_threads=n_threads, per_row=False)
    if sizes is None:  # ids that were hashed or already sorted: count them
        codes = np.ascontiguousarray(codes, dtype=np.intp)
        sizes = np.bincount(codes, minlength=uniques.shape[0])
    return Grouping(uniques, sizes, None, codes, interleaved=True, n_threads=n_threads)


def _group_runs(run_start, run_codes, uniques, n, n_threads):
    """The :class:`Grouping` of ``n`` rows in runs (starts, codes into ``uniques``) when every
    run is a whole query, else None. No row moves when the runs come in code order."""
    if uniques.shape[0] != run_start.size:
        return None
    if np.all(run_codes[1:] > run_codes[:-1]):  # codes 0, 1, ...: the runs are in order
        return _runs_in_order(run_start, uniques, n, n_threads)
    run_size = np.diff(np.append(run_start, n))
    sizes = np.empty_like(run_size)
    sizes[run_codes] = run_size
    # Whole queries in another order: move each run into place, no sort of rows.
    by_code = np.argsort(run_codes)
    lengths = run_size[by_code]
    shift = run_start[by_code] - np.concatenate(([0], np.cumsum(lengths)[:-1]))
    grouped = np.repeat(shift, lengths) + np.arange(n)
    return Grouping(uniques, sizes, grouped, np.repeat(run_codes, run_size), n_threads=n_threads)


def _runs_in_order(run_start, uniques, n, n_threads):
    """The :class:`Grouping` of ``n`` rows whose runs (``run_start``) are the queries of
    ``uniques`` in order: the runs' bounds are the queries' offsets (no sum of the sizes)."""
    bounds = np.empty(run_start.size + 1, dtype=np.result_type(run_start, np.intp))
    bounds[:-1], bounds[-1] = run_start, n
    sizes = np.subtract(bounds[1:], bounds[:-1])
    return Grouping(uniques, sizes, None, n_threads=n_threads, offsets=bounds)
