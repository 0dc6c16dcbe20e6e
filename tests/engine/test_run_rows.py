"""The run-rows step (``_run_rows.py``, ``_run_rows.pxi``), against pandas and numpy: ids read
from Arrow buffers (``string`` and ``large_string``, chunks, slices), the per-query coding and
ranking, the per-segment order and the ids gathered back."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics._engine import (
    arrow_pieces,
    code_pieces,
    gather_ids,
    id_blocks,
    move_records,
    object_pieces,
    query_layout,
    query_rows,
    repeat_ids,
    segment_order,
    take_objects,
)
from sklearn_ltr_metrics.runs._stack import stack_runs

from .._engine import one_object_per_row, small_grain

pa = pytest.importorskip("pyarrow")  # the Arrow ids the step reads

IDS = ["", "a", "é", "文档", "😀" * 3, "x" * 8, "y" * 15, "z" * 16, "w" * 17, "doc-1" * 9]


def chunks_of(values, arrow_type):
    """``values`` as Arrow chunks of ``arrow_type``: three pieces, the middle one a slice."""
    array = pa.array(["pad", *values], type=arrow_type)
    third = len(values) // 3
    return [array.slice(1, third), array.slice(1 + third, third), array.slice(1 + 2 * third)]


@pytest.mark.parametrize("arrow_type", [pa.string(), pa.large_string()])
def test_id_blocks_code_like_factorize(arrow_type):
    rng = np.random.default_rng(0)
    values = list(np.repeat(rng.choice(IDS, 60), rng.integers(1, 4, 60)))
    pieces = arrow_pieces(chunks_of(values, arrow_type))
    breaks = np.array([0, 7], dtype=np.intp)
    codes, first, starts = id_blocks(pieces, breaks)
    expected, uniques = pd.factorize(pd.Series(values, dtype=object))
    np.testing.assert_array_equal(codes, expected)
    assert [values[i] for i in first] == list(uniques)
    new_block = np.r_[True, np.array(values[1:]) != np.array(values[:-1])]
    new_block[breaks] = True
    np.testing.assert_array_equal(starts, np.flatnonzero(new_block))
    # Integer codes as 8-byte records: the same codes.
    np.testing.assert_array_equal(id_blocks(code_pieces([expected]), breaks)[0], expected)


def test_other_arrow_types_and_missing_ids_are_not_read():
    assert arrow_pieces([pa.array(["a", None])]) is None
    assert arrow_pieces([pa.array([1, 2])]) is None
    assert arrow_pieces([pa.array(["a"], type=pa.string_view())]) is None


def test_gather_ids_gives_the_ids_back():
    values = IDS * 3
    pieces = arrow_pieces(chunks_of(values, pa.large_string()))
    rng = np.random.default_rng(1)
    rows, order = rng.integers(0, len(values), 50), rng.permutation(50)
    sizes = np.array([len(values[r].encode()) for r in rows])
    offsets, data = gather_ids(pieces, rows, sizes, order)
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    array = pa.Array.from_buffers(pa.large_string(), 50, buffers)
    assert array.to_pylist() == [values[i] for i in rows[order]]


def test_repeat_ids_repeats_each_id():
    values = IDS * 2
    pieces = arrow_pieces(chunks_of(values, pa.string()))
    rows, counts = np.array([3, 0, 19, 7, 4]), np.array([2, 0, 3, 1, 5])
    offsets, data = repeat_ids(pieces, rows, counts)
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    array = pa.Array.from_buffers(pa.large_string(), counts.sum(), buffers)
    assert array.to_pylist() == [values[r] for r in np.repeat(rows, counts)]


def reference_order(values, offsets):
    """By segment, then value descending (``-0.0`` as ``0.0``), then position."""
    segment = np.repeat(np.arange(offsets.size - 1), np.diff(offsets))
    return np.lexsort((np.arange(values.size), -(values + 0.0), segment))


@pytest.mark.parametrize("kind", ["spread", "clustered", "ties", "special"])
def test_segment_order_equals_a_stable_sort(kind, monkeypatch):
    """Short segments (merge sort), long ones (bucket pass; radix sort when clustered)."""
    rng = np.random.default_rng(2)
    sizes = np.array([0, 1, 5, 95, 96, 300, 1000, 3000])
    n = sizes.sum()
    values = {
        "spread": rng.normal(size=n),
        "clustered": np.where(rng.random(n) < 0.98, 1.0 + 1e-12 * rng.random(n), 1e6),
        "ties": rng.integers(0, 5, n).astype(float),
        "special": rng.choice([np.inf, -np.inf, 0.0, -0.0, 1.5, -2.0, 1e-300], n),
    }[kind]
    offsets = np.r_[0, np.cumsum(sizes)]
    small_grain(monkeypatch, 64)
    for n_threads in (1, 3):
        order, ranked = segment_order(values, offsets, n_threads)
        np.testing.assert_array_equal(order, reference_order(values, offsets))
        np.testing.assert_array_equal(ranked, values[order])


def test_query_rows_code_rank_and_count_per_query():
    """Against a pandas reference: pairs in order of first appearance per query, ranks by
    score descending with ties in row order, duplicates found."""
    rng = np.random.default_rng(3)
    qid = rng.choice(["q1", "q2", "é"], 200)
    doc = rng.choice(IDS + [f"d{i}" for i in range(30)], 200)
    run = np.repeat([0, 1], 100)
    score = rng.integers(0, 6, 200).astype(float)
    frame = pd.DataFrame({"qid": qid, "doc_id": doc, "run": run, "score": score})
    frame = frame.drop_duplicates(["qid", "doc_id", "run"])
    n = len(frame)
    run_bounds = np.array([0, (frame["run"] == 0).sum(), n], dtype=np.intp)
    q_codes, _ = pd.factorize(frame["qid"])
    codes, first, starts = id_blocks(code_pieces([q_codes]), run_bounds[:-1])
    layout = query_layout(codes, starts, first.size)
    pieces = arrow_pieces([pa.array(frame["doc_id"].tolist(), type=pa.large_string())])
    out = query_rows(pieces, run_bounds, frame["score"].to_numpy(), layout, n_threads=2)
    grouped = frame.assign(code=codes, row=np.arange(n)).sort_values(["code", "row"])
    np.testing.assert_array_equal(out.run, grouped["run"])
    np.testing.assert_array_equal(out.score, grouped["score"])
    rank = grouped.groupby(["code", "run"])["score"].rank(method="first", ascending=False)
    np.testing.assert_array_equal(out.position, rank.to_numpy() - 1)
    pair_codes = grouped.groupby("code", sort=False)["doc_id"].transform(
        lambda d: pd.factorize(d)[0]
    ) + np.repeat(np.r_[0, np.cumsum(out.n_candidates)[:-1]], np.bincount(codes))
    np.testing.assert_array_equal(out.pair, pair_codes)
    np.testing.assert_array_equal(out.duplicate, -1)
    np.testing.assert_array_equal(out.group_rows, pd.crosstab(codes, frame["run"]).to_numpy())
    pairs = grouped.drop_duplicates(["code", "doc_id"])
    np.testing.assert_array_equal(out.pair_row, pairs["row"])
    np.testing.assert_array_equal(out.pair_size, [len(d.encode()) for d in pairs["doc_id"]])


@pytest.mark.parametrize("dtype", ["str", "string[pyarrow]", object])
def test_stack_reads_arrow_ids_from_their_buffers(dtype):
    """Arrow-stored ids (``str``, ``string[pyarrow]``) take the buffer path, object ids the
    factorize path, and the output keeps the input's dtype."""
    frame = pd.DataFrame({"qid": ["1", "1"], "doc_id": ["a", "b"], "score": [1.0, 0.5]})
    frame = frame.astype({"qid": dtype, "doc_id": dtype})
    stack = stack_runs([frame, frame])
    arrow = dtype is not object
    assert stack.query_ids.arrow is arrow and stack.document_ids.arrow is arrow
    qid, doc_id = stack.pair_ids(np.arange(stack.n_pairs))
    assert pd.Series(qid).dtype == frame["qid"].dtype
    assert pd.Series(doc_id).dtype == frame["doc_id"].dtype
    assert list(doc_id) == ["a", "b"]


