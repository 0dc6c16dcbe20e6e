"""The metric engine against independent oracles.

- hand-computed tiny cases;
- exact tie averaging against brute-force enumeration of every tied ordering;
- registry-driven invariants (hypothesis) over every metric.
"""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from sklearn_ltr_metrics import evaluate, metric_names
from sklearn_ltr_metrics.metrics import DroppedQueriesWarning
from sklearn_ltr_metrics.metrics._registry import METRICS

from .._reference import brute_force_average, metric_value

REFERENCE_METRICS = [
    "precision",
    "recall",
    "capped_recall",
    "hit_rate",
    "mrr",
    "average_precision",
    "ndcg",
    "dcg",
    "cg",
    "f1",
    "err",
]


def one_query(labels, scores, metrics, **kwargs):
    ev = evaluate(labels, scores, qid=np.zeros(len(labels), dtype=int), metrics=metrics, **kwargs)
    return ev.per_query.iloc[0]


# -- hand-computed cases -----------------------------------------------------------------


def test_hand_computed_binary_metrics():
    # ranked order: rel, non, rel, non, non ; n_pos = 2
    labels = [1, 0, 1, 0, 0]
    scores = [5, 4, 3, 2, 1]
    row = one_query(
        labels,
        scores,
        [
            "precision@2",
            "recall@2",
            "capped_recall@1",
            "hit_rate@1",
            "mrr",
            "map",
            "r_precision",
            "f1@3",
        ],
    )
    assert row["precision@2"] == 0.5
    assert row["recall@2"] == 0.5
    assert row["capped_recall@1"] == 1.0
    assert row["hit_rate@1"] == 1.0
    assert row["mrr"] == 1.0
    assert row["map"] == pytest.approx((1 / 1 + 2 / 3) / 2)
    assert row["r_precision"] == 0.5
    # precision@3 = 2/3, recall@3 = 1 -> F1 = 0.8
    assert row["f1@3"] == pytest.approx(0.8)


def test_hand_computed_graded_metrics():
    labels = [2, 0, 3]
    scores = [3, 2, 1]
    row = one_query(labels, scores, ["dcg@2", "ndcg@2", "cg@3", "err@3"], gain="exponential")
    assert row["dcg@2"] == pytest.approx(3.0)
    ideal = 7.0 + 3.0 / math.log2(3)
    assert row["ndcg@2"] == pytest.approx(3.0 / ideal)
    assert row["cg@3"] == pytest.approx(10.0)
    r = [3 / 16, 0.0, 7 / 16]
    err = r[0] + (1 - r[0]) * (1 - r[1]) * r[2] / 3
    assert row["err@3"] == pytest.approx(err)
    linear = one_query(labels, scores, ["dcg@2"], gain="linear")
    assert linear["dcg@2"] == pytest.approx(2.0)
    mapped = one_query(labels, scores, ["dcg@1"], gain={0: 0, 2: 10, 3: 20})
    assert mapped["dcg@1"] == pytest.approx(10.0)


def test_mean_of_several_cutoffs_and_per_cutoff_table():
    labels = [1, 0, 1, 1]
    scores = [4, 3, 2, 1]
    ev = evaluate(labels, scores, qid=["a"] * 4, metrics=["precision@adaptive"])
    # n_pos = 3 -> cut-offs [1, 3]: precision 1 and 2/3
    assert ev.per_query.loc["a", "precision@adaptive"] == pytest.approx((1 + 2 / 3) / 2)
    table = ev.per_cutoff
    assert list(table.columns) == ["qid", "metric", "k", "value"]
    assert table["k"].tolist() == [1, 3]
    np.testing.assert_allclose(table["value"], [1.0, 2 / 3])


def test_cutoff_beyond_list_and_whole_list():
    row = one_query([1, 0], [2, 1], ["precision@5", "precision", "recall@5", "ndcg@50"])
    assert row["precision@5"] == pytest.approx(1 / 5)
    assert row["precision"] == pytest.approx(1 / 2)
    assert row["recall@5"] == 1.0
    assert row["ndcg@50"] == 1.0


