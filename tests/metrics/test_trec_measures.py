"""Every trec_eval measure, under trec_eval's names, against trec_eval's own outputs.

The expected numbers are trec_eval's outputs shipped in ../shared/datasets/trec_eval-test
(``-m all_trec -q`` with ``-c``, ``-l2``, ``-M100``, and measures with parameters); the files
are read by the plain readers of test_conformance, not the package's. ``all`` is the mean of
the per-topic values, the sum for the counts and ``exp`` of the mean for gm_map / gm_bpref.
"""

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sklearn_ltr_metrics import evaluate, evaluate_run
from sklearn_ltr_metrics.metrics import describe_metric, metric_names
from sklearn_ltr_metrics.metrics._registry import METRICS

from .test_conformance import plain_qrels, plain_run

#: trec_eval measures that are not numbers per topic (strings, the count of topics).
NOT_PER_TOPIC = {"runid", "relstring", "relstring_20", "num_q"}


def _expected(path):
    table = pd.read_csv(path, sep="\t", header=None, names=["measure", "qid", "value"], dtype=str)
    table["measure"] = table["measure"].str.strip()
    return table[~table["measure"].isin(NOT_PER_TOPIC)]


def _summary(column, values):
    if column.startswith("num_"):
        return values.sum()
    if column.startswith("gm_"):
        return np.exp(values.mean())
    return values.mean()


def _compare(per_query, expected):
    checked = set()
    for row in expected.itertuples():
        assert row.measure in per_query.columns, row.measure
        values = per_query[row.measure]
        got = _summary(row.measure, values) if row.qid == "all" else values.loc[row.qid]
        assert got == pytest.approx(float(row.value), abs=5.1e-5), (row.measure, row.qid)
        checked.add(row.measure)
    return checked


@pytest.mark.parametrize(
    ("expected", "qrels", "run", "options"),
    [
        ("out.test.aq", "qrels.test", "results.test", {}),
        ("out.test.a", "qrels.test", "results.test", {}),
        ("out.test.aql", "qrels.rel_level", "results.test", {"min_relevance": 2}),
        ("out.test.aqc", "qrels.test", "results.trunc", {"missing_queries": "zero"}),
        # -c -M100: trec_eval's -M is the API's max_docs.
        (
            "out.test.aqcM",
            "qrels.test",
            "results.trunc",
            {"missing_queries": "zero", "max_docs": 100},
        ),
    ],
)
def test_all_trec_equals_trec_eval(datasets_dir, expected, qrels, run, options):
    folder = datasets_dir / "trec_eval-test"
    ranked = plain_run(folder / run)
    metrics = ["all_trec", "relstring.20"] if expected == "out.test.aql" else "all_trec"
    evaluation = evaluate_run(ranked, plain_qrels(folder / qrels), metrics=metrics, **options)
    checked = _compare(evaluation.per_query, _expected(folder / expected))
    assert len(checked) >= 95  # every per-topic measure of -m all_trec
    # The strings: relstring per topic, as trec_eval prints them (quoted).
    strings = _strings(folder / expected)
    column = "relstring_20" if expected == "out.test.aql" else "relstring"
    assert list(evaluation.strings.columns) == [column]
    if expected != "out.test.a":  # without -q, trec_eval prints no topic line
        got = {qid: f"'{value}'" for qid, value in evaluation.strings[column].items()}
        assert got == strings[column]


def _strings(path):
    """{measure: {topic: printed string}} of the relstring lines of a trec_eval output."""
    out = {}
    for line in path.read_text().splitlines():
        measure, topic, value = line.split("\t")
        if measure.strip().startswith("relstring"):
            out.setdefault(measure.strip(), {})[topic] = value
    return out


