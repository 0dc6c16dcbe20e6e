"""reconcile, reconcile_run and which_convention against independent references.

The attribution is checked for its defining property (a pair's contributions add up to the
difference of its means) and by hand for two options; which_convention must name the preset
of the library that printed a value: pytrec_eval, scikit-learn's ndcg_score per query,
LightGBM's own training log and XGBoost's eval_metric.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate, evaluate_run
from sklearn_ltr_metrics.metrics import reconcile, reconcile_run, which_convention

from .._reference import metric_value


def flat_data(seed=0, n_queries=24, n_docs=(3, 16)):
    """Ties, graded labels 0..3 and queries without relevant documents; doc ids per query."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(*n_docs, n_queries)
    qid = np.repeat([f"q{i:02d}" for i in range(n_queries)], sizes)
    y = rng.integers(0, 4, qid.size) * (rng.random(qid.size) < 0.5)
    y[np.isin(qid, ["q00", "q01", "q02"])] = 0  # no relevant document
    score = rng.integers(0, 5, qid.size) / 2  # many ties
    doc = np.array([f"d{i % 7}{i}" for i in range(qid.size)])
    return y.astype(float), score, qid, doc


def pair_sums(result):
    totals = result.attribution.groupby(["tool_a", "tool_b"])["contribution"].sum()
    names = list(result.means.index)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            difference = result.means[b] - result.means[a]
            assert totals.get((a, b), 0.0) == pytest.approx(difference, abs=1e-12), (a, b)
    return totals


@pytest.mark.parametrize(
    ("metric", "seed"),
    [
        ("ndcg@10", 0),
        ("map@5", 0),
        ("precision@10", 0),
        ("ndcg", 0),
        ("mrr", 0),
        ("err@5", 9),
        ("r_precision", 10),
        ("map", 11),
    ],
)
def test_every_pair_adds_up_to_its_difference(metric, seed):
    y, score, qid, doc = flat_data(seed)
    result = reconcile(y, score, qid, metric, doc_id=doc)
    totals = pair_sums(result)
    assert len(result.means) == 8 and totals.abs().max() > 0.01
    for name in ("trec_eval", "lightgbm", "sklearn", "xgboost"):
        expected = evaluate(y, score, qid=qid, doc_id=doc, metrics=metric, conventions=name)
        assert result.means[name] == pytest.approx(expected.mean(expected.metrics[0]), abs=1e-15)


def test_two_options_by_hand():
    """lightgbm vs sklearn on ndcg@10 differ in ties, gain, empty_query (and ap_denominator,
    which does not move nDCG): the Shapley value of each option, from evaluate() directly."""
    y, score, qid, _ = flat_data(1)
    result = reconcile(y, score, qid, "ndcg@10", tools=["lightgbm", "sklearn"])
    keys = ["ties", "gain", "empty_query"]
    base = {"ties": "stable", "gain": "exponential", "empty_query": "one"}
    other = {"ties": "average", "gain": "linear", "empty_query": "zero"}

    def v(subset):
        options = {k: (other[k] if k in subset else base[k]) for k in keys}
        return evaluate(y, score, qid=qid, metrics="ndcg@10", **options).mean("ndcg@10")

    import itertools
    from math import factorial

    got = result.attribution.set_index("option")["contribution"]
    for key in keys:
        rest = [k for k in keys if k != key]
        phi = 0.0
        for size in range(3):
            for subset in itertools.combinations(rest, size):
                weight = factorial(size) * factorial(2 - size) / factorial(3)
                phi += weight * (v({*subset, key}) - v(set(subset)))
        assert got[key] == pytest.approx(phi, abs=1e-12), key
    assert got["ap_denominator"] == 0.0


