"""Every measure name of trec_eval and ir_measures equals its tool per query, under its preset.

Generated runs with tied scores, hostile ids (spaces, leading zeros, ``NaN``, accents), judged
queries the run misses and run queries without judgments. trec_eval's names are compared with
pytrec_eval under ``conventions="trec_eval"`` (each family on its own, as ``-m family``
prints it); ir_measures' names with ``ir_measures.iter_calc`` under
``conventions="ir_measures"`` (a judged query the run misses scores 0 there, except for
Accuracy, which leaves it out); ranx's with ``ranx.evaluate`` under ``conventions="ranx"``.
ndeval's diversity measures are not swept here.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate_run

QIDS = ["1", "01", "NaN", "q é", "-3"]
DOCS = ["d 1", "D1", "0", "00", "x\u00e9", *(f"doc{i}" for i in range(9))]

#: pytrec_eval's families not compared per topic: strings and counts of topics, the geometric
#: means (summaries only), and the interpolated precision, which pytrec_eval computes with
#: trec_eval 9's rounding (ir_measures' IPrec checks that rounding below).
NOT_PER_TOPIC = {"relstring", "runid", "num_q", "gm_map", "gm_bpref", "iprec_at_recall"}
NOT_PER_TOPIC |= {"11pt_avg"}

#: ir_measures' names computed by its installed providers (pytrec_eval, compat, judged,
#: accuracy), its aliases included.
IR_NAMES = [
    "AP", "AP@5", "MAP", "MAP@3", "P@3", "Precision@5", "P(rel=2)@5", "R@5", "Recall@3",
    "RR", "MRR", "RR(rel=2)", "RR@3", "nDCG", "nDCG@5", "NDCG@3", "nDCG(gains={0:0,1:1,2:5})@5",
    "nDCG(gains={1:3,2:9})", "Bpref", "BPref", "infAP", "IPrec@0.3", "Judged@5",
    "Judged@2", "NumRet", "NumRel", "NumRelRet", "NumQ", "Rprec", "RPrec", "SetP", "SetRelP",
    "SetP(relative=True)", "SetR", "SetF", "SetAP", "Success@3", "Accuracy", "Accuracy@3",
    "Accuracy(rel=2)@5", "AP(judged_only=True)",
]  # fmt: skip


def _data(seed, n_docs_max=9):
    rng = np.random.default_rng(seed)
    runs, qrels = [], []
    for q in QIDS:
        if rng.random() > 0.2:  # else: judged, not retrieved
            n = int(rng.integers(1, n_docs_max))
            docs = rng.choice(DOCS, n, replace=False)
            scores = rng.integers(0, 4, n).astype(float)  # coarse: ties
            runs.append(pd.DataFrame({"qid": q, "doc_id": docs, "score": scores}))
        judged = rng.choice(DOCS, int(rng.integers(1, 10)), replace=False)
        labels = rng.integers(-1, 3, judged.size)
        if rng.random() > 0.2:  # else: possibly no relevant document
            labels[0] = max(labels[0], 1)
        qrels.append(pd.DataFrame({"qid": q, "doc_id": judged, "label": labels}))
    extra = pd.DataFrame({"qid": "only run", "doc_id": ["d 1", "0"], "score": [1.0, 1.0]})
    return pd.concat([*runs, extra], ignore_index=True), pd.concat(qrels, ignore_index=True)


def _pytrec(run, qrels, measures):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    judged, ranked = {}, {}
    for q, doc, label in qrels.itertuples(index=False):
        judged.setdefault(q, {})[doc] = int(label)
    for q, doc, score in run.itertuples(index=False):
        ranked.setdefault(q, {})[doc] = float(score)
    return pytrec_eval.RelevanceEvaluator(judged, measures).evaluate(ranked)


def _quiet_evaluate_run(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the dropped-queries notes: counted elsewhere
        return evaluate_run(*args, **kwargs)


def _family_of(name, families):
    """The family of a printed measure name: the longest family it is or starts with."""
    return max((f for f in families if name == f or name.startswith(f + "_")), key=len)


def check_trec_eval(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run, qrels = _data(seed)
    families = sorted(set(pytrec_eval.supported_measures) - NOT_PER_TOPIC)
    reference = _pytrec(run, qrels, set(families))
    checked = 0
    for family in families:
        table = _quiet_evaluate_run(run, qrels, metrics=family).per_query
        for qid, values in reference.items():
            for name, value in values.items():
                if _family_of(name, families) == family:
                    got = table.loc[qid, name]
                    assert got == pytest.approx(value, abs=1e-9), (family, name, qid)
                    checked += 1
    assert set(table.index) == set(reference)
    return checked


def _ir_reference(run, qrels, name):
    """ir_measures' ``{qid: value}`` of one name, one query at a time (its Accuracy raises
    ZeroDivisionError on a query without a non-relevant document: left out, as the queries
    without a relevant one)."""
    ir_measures = pytest.importorskip("ir_measures")
    measure = ir_measures.parse_measure(name)
    qrels = qrels.rename(columns={"qid": "query_id", "label": "relevance"})
    run = run.rename(columns={"qid": "query_id"})
    if not name.startswith("Accuracy"):
        return {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
    out = {}
    for qid in qrels["query_id"].unique():
        try:
            one = ir_measures.iter_calc(
                [measure], qrels[qrels["query_id"] == qid], run[run["query_id"] == qid]
            )
            out.update({m.query_id: m.value for m in one})
        except ZeroDivisionError:
            pass
    return out


def check_ir_measures(seed):
    pytest.importorskip("ir_measures")
    run, qrels = _data(seed)
    table = _quiet_evaluate_run(run, qrels, metrics=IR_NAMES, conventions="ir_measures").per_query
    checked = 0
    for name in IR_NAMES:
        expected = _ir_reference(run, qrels, name)
        for qid in table.index:
            value = table.loc[qid, name]
            if qid in expected:
                assert value == pytest.approx(expected[qid], abs=1e-9), (name, qid)
                checked += 1
            else:  # left out by ir_measures: undefined here
                assert np.isnan(value), (name, qid, value)
        assert set(expected) <= set(table.index), name
    return checked


#: ranx's names the package takes as typed (its r-precision is refused, naming r_precision).
RANX_NAMES = [
    "precision@3", "recall@5", "f1@5", "hit_rate@3", "mrr", "mrr@3", "map", "map@5", "ndcg",
    "ndcg@5", "dcg@5", "bpref",
]  # fmt: skip


def check_ranx(seed):
    """ranx (``make_comparable=True``, as the ranx preset's missing queries) on distinct
    scores (ranx's order of tied scores is its sort's), per query."""
    ranx = pytest.importorskip("ranx")
    run, qrels = _data(seed)
    rng = np.random.default_rng(seed)
    run = run.assign(score=rng.permutation(len(run)).astype(float))
    judged, ranked = {}, {}
    for q, doc, label in qrels[qrels["label"] >= 0].itertuples(index=False):
        judged.setdefault(q, {})[doc] = int(label)
    for q, doc, score in run.itertuples(index=False):
        ranked.setdefault(q, {})[doc] = float(score)
    ranx_run = ranx.Run(ranked)
    ranx.evaluate(ranx.Qrels(judged), ranx_run, RANX_NAMES, make_comparable=True, return_mean=False)
    table = _quiet_evaluate_run(run, qrels, metrics=RANX_NAMES, conventions="ranx").per_query
    checked = 0
    for name in RANX_NAMES:
        for qid, value in ranx_run.scores[name].items():
            if name == "bpref" and np.isnan(value):
                continue  # no judged non-relevant document: ranx divides 0 by 0 (trec_eval not)
            assert table.loc[qid, name] == pytest.approx(value, abs=1e-9), (name, qid)
            checked += 1
    return checked


@pytest.mark.filterwarnings("ignore:.*unsafe cast:Warning")
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # ranx's bpref
def test_ranx_names_equal_ranx():
    assert check_ranx(0) > 30


@pytest.mark.parametrize("seed", [0, 1])
def test_trec_eval_names_equal_pytrec_eval(seed):
    assert check_trec_eval(seed) > 100


@pytest.mark.parametrize("seed", [0, 1])
def test_ir_measures_names_equal_ir_measures(seed):
    assert check_ir_measures(seed) > 100


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:.*unsafe cast:Warning")
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("seed", range(2, 40))
def test_tool_sweep_more_seeds(seed):
    check_trec_eval(seed)
    check_ir_measures(seed)
    check_ranx(seed)
