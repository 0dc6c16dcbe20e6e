"""The options of ``ltr-eval reconcile`` (the command itself: ``_reconcile.py``)."""

from __future__ import annotations

from ._argtypes import EXIT_CODES, add_inputs, bounded_int, finite, formatter

__all__ = ["add_reconcile"]

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


def add_reconcile(sub, commands):
    """``ltr-eval reconcile``: the command lives in ``_reconcile.py``."""
    parser = sub.add_parser(
        "reconcile",
        help="why tools disagree on a metric; which tool printed a value",
        description=_RECONCILE_HELP,
        epilog=(
            "examples:\n"
            "  ltr-eval reconcile --table scores.csv --metrics ndcg@10 --value 0.7312\n"
            "  ltr-eval reconcile --table scores.csv --metrics ndcg@10 --tools lightgbm,trec_eval\n"
            "  ltr-eval reconcile --qrels qrels.txt --run bm25.run --metrics map \\\n"
            "      --tools 'trec_eval,trec_eval -c -J,ir_measures judged_only'\n\n" + EXIT_CODES
        ),
        formatter_class=formatter,
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
    group.add_argument(
        "--queries",
        type=bounded_int(0, 10**6, "a number of queries"),
        default=3,
        metavar="N",
        help="queries listed per pair of tools (default: 3)",
    )
    parser.add_argument(
        "--format",
        choices=("text", "markdown"),
        default="text",
        help="text, or markdown to paste into an issue (default: text)",
    )
    parser.set_defaults(subparser=parser, func=commands.get("reconcile"))