@pytest.mark.parametrize(
    ("k", "n_pos", "expected"),
    [
        ("percentile", 120, [12, 30, 60, 90, 120]),
        ("percentile", 3, [1, 2, 3]),
        ("adaptive", 5, [1, 3, 5]),
        ("adaptive", 28, [5, 10, 20, 28]),
        ("adaptive", 80, [10, 20, 50, 80]),
        ("adaptive", 10, [5, 10, 20]),
        ("capped", 28, [5, 10, 20, 28]),
        ("capped", 120, [5, 10, 20, 50, 100]),
        ([10, 5, 10], 7, [5, 10]),
    ],
)
def test_cutoff_strategies_match_methodology(k, n_pos, expected):
    labels = np.r_[np.ones(n_pos), np.zeros(200)]
    ev = evaluate(
        labels, -np.arange(labels.size), qid=np.zeros(labels.size), metrics=["recall"], k=k
    )
    assert ev.per_cutoff["k"].tolist() == expected


def test_callable_cutoff_is_called_per_distinct_query_shape():
    calls = []

    def two_cutoffs(n_pos, n_neg):
        calls.append((n_pos, n_neg))
        return [n_pos, 2 * n_pos]

    labels = [1, 0, 0, 1, 0, 0, 1, 1, 0]
    qid = [1, 1, 1, 2, 2, 2, 3, 3, 3]
    ev = evaluate(labels, np.arange(9)[::-1], qid=qid, metrics=["recall"], k=two_cutoffs)
    assert sorted(calls) == [(1, 2), (2, 1)]
    assert ev.per_cutoff["k"].tolist() == [1, 2, 1, 2, 2, 4]


# -- exact tie averaging vs brute-force enumeration ------------------------------------------


@st.composite
def tied_query(draw, max_rows=7, graded=False):
    n = draw(st.integers(1, max_rows))
    top = 3 if graded else 1
    labels = draw(st.lists(st.integers(0, top), min_size=n, max_size=n))
    scores = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    return labels, scores


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    query=tied_query(graded=True),
    k=st.sampled_from([1, 2, 3, 5, None]),
    metric=st.sampled_from(REFERENCE_METRICS),
)
def test_average_ties_equal_brute_force_enumeration(query, k, metric):
    labels, scores = query
    spec = metric if k is None else f"{metric}@{k}"
    got = one_query(labels, scores, [spec], ties="average")[spec]
    expected = brute_force_average(metric, labels, scores, k)
    if math.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(query=tied_query(graded=False))
def test_r_precision_average_ties_brute_force(query):
    labels, scores = query
    got = one_query(labels, scores, ["r_precision"])["r_precision"]
    expected = brute_force_average("r_precision", labels, scores, None)
    assert (math.isnan(got) and math.isnan(expected)) or got == pytest.approx(expected)


def test_err_average_ties_on_a_large_mixed_block():
    labels = [3, 0, 2, 2, 0, 1, 4]
    scores = [1, 1, 1, 1, 1, 1, 0]  # a block of six tied rows, then one row
    got = one_query(labels, scores, ["err@4", "err"])
    assert got["err@4"] == pytest.approx(brute_force_average("err", labels, scores, 4))
    assert got["err"] == pytest.approx(brute_force_average("err", labels, scores, None))


@pytest.mark.parametrize("policy", ["stable", "pessimistic", "optimistic"])
def test_deterministic_tie_policies(policy):
    labels = [0, 1, 0, 2, 1]
    scores = [1, 1, 1, 0, 0]
    if policy == "stable":
        ordered = [0, 1, 0, 2, 1]
    elif policy == "pessimistic":
        ordered = [0, 0, 1, 1, 2]
    else:
        ordered = [1, 0, 0, 2, 1]
    for metric in ("precision", "mrr", "average_precision", "ndcg", "err"):
        got = one_query(labels, scores, [f"{metric}@3"], ties=policy)[f"{metric}@3"]
        assert got == pytest.approx(metric_value(metric, ordered, 3)), metric


def test_tie_bounds_bracket_the_average():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 3, 300)
    scores = rng.integers(0, 5, 300)
    qid = rng.integers(0, 10, 300)
    specs = ["precision@5", "map", "ndcg@10", "mrr", "err@10"]
    low = evaluate(labels, scores, qid=qid, metrics=specs, ties="pessimistic").per_query[specs]
    mid = evaluate(labels, scores, qid=qid, metrics=specs, ties="average").per_query[specs]
    high = evaluate(labels, scores, qid=qid, metrics=specs, ties="optimistic").per_query[specs]
    assert (low <= mid + 1e-12).all().all()
    assert (mid <= high + 1e-12).all().all()


