"""The ``ltr-eval`` command line."""

import sys

__all__ = ["main"]


def main(argv=None):
    """Run ``ltr-eval`` (see ``_main.main``); ``--version`` alone answers without building the
    parser, whose registries import pandas and scikit-learn (about a second)."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args == ["--version"]:
        from .._version import __version__

        print(f"ltr-eval {__version__}")
        raise SystemExit(0)  # as argparse's version action does
    from ._main import main as run

    return run(argv)
