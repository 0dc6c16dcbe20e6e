"""The ``ltr-eval`` argument parser, its choices and help built from the package's registries.

Metric names and descriptions come from the metric registry, cut-off strategies from the
cut-off registry (their help shows what each gives for a few values of ``n_pos``, computed by
the strategy itself), presets and convention keys from ``CONVENTIONS``, paired tests and
corrections from :mod:`sklearn_ltr_metrics.stats`. Nothing here copies a name by hand, so a
new metric, strategy, preset or test shows up in ``--help`` and in the choices by itself.

Option values are checked while parsing (a bad value is a usage error, exit code 2): numbers
are bounded before any work (``--k 1000...0`` with 400 digits is refused here, not deep in
the engine), and metric specs are parsed by the engine's own parser.
"""

from __future__ import annotations

import argparse

import numpy as np

from .._engine import STRATEGIES
from ..metrics import CONVENTIONS, convention_options, describe_metric, get_metric, metric_names
from ..stats import correction_names, paired_test_names, pairwise_test_names
from ._argtypes import (
    DUPLICATES,
    EXIT_CODES,
    FORMATS,
    METRIC_PARAMETERS,
    MISSING_QUERIES,
    PROG,
    add_inputs,
    bounded_int,
    formatter,
    preset_names,
    probability,
)
from ._gate import add_gate_option
from ._judgments import add_qrels_format
from ._reconcile_args import add_reconcile
from ._runs import add_run_commands, parse_reranks

__all__ = ["build_parser"]


def _strategy_help(name):
    """What a cut-off strategy gives, computed by the strategy for a few values of n_pos."""
    n_pos = np.array([5.0, 20.0, 120.0])
    cutoffs = STRATEGIES[name](n_pos, np.zeros_like(n_pos))
    shown = "; ".join(
        f"n_pos={int(n)}: {','.join(str(int(c)) for c in sorted(set(row)))}"
        for n, row in zip(n_pos, cutoffs, strict=True)
    )
    return f"     {name:<11}{shown}"


def _wrap_units(units, first, width):
    """Lines of ``units`` joined by spaces, never split inside one, after ``first``."""
    lines, line = [], first
    for unit in units:
        if line.strip() and len(line) + 1 + len(unit) > width and len(line) > len(first):
            lines.append(line)
            line = " " * len(first)
        line = f"{line}{unit}" if len(line) == len(first) else f"{line} {unit}"
    return [*lines, line]


def _metric_help():
    lines = ["metric specs (--metrics): name or name@K, comma-separated, e.g. ndcg@10,map."]
    lines.append("  names:")
    for name in metric_names():
        metric = get_metric(name)
        alias = f" (= {metric.name})" if metric.name != name else ""
        cutoff = "" if metric.takes_cutoff else " [own cut-off, no @K]"
        description = describe_metric(name).partition(": ")[2]
        lines.append(f"     {name + ' ':<18}{description}{alias}{cutoff}")
    lines.append(
        "  also trec_eval's and ir_measures' names: P_10, P.5,10, ndcg_cut.10, all_trec, "
        "nDCG@10, P(rel=2)@5, ... (--format trec prints trec_eval -q's lines)"
    )
    lines.append(
        "  and of trec_eval's other judgment formats (--qrels-format): all_prefs, prefs_simp, "
        "... (prefs, qrels_prefs), qrels_jg, map_avgjg, P_avgjg.5,10, ... (qrels_jg)"
    )
    lines.append("  K: an integer >= 1, 'all', or a per-query strategy of the methodology:")
    lines.extend(_strategy_help(name) for name in STRATEGIES)
    lines.append("  a query with several cut-offs gets the mean over them.")
    lines.append(
        "--k gives the cut-off(s) of names without @K; a list makes one column per cut-off:"
    )
    lines.append("  --metrics recall,precision --k 5,10  ->  recall@5 recall@10 precision@5 ...")
    lines.append("conventions presets (--conventions; explicit options such as --gain win):")
    defaults = CONVENTIONS[None]
    width = max(map(len, preset_names())) + 2
    for name, options in CONVENTIONS.items():
        changed = {k: v for k, v in options.items() if name is None or v != defaults[k]}
        units = [f"--{k.replace('_', '-')} {v}" for k, v in changed.items() if v is not None]
        label = "default" if name is None else name
        lines.extend(_wrap_units(units, f"  {label:<{width}}", 80))
    lines.append("  TREC files default to trec_eval, tables and LETOR files to default.")
    return "\n".join(lines).replace("%", "%%") + "\n"


# --------------------------------------------------------------------------------------------
# The parser
# --------------------------------------------------------------------------------------------

