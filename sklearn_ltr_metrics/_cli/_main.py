"""The ``ltr-eval`` command line: ``demo``, ``evaluate``, ``compare`` and ``reconcile``.

Exit codes: 0 success; 2 usage error (argparse's, also a bad option value or combination);
3 a failed regression gate (``compare --fail-if-worse``); 1 data error (a malformed or
missing file, a value the evaluation rejects, an output that exists without ``--force``,
memory running out), printed as one line
``ltr-eval: error: <message>`` on stderr, never a traceback; 130 when interrupted (Ctrl-C),
quietly. :class:`~sklearn_ltr_metrics.io.DataFormatError` messages name the file and line.

One module per subcommand holds its parser and its body (``_demo.py``, ``_evaluate.py``,
``_compare.py``, ``_reconcile.py``, ``_fuse.py``, ``_pool.py``; listed in ``_commands.py``);
:func:`build_parser` is there too; the option groups they share are in ``_parser.py``, the
inputs in ``_inputs.py``, the output in ``_output.py``. This module only runs them and turns every
failure into its one line.
"""

from __future__ import annotations

import sys
import warnings

from ._argtypes import PROG, UsageError
from ._commands import COMMANDS, build_parser
from ._flags import in_flags

__all__ = ["build_parser", "main"]


def _one_line(exc):
    """The message of a failure, on one line."""
    text = " ".join(str(exc).split())
    if isinstance(exc, MemoryError):
        return (
            "out of memory" + (f" ({text})" if text else "") + "; use smaller inputs or fewer "
            "--n-resamples"
        )
    if isinstance(exc, FileNotFoundError) and exc.filename and str(exc.filename) not in text:
        text = f"{text}: {exc.filename}"
    if isinstance(exc, (ValueError, TypeError)):
        text = in_flags(text)  # the library's keyword arguments, as the options they are here
    if not isinstance(exc, (ValueError, TypeError, OSError)):
        # Not a failure the package reports on purpose: name its kind too.
        text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return text or type(exc).__name__


def _run(args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return args.func(args)
        except UsageError as exc:
            args.subparser.error(str(exc))  # prints usage, exits with 2
        finally:
            for message in dict.fromkeys(in_flags(str(w.message)) for w in caught):
                print(f"{PROG}: warning: {' '.join(message.split())}", file=sys.stderr)
    return 1  # pragma: no cover - error() exits


def main(argv=None):
    """Run ``ltr-eval``; returns the exit code (argparse exits with 2 on usage errors).

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name; default ``sys.argv[1:]``.

    Returns
    -------
    int
        0 on success, 1 on a data error (one line on stderr), 130 when interrupted.

    Raises
    ------
    SystemExit
        With code 2 on a usage error (and 0 for ``--help`` and ``--version``), as argparse
        does.
    """
    try:
        args = build_parser(COMMANDS).parse_args(argv)
        return _run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader of stdout went away (``ltr-eval ... | head``): nothing left to say.
        return 1
    except Exception as exc:  # the one place that turns any failure into one line
        print(f"{PROG}: error: {_one_line(exc)}", file=sys.stderr)
        return 1
