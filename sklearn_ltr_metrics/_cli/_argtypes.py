"""What the ``ltr-eval`` options take: names, value checks (argparse ``type=`` functions),
the usage error, and the help formatter, shared by the parser and the commands.

Option values are checked while parsing (a bad value is a usage error, exit code 2): numbers
are bounded before any work (``--k 1000...0`` with 400 digits is refused here, not deep in
the engine).
"""

from __future__ import annotations

import argparse
import difflib
import re

import numpy as np

from .._engine import STRATEGIES
from ..metrics import CONVENTIONS, convention_options

__all__ = [
    "DUPLICATES",
    "EXIT_CODES",
    "FORMATS",
    "GATE_FAILED",
    "MAX_CUTOFF",
    "METRIC_PARAMETERS",
    "MISSING_QUERIES",
    "PROG",
    "QRELS_FORMATS",
    "Parser",
    "SpecList",
    "UsageError",
    "add_count",
    "add_inputs",
    "add_qrels_format",
    "bounded_int",
    "command_parser",
    "convention_keys",
    "finite",
    "formatter",
    "parse_cutoff_token",
    "parse_gain",
    "parse_value",
    "preset_names",
    "probability",
    "qrels_format",
    "split_list",
]

PROG = "ltr-eval"
FORMATS = ("text", "markdown", "json", "csv", "trec")
#: Largest cut-off the command line takes (the engine's counters are 64-bit).
MAX_CUTOFF = 2**63 - 1
#: What ``--missing-queries`` accepts: ``evaluate_run(missing_queries=...)``.
MISSING_QUERIES = ("skip", "zero")
#: What ``--duplicates`` accepts: ``read_trec_run(duplicates=...)`` and ``read_trec_qrels``.
DUPLICATES = ("error", "first", "last")


class UsageError(Exception):
    """A bad option value or combination: reported like argparse's own errors (exit code 2)."""


# --------------------------------------------------------------------------------------------
# Registries as the parser sees them
# --------------------------------------------------------------------------------------------


def preset_names():
    """Conventions presets by their command-line names (``default`` for the package's own)."""
    return ["default" if name is None else name for name in CONVENTIONS]


def convention_keys():
    """The convention keys (``ties``, ``gain``, ...), each its own option."""
    return list(convention_options())


#: Metric parameters that are options too (a preset never sets them).
METRIC_PARAMETERS = {
    "beta": "beta of fbeta (F-beta; f1 stays F1) (default: 1)",
    "err_max_grade": "top relevance grade for err (default: 4)",
}


# --------------------------------------------------------------------------------------------
# Value checks (argparse ``type=`` functions)
# --------------------------------------------------------------------------------------------


def _integer(text, *, minimum, maximum, what):
    token = text.strip()
    digits = token.lstrip("+-")
    if not digits.isascii() or not digits.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer ({what})")
    if len(digits) > len(str(maximum)) or not minimum <= int(token) <= maximum:
        shown = token if len(token) <= 20 else f"{token[:8]}...{token[-4:]} ({len(digits)} digits)"
        raise argparse.ArgumentTypeError(f"{shown} must be between {minimum} and {maximum}")
    return int(token)


def bounded_int(minimum=1, maximum=10**9, what="a count"):
    """An argparse type: an integer in ``[minimum, maximum]``."""

    def convert(text):
        return _integer(text, minimum=minimum, maximum=maximum, what=what)

    convert.__name__ = what  # argparse names the type in its messages
    return convert


def add_count(parser, flag, bounds, what, default, help, metavar="N"):
    """Add the integer option ``flag``: ``bounded_int(*bounds, what)``, ``default`` and ``help``."""
    parser.add_argument(
        flag, type=bounded_int(*bounds, what), default=default, metavar=metavar, help=help
    )


def parse_cutoff_token(token, where):
    """One cut-off of ``--k`` or of ``name@K``: an int, ``all`` or a strategy name."""
    text = token.strip().lower()
    if text == "all" or text in STRATEGIES:
        return text
    try:
        return _integer(text, minimum=1, maximum=MAX_CUTOFF, what="a cut-off")
    except argparse.ArgumentTypeError:
        digits = text.lstrip("+-")
        shown = text if len(text) <= 20 else f"{text[:8]}...{text[-4:]} ({len(digits)} digits)"
        if digits.isascii() and digits.isdigit():
            bound = (
                "must be at least 1 (ranks count from 1)"
                if text.startswith("-") or not digits.strip("0")
                else f"is too large (at most {MAX_CUTOFF}, 2**63 - 1)"
            )
            why = f"cut-off {shown} {bound}"
        else:
            why = f"cut-off {shown!r} is not an integer"
        raise UsageError(
            f"{where}: {why}; give an integer >= 1 (one at or beyond a list's length means "
            f"the whole list), 'all', or one of {', '.join(STRATEGIES)}."
        ) from None