_MAIN_HELP = """\
Group-aware evaluation of learning-to-rank models, the methodology's way: per-query
metrics, macro and weighted means with bootstrap intervals over queries, strata by the
number of relevant documents, difficulty correlations, warning signs, and paired tests
against a baseline.

Run 'ltr-eval <command> --help' for each command's options and examples.
"""


def _add_report_options(parser, *, formats=True):
    group = parser.add_argument_group("output")
    if formats:
        group.add_argument(
            "--format",
            choices=FORMATS,
            default="text",
            help="how to print the result on stdout (default: text)",
        )
    group.add_argument(
        "--output",
        metavar="DIR",
        help="also write a report directory: per_query.csv, per_cutoff.csv, summary.md, "
        "summary.json, report.html and plots/*.png",
    )
    group.add_argument(
        "--force",
        action="store_true",
        help="replace an existing report directory (never a folder holding other files)",
    )
    group.add_argument(
        "--n-resamples",
        type=bounded_int(1, 10**7, "a number of resamples"),
        default=1000,
        metavar="N",
        help="bootstrap resamples of queries for the intervals (default: 1000)",
    )
    group.add_argument(
        "--random-state",
        type=bounded_int(0, 2**32 - 1, "a seed"),
        default=0,
        metavar="SEED",
        help="seed of the bootstrap and tests (default: 0)",
    )


def _add_metric_options(parser):
    group = parser.add_argument_group("metrics and conventions")
    group.add_argument(
        "--metrics",
        metavar="SPECS",
        help="comma-separated metric specs (default: ndcg@10,precision@10,recall@10,map,mrr)",
    )
    group.add_argument(
        "--k",
        metavar="K",
        help="cut-off(s) for metrics given without @K; a list gives one column each",
    )
    group.add_argument(
        "--conventions",
        choices=preset_names(),
        help="preset of ties, gains and empty-query handling (see below)",
    )
    for key, spec in convention_options().items():
        option = "--" + key.replace("_", "-")
        text = spec["help"].replace("%", "%%")
        if key == "gain":
            text += "; a mapping is written LABEL:GAIN,... e.g. 0:0,1:1,2:3"
        if spec["choices"] is not None and key != "gain":
            group.add_argument(option, dest=key, choices=list(spec["choices"]), help=text)
        else:
            group.add_argument(option, dest=key, metavar=key.upper(), help=text)
    for key, text in METRIC_PARAMETERS.items():
        group.add_argument("--" + key.replace("_", "-"), dest=key, metavar=key.upper(), help=text)


def _add_duplicates(group):
    group.add_argument(
        "--duplicates",
        choices=DUPLICATES,
        default="error",
        help="a (qid, doc_id) pair on two lines of a TREC file: refuse the file, as trec_eval "
        "does, or keep its first or last line (default: error)",
    )


def _add_compare_qrels(compare):
    compare.add_argument("--qrels", required=True, metavar="FILE", help="TREC qrels")
    _add_duplicates(compare)
    add_qrels_format(compare)


def _add_demo(sub, commands):
    demo = sub.add_parser(
        "demo",
        help="generate data, cross-validate LambdaMART against baselines, write a report",
        description=(
            "Generate a data set in the methodology's shape (3-120 relevant and 510-4966\n"
            "non-relevant documents per query), cross-validate LambdaMART, Random, BM25\n"
            "(FeatureRanker on the bm25 column) and Oracle with group folds over the query\n"
            "ids, print the summary tables (headline: capped_recall@adaptive, the\n"
            "methodology's Recall@K = hits / min(K, n_pos)) and write the report directory.\n"
            "Running it again replaces the demo's own previous report (recognised by its\n"
            "summary.json); any other existing folder is refused unless --force is given,\n"
            "and a folder holding files no report wrote is never deleted."
        ),
        epilog=(
            "examples:\n  ltr-eval demo\n"
            "  ltr-eval demo --n-queries 60 --output quick\n\n" + EXIT_CODES
        ),
        formatter_class=formatter,
    )
    demo.add_argument(
        "--n-queries",
        type=bounded_int(1, 10**6, "a number of queries"),
        default=120,
        metavar="N",
        help="queries to generate (default: 120)",
    )
    demo.add_argument(
        "--folds",
        type=bounded_int(2, 1000, "a number of folds"),
        default=5,
        metavar="N",
        help="GroupKFold folds over qid (default: 5)",
    )
    demo.add_argument(
        "--n-estimators",
        type=bounded_int(1, 10**5, "a number of trees"),
        default=100,
        metavar="N",
        help="LambdaMART trees (default: 100)",
    )
    demo.add_argument(
        "--n-jobs",
        type=bounded_int(1, 4096, "a number of threads"),
        default=1,
        metavar="N",
        help="LightGBM threads (default: 1)",
    )
    _add_report_options(demo, formats=False)
    demo.set_defaults(subparser=demo, func=commands.get("demo"), output="ltr_report")


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
        default="skip",
        help="judged queries the run has nothing for: skip them, or score them 0 "
        "(trec_eval -c) (default: skip)",
    )
    _add_duplicates(inputs)
    add_qrels_format(inputs)