def test_constant_scores_give_the_random_expectation():
    n, n_pos = 50, 7
    labels = np.r_[np.ones(n_pos), np.zeros(n - n_pos)]
    row = one_query(labels, np.zeros(n), ["precision@10", "recall@10", "hit_rate@5", "mrr"])
    assert row["precision@10"] == pytest.approx(n_pos / n)
    assert row["recall@10"] == pytest.approx(10 / n)
    assert row["hit_rate@5"] == pytest.approx(1 - math.comb(n - n_pos, 5) / math.comb(n, 5))
    # E[1 / rank of the first relevant] with the first relevant position's law
    law = [math.comb(n - j, n_pos - 1) / math.comb(n, n_pos) for j in range(1, n - n_pos + 2)]
    assert row["mrr"] == pytest.approx(sum(p / j for j, p in enumerate(law, start=1)))


# -- correlations --------------------------------------------------------------------------


def test_rank_correlations_match_scipy():
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 4, 400)
    scores = rng.integers(0, 30, 400).astype(float)
    qid = np.repeat(np.arange(20), 20)
    ev = evaluate(labels, scores, qid=qid, metrics=["kendall_tau", "spearman", "kendall_tau@5"])
    for q in range(20):
        s, y = scores[qid == q], labels[qid == q]
        assert ev.per_query.loc[q, "kendall_tau"] == pytest.approx(stats.kendalltau(s, y).statistic)
        assert ev.per_query.loc[q, "spearman"] == pytest.approx(stats.spearmanr(s, y).statistic)
        # top 5 extended to the end of a tied block straddling the cut-off
        threshold = np.sort(s)[::-1][4]
        top = s >= threshold
        tau = stats.kendalltau(s[top], y[top]).statistic
        got = ev.per_query.loc[q, "kendall_tau@5"]
        assert (math.isnan(got) and math.isnan(tau)) or got == pytest.approx(tau)


# -- registry-driven invariants --------------------------------------------------------------

# ``fbeta`` is named after its beta (``f2@3``); ``judged`` needs evaluate_run; the metrics
# defined on a strict order only are checked in test_trec_measures.py.
ALL_SPECS = [
    f"{name}@3"
    for name, m in METRICS.items()
    if m.takes_cutoff and not m.needs_judgments and name != "fbeta" and not m.strict
]
ALL_SPECS += ["f2@3", "r_precision", "map", "ndcg", "err", "kendall_tau"]


@st.composite
def ranking_data(draw):
    n_queries = draw(st.integers(1, 5))
    sizes = draw(st.lists(st.integers(1, 8), min_size=n_queries, max_size=n_queries))
    n = sum(sizes)
    labels = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    scores = draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n))
    qid = np.repeat([f"q{i}" for i in range(n_queries)], sizes)
    return np.array(labels, dtype=float), np.array(scores, dtype=float), qid


def _table(labels, scores, qid, **kwargs):
    return evaluate(labels, scores, qid=qid, metrics=ALL_SPECS, **kwargs).per_query


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=ranking_data(), seed=st.integers(0, 2**16))
def test_invariants_row_order_and_rescaling(data, seed):
    labels, scores, qid = data
    base = _table(labels, scores, qid)
    perm = np.random.default_rng(seed).permutation(labels.size)
    shuffled = _table(labels[perm], scores[perm], qid[perm])
    pd.testing.assert_frame_equal(base, shuffled, check_exact=False, rtol=1e-9, atol=1e-12)
    rescaled = _table(labels, 3.0 * scores + 7.0, qid)
    pd.testing.assert_frame_equal(base, rescaled, check_exact=False, rtol=1e-9, atol=1e-12)
    # renaming queries (and so reordering them) moves rows, not values
    renamed = _table(labels, scores, np.char.add("z", qid))
    np.testing.assert_allclose(renamed.to_numpy(), base.to_numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("ties", ["average", "label_ranking"])
def test_tied_blocks_give_the_same_bits_in_any_row_order(ties):
    """Under tie averaging (and scikit-learn's block ranks) where a row sits in its tied
    block changes no term, so the values are the same bits for any order of the input rows,
    with labels whose sums round (not small integers) and heavily tied scores."""
    rng = np.random.default_rng(9)
    sizes = rng.integers(1, 60, 40)
    qid = np.repeat(np.arange(40), sizes)
    labels = np.round(rng.random(qid.size) * 3, 2) * (rng.random(qid.size) < 0.5)
    scores = np.round(rng.normal(size=qid.size), 0)
    metrics = ["ndcg@10", "ndcg", "dcg@5", "cg@5", "err@10", "map", "mrr", "hit_rate@3"]
    metrics += ["precision@5", "recall@10", "r_precision", "capped_recall@5", "f1@5", "lrap"]
    base = evaluate(labels, scores, qid=qid, metrics=metrics, ties=ties, gain="linear")
    for seed in range(3):
        perm = np.random.default_rng(seed).permutation(qid.size)
        shuffled = evaluate(
            labels[perm], scores[perm], qid=qid[perm], metrics=metrics, ties=ties, gain="linear"
        )
        pd.testing.assert_frame_equal(base.per_query, shuffled.per_query, check_exact=True)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=ranking_data())
