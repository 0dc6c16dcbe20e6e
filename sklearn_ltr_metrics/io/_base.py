"""Reading and writing ranking data: the shared plumbing (error type, atomic writes, sources).

TREC runs and qrels live in ``_trec.py``, LETOR/SVMlight in ``_letor.py``, tables, per-query
statistics and score files in ``_tables.py``; all build on the error type, the atomic writer
and the source readers here.

Readers accept a path (``str`` or ``os.PathLike``; ``.gz``, ``.bz2`` and ``.xz`` are
decompressed, and a damaged archive is a :class:`DataFormatError`) or an
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
import io
import lzma
import os
import re
import secrets
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._doc_link import doc_parts
from .._validation import short_repr

if TYPE_CHECKING:
    from .._typing import PathOrFile, StrPath

__all__ = ["DataFormatError", "atomic_write_path", "io_doc", "read_whitespace_fields"]

# A line whose first non-blank character is '#' (trec_eval's comment rule).
_COMMENT_LINE = re.compile(r"(?m)^[ \t]*#[^\n]*")
# A line holding something other than whitespace and not a comment.
_CONTENT_LINE = re.compile(r"(?m)^[ \t]*[^\s#]")
# Field separators of a TREC line: C's isspace() without the newline, as trec_eval splits.
_FIELD_SEPARATOR = re.compile(r"[ \t\v\f\r]+")
# A decimal number as pandas' C parser and C's strtod read it (plus inf and nan).
_NUMBER = re.compile(
    r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)", re.IGNORECASE
)


_OVERWRITE = "overwrite : bool, default=False\n    Whether an existing file may be replaced."
_FORMAT = (
    'format : {"csv", "tsv", "parquet"}, optional\n'
    "    Overrides the extension; required for file objects."
)

#: Fill a line ``{overwrite}``, ``{format}``, ``{table_destination}`` (a table writer's
#: ``path``, ``overwrite`` and ``format``), ``{text_destination}`` (the TREC writers' ``path``)
#: or ``{duplicates}`` (the TREC readers') of a reader's or writer's docstring: the parameters
#: they document alike, written once.
io_doc = doc_parts(
    {
        "overwrite": _OVERWRITE,
        "format": _FORMAT,
        "table_destination": (
            "path : str, os.PathLike or file object\n"
            "    ``.csv``, ``.tsv``, ``.parquet`` or ``.pq``; a path is written atomically.\n"
            f"{_OVERWRITE}\n{_FORMAT}"
        ),
        "text_destination": (
            "path : str, os.PathLike or text file object\n"
            "    Destination; a path is written atomically."
        ),
        "duplicates": (
            'duplicates : {"error", "first", "last"}, default="error"\n'
            "    What to do with a repeated ``(qid, doc_id)``: raise (trec_eval refuses such\n"
            "    files), or keep its first or last line."
        ),
    }
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

    def __init__(self, path: PathOrFile, line: int | None, reason: str) -> None:
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
def atomic_write_path(path: StrPath, *, overwrite: bool = False) -> Iterator[Path]:
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


_DECOMPRESSORS = {
    ".gz": (gzip.decompress, "gzip"),
    ".bz2": (bz2.decompress, "bzip2"),
    ".xz": (lzma.decompress, "xz"),
}


def _decompress(data, suffix, name):
    """Decompress ``data`` by the file's suffix; a damaged archive is a DataFormatError."""
    if suffix not in _DECOMPRESSORS:
        return data
    decompress, what = _DECOMPRESSORS[suffix]
    try:
        return decompress(data)
    except EOFError:
        reason = f"is a truncated {what} file (it ends before the compressed data does)"
    except ValueError as exc:  # bz2 and lzma report a truncated stream as ValueError
        truncated = "ended before" in str(exc)
        reason = (
            f"is a truncated {what} file (it ends before the compressed data does)"
            if truncated
            else f"is not a valid {what} file ({' '.join(str(exc).split())})"
        )
    except (OSError, zlib.error, lzma.LZMAError) as exc:
        reason = f"is not a valid {what} file ({' '.join(str(exc).split()) or type(exc).__name__})"
    raise DataFormatError(
        name,
        None,
        f"{reason}; download or compress it again, or, if it is plain text, rename it "
        f"without the {suffix} suffix",
    )


def _read_bytes(source):
    """Return ``(bytes, name)`` of a path (``.gz``/``.bz2``/``.xz`` decompressed) or a file object.

    A truncated or corrupt compressed file, or a plain file named like one, raises
    :class:`DataFormatError` naming the file.
    """
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
    return _decompress(data, path.suffix.lower(), name), name


def _strip_bom(data):
    """``data`` without a leading UTF-8 byte-order mark (some editors write one)."""
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


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


def read_whitespace_fields(text, **options):
    """pandas' C parser over whitespace-separated fields, nothing read as missing (the fast
    path of the TREC readers; ``options`` as :func:`pandas.read_csv`'s). None where pandas
    cannot parse ``text``: the caller then scans it line by line to name the fault."""
    import pandas as pd

    try:
        return pd.read_csv(
            io.StringIO(text),
            sep=r"\s+",
            header=None,
            keep_default_na=False,
            na_values=[],
            skip_blank_lines=True,
            engine="c",
            **options,
        )
    except (ValueError, pd.errors.ParserError):
        return None


def _show(line, limit=80):
    """A line as shown in error messages: repr, cut to ``limit`` characters."""
    return short_repr(line.rstrip("\r"), limit)


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


def _why_not_a_number(token):
    """A short reason why ``token`` is not a number, for error messages."""
    if "_" in token and _as_number(token.replace("_", "")) is not None:
        return (
            "digit separators ('_') are not part of the format (trec_eval and the C readers "
            "stop at them); write the number without them"
        )
    if token.isdigit() or (token and not token.isascii()):
        return "only ASCII digits are numbers here"
    return "expected a decimal number such as 3, -0.25 or 1e-3"
