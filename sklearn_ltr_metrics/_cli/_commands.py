"""The ``evaluate`` and ``compare`` commands (``demo`` lives in ``_demo.py``, ``reconcile`` in
``_reconcile.py``)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd

from ..report._render import markdown_table, text_table
from ._argtypes import UsageError
from ._compare import print_matrix, resolve_baseline, run_gate
from ._demo import CURVE_CUTOFFS, CURVE_METRICS, run_demo
from ._inputs import (
    check_output,
    describe,
    metric_specs,
    progress,
    read_source,
    read_trec,
)
from ._output import emit, frame_as, report_as, write_report
from ._reconcile import cmd_reconcile
from ._runs import ceiling_options, cmd_fuse, cmd_pool
from ._trec import read_zscores, trec_layout

__all__ = ["COMMANDS", "cmd_compare", "cmd_evaluate"]


def _with_curves(evaluate, metrics):
    """(evaluation, per_cutoff) with the Recall@K / Precision@K curves added to per_cutoff."""
    main = evaluate(metrics)
    cutoffs = ",".join(map(str, CURVE_CUTOFFS))
    curves = evaluate([f"{m}@{cutoffs}" for m in CURVE_METRICS])
    return main, pd.concat([main.per_cutoff, curves.per_cutoff], ignore_index=True)


# --------------------------------------------------------------------------------------------
# evaluate
# --------------------------------------------------------------------------------------------


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
        evaluation, per_cutoff = _with_curves(source.evaluate, metrics)
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
            notes=[f"Conventions: {describe(evaluation.conventions)}"],
        )
    if report is not None and not args.output:
        # What a report directory would leave out says nothing when none is written.
        report = dataclasses.replace(report, omissions=())
    if not args.per_query:
        emit(report_as(report, args.format, "overall"))
    write_report(report, args, force)
    return 0


# --------------------------------------------------------------------------------------------
# compare
# --------------------------------------------------------------------------------------------


def _run_names(paths):
    """Short unique names of the runs: file stems, else file names, else the paths."""
    for name_of in (lambda p: Path(p).stem or Path(p).name, lambda p: Path(p).name, str):
        names = [name_of(p) for p in paths]
        if len(set(names)) == len(names):
            return names
    raise UsageError(f"--run files repeat: {paths}; give each run once.")


def _evaluate_runs(args, names, metrics, *, curves):
    from ._inputs import read_qrels

    qrels = read_qrels(args.qrels, args)
    per_query, per_cutoff = {}, {}
    for name, path in zip(names, args.run, strict=True):
        progress(f"evaluating {name}...")
        source = read_trec(args.qrels, path, args, qrels=qrels)
        for note in source.notes:
            progress(note)
        if curves:
            evaluation, per_cutoff[name] = _with_curves(source.evaluate, metrics)
        else:
            evaluation = source.evaluate(metrics)
        per_query[name] = evaluation.per_query
    query_sets = [set(table.index) for table in per_query.values()]
    shared = set.intersection(*query_sets)
    if any(len(s) != len(shared) for s in query_sets):
        progress(
            f"note: the runs retrieve for different queries; paired tests use the "
            f"{len(shared)} queries every run has."
        )
    return per_query, per_cutoff


def _print_stage_table(args, names, per_query, metrics):
    """The stage table of the runs in pipeline order, on the queries every stage has."""
    from ..stats import stage_table

    shared = per_query[names[0]].index
    for name in names[1:]:
        shared = shared.intersection(per_query[name].index, sort=False)
    table = stage_table(
        {name: per_query[name].loc[shared] for name in names},
        metrics=tuple(metrics),
        test=args.test,
        alpha=args.alpha,
        random_state=args.random_state,
        **ceiling_options(args, names),
    )
    if args.format == "csv":
        emit(table.to_csv(index=False, lineterminator="\n"))
    elif args.format == "json":
        emit(table.to_json(orient="records", double_precision=15, indent=2))
    else:
        title = (
            f"Stage table: each stage against the previous one ({args.test} test, "
            f"alpha {args.alpha:g}, {len(shared)} queries)"
        )
        body = frame_as(table, args.format)
        emit(f"## {title}\n\n{body}" if args.format == "markdown" else f"{title}\n\n{body}")


def cmd_compare(args):
    """``ltr-eval compare``: paired tests against a baseline, or the stage table."""
    from ..report import make_report

    force = check_output(args)
    if args.format == "trec":
        raise UsageError("--format trec is trec_eval's layout of one run: use ltr-eval evaluate.")
    given = resolve_baseline(args)
    names = _run_names(args.run)
    baseline = given if given is not None else names[0]
    if len(args.run) < 2:
        raise UsageError("compare needs at least two --run files (one is the baseline).")
    if baseline not in names:
        raise UsageError(f"--baseline {baseline!r} is not one of the runs {names}.")
    if args.reranks is not None and not args.stages:
        raise UsageError("--reranks declares reranking stages; it needs --stages.")
    if args.stages and args.baseline is not None:
        raise UsageError("--stages compares each stage with the one before; drop --baseline.")
    if args.stages and args.metrics is None:
        args.metrics = "ndcg@10,mrr@10,recall@100"
    metrics = metric_specs(args)
    if args.fail_if_worse and args.fail_if_worse[0] not in metrics:
        metrics.append(args.fail_if_worse[0])
    per_query, per_cutoff = _evaluate_runs(args, names, metrics, curves=bool(args.output))
    if args.fail_if_worse:
        return run_gate(args, per_query, baseline, names)
    if args.stages:
        _print_stage_table(args, names, per_query, metrics)
        if not args.output:
            return 0
    progress("comparing (paired tests, bootstrap intervals)...")
    report = make_report(
        per_query,
        per_cutoff=per_cutoff or None,
        baseline=baseline,
        test=args.test,
        correction=args.correction,
        n_resamples=args.n_resamples,
        on_mismatch="intersect",
        random_state=args.random_state,
        title=f"ltr-eval compare: {', '.join(names)} (baseline {baseline})",
    )
    if args.stages:
        pass
    elif args.format in ("text", "markdown"):
        _, title, table = next(t for t in report.tables() if t[0] == "comparison")
        if args.format == "text":
            emit(f"{title}\n\n{text_table(table)}")
        else:
            emit(f"## {title}\n\n{markdown_table(table)}")
    else:
        emit(report_as(report, args.format, "comparison"))
    if len(names) >= 3 and not args.stages:
        print_matrix(args, per_query, metrics)
    write_report(report, args, force)
    return 0


#: Subcommand -> the function it runs.
COMMANDS = {
    "demo": run_demo,
    "evaluate": cmd_evaluate,
    "compare": cmd_compare,
    "reconcile": cmd_reconcile,
    "fuse": cmd_fuse,
    "pool": cmd_pool,
}
