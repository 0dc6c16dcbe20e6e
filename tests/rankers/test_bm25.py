"""BM25Ranker on text equals bm25s (method="lucene") and rank-bm25 (method="okapi")."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics.rankers import BM25Ranker
from sklearn_ltr_metrics.rankers._bm25 import default_tokenizer

bm25s = pytest.importorskip("bm25s", reason="bm25s (the test extra) is the lucene reference")
rank_bm25 = pytest.importorskip("rank_bm25", reason="rank-bm25 (the test extra) is the okapi one")

WORDS = [f"term{i}" for i in range(40)]


def _collection(seed=0, n_docs=60, n_queries=5):
    rng = np.random.default_rng(seed)
    p = np.r_[np.full(10, 0.05), np.full(30, 0.5 / 30)]  # some terms in most documents
    docs = [" ".join(rng.choice(WORDS, rng.integers(3, 30), p=p)) for _ in range(n_docs)]
    queries = [" ".join(rng.choice(WORDS, 3, replace=False)) for _ in range(n_queries)]
    X = pd.DataFrame([(q, d) for q in queries for d in docs], columns=["query", "document"])
    return X, queries, docs


@pytest.mark.parametrize(("k1", "b"), [(1.5, 0.75), (1.2, 0.3), (0.9, 1.0)])
def test_lucene_equals_bm25s(k1, b):
    X, queries, docs = _collection()
    ours = BM25Ranker(k1, b).fit(X).predict(X).reshape(len(queries), len(docs))
    reference = bm25s.BM25(k1=k1, b=b, method="lucene")
    reference.index([default_tokenizer(d) for d in docs], show_progress=False)
    theirs = np.array([reference.get_scores(default_tokenizer(q)) for q in queries])
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)  # bm25s sums in float32


@pytest.mark.parametrize(("k1", "b"), [(1.5, 0.75), (2.0, 0.0)])
def test_okapi_equals_rank_bm25(k1, b):
    X, queries, docs = _collection(seed=1)
    X.loc[0, "query"] = "term1 term1 term39 unseen"  # repeated and unknown query terms
    queries[0] = X.loc[0, "query"]
    X["query"] = np.repeat(queries, len(docs))
    ours = BM25Ranker(k1, b, method="okapi").fit(X).predict(X).reshape(len(queries), len(docs))
    reference = rank_bm25.BM25Okapi([default_tokenizer(d) for d in docs], k1=k1, b=b)
    theirs = np.array([reference.get_scores(default_tokenizer(q)) for q in queries])
    assert (reference.idf.get("term1"), reference.average_idf) != (None, None)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


def test_rows_keep_their_order_and_an_array_works():
    X, _, _ = _collection(n_docs=20, n_queries=3)
    ranker = BM25Ranker().fit(X)
    order = np.random.default_rng(0).permutation(len(X))
    np.testing.assert_array_equal(ranker.predict(X.iloc[order]), ranker.predict(X)[order])
    np.testing.assert_array_equal(ranker.predict(X.to_numpy()), ranker.predict(X))


def test_ranks_relevant_text_first_and_scores_by_query():
    X, _, _ = _collection(seed=2, n_docs=30, n_queries=4)
    qid = np.repeat(np.arange(4), 30)
    terms = X["query"].str.split()
    y = np.array([float(t[0] in d.split()) for t, d in zip(terms, X["document"], strict=True)])
    X = X.assign(qid=qid)
    ranker = BM25Ranker().fit(X)
    good = evaluate(y, ranker.predict(X), qid=qid, metrics=["ndcg@10"]).per_query["ndcg@10"]
    shuffled = evaluate(y, np.random.default_rng(0).random(y.size), qid=qid, metrics=["ndcg@10"])
    assert good.mean() > 0.6 > shuffled.per_query["ndcg@10"].mean()
    assert ranker.score(X, y) == pytest.approx(good.mean())  # qid from X's column


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"k1": -1}, ValueError, "k1=-1 is out of range"),
        ({"b": 1.5}, ValueError, "b=1.5 is out of range"),
        ({"b": "0.75"}, TypeError, "b must be a number"),
        ({"method": "bm25+"}, ValueError, "method='bm25\\+'"),
        ({"tokenizer": "split"}, TypeError, "tokenizer must be a callable"),
        ({"document_column": "text"}, ValueError, "lacks the text column"),
    ],
)
def test_bad_parameters_are_refused(params, error, match):
    X, _, _ = _collection(n_docs=5, n_queries=1)
    with pytest.raises(error, match=match):
        BM25Ranker(**params).fit(X)


def test_non_text_rows_are_refused():
    X = pd.DataFrame({"query": ["ab cd", None], "document": ["ab cd ef", "cd ef"]})
    with pytest.raises(TypeError, match="query column of X must hold text"):
        BM25Ranker().fit(X.fillna("ab")).predict(X)
    with pytest.raises(ValueError, match="have no token"):
        BM25Ranker().fit(pd.DataFrame({"query": ["ab"], "document": ["a b"]}))
