"""``ltr-eval fuse``: its parser and its body, fusing TREC runs into one run
(:mod:`sklearn_ltr_metrics.runs`). A bad flag value is argparse's usage error (exit 2, said in
flag terms); a bad file or a value the package refuses is one line on stderr (exit 1), never a
traceback (see ``_main.py``).
"""

from __future__ import annotations

import sys

from ..runs import fuse, fusion_method_names, fusion_params, normalization_names
from ._inputs import read_runs, run_files_parser

__all__ = ["add_parser", "cmd_fuse"]


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
    runs = read_runs(args)
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


#: ``ltr-eval fuse``: name, its --run count and --output help, and its texts.
_PARSER = {
    "name": "fuse",
    "min_runs": 2,
    "output_help": "the fused TREC run (default: stdout)",
    "help": "fuse TREC runs into one run (rrf, combsum, combmnz, wsum, ...)",
    "description": "Fuse TREC runs into one, by one of ranx's fusion methods, under its\n"
    "names; values equal ranx.fuse's per (query, document).",
    "examples": (
        "ltr-eval fuse --run bm25.run --run dense.run --method rrf --param k=60"
        " --output hybrid.run",
        "ltr-eval fuse --run a.run --run b.run --method wsum --param weights=0.3,0.7",
    ),
}


def add_parser(sub, commands):
    """Add ``fuse`` to the subparsers ``sub`` of ``ltr-eval``."""
    fuse_parser = run_files_parser(sub, commands, **_PARSER)
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
