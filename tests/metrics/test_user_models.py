"""C/W/L user-model measures against cwl_eval's values (ir_measures' cwl fixture)."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate, evaluate_run

from .test_conformance import plain_qrels, plain_run


def _expected(folder):
    rows = [
        line.split("\t")
        for line in (folder / "cwl.expected.tsv").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    return {row[0]: np.array(row[1:4], dtype=float) for row in rows}


def test_cwl_measures_equal_cwl_eval(datasets_dir):
    folder = datasets_dir / "ir_measures-fixtures"
    expected = _expected(folder)
    evaluation = evaluate_run(
        plain_run(folder / "cwl.run"), plain_qrels(folder / "cwl.qrels"), metrics=list(expected)
    )
    for name, values in expected.items():
        got = evaluation.per_query.loc[["T1", "T2", "T3"], name].to_numpy()
        np.testing.assert_allclose(got, values, atol=1e-4, err_msg=name)
    assert len(expected) == 18  # every measure of the fixture


def _dense_cwl(gains, continuation, depth=1000):
    """The C/W/L expected utility by its definition, over a list padded to ``depth``."""
    g = np.zeros(depth)
    g[: len(gains)] = gains
    c = np.array([continuation(i + 1, g[: i + 1].sum(), g[i]) for i in range(depth)])
    reach = np.concatenate(([1.0], np.cumprod(c[:-1])))
    return float((reach * g).sum() / reach.sum())


@pytest.mark.parametrize(
    ("spec", "continuation"),
    [
        ("INST(T=1,max_rel=4)", lambda i, cg, g: ((i + 2 - cg - 1) / (i + 2 - cg)) ** 2),
        ("INSQ(T=1,max_rel=4)", lambda i, cg, g: ((i + 1) / (i + 2)) ** 2),
        ("NERR10(p=0.9,max_rel=4)", lambda i, cg, g: 0.9 * (1 - g)),
        ("NERR11(T=1,max_rel=4)", lambda i, cg, g: ((i + 1) / (i + 2)) ** 2 * (1 - g)),
        ("NERR8(max_rel=4)@4", lambda i, cg, g: (1 - g) if i < 4 else 0.0),
        ("NERR9(max_rel=4)@4", lambda i, cg, g: i / (i + 1) * (1 - g) if i < 4 else 0.0),
        ("SDCG(max_rel=4)@4", lambda i, cg, g: np.log2(i + 1) / np.log2(i + 2) if i < 4 else 0.0),
        ("BPM(T=1.5,max_rel=4)@5", lambda i, cg, g: 1.0 if cg < 1.5 and i < 5 else 0.0),
    ],
)
def test_graded_gains_follow_the_definition(spec, continuation):
    """Graded labels over max_rel=4: the closed-form padding equals the dense definition."""
    labels = [3.0, 0.0, 4.0, 1.0, 0.0, 2.0]
    run = pd.DataFrame({"qid": "q", "doc_id": list("abcdef"), "score": -np.arange(6.0)})
    qrels = pd.DataFrame({"qid": "q", "doc_id": list("abcdef"), "label": labels})
    got = evaluate_run(run, qrels, metrics=[spec]).per_query.loc["q", spec]
    assert got == pytest.approx(_dense_cwl(np.array(labels) / 4.0, continuation), rel=1e-9)


def test_static_user_models_are_exact_under_tie_averaging():
    """sdcg and insq weigh ranks only: the tie average is the mean over the block's orders."""
    labels = np.array([1.0, 0.0, 1.0, 1.0])
    scores = np.array([2.0, 1.0, 1.0, 0.0])
    for spec in ("sdcg@2", "insq"):
        average = evaluate(labels, scores, qid=np.zeros(4), metrics=[spec]).per_query.iloc[0, -1]
        orders = [
            evaluate(
                labels[r], scores[r], qid=np.zeros(4), metrics=[spec], ties="stable"
            ).per_query.iloc[0, -1]
            for r in ([0, 1, 2, 3], [0, 2, 1, 3])
        ]
        assert average == pytest.approx(np.mean(orders), rel=1e-12), spec


def test_compat_equals_the_reference_code(datasets_dir):
    """Compat(p) on ir_measures' compat fixture (claclark/Compatibility's values, 1e-9)."""
    folder = datasets_dir / "ir_measures-fixtures"
    rows = [
        line.split("\t")
        for line in (folder / "compat.expected.tsv").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    evaluation = evaluate_run(
        plain_run(folder / "compat.run"),
        plain_qrels(folder / "compat.qrels"),
        metrics=[row[0] for row in rows],
    )
    for row in rows:
        got = evaluation.per_query.loc[["31_1", "31_2"], row[0]].to_numpy()
        np.testing.assert_allclose(got, np.array(row[1:3], dtype=float), rtol=0, atol=1e-9)
    mean = evaluation.per_query["Compat(p=0.95)"].mean()
    assert mean == pytest.approx(float(rows[0][3]), abs=1e-9)
