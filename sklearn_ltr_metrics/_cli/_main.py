"""The ``ltr-eval`` command line: ``demo``, ``evaluate`` and ``compare``.

Exit codes: 0 success; 2 usage error (argparse's, also a bad combination of options);
1 data error (a malformed or missing file, a value the evaluation rejects, an output that
exists without ``--force``), printed as one line ``ltr-eval: error: <message>`` on stderr,
no traceback. :class:`DataFormatError` messages name the file and the line at fault.

Results go to stdout; progress lines and warnings go to stderr, so ``ltr-eval evaluate ...
--format csv > means.csv`` gives a clean file.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ..io._base import DataFormatError
from ..report._render import markdown_table, text_table

__all__ = ["build_parser", "main"]

PROG = "ltr-eval"
#: The methodology's metrics, reported by the demo.
DEMO_METRICS = (
    "ndcg@10",
    "recall@adaptive",
    "precision@adaptive",
    "capped_recall@capped",
    "map",
    "mrr",
)
#: Cut-offs of the recall@K / precision@K curves (and the precision-recall plot).
CURVE_CUTOFFS = (1, 2, 5, 10, 20, 50, 100, 200)
CONVENTION_CHOICES = ("default", "trec_eval", "lightgbm", "sklearn")
FORMATS = ("text", "markdown", "json", "csv")


class UsageError(Exception):
    """A bad combination of options: reported like argparse's own errors (exit code 2)."""