def test_queries_name_the_rule_in_words():
    y, score, qid, doc = flat_data()
    result = reconcile(y, score, qid, "ndcg@10", tools=["lightgbm", "trec_eval"], doc_id=doc)
    rules = result.queries["rule"].tolist()
    assert "no relevant document: lightgbm scores 1, trec_eval scores 0" in rules
    assert set(result.queries["qid"]) <= set(result.per_query.index)
    text, markdown = result.to_text(), result.to_markdown()
    assert "lightgbm scores 1, trec_eval scores 0" in text and "| tool_a |" in markdown
    ties = reconcile(y, score, qid, "ndcg@10", tools=["sklearn", "torchmetrics"], doc_id=doc)
    # they differ only in AP's denominator, which does not move nDCG
    assert ties.attribution["option"].tolist() == ["ap_denominator"]
    assert ties.attribution["contribution"].tolist() == [0.0] and ties.queries.empty
    assert "ap_denominator set differently, no effect here" in ties.to_text()


def random_run(seed=0):
    rng = np.random.default_rng(seed)
    runs, judgments = [], []
    for q in range(10):
        n = int(rng.integers(4, 25))
        docs = [f"d{q}_{i:02d}" for i in range(n)]
        runs.append(pd.DataFrame({"qid": f"q{q}", "doc_id": docs, "score": rng.integers(0, 6, n)}))
        judged = rng.random(n) < 0.6
        labels = rng.integers(0, 3, n) * (q != 0)
        judgments.append(
            pd.DataFrame(
                {"qid": f"q{q}", "doc_id": np.array(docs)[judged], "label": labels[judged]}
            )
        )
    judgments.append(pd.DataFrame({"qid": "q99", "doc_id": ["zz"], "label": [1]}))  # not run
    return pd.concat(runs, ignore_index=True), pd.concat(judgments, ignore_index=True)


def test_run_options_judged_only_and_missing_queries():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run, qrels = random_run()
    tools = [
        "trec_eval",
        "trec_eval -c",
        "trec_eval -J",
        "ir_measures judged_only",
        "trec_eval -M5",
    ]
    result = reconcile_run(run, qrels, "ndcg@10", tools=tools)
    pair_sums(result)
    run_dict, qrels_dict = {}, {}
    for row in run.itertuples():
        run_dict.setdefault(row.qid, {})[row.doc_id] = float(row.score)
    for row in qrels.itertuples():
        qrels_dict.setdefault(row.qid, {})[row.doc_id] = int(row.label)
    judged = pytrec_eval.RelevanceEvaluator(qrels_dict, {"ndcg_cut"}, judged_docs_only_flag=True)
    values = [v["ndcg_cut_10"] for v in judged.evaluate(run_dict).values()]
    assert result.means["trec_eval -J"] == pytest.approx(np.mean(values), abs=1e-12)
    assert result.means["ir_measures judged_only"] == result.means["trec_eval -J"]
    with_c = evaluate_run(run, qrels, metrics="ndcg@10", missing_queries="zero")
    assert result.means["trec_eval -c"] == pytest.approx(with_c.mean("ndcg@10"), abs=1e-15)
    moved = result.queries.set_index(["tool_a", "tool_b", "qid"])
    assert moved.loc[("trec_eval", "trec_eval -c", "q99"), "option"] == "missing_queries"


def test_max_docs_keeps_the_ideal_of_every_row():
    y, score, qid, _ = flat_data(2)
    ev = evaluate(y, score, qid=qid, metrics=["ndcg", "recall"], ties="stable", max_docs=4)
    for q in np.unique(qid)[3:8]:
        rows = np.flatnonzero(qid == q)
        order = rows[np.argsort(-score[rows], kind="stable")]
        ranked = y[order][:4]
        assert ev.per_query.loc[q, "ndcg"] == pytest.approx(
            metric_value("ndcg", ranked, None, ideal=y[rows]), abs=1e-12
        )
        n_pos = int((y[rows] > 0).sum())
        assert ev.per_query.loc[q, "recall"] == pytest.approx(
            metric_value("recall", ranked, None, n_pos=n_pos), abs=1e-12
        )
    with pytest.raises(ValueError, match="max_docs=2 cuts a block of tied scores"):
        evaluate([1, 0, 0], [1.0, 0.5, 0.5], qid=[1, 1, 1], metrics="ndcg", max_docs=2)
    with pytest.raises(TypeError, match="max_docs must be an int"):
        evaluate([1, 0], [1.0, 0.5], qid=[1, 1], metrics="ndcg", max_docs=2.5)


