"""The subcommands of ``ltr-eval``: one module each, holding its parser (``add_parser``) and
its body; :func:`build_parser` adds their parsers in this order, ``main`` runs the body
:data:`COMMANDS` names."""

from __future__ import annotations

from . import _compare, _demo, _evaluate, _fuse, _pool, _reconcile
from ._argtypes import EXIT_CODES, PROG, Parser, formatter

__all__ = ["COMMANDS", "SUBCOMMANDS", "build_parser"]

#: The subcommands' modules, in the order ``ltr-eval --help`` lists them.
SUBCOMMANDS = (_demo, _evaluate, _compare, _reconcile, _fuse, _pool)

#: Subcommand -> the function it runs.
COMMANDS = {
    "demo": _demo.run_demo,
    "evaluate": _evaluate.cmd_evaluate,
    "compare": _compare.cmd_compare,
    "reconcile": _reconcile.cmd_reconcile,
    "fuse": _fuse.cmd_fuse,
    "pool": _pool.cmd_pool,
}

_MAIN_HELP = """\
Group-aware evaluation of learning-to-rank models, the methodology's way: per-query
metrics, macro and weighted means with bootstrap intervals over queries, strata by the
number of relevant documents, difficulty correlations, warning signs, and paired tests
against a baseline.

Run 'ltr-eval <command> --help' for each command's options and examples.
"""


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
    parser = Parser(prog=PROG, description=_MAIN_HELP, epilog=EXIT_CODES, formatter_class=formatter)
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(title="commands", dest="command", required=True, metavar="command")
    for module in SUBCOMMANDS:  # each subcommand's module adds its parser
        module.add_parser(sub, commands)
    return parser