@pytest.mark.parametrize(
    ("expected", "options"),
    [("out.test.aqc", {}), ("out.test.aqcM", {"max_docs": 100})],
)
def test_trec_layout_of_truncated_runs(datasets_dir, expected, options):
    """trec_eval -m all_trec -q -c [-M100] on results.trunc, whole output line for line. The
    command line refuses results.trunc (it holds lines with fields after the tag), so the
    layout of ``--format trec`` is applied to evaluate_run's result directly."""
    from sklearn_ltr_metrics._cli._trec import trec_layout

    folder = datasets_dir / "trec_eval-test"
    run = plain_run(folder / "results.trunc").assign(tag="STANDARD")
    evaluation = evaluate_run(
        run,
        plain_qrels(folder / "qrels.test"),
        metrics="all_trec",
        missing_queries="zero",
        **options,
    )
    assert evaluation.run_id == "STANDARD"
    got = trec_layout(evaluation, ["all_trec"], evaluation.run_id).splitlines()
    want = (folder / expected).read_text().splitlines()
    assert len(got) == len(want)
    for line, expected_line in zip(got, want, strict=True):
        name, topic, value = line.split("\t")
        want_name, want_topic, want_value = expected_line.split("\t")
        assert (name, topic) == (want_name, want_topic)
        if name.startswith(("runid", "relstring")):
            assert value == want_value, line
        else:
            assert float(value) == pytest.approx(float(want_value), abs=1e-4), line


def test_default_measures_equal_trec_eval(datasets_dir):
    """out.test: trec_eval's default measure set (no -m), summaries only, by their names."""
    folder = datasets_dir / "trec_eval-test"
    expected = _expected(folder / "out.test")
    for qrels in ("qrels.test", "qrels.test.with-comments"):
        judged = plain_qrels(folder / qrels)
        evaluation = evaluate_run(
            plain_run(folder / "results.test"), judged, metrics=sorted(set(expected["measure"]))
        )
        assert len(_compare(evaluation.per_query, expected)) >= 25


def test_measures_with_parameters_equal_trec_eval(datasets_dir):
    """out.test.meas_params: the parameters spelled as on trec_eval's command line."""
    folder = datasets_dir / "trec_eval-test"
    specs = [
        "iprec_at_recall..10,.20,.25,.75,.50",
        "P.5,7,3",
        "recall.20,2000",
        "Rprec_mult.5.0,0.2,0.35",
        "utility.2,-1,0,0",
        "11pt_avg..25,.5,.75",
        "ndcg_cut.10,20,23.4",
        "success.2,5,20",
        "ndcg.1=3,2=9,4=4.5",
    ]
    evaluation = evaluate_run(
        plain_run(folder / "results.test"), plain_qrels(folder / "qrels.test"), metrics=specs
    )
    checked = _compare(evaluation.per_query, _expected(folder / "out.test.meas_params"))
    assert len(checked) == 22


def test_cwl_fixture_all_trec(datasets_dir):
    """ir_measures' cwl fixture (3 topics of 10 documents) against trec_eval -m all_trec."""
    folder = datasets_dir / "ir_measures-fixtures"
    evaluation = evaluate_run(
        plain_run(folder / "cwl.run"), plain_qrels(folder / "cwl.qrels"), metrics="all_trec"
    )
    checked = _compare(
        evaluation.per_query, _expected(folder / "derived.trec_eval.cwl.all_trec.out")
    )
    assert len(checked) >= 95


def test_default_measures_of_the_rag_fixture(datasets_dir):
    """out.comment.test: trec_eval's default measure set on graded TREC 2024 RAG judgments."""
    folder = datasets_dir / "trec_eval-test"
    expected = _expected(folder / "out.comment.test")
    evaluation = evaluate_run(
        plain_run(folder / "results.comment.test"),
        plain_qrels(folder / "qrels.comment.test"),
        metrics=sorted(set(expected["measure"])),
    )
    assert len(_compare(evaluation.per_query, expected)) >= 25


# -- names as users type them ----------------------------------------------------------------

RUN = pd.DataFrame(
    {"qid": "q", "doc_id": ["a", "b", "c", "d", "e"], "score": [5.0, 4.0, 3.0, 2.0, 1.0]}
)
QRELS = pd.DataFrame({"qid": "q", "doc_id": ["a", "c", "d", "x", "b"], "label": [2, 1, 0, 1, -1]})


