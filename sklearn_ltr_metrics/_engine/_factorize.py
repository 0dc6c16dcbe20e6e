"""Query ids to dense integer codes, ordered like the sorted unique ids.

Dense integer ids go through a compiled counting table (no hashing, and no code written per
row when the caller reads ids through the table); other ids are factorised by pandas.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import _ranking, _threads

__all__ = ["QueryRuns", "coded_qid", "factorize_qid"]

#: Object ids of more rows than this are first coded by the objects' addresses
#: (``_ranking.object_codes``); fewer are hashed by value directly.
_OBJECT_CODES_MIN_ROWS = 1 << 12


def _unsortable(name, exc):
    """The error for query ids that cannot be ordered."""
    return TypeError(
        f"{name} values cannot be sorted ({exc}); query ids must all be of one kind. "
        "Convert them first, e.g. qid.astype(str)."
    )


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
    codes, uniques, _ = _factorize(qid, name)
    return codes, uniques


def _factorize(qid, name="qid", *, n_threads=1, per_row=True):
    """``(codes, uniques, sizes)`` of :func:`factorize_qid`; ``sizes`` (rows per id) where it
    comes for free (dense integer ids), else None. ``per_row=False``: dense integer ids give
    their codes as ``(ids, low, code_of)`` (see :func:`_dense_int_codes`)."""
    values = qid
    is_array = isinstance(values, np.ndarray)
    if is_array and values.dtype.kind in "iuU" and values.size and _strictly_increasing(values):
        # Distinct ids in sorted order (the first id of each query, rows grouped and sorted):
        # their codes are their positions, no table and no hashing.
        return np.arange(values.size, dtype=np.intp), values.copy(), None
    is_int = is_array and values.dtype.kind in "iu"
    dense = _dense_int_codes(values, n_threads, per_row) if is_int else None
    if dense is not None:
        return dense
    if is_int and values.size and np.all(values[1:] >= values[:-1]):
        # Sparse ids already grouped and sorted: codes are a running count of changes.
        change = np.empty(values.size, dtype=bool)
        change[0] = False
        np.not_equal(values[1:], values[:-1], out=change[1:])
        codes = np.cumsum(change, dtype=np.intp)
        uniques = values[np.flatnonzero(np.r_[True, change[1:]])]
        return codes, uniques, None
    if is_array and values.dtype.kind == "U" and values.size > _OBJECT_CODES_MIN_ROWS:
        # Fixed-width strings with repeats: coded by their bytes (compiled; pandas makes a
        # Python string of every row), then only the distinct ones are sorted.
        found = _ranking.record_codes(values, values.size // 8)
        if found is not None:
            by_record, first = found
            codes, uniques = _in_sorted_order(by_record, values[first])
            return codes, uniques, None
    if is_array and values.dtype == object:
        increasing = _strictly_increasing(values)  # cheap unless they are
        if values.size > _OBJECT_CODES_MIN_ROWS and not increasing:
            # Rows in any order that index a few id objects: coded by the objects' addresses
            # (compiled), and only the distinct objects are factorised by value.
            found = _ranking.object_codes(np.ascontiguousarray(values), values.size // 8)
            if found is not None:
                by_object, first = found
                codes, uniques, _ = _factorize(values[first], name)
                return codes[by_object], uniques, None
        kind = pd.api.types.infer_dtype(values, skipna=True)
        kinds = (
            sorted({type(v).__name__ for v in values[:1000]}) if kind.startswith("mixed") else []
        )
        if len(kinds) > 1:  # one kind of object (tuples, say) is fine
            raise TypeError(
                f"{name} mixes value types ({', '.join(kinds)}); query ids must all be of one "
                f"kind. Convert them first, e.g. qid.astype(str)."
            )
        if increasing:
            # Distinct ids in sorted order (the first id of each query, grouped and sorted
            # rows): their codes are their positions, no hashing.
            return np.arange(values.size, dtype=np.intp), values.copy(), None
    # Object ids (strings, say) are factorised in order of appearance, then their uniques
    # sorted by a stable sort, which is fast on ids that come sorted (timsort finds the runs);
    # other inputs (Categorical: category order) let pandas sort.
    sort_here = isinstance(values, np.ndarray) and values.dtype == object
    try:
        codes, uniques = pd.factorize(values, sort=not sort_here, use_na_sentinel=True)
    except TypeError as exc:
        raise _unsortable(name, exc) from None
    if codes.size and codes.min() < 0:
        first = int(np.flatnonzero(codes < 0)[0])
        raise ValueError(
            f"{name} has missing values (first at row {first}); every row needs a query id."
        )
    if sort_here:
        try:
            codes, uniques = _in_sorted_order(codes, uniques)
        except TypeError as exc:
            raise _unsortable(name, exc) from None
    if isinstance(uniques, (pd.Index, pd.Categorical)) or hasattr(uniques, "to_numpy"):
        uniques = np.asarray(uniques.to_numpy() if hasattr(uniques, "to_numpy") else uniques)
    return codes.astype(np.intp, copy=False), uniques, None


def _in_sorted_order(codes, uniques):
    """``codes`` into ``uniques`` renumbered for the uniques in sorted order (a stable sort):
    ``(codes, sorted uniques)``. TypeError when the uniques cannot be ordered."""
    order = np.argsort(uniques, kind="stable")
    rank = np.empty(order.size, dtype=np.intp)
    rank[order] = np.arange(order.size)
    return rank[codes], uniques[order]


def _strictly_increasing(values):
    """Whether ids (integers, strings, objects) strictly increase from row to row, so they are
    distinct and sorted: a short prefix is compared first, so rows with repeats or in random
    order cost little."""
    try:
        for part in (values[:65], values):
            if not np.all(part[1:] > part[:-1]):
                return False
    except TypeError:  # ids that do not compare: the factorisation says why
        return False
    return True


def _dense_int_codes(values, n_threads=1, per_row=True):
    """``(codes, uniques, sizes)`` of integer ids that span at most about twice as many values
    as there are rows (a compiled counting table, no hashing); None otherwise.

    Ids are taken in 64 bits of their signedness (int8 ids from -100 to 100 span more than
    int8 holds); uint64 ids at or above 2**63 are shifted by the smallest id first. With
    ``per_row=False`` the codes are ``(ids, low, code_of)``, read as ``code_of[id - low]`` by
    the kernels, and no code is written per row.
    """
    if not values.size or values.dtype.kind not in "iu":
        return None
    low, high = int(values.min()), int(values.max())
    if high - low > 2 * values.size + 1024:
        return None
    wide_type = np.uint64 if values.dtype.kind == "u" else np.int64
    if high > np.iinfo(np.int64).max:
        ids, base = (values - np.uint64(low)).view(np.int64), 0
    else:
        ids, base = values.astype(np.int64, copy=False), low
    ids = np.ascontiguousarray(ids)
    kernel = _ranking.dense_codes if per_row else _ranking.dense_table
    codes, present, sizes = kernel(ids, base, high - low + 1, n_threads, _threads.grain())
    uniques = (present.astype(wide_type) + wide_type(low)).astype(values.dtype)
    return (codes if per_row else (ids, base, codes)), uniques, sizes


@dataclass(frozen=True)
class QueryRuns:
    """Query ids given by their runs, with no array of one id per row: rows ``starts[i]`` to
    the next start (or ``n_rows``) hold code ``codes[i]``, and codes ``0 .. n_codes - 1``
    are ordered like the sorted ids they stand for (pandas string ids, see
    :func:`coded_qid`). ``group_rows`` (``_grouping.py``) takes them for ``qid``."""

    starts: np.ndarray
    codes: np.ndarray
    n_codes: int
    n_rows: int

    def __len__(self):
        return self.n_rows

    def ids(self):
        """The code of every row."""
        return np.repeat(self.codes, np.diff(np.append(self.starts, self.n_rows)))


def coded_qid(qid):
    """``(codes, values)`` for pandas query ids that numpy holds only as one Python object per
    row (a categorical, pandas' string dtype), or None for other ids.

    ``codes`` are integers, one per row, ordered like the sorted unique ``values`` (a numpy
    array, as ``_validation.check_qid`` would give them) that they stand for: pandas
    computes them from its own storage, with no object made per row. Strings in few runs
    (rows grouped by query) give their runs instead (:class:`QueryRuns`): no array is
    written per row. Ids with a missing value, and categories held as objects (which may
    mix kinds), give None: ``_validation.check_qid`` then checks them row by row and reports
    what it finds.
    """
    values = qid.array if isinstance(qid, (pd.Series, pd.Index)) else qid
    if isinstance(values, pd.Categorical):
        categories = values.categories
        codes = values.codes
        if categories.dtype == object or codes.size == 0 or codes.min() < 0:
            return None
        if categories.is_monotonic_increasing:
            return codes, np.asarray(categories)
        # Categories in another order: codes of their sorted order instead.
        try:
            return _in_sorted_order(codes, np.asarray(categories))
        except TypeError:  # ids that cannot be ordered: the row-by-row check says so
            return None
    dtype = getattr(values, "dtype", None)
    if isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow" and len(values):
        return _arrow_string_codes(values)
    return None


def _arrow_string_codes(values):
    """:func:`coded_qid` of pandas strings stored by pyarrow: the runs of equal ids are
    found by pyarrow, and only the first id of each run is factorised, giving the runs'
    codes (all ids when the runs are too many: rows of interleaved queries)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    ids = pa.array(values)  # zero-copy: the storage itself (an array or chunked array)
    if ids.null_count:
        return None
    n = len(ids)
    starts = pc.indices_nonzero(pc.not_equal(ids[1:], ids[:-1])).to_numpy().astype(np.intp)
    if starts.size >= n // 2:
        return factorize_qid(values)
    starts = np.concatenate(([0], starts + 1))
    head_codes, uniques = factorize_qid(values.take(starts))
    return QueryRuns(starts, head_codes, uniques.size, n), uniques
