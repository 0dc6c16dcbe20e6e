"""``evaluate_arrays``: the metrics family's one call into the engine.

The engine (``sklearn_ltr_metrics._engine``) turns validated flat arrays into the per-query
table; this module hands it what the metrics family defines (the gain mapping of the options,
the per-row terms of ERR, the kernels inside the metric specs) and wraps the table into a
:class:`RankingEvaluation`.
"""

from __future__ import annotations

from .._engine import evaluate_arrays as _engine_table
from .._validation import check_n_jobs
from ._evaluation import RankingEvaluation
from ._kernels._err import err_terms
from ._options import make_gain

__all__ = ["evaluate_arrays"]

#: Per-row terms of the metrics whose formulas live in this family, by name (the engine sums
#: them over the support: ``RankedLists.term_sums``).
ROW_TERMS = {"err": err_terms}


def evaluate_arrays(y_true, y_score, qid, specs, options, *, n_jobs=None, **inputs):
    """The :class:`RankingEvaluation` of validated arrays (``options``: :func:`check_options`).

    ``inputs`` are the engine's optional inputs (``doc_id``, ``query_stats``, ``ideal``,
    ``n_pos_judged``, ``judged``, ``scans``, ``qid_values``), passed through as given.
    """
    per_query, cutoff_parts = _engine_table(
        y_true,
        y_score,
        qid,
        specs,
        options,
        gains=make_gain(options["gain"], options["min_relevance"]),
        row_terms=ROW_TERMS,
        n_threads=check_n_jobs(n_jobs),
        **inputs,
    )
    return RankingEvaluation(per_query, cutoff_parts, options)