def test_which_convention_finds_trec_eval_for_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    y, score, qid, doc = flat_data(3)
    run_dict, qrels_dict = {}, {}
    for q, d, s, label in zip(qid, doc, score, y, strict=True):
        run_dict.setdefault(q, {})[d] = float(s)
        qrels_dict.setdefault(q, {})[d] = int(label)
    measures = pytrec_eval.RelevanceEvaluator(qrels_dict, {"ndcg_cut"}).evaluate(run_dict)
    value = float(np.mean([m["ndcg_cut_10"] for m in measures.values()]))
    found = which_convention(value, y, score, qid, "ndcg@10", doc_id=doc)
    assert found.loc[0, "preset"] == "trec_eval" and abs(found.loc[0, "difference"]) < 1e-12


def test_which_convention_finds_sklearn_for_ndcg_score_per_query():
    from sklearn.metrics import ndcg_score

    y, score, qid, _ = flat_data(4, n_docs=(2, 14))
    value = np.mean([ndcg_score([y[qid == q]], [score[qid == q]], k=10) for q in np.unique(qid)])
    found = which_convention(float(value), y, score, qid, "ndcg@10")
    assert found.loc[0, "preset"] == "sklearn"


def test_which_convention_finds_lightgbm_in_its_training_log():
    lgb = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(5)
    qid = np.repeat(np.arange(40), rng.integers(5, 20, 40))
    X = rng.normal(size=(qid.size, 3))
    y = np.digitize(X[:, 0] + rng.normal(size=qid.size), [0.5, 1.5, 2.5])
    y[qid % 9 == 0] = 0  # queries without relevant documents
    train, valid = qid < 25, qid >= 25
    group = lambda q: np.unique(q, return_counts=True)[1]  # noqa: E731  (rows are grouped)
    model = lgb.LGBMRanker(n_estimators=3, num_leaves=4, verbose=-1, n_jobs=1, random_state=0)
    model.fit(
        X[train],
        y[train],
        group=group(qid[train]),
        eval_X=(X[valid],),
        eval_y=(y[valid],),
        eval_group=[group(qid[valid])],
        eval_at=[10],
    )
    value = model.evals_result_["valid_0"]["ndcg@10"][-1]
    score = model.predict(X[valid])
    assert np.unique(score).size < score.size  # the shallow model ties rows
    found = which_convention(value, y[valid], score, qid[valid], "ndcg@10")
    assert found.loc[0, "preset"] == "lightgbm"


def test_which_convention_finds_xgboost_eval_metric():
    xgb = pytest.importorskip("xgboost")
    rng = np.random.default_rng(6)
    qid = np.repeat(np.arange(20), rng.integers(2, 60, 20))
    y = (rng.integers(0, 4, qid.size) * (rng.random(qid.size) < 0.4)).astype(float)
    y[qid == 3] = 0
    score = np.round(rng.normal(size=qid.size), 1)  # ties
    data = xgb.DMatrix(np.zeros((qid.size, 1)), label=y, qid=qid, base_margin=score)
    booster = xgb.train({"objective": "rank:ndcg", "eta": 0.0, "eval_metric": "ndcg"}, data, 1)
    value = float(booster.eval(data).split(":")[1])
    found = which_convention(value, y, score, qid, "ndcg")
    assert found.loc[0, "preset"] == "xgboost"


def test_which_convention_says_when_nothing_matches():
    y, score, qid, _ = flat_data(7, n_queries=8)
    with pytest.warns(UserWarning, match="no setting within two options of a preset"):
        found = which_convention(0.01, y, score, qid, "ndcg@5")
    assert len(found) == 5 and found["value"].is_unique
    assert np.all(np.diff(found["difference"].abs()) >= 0)


