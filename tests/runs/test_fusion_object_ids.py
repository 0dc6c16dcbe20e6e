"""Document ids held as Python strings (object columns) are coded by their bytes, as Arrow
strings are: the fused run is the one of the same ids in pandas' ``str`` columns, and its ids
are the input's objects (object dtype)."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics.runs import fuse

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