def test_invariants_range_and_ideal_ranking(data):
    labels, scores, qid = data
    table = _table(labels, scores, qid)
    for spec in ALL_SPECS:
        metric = METRICS.get(spec.split("@")[0], METRICS["average_precision"])
        values = table[spec].dropna()
        if metric.name in ("kendall_tau", "spearman"):
            assert ((values >= -1 - 1e-12) & (values <= 1 + 1e-12)).all()
        elif metric.bounded:
            assert ((values >= -1e-12) & (values <= 1 + 1e-12)).all(), spec
        else:
            assert (values >= -1e-12).all(), spec
    ideal = _table(labels, labels, qid, ties="pessimistic")
    has_pos = ideal["n_pos"] > 0
    for spec in ["ndcg@3", "ndcg", "map", "mrr@3", "hit_rate@3", "r_precision", "capped_recall@3"]:
        np.testing.assert_allclose(ideal.loc[has_pos, spec], 1.0, rtol=1e-12, err_msg=spec)


def test_every_registered_metric_is_listed():
    names = metric_names()
    assert set(METRICS) <= set(names)
    assert "map" in names


# -- empty queries and query_stats -------------------------------------------------------------


@pytest.mark.parametrize(("policy", "fill"), [("skip", np.nan), ("zero", 0.0), ("one", 1.0)])
def test_empty_query_policies(policy, fill):
    ev = evaluate(
        [1, 0, 0, 0],
        [2, 1, 2, 1],
        qid=["a", "a", "b", "b"],
        metrics=["recall@1", "ndcg@1", "precision@1"],
        empty_query=policy,
    )
    row = ev.per_query.loc["b"]
    for spec in ("recall@1", "ndcg@1"):
        assert (math.isnan(row[spec]) and math.isnan(fill)) or row[spec] == fill
    assert row["precision@1"] == 0.0  # precision is defined without relevant documents
    assert ev.n_skipped["recall@1"] == (1 if policy == "skip" else 0)
    if policy == "skip":  # the mean says what it leaves out
        with pytest.warns(DroppedQueriesWarning, match="1 of 2 queries.*empty_query='zero'"):
            assert ev.mean("recall@1") == 1.0
    else:
        assert ev.mean("recall@1") == pytest.approx(np.nanmean([1.0, fill]))


def test_empty_query_error_and_all_skipped_warning():
    with pytest.raises(ValueError, match="empty_query='skip'"):
        evaluate([0, 0], [1, 2], qid=[1, 1], metrics=["recall@1"], empty_query="error")
    ev = evaluate([0, 0], [1, 2], qid=[1, 1], metrics=["recall@1"])
    with pytest.warns(RuntimeWarning, match="Every query is undefined"):
        assert math.isnan(ev.mean("recall@1"))


def test_query_stats_override_denominators():
    stats_table = pd.DataFrame({"qid": ["a"], "n_pos": [4], "n_neg": [100]})
    ev = evaluate(
        [1, 0, 1],
        [3, 2, 1],
        qid=["a", "a", "a"],
        metrics=["recall@3", "map", "r_precision", "precision@3"],
        query_stats=stats_table,
    )
    row = ev.per_query.loc["a"]
    assert row["n_pos"] == 4 and row["n_neg"] == 100
    assert row["recall@3"] == 0.5
    assert row["map"] == pytest.approx((1 + 2 / 3) / 4)
    assert row["r_precision"] == pytest.approx(2 / 4)
    assert row["precision@3"] == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="n_pos can only add"):
        evaluate(
            [1, 1], [2, 1], qid=["a", "a"], query_stats=pd.DataFrame({"n_pos": [1]}, index=["a"])
        )


