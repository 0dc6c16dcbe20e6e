"""Reading and writing ranking data: TREC runs and qrels, LETOR/SVMlight, tables.

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
import io
import os
import re
import secrets
from pathlib import Path

import numpy as np
import pandas as pd

from ._validation import _short, check_1d, check_choice, check_consistent_length, check_scores

__all__ = [
    "DataFormatError",
    "atomic_write_path",
    "read_letor",
    "read_query_stats",
    "read_table",
    "read_trec_qrels",
    "read_trec_run",
    "write_letor",
    "write_query_stats",
    "write_table",
    "write_trec_qrels",
    "write_trec_run",
]

_RUN_FIELDS = "'qid Q0 doc_id rank score [tag]'"
_QRELS_FIELDS = "'qid iter doc_id label'"
_DUPLICATES = ("error", "first", "last")
_TABLE_FORMATS = {".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".pq": "parquet"}
_COMPRESSION_SUFFIXES = (".gz", ".bz2", ".zip", ".xz", ".zst")

# A line whose first non-blank character is '#' (trec_eval's comment rule).
_COMMENT_LINE = re.compile(r"(?m)^[ \t]*#[^\n]*")
# A line holding something other than whitespace and not a comment.
_CONTENT_LINE = re.compile(r"(?m)^[ \t]*[^\s#]")
# A decimal number as pandas' C parser and C's strtod read it (plus inf and nan).
_NUMBER = re.compile(
    r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)", re.IGNORECASE
)
# Field separators of a TREC line: C's isspace() without the newline, as trec_eval splits.
_FIELD_SEPARATOR = re.compile(r"[ \t\v\f\r]+")
# A line with five or more whitespace-separated fields (too many for qrels).
_FIVE_FIELDS = re.compile(r"(?m)^[ \t]*\S+[ \t]+\S+[ \t]+\S+[ \t]+\S+[ \t]+\S")


class DataFormatError(ValueError):
    """A file that does not follow its format.

    The message reads ``"<file>, line <n>: <what is wrong>"`` (or ``"<file>: ..."`` when no
    single line is at fault), so a command line can print it as one line.

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
# TREC runs and qrels
# --------------------------------------------------------------------------------------------


def _parse_trec_lines(text, name, *, kind):
    """Slow, exact line-by-line parse of a TREC run or qrels; raises at the first bad line.

    Returns ``(qid, doc_id, value, lines)`` lists; ``lines`` holds the physical line numbers.
    """
    qids, docs, values, lines = [], [], [], []
    for number, raw in enumerate(text.split("\n"), start=1):
        fields = _FIELD_SEPARATOR.split(raw.strip(" \t\v\f\r"))
        if fields == [""] or fields[0].startswith("#"):
            continue
        if kind == "run":
            if len(fields) < 5:
                raise DataFormatError(
                    name,
                    number,
                    f"expected at least 5 columns {_RUN_FIELDS}, got {len(fields)}: {_show(raw)}"
                    + (" (is this a qrels file?)" if len(fields) == 4 else ""),
                )
            value, what = _as_number(fields[4]), "score"
        else:
            if len(fields) != 4:
                hint = " (is this a run file?)" if len(fields) >= 5 else ""
                raise DataFormatError(
                    name,
                    number,
                    f"expected 4 columns {_QRELS_FIELDS}, got {len(fields)}: {_show(raw)}{hint}",
                )
            value, what = _as_number(fields[3]), "label"
        token = fields[4] if kind == "run" else fields[3]
        if value is None or not np.isfinite(value):
            raise DataFormatError(
                name, number, f"{what} {token!r} is not a finite number: {_show(raw)}"
            )
        qids.append(fields[0])
        docs.append(fields[2])
        values.append(value)
        lines.append(number)
    return qids, docs, values, lines


def _raise_first_duplicate(name, qids, docs, lines):
    seen = {}
    for key, number in zip(zip(qids, docs, strict=True), lines, strict=True):
        if key in seen:
            raise DataFormatError(
                name,
                number,
                f"duplicate (qid, doc_id) {key!r}, first on line {seen[key]}; trec_eval refuses "
                "files with duplicates. Remove them, or pass duplicates='first' or 'last'.",
            )
        seen[key] = number


