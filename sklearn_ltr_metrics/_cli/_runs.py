"""The ``fuse`` and ``pool`` commands: operations on TREC runs (:mod:`sklearn_ltr_metrics.runs`).

Self-contained (its parsers, its commands, its output) so that the shared parser module only
calls :func:`add_run_commands`: this module imports nothing from the rest of the command
line, which keeps the import graph one way. A bad flag value is argparse's usage error (exit
2, said in flag terms); a bad file or a value the package refuses is one line on stderr
(exit 1), never a traceback (see ``_main.py``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..runs import fuse, fusion_method_names, fusion_params, normalization_names
from ._output import emit, frame_as

__all__ = ["add_run_commands", "ceiling_options", "cmd_fuse", "cmd_pool", "parse_reranks"]


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


def _existing(path, what):
    if not Path(path).is_file():
        raise FileNotFoundError(f"{what} {str(path)!r} does not exist or is not a file.")
    return path


def _read_runs(args):
    from ..io import read_trec_run

    if len(args.run) < args.min_runs:
        args.subparser.error(f"give at least {args.min_runs} --run files, got {len(args.run)}.")
    for name_of in (lambda p: Path(p).stem or Path(p).name, lambda p: Path(p).name, str):
        names = [name_of(p) for p in args.run]
        if len(set(names)) == len(names):
            break
    else:
        args.subparser.error(f"--run files repeat: {args.run}; give each run once.")
    paths = zip(names, args.run, strict=True)
    return {name: read_trec_run(_existing(path, "run file")) for name, path in paths}


def _parse_params(args):
    """``--param NAME=VALUE`` values: numbers, or comma-separated numbers (weights)."""
    params = {}
    accepted = fusion_params(args.method)
    for item in args.param or []:
        name, sep, text = item.partition("=")
        if not sep or not name:
            args.subparser.error(f"--param {item!r}: write NAME=VALUE, e.g. --param k=60.")
        if name not in accepted:
            names = ", ".join(accepted) or "none"
            args.subparser.error(
                f"--param {name}: --method {args.method} takes no {name!r} (it takes: {names})."
            )
        try:
            values = [float(v) for v in text.split(",")]
        except ValueError:
            args.subparser.error(f"--param {item!r}: {text!r} is not a number (or numbers).")
        params[name] = values if name == "weights" else values[0]
    missing = [name for name, default in accepted.items() if default is None and name not in params]
    if missing:
        example = "W1,W2 (one weight per --run)" if missing[0] == "weights" else "VALUE"
        args.subparser.error(f"--method {args.method} needs --param {missing[0]}={example}")
    return params


def cmd_fuse(args):
    """``ltr-eval fuse``: fuse the runs and write the fused TREC run."""
    from ..io import write_trec_run

    params = _parse_params(args)
    runs = _read_runs(args)
    try:
        fused = fuse(runs, args.method, norm=args.norm, **params)
    except (TypeError, ValueError) as exc:
        if "param" in str(exc) or "weights" in str(exc) or "method=" in str(exc):
            args.subparser.error(f"--param: {exc}")
        raise
    target = sys.stdout if args.output in (None, "-") else args.output
    write_trec_run(fused, target, tag=args.tag, overwrite=args.force)
    if target is not sys.stdout:
        print(f"fused run written to {args.output} ({len(fused)} rows)", file=sys.stderr)
    return 0


def cmd_pool(args):
    """``ltr-eval pool``: the pool (to judge), or with ``--qrels`` the pool-bias report."""
    from ..io import read_trec_qrels
    from ..runs import make_pool, pool_report

    runs = _read_runs(args)
    if args.qrels is None:
        pool = make_pool(runs, depth=args.depth)
        text = frame_as(pool, args.format)  # as every command prints its tables
        print(f"{len(pool)} (qid, doc_id) pairs to judge, depth {args.depth}", file=sys.stderr)
    else:
        qrels = read_trec_qrels(_existing(args.qrels, "qrels file"))
        metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
        report = pool_report(runs, qrels, depth=args.depth, metrics=metrics)
        text = frame_as(report, args.format)
        if args.format == "text":
            text = (
                f"Pool bias, leave-one-run-out (depth {args.depth}): 'pruned' drops the judged "
                "documents only that run pooled; 'condensed' also removes unjudged "
                f"documents before ranking\n\n{text}"
            )
    if args.output:
        path = Path(args.output)
        if path.exists() and not args.force:
            raise FileExistsError(f"--output {str(path)!r} exists; pass --force to replace it.")
        path.write_text(text if text.endswith("\n") else text + "\n")
    else:
        emit(text)
    return 0


def _common(parser, *, output_help):
    parser.add_argument(
        "--run", action="append", required=True, metavar="FILE", help="a TREC run; repeat"
    )
    parser.add_argument("--output", metavar="FILE", help=output_help)
    parser.add_argument("--force", action="store_true", help="replace an existing --output")


def _positive(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def add_run_commands(sub, commands, *, formatter_class, epilog):
    """Add ``fuse`` and ``pool`` to the subparsers ``sub`` of ``ltr-eval``."""
    fuse_parser = sub.add_parser(
        "fuse",
        help="fuse TREC runs into one run (rrf, combsum, combmnz, wsum, ...)",
        description="Fuse TREC runs into one, by one of ranx's fusion methods, under its\n"
        "names; values equal ranx.fuse's per (query, document).",
        epilog="examples:\n  ltr-eval fuse --run bm25.run --run dense.run --method rrf --param k=60"
        " --output hybrid.run\n  ltr-eval fuse --run a.run --run b.run --method wsum --param "
        "weights=0.3,0.7\n\n" + epilog,
        formatter_class=formatter_class,
    )
    _common(fuse_parser, output_help="the fused TREC run (default: stdout)")
    fuse_parser.add_argument(
        "--method",
        default="rrf",
        choices=fusion_method_names(aliases=True),
        metavar="NAME",
        help=f"fusion method (default: rrf): {', '.join(fusion_method_names())}",
    )
    fuse_parser.add_argument(
        "--norm",
        default="min-max",
        choices=normalization_names(),
        help="score normalisation of score-based methods (default: min-max)",
    )
    fuse_parser.add_argument(
        "--param",
        action="append",
        metavar="NAME=VALUE",
        help="a method parameter: k=60, gamma=0.5, sigma=0.01, phi=0.8, weights=0.3,0.7",
    )
    fuse_parser.add_argument("--tag", default="fused", help="run tag written (default: fused)")
    fuse_parser.set_defaults(subparser=fuse_parser, func=commands.get("fuse"), min_runs=2)

    pool_parser = sub.add_parser(
        "pool",
        help="the judgment pool of TREC runs; with --qrels, each run's pool bias",
        description="The union of the runs' top --depth documents per query (what to judge),\n"
        "or with --qrels the leave-one-run-out report: each metric with the full qrels,\n"
        "without the judged documents only that run pooled, and on condensed lists.",
        epilog="examples:\n  ltr-eval pool --run a.run --run b.run --depth 100 --format csv\n"
        "  ltr-eval pool --run a.run --run b.run --qrels qrels.txt --metrics ndcg@10,map\n\n"
        + epilog,
        formatter_class=formatter_class,
    )
    _common(pool_parser, output_help="write the table there (default: stdout)")
    pool_parser.add_argument(
        "--depth", type=_positive, default=100, metavar="N", help="pool depth (default: 100)"
    )
    pool_parser.add_argument("--qrels", metavar="FILE", help="TREC qrels: report the pool bias")
    pool_parser.add_argument(
        "--metrics",
        default="ndcg@10,map,recall@100",
        metavar="LIST",
        help="metrics of the pool-bias report (default: ndcg@10,map,recall@100)",
    )
    pool_parser.add_argument(
        "--format", choices=("text", "csv", "json"), default="text", help="(default: text)"
    )
    pool_parser.set_defaults(subparser=pool_parser, func=commands.get("pool"), min_runs=1)
