"""Data characteristics, difficulty ranges, the stage table and marked significance."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sklearn_ltr_metrics.stats import (
    compare_systems,
    data_characteristics,
    difficulty_ranges,
    paired_test,
    stage_table,
    summarize,
)


def _table():
    return pd.DataFrame(
        {
            "n_pos": [1, 4, 10, 50, 0],
            "n_neg": [99, 96, 90, 50, 30],
            "map": [0.1, 0.4, 0.6, 0.9, np.nan],
        },
        index=pd.Index(["a", "b", "c", "d", "e"], name="qid"),
    )


def test_data_characteristics_by_hand():
    table = data_characteristics(_table()).set_index("quantity")
    assert table.index.tolist() == ["n_pos", "n_neg", "total", "n_neg/n_pos"]
    n_pos = np.array([1, 4, 10, 50, 0])
    row = table.loc["n_pos"]
    assert (row["min"], row["max"], row["median"], row["mean"]) == (0, 50, 4, 13)
    assert row["std"] == pytest.approx(np.std(n_pos, ddof=1))
    assert table.loc["total", "min"] == 30 and table.loc["total", "max"] == 100
    ratio = table.loc["n_neg/n_pos"]  # the query without relevant documents is left out
    assert ratio["n_queries"] == 4 and ratio["max"] == 99 and ratio["min"] == 1
    assert ratio["median"] == pytest.approx(np.median([99, 24, 9, 1]))
    # n_neg from n_docs, and cross-validation tables (fold, qid columns).
    cv = _table().reset_index().assign(fold=[0, 0, 1, 1, 1], n_docs=[100, 100, 100, 100, 30])
    again = data_characteristics(cv.drop(columns="n_neg"))
    pd.testing.assert_frame_equal(again, table.reset_index())


def test_difficulty_ranges_by_hand():
    table = difficulty_ranges(_table(), bins=(5, 50))
    assert table["range"].tolist() == ["< 5", "5-50", ">= 50"]
    assert table["n_queries"].tolist() == [1, 2, 1]
    np.testing.assert_allclose(table["mean"], [0.9, 0.5, 0.1])
    assert table["low"].tolist() == [0, 5, 50] and np.isinf(table["high"].iloc[-1])
    with pytest.raises(ValueError, match="increasing"):
        difficulty_ranges(_table(), bins=(10, 5))
    with pytest.raises(TypeError, match="bins"):
        difficulty_ranges(_table(), bins="deciles")


def _stages():
    rng = np.random.default_rng(0)
    qid = pd.Index(range(40), name="qid")
    first = rng.uniform(0.1, 0.6, 40)
    fusion = first + rng.normal(0.1, 0.05, 40)
    rerank = fusion + rng.normal(0.0, 0.05, 40)
    return {
        name: pd.DataFrame({"ndcg@10": v, "mrr@10": v / 2, "recall@100": v}, index=qid)
        for name, v in {"BM25": first, "fusion": fusion, "rerank": rerank}.items()
    }


def test_stage_table_tests_each_stage_against_the_previous_one():
    stages = _stages()
    table = stage_table(stages, random_state=0)
    assert table["metric"].tolist() == ["ndcg@10"] * 3 + ["mrr@10"] * 3 + ["recall@100"] * 3
    assert table["previous"].tolist()[:3] == ["", "BM25", "fusion"]
    ndcg = table[table["metric"] == "ndcg@10"].set_index("stage")
    np.testing.assert_allclose(ndcg["mean"], [s["ndcg@10"].mean() for s in stages.values()])
    diff = stages["rerank"]["ndcg@10"] - stages["fusion"]["ndcg@10"]
    assert ndcg.loc["rerank", "diff"] == pytest.approx(diff.mean())
    ref = paired_test(
        stages["fusion"]["ndcg@10"], stages["BM25"]["ndcg@10"], n_resamples=10000, random_state=1
    )
    assert ndcg.loc["fusion", "pvalue"] < 0.01 and ref.pvalue < 0.01
    assert ndcg.loc["fusion", "significant"] and ndcg.loc["fusion", "magnitude"] != ""
    assert ndcg.loc["fusion", "wins"] == int(ref.wins)
    assert np.isnan(ndcg.loc["BM25", "pvalue"]) and not ndcg.loc["BM25", "significant"]
    t = stage_table(stages, metrics=["ndcg@10"], test="t", alpha=0.01)
    expected = stats.ttest_rel(stages["rerank"]["ndcg@10"], stages["fusion"]["ndcg@10"]).pvalue
    assert t.iloc[2]["pvalue"] == pytest.approx(expected)
    assert t.iloc[2]["significant"] == (expected < 0.01)
    pd.testing.assert_frame_equal(stage_table(stages, random_state=0), table)  # seeded


def test_stage_table_errors():
    stages = _stages()
    with pytest.raises(ValueError, match="at least 2 stages"):
        stage_table({"BM25": stages["BM25"]})
    with pytest.raises(TypeError, match="mapping"):
        stage_table(list(stages.values()))
    with pytest.raises(ValueError, match="'map' is not a column"):
        stage_table(stages, metrics=["map"])
    short = dict(stages, rerank=stages["rerank"].iloc[:30])
    with pytest.raises(ValueError, match="different query sets"):
        stage_table(short)


def test_compare_systems_marks_significance_and_reuses_intervals():
    stages = _stages()
    tables = {"BM25": stages["BM25"], "fusion": stages["fusion"]}
    table = compare_systems(tables, baseline="BM25", metrics=["ndcg@10"], random_state=0)
    assert table["significant"].tolist() == [False, True]
    strict = compare_systems(tables, baseline="BM25", metrics=["ndcg@10"], alpha=1e-9)
    assert strict["significant"].tolist() == [False, False]
    intervals = pd.DataFrame(
        {"system": ["BM25", "fusion"], "metric": "ndcg@10", "ci_low": [0.1, 0.2], "ci_high": 0.9}
    )
    given = compare_systems(tables, baseline="BM25", metrics=["ndcg@10"], intervals=intervals)
    assert given["ci_low"].tolist() == [0.1, 0.2] and given["ci_high"].tolist() == [0.9, 0.9]
    with pytest.raises(ValueError, match="no row for"):
        compare_systems(tables, baseline="BM25", intervals=intervals)


def test_no_difficulty_sign_for_an_upper_bound():
    # An oracle's precision@10 is min(10, n_pos) / 10: it falls with difficulty by definition.
    n_pos = np.arange(1, 21)
    table = pd.DataFrame({"n_pos": n_pos, "n_neg": 100, "precision@10": np.minimum(10, n_pos) / 10})
    assert "difficulty_bias" in summarize(table, n_resamples=20).warnings["kind"].tolist()
    oracle = summarize(table, n_resamples=20, upper_bound=True)
    assert "difficulty_bias" not in oracle.warnings["kind"].tolist()
    assert oracle.difficulty["spearman_rho"].iloc[0] < 0  # still reported


def test_stats_imports_only_the_shared_leaves():
    import ast
    from pathlib import Path

    # the shared leaves (`_doc_link`: the docstrings' shared lines, as in every family)
    leaves = {"_validation", "_table", "_engine", "_lazy", "_random", "_doc_link"}
    folder = Path(__file__).resolve().parents[2] / "sklearn_ltr_metrics" / "stats"
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 2:
                assert (node.module or "").split(".")[0] in leaves, (path.name, node.module)
            assert not (isinstance(node, ast.ImportFrom) and node.level > 2), path.name