def _add_evaluate(sub, commands):
    evaluate = sub.add_parser(
        "evaluate",
        help="evaluate one ranking from TREC files, a table or LETOR + scores",
        description=EVALUATE_DESCRIPTION,
        epilog=(
            "examples:\n"
            "  ltr-eval evaluate --qrels qrels.test --run results.test --metrics ndcg@10,map\n"
            "  ltr-eval evaluate --table scores.csv --qid-col query --per-query --format csv\n"
            "  ltr-eval evaluate --letor test.txt --scores predictions.txt --output report\n\n"
            + _metric_help()
            + "\n"
            + EXIT_CODES
        ),
        formatter_class=formatter,
    )
    add_inputs(evaluate, _add_trec_input_options)
    _add_metric_options(evaluate)
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
    _add_report_options(evaluate)
    evaluate.set_defaults(subparser=evaluate, func=commands.get("evaluate"))


#: What ``ltr-eval compare --help`` says first.
COMPARE_DESCRIPTION = (
    "Evaluate several runs on the same qrels and test each against the baseline,\n"
    "query by query: mean and bootstrap interval, difference, p-value (corrected for\n"
    "the number of comparisons), Cohen's d and queries won/tied/lost.\n"
    "With --stages the runs are the ordered stages of one pipeline (first-stage\n"
    "retrieval, fusion, re-rankers): the stage table compares each stage with the\n"
    "one before it. With three or more runs the matrix of every pair follows.\n"
    "With --fail-if-worse it is a regression gate for CI: --baseline old.run --run\n"
    "new.run exits with 1 when new.run is significantly worse (one-sided test, over\n"
    "all queries and per stratum of n_pos, corrected together), else 0."
)


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
    compare.add_argument(
        "--depth",
        type=bounded_int(1, 10**9, "a depth"),
        default=100,
        metavar="N",
        help="reranking depth of --reranks (default: 100)",
    )


def _add_compare(sub, commands):
    compare = sub.add_parser(
        "compare",
        help="compare TREC runs on the same qrels with paired significance tests",
        description=COMPARE_DESCRIPTION,
        epilog=(
            "examples:\n"
            "  ltr-eval compare --qrels qrels.txt --run bm25.run --run lambdamart.run \\\n"
            "      --metrics ndcg@10,map --baseline bm25\n"
            "  ltr-eval compare --stages --qrels qrels.txt --run bm25.run --run fused.run \\\n"
            "      --run reranked.run\n"
            "  ltr-eval compare --qrels qrels.txt --baseline old.run --run new.run \\\n"
            "      --fail-if-worse ndcg@10:0.01   # exit 1 if new.run is worse\n\n"
            + _metric_help()
            + "\n"
            + EXIT_CODES
        ),
        formatter_class=formatter,
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
    add_gate_option(compare)
    _add_stage_options(compare)
    compare.add_argument(
        "--alpha",
        type=probability,
        default=0.05,
        metavar="A",
        help="significance level of the stage table, the matrix and the gate (default: 0.05)",
    )
    _add_test_options(compare)
    _add_metric_options(compare)
    _add_report_options(compare)
    compare.set_defaults(subparser=compare, func=commands.get("compare"))


def build_parser(commands=None):
    """The ``ltr-eval`` argument parser (``demo``, ``evaluate``, ``compare``, ``reconcile``).

    Parameters
    ----------
    commands : dict of str to callable, optional
        ``{"demo": f, "evaluate": g, "compare": h}``: the function each subcommand runs
        (stored as ``args.func``). Default: none (``args.func`` is None), for parsing
        alone; :func:`main` passes the package's commands.

    Returns
    -------
    argparse.ArgumentParser

    Examples
    --------
    >>> args = build_parser().parse_args(["demo", "--n-queries", "30"])
    >>> args.command, args.n_queries, args.folds, args.output
    ('demo', 30, 5, 'ltr_report')
    >>> args = build_parser().parse_args(["evaluate", "--table", "t.csv", "--gain", "linear"])
    >>> args.gain, args.ties, args.conventions
    ('linear', None, None)
    """
    if commands is None:
        commands = {}
    parser = argparse.ArgumentParser(
        prog=PROG, description=_MAIN_HELP, epilog=EXIT_CODES, formatter_class=formatter
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(title="commands", dest="command", required=True, metavar="command")
    _add_demo(sub, commands)
    _add_evaluate(sub, commands)
    _add_compare(sub, commands)
    add_reconcile(sub, commands)
    add_run_commands(sub, commands, formatter_class=formatter, epilog=EXIT_CODES)
    return parser
