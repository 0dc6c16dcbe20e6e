"""ndeval's diversity measures against pyndeval (through ir_measures), per query."""

import io

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate, evaluate_run
from sklearn_ltr_metrics.io import read_trec_qrels

ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("pyndeval")


def make_subtopic_data(seed=0, n_queries=24):
    """Subtopic qrels (1-6 subtopics, grades 0-2) and a run with tied integer scores,
    unjudged documents, queries without relevant documents, a judged query not retrieved."""
    rng = np.random.default_rng(seed)
    runs, qrels = [], []
    for q in range(n_queries):
        docs = [f"d{i}" for i in rng.choice(60, 30, replace=False)]
        if q % 7 == 3:  # judged, nothing relevant
            qrels += [(str(q), "0", docs[0], 0), (str(q), "1", docs[1], 0)]
        else:
            for s in range(int(rng.integers(1, 7))):
                pool = [*docs, "x1", "x2", "x3"]  # x*: judged, never retrieved
                for d in rng.choice(pool, int(rng.integers(1, 12)), replace=False):
                    qrels.append((str(q), str(s), str(d), int(rng.integers(0, 3))))
        if q == 5:
            continue  # judged but missing from the run
        scores = rng.integers(0, 8, 25).astype(float)  # many ties
        runs += [(str(q), d, s) for d, s in zip(docs[:25], scores, strict=True)]
    run = pd.DataFrame(runs, columns=["qid", "doc_id", "score"])
    frame = pd.DataFrame(qrels, columns=["qid", "subtopic", "doc_id", "label"])
    return run, frame.drop_duplicates(["qid", "subtopic", "doc_id"], keep="last")


def reference(measure, run, qrels):
    """pyndeval's values per query, through ir_measures (one setting per call)."""
    ref_qrels = qrels.rename(
        columns={"qid": "query_id", "subtopic": "iteration", "label": "relevance"}
    )
    ref_run = run.rename(columns={"qid": "query_id"})
    parsed = ir_measures.parse_measure(measure)
    return {m.query_id: m.value for m in ir_measures.iter_calc([parsed], ref_qrels, ref_run)}


MEASURES = [
    "alpha_nDCG@1",
    "alpha_nDCG@5",
    "alpha_nDCG@20",
    "alpha_nDCG(alpha=0.3)@10",
    "alpha_DCG@1",
    "alpha_DCG@10",
    "alpha_DCG(alpha=0.8)@20",
    "ERR_IA@1",
    "ERR_IA@20",
    "nERR_IA@1",
    "nERR_IA@10",
    "P_IA@1",
    "P_IA@20",
    "StRecall@1",
    "StRecall@10",
    "NRBP",
    "NRBP(alpha=0.3,beta=0.7)",
    "nNRBP",
    "nNRBP(alpha=0.7,beta=0.3)",
    "AP_IA",
    "alpha_nDCG(rel=2)@10",
    "nNRBP(rel=2)",
    "AP_IA(rel=2)",
    "P_IA(rel=2)@5",
]


@pytest.mark.parametrize("seed", [0, 1])
def test_equal_to_pyndeval_per_query(seed):
    run, qrels = make_subtopic_data(seed)
    ev = evaluate_run(
        run, qrels, metrics=MEASURES, conventions="ir_measures", missing_queries="zero",
        empty_query="skip",
    )  # fmt: skip
    table = ev.per_query
    assert "5" in table.index  # the judged query missing from the run
    for measure in MEASURES:
        expected = reference(measure, run, qrels)
        got = table[measure].reindex(list(expected)).to_numpy()
        want = np.array(list(expected.values()))
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15, err_msg=measure)
    # nNRBP without relevant documents is 0/0, as ndeval; everything else 0.
    assert np.isnan(table.loc["3", "nNRBP"]) and table.loc["3", "alpha_nDCG@20"] == 0.0


