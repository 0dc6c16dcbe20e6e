"""The ranking writes its largest outputs into the pages of the last call's (issue 44): never
while anything still holds them, and an evaluation leaves no cycle that would hold them."""

import gc

import numpy as np

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics._engine import _rank, _ranking


def _rank_all(scores, labels, offsets):
    return _ranking.rank_support(scores, (labels, 0.0, False), offsets, labels=labels, rows=False)


def test_held_outputs_are_never_written_again():
    rng = np.random.default_rng(0)
    n = 2_000_000  # outputs of 4 and 8 MB: kept from one call to the next
    offsets = np.arange(0, n + 1, 100, dtype=np.intp)
    labels = (rng.random(n) < 0.6).astype(float)
    first = _rank_all(rng.random(n), labels, offsets)
    kept = [first[2].copy(), first[5].copy()]
    second = _rank_all(rng.random(n), labels * 2, offsets)  # other ranks, other labels
    np.testing.assert_array_equal(first[2], kept[0])
    np.testing.assert_array_equal(first[5], kept[1])
    assert not np.shares_memory(first[2], second[2])
    where = second[2].ctypes.data
    del second  # nothing holds its outputs: the next call writes them again
    third = _rank_all(rng.random(n), labels * 3, offsets)
    assert third[2].ctypes.data == where
    view = third[5][10:20]  # a view alone holds the array
    del third
    fourth = _rank_all(rng.random(n), labels, offsets)
    assert not np.shares_memory(view, fourth[5])
    assert view.max() == 3.0 and fourth[5].max() == 1.0


def test_an_evaluation_leaves_no_cycle():
    rng = np.random.default_rng(1)
    qid = np.repeat(np.arange(50), 40)
    y = (rng.random(qid.size) < 0.3) * rng.integers(1, 4, qid.size).astype(float)
    gc.collect()
    gc.disable()
    try:
        for ties in ("stable", "average"):
            evaluate(y, rng.random(qid.size), qid=qid, metrics=["ndcg@10", "map", "err"], ties=ties)
            live = [o for o in gc.get_objects() if isinstance(o, _rank.SupportRanks)]
            assert live == []
    finally:
        gc.enable()
