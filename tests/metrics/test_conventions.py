"""Every tool's conventions, one preset or option away, each checked against the tool itself
(pytrec_eval, ranx, scikit-learn, XGBoost) or against values published in its own tests
(torchmetrics, ir_measures), and trec_eval's -J and negative judgments."""

import math

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate, evaluate_run

from ..test_references import random_trec_data
from .test_conformance import plain_qrels, plain_run


def as_dicts(run, qrels):
    run_dict, qrels_dict = {}, {}
    for row in run.itertuples():
        run_dict.setdefault(row.qid, {})[row.doc_id] = float(row.score)
    for row in qrels.itertuples():
        qrels_dict.setdefault(row.qid, {})[row.doc_id] = int(row.label)
    return run_dict, qrels_dict


def with_negatives_and_unjudged_queries(seed):
    """Random TREC data plus negative judgments and a query whose retrieved docs are all
    unjudged (trec_eval -J must keep it, scored 0)."""
    run, qrels = random_trec_data(seed)
    rng = np.random.default_rng(seed)
    negative = rng.random(len(qrels)) < 0.15
    qrels = qrels.assign(label=np.where(negative, -1, qrels["label"]))
    lonely_run = pd.DataFrame({"qid": "lonely", "doc_id": ["u1", "u2", "u3"], "score": [3, 2, 1]})
    lonely_qrels = pd.DataFrame({"qid": "lonely", "doc_id": ["r1", "r2"], "label": [1, 2]})
    return pd.concat([run, lonely_run]), pd.concat([qrels, lonely_qrels])


TREC_MEASURES = {
    "P_5": "precision@5",
    "map": "map",
    "map_cut_10": "map@10",
    "recip_rank": "mrr",
    "ndcg": "ndcg",
    "ndcg_cut_10": "ndcg@10",
    "Rprec": "r_precision",
    "recall_10": "recall@10",
    "success_5": "hit_rate@5",
}


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("judged_only", [False, True])
def test_unjudged_remove_is_trec_eval_minus_j(seed, judged_only):
    pytrec_eval = pytest.importorskip(
        "pytrec_eval",
        reason="pytrec_eval is missing: the 'test' extra has it (pip install -e '.[test]')",
    )
    run, qrels = with_negatives_and_unjudged_queries(seed)
    run_dict, qrels_dict = as_dicts(run, qrels)
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels_dict, set(TREC_MEASURES), judged_docs_only_flag=judged_only
    )
    reference = evaluator.evaluate(run_dict)
    ours = evaluate_run(
        run,
        qrels,
        metrics=list(TREC_MEASURES.values()),
        unjudged="remove" if judged_only else "nonrelevant",
    ).per_query
    assert set(ours.index) == set(reference)  # the all-unjudged query is kept
    for qid, values in reference.items():
        for measure, column in TREC_MEASURES.items():
            assert ours.loc[qid, column] == pytest.approx(values[measure], abs=1e-12), (
                qid,
                measure,
            )
    if judged_only:
        assert ours.loc["lonely", "n_docs"] == 0 and ours.loc["lonely", "map"] == 0.0


def test_minus_j_keeps_the_query_in_the_mean():
    """The issue's repro: trec_eval -J's MAP is 0.5, not 1.0."""
    run = pd.DataFrame({"qid": ["a", "b"], "doc_id": ["d1", "x"], "score": [1.0, 1.0]})
    qrels = pd.DataFrame({"qid": ["a", "b"], "doc_id": ["d1", "y"], "label": [1, 1]})
    ev = evaluate_run(run, qrels, metrics=["map"], unjudged="remove")
    assert ev.mean("map") == 0.5
    # outside a preset that scores empty queries 0, an emptied query without relevant
    # judgments follows empty_query like any other
    qrels = pd.DataFrame({"qid": ["a", "b"], "doc_id": ["d1", "y"], "label": [1, 0]})
    ev = evaluate_run(run, qrels, metrics=["map"], unjudged="remove", conventions=None)
    assert math.isnan(ev.per_query.loc["b", "map"])


