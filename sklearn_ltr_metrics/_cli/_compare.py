"""``ltr-eval compare``: its parser and its body (paired tests against a baseline, the stage
table, the significance matrix and the regression gate).

``--fail-if-worse METRIC[:MARGIN]`` turns ``compare`` into a check for CI pipelines: the new run
is tested against the baseline (``--baseline old.run``) overall and in each stratum of queries
by relevant documents (:func:`~sklearn_ltr_metrics.stats.regression_gate`); the command exits
with 3 when it is significantly worse, 0 otherwise (1 is a data error). With three or more
runs ``compare`` also prints the matrix of every pair
(:func:`~sklearn_ltr_metrics.stats.compare_all`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..report._render import markdown_table, text_table
from ..stats import correction_names, paired_test_names, pairwise_test_names
from ._argtypes import UsageError, add_count, add_qrels_format, command_parser, probability
from ._inputs import check_output, metric_specs, progress, read_trec, run_names
from ._output import emit, frame_as, report_as, with_curves, write_report
from ._parser import add_duplicates, add_metric_options, add_report_options, metric_help

__all__ = [
    "COMPARE_DESCRIPTION",
    "add_parser",
    "cmd_compare",
    "gate_spec",
    "parse_reranks",
    "print_matrix",
    "resolve_baseline",
    "run_gate",
]


#: What ``ltr-eval compare --help`` says first.
_DEPTH_HELP = "reranking depth of --reranks (default: 100)"

COMPARE_DESCRIPTION = (
    "Evaluate several runs on the same qrels and test each against the baseline,\n"
    "query by query: mean and bootstrap interval, difference, p-value (corrected for\n"
    "the number of comparisons), Cohen's d and queries won/tied/lost.\n"
    "With --stages the runs are the ordered stages of one pipeline (first-stage\n"
    "retrieval, fusion, re-rankers): the stage table compares each stage with the\n"
    "one before it. With three or more runs the matrix of every pair follows.\n"
    "With --fail-if-worse it is a regression gate for CI: --baseline old.run --run\n"
    "new.run exits with 3 when new.run is significantly worse (one-sided test, over\n"
    "all queries and per stratum of n_pos, corrected together), else 0."
)


def parse_reranks(text):
    """``--reranks llm=ce,ce=hybrid``: reranking stage -> the stage it reranks."""
    pairs = {}
    for item in text.split(","):
        stage, sep, source = (part.strip() for part in item.partition("="))
        if not (sep and stage and source):
            raise argparse.ArgumentTypeError(
                f"{item!r} is not STAGE=INPUT (e.g. --reranks rerank=hybrid,llm=rerank)"
            )
        pairs[stage] = source
    return pairs


def ceiling_options(args, names):
    """``stage_table``'s ceiling keywords from ``--reranks``/``--depth`` (none without)."""
    if getattr(args, "reranks", None) is None:
        return {}
    for name in [*args.reranks, *args.reranks.values()]:
        if name not in names:
            args.subparser.error(
                f"--reranks names {name!r}, which is not a --run stage ({', '.join(names)})."
            )
    metrics = [m.strip() for m in (args.metrics or "").split(",")]
    if f"recall@{args.depth}" not in metrics:
        args.subparser.error(
            f"--reranks checks recall@{args.depth}: add it to --metrics (or set --depth)."
        )
    return {"reranks": args.reranks, "depth": args.depth}


def gate_spec(text):
    """``METRIC[:MARGIN]`` -> (metric, margin); an argparse type (a bad value exits with 2)."""
    metric, sep, margin_text = str(text).rpartition(":")
    if not sep or "@" in margin_text:  # no margin (the colon, if any, is the metric's own)
        metric, margin_text = str(text), ""
    metric = metric.strip()
    if not metric:
        raise argparse.ArgumentTypeError(
            f"expected METRIC[:MARGIN] such as ndcg@10:0.01, got {text!r}"
        )
    margin = 0.0
    if margin_text.strip():
        try:
            margin = float(margin_text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"the margin of {text!r} must be a number >= 0 such as 0.01"
            ) from None
        if not margin >= 0 or margin == float("inf"):
            raise argparse.ArgumentTypeError(f"the margin of {text!r} must be a number >= 0")
    from ..metrics._registry import parse_metrics

    try:
        parse_metrics([metric])
    except (TypeError, ValueError) as exc:
        from ._flags import metric_error  # the --metrics message, in this option's name

        message = metric_error([metric], exc, option="--fail-if-worse")
        raise argparse.ArgumentTypeError(message.partition(": ")[2]) from None
    return metric, margin


