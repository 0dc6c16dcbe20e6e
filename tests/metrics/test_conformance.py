"""Per-topic conformance with trec_eval's own fixtures and gdeval's values.

The expected numbers are trec_eval's and gdeval's outputs shipped in ../shared/datasets; the
run and qrels files are parsed here with a deliberately plain reader so that these tests do not
depend on the package's own readers.
"""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate, evaluate_run

TREC_MEASURES = {
    "P_5": "precision@5",
    "P_10": "precision@10",
    "P_15": "precision@15",
    "P_20": "precision@20",
    "P_30": "precision@30",
    "P_100": "precision@100",
    "P_200": "precision@200",
    "P_500": "precision@500",
    "P_1000": "precision@1000",
    "recall_5": "recall@5",
    "recall_10": "recall@10",
    "recall_100": "recall@100",
    "recall_1000": "recall@1000",
    "map": "map",
    "map_cut_10": "map@10",
    "map_cut_100": "map@100",
    "recip_rank": "mrr",
    "ndcg": "ndcg",
    "ndcg_cut_5": "ndcg@5",
    "ndcg_cut_10": "ndcg@10",
    "ndcg_cut_100": "ndcg@100",
    "ndcg_cut_1000": "ndcg@1000",
    "Rprec": "r_precision",
    "success_1": "hit_rate@1",
    "success_5": "hit_rate@5",
    "success_10": "hit_rate@10",
}


def _plain_rows(path, columns):
    rows = [line.split() for line in path.read_text().splitlines()]
    return [r for r in rows if r and not r[0].startswith("#")]


def plain_run(path):
    rows = _plain_rows(path, 6)
    return pd.DataFrame(
        {
            "qid": [r[0] for r in rows],
            "doc_id": [r[2] for r in rows],
            "score": [float(r[4]) for r in rows],
        }
    )


def plain_qrels(path):
    rows = _plain_rows(path, 4)
    return pd.DataFrame(
        {
            "qid": [r[0] for r in rows],
            "doc_id": [r[2] for r in rows],
            "label": [float(r[3]) for r in rows],
        }
    )


def expected_table(path):
    table = pd.read_csv(path, sep="\t", header=None, names=["measure", "qid", "value"], dtype=str)
    table["measure"] = table["measure"].str.strip()
    return table[table["measure"].isin(TREC_MEASURES)]


def compare(evaluation, expected):
    checked = 0
    for row in expected.itertuples():
        column = TREC_MEASURES[row.measure]
        if row.qid == "all":
            got = evaluation.per_query[column].mean()
        else:
            got = evaluation.per_query.loc[row.qid, column]
        assert got == pytest.approx(float(row.value), abs=5.1e-5), (row.measure, row.qid)
        checked += 1
    return checked


@pytest.mark.parametrize(
    ("expected", "qrels", "run", "options"),
    [
        ("out.test.aq", "qrels.test", "results.test", {}),
        ("out.test.aql", "qrels.rel_level", "results.test", {"min_relevance": 2}),
        ("out.test.aqc", "qrels.test", "results.trunc", {"missing_queries": "zero"}),
        # trec_eval -M100: the first 100 documents of each topic only
        (
            "out.test.aqcM",
            "qrels.test",
            "results.trunc",
            {"missing_queries": "zero", "max_docs": 100},
        ),
        ("out.comment.test", "qrels.comment.test", "results.comment.test", {}),
    ],
)
def test_trec_eval_fixtures(datasets_dir, expected, qrels, run, options):
    folder = datasets_dir / "trec_eval-test"
    evaluation = evaluate_run(
        plain_run(folder / run),
        plain_qrels(folder / qrels),
        metrics=list(TREC_MEASURES.values()),
        **options,
    )
    assert evaluation.conventions["conventions"] == "trec_eval"
    assert compare(evaluation, expected_table(folder / expected)) >= 7


def test_trec_eval_preset_on_flat_arrays(datasets_dir):
    """evaluate() with conventions='trec_eval' and doc_id gives the same per-topic numbers
    when every judged document is in the arrays (query_stats supplies the unretrieved ones)."""
    folder = datasets_dir / "trec_eval-test"
    run, qrels = plain_run(folder / "results.test"), plain_qrels(folder / "qrels.test")
    merged = run.merge(qrels, on=["qid", "doc_id"], how="left").fillna({"label": 0})
    stats = qrels.assign(rel=qrels["label"] > 0).groupby("qid")["rel"].sum().rename("n_pos")
    evaluation = evaluate(
        merged["label"],
        merged["score"],
        qid=merged["qid"],
        doc_id=merged["doc_id"],
        metrics=["precision@10", "map", "mrr", "r_precision", "recall@100"],
        conventions="trec_eval",
        query_stats=stats.to_frame(),
    )
    expected = expected_table(folder / "out.test.aq")
    expected = expected[
        expected["measure"].isin(["P_10", "map", "recip_rank", "Rprec", "recall_100"])
    ]
    assert compare(evaluation, expected) == 20


def test_gdeval_exponential_gain_ndcg_and_err(datasets_dir):
    folder = datasets_dir / "ir_measures-fixtures"
    run, qrels = plain_run(folder / "gdeval.run"), plain_qrels(folder / "gdeval.qrels")
    evaluation = evaluate_run(
        run, qrels, metrics=["ndcg@20", "ndcg@2", "err@20", "err@2"], gain="exponential"
    )
    expected = {
        "ndcg@20": [0.6201, 0.35099],
        "ndcg@2": [0.17377, 0.38685],
        "err@20": [0.10175, 0.09375],
        "err@2": [0.03125, 0.09375],
    }
    for column, values in expected.items():
        np.testing.assert_allclose(evaluation.per_query[column].to_numpy(), values, atol=1e-5)


def test_gain_convention_is_configurable(datasets_dir):
    """Linear gain reproduces trec_eval's ndcg_cut on the same files (gdeval differs)."""
    folder = datasets_dir / "ir_measures-fixtures"
    run, qrels = plain_run(folder / "gdeval.run"), plain_qrels(folder / "gdeval.qrels")
    linear = evaluate_run(run, qrels, metrics=["ndcg@2", "ndcg@20"])
    np.testing.assert_allclose(linear.per_query["ndcg@2"], [0.2398, 0.3869], atol=5e-5)
    np.testing.assert_allclose(linear.per_query["ndcg@20"], [0.6585, 0.3354], atol=5e-5)
