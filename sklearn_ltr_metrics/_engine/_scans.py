"""Scans of the input arrays: one compiled pass that reads every row and writes nothing per row.

The input checks (``sklearn_ltr_metrics._validation``) use them through the door: the range of
labels or scores (NaN and infinity found on the way; for the labels, with the relevant rows of
each run of query ids counted in the same pass), and the runs of object query ids (so that the
check of the ids, and then the grouping, read one row per run). The runs of fixed-width ids
are the grouping's (``_grouping.id_runs``).
"""

from __future__ import annotations

import numpy as np

from . import _ranking, _sums, _threads

__all__ = ["all_strings", "object_id_runs", "range_and_counts", "value_range"]


def value_range(arr, n_threads=1):
    """``(min, max)`` of a non-empty array, NaN when it holds a NaN, with no temporary array:
    one compiled pass over float64 (in ``n_threads`` threads on large arrays), numpy's two
    reductions otherwise. Exact, so the same for any number of threads."""
    if arr.dtype == np.float64 and arr.ndim == 1 and arr.flags.c_contiguous:
        return _sums.value_range(arr, n_threads, _threads.grain())
    return arr.min(), arr.max()


def range_and_counts(arr, starts, n_threads=1):
    """``(min, max, counts)``: :func:`value_range` of a non-empty C-contiguous float64 array
    and the rows with a value ``> 0`` in each run of rows beginning at ``starts`` (intp), in
    one compiled pass over the values (the check of the labels and the relevant rows of each
    query, read once)."""
    return _sums.range_and_counts(arr, starts, n_threads, _threads.grain())


def object_id_runs(ids, limit, n_threads=1):
    """Starts of the runs of an object array of ids: runs of the very same object (addresses
    compared in threads), or else, for ids built one object per row, runs of equal ids when
    every id is a ``str``; None beyond ``limit`` runs. ``ids`` is C-contiguous."""
    runs = _ranking.identity_runs(ids, limit, n_threads, _threads.grain())
    if runs is None:
        runs = _ranking.object_runs(ids, limit, strings_only=True)
    return runs


def all_strings(ids):
    """Whether every entry of the object array ``ids`` is exactly a ``str`` (one pass over the
    objects' types)."""
    return _ranking.all_strings(ids)