def _read_trec(source, *, kind, duplicates):
    check_choice(duplicates, "duplicates", _DUPLICATES)
    text, name = _read_text(source)
    value_name = "score" if kind == "run" else "label"
    value_col = 4 if kind == "run" else 3
    n_content = len(_CONTENT_LINE.findall(text))
    if n_content == 0:
        raise DataFormatError(name, None, f"holds no {kind} lines (only comments or blank lines)")
    frame = None
    if kind == "run" or not _FIVE_FIELDS.search(_COMMENT_LINE.sub("", text)):
        frame = _fast_trec_frame(text, value_col, n_content)
    if frame is None:
        qids, docs, values, lines = _parse_trec_lines(text, name, kind=kind)
        frame = pd.DataFrame(
            {0: pd.array(qids, dtype=str), 2: pd.array(docs, dtype=str), value_col: values}
        )
    frame = frame.rename(columns={0: "qid", 2: "doc_id", value_col: value_name})
    frame[value_name] = frame[value_name].astype(np.float64)
    if duplicates == "error":
        if frame.duplicated(["qid", "doc_id"]).any():
            qids, docs, _, lines = _parse_trec_lines(text, name, kind=kind)
            _raise_first_duplicate(name, qids, docs, lines)
    else:
        frame = frame.drop_duplicates(["qid", "doc_id"], keep=duplicates, ignore_index=True)
    return frame


def _fast_trec_frame(text, value_col, n_content):
    """Parse with pandas' C engine; ``None`` when the result cannot be trusted."""
    if "#" in text:
        text = _COMMENT_LINE.sub("", text)  # keeps the line breaks
    try:
        frame = pd.read_csv(
            io.StringIO(text),
            sep=r"\s+",
            header=None,
            usecols=[0, 2, value_col],
            dtype={0: str, 2: str, value_col: np.float64},
            keep_default_na=False,
            na_values=[],
            skip_blank_lines=True,
            engine="c",
        )
    except (ValueError, pd.errors.ParserError):
        return None
    ok = (
        list(frame.columns) == [0, 2, value_col]
        and len(frame) == n_content
        and not frame.isna().any().any()
        and np.isfinite(frame[value_col].to_numpy()).all()
    )
    return frame if ok else None


def read_trec_run(path, *, duplicates="error"):
    """Read a TREC run file (``qid Q0 doc_id rank score tag`` per line).

    Accepts what trec_eval accepts: fields separated by spaces or tabs, lines in any order,
    comment lines (first non-blank character ``#``; a ``#`` inside a document id is data),
    blank lines, and extra fields after the tag (ignored). The tag may be missing. The rank
    and tag columns are not kept: evaluation ranks by score (ties by ``doc_id`` descending
    under ``ties="trec_eval"``), as trec_eval does.

    Parameters
    ----------
    path : str, os.PathLike or file object
        The run file; ``.gz``/``.bz2`` paths are decompressed.
    duplicates : {"error", "first", "last"}, default="error"
        What to do with a repeated ``(qid, doc_id)``: raise (trec_eval refuses such runs), or
        keep its first or last line.

    Returns
    -------
    pandas.DataFrame
        Columns ``qid`` (str), ``doc_id`` (str), ``score`` (float64), rows in file order.

    Raises
    ------
    DataFormatError
        With the line number: fewer than 5 fields, a score that is not a finite number, a
        duplicate; or a file without any run line.

    Examples
    --------
    >>> import io
    >>> text = '''# a comment
    ... 301 Q0 FT911-1 1 12.5 bm25
    ... 301 Q0 FT911-2 2 9.75 bm25
    ... 302\\tQ0\\tLA0101-3\\t1\\t3.0\\tbm25 trailing junk is ignored
    ... '''
    >>> read_trec_run(io.StringIO(text))
       qid    doc_id  score
    0  301   FT911-1  12.50
    1  301   FT911-2   9.75
    2  302  LA0101-3   3.00
    >>> try:
    ...     read_trec_run(io.StringIO("1 Q0 a 1 12.5 bm25\\n1 Q0 b\\n"))
    ... except DataFormatError as err:
    ...     print(err)
    <stream>, line 2: expected at least 5 columns 'qid Q0 doc_id rank score [tag]', got 3: '1 Q0 b'
    """
    return _read_trec(path, kind="run", duplicates=duplicates)


