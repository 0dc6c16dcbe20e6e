"""Categorical ids of each run's own categories, rows in random order: each row's category is
moved into query order with the rows and decoded there (``runs._categories``); the fused run
is the same, bit for bit and ties included, as decoding every run's rows where they lie."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics.runs import _categories, _stack, fuse
from sklearn_ltr_metrics.runs._categories import category_form

from .test_fusion import random_runs

METHODS = [
    ("rrf", {}),
    ("wsum", {"weights": [1.0, 0.5, 2.0]}),
    ("mnz", {}),
    ("sum", {"norm": "borda"}),
    ("condorcet", {}),
]


def _text_runs(seed, n_queries):
    """Runs with ids as pandas strings, documents named per query (``q1/d3``): each run holds
    its own set of them."""
    frames = random_runs(seed, n_queries=n_queries)
    return [
        f.assign(doc_id=f["qid"] + "/" + f["doc_id"]).astype({"qid": "str", "doc_id": "str"})
        for f in frames
    ]


def _own_categories(frames, kind, unused=()):
    """Each run's ids as a categorical of the documents it holds (plus ``unused`` ones), the
    categories Arrow strings (``"str"``), Python strings (``object``) or integers (the
    documents ``q<i>/d<j>`` numbered), in a shuffled order."""
    rng = np.random.default_rng(3)
    out = []
    for frame in frames:
        if kind in ("int64", "uint32"):  # q<i>/d<j> as i * 1000 + j (plus 2**31: unsigned)
            ids = frame["doc_id"].str.extract(r"q(\d+)/d(\d+)").astype(np.int64)
            number = ids[0] * 1000 + ids[1] + (2**31 if kind == "uint32" else -7)
            frame = frame.assign(doc_id=number.astype(kind))
            unused = [999_999]
        docs = rng.permutation(sorted(set(frame["doc_id"]) | set(unused)))
        doc_type = pd.CategoricalDtype(pd.Index(docs.tolist(), dtype=kind))
        qid_kind = "str" if kind in ("int64", "uint32") else kind
        qid_type = pd.CategoricalDtype(pd.Index(sorted(set(frame["qid"])), dtype=qid_kind))
        out.append(frame.astype({"qid": qid_type, "doc_id": doc_type}))
    return out


@pytest.fixture
def spy(monkeypatch):
    """Counts the calls of ``moved_category_ids`` that took the path (not None)."""
    taken = []
    real = _categories.moved_category_ids

    def counted(*args, **kwargs):
        found = real(*args, **kwargs)
        taken.append(found is not None)
        return found

    monkeypatch.setattr(_stack, "moved_category_ids", counted)
    return taken


def _rows_where_they_lie(monkeypatch):
    """The general path: every run's ids decoded in its own row order."""
    monkeypatch.setattr(_stack, "moved_category_ids", lambda *args, **kwargs: None)


@pytest.mark.parametrize(("method", "params"), METHODS)
@pytest.mark.parametrize("kind", ["str", object, "int64", "uint32"])
def test_decoded_in_query_order_bit_for_bit(monkeypatch, spy, method, params, kind):
    text = _text_runs(11, 8)
    # Ties: rows in random order rank them otherwise, the fused run must not differ.
    text = [f.assign(score=f["score"].round(0)) for f in text]
    text[2] = text[2][text[2]["qid"] != "q5"]  # a query one run lacks: its own qid categories
    runs = _own_categories(text, kind, unused=["d999", "zz"])
    assert category_form([r["doc_id"] for r in runs]) == "decode"
    got = fuse(runs, method, **params)
    assert spy == [True]
    assert got["doc_id"].dtype == pd.concat([r["doc_id"] for r in runs]).dtype
    pd.testing.assert_frame_equal(fuse(runs, method, n_jobs=2, **params), got, check_exact=True)
    _rows_where_they_lie(monkeypatch)
    pd.testing.assert_frame_equal(fuse(runs, method, **params), got, check_exact=True)
    if kind in ("str", object):
        expected = fuse(text, method, **params)
        pd.testing.assert_frame_equal(got.astype({"qid": "str", "doc_id": "str"}), expected)


