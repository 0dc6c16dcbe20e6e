"""What the commands read: input files, metric specs, conventions and the output folder.

Every reader is the package's own (:mod:`sklearn_ltr_metrics.io`), so a malformed file is a
:class:`~sklearn_ltr_metrics.io.DataFormatError` naming the file and the line, which
:func:`~sklearn_ltr_metrics._cli._main.main` prints as one line.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..metrics import convention_options, get_metric
from ..metrics._judgments._measures import split_judgment_metrics
from ..metrics._names._beyond import parse_beyond
from ..metrics._options import check_options
from ..metrics._registry import DEFAULT_METRICS, parse_metrics
from ..report._write import GENERATOR, check_report_target
from ._argtypes import (
    METRIC_PARAMETERS,
    UsageError,
    command_parser,
    convention_keys,
    parse_cutoff_token,
    parse_gain,
    parse_value,
    qrels_format,
    split_list,
)
from ._flags import OPENERS, TABLE_FLAGS, check_run_columns, flag, in_flags, metric_error
from ._trec import join_parameter_lists

__all__ = [
    "Source",
    "check_output",
    "conventions",
    "existing",
    "metric_specs",
    "progress",
    "read_qrels",
    "read_run",
    "read_source",
]


def progress(message):
    """A progress or note line on stderr (stdout carries only results)."""
    print(message, file=sys.stderr, flush=True)


def existing(path, what):
    """``path`` if it is a file, else a ``FileNotFoundError`` naming it."""
    if not Path(path).is_file():
        raise FileNotFoundError(f"{what} {str(path)!r} does not exist or is not a file.")
    return path


# --------------------------------------------------------------------------------------------
# Metric specs and conventions
# --------------------------------------------------------------------------------------------


def _takes_cutoff(name):
    if split_judgment_metrics([name]) is not None:
        return False  # trec_eval's prefs / judgment-group measures: no @k
    try:
        return get_metric(name).takes_cutoff
    except ValueError:
        return True  # an unknown name: the engine's parser reports it with close matches


def metric_specs(args):
    """The metric specs of ``--metrics`` and ``--k``, one column per cut-off.

    ``--k 5,10`` gives ``recall@5`` and ``recall@10`` for a name given without ``@K`` (not
    one column averaging both); names that take no cut-off (``r_precision``) stay as they
    are. Every spec is checked by the engine's own parser, so a bad one is a usage error.
    """
    names = list(DEFAULT_METRICS)
    if args.metrics is not None:
        names = join_parameter_lists(split_list(args.metrics, "--metrics"))
    cutoffs = None
    if args.k is not None:
        cutoffs = [parse_cutoff_token(token, "--k") for token in split_list(args.k, "--k")]
    specs = []
    for raw in names:
        name, sep, k_text = raw.partition("@")
        if sep and k_text.strip():
            shown = raw if len(raw) <= 40 else f"{raw[:30]}...{raw[-6:]}"
            parse_cutoff_token(k_text, f"--metrics {shown!r}")
            specs.append(raw)
        elif sep or cutoffs is None or not _takes_cutoff(name):
            specs.append(raw)
        else:
            specs.extend(f"{name}@{k}" for k in cutoffs)
    specs = list(dict.fromkeys(specs))
    split = split_judgment_metrics([s for s in specs if parse_beyond(s) is None])
    try:
        # trec_eval's strings (relstring, runid, num_q) have a place in --format trec only.
        strings = getattr(args, "format", None) == "trec"
        plain = [s for s in specs if parse_beyond(s) is None]  # diversity, exposure: apart
        if (split is None and plain) or (split is not None and split[2]):
            parse_metrics(plain if split is None else split[2], strings=strings)
    except (TypeError, ValueError) as exc:
        raise UsageError(metric_error(specs, exc)) from None
    return specs


def conventions(args, default_preset):
    """Keyword arguments for the engine: the preset plus every convention option given.

    Explicit options override the preset key by key (``--gain exponential`` on TREC files
    keeps the trec_eval preset's empty-query rule, ties and relevance threshold).
    """
    preset = args.conventions or default_preset
    options = {"conventions": None if preset == "default" else preset}
    for key in [*convention_keys(), *METRIC_PARAMETERS]:
        value = getattr(args, key, None)
        if value is None:
            continue
        if key == "gain":
            options[key] = parse_gain(value)
        elif key in METRIC_PARAMETERS or convention_options()[key]["choices"] is None:
            options[key] = parse_value(value)  # a number (or a cut-off for default_k)
        else:
            options[key] = value  # one of the choices, checked by the parser
    try:
        check_options(**options)
    except (TypeError, ValueError) as exc:
        raise UsageError(in_flags(str(exc))) from None
    return options


def describe(options):
    """One line naming the conventions an evaluation used, as options (the report's notes)."""
    preset = options.get("conventions")
    shown = " ".join(
        f"{flag(k)} {v}" for k, v in options.items() if k != "conventions" and v is not None
    )
    return f"--conventions {preset or 'default'}: {shown}"


# --------------------------------------------------------------------------------------------
# Input files
# --------------------------------------------------------------------------------------------


@dataclass
class Source:
    """One ranking to evaluate: its display name and ``evaluate(metrics) -> evaluation``."""

    name: str
    evaluate: object
    notes: list = field(default_factory=list)


def _query_overlap_note(run, qrels, name, missing_queries):
    """The stderr note on queries only in the run or only in the qrels (or None)."""
    run_q, qrels_q = set(run["qid"]), set(qrels["qid"])
    only_run, only_qrels = len(run_q - qrels_q), len(qrels_q - run_q)
    if not only_run and not only_qrels:
        return None
    parts = []
    if only_run:
        parts.append(
            f"{only_run} quer{'y' if only_run == 1 else 'ies'} only in the run (no "
            "judgments: not evaluated)"
        )
    if only_qrels:
        action = (
            "scored 0 (--missing-queries zero, trec_eval -c; the ir_measures and ranx "
            "conventions' default)"
            if missing_queries == "zero"
            else "not evaluated; --missing-queries zero scores them 0, as trec_eval -c does"
        )
        parts.append(
            f"{only_qrels} quer{'y' if only_qrels == 1 else 'ies'} only in the qrels "
            f"(nothing retrieved: {action})"
        )
    return f"note: {name}: {'; '.join(parts)}; {len(run_q & qrels_q)} in both."


@contextlib.contextmanager
def _flag_terms(options=None):
    """Re-raise the library's file errors with their options written as flags."""
    from ..io import DataFormatError

    try:
        yield
    except DataFormatError as exc:
        raise DataFormatError(exc.path, exc.line, in_flags(exc.reason, options)) from None


def read_qrels(path, args):
    """The qrels of ``--qrels``; a repeated ``(qid, doc_id)`` follows ``--duplicates``."""
    from ..io import read_trec_qrels

    with _flag_terms():
        fmt = qrels_format(args)
        return read_trec_qrels(
            existing(path, "qrels file"),
            duplicates=getattr(args, "duplicates", "error"),
            format="qrels" if fmt == "subtopics" else fmt,
            subtopics=fmt == "subtopics",
        )


def read_run(path, args):
    """A run of ``--run``: exactly six columns per line, duplicates as ``--duplicates``."""
    from ..io import read_trec_run

    with _flag_terms():
        check_run_columns(existing(path, "run file"))
        return read_trec_run(path, duplicates=getattr(args, "duplicates", "error"), tag=True)


def read_trec(qrels_path, run_path, args, qrels=None):
    """A :class:`Source` for a TREC run against qrels (read here unless given)."""
    from ..metrics import evaluate_run
    from ..metrics._evaluate_run import missing_queries_policy

    if qrels is None:
        qrels = read_qrels(qrels_path, args)
    run = read_run(run_path, args)
    options = conventions(args, "trec_eval")
    missing = missing_queries_policy(getattr(args, "missing_queries", None), options["conventions"])
    note = _query_overlap_note(run, qrels, Path(run_path).name, missing)

    def evaluate(metrics):
        with warnings.catch_warnings():  # the note above says it, with the option's name
            warnings.filterwarnings("ignore", "[0-9]+ of [0-9]+ judged queries are not in")
            return evaluate_run(run, qrels, metrics=metrics, missing_queries=missing, **options)

    return Source(Path(run_path).name, evaluate, [note] if note else [])


def _read_table(args):
    """``--table`` with the ``--*-col`` columns; a missing column is named by its option."""
    from ..io import read_table

    with _flag_terms(TABLE_FLAGS):
        return read_table(
            existing(args.table, "table"),
            qid=args.qid_col,
            label=args.label_col,
            score=args.score_col,
            doc_id=args.doc_col,
        )


def _at_label_line(path, labels, exc):
    """``exc`` about one label (``... for the label 1e+300 ...``) as a
    :class:`~sklearn_ltr_metrics.io.DataFormatError` naming the file and that row's line;
    any other error as it is."""
    from ..io import DataFormatError

    match = re.search(r"for the label (\S+) ", str(exc))
    if match is None:
        return exc
    rows = np.flatnonzero(labels.to_numpy(dtype=np.float64) == float(match.group(1)))
    line = _data_line(path, int(rows[0])) if rows.size else None
    return DataFormatError(path, line, in_flags(str(exc)))


def _data_line(path, row):
    """The 1-based line of data row ``row`` of a text table (after its header, blank lines
    skipped, as :func:`~sklearn_ltr_metrics.io.read_table` reads it); None for a binary
    table (Parquet) or a row that cannot be found."""
    opener = OPENERS.get(Path(path).suffix.lower(), open)
    try:
        with opener(path, "rt", encoding="utf-8-sig", errors="replace") as handle:
            seen = -1  # the header
            for number, text in enumerate(handle, start=1):
                if not text.strip():
                    continue
                if seen == row:
                    return number
                seen += 1
    except (OSError, EOFError, ValueError):
        pass
    return None


def _one_input(args):
    """Refuse two kinds of input at once (one would be ignored)."""
    given = [
        flags
        for flags, on in (
            ("--qrels/--run", args.qrels or args.run),
            ("--table", args.table),
            ("--letor/--scores", args.letor or args.scores),
        )
        if on
    ]
    if len(given) > 1:
        raise UsageError(
            f"{' and '.join(given)} are different inputs and only one is evaluated; give "
            "either --qrels Q --run R, or --table T, or --letor L --scores S."
        )


def read_source(args):
    """The :class:`Source` of ``ltr-eval evaluate``'s input options."""
    from ..io import read_letor, read_scores
    from ..metrics import evaluate

    _one_input(args)
    if args.qrels or args.run:
        if not (args.qrels and args.run):
            raise UsageError("--qrels and --run go together: give both.")
        return read_trec(args.qrels, args.run, args)
    options = conventions(args, "default")
    if args.table:
        table = _read_table(args)
        doc_id = table["doc_id"] if args.doc_col else None

        def evaluate_table(metrics):
            try:
                return evaluate(
                    table["label"],
                    table["score"],
                    qid=table["qid"],
                    metrics=metrics,
                    doc_id=doc_id,
                    **options,
                )
            except ValueError as exc:
                raise _at_label_line(args.table, table["label"], exc) from None

        return Source(Path(args.table).name, evaluate_table)
    if args.letor or args.scores:
        if not (args.letor and args.scores):
            raise UsageError("--letor and --scores go together: give both.")
        _, y, qid = read_letor(existing(args.letor, "LETOR file"), dense=False)
        scores = read_scores(existing(args.scores, "scores file"), n_rows=len(y))
        return Source(
            Path(args.scores).name,
            lambda metrics: evaluate(y, scores, qid=qid, metrics=metrics, **options),
        )
    raise UsageError("give the input: --qrels Q --run R, or --table T, or --letor L --scores S.")


# --------------------------------------------------------------------------------------------
# The output folder
# --------------------------------------------------------------------------------------------


def is_demo_report(path):
    """Whether ``path`` holds a report the demo wrote (its summary.json says so)."""
    try:
        with open(Path(path) / "summary.json", encoding="utf-8") as handle:
            summary = json.load(handle)
        return str(summary.get("generator", "")).startswith(GENERATOR) and str(
            summary.get("title", "")
        ).startswith("ltr-eval demo")
    except (OSError, ValueError, AttributeError):
        return False


def check_output(args, *, replace_demo=False):
    """Whether to write ``--output`` with ``force``; refuses before any work what would fail.

    A new ``--output`` may be nested in folders that do not exist yet: the writer creates them.
    An existing one that even ``--force`` may not replace (a file, a folder holding files no
    report wrote, a read-only report) is refused with the reason, whether or not ``--force`` was
    given, so the message never suggests ``--force`` where it would not help. With
    ``replace_demo`` an earlier demo report is replaced without ``--force``.
    """
    output = getattr(args, "output", None)
    if not output:
        return False
    target = Path(output)
    check_report_target(target, force=True)  # refuses what no flag could make writable
    if not os.path.lexists(target):
        return False
    if args.force or (replace_demo and is_demo_report(target)):
        return True
    raise FileExistsError(
        f"{str(target)!r} already exists; pass --force to replace it, or choose another "
        "directory with --output."
    )


# --------------------------------------------------------------------------------------------
# Runs of fuse, pool and compare
# --------------------------------------------------------------------------------------------


def run_names(paths):
    """Short unique names of the runs: file stems, else file names, else the paths."""
    for name_of in (lambda p: Path(p).stem or Path(p).name, lambda p: Path(p).name, str):
        names = [name_of(p) for p in paths]
        if len(set(names)) == len(names):
            return names
    raise UsageError(f"--run files repeat: {paths}; give each run once.")


def read_runs(args):
    """The ``--run`` files of ``fuse`` and ``pool``, by :func:`run_names` (at least
    ``args.min_runs``)."""
    from ..io import read_trec_run

    if len(args.run) < args.min_runs:
        args.subparser.error(f"give at least {args.min_runs} --run files, got {len(args.run)}.")
    paths = zip(run_names(args.run), args.run, strict=True)
    return {name: read_trec_run(existing(path, "run file")) for name, path in paths}


def run_files_parser(sub, commands, name, *, min_runs, output_help, **texts):
    """The parser of ``fuse`` and ``pool``: :func:`command_parser` with ``--run`` (repeated,
    at least ``min_runs``), ``--output`` and ``--force``."""
    parser = command_parser(sub, commands, name, **texts)
    parser.set_defaults(min_runs=min_runs)
    parser.add_argument(
        "--run", action="append", required=True, metavar="FILE", help="a TREC run; repeat"
    )
    parser.add_argument("--output", metavar="FILE", help=output_help)
    parser.add_argument("--force", action="store_true", help="replace an existing --output")
    return parser