def test_ir_measures_published_judged_only_precision():
    """ir_measures' test_pytrec_eval.py (test_P): P@4 and P(judged_only=True)@4."""
    qrels = pd.DataFrame(
        [
            ("0", "D0", -1),
            ("0", "D1", 1),
            ("0", "D3", 2),
            ("0", "D4", 1),
            ("1", "D0", 1),
            ("1", "D3", 0),
            ("1", "D4", -1),
        ],
        columns=["qid", "doc_id", "label"],
    )
    run = pd.DataFrame(
        [
            ("0", "D0", 0.8),
            ("0", "D2", 0.7),
            ("0", "D1", 0.3),
            ("0", "D3", 0.4),
            ("0", "D4", 0.1),
            ("1", "D1", 0.8),
            ("1", "D0", 0.7),
            ("1", "D3", 0.3),
            ("1", "D2", 0.4),
        ],
        columns=["qid", "doc_id", "score"],
    )
    plain = evaluate_run(run, qrels, metrics=["precision@4"], conventions="ir_measures")
    assert plain.per_query["precision@4"].tolist() == [0.5, 0.25]
    judged = evaluate_run(
        run, qrels, metrics=["precision@4"], conventions="ir_measures", unjudged="remove"
    )
    assert judged.per_query["precision@4"].tolist() == [0.75, 0.25]


def test_gain_mapping_on_trec_eval_fixture(datasets_dir):
    """trec_eval -m ndcg.1=3,2=9,4=4.5 (out.test.meas_params): label 0 unnamed, gain 0;
    unjudged retrieved documents gain 0."""
    folder = datasets_dir / "trec_eval-test"
    ev = evaluate_run(
        plain_run(folder / "results.test"),
        plain_qrels(folder / "qrels.test"),
        metrics=["ndcg"],
        gain={1: 3, 2: 9, 4: 4.5},
    )
    expected = pd.read_csv(
        folder / "out.test.meas_params", sep="\t", header=None, names=["m", "qid", "v"], dtype=str
    )
    expected = expected[expected["m"].str.strip() == "ndcg_1=3,2=9,4=4.5"]
    assert len(expected) == 4
    for row in expected.itertuples():
        got = ev.mean("ndcg") if row.qid == "all" else ev.per_query.loc[row.qid, "ndcg"]
        assert got == pytest.approx(float(row.v), abs=5.1e-5)


def test_negative_and_unjudged_documents_gain_zero_unless_named():
    """trec_eval's gain_init: a mapping that scores label 0 scores judged zeros, never
    unjudged documents; negative judgments gain 0 unless the mapping names them."""
    run = pd.DataFrame({"qid": "1", "doc_id": ["u", "n", "z", "r"], "score": [4, 3, 2, 1]})
    qrels = pd.DataFrame({"qid": "1", "doc_id": ["n", "z", "r"], "label": [-1, 0, 1]})
    disc = 1 / np.log2(np.arange(2, 6))
    ev = evaluate_run(run, qrels, metrics=["dcg", "ndcg"], gain={0: 1, 1: 4})
    dcg = 0 * disc[0] + 0 * disc[1] + 1 * disc[2] + 4 * disc[3]
    ideal = 4 * disc[0] + 1 * disc[1]
    assert ev.per_query.loc["1", "dcg"] == pytest.approx(dcg)
    assert ev.per_query.loc["1", "ndcg"] == pytest.approx(dcg / ideal)
    named = evaluate_run(run, qrels, metrics=["dcg"], gain={-1: 2, 0: 1, 1: 4})
    assert named.per_query.loc["1", "dcg"] == pytest.approx(dcg + 2 * disc[1])
    # with -J the negative judgment leaves the ranking too
    removed = evaluate_run(run, qrels, metrics=["dcg"], gain={0: 1, 1: 4}, unjudged="remove")
    assert removed.per_query.loc["1", "dcg"] == pytest.approx(1 * disc[0] + 4 * disc[1])


def test_ties_by_doc_id_ascending_and_descending():
    y, s, docs = [1, 0, 0], [1.0, 1.0, 1.0], ["b", "a", "c"]
    asc = evaluate(y, s, qid=[1, 1, 1], doc_id=docs, metrics=["mrr"], ties="doc_id")
    desc = evaluate(y, s, qid=[1, 1, 1], doc_id=docs, metrics=["mrr"], ties="trec_eval")
    assert asc.per_query["mrr"].iloc[0] == 0.5  # a, b, c
    assert desc.per_query["mrr"].iloc[0] == 0.5  # c, b, a
    y2 = [0, 1, 0]  # "a" relevant
    assert (
        evaluate(y2, s, qid=[1] * 3, doc_id=docs, metrics=["mrr"], ties="doc_id").mean()["mrr"]
        == 1.0
    )
    assert evaluate(y2, s, qid=[1] * 3, doc_id=docs, metrics=["mrr"], ties="trec_eval").mean()[
        "mrr"
    ] == pytest.approx(1 / 3)


