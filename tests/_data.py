"""Small generated ranking data shared by the scikit-learn integration tests."""

import numpy as np

from sklearn_ltr_metrics import LambdaMARTRanker

METRICS = ["ndcg@10", "map", "recall@adaptive"]


def make_data(n_queries=40, n_docs=30, n_features=5, seed=0):
    """Shuffled rows, string qids, labels 0..3 following feature 0."""
    rng = np.random.default_rng(seed)
    qid = np.repeat([f"q{i:02d}" for i in range(n_queries)], n_docs)
    X = rng.normal(size=(qid.size, n_features))
    y = np.digitize(X[:, 0] + 0.7 * rng.normal(size=qid.size), [0.0, 1.0, 2.0])
    perm = rng.permutation(qid.size)
    return X[perm], y[perm], qid[perm]


def ranker():
    """A tiny, fast, deterministic LambdaMART."""
    return LambdaMARTRanker(n_estimators=10, min_child_samples=5, n_jobs=1, random_state=0)