def split_list(text, what):
    """Comma-separated items of an option, stripped; empty is a usage error."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise UsageError(f"{what} {text!r} is empty; give a comma-separated list.")
    return items


def parse_gain(text):
    """``exponential``, ``linear`` or ``LABEL:GAIN,...`` (a mapping label -> gain)."""
    if ":" not in text:
        return text.strip()
    mapping = {}
    for item in split_list(text, "--gain"):
        label, _, gain = item.partition(":")
        try:
            key, value = float(label), float(gain)
        except ValueError:
            raise UsageError(
                f"--gain {text!r}: {item!r} is not LABEL:GAIN with two numbers, e.g. 0:0,1:1,2:3."
            ) from None
        mapping[int(key) if key.is_integer() else key] = value
    return mapping


def _number(text):
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def probability(text):
    value = _number(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must lie strictly between 0 and 1")
    return value


def finite(text):
    value = _number(text)
    if not np.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def parse_value(text):
    """A free option value: an int, else a float, else the text (``default_k adaptive``)."""
    token = text.strip()
    for convert in (int, float):
        try:
            return convert(token)
        except ValueError:
            pass
    return token


#: The exit code of ``compare --fail-if-worse`` when the gate fails (apart from data errors).
GATE_FAILED = 3

EXIT_CODES = """\
exit codes: 0 success, 2 usage error, 1 data error (one line 'ltr-eval: error: ...' naming
the file and line), 3 regression gate failed (compare --fail-if-worse), 130 interrupted.
"""


class Parser(argparse.ArgumentParser):
    """argparse's parser with hints in its errors: a misspelt command gets "did you mean",
    trec_eval's ``-m`` points to ``--metrics``."""

    def error(self, message):
        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if choice:
            names = re.findall(r"'([^']*)'", choice.group(2))
            close = difflib.get_close_matches(choice.group(1), names, n=1, cutoff=0.6)
            if close:
                message += f"; did you mean {close[0]!r}?"
        if message.startswith("unrecognized arguments:") and re.search(
            r"(^| )-m( |$)", message.partition(":")[2]
        ):
            message += (
                "; trec_eval's -m is --metrics here (comma-separated, or repeated: --metrics "
                "P.10 --metrics map)"
            )
        super().error(message)


class SpecList(argparse.Action):
    """``--metrics`` (``SPECS``): given several times, the lists add up, as trec_eval's ``-m``
    does; an empty one is a usage error (it would otherwise mean the defaults)."""

    def __call__(self, parser, namespace, values, option_string=None):
        if not values.replace(",", "").strip():
            parser.error(
                f"{option_string} {values!r} is empty; give comma-separated metric specs, e.g. "
                f"{option_string} ndcg@10,map"
            )
        current = getattr(namespace, self.dest, None)
        if current is None or current is self.default:
            setattr(namespace, self.dest, values)
        else:
            setattr(namespace, self.dest, f"{current},{values}")


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions as written; the commands listed once, without argparse's metavar line."""

    def _format_action(self, action):
        text = super()._format_action(action)
        if action.nargs == argparse.PARSER:
            return text.partition("\n")[2]
        return text


def formatter(prog):
    return _HelpFormatter(prog, max_help_position=30)


def command_parser(sub, commands, name, *, examples, more_help="", **texts):
    """The parser of the subcommand ``name``: ``sub.add_parser(name, **texts)`` (``help``,
    ``description``) in the house's format, its epilog the ``examples`` (command lines),
    ``more_help`` and the exit codes; ``args.func`` is ``commands.get(name)``."""
    epilog = "examples:\n" + "".join(f"  {line}\n" for line in examples) + "\n"
    parser = sub.add_parser(
        name, epilog=epilog + more_help + EXIT_CODES, formatter_class=formatter, **texts
    )
    parser.set_defaults(subparser=parser, func=commands.get(name))
    return parser


def add_inputs(parser, trec_options=None):
    """The "input (one of the three)" group: TREC qrels + run, a table, or LETOR + scores.

    ``trec_options(group)`` adds options of the TREC input after ``--qrels``/``--run``.
    """
    inputs = parser.add_argument_group("input (one of the three)")
    inputs.add_argument("--qrels", metavar="FILE", help="TREC qrels: qid iter doc_id label")
    inputs.add_argument("--run", metavar="FILE", help="TREC run: qid Q0 doc_id rank score tag")
    if trec_options is not None:
        trec_options(inputs)
    inputs.add_argument("--table", metavar="FILE", help="CSV/TSV/Parquet, one row per document")
    for role in ("qid", "label", "score"):
        inputs.add_argument(
            f"--{role}-col",
            default=role,
            metavar="NAME",
            help=f"{role} column of --table (default: {role})",
        )
    inputs.add_argument(
        "--doc-col", metavar="NAME", help="document-id column of --table (for trec_eval ties)"
    )
    inputs.add_argument("--letor", metavar="FILE", help="LETOR/SVMlight file with qid: fields")
    inputs.add_argument(
        "--scores", metavar="FILE", help="one score per line, in the LETOR file's row order"
    )
    return inputs


# --------------------------------------------------------------------------------------------
# --qrels-format: trec_eval's -R for evaluate and compare (qrels, qrels_jg, prefs,
# qrels_prefs; with --format trec, trec_eval's -q layout as -R <format> prints it), and
# subtopics: TREC diversity qrels 'qid subtopic doc_id label' (ndeval's measures)
# --------------------------------------------------------------------------------------------

#: The accepted values of ``--qrels-format`` (trec_eval's ``-R``).
QRELS_FORMATS = ("qrels", "qrels_jg", "qrels_prefs", "prefs", "subtopics")


def add_qrels_format(group):
    """Add ``--qrels-format`` to an argument group."""
    group.add_argument(
        "--qrels-format",
        choices=QRELS_FORMATS,
        default="qrels",
        help="format of --qrels, as trec_eval's -R: qrels ('qid iter doc_id label'), "
        "qrels_jg (the second column a judgment group; --metrics qrels_jg), prefs "
        "('qid jg jsg doc_id level' preferences) or qrels_prefs (qrels read as "
        "preferences; --metrics all_prefs) or subtopics (TREC diversity qrels 'qid subtopic "
        "doc_id label', ndeval's; --metrics alpha_nDCG@20 ...) (default: qrels)",
    )


def qrels_format(args):
    """The ``--qrels-format`` of parsed arguments (``qrels`` for commands without it)."""
    return getattr(args, "qrels_format", None) or "qrels"