def _add_compare_qrels(compare):
    compare.add_argument("--qrels", required=True, metavar="FILE", help="TREC qrels")
    add_duplicates(compare)
    add_qrels_format(compare)


def _add_test_options(compare):
    """``--test``, ``--matrix-test`` and ``--correction`` of ``compare``."""
    compare.add_argument(
        "--test",
        choices=paired_test_names(),
        default="permutation",
        help="paired test over queries (default: permutation)",
    )
    compare.add_argument(
        "--matrix-test",
        choices=pairwise_test_names(),
        default=None,
        help="test of the matrix of every pair with three or more runs; tukey is Tukey's HSD "
        "over all systems at once (default: --test)",
    )
    compare.add_argument(
        "--correction",
        choices=correction_names(),
        default="holm",
        help="multiple-comparison correction (default: holm)",
    )


def _add_stage_options(compare):
    """``--stages`` and the ceiling rule's ``--reranks`` / ``--depth`` of ``compare``."""
    compare.add_argument(
        "--stages",
        action="store_true",
        help="the runs are a pipeline's stages, in order: print the stage table",
    )
    compare.add_argument(
        "--reranks",
        type=parse_reranks,
        metavar="STAGE=INPUT,...",
        help="with --stages: stages that only rerank the top --depth of another (by file "
        "stem); the stage table's ceiling column checks their Recall@depth is their input's",
    )
    add_count(compare, "--depth", (1, 10**9), "a depth", 100, _DEPTH_HELP)


def add_parser(sub, commands):
    compare = command_parser(
        sub,
        commands,
        "compare",
        help="compare TREC runs on the same qrels with paired significance tests",
        description=COMPARE_DESCRIPTION,
        examples=(
            "ltr-eval compare --qrels qrels.txt --run bm25.run --run lambdamart.run \\\n"
            "      --metrics ndcg@10,map --baseline bm25",
            "ltr-eval compare --stages --qrels qrels.txt --run bm25.run --run fused.run \\\n"
            "      --run reranked.run",
            "ltr-eval compare --qrels qrels.txt --baseline old.run --run new.run \\\n"
            "      --fail-if-worse ndcg@10:0.01   # exit 3 if new.run is worse",
        ),
        more_help=metric_help() + "\n",
    )
    _add_compare_qrels(compare)
    compare.add_argument(
        "--run",
        action="append",
        required=True,
        metavar="FILE",
        help="a TREC run; repeat for each system (two or more)",
    )
    compare.add_argument(
        "--baseline",
        metavar="NAME",
        help="run to compare against: a --run's file stem, or a run file of its own "
        "(default: the first --run)",
    )
    _add_gate_option(compare)
    _add_stage_options(compare)
    compare.add_argument(
        "--alpha",
        type=probability,
        default=0.05,
        metavar="A",
        help="significance level of the stage table, the matrix and the gate (default: 0.05)",
    )
    _add_test_options(compare)
    add_metric_options(compare)
    add_report_options(compare)


def _add_gate_option(parser):
    """Add ``--fail-if-worse METRIC[:MARGIN]`` to the ``compare`` parser."""
    parser.add_argument(
        "--fail-if-worse",
        type=gate_spec,
        metavar="METRIC[:MARGIN]",
        help="regression gate: exit 3 when the run is significantly worse than --baseline on "
        "METRIC (by more than MARGIN), overall or in a stratum of n_pos; 0 otherwise",
    )