def read_trec_qrels(path, *, duplicates="error"):
    """Read TREC relevance judgments (``qid iter doc_id label`` per line).

    Exactly four whitespace-separated fields per line, as trec_eval requires (a run file given
    by mistake is reported as such); comment lines (first non-blank character ``#``) and blank
    lines are skipped. Negative labels are kept: they mean "judged non-relevant" (trec_eval
    counts them as judged but never relevant) and the evaluation maps them.

    Parameters
    ----------
    path : str, os.PathLike or file object
        The qrels file; ``.gz``/``.bz2`` paths are decompressed.
    duplicates : {"error", "first", "last"}, default="error"
        What to do with a repeated ``(qid, doc_id)``: raise (trec_eval refuses such qrels), or
        keep its first or last judgment.

    Returns
    -------
    pandas.DataFrame
        Columns ``qid`` (str), ``doc_id`` (str), ``label`` (int64 when every label is an
        integer, as in all TREC qrels, else float64), rows in file order.

    Raises
    ------
    DataFormatError
        With the line number: not 4 fields, a label that is not a finite number, a duplicate;
        or a file without any judgment.

    Examples
    --------
    >>> import io
    >>> qrels = read_trec_qrels(io.StringIO("301 0 FT911-1 1\\n301 0 FT911-2 0\\n302 0 LA-3 -1\\n"))
    >>> qrels
       qid  doc_id  label
    0  301  FT911-1      1
    1  301  FT911-2      0
    2  302     LA-3     -1
    >>> qrels["label"].dtype
    dtype('int64')
    """
    frame = _read_trec(path, kind="qrels", duplicates=duplicates)
    labels = frame["label"].to_numpy()
    if len(labels) and np.all(labels == np.round(labels)) and np.abs(labels).max() < 2**53:
        frame["label"] = labels.astype(np.int64)
    return frame


def _check_id_column(values, name, *, first_field=False):
    """Convert ids to ``str`` and reject what would break a whitespace-separated line."""
    ids = pd.Series(check_1d(values, name), dtype=object).astype(str)
    bad = ids.str.contains(r"\s", regex=True) | (ids == "")
    if first_field:
        bad |= ids.str.startswith("#")
    if bad.any():
        first = ids[bad].iloc[0]
        raise ValueError(
            f"{name} has {int(bad.sum())} value(s) that cannot be written to a TREC file "
            f"(first: {first!r}); ids must be non-empty, without whitespace"
            + (", and not start with '#'." if first_field else ".")
        )
    return ids.to_numpy()


def _require_columns(frame, name, columns):
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(
            f"{name} must be a pandas DataFrame with columns {', '.join(columns)}, "
            f"got {type(frame).__name__}."
        )
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{name} is missing column(s) {', '.join(map(repr, missing))}; it has "
            f"{', '.join(map(repr, frame.columns))}. Rename the columns, e.g. "
            f"{name}.rename(columns={{...}})."
        )


def _sort_key(values):
    """Sort key for query ids: the values themselves when they sort, else their strings."""
    series = pd.Series(values)
    try:
        series.sort_values()
    except TypeError:
        return series.astype(str)
    return series


def write_trec_run(run, path, *, tag="sklearn_ltr_metrics", overwrite=False):
    """Write a run as a TREC file: ``qid Q0 doc_id rank score tag`` per line.

    Queries come in sorted order; within a query, ranks 1, 2, ... follow descending score with
    ties broken by ``doc_id`` in descending string order, which is how trec_eval orders a run,
    so the written ranks agree with what trec_eval (and ``ties="trec_eval"``) evaluates.
    Scores are written with the shortest representation that reads back to the same float.

    Parameters
    ----------
    run : pandas.DataFrame
        Columns ``qid``, ``doc_id``, ``score`` (other columns are ignored).
    path : str, os.PathLike or text file object
        Destination; a path is written atomically.
    tag : str, default="sklearn_ltr_metrics"
        Run tag of the last column (no whitespace).
    overwrite : bool, default=False
        Whether an existing file may be replaced.

    Examples
    --------
    >>> import io, sys
    >>> import pandas as pd
    >>> run = pd.DataFrame({"qid": [1, 1, 1, 2], "doc_id": ["a", "b", "c", "d"],
    ...                     "score": [0.5, 2.0, 0.5, 1.0]})
    >>> write_trec_run(run, sys.stdout, tag="demo")
    1 Q0 b 1 2.0 demo
    1 Q0 c 2 0.5 demo
    1 Q0 a 3 0.5 demo
    2 Q0 d 1 1.0 demo
    """
    _require_columns(run, "run", ["qid", "doc_id", "score"])
    if not isinstance(tag, str) or not tag or re.search(r"\s", tag):
        raise ValueError(f"tag must be a non-empty string without whitespace, got {tag!r}.")
    qid = _check_id_column(run["qid"], "run['qid']", first_field=True)
    doc = _check_id_column(run["doc_id"], "run['doc_id']")
    score = check_scores(run["score"], qid, name="run['score']")
    table = pd.DataFrame({"key": _sort_key(run["qid"].to_numpy()), "qid": qid})
    table["doc_id"], table["score"] = doc, score
    table = table.sort_values(
        ["key", "score", "doc_id"], ascending=[True, False, False], kind="mergesort"
    )
    rank = table.groupby("qid", sort=False).cumcount().to_numpy() + 1
    lines = (
        table["qid"]
        + " Q0 "
        + table["doc_id"]
        + " "
        + rank.astype(str)
        + " "
        + table["score"].to_numpy().astype(str)
        + f" {tag}\n"
    )
    with _open_text_target(path, overwrite) as handle:
        handle.write("".join(lines.tolist()))


