"""Input handling of evaluate / evaluate_run: accepted forms, clear errors, no mutation."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate, evaluate_run

SPECS = ["ndcg@3", "precision@2", "map", "recall@adaptive"]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"y_true": [1, 0], "y_score": [1, 2, 3], "qid": [1, 1]}, ValueError, "y_score has 3"),
        ({"y_true": [], "y_score": [], "qid": []}, ValueError, "empty"),
        (
            {"y_true": [1, 0], "y_score": [np.nan, 1], "qid": ["a", "a"]},
            ValueError,
            "first in query 'a'",
        ),
        (
            {"y_true": [1, 0], "y_score": [np.inf, 1], "qid": ["a", "a"]},
            ValueError,
            "NaN or infinite",
        ),
        ({"y_true": [-1, 0], "y_score": [1, 2], "qid": [1, 1]}, ValueError, "negative labels"),
        ({"y_true": [np.nan, 0], "y_score": [1, 2], "qid": [1, 1]}, ValueError, "y_true has NaN"),
        (
            {"y_true": np.ones((2, 2)), "y_score": [1, 2], "qid": [1, 1]},
            ValueError,
            r"y_true must be 1-D.*\(2, 2\)",
        ),
        (
            {"y_true": [1, 0], "y_score": [1, 2], "qid": np.array([1, "a"], dtype=object)},
            TypeError,
            "mixes value types",
        ),
        (
            {"y_true": [1, 0], "y_score": [1, 2], "qid": [1, None]},
            ValueError,
            "qid has missing values",
        ),
        (
            {"y_true": ["a", "b"], "y_score": [1, 2], "qid": [1, 1]},
            TypeError,
            "y_true must hold numbers",
        ),
        ({"y_true": 1, "y_score": [1], "qid": [1]}, TypeError, "y_true must be a 1-D array-like"),
        ({"metrics": ["ndgc@10"]}, ValueError, "Did you mean 'ndcg'"),
        ({"metrics": ["ndcg@0"]}, ValueError, "k=0 in metric 'ndcg@0' must be >= 1"),
        ({"metrics": ["ndcg@x"]}, ValueError, "k='x' in metric 'ndcg@x'"),
        ({"metrics": ["ndcg@"]}, ValueError, "no cut-off"),
        ({"metrics": ["ndcg"], "k": 0}, ValueError, "k=0 must be >= 1"),
        ({"metrics": ["ndcg"], "k": 2.5}, TypeError, "k=2.5 is not a valid cut-off"),
        ({"metrics": ["ndcg"], "k": []}, ValueError, "empty"),
        ({"metrics": ["r_precision@5"]}, ValueError, "takes no '@k'"),
        ({"metrics": [5]}, TypeError, "metrics entries must be strings"),
        ({"metrics": []}, TypeError, "non-empty list"),
        ({"ties": "trec_eval"}, ValueError, "pass doc_id"),
        ({"conventions": "trec_eval"}, ValueError, "pass doc_id"),
        ({"ties": "random"}, ValueError, "ties='random' is not valid"),
        ({"gain": "exp"}, ValueError, "gain='exp' is not valid"),
        ({"gain": {0: 0}}, ValueError, "gain mapping has no entry"),
        ({"conventions": "trec"}, ValueError, "not a preset"),
        ({"empty_query": "drop"}, ValueError, "empty_query='drop'"),
        ({"min_relevance": 0}, ValueError, "min_relevance=0"),
        ({"metrics": ["judged@5"]}, ValueError, "evaluate_run"),
        ({"metrics": ["err@5"], "y_true": [5, 0]}, ValueError, "err_max_grade"),
        ({"query_stats": {"a": 1}}, TypeError, "query_stats must be a pandas DataFrame"),
        ({"query_stats": pd.DataFrame({"x": [1]})}, ValueError, "needs an 'n_pos' column"),
        ({"doc_id": ["a"]}, ValueError, "doc_id has 1"),
        ({"n_jobs": 0}, ValueError, "n_jobs=0 is not valid"),
    ],
)
def test_bad_input_gives_a_clear_error(kwargs, error, match):
    arguments = {"y_true": [1, 0], "y_score": [0.5, 0.2], "qid": [7, 7], "metrics": SPECS}
    arguments.update(kwargs)
    with pytest.raises(error, match=match):
        evaluate(arguments.pop("y_true"), arguments.pop("y_score"), **arguments)


def test_single_document_and_empty_queries_work():
    ev = evaluate([1, 0, 0, 0], [0.3, 0.9, 0.1, 0.2], qid=["solo", "b", "b", "b"], metrics=SPECS)
    assert ev.per_query.loc["solo", "ndcg@3"] == 1.0
    assert ev.per_query.loc["solo", "n_docs"] == 1
    assert np.isnan(ev.per_query.loc["b", "map"])
    assert ev.per_query.loc["b", "precision@2"] == 0.0


def test_inputs_are_not_modified_and_pandas_inputs_work():
    rng = np.random.default_rng(0)
    y = pd.Series(rng.integers(0, 3, 60).astype(float), index=np.arange(60)[::-1])
    score = pd.Series(rng.integers(0, 5, 60).astype(float))
    qid = pd.Series(rng.choice(["x", "y", "z"], 60), dtype="category")
    copies = (y.copy(), score.copy(), qid.copy())
    ev = evaluate(y, score, qid=qid, metrics=SPECS)
    pd.testing.assert_series_equal(y, copies[0])
    pd.testing.assert_series_equal(score, copies[1])
    pd.testing.assert_series_equal(qid, copies[2])
    plain = evaluate(y.to_numpy(), score.to_numpy(), qid=qid.astype(str).to_numpy(), metrics=SPECS)
    np.testing.assert_allclose(
        ev.per_query.to_numpy(dtype=float), plain.per_query.to_numpy(dtype=float)
    )
    assert list(ev.per_query.index) == ["x", "y", "z"]
    arrays = [rng.random(30), rng.random(30), np.repeat([3, 1, 2], 10)]
    before = [a.copy() for a in arrays]
    evaluate(*arrays[:2], qid=arrays[2], ties="pessimistic")
    for a, b in zip(arrays, before, strict=True):
        np.testing.assert_array_equal(a, b)


def _pandas_ids(names):
    """The same ids as pandas holds them: categoricals (categories sorted or not), pandas'
    strings stored by pyarrow, in a Series and an Index."""
    names = np.asarray(names, dtype=object)
    return {
        "category": pd.Series(names, dtype="category"),
        "category, categories reversed": pd.Categorical(
            names, categories=sorted(set(names), reverse=True)
        ),
        "category, unused categories": pd.Categorical(
            names, categories=["zz", *sorted(set(names))]
        ),
        "str Series": pd.Series(names, dtype="string[pyarrow]"),
        "str Index": pd.Index(names, dtype="string[pyarrow]"),
    }


@pytest.mark.parametrize("order", ["grouped", "grouped, runs out of order", "shuffled", "split"])
def test_pandas_string_and_categorical_ids_match_object_ids(order):
    """pandas ids are coded by pandas (no object per row): the same table, bit for bit, as the
    same ids in an object array, whatever the order of the rows."""
    rng = np.random.default_rng(3)
    n_queries, per_query = 12, 25
    names = np.array([f"q{i:02d}" for i in range(n_queries)], dtype=object)
    codes = np.repeat(np.arange(n_queries), per_query)
    if order == "grouped, runs out of order":
        codes = np.repeat(rng.permutation(n_queries), per_query)
    elif order == "shuffled":
        codes = rng.permutation(codes)
    elif order == "split":  # one query in two runs
        codes = np.concatenate((codes[:10], codes[30:], codes[10:30]))
    y = rng.integers(0, 3, codes.size).astype(float)
    score = rng.integers(0, 6, codes.size).astype(float)
    reference = evaluate(y, score, qid=names[codes], metrics=SPECS).per_query
    for kind, ids in _pandas_ids(names[codes]).items():
        table = evaluate(y, score, qid=ids, metrics=SPECS).per_query
        pd.testing.assert_frame_equal(table, reference, obj=kind)


def test_pandas_ids_are_coded_without_an_object_per_row():
    """The codes come from pandas, ordered like the sorted ids; ids with a missing value, or
    categories held as objects, are left to the row-by-row check."""
    from sklearn_ltr_metrics._engine._factorize import QueryRuns, coded_qid

    for names in (list("bbaccabb"), list("bbbbbaaaaacccccbbbbb")):  # interleaved, in runs
        names = np.array(names, dtype=object)
        for kind, ids in _pandas_ids(names).items():
            codes, values = coded_qid(ids)
            if isinstance(codes, QueryRuns):  # strings in few runs: no array per row
                assert kind.startswith("str") and codes.starts.size == 4
                assert len(codes) == names.size
                codes = codes.ids()
            assert codes.dtype.kind == "i", kind
            np.testing.assert_array_equal(values[codes], names, err_msg=kind)
            np.testing.assert_array_equal(values, sorted(values), err_msg=kind)
    assert coded_qid(names) is None
    assert coded_qid(pd.Series(["a", None], dtype="string[pyarrow]")) is None
    assert coded_qid(pd.Categorical(["a", None])) is None
    assert coded_qid(pd.Categorical(np.array([1, "a"], dtype=object))) is None


@pytest.mark.parametrize(
    "ids",
    [
        pd.Series(["a", None, "b"], dtype="string[pyarrow]"),
        pd.Series(["a", None, "b"], dtype="category"),
    ],
)
def test_missing_pandas_ids_are_refused_with_their_row(ids):
    with pytest.raises(ValueError, match=r"qid has missing values.*first at row 1"):
        evaluate([1, 0, 1], [0.1, 0.2, 0.3], qid=ids)


def test_bad_score_names_the_query_of_a_pandas_id():
    ids = pd.Series(["a", "a", "b"], dtype="string[pyarrow]", index=[7, 8, 9])
    with pytest.raises(ValueError, match="first in query 'b', row 2"):
        evaluate([1, 0, 1], [0.1, 0.2, np.nan], qid=ids)


def test_queries_come_out_sorted_and_unsorted_rows_work():
    qid = np.array([30, 10, 20, 10, 30, 20])
    ev = evaluate([1, 0, 1, 1, 0, 0], [1, 2, 3, 4, 5, 6], qid=qid, metrics=["mrr"])
    assert list(ev.per_query.index) == [10, 20, 30]
    np.testing.assert_allclose(ev.per_query["mrr"], [1.0, 0.5, 0.5])


def test_many_queries_take_the_two_pass_grouping_path():
    """More than 2**16 queries: grouping needs two 16-bit radix passes."""
    n_queries = 70_000
    rng = np.random.default_rng(1)
    qid = rng.permutation(np.repeat(np.arange(n_queries), 2))
    y = (qid % 2).astype(float)
    score = rng.random(qid.size)
    ev = evaluate(y, score, qid=qid, metrics=["precision@1", "hit_rate@2"])
    assert ev.per_query["precision@1"].mean() == pytest.approx(0.5)
    np.testing.assert_array_equal(
        ev.per_query["hit_rate@2"].to_numpy(), (np.arange(n_queries) % 2).astype(float)
    )


def test_evaluate_run_bad_tables():
    run = pd.DataFrame({"qid": ["1"], "doc_id": ["a"], "score": [1.0]})
    qrels = pd.DataFrame({"qid": ["1"], "doc_id": ["a"], "label": [1]})
    with pytest.raises(TypeError, match="run must be a pandas DataFrame"):
        evaluate_run({"qid": 1}, qrels)
    with pytest.raises(ValueError, match=r"qrels lacks column\(s\) \['label'\]"):
        evaluate_run(run, qrels.rename(columns={"label": "rel"}))
    with pytest.raises(ValueError, match="twice"):
        evaluate_run(pd.concat([run, run]), qrels)
    with pytest.raises(ValueError, match="share no query"):
        evaluate_run(run, qrels.assign(qid="2"))
    with pytest.raises(ValueError, match="missing_queries='all'"):
        evaluate_run(run, qrels, missing_queries="all")


def test_evaluate_run_unjudged_remove_and_int_qids():
    run = pd.DataFrame({"qid": [1, 1, 1], "doc_id": ["u", "a", "b"], "score": [3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"qid": ["1", "1"], "doc_id": ["a", "b"], "label": [1, 0]})
    kept = evaluate_run(run, qrels, metrics=["precision@1", "judged@3"])
    removed = evaluate_run(run, qrels, metrics=["precision@1", "judged@3"], unjudged="remove")
    assert kept.per_query.loc["1", "precision@1"] == 0.0  # the unjudged doc ranks first
    assert kept.per_query.loc["1", "judged@3"] == pytest.approx(2 / 3)
    assert removed.per_query.loc["1", "precision@1"] == 1.0
    assert removed.per_query.loc["1", "judged@3"] == 1.0


def test_evaluate_dask_refuses_ids_of_two_kinds_in_different_partitions():
    dd = pytest.importorskip(
        "dask.dataframe",
        reason="dask.dataframe is missing: the 'dask' extra has it (pip install -e '.[dask]')",
    )
    from sklearn_ltr_metrics.metrics import evaluate_dask

    frame = pd.DataFrame(
        {
            "qid": np.array([1, 1, "a", "a"], dtype=object),
            "label": [1, 0, 1, 0],
            "score": [0.3, 0.2, 0.1, 0.4],
        }
    )
    import dask

    # (dask would otherwise turn object columns into strings itself, before any check.)
    with dask.config.set({"dataframe.convert-string": False}):
        parts = dd.from_pandas(frame, npartitions=2, sort=False)
        with pytest.raises(TypeError, match=r"qid mixes value types \(number, str\)"):
            evaluate_dask(
                parts, qid="qid", label="label", score="score", metrics=["mrr"], aligned=True
            )
    ok = evaluate_dask(
        dd.from_pandas(frame.assign(qid=["1", "1", "a", "a"]), npartitions=2, sort=False),
        qid="qid",
        label="label",
        score="score",
        metrics=["mrr"],
    )
    assert ok.per_query["mrr"].tolist() == [1.0, 0.5]


def test_finite_checks_in_threads_find_every_bad_value(monkeypatch):
    """Large label and score arrays are checked in parts, in threads: a NaN, an infinity or
    a negative label in any part is still found and named."""
    from .._engine import small_grain

    small_grain(monkeypatch, 4)
    qid = np.repeat(np.arange(10), 10)
    for where in (0, 57, 99):
        for bad, match in ((np.nan, "NaN or infinite"), (-np.inf, "NaN or infinite")):
            y = np.ones(100)
            y[where] = bad
            with pytest.raises(ValueError, match=f"row {where}"):
                evaluate(y, np.ones(100), qid=qid, n_jobs=3)
            with pytest.raises(ValueError, match=match):
                evaluate(np.ones(100), y, qid=qid, n_jobs=3)
        y = np.ones(100)
        y[where] = -1.0
        with pytest.raises(ValueError, match=f"negative labels \\(first at row {where}"):
            evaluate(y, np.ones(100), qid=qid, n_jobs=2)
    assert evaluate(np.ones(100), np.ones(100), qid=qid, n_jobs=3).per_query.shape[0] == 10


@pytest.mark.parametrize(
    "ids",
    [
        np.array([30, 10, 20, 10, 30, 20, 20]),
        np.array([2.5, -1.0, 2.5, 0.0, 0.0, -1.0, 7.0]),
        np.array([True, False, True, True, False, False, True]),
        pd.to_datetime(["2024-03-01", "2023-01-01", "2024-03-01", "2025-06-30"] * 2).to_numpy(),
        pd.date_range("2024-01-01", periods=3, tz="Europe/Paris")[[2, 0, 1, 0, 2, 1]],
    ],
    ids=["int", "float", "bool", "datetime", "datetime with a time zone"],
)
def test_categoricals_of_every_category_dtype_match_their_values(ids):
    """A categorical gives the table of its values, whatever its categories' dtype and order
    (sorted, reversed): the same query ids, in the same order, the same values."""
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, len(ids)).astype(float)
    score = rng.random(len(ids))
    values = np.asarray(pd.Series(ids).astype(object)) if hasattr(ids, "tz") else ids
    expected = evaluate(y, score, qid=values, metrics=["map", "ndcg@3"]).per_query
    categories = pd.unique(pd.Series(ids))
    for order in (np.sort(categories), np.sort(categories)[::-1]):
        table = evaluate(
            y, score, qid=pd.Categorical(ids, categories=order), metrics=["map", "ndcg@3"]
        ).per_query
        pd.testing.assert_frame_equal(table, expected)
