"""``ltr-eval pool``: its parser and its body, the judgment pool of TREC runs or, with
``--qrels``, each run's pool bias
(:mod:`sklearn_ltr_metrics.runs`). A bad flag value is argparse's usage error (exit 2, said in
flag terms); a bad file or a value the package refuses is one line on stderr (exit 1), never a
traceback (see ``_main.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ._argtypes import add_count
from ._inputs import existing, read_runs, run_files_parser
from ._output import emit, frame_as

__all__ = ["add_parser", "cmd_pool"]


def cmd_pool(args):
    """``ltr-eval pool``: the pool (to judge), or with ``--qrels`` the pool-bias report."""
    from ..io import read_trec_qrels
    from ..runs import make_pool, pool_report

    runs = read_runs(args)
    if args.qrels is None:
        pool = make_pool(runs, depth=args.depth)
        text = frame_as(pool, args.format)  # as every command prints its tables
        print(f"{len(pool)} (qid, doc_id) pairs to judge, depth {args.depth}", file=sys.stderr)
    else:
        qrels = read_trec_qrels(existing(args.qrels, "qrels file"))
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


#: ``ltr-eval pool``: name, its --run count and --output help, and its texts.
_PARSER = {
    "name": "pool",
    "min_runs": 1,
    "output_help": "write the table there (default: stdout)",
    "help": "the judgment pool of TREC runs; with --qrels, each run's pool bias",
    "description": "The union of the runs' top --depth documents per query (what to judge),\n"
    "or with --qrels the leave-one-run-out report: each metric with the full qrels,\n"
    "without the judged documents only that run pooled, and on condensed lists.",
    "examples": (
        "ltr-eval pool --run a.run --run b.run --depth 100 --format csv",
        "ltr-eval pool --run a.run --run b.run --qrels qrels.txt --metrics ndcg@10,map",
    ),
}


def add_parser(sub, commands):
    """Add ``pool`` to the subparsers ``sub`` of ``ltr-eval``."""
    pool_parser = run_files_parser(sub, commands, **_PARSER)
    add_count(pool_parser, "--depth", (1, 10**9), "a pool depth", 100, "pool depth (default: 100)")
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
