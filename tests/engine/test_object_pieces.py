"""Python strings read in place (``object_pieces``): coded by their characters as Arrow strings
are, any other id found on the way (the step gives None, its caller falls back), and the
objects given back by ``take_objects`` with their references counted exactly."""

import sys

import numpy as np
import pytest

from sklearn_ltr_metrics._engine import (
    arrow_pieces,
    id_blocks,
    object_pieces,
    query_layout,
    query_rows,
    take_objects,
)

from .._engine import one_object_per_row, small_grain

pa = pytest.importorskip("pyarrow")  # the Arrow strings they are compared with

#: Strings of every kind: Latin-1 (1 byte a character), BMP (2), astral (4).
KINDS = {
    1: ["", "a", "é", "x" * 8, "y" * 15, "z" * 16, "w" * 17, "doc-1" * 9],
    2: ["文档", "文", "文档文档文档", "ā" * 9, "ĀĀ", "ā文"],
    4: ["😀", "😀" * 3, "😀文", "a😀" * 5],
}


def pieces_of(ids, cuts=(3, 7)):
    """Three object arrays of ``ids`` (each row its own object), and Arrow pieces of the same."""
    arrays = np.split(one_object_per_row(ids), cuts)
    return object_pieces(arrays), arrow_pieces([pa.array(list(a), pa.string()) for a in arrays])


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_strings_of_one_kind_code_as_their_arrow_bytes(kind):
    rng = np.random.default_rng(kind)
    ids = list(rng.choice(KINDS[kind], size=40))
    objects, arrow = pieces_of(ids, cuts=(13, 27))
    breaks = objects.bounds[:-1]
    got, expected = id_blocks(objects, breaks), id_blocks(arrow, breaks)
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_array_equal(a, b)
    codes, first, _ = got
    assert [ids[r] for r in first] == list(dict.fromkeys(ids))
    np.testing.assert_array_equal([ids[r] for r in first[codes]], ids)


def _one_query(ids, scores):
    n = len(ids)
    codes = np.zeros(n, dtype=np.intp)
    layout = query_layout(codes, np.array([0]), 1)
    return layout, np.array([0, n], dtype=np.intp), np.asarray(scores, dtype=np.float64)


@pytest.mark.parametrize(
    "foreign",
    [7, None, b"a", float("nan"), "文", type("Sub", (str,), {})("a")],
    ids=["int", "None", "bytes", "nan", "another kind", "str subclass"],
)
def test_another_id_is_found_on_the_way(foreign, monkeypatch):
    """The first id sets the kind: an id of another kind, or no ``str``, gives None (and a
    first id that is no ``str`` no pieces at all); on one thread and several."""
    ids = one_object_per_row(["a", "b", "c", "d", "e", "f"] * 3)
    ids[11] = foreign
    objects = object_pieces([ids[:9], ids[9:]])
    assert id_blocks(objects, np.array([0, 9])) is None
    layout, run_bounds, scores = _one_query(ids, np.arange(18.0))
    small_grain(monkeypatch, 2)
    for n_threads in (1, 3):
        assert query_rows(objects, run_bounds, scores, layout, n_threads) is None
    ids[0] = foreign
    assert object_pieces([ids]) is None or foreign == "文"


def test_query_rows_read_objects_as_arrow_strings():
    ids = list(np.random.default_rng(0).choice(KINDS[1], size=60))
    ids = list(dict.fromkeys(ids))  # one query: no id twice in a run
    objects, arrow = pieces_of(ids * 3, cuts=(len(ids), 2 * len(ids)))
    scores = np.random.default_rng(1).normal(size=3 * len(ids))
    layout, run_bounds, scores = _one_query(ids * 3, scores)
    run_bounds = objects.bounds
    got = query_rows(objects, run_bounds, scores, layout)
    expected = query_rows(arrow, run_bounds, scores, layout)
    for name in ("run", "pair", "position", "score", "pair_row", "n_candidates", "duplicate"):
        np.testing.assert_array_equal(getattr(got, name), getattr(expected, name))
    # The characters' bytes (length times kind), not their UTF-8 encoding.
    assert got.pair_size.tolist() == [len(d) for d in ids]


def test_take_objects_gives_the_objects_and_counts_their_references():
    arrays = np.split(one_object_per_row([f"d{i}" for i in range(10)]), (4, 7))
    pieces = object_pieces(arrays)
    flat = np.concatenate(arrays)
    before = [sys.getrefcount(o) for o in flat]
    rows, order = np.array([1, 4, 5, 8, 9]), np.array([3, 0, 4, 2, 1])
    taken = take_objects(pieces, rows, order)
    assert taken.dtype == object
    assert all(a is b for a, b in zip(taken, flat[rows[order]], strict=True))
    repeated = take_objects(pieces, np.array([0, 6, 9]), counts=np.array([2, 0, 3]))
    assert all(a is b for a, b in zip(repeated, flat[[0, 0, 9, 9, 9]], strict=True))
    assert [sys.getrefcount(o) for o in flat] != before
    del taken, repeated
    assert [sys.getrefcount(o) for o in flat] == before
    assert take_objects(pieces, np.array([], dtype=np.intp)).shape == (0,)
