"""make_text_ranking_data: deterministic text whose relevant documents share the query's terms,
on which BM25Ranker is a real (better than random) baseline."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics.datasets import make_ranking_data, make_text_ranking_data
from sklearn_ltr_metrics.rankers import BM25Ranker

SMALL = {"n_pos_range": (3, 30), "n_neg_range": (100, 300), "n_features": 4}


def test_same_seed_same_frame_and_the_numeric_columns_are_make_ranking_data():
    frame = make_text_ranking_data(6, random_state=3, **SMALL)
    pd.testing.assert_frame_equal(frame, make_text_ranking_data(6, random_state=3, **SMALL))
    other = make_text_ranking_data(6, random_state=4, **SMALL)
    assert not frame["document"].equals(other["document"].iloc[: len(frame)])
    assert list(frame.columns) == ["query", "document", "bm25", "f1", "f2", "f3", "qid", "label"]
    X, y, qid = make_ranking_data(6, random_state=3, **SMALL)
    np.testing.assert_array_equal(frame[["bm25", "f1", "f2", "f3"]].to_numpy(), X)
    np.testing.assert_array_equal(frame["label"].to_numpy(), y)
    np.testing.assert_array_equal(frame["qid"].to_numpy(), qid)
    # A Generator is used as it is: the same stream gives the same frame.
    again = make_text_ranking_data(6, random_state=np.random.default_rng(7), **SMALL)
    pd.testing.assert_frame_equal(
        again, make_text_ranking_data(6, random_state=np.random.default_rng(7), **SMALL)
    )


def test_queries_and_documents_follow_the_model():
    frame = make_text_ranking_data(
        8, query_length=(2, 3), document_length=(5, 9), random_state=0, **SMALL
    )
    assert (frame.groupby("qid")["query"].nunique() == 1).all()
    query_terms = frame["query"].str.split()
    assert query_terms.map(len).between(2, 3).all()
    assert (query_terms.map(lambda t: len(set(t))) == query_terms.map(len)).all()  # distinct
    documents = frame["document"].str.split()
    assert documents.map(len).between(5, 9).all()
    assert frame["document"].str.fullmatch(r"w\d+( w\d+)*").all()  # no stray spaces
    shared = pd.Series([len(set(q) & set(d)) for q, d in zip(query_terms, documents, strict=True)])
    relevant = frame["label"].to_numpy() > 0
    # Relevant documents share query terms more often than the others, and more of them.
    share = (shared > 0).groupby(relevant).mean()
    assert share[True] > 0.8 > 0.4 > share[False]
    assert shared[relevant].mean() > 1.5 * shared[~relevant].mean()


def test_bm25_on_the_text_beats_random():
    frame = make_text_ranking_data(10, random_state=1, **SMALL)
    text, y, qid = frame[["query", "document"]], frame["label"], frame["qid"]
    metrics = ["ndcg@10", "capped_recall@adaptive"]
    bm25 = evaluate(y, BM25Ranker().fit(text).predict(text), qid=qid, metrics=metrics)
    noise = np.random.default_rng(0).random(len(y))
    random = evaluate(y, noise, qid=qid, metrics=metrics)
    for metric in metrics:
        assert bm25.per_query[metric].mean() > random.per_query[metric].mean() + 0.2


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"vocabulary_size": 10}, ValueError, "vocabulary_size must be at least 20"),
        ({"vocabulary_size": 2.5}, TypeError, "vocabulary_size"),
        ({"query_length": (0, 3)}, ValueError, "query_length must satisfy 1 <= low"),
        ({"query_length": (2, 30), "vocabulary_size": 40}, ValueError, "half the vocabulary"),
        ({"document_length": (5,)}, TypeError, "document_length must be a pair"),
        ({"document_length": (9, 5)}, ValueError, "document_length must satisfy"),
        ({"n_pos_range": (0, 3)}, ValueError, "n_pos_range"),  # make_ranking_data's checks
    ],
)
def test_refuses_bad_values_naming_the_parameter(params, error, match):
    with pytest.raises(error, match=match):
        make_text_ranking_data(2, **params)