@pytest.mark.parametrize(
    ("name", "columns", "values"),
    [
        ("P.1,3", ["P_1", "P_3"], [1.0, 2 / 3]),
        ("P_3", ["P_3"], [2 / 3]),
        ("ndcg_cut.2", ["ndcg_cut_2"], [(2.0) / (2.0 + 1 / np.log2(3))]),
        ("recip_rank", ["recip_rank"], [1.0]),
        ("set_F", ["set_F"], [2 * (2 / 5) * (2 / 3) / (2 / 5 + 2 / 3)]),
        ("success.1,5", ["success_1", "success_5"], [1.0, 1.0]),
        ("num_rel_ret", ["num_rel_ret"], [2.0]),
        ("P@2", ["P@2"], [0.5]),
        ("P(rel=2)@2", ["P(rel=2)@2"], [0.5]),
        ("RR(rel=2)", ["RR(rel=2)"], [1.0]),
        ("R@3", ["R@3"], [2 / 3]),
        ("NumRelRet", ["NumRelRet"], [2.0]),
        ("Judged@5", ["Judged@5"], [4 / 5]),
        # trec_eval's graded RBP: gains over the largest grade, 2 (a: 1, c: 1/2).
        ("RBP(p=0.5)", ["RBP(p=0.5)"], [0.5 * (1.0 + 0.5 * 0.25)]),
        # round(0.5 * 3) = 2: the second relevant row, c at rank 3.
        ("iprec_at_recall_0.50", ["iprec_at_recall_0.50"], [2 / 3]),
    ],
)
def test_foreign_names_give_their_measures(name, columns, values):
    """Hand-computed: relevant a (grade 2) and c; x is relevant and never retrieved."""
    table = evaluate_run(RUN, QRELS, metrics=[name]).per_query
    assert list(table.columns[4:]) == columns
    np.testing.assert_allclose(table.loc["q", columns].to_numpy(float), values, rtol=1e-12)


def test_names_are_listed_and_explained():
    names = metric_names(foreign=True)
    assert {"P", "ndcg_cut", "Rprec_mult", "nDCG", "RBP", "NumRelRet"} <= set(names)
    assert "P" not in metric_names()
    own = set(metric_names())
    for name in set(names) - own:  # every foreign family is explained under its own name
        assert describe_metric(name).startswith(f"{name}: "), name
    assert describe_metric("P_10").startswith("P_10: precision@10 (")
    assert "min_relevance=2.0" in describe_metric("P(rel=2)@5")
    with pytest.raises(ValueError, match=r"ndcg_cutt.*ndcg_cut"):
        evaluate_run(RUN, QRELS, metrics=["ndcg_cutt.10"])
    with pytest.raises(ValueError, match="takes no parameter"):
        evaluate_run(RUN, QRELS, metrics=["map.5"])
    with pytest.raises(ValueError, match="not supported here"):
        evaluate_run(RUN, QRELS, metrics=["nDCG(dcg=exp)@10"])


# -- ties -----------------------------------------------------------------------------------


def test_order_measures_refuse_tie_averaging():
    with pytest.raises(ValueError, match="ties="):
        evaluate([1, 0, 1], [1.0, 1.0, 0.5], qid=[1, 1, 1], metrics=["inst"])
    # Without ties among the relevant rows the policy does not matter.
    got = evaluate([1, 0, 0], [2.0, 1.0, 1.0], qid=[1, 1, 1], metrics=["bpref", "infap"])
    assert got.per_query.loc[1, "bpref"] == 1.0 and got.per_query.loc[1, "infap"] == 1.0


