"""Cut-offs: ints, lists, the whole list and per-query strategies, expanded into pairs.

A cut-off spec is checked once (:func:`parse_cutoff`, which the metric registry calls) and,
once the per-query counts are known, turned into *pairs* ``(query, k)``: every query gets one
or more cut-offs (sorted, de-duplicated, each >= 1). Metric kernels evaluate all pairs at
once; a query's value for a metric is the mean over its pairs.

``k = ALL`` (``numpy.inf``) stands for the whole list.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["ALL", "STRATEGIES", "cutoff_label", "cutoff_pairs", "parse_cutoff"]

ALL = np.inf
#: The largest cut-off: cut-offs are exact in float64 up to it.
MAX_K = 2**53


def _adaptive(n_pos, n_neg):
    n_pos = np.asarray(n_pos, dtype=np.float64)
    low = np.column_stack([np.ones_like(n_pos), np.full_like(n_pos, 3), n_pos, n_pos])
    mid = np.column_stack(
        [np.full_like(n_pos, 5), np.full_like(n_pos, 10), np.full_like(n_pos, 20), n_pos]
    )
    high = np.column_stack(
        [np.full_like(n_pos, 10), np.full_like(n_pos, 20), np.full_like(n_pos, 50), n_pos]
    )
    return np.where((n_pos < 10)[:, None], low, np.where((n_pos < 50)[:, None], mid, high))


def _percentile(n_pos, n_neg):
    n_pos = np.asarray(n_pos, dtype=np.float64)
    fractions = np.array([0.10, 0.25, 0.50, 0.75, 1.0])
    # Round before ceil so that 0.1 * 120 (= 12.000000000000002) gives 12, not 13.
    return np.ceil(np.round(n_pos[:, None] * fractions, 9))


def _capped(n_pos, n_neg):
    n_pos = np.asarray(n_pos, dtype=np.float64)
    return np.minimum(np.array([5.0, 10.0, 20.0, 50.0, 100.0]), n_pos[:, None])


#: The methodology's per-query cut-off strategies: name -> f(n_pos, n_neg) -> (n_queries, m).
STRATEGIES = {"adaptive": _adaptive, "percentile": _percentile, "capped": _capped}


def _int_text(value, limit=60):
    """An integer as an error message shows it: its digits, cut to ``limit`` characters."""
    text = str(int(value))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _check_int_k(value, source):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"k={value!r}{source} is not a valid cut-off; use an int >= 1, None or 'all' for the "
            f"whole list, a list of ints, one of {', '.join(map(repr, STRATEGIES))}, or a callable."
        )
    if value < 1:
        raise ValueError(
            f"k={_int_text(value)}{source} must be >= 1 (a cut-off counts ranks from 1)."
        )
    if value > MAX_K:
        raise ValueError(
            f"k={_int_text(value)}{source} is too large; a cut-off must be <= 2**53 "
            "(use k=None or 'all' for the whole list)."
        )
    return int(value)


def parse_cutoff(k, *, source=""):
    """Normalise a cut-off spec.

    Returns ``None`` (whole list), an int, a tuple of ints, a strategy name, or a callable.
    String ints (``"10"``) from metric specs become ints. ``source`` is appended to error
    messages (e.g. ``" in metric 'ndcg@x'"``).
    """
    if k is None or (isinstance(k, str) and k.lower() == "all"):
        return None
    if isinstance(k, str):
        text = k.strip().lower()
        if text in STRATEGIES:
            return text
        if text.lstrip("+-").isdigit():
            return _check_int_k(int(text), source)
        if "," in text and all(part.strip().lstrip("+-").isdigit() for part in text.split(",")):
            # "5,10,20": the column name of a list cut-off reads back as that list.
            return parse_cutoff([int(part) for part in text.split(",")], source=source)
        raise ValueError(
            f"k={k!r}{source} is not a valid cut-off; use an int >= 1, 'all', or one of "
            f"{', '.join(map(repr, STRATEGIES))}."
        )
    if callable(k):
        return k
    if isinstance(k, (list, tuple, np.ndarray)):
        values = tuple(_check_int_k(v, source) for v in k)
        if not values:
            raise ValueError(f"k=[]{source} is empty; give at least one cut-off.")
        return tuple(sorted(set(values)))
    return _check_int_k(k, source)


def cutoff_label(k):
    """The text of a parsed cut-off inside a metric spec (``"10"``, ``"adaptive"``...)."""
    if k is None:
        return None
    if isinstance(k, str):
        return k
    if isinstance(k, tuple):
        return ",".join(map(str, k))
    if callable(k):
        return getattr(k, "__name__", "custom")
    return str(k)


def _table_to_pairs(table):
    """Rows of candidate cut-offs -> sorted unique pairs, each cut-off clipped to >= 1."""
    table = np.maximum(np.asarray(table, dtype=np.float64), 1.0)
    n_q = table.shape[0]
    table = np.sort(table, axis=1)
    keep = np.ones_like(table, dtype=bool)
    keep[:, 1:] = table[:, 1:] != table[:, :-1]
    query = np.broadcast_to(np.arange(n_q)[:, None], table.shape)
    return query[keep].astype(np.intp), table[keep]


def cutoff_pairs(k, n_pos, n_neg):
    """Expand a parsed cut-off into ``(pair_query, pair_k)`` arrays.

    ``pair_query`` is sorted, or None for one pair per query in query order (an int ``k``,
    or None: the whole list); ``pair_k`` holds float cut-offs (``inf`` = whole list). One
    cut-off for every query is a read-only view of one value (no array of one per query).
    """
    n_pos = np.asarray(n_pos)
    n_q = n_pos.shape[0]
    if k is None or isinstance(k, int):
        return None, np.broadcast_to(np.float64(ALL if k is None else k), (n_q,))
    if isinstance(k, tuple):
        table = np.broadcast_to(np.asarray(k, dtype=np.float64), (n_q, len(k)))
        return _table_to_pairs(table)
    if isinstance(k, str):
        return _table_to_pairs(STRATEGIES[k](n_pos, n_neg))
    # A user callable: called once per distinct (n_pos, n_neg), never once per row.
    stats = np.column_stack([n_pos, np.asarray(n_neg)]).astype(np.int64)
    distinct, inverse = np.unique(stats, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    per_distinct = []
    for p, q in distinct:
        values = k(int(p), int(q))
        if np.isscalar(values):
            values = [values]
        elif not isinstance(values, (list, tuple, np.ndarray, range)):
            raise TypeError(
                f"The k callable returned {values!r:.60} for n_pos={p}, n_neg={q}; it must "
                "return an int >= 1 or a list of them."
            )
        cleaned = sorted({_check_int_k(v, " returned by the k callable") for v in values})
        if not cleaned:
            raise ValueError(f"The k callable returned no cut-off for n_pos={p}, n_neg={q}.")
        per_distinct.append(cleaned)
    width = max(len(v) for v in per_distinct) if per_distinct else 1
    padded = np.full((len(per_distinct), width), np.nan)
    for row, values in enumerate(per_distinct):
        padded[row, : len(values)] = values
    table = padded[inverse]
    keep = ~np.isnan(table)
    query = np.broadcast_to(np.arange(n_q, dtype=np.intp)[:, None], table.shape)
    return query[keep], table[keep]
