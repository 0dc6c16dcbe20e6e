"""The engine: flat arrays ``(y_true, y_score, qid)`` to the per-query table.

This subpackage owns every step from the flat, row-aligned arrays to the per-query table;
this ``__init__`` is its only door. Nothing outside ``_engine`` imports one of its modules or
a compiled module: the families import the names below from here. The engine itself imports
nothing of the package (the input checks of ``_validation`` sit above it and use the scans).

The steps, in the order data flows (the driver, ``_driver.py``, calls them one after the
other; each compiled step has a Python face beside it, tested against a plain numpy
reference in ``tests/test_engine_<step>.py``)::

    y_true, y_score, qid            (validated by the caller: sklearn_ltr_metrics._validation,
      |                              with the scans: the labels' range and the relevant rows
      |                              of each run of ids, _sums: range_and_counts; the scores'
      |                              range is found by the ranking, rank_support)
      |  code the ids        _factorize.py     (_ranking: dense_codes, record_codes, ...)
      v
    codes, uniques
      |  group               _grouping.py      (_ranking: run_starts, counting_sort;
      |                                         the runs found by the check of the ids)
      v
    Grouping: sizes, offsets, rows in query order (moved only when queries interleave)
      |  rank the support    _rank.py          (_ranking: rank_support; its two largest
      |                                         outputs written into the last call's pages;
      |                                         top_support, _select.pxi: only the rows
      |                                         within the cut-offs read, when every metric
      |                                         reads only those: _driver.read_cutoff)
      |  (full order: the rank correlations only, _ordering.py)
      v
    SupportRanks: per active row, rows above, tied, before it on the tie-break
      |  count per query     _counts.py        (_sums: segment_count, code_count)
      v
    QueryCounts: n_pos, n_neg (query_stats applied)
      |  cut-offs            _cutoffs.py       ((query, k) pairs of every metric)
      |  kernels             _support.py, _ideal.py, _ranked.py (_sums: support_sums, ...;
      |                      tied blocks under tie averaging: _tie_blocks.pxi)
      |                      the metric kernels come from the registry, with their specs;
      |                      each reads one KernelContext (_driver.py): lists, pairs, options
      v
    per-query table: n_docs, n_pos, n_neg, difficulty, one column per metric

Runs to fuse (``sklearn_ltr_metrics.runs``) take a side path, ``_run_rows.py`` (``_ranking``:
``id_blocks``, ``gather_rows``, ``query_rows``, ``score_order``, ``gather_ids``,
``repeat_ids``): ids read as bytes from their Arrow buffers (or as integer codes), rows in no
query order moved into it first (ids and scores with them), each query's documents coded in
a hash table of their own, each run's rows ranked, the fused pairs ordered per query and their
ids copied into new Arrow buffers.

Compiled modules: ``_ranking`` (``_ranking.pyx`` and the ``.pxi`` steps it includes) and
``_sums`` (``_sums.pyx``); both read rows through ``_rows.pxi`` and ``_count.h``. Every
kernel runs in threads over queries (or chunks of rows) with no shared state: the results
are the same, bit for bit, for any number of threads.

Threads: a kernel over ``n`` rows runs on at most ``n // ROWS_PER_THREAD`` threads (at least
one), so small inputs do not wake threads that would cost more than they save. Every step reads
that grain under one name, ``_threads.ROWS_PER_THREAD``, at call time.
"""

try:
    from . import _ranking, _sums  # noqa: F401 (the build check: both extensions)
except ImportError as exc:  # a source checkout whose extension was never built
    raise ImportError(
        "sklearn_ltr_metrics._engine._ranking, the compiled engine, is not built in this "
        "checkout; run `pip install -e .` (or `python setup.py build_ext --inplace`) in the "
        "repository root."
    ) from exc

from ._counts import difficulty_values, divide_or_nan
from ._cutoffs import ALL, STRATEGIES, cutoff_label, parse_cutoff
from ._driver import InputScans, KernelContext, evaluate_arrays, tiebreak_key
from ._factorize import QueryRuns, coded_qid, factorize_qid
from ._grouping import active_rule, group_rows, id_runs
from ._ideal import (
    cell_judgments,
    cell_pairs,
    decimal_keys,
    decimal_keys_at,
    diversity_gains,
    greedy_ideal_gains,
    rows_by_support,
    subtopic_cells,
)
from ._ordering import discordant_pairs, rank_order
from ._rank import rank_support
from ._run_rows import (
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
from ._scans import all_strings, object_id_runs, range_and_counts, value_range
from ._support import Support, segment_cumsum
from ._threads import ROWS_PER_THREAD  # the engine's one grain (its default)

__all__ = [
    "ALL",
    "ROWS_PER_THREAD",
    "STRATEGIES",
    "InputScans",
    "KernelContext",
    "QueryRuns",
    "Support",
    "active_rule",
    "all_strings",
    "arrow_pieces",
    "cell_judgments",
    "cell_pairs",
    "code_pieces",
    "coded_qid",
    "cutoff_label",
    "decimal_keys",
    "decimal_keys_at",
    "difficulty_values",
    "discordant_pairs",
    "diversity_gains",
    "divide_or_nan",
    "evaluate_arrays",
    "factorize_qid",
    "gather_ids",
    "greedy_ideal_gains",
    "group_rows",
    "id_blocks",
    "id_runs",
    "move_records",
    "object_id_runs",
    "object_pieces",
    "parse_cutoff",
    "query_layout",
    "query_rows",
    "range_and_counts",
    "rank_order",
    "rank_support",
    "repeat_ids",
    "rows_by_support",
    "segment_cumsum",
    "segment_order",
    "subtopic_cells",
    "take_objects",
    "tiebreak_key",
    "value_range",
]