@pytest.mark.parametrize(
    "spec",
    [
        "set_precision",
        "set_ap",
        "relative_precision@2",
        "r_precision_mult",
        "rbp",
        "rbp@3",
        "bpref",
        "bing",
        "sdcg@3",
        "ndcg_rel",
        "rndcg",
        "infap",
        "g",
        "bpm@3",
        "compat",
    ],
)
def test_tie_averaged_values_are_the_mean_over_orderings(spec):
    """ties='average' equals the mean over every order of the tied rows (ties='stable')."""
    labels = np.array([2.0, 0.0, 1.0, 0.0, 1.0])
    scores = np.array([3.0, 2.0, 2.0, 2.0, 1.0])
    average = evaluate(labels, scores, qid=np.zeros(5), metrics=[spec]).per_query.iloc[0, -1]
    values = []
    for order in itertools.permutations([1, 2, 3]):
        rows = [0, *order, 4]
        table = evaluate(
            labels[rows], scores[rows], qid=np.zeros(5), metrics=[spec], ties="stable"
        ).per_query
        values.append(table.iloc[0, -1])
    assert average == pytest.approx(np.mean(values), rel=1e-12)


def test_implied_options_apply_to_their_measure_only():
    """P(rel=2) counts only grade 2 as relevant; AP(judged_only=True) drops unjudged rows."""
    run = pd.DataFrame({"qid": "q", "doc_id": ["c", "a", "u", "d"], "score": [4.0, 3, 2, 1]})
    qrels = pd.DataFrame({"qid": "q", "doc_id": ["a", "c", "d"], "label": [2, 1, 1]})
    table = evaluate_run(
        run, qrels, metrics=["P@2", "P(rel=2)@2", "AP", "AP(judged_only=True)"]
    ).per_query
    assert table.loc["q", "P@2"] == 1.0 and table.loc["q", "P(rel=2)@2"] == 0.5
    assert table.loc["q", "AP"] == pytest.approx((1 + 1 + 3 / 4) / 3)
    assert table.loc["q", "AP(judged_only=True)"] == pytest.approx(1.0)


# -- registry-driven invariants of the new measures -----------------------------------------

NEW = [
    name
    for name, m in METRICS.items()
    if not m.needs_judgments
    and name
    in {
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "num_nonrel_judged_ret",
        "set_precision",
        "set_recall",
        "set_f",
        "set_ap",
        "set_relative_precision",
        "relative_precision",
        "r_precision_mult",
        "utility",
        "rbp",
        "bpref",
        "gm_bpref",
        "gm_map",
        "infap",
        "iprec_at_recall",
        "11pt_avg",
        "bing",
        "g",
        "ndcg_rel",
        "rndcg",
        "sdcg",
        "insq",
        "inst",
        "nerr8",
        "nerr9",
        "nerr10",
        "nerr11",
        "bpm",
    }
]


@st.composite
def ranking_data(draw):
    n_queries = draw(st.integers(1, 4))
    sizes = draw(st.lists(st.integers(1, 7), min_size=n_queries, max_size=n_queries))
    n = sum(sizes)
    labels = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    scores = draw(st.lists(st.integers(-4, 4), min_size=n, max_size=n))
    qid = np.repeat([f"q{i}" for i in range(n_queries)], sizes)
    return np.array(labels, dtype=float), np.array(scores, dtype=float), qid


def _new_table(labels, scores, qid):
    # Pessimistic ties: a strict order that does not depend on the input order of the rows.
    return evaluate(
        labels, scores, qid=qid, metrics=NEW, ties="pessimistic", gain="linear", min_relevance=1
    ).per_query


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=ranking_data(), seed=st.integers(0, 2**16))
def test_new_measures_invariants(data, seed):
    labels, scores, qid = data
    base = _new_table(labels, scores, qid)
    perm = np.random.default_rng(seed).permutation(labels.size)
    shuffled = _new_table(labels[perm], scores[perm], qid[perm])
    pd.testing.assert_frame_equal(base, shuffled, check_exact=False, rtol=1e-9, atol=1e-12)
    rescaled = _new_table(labels, 2.0 * scores - 1.0, qid)
    pd.testing.assert_frame_equal(base, rescaled, check_exact=False, rtol=1e-9, atol=1e-12)
    for name in NEW:
        low, high = METRICS[name].value_range
        values = base[name].dropna()
        assert ((values >= low - 1e-12) & (values <= high + 1e-12)).all(), name
    ideal = _new_table(labels, labels, qid)
    has_pos = ideal["n_pos"] > 0
    for name in NEW:
        if METRICS[name].ideal is not None:
            np.testing.assert_allclose(
                ideal.loc[has_pos, name], METRICS[name].ideal, atol=1e-12, err_msg=name
            )


