"""
Tune LambdaMART with a query-safe grid search
=============================================

:class:`~sklearn_ltr_metrics.model_selection.RankingGridSearchCV` is scikit-learn's
``GridSearchCV`` with ``fit(X, y, qid=qid)``: an int ``cv`` means group folds over the query ids
(a query is never split between train and test), and the scorers from
:func:`~sklearn_ltr_metrics.metrics.make_ranking_scorer` compute each metric per query and
average over queries. Several metrics come from one ``predict`` per fold; ``refit`` picks the
winner.

Run it (about 20 seconds): ``python examples/grid_search_lambdamart.py``
"""

# %%
# Search on the training queries
# ------------------------------
# A small data set in the methodology's shape; whole queries are held out for the final test.
import matplotlib.pyplot as plt
import pandas as pd

from sklearn_ltr_metrics.datasets import make_ranking_data
from sklearn_ltr_metrics.metrics import evaluate, make_ranking_scorer
from sklearn_ltr_metrics.model_selection import RankingGridSearchCV
from sklearn_ltr_metrics.rankers import LambdaMARTRanker

X, y, qid = make_ranking_data(60, random_state=0)
test = qid >= 45
X_train, y_train, qid_train = X[~test], y[~test], qid[~test]

search = RankingGridSearchCV(
    LambdaMARTRanker(n_estimators=30, random_state=0),
    param_grid={"num_leaves": [7, 31], "learning_rate": [0.05, 0.2]},
    scoring=make_ranking_scorer(["ndcg@10", "map", "capped_recall@adaptive"]),
    refit="ndcg@10",
    cv=3,
)
search.fit(X_train, y_train, qid=qid_train)

# %%
# The cross-validated scores of every candidate
# ---------------------------------------------
results = pd.DataFrame(search.cv_results_)
columns = [
    "param_num_leaves",
    "param_learning_rate",
    "mean_test_ndcg@10",
    "std_test_ndcg@10",
    "mean_test_map",
    "mean_test_capped_recall@adaptive",
]
print("every setting, best first:")
print(results[columns].sort_values("mean_test_ndcg@10", ascending=False).round(4).to_string())
print("best parameters:", search.best_params_)

# %%
# The refitted model on the held-out queries
# ------------------------------------------
metrics = ["ndcg@10", "map", "capped_recall@adaptive"]
scores = search.best_estimator_.predict(X[test])
held_out = evaluate(y[test], scores, qid=qid[test], metrics=metrics)
print(f"held-out queries: {len(held_out.per_query)}")
print("means on the held-out queries:")
print(held_out.mean().round(4).to_string())

# The search's score is the same per-query mean: the scorer's value is the table's mean.
print(
    "search.score (ndcg@10):",
    search.score(X[test], y[test], qid=qid[test]),
    "= evaluate's mean:",
    held_out.mean("ndcg@10"),
)

# %%
# Candidates with their spread over folds
# ---------------------------------------
labels = [f"leaves={p['num_leaves']}\nrate={p['learning_rate']}" for p in results["params"]]
fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
ax.errorbar(
    range(len(labels)),
    results["mean_test_ndcg@10"],
    yerr=results["std_test_ndcg@10"],
    fmt="o",
    capsize=4,
)
ax.set_xticks(range(len(labels)), labels)
ax.set_ylabel("ndcg@10 (mean ± sd over 3 folds)")
ax.set_title("Grid search candidates")
