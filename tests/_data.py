"""Small generated ranking data shared by the scikit-learn integration tests."""

import numpy as np
import pandas as pd

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


#: Column names of ``make_data``'s five features in a frame.
FEATURES = [f"f{i}" for i in range(5)]


def make_frame(n_queries, n_docs):
    """``make_data`` as ``(frame with a qid column, X, y, qid)``."""
    X, y, qid = make_data(n_queries=n_queries, n_docs=n_docs)
    return pd.DataFrame(X, columns=FEATURES).assign(qid=qid), X, y, qid


def ranker():
    """A tiny, fast, deterministic LambdaMART."""
    return LambdaMARTRanker(n_estimators=10, min_child_samples=5, n_jobs=1, random_state=0)