def test_bad_inputs_are_refused_in_their_terms():
    y, score, qid, _ = flat_data(8, n_queries=4)
    with pytest.raises(ValueError, match="'trec' is not a preset"):
        reconcile(y, score, qid, tools=["trec", "lightgbm"])
    with pytest.raises(ValueError, match="apply to TREC runs"):
        reconcile(y, score, qid, tools=["trec_eval -c", "lightgbm"])
    with pytest.raises(ValueError, match="is not understood"):
        reconcile(y, score, qid, tools=["trec_eval --fast", "lightgbm"])
    with pytest.raises(ValueError, match="at least two tools"):
        reconcile(y, score, qid, tools=["lightgbm"])
    with pytest.raises(TypeError, match="unexpected option"):
        reconcile(y, score, qid, tools=["trec_eval beta=2", "lightgbm"])
    with pytest.raises(ValueError, match="ties=None is not valid"):
        reconcile(y, score, qid, tools=["trec_eval ties=None", "lightgbm"])
    loose = reconcile(y, score, qid, "map", tools=["trec_eval", "trec_eval min_relevance=None"])
    assert loose.tools["trec_eval min_relevance=None"]["min_relevance"] is None
    mixed = {"a": "default", "b": {"conventions": "lightgbm", "max_docs": 2}}
    with pytest.raises(ValueError, match=r"a mix of two tools' options.*max_docs=2 cuts"):
        reconcile([1, 0, 0, 1], [0.9, 0.5, 0.5, 0.1], [1, 1, 1, 2], "ndcg", tools=mixed)
    with pytest.raises(TypeError, match="value must be a finite number"):
        which_convention("0.7", y, score, qid)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = reconcile(y, score, qid, tools="lightgbm, trec_eval")
    assert any("doc_id not given" in note for note in result.notes)


def test_cli_prints_the_same(tmp_path, capsys):
    from sklearn.metrics import ndcg_score

    from sklearn_ltr_metrics._cli import main

    y, score, qid, doc = flat_data(4, n_docs=(2, 14))
    value = np.mean([ndcg_score([y[qid == q]], [score[qid == q]], k=10) for q in np.unique(qid)])
    table = tmp_path / "scores.csv"
    pd.DataFrame({"qid": qid, "label": y, "score": score, "doc": doc}).to_csv(table, index=False)
    argv = ["reconcile", "--table", str(table), "--metrics", "ndcg@10", "--doc-col", "doc"]
    assert main([*argv, "--tools", "lightgbm,trec_eval,sklearn", "--value", f"{value:.6f}"]) == 0
    out = capsys.readouterr().out
    result = reconcile(y, score, qid, "ndcg@10", ["lightgbm", "trec_eval", "sklearn"], doc_id=doc)
    for name, mean in result.means.items():
        assert f"{name:<9}  {mean:.4f}" in out
    assert "no relevant document: lightgbm scores 1, trec_eval scores 0" in out
    matches = out.split("Settings that reproduce")[1].splitlines()
    assert matches[4].startswith("sklearn")  # title, blank, header, rule, first row
    assert main([*argv, "--tools", "sklearn,torchmetrics", "--format", "markdown"]) == 0
    assert "| tool | ndcg@10 |" in capsys.readouterr().out


def test_cli_errors_are_one_line_in_flag_terms(tmp_path, capsys):
    from sklearn_ltr_metrics._cli import main

    y, score, qid, _ = flat_data(4, n_queries=4)
    table = tmp_path / "scores.csv"
    pd.DataFrame({"qid": qid, "label": y, "score": score}).to_csv(table, index=False)
    with pytest.raises(SystemExit) as exit_info:
        main(["reconcile", "--table", str(table), "--tools", "lightgbm,trec"])
    assert exit_info.value.code == 2
    assert "--tools: tool 'trec': 'trec' is not a preset" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["reconcile", "--qrels", str(table), "--run", str(table), "--value", "0.5"])
    assert "--value searches the settings of a table" in capsys.readouterr().err
    assert main(["reconcile", "--table", str(tmp_path / "missing.csv")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("ltr-eval: error:") and "Traceback" not in err
