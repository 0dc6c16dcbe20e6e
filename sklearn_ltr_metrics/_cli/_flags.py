"""The command line's own terms: messages in flags, metric-name suggestions, strict run lines.

The library's messages speak Python (``duplicates='first'``, ``qid='query'``, ``None for a
column``); on the command line the same mistake is fixed with a flag, so the commands pass
the library's messages through :func:`in_flags`, which writes each option as it is typed
(``--duplicates first``, ``--qid-col query``). An unknown metric name gets the package's
spelling of what the user meant (:func:`suggest_metric`: trec_eval's ``P_10`` or
``ndcg_cut.10``, ir_measures' ``nDCG@10`` or ``RR``, else the closest names), and a run line
with other than six columns is refused with its file and line (:func:`check_run_columns`),
where the library's reader, like trec_eval, would ignore a missing tag or extra fields.
"""

from __future__ import annotations

import bz2
import difflib
import gzip
import lzma
import re
from pathlib import Path

from ..io import DataFormatError
from ..metrics import convention_options, metric_names
from ._argtypes import METRIC_PARAMETERS

__all__ = [
    "TABLE_FLAGS",
    "check_run_columns",
    "flag",
    "in_flags",
    "metric_error",
    "suggest_metric",
]

#: read_table's keyword -> the ``evaluate --table`` option that names the column.
TABLE_FLAGS = {"qid": "qid-col", "label": "label-col", "score": "score-col", "doc_id": "doc-col"}

#: Whole phrases of the library's messages and their command-line wording (applied first).
_PHRASES = (
    (r"duplicates='first' or 'last'", "--duplicates first or --duplicates last"),
    (r"empty_query='skip', 'zero' or 'one'", "--empty-query skip, zero or one"),
    (
        r"pass doc_id=\.\.\., or choose another ties= policy",
        "give document ids (--doc-col with --table), or choose another --ties",
    ),
    (r"k=(\S+) \(default_k\)", r"--default-k \1"),
    (r"None means y_true > 0", "without --min-relevance, labels > 0 are relevant"),
    (r"\by_true\b", "the label"),
    (
        r"a mapping label -> gain such as \{0: 0, 1: 1, 2: 3\}",
        "a mapping LABEL:GAIN,... such as 0:0,1:1,2:3",
    ),
    (
        r"Pass the file's column names, or None for a column the table does not have\.",
        "Name the file's columns with --qid-col, --label-col and --score-col.",
    ),
)


def flag(key):
    """The option of a keyword argument: ``min_relevance`` -> ``--min-relevance``."""
    return "--" + key.replace("_", "-")


def _option_keys():
    keys = [*convention_options(), *METRIC_PARAMETERS, "duplicates", "conventions"]
    return {key: flag(key) for key in keys}


def in_flags(message, options=None):
    """``message`` with each ``key=value`` and bare ``key`` written as its option.

    Parameters
    ----------
    message : str
        A library message.
    options : dict of str to str, optional
        Keyword -> option name without dashes (e.g. :data:`TABLE_FLAGS`); default: the
        convention options, the metric parameters and ``duplicates``.

    Examples
    --------
    >>> in_flags("beta=0 must be a finite number > 0. e.g. beta=2 for F2.")
    '--beta 0 must be a finite number > 0. e.g. --beta 2 for F2.'
    >>> in_flags("has no column for qid='query'", TABLE_FLAGS)
    "has no column for --qid-col 'query'"
    """
    text = str(message)
    for pattern, replacement in _PHRASES:
        text = re.sub(pattern, replacement, text)
    keys = _option_keys() if options is None else {k: "--" + v for k, v in options.items()}
    quote = "'" if options is not None else ""  # column names keep their quotes
    for key, option in sorted(keys.items(), key=lambda item: -len(item[0])):
        text = re.sub(rf"(?<![\w-]){key}='([^']*)'", rf"{option} {quote}\1{quote}", text)
        text = re.sub(
            rf"(?<![\w-]){key}=([^\s,;)']+?)(?=[\s,;)]|\.(?:\s|$)|$)", rf"{option} \1", text
        )
        if "_" in key:  # a bare name; plain words (gain, ties) stay words
            text = re.sub(rf"(?<![\w'-]){key}(?![\w'=-])", option, text)
    return text


# --------------------------------------------------------------------------------------------
# Metric names: what the user meant
# --------------------------------------------------------------------------------------------

