"""Labels as people have them (issue 43): ``label_map=`` and metric lists as any iterable.

ESCI's letters and "Perfect/Good/Fair/Bad" through ``label_map`` give exactly the numbers of
their numeric map, in ``evaluate``, the scorers (plain scikit-learn, routing off and on) and
``read_table``; a set, a tuple or a generator of metric specs gives the documented columns.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_validate
from sklearn.pipeline import make_pipeline

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics.io import DataFormatError, read_table
from sklearn_ltr_metrics.metrics import make_ranking_scorer
from sklearn_ltr_metrics.model_selection import QueryKFold
from sklearn_ltr_metrics.rankers import FeatureRanker, OracleRanker

ESCI = {"E": 3, "S": 2, "C": 1, "I": 0}
WORDS = {"Perfect": 4, "Excellent": 3, "Good": 2, "Fair": 1, "Bad": 0}
METRICS = ["ndcg@10", "map", "err@5", "capped_recall@adaptive"]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(8), 12)
    grades = rng.integers(0, 4, qid.size)
    X = np.column_stack([grades + rng.normal(size=qid.size), rng.normal(size=qid.size)])
    letters = np.array(["I", "C", "S", "E"], dtype=object)[grades]
    return X, grades, letters, qid


@pytest.mark.parametrize("label_map", [ESCI, WORDS])
def test_evaluate_with_a_label_map_equals_the_numeric_labels(data, label_map):
    X, grades, _, qid = data
    names = {grade: name for name, grade in label_map.items()}
    labels = np.array([names[g] for g in grades], dtype=object)
    got = evaluate(labels, X[:, 0], qid=qid, metrics=METRICS, label_map=label_map)
    want = evaluate(grades, X[:, 0], qid=qid, metrics=METRICS)
    pd.testing.assert_frame_equal(got.per_query, want.per_query)


def test_an_unknown_label_is_refused(data):
    X, _, letters, qid = data
    with pytest.raises(ValueError, match="label_map lacks: 'E'"):
        evaluate(letters, X[:, 0], qid=qid, label_map={"S": 2, "C": 1, "I": 0})
    with pytest.raises(ValueError, match="finite number >= 0"):
        evaluate(letters, X[:, 0], qid=qid, label_map={**ESCI, "E": -1})
    with pytest.raises(TypeError, match="mapping from labels"):
        make_ranking_scorer("map", label_map=["E", "S"])


@pytest.mark.parametrize("estimator", [FeatureRanker(0), OracleRanker()])
def test_a_scorer_with_a_label_map_equals_the_numeric_labels(data, estimator):
    X, grades, letters, qid = data
    fitted = estimator.fit(X)
    got = make_ranking_scorer(METRICS, label_map=ESCI)(fitted, X, letters, qid=qid)
    assert got == make_ranking_scorer(METRICS)(fitted, X, grades, qid=qid)


def _classifier():
    drop = ColumnTransformer([("ids", "drop", ["qid"])], remainder="passthrough")
    return make_pipeline(drop, LogisticRegression())


def test_a_letter_classifier_is_ranked_by_its_expected_grade(data):
    # Trained on ESCI letters; the scorer maps its classes_ to grades: routing off and on.
    X, grades, letters, qid = data
    frame = pd.DataFrame(X, columns=["a", "b"]).assign(qid=qid)
    scorer = make_ranking_scorer(METRICS, label_map=ESCI)
    got = cross_validate(_classifier(), frame, letters, cv=QueryKFold(4), scoring=scorer)
    want = cross_validate(
        _classifier(), frame, grades, cv=QueryKFold(4), scoring=make_ranking_scorer(METRICS)
    )
    with sklearn.config_context(enable_metadata_routing=True):
        routed = cross_validate(
            LogisticRegression(),
            X,
            letters,
            cv=QueryKFold(4),
            scoring=scorer,
            params={"qid": qid},
        )
    for spec in METRICS:
        np.testing.assert_allclose(got[f"test_{spec}"], want[f"test_{spec}"], rtol=1e-6)
        np.testing.assert_allclose(routed[f"test_{spec}"], want[f"test_{spec}"], rtol=1e-6)
    assert "label_map=" in repr(scorer)


def test_a_binary_letter_classifier_ranks_the_higher_grade_first():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    labels = np.array(["I", "I", "E", "E"])  # classes_ = ["E", "I"]: column 1 is "I"
    model = LogisticRegression().fit(X, labels)
    for method in ("predict_proba", "decision_function"):
        scorer = make_ranking_scorer("ndcg@4", label_map={"E": 1, "I": 0}, response_method=method)
        assert scorer(model, X, labels, qid=np.zeros(4)) == 1.0


def test_read_table_with_a_label_map():
    text = "query,label,score\nq1,E,0.9\nq1,I,0.4\nq2,S,0.3\n"
    table = read_table(io.StringIO(text), qid="query", format="csv", label_map=ESCI)
    assert table["label"].tolist() == [3.0, 0.0, 2.0]
    with pytest.raises(DataFormatError, match=r"line 3.*label 'I', which label_map lacks"):
        read_table(io.StringIO(text), qid="query", format="csv", label_map={"E": 3, "S": 2})


@pytest.mark.parametrize(
    ("metrics", "columns"),
    [
        ({"ndcg@10", "map", "mrr"}, ["map", "mrr", "ndcg@10"]),
        (frozenset({"mrr", "P_5"}), ["P_5", "mrr"]),
        (("mrr", "map"), ["mrr", "map"]),
        ((m for m in ["mrr", "map"]), ["mrr", "map"]),
        (pd.Index(["map", "mrr"]), ["map", "mrr"]),
    ],
)
def test_metric_lists_as_any_iterable(data, metrics, columns):
    X, grades, _, qid = data
    per_query = evaluate(grades, X[:, 0], qid=qid, metrics=metrics).per_query
    assert list(per_query.columns[4:]) == columns


def test_scorer_metrics_as_a_set(data):
    X, grades, _, qid = data
    scorer = make_ranking_scorer({"ndcg@10", "map"})
    assert scorer.metrics == ("map", "ndcg@10")
    assert list(scorer(FeatureRanker(0).fit(X), X, grades, qid=qid)) == ["map", "ndcg@10"]
    for bad in ({"map": 1}, b"map", set()):
        with pytest.raises(TypeError, match="metric"):
            make_ranking_scorer(bad)
