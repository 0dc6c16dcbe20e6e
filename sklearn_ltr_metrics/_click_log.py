"""The click-log schema: one row per shown document and session, shared by ``clicks`` and ``io``.

A click log is a :class:`pandas.DataFrame` with the columns

``session``
    Integer id of the session (one query issued once, one ranked list shown).
``qid``
    The query id of the session (any hashable ids, as the ``qid`` of :func:`evaluate`).
``row``
    Non-negative integer: the index, in the arrays the ranking came from (``y_true``,
    ``y_score``, ``qid``...), of the document shown.
``rank``
    1-based position at which the document was shown in the session.
``click``
    Whether the document was clicked (bool, or 0/1 integers).

Optional columns: ``top_row`` (RandPair logs: the ``row`` the logging ranker had at rank 1
before the swap, repeated on every line of the session) and ``team`` (interleaved logs).
A session shows each rank at most once and belongs to one query.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._validation import check_columns, short_repr

__all__ = ["LOG_COLUMNS", "check_click_log"]

#: The columns every click log has, in their documented order.
LOG_COLUMNS = ("session", "qid", "row", "rank", "click")


def _integers(frame, column, name, minimum):
    values = frame[column]
    if not (pd.api.types.is_integer_dtype(values.dtype) and not values.isna().any()):
        raise TypeError(
            f"{name}[{column!r}] must hold integers without missing values, got dtype "
            f"{values.dtype}; e.g. {name}[{column!r}].astype('int64')."
        )
    arr = values.to_numpy(dtype=np.int64)
    if arr.size and arr.min() < minimum:
        first = int(np.flatnonzero(arr < minimum)[0])
        raise ValueError(
            f"{name}[{column!r}] must be >= {minimum}, got {arr[first]!r} at line {first}."
        )
    return arr


def _clicks(frame, name):
    values = frame["click"]
    if pd.api.types.is_bool_dtype(values.dtype) and not values.isna().any():
        return values.to_numpy(dtype=bool)
    arr = _integers(frame, "click", name, 0)
    if arr.size and arr.max() > 1:
        first = int(np.flatnonzero(arr > 1)[0])
        raise ValueError(
            f"{name}['click'] must be 0/1 or bool, got {arr[first]!r} at line {first}."
        )
    return arr.astype(bool)


def _check_sessions(session, rank, qid_codes, name):
    """Each session shows a rank once and belongs to one query (sorted check, one pass)."""
    order = None
    if session.size > 1 and not (
        (np.diff(session) >= 0).all() and (np.diff(rank)[np.diff(session) == 0] > 0).all()
    ):
        order = np.lexsort((rank, session))
    s = session if order is None else session[order]
    r = rank if order is None else rank[order]
    q = qid_codes if order is None else qid_codes[order]
    same = s[1:] == s[:-1]
    dup = same & (r[1:] == r[:-1])
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        raise ValueError(
            f"{name} shows rank {r[i]!r} twice in session {s[i]!r}; a session shows one "
            "document per rank."
        )
    mixed = same & (q[1:] != q[:-1])
    if mixed.any():
        i = int(np.flatnonzero(mixed)[0])
        raise ValueError(
            f"{name}'s session {s[i]!r} has lines of two queries; a session belongs to one query."
        )


def check_click_log(log, name="log", *, click=True):
    """The arrays of a click log, checked: a dict of ``session``, ``qid``, ``row``, ``rank``
    (int64, ``qid`` as given), ``click`` (bool, when ``click``) and ``qid_codes`` (dense codes
    of the sorted query ids) with ``qid_values`` (the ids).

    Examples
    --------
    >>> import pandas as pd
    >>> log = pd.DataFrame({"session": [0, 0], "qid": ["a", "a"], "row": [3, 1],
    ...                     "rank": [1, 2], "click": [0, 1]})
    >>> check_click_log(log)["click"].tolist()
    [False, True]
    """
    columns = LOG_COLUMNS if click else LOG_COLUMNS[:-1]
    frame = check_columns(log, name, columns)
    if len(frame) == 0:
        raise ValueError(f"{name} is empty; a click log needs at least one shown document.")
    if frame["qid"].isna().any():
        raise ValueError(f"{name}['qid'] has missing values; every line needs its query id.")
    from ._engine import factorize_qid

    qid = frame["qid"].to_numpy()
    try:
        qid_codes, qid_values = factorize_qid(qid, f"{name}['qid']")
    except TypeError as exc:
        raise TypeError(f"{name}['qid'] must hold query ids of one kind: {exc}") from None
    arrays = {
        "session": _integers(frame, "session", name, 0),
        "qid": qid,
        "row": _integers(frame, "row", name, 0),
        "rank": _integers(frame, "rank", name, 1),
        "qid_codes": np.asarray(qid_codes, dtype=np.int64),
        "qid_values": np.asarray(qid_values),
    }
    if click:
        arrays["click"] = _clicks(frame, name)
    _check_sessions(arrays["session"], arrays["rank"], arrays["qid_codes"], name)
    return arrays


def check_rows_in(row, n_rows, name, array_name):
    """Refuse a ``row`` that indexes past the ``n_rows`` rows of ``array_name``."""
    if row.size and row.max() >= n_rows:
        raise ValueError(
            f"{name}['row'] indexes row {int(row.max())}, but {array_name} has {n_rows} rows; "
            f"the log's rows index the arrays the ranking came from ({short_repr(array_name)})."
        )
