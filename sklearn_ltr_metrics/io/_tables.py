"""Tables (CSV, TSV, Parquet), the per-query statistics table and score files.

A malformed file raises :class:`DataFormatError` naming the file and the line (the header is
line 1 of a table).
"""

from __future__ import annotations

import io
import os
import re
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._label_map import check_label_map
from .._validation import check_choice, short_repr
from ._base import (
    DataFormatError,
    _as_number,
    _plain,
    _read_text,
    _show,
    _source_name,
    _why_not_a_number,
    atomic_write_path,
    io_doc,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .._typing import PathOrFile

__all__ = [
    "read_query_stats",
    "read_scores",
    "read_table",
    "write_query_stats",
    "write_table",
]

_TABLE_FORMATS = {".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".pq": "parquet"}
_COMPRESSION_SUFFIXES = (".gz", ".bz2", ".zip", ".xz", ".zst")


# --------------------------------------------------------------------------------------------
# Tables: CSV, TSV, Parquet
# --------------------------------------------------------------------------------------------


def _table_format(path, format):
    if format is not None:
        return check_choice(format, "format", ("csv", "tsv", "parquet"))
    if hasattr(path, "read") or hasattr(path, "write"):
        raise ValueError(
            "format is required with a file object; pass format='csv', 'tsv' or 'parquet'."
        )
    suffixes = [s.lower() for s in Path(os.fspath(path)).suffixes]
    while suffixes and suffixes[-1] in _COMPRESSION_SUFFIXES:
        suffixes.pop()
    suffix = suffixes[-1] if suffixes else ""
    if suffix not in _TABLE_FORMATS:
        raise ValueError(
            f"Cannot tell the table format of {str(path)!r} from its extension {suffix!r}; "
            f"use one of {', '.join(_TABLE_FORMATS)} or pass format='csv', 'tsv' or 'parquet'."
        )
    return _TABLE_FORMATS[suffix]


def _read_any_table(path, format, *, str_columns=()):
    fmt = _table_format(path, format)
    name = _source_name(path)
    if fmt == "parquet":
        frame = pd.read_parquet(path)
    else:
        suffix = "" if hasattr(path, "read") else Path(os.fspath(path)).suffix.lower()
        source = path if suffix in (".zip", ".zst") else io.StringIO(_read_text(path)[0])
        try:
            frame = pd.read_csv(
                source,
                sep="," if fmt == "csv" else "\t",
                dtype=dict.fromkeys(str_columns, str),
                keep_default_na=False,  # "NA", "null" are ids, not missing values
                na_values=[""],
            )
        except pd.errors.ParserError as exc:
            match = re.search(r"line (\d+)", str(exc))
            line = int(match.group(1)) if match else None
            raise DataFormatError(name, line, " ".join(str(exc).split())) from None
        except pd.errors.EmptyDataError:
            raise DataFormatError(name, None, "is empty; expected a header line") from None
        except (OSError, EOFError, zlib.error, UnicodeDecodeError) as exc:  # .zip, .zst
            raise DataFormatError(name, None, f"cannot be read: {exc}") from None
    if len(frame) == 0:
        raise DataFormatError(
            name,
            None if fmt == "parquet" else 1,
            "has a header but no data rows; expected one row per query-document pair",
        )
    return frame, fmt, name


def _where(fmt, row):
    """(line, text) locating data row ``row`` (0-based) of a table, header on line 1."""
    if fmt == "parquet":
        return None, f"row {row}: "
    return row + 2, ""


def _numeric_column(frame, column, shown, fmt, name, *, integer=False, nonnegative=False):
    """Column as float64 (int64 if ``integer``); a bad value raises with its line."""
    values = frame[column]
    numbers = pd.to_numeric(values, errors="coerce").astype(np.float64).to_numpy()
    bad = ~np.isfinite(numbers)
    kind = "a finite number"
    if integer:
        bad |= numbers != np.round(numbers)
        kind = "an integer"
    if nonnegative:
        bad |= numbers < 0
        kind = "a non-negative integer" if integer else "a non-negative number"
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        line, prefix = _where(fmt, row)
        value = _plain(values.iloc[row])
        raise DataFormatError(
            name,
            line,
            f"{prefix}column {shown!r} must hold {kind}, got {value!r} "
            f"({int(bad.sum())} bad value(s) in all)",
        )
    return numbers.astype(np.int64) if integer else numbers


def _mapped_labels(values, label_map, shown, fmt, name):
    """The grades of a label column through ``label_map``; an unknown label raises with its line."""
    keys, grades = check_label_map(label_map)
    where = keys.get_indexer(values.to_numpy(dtype=object))
    if (where < 0).any():
        row = int(np.flatnonzero(where < 0)[0])
        line, prefix = _where(fmt, row)
        raise DataFormatError(
            name,
            line,
            f"{prefix}column {shown!r} has label {_plain(values.iloc[row])!r}, which label_map "
            f"lacks (its keys: {list(keys)[:10]!r}); add a grade for every label",
        )
    return grades[where]


@io_doc
def read_table(
    path: PathOrFile,
    *,
    qid: str | None = "qid",
    label: str | None = "label",
    score: str | None = "score",
    doc_id: str | None = None,
    format: str | None = None,
    label_map: Mapping | None = None,
) -> pd.DataFrame:
    """Read a flat ranking table (one row per query-document pair) from CSV, TSV or Parquet.

    The named columns are checked and renamed to ``qid``, ``label``, ``score`` and ``doc_id``;
    other columns are kept as read. Pass ``None`` for a column the table does not need
    (``score=None`` for judgments, ``label=None`` for predictions).

    Parameters
    ----------
    path : str, os.PathLike or file object
        ``.csv``, ``.tsv`` (optionally compressed, e.g. ``.csv.gz``), ``.parquet`` or ``.pq``.
    qid, label, score : str or None, defaults "qid", "label", "score"
        Names of the query-id, relevance-label and score columns in the file. Labels and
        scores must be numbers; query ids keep the type pandas infers (write them quoted or
        as strings in Parquet to keep leading zeros).
    doc_id : str or None, default=None
        Name of a document-id column, read as strings.
    {format}
    label_map : mapping, optional
        Labels as the file has them (ESCI's ``E``/``S``/``C``/``I``, "Perfect"/"Good"...) to
        relevance grades, e.g. ``{"E": 3, "S": 2, "C": 1, "I": 0}``; every label must be a
        key (else :class:`DataFormatError` with its line).

    Returns
    -------
    pandas.DataFrame
        With columns ``qid`` and, when requested, ``label`` and ``score`` (float64) and
        ``doc_id`` (str), in file order.

    Raises
    ------
    DataFormatError
        A missing column (listing those available) or a non-numeric label or score (with
        its line).

    Examples
    --------
    >>> import io
    >>> text = "query,doc,relevance,prediction\\nq1,d1,1,0.9\\nq1,d2,0,0.4\\n"
    >>> read_table(io.StringIO(text), qid="query", label="relevance", score="prediction",
    ...            doc_id="doc", format="csv")
      qid doc_id  label  score
    0  q1     d1    1.0    0.9
    1  q1     d2    0.0    0.4
    """
    wanted = {"qid": qid, "doc_id": doc_id, "label": label, "score": score}
    wanted = {role: column for role, column in wanted.items() if column is not None}
    for role, column in wanted.items():
        if not isinstance(column, str):
            raise TypeError(f"{role} must be a column name (str) or None, got {column!r}.")
    frame, fmt, name = _read_any_table(path, format, str_columns=[doc_id] if doc_id else ())
    missing = [(role, col) for role, col in wanted.items() if col not in frame.columns]
    if missing:
        listed = ", ".join(f"{role}={col!r}" for role, col in missing)
        raise DataFormatError(
            name,
            None,
            f"has no column for {listed}; available columns: "
            f"{', '.join(map(repr, frame.columns))}. Pass the file's column names, or None "
            "for a column the table does not have.",
        )
    for role, column in wanted.items():
        if role != column and role in frame.columns and role not in wanted.values():
            raise DataFormatError(
                name,
                None,
                f"has a column {role!r} and {role}={column!r} names another one; rename or "
                f"drop the column {role!r} first.",
            )
    result = frame.rename(columns={col: role for role, col in wanted.items()})
    order = [role for role in ("qid", "doc_id", "label", "score") if role in wanted]
    result = result[order + [c for c in result.columns if c not in order]]
    for role in ("qid", "doc_id"):
        missing_ids = result[role].isna().to_numpy() if role in wanted else np.zeros(1, bool)
        if missing_ids.any():
            line, prefix = _where(fmt, int(np.flatnonzero(missing_ids)[0]))
            raise DataFormatError(
                name, line, f"{prefix}column {wanted[role]!r} ({role}) has an empty value"
            )
    if label_map is not None and "label" in wanted:
        result["label"] = _mapped_labels(result["label"], label_map, label, fmt, name)
    for role in ("label", "score"):
        if role in wanted:
            result[role] = _numeric_column(
                result, role, wanted[role], fmt, name, nonnegative=role == "label"
            )
    if "doc_id" in wanted:
        result["doc_id"] = result["doc_id"].astype(str)
    return result


def _prepare_for_writing(frame):
    """Move a meaningful index into columns so that every format keeps it."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame, got {type(frame).__name__}.")
    is_default = isinstance(frame.index, pd.RangeIndex) and frame.index.name is None
    return frame if is_default else frame.reset_index()


@io_doc
def write_table(
    df: pd.DataFrame, path: PathOrFile, *, overwrite: bool = False, format: str | None = None
) -> None:
    """Write a DataFrame to CSV, TSV or Parquet (by extension), atomically.

    A non-default index (such as the ``qid`` index of a per-query table) is written as
    leading column(s); a default ``RangeIndex`` is not written.

    Parameters
    ----------
    df : pandas.DataFrame
    {table_destination}

    Examples
    --------
    >>> import sys
    >>> import pandas as pd
    >>> table = pd.DataFrame({"ndcg@10": [0.5, 1.0]}, index=pd.Index(["q1", "q2"], name="qid"))
    >>> write_table(table, sys.stdout, format="csv")
    qid,ndcg@10
    q1,0.5
    q2,1.0
    """
    fmt = _table_format(path, format)
    frame = _prepare_for_writing(df)
    if hasattr(path, "write"):
        _write_frame(frame, path, fmt)
        return
    with atomic_write_path(path, overwrite=overwrite) as tmp:
        _write_frame(frame, tmp, fmt)


def _write_frame(frame, target, fmt):
    if fmt == "parquet":
        frame.to_parquet(target, index=False)
    else:
        sep = "," if fmt == "csv" else "\t"
        frame.to_csv(target, sep=sep, index=False, lineterminator="\n")


# --------------------------------------------------------------------------------------------
# Per-query evaluation table: query_id, n_pos, n_neg
# --------------------------------------------------------------------------------------------


def read_query_stats(path: PathOrFile, *, format: str | None = None) -> pd.DataFrame:
    """Read the methodology's per-query evaluation table ``query_id, n_pos, n_neg``.

    ``n_pos`` (relevant documents of the query, including any the ranker never scored) is
    required, ``n_neg`` optional; a ``qid`` column is accepted in place of ``query_id``.
    Other columns are kept.

    Parameters
    ----------
    path : str, os.PathLike or file object
        CSV by default; ``.tsv``/``.parquet`` by extension or ``format``.
    format : {"csv", "tsv", "parquet"}, optional
        Overrides the extension; a file object defaults to CSV.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``qid`` (the file's order), with int64 columns ``n_pos`` and, when
        present, ``n_neg``.

    Raises
    ------
    DataFormatError
        A missing column, a count that is not a non-negative integer or a repeated query id,
        with the line number.

    Examples
    --------
    >>> import io
    >>> read_query_stats(io.StringIO("query_id,n_pos,n_neg\\n101,28,1400\\n102,3,510\\n"))
         n_pos  n_neg
    qid
    101     28   1400
    102      3    510
    """
    if format is None and (hasattr(path, "read")):
        format = "csv"
    frame, fmt, name = _read_any_table(path, format)
    id_column = next((c for c in ("query_id", "qid") if c in frame.columns), None)
    if id_column is None or "n_pos" not in frame.columns:
        need = "'query_id' (or 'qid') and 'n_pos'"
        raise DataFormatError(
            name,
            None,
            f"needs columns {need} (and optionally 'n_neg'); available columns: "
            f"{', '.join(map(repr, frame.columns))}",
        )
    ids = frame[id_column]
    dup = ids.duplicated().to_numpy()
    if dup.any():
        row = int(np.flatnonzero(dup)[0])
        first = int(np.flatnonzero((ids == ids.iloc[row]).to_numpy())[0])
        line, prefix = _where(fmt, row)
        first_line, _ = _where(fmt, first)
        seen = f"line {first_line}" if first_line is not None else f"row {first}"
        raise DataFormatError(
            name, line, f"{prefix}query id {_plain(ids.iloc[row])!r} repeats (first on {seen})"
        )
    result = frame.drop(columns=[id_column])
    counts = [c for c in ("n_pos", "n_neg") if c in frame.columns]
    for column in counts:
        result[column] = _numeric_column(
            frame, column, column, fmt, name, integer=True, nonnegative=True
        )
    result = result[counts + [c for c in result.columns if c not in counts]]
    result.index = pd.Index(ids.to_numpy(), name="qid")
    return result


@io_doc
def write_query_stats(
    stats: pd.DataFrame, path: PathOrFile, *, overwrite: bool = False, format: str | None = None
) -> None:
    """Write a per-query table as ``query_id, n_pos, n_neg`` (CSV unless the extension says).

    Parameters
    ----------
    stats : pandas.DataFrame
        Indexed by query id (as :func:`read_query_stats` returns it), or with a ``qid`` or
        ``query_id`` column; integer columns ``n_pos`` and optionally ``n_neg``. Other
        columns are written after them.
    path : str, os.PathLike or file object
        Destination; a path is written atomically.
    {overwrite}
    format : {"csv", "tsv", "parquet"}, optional
        Overrides the extension; a file object defaults to CSV.

    Examples
    --------
    >>> import sys
    >>> import pandas as pd
    >>> stats = pd.DataFrame({"n_pos": [28, 3], "n_neg": [1400, 510]},
    ...                      index=pd.Index([101, 102], name="qid"))
    >>> write_query_stats(stats, sys.stdout)
    query_id,n_pos,n_neg
    101,28,1400
    102,3,510
    """
    if not isinstance(stats, pd.DataFrame):
        raise TypeError(f"stats must be a pandas DataFrame, got {type(stats).__name__}.")
    id_column = next((c for c in ("query_id", "qid") if c in stats.columns), None)
    frame = stats.reset_index(drop=True) if id_column else stats.reset_index(names="query_id")
    frame = frame.rename(columns={id_column: "query_id"}) if id_column else frame
    if "n_pos" not in frame.columns:
        raise ValueError(
            f"stats needs an 'n_pos' column; it has {', '.join(map(repr, stats.columns))}."
        )
    counts = [c for c in ("n_pos", "n_neg") if c in frame.columns]
    for column in counts:
        values = frame[column].to_numpy(dtype=np.float64, na_value=np.nan)
        if not np.all(np.isfinite(values) & (values >= 0) & (values == np.round(values))):
            raise ValueError(
                f"stats[{column!r}] must hold non-negative integers; got "
                f"{short_repr(frame[column].tolist())}."
            )
        frame[column] = values.astype(np.int64)
    frame = frame[
        ["query_id", *counts] + [c for c in frame.columns if c not in ("query_id", *counts)]
    ]
    if format is None and hasattr(path, "write"):
        format = "csv"
    write_table(frame, path, overwrite=overwrite, format=format)


# --------------------------------------------------------------------------------------------
# Score files: one score per line
# --------------------------------------------------------------------------------------------


def read_scores(path: PathOrFile, *, n_rows: int | None = None) -> np.ndarray:
    """Read a score file: one score per line, as ``LGBMRanker.predict`` output is saved.

    Blank lines and lines whose first non-blank character is ``#`` are skipped; a UTF-8
    byte-order mark is accepted. Numbers are read as the C readers (and trec_eval) read
    them: ``1_000`` or non-ASCII digits are refused, not guessed.

    Parameters
    ----------
    path : str, os.PathLike or file object
        The score file; ``.gz``, ``.bz2`` and ``.xz`` paths are decompressed.
    n_rows : int, optional
        The number of rows the scores belong to (e.g. the rows of a LETOR file); a file with
        more or fewer scores is refused, naming the line where it goes wrong.

    Returns
    -------
    numpy.ndarray of float64

    Raises
    ------
    DataFormatError
        With the line number: a token that is not a finite number, too many scores; or too
        few scores, or no score at all.

    Examples
    --------
    >>> import io
    >>> read_scores(io.StringIO("# lightgbm\\n0.5\\n-1.25\\n\\n3e-2\\n"))
    array([ 0.5 , -1.25,  0.03])
    >>> try:
    ...     read_scores(io.StringIO("0.5\\n1_000\\n"))
    ... except DataFormatError as err:
    ...     print(str(err)[:62])
    <stream>, line 2: score '1_000' is not a number: digit separat
    """
    if n_rows is not None and (isinstance(n_rows, bool) or not isinstance(n_rows, int)):
        raise TypeError(f"n_rows must be an int or None, got {short_repr(n_rows)}.")
    text, name = _read_text(path)
    values = []
    for number, raw in enumerate(text.split("\n"), start=1):
        token = raw.strip()
        if not token or token.startswith("#"):
            continue
        value = _as_number(token)
        if value is None:
            fields = token.split()
            reason = (
                f"expected one score per line, got {len(fields)} fields: {_show(raw)}"
                if len(fields) > 1
                else f"score {token[:60]!r} is not a number: {_why_not_a_number(token)}"
            )
            raise DataFormatError(name, number, reason)
        if not np.isfinite(value):
            raise DataFormatError(
                name, number, f"score {token!r} is not a finite number; replace NaN and inf"
            )
        values.append(value)
        if n_rows is not None and len(values) > n_rows:
            raise DataFormatError(
                name,
                number,
                f"more scores than the {n_rows} rows they belong to; give one score per row, "
                "in the same order",
            )
    if not values:
        raise DataFormatError(name, None, "holds no scores (only comments or blank lines)")
    if n_rows is not None and len(values) != n_rows:
        raise DataFormatError(
            name,
            None,
            f"has {len(values)} scores but there are {n_rows} rows; give one score per row, "
            "in the same order",
        )
    return np.asarray(values, dtype=np.float64)