@pytest.mark.parametrize("form", ["arrow", "objects"])
def test_rows_in_no_query_order_are_moved_into_it(form, monkeypatch):
    """Rows in random query order: no blocks kept (``give_up``), the rows moved into query
    order with their ids and scores (``gather_rows``), the same on one thread and several;
    each pair's id lies at ``pair_at`` of the moved ids, in order."""
    rng = np.random.default_rng(11)
    keys = np.concatenate([rng.permutation(200), rng.permutation(200)])  # once a run
    latin = [i for i in IDS if all(ord(c) < 256 for c in i)]  # objects: of one kind
    docs = [f"{latin[k % len(latin)]}-{k}" for k in keys]
    run_bounds = np.array([0, 200, 400], dtype=np.intp)
    q_codes = rng.integers(0, 5, 400)
    codes, first, starts = id_blocks(code_pieces([q_codes]), run_bounds[:-1], give_up=True)
    assert starts is None
    grouped = np.repeat(rng.permutation(300), 2)  # blocks of tiny queries: kept
    np.testing.assert_array_equal(
        id_blocks(code_pieces([grouped]), np.array([0]), give_up=True)[2],
        id_blocks(code_pieces([grouped]), np.array([0]))[2],
    )
    if form == "arrow":
        pieces = arrow_pieces(chunks_of(docs, pa.string()))
    else:
        pieces = object_pieces(np.split(one_object_per_row(docs), (130, 260)))
    scores = rng.integers(0, 4, 400).astype(float)  # ties too
    layout = query_layout(codes, starts, first.size)
    small_grain(monkeypatch, 16)
    out, threaded = (query_rows(pieces, run_bounds, scores, layout, t) for t in (1, 3))
    for name in out._fields[:-1]:
        np.testing.assert_array_equal(getattr(out, name), getattr(threaded, name))
    np.testing.assert_array_equal(out.score, scores[np.argsort(codes, kind="stable")])
    assert (np.diff(out.pair_at) > 0).all()
    if form == "arrow":
        offsets, data = gather_ids(out.ids, out.pair_at, out.pair_size)
        buffers = [None, pa.py_buffer(offsets), pa.py_buffer(data)]
        got = pa.Array.from_buffers(pa.large_string(), offsets.size - 1, buffers).to_pylist()
    else:
        got = take_objects(out.ids, out.pair_at).tolist()
    assert got == [docs[r] for r in out.pair_row]


