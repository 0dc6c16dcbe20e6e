"""The measures of trec_eval's other judgment formats, under trec_eval's names, for
:func:`evaluate_run`: the preference measures (``all_prefs``, :mod:`._prefs`) and the
judgment-group measures (``qrels_jg``, :mod:`._judgment_groups`).

They need judgments with structure (groups, sub-groups) that the flat-array engine does not
carry, so :func:`evaluate_run` hands a metrics list naming any of them to
:func:`evaluate_with_judgments`: the other measures go through :func:`evaluate_run` as
always, these through their own modules, and the columns are merged in the order asked.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..._table import difficulty_values
from ..._validation import check_columns
from .._evaluation import RankingEvaluation
from .._names._foreign import merge_columns
from .._options import check_options
from ._groups import QRELS_JG, evaluate_judgment_groups, jg_columns
from ._prefs import ALL_PREFS, evaluate_prefs

__all__ = [
    "JUDGMENT_SETS",
    "evaluate_with_judgments",
    "judgment_measure_names",
    "split_judgment_metrics",
]

#: trec_eval's nicknames for these measure sets (``-m all_prefs``, ``-m prefs``,
#: ``-m qrels_jg``).
JUDGMENT_SETS = {"all_prefs": ALL_PREFS, "prefs": ALL_PREFS[:6], "qrels_jg": QRELS_JG}


_SCOPE = {
    "": "counting implied preferences (one document retrieved) and, as failed, those with "
    "neither retrieved",
    "_ret": "over preferences between two retrieved documents",
    "_imp": "over preferences with at least one document retrieved",
}
#: name -> what it computes (``describe_metric``).
DESCRIPTIONS = {
    "prefs_num_prefs_poss": "preferences possible, retrieved or not (trec_eval; all = sum)",
    "prefs_num_prefs_ful": "preferences fulfilled, implied ones included (trec_eval; sum)",
    "prefs_num_prefs_ful_ret": "preferences fulfilled between retrieved documents (sum)",
    **{
        f"prefs_simp{s}": f"preferences fulfilled / possible, {scope} (trec_eval)"
        for s, scope in _SCOPE.items()
    },
    **{
        f"prefs_pair{s}": "mean over document pairs of the share of judgment groups whose "
        f"preference is fulfilled, {scope} (trec_eval)"
        for s, scope in _SCOPE.items()
    },
    **{
        f"prefs_avgjg{s}": "mean over judgment groups of fulfilled / possible preferences, "
        f"{scope} (trec_eval)"
        for s, scope in _SCOPE.items()
    },
    "prefs_avgjg_Rnonrel": "prefs_avgjg with each group's non-relevant documents resized to "
    "its number of relevant ones, R (trec_eval)",
    "prefs_avgjg_Rnonrel_ret": "prefs_avgjg_ret with each group's retrieved non-relevant "
    "documents resized to its retrieved relevant ones (trec_eval)",
    "map_avgjg": "map against each judgment group's qrels, averaged over the groups (trec_eval)",
    "P_avgjg": "P_k against each judgment group's qrels, averaged over the groups (trec_eval; "
    "P_avgjg.5,10 or P_avgjg_10)",
    "Rprec_mult_avgjg": "Rprec_mult against each judgment group's qrels, averaged over the "
    "groups (trec_eval; Rprec_mult_avgjg.0.5 or Rprec_mult_avgjg_0.50)",
    "all_prefs": "every preference measure: " + ", ".join(ALL_PREFS),
    "prefs": "trec_eval's official preference measures: " + ", ".join(ALL_PREFS[:6]),
    "qrels_jg": "every judgment-group measure: " + ", ".join(QRELS_JG),
}


def describe_judgment_measure(name):
    """``"name: description"`` of a name here (a printed column such as ``P_avgjg_10``
    too), or None."""
    key = name.strip()
    base = key
    if key not in DESCRIPTIONS:
        if key in ALL_PREFS or not jg_columns_or_none(key):
            return None
        base = next(f for f in QRELS_JG if key.startswith(f))
    needs = "preference judgments (read_trec_qrels(..., format='prefs' or 'qrels_prefs'))"
    if base in QRELS_JG or base == "qrels_jg":
        needs = "judgment groups (read_trec_qrels(..., format='qrels_jg'))"
    return f"{key}: {DESCRIPTIONS[base]}; evaluate_run only, with {needs}"


def jg_columns_or_none(name):
    """:func:`jg_columns`, None for a malformed parameter list too."""
    try:
        return jg_columns(name)
    except ValueError:
        return None


def judgment_measure_names():
    """The names accepted here: the sets, the preference measures, the jg families."""
    return sorted({*JUDGMENT_SETS, *ALL_PREFS, *QRELS_JG})


def split_judgment_metrics(metrics, qrels=None):
    """``(prefs, jg, others, order)`` of a metrics list, or None when it names none of these
    measures (and ``qrels`` has no judgment groups): the preference measures, the
    ``[(column, inner name)]`` of the judgment-group ones, the other entries as given, and
    every column in the order asked (others as their entries, expanded later)."""
    grouped = isinstance(qrels, pd.DataFrame) and "jg" in qrels.columns
    if isinstance(metrics, str):
        metrics = [metrics]
    if not isinstance(metrics, (list, tuple)) or not all(isinstance(m, str) for m in metrics):
        return ([], [], metrics, [metrics]) if grouped else None
    prefs, jg, others, order = [], [], [], []
    for raw in metrics:
        head, at, _ = raw.strip().partition("@")
        if at and (head in JUDGMENT_SETS or head in ALL_PREFS or jg_columns_or_none(head)):
            raise ValueError(
                f"metrics entry {raw!r}: trec_eval's {head} takes no '@k' (the judgment-group "
                "measures take trec_eval's parameters: P_avgjg.5,10); use "
                f"{head!r}, with max_docs= for trec_eval's -M."
            )
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
    if not prefs and not jg and not grouped:
        return None
    return list(dict.fromkeys(prefs)), list(dict.fromkeys(jg)), others, order


def _plain_qrels(qrels):
    """The qrels for the other measures: one judgment per (qid, doc_id) or an error."""
    if "jg" in qrels.columns and qrels.duplicated(["qid", "doc_id"]).any():
        first = qrels[qrels.duplicated(["qid", "doc_id"])].iloc[0]
        raise ValueError(
            f"qrels judges document {first['doc_id']!r} of query {first['qid']!r} in several "
            "judgment groups, so measures without judgment groups (map, P_10, ...) are "
            "undefined for it; ask for the judgment-group measures (map_avgjg, P_avgjg, "
            "Rprec_mult_avgjg, all_prefs) only."
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
        positive = qrels.loc[qrels["label"] > 0, ["qid", "doc_id"]].drop_duplicates()
        n_pos = positive.groupby("qid").size().reindex(table.index, fill_value=0)
        table["n_pos"] = n_pos.to_numpy()
    return table


def evaluate_with_judgments(run, qrels, metrics, split, evaluate_run, **kwargs):
    """:func:`evaluate_run` of a metrics list naming judgment-format measures (``split`` is
    :func:`split_judgment_metrics`'s answer)."""
    prefs, jg, others, order = split
    optional = [c for c in ("jg", "jsg") if isinstance(qrels, pd.DataFrame) and c in qrels]
    qrels = check_columns(qrels, "qrels", ["qid", *optional, "doc_id", "label"])
    skip = ("k", "missing_queries", "unjudged", "conventions", "query_stats", "n_jobs")
    resolved = check_options(
        kwargs.get("conventions", "trec_eval"),
        **{key: value for key, value in kwargs.items() if key not in skip},
    )
    missing_queries = kwargs.get("missing_queries", "skip")
    parts = []
    if others or not (prefs or jg):
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
