"""The subcommands of ``ltr-eval``: one module each, holding its parser (``add_parser``) and
its body. :func:`~._parser.build_parser` adds their parsers in this order; ``main`` runs the
body :data:`COMMANDS` names."""

from __future__ import annotations

from . import _compare, _demo, _evaluate, _fuse, _pool, _reconcile

__all__ = ["COMMANDS", "SUBCOMMANDS"]

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