def test_label_ranking_ties_and_lrap_match_sklearn():
    from sklearn.metrics import label_ranking_average_precision_score as lrap

    assert evaluate([1, 1, 0], [0.5] * 3, qid=[0] * 3, metrics=["lrap"]).mean("lrap") == 2 / 3
    three = evaluate([1, 1, 0], [0.5] * 3, qid=[0] * 3, metrics=["map"], ties="label_ranking")
    assert three.mean("map") == pytest.approx(2 / 3)
    assert evaluate([1, 1, 0], [0.5] * 3, qid=[0] * 3, metrics=["map"]).mean(
        "map"
    ) == pytest.approx(29 / 36)
    rng = np.random.default_rng(3)
    Y = (rng.random((60, 8)) < 0.3).astype(int)
    S = rng.integers(0, 4, (60, 8)).astype(float)
    qid = np.repeat(np.arange(60), 8)
    ev = evaluate(
        Y.ravel(), S.ravel(), qid=qid, metrics=["lrap", "map", "precision@3"], ties="label_ranking"
    )
    per_row = [lrap(Y[i : i + 1], S[i : i + 1]) for i in range(60)]
    np.testing.assert_allclose(ev.per_query["lrap"], per_row, atol=1e-12)
    assert ev.mean("lrap") == pytest.approx(lrap(Y, S), abs=1e-12)
    has_pos = Y.sum(axis=1) > 0
    np.testing.assert_allclose(ev.per_query["map"][has_pos], np.array(per_row)[has_pos])
    # precision@3 at the score threshold: a tied block straddling rank 3 is left out
    for i in range(60):
        order = np.argsort(-S[i], kind="stable")
        last_rank = np.array([np.sum(S[i] >= v) for v in S[i]])
        inside = last_rank <= 3
        assert ev.per_query["precision@3"].iloc[i] == pytest.approx(Y[i][inside].sum() / 3)
        assert order.size == 8


def test_log_base_matches_sklearn_dcg_score():
    from sklearn.metrics import dcg_score, ndcg_score

    rng = np.random.default_rng(4)
    y = rng.integers(0, 4, (20, 9)).astype(float)
    s = rng.integers(0, 3, (20, 9)).astype(float)
    qid = np.repeat(np.arange(20), 9)
    for base in (10, math.e, 2):
        ev = evaluate(
            y.ravel(),
            s.ravel(),
            qid=qid,
            metrics=["dcg@5", "ndcg@5"],
            conventions="sklearn",
            log_base=base,
        )
        assert ev.mean("dcg@5") == pytest.approx(dcg_score(y, s, k=5, log_base=base), abs=1e-12)
        assert ev.mean("ndcg@5") == pytest.approx(ndcg_score(y, s, k=5), abs=1e-12)


@pytest.mark.filterwarnings("ignore:.*unsafe cast:Warning")
@pytest.mark.parametrize("seed", [0, 1])
def test_ranx_preset(seed):
    """ranx orders tied scores arbitrarily (its sort is not stable), so the data has no ties;
    gains, empty queries and denominators are what the preset sets."""
    ranx = pytest.importorskip(
        "ranx",
        reason="ranx is missing: the 'test' extra has it (pip install -e '.[test]')",
    )
    run, qrels = random_trec_data(seed, ties=False)
    run_dict, qrels_dict = as_dicts(run, qrels[qrels["label"] > 0])
    mapping = {
        "precision@5": "precision@5",
        "map": "map",
        "mrr": "mrr",
        "ndcg@10": "ndcg@10",
        "recall@10": "recall@10",
        "hit_rate@3": "hit_rate@3",
    }
    ranx_run = ranx.Run(run_dict)
    ranx.evaluate(
        ranx.Qrels(qrels_dict), ranx_run, list(mapping), make_comparable=True, return_mean=False
    )
    ours = evaluate_run(run, qrels, metrics=list(mapping.values()), conventions="ranx").per_query
    for name, column in mapping.items():
        theirs = pd.Series(ranx_run.scores[name])
        np.testing.assert_allclose(ours.loc[theirs.index, column], theirs, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 2])
