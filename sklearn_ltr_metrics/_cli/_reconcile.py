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
from ._argtypes import (
    UsageError,
    add_count,
    add_inputs,
    command_parser,
    finite,
    split_list,
)
from ._inputs import existing, metric_specs, progress
from ._output import emit, frame_as

__all__ = ["add_parser", "cmd_reconcile"]


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


_RECONCILE_HELP = """\
Evaluate one metric under several tools' conventions (presets) and explain the
differences: the mean under each tool, how much of each pair's difference every
option explains (exact Shapley values over the options in which the two differ; they
add up to the difference), and the queries that differ most, each with the rule that
moves it. With --value, also the settings that reproduce a number seen elsewhere (a
training log, a paper): presets first, then one option changed, then two."""


_RECONCILE_TOOLS = (
    "comma-separated tools: presets (default, trec_eval, lightgbm, sklearn, ranx, "
    "ir_measures, xgboost, torchmetrics), each optionally followed by trec_eval flags "
    "-c, -J, -M<N>, -l<N>, 'judged_only' (ir_measures) or option=value, e.g. "
    "'trec_eval -M100,lightgbm' (default: every preset)"
)


_RECONCILE_TOL = "tolerance of --value (default: 1e-4)"
_RECONCILE_QUERIES = "queries listed per pair of tools (default: 3)"


def add_parser(sub, commands):
    """``ltr-eval reconcile``: the command lives in ``_reconcile.py``."""
    parser = command_parser(
        sub,
        commands,
        "reconcile",
        help="why tools disagree on a metric; which tool printed a value",
        description=_RECONCILE_HELP,
        examples=(
            "ltr-eval reconcile --table scores.csv --metrics ndcg@10 --value 0.7312",
            "ltr-eval reconcile --table scores.csv --metrics ndcg@10 --tools lightgbm,trec_eval",
            "ltr-eval reconcile --qrels qrels.txt --run bm25.run --metrics map \\\n"
            "      --tools 'trec_eval,trec_eval -c -J,ir_measures judged_only'",
        ),
    )
    add_inputs(parser)
    group = parser.add_argument_group("what to reconcile")
    group.add_argument(
        "--metrics", metavar="SPECS", default="ndcg@10", help="metric specs (default: ndcg@10)"
    )
    group.add_argument("--k", metavar="K", help="cut-off(s) for metrics given without @K")
    group.add_argument("--tools", metavar="TOOLS", help=_RECONCILE_TOOLS)
    group.add_argument(
        "--value",
        type=finite,
        metavar="V",
        help="a number seen elsewhere: list the settings that reproduce it (tables, LETOR)",
    )
    group.add_argument("--tol", type=finite, default=1e-4, metavar="T", help=_RECONCILE_TOL)
    add_count(group, "--queries", (0, 10**6), "a number of queries", 3, _RECONCILE_QUERIES)
    parser.add_argument(
        "--format",
        choices=("text", "markdown"),
        default="text",
        help="text, or markdown to paste into an issue (default: text)",
    )
