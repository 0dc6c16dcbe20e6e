"""Helpers of the engine's tests (``tests/engine/test_*.py``)."""

import importlib

import numpy as np

#: The engine's Python steps that hand the thread grain to the compiled kernels.
GRAIN_MODULES = ("_factorize", "_grouping", "_rank", "_scans")


def small_grain(monkeypatch, rows):
    """Run the engine's kernels on several threads from ``rows`` rows per thread on (small
    test inputs then exercise the threaded paths)."""
    for name in GRAIN_MODULES:
        module = importlib.import_module(f"sklearn_ltr_metrics._engine.{name}")
        monkeypatch.setattr(module, "_ROWS_PER_THREAD", rows)


def one_object_per_row(ids):
    """The same string ids, each row its own object (as ``astype(str)`` or a parser builds
    them): equal ids that are distinct objects."""
    return np.array(["".join(["", str(v)]) + "" for v in ids], dtype=object)
