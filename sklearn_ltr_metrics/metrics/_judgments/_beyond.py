"""``evaluate`` and ``evaluate_run`` for the measures beyond relevance: the per-query table of
the specs of :mod:`._beyond_names`, from flat arrays or from a run and its judgments.

Diversity (:mod:`._subtopics`, :mod:`._diversity`) reads subtopic judgments; expected
exposure (:mod:`._exposure`) and attention-weighted rank fairness (:mod:`._fairness`) read
the graded labels, an optional ``sample`` per row (several rankings of one query) and, for
fairness, a ``group`` per row. The table has the engine's count columns (``n_docs``,
``n_pos``, ``n_neg``, ``difficulty``) and one column per spec, so every consumer of a
:class:`RankingEvaluation` (bootstrap, paired tests, reports) takes it as any other.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from ..._engine import difficulty_values, factorize_qid, group_rows, value_range
from .._evaluation import RankingEvaluation
from .._kernels._exposure import exposure_columns
from .._kernels._fairness import fairness_columns
from .._kernels._rank_order import average_ranks, doc_keys, rank_active, rank_rows
from .._options import fill_empty_queries
from ._subtopics import SubtopicJudgments, diversity_columns, flat_judgments

__all__ = [
    "beyond_evaluation",
    "check_subtopic_labels",
    "evaluate_arrays_beyond",
    "evaluate_run_beyond",
    "evaluate_run_with_beyond",
    "evaluate_with_beyond",
    "plain_qrels",
]


def _default_rel(options):
    threshold = options.get("min_relevance")
    return 1.0 if threshold is None else threshold


def _fill_undefined(columns, specs, options, ids):
    """``empty_query`` for the values without a definition (NaN: nNRBP without subtopics)."""
    for spec in specs:
        values = columns[spec.column]
        undefined = np.isnan(values)
        if not undefined.any():
            continue
        columns[spec.column] = fill_empty_queries(
            values, undefined, options["empty_query"], spec.column, ids
        )


def beyond_evaluation(ids, counts, columns, specs, options):
    """The :class:`RankingEvaluation` of the columns (``counts``: n_docs, n_pos, n_neg)."""
    ids = np.asarray(ids)
    _fill_undefined(columns, specs, options, ids)
    n_docs, n_pos, n_neg = (np.asarray(c, dtype=np.int64) for c in counts)
    table = {
        "n_docs": n_docs,
        "n_pos": n_pos,
        "n_neg": n_neg,
        "difficulty": difficulty_values(n_pos, n_neg),
    }
    parts = {}
    for spec in specs:
        table[spec.column] = columns[spec.column]
        k = np.inf if spec.k is None else float(spec.k)
        parts[spec.column] = (ids, np.full(ids.size, k), columns[spec.column])
    per_query = pd.DataFrame(table, index=pd.Index(ids, name="qid"))
    return RankingEvaluation(per_query, parts, options)


def _subtopic_frame(qrels):
    if "subtopic" not in qrels.columns:
        raise ValueError(
            "the diversity measures (alpha_nDCG, ERR_IA, ...) need subtopic judgments: qrels "
            "with columns qid, subtopic, doc_id, label, as read_trec_qrels(path, "
            f"subtopics=True) gives them; these qrels have {list(qrels.columns)}."
        )
    frame = qrels[["qid", "subtopic", "doc_id", "label"]].astype(
        {"qid": str, "subtopic": str, "doc_id": str}
    )
    return frame.drop_duplicates(["qid", "subtopic", "doc_id"], keep="last")


def _run_judgments(ranked, qrels, uniques, rel):
    """:class:`SubtopicJudgments` of a ranked run (``qid, doc_id, rank`` with query codes)
    against subtopic qrels, at the threshold ``rel``."""
    relevant = qrels[qrels["label"].to_numpy(dtype=np.float64) >= rel]
    relevant = relevant[relevant["qid"].isin(pd.Index(uniques))]
    docs = relevant[["qid", "doc_id"]].drop_duplicates(ignore_index=True)
    doc_q = pd.Index(uniques).get_indexer(docs["qid"])
    joined = docs.merge(ranked, on=["qid", "doc_id"], how="left")
    doc_rank = joined["rank"]
    doc_index = pd.MultiIndex.from_frame(docs)
    trip_doc = doc_index.get_indexer(pd.MultiIndex.from_frame(relevant[["qid", "doc_id"]]))
    qs_codes, qs_uniques = pd.MultiIndex.from_frame(relevant[["qid", "subtopic"]]).factorize(
        sort=True
    )
    qs_query = pd.Index(uniques).get_indexer(qs_uniques.get_level_values(0))
    return SubtopicJudgments(
        n_queries=len(uniques),
        doc_q=doc_q.astype(np.int64),
        doc_key=doc_keys(docs["doc_id"].to_numpy()) if len(docs) else np.zeros(0, np.int64),
        doc_rank=doc_rank.fillna(0).to_numpy(dtype=np.int64),
        trip_doc=trip_doc.astype(np.int64),
        trip_qs=np.asarray(qs_codes, dtype=np.int64),
        qs_query=qs_query.astype(np.int64),
        doc_block=(
            joined["block"].fillna(1).to_numpy(dtype=np.int64) if "block" in joined else None
        ),
    )


def _by_family(specs, sampled=False):
    out = {"diversity": [], "exposure": [], "fairness": []}
    for spec in specs:
        out[spec.family].append(spec)
    if sampled and out["diversity"]:
        raise ValueError(
            f"{out['diversity'][0].column!r} scores one ranking per query; drop the sample "
            "column (sampled rankings are for the expected-exposure measures)."
        )
    return out


def evaluate_run_beyond(run, qrels, specs, options, *, ties, missing_queries="skip"):
    """The evaluation of the beyond-relevance specs of a run against its judgments.

    ``ties``: the tie policy given by the caller, or None (pyndeval's ``"doc_id"``).
    """
    run, qrels = _checked_frames(run, qrels)
    judged = pd.Index(qrels["qid"].unique())
    run = run[run["qid"].isin(judged)].reset_index(drop=True)
    if run.empty:
        raise ValueError("run and qrels share no query; check that their qid values match.")
    codes, uniques = factorize_qid(run["qid"].to_numpy())
    families = _by_family(specs, "sample" in run.columns)
    columns = {}
    labels = _plain_labels(run, qrels)
    if families["diversity"]:
        frame = _subtopic_frame(qrels)
        scores = run["score"].to_numpy()
        ranked = pd.DataFrame({"qid": run["qid"], "doc_id": run["doc_id"]})
        if ties == "average":
            ranked["rank"], ranked["block"] = average_ranks(codes, scores, None)
        else:
            ranked["rank"] = rank_rows(codes, scores, run["doc_id"].to_numpy(), ties or "doc_id")[1]
        build = lambda rel: _run_judgments(ranked, frame, uniques, rel)  # noqa: E731
        columns.update(diversity_columns(families["diversity"], build, _default_rel(options)))
    rows = _Rows(codes, len(uniques), run["score"].to_numpy(), labels, run, ties)
    rows.n_pos_at = lambda rel: (  # judged relevant documents, retrieved or not
        _n_pos(qrels, rel).reindex(pd.Index(uniques), fill_value=0).to_numpy()
    )
    columns.update(exposure_columns(families["exposure"], rows, options))
    columns.update(fairness_columns(families["fairness"], rows, options))
    counts = _run_counts(codes, uniques, qrels, labels, options)
    evaluation = beyond_evaluation(uniques, counts, columns, specs, options)
    absent = judged.difference(pd.Index(uniques))
    if missing_queries == "zero" and len(absent):
        zeros = {s.column: np.zeros(len(absent)) for s in specs}
        n_pos = _n_pos(qrels, _default_rel(options)).reindex(absent, fill_value=0)
        empty = (np.zeros(len(absent)), n_pos.to_numpy(), np.zeros(len(absent)))
        evaluation = RankingEvaluation.concat(
            [evaluation, beyond_evaluation(absent.to_numpy(), empty, zeros, specs, options)]
        )
    return evaluation


def _checked_frames(run, qrels):
    """The run and qrels with string ids, checked: each document once per ranking (per
    ``sample``), finite scores, numeric labels."""
    from ..._validation import check_columns, check_labels, check_scores

    check_columns(qrels, "qrels", ("qid", "doc_id", "label"))
    run = run.astype({"qid": str, "doc_id": str})
    qrels = qrels.astype({"qid": str, "doc_id": str})
    key = ["qid", "sample", "doc_id"] if "sample" in run.columns else ["qid", "doc_id"]
    dup = run.duplicated(key)
    if dup.any():
        first = run[dup].iloc[0]
        raise ValueError(
            f"run retrieves document {first['doc_id']!r} twice for query {first['qid']!r}"
            + (" in one sample" if "sample" in run.columns else "")
            + "; each document may appear once per ranking. Drop duplicates first."
        )
    check_scores(run["score"], run["qid"].to_numpy())
    label = check_labels(qrels["label"], "qrels['label']", allow_negative=True)
    return run, qrels.assign(label=label)


def _n_pos(qrels, rel):
    relevant = qrels[qrels["label"].to_numpy(dtype=np.float64) >= rel]
    return relevant.drop_duplicates(["qid", "doc_id"]).groupby("qid").size()


def _plain_labels(run, qrels):
    """Each run row's label (a subtopic judgment: the largest over the subtopics; 0 when
    unjudged)."""
    best = qrels.groupby(["qid", "doc_id"], sort=False)["label"].max().rename("label")
    merged = run[["qid", "doc_id"]].merge(best.reset_index(), on=["qid", "doc_id"], how="left")
    return merged["label"].fillna(0).to_numpy(dtype=np.float64)


def _run_counts(codes, uniques, qrels, labels, options):
    rel = _default_rel(options)
    n_docs = np.bincount(codes, minlength=len(uniques))
    hits = np.bincount(codes, weights=labels >= rel, minlength=len(uniques))
    n_pos = _n_pos(qrels, rel).reindex(pd.Index(uniques), fill_value=0).to_numpy()
    return n_docs, n_pos, n_docs - hits


class _Rows:
    """The rows the exposure and fairness kernels read: query codes, scores, graded labels,
    and the optional ``sample`` and ``group`` columns (of a run frame or flat arrays)."""

    def __init__(self, codes, n_queries, score, labels, frame, ties, doc_id=None):
        self.codes, self.n_queries, self.score, self.labels = codes, n_queries, score, labels
        self.ties = ties
        self.n_pos_at = None
        self.doc_id = doc_id if doc_id is not None else _column(frame, "doc_id")
        self.sample = _column(frame, "sample")
        self.group = _column(frame, "group")


def _column(frame, name):
    if frame is None:
        return None
    if isinstance(frame, dict):
        return frame.get(name)
    return frame[name].to_numpy() if name in frame.columns else None


def _ranked(codes, y_score, doc_id, ties, grouping, rows, counts=None):
    """``(rank, key, block)`` of the given rows (:func:`flat_judgments`); without doc_id,
    ties in the ideal go to the earlier row. Under ``ties="average"``: the first rank of
    each row's tied block and its size (``block``; else None). ``grouping``: the rows
    grouped by query (:func:`group_rows`); ``counts``: the rows of each query, when counted
    with them (the ranking then does not count them again)."""
    key = np.negative(rows, dtype=np.int64) if doc_id is None else doc_keys(doc_id, rows)
    active = np.zeros(np.asarray(y_score).shape[0], dtype=bool)
    active[rows] = True
    if counts is not None:
        grouping.take_run_counts(active, counts)
    if ties == "average":
        rank, block = average_ranks(_row_codes(codes, grouping), y_score, active)
        return rank[rows], key, block[rows]
    rank = rank_active(
        codes, y_score, active, doc_id, ties or "doc_id", rows=rows, grouping=grouping
    )
    return rank, key, None


def _query_codes(qid, grouped):
    """``(codes, uniques, grouping)``: the rows' query codes and the sorted ids, and with
    ``grouped`` the rows grouped by query (:func:`group_rows`; else None). Queries in whole
    runs in id order (the usual flat arrays) are grouped first and their codes left None
    (:func:`_row_codes` repeats them from the run sizes where a step needs them): no
    factorisation of every row."""
    if grouped:
        grouping = group_rows(qid)
        if not grouping.interleaved and grouping.grouped is None:
            uniques = grouping.uniques
            grouping.uniques = np.arange(grouping.n_groups)  # as grouped by the codes
            return None, uniques, grouping
    codes, uniques = factorize_qid(qid)
    return codes, uniques, (group_rows(codes) if grouped else None)


def _row_codes(codes, grouping):
    """The rows' query codes: ``codes``, or (None: whole runs in code order) the codes
    repeated from the runs' sizes."""
    if codes is not None:
        return codes
    return np.repeat(np.arange(grouping.n_groups), grouping.sizes)


