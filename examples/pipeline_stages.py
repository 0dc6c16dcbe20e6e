"""
A multi-stage retrieval pipeline: fusion, a reranking cascade, the ceiling rule and the pool
============================================================================================

The methodology evaluates retrieval in stages (see :doc:`/methodology`, "Pipelines and
pools"): two first-stage retrievers, a hybrid made by reciprocal rank fusion, then rerankers
that only reorder the top of the list they receive. Retrieval sets the ceiling: a reranker of
the top 100 cannot change Recall@100, and the stage table checks that it did not.

This example rebuilds the five-stage table on generated data:

1. **BM25**: a BM25-like feature retrieves its top 300 documents per query;
2. **dense**: a second, dense-like feature (another view of relevance) retrieves its top 300;
3. **hybrid**: :func:`~sklearn_ltr_metrics.runs.fuse` with ``method="rrf"``;
4. **LambdaMART**: a :class:`~sklearn_ltr_metrics.LambdaMARTRanker` trained on other queries
   reranks the hybrid's top 100 (:func:`~sklearn_ltr_metrics.runs.rerank`);
5. **LLM**: a stronger, costlier reranker (simulated: the label seen through noise) reorders
   the top 20 of the LambdaMART stage.

Then the judgment pool: what a TREC-style pool of these runs would judge, and how much each
run would lose had it not been pooled (:func:`~sklearn_ltr_metrics.runs.pool_report`).

Run it (about 20 seconds): ``python examples/pipeline_stages.py``.
"""

# %%
# Generated queries, split into training and test queries
# --------------------------------------------------------
import numpy as np
import pandas as pd

from sklearn_ltr_metrics.datasets import BM25_FEATURE, make_ranking_data
from sklearn_ltr_metrics.metrics import evaluate_run, precision_recall_points
from sklearn_ltr_metrics.plotting import plot_query_precision_recall
from sklearn_ltr_metrics.rankers import LambdaMARTRanker
from sklearn_ltr_metrics.runs import fuse, make_pool, pool_report, rerank
from sklearn_ltr_metrics.stats import stage_table

X, y, qid = make_ranking_data(
    60, n_features=8, n_pos_range=(3, 40), n_neg_range=(300, 900), random_state=0
)
rng = np.random.default_rng(0)
rows = pd.DataFrame({"qid": qid.astype(str), "doc_id": [f"d{i}" for i in range(len(y))]})
queries = rows["qid"].unique()
test_queries = set(queries[1::2])  # every other query is held out for evaluation
is_test = rows["qid"].isin(test_queries).to_numpy()
qrels = rows[is_test].assign(label=y[is_test])  # every test document is judged
print(f"{len(queries)} queries ({len(test_queries)} for testing), {len(y)} documents")


def retrieve(score, depth=300):
    """A first-stage run of the test queries: the top ``depth`` documents by ``score``."""
    run = rows[is_test].assign(score=score[is_test])
    run = run.sort_values(["qid", "score"], ascending=[True, False])
    return run.groupby("qid", sort=False).head(depth).reset_index(drop=True)


# %%
# Stages 1-3: two retrievers and their fusion
# -------------------------------------------
bm25 = retrieve(X[:, BM25_FEATURE])
dense = retrieve(X[:, 1] + X[:, 2] + rng.normal(0, 1.0, len(y)))
hybrid = fuse({"BM25": bm25, "dense": dense}, "rrf", k=60)
hybrid.head()

# %%
# Stage 4: LambdaMART reranks the hybrid's top 100
# ------------------------------------------------
# Trained on the training queries only; it scores the features of the hybrid's rows.
model = LambdaMARTRanker(n_estimators=60, random_state=0).fit(
    X[~is_test], y[~is_test], qid=qid[~is_test]
)
row_of = pd.Series(np.arange(len(rows)), index=rows["doc_id"])
features = X[row_of[hybrid["doc_id"]].to_numpy()]
lambdamart = rerank(hybrid, model, depth=100, X=features)

# %%
# Stage 5: an LLM-like reranker reorders the top 20
# -------------------------------------------------
label_of = pd.Series(y, index=rows["doc_id"])
llm_scores = lambdamart.assign(
    score=label_of[lambdamart["doc_id"]].to_numpy() + rng.normal(0, 0.7, len(lambdamart))
)
llm = rerank(lambdamart, llm_scores, depth=20)

# %%
# The stage table, with the ceiling rule
# --------------------------------------
# Each stage against the one before it. ``reranks`` declares which stages only reorder the
# top 100 of their input: their Recall@100 must be their input's on every query, and the
# ``ceiling`` column says whether it is. Relevant documents no retriever found stay in
# ``n_pos`` (they come from the qrels), so Recall@100 is below 1 for every stage.
stages = {"BM25": bm25, "dense": dense, "hybrid": hybrid, "LambdaMART": lambdamart, "LLM": llm}
metrics = ["ndcg@10", "mrr@10", "recall@100"]
per_query = {
    name: evaluate_run(run, qrels, metrics=metrics).per_query for name, run in stages.items()
}
table = stage_table(
    per_query,
    metrics=metrics,
    random_state=0,
    reranks={"LambdaMART": "hybrid", "LLM": "LambdaMART"},
    depth=100,
)
print("the stage table, each stage against the one before:")
print(table[["metric", "stage", "mean", "diff", "pvalue", "ceiling"]].round(4).to_string())

# %%
# A stage that breaks the ceiling
# -------------------------------
# Had LambdaMART reranked the hybrid's whole list while being declared a top-100 reranker,
# documents from below rank 100 would enter the top 100, and the check flags it.
deep = rerank(hybrid, model, depth=1000, X=features)
per_query_deep = {**per_query, "LambdaMART": evaluate_run(deep, qrels, metrics=metrics).per_query}
flagged = stage_table(
    per_query_deep, metrics=["recall@100"], random_state=0, reranks={"LambdaMART": "hybrid"}
)
print("stages that break the ceiling rule:")
print(flagged[["stage", "mean", "ceiling"]].to_string())

# %%
# The judgment pool and its bias
# ------------------------------
# A TREC-style pool judges the top 20 of each submitted run. Each run is then evaluated with
# those judgments, with the judgments of the documents only it pooled removed ("pruned": what
# it would score had it not been pooled), and on condensed lists (unjudged documents removed
# before ranking), the usual remedy.
submitted = {"BM25": bm25, "dense": dense, "LambdaMART": lambdamart}
pool = make_pool(submitted, depth=20)
pooled_qrels = qrels.merge(pool[["qid", "doc_id"]], on=["qid", "doc_id"])
print(f"{len(pool)} documents pooled, {int((pooled_qrels['label'] > 0).sum())} relevant")
report = pool_report(submitted, pooled_qrels, depth=20, metrics=["ndcg@10", "map"])
report.round(4)

# %%
# One query's precision-recall curve, two stages
# ----------------------------------------------
# A point at each relevant document's rank (``n_pos`` from the qrels, so recall stops short
# of 1 where relevant documents were never retrieved), and the interpolated curve.
n_pos = (qrels["label"] > 0).groupby(qrels["qid"]).sum()


def points(run):
    judged = run.merge(qrels, on=["qid", "doc_id"], how="left").fillna({"label": 0})
    return precision_recall_points(judged["label"], judged["score"], qid=judged["qid"], n_pos=n_pos)


query = per_query["LLM"]["ndcg@10"].idxmax()
fig = plot_query_precision_recall({"BM25": points(bm25), "LLM": points(llm)}, qid=query)