def test_own_names_and_flat_form_agree_with_the_run_form():
    """The flat form (a column per subtopic, every row judged) gives the run form's values."""
    run, qrels = make_subtopic_data(2)
    wide = qrels.pivot_table(
        index=["qid", "doc_id"], columns="subtopic", values="label", aggfunc="max"
    )
    rows = run.join(wide, on=["qid", "doc_id"]).fillna(0.0)
    labels = rows[wide.columns].to_numpy()
    flat = evaluate(
        labels, rows["score"], qid=rows["qid"], doc_id=rows["doc_id"],
        metrics=["alpha_ndcg@10", "err_ia@5", "strecall@3", "nrbp", "ap_ia", "map_ia"],
    )  # fmt: skip
    # The run form over the same judged documents (qrels restricted to retrieved ones).
    retrieved = qrels.merge(run[["qid", "doc_id"]], on=["qid", "doc_id"])
    by_run = evaluate_run(
        run, retrieved, metrics=["alpha_nDCG@10", "ERR_IA@5", "StRecall@3", "NRBP", "AP_IA"]
    )
    got = flat.per_query.loc[by_run.per_query.index]
    pairs = zip(
        ["alpha_ndcg@10", "err_ia@5", "strecall@3", "nrbp", "ap_ia"],
        ["alpha_nDCG@10", "ERR_IA@5", "StRecall@3", "NRBP", "AP_IA"],
        strict=True,
    )
    for own, foreign in pairs:
        np.testing.assert_allclose(got[own], by_run.per_query[foreign], rtol=1e-12)
    np.testing.assert_array_equal(flat.per_query["ap_ia"], flat.per_query["map_ia"])


def test_hand_computed_alpha_ndcg_and_k1_left_undivided():
    # Two subtopics; d1 covers both, d2 covers s1 again, d3 covers s2.
    labels = np.array([[1, 0], [1, 1], [0, 1]])  # rows: d2, d1, d3
    ev = evaluate(
        labels, [3.0, 2.0, 1.0], qid=[1, 1, 1], doc_id=["d2", "d1", "d3"],
        metrics=["alpha_dcg@1", "alpha_dcg@2", "alpha_ndcg@2", "p_ia@2", "strecall@1"],
    )  # fmt: skip
    row = ev.per_query.iloc[0]
    # Ranked d2 (s1: 1), d1 (s1: 0.5, s2: 1): DCG@2 = 1 + 1.5 / log2(3).
    dcg2 = 1.0 + 1.5 / np.log2(3.0)
    assert row["alpha_dcg@1"] == 1.0  # k = 1: ndeval leaves it undivided
    assert row["alpha_dcg@2"] == pytest.approx(dcg2 / (2.0 + 1.0 / np.log2(3.0)))
    # The greedy ideal: d1 (2), then d2 or d3 (0.5 each; the greater doc_id, d3).
    assert row["alpha_ndcg@2"] == pytest.approx(dcg2 / (2.0 + 0.5 / np.log2(3.0)))
    assert row["p_ia@2"] == pytest.approx(3 / 4) and row["strecall@1"] == 0.5


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("alpha_nDCG@21", "1 <= k <= 20"),
        ("alpha_ndcg", "1 <= k <= 20"),
        ("NRBP@5", "whole ranking"),
        ("alpha_nDCG(gamma=1)@5", "not a parameter"),
        ("nrbp(alpha=2)", "between 0 and 1"),
    ],
)
def test_bad_specs_are_refused(spec, match):
    run, qrels = make_subtopic_data(0, n_queries=3)
    with pytest.raises(ValueError, match=match):
        evaluate_run(run, qrels, metrics=[spec])


def test_ties_policies_and_refusals():
    run, qrels = make_subtopic_data(0, n_queries=4)
    with pytest.raises(ValueError, match="no exact form"):
        evaluate_run(run, qrels, metrics=["alpha_nDCG@5"], ties="average")
    with pytest.raises(ValueError, match="subtopic judgments"):
        evaluate_run(run, qrels.drop(columns="subtopic"), metrics=["alpha_nDCG@5"])
    # trec_eval's order (doc_id descending) is pyndeval's on the reversed ids' order.
    flipped = run.assign(score=run["score"] * 1.0)
    a = evaluate_run(flipped, qrels, metrics=["alpha_nDCG@20"], ties="trec_eval")
    b = evaluate_run(flipped, qrels, metrics=["alpha_nDCG@20"], ties="doc_id")
    assert not np.allclose(a.per_query["alpha_nDCG@20"], b.per_query["alpha_nDCG@20"])


