"""trec_eval's spelling on the command line: parameter lists in ``--metrics`` and the
``--format trec`` layout of ``ltr-eval evaluate`` (trec_eval ``-q``: measure, topic, value).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ..metrics._judgments._measures import JUDGMENT_SETS, split_judgment_metrics
from ..metrics._judgments._prefs import PREFS_COUNTS
from ..metrics._names._foreign import ALL_TREC
from ..metrics._registry import parse_metrics

__all__ = ["join_parameter_lists", "read_zscores", "trec_layout"]

#: trec_eval's value for a z-score it cannot compute (no mean and deviation for the measure).
MISSING_ZSCORE = -1_000_000.0

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


def read_zscores(path):
    """trec_eval's ``-Z`` file: lines ``qid measure mean stddev`` -> ``{(qid, measure): (mean,
    stddev)}``; a malformed line is an error naming the file and the line."""
    if not Path(path).is_file():
        raise FileNotFoundError(f"z-scores file {str(path)!r} does not exist or is not a file.")
    table = {}
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            try:
                if len(fields) != 4:
                    raise ValueError
                table[(fields[0], fields[1])] = (float(fields[2]), float(fields[3]))
            except ValueError:
                raise ValueError(
                    f"{path}, line {number}: expected 'qid measure mean stddev', got "
                    f"{line.strip()!r}"
                ) from None
    return table


def _zscore(value, qid, column, zscores):
    """trec_eval -Z: ``(value - mean) / stddev``; 0 for a value at the mean of a deviation of
    0; ``MISSING_ZSCORE`` where the file has no line for the (topic, measure)."""
    mean, stddev = zscores.get((str(qid), column), (None, None))
    if mean is None or (stddev == 0 and value != mean):
        return MISSING_ZSCORE
    return 0.0 if stddev == 0 else (value - mean) / stddev


def _print_order(metrics):
    """The specs of ``metrics`` (strings included) in trec_eval's order. The judgment-format
    measures (:mod:`..metrics._judgment_measures`) keep the order asked, after ``runid`` and
    ``num_q`` when a set of them (``all_prefs``, ``qrels_jg``) is named, as trec_eval prints
    them; their ``all`` line sums the preference counts and averages the rest."""
    split = split_judgment_metrics(list(metrics))
    if split is None:
        return _trec_order(metrics)
    _, _, others, order = split
    named_set = any(m in JUDGMENT_SETS for m in metrics)
    specs = _trec_order(["runid", "num_q"]) if named_set else []
    for column in order:
        if column in others:  # an entry of the registry, maybe several columns (P.5,10)
            specs.extend(_trec_order([column]))
        else:
            total = "sum" if column in PREFS_COUNTS else "mean"
            specs.append(SimpleNamespace(column=column, metric=SimpleNamespace(total=total)))
    return list({spec.column: spec for spec in specs}.values())


def _trec_order(metrics):
    """The registry's specs of ``metrics`` in trec_eval's order: its measures by their place in
    ``-m all_trec``, a family's measures by parameter, then the other names as given."""
    specs = parse_metrics(list(metrics), strings=True)
    last = len(ALL_TREC)

    def key(item):
        position, spec = item
        if spec.order:
            return (*spec.order, 0)
        if spec.column in ALL_TREC:  # a trec_eval name that is also the package's (map)
            return (ALL_TREC.index(spec.column), 0.0, 0)
        return (last, 0.0, position)

    return [spec for _, spec in sorted(enumerate(specs), key=key)]


def _topic_lines(table, strings, specs, prefix, integral):
    """trec_eval -q's lines of each topic (no line for the geometric means, runid, num_q)."""
    lines = []
    for qid in table.index:
        for spec in specs:
            column = spec.column
            if spec.metric is None:
                if column in strings.columns:
                    lines.append(f"{column:<22}\t{qid}\t'{strings.at[qid, column]}'")
            elif spec.metric.total != "geometric":
                value = _value(table.at[qid, column], integral[column])
                lines.append(f"{prefix}{column:<22}\t{qid}\t{value}")
    return lines


def trec_layout(evaluation, metrics, run_id, *, zscores=None):
    """trec_eval ``-q``'s lines: ``measure<TAB>topic<TAB>value`` for every topic, then the
    ``all`` lines (the mean; the sum for the counts; ``exp`` of the mean
    for gm_map and gm_bpref; ``runid`` and ``num_q`` where asked for), in trec_eval's order of
    the measures, the name padded to 22 characters, values with 4 decimals, counts as
    integers, ``relstring`` quoted on the topic lines only. With ``zscores``
    (:func:`read_zscores`), trec_eval ``-Z``'s: each value as its z-score, the measure named
    ``Z<measure>`` (``Z`` before the padded name, as trec_eval prints it), the summaries
    taken of the z-scores."""
    per_query_table = evaluation.per_query
    specs = _print_order(metrics)
    numeric = {spec.column: spec.metric for spec in specs if spec.metric is not None}
    table = per_query_table
    if zscores is not None:
        table = per_query_table.copy()
        for column in numeric:
            table[column] = [
                _zscore(value, qid, column, zscores)
                for qid, value in per_query_table[column].items()
            ]
    prefix = "" if zscores is None else "Z"
    integral = {c: m.total == "sum" and zscores is None for c, m in numeric.items()}
    lines = _topic_lines(table, evaluation.strings, specs, prefix, integral)
    for spec in specs:
        column = spec.column
        if column == "runid":
            lines.append(f"{'runid':<22}\tall\t{run_id}")
        elif column == "num_q":
            lines.append(f"{prefix}{'num_q':<22}\tall\t{_value(len(table), zscores is None)}")
        elif spec.metric is not None:
            total = _summary(table[column], spec.metric.total)
            lines.append(f"{prefix}{column:<22}\tall\t{_value(total, integral[column])}")
    return "\n".join(lines) + "\n"
