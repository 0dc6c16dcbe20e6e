"""The option groups the ``ltr-eval`` subcommands share, their choices and help built from the
package's registries (the parser itself: ``_commands.build_parser``).

Metric names and descriptions come from the metric registry, cut-off strategies from the
cut-off registry (their help shows what each gives for a few values of ``n_pos``, computed by
the strategy itself), presets and convention keys from ``CONVENTIONS``, paired tests and
corrections from :mod:`sklearn_ltr_metrics.stats`. Nothing here copies a name by hand, so a
new metric, strategy, preset or test shows up in ``--help`` and in the choices by itself.

Option values are checked while parsing (a bad value is a usage error, exit code 2): numbers
are bounded before any work (``--k 1000...0`` with 400 digits is refused here, not deep in
the engine), and metric specs are parsed by the engine's own parser.
"""

from __future__ import annotations

import numpy as np

from .._engine import STRATEGIES
from ..metrics import CONVENTIONS, convention_options, describe_metric, get_metric, metric_names
from ._argtypes import (
    DUPLICATES,
    FORMATS,
    METRIC_PARAMETERS,
    SpecList,
    add_count,
    preset_names,
)

_RESAMPLES = "bootstrap resamples of queries for the intervals (default: 1000)"
_SEED = "seed of the bootstrap and tests (default: 0)"

__all__ = [
    "add_duplicates",
    "add_metric_options",
    "add_report_options",
    "metric_help",
]


def _strategy_help(name):
    """What a cut-off strategy gives, computed by the strategy for a few values of n_pos."""
    n_pos = np.array([5.0, 20.0, 120.0])
    cutoffs = STRATEGIES[name](n_pos, np.zeros_like(n_pos))
    shown = "; ".join(
        f"n_pos={int(n)}: {','.join(str(int(c)) for c in sorted(set(row)))}"
        for n, row in zip(n_pos, cutoffs, strict=True)
    )
    return f"     {name:<11}{shown}"


def _wrap_units(units, first, width):
    """Lines of ``units`` joined by spaces, never split inside one, after ``first``."""
    lines, line = [], first
    for unit in units:
        if line.strip() and len(line) + 1 + len(unit) > width and len(line) > len(first):
            lines.append(line)
            line = " " * len(first)
        line = f"{line}{unit}" if len(line) == len(first) else f"{line} {unit}"
    return [*lines, line]


def metric_help():
    lines = ["metric specs (--metrics): name or name@K, comma-separated, e.g. ndcg@10,map."]
    lines.append("  names:")
    for name in metric_names():
        metric = get_metric(name)
        alias = f" (= {metric.name})" if metric.name != name else ""
        cutoff = "" if metric.takes_cutoff else " [own cut-off, no @K]"
        description = describe_metric(name).partition(": ")[2]
        lines.append(f"     {name + ' ':<18}{description}{alias}{cutoff}")
    lines.append(
        "  also trec_eval's and ir_measures' names: P_10, P.5,10, ndcg_cut.10, all_trec, "
        "nDCG@10, P(rel=2)@5, ... (--format trec prints trec_eval -q's lines)"
    )
    lines.append(
        "  and of trec_eval's other judgment formats (--qrels-format): all_prefs, prefs_simp, "
        "... (prefs, qrels_prefs), qrels_jg, map_avgjg, P_avgjg.5,10, ... (qrels_jg)"
    )
    lines.append("  K: an integer >= 1, 'all', or a per-query strategy of the methodology:")
    lines.extend(_strategy_help(name) for name in STRATEGIES)
    lines.append("  a query with several cut-offs gets the mean over them.")
    lines.append(
        "--k gives the cut-off(s) of names without @K; a list makes one column per cut-off:"
    )
    lines.append("  --metrics recall,precision --k 5,10  ->  recall@5 recall@10 precision@5 ...")
    lines.append("conventions presets (--conventions; explicit options such as --gain win):")
    defaults = CONVENTIONS[None]
    width = max(map(len, preset_names())) + 2
    for name, options in CONVENTIONS.items():
        changed = {k: v for k, v in options.items() if name is None or v != defaults[k]}
        units = [f"--{k.replace('_', '-')} {v}" for k, v in changed.items() if v is not None]
        label = "default" if name is None else name
        lines.extend(_wrap_units(units, f"  {label:<{width}}", 80))
    lines.append("  TREC files default to trec_eval, tables and LETOR files to default.")
    return "\n".join(lines).replace("%", "%%") + "\n"


# --------------------------------------------------------------------------------------------


def add_report_options(parser, *, formats=True):
    group = parser.add_argument_group("output")
    if formats:
        group.add_argument(
            "--format",
            choices=FORMATS,
            default="text",
            help="how to print the result on stdout (default: text)",
        )
    group.add_argument(
        "--output",
        metavar="DIR",
        help="also write a report directory: per_query.csv, per_cutoff.csv, summary.md, "
        "summary.json, report.html and plots/*.png",
    )
    group.add_argument(
        "--force",
        action="store_true",
        help="replace an existing report directory (never a folder holding other files)",
    )
    add_count(group, "--n-resamples", (1, 10**7), "a number of resamples", 1000, _RESAMPLES)
    add_count(group, "--random-state", (0, 2**32 - 1), "a seed", 0, _SEED, metavar="SEED")


def add_metric_options(parser):
    group = parser.add_argument_group("metrics and conventions")
    group.add_argument(
        "--metrics",
        metavar="SPECS",
        action=SpecList,
        help="comma-separated metric specs, or the option repeated (default: "
        "ndcg@10,precision@10,recall@10,map,mrr)",
    )
    group.add_argument(
        "--k",
        metavar="K",
        help="cut-off(s) for metrics given without @K; a list gives one column each",
    )
    group.add_argument(
        "--conventions",
        choices=preset_names(),
        help="preset of ties, gains and empty-query handling (see below)",
    )
    for key, spec in convention_options().items():
        option = "--" + key.replace("_", "-")
        text = spec["help"].replace("%", "%%")
        if key == "gain":
            text += "; a mapping is written LABEL:GAIN,... e.g. 0:0,1:1,2:3"
        if spec["choices"] is not None and key != "gain":
            group.add_argument(option, dest=key, choices=list(spec["choices"]), help=text)
        else:
            group.add_argument(option, dest=key, metavar=key.upper(), help=text)
    for key, text in METRIC_PARAMETERS.items():
        group.add_argument("--" + key.replace("_", "-"), dest=key, metavar=key.upper(), help=text)


def add_duplicates(group):
    group.add_argument(
        "--duplicates",
        choices=DUPLICATES,
        default="error",
        help="a (qid, doc_id) pair on two lines of a TREC file: refuse the file, as trec_eval "
        "does, or keep its first or last line (default: error)",
    )