def _progress(message):
    print(message, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# Shared pieces
# --------------------------------------------------------------------------------------------


def _check_output(args):
    """Refuse an existing output before any work is done (and again when writing)."""
    if getattr(args, "output", None):
        from ..report._report import _check_report_target

        _check_report_target(Path(args.output), args.force)


def _write_report(report, args):
    if args.output:
        path = report.write(args.output, force=args.force)
        _progress(f"report written to {path}{'/'} (report.html, summary.md, summary.json, CSV)")


def _emit(text):
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _frame_as(frame, fmt, *, digits=4):
    """A DataFrame of numbers in one of FORMATS (text and markdown rounded for reading)."""
    if fmt == "csv":
        return frame.to_csv(index=False, lineterminator="\n")
    if fmt == "json":
        return frame.to_json(orient="records", double_precision=15, indent=2)

    def cell(value):
        if isinstance(value, (float, np.floating)):
            return "n/a" if math.isnan(value) else f"{round(float(value), digits) + 0.0:.{digits}f}"
        return str(value)

    shown = pd.DataFrame({c: [cell(v) for v in frame[c]] for c in frame.columns})
    return markdown_table(shown) if fmt == "markdown" else text_table(shown)


def _split_list(text, what):
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise UsageError(f"{what} is empty; give a comma-separated list.")
    return items


def _parse_k(text):
    if text is None:
        return None
    items = _split_list(text, "--k")
    if len(items) == 1:
        item = items[0]
        return int(item) if item.isdigit() else item
    if not all(item.isdigit() for item in items):
        raise UsageError(f"--k {text!r}: a list of cut-offs must hold integers, e.g. 5,10,20.")
    return [int(item) for item in items]


def _conventions(args, default):
    name = args.conventions or default
    return None if name == "default" else name


def _existing(path, what):
    if not Path(path).is_file():
        raise FileNotFoundError(f"{what} {str(path)!r} does not exist or is not a file.")
    return path


def read_scores(path, n_rows, data_name):
    """Scores for a LETOR file: one number per line, blank and ``#`` lines skipped."""
    values = []
    with open(_existing(path, "scores file"), encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            try:
                value = float(text)
            except ValueError:
                raise DataFormatError(
                    path, number, f"expected one score (a number) per line, got {text[:60]!r}"
                ) from None
            if not math.isfinite(value):
                raise DataFormatError(path, number, f"score {text!r} is not a finite number")
            values.append(value)
            if len(values) > n_rows:
                raise DataFormatError(
                    path,
                    number,
                    f"more scores than the {n_rows} rows of {data_name}; give one score per "
                    "row, in the same order",
                )
    if len(values) < n_rows:
        raise DataFormatError(
            path,
            None,
            f"has {len(values)} scores but {data_name} has {n_rows} rows; give one score per "
            "row, in the same order",
        )
    return np.asarray(values, dtype=np.float64)


def _evaluator(args):
    """(name, evaluate(metrics, k) -> RankingEvaluation) for the input options given."""
    from ..io._base import read_table
    from ..io._letor import read_letor
    from ..io._trec import read_trec_qrels, read_trec_run
    from ..metrics._evaluate import evaluate
    from ..metrics._evaluate_run import evaluate_run

    if args.qrels or args.run:
        if not (args.qrels and args.run):
            raise UsageError("--qrels and --run go together: give both.")
        qrels = read_trec_qrels(_existing(args.qrels, "qrels file"))
        run = read_trec_run(_existing(args.run, "run file"))
        conventions = _conventions(args, "trec_eval")
        return Path(args.run).name, lambda metrics, k: evaluate_run(
            run, qrels, metrics=metrics, k=k, conventions=conventions
        )
    conventions = _conventions(args, "default")
    if args.table:
        table = read_table(
            _existing(args.table, "table"),
            qid=args.qid_col,
            label=args.label_col,
            score=args.score_col,
            doc_id=args.doc_col,
        )
        doc_id = table["doc_id"] if args.doc_col else None
        return Path(args.table).name, lambda metrics, k: evaluate(
            table["label"],
            table["score"],
            qid=table["qid"],
            metrics=metrics,
            k=k,
            conventions=conventions,
            doc_id=doc_id,
        )
    if args.letor or args.scores:
        if not (args.letor and args.scores):
            raise UsageError("--letor and --scores go together: give both.")
        _, y, qid = read_letor(_existing(args.letor, "LETOR file"), dense=False)
        scores = read_scores(args.scores, len(y), args.letor)
        return Path(args.scores).name, lambda metrics, k: evaluate(
            y, scores, qid=qid, metrics=metrics, k=k, conventions=conventions
        )
    raise UsageError("give the input: --qrels Q --run R, or --table T, or --letor L --scores S.")


def _with_curves(evaluate_fn, metrics, k):
    """(per_query, per_cutoff) with recall/precision at CURVE_CUTOFFS added to per_cutoff."""
    main = evaluate_fn(metrics, k)
    curves = evaluate_fn(["recall", "precision"], list(CURVE_CUTOFFS))
    per_cutoff = pd.concat([main.per_cutoff, curves.per_cutoff], ignore_index=True)
    return main, per_cutoff


# --------------------------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------------------------


def _cmd_demo(args):
    from ..datasets._generate import BM25_FEATURE, make_ranking_data
    from ..metrics._evaluate import evaluate
    from ..metrics._scorer import predict_scores
    from ..model_selection import cross_validate_ranking
    from ..rankers._base import FeatureRanker, OracleRanker, RandomRanker
    from ..rankers._lambdamart import LambdaMARTRanker
    from ..report._report import make_report

    _check_output(args)
    if args.n_queries < args.folds:
        raise UsageError(f"--n-queries {args.n_queries} must be at least --folds {args.folds}.")
    start = time.perf_counter()
    X, y, qid = make_ranking_data(args.n_queries, random_state=args.random_state)
    _progress(
        f"generated {args.n_queries} queries, {len(y)} documents "
        f"({int((y > 0).sum())} relevant); {args.folds} group folds over qid"
    )
    from sklearn.model_selection import GroupKFold

    folds = list(GroupKFold(n_splits=args.folds).split(X, y, groups=qid))
    systems = {
        "BM25": FeatureRanker(BM25_FEATURE),
        "Random": RandomRanker(random_state=args.random_state),
        "LambdaMART": LambdaMARTRanker(
            n_estimators=args.n_estimators, n_jobs=args.n_jobs, random_state=args.random_state
        ),
        "Oracle": OracleRanker(),
    }
    per_query, per_cutoff = {}, {}
    for name, estimator in systems.items():
        tables, cutoffs = [], []
        for i, (train, test) in enumerate(folds):
            _progress(f"fold {i + 1}/{len(folds)} {name}...")
            result = cross_validate_ranking(
                estimator,
                X,
                y,
                qid=qid,
                scoring=list(DEMO_METRICS),
                cv=[(train, test)],
                return_estimator=True,
            )
            tables.append(result["per_query"].assign(fold=i))
            # The fold's scores again, for every cut-off of every metric (curves, per_cutoff.csv).
            scores = predict_scores(result["estimator"][0], X[test], y[test])
            for metrics, k in ((DEMO_METRICS, None), (("recall", "precision"), CURVE_CUTOFFS)):
                ev = evaluate(y[test], scores, qid=qid[test], metrics=list(metrics), k=k)
                cutoffs.append(ev.per_cutoff)
        per_query[name] = pd.concat(tables, ignore_index=True)
        per_cutoff[name] = pd.concat(cutoffs, ignore_index=True)
    _progress("summarising (bootstrap intervals, strata, paired tests)...")
    report = make_report(
        per_query,
        per_cutoff=per_cutoff,
        metrics=list(DEMO_METRICS),
        baseline="BM25",
        n_resamples=args.n_resamples,
        random_state=args.random_state,
        title="ltr-eval demo: LambdaMART against baselines",
        notes=[
            f"Data: make_ranking_data({args.n_queries}, random_state={args.random_state}); "
            f"{args.folds}-fold GroupKFold cross-validation over qid "
            f"(LambdaMART: {args.n_estimators} trees); BM25 = FeatureRanker(BM25_FEATURE); "
            "Oracle ranks by the true labels (the ceiling)."
        ],
    )
    _emit(report.to_text())
    _write_report(report, args)
    _progress(f"done in {time.perf_counter() - start:.1f} s")
    return 0


def _cmd_evaluate(args):
    from ..report._report import make_report

    _check_output(args)
    metrics = _split_list(args.metrics, "--metrics") if args.metrics else None
    k = _parse_k(args.k)
    name, evaluate_fn = _evaluator(args)
    if args.output:
        evaluation, per_cutoff = _with_curves(evaluate_fn, metrics, k)
    else:
        evaluation, per_cutoff = evaluate_fn(metrics, k), None
    if args.per_query:
        _emit(_frame_as(evaluation.per_query.reset_index(), args.format))
    report = None
    if args.output or not args.per_query:
        report = make_report(
            {name: evaluation.per_query},
            per_cutoff=None if per_cutoff is None else {name: per_cutoff},
            n_resamples=args.n_resamples,
            random_state=args.random_state,
            title=f"ltr-eval evaluate: {name}",
            notes=[f"Conventions: {_describe(evaluation.conventions)}"],
        )
    if not args.per_query:
        _emit(_report_as(report, args.format, "overall"))
    if args.output:
        _write_report(report, args)
    return 0


def _describe(conventions):
    preset = conventions.get("conventions")
    options = ", ".join(f"{k}={v}" for k, v in conventions.items() if k != "conventions")
    return f"{preset or 'default'} ({options})"


def _report_as(report, fmt, table):
    """The report in ``fmt``: text/markdown all tables, json everything, csv one table."""
    if fmt == "text":
        return report.to_text()
    if fmt == "markdown":
        return report.to_markdown()
    if fmt == "json":
        return report.to_json()
    frame = getattr(report, table)
    return frame.drop(columns=["system"] if table == "overall" else []).to_csv(
        index=False, lineterminator="\n"
    )


def _cmd_compare(args):
    from ..io._trec import read_trec_qrels, read_trec_run
    from ..metrics._evaluate_run import evaluate_run
    from ..report._report import make_report

    _check_output(args)
    if len(args.run) < 2:
        raise UsageError("compare needs at least two --run files (one is the baseline).")
    names = [Path(p).stem or Path(p).name for p in args.run]
    if len(set(names)) < len(names):
        names = [Path(p).name for p in args.run]
    if len(set(names)) < len(names):
        names = [str(p) for p in args.run]
    if len(set(names)) < len(names):
        raise UsageError(f"--run files repeat: {args.run}; give each run once.")
    baseline = args.baseline if args.baseline is not None else names[0]
    if baseline not in names:
        raise UsageError(f"--baseline {baseline!r} is not one of the runs {names}.")
    metrics = _split_list(args.metrics, "--metrics") if args.metrics else None
    k = _parse_k(args.k)
    conventions = _conventions(args, "trec_eval")
    qrels = read_trec_qrels(_existing(args.qrels, "qrels file"))
    per_query, per_cutoff = {}, {}
    for name, path in zip(names, args.run, strict=True):
        _progress(f"evaluating {name}...")
        run = read_trec_run(_existing(path, "run file"))

        def evaluate_fn(m, kk, run=run):
            return evaluate_run(run, qrels, metrics=m, k=kk, conventions=conventions)

        if args.output:
            evaluation, per_cutoff[name] = _with_curves(evaluate_fn, metrics, k)
        else:
            evaluation = evaluate_fn(metrics, k)
        per_query[name] = evaluation.per_query
    query_sets = {name: set(table.index) for name, table in per_query.items()}
    shared = set.intersection(*query_sets.values())
    if any(len(s) != len(shared) for s in query_sets.values()):
        _progress(
            f"note: the runs retrieve for different queries; paired tests use the "
            f"{len(shared)} queries every run has."
        )
    _progress("comparing (paired tests, bootstrap intervals)...")
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
    if args.format in ("text", "markdown"):
        _, title, table = next(t for t in report.tables() if t[0] == "comparison")
        if args.format == "text":
            _emit(f"{title}\n\n{text_table(table)}")
        else:
            _emit(f"## {title}\n\n{markdown_table(table)}")
    else:
        _emit(_report_as(report, args.format, "comparison"))
    _write_report(report, args)
    return 0


# --------------------------------------------------------------------------------------------
# Parser
# --------------------------------------------------------------------------------------------

_MAIN_HELP = """\
Group-aware evaluation of learning-to-rank models, the methodology's way: per-query
metrics, macro and weighted means with bootstrap intervals over queries, strata by the
number of relevant documents, difficulty correlations, warning signs, and paired tests
against a baseline.

commands:
  demo       generate data, cross-validate LambdaMART against baselines, write a report
  evaluate   evaluate one ranking: TREC qrels + run, a table of scores, or LETOR + scores
  compare    compare several TREC runs on the same qrels against a baseline

Run 'ltr-eval <command> --help' for each command's options and examples.
"""

_EXIT_CODES = """\
exit codes: 0 success, 2 usage error, 1 data error (the message names the file and line).
"""

_METRIC_HELP = """\
metric specs (--metrics): name or name@K, comma-separated, e.g. ndcg@10,map,recall@adaptive.
  names: precision, recall, capped_recall, hit_rate, mrr, map (average_precision),
         r_precision, ndcg, dcg, cg, f1, err, kendall_tau, spearman, judged (TREC runs)
  K: an integer, or a per-query strategy of the methodology:
     adaptive   n_pos < 10: 1,3,n_pos; < 50: 5,10,20,n_pos; else 10,20,50,n_pos
     percentile ceil(p * n_pos) for p = 10, 25, 50, 75, 100 %%
     capped     min(K, n_pos) for K = 5, 10, 20, 50, 100
  a query with several cut-offs gets the mean over them.
--k applies to names given without @K: --metrics recall,precision --k 5,10,20
conventions: trec_eval (linear gain, ties by doc_id, empty queries 0; the default for TREC
  files), lightgbm, sklearn, default (exact tie averaging, exponential gain, empty queries
  skipped; the default for tables and LETOR).
"""


def _formatter(prog):
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=30)


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
        type=_positive_int,
        default=1000,
        metavar="N",
        help="bootstrap resamples of queries for the intervals (default: 1000)",
    )
    group.add_argument(
        "--random-state",
        type=int,
        default=0,
        metavar="SEED",
        help="seed of the bootstrap and tests (default: 0)",
    )


