"""The evaluations :func:`reconcile` compares: ``setting -> per-query values``, and each
query's facts, for flat arrays and for TREC runs."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._options import CONVENTION_KEYS
from ._rules import query_facts


def flat_evaluator(y_true, y_score, qid, metric, doc_id, query_stats):
    """``setting -> per-query Series`` for flat arrays (one ``evaluate`` call)."""
    from .._evaluate import evaluate

    def evaluate_one(setting):
        options = {key: setting[key] for key in CONVENTION_KEYS if key != "default_k"}
        ev = evaluate(
            y_true,
            y_score,
            qid=qid,
            metrics=[metric],
            k=setting["default_k"],
            doc_id=doc_id,
            query_stats=query_stats,
            **options,
        )
        return ev.per_query[ev.metrics[0]]

    return evaluate_one


def run_evaluator(run, qrels, metric):
    """``setting -> per-query Series`` for a TREC run (one ``evaluate_run`` call)."""
    from .._evaluate_run import evaluate_run

    def evaluate_one(setting):
        options = {key: setting[key] for key in CONVENTION_KEYS if key != "default_k"}
        ev = evaluate_run(
            run,
            qrels,
            metrics=[metric],
            k=setting["default_k"],
            conventions=None,
            missing_queries=setting["missing_queries"],
            unjudged=setting["unjudged"],
            **options,
        )
        return ev.per_query[ev.metrics[0]]

    return evaluate_one


def _flat_facts(y_true, y_score, qid):
    labels = np.asarray(y_true, dtype=np.float64)
    scores = np.asarray(y_score, dtype=np.float64)
    rows = {}

    def facts_of(query):
        if not rows:  # the rows of every query, found once (only the shown queries are read)
            rows.update(pd.Series(np.arange(labels.size)).groupby(np.asarray(qid)).indices)
        index = rows.get(query, np.array([], dtype=np.intp))
        return query_facts(labels[index], scores[index])

    return facts_of


def _run_facts(run, qrels):
    merged = run.astype({"qid": str, "doc_id": str}).merge(
        qrels.astype({"qid": str, "doc_id": str}), on=["qid", "doc_id"], how="left"
    )
    n_pos = (qrels["label"] > 0).groupby(qrels["qid"].astype(str)).sum()
    groups = merged.groupby("qid").indices

    def facts_of(query):
        index = groups.get(str(query), np.array([], dtype=np.intp))
        labels = merged["label"].to_numpy(dtype=np.float64)[index]
        return query_facts(
            labels,
            merged["score"].to_numpy(dtype=np.float64)[index],
            n_pos=int(n_pos.get(str(query), 0)),
            n_unjudged=int(np.isnan(labels).sum()),
        )

    return facts_of