def test_evaluate_applies_implied_options_per_name():
    table = evaluate(
        [2, 1, 0], [3.0, 2.0, 1.0], qid=[1, 1, 1], metrics=["P@2", "P(rel=2)@2"], ties="stable"
    ).per_query
    assert table.loc[1, "P@2"] == 1.0 and table.loc[1, "P(rel=2)@2"] == 0.5
    with pytest.raises(ValueError, match="evaluate_run"):
        evaluate([1, 0], [1.0, 0.0], qid=[1, 1], metrics=["AP(judged_only=True)"])


@pytest.mark.parametrize(
    "spec",
    [
        *("bpref", "bing", "num_nonrel_judged_ret", "unjudged@3", "ndcg_rel", "rndcg"),
        *("infap", "G", "compat", "bpm@4"),
    ],
)
def test_tie_averaged_run_values_are_the_mean_over_orderings(spec):
    """evaluate_run with unjudged and negatively judged rows in tied blocks: ties='average'
    equals the mean over every order of the tied rows (ties='stable' follows input order)."""
    run = pd.DataFrame(
        {
            "qid": "q",
            "doc_id": ["a", "b", "c", "d", "e", "f", "g"],
            "score": [3.0, 2.0, 2.0, 2.0, 2.0, 1.0, 1.0],
        }
    )
    qrels = pd.DataFrame(
        {"qid": "q", "doc_id": ["a", "b", "c", "e", "f", "g", "z"], "label": [0, 1, 0, -1, 1, 0, 1]}
    )
    average = evaluate_run(run, qrels, metrics=[spec], ties="average").per_query.iloc[0, -1]
    orders = [
        [0, *first, *second]
        for first in itertools.permutations([1, 2, 3, 4])
        for second in itertools.permutations([5, 6])
    ]  # each order a query of its own, in one call
    runs = pd.concat([run.iloc[rows].assign(qid=f"q{i:02d}") for i, rows in enumerate(orders)])
    judged = pd.concat([qrels.assign(qid=f"q{i:02d}") for i in range(len(orders))])
    values = evaluate_run(runs, judged, metrics=[spec], ties="stable").per_query.iloc[:, -1]
    assert len(values) == len(orders)
    assert average == pytest.approx(values.mean(), rel=1e-12)


def test_scorers_take_the_foreign_names():
    from sklearn_ltr_metrics.metrics import make_ranking_scorer

    scorer = make_ranking_scorer(["nDCG@10", "P.5,10"])
    assert scorer.metrics == ("nDCG@10", "P_5", "P_10")
    with pytest.raises(ValueError, match="stands for 2 measures"):
        make_ranking_scorer("P.5,10")


def test_gm_map_follows_empty_query():
    y, s, q = [1, 0, 0, 0], [2.0, 1.0, 2.0, 1.0], ["a", "a", "b", "b"]
    skipped = evaluate(y, s, qid=q, metrics=["gm_map"]).per_query["gm_map"]
    assert skipped["a"] == 0.0 and np.isnan(skipped["b"])
    zero = evaluate(y, s, qid=q, metrics=["gm_map"], empty_query="zero").per_query["gm_map"]
    assert zero["b"] == pytest.approx(np.log(1e-5))
    with pytest.raises(ValueError, match="empty_query"):
        evaluate(y, s, qid=q, metrics=["gm_map"], empty_query="error")


def test_columns_keep_the_order_of_the_specs():
    names = ["P@2", "P(rel=2)@2", "AP", "AP(judged_only=True)", "RR"]
    table = evaluate_run(RUN, QRELS, metrics=names).per_query
    assert list(table.columns[4:]) == names


