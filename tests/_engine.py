"""Helpers of the engine's tests (``tests/engine/test_*.py``)."""

import numpy as np

from sklearn_ltr_metrics._engine import _threads


def small_grain(monkeypatch, rows):
    """Run the engine's kernels on several threads from ``rows`` rows per thread on (small
    test inputs then exercise the threaded paths): the engine's one grain, set once."""
    monkeypatch.setattr(_threads, "ROWS_PER_THREAD", rows)


def one_object_per_row(ids):
    """The same string ids, each row its own object (as ``astype(str)`` or a parser builds
    them): equal ids that are distinct objects."""
    return np.array(["".join(["", str(v)]) + "" for v in ids], dtype=object)