# --------------------------------------------------------------------------------------------


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
            evaluation, per_cutoff[name] = with_curves(source.evaluate, metrics)
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
    names = run_names(args.run)
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


def resolve_baseline(args):
    """``--baseline`` given as a run file that is not a ``--run``: it becomes the first run.

    Returns the ``--baseline`` value to match against the run names (its stem when it was a
    file), or None when it was not given.
    """
    if args.baseline is None:
        return None
    path = Path(args.baseline)
    if args.baseline in args.run:
        return path.stem or path.name
    if path.is_file():
        args.run = [args.baseline, *args.run]
        return path.stem or path.name
    return args.baseline


def run_gate(args, per_query, baseline, names):
    """Run the gate of ``--fail-if-worse``, print what it found; the exit code (0, or 3 when
    the gate fails: ``GateResult.exit_code``)."""
    from ..stats import regression_gate

    if args.stages or args.output:
        raise UsageError(
            "--fail-if-worse is a check: it takes neither --stages nor --output (run compare "
            "without it for the stage table or the report)."
        )
    others = [n for n in names if n != baseline]
    if len(others) != 1:
        raise UsageError(
            f"--fail-if-worse compares one new run with the baseline; got runs {names} "
            f"(baseline {baseline!r}): pass --baseline OLD --run NEW."
        )
    metric, margin = args.fail_if_worse
    result = regression_gate(
        per_query[baseline],
        per_query[others[0]],
        metric,
        margin=margin,
        test=args.test,
        correction=args.correction,
        alpha=args.alpha,
        random_state=args.random_state,
    )
    title = (
        f"Regression gate: {others[0]} against {baseline} on {metric} (margin {margin:g}, "
        f"one-sided {args.test} test, {args.correction} over the scopes, alpha {args.alpha:g})"
    )
    body = frame_as(result.table, args.format)
    if args.format in ("text", "markdown"):
        lines = "\n".join(result.summary())
        head = f"## {title}" if args.format == "markdown" else title
        emit(f"{head}\n\n{body}\n\n{lines}")
    else:
        emit(body)
        for line in result.summary():
            progress(line)
    return result.exit_code


def print_matrix(args, per_query, metrics):
    """The significance matrix of every pair of runs, one per metric (text, Markdown).

    The p-values are corrected over every (metric, pair) together (:func:`compare_all`).
    With ``--format csv`` or ``json`` stdout keeps one document (the comparison table); the
    matrix is in the report's ``summary.json`` (``--output``).
    """
    if args.format not in ("text", "markdown"):
        return
    from ..stats import compare_all

    test = args.matrix_test or args.test
    # Tukey's p-values already hold the family-wise rate over the pairs of one metric.
    correction = "none" if test == "tukey" else args.correction
    result = compare_all(
        per_query,
        list(metrics),
        test=test,
        correction=correction,
        alpha=args.alpha,
        random_state=args.random_state,
    )
    family = "pairs" if len(metrics) == 1 else "pairs and metrics"
    for metric in metrics:
        diff = result.matrix(metric, value="diff")
        marks = result.matrix(metric, value="significant")
        shown = diff.map(lambda v: "" if v != v else f"{v:+.4f}") + marks.map(
            lambda s: " *" if s else ""
        )
        shown = shown.reset_index().rename(columns={"system_a": "row - column"})
        title = (
            f"Every pair on {metric}: mean difference row - column ({_test_label(test)}, "
            f"{_correction_label(test, args.correction, family)}; * = significant at alpha "
            f"{args.alpha:g})"
        )
        body = frame_as(shown, args.format)
        emit(f"\n## {title}\n\n{body}" if args.format == "markdown" else f"\n{title}\n\n{body}")


def _test_label(test):
    return "Tukey's HSD" if test == "tukey" else f"{test} test"


def _correction_label(test, correction, family="pairs"):
    return (
        "family-wise over the pairs by design"
        if test == "tukey"
        else f"{correction} over the {family}"
    )
