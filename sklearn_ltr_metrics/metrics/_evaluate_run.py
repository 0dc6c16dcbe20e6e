"""``evaluate_run``: a TREC-style run against separate relevance judgments (qrels).

The run and the judgments are joined as trec_eval joins them, then evaluated by the same
engine as :func:`evaluate`, with the judged documents the run never retrieved supplied as the
ideal labels and relevant counts.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._engine import factorize_qid
from .._qid import check_qid
from .._table import difficulty_values
from .._validation import check_choice, check_columns, check_labels, check_scores
from ._evaluation import DroppedQueriesWarning, RankingEvaluation
from ._judgments._beyond import evaluate_run_with_beyond, plain_qrels
from ._judgments._measures import evaluate_with_judgments, split_judgment_metrics
from ._kernels._trec import empty_ranking_values
from ._names._beyond import split_beyond
from ._names._foreign import implied_groups, merge_columns, trec_gain_mapping
from ._names._relstring import relevance_strings
from ._options import check_options, fill_empty_queries, make_gain
from ._per_query import evaluate_arrays
from ._registry import metric_list, parse_metrics
from ._truncate import first_rows

if TYPE_CHECKING:
    from .._typing import Cutoff, MetricSpecs

__all__ = ["PRESET_MISSING_QUERIES", "evaluate_run", "missing_queries_policy"]

#: ``missing_queries=None``: what each preset's tool does with a judged query the run does not
#: retrieve. ir_measures scores it 0 (its pytrec_eval provider fills it in; its Accuracy leaves
#: it out); ranx refuses the run unless ``make_comparable=True``, which scores it 0; every other
#: preset (trec_eval's without ``-c``) leaves it out.
PRESET_MISSING_QUERIES = {"ir_measures": "zero", "ranx": "zero"}

#: The label of a retrieved document without a judgment: below every judgment, gain 0.
UNJUDGED = -np.inf


def evaluate_run(
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    *,
    metrics: MetricSpecs = None,
    k: Cutoff = None,
    missing_queries: str | None = None,
    unjudged: str = "nonrelevant",
    conventions: str | None = "trec_eval",
    **options: Any,
) -> RankingEvaluation:
    """Evaluate a TREC-style run against separate relevance judgments.

    Read as trec_eval reads them: a retrieved document without a judgment is non-relevant,
    with gain 0 whatever the gain mapping says; a judged document the run did not retrieve
    counts in ``n_pos`` and in the ideal DCG but never in the ranking; a negative judgment
    means judged but never relevant, gain 0 unless a gain mapping names its label.

    Parameters
    ----------
    run : pandas.DataFrame
        Columns ``qid``, ``doc_id``, ``score`` (see :func:`read_trec_run`), and optionally
        ``tag`` (``read_trec_run(path, tag=True)``): the last row's is the result's
        ``run_id``, as trec_eval's ``runid``.
    qrels : pandas.DataFrame
        Columns ``qid``, ``doc_id``, ``label`` (see :func:`read_trec_qrels`); also ``jg``
        (and ``jsg``) for trec_eval's judgment-group and preference measures
        (``metrics="qrels_jg"``, ``"all_prefs"``; see :ref:`judgment-formats`).
    metrics, k : see :func:`evaluate`
        trec_eval's ``relstring`` (``relstring.20``: of the first 20 documents; part of
        ``all_trec``) is a string per query: it goes to the result's ``strings`` table, not
        to ``per_query``.
    missing_queries : {"skip", "zero"} or None, default=None
        Queries judged in ``qrels`` but absent from ``run``: left out (trec_eval's default) or
        scored 0 (trec_eval ``-c``; ``pairwise_accuracy``, which needs a pair, stays
        undefined). None: as the ``conventions`` preset's tool does, ``"zero"`` for
        ``"ir_measures"`` and ``"ranx"`` (``make_comparable=True``), ``"skip"`` otherwise.
    unjudged : {"nonrelevant", "remove"}, default="nonrelevant"
        Unjudged retrieved documents count as non-relevant, or are removed before ranking
        (condensed lists; trec_eval ``-J``): then negatively judged documents are removed too,
        and a query left with no document keeps its row (``n_docs`` 0) and scores as an empty
        ranking, 0 (a metric undefined for it follows ``empty_query``), as with ``-J``.
    conventions : str or None, default="trec_eval"
        Preset of options (see :func:`evaluate`); trec_eval's by default for this TREC entry
        point.
    **options
        Any option of :func:`evaluate` (``ties``, ``gain``, ``min_relevance``, ...).

    Returns
    -------
    RankingEvaluation
        ``n_docs`` counts retrieved documents; ``n_pos`` judged relevant documents (retrieved
        or not); ``n_neg`` the other retrieved documents. ``strings`` holds the relstring
        columns, ``run_id`` the run's tag.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_ltr_metrics import evaluate_run
    >>> run = pd.DataFrame({"qid": "1", "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    >>> qrels = pd.DataFrame({"qid": "1", "doc_id": ["b", "z", "a"], "label": [1, 1, 0]})
    >>> evaluate_run(run, qrels, metrics=["recall@3", "judged@3"]).per_query
         n_docs  n_pos  n_neg  difficulty  recall@3  judged@3
    qid
    1         3      2      2         1.0       0.5  0.666667

    trec_eval's ``relstring``: the labels of the first documents in ranked order, ``-`` where
    unjudged (a, b, then c, unjudged).

    >>> evaluate_run(run, qrels, metrics=["relstring"]).strings["relstring"].to_dict()
    {'1': '01-'}
    """
    missing_queries = missing_queries_policy(missing_queries, conventions)
    check_choice(unjudged, "unjudged", ("nonrelevant", "remove"))
    run_id = _run_id(run)
    whole_run = run
    run = check_columns(run, "run", ("qid", "doc_id", "score"))
    if metrics is not None:
        metrics = metric_list(metrics)  # any iterable, read once (a set in sorted order)
    beyond = split_beyond(metrics, k)  # diversity, expected exposure, fairness
    if beyond is not None:
        evaluation = evaluate_run_with_beyond(
            whole_run, qrels, beyond, evaluate_run, k=k, missing_queries=missing_queries,
            unjudged=unjudged, conventions=conventions, **options,
        )  # fmt: skip
        evaluation.run_id = run_id
        return evaluation
    qrels = plain_qrels(qrels)
    split = split_judgment_metrics(metrics, qrels)  # trec_eval's prefs / judgment-group measures
    if split is not None:
        evaluation = evaluate_with_judgments(
            run, qrels, metrics, split, evaluate_run, k=k, missing_queries=missing_queries,
            unjudged=unjudged, conventions=conventions, **options,
        )  # fmt: skip
        evaluation.run_id = run_id
        return evaluation
    run, qrels, label = _checked_pair(run, qrels)
    engine_options = {key: options.pop(key) for key in ("query_stats", "n_jobs") if key in options}
    resolved = check_options(conventions, **options)
    explicit_gain = options.get("gain") is not None
    preset = conventions if isinstance(conventions, str) else None
    specs = parse_metrics(
        metrics, k, options=resolved, strings=True, explicit_gain=explicit_gain,
        trec_names=preset == "trec_eval",
    )  # fmt: skip
    strings = [spec for spec in specs if spec.metric is None and spec.k is not None]
    specs = [spec for spec in specs if spec.metric is not None]
    parts = []
    groups = implied_groups(specs, {**resolved, "unjudged": unjudged}) or [((), [])]
    for implied, group in groups:
        group_options = {**resolved, **{key: v for key, v in implied if key in resolved}}
        if "trec_gains" in dict(implied):
            pairs = dict(implied)["trec_gains"]
            group_options["gain"] = trec_gain_mapping(np.asarray(label, dtype=np.float64), pairs)
        group_unjudged = dict(implied).get("unjudged", unjudged)
        parts.append(
            _evaluate_specs(
                run, qrels, group, group_options, missing_queries, group_unjudged, engine_options,
                tool_zero=preset == "ir_measures",
            )
        )  # fmt: skip
    evaluation = (
        parts[0]
        if len(parts) == 1
        else merge_columns(parts, resolved, [spec.column for spec in specs])
    )
    if strings:
        evaluation.strings = _strings(run, qrels, resolved, unjudged, strings, evaluation)
    evaluation.run_id = run_id
    _warn_missing(qrels, evaluation, missing_queries)
    return evaluation


def _warn_missing(qrels, evaluation, missing_queries):
    """A :class:`DroppedQueriesWarning` counting the judged queries the run does not rank,
    left out under ``missing_queries="skip"``."""
    judged = pd.Index(qrels["qid"].unique())
    missing = judged.difference(evaluation.per_query.index)
    if missing_queries == "skip" and len(missing):
        warnings.warn(
            f"{len(missing)} of {len(judged)} judged queries are not in the run and are left "
            f"out of every mean (e.g. {missing[:3].tolist()}; missing_queries='skip', "
            "trec_eval's default); pass missing_queries='zero' to score them 0 (trec_eval -c).",
            DroppedQueriesWarning,
            stacklevel=3,
        )


def missing_queries_policy(missing_queries, conventions):
    """``missing_queries`` checked; None: the preset's (:data:`PRESET_MISSING_QUERIES`)."""
    if missing_queries is None:
        known = isinstance(conventions, str) and conventions in PRESET_MISSING_QUERIES
        return PRESET_MISSING_QUERIES[conventions] if known else "skip"
    return check_choice(missing_queries, "missing_queries", ("skip", "zero"))


def _checked_pair(run, qrels):
    """The run and qrels checked (ids of one kind, each document once in the run; the last
    judgment of a document kept) and the qrels' labels."""
    qrels = check_columns(qrels, "qrels", ("qid", "doc_id", "label"))
    check_qid(run["qid"], "run['qid']")
    check_qid(qrels["qid"], "qrels['qid']")
    if (
        run["qid"].dtype.kind != qrels["qid"].dtype.kind
        or run["doc_id"].dtype.kind != qrels["doc_id"].dtype.kind
    ):
        run = run.astype({"qid": str, "doc_id": str})
        qrels = qrels.astype({"qid": str, "doc_id": str})
    dup = run.duplicated(["qid", "doc_id"])
    if dup.any():
        first = run[dup].iloc[0]
        raise ValueError(
            f"run retrieves document {first['doc_id']!r} twice for query {first['qid']!r}; "
            "each (qid, doc_id) may appear once. Drop duplicates first."
        )
    qrels = qrels.drop_duplicates(["qid", "doc_id"], keep="last")
    label = check_labels(qrels["label"], "qrels['label']", allow_negative=True)
    return run, qrels.assign(label=label), label


def _strings(run, qrels, resolved, unjudged, strings, evaluation):
    """trec_eval's ``relstring`` of each evaluated query, as ranked (``strings``: its specs)."""
    merged = _joined(run, qrels, resolved, unjudged)[0]
    return relevance_strings(
        merged["label"].to_numpy(dtype=np.float64),
        check_scores(merged["score"], merged["qid"].to_numpy()),
        merged["qid"].to_numpy(),
        merged["doc_id"].to_numpy(),
        strings,
        resolved["ties"],
        evaluation.per_query.index,
    )


def _run_id(run):
    """The tag of the run's last row (trec_eval's runid), None without a ``tag`` column."""
    if isinstance(run, pd.DataFrame) and "tag" in run.columns and len(run):
        return str(run["tag"].iloc[-1])
    return None


def _joined(run, qrels, resolved, unjudged):
    """The run's rows of judged queries with their labels (NaN: unjudged), as ranked:
    ``(merged, judged, emptied)``, after ``max_docs`` and ``unjudged="remove"`` (trec_eval -M,
    then -J), ``emptied`` the queries -J left with nothing."""
    run = run[run["qid"].isin(pd.Index(qrels["qid"].unique()))]
    if run.empty:
        raise ValueError("run and qrels share no query; check that their qid values match.")
    merged = run.merge(qrels, on=["qid", "doc_id"], how="left", sort=False)
    judged = merged["label"].notna().to_numpy()
    merged, judged = _first_ranked(merged, judged, resolved)  # trec_eval -M, before -J
    emptied = pd.Index([])
    if unjudged == "remove":
        # trec_eval -J: unjudged and negatively judged documents leave the ranking; a query
        # left with nothing keeps its place and scores as an empty ranking.
        keep = judged & (merged["label"].to_numpy() >= 0)
        emptied = pd.Index(merged["qid"].unique()).difference(pd.Index(merged["qid"][keep]))
        merged, judged = merged[keep], judged[keep]
    return merged, judged, emptied


def _evaluate_specs(
    run, qrels, specs, resolved, missing_queries, unjudged, engine_options, tool_zero=False
):
    """:func:`evaluate_run` of parsed specs that share their options (``tool_zero``: a
    missing query scores ir_measures' 0 on every measure, num_rel included)."""
    judged_queries = pd.Index(qrels["qid"].unique())
    merged, judged, emptied = _joined(run, qrels, resolved, unjudged)
    threshold = resolved["min_relevance"]
    parts = []
    if not merged.empty:
        # Unjudged retrieved documents: never relevant, gain 0 whatever the gain mapping says.
        y_true = merged["label"].fillna(UNJUDGED).to_numpy(dtype=np.float64)
        y_score = check_scores(merged["score"], merged["qid"].to_numpy())
        qid = merged["qid"].to_numpy()
        _, uniques = factorize_qid(qid)
        ideal_rows = qrels[qrels["qid"].isin(pd.Index(uniques))]
        ideal_codes = pd.Index(uniques).get_indexer(ideal_rows["qid"])
        ideal_labels = ideal_rows["label"].to_numpy(dtype=np.float64)
        is_rel = ideal_labels >= threshold if threshold is not None else ideal_labels > 0
        n_pos = np.bincount(ideal_codes, weights=is_rel, minlength=uniques.shape[0])
        parts.append(
            evaluate_arrays(
                y_true,
                y_score,
                qid,
                specs,
                resolved,
                doc_id=merged["doc_id"].to_numpy(),
                ideal=(ideal_codes, ideal_labels),
                n_pos_judged=n_pos,
                judged=judged,
                **engine_options,
            )
        )
    if len(emptied):
        parts.append(_empty_rankings(specs, emptied, qrels, resolved, undefined_rule=True))
    if missing_queries == "zero":
        absent = judged_queries.difference(pd.Index(merged["qid"].unique())).difference(emptied)
        if len(absent):
            parts.append(
                _empty_rankings(
                    specs, absent, qrels, resolved, undefined_rule=False, tool_zero=tool_zero
                )
            )
    return parts[0] if len(parts) == 1 else RankingEvaluation.concat(parts)


def _first_ranked(merged, judged, options):
    """The rows among the first ``max_docs`` of their query, ranked under ``ties``."""
    if options["max_docs"] is None:
        return merged, judged
    keep = first_rows(
        merged["label"].fillna(UNJUDGED).to_numpy(dtype=np.float64),
        check_scores(merged["score"], merged["qid"].to_numpy()),
        merged["qid"].to_numpy(),
        merged["doc_id"].to_numpy(),
        options["ties"],
        options["max_docs"],
    )
    return merged[keep], judged[keep]


def _empty_rankings(specs, queries, qrels, options, *, undefined_rule, tool_zero=False):
    """The evaluation of queries that rank no document: every metric 0.

    With ``undefined_rule`` (trec_eval ``-J`` emptied a query), a metric undefined for the
    query (no relevant judgment, or no positive gain) follows ``empty_query`` as it would
    with documents; without it (trec_eval ``-c``) every value is 0, as trec_eval has it.
    ``tool_zero`` (ir_measures, which fills a query its providers did not report with 0):
    num_rel, utility and the geometric means' logs are 0 too.
    """
    rows = qrels[qrels["qid"].isin(queries)]
    threshold = options["min_relevance"]
    rel = rows["label"] >= threshold if threshold is not None else rows["label"] > 0
    n_pos = rel.groupby(rows["qid"]).sum().reindex(queries).fillna(0).to_numpy(np.int64)
    gain = (
        make_gain(options["gain"], options["min_relevance"])(
            rows["label"].to_numpy(dtype=np.float64)
        )
        > 0
    )
    has_gain = pd.Series(gain, index=rows.index).groupby(rows["qid"]).any()
    has_gain = has_gain.reindex(queries).fillna(False).to_numpy(dtype=bool)
    columns = {
        "n_docs": 0,
        "n_pos": n_pos,
        "n_neg": 0,
        "difficulty": difficulty_values(n_pos, np.zeros(n_pos.size)),
    }
    cutoff_parts = {}
    ids = np.asarray(queries)
    for spec in specs:
        values = empty_ranking_values(spec.metric, spec.params, n_pos)
        if tool_zero:
            values = np.where(np.isnan(values), values, 0.0)
        undefined = {"n_pos": n_pos == 0, "ideal": ~has_gain}.get(spec.metric.undefined)
        if undefined_rule and undefined is not None and undefined.any():
            values = fill_empty_queries(values, undefined, options["empty_query"], spec.column, ids)
        columns[spec.column] = values
        cutoff_parts[spec.column] = (ids, np.full(ids.size, np.inf), values)
    # One frame from every column at once (all_trec has over 100 of them).
    table = pd.DataFrame(columns, index=pd.Index(queries, name="qid"))
    return RankingEvaluation(table, cutoff_parts, options)
