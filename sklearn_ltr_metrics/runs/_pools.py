"""Judgment pools: what to judge, and how much a run would lose had it not been pooled.

Relevance judgments of a test collection come from pooling: the union of the top ``depth``
documents of the runs submitted, judged by assessors; every other document counts as
non-relevant. A new run whose relevant documents never made it into the pool is penalised
(pool bias). The classic measurement (Zobel, 1998) removes each pooled run in turn: the
judgments of the documents only that run contributed are dropped, the run is re-evaluated,
and the loss is what it would have scored had it not been pooled. Condensed lists (unjudged
documents removed before ranking, ``unjudged="remove"``; Sakai, 2007) are the usual remedy,
reported beside.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._doc_link import doc_parts
from .._validation import check_columns, check_positive_int
from ..metrics import evaluate_run
from ._rerank import rank_run
from ._stack import check_runs

__all__ = ["POOL_REPORT_COLUMNS", "make_pool", "pool_report"]

#: Columns of the table :func:`pool_report` returns, in order.
POOL_REPORT_COLUMNS = (
    "run",
    "metric",
    "n_unique",
    "n_unique_relevant",
    "full",
    "pruned",
    "loss",
    "condensed",
)


#: Fill a docstring's line ``{two_runs}``: the two runs of one query the examples pool.
_pool_doc = doc_parts(
    {
        "two_runs": """\