def write_trec_qrels(qrels, path, *, overwrite=False):
    """Write judgments as a TREC qrels file: ``qid 0 doc_id label`` per line, in input order.

    Integral labels are written as integers (trec_eval reads labels as integers); other labels
    keep their decimals.

    Parameters
    ----------
    qrels : pandas.DataFrame
        Columns ``qid``, ``doc_id``, ``label``; ``(qid, doc_id)`` pairs must be unique.
    path : str, os.PathLike or text file object
        Destination; a path is written atomically.
    overwrite : bool, default=False
        Whether an existing file may be replaced.

    Examples
    --------
    >>> import sys
    >>> import pandas as pd
    >>> qrels = pd.DataFrame({"qid": ["301", "301"], "doc_id": ["FT-1", "FT-2"],
    ...                       "label": [2.0, 0.0]})
    >>> write_trec_qrels(qrels, sys.stdout)
    301 0 FT-1 2
    301 0 FT-2 0
    """
    _require_columns(qrels, "qrels", ["qid", "doc_id", "label"])
    qid = _check_id_column(qrels["qid"], "qrels['qid']", first_field=True)
    doc = _check_id_column(qrels["doc_id"], "qrels['doc_id']")
    label = check_scores(qrels["label"], qid, name="qrels['label']")
    pairs = pd.DataFrame({"qid": qid, "doc_id": doc})
    dup = pairs.duplicated()
    if dup.any():
        first = int(np.flatnonzero(dup.to_numpy())[0])
        raise ValueError(
            f"qrels has {int(dup.sum())} duplicate (qid, doc_id) pair(s) (first at row {first}: "
            f"{(qid[first], doc[first])!r}); trec_eval refuses them. Drop them first, e.g. "
            "qrels.drop_duplicates(['qid', 'doc_id'], keep='last')."
        )
    if np.all(label == np.round(label)):
        text = label.astype(np.int64).astype(str)
    else:
        text = label.astype(str)
    lines = pairs["qid"] + " 0 " + pairs["doc_id"] + " " + text + "\n"
    with _open_text_target(path, overwrite) as handle:
        handle.write("".join(lines.tolist()))


# --------------------------------------------------------------------------------------------
# LETOR / SVMlight
# --------------------------------------------------------------------------------------------


def _scan_letor(data, name, zero_based):
    """Locate the first malformed SVMlight line; raises :class:`DataFormatError`.

    Returns a list of booleans (one per data row: has a ``qid:``) if every line is well formed.
    """
    has_qid = []
    text = data.decode("utf-8", errors="replace")
    for number, raw in enumerate(text.split("\n"), start=1):
        fields = raw.split("#", 1)[0].split()
        if not fields:
            continue
        if _as_number(fields[0]) is None:
            raise DataFormatError(
                name, number, f"label {fields[0]!r} is not a number: {_show(raw)}"
            )
        rest = fields[1:]
        with_qid = bool(rest) and rest[0].startswith("qid:")
        if with_qid:
            value = rest[0][4:]
            if not re.fullmatch(r"[+-]?[0-9]+", value):
                raise DataFormatError(
                    name, number, f"query id {rest[0]!r} is not 'qid:<integer>': {_show(raw)}"
                )
            rest = rest[1:]
        has_qid.append(with_qid)
        previous = -1
        for token in rest:
            index, sep, value = token.partition(":")
            if not sep or not re.fullmatch(r"[0-9]+", index) or _as_number(value) is None:
                raise DataFormatError(
                    name,
                    number,
                    f"feature {token!r} is not '<index>:<number>'"
                    + (" (qid: must come right after the label)" if index == "qid" else "")
                    + f": {_show(raw)}",
                )
            if int(index) <= previous:
                raise DataFormatError(
                    name,
                    number,
                    f"feature indices must increase along a line, got {token!r} after "
                    f"index {previous}: {_show(raw)}",
                )
            if zero_based is False and int(index) == 0:
                raise DataFormatError(
                    name,
                    number,
                    f"feature index 0 in a one-based file (zero_based=False): {_show(raw)}",
                )
            previous = int(index)
    return has_qid