def test_lightgbm_preset_ap_denominator_and_empty_one():
    ev = evaluate(
        [1, 1, 1, 0, 0, 0],
        [6, 5, 1, 4, 3, 2],
        qid=[1, 1, 1, 1, 2, 2],
        metrics=["map@2", "ndcg@2"],
        conventions="lightgbm",
    )
    assert ev.per_query.loc[1, "map@2"] == pytest.approx(1.0)  # divided by min(n_pos, k) = 2
    assert ev.per_query.loc[2, "ndcg@2"] == 1.0  # empty query scores 1 (LightGBM)
    assert ev.conventions["ap_denominator"] == "min_k"
    overridden = evaluate(
        [1, 0], [1, 2], qid=[1, 1], metrics=["ndcg@1"], conventions="lightgbm", gain="linear"
    )
    assert overridden.conventions["gain"] == "linear"


def test_ideal_dcg_continuous_labels_take_the_sorting_path(monkeypatch):
    from sklearn_ltr_metrics._engine import _ideal as _metrics

    rng = np.random.default_rng(5)
    labels = rng.random(200) * 3  # continuous grades: many distinct gains
    scores = rng.random(200)
    qid = rng.integers(0, 8, 200)
    specs = ["ndcg@5", "ndcg"]
    table = evaluate(labels, scores, qid=qid, metrics=specs).per_query
    monkeypatch.setattr(_metrics, "MAX_LEVEL_TABLE", 0)
    sorted_path = evaluate(labels, scores, qid=qid, metrics=specs).per_query
    pd.testing.assert_frame_equal(table, sorted_path, check_exact=False, rtol=1e-12)
    for q in range(8):
        mask = qid == q
        ranked = labels[mask][np.argsort(-scores[mask])]
        assert table.loc[q, "ndcg@5"] == pytest.approx(metric_value("ndcg", ranked, 5))


@pytest.mark.parametrize("ties", ["average", "stable", "label_ranking"])
def test_one_cutoff_per_query_path_equals_the_general_path(ties):
    """A single int k (or the whole list) takes the engine's one-pair-per-query path, which
    shares its arrays and skips gathers; k as a one-element list takes the general path of
    (query, cut-off) pairs. Same bits, per query and per cut-off."""
    rng = np.random.default_rng(5)
    sizes = rng.integers(1, 40, 50)
    qid = np.repeat(np.arange(50), sizes)
    labels = rng.integers(0, 4, qid.size).astype(float)
    labels[qid == 3] = 0  # a query without relevant rows (undefined for several metrics)
    scores = np.round(rng.normal(size=qid.size), 1)
    names = ["ndcg", "precision", "recall", "map", "mrr", "hit_rate", "f1", "capped_recall"]
    # The whole list against a cut-off past every query (the metrics without a k divisor).
    whole = ["ndcg", "recall", "map", "mrr", "hit_rate"]
    for k, as_list, metrics in ((10, [10], names), (None, [int(sizes.max())], whole)):
        one = evaluate(labels, scores, qid=qid, metrics=metrics, k=k, ties=ties)
        general = evaluate(labels, scores, qid=qid, metrics=metrics, k=as_list, ties=ties)
        for name, column in zip(one.metrics, general.metrics, strict=True):
            np.testing.assert_array_equal(one.per_query[name], general.per_query[column])


@pytest.mark.parametrize("ties", ["average", "stable"])
def test_query_values_do_not_depend_on_other_queries(ties):
    """Bit-identical per-query values whether a query is evaluated alone or with others
    (what makes per-partition Dask evaluation equal to the in-memory table)."""
    rng = np.random.default_rng(11)
    sizes = rng.integers(1, 60, 40)
    qid = np.repeat(np.arange(40), sizes)
    labels = rng.integers(0, 4, qid.size).astype(float)
    scores = np.round(rng.normal(size=qid.size), 1)
    specs = ["ndcg@10", "map", "mrr", "err@5", "recall@adaptive", "dcg", "average_precision@7"]
    full = evaluate(labels, scores, qid=qid, metrics=specs, ties=ties).per_query
    subset = qid % 3 == 1
    part = evaluate(labels[subset], scores[subset], qid=qid[subset], metrics=specs, ties=ties)
    pd.testing.assert_frame_equal(full.loc[part.per_query.index], part.per_query, check_exact=True)