def _add_metric_options(parser):
    group = parser.add_argument_group("metrics")
    group.add_argument(
        "--metrics",
        metavar="SPECS",
        help="comma-separated metric specs (default: ndcg@10,precision@10,recall@10,map,mrr)",
    )
    group.add_argument("--k", metavar="K", help="cut-off(s) for metrics given without @K")
    group.add_argument(
        "--conventions",
        choices=CONVENTION_CHOICES,
        help="preset of ties, gains and empty-query handling (see below)",
    )


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 1")
    return value


def build_parser():
    """The ``ltr-eval`` argument parser (subcommands ``demo``, ``evaluate``, ``compare``).

    Returns
    -------
    argparse.ArgumentParser

    Examples
    --------
    >>> args = build_parser().parse_args(["demo", "--n-queries", "30"])
    >>> args.command, args.n_queries, args.folds, args.output
    ('demo', 30, 5, 'ltr_report')
    """
    parser = argparse.ArgumentParser(
        prog=PROG, description=_MAIN_HELP, epilog=_EXIT_CODES, formatter_class=_formatter
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="command")

    demo = sub.add_parser(
        "demo",
        help="generate data, cross-validate LambdaMART against baselines, write a report",
        description=(
            "Generate a data set in the methodology's shape (3-120 relevant and 510-4966\n"
            "non-relevant documents per query), cross-validate LambdaMART, Random, BM25\n"
            "(FeatureRanker on the bm25 column) and Oracle with group folds over the query\n"
            "ids, print the summary tables and write the report directory."
        ),
        epilog=(
            "examples:\n  ltr-eval demo\n"
            "  ltr-eval demo --n-queries 60 --output quick --force\n\n" + _EXIT_CODES
        ),
        formatter_class=_formatter,
    )
    demo.add_argument(
        "--n-queries",
        type=_positive_int,
        default=120,
        metavar="N",
        help="queries to generate (default: 120)",
    )
    demo.add_argument(
        "--folds",
        type=_positive_int,
        default=5,
        metavar="N",
        help="GroupKFold folds over qid (default: 5)",
    )
    demo.add_argument(
        "--n-estimators",
        type=_positive_int,
        default=100,
        metavar="N",
        help="LambdaMART trees (default: 100)",
    )
    demo.add_argument(
        "--n-jobs", type=_positive_int, default=1, metavar="N", help="LightGBM threads (default: 1)"
    )
    _add_report_options(demo, formats=False)
    demo.set_defaults(subparser=demo, func=_cmd_demo, output="ltr_report")

    evaluate = sub.add_parser(
        "evaluate",
        help="evaluate one ranking from TREC files, a table or LETOR + scores",
        description=(
            "Evaluate one ranking per query and print the methodology's tables (or the\n"
            "per-query values). Input: TREC qrels + run, a table with query id, label and\n"
            "score columns (CSV, TSV, Parquet), or a LETOR/SVMlight file + a score file."
        ),
        epilog=(
            "examples:\n"
            "  ltr-eval evaluate --qrels qrels.test --run results.test --metrics ndcg@10,map\n"
            "  ltr-eval evaluate --table scores.csv --qid-col query --per-query --format csv\n"
            "  ltr-eval evaluate --letor test.txt --scores predictions.txt --output report\n\n"
            + _METRIC_HELP
            + "\n"
            + _EXIT_CODES
        ),
        formatter_class=_formatter,
    )
    inputs = evaluate.add_argument_group("input (one of the three)")
    inputs.add_argument("--qrels", metavar="FILE", help="TREC qrels: qid iter doc_id label")
    inputs.add_argument("--run", metavar="FILE", help="TREC run: qid Q0 doc_id rank score tag")
    inputs.add_argument("--table", metavar="FILE", help="CSV/TSV/Parquet, one row per document")
    inputs.add_argument(
        "--qid-col", default="qid", metavar="NAME", help="query-id column of --table (default: qid)"
    )
    inputs.add_argument(
        "--label-col",
        default="label",
        metavar="NAME",
        help="relevance column of --table (default: label)",
    )
    inputs.add_argument(
        "--score-col",
        default="score",
        metavar="NAME",
        help="score column of --table (default: score)",
    )
    inputs.add_argument(
        "--doc-col", metavar="NAME", help="document-id column of --table (for trec_eval ties)"
    )
    inputs.add_argument("--letor", metavar="FILE", help="LETOR/SVMlight file with qid: fields")
    inputs.add_argument(
        "--scores", metavar="FILE", help="one score per line, in the LETOR file's row order"
    )
    _add_metric_options(evaluate)
    evaluate.add_argument(
        "--per-query",
        action="store_true",
        help="print the per-query table instead of the summary",
    )
    _add_report_options(evaluate)
    evaluate.set_defaults(subparser=evaluate, func=_cmd_evaluate)

    compare = sub.add_parser(
        "compare",
        help="compare TREC runs on the same qrels with paired significance tests",
        description=(
            "Evaluate several runs on the same qrels and test each against the baseline,\n"
            "query by query: mean and bootstrap interval, difference, p-value (corrected for\n"
            "the number of comparisons), Cohen's d and queries won/tied/lost."
        ),
        epilog=(
            "example:\n"
            "  ltr-eval compare --qrels qrels.txt --run bm25.run --run lambdamart.run \\\n"
            "      --metrics ndcg@10,map --baseline bm25\n\n" + _METRIC_HELP + "\n" + _EXIT_CODES
        ),
        formatter_class=_formatter,
    )
    compare.add_argument("--qrels", required=True, metavar="FILE", help="TREC qrels")
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
        help="run to compare against, by file stem (default: the first)",
    )
    compare.add_argument(
        "--test",
        choices=("permutation", "sign", "wilcoxon", "t"),
        default="permutation",
        help="paired test over queries (default: permutation)",
    )
    compare.add_argument(
        "--correction",
        choices=("holm", "bh", "none"),
        default="holm",
        help="multiple-comparison correction (default: holm)",
    )
    _add_metric_options(compare)
    _add_report_options(compare)
    compare.set_defaults(subparser=compare, func=_cmd_compare)
    return parser


def _one_line(exc):
    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, FileNotFoundError) and exc.filename and str(exc.filename) not in text:
        text = f"{text}: {exc.filename}"
    return text


def main(argv=None):
    """Run ``ltr-eval``; returns the exit code (argparse exits with 2 on usage errors).

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name; default ``sys.argv[1:]``.

    Returns
    -------
    int
        0 on success, 1 on a data error (one line on stderr), 2 on a usage error.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            code = args.func(args)
        except UsageError as exc:
            args.subparser.error(str(exc))  # prints usage, exits with 2
        except (ValueError, TypeError, OSError) as exc:
            print(f"{PROG}: error: {_one_line(exc)}", file=sys.stderr)
            code = 1
        except KeyboardInterrupt:
            print(f"{PROG}: interrupted", file=sys.stderr)
            code = 130
        finally:
            for message in dict.fromkeys(str(w.message) for w in caught):
                print(f"{PROG}: warning: {' '.join(message.split())}", file=sys.stderr)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
