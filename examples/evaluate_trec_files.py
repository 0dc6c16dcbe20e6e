"""
Evaluate TREC run and qrels files as trec_eval does
===================================================

A TREC *run* holds a ranked list of documents per query (``qid Q0 doc_id rank score tag``);
the *qrels* hold the judgments (``qid 0 doc_id label``).
:func:`~sklearn_ltr_metrics.metrics.evaluate_run` evaluates one against the other with
trec_eval's conventions by default: a retrieved document without a judgment is non-relevant,
a judged document the run never retrieved still counts in the recall denominator and in the
ideal DCG, and tied scores are broken by document id.

Run it from anywhere (a few seconds): ``python examples/evaluate_trec_files.py``. The same
from the shell: ``ltr-eval evaluate --qrels qrels.txt --run run.txt``.
"""

# %%
# Write a run and its qrels as TREC files
# ---------------------------------------
# A small generated data set stands in for a test collection: the BM25-like feature is the
# run's score, and only the top 100 documents of each query are retrieved (as a first-stage
# retriever would), so some relevant documents are judged but never retrieved.
import tempfile
from pathlib import Path

import pandas as pd

from sklearn_ltr_metrics.datasets import BM25_FEATURE, make_ranking_data
from sklearn_ltr_metrics.io import (
    read_trec_qrels,
    read_trec_run,
    write_trec_qrels,
    write_trec_run,
)
from sklearn_ltr_metrics.metrics import evaluate_run
from sklearn_ltr_metrics.report import make_report

X, y, qid = make_ranking_data(8, graded=True, random_state=0)
docs = pd.DataFrame({"qid": qid, "doc_id": [f"d{i}" for i in range(len(qid))]})
qrels = docs.assign(label=y.astype(int))
scored = docs.assign(score=X[:, BM25_FEATURE])
run = scored.sort_values(["qid", "score"], ascending=[True, False]).groupby("qid").head(100)

folder = Path(tempfile.mkdtemp())
write_trec_qrels(qrels, folder / "qrels.txt")
write_trec_run(run, folder / "bm25.run", tag="bm25")
print("first lines of bm25.run:", (folder / "bm25.run").read_text().splitlines()[:3])

# %%
# Read them back and evaluate
# ---------------------------
# ``recall@100`` is below 1 for queries with relevant documents outside the retrieved 100:
# they count in the denominator although the run never saw them.
qrels = read_trec_qrels(folder / "qrels.txt")
run = read_trec_run(folder / "bm25.run")
metrics = ["map", "ndcg@10", "precision@5", "recall@100", "mrr"]

evaluation = evaluate_run(run, qrels, metrics=metrics)  # conventions="trec_eval"
print("per query:")
print(evaluation.per_query.round(4).to_string())
print("mean over queries:")
print(evaluation.mean().round(4).to_string())

# %%
# Compare two runs query by query
# -------------------------------
# A second run ranks the same documents in reverse order; the report pairs the two runs on
# the same queries (a permutation test per metric, Holm-corrected, with Cohen's d).
reversed_run = run.assign(score=-run["score"])
report = make_report(
    {"bm25": evaluation, "reversed": evaluate_run(reversed_run, qrels, metrics=metrics)},
    baseline="bm25",
    n_resamples=500,
    random_state=0,
)
print("each run against the baseline:")
print(report.comparison[["metric", "system", "mean", "diff", "pvalue", "magnitude"]].round(4))

# %%
# Reproduce trec_eval on sample files
# -----------------------------------
# ``sample.qrels`` and ``sample.run``, beside this example, are four queries in trec_eval's
# formats with what makes its numbers hard to match: graded labels, tied scores (broken by
# document id, descending), retrieved documents without a judgment, and a relevant document
# the run never retrieved. ``sample.trec_eval`` holds trec_eval's own output for them
# (``trec_eval -q -m map -m recip_rank -m P.5 -m recall.100 -m ndcg_cut.10``, computed with
# trec_eval's C code through pytrec_eval-terrier 0.5.11). The same call reproduces every
# number, query by query.
try:
    HERE = Path(__file__).resolve().parent
except NameError:  # sphinx-gallery runs the example from the examples directory
    HERE = Path.cwd()
sample = evaluate_run(
    read_trec_run(HERE / "sample.run"), read_trec_qrels(HERE / "sample.qrels"), metrics=metrics
)
expected = pd.read_csv(
    HERE / "sample.trec_eval", sep=r"\s+", header=None, names=["measure", "qid", "value"]
)
ours = {"map": "map", "recip_rank": "mrr", "P_5": "precision@5", "recall_100": "recall@100"}
ours["ndcg_cut_10"] = "ndcg@10"
per_query = expected[expected["qid"] != "all"].pivot(index="qid", columns="measure", values="value")
both = pd.concat(
    {
        "trec_eval": per_query[list(ours)].rename(columns=ours),
        "evaluate_run": sample.per_query[list(ours.values())].round(4),
    },
    names=["source"],
)
print("ours beside the reference, per query:")
print(both.to_string())
differences = (both.loc["trec_eval"] - both.loc["evaluate_run"]).abs().to_numpy()
print(f"largest difference over {differences.size} values: {differences.max():.4f}")
