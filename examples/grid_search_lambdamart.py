"""Tune LambdaMART with a grid search scored by ranking metrics, with query-safe folds.

``RankingGridSearchCV`` is scikit-learn's ``GridSearchCV`` with ``fit(X, y, qid=qid)``: an int
``cv`` means ``GroupKFold`` over the query ids (a query is never split between train and
test), and the scorers from ``make_ranking_scorer`` compute each metric per query and average
over queries. Several metrics come from one ``predict`` per fold; ``refit`` picks the winner.

Run it (about 20 seconds): ``python examples/grid_search_lambdamart.py``
"""

import numpy as np
import pandas as pd

from sklearn_ltr_metrics import (
    LambdaMARTRanker,
    RankingGridSearchCV,
    evaluate,
    make_ranking_data,
    make_ranking_scorer,
)

# A small data set in the methodology's shape; hold out whole queries for the final test.
X, y, qid = make_ranking_data(60, random_state=0)
test = qid >= 45
X_train, y_train, qid_train = X[~test], y[~test], qid[~test]

search = RankingGridSearchCV(
    LambdaMARTRanker(n_estimators=30, random_state=0),
    param_grid={"num_leaves": [7, 31], "learning_rate": [0.05, 0.2]},
    scoring=make_ranking_scorer(["ndcg@10", "map", "recall@adaptive"]),
    refit="ndcg@10",
    cv=3,
)
search.fit(X_train, y_train, qid=qid_train)

results = pd.DataFrame(search.cv_results_)
columns = [
    "param_num_leaves",
    "param_learning_rate",
    "mean_test_ndcg@10",
    "std_test_ndcg@10",
    "mean_test_map",
    "mean_test_recall@adaptive",
]
print(results[columns].sort_values("mean_test_ndcg@10", ascending=False).round(4).to_string())
print("best parameters:", search.best_params_)

# The refitted model on the held-out queries, per query.
scores = search.best_estimator_.predict(X[test])
held_out = evaluate(y[test], scores, qid=qid[test], metrics=["ndcg@10", "map", "recall@adaptive"])
print(f"held-out queries: {len(held_out.per_query)}")
print(held_out.mean().round(4).to_string())
assert np.isclose(search.score(X[test], y[test], qid=qid[test]), held_out.mean("ndcg@10"))
