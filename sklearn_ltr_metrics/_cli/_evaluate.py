"""``ltr-eval evaluate``: its parser and its body (one ranking, its summary tables, its
per-query values or trec_eval's layout)."""

from __future__ import annotations

import dataclasses

from ._argtypes import (
    MISSING_QUERIES,
    UsageError,
    add_inputs,
    add_qrels_format,
    command_parser,
)
from ._inputs import check_output, describe, metric_specs, progress, read_source
from ._output import emit, frame_as, report_as, with_curves, write_report
from ._parser import add_duplicates, add_metric_options, add_report_options, metric_help
from ._trec import read_zscores, trec_layout

__all__ = ["EVALUATE_DESCRIPTION", "add_parser", "cmd_evaluate"]


#: What ``ltr-eval evaluate --help`` says first.
EVALUATE_DESCRIPTION = (
    "Evaluate one ranking per query and print the methodology's tables (or the\n"
    "per-query values). Input: TREC qrels + run, a table with query id, label and\n"
    "score columns (CSV, TSV, Parquet), or a LETOR/SVMlight file + a score file.\n"
    "With TREC files, stderr says how many queries were only in the run or only in\n"
    "the qrels; only queries in both are evaluated unless --missing-queries zero."
)


def _add_trec_input_options(inputs):
    """``--missing-queries`` and ``--duplicates`` of ``evaluate``'s TREC input."""
    inputs.add_argument(
        "--missing-queries",
        choices=MISSING_QUERIES,
        default=None,
        help="judged queries the run has nothing for: skip them, or score them 0 "
        "(trec_eval -c) (default: as the --conventions preset's tool: zero for ir_measures "
        "and ranx, skip otherwise)",
    )
    add_duplicates(inputs)
    add_qrels_format(inputs)


def add_parser(sub, commands):
    evaluate = command_parser(
        sub,
        commands,
        "evaluate",
        help="evaluate one ranking from TREC files, a table or LETOR + scores",
        description=EVALUATE_DESCRIPTION,
        examples=(
            "ltr-eval evaluate --qrels qrels.test --run results.test --metrics ndcg@10,map",
            "ltr-eval evaluate --table scores.csv --qid-col query --per-query --format csv",
            "ltr-eval evaluate --letor test.txt --scores predictions.txt --output report",
        ),
        more_help=metric_help() + "\n",
    )
    add_inputs(evaluate, _add_trec_input_options)
    add_metric_options(evaluate)
    evaluate.add_argument(
        "--per-query",
        action="store_true",
        help="print the per-query table instead of the summary",
    )
    evaluate.add_argument(
        "--zscores",
        metavar="FILE",
        help="with --format trec: print z-scores against FILE's lines 'qid measure mean "
        "stddev' (trec_eval -Z)",
    )
    add_report_options(evaluate)


def cmd_evaluate(args):
    """``ltr-eval evaluate``: one ranking, its summary tables or per-query values."""
    from ..report import make_report

    force = check_output(args)
    if args.format == "trec" and args.output:
        raise UsageError("--format trec prints trec_eval's layout only; drop --output.")
    if args.zscores and args.format != "trec":
        raise UsageError("--zscores gives trec_eval's -Z lines: add --format trec.")
    metrics = metric_specs(args)
    source = read_source(args)
    for note in source.notes:
        progress(note)
    if args.output:
        evaluation, per_cutoff = with_curves(source.evaluate, metrics)
    else:
        evaluation, per_cutoff = source.evaluate(metrics), None
    if args.format == "trec":
        zscores = read_zscores(args.zscores) if args.zscores else None
        run_id = evaluation.run_id or source.name
        emit(trec_layout(evaluation, metrics, run_id, zscores=zscores))
        return 0
    if args.per_query:
        emit(frame_as(evaluation.per_query.reset_index(), args.format))
    report = None
    if args.output or not args.per_query:
        report = make_report(
            {source.name: evaluation.per_query},
            per_cutoff=None if per_cutoff is None else {source.name: per_cutoff},
            n_resamples=args.n_resamples,
            random_state=args.random_state,
            title=f"ltr-eval evaluate: {source.name}",
            # The queries left out (only in the run, only in the qrels) said in the report too.
            notes=[
                f"Conventions: {describe(evaluation.conventions)}",
                *(note.removeprefix("note: ") for note in source.notes),
            ],
        )
    if report is not None and not args.output:
        # What a report directory would leave out says nothing when none is written.
        report = dataclasses.replace(report, omissions=())
    if not args.per_query:
        emit(report_as(report, args.format, "overall"))
    write_report(report, args, force)
    return 0
