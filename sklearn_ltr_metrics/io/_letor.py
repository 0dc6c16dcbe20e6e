"""LETOR / SVMlight files, with ``qid:`` fields or a LightGBM ``.query`` sidecar."""

from __future__ import annotations

import io
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._validation import check_1d, check_consistent_length
from ._base import (
    DataFormatError,
    _as_number,
    _read_bytes,
    _read_text,
    _show,
    _source_name,
    _strip_bom,
    _why_not_a_number,
    atomic_write_path,
    io_doc,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import PathOrFile

_INT64_MAX = 2**63 - 1
# An underscore outside a comment: Python's float() would read 1_000 where C readers stop.
_UNDERSCORE = re.compile(rb"(?m)^[^#\n]*_")

__all__ = ["read_letor", "write_letor"]

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
        where = (name, number, raw)
        _check_label(fields[0], where)
        rest = fields[1:]
        with_qid = bool(rest) and rest[0].startswith("qid:")
        if with_qid:
            _check_qid_field(rest[0], where)
            rest = rest[1:]
        has_qid.append(with_qid)
        _check_features(rest, zero_based, where)
    return has_qid


def _check_label(text, where):
    """Refuse a line's label that is not a relevance grade (``where``: file, line, text)."""
    name, number, raw = where
    label = _as_number(text)
    if label is None:
        raise DataFormatError(
            name,
            number,
            f"label {text!r} is not a number ({_why_not_a_number(text)}): {_show(raw)}",
        )
    if not np.isfinite(label) or label < 0:
        raise DataFormatError(
            name,
            number,
            f"label {text!r} is not a relevance grade (a finite number >= 0): {_show(raw)}",
        )


def _check_qid_field(field, where):
    """Refuse a ``qid:`` field that is not a 64-bit integer id."""
    name, number, raw = where
    value = field[4:]
    if not re.fullmatch(r"[+-]?[0-9]+", value):
        raise DataFormatError(
            name, number, f"query id {field!r} is not 'qid:<integer>': {_show(raw)}"
        )
    if abs(int(value)) > _INT64_MAX:
        raise DataFormatError(
            name,
            number,
            f"query id {field!r} does not fit a 64-bit integer (at most "
            f"{_INT64_MAX}); number the queries with smaller ids: {_show(raw)}",
        )


def _check_features(tokens, zero_based, where):
    """Refuse feature tokens that are not ``<index>:<number>`` with increasing indices."""
    name, number, raw = where
    previous = -1
    for token in tokens:
        index, sep, value = token.partition(":")
        if not sep or not re.fullmatch(r"[0-9]+", index) or _as_number(value) is None:
            why = (
                f" ({_why_not_a_number(value)})"
                if sep and re.fullmatch(r"[0-9]+", index)
                else " (qid: must come right after the label)"
                if index == "qid"
                else ""
            )
            raise DataFormatError(
                name, number, f"feature {token!r} is not '<index>:<number>'{why}: {_show(raw)}"
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


def read_letor(
    path: PathOrFile,
    *,
    query_path: PathOrFile | None = None,
    n_features: int | None = None,
    dense: bool = True,
    zero_based: bool | str = "auto",
) -> tuple[Any, np.ndarray, np.ndarray | None]:
    """Read a LETOR / SVMlight ranking file into ``(X, y, qid)``.

    Lines read ``label qid:<int> <index>:<value> ... # comment``; zero features may be
    omitted, text after ``#`` is ignored (LETOR's ``#docid = GX...``). Without ``qid:``
    fields, query ids come from a LightGBM ``.query`` sidecar of group sizes (one per line,
    for consecutive rows): ``query_path``, or ``path + ".query"`` when that file exists; the
    ids are then ``0 .. n_groups - 1``. A UTF-8 byte-order mark at the start is accepted.

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
        A malformed line (with its number): a label that is not a finite number >= 0, a
        ``qid:`` beyond 64-bit integers, a number written with ``_`` (``1_000``, which the
        C readers refuse); ``qid:`` on some lines only, a sidecar whose
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
    data = _strip_bom(data)
    if _UNDERSCORE.search(data):
        _scan_letor(data, name, zero_based)  # raises where float() would take 1_000
    try:
        X, y, qid = load_svmlight_file(
            io.BytesIO(data),
            n_features=n_features,
            dtype=np.float64,
            zero_based=zero_based,
            query_id=True,
        )
    except (ValueError, OverflowError) as exc:
        _scan_letor(data, name, zero_based)
        raise DataFormatError(name, None, " ".join(str(exc).split())) from None
    bad_label = ~np.isfinite(y) | (y < 0)
    if bad_label.any():
        _scan_letor(data, name, zero_based)  # raises at the first bad label, with its line
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


@io_doc
def write_letor(
    X: Any, y: ArrayLike, qid: ArrayLike | None, path: PathOrFile, *, overwrite: bool = False
) -> None:
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
    {overwrite}

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