def _by_pair(fused):
    return (
        fused.astype({"qid": "str", "doc_id": "str"})
        .sort_values(["qid", "doc_id"], kind="stable")
        .reset_index(drop=True)
    )


@pytest.mark.parametrize("kind", ["str", object, "uint32"])
def test_shuffled_runs_fuse_as_ordered_ones_exactly(spy, kind):
    text = _text_runs(12, 7)
    ordered = [f.sort_values(["qid", "score"], ascending=[True, False]) for f in text]
    runs = _own_categories(ordered, kind)
    shuffled = [r.sample(frac=1, random_state=i) for i, r in enumerate(runs)]
    for method, params in METHODS[:4]:
        spy.clear()
        got = fuse(shuffled, method, **params)
        assert spy == [True]
        want = fuse(runs, method, **params)
        pd.testing.assert_frame_equal(_by_pair(got), _by_pair(want), check_exact=True)


@pytest.mark.parametrize("kind", ["str", object])
def test_missing_and_repeated_categorical_ids_are_refused(kind):
    runs = _own_categories(_text_runs(13, 5), kind)
    broken = [r.copy() for r in runs]
    lost = broken[1]["doc_id"].iloc[4]
    broken[1]["doc_id"] = broken[1]["doc_id"].cat.remove_categories([lost])
    with pytest.raises(ValueError, match=r"runs\['run1'\]\['doc_id'\] has a missing value"):
        fuse(broken, "rrf")
    twice = [r.copy() for r in runs]
    row = twice[2][twice[2]["qid"] == "q3"].iloc[:2]
    twice[2] = pd.concat([twice[2], row.iloc[[0]]]).sample(frac=1, random_state=0)
    document = row["doc_id"].iloc[0]
    with pytest.raises(ValueError, match=rf"retrieves document '{document}' twice for query"):
        fuse(twice, "rrf")


def test_python_string_categories_compared_as_sets():
    docs = [f"d{i}" for i in range(3000)]
    first = pd.CategoricalDtype(pd.Index(docs, dtype=object))
    same = pd.CategoricalDtype(pd.Index(docs[::-1], dtype=object))
    other = pd.CategoricalDtype(pd.Index([*docs[:-1], "e"], dtype=object))
    late = pd.CategoricalDtype(pd.Index(["x", *docs[1:]], dtype=object))
    column = pd.Series(docs[1:4])
    forms = [
        category_form([column.astype(first), column.astype(dtype)]) for dtype in (same, other, late)
    ]
    assert forms == [None, "decode", "decode"]  # pandas: equal, unequal, unequal
    assert (first == same, first == other, first == late) == (True, False, False)


def test_categories_of_str_subclasses_take_the_general_path(spy):
    text = _text_runs(14, 4)
    runs = []
    for frame in text:
        docs = np.empty(frame["doc_id"].nunique(), dtype=object)
        docs[:] = [np.str_(d) for d in frame["doc_id"].unique()]
        runs.append(frame.astype({"doc_id": pd.CategoricalDtype(pd.Index(docs, dtype=object))}))
    assert type(runs[0]["doc_id"].cat.categories.to_numpy()[0]) is np.str_
    got = fuse(runs, "rrf")
    assert spy == [False]
    pd.testing.assert_frame_equal(got.astype({"doc_id": "str"}), fuse(text, "rrf"))


def test_python_string_categories_of_several_kinds_fall_back(spy):
    """Latin-1 ids beside wider ones are not read in place: the path gives way, and the
    general one (Arrow strings copied from them) fuses them as their text."""
    text = _text_runs(15, 4)
    text[1] = text[1].assign(doc_id=text[1]["doc_id"].str.replace("d1", "文档", regex=False))
    runs = _own_categories(text, object)
    got = fuse(runs, "rrf")
    assert spy == [True]  # taken, then refused by the engine's read of the objects
    pd.testing.assert_frame_equal(got.astype({"qid": "str", "doc_id": "str"}), fuse(text, "rrf"))
