"""Helpers of the engine's tests (``tests/engine/test_*.py``)."""

import numpy as np

from sklearn_ltr_metrics._engine import _grouping, _ranking, _sums, _threads


def small_grain(monkeypatch, rows):
    """Run the engine's kernels on several threads from ``rows`` rows per thread on (small
    test inputs then exercise the threaded paths): the engine's one grain, set once."""
    monkeypatch.setattr(_threads, "ROWS_PER_THREAD", rows)


def vector_lanes(lanes=16):
    """Run the compiled scans and counts on vectors of at most ``lanes`` lanes (16: AVX-512
    where the CPU has it, the default, with a query's first count on float32; 8: AVX-512 on
    float64; 2: the baseline); returns the lanes in use. Tests set the default back."""
    _sums.set_vector_lanes(lanes)
    return _ranking.set_vector_lanes(lanes)


def one_object_per_row(ids):
    """The same string ids, each row its own object (as ``astype(str)`` or a parser builds
    them): equal ids that are distinct objects."""
    return np.array(["".join(["", str(v)]) + "" for v in ids], dtype=object)


def spy_gather(monkeypatch):
    """Record how many arrays each call of ``Grouping.gather`` moves (rows moved into grouped
    order); returns the list the calls append to."""
    calls = []
    real_gather = _grouping.Grouping.gather

    def spy(self, arrays):
        calls.append(len(arrays))
        return real_gather(self, arrays)

    monkeypatch.setattr(_grouping.Grouping, "gather", spy)
    return calls
