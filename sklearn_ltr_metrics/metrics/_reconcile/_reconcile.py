"""``reconcile``: why two tools disagree, option by option and query by query.

Every tool is a full setting of the convention options (a preset of ``CONVENTIONS``, possibly
with trec_eval's command-line flags or explicit options on top). For each pair of tools the
difference of their means is split over the options in which they differ by exact Shapley
values: every subset of those options is one evaluation by the engine (one per distinct
setting, shared across pairs), and the contributions of a pair add up to its difference.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..._validation import short_repr
from .._options import DOC_ID_TIES
from ._evaluators import _flat_facts, _run_facts, flat_evaluator, run_evaluator
from ._result import Reconciliation
from ._rules import rule_text
from ._shapley import _attribute, _mean, _Settings, _shapley
from ._tools import check_tools

__all__ = ["Reconciliation", "reconcile", "reconcile_run"]


def _top_queries(per_query, tools, per_pair, facts_of, n_queries):
    """The queries that differ most for every pair, with the option that moves each."""
    rows = []
    names = list(tools)
    for i, name_a in enumerate(names):
        for name_b in names[i + 1 :]:
            if (name_a, name_b) not in per_pair:
                continue
            options, frames = per_pair[(name_a, name_b)]
            va, vb = per_query[name_a], per_query[name_b]
            gap = (vb - va).abs()
            one_sided = va.isna() ^ vb.isna()
            order = pd.Series(np.where(one_sided, np.inf, gap.fillna(0.0)), index=per_query.index)
            order = order[order > 1e-12].sort_values(ascending=False, kind="stable")
            shown = order.index[:n_queries]
            # per-query Shapley values of the shown queries only (a small matrix)
            phi = _shapley(
                np.vstack([f.reindex(shown).to_numpy(dtype=np.float64) for f in frames]),
                len(options),
            )
            for column, qid in enumerate(shown):
                option = _moving_option(
                    options, phi[:, column], va[qid], vb[qid], tools, name_a, name_b
                )
                rows.append(
                    {
                        "tool_a": name_a,
                        "tool_b": name_b,
                        "qid": qid,
                        "value_a": va[qid],
                        "value_b": vb[qid],
                        "difference": vb[qid] - va[qid],
                        "option": option,
                        "rule": rule_text(option, name_a, name_b, tools, facts_of(qid)),
                    }
                )
    columns = ["tool_a", "tool_b", "qid", "value_a", "value_b", "difference", "option", "rule"]
    return pd.DataFrame(rows, columns=columns)


def _moving_option(options, phi, value_a, value_b, tools, name_a, name_b):
    """The option that moves one query: the largest per-query Shapley value; a query one
    tool leaves out is moved by the rule that leaves it out."""
    if np.isnan(value_a) or np.isnan(value_b) or not np.all(np.isfinite(phi)):
        for key in ("missing_queries", "empty_query", "unjudged", "max_docs", "min_relevance"):
            if key in options:
                return key
    return options[int(np.argmax(np.abs(np.nan_to_num(phi))))]


def _reconcile(settings, tools, metric, facts_of, n_queries, notes):
    per_query = pd.DataFrame({name: settings(setting) for name, setting in tools.items()})
    per_query.index.name = "qid"
    means = pd.Series({name: _mean(per_query[name].dropna()) for name in tools}, name=metric)
    attribution, per_pair = _attribute(settings, tools, metric)
    queries = _top_queries(per_query, tools, per_pair, facts_of, n_queries)
    return Reconciliation(
        metric=metric,
        tools=tools,
        means=means,
        per_query=per_query,
        attribution=attribution,
        queries=queries,
        n_evaluations=len(settings),
        notes=notes,
    )


def _check_metric(metric):
    if not isinstance(metric, str):
        raise TypeError(
            f"metric must be one metric spec string such as 'ndcg@10', got {short_repr(metric)}."
        )
    return metric


def _check_n_queries(n_queries):
    if isinstance(n_queries, bool) or not isinstance(n_queries, (int, np.integer)) or n_queries < 0:
        raise ValueError(
            f"n_queries={short_repr(n_queries)} must be an int >= 0, e.g. n_queries=3."
        )
    return int(n_queries)


def reconcile(
    y_true,
    y_score,
    qid,
    metric="ndcg@10",
    tools=None,
    *,
    doc_id=None,
    query_stats=None,
    n_queries=3,
):
    """Why tools disagree on a metric: their means, per query, attributed rule by rule.

    Each tool is a full setting of the convention options (:func:`convention_options`). For
    every pair of tools, the difference of their means is split over the options in which
    they differ by exact Shapley values: the metric is evaluated under every subset of those
    options (one engine call per distinct setting, shared by all pairs), so the contributions
    of a pair add up to its difference.

    Parameters
    ----------
    y_true, y_score, qid : array-like of shape (n_rows,)
        As in :func:`evaluate`.
    metric : str, default="ndcg@10"
        One metric spec.
    tools : list of str, dict or None, default=None
        Preset names (``"default"`` is the package's own; None: every preset), each with
        optional trec_eval flags or options after it (``"trec_eval -M100"``,
        ``"lightgbm ties=average"``), or a dict name -> preset name or mapping of options
        (``{"mine": {"conventions": "trec_eval", "max_docs": 100}}``).
    doc_id : array-like of shape (n_rows,), optional
        Document ids, for tools that break ties by doc id (trec_eval, ranx, ir_measures).
        Without them such tools name each row by its position in the input (a note says so).
    query_stats : pandas.DataFrame, optional
        Per-query ``n_pos`` (see :func:`evaluate`).
    n_queries : int, default=3
        Queries listed per pair in ``queries``.

    Returns
    -------
    Reconciliation
        ``means``, ``per_query``, ``attribution``, ``queries``, ``to_text()``,
        ``to_markdown()``.

    See Also
    --------
    reconcile_run : The same for a TREC run and its judgments (trec_eval's -c and -J too).
    which_convention : The settings that reproduce a number seen elsewhere.

    Examples
    --------
    A query without relevant documents and tied scores: LightGBM and trec_eval disagree.

    >>> from sklearn_ltr_metrics.metrics import reconcile
    >>> result = reconcile(
    ...     [2, 0, 1, 0, 0, 0], [0.5, 0.5, 0.1, 0.9, 0.4, 0.2], ["a", "a", "a", "b", "b", "b"],
    ...     "ndcg@10", tools=["lightgbm", "trec_eval"], doc_id=["x", "y", "z", "x", "y", "z"])
    >>> result.means.round(4).to_dict()
    {'lightgbm': 0.982, 'trec_eval': 0.3348}
    >>> result.attribution[["option", "contribution"]].round(4)
               option  contribution
    0            ties       -0.1464
    1            gain       -0.0008
    2     empty_query       -0.5000
    3   min_relevance        0.0000
    4  ap_denominator        0.0000
    >>> for rule in result.queries["rule"]:
    ...     print(rule)
    no relevant document: lightgbm scores 1, trec_eval scores 0
    scores tied over ranks 1-2: lightgbm keeps them in input order, trec_eval breaks them
    by doc id descending
    """
    metric = _check_metric(metric)
    n_queries = _check_n_queries(n_queries)
    named = check_tools(tools, run=False)
    notes = []
    if doc_id is None and any(s["ties"] in DOC_ID_TIES for s in named.values()):
        n_rows = len(y_true)
        doc_id = np.char.zfill(np.arange(n_rows).astype(str), len(str(n_rows)))
        notes.append(
            "doc_id not given: tools that break ties by doc id name each row by its position "
            "in the input (pass doc_id= for the ids those tools saw)."
        )
    settings = _Settings(flat_evaluator(y_true, y_score, qid, metric, doc_id, query_stats))
    facts_of = _flat_facts(y_true, y_score, qid)
    return _reconcile(settings, named, metric, facts_of, n_queries, notes)


def reconcile_run(run, qrels, metric="ndcg@10", tools=None, *, n_queries=3):
    """:func:`reconcile` for a TREC run and its judgments, with trec_eval's run options.

    Tools may add trec_eval's ``-c`` (judged queries the run misses score 0), ``-J`` or
    ir_measures' ``judged_only`` (unjudged documents removed before ranking), ``-M<N>``
    (the first N documents only) and ``-l<N>`` (relevant from label N).

    Parameters
    ----------
    run : pandas.DataFrame
        Columns ``qid``, ``doc_id``, ``score`` (see :func:`evaluate_run`).
    qrels : pandas.DataFrame
        Columns ``qid``, ``doc_id``, ``label``.
    metric : str, default="ndcg@10"
        One metric spec.
    tools : list of str, dict or None, default=None
        As in :func:`reconcile`; ``"trec_eval -c -J"``, ``"ir_measures judged_only"``.
    n_queries : int, default=3
        Queries listed per pair in ``queries``.

    Returns
    -------
    Reconciliation

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_ltr_metrics.metrics import reconcile_run
    >>> run = pd.DataFrame({"qid": ["1"] * 3, "doc_id": ["a", "b", "c"], "score": [3, 2, 1]})
    >>> qrels = pd.DataFrame({"qid": ["1", "1", "2"], "doc_id": ["c", "b", "a"],
    ...                       "label": [1, 0, 1]})
    >>> result = reconcile_run(run, qrels, "map", tools=["trec_eval", "trec_eval -c -J"])
    >>> result.means.to_dict()
    {'trec_eval': 0.3333333333333333, 'trec_eval -c -J': 0.25}
    >>> result.attribution[["option", "contribution"]].round(4)
                option  contribution
    0  missing_queries       -0.2083
    1         unjudged        0.1250
    """
    metric = _check_metric(metric)
    n_queries = _check_n_queries(n_queries)
    named = check_tools(tools, run=True)
    settings = _Settings(run_evaluator(run, qrels, metric))
    return _reconcile(settings, named, metric, _run_facts(run, qrels), n_queries, [])
