"""trec_eval's ``relstring``: the labels of each query's first N ranked documents as a string.

One character per ranked document, as trec_eval 10 prints it (``m_relstring.c``): the label
when it is 0 to 9 (truncated to an integer, as trec_eval reads labels), ``>`` above 9, ``-``
for a document without a judgment (not in the pool), ``.`` for a negative judgment (in the
pool, not judged). The rows are those :func:`evaluate_run` ranks, after ``max_docs`` and
``unjudged="remove"``; a query that ranks nothing has the empty string.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._truncate import ranked_order

__all__ = ["relevance_strings"]

#: Tie policies without an order of their own inside a tied block.
_UNORDERED_TIES = ("average", "label_ranking")


def _characters(labels):
    """One character per label (NaN: no judgment)."""
    labels = np.asarray(labels, dtype=np.float64)
    digits = np.trunc(np.clip(np.nan_to_num(labels, nan=-1.0), 0, 9)).astype(np.int64)
    chars = np.array(list("0123456789"))[digits]
    chars = np.where(labels > 9, ">", chars)
    chars = np.where(labels < 0, ".", chars)
    return np.where(np.isnan(labels), "-", chars)


def _check_defined(chars, scores, rank, length, ties, qid):
    """Under a policy without an order inside a tied block, refuse a string that depends on
    it: a tied block reaching the first ``length`` ranks with two different characters."""
    if ties not in _UNORDERED_TIES or chars.size == 0:
        return
    new_block = np.r_[True, (scores[1:] != scores[:-1]) | (rank[1:] == 0)]
    starts = np.flatnonzero(new_block)
    codes = np.frombuffer(chars.astype("U1").tobytes(), dtype=np.uint32)
    mixed = np.minimum.reduceat(codes, starts) != np.maximum.reduceat(codes, starts)
    shown = mixed & (rank[starts] < length)
    if shown.any():
        where = qid[starts[np.flatnonzero(shown)[0]]]
        raise ValueError(
            f"relstring of query {where!r}: tied documents with different labels share a "
            f"rank among the first {length}, and under ties={ties!r} tied documents have no "
            "order, so the string is not defined. Pass ties='trec_eval' (doc_id descending, "
            "as trec_eval), 'stable', 'pessimistic' or 'optimistic'."
        )


def relevance_strings(labels, scores, qid, doc_id, specs, ties, index):
    """The ``relstring`` columns of ``specs`` (``spec.k`` documents each), indexed by ``index``.

    Parameters
    ----------
    labels : ndarray of shape (n_rows,)
        The ranked rows' judgments, NaN where a row has none.
    scores, qid, doc_id : ndarray of shape (n_rows,)
        Their scores, query ids and document ids.
    specs : list
        The relstring specs (their ``column`` and ``k``).
    ties : str
        The tie policy that orders tied rows.
    index : pandas.Index
        The queries of the evaluation; one that ranks no row gets ``""``.

    Returns
    -------
    pandas.DataFrame
        One string column per spec, indexed by ``index``.
    """
    columns = {}
    if len(specs) == 0:
        return pd.DataFrame(index=index)
    ranked_labels = np.where(np.isnan(labels), -np.inf, labels)
    order, rank = ranked_order(ranked_labels, scores, qid, doc_id, ties)
    chars = _characters(labels)[order]
    sorted_qid, sorted_scores = np.asarray(qid)[order], np.asarray(scores)[order]
    for spec in specs:
        _check_defined(chars, sorted_scores, rank, spec.k, ties, sorted_qid)
        kept = rank < spec.k
        joined = pd.Series(chars[kept]).groupby(sorted_qid[kept], sort=False).agg("".join)
        columns[spec.column] = joined.reindex(index).fillna("").astype(object)
    return pd.DataFrame(columns, index=index)
