"""precision_recall_curves with recall_rounding="trec_eval_9" equals pytrec_eval's
iprec_at_recall averaged over queries; "exact" is the textbook curve, which differs there."""

import numpy as np
import pytest

from sklearn_ltr_metrics.metrics import precision_recall_curves


def _pytrec_curve(y, s, qid):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = {}, {}
    for i, (label, score, q) in enumerate(zip(y, s, qid, strict=True)):
        qrels.setdefault(str(q), {})[f"d{i}"] = int(label)
        run.setdefault(str(q), {})[f"d{i}"] = float(score)
    result = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"}).evaluate(run)
    kept = [q for q in result if any(qrels[q].values())]  # queries with a relevant document
    return np.array(
        [
            np.mean([result[q][f"iprec_at_recall_{lv:.2f}"] for q in kept])
            for lv in np.arange(11) / 10
        ]
    )


@pytest.mark.parametrize("seed", range(5))
def test_trec_eval_9_rounding_equals_pytrec_eval(seed):
    rng = np.random.default_rng(seed)
    n = 60
    qid = rng.integers(0, 6, n)
    y = (rng.random(n) < 0.3).astype(float)
    s = rng.permutation(n).astype(float)  # distinct scores: one order for both tools
    got = precision_recall_curves(y, s, qid=qid, recall_rounding="trec_eval_9")
    assert got["precision"].to_numpy() == pytest.approx(_pytrec_curve(y, s, qid), abs=1e-12)


def test_exact_reads_the_first_point_reaching_the_level():
    # Relevant documents at ranks 1, 4 and 16: at recall 0.7 the textbook curve reads the
    # third (3/16); trec_eval 9 reads the second (0.7 * 3 + 0.9 truncates to 2).
    y, s = np.zeros(16), np.arange(16, 0, -1.0)
    y[[0, 3, 15]] = 1
    exact = precision_recall_curves(y, s, qid=np.zeros(16))
    trec = precision_recall_curves(y, s, qid=np.zeros(16), recall_rounding="trec_eval_9")
    assert exact["precision"][7] == pytest.approx(3 / 16)
    assert trec["precision"][7] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="recall_rounding"):
        precision_recall_curves(y, s, qid=np.zeros(16), recall_rounding="nearest")
