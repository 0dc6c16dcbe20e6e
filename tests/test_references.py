"""Differential tests against independent implementations: pytrec_eval (trec_eval's C code),
ranx, scikit-learn's ``ndcg_score`` and LightGBM's own ranking metrics."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate, evaluate_run


def random_trec_data(seed, n_queries=12, graded=True, ties=True):
    """Ragged queries with string qids, unsorted rows, graded labels, ties and unjudged docs."""
    rng = np.random.default_rng(seed)
    runs, judgments = [], []
    for q in range(n_queries):
        n = int(rng.integers(3, 40))
        docs = [f"d{q}_{i:03d}" for i in rng.permutation(n)]
        scores = rng.integers(0, 8, n) / 4 if ties else rng.random(n)
        labels = rng.integers(0, 4 if graded else 2, n) * (rng.random(n) < 0.6)
        labels[0] = max(labels[0], 1)  # every query has a relevant document
        runs.append(pd.DataFrame({"qid": f"q{q}", "doc_id": docs, "score": scores}))
        judged = rng.random(n) < 0.8
        judgments.append(
            pd.DataFrame(
                {"qid": f"q{q}", "doc_id": np.array(docs)[judged], "label": labels[judged]}
            )
        )
        # judged documents the run never retrieved
        extra = int(rng.integers(0, 4))
        judgments.append(
            pd.DataFrame(
                {
                    "qid": f"q{q}",
                    "doc_id": [f"x{q}_{i}" for i in range(extra)],
                    "label": rng.integers(1, 3, extra),
                }
            )
        )
    run = pd.concat(runs, ignore_index=True).sample(frac=1.0, random_state=seed)
    qrels = pd.concat(judgments, ignore_index=True)
    qrels = qrels[qrels.groupby("qid")["label"].transform("max") > 0]
    return run, qrels


PYTREC_MEASURES = {
    "P_5": "precision@5",
    "P_10": "precision@10",
    "recall_10": "recall@10",
    "map": "map",
    "map_cut_10": "map@10",
    "recip_rank": "mrr",
    "ndcg": "ndcg",
    "ndcg_cut_10": "ndcg@10",
    "Rprec": "r_precision",
    "success_5": "hit_rate@5",
}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_pytrec_eval(seed):
    pytrec_eval = pytest.importorskip(
        "pytrec_eval",
        reason="pytrec_eval is missing: the 'test' extra has it (pip install -e '.[test]')",
    )
    run, qrels = random_trec_data(seed)
    run_dict, qrels_dict = {}, {}
    for row in run.itertuples():
        run_dict.setdefault(row.qid, {})[row.doc_id] = float(row.score)
    for row in qrels.itertuples():
        qrels_dict.setdefault(row.qid, {})[row.doc_id] = int(row.label)
    measures = {
        "P",
        "recall",
        "map",
        "map_cut",
        "recip_rank",
        "ndcg",
        "ndcg_cut",
        "Rprec",
        "success",
    }
    reference = pytrec_eval.RelevanceEvaluator(qrels_dict, measures).evaluate(run_dict)
    ours = evaluate_run(run, qrels, metrics=list(PYTREC_MEASURES.values())).per_query
    for qid, values in reference.items():
        for measure, column in PYTREC_MEASURES.items():
            assert ours.loc[qid, column] == pytest.approx(values[measure], abs=1e-9), (qid, measure)


# ranx's numba kernels emit a type-safety warning while compiling (third-party code).
@pytest.mark.filterwarnings("ignore:.*unsafe cast:Warning")
@pytest.mark.parametrize("seed", [0, 1])
def test_matches_ranx_without_ties(seed):
    ranx = pytest.importorskip(
        "ranx",
        reason="ranx is missing: the 'test' extra has it (pip install -e '.[test]')",
    )
    run, qrels = random_trec_data(seed, ties=False)
    qrels_dict, run_dict = {}, {}
    for row in qrels[qrels["label"] > 0].itertuples():
        qrels_dict.setdefault(row.qid, {})[row.doc_id] = int(row.label)
    for row in run.itertuples():
        run_dict.setdefault(row.qid, {})[row.doc_id] = float(row.score)
    ranx_qrels, ranx_run = ranx.Qrels(qrels_dict), ranx.Run(run_dict)
    mapping = {
        "precision@10": "precision@10",
        "recall@10": "recall@10",
        "map@10": "map@10",
        "map": "map",
        "mrr": "mrr",
        "ndcg@10": "ndcg@10",
        "r-precision": "r_precision",
        "hit_rate@5": "hit_rate@5",
        "f1@10": "f1@10",
    }
    ranx.evaluate(ranx_qrels, ranx_run, list(mapping), make_comparable=True, return_mean=False)
    ours = evaluate_run(run, qrels, metrics=list(mapping.values())).per_query
    for ranx_name, column in mapping.items():
        theirs = pd.Series(ranx_run.scores[ranx_name])
        np.testing.assert_allclose(
            ours.loc[theirs.index, column], theirs.to_numpy(), atol=1e-9, err_msg=ranx_name
        )


@pytest.mark.parametrize("k", [None, 1, 3, 10])
def test_matches_sklearn_ndcg_score_with_ties(k):
    from sklearn.metrics import dcg_score, ndcg_score

    rng = np.random.default_rng(7)
    n_queries, n_docs = 30, 12
    y_true = rng.integers(0, 4, (n_queries, n_docs)).astype(float)
    y_score = rng.integers(0, 4, (n_queries, n_docs)).astype(float)  # many ties
    qid = np.repeat(np.arange(n_queries), n_docs)
    spec = "ndcg" if k is None else f"ndcg@{k}"
    dspec = "dcg" if k is None else f"dcg@{k}"
    ev = evaluate(
        y_true.ravel(), y_score.ravel(), qid=qid, metrics=[spec, dspec], conventions="sklearn"
    )
    assert ev.mean(spec) == pytest.approx(ndcg_score(y_true, y_score, k=k), abs=1e-12)
    assert ev.mean(dspec) == pytest.approx(dcg_score(y_true, y_score, k=k), abs=1e-12)


def test_reproduces_lightgbm_own_metrics(datasets_dir):
    lgb = pytest.importorskip(
        "lightgbm",
        reason="lightgbm is missing: a dependency of the package (pip install -e .)",
    )
    from sklearn.datasets import load_svmlight_file

    folder = datasets_dir / "lightgbm-lambdarank"
    X_train, y_train, q_train = load_svmlight_file(
        str(folder / "rank.train.qid.svm"), query_id=True, n_features=300
    )
    X_test, y_test, q_test = load_svmlight_file(
        str(folder / "rank.test.qid.svm"), query_id=True, n_features=300
    )
    group = lambda q: np.unique(q, return_counts=True)[1]  # noqa: E731  (rows are grouped)
    model = lgb.LGBMRanker(n_estimators=20, verbose=-1, n_jobs=1, random_state=0)
    model.fit(
        X_train,
        y_train,
        group=group(q_train),
        eval_X=(X_test,),
        eval_y=(y_test,),
        eval_group=[group(q_test)],
        eval_at=[1, 5, 10],
        eval_metric="map",
    )
    history = model.evals_result_["valid_0"]
    ev = evaluate(
        y_test,
        model.predict(X_test),
        qid=q_test,
        metrics=["ndcg@1", "ndcg@5", "ndcg@10", "map@1", "map@5", "map@10"],
        conventions="lightgbm",
    )
    for k in (1, 5, 10):
        assert ev.mean(f"ndcg@{k}") == pytest.approx(history[f"ndcg@{k}"][-1], abs=1e-6)
        assert ev.mean(f"map@{k}") == pytest.approx(history[f"map@{k}"][-1], abs=1e-6)
