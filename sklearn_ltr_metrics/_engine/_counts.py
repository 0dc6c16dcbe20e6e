"""Count per query: the relevant and the other rows of every query, and the table's count columns.

The relevant rows are counted by the grouping (the compiled ``segment_count``/``code_count``
of ``_sums``, in threads), usually while the support is ranked; ``query_stats`` may add
relevant (and non-relevant) documents the ranker did not score, aligned here onto the
grouping's query ids. The divisions of the table (difficulty, the metrics' ratios) are one
compiled pass each (``divide_or_nan``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import _sums, _threads

__all__ = [
    "QueryCounts",
    "difficulty_values",
    "divide_or_nan",
    "float_copy",
    "query_counts",
    "table_counts",
]


def float_copy(values, n_threads):
    """A float64 copy of per-query ``values`` (float64 or int64), written in threads: with a
    million queries, serial copies are a share of an evaluation that shows at 16 threads."""
    if values.ndim == 1 and values.dtype in (np.float64, np.int64):
        return _sums.as_float64(np.ascontiguousarray(values), n_threads, _threads.grain())
    return values.astype(np.float64)


def divide_or_nan(numerator, denominator, n_threads=1):
    """``numerator / denominator`` as float64, NaN where the denominator is not above 0.

    Arrays of one length are divided in one compiled pass (in ``n_threads`` threads); other
    shapes broadcast, with one division and a fill of the undefined places. No array of NaN
    is written first.

    >>> divide_or_nan([1, 4, 3], [2, 0, -1]).tolist()
    [0.5, nan, nan]
    """
    numerator = np.asarray(numerator)
    denominator = np.asarray(denominator, dtype=np.float64)
    if numerator.ndim == 1 and numerator.shape == denominator.shape:
        return _sums.divide_or_nan(
            np.ascontiguousarray(numerator, dtype=np.float64),
            np.ascontiguousarray(denominator),
            n_threads,
            _threads.grain(),
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.asarray(np.true_divide(numerator, denominator, dtype=np.float64))
    undefined = ~(denominator > 0)
    if undefined.any():
        out[np.broadcast_to(undefined, out.shape)] = np.nan
    return out


def table_counts(n_pos, n_neg, n_threads=1):
    """``(n_neg, difficulty)`` of the table: ``n_neg`` as int64 and :func:`difficulty_values`,
    in one compiled pass (in ``n_threads`` threads).

    >>> n_neg, difficulty = table_counts([1.0, 4.0, 0.0], [9.0, 2.0, 5.0])
    >>> n_neg.tolist(), difficulty.tolist()
    ([9, 2, 5], [9.0, 0.5, nan])
    """
    return _sums.table_counts(
        np.ascontiguousarray(n_neg, dtype=np.float64),
        np.ascontiguousarray(n_pos, dtype=np.float64),
        n_threads,
        _threads.grain(),
    )


def difficulty_values(n_pos, n_neg, n_threads=1):
    """Difficulty ``n_neg / n_pos`` per query; NaN where ``n_pos`` is 0 (no relevant document).

    >>> difficulty_values([1, 4, 0], [9, 2, 5]).tolist()
    [9.0, 0.5, nan]
    """
    return divide_or_nan(n_neg, n_pos, n_threads)


@dataclass(frozen=True)
class QueryCounts:
    """The per-query counts of one evaluation.

    Attributes
    ----------
    counted : ndarray of intp
        Relevant rows of each query, as the grouping counted them.
    counted_pos : ndarray of float64
        ``counted`` as float64.
    n_pos, n_neg : ndarray
        Relevant and other documents of each query (the judged ones, or ``query_stats``, may
        add documents the ranker did not score): the denominators of the metrics.
    """

    counted: np.ndarray
    counted_pos: np.ndarray
    n_pos: np.ndarray
    n_neg: np.ndarray

    @property
    def n_pos_column(self):
        """The table's ``n_pos``: the counted rows themselves when nothing overrides them."""
        counted = self.counted if self.n_pos is self.counted_pos else self.n_pos
        return counted.astype(np.int64, copy=False)


