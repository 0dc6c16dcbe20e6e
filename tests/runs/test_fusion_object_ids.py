"""Document ids held as Python strings (object columns) are coded by their bytes, as Arrow
strings are: the fused run is the one of the same ids in pandas' ``str`` columns, and its ids
are the input's objects (object dtype)."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics.runs import fuse
from sklearn_ltr_metrics.runs._stack import stack_runs

from .test_fusion import random_runs


def _as_objects(frames):
    return [frame.astype({"qid": object, "doc_id": object}) for frame in frames]


@pytest.mark.parametrize(
    ("method", "params"),
    [("rrf", {}), ("wsum", {"weights": [1.0, 0.5, 2.0]}), ("mnz", {}), ("bordafuse", {})],
)
def test_object_ids_fuse_as_arrow_strings(method, params):
    frames = random_runs(21, n_queries=12, pool=40)
    strings = [frame.astype({"qid": "str", "doc_id": "str"}) for frame in frames]
    objects = _as_objects(frames)
    assert all(frame["doc_id"].dtype == object for frame in objects)
    expected = fuse(strings, method, **params)
    got = fuse(objects, method, **params)
    assert got["doc_id"].dtype == object
    pd.testing.assert_frame_equal(got.astype({"qid": "str", "doc_id": "str"}), expected)
    for n_jobs in (2, -1):
        pd.testing.assert_frame_equal(fuse(objects, method, n_jobs=n_jobs, **params), got)


def test_non_ascii_and_shuffled_object_ids():
    frames = _as_objects(random_runs(5, n_queries=8, pool=30))
    for frame in frames:
        frame["doc_id"] = "é-" + frame["doc_id"].astype(object)
    shuffled = [frame.sample(frac=1, random_state=1) for frame in frames]

    def by_query(fused):  # queries come in order of first appearance
        return fused.sort_values(["qid", "score"], ascending=[True, False], kind="stable")

    expected = by_query(fuse(frames, "rrf")).reset_index(drop=True)
    pd.testing.assert_frame_equal(by_query(fuse(shuffled, "rrf")).reset_index(drop=True), expected)
    strings = [frame.astype({"qid": "str", "doc_id": "str"}) for frame in frames]
    as_str = by_query(fuse(strings, "rrf")).reset_index(drop=True)
    pd.testing.assert_frame_equal(expected.astype({"qid": "str", "doc_id": "str"}), as_str)


def test_bytes_and_mixed_ids_are_coded_by_value():
    """Ids that are not all ``str`` (bytes, integers mixed in) are coded by value: ``b"d1"``
    and ``"d1"`` stay two documents."""
    base = pd.DataFrame({"qid": ["q"] * 3, "doc_id": ["d1", "d2", "d3"], "score": [3.0, 2, 1]})
    other = base.astype({"doc_id": object}).copy()
    other["doc_id"] = np.array([b"d1", "d2", 7], dtype=object)
    fused = fuse([base.astype({"doc_id": object}), other], "rrf")
    assert len(fused) == 5
    assert set(map(repr, fused["doc_id"])) == {"'d1'", "b'd1'", "'d2'", "'d3'", "7"}


def test_missing_object_id_is_named():
    frames = _as_objects(random_runs(2, n_queries=3, pool=10))
    frames[1].loc[frames[1].index[4], "doc_id"] = None
    with pytest.raises(ValueError, match="doc_id"):
        fuse(frames, "rrf")


@pytest.mark.parametrize("prefix", ["", "é-", "文-", "😀-", "mixed"])
@pytest.mark.parametrize("method", ["rrf", "wsum"])
def test_object_ids_of_every_kind_equal_arrow_strings_in_any_order(prefix, method):
    """Ids held as Python strings fuse to the frame of the same ids as pandas ``str``, in
    rank order or shuffled, one kind a column (read in place) or several (copied first); the
    output holds the input's objects, object dtype, the same for any n_jobs."""
    params = {"weights": [1.0, 0.5, 2.0]} if method == "wsum" else {}
    frames = _as_objects(random_runs(31, n_queries=10, pool=30))
    for r, frame in enumerate(frames):
        head = ["é-", "文-", "😀-"][r] if prefix == "mixed" else prefix
        ids = [head + d for d in frame["doc_id"]]
        frame["doc_id"] = pd.Series(ids, index=frame.index, dtype=object)
    ordered = [f.sort_values(["qid", "score"], ascending=[True, False]) for f in frames]
    strings = [f.astype({"qid": "str", "doc_id": "str"}) for f in ordered]
    expected = fuse(strings, method, **params)
    objects = {id(o) for f in ordered for o in f["doc_id"]}

    def as_str(fused):  # shuffled runs order ties otherwise: compared by (qid, doc_id)
        fused = fused.astype({"qid": "str", "doc_id": "str"})
        return fused.sort_values(["qid", "doc_id"]).reset_index(drop=True)

    for runs in (ordered, frames):  # rank order, random order
        got = fuse(runs, method, **params)
        assert got.dtypes.tolist() == [np.dtype(object)] * 2 + [np.dtype(np.float64)]
        assert all(id(o) in objects for o in got["doc_id"])
        pd.testing.assert_frame_equal(as_str(got), as_str(expected))
        pd.testing.assert_frame_equal(fuse(runs, method, n_jobs=-1, **params), got)
    got = fuse(ordered, method, **params)
    pd.testing.assert_frame_equal(got.astype({"qid": "str", "doc_id": "str"}), expected)
    stack = stack_runs(frames)  # read in place unless the kinds differ
    assert stack.query_ids.output == "objects"
    assert stack.document_ids.output == ("index" if prefix == "mixed" else "objects")


@pytest.mark.parametrize("column", ["qid", "doc_id"])
@pytest.mark.parametrize(
    "foreign",
    [7, b"d1", "文", type("Sub", (str,), {})("d1")],
    ids=["int", "bytes", "another kind", "str subclass"],
)
def test_ids_that_are_not_str_of_one_kind_are_coded_by_value(column, foreign):
    """A run whose object column holds, after strings, an integer, bytes, a string of another
    kind or a ``str`` subclass: coded by value (pandas' equality), as before they were read
    in place: the same frame as factorising every id, and the foreign id kept as it is."""
    frames = _as_objects(random_runs(41, n_queries=4, pool=12))
    frames[2].loc[frames[2].index[5], column] = foreign
    got = fuse(frames, "rrf")
    assert stack_runs(frames).query_ids.output == ("index" if column == "qid" else "objects")
    assert any(type(v) is type(foreign) and v == foreign for v in got[column])
    wrapped = [f.assign(**{column: [(v,) for v in f[column]]}) for f in frames]
    as_tuples = fuse(wrapped, "rrf")  # tuples: never read in place, always factorised
    assert got[column].tolist() == [v[0] for v in as_tuples[column]]
    np.testing.assert_array_equal(got["score"], as_tuples["score"])


@pytest.mark.parametrize("column", ["qid", "doc_id"])
def test_a_missing_id_after_strings_is_named(column):
    frames = _as_objects(random_runs(3, n_queries=3, pool=10))
    frames[1].loc[frames[1].index[4], column] = None
    with pytest.raises(ValueError, match=rf"runs\['run1'\]\['{column}'\] has a missing value"):
        fuse(frames, "rrf")
