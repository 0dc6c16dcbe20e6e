"""Reading and writing ranking data: shared plumbing, tables and per-query statistics.

TREC runs and qrels live in ``_trec.py``, LETOR/SVMlight in ``_letor.py``; both build on the
error type, the atomic writer and the source readers here.

Readers accept a path (``str`` or ``os.PathLike``; ``.gz`` and ``.bz2`` are decompressed) or an
open file object (text or binary). Writers accept a path, written atomically (a temporary file
in the same directory, then :func:`os.replace`) and never over an existing file unless
``overwrite=True``, or an open text file object, written directly.

A malformed file raises :class:`DataFormatError`, a ``ValueError`` whose message names the file
and the 1-based physical line (comments and blank lines count, as in an editor). Readers parse
with pandas' C engine and fall back to a line-by-line scan only to locate an error, so the
common case stays fast and the error case stays precise.

TREC conventions follow trec_eval 10 (``get_trec_results.c``, ``get_qrels.c``,
``form_res_rels.c``): a line whose first non-blank character is ``#`` is a comment (a ``#``
inside a document id is data); fields are separated by any whitespace; the rank column of a run
is ignored (the evaluation ranks by score); a duplicate ``(qid, doc_id)`` is an error.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import os
import re
import secrets
from pathlib import Path

import numpy as np
import pandas as pd

from .._validation import _short, check_choice

__all__ = [
    "DataFormatError",
    "atomic_write_path",
    "read_query_stats",
    "read_table",
    "write_query_stats",
    "write_table",
]

_TABLE_FORMATS = {".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".pq": "parquet"}
_COMPRESSION_SUFFIXES = (".gz", ".bz2", ".zip", ".xz", ".zst")

# A decimal number as pandas' C parser and C's strtod read it (plus inf and nan).
_NUMBER = re.compile(
    r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)", re.IGNORECASE
)


class DataFormatError(ValueError):
    """A file that does not follow its format.

    The message reads ``"<file>, line <n>: <what is wrong>"`` (or ``"<file>: ..."`` when no
    single line is at fault), so a command line can print it as one line.

    Parameters
    ----------
    path : str, os.PathLike or file object
        The file at fault.
    line : int or None
        1-based physical line number, or ``None`` when no single line is at fault.
    reason : str
        What is wrong, and how to fix it.

    Attributes
    ----------
    path : str
        The file as given (or the ``name`` of a file object, ``"<stream>"`` without one).
    line : int or None
        1-based physical line number, counting comments and blank lines, or ``None``.
    reason : str
        The message without the file and line prefix.

    Examples
    --------
    >>> err = DataFormatError("results.test", 12, "score 'abc' is not a number")
    >>> str(err)
    "results.test, line 12: score 'abc' is not a number"
    >>> err.line
    12
    """

    def __init__(self, path, line, reason):
        self.path = str(path)
        self.line = None if line is None else int(line)
        self.reason = str(reason)
        where = self.path if self.line is None else f"{self.path}, line {self.line}"
        super().__init__(f"{where}: {self.reason}")

    def __reduce__(self):
        return (type(self), (self.path, self.line, self.reason))


# --------------------------------------------------------------------------------------------
# Atomic writes
# --------------------------------------------------------------------------------------------


@contextlib.contextmanager
def atomic_write_path(path, *, overwrite=False):
    """Yield a temporary path next to ``path``; move it onto ``path`` when the block succeeds.

    Write the whole output to the yielded path inside the ``with`` block. On success the file is
    renamed onto ``path`` with :func:`os.replace` (atomic on POSIX and Windows within one file
    system), so readers never see a half-written file. On any exception the temporary file is
    deleted and ``path`` is left untouched. The temporary name is hidden (leading ``.``) and
    keeps the suffix of ``path`` (``.report.1a2b3c.tmp.png``), so writers that pick the format
    from the extension (``savefig``) still work. It is created empty with the permissions of a
    normal new file (the umask applies).

    Parameters
    ----------
    path : str or os.PathLike
        The final file. Its directory must exist.
    overwrite : bool, default=False
        Whether an existing ``path`` may be replaced. If False and ``path`` exists,
        ``FileExistsError`` is raised before anything is written.

    Yields
    ------
    pathlib.Path
        The temporary file to write to.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     target = Path(folder) / "table.csv"
    ...     with atomic_write_path(target) as tmp:
    ...         _ = tmp.write_text("qid,n_pos\\n1,3\\n")
    ...     print(target.read_text(), end="")
    ...     print(sorted(p.name for p in Path(folder).iterdir()))
    qid,n_pos
    1,3
    ['table.csv']
    """
    path = Path(os.fspath(path))
    _check_can_write(path, overwrite)
    tmp = path.with_name(f".{path.stem}.{secrets.token_hex(4)}.tmp{path.suffix}")
    with open(tmp, "xb"):  # exclusive create: never clobbers a stranger's file
        pass
    try:
        yield tmp
        if not overwrite and path.exists():  # created by someone else meanwhile
            _check_can_write(path, overwrite)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _check_can_write(path, overwrite):
    if not path.parent.is_dir():
        raise FileNotFoundError(
            f"Cannot write {str(path)!r}: the folder {str(path.parent)!r} does not exist; "
            "create it first."
        )
    if path.is_dir():
        raise IsADirectoryError(f"Cannot write {str(path)!r}: it is a folder; give a file name.")
    if path.exists() and not overwrite:
        raise FileExistsError(
            f"{str(path)!r} already exists; pass overwrite=True to replace it, "
            "or choose another path."
        )


@contextlib.contextmanager
def _open_text_target(target, overwrite):
    """Yield a text file to write to: the object itself, or an atomic file at a path."""
    if hasattr(target, "write"):
        yield target
        return
    with (
        atomic_write_path(target, overwrite=overwrite) as tmp,
        open(tmp, "w", encoding="utf-8", newline="\n") as handle,
    ):
        yield handle


# --------------------------------------------------------------------------------------------
# Reading raw text
# --------------------------------------------------------------------------------------------


def _source_name(source):
    if hasattr(source, "read"):
        name = getattr(source, "name", None)
        return str(name) if isinstance(name, (str, os.PathLike)) else "<stream>"
    return str(source)


def _read_bytes(source):
    """Return ``(bytes, name)`` of a path (``.gz``/``.bz2`` decompressed) or a file object."""
    name = _source_name(source)
    if hasattr(source, "read"):
        data = source.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
        return bytes(data), name
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(
            f"path must be a file path (str or os.PathLike) or an open file object, "
            f"got {type(source).__name__}."
        )
    path = Path(os.fspath(source))
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    elif path.suffix == ".bz2":
        data = bz2.decompress(data)
    return data, name


def _read_text(source):
    """Return ``(text, name)``; undecodable bytes raise :class:`DataFormatError` with the line."""
    data, name = _read_bytes(source)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DataFormatError(
            name, line, f"is not valid UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    return text, name


def _show(line, limit=80):
    """A line as shown in error messages: repr, cut to ``limit`` characters."""
    return _short(line.rstrip("\r"), limit)


def _plain(value):
    """A numpy scalar as the Python value (so messages show ``1``, not ``np.int64(1)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _as_number(token):
    """Parse a decimal float as the C reader does; ``None`` when it is not a number.

    Stricter than ``float()``, which also takes ``1_000`` and non-ASCII digits.
    """
    if not _NUMBER.fullmatch(token):
        return None
    return float(token)


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
        try:
            frame = pd.read_csv(
                path,
                sep="," if fmt == "csv" else "\t",
                dtype=dict.fromkeys(str_columns, str),
                keep_default_na=False,  # "NA", "null" are ids, not missing values
                na_values=[""],
            )
        except pd.errors.ParserError as exc:
            match = re.search(r"line (\d+)", str(exc))
            line = int(match.group(1)) if match else None
            raise DataFormatError(name, line, str(exc)) from None
        except pd.errors.EmptyDataError:
            raise DataFormatError(name, None, "is empty; expected a header line") from None
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


def read_table(path, *, qid="qid", label="label", score="score", doc_id=None, format=None):
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
    format : {"csv", "tsv", "parquet"}, optional
        Overrides the extension; required for file objects.

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
    for role in ("label", "score"):
        if role in wanted:
            result[role] = _numeric_column(result, role, wanted[role], fmt, name)
    if "doc_id" in wanted:
        result["doc_id"] = result["doc_id"].astype(str)
    return result


def _prepare_for_writing(frame):
    """Move a meaningful index into columns so that every format keeps it."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame, got {type(frame).__name__}.")
    is_default = isinstance(frame.index, pd.RangeIndex) and frame.index.name is None
    return frame if is_default else frame.reset_index()


def write_table(df, path, *, overwrite=False, format=None):
    """Write a DataFrame to CSV, TSV or Parquet (by extension), atomically.

    A non-default index (such as the ``qid`` index of a per-query table) is written as
    leading column(s); a default ``RangeIndex`` is not written.

    Parameters
    ----------
    df : pandas.DataFrame
    path : str, os.PathLike or file object
        ``.csv``, ``.tsv``, ``.parquet`` or ``.pq``; a path is written atomically.
    overwrite : bool, default=False
        Whether an existing file may be replaced.
    format : {"csv", "tsv", "parquet"}, optional
        Overrides the extension; required for file objects.

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


def read_query_stats(path, *, format=None):
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


def write_query_stats(stats, path, *, overwrite=False, format=None):
    """Write a per-query table as ``query_id, n_pos, n_neg`` (CSV unless the extension says).

    Parameters
    ----------
    stats : pandas.DataFrame
        Indexed by query id (as :func:`read_query_stats` returns it), or with a ``qid`` or
        ``query_id`` column; integer columns ``n_pos`` and optionally ``n_neg``. Other
        columns are written after them.
    path : str, os.PathLike or file object
        Destination; a path is written atomically.
    overwrite : bool, default=False
        Whether an existing file may be replaced.
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
                f"{_short(frame[column].tolist())}."
            )
        frame[column] = values.astype(np.int64)
    frame = frame[
        ["query_id", *counts] + [c for c in frame.columns if c not in ("query_id", *counts)]
    ]
    if format is None and hasattr(path, "write"):
        format = "csv"
    write_table(frame, path, overwrite=overwrite, format=format)
