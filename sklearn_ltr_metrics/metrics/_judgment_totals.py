"""trec_eval's layout of any metrics list: how each column is summarised in its ``all``
line, for the judgment-format measures (:mod:`._judgment_measures`) as for the others."""

from __future__ import annotations

from types import SimpleNamespace

from ._judgment_measures import split_judgment_metrics
from ._prefs import PREFS_COUNTS
from ._registry import parse_metrics

__all__ = ["measure_totals"]


def measure_totals(metrics):
    """``{column: object with .total}`` for trec_eval's layout: ``"sum"`` for the preference
    counts, ``"mean"`` for the other measures here, the registry's metric otherwise."""
    split = split_judgment_metrics(list(metrics))
    if split is None:
        return {spec.column: spec.metric for spec in parse_metrics(list(metrics))}
    _, _, others, order = split
    known = {spec.column: spec.metric for spec in parse_metrics(others)} if others else {}
    totals = {}
    for column in order:
        if column in known:
            totals[column] = known[column]
        elif column in others:  # an entry that expands to several columns (P.5,10)
            totals.update({c: m for c, m in known.items() if c not in totals})
        else:
            total = "sum" if column in PREFS_COUNTS else "mean"
            totals[column] = SimpleNamespace(total=total)
    return totals