def test_ndcg_names_carry_their_gain():
    """nDCG@k as ir_measures and ndcg_cut as trec_eval: the label is the gain, whatever the
    call's gain=; the package's ndcg@k follows gain= (exponential by default)."""
    y, s, q = [2, 0, 1, 3], [4.0, 3.0, 2.0, 1.0], [1, 1, 1, 1]
    table = evaluate(
        y, s, qid=q, metrics=["nDCG@3", "ndcg_cut.3", "ndcg@3", "nDCG(dcg='exp-log2')@3"]
    ).per_query
    linear = evaluate(y, s, qid=q, metrics=["ndcg@3"], gain="linear").per_query["ndcg@3"]
    exponential = evaluate(y, s, qid=q, metrics=["ndcg@3"], gain="exponential").per_query
    assert table.loc[1, "nDCG@3"] == table.loc[1, "ndcg_cut_3"] == linear[1]
    assert table.loc[1, "ndcg@3"] == exponential.loc[1, "ndcg@3"] != linear[1]
    assert table.loc[1, "nDCG(dcg='exp-log2')@3"] == exponential.loc[1, "ndcg@3"]


# -- trec_eval's strings: relstring, runid ---------------------------------------------------


def test_relstring_characters_by_hand():
    """a: 2, b: judged -1 ('.'), c: 1, d: 0, e: unjudged ('-'); a label above 9 is '>'."""
    table = evaluate_run(RUN, QRELS, metrics=["relstring", "relstring.3", "P_1"])
    assert list(table.per_query.columns[4:]) == ["P_1"]
    assert table.strings.loc["q"].tolist() == ["2.10-", "2.1"]
    graded = QRELS.assign(label=[12, 1, 0, 1, 3])
    assert evaluate_run(RUN, graded, metrics="relstring.2").strings.iloc[0, 0] == ">3"
    # trec_eval -J: unjudged and negatively judged rows leave the ranking first.
    condensed = evaluate_run(RUN, QRELS, metrics="relstring", unjudged="remove").strings
    assert condensed.iloc[0, 0] == "210"


def test_relstring_follows_the_tie_policy():
    run = pd.DataFrame({"qid": "q", "doc_id": ["a", "b", "c"], "score": [1.0, 1.0, 1.0]})
    qrels = pd.DataFrame({"qid": "q", "doc_id": ["a", "b", "c"], "label": [1, 0, 2]})
    got = {
        ties: evaluate_run(run, qrels, metrics="relstring", ties=ties).strings.iloc[0, 0]
        for ties in ("trec_eval", "stable", "doc_id", "pessimistic", "optimistic")
    }
    assert got == {
        "trec_eval": "201",
        "stable": "102",
        "doc_id": "102",
        "pessimistic": "012",
        "optimistic": "210",
    }
    with pytest.raises(ValueError, match=r"ties='average'.*ties='trec_eval'"):
        evaluate_run(run, qrels, metrics="relstring", ties="average")
    same = qrels.assign(label=[1, 1, 1])
    assert evaluate_run(run, same, metrics="relstring", ties="average").strings.iloc[0, 0] == "111"


def test_string_measures_have_no_place_in_flat_evaluations():
    with pytest.raises(ValueError, match=r"'relstring'.*evaluate_run"):
        evaluate([1, 0], [1.0, 0.0], qid=[1, 1], metrics=["relstring"])
    with pytest.raises(ValueError, match=r"'runid'.*evaluate_run"):
        evaluate([1, 0], [1.0, 0.0], qid=[1, 1], metrics=["map", "runid"])
    flat = evaluate([1, 0], [1.0, 0.0], qid=[1, 1], metrics=["map"])
    assert flat.strings.shape == (1, 0) and flat.run_id is None
    assert describe_metric("relstring.20").startswith("relstring.20: the labels of the first 20")
    assert {"relstring", "runid", "num_q"} <= set(metric_names(foreign=True))


