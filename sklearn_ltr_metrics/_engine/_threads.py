"""The engine's one thread grain: rows per thread below which a compiled kernel runs on fewer
threads (small inputs do not wake threads that would cost more than they save).

Every Python step reads it here, at call time, through :func:`grain`, and hands it to the
compiled kernels; tests that exercise the threaded paths on small inputs set
``ROWS_PER_THREAD`` here, once (``tests/_engine.py``: ``small_grain``).
"""

from __future__ import annotations

from ._ranking import MIN_ROWS_PER_THREAD

__all__ = ["ROWS_PER_THREAD", "grain"]

#: Rows per thread of the compiled kernels (``MIN_ROWS_PER_THREAD`` of ``_rows.pxi``, the
#: compiled modules' default).
ROWS_PER_THREAD = MIN_ROWS_PER_THREAD


def grain():
    """The rows per thread in force (read at every call, so that one setting rules them all)."""
    return ROWS_PER_THREAD