def test_records_moved_by_the_caller_are_read_as_moved(monkeypatch):
    """``move_records``: the rows, scores and one int64 record each moved into query order
    (a stable sort by query, in threads); their ids handed to ``query_rows`` as ``moved``
    give what its own move of the ids gives, field for field."""
    rng = np.random.default_rng(12)
    keys = rng.permutation(600)
    docs = [f"{IDS[k % len(IDS)]}-{k % 150}" for k in keys]
    run_bounds = np.array([0, 250, 600], dtype=np.intp)
    codes, first, starts = id_blocks(
        code_pieces([rng.integers(0, 7, 600)]), run_bounds[:-1], give_up=True
    )
    layout = query_layout(codes, starts, first.size)
    scores = rng.integers(0, 5, 600).astype(float)  # ties too
    small_grain(monkeypatch, 16)
    order = np.argsort(codes, kind="stable")
    pieces = arrow_pieces(chunks_of(docs, pa.large_string()))
    want = query_rows(pieces, run_bounds, scores, layout)
    for n_threads in (1, 3):
        rows, moved_scores, records = move_records(
            np.split(keys, run_bounds[1:-1]), scores, layout, n_threads
        )
        np.testing.assert_array_equal(rows, order)
        np.testing.assert_array_equal(moved_scores, scores[order])
        np.testing.assert_array_equal(records, keys[order])
        moved = arrow_pieces(chunks_of([docs[r] for r in rows], pa.string()))
        got = query_rows(
            None, run_bounds, scores, layout, n_threads, moved=(rows, moved_scores, moved)
        )
        for name in got._fields[:-1]:
            np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