def test_ir_measures_preset_is_pytrec_eval_with_ties(seed):
    pytrec_eval = pytest.importorskip(
        "pytrec_eval",
        reason="pytrec_eval is missing: the 'test' extra has it (pip install -e '.[test]')",
    )
    run, qrels = random_trec_data(seed, ties=True)
    run_dict, qrels_dict = as_dicts(run, qrels)
    reference = pytrec_eval.RelevanceEvaluator(qrels_dict, set(TREC_MEASURES)).evaluate(run_dict)
    ours = evaluate_run(
        run, qrels, metrics=list(TREC_MEASURES.values()), conventions="ir_measures"
    ).per_query
    for qid, values in reference.items():
        for measure, column in TREC_MEASURES.items():
            assert ours.loc[qid, column] == pytest.approx(values[measure], abs=1e-12)


def test_xgboost_preset_matches_xgboost_eval_metrics():
    xgb = pytest.importorskip(
        "xgboost",
        reason="xgboost is missing: the 'test' extra has it (pip install -e '.[test]')",
    )
    rng = np.random.default_rng(0)
    sizes = rng.integers(1, 60, 25)
    qid = np.repeat(np.arange(25), sizes)
    n = qid.size
    binary = (rng.random(n) < 0.2).astype(float)
    binary[qid == 3] = 0  # an empty query
    graded = rng.integers(0, 4, n).astype(float)
    score = np.round(rng.normal(size=n), 1)  # ties: XGBoost keeps input order

    def xgboost_value(y, metric):
        data = xgb.DMatrix(np.zeros((n, 1)), label=y, qid=qid, base_margin=score)
        params = {"objective": "rank:ndcg", "eta": 0.0, "eval_metric": metric}
        booster = xgb.train(params, data, num_boost_round=1)
        return float(booster.eval(data).split(":")[1])

    cases = [
        (binary, ["ndcg", "ndcg@5", "map", "map@5", "pre@5", "pre@100", "pre"]),
        (graded, ["ndcg", "ndcg@5", "ndcg@100"]),
    ]
    for y, names in cases:
        ours = evaluate(
            y,
            score,
            qid=qid,
            metrics=[m.replace("pre", "precision") for m in names],
            conventions="xgboost",
        )
        for name, column in zip(names, ours.metrics, strict=True):
            assert ours.mean(column) == pytest.approx(xgboost_value(y, name), abs=1e-6), name
    # un-suffixed metrics are cut at 32, as XGBoost's
    assert evaluate(binary, score, qid=qid, metrics=["ndcg"], conventions="xgboost").metrics == (
        "ndcg@32",
    )


def test_torchmetrics_preset_reproduces_its_published_values():
    """Values from torchmetrics' docstrings (its doctests): RetrievalMAP, retrieval_average_
    precision, retrieval_precision(top_k=2), retrieval_normalized_dcg."""
    indexes = [0, 0, 0, 1, 1, 1, 1]
    preds = [0.2, 0.3, 0.5, 0.1, 0.3, 0.5, 0.2]
    target = [0, 0, 1, 0, 1, 0, 1]
    ev = evaluate(target, preds, qid=indexes, metrics=["map", "map@2"], conventions="torchmetrics")
    assert round(ev.mean("map"), 4) == 0.7917
    # RetrievalMAP(top_k=2): divided by the relevant documents retrieved in the top 2
    assert ev.per_query["map@2"].tolist() == [1.0, 0.5]
    one = evaluate(
        [1, 0, 1],
        [0.2, 0.3, 0.5],
        qid=[0] * 3,
        metrics=["map", "precision@2"],
        conventions="torchmetrics",
    )
    assert round(one.mean("map"), 4) == 0.8333
    assert one.mean("precision@2") == 0.5
    ndcg = evaluate(
        [10, 0, 0, 1, 5],
        [0.1, 0.2, 0.3, 4, 70],
        qid=[0] * 5,
        metrics=["ndcg"],
        conventions="torchmetrics",
    )
    assert round(ndcg.mean("ndcg"), 4) == 0.6957
    # adaptive_k=True: precision@k divided by min(k, n_docs)
    adaptive = evaluate(
        [1, 0, 1],
        [0.2, 0.3, 0.5],
        qid=[0] * 3,
        metrics=["precision@5"],
        conventions="torchmetrics",
        precision_denominator="min_k_n_docs",
    )
    assert adaptive.mean("precision@5") == pytest.approx(2 / 3)
    # no relevant document: 0 (empty_target_action="neg")
    empty = evaluate([0, 0], [1, 2], qid=[0, 0], metrics=["map"], conventions="torchmetrics")
    assert empty.mean("map") == 0.0


def test_retrieved_denominator_is_zero_without_hits():
    ev = evaluate([0, 0, 1], [3, 2, 1], qid=[0] * 3, metrics=["map@2"], ap_denominator="retrieved")
    assert ev.mean("map@2") == 0.0
