"""Query ids to sort order, offsets and sizes.

This is the only place where rows are grouped by query. Everything downstream works on rows
sorted by (query, descending score) and the ``offsets`` of each query's segment, so that metric
kernels are segment reductions over one flat array.

The sort avoids a two-key ``np.lexsort``: it sorts scores once (the float sort is the real cost)
and then applies a stable radix pass over the small-integer query codes, which numpy runs in
linear time for 16-bit keys.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["Grouping", "factorize_qid", "group_rows", "rank_order"]


def factorize_qid(qid, name="qid"):
    """Map query ids to dense integer codes ordered like the sorted unique ids.

    Parameters
    ----------
    qid : numpy.ndarray or pandas.Series/Index/Categorical
        One query id per row, any hashable type of one kind.
    name : str
        Parameter name for error messages.

    Returns
    -------
    codes : numpy.ndarray of intp
        ``uniques[codes]`` gives back the ids.
    uniques : numpy.ndarray
        The sorted unique query ids.
    """
    values = qid
    is_int = isinstance(values, np.ndarray) and values.dtype.kind in "iu"
    if is_int and values.size and np.all(values[1:] >= values[:-1]):
        # Already grouped and sorted: codes are a running count of changes.
        change = np.empty(values.size, dtype=bool)
        change[0] = False
        np.not_equal(values[1:], values[:-1], out=change[1:])
        codes = np.cumsum(change, dtype=np.intp)
        uniques = values[np.flatnonzero(np.r_[True, change[1:]])]
        return codes, uniques
    if is_int and values.size:
        low, high = int(values.min()), int(values.max())
        if high - low <= 2 * values.size + 1024:
            # Dense integer ids: a bincount lookup table instead of hashing. The offsets are
            # taken in 64 bits (int8 ids from -100 to 100 span more than int8 holds).
            wide = values.astype(np.uint64 if values.dtype.kind == "u" else np.int64, copy=False)
            base = wide.dtype.type(low)
            shifted = (wide - base).astype(np.intp, copy=False)
            present = np.bincount(shifted) > 0
            lookup = np.cumsum(present, dtype=np.intp) - 1
            uniques = (np.flatnonzero(present).astype(wide.dtype) + base).astype(values.dtype)
            return lookup[shifted], uniques
    if isinstance(values, np.ndarray) and values.dtype == object:
        kind = pd.api.types.infer_dtype(values, skipna=True)
        kinds = (
            sorted({type(v).__name__ for v in values[:1000]}) if kind.startswith("mixed") else []
        )
        if len(kinds) > 1:  # one kind of object (tuples, say) is fine
            raise TypeError(
                f"{name} mixes value types ({', '.join(kinds)}); query ids must all be of one "
                f"kind. Convert them first, e.g. qid.astype(str)."
            )
    try:
        codes, uniques = pd.factorize(values, sort=True, use_na_sentinel=True)
    except TypeError as exc:
        raise TypeError(
            f"{name} values cannot be sorted ({exc}); query ids must all be of one kind. "
            "Convert them first, e.g. qid.astype(str)."
        ) from None
    if codes.size and codes.min() < 0:
        first = int(np.flatnonzero(codes < 0)[0])
        raise ValueError(
            f"{name} has missing values (first at row {first}); every row needs a query id."
        )
    if isinstance(uniques, (pd.Index, pd.Categorical)) or hasattr(uniques, "to_numpy"):
        uniques = np.asarray(uniques.to_numpy() if hasattr(uniques, "to_numpy") else uniques)
    return codes.astype(np.intp, copy=False), uniques


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
    """

    def __init__(self, uniques, sizes, grouped, codes=None):
        self.uniques = uniques
        self.n_groups = uniques.shape[0]
        self.sizes = sizes
        self.offsets = np.concatenate(([0], np.cumsum(sizes)))
        self.grouped = grouped
        self._codes = codes

    @property
    def codes(self):
        """Query code of every input row (built on first use when rows came grouped)."""
        if self._codes is None:
            self._codes = self.codes_of(np.arange(self.offsets[-1]))
        return self._codes

    def codes_of(self, rows):
        """Query codes of some input rows."""
        if self._codes is not None:
            return self._codes[rows]
        # Codes are only left unbuilt when the input rows are already grouped in code order.
        return np.searchsorted(self.offsets, rows, side="right") - 1


def group_rows(qid, name="qid"):
    """Group rows by query id, cheaply when each query's rows are already contiguous.

    Only the first id of every run of equal ids is factorised; per-row codes are built only
    when the runs do not each hold a whole query.
    """
    n = qid.shape[0]
    change = np.empty(n, dtype=bool)
    change[:1] = True
    np.not_equal(qid[1:], qid[:-1], out=change[1:])
    run_start = np.flatnonzero(change)
    # Runs are worth factorising only when they are few (contiguous queries); shuffled rows
    # make nearly every row a run, and then one factorisation of all rows is cheaper.
    few_runs = run_start.size <= n // 2
    run_codes, uniques = factorize_qid(qid[run_start], name) if few_runs else (None, None)
    if few_runs and uniques.shape[0] == run_start.size:
        run_size = np.diff(np.append(run_start, n))
        sizes = np.empty_like(run_size)
        sizes[run_codes] = run_size
        if np.all(run_codes[1:] > run_codes[:-1]):
            return Grouping(uniques, sizes, None)
        # Whole queries in another order: move each run into place, no sort of rows.
        by_code = np.argsort(run_codes)
        lengths = run_size[by_code]
        shift = run_start[by_code] - np.concatenate(([0], np.cumsum(lengths)[:-1]))
        grouped = np.repeat(shift, lengths) + np.arange(n)
        return Grouping(uniques, sizes, grouped, np.repeat(run_codes, run_size))
    codes, uniques = factorize_qid(qid, name)
    grouped = _stable_sort_by_codes(codes, uniques.shape[0])
    return Grouping(uniques, np.bincount(codes, minlength=uniques.shape[0]), grouped, codes)


def _stable_sort_by_codes(codes, n_groups):
    """Row indices grouped by code, input order kept inside each group (16-bit radix passes)."""
    if n_groups <= 1 << 16:
        return np.argsort(codes.astype(np.uint16), kind="stable")
    order = np.argsort((codes & 0xFFFF).astype(np.uint16), kind="stable")
    high = codes[order] >> 16
    if n_groups <= 1 << 32:
        high = high.astype(np.uint16)
    return order[np.argsort(high, kind="stable")]


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


def rank_order(grouping, y_score, *, stable=False, tiebreak=None, n_threads=1):
    """Row order sorted by query code, then descending score.

    Parameters
    ----------
    grouping : Grouping
        The rows grouped by query (:func:`group_rows`).
    y_score : ndarray of float64
        Scores; higher ranks first.
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
    rows of the result, so the order never depends on the threads.
    """
    if tiebreak is not None:
        return np.lexsort((tiebreak, np.negative(y_score), grouping.codes))
    grouped, sizes, offsets = grouping.grouped, grouping.sizes, grouping.offsets
    neg = np.negative(y_score if grouped is None else y_score[grouped])
    out = np.empty(y_score.size, dtype=np.intp)
    kind = "stable" if stable else "quicksort"

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
        block = np.full((queries.size, width), np.inf)
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
