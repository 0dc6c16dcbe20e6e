"""
Diversity and fair exposure beyond relevance
============================================

Two rankings of the same candidates can be equally relevant and still differ in what a user
sees: one covers every meaning of an ambiguous query, the other repeats one; one shares
attention between groups of documents, the other does not. This example scores both with
ndeval's intent-aware measures (alpha-nDCG, subtopic recall), expected exposure and the TREC
Fair track's attention-weighted rank fairness, then compares the two systems with a paired
test over queries (see :doc:`/diversity` for the formulas).

Run it (a few seconds): ``python examples/diversity_and_fairness.py``.
"""

# %%
# Subtopic judgments and two runs
# -------------------------------
# 40 queries, 3 to 5 subtopics each, 30 candidates per query. Each candidate is relevant to
# one subtopic (or none) and belongs to one of two groups. The "focused" system ranks the
# documents of the query's most common subtopic first; the "diverse" one interleaves the
# subtopics. Both rank the same relevant documents above the non-relevant ones.
import io

import numpy as np
import pandas as pd

from sklearn_ltr_metrics import evaluate_run
from sklearn_ltr_metrics.io import read_trec_qrels
from sklearn_ltr_metrics.stats import compare_all

rng = np.random.default_rng(0)
lines, runs = [], {"focused": [], "diverse": []}
groups = {}
for q in range(40):
    n_sub = int(rng.integers(3, 6))
    topic = rng.integers(-1, n_sub, 30)  # -1: relevant to no subtopic
    topic[topic >= 0] = np.minimum(topic[topic >= 0], rng.integers(0, n_sub, (topic >= 0).sum()))
    for d, s in enumerate(topic):
        doc = f"q{q}d{d}"
        groups[doc] = "small" if d % 3 == 0 else "large"
        if s >= 0:
            lines.append(f"{q} {s} {doc} 1")
    relevant = np.flatnonzero(topic >= 0)
    by_topic = sorted(relevant, key=lambda d: (topic[d], d))  # one subtopic after the other
    turn = np.argsort([np.sum(topic[:d] == topic[d]) for d in relevant], kind="stable")
    interleaved = relevant[turn]  # first document of every subtopic, then the second ...
    rest = np.flatnonzero(topic < 0)
    for name, order in (("focused", by_topic), ("diverse", interleaved)):
        for rank, d in enumerate([*order, *rest]):
            runs[name].append((str(q), f"q{q}d{d}", float(100 - rank)))

qrels = read_trec_qrels(io.StringIO("\n".join(lines)), subtopics=True)
qrels.head()

# %%
# Evaluate both runs
# ------------------
# ``ndcg_cut.10`` only sees relevance (a document's largest label over its subtopics), so
# both systems score the same; the diversity measures separate them. Expected exposure sees
# two deterministic rankings that spread the same exposures inside each relevance tier, so
# its loss is the same too; ``awrf`` reads the ``group`` column of the run.
metrics = ["ndcg_cut.10", "alpha_nDCG@10", "StRecall@5", "nNRBP", "ee_loss", "awrf"]
tables = {}
for name, rows in runs.items():
    run = pd.DataFrame(rows, columns=["qid", "doc_id", "score"])
    run["group"] = run["doc_id"].map(groups)
    tables[name] = evaluate_run(run, qrels, metrics=metrics, conventions="ir_measures")
summary = pd.DataFrame({name: ev.mean() for name, ev in tables.items()})
print(summary.round(4))

# %%
# A paired test over queries
# --------------------------
# The per-query tables are ordinary: the statistics take the new columns as any other.
comparison = compare_all(
    {name: ev.per_query for name, ev in tables.items()},
    ["ndcg_cut_10", "alpha_nDCG@10", "StRecall@5"],
    n_resamples=2000,
    random_state=0,
)
print(comparison.table[["metric", "system_a", "system_b", "diff", "pvalue_corrected"]].round(4))
