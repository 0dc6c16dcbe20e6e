"""Reranking cascades keep Recall@depth; the stage table flags a stage that does not; pools."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression

from sklearn_ltr_metrics.metrics import evaluate_run
from sklearn_ltr_metrics.runs import make_pool, pool_report, rerank
from sklearn_ltr_metrics.stats import ceiling_check, stage_table


def make_run(seed, n_queries=8, n_docs=150, pool=300):
    """A first-stage run and qrels that judge documents the run never retrieved."""
    rng = np.random.default_rng(seed)
    rows, judged = [], []
    for q in range(n_queries):
        docs = rng.choice(pool, n_docs, replace=False)
        rows.append(
            pd.DataFrame(
                {
                    "qid": f"q{q}",
                    "doc_id": [f"d{d}" for d in docs],
                    "score": rng.normal(size=n_docs),
                }
            )
        )
        labelled = rng.choice(pool, 60, replace=False)
        judged.append(
            pd.DataFrame(
                {
                    "qid": f"q{q}",
                    "doc_id": [f"d{d}" for d in labelled],
                    "label": rng.integers(0, 3, size=60),
                }
            )
        )
    return pd.concat(rows, ignore_index=True), pd.concat(judged, ignore_index=True)


def second_stage(run, seed):
    rng = np.random.default_rng(seed)
    return run.assign(score=rng.normal(size=len(run)))


def test_rerank_keeps_recall_at_depth_and_counts_missed_relevant_documents():
    run, qrels = make_run(0)
    cascade = rerank(run, second_stage(run, 1), depth=100)
    metrics = ["recall@100", "ndcg@10"]
    before = evaluate_run(run, qrels, metrics=metrics).per_query
    after = evaluate_run(cascade, qrels, metrics=metrics).per_query
    np.testing.assert_array_equal(after["recall@100"], before["recall@100"])
    assert not np.allclose(after["ndcg@10"], before["ndcg@10"])  # it did reorder
    # n_pos counts every relevant judgment, retrieved or not (counted from the qrels).
    n_pos = (qrels["label"] > 0).groupby(qrels["qid"]).sum()
    retrieved = set(zip(run["qid"], run["doc_id"], strict=True))
    missed = [
        (q, d)
        for q, d, y in zip(*(qrels[c] for c in qrels), strict=True)
        if y > 0 and (q, d) not in retrieved
    ]
    assert missed  # the data has relevant documents the first stage missed
    np.testing.assert_array_equal(after["n_pos"], n_pos.reindex(after.index))


def test_rerank_orders_the_top_by_the_second_stage_and_keeps_the_rest():
    run = pd.DataFrame(
        {"qid": ["1"] * 5 + ["2"] * 2, "doc_id": list("abcdefg"), "score": [5.0, 4, 3, 2, 1, 2, 1]}
    )
    scores = pd.DataFrame(
        {"qid": ["1"] * 3 + ["2"] * 2, "doc_id": list("abcfg"), "score": [0.1, 0.3, 0.2, 0.0, 1.0]}
    )
    out = rerank(run, scores, depth=3)
    assert out["doc_id"].tolist() == ["b", "c", "a", "d", "e", "g", "f"]
    assert out["score"].tolist() == [5.0, 4, 3, 2, 1, 2, 1]


def test_rerank_with_an_estimator_equals_the_frame_of_its_predictions():
    run, _ = make_run(2, n_queries=3)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(len(run), 4))
    model = LinearRegression().fit(X, rng.normal(size=len(run)))
    by_model = rerank(run, model, depth=20, X=X)
    by_frame = rerank(run, run.assign(score=model.predict(X)), depth=20)
    pd.testing.assert_frame_equal(by_model, by_frame)


def test_rerank_refuses_missing_scores_and_bad_inputs():
    run, _ = make_run(4, n_queries=2)
    with pytest.raises(ValueError, match="scores has no score for document"):
        rerank(run, run.iloc[:10], depth=50)
    with pytest.raises(TypeError, match="needs X="):
        rerank(run, LinearRegression(), depth=5)
    with pytest.raises(TypeError, match=r"DataFrame .* or a fitted estimator"):
        rerank(run, [1, 2, 3])
    with pytest.raises(ValueError, match="depth must be an integer >= 1"):
        rerank(run, run, depth=0)


def test_the_stage_table_flags_a_reranking_that_changes_recall_at_depth():
    run, qrels = make_run(5)
    metrics = ["recall@100", "ndcg@10"]
    honest = rerank(run, second_stage(run, 6), depth=100)
    deeper = rerank(run, second_stage(run, 7), depth=150)  # declared at 100, reranks 150
    tables = {
        name: evaluate_run(r, qrels, metrics=metrics).per_query
        for name, r in {"BM25": run, "rerank": honest, "deep": deeper}.items()
    }
    # Independent count: queries whose relevant documents in the top 100 differ.
    rel = set(zip(*(qrels[qrels["label"] > 0][c] for c in ("qid", "doc_id")), strict=True))

    def top_relevant(r):
        ranked = r.sort_values(["qid", "score", "doc_id"], ascending=[True, False, False])
        top = ranked.groupby("qid").head(100)
        return {q: {d for d in g["doc_id"] if (q, d) in rel} for q, g in top.groupby("qid")}

    base, deep = top_relevant(run), top_relevant(deeper)
    expected = sum(len(base[q]) != len(deep[q]) for q in base)
    assert expected > 0
    reranks = {"rerank": "BM25", "deep": "BM25"}
    table = stage_table(tables, metrics=metrics, random_state=0, reranks=reranks)
    verdict = dict(zip(table["stage"], table["ceiling"], strict=False))
    assert verdict == {"BM25": "", "rerank": "kept", "deep": f"broken: {expected} queries"}
    check = ceiling_check(tables, reranks).set_index("stage")
    assert check.loc["rerank", "kept"] and not check.loc["deep", "kept"]
    assert "ceiling" not in stage_table(tables, metrics=metrics, random_state=0).columns


def test_ceiling_check_names_what_is_wrong():
    qid = pd.Index(["a"], name="qid")
    tables = {
        "x": pd.DataFrame({"ndcg@10": [1.0]}, index=qid),
        "y": pd.DataFrame({"ndcg@10": [1.0]}, index=qid),
    }
    with pytest.raises(ValueError, match="no 'recall@100' column"):
        ceiling_check(tables, {"y": "x"})
    with pytest.raises(ValueError, match="'z' as a stage"):
        ceiling_check(tables, {"z": "x"})
    with pytest.raises(TypeError, match="reranks must be a mapping"):
        ceiling_check(tables, ["y", "x"])


def test_make_pool_is_the_union_of_the_tops():
    runs = {f"r{i}": make_run(10 + i, n_queries=3)[0] for i in range(3)}
    pool = make_pool(runs, depth=20)
    tops = {}
    for run in runs.values():
        ranked = run.sort_values(["qid", "score", "doc_id"], ascending=[True, False, False])
        for q, d in zip(
            *(ranked.groupby("qid").head(20)[c] for c in ("qid", "doc_id")), strict=True
        ):
            tops[q, d] = tops.get((q, d), 0) + 1
    got = {(q, d): n for q, d, n in zip(pool["qid"], pool["doc_id"], pool["n_runs"], strict=True)}
    assert got == tops


def test_pool_report_equals_a_reevaluation_with_the_pruned_qrels():
    runs = {f"r{i}": make_run(20 + i, n_queries=5, pool=200)[0] for i in range(3)}
    _, qrels = make_run(20, n_queries=5, pool=200)
    depth, metrics = 30, ["ndcg@10", "map", "recall@100"]
    report = pool_report(runs, qrels, depth=depth, metrics=metrics)
    tops = {}
    for name, run in runs.items():
        ranked = run.sort_values(["qid", "score", "doc_id"], ascending=[True, False, False])
        top = ranked.groupby("qid").head(depth)
        tops[name] = set(zip(top["qid"], top["doc_id"], strict=True))
    for name, run in runs.items():
        others = set().union(*(tops[o] for o in runs if o != name))
        unique = tops[name] - others
        pairs = list(zip(qrels["qid"], qrels["doc_id"], strict=True))
        pruned = qrels[[p not in unique for p in pairs]]
        rows = report[report["run"] == name].set_index("metric")
        expected = evaluate_run(run, pruned, metrics=metrics).mean()
        condensed = evaluate_run(run, pruned, metrics=metrics, unjudged="remove").mean()
        full = evaluate_run(run, qrels, metrics=metrics).mean()
        np.testing.assert_allclose(rows.loc[metrics, "pruned"], expected[metrics], rtol=1e-12)
        np.testing.assert_allclose(rows.loc[metrics, "condensed"], condensed[metrics])
        np.testing.assert_allclose(rows.loc[metrics, "full"], full[metrics])
        judged_unique = [p for p in pairs if p in unique]
        assert (rows["n_unique"] == len(judged_unique)).all()
    assert (report["loss"] > 0).any()
