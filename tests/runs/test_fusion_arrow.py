"""``fuse`` on Arrow-string frames (ids read from the Arrow buffers) against ranx and against the
same runs with object ids (coded by ``pandas.factorize``): chunked and sliced arrays, queries in
no order, a query in one run only, duplicates, missing ids, non-ASCII ids, threads."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics.runs import fuse, fusion_method_names

from .._engine import small_grain
from .test_fusion import PARAMS, as_dict, assert_same, random_runs, to_ranx

pa = pytest.importorskip("pyarrow")  # pandas' str columns are stored by it
ranx = pytest.importorskip("ranx")

pytestmark = pytest.mark.filterwarnings("ignore:.*unsafe cast:Warning")

#: Ids of every length from 0 to 40 bytes, multi-byte UTF-8 among them (the hash reads eight
#: bytes at a time, the last eight overlapping, and compares 8 to 16 bytes inline).
ODD_IDS = ["", "é", "文档", "😀", "x" * 7, "y" * 8, "é" * 5, "z" * 9, "文" * 5, "w" * 16]
ODD_IDS += ["v" * 17, "😀" * 6, "u" * 40, "doc-0", "doc-00", "DOC-0", "é" * 4 + "x"]


def as_object(frame):
    return frame.astype({"qid": object, "doc_id": object})


def is_arrow(frame):
    return all(
        isinstance(frame[c].dtype, pd.StringDtype) and frame[c].dtype.storage == "pyarrow"
        for c in ("qid", "doc_id")
    )


def assert_frames_equal(ours, objects):
    """The same rows in the same order, the same values bit for bit; ids compared as text."""
    assert ours["qid"].tolist() == objects["qid"].tolist()
    assert ours["doc_id"].tolist() == objects["doc_id"].tolist()
    np.testing.assert_array_equal(ours["score"].to_numpy(), objects["score"].to_numpy())


def odd_runs(seed, n_runs=3):
    """Runs whose ids are the awkward :data:`ODD_IDS` (queries too), in rank order."""
    rng = np.random.default_rng(seed)
    frames = []
    for _ in range(n_runs):
        rows = []
        for q in ("", "é", "q" * 12, "😀"):
            docs = rng.choice(ODD_IDS, size=rng.integers(5, len(ODD_IDS)), replace=False)
            score = np.sort(rng.normal(size=docs.size))[::-1]
            rows.append(pd.DataFrame({"qid": q, "doc_id": docs, "score": score}))
        frames.append(pd.concat(rows, ignore_index=True))
    return frames


@pytest.mark.parametrize("method", fusion_method_names())
def test_arrow_frames_equal_object_frames_and_ranx(method):
    condorcet = "condorcet" in method
    frames = random_runs(1, noise=0.05 if condorcet else 1.0, drop_one=condorcet)
    assert all(is_arrow(f) for f in frames)
    params = PARAMS.get(method, {})
    ours = fuse(frames, method, **params)
    assert str(ours["qid"].dtype) == "str" and str(ours["doc_id"].dtype) == "str"
    assert_frames_equal(ours, fuse([as_object(f) for f in frames], method, **params))
    assert_same(ours, ranx.fuse([to_ranx(f) for f in frames], method=method, params=params))


@pytest.mark.parametrize("method", ["rrf", "wsum", "mnz", "med", "bordafuse"])
def test_non_ascii_ids_of_every_length(method):
    frames = odd_runs(3)
    params = PARAMS.get(method, {})
    ours = fuse(frames, method, **params)
    assert_frames_equal(ours, fuse([as_object(f) for f in frames], method, **params))
    assert set(ours["doc_id"]) <= set(ODD_IDS)
    # ranx keys its runs by Python strings too ("" is a valid id there as here).
    assert_same(ours, ranx.fuse([to_ranx(f) for f in frames], method=method, params=params))


def chunked(frame, cuts):
    """``frame`` with its id columns in several Arrow chunks, one a slice (offset > 0)."""
    parts = np.split(np.arange(len(frame)), cuts)
    out = pd.concat([frame.iloc[p] for p in parts], ignore_index=True)
    big = pd.concat([frame.iloc[:3], frame], ignore_index=True).iloc[3:]  # a sliced array
    return pd.concat([out.iloc[: cuts[0]], big.iloc[cuts[0] :]], ignore_index=True)


def test_chunked_and_sliced_arrow_arrays():
    frames = random_runs(12)
    pieces = [chunked(f.reset_index(drop=True), [5, 40]) for f in frames]
    arrays = [pa.array(p["doc_id"].array) for p in pieces]
    assert all(isinstance(a, pa.ChunkedArray) and a.num_chunks > 1 for a in arrays)
    assert any(c.offset > 0 for a in arrays for c in a.chunks)
    for method, norm in [("rrf", None), ("sum", "min-max"), ("sum", "zmuv")]:
        ours = fuse(pieces, method, norm=norm)
        assert_frames_equal(ours, fuse(frames, method, norm=norm))
        assert_frames_equal(ours, fuse([as_object(f) for f in frames], method, norm=norm))


@pytest.mark.parametrize("layout", ["blocks", "shuffled"])
def test_queries_in_no_order_are_found(layout):
    """A query's rows split over several blocks of a run (blocks path) or rows in random order
    (rows sorted by query): the same fused run as the runs listed query by query."""
    frames = [f.sort_values(["qid", "score"], ascending=[True, False]) for f in random_runs(13)]
    if layout == "blocks":  # every run lists its queries twice: top half, then bottom half
        moved = []
        for f in frames:
            rank = f.groupby("qid").cumcount()
            size = f.groupby("qid")["qid"].transform("size")
            moved.append(pd.concat([f[rank < size // 2], f[rank >= size // 2]]))
        frames_moved = moved
    else:
        frames_moved = [f.sample(frac=1, random_state=i) for i, f in enumerate(frames)]
    for method in ("rrf", "wsum", "bordafuse"):
        params = PARAMS.get(method, {})
        expected = fuse(frames, method, **params)
        got = fuse(frames_moved, method, **params)
        assert as_dict(got) == as_dict(expected)
        theirs = ranx.fuse([to_ranx(f) for f in frames_moved], method=method, params=params)
        assert_same(got, theirs)
        assert_frames_equal(got, fuse([as_object(f) for f in frames_moved], method, **params))


def test_a_query_in_one_run_only_and_queries_in_first_appearance_order():
    a = pd.DataFrame({"qid": ["b", "b", "a"], "doc_id": ["x", "y", "x"], "score": [3.0, 2, 1]})
    b = pd.DataFrame({"qid": ["c", "b"], "doc_id": ["x", "y"], "score": [5.0, 4.0]})
    out = fuse([a, b], "rrf", k=0)
    assert out["qid"].tolist() == ["b", "b", "a", "c"]
    assert as_dict(out) == {("b", "x"): 1.0, ("b", "y"): 1.5, ("a", "x"): 1.0, ("c", "x"): 1.0}
    assert_frames_equal(out, fuse([as_object(a), as_object(b)], "rrf", k=0))
    # Equal fused scores come in order of first appearance (run order, then row order).
    assert out["doc_id"].tolist() == ["y", "x", "x", "x"]


def test_duplicates_missing_ids_and_empty_runs_are_refused_as_with_object_ids():
    a = pd.DataFrame({"qid": ["1", "1", "2"], "doc_id": ["é", "文档", "x"], "score": [2.0, 1, 3]})
    dup = a.assign(qid=["2", "1", "1"], doc_id=["x", "文档", "文档"])
    missing = a.assign(doc_id=pd.array(["é", None, "x"], dtype="str"))
    empty = a.iloc[:0]
    for runs, match in [
        ([a, dup], r"runs\['run1'\] retrieves document '文档' twice for query '1'"),
        ([a, missing], r"runs\['run1'\]\['doc_id'\] has a missing value \(row 1\)"),
        ([a, empty], r"runs\[1\]\['score'\] is empty"),
    ]:
        for kind in (lambda f: f, as_object):
            with pytest.raises(ValueError, match=match):
                fuse([kind(f) for f in runs])


def test_threads_give_the_same_frame(monkeypatch):
    """Every kernel on several threads (a small grain): the same frame, bit for bit."""
    frames = random_runs(14, n_queries=40, pool=60)
    expected = fuse(frames, "wsum", weights=[1.0, 2.0, 0.5], n_jobs=1)
    small_grain(monkeypatch, 8)
    for n_jobs in (2, 3, -1):
        got = fuse(frames, "wsum", weights=[1.0, 2.0, 0.5], n_jobs=n_jobs)
        pd.testing.assert_frame_equal(got, expected)
    shuffled = [f.sample(frac=1, random_state=1) for f in frames]
    pd.testing.assert_frame_equal(fuse(shuffled, "rrf", n_jobs=3), fuse(shuffled, "rrf"))


def test_large_queries_are_ordered_by_fused_score():
    """Queries of hundreds of documents (the bucket pass and its radix fallback: many tied
    scores), against a numpy sort: by query, then fused score descending, then first
    appearance."""
    rng = np.random.default_rng(15)
    frames = []
    for r in range(3):
        docs = [f"d{d}" for d in rng.permutation(400)[:300]]
        score = np.round(rng.normal(size=300), 1 if r else 3)  # coarse: many ties
        frames.append(pd.DataFrame({"qid": "q", "doc_id": docs, "score": score}))
    for method in ("rrf", "sum", "max", "bordafuse"):
        out = fuse(frames, method)
        score = out["score"].to_numpy()
        assert np.all(score[1:] <= score[:-1])
        first_seen = pd.concat(frames)["doc_id"].drop_duplicates().tolist()
        rank = {d: i for i, d in enumerate(first_seen)}
        ties = out.assign(seen=out["doc_id"].map(rank))
        resorted = ties.sort_values(["score", "seen"], ascending=[False, True], kind="stable")
        assert out["doc_id"].tolist() == resorted["doc_id"].tolist()
        if method in ("sum", "max"):  # scores, not ranks: ranx's order among ties is moot
            assert_same(out, ranx.fuse([to_ranx(f) for f in frames], method=method))