@pytest.mark.filterwarnings(
    "ignore::sklearn_ltr_metrics.metrics.DroppedQueriesWarning"
)  # judged, unranked
def test_read_subtopic_qrels_and_other_metrics_use_the_largest_label():
    text = "1 1 a 1\n1 2 a 0\n1 2 b 2\n2 1 x 1\n"
    qrels = read_trec_qrels(io.StringIO(text), subtopics=True)
    assert list(qrels.columns) == ["qid", "subtopic", "doc_id", "label"]
    run = pd.DataFrame({"qid": ["1", "1"], "doc_id": ["b", "a"], "score": [2.0, 1.0]})
    ev = evaluate_run(run, qrels, metrics=["alpha_nDCG@2", "P_5", "ndcg"])
    assert ev.per_query.loc["1", "P_5"] == pytest.approx(0.4)
    assert ev.per_query.loc["1", "alpha_nDCG@2"] == pytest.approx(1.0)
    plain = evaluate_run(run, qrels, metrics=["ndcg"])  # labels: a -> 1, b -> 2
    assert plain.per_query.loc["1", "ndcg"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="does not combine"):
        read_trec_qrels(io.StringIO(text), subtopics=True, format="qrels_jg")


@pytest.mark.filterwarnings(
    "ignore::sklearn_ltr_metrics.metrics.DroppedQueriesWarning"
)  # judged, unranked
def test_statistics_take_the_diversity_columns():
    from sklearn_ltr_metrics.stats import bootstrap_ci, compare_all

    run, qrels = make_subtopic_data(3)
    other = run.assign(score=-run["score"])
    a = evaluate_run(run, qrels, metrics=["alpha_nDCG@10", "ndcg_cut.10"])
    b = evaluate_run(other, qrels, metrics=["alpha_nDCG@10", "ndcg_cut.10"])
    assert list(a.per_query.columns[-2:]) == ["alpha_nDCG@10", "ndcg_cut_10"]
    low, high = bootstrap_ci(a.per_query["alpha_nDCG@10"], random_state=0)[:2]
    assert low <= a.mean("alpha_nDCG@10") <= high
    table = compare_all(
        {"a": a.per_query, "b": b.per_query}, "alpha_nDCG@10", n_resamples=200,
        n_bootstrap=100, random_state=0,
    )  # fmt: skip
    assert len(table.table) == 1


def test_reconcile_and_permutation_invariance():
    from sklearn_ltr_metrics.metrics import reconcile_run

    run, qrels = make_subtopic_data(4, n_queries=10)
    r = reconcile_run(run, qrels, "alpha_nDCG@10", ["trec_eval", "trec_eval -c"])
    # -c scores the judged query the run misses (query 5) 0: the mean over 10 queries. The
    # tools pass their ties explicitly: trec_eval's order (doc_id descending) here.
    skip = evaluate_run(run, qrels, metrics=["alpha_nDCG@10"], ties="trec_eval")
    skip = skip.mean("alpha_nDCG@10")
    assert r.means["trec_eval -c"] == pytest.approx(skip * 9 / 10)
    # Rows and queries in another order: the same values (ties by doc_id, not row order).
    shuffled = run.sample(frac=1.0, random_state=0)
    specs = ["alpha_nDCG@10", "nNRBP", "AP_IA", "P_IA@3"]
    a = evaluate_run(run, qrels, metrics=specs).per_query
    b = evaluate_run(shuffled, qrels.sample(frac=1.0, random_state=1), metrics=specs).per_query
    pd.testing.assert_frame_equal(a, b)


def test_integer_doc_ids_tie_as_their_strings():
    """ndeval compares doc ids as strings: integer ids (keyed without writing them) give the
    values of their strings, in tied blocks of the run and of the greedy ideal alike."""
    rng = np.random.default_rng(5)
    n = 400
    qid = rng.integers(0, 12, n)
    labels = (rng.random((n, 4)) < 0.3) * rng.integers(1, 3, (n, 4))
    score = rng.integers(0, 4, n).astype(float)  # many ties
    ids = rng.choice(np.r_[0:200, 950:1150, 9990:10100], n, replace=False)  # "9" > "10" > "100"
    specs = ["alpha_ndcg@1", "alpha_ndcg@10", "nerr_ia@20", "nnrbp", "ap_ia"]
    for ties in ("doc_id", "trec_eval"):
        a = evaluate(labels, score, qid=qid, doc_id=ids, metrics=specs, ties=ties)
        b = evaluate(labels, score, qid=qid, doc_id=ids.astype(str), metrics=specs, ties=ties)
        pd.testing.assert_frame_equal(a.per_query, b.per_query)


