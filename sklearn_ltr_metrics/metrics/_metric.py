"""The :class:`Metric` entry of the registry, and the cut-off rules entries name."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["Metric"]


def _k_is_n_pos(n_pos, n_neg):
    """R-precision's own cut-off: k = n_pos (at least 1)."""
    return np.maximum(np.asarray(n_pos, dtype=np.float64), 1.0)


def _whole_list(n_pos, n_neg):
    """The whole list, for metrics defined over it only."""
    return np.full(np.shape(n_pos), np.inf)


@dataclass(frozen=True, kw_only=True)
class Metric:
    """A registered metric.

    Attributes
    ----------
    name : str
        The canonical name.
    kernel : callable
        ``kernel(c) -> values``, ``c`` a ``KernelContext`` (:mod:`._kernels._core`).
    description : str
        One line for docs, errors and ``--help``.
    graded : bool, default=False
        Uses graded labels (gains) rather than binary relevance (``min_relevance``).
    value_range : (float, float), default=(0.0, 1.0)
        Lowest and highest value a query can get (``inf`` for unbounded).
    ideal : float or None, default=1.0
        The value of an ideal ranking for every query where the metric is defined, or None
        when it depends on the query (e.g. precision@k with fewer than k relevant rows).
    own_cutoff : callable or None, default=None
        ``f(n_pos, n_neg) -> k`` for a metric that defines its own cut-off per query (such a
        metric takes no ``@k`` and ignores ``k=``); None: the cut-off comes from the spec.
    undefined : {"never", "n_pos", "ideal"}, default="never"
        When a query has no value (``empty_query=`` decides what it gets): no relevant
        document (``n_pos``), an ideal DCG of 0 (``ideal``), or never.
    max_label : str or None, default=None
        Name of the option that bounds the labels (``err_max_grade``): a larger label is
        refused with a message naming it.
    needs_judgments : bool, default=False
        Needs judgments apart from the ranked list (``evaluate_run`` only).
    params : tuple of (str, value), default=()
        The metric's parameters and their defaults (``p`` of rbp), which a spec may set.
    strict : bool, default=False
        Without an exact form under ``ties="average"`` and ``"label_ranking"`` for some
        inputs (INST; the NERR family with gains between 0 and 1): refused under them when
        rows of positive gain tie (:mod:`._kernels_order`, ``docs/conventions.rst``).
    total : {"mean", "sum", "geometric"}, default="mean"
        How trec_eval summarises the measure over topics (``all``): the mean, the sum (the
        counts) or ``exp`` of the mean (a column of logs, gm_map).
    reads : {"order", "top_k"}, default="order"
        What the kernel reads of the ranking. ``"top_k"``: a query's value at cut-off k
        depends only on the rows ranked within k (their labels, ranks and tied blocks) and on
        counts the engine finds apart from the ranking (n_pos, the query's length, the ideal
        DCG of all its labels), under every ``ties=`` policy; when every metric of an
        evaluation reads so at cut-offs known before ranking, the engine ranks only the
        support rows that can land within the largest (``docs/performance.rst``).
        ``"order"`` (the safe default): anything, every support row ranked.
    """

    name: str
    kernel: Callable
    description: str
    graded: bool = False
    value_range: tuple = (0.0, 1.0)
    ideal: float | None = 1.0
    own_cutoff: Callable | None = None
    undefined: str = "never"
    max_label: str | None = None
    needs_judgments: bool = False
    params: tuple = ()
    strict: bool = False
    total: str = "mean"
    reads: str = "order"

    @property
    def takes_cutoff(self):
        """Whether ``name@k`` is accepted."""
        return self.own_cutoff is None

    @property
    def cutoff_label(self):
        """How a spec without ``@k`` names its cut-off in tables: ``"n_pos"`` or ``"all"``."""
        return "n_pos" if self.own_cutoff is _k_is_n_pos else "all"

    @property
    def bounded(self):
        """Whether the values have a finite upper bound."""
        return math.isfinite(self.value_range[1])