def _read_query_sizes(source, name_data, n_rows):
    """Read a LightGBM ``.query`` sidecar (one group size per line) and check the total."""
    text, name = _read_text(source)
    sizes = []
    for number, raw in enumerate(text.split("\n"), start=1):
        token = raw.strip()
        if not token:
            continue
        if not re.fullmatch(r"\+?[0-9]+", token) or int(token) < 1:
            raise DataFormatError(
                name,
                number,
                f"expected one query size (an integer >= 1) per line, got {_show(raw)}",
            )
        sizes.append(int(token))
    sizes = np.asarray(sizes, dtype=np.int64)
    if sizes.sum() != n_rows:
        raise DataFormatError(
            name,
            None,
            f"the {len(sizes)} query sizes sum to {int(sizes.sum())}, but {name_data} has "
            f"{n_rows} rows; the sidecar does not belong to this file.",
        )
    return sizes


def read_letor(path, *, query_path=None, n_features=None, dense=True, zero_based="auto"):
    """Read a LETOR / SVMlight ranking file into ``(X, y, qid)``.

    Lines read ``label qid:<int> <index>:<value> ... # comment``; zero features may be
    omitted, text after ``#`` is ignored (LETOR's ``#docid = GX...``). Without ``qid:``
    fields, query ids come from a LightGBM ``.query`` sidecar of group sizes (one per line,
    for consecutive rows): ``query_path``, or ``path + ".query"`` when that file exists; the
    ids are then ``0 .. n_groups - 1``.

    Parameters
    ----------
    path : str, os.PathLike or file object
        The data file.
    query_path : str, os.PathLike or file object, optional
        Group sizes for a file without ``qid:`` fields.
    n_features : int, optional
        Number of feature columns; default: the highest index in the file. Pass it to align
        a train and a test file.
    dense : bool, default=True
        Return ``X`` as a dense float64 ndarray; False gives a ``scipy.sparse`` CSR matrix.
    zero_based : bool or "auto", default="auto"
        Whether feature indices start at 0. "auto" (scikit-learn's rule) treats a file
        without index 0 as one-based, as LETOR files are.

    Returns
    -------
    X : ndarray or scipy.sparse.csr_matrix of shape (n_rows, n_features)
    y : ndarray of shape (n_rows,), float64
    qid : ndarray of shape (n_rows,), int64

    Raises
    ------
    DataFormatError
        A malformed line (with its number), ``qid:`` on some lines only, a sidecar whose
        sizes do not add up to the number of rows (naming both files), or neither ``qid:``
        nor a sidecar.

    Examples
    --------
    >>> import io
    >>> data = b'''2 qid:10 1:0.5 3:1.0 #docid = GX000-00-0000001
    ... 0 qid:10 2:0.25
    ... 1 qid:11 1:1.0 2:0.5 3:0.5
    ... '''
    >>> X, y, qid = read_letor(io.BytesIO(data))
    >>> X
    array([[0.5 , 0.  , 1.  ],
           [0.  , 0.25, 0.  ],
           [1.  , 0.5 , 0.5 ]])
    >>> y, qid
    (array([2., 0., 1.]), array([10, 10, 11]))
    >>> X, y, qid = read_letor(io.BytesIO(b"1 1:0.5\\n0 1:0.1\\n1 1:0.9\\n"),
    ...                        query_path=io.StringIO("2\\n1\\n"))
    >>> qid
    array([0, 0, 1])
    """
    from sklearn.datasets import load_svmlight_file

    if zero_based not in (True, False, "auto"):
        raise ValueError(f"zero_based must be True, False or 'auto', got {zero_based!r}.")
    data, name = _read_bytes(path)
    try:
        X, y, qid = load_svmlight_file(
            io.BytesIO(data),
            n_features=n_features,
            dtype=np.float64,
            zero_based=zero_based,
            query_id=True,
        )
    except ValueError as exc:
        _scan_letor(data, name, zero_based)
        raise DataFormatError(name, None, str(exc)) from None
    n_rows = X.shape[0]
    if n_rows == 0:
        raise DataFormatError(name, None, "holds no data lines (only comments or blank lines)")
    if 0 < len(qid) < n_rows:
        has_qid = np.asarray(_scan_letor(data, name, zero_based))
        first = int(np.flatnonzero(~has_qid)[0])
        line = _data_line_numbers(data)[first]
        raise DataFormatError(
            name,
            line,
            f"no qid: field, but other lines have one ({int((~has_qid).sum())} of {n_rows} "
            "rows lack it); give every line a qid: or none.",
        )
    if len(qid) and query_path is not None:
        raise ValueError(
            f"{name} has qid: fields and query_path={_source_name(query_path)!r} was given too; "
            "pass one source of query ids, e.g. drop query_path."
        )
    if not len(qid):
        if query_path is None and not hasattr(path, "read"):
            sidecar = Path(f"{os.fspath(path)}.query")
            query_path = sidecar if sidecar.is_file() else None
        if query_path is None:
            raise DataFormatError(
                name,
                None,
                "has no qid: fields and no query-size sidecar was found (looked for "
                f"{name + '.query'!r}); add qid:<id> after each label, or pass query_path=.",
            )
        sizes = _read_query_sizes(query_path, name, n_rows)
        qid = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    qid = np.asarray(qid, dtype=np.int64)
    X = X.toarray() if dense else X.tocsr()
    return X, np.asarray(y, dtype=np.float64), qid


