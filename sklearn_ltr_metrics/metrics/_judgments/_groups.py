"""trec_eval's judgment-group measures (``-m qrels_jg`` with ``-R qrels_jg``).

A ``qrels_jg`` file judges each query once per judgment group (a user, an assessor): the
second column names the group. ``map_avgjg``, ``P_avgjg_k`` and ``Rprec_mult_avgjg_m`` are
``map``, ``P_k`` and ``Rprec_mult_m`` computed against each group's judgments alone, then
averaged over the query's groups (``m_map_avgjg.c``, ``m_P_avgjg.c``,
``m_Rprec_mult_avgjg.c``).

All groups of all queries are evaluated in one :func:`evaluate_run` call: each (query,
group) becomes a query of its own (the run's rows repeated once per group of their query),
so ranking, ties, ``max_docs`` and ``min_relevance`` are exactly those of ``map``, ``P`` and
``Rprec_mult``; the per-group values are then averaged per query.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..._validation import refuse_duplicates
from .._names._foreign import foreign_specs

__all__ = ["JG_FAMILIES", "QRELS_JG", "evaluate_judgment_groups", "jg_columns"]

#: judgment-group family -> the trec_eval family averaged over the groups.
JG_FAMILIES = {"map_avgjg": "map", "P_avgjg": "P", "Rprec_mult_avgjg": "Rprec_mult"}

#: ``-m qrels_jg``: the judgment-group measures, default parameters, in trec_eval's order.
QRELS_JG = ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg")


def jg_columns(raw):
    """``[(column, inner trec_eval name), ...]`` of a judgment-group name, or None.

    ``P_avgjg`` -> ``P_avgjg_5`` ... ``P_avgjg_1000``; ``P_avgjg.5,10`` -> ``P_avgjg_5``,
    ``P_avgjg_10``; the printed ``P_avgjg_10`` -> itself.
    """
    family, dot, text = raw.strip().partition(".")
    if family not in JG_FAMILIES:
        head, _, tail = raw.strip().rpartition("_")
        if head not in JG_FAMILIES or head == "map_avgjg":
            return None
        family, dot, text = head, ".", tail
    inner_family = JG_FAMILIES[family]
    inner = f"{inner_family}{dot}{text}"
    if dot and not text:
        raise ValueError(f"metrics entry {raw!r}: parameters follow the dot, e.g. P_avgjg.5,10.")
    specs = foreign_specs(inner)
    return [(family + f.column[len(inner_family) :], f.column) for f in specs]


def _group_queries(run, qrels):
    """(run, qrels) with one query per (qid, jg) pair (an integer code) and the code's qid."""
    pairs = qrels[["qid", "jg"]].drop_duplicates().reset_index(drop=True)
    pairs["code"] = np.arange(len(pairs), dtype=np.int64)
    run = run.merge(pairs, on="qid", how="inner", sort=False)
    qrels = qrels.merge(pairs, on=["qid", "jg"], how="left", sort=False)
    run = run.assign(qid=run["code"])[["qid", "doc_id", "score"]]
    qrels = qrels.assign(qid=qrels["code"])[["qid", "doc_id", "label"]]
    return run, qrels, pairs.set_index("code")["qid"]


def evaluate_judgment_groups(run, qrels, columns, evaluate_run, **options):
    """Per-query table (``qid`` index): every judgment-group column of ``columns``
    (``[(column, inner name), ...]``), the mean over the query's groups of the inner
    measure. ``qrels`` without a ``jg`` column is one group per query."""
    if "jg" not in qrels.columns:
        qrels = qrels.assign(jg="0")
    qrels = qrels.astype({"qid": str, "jg": str, "doc_id": str})
    run = run.astype({"qid": str, "doc_id": str})
    refuse_duplicates(
        qrels,
        ["qid", "jg", "doc_id"],
        "qrels judges document {doc_id} twice in query {qid}, judgment group {jg}; each may be "
        "judged once per group (trec_eval refuses it). Drop duplicates first.",
    )
    run, qrels, qid_of = _group_queries(run, qrels)
    inner = list(dict.fromkeys(name for _, name in columns))
    evaluation = evaluate_run(run, qrels, metrics=inner, **options)
    per_group = evaluation.per_query
    qids = qid_of.reindex(per_group.index).to_numpy()
    means = per_group[inner].groupby(qids, sort=True).mean()
    retrieved = run.groupby("qid").size()
    n_docs = retrieved.groupby(qid_of.reindex(retrieved.index).to_numpy()).first()
    table = pd.DataFrame(index=pd.Index(means.index, name="qid"))
    table["n_docs"] = n_docs.reindex(table.index, fill_value=0).to_numpy()
    table["n_pos"] = per_group["n_pos"].groupby(qids).max().reindex(table.index).to_numpy()
    table["n_neg"] = per_group["n_neg"].groupby(qids).min().reindex(table.index).to_numpy()
    for column, name in columns:
        table[column] = means[name].to_numpy()
    return table