def query_counts(grouping, is_relevant, *, n_pos_judged=None, query_stats=None, n_threads=1):
    """:class:`QueryCounts` of the ``is_relevant`` rows (a mask or an ``active_rule``).

    ``n_pos_judged``: the relevant judged documents of each query (TREC input), which replace
    the counted rows as ``n_pos``; ``query_stats``: a table of ``n_pos`` (and ``n_neg``) per
    query id, which may add documents the ranker did not score (NaN: keep the count).
    """
    counted = grouping.count(is_relevant)  # intp; free when the ranking counted them
    counted_pos, n_neg = _sums.count_columns(  # as float64, and sizes - counted_pos
        np.ascontiguousarray(grouping.sizes, dtype=np.intp),
        np.ascontiguousarray(counted, dtype=np.intp),
        n_threads,
        _threads.grain(),
    )
    n_pos = counted_pos if n_pos_judged is None else n_pos_judged
    if query_stats is not None:
        n_pos, n_neg = _with_query_stats(query_stats, grouping.uniques, counted_pos, n_pos, n_neg)
    return QueryCounts(counted, counted_pos, n_pos, n_neg)


def _with_query_stats(query_stats, uniques, counted_pos, n_pos, n_neg):
    """``(n_pos, n_neg)`` with the counts of ``query_stats`` where it gives them."""
    override_pos, override_neg = _aligned_query_stats(query_stats, uniques)
    bad = ~np.isnan(override_pos) & (override_pos < counted_pos)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"query_stats gives n_pos={override_pos[first]:g} for query "
            f"{uniques[first]!r}, but "
            f"y_true has {counted_pos[first]:g} relevant rows there; n_pos can only add "
            "relevant documents the ranker did not score."
        )
    n_pos = np.where(np.isnan(override_pos), n_pos, override_pos)
    if override_neg is not None:
        n_neg = np.where(np.isnan(override_neg), n_neg, override_neg)
    return n_pos, n_neg


def _count_column(values, name, *, integral=True):
    """A query_stats count column as float64, NaN for absent queries; refuse bad counts."""
    bad = ~np.isnan(values) & ~(np.isfinite(values) & (values >= 0))
    if integral:
        bad |= np.isfinite(values) & (values != np.floor(values))
    if bad.any():
        raise ValueError(
            f"query_stats[{name!r}] has {int(bad.sum())} invalid value(s) (first "
            f"{values[np.flatnonzero(bad)[0]].item()!r}); counts must be finite integers >= 0."
        )
    return values


def _aligned_query_stats(query_stats, uniques):
    """Map a query_stats table onto the sorted unique qids: (n_pos, n_neg) arrays or NaN."""
    if not isinstance(query_stats, pd.DataFrame):
        raise TypeError(
            "query_stats must be a pandas DataFrame indexed by qid (or with a 'qid' or 'query_id' "
            f"column) holding n_pos (and optionally n_neg), got {type(query_stats).__name__}."
        )
    table = query_stats
    for key in ("qid", "query_id"):
        if key in table.columns:
            table = table.set_index(key)
            break
    if "n_pos" not in table.columns:
        raise ValueError(f"query_stats needs an 'n_pos' column; it has {list(table.columns)}.")
    index = pd.Index(uniques)
    try:
        aligned = table.reindex(index)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"query_stats ids cannot be matched to qid: {exc}") from None
    out = []
    for name in ("n_pos", "n_neg"):
        if name not in aligned:
            out.append(None)
            continue
        try:
            values = aligned[name].to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError):
            raise TypeError(
                f"query_stats[{name!r}] must hold numbers, got dtype {aligned[name].dtype}."
            ) from None
        out.append(_count_column(values, name))
    return out[0], out[1]
