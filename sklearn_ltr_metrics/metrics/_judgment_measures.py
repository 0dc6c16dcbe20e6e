"""The measures of trec_eval's other judgment formats, under trec_eval's names, for
:func:`evaluate_run`: the preference measures (``all_prefs``, :mod:`._prefs`) and the
judgment-group measures (``qrels_jg``, :mod:`._judgment_groups`).

They need judgments with structure (groups, sub-groups) that the flat-array engine does not
carry, so :func:`evaluate_run` hands a metrics list naming any of them to
:func:`evaluate_with_judgments`: the other measures go through :func:`evaluate_run` as
always, these through their own modules, and the columns are merged in the order asked.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from .._table import difficulty_values
from .._validation import check_columns
from ._evaluation import RankingEvaluation
from ._judgment_groups import QRELS_JG, evaluate_judgment_groups, jg_columns
from ._names import merge_columns
from ._options import check_options
from ._prefs import ALL_PREFS, PREFS_COUNTS, evaluate_prefs

__all__ = [
    "JUDGMENT_SETS",
    "evaluate_with_judgments",
    "judgment_measure_names",
    "measure_totals",
    "split_judgment_metrics",
]

#: trec_eval's nicknames for these measure sets (``-m all_prefs``, ``-m prefs``,
#: ``-m qrels_jg``).
JUDGMENT_SETS = {"all_prefs": ALL_PREFS, "prefs": ALL_PREFS[:6], "qrels_jg": QRELS_JG}


def judgment_measure_names():
    """The names accepted here: the sets, the preference measures, the jg families."""
    return sorted({*JUDGMENT_SETS, *ALL_PREFS, *QRELS_JG})


def split_judgment_metrics(metrics):
    """``(prefs, jg, others, order)`` of a metrics list, or None when it names none of these
    measures: the preference measures, the ``[(column, inner name)]`` of the judgment-group
    ones, the other entries as given, and every column in the order asked (others as their
    entries, expanded later)."""
    if isinstance(metrics, str):
        metrics = [metrics]
    if not isinstance(metrics, (list, tuple)) or not all(isinstance(m, str) for m in metrics):
        return None
    prefs, jg, others, order = [], [], [], []
    for raw in metrics:
        names = JUDGMENT_SETS.get(raw.strip(), (raw.strip(),))
        for name in names:
            columns = None if name in ALL_PREFS else jg_columns(name)
            if name in ALL_PREFS:
                prefs.append(name)
                order.append(name)
            elif columns is not None:
                jg.extend(columns)
                order.extend(column for column, _ in columns)
            else:
                others.append(raw)
                order.append(raw)
                break
    if not prefs and not jg:
        return None
    return list(dict.fromkeys(prefs)), list(dict.fromkeys(jg)), others, order


def measure_totals(metrics):
    """``{column: object with .total}`` for trec_eval's layout: ``"sum"`` for the preference
    counts, ``"mean"`` for the other measures here, the registry's metric otherwise."""
    from ._registry import parse_metrics

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


def _plain_qrels(qrels):
    """The qrels for the other measures: one judgment per (qid, doc_id) or an error."""
    if "jg" in qrels.columns and qrels.duplicated(["qid", "doc_id"]).any():
        first = qrels[qrels.duplicated(["qid", "doc_id"])].iloc[0]
        raise ValueError(
            f"qrels judges document {first['doc_id']!r} of query {first['qid']!r} in several "
            "judgment groups, so measures without judgment groups (map, P_10, ...) are "
            "undefined for it; ask for the judgment-group measures (map_avgjg, P_avgjg, "
            "Rprec_mult_avgjg, all_prefs) only, or read the file with format='qrels'."
        )
    return qrels[["qid", "doc_id", "label"]]


def _prefs_evaluation(run, qrels, names, resolved, missing_queries):
    if resolved["ties"] != "trec_eval":
        raise ValueError(
            f"the preference measures ({names[0]!r}, ...) rank as trec_eval does (score "
            f"descending, ties by doc_id ascending); ties={resolved['ties']!r} cannot apply. "
            "Pass ties='trec_eval' (or conventions='trec_eval')."
        )
    run = run.astype({"qid": str, "doc_id": str})
    qrels = qrels.astype({"qid": str, "doc_id": str})
    if not run["qid"].isin(pd.Index(qrels["qid"].unique())).any():
        raise ValueError("run and qrels share no query; check that their qid values match.")
    table = evaluate_prefs(run, qrels, names, max_docs=resolved["max_docs"])
    if missing_queries == "zero":  # trec_eval -c: a judged query without a ranking scores 0
        table = table.reindex(table.index.union(pd.Index(qrels["qid"].unique())), fill_value=0)
        table.index.name = "qid"
    return table


def evaluate_with_judgments(run, qrels, metrics, split, evaluate_run, **kwargs):
    """:func:`evaluate_run` of a metrics list naming judgment-format measures (``split`` is
    :func:`split_judgment_metrics`'s answer)."""
    prefs, jg, others, order = split
    optional = [c for c in ("jg", "jsg") if isinstance(qrels, pd.DataFrame) and c in qrels]
    qrels = check_columns(qrels, "qrels", ["qid", *optional, "doc_id", "label"])
    options = dict(kwargs)
    missing_queries = options.get("missing_queries", "skip")
    evaluate_options = {
        key: options.pop(key) for key in ("conventions", "query_stats", "n_jobs") if key in options
    }
    conventions = evaluate_options.get("conventions", "trec_eval")
    resolved = check_options(
        conventions,
        **{k: v for k, v in options.items() if k not in ("k", "missing_queries", "unjudged")},
    )
    parts = []
    if others:
        parts.append(evaluate_run(run, _plain_qrels(qrels), metrics=others, **kwargs))
    tables = []
    if prefs:
        tables.append(_prefs_evaluation(run, qrels, prefs, resolved, missing_queries))
    if jg:
        tables.append(evaluate_judgment_groups(run, qrels, jg, evaluate_run, **kwargs))
    for table in tables:
        table.insert(3, "difficulty", difficulty_values(table["n_pos"], table["n_neg"]))
        cutoffs = {
            c: (table.index.to_numpy(), np.full(len(table), np.inf), table[c].to_numpy(float))
            for c in table.columns[4:]
        }
        parts.append(RankingEvaluation(table, cutoffs, resolved))
    if len(parts) == 1:
        return parts[0]
    other_columns = list(parts[0].metrics) if others else []
    wanted = []
    for column in order:
        wanted.extend(other_columns if column in others else [column])
    return merge_columns(parts, resolved, list(dict.fromkeys(wanted)))
