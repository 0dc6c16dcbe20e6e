"""Small generated click data for the clicks tests."""

import numpy as np


def ranking_data(n_queries=30, n_docs=10, seed=0, max_label=2):
    """Rows grouped by query (``qid`` 0..n-1), labels 0..max_label, a noisy logging score."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), n_docs)
    y = rng.integers(0, max_label + 1, qid.size)
    score = y + rng.normal(0, 1.5, qid.size)
    return y, score, qid


def mc_tolerance(p, n, z=4.5):
    """A bound on |observed - p| for a mean of ``n`` Bernoulli(p) draws (z standard errors)."""
    return z * np.sqrt(np.maximum(p * (1 - p), 1e-4) / n)