def test_average_ties_equal_the_mean_over_tie_orders():
    """P_IA@k and StRecall@k under ties='average' are the mean over every order of the tied
    rows (each order given as distinct scores under ties='stable')."""
    import itertools

    rng = np.random.default_rng(6)
    specs = ["p_ia@1", "p_ia@3", "strecall@1", "strecall@2", "strecall@4"]
    for _ in range(4):
        n = int(rng.integers(2, 7))
        labels = (rng.random((n, 3)) < 0.4).astype(float)
        score = rng.integers(0, 3, n).astype(float)
        got = evaluate(labels, score, qid=[0] * n, ties="average", metrics=specs).per_query
        blocks = [np.flatnonzero(score == v) for v in sorted(set(score), reverse=True)]
        values = []
        for parts in itertools.product(*(itertools.permutations(b) for b in blocks)):
            order = [row for part in parts for row in part]
            distinct = np.empty(n)
            distinct[order] = -np.arange(n, dtype=float)
            ev = evaluate(labels, distinct, qid=[0] * n, ties="stable", metrics=specs)
            values.append(ev.per_query[specs].to_numpy()[0])
        np.testing.assert_allclose(got[specs].to_numpy()[0], np.mean(values, axis=0), rtol=1e-12)
    run, qrels = make_subtopic_data(0, n_queries=4)
    ev = evaluate_run(run, qrels, metrics=["P_IA@5", "StRecall@5"], ties="average")
    assert ev.per_query["P_IA@5"].between(0, 1).all()


@pytest.mark.parametrize("form", ["sorted", "runs out of order", "interleaved", "strings"])
def test_flat_arrays_any_query_layout(form):
    """Flat arrays whose queries come in sorted runs (coded from the runs, no factorisation)
    or in any other layout: the same values per query id, and the same doc counts."""
    rng = np.random.default_rng(7)
    qid = np.repeat(np.arange(6) * 3 + 10, 9)
    labels = rng.integers(0, 3, (qid.size, 4)) * (rng.random((qid.size, 4)) < 0.4)
    labels = labels.astype(float)
    score, doc_id = rng.random(qid.size), rng.permutation(qid.size)
    specs = ["alpha_nDCG@5", "nERR_IA@5", "P_IA@3"]
    want = evaluate(labels, score, qid=qid, doc_id=doc_id, metrics=specs).per_query
    order = np.arange(qid.size)
    if form == "runs out of order":
        order = np.argsort(-qid, kind="stable")
    elif form == "interleaved":
        order = rng.permutation(qid.size)
    ids = qid[order].astype(str) if form == "strings" else qid[order]
    got = evaluate(
        labels[order], score[order], qid=ids, doc_id=doc_id[order], metrics=specs
    ).per_query
    if form == "strings":
        got.index = got.index.astype(int)
        got = got.sort_index()
    pd.testing.assert_frame_equal(got, want, check_index_type=False)


@pytest.mark.parametrize("ties", ["doc_id", "trec_eval", "stable", "average"])
def test_flat_arrays_in_sorted_runs_with_ties(ties):
    """Sorted whole runs (judged in one pass, ranks mapped query by query, codes never
    written) with tied scores: the values of the same rows interleaved, for each tie
    policy (``"stable"``: the input order of each query's rows kept)."""
    rng = np.random.default_rng(8)
    sizes = rng.integers(1, 40, 30)
    qid = np.repeat(np.arange(sizes.size) * 2 + 1, sizes)
    labels = rng.integers(0, 3, (qid.size, 5)) * (rng.random((qid.size, 5)) < 0.2)
    labels = labels.astype(float)
    score = rng.integers(0, 6, qid.size).astype(float)  # many ties
    doc_id = rng.permutation(qid.size) * 7
    if ties == "average":
        specs = ["p_ia@3", "strecall@5"]
    else:
        specs = ["alpha_ndcg@1", "alpha_ndcg@20", "nerr_ia@10", "p_ia@5", "strecall@3"]
    kwargs = {"metrics": specs, "ties": ties}
    want = evaluate(labels, score, qid=qid, doc_id=doc_id, **kwargs).per_query
    # Interleave the queries, each query's rows in their input order (stable ties agree).
    position = np.empty(qid.size, dtype=np.int64)
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        position[rows] = np.sort(rng.choice(qid.size * 4, rows.size, replace=False))
    mixed = np.argsort(position, kind="stable")
    got = evaluate(labels[mixed], score[mixed], qid=qid[mixed], doc_id=doc_id[mixed], **kwargs)
    pd.testing.assert_frame_equal(got.per_query, want)
