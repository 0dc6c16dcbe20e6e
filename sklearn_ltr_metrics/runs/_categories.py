"""Categorical document ids of runs in no query order, decoded in query order.

Runs whose categoricals differ (each run its own categories) are read as the categories'
dtype: each row's id taken from its run's categories (:func:`._stack._decoded`). Rows in
random order would read those categories at random, a cache miss a row; here each row's
category (its code, offset by the categories of the runs before it) is first moved into query
order with the rows (:func:`~sklearn_ltr_metrics._engine.move_records`, the pass that moves
any runs in no query order), and the ids are then taken in that order, where a query's
documents lie close together in the categories as they do in runs listed query by query.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._engine import arrow_pieces, move_records

__all__ = ["moved_category_ids"]


def _arrow_categories(columns):
    """The Arrow chunks of every column's categories, run after run, where all are pandas
    strings stored by pyarrow in one Arrow type; None otherwise."""
    dtype = columns[0].dtype.categories.dtype
    if not (isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow"):
        return None
    import pyarrow as pa  # installed: pandas stores these strings with it

    chunks = []
    for column in columns:
        if column.dtype.categories.dtype != dtype:
            return None
        array = pa.array(column.dtype.categories.array)
        chunks.extend(array.chunks if isinstance(array, pa.ChunkedArray) else [array])
    return chunks if len({chunk.type for chunk in chunks}) == 1 else None


def moved_category_ids(columns, scores, layout, n_threads=1):
    """``(rows, scores, pieces)`` of :func:`~sklearn_ltr_metrics._engine.query_rows`'s
    ``moved`` for categorical ``columns`` read as their categories' ids (``"decode"`` of
    :func:`._stack._category_form`: the caller checks it) in Arrow strings, rows in no query
    order (``layout.codes``): the stacked row and score at each position of the rows in query
    order, and the pieces of their ids taken from the categories in that order. None where
    the rows are in query order, the categories are not Arrow strings of one type, or an id
    is missing (the general path refuses it, naming its row)."""
    if layout.codes is None:
        return None
    chunks = _arrow_categories(columns)
    if chunks is None:
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
    rows, scores, index = move_records(records, scores, layout, n_threads)
    import pyarrow as pa

    taken = pa.concat_arrays(chunks).take(index)
    pieces = arrow_pieces(taken.chunks if isinstance(taken, pa.ChunkedArray) else [taken])
    return None if pieces is None else (rows, scores, pieces)