def evaluate_arrays_beyond(
    labels, y_score, qid, specs, options, *, ties, doc_id, extra, check=None
):
    """The evaluation of the beyond-relevance specs from flat arrays: ``labels`` 2-D (a
    column per subtopic) for the diversity measures; ``extra``: ``sample`` and ``group``.
    ``check``: :func:`refuse_labels`, when the labels' values are checked in the pass that
    reads them for the diversity measures (they are read first)."""
    labels = np.asarray(labels, dtype=np.float64)
    families = _by_family(specs, extra.get("sample") is not None)
    codes, uniques, grouping = _query_codes(np.asarray(qid), bool(families["diversity"]))
    n = len(uniques)
    columns = {}
    judgments = {}
    n_docs = None
    if families["diversity"]:
        if labels.ndim != 2:
            raise ValueError(
                "the diversity measures take y_true of shape (n_rows, n_subtopics): the label "
                "of each row for each subtopic (0 where not relevant); got a 1-D y_true."
            )
        n_docs = np.diff(grouping.offsets)  # rows per query, counted by the grouping
        ranked = partial(_ranked, codes, y_score, doc_id, ties, grouping)
        offsets = grouping.offsets if codes is None else None  # whole runs in code order
        build = partial(flat_judgments, labels, codes, n, ranked, check=check, offsets=offsets)
        columns.update(
            diversity_columns(families["diversity"], build, _default_rel(options), judgments)
        )
    rel = _default_rel(options)
    if codes is None and (families["exposure"] or families["fairness"] or rel not in judgments):
        codes = _row_codes(codes, grouping)
    if families["exposure"] or families["fairness"]:
        graded = labels if labels.ndim == 1 else labels.max(axis=1)
        rows = _Rows(codes, n, np.asarray(y_score), graded, dict(extra), ties, doc_id=doc_id)
        columns.update(exposure_columns(families["exposure"], rows, options))
        columns.update(fairness_columns(families["fairness"], rows, options))
    if n_docs is None:
        n_docs = np.bincount(codes, minlength=n)
    if rel in judgments:  # the documents relevant to a subtopic, counted there
        n_pos = judgments[rel].n_rel
    else:
        relevant = (labels >= rel) if labels.ndim == 1 else (labels >= rel).any(axis=1)
        n_pos = np.bincount(codes, weights=relevant, minlength=n)
    return beyond_evaluation(uniques, (n_docs, n_pos, n_docs - n_pos), columns, specs, options)


