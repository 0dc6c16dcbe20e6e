"""The kernel context: what a metric kernel reads.

A kernel (the registry's ``metric.kernel``) is ``kernel(c) -> values``, one value per
``(query, cut-off)`` pair, where ``c`` is a :class:`KernelContext`: the ranked lists of every
query (:class:`~._ranked.RankedLists`), the pairs and the resolved options. The driver builds
one per metric spec (``_driver._kernel_values``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._counts import divide_or_nan

__all__ = ["KernelContext"]


@dataclass(frozen=True)
class KernelContext:
    """What a kernel reads: the ranked lists, the ``(query, cut-off)`` pairs and the options.

    Attributes
    ----------
    lists : RankedLists
        The ranked lists of every query (:mod:`._ranked`).
    query : ndarray of intp
        The query code of each pair (``lists.every_query`` for one pair per query).
    k : ndarray of float64
        The requested cut-off of each pair (``inf`` for the whole list).
    kk : ndarray of int64
        The rows actually inside each pair's cut-off.
    k_eff : ndarray of float64
        The cut-off a denominator uses (the list's length for the whole list).
    options : dict
        The resolved options (:func:`~._options.check_options`) and the spec's parameters.
    """

    lists: object
    query: np.ndarray
    k: np.ndarray
    kk: np.ndarray
    k_eff: np.ndarray
    options: dict

    def at(self, values):
        """Per-query ``values`` read at each pair (no gather for one pair per query)."""
        return self.lists.at(values, self.query)

    def divide(self, numerator, denominator):
        """numerator / denominator per pair, NaN where the denominator is not above 0."""
        return divide_or_nan(numerator, denominator, self.lists.n_threads)

    def hits(self):
        """Relevant rows inside each pair's cut-off (their expectation under tie averaging)."""
        return self.lists.hits(self.query, self.kk)

    @property
    def n_pos(self):
        """Relevant documents of each pair's query."""
        return self.at(self.lists.n_pos)

    def with_options(self, **values):
        """The same pairs with some options replaced."""
        return KernelContext(
            self.lists, self.query, self.k, self.kk, self.k_eff, {**self.options, **values}
        )
