"""Integer and categorical ids fuse as their text would: integers coded by their 8 bytes in
the engine (no ``pandas.factorize``), categoricals by their codes (one set of categories) or
decoded run by run (categories that differ); each keeps the input's dtype in the output."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics.runs import fuse
from sklearn_ltr_metrics.runs._categories import category_form
from sklearn_ltr_metrics.runs._stack import stack_runs

from .test_fusion import random_runs

METHODS = [
    ("rrf", {}),
    ("wsum", {"weights": [1.0, 0.5, 2.0]}),
    ("mnz", {}),
    ("bordafuse", {}),
    ("sum", {"norm": "rank"}),
    ("anz", {"norm": "borda"}),
]


def _numbers(frames, qid_dtype, doc_dtype, offset=0):
    """The runs with ids ``q<k>`` / ``d<k>`` as integers ``k`` (``offset + k`` for documents)."""
    return [
        frame.assign(
            qid=frame["qid"].str.slice(1).astype(np.int64).astype(qid_dtype),
            doc_id=(frame["doc_id"].str.slice(1).astype(np.uint64) + np.uint64(offset)).astype(
                doc_dtype
            ),
        )
        for frame in frames
    ]


def _as_text(fused, offset=0):
    """Integer ids back to ``q<k>`` / ``d<k>`` (pandas ``str``)."""
    doc = fused["doc_id"].to_numpy().astype(np.uint64) - np.uint64(offset)
    return fused.assign(
        qid="q" + pd.Series(fused["qid"].to_numpy().astype(np.int64)).astype("str"),
        doc_id="d" + pd.Series(doc).astype("str"),
    ).astype({"qid": "str", "doc_id": "str"})


def _by_pair(fused):
    """Rows in random order break ties otherwise: compared by (qid, doc_id)."""
    return fused.sort_values(["qid", "doc_id"], kind="stable").reset_index(drop=True)


@pytest.mark.parametrize(("method", "params"), METHODS)
@pytest.mark.parametrize(
    ("qid_dtype", "doc_dtype", "offset"),
    [(np.int64, np.int64, 0), (np.int32, "Int64", 0), (np.uint32, np.uint64, 2**63 + 5)],
)
def test_integer_ids_fuse_as_their_text(method, params, qid_dtype, doc_dtype, offset):
    frames = [f.astype({"qid": "str", "doc_id": "str"}) for f in random_runs(3, n_queries=9)]
    numbers = _numbers(frames, qid_dtype, doc_dtype, offset)
    got = fuse(numbers, method, **params)
    assert got["qid"].dtype == numbers[0]["qid"].dtype
    assert got["doc_id"].dtype == numbers[0]["doc_id"].dtype
    expected = fuse(frames, method, **params)
    pd.testing.assert_frame_equal(_as_text(got, offset), expected)
    pd.testing.assert_frame_equal(fuse(numbers, method, n_jobs=2, **params), got)
    in_order = [f.sort_values(["qid", "score"], ascending=[True, False]) for f in numbers]
    pd.testing.assert_frame_equal(
        _by_pair(fuse(in_order, method, **params)), _by_pair(got), check_exact=False, rtol=1e-12
    )


def test_a_missing_integer_id_is_named():
    frames = _numbers(random_runs(4, n_queries=3), np.int64, "Int64")
    frames[1].loc[frames[1].index[2], "doc_id"] = pd.NA
    with pytest.raises(ValueError, match=r"runs\['run1'\]\['doc_id'\] has a missing value"):
        fuse(frames, "rrf")


def _categoricals(frames, same):
    if not same:  # each run its own categories (those it holds)
        return [f.astype({"qid": "category", "doc_id": "category"}) for f in frames]
    docs = pd.Index(sorted(set().union(*(set(f["doc_id"]) for f in frames))), dtype="str")
    kinds = {"qid": pd.CategoricalDtype(sorted(set(frames[0]["qid"]))), "doc_id": docs}
    return [
        f.astype({"qid": kinds["qid"], "doc_id": pd.CategoricalDtype(kinds["doc_id"])})
        for f in frames
    ]


@pytest.mark.parametrize(("method", "params"), METHODS[:3])
@pytest.mark.parametrize("same", [True, False])
def test_categorical_ids_fuse_as_their_text(method, params, same):
    frames = [f.astype({"qid": "str", "doc_id": "str"}) for f in random_runs(8, n_queries=7)]
    frames[1] = frames[1][frames[1]["doc_id"] != "d3"]  # a document one run never retrieves
    categories = _categoricals(frames, same)
    form = category_form([c["doc_id"] for c in categories])
    assert form == ("codes" if same else "decode")
    got = fuse(categories, method, **params)
    # As pandas concatenates the runs: one categorical where their dtypes are equal, else
    # the categories' dtype.
    expected_dtype = pd.concat([c["doc_id"] for c in categories]).dtype
    assert got["doc_id"].dtype == expected_dtype
    expected = fuse(frames, method, **params)
    pd.testing.assert_frame_equal(got.astype({"qid": "str", "doc_id": "str"}), expected)
    pd.testing.assert_frame_equal(fuse(categories, method, n_jobs=2, **params), got)
    shuffled = [c.sample(frac=1, random_state=2) for c in categories]
    pd.testing.assert_frame_equal(
        _by_pair(fuse(shuffled, method, **params).astype({"qid": "str", "doc_id": "str"})),
        _by_pair(expected),
        check_exact=False,
        rtol=1e-12,
    )


def test_categories_of_one_set_in_other_orders_and_missing_categorical_ids():
    frames = [f.astype({"qid": "str", "doc_id": "str"}) for f in random_runs(9, n_queries=4)]
    docs = sorted(set().union(*(set(f["doc_id"]) for f in frames)))
    rng = np.random.default_rng(0)
    permuted = [
        f.assign(doc_id=pd.Categorical(f["doc_id"], categories=list(rng.permutation(docs))))
        for f in frames
    ]
    got = fuse(permuted, "rrf")
    assert isinstance(got["doc_id"].dtype, pd.CategoricalDtype)  # pandas' equal dtypes
    pd.testing.assert_frame_equal(got.astype({"doc_id": "str"}), fuse(frames, "rrf"))
    permuted[2]["doc_id"] = permuted[2]["doc_id"].cat.remove_categories(
        [permuted[2]["doc_id"].iloc[3]]
    )
    with pytest.raises(ValueError, match=r"runs\['run2'\]\['doc_id'\] has a missing value"):
        fuse(permuted, "rrf")


def test_runs_are_ranked_only_where_ranks_are_read():
    frames = random_runs(6, n_queries=5)
    assert stack_runs(frames, rank=False).position is None
    ranked = stack_runs(frames).position
    assert ranked is not None and ranked.min() == 0