def test_run_id_is_the_tag_of_the_last_row():
    tagged = RUN.assign(tag=["x", "x", "x", "x", "last"])
    assert evaluate_run(tagged, QRELS, metrics="P_1").run_id == "last"
    assert evaluate_run(RUN, QRELS, metrics="P_1").run_id is None


def test_all_trec_with_a_family_given_keeps_trec_eval_parameters():
    """-m all_trec -m P.5: trec_eval prints P_5 alone, not its default cut-offs."""
    table = evaluate_run(RUN, QRELS, metrics=["all_trec", "P.2", "relstring.2"])
    assert [c for c in table.per_query.columns if c.startswith("P_")] == ["P_2"]
    assert list(table.strings.columns) == ["relstring_2"]


def test_concat_keeps_the_strings():
    from sklearn_ltr_metrics.metrics import RankingEvaluation

    other = RUN.assign(qid="p")
    qrels = pd.concat([QRELS, QRELS.assign(qid="p")])
    parts = [
        evaluate_run(r, qrels[qrels["qid"] == q], metrics=["relstring.2", "P_1"])
        for r, q in ((other, "p"), (RUN, "q"))
    ]
    both = RankingEvaluation.concat(parts)
    assert both.strings["relstring_2"].to_dict() == {"p": "2.", "q": "2."}


# -- one evaluation of many measures: what the engine shares gives every measure's own value --


def test_groups_of_implied_options_share_the_ranking_not_the_options():
    """Names implying other options (gain, min_relevance) are evaluated together with their
    ranking shared: each column equals the name evaluated alone, and the plain references."""
    rng = np.random.default_rng(4)
    y = rng.integers(0, 4, 300).astype(float)
    s = rng.integers(0, 6, 300).astype(float)
    q = np.repeat(np.arange(30), 10)
    names = ["ndcg@5", "nDCG@5", "P@3", "P(rel=2)@3", "R(rel=3)@5", "map", "ndcg_cut.5"]
    together = evaluate(y, s, qid=q, metrics=names, ties="pessimistic").per_query
    for name in names:
        alone = evaluate(y, s, qid=q, metrics=[name], ties="pessimistic").per_query
        column = alone.columns[-1]  # ndcg_cut.5 is printed ndcg_cut_5
        np.testing.assert_array_equal(together[column], alone[column], err_msg=name)
    # Plain references: pessimistic ties put the lower labels first inside a tied block.
    order = np.lexsort((y, -s, q))
    labels = y[order].reshape(30, 10)
    np.testing.assert_allclose(together["P(rel=2)@3"], (labels[:, :3] >= 2).mean(axis=1))
    np.testing.assert_allclose(together["P@3"], (labels[:, :3] >= 1).mean(axis=1))
    from sklearn.metrics import ndcg_score

    for i in range(3):  # nDCG@5 (linear gain): scikit-learn's, on the strict order
        ranks = -np.arange(10.0)
        expected = ndcg_score([labels[i]], [ranks], k=5)
        assert together["nDCG@5"].iloc[i] == pytest.approx(expected, abs=1e-12)


def test_a_sum_read_at_many_cutoffs_equals_a_plain_reference():
    """Hits at 12 cut-offs over 12 specs (the engine sums them once past a few calls) equal
    the counts of a plain sort."""
    rng = np.random.default_rng(6)
    y = rng.integers(0, 3, 2000).astype(float)
    s = rng.random(2000)
    q = np.repeat(np.arange(40), 50)
    cutoffs = [1, 2, 3, 5, 7, 10, 15, 20, 25, 30, 40, 60]
    table = evaluate(y, s, qid=q, metrics=[f"precision@{k}" for k in cutoffs]).per_query
    labels = y[np.lexsort((-s, q))].reshape(40, 50)
    for k in cutoffs:
        expected = (labels[:, :k] > 0).sum(axis=1) / k
        np.testing.assert_allclose(table[f"precision@{k}"], expected, rtol=0, atol=1e-15)
