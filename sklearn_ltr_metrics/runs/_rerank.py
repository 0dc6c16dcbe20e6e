"""Reranking cascades: a second stage reorders the top of a first-stage run, nothing else.

Retrieval sets the ceiling and reranking only reorders within it: the top ``depth`` documents
of each query are reordered by the second stage's scores, and every document below keeps its
first-stage place. The set of the top ``depth`` documents does not change, so Recall@depth is
the first stage's by construction (the ceiling rule the stage table checks).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import check_positive_int, check_scores, take_rows
from ._stack import RUN_COLUMNS, check_run

__all__ = ["rank_run", "rerank"]


def rank_run(run):
    """``run`` sorted into its ranking, with a 0-based ``position`` column per query.

    Queries in order of first appearance; documents by score descending, ties by ``doc_id``
    descending (trec_eval's order, which :func:`evaluate_run` uses by default).
    """
    query = pd.factorize(run["qid"])[0]
    ranked = run.assign(_query=query).sort_values(
        ["_query", "score", "doc_id"], ascending=[True, False, False], kind="stable"
    )
    sizes = np.bincount(query)
    starts = np.cumsum(sizes) - sizes
    position = np.arange(len(ranked)) - np.repeat(starts, sizes)
    return ranked.drop(columns="_query").assign(position=position)


def _second_stage(top, scores, X, n_rows):
    """The second stage's score of each row of ``top`` (a frame or an estimator)."""
    if isinstance(scores, pd.DataFrame):
        given = check_run(scores, "scores")
        merged = top[["qid", "doc_id"]].merge(
            given.drop_duplicates(["qid", "doc_id"]), on=["qid", "doc_id"], how="left"
        )
        missing = merged["score"].isna().to_numpy()
        if missing.any():
            first = merged[missing].iloc[0]
            raise ValueError(
                f"scores has no score for document {first['doc_id']!r} of query "
                f"{first['qid']!r}, which is in the top depth of run ({int(missing.sum())} such "
                "documents); score every (qid, doc_id) of the run's top depth."
            )
        return merged["score"].to_numpy(np.float64)
    if not hasattr(scores, "predict"):
        raise TypeError(
            "scores must be a DataFrame (qid, doc_id, score) or a fitted estimator with "
            f"predict, got {type(scores).__name__}."
        )
    if X is None:
        raise TypeError(
            "rerank with an estimator needs X=, the features of the run's rows (row-aligned "
            "with run)."
        )
    if X.shape[0] != n_rows:
        raise ValueError(f"X has {X.shape[0]} rows but run has {n_rows}; align them.")
    rows = take_rows(X, top.index.to_numpy())
    predicted = np.asarray(scores.predict(rows), dtype=np.float64).ravel()
    return check_scores(predicted, None, "scores.predict(X)")


def rerank(run, scores, depth=100, *, X=None):
    """Reorder the top ``depth`` documents of each query by a second stage; keep the rest.

    Parameters
    ----------
    run : DataFrame
        The first stage: columns ``qid``, ``doc_id``, ``score``. Its ranking is by score
        descending, ties by ``doc_id`` descending (trec_eval's order).
    scores : DataFrame or estimator
        The second stage: a frame ``qid, doc_id, score`` scoring (at least) every document of
        the top ``depth`` of each query (others are ignored), or a fitted estimator whose
        ``predict(X)`` scores rows (a :class:`~sklearn_ltr_metrics.LambdaMARTRanker`, say).
    depth : int, default=100
        How many documents of each query's first-stage ranking the second stage reorders.
    X : array-like, DataFrame or sparse matrix, optional
        With an estimator: the features of the run's rows, row-aligned with ``run``; only
        the rows of the top ``depth`` are predicted.

    Returns
    -------
    DataFrame
        The cascade's run, columns ``qid``, ``doc_id``, ``score``, one row per row of
        ``run``, queries in order of first appearance and documents in the cascade's order:
        the top ``depth`` by the second stage's score (ties in first-stage order), then the
        rest in first-stage order. ``score`` is ``n_docs - position`` for each query (the
        second stage's raw scores need not lie above the first stage's), so the frame ranks
        as it is ordered.

    Notes
    -----
    Evaluated with :func:`~sklearn_ltr_metrics.metrics.evaluate_run`, the relevant documents
    the first stage missed stay in ``n_pos`` (they come from the qrels), and the top ``depth``
    holds the first stage's documents, so ``recall@depth`` is the first stage's.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_ltr_metrics.runs import rerank
    >>> bm25 = pd.DataFrame({"qid": "q1", "doc_id": list("abcd"), "score": [4.0, 3, 2, 1]})
    >>> cross_encoder = pd.DataFrame({"qid": "q1", "doc_id": list("abc"), "score": [.1, .9, .5]})
    >>> rerank(bm25, cross_encoder, depth=3)
      qid doc_id  score
    0  q1      b    4.0
    1  q1      c    3.0
    2  q1      a    2.0
    3  q1      d    1.0
    """
    run = check_run(run, "run").reset_index(drop=True)
    depth = check_positive_int(depth, "depth")
    if X is not None and not hasattr(X, "shape"):
        X = np.asarray(X)
    ranked = rank_run(run)
    position = ranked["position"].to_numpy()
    in_top = position < depth
    second = np.zeros(len(ranked))
    second[in_top] = _second_stage(ranked[in_top], scores, X, len(run))
    query = pd.factorize(ranked["qid"])[0]
    # Top rows by the second stage (ties in first-stage order), then the rest as they were.
    band = np.where(in_top, 0, 1)
    key = np.where(in_top, -second, position)
    order = np.lexsort((position, key, band, query))
    out = ranked.iloc[order]
    sizes = np.bincount(query)
    final = np.arange(len(out)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    return pd.DataFrame(
        {
            "qid": out["qid"].array,
            "doc_id": out["doc_id"].array,
            "score": (sizes[query[order]] - final).astype(np.float64),
        },
        columns=list(RUN_COLUMNS),
    )
