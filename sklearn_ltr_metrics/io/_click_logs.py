"""Click logs in Parquet or CSV: the schema ``session, qid, row, rank, click``.

The schema (one line per shown document and session) is described in
:mod:`sklearn_ltr_metrics.clicks`; ``top_row`` (RandPair logs) and ``team`` (interleaved
logs) are kept when present, and any other column is kept as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._click_log import LOG_COLUMNS, check_click_log
from ._base import DataFormatError, atomic_write_path, io_doc
from ._tables import _numeric_column, _read_any_table, _table_format, _write_frame

if TYPE_CHECKING:
    from .._typing import PathOrFile

__all__ = ["read_click_log", "write_click_log"]

_INTEGER_COLUMNS = ("session", "row", "rank", "click", "top_row")


@io_doc
def read_click_log(path: PathOrFile, *, format: str | None = None) -> pd.DataFrame:
    """Read a click log (``session, qid, row, rank, click``) from Parquet or CSV.

    Parameters
    ----------
    path : str, os.PathLike or file object
        ``.parquet``/``.pq`` or ``.csv``/``.tsv`` (optionally compressed).
    {format}

    Returns
    -------
    pandas.DataFrame
        The log with ``session``, ``row``, ``rank`` (and ``top_row``) as int64 and ``click``
        as bool, checked against the schema (each session shows a rank once and belongs to
        one query). CSV infers the type of ``qid`` (digits become integers); Parquet keeps it
        exactly.

    Examples
    --------
    >>> import io
    >>> text = "session,qid,row,rank,click\\n0,q1,4,1,1\\n0,q1,2,2,0\\n"
    >>> log = read_click_log(io.StringIO(text), format="csv")
    >>> log["row"].tolist(), log["click"].tolist(), str(log["rank"].dtype)
    ([4, 2], [True, False], 'int64')
    """
    frame, fmt, name = _read_any_table(path, format)
    missing = [c for c in LOG_COLUMNS if c not in frame.columns]
    if missing:
        raise DataFormatError(
            name,
            None if fmt == "parquet" else 1,
            f"lacks the click-log column(s) {missing}; a click log has the columns "
            f"{', '.join(LOG_COLUMNS)}",
        )
    frame = frame.copy()
    for column in _INTEGER_COLUMNS:
        if column in frame.columns:
            frame[column] = _numeric_column(
                frame, column, column, fmt, name, integer=True, nonnegative=True
            )
    if (frame["click"] > 1).any():
        raise DataFormatError(name, None, "column 'click' must hold 0/1 or true/false")
    frame["click"] = frame["click"].astype(bool)
    check_click_log(frame, name)
    return frame


@io_doc
def write_click_log(
    log: pd.DataFrame, path: PathOrFile, *, overwrite: bool = False, format: str | None = None
) -> None:
    """Write a click log to Parquet or CSV (by extension), atomically.

    The log is checked against the schema first; its columns are written in the schema's
    order (``session, qid, row, rank, click``), then any other column.

    Parameters
    ----------
    log : pandas.DataFrame
        A click log, e.g. from :func:`~sklearn_ltr_metrics.clicks.simulate`.
    {table_destination}

    Examples
    --------
    >>> import sys
    >>> import pandas as pd
    >>> log = pd.DataFrame({"qid": [1, 1], "session": [0, 0], "row": [3, 0],
    ...                     "rank": [1, 2], "click": [True, False]})
    >>> write_click_log(log, sys.stdout, format="csv")
    session,qid,row,rank,click
    0,1,3,1,1
    0,1,0,2,0
    """
    check_click_log(log)
    fmt = _table_format(path, format)
    columns = list(LOG_COLUMNS) + [c for c in log.columns if c not in LOG_COLUMNS]
    frame = log.reset_index(drop=True)[columns]
    frame = frame.assign(click=frame["click"].to_numpy().astype(np.int8))
    if hasattr(path, "write"):
        _write_frame(frame, path, fmt)
        return
    with atomic_write_path(path, overwrite=overwrite) as tmp:
        _write_frame(frame, tmp, fmt)
