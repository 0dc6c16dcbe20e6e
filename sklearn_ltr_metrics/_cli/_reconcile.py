"""``ltr-eval reconcile``: why tools disagree on a metric, and which one printed a value.

It prints, for each metric, the means under every tool, the attribution of each pair's
difference to the options in which the tools differ (exact Shapley values), and the queries
that differ most with the rule that moves each; with ``--value``, the settings that
reproduce that number (:func:`~sklearn_ltr_metrics.metrics.which_convention`).
"""

from __future__ import annotations

import warnings
from pathlib import Path

from ..metrics._reconcile._tools import check_tools
from ._argtypes import UsageError, split_list
from ._inputs import existing, metric_specs, progress
from ._output import emit, frame_as

__all__ = ["cmd_reconcile"]


def _tools(args, *, run):
    if args.tools is None:
        return None
    tools = split_list(args.tools, "--tools")
    try:
        check_tools(tools, run=run)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"--tools: {exc}") from None
    return tools


def _flat_input(args):
    """``(name, y_true, y_score, qid, doc_id)`` of --table or --letor/--scores."""
    from ..io import read_letor, read_scores, read_table

    if args.table:
        table = read_table(
            existing(args.table, "table"),
            qid=args.qid_col,
            label=args.label_col,
            score=args.score_col,
            doc_id=args.doc_col,
        )
        doc_id = table["doc_id"] if args.doc_col else None
        return Path(args.table).name, table["label"], table["score"], table["qid"], doc_id
    if not (args.letor and args.scores):
        raise UsageError("--letor and --scores go together: give both.")
    _, y, qid = read_letor(existing(args.letor, "LETOR file"), dense=False)
    scores = read_scores(existing(args.scores, "scores file"), n_rows=len(y))
    return Path(args.scores).name, y, scores, qid, None


def _emit_result(result, fmt):
    emit(result.to_markdown() if fmt == "markdown" else result.to_text())


def _emit_matches(args, metric, flat):
    from ..metrics import which_convention

    _, y_true, y_score, qid, doc_id = flat
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = which_convention(
            args.value, y_true, y_score, qid, metric, doc_id=doc_id, tol=args.tol
        )
    nothing = any("no setting" in str(w.message) for w in caught)
    title = (
        f"No setting reproduces {args.value:g} for {metric} within {args.tol:g}; the nearest:"
        if nothing
        else f"Settings that reproduce {args.value:g} for {metric} (within {args.tol:g}):"
    )
    shown = found[["preset", "changes", "value", "difference"]]
    body = frame_as(shown, args.format, digits=6)
    emit(f"## {title}\n\n{body}" if args.format == "markdown" else f"{title}\n\n{body}")


def cmd_reconcile(args):
    """``ltr-eval reconcile``: means, attribution and queries per metric (and --value)."""
    from ..metrics import reconcile, reconcile_run

    if args.tol < 0:
        raise UsageError(f"--tol {args.tol!r} must be >= 0.")
    metrics = metric_specs(args)
    trec = bool(args.qrels or args.run)
    if trec:
        if not (args.qrels and args.run):
            raise UsageError("--qrels and --run go together: give both.")
        if args.value is not None:
            raise UsageError(
                "--value searches the settings of a table or LETOR input (flat rows with "
                "labels); give --table or --letor/--scores."
            )
        from ..io import read_trec_qrels, read_trec_run

        qrels = read_trec_qrels(existing(args.qrels, "qrels file"))
        run = read_trec_run(existing(args.run, "run file"))
    elif not (args.table or args.letor or args.scores):
        raise UsageError(
            "give the input: --qrels Q --run R, or --table T, or --letor L --scores S."
        )
    else:
        flat = _flat_input(args)
    tools = _tools(args, run=trec)
    for number, metric in enumerate(metrics):
        if number:
            emit("")
        progress(f"reconciling {metric}...")
        if trec:
            result = reconcile_run(run, qrels, metric, tools, n_queries=args.queries)
        else:
            _, y_true, y_score, qid, doc_id = flat
            result = reconcile(
                y_true, y_score, qid, metric, tools, doc_id=doc_id, n_queries=args.queries
            )
        _emit_result(result, args.format)
        if args.value is not None:
            emit("")
            _emit_matches(args, metric, flat)
    return 0
