"""The diversity, exposure and fairness measures through the other entry points: scorers
(and the model-selection helpers built on them) and ``evaluate_dask``."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import FeatureRanker, evaluate, make_ranking_scorer
from sklearn_ltr_metrics.model_selection import cross_validate_ranking


def subtopic_rows(seed=0, n_queries=12, n_docs=15, n_sub=4):
    rng = np.random.default_rng(seed)
    n = n_queries * n_docs
    qid = np.repeat(np.arange(n_queries), n_docs)
    labels = (rng.random((n, n_sub)) < 0.2) * rng.integers(1, 3, (n, n_sub))
    score = rng.integers(0, 6, n).astype(float)  # ties, broken by doc_id
    doc_id = rng.permutation(n)
    group = rng.choice(["a", "b", None], n)
    return qid, labels.astype(float), score, doc_id, group


@pytest.mark.parametrize(
    "metric, needs",
    [
        ("alpha_ndcg@10", "one label per subtopic"),
        ("nERR_IA@5", "one label per subtopic"),
        (["ndcg@10", "ap_ia"], "one label per subtopic"),
        ("awrf", "a group per row"),
        ("ndcg_awrf(target=relevant)", "a group per row"),
    ],
)
def test_scorer_refuses_what_it_cannot_receive(metric, needs):
    with pytest.raises(ValueError, match=needs) as info:
        make_ranking_scorer(metric)
    message = str(info.value)
    assert "evaluate(" in message and "evaluate_dask" in message
    name = metric[-1] if isinstance(metric, list) else metric
    assert name.split("(")[0].split("@")[0].lower() in message.lower()


def test_model_selection_refuses_through_the_scorer():
    X = np.array([[3.0], [1.0], [2.0], [0.5]])
    y, qid = np.array([1, 0, 0, 1]), np.array([0, 0, 1, 1])
    with pytest.raises(ValueError, match="one label per subtopic"):
        cross_validate_ranking(FeatureRanker(0), X, y, qid=qid, scoring="alpha_ndcg@10", cv=2)


def test_scorer_takes_the_expected_exposure_measures():
    qid, labels, score, _, _ = subtopic_rows(1)
    y = labels.max(axis=1)
    X = score[:, None]
    ranker = FeatureRanker(0).fit(X)
    scorer = make_ranking_scorer(["ee_loss", "ee_relevance"], greater_is_better=False)
    got = scorer(ranker, X, y, qid=qid)
    want = evaluate(y, score, qid=qid, metrics=["ee_loss", "ee_relevance"])
    assert got == {
        "ee_loss": -want.mean("ee_loss"),
        "ee_relevance": -want.mean("ee_relevance"),
    }


dd = pytest.importorskip("dask.dataframe")


def _frame(seed=0):
    qid, labels, score, doc_id, group = subtopic_rows(seed)
    frame = pd.DataFrame(labels, columns=[f"s{i}" for i in range(labels.shape[1])])
    return frame.assign(qid=qid, score=score, doc_id=doc_id, group=group)


def test_evaluate_dask_takes_subtopic_label_columns():
    frame = _frame()
    subtopics = ["s0", "s1", "s2", "s3"]
    metrics = ["alpha_ndcg@10", "ERR_IA@5", "nNRBP", "ndcg@10"]
    from sklearn_ltr_metrics import evaluate_dask

    got = evaluate_dask(
        dd.from_pandas(frame, npartitions=3),
        metrics=metrics,
        label=subtopics,
        doc_id="doc_id",
    )
    want = evaluate(
        frame[subtopics].to_numpy(),
        frame["score"],
        qid=frame["qid"],
        doc_id=frame["doc_id"],
        metrics=metrics,
    )
    pd.testing.assert_frame_equal(got.per_query, want.per_query)


def test_evaluate_dask_takes_group_and_sample_columns():
    frame = _frame(2)
    frame["label"] = frame[["s0", "s1"]].max(axis=1)
    from sklearn_ltr_metrics import evaluate_dask

    ddf = dd.from_pandas(frame, npartitions=2)
    fair = evaluate_dask(ddf, metrics=["awrf", "ndcg_awrf"], group="group", doc_id="doc_id")
    want = evaluate(
        frame["label"], frame["score"], qid=frame["qid"], group=frame["group"],
        doc_id=frame["doc_id"], metrics=["awrf", "ndcg_awrf"],
    )  # fmt: skip
    pd.testing.assert_frame_equal(fair.per_query, want.per_query)
    # Three sampled rankings of each query's documents.
    rng = np.random.default_rng(3)
    sampled = pd.DataFrame(
        {
            "qid": np.repeat(np.arange(6), 15),
            "sample": np.tile(np.repeat(np.arange(3), 5), 6),
            "doc_id": np.tile(np.arange(5), 18),
            "label": np.repeat(rng.integers(0, 3, (6, 1, 5)), 3, axis=1).ravel(),
            "score": rng.random(90),
        }
    )
    exposure = evaluate_dask(
        dd.from_pandas(sampled, npartitions=2), metrics=["ee_loss"], sample="sample",
        doc_id="doc_id",
    )  # fmt: skip
    want = evaluate(
        sampled["label"], sampled["score"], qid=sampled["qid"], sample=sampled["sample"],
        doc_id=sampled["doc_id"], metrics=["ee_loss"],
    )  # fmt: skip
    pd.testing.assert_frame_equal(exposure.per_query, want.per_query)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"metrics": "alpha_ndcg@10"}, "'alpha_ndcg@10' reads one label per subtopic"),
        ({"metrics": ["awrf"]}, "'awrf' reads a group per row"),
        ({"metrics": "ndcg@10", "label": []}, "label must be a column name"),
        ({"metrics": "ndcg@10", "group": 3}, "group must be a column name"),
    ],
)
def test_evaluate_dask_refuses_before_computing(kwargs, match):
    from sklearn_ltr_metrics import evaluate_dask

    frame = _frame().assign(label=1.0)
    with pytest.raises((ValueError, TypeError), match=match):
        evaluate_dask(dd.from_pandas(frame, npartitions=2), **kwargs)


def test_average_ties_refusal_names_every_measure_and_the_fix():
    qid, labels, score, _, _ = subtopic_rows(4)
    with pytest.raises(ValueError) as info:
        evaluate(labels, score, qid=qid, ties="average",
                 metrics=["alpha_ndcg@5", "nrbp", "p_ia@5", "ap_ia"])  # fmt: skip
    message = str(info.value)
    for name in ("'alpha_ndcg@5'", "'nrbp'", "'ap_ia'", "P_IA@k and StRecall@k", "'doc_id'"):
        assert name in message
    assert "'p_ia@5'" not in message


@pytest.mark.parametrize("bad", [-1.0, np.nan, np.inf])
def test_subtopic_labels_checked_in_the_pass_that_reads_them(bad):
    qid, labels, score, doc_id, _ = subtopic_rows(5)
    labels[7, 2] = bad
    with pytest.raises(ValueError, match="finite labels >= 0"):
        evaluate(labels, score, qid=qid, doc_id=doc_id, metrics="alpha_ndcg@10")


def test_a_run_ranked_as_the_greedy_ideal_scores_exactly_one():
    # The greedy ideal: row 0 (3 subtopics), row 4 (gain 1.0), row 3 (0.5), then rows 1 and 2
    # (0.25 each; the earlier row first without doc_id): the order of these scores.
    labels = np.array([[1, 1, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0]], dtype=float)
    ev = evaluate(labels, [5.0, 2.0, 1.0, 3.0, 4.0], qid=[0] * 5, ties="stable",
                  metrics=["alpha_ndcg@5", "nerr_ia@3"])  # fmt: skip
    assert ev.per_query["alpha_ndcg@5"].iloc[0] == 1.0
    assert ev.per_query["nerr_ia@3"].iloc[0] == 1.0
