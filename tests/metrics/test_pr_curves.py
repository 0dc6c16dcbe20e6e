"""precision_recall_curves: the IR texts' interpolated curve, checked against trec_eval."""

import numpy as np
import pytest

from sklearn_ltr_metrics.metrics import precision_recall_curves


def _data(seed=0, n_queries=30):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 40, size=n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    y = (rng.uniform(size=qid.size) < 0.25).astype(float)
    y[np.r_[0, np.cumsum(sizes)[:-1]]] = 1.0  # every query has a relevant document
    score = rng.permutation(qid.size).astype(float)  # distinct scores: no ties
    return y, score, qid


def test_eleven_points_match_trec_eval_iprec_at_recall():
    pytrec_eval = pytest.importorskip(
        "pytrec_eval",
        reason="pytrec_eval is missing: the 'test' extra has it (pip install -e '.[test]')",
    )
    y, score, qid = _data()
    qrels, run = {}, {}
    for i, (q, label, s) in enumerate(zip(qid, y, score, strict=True)):
        qrels.setdefault(str(q), {})[f"d{i}"] = int(label)
        run.setdefault(str(q), {})[f"d{i}"] = float(s)
    levels = [f"iprec_at_recall_{r:.2f}" for r in np.linspace(0, 1, 11)]
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"}).evaluate(run)
    expected = [np.mean([per_query[q][level] for q in per_query]) for level in levels]
    curve = precision_recall_curves(y, score, qid=qid)
    np.testing.assert_allclose(curve["recall"], np.linspace(0, 1, 11))
    np.testing.assert_allclose(curve["precision"], expected, rtol=1e-12)
    assert (curve["n_queries"] == 30).all()


def test_every_recall_level_and_row_order():
    y = [1, 0, 1, 0, 0, 1, 1, 0, 0]
    s = [9, 8, 7, 6, 5, 4, 3, 2, 1]
    qid = [1, 1, 1, 1, 1, 2, 2, 2, 2]
    # Query 1: (1/2, 1), (1, 2/3). Query 2 (rows 6-9): (1/2, 1), (1, 1).
    curve = precision_recall_curves(y, s, qid=qid, recall_levels="all")
    assert curve["recall"].tolist() == [0.0, 0.5, 1.0]
    np.testing.assert_allclose(curve["precision"], [1.0, 1.0, (2 / 3 + 1) / 2])
    perm = np.random.default_rng(1).permutation(9)
    shuffled = precision_recall_curves(
        np.asarray(y)[perm], np.asarray(s)[perm], qid=np.asarray(qid)[perm], recall_levels="all"
    )
    np.testing.assert_allclose(shuffled["precision"], curve["precision"])


def test_ties_and_queries_without_relevant_documents():
    y, s, qid = [0, 1, 0, 0], [1, 1, 2, 2], ["a", "a", "b", "b"]
    worst = precision_recall_curves(y, s, qid=qid, recall_levels=[1.0])
    best = precision_recall_curves(y, s, qid=qid, recall_levels=[1.0], ties="optimistic")
    stable = precision_recall_curves(y, s, qid=qid, recall_levels=[1.0], ties="stable")
    # Query b has no relevant document: no curve, not averaged.
    assert worst["n_queries"].tolist() == [1]
    assert (worst["precision"].item(), best["precision"].item()) == (0.5, 1.0)
    assert stable["precision"].item() == 0.5  # input order: the relevant row comes second
    with pytest.raises(ValueError, match="ties"):
        precision_recall_curves(y, s, qid=qid, ties="average")
    with pytest.raises(ValueError, match="recall_levels"):
        precision_recall_curves(y, s, qid=qid, recall_levels=[1.5])
    with pytest.raises(ValueError, match="recall_levels"):
        precision_recall_curves(y, s, qid=qid, recall_levels="some")
    with pytest.raises(ValueError, match="one entry per row"):
        precision_recall_curves(y, s[:3], qid=qid)