def test_list_cutoff_column_name_reads_back():
    labels, scores, qid = [1, 0, 1, 0], [4, 3, 2, 1], ["a"] * 4
    listed = evaluate(labels, scores, qid=qid, metrics=["recall"], k=[1, 3])
    assert listed.metrics == ("recall@1,3",)
    again = evaluate(labels, scores, qid=qid, metrics=list(listed.metrics))
    pd.testing.assert_frame_equal(listed.per_query, again.per_query)


def test_rank_correlations_with_continuous_labels_match_scipy():
    """Many distinct labels take the sort-based Spearman path and scipy's Kendall per query."""
    rng = np.random.default_rng(8)
    labels = np.round(rng.random(300) * 4, 3)  # ~300 distinct grades
    scores = rng.integers(0, 12, 300).astype(float)  # ties in the scores
    qid = np.repeat(np.arange(10), 30)
    ev = evaluate(labels, scores, qid=qid, metrics=["kendall_tau", "spearman@7"])
    for q in range(10):
        s, y = scores[qid == q], labels[qid == q]
        assert ev.per_query.loc[q, "kendall_tau"] == pytest.approx(stats.kendalltau(s, y).statistic)
        top = s >= np.sort(s)[::-1][6]
        assert ev.per_query.loc[q, "spearman@7"] == pytest.approx(
            stats.spearmanr(s[top], y[top]).statistic
        )


@pytest.mark.parametrize("ties", ["average", "stable"])
def test_threads_do_not_change_a_bit(monkeypatch, ties):
    from sklearn_ltr_metrics._engine import _ordering

    from .._engine import small_grain

    monkeypatch.setattr(_ordering, "_ROWS_PER_TASK", 64)  # many small sort tasks
    small_grain(monkeypatch, 64)  # every thread gets work
    rng = np.random.default_rng(4)
    sizes = rng.integers(1, 90, 300)
    qid = rng.permutation(np.repeat(np.arange(300), sizes))
    labels = rng.integers(0, 4, qid.size).astype(float)
    scores = np.round(rng.normal(size=qid.size), 1)
    specs = ["ndcg@10", "map", "mrr", "recall@adaptive", "err@5"]
    one = evaluate(labels, scores, qid=qid, metrics=specs, ties=ties).per_query
    for n_jobs in (2, 3, -1):
        two = evaluate(labels, scores, qid=qid, metrics=specs, ties=ties, n_jobs=n_jobs).per_query
        pd.testing.assert_frame_equal(one, two, check_exact=True)
    # Many cut-offs per query: running sums of every support row instead of per-pair reads.
    many = {"metrics": ["dcg", "map", "precision", "mrr"], "k": list(range(1, 13)), "ties": ties}
    one = evaluate(labels, scores, qid=qid, **many).per_cutoff
    for n_jobs in (2, 3):
        two = evaluate(labels, scores, qid=qid, n_jobs=n_jobs, **many).per_cutoff
        pd.testing.assert_frame_equal(one, two, check_exact=True)


def test_concat_of_disjoint_evaluations_equals_one_evaluation():
    from sklearn_ltr_metrics import RankingEvaluation

    rng = np.random.default_rng(12)
    qid = np.repeat([f"q{i:02d}" for i in range(30)], rng.integers(1, 40, 30))
    labels = rng.integers(0, 3, qid.size).astype(float)
    scores = np.round(rng.normal(size=qid.size), 1)
    specs = ["ndcg@10", "recall@adaptive", "map"]
    full = evaluate(labels, scores, qid=qid, metrics=specs)
    odd = np.isin(qid, np.unique(qid)[1::2])
    parts = [evaluate(labels[m], scores[m], qid=qid[m], metrics=specs) for m in (odd, ~odd)]
    joined = RankingEvaluation.concat(parts)
    pd.testing.assert_frame_equal(joined.per_query, full.per_query, check_exact=True)
    pd.testing.assert_frame_equal(joined.per_cutoff, full.per_cutoff, check_exact=True)
    with pytest.raises(ValueError, match="appears in more than one"):
        RankingEvaluation.concat([full, parts[0]])
