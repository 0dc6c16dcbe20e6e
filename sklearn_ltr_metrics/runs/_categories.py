"""Categorical ids of runs: read as their codes, or decoded from each run's categories.

Runs that share one set of categories (in one order) are read as their codes. Runs whose
categoricals differ, as pandas compares them (each run its own categories), are read as the
categories' dtype, as pandas concatenates them: each row's id taken from its run's categories
(:func:`decoded`). Rows in random order would read those categories at random, a cache miss a
row (and for Python strings a reference count written at random); there each row's category
(its code, offset by the categories of the runs before it) is first moved into query order
with the rows (:func:`~sklearn_ltr_metrics._engine.move_records`, the pass that moves any
runs in no query order into it), and the ids taken in that order (:func:`moved_category_ids`),
where a query's documents lie as close together in the categories as in runs listed query
by query.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._engine import all_strings, arrow_pieces, code_pieces, move_records, object_pieces

__all__ = ["category_form", "decoded", "moved_category_ids"]

#: Categories of one run looked up in another's before a full comparison: sets that differ
#: (each run its own documents) are told apart by their first few.
_HEAD = 1024


def category_form(columns):
    """How categorical ``columns`` are read: ``"codes"`` where every run has the same
    categories in the same order and no missing id (the codes are the ids, exactly),
    ``"decode"`` where pandas would concatenate the runs into the categories' dtype (their
    categories differ as pandas compares them: each run's ids are then taken from its
    categories and read as any column of that dtype), else None (not all categorical, or
    one set of categories in several orders: :func:`pandas.factorize`)."""
    dtypes = [column.dtype for column in columns]
    if not all(isinstance(dtype, pd.CategoricalDtype) for dtype in dtypes):
        return None
    if all(d.categories.equals(dtypes[0].categories) for d in dtypes[1:]):
        same_order = all(d.ordered == dtypes[0].ordered for d in dtypes)
        missing = any((column.cat.codes.to_numpy() < 0).any() for column in columns)
        return "codes" if same_order and not missing else None
    return None if all(_equal_categories(dtypes[0], d) for d in dtypes[1:]) else "decode"


def _is_arrow(dtype):
    return isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow"


def _equal_categories(first, other):
    """Whether pandas holds the categorical dtypes ``first`` and ``other`` equal (it then
    concatenates their runs into one categorical): the same categories, in any order where
    neither is ordered. Arrow strings of one length compared as sets by pyarrow (pandas
    would turn them into Python strings); Python strings (every category exactly a ``str``)
    first by whether the first few of one are all in the other (pandas would put both in
    Python sets)."""
    a, b = first.categories, other.categories
    if first.ordered or other.ordered or len(a) != len(b) or a.dtype != b.dtype:
        return first == other
    if not _is_arrow(a.dtype):
        strings = a.dtype == object and all_strings(a.to_numpy()) and all_strings(b.to_numpy())
        if strings and np.count_nonzero(b.isin(a[:_HEAD])) < min(_HEAD, len(a)):
            return False  # equal sets of distinct strings: each of a's first in b once
        return first == other
    import pyarrow as pa  # installed: pandas stores these strings with it
    import pyarrow.compute as pc

    left, right = pa.array(a.array), pa.array(b.array)
    # A first few of one found in the other (a small table, one probe a category), else unequal.
    head = left[:_HEAD]
    if (pc.sum(pc.is_in(right, value_set=head)).as_py() or 0) < len(head):
        return False
    return bool(pc.all(pc.is_in(right, value_set=left)).as_py())


def decoded(column):
    """The ids of categorical ``column`` taken from its categories (NaN where missing), of
    the categories' dtype: one take, no Python object made for Arrow strings."""
    codes = column.cat.codes.to_numpy()
    taken = column.dtype.categories.take(codes, allow_fill=True, fill_value=None)
    return pd.Series(taken, index=column.index, copy=False)


def _category_table(columns):
    """Every column's categories, run after run, as one array with the ``take`` of its kind
    and the output of :class:`._stack.RowIds` that reads its ids: Arrow strings of one type
    (``"arrow"``), Python objects (``"objects"``) or numpy integers (``"records"``: read as
    8-byte records); None for categories of other dtypes."""
    dtype = columns[0].dtype.categories.dtype
    if any(column.dtype.categories.dtype != dtype for column in columns):
        return None
    if isinstance(dtype, np.dtype) and dtype.kind in "Oiu":
        table = np.concatenate([column.dtype.categories.to_numpy() for column in columns])
        return table, ("objects" if dtype.kind == "O" else "records")
    if not _is_arrow(dtype):
        return None
    import pyarrow as pa  # installed: pandas stores these strings with it

    chunks = []
    for column in columns:
        array = pa.array(column.dtype.categories.array)
        chunks.extend(array.chunks if isinstance(array, pa.ChunkedArray) else [array])
    if len({chunk.type for chunk in chunks}) > 1:
        return None
    return pa.concat_arrays(chunks), "arrow"


def moved_category_ids(columns, scores, layout, n_threads=1):
    """``(moved, output)``: ``moved``, the ``(rows, scores, pieces)`` of
    :func:`~sklearn_ltr_metrics._engine.query_rows` for categorical ``columns`` of
    :func:`category_form` ``"decode"`` (the caller checks it), rows in no query order
    (``layout.codes``): the stacked row and score at each position of the rows in query
    order and the pieces of their ids taken from the categories in that order; ``output``
    that of :class:`._stack.RowIds`. None where the rows are in query order or none, the
    categories are neither Arrow strings of one type, Python strings of one kind nor numpy
    integers of one dtype, or an id is missing (the general path refuses it, naming its
    row)."""
    empty = not sum(len(column) for column in columns)
    found = None if layout.codes is None or empty else _category_table(columns)
    if found is None:
        return None
    records, base = [], 0
    for column in columns:
        codes = column.cat.codes.to_numpy()
        if codes.size and codes.min() < 0:
            return None
        record = codes.astype(np.int64)
        record += base
        records.append(record)
        base += len(column.dtype.categories)
    table, output = found
    if output == "objects" and not (table.size and all_strings(table[:1])):
        return None  # not strings, as object_pieces reads them
    rows, scores, index = move_records(records, scores, layout, n_threads)
    taken = table.take(index)
    if output == "objects":
        pieces = object_pieces([taken])
    elif output == "records":  # as _stack's integer ids: 64 bits of their signedness
        wide = np.uint64 if taken.dtype.kind == "u" else np.int64
        pieces = code_pieces([taken.astype(wide, copy=False).view(np.int64)])
    else:
        pieces = arrow_pieces(getattr(taken, "chunks", [taken]))
    return None if pieces is None else ((rows, scores, pieces), output)