# -- the entry points' glue ---------------------------------------------------------------


def _merged(parts, options, order):
    from .._names._foreign import merge_columns

    return parts[0] if len(parts) == 1 else merge_columns(parts, options, order)


def _refuse_unsupported(options, unjudged="nonrelevant"):
    if options.get("max_docs") is not None or unjudged != "nonrelevant":
        raise ValueError(
            "the diversity, exposure and fairness measures rank every retrieved row: "
            "max_docs= and unjudged='remove' do not apply to them; evaluate them in a call "
            "without those options."
        )


def evaluate_run_with_beyond(run, qrels, split, evaluate_run, **kwargs):
    """:func:`evaluate_run` of a metrics list naming measures of this family (``split``:
    :func:`split_beyond`'s answer): the others through ``evaluate_run`` with one label per
    document (a subtopic judgment: the largest over the subtopics), then the columns merged
    in the order asked."""
    from .._options import check_options

    specs, others, order = split
    engine_keys = ("k", "missing_queries", "unjudged", "conventions", "query_stats", "n_jobs")
    options = {key: v for key, v in kwargs.items() if key not in engine_keys}
    resolved = check_options(kwargs.get("conventions", "trec_eval"), **options)
    _refuse_unsupported(resolved, kwargs.get("unjudged", "nonrelevant"))
    parts = []
    if others:
        plain = plain_qrels(qrels)
        columns = [c for c in run.columns if c not in ("sample", "group")]
        parts.append(evaluate_run(run[columns], plain, metrics=others, **kwargs))
    parts.append(
        evaluate_run_beyond(
            run,
            qrels,
            specs,
            resolved,
            ties=options.get("ties"),
            missing_queries=kwargs.get("missing_queries", "skip"),
        )
    )
    other_columns = list(parts[0].metrics) if others else []
    wanted = []
    for column in order:
        wanted.extend(other_columns if column in others else [column])
    return _merged(parts, resolved, list(dict.fromkeys(wanted)))


