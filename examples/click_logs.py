"""
Learn and evaluate rankers from biased click logs
=================================================

Clicks are biased by position: what a ranker shows on top is clicked because it is on top.
This example simulates click logs from a weak *logging* ranker, estimates the position bias
from a small randomized log (RandTop-k), trains LambdaMART on the clicks with and without
correcting for position (LightGBM's unbiased lambdarank), and evaluates every ranker from the
logged clicks: the inverse-propensity-scored (IPS) estimate tracks each ranker's true,
label-based value, while the naive click metric favours the logging ranker, whose top
documents collected the clicks. See :doc:`/clicks` for the formulas and assumptions.

Run it (a few seconds): ``python examples/click_logs.py``.
"""

# %%
# Generated data and a weak logging ranker
# ----------------------------------------
import numpy as np
import pandas as pd

from sklearn_ltr_metrics import LambdaMARTRanker, evaluate
from sklearn_ltr_metrics.clicks import counterfactual_evaluate, estimate_propensity, simulate

rng = np.random.default_rng(0)
n_queries, n_docs = 300, 20
qid = np.repeat(np.arange(n_queries), n_docs)
X = rng.normal(size=(qid.size, 5))
latent = X[:, 0] + 0.8 * X[:, 1] - 0.5 * X[:, 2] + rng.normal(0, 0.5, qid.size)
y = np.digitize(latent, [0.8, 1.8])  # grades 0, 1, 2
train, test = qid < 200, qid >= 200

logging_score = X[:, 1] + rng.normal(0, 1.0, qid.size)  # weak: one feature, noisy

# %%
# Estimate the position bias from a randomized log
# ------------------------------------------------
# Each session shows the query's 20 documents in a random order: every rank sees the same
# documents in expectation, so clicks at rank r over clicks at rank 1 estimate the
# examination probability (the simulator's truth is 1 / rank).
randomized = simulate(
    y, logging_score, qid, n_sessions=30, randomize="top_k", top_k=20, random_state=1
)
propensity = estimate_propensity(randomized, method="randomization")
print(propensity)
print("truth:", np.round(1 / np.arange(1, 6), 3))

# %%
# Train LambdaMART on clicks, naive and position-debiased
# -------------------------------------------------------
# The training data is an ordinary click log of the logging ranker: one training query per
# session, the click as the label and the rank it was shown at as its position.
log = simulate(y[train], logging_score[train], qid[train], n_sessions=10, random_state=2)
rows = log["row"].to_numpy()
params = {"n_estimators": 60, "learning_rate": 0.1, "min_child_samples": 20, "random_state": 0}
naive = LambdaMARTRanker(**params).fit(X[train][rows], log["click"].astype(int), qid=log["session"])
debiased = LambdaMARTRanker(**params).fit(
    X[train][rows], log["click"].astype(int), qid=log["session"], position=log["rank"]
)

# %%
# Evaluate from clicks on held-out queries
# ----------------------------------------
# A fresh click log of the logging ranker on the test queries (all 20 documents shown) is all
# the evaluation sees.
# For each ranker: its true nDCG@10 (labels), the true value IPS estimates (the DCG@10 of the
# attraction of the documents the log shows), the IPS estimate, and the naive estimate (every
# propensity 1).
test_log = simulate(
    y[test], logging_score[test], qid[test], n_sessions=200, top_k=20, random_state=3
)
shown = np.zeros(test.sum(), dtype=bool)
shown[test_log["row"].unique()] = True
attraction = 0.1 + 0.9 * (2.0 ** y[test] - 1) / 3  # the simulator's default click_prob
rankers = {
    "logging": logging_score[test],
    "naive LambdaMART": naive.predict(X[test]),
    "debiased LambdaMART": debiased.predict(X[test]),
}
table = {}
for name, score in rankers.items():
    true_ndcg = evaluate(y[test], score, qid=qid[test], metrics=["ndcg@10"]).mean("ndcg@10")
    # the estimand: attraction of the shown documents, weighted by their new rank's discount
    gain = np.where(shown, np.round(attraction * 1e6), 0).astype(np.int64)
    target = evaluate(gain, score, qid=qid[test], metrics=["dcg@10"], gain="linear")
    ips = counterfactual_evaluate(test_log, score, qid[test], propensity=propensity)
    click = counterfactual_evaluate(test_log, score, qid[test], propensity=np.ones(20))
    table[name] = {
        "true ndcg@10": true_ndcg,
        "true click dcg@10": target.mean("dcg@10") / 1e6,
        "IPS estimate": ips.mean("dcg@10"),
        "naive click dcg@10": click.mean("dcg@10"),
    }
table = pd.DataFrame(table).T.round(3)
print(table.to_string())

# %%
# The IPS column ranks the rankers as the true values do; the naive click metric, computed
# as if every rank were examined, credits the logging ranker for the clicks its own top
# positions collected. (IPS with propensities normalised to 1 at rank 1 estimates the truth
# times the examination probability at rank 1, here 1.)