>>> import pandas as pd
>>> a = pd.DataFrame({"qid": "1", "doc_id": ["x", "y", "z"], "score": [3.0, 2, 1]})
>>> b = pd.DataFrame({"qid": "1", "doc_id": ["y", "w", "x"], "score": [3.0, 2, 1]})"""
    }
)


def _tops(names, frames, depth):
    """The top ``depth`` (qid, doc_id) of every run, one frame with a ``run`` column."""
    parts = []
    for name, frame in zip(names, frames, strict=True):
        ranked = rank_run(frame)
        top = ranked.loc[ranked["position"].to_numpy() < depth, ["qid", "doc_id"]]
        parts.append(top.assign(run=name))
    return pd.concat(parts, ignore_index=True)


@_pool_doc
def make_pool(runs, depth=100):
    """The judgment pool of ``runs``: the union of every run's top ``depth`` documents.

    Parameters
    ----------
    runs : list of DataFrame or dict of str to DataFrame
        Runs with columns ``qid``, ``doc_id``, ``score``; a run's ranking is by score
        descending, ties by ``doc_id`` descending (trec_eval's order).
    depth : int, default=100
        Pool depth: how many documents of each run's ranking, per query, enter the pool.

    Returns
    -------
    DataFrame
        One row per pooled ``(qid, doc_id)``, columns ``qid``, ``doc_id``, ``n_runs`` (how
        many runs contributed it), sorted by ``qid`` then ``doc_id``: the documents to judge.

    Examples
    --------
    {two_runs}
    >>> from sklearn_ltr_metrics.runs import make_pool
    >>> make_pool([a, b], depth=2)
      qid doc_id  n_runs
    0   1      w       1
    1   1      x       1
    2   1      y       2
    """
    names, frames = check_runs(runs, "runs")
    depth = check_positive_int(depth, "depth")
    tops = _tops(names, frames, depth)
    pool = tops.groupby(["qid", "doc_id"], sort=True).size().rename("n_runs").reset_index()
    return pool.astype({"n_runs": np.int64})


def _unique_judged(tops, qrels, name):
    """The judged (qid, doc_id) only run ``name`` contributed, with their labels."""
    counts = tops.groupby(["qid", "doc_id"], sort=False)["run"].transform("size")
    own = tops[(tops["run"] == name) & (counts == 1).to_numpy()][["qid", "doc_id"]]
    return own.merge(qrels, on=["qid", "doc_id"], how="inner")


@_pool_doc
def pool_report(
    runs, qrels, depth=100, *, metrics=("ndcg@10", "map", "recall@100"), min_relevance=None
):
    """Leave-one-run-out pool bias: each run against the qrels without its unique documents.

    For each run, the judged documents only it contributed to the pool (in its top ``depth``
    and in no other run's) are removed from the qrels, and the run is evaluated three ways:
    with the full qrels, with the pruned qrels (unjudged documents non-relevant: what it
    would score had it not been pooled), and with the pruned qrels on condensed lists
    (``unjudged="remove"``: unjudged documents removed before ranking).

    Parameters
    ----------
    runs : list of DataFrame or dict of str to DataFrame
        The pooled runs (columns ``qid``, ``doc_id``, ``score``).
    qrels : DataFrame
        Judgments, columns ``qid``, ``doc_id``, ``label`` (:func:`read_trec_qrels`).
    depth : int, default=100
        Pool depth.
    metrics : sequence of str, default=("ndcg@10", "map", "recall@100")
        Metrics (any of :func:`metric_names`), each the mean over the run's judged queries
        (trec_eval's conventions, as :func:`evaluate_run`).
    min_relevance : float, optional
        Label threshold of a relevant document (default: label > 0), for
        ``n_unique_relevant`` and the metrics.

    Returns
    -------
    DataFrame
        One row per (run, metric), columns ``run, metric, n_unique, n_unique_relevant, full,
        pruned, loss, condensed``: the judged documents only this run contributed and the
        relevant ones among them, the metric with the full and the pruned qrels, ``loss =
        full - pruned``, and the condensed-list value with the pruned qrels.

    Examples
    --------
    {two_runs}
    >>> from sklearn_ltr_metrics.runs import pool_report
    >>> qrels = pd.DataFrame({"qid": "1", "doc_id": ["x", "y", "w"], "label": [1, 0, 1]})

    Run ``a`` alone pooled ``x`` (relevant): without it, ``a`` finds no relevant document.
    Run ``b`` alone pooled ``w``: without it, its AP falls from (1/2 + 2/3) / 2 to 1/3, and
    on the condensed list (``w`` removed) ``x`` rises to rank 2.

    >>> pool_report({"a": a, "b": b}, qrels, depth=2, metrics=["map"]).round(4)
      run metric  n_unique  n_unique_relevant    full  pruned    loss  condensed
    0   a    map         1                  1  0.5000  0.0000  0.5000        0.0
    1   b    map         1                  1  0.5833  0.3333  0.2500        0.5
    """
    names, frames = check_runs(runs, "runs")
    depth = check_positive_int(depth, "depth")
    qrels = check_columns(qrels, "qrels", ("qid", "doc_id", "label"))
    if qrels["qid"].dtype.kind != frames[0]["qid"].dtype.kind:
        qrels = qrels.astype({"qid": str, "doc_id": str})
        frames = [frame.astype({"qid": str, "doc_id": str}) for frame in frames]
    metrics = list(metrics)
    options = {} if min_relevance is None else {"min_relevance": min_relevance}
    tops = _tops(names, frames, depth)
    rows = []
    for name, frame in zip(names, frames, strict=True):
        unique = _unique_judged(tops, qrels, name)
        relevant = (
            unique["label"] >= min_relevance if min_relevance is not None else (unique["label"] > 0)
        )
        dropped = pd.MultiIndex.from_frame(unique[["qid", "doc_id"]])
        keep = ~pd.MultiIndex.from_frame(qrels[["qid", "doc_id"]]).isin(dropped)
        pruned = qrels[keep]
        values = {
            "full": evaluate_run(frame, qrels, metrics=metrics, **options).mean(),
            "pruned": evaluate_run(frame, pruned, metrics=metrics, **options).mean(),
            "condensed": evaluate_run(
                frame, pruned, metrics=metrics, unjudged="remove", **options
            ).mean(),
        }
        for metric in values["full"].index:
            full, cut = values["full"][metric], values["pruned"][metric]
            rows.append(
                {
                    "run": name,
                    "metric": metric,
                    "n_unique": len(unique),
                    "n_unique_relevant": int(relevant.sum()),
                    "full": full,
                    "pruned": cut,
                    "loss": full - cut,
                    "condensed": values["condensed"][metric],
                }
            )
    return pd.DataFrame(rows, columns=list(POOL_REPORT_COLUMNS))
