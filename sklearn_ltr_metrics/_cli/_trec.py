"""trec_eval's spelling on the command line: parameter lists in ``--metrics`` and the
``--format trec`` layout of ``ltr-eval evaluate`` (trec_eval ``-q``: measure, topic, value).
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..metrics._registry import parse_metrics

__all__ = ["join_parameter_lists", "trec_layout"]

#: A comma-separated item that continues the previous one: ``10`` of ``P.5,10``, ``.25`` of
#: ``11pt_avg..25,.5``, ``2=9`` of ``ndcg.1=3,2=9``, ``-1`` of ``utility.2,-1,0,0``.
_CONTINUES = re.compile(r"-?[0-9.]+(=-?[0-9.]+)?")


def join_parameter_lists(items):
    """Rejoin the ``--metrics`` items that a comma split inside one name: trec_eval's
    parameter lists (``P.5,10,20``) and ir_measures' parameters (``P(rel=2,judged_only=True)``)."""
    joined = []
    for item in items:
        if joined and (
            joined[-1].count("(") > joined[-1].count(")")
            or ("." in joined[-1] and "@" not in joined[-1] and _CONTINUES.fullmatch(item))
        ):
            joined[-1] = f"{joined[-1]},{item}"
        else:
            joined.append(item)
    return joined


def _value(value, integral):
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return f"{round(value)}" if integral else f"{value:.4f}"


def _summary(values, total):
    values = values.to_numpy(dtype=np.float64)
    if total == "sum":
        return float(np.nansum(values))
    mean = float(np.nanmean(values)) if np.isfinite(values).any() else math.nan
    return math.exp(mean) if total == "geometric" else mean


def trec_layout(per_query, metrics, run_id):
    """trec_eval ``-q``'s lines: ``measure<TAB>topic<TAB>value`` for every topic, then ``all``
    (the mean; the sum for the counts; ``exp`` of the mean for gm_map and gm_bpref), the
    measure name padded to 22 characters, values with 4 decimals, counts as integers."""
    specs = {spec.column: spec.metric for spec in parse_metrics(list(metrics))}
    lines = []
    for qid in per_query.index:
        for column, metric in specs.items():
            if metric.total != "geometric":
                value = per_query.at[qid, column]
                lines.append(f"{column:<22}\t{qid}\t{_value(value, metric.total == 'sum')}")
    lines.append(f"{'runid':<22}\tall\t{run_id}")
    lines.append(f"{'num_q':<22}\tall\t{len(per_query)}")
    for column, metric in specs.items():
        total = _summary(per_query[column], metric.total)
        lines.append(f"{column:<22}\tall\t{_value(total, metric.total == 'sum')}")
    return "\n".join(lines) + "\n"