def _data_line_numbers(data):
    """Physical line numbers of the SVMlight data rows (not blank, not only a comment)."""
    text = data.decode("utf-8", errors="replace")
    return [
        number
        for number, raw in enumerate(text.split("\n"), start=1)
        if raw.split("#", 1)[0].strip()
    ]


def write_letor(X, y, qid, path, *, overwrite=False):
    """Write ``(X, y, qid)`` as a LETOR / SVMlight file with one-based feature indices.

    Rows are written in the given order (LightGBM and LETOR tools expect the rows of a query
    to be contiguous: sort by ``qid`` first if they are not). Zero features are omitted.
    Values go through :func:`sklearn.datasets.dump_svmlight_file` (16 significant digits,
    so a value may read back one unit in the last place away).

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_rows, n_features)
    y : array-like of shape (n_rows,)
    qid : array-like of shape (n_rows,) of integers, or None
        Query ids, written as ``qid:<id>``; None writes no query ids.
    path : str, os.PathLike or binary file object
        Destination; a path is written atomically.
    overwrite : bool, default=False
        Whether an existing file may be replaced.

    Examples
    --------
    >>> import io
    >>> buffer = io.BytesIO()
    >>> write_letor([[0.5, 0.0], [0.0, 1.0]], [1, 0], [7, 7], buffer)
    >>> print(buffer.getvalue().decode(), end="")
    1 qid:7 1:0.5
    0 qid:7 2:1
    """
    import scipy.sparse as sp
    from sklearn.datasets import dump_svmlight_file

    if not sp.issparse(X):
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n_rows, n_features), got shape {X.shape}.")
    y = check_1d(y, "y", dtype=np.float64)
    if qid is not None:
        qid_values = check_1d(qid, "qid")
        if qid_values.dtype.kind not in "iu":
            as_float = pd.to_numeric(pd.Series(qid_values), errors="coerce").to_numpy()
            if np.isnan(as_float).any() or not np.all(as_float == np.round(as_float)):
                raise TypeError(
                    f"qid must hold integers to be written as qid:<int>, got dtype "
                    f"{qid_values.dtype} (e.g. {qid_values[0]!r}); map ids to integers "
                    "first, e.g. pd.factorize(qid)[0]."
                )
            qid_values = as_float
        qid = qid_values.astype(np.int64)
    check_consistent_length(X=np.empty(X.shape[0]), y=y, qid=qid)
    if hasattr(path, "write"):
        dump_svmlight_file(X, y, path, zero_based=False, query_id=qid)
        return
    with atomic_write_path(path, overwrite=overwrite) as tmp:
        dump_svmlight_file(X, y, str(tmp), zero_based=False, query_id=qid)


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