def plain_qrels(qrels):
    """One judgment per document: subtopic qrels reduced to each document's largest label
    (relevant to the topic when relevant to a subtopic, as ndeval's own MAP); others as
    given."""
    if not (isinstance(qrels, pd.DataFrame) and "subtopic" in qrels.columns):
        return qrels
    return qrels.groupby(["qid", "doc_id"], sort=False, as_index=False)["label"].max()


def check_subtopic_labels(y_true, n_rows, values=True):
    """``y_true`` as a float array, 1-D or 2-D (a column per subtopic), finite and >= 0
    (``values=False``: the shape only; the values are checked later)."""
    labels = (
        np.asarray(y_true, dtype=np.float64)
        if not hasattr(y_true, "to_numpy")
        else (y_true.to_numpy(dtype=np.float64))
    )
    if labels.ndim not in (1, 2) or labels.shape[0] != n_rows:
        raise ValueError(
            f"y_true must have one row per ranked row ({n_rows}): shape (n_rows,) or "
            f"(n_rows, n_subtopics); got shape {labels.shape}."
        )
    if values and labels.size:
        low, high = value_range(np.ascontiguousarray(labels).reshape(-1))
        if not low >= 0 or np.isinf(high):  # NaN fails
            refuse_labels()
    return labels


def refuse_labels():
    """The error for labels below 0, NaN or infinite."""
    raise ValueError("y_true must hold finite labels >= 0 (0: not relevant to a subtopic).")


