"""The engine ranks only the support (the rows that carry a metric term, counted against the
rows above them) and never sorts a whole query for these metrics: its values must be those of
a full sort of every query, ties included, bit for bit, on any number of threads.

The reference sorts every query in full with numpy (``np.lexsort``: descending score, then the
tie policy's key, then input order) and evaluates the same rows with the tie broken by that
order (distinct scores: the rank of each row in the full sort), so both sides add the same terms
in the same order.
"""

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sklearn_ltr_metrics import evaluate

from .._engine import small_grain

METRICS = ["ndcg@3", "ndcg", "precision@2", "recall@5", "map", "mrr", "err@4", "r_precision"]
#: The tie policies that are one order of the rows (each ranks every row at one position).
POLICIES = ("stable", "pessimistic", "optimistic")


@st.composite
def tied_queries(draw):
    """Queries of 1-25 rows, labels 0-3, scores from a handful of values (many ties), rows in
    random query order or grouped."""
    sizes = draw(st.lists(st.integers(1, 25), min_size=1, max_size=6))
    n = sum(sizes)
    qid = np.repeat(np.arange(len(sizes)) * 7 + 3, sizes)
    labels = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=float)
    scores = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), dtype=float)
    if draw(st.booleans()):
        order = np.random.default_rng(draw(st.integers(0, 2**16))).permutation(n)
        qid, labels, scores = qid[order], labels[order], scores[order]
    return qid, labels, scores


def full_sort_scores(qid, labels, scores, ties):
    """Distinct scores that rank each query's rows as a full sort under ``ties`` does."""
    key = {"stable": np.zeros_like(labels), "pessimistic": labels, "optimistic": -labels}[ties]
    order = np.lexsort((np.arange(qid.size), key, -scores, qid))
    ranked = np.empty(qid.size)
    ranked[order] = -np.arange(qid.size, dtype=float)  # higher first
    return ranked


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=tied_queries())
def test_support_ranks_equal_a_full_sort(monkeypatch, data):
    small_grain(monkeypatch, 4)  # several threads even on these few rows
    qid, labels, scores = data
    for ties in POLICIES:
        sorted_scores = full_sort_scores(qid, labels, scores, ties)
        expected = evaluate(labels, sorted_scores, qid=qid, metrics=METRICS, ties=ties)
        for n_jobs in (1, 2, -1):
            got = evaluate(labels, scores, qid=qid, metrics=METRICS, ties=ties, n_jobs=n_jobs)
            pd.testing.assert_frame_equal(got.per_query, expected.per_query, check_exact=True)


def _orders_of_the_ties(scores):
    """Every order of the rows that keeps descending score order (each tied block in every
    order): the outcomes of a full sort that breaks ties at random."""
    from itertools import permutations, product

    distinct = np.unique(scores)[::-1]
    blocks = [np.flatnonzero(scores == v) for v in distinct]
    for parts in product(*(permutations(block) for block in blocks)):
        yield np.concatenate(parts)


def test_tie_averaging_is_the_mean_over_every_order_of_the_ties(monkeypatch):
    """Tie averaging ranks the support only; its value is the exact mean of the metric over
    every order of each tied block (enumerated here on queries small enough to do so)."""
    small_grain(monkeypatch, 4)
    rng = np.random.default_rng(3)
    qid = np.repeat([0, 1, 2], [5, 6, 4])
    labels = rng.integers(0, 3, qid.size).astype(float)
    scores = np.array([2, 2, 1, 1, 1, 3, 3, 3, 0, 0, 0, 5, 5, 4, 4], dtype=float)
    metrics = ["ndcg@2", "precision@3", "map", "mrr"]
    expected = np.empty((3, len(metrics)))
    for q in range(3):
        rows = np.flatnonzero(qid == q)
        values = []
        for order in _orders_of_the_ties(scores[rows]):
            ranked = np.empty(rows.size)
            ranked[order] = -np.arange(rows.size, dtype=float)
            one = evaluate(labels[rows], ranked, qid=qid[rows], metrics=metrics)
            values.append(one.per_query[metrics].to_numpy()[0])
        expected[q] = np.mean(values, axis=0)
    for n_jobs in (1, 2, -1):
        got = evaluate(labels, scores, qid=qid, metrics=metrics, ties="average", n_jobs=n_jobs)
        np.testing.assert_allclose(
            got.per_query[metrics].to_numpy(dtype=float), expected, rtol=1e-12, atol=0
        )