#: Other tools' spellings (trec_eval, ir_measures) -> the package's, ``{k}`` the cut-off.
_FOREIGN = (
    (r"p[_.@](\d+)", "precision@{k}", "trec_eval's P_k / ir_measures' P@k"),
    (r"(?:recall|r)[_.@](\d+)", "recall@{k}", "trec_eval's recall_k / ir_measures' R@k"),
    (r"ndcg_cut[_.](\d+)", "ndcg@{k}", "trec_eval's ndcg_cut_k"),
    (r"map_cut[_.](\d+)", "map@{k}", "trec_eval's map_cut_k"),
    (r"success[_.@](\d+)", "hit_rate@{k}", "trec_eval's success_k / ir_measures' Success@k"),
    (r"recip_rank", "mrr", "trec_eval's recip_rank"),
    (r"rr(?:@(\d+))?", "mrr{at_k}", "ir_measures' RR"),
    (r"ap(?:@(\d+))?", "map{at_k}", "ir_measures' AP"),
    (r"rprec", "r_precision", "trec_eval's Rprec"),
    (r"ndcg(\d+)", "ndcg@{k}", "NDCG written without '@'"),
)


def suggest_metric(spec):
    """The package's spelling of an unknown metric spec, with where the spelling comes from.

    Returns ``(suggestions, origin)``: a list of specs (possibly empty) and a short note
    naming the tool whose spelling was recognised (or ``None``).

    Examples
    --------
    >>> suggest_metric("P_10")
    (['precision@10'], "trec_eval's P_k / ir_measures' P@k")
    >>> suggest_metric("ndcg_cut.10")
    (['ndcg@10'], "trec_eval's ndcg_cut_k")
    >>> suggest_metric("recip_rank")
    (['mrr'], "trec_eval's recip_rank")
    >>> suggest_metric("ndgc@10")
    (['ndcg@10', 'rndcg@10'], None)
    """
    text = spec.strip().lower()
    for pattern, target, origin in _FOREIGN:
        match = re.fullmatch(pattern, text)
        if match:
            k = match.group(1) if match.groups() else None
            shown = target.format(k=k, at_k=f"@{k}" if k else "")
            return [shown], origin
    name, sep, k_text = text.partition("@")
    close = difflib.get_close_matches(name, metric_names(), n=3, cutoff=0.6)
    return [f"{c}{sep}{k_text}" for c in close], None


def _unknown_name(spec):
    """Whether the name of ``spec`` (before ``@``) is no metric the registry knows."""
    from ..metrics import get_metric
    from ..metrics._names._foreign import foreign_specs

    try:
        if foreign_specs(spec) is not None:
            return False  # a trec_eval / ir_measures name
    except ValueError:
        pass  # a foreign family with bad parameters: as before, by its name below
    name = spec.strip().lower().partition("@")[0]
    if re.fullmatch(r"f\d+(?:\.\d+)?", name):
        return False  # F-beta by its beta (f2, f0.5)
    try:
        get_metric(name)
    except ValueError:
        return True
    return False


def metric_error(specs, exc):
    """The ``--metrics`` usage message for the parser's error ``exc`` about ``specs``."""
    unknown = next((spec for spec in specs if _unknown_name(spec)), None)
    if unknown is None:
        return f"--metrics: {in_flags(str(exc))}"
    suggestions, origin = suggest_metric(unknown)
    hint = "."
    if suggestions:
        listed = " or ".join(repr(s) for s in suggestions)
        hint = f"; did you mean {listed}" + (f" ({origin})" if origin else "") + "?"
    return (
        f"--metrics: {unknown!r} is not a known metric{hint} Metric names: "
        f"{', '.join(metric_names())}; add @K for a cut-off (e.g. ndcg@10)."
    )


# --------------------------------------------------------------------------------------------
# Run files: exactly six columns
# --------------------------------------------------------------------------------------------

_RUN_FIELDS = "'qid Q0 doc_id rank score tag'"
_BLANK = r"[ \t\v\f\r]"
# A content line that does not hold exactly six whitespace-separated fields.
_ODD_LINE = re.compile(
    rf"(?m)^(?!{_BLANK}*(?:#.*)?$)(?!{_BLANK}*\S+(?:{_BLANK}+\S+){{5}}{_BLANK}*$).*$"
)
_OPENERS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}


def check_run_columns(path):
    """Raise a :class:`~sklearn_ltr_metrics.io.DataFormatError` at the first run line whose
    column count is not six (a missing tag, or fields after it)."""
    opener = _OPENERS.get(Path(path).suffix.lower(), open)
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except (OSError, EOFError, lzma.LZMAError):
        return  # unreadable: the reader reports it in its own words
    match = _ODD_LINE.search(text)
    if match is None:
        return
    line = match.group(0)
    n = len(line.split())
    why = {4: " (is this a qrels file?)", 5: " (no run tag: add one, e.g. 'run')"}.get(
        n, " (fields after the tag)" if n > 6 else ""
    )
    shown = line if len(line) <= 80 else line[:77] + "..."
    raise DataFormatError(
        path,
        text.count("\n", 0, match.start()) + 1,
        f"expected 6 columns {_RUN_FIELDS}, got {n}{why}: {shown!r}",
    )
