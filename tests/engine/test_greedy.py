"""ndeval's greedy ideal compiled (``_ideal.greedy_ideal_gains``, ``_greedy.pxi``), against
the vectorised reference over classes of documents (``greedy_ideal``): the same values, bit
for bit, for any number of threads."""

import numpy as np
import pytest

from sklearn_ltr_metrics._engine import greedy_ideal_gains
from sklearn_ltr_metrics.metrics._judgments._subtopics import SubtopicJudgments, subtopic_classes
from sklearn_ltr_metrics.metrics._kernels._diversity import DEPTH, greedy_ideal, ideal_sums

from .._engine import small_grain


def judgments(seed, n_queries, n_docs, n_sub, p):
    """Random subtopic judgments: queries interleaved, documents' pairs in random order,
    several documents with the same subtopics (ties decided by the key)."""
    rng = np.random.default_rng(seed)
    n = n_queries * n_docs
    doc_q = rng.permutation(np.repeat(np.arange(n_queries), n_docs))
    cells = np.argwhere(rng.random((n, n_sub)) < p)
    cells = cells[rng.permutation(len(cells))]
    trip_doc, sub = cells[:, 0], cells[:, 1]
    return SubtopicJudgments(
        n_queries=n_queries,
        doc_q=doc_q,
        doc_key=rng.permutation(n).astype(np.int64),
        doc_rank=np.zeros(n, dtype=np.int64),
        trip_doc=trip_doc,
        trip_qs=doc_q[trip_doc] * n_sub + sub,
        qs_query=np.repeat(np.arange(n_queries), n_sub),
    )


def compiled(j, alpha, beta, depth, n_threads=1):
    query = j.doc_q[j.trip_doc]
    key = j.doc_key[j.trip_doc]
    args = (query, j.trip_doc, key, j.trip_qs, j.n_queries, j.qs_query.size)
    return ideal_sums(*greedy_ideal_gains(*args, alpha, beta, depth, DEPTH, n_threads))


@pytest.mark.parametrize(
    "shape", [(30, 40, 3, 0.3), (8, 60, 6, 0.5), (40, 8, 1, 0.6), (3, 40, 70, 0.1)]
)
@pytest.mark.parametrize("alpha, beta", [(0.5, 0.5), (0.0, 0.8), (1.0, 0.3), (0.3, 1.0)])
def test_greedy_equals_the_class_reference_bit_for_bit(shape, alpha, beta):
    for seed in range(2):
        j = judgments(seed, *shape)
        whole = int(np.bincount(j.doc_q[j.trip_doc]).max())
        for depth in (1, 5, DEPTH, max(DEPTH, whole)):
            reference = greedy_ideal(
                subtopic_classes(j), j.n_queries, j.qs_query.size, alpha, beta, depth
            )
            got = compiled(j, alpha, beta, depth)
            for name in ("dcg", "err", "nrbp"):
                np.testing.assert_array_equal(got[name], reference[name])


def test_greedy_threads_and_empty_queries(monkeypatch):
    small_grain(monkeypatch, 4)
    j = judgments(7, 50, 30, 4, 0.1)
    one = compiled(j, 0.5, 0.5, DEPTH)
    three = compiled(j, 0.5, 0.5, DEPTH, n_threads=3)
    for name in one:
        np.testing.assert_array_equal(three[name], one[name])
    empty = greedy_ideal_gains(*(np.zeros(0, dtype=np.int64),) * 4, 3, 0, 0.5, 0.5, DEPTH, DEPTH)
    np.testing.assert_array_equal(empty[0], np.zeros((3, DEPTH)))
    np.testing.assert_array_equal(empty[1], np.zeros(3))