def evaluate_with_beyond(y_true, y_score, qid, split, evaluate, **kwargs):
    """:func:`evaluate` of a metrics list naming measures of this family: the others on one
    label per row (the largest over the subtopics when ``y_true`` is 2-D)."""
    from ..._validation import check_1d, check_consistent_length, check_scores
    from .._options import check_options

    group, sample = kwargs.pop("group", None), kwargs.pop("sample", None)
    if split is None:
        raise ValueError(
            "group= and sample= are read by the exposure and fairness measures only (ee_loss, "
            "ee_disparity, ee_relevance, awrf, ndcg_awrf); name one in metrics=, or drop them."
        )
    specs, others, order = split
    skip = ("k", "query_stats", "n_jobs", "doc_id", "conventions")
    resolved = check_options(
        kwargs.get("conventions"), **{key: v for key, v in kwargs.items() if key not in skip}
    )
    _refuse_unsupported(resolved)
    qid_arr = check_1d(qid, "qid")
    # 2-D labels read by the diversity measures alone: their values are checked in the
    # compiled pass that finds the relevant cells (one pass over the largest input).
    diversity = all(spec.family == "diversity" for spec in specs)
    deferred = diversity and not others and np.ndim(y_true) == 2
    labels = check_subtopic_labels(y_true, qid_arr.shape[0], values=not deferred)
    scores = check_scores(y_score, qid_arr)
    doc_id = kwargs.get("doc_id")
    doc_arr = None if doc_id is None else check_1d(doc_id, "doc_id")
    group_arr = None if group is None else check_1d(group, "group")
    sample_arr = None if sample is None else check_1d(sample, "sample")
    check_consistent_length(
        y_score=scores, qid=qid_arr, doc_id=doc_arr, group=group_arr, sample=sample_arr
    )
    parts = []
    if others:
        graded = labels if labels.ndim == 1 else labels.max(axis=1)
        parts.append(evaluate(graded, scores, qid=qid, metrics=others, **kwargs))
    extra = {"sample": sample_arr, "group": group_arr}
    parts.append(
        evaluate_arrays_beyond(
            labels,
            scores,
            qid_arr,
            specs,
            resolved,
            ties=kwargs.get("ties"),
            doc_id=doc_arr,
            extra=extra,
            check=refuse_labels if deferred else None,
        )
    )
    other_columns = list(parts[0].metrics) if others else []
    wanted = []
    for column in order:
        wanted.extend(other_columns if column in others else [column])
    return _merged(parts, resolved, list(dict.fromkeys(wanted)))
